// The two out-of-line pieces of beast's error tiers: names of error codes (for
// the CLI's one-line messages) and the abort path of BEAST_CHECK.
#include "beast/core/error.hpp"

#include <cstdio>
#include <cstdlib>

namespace beast {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kBadArgument:
      return "bad argument";
    case ErrorCode::kBadInput:
      return "bad input";
    case ErrorCode::kNotFound:
      return "not found";
    case ErrorCode::kEmptySpace:
      return "empty space";
    case ErrorCode::kDatabase:
      return "database error";
    case ErrorCode::kDamaged:
      return "damaged database";
    case ErrorCode::kEnvironment:
      return "environment error";
    case ErrorCode::kInternal:
      return "internal error";
    case ErrorCode::kProblemSetup:
      return "problem setup failed";
  }
  return "unknown error";
}

void CheckFailed(const char* file, int line, const char* condition) {
  // A broken invariant is a bug: say where, then abort so a debugger or core
  // dump catches the state instead of unwinding past it.
  std::fprintf(stderr, "beast: internal check failed: %s at %s:%d\n", condition, file, line);
  std::fflush(stderr);
  std::abort();
}

}  // namespace beast
