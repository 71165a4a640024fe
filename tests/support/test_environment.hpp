// The environment every test process runs in, set before main by
// test_environment.cpp (compiled into every test executable): beast's caches
// in the build tree, every other program's (PoCL's kernel cache) where it
// keeps them for the user.
#pragma once

namespace beast::testing {

// Sets it once; later calls do nothing. Before main, and first thing in
// whatever else changes the environment before main (command_runner.hpp), so
// the order of the initializers does not matter.
void SetTestEnvironment();

}  // namespace beast::testing
