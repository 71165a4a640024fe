// The test processes' environment (test_environment.hpp).
#include "support/test_environment.hpp"

#include <cstdlib>

namespace beast::testing {

void SetTestEnvironment() {
  static const bool done = [] {
    // beast's own caches (the tuner's compiled programs, an exported
    // library's) never touch the user's. Everything else keeps the user's
    // caches: PoCL's kernel cache, content-addressed and only a speed-up,
    // stays shared, so a fresh clone on a machine that ran the tests starts
    // warm.
    setenv("BEAST_CACHE_DIR", BEAST_TEST_BINARY_DIR "/test_cache/programs", 1);
    setenv("BEAST_TUNED_CACHE_DIR", BEAST_TEST_BINARY_DIR "/test_cache/beast_tuned", 1);
    return true;
  }();
  (void)done;
}

void BuildPoclKernelsUnoptimized() {
  SetTestEnvironment();
  setenv("POCL_EXTRA_BUILD_FLAGS", "-cl-opt-disable", /*overwrite=*/0);
}

namespace {
const bool kSetBeforeMain = (SetTestEnvironment(), true);
}  // namespace

}  // namespace beast::testing
