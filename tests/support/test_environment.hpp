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

// Makes PoCL build this process's kernels, and those of the processes it
// starts, without LLVM's optimizations (POCL_EXTRA_BUILD_FLAGS=
// -cl-opt-disable, which PoCL reads once a process; a value the user set
// stands), for tests that check what kernels compute, not how fast: on a
// cold kernel cache a build is most of what such a test costs. Call it
// before the first build (before main). Unoptimized, a kernel's private
// arrays stay on the stack of PoCL's work-group function: a Winograd config
// of 2,304 work-items per group crashes so (SIGSEGV) where the optimized
// build runs.
void BuildPoclKernelsUnoptimized();

}  // namespace beast::testing
