// The test processes' environment (test_environment.hpp).
#include "support/test_environment.hpp"

#include <cstdlib>
#include <string>

namespace beast::testing {
namespace {

std::string Given(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

void SetTestEnvironment() {
  static const bool done = [] {
    // PoCL's kernel cache, content-addressed and only a speed-up, stays where
    // PoCL keeps it for this user (POCL_CACHE_DIR, else
    // $XDG_CACHE_HOME/pocl/kcache, else ~/.cache/pocl/kcache), so a fresh
    // clone on a machine that ran the tests starts warm; it is fixed here,
    // before XDG_CACHE_HOME moves.
    // Without a home to keep it in, the build tree's.
    if (Given("POCL_CACHE_DIR").empty()) {
      const std::string xdg = Given("XDG_CACHE_HOME"), home = Given("HOME");
      const std::string base = !xdg.empty()    ? xdg
                               : !home.empty() ? home + "/.cache"
                                               : BEAST_TEST_BINARY_DIR "/test_cache";
      setenv("POCL_CACHE_DIR", (base + "/pocl/kcache").c_str(), 1);
    }
    // beast's own caches (compiled programs) never touch the user's.
    setenv("XDG_CACHE_HOME", BEAST_TEST_BINARY_DIR "/test_cache", 1);
    return true;
  }();
  (void)done;
}

namespace {
const bool kSetBeforeMain = (SetTestEnvironment(), true);
}  // namespace

}  // namespace beast::testing
