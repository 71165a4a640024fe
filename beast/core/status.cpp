// Status names and the statuses each record kind may hold (status.hpp).
#include "beast/core/status.hpp"

#include <ostream>

namespace beast {

const char* StatusName(Status status) {
  switch (status) {
    case Status::kOk:
      return "ok";
    case Status::kCompileError:
      return "compile_error";
    case Status::kRuntimeError:
      return "runtime_error";
    case Status::kCrashed:
      return "crashed";
    case Status::kTimeout:
      return "timeout";
    case Status::kWrongResult:
      return "wrong_result";
    case Status::kPrunedAfterCompile:
      return "pruned_after_compile";
    case Status::kCompiled:
      return "compiled";
    case Status::kUnsupported:
      return "unsupported";
  }
  return "?";
}

std::optional<Status> ParseStatus(std::string_view name) {
  for (Status s : kAllStatuses) {
    if (name == StatusName(s)) return s;
  }
  return std::nullopt;
}

bool IsMeasurementStatus(Status status) { return status != Status::kUnsupported; }

bool IsBaselineStatus(Status status) {
  return status != Status::kPrunedAfterCompile && status != Status::kCompiled;
}

bool IsConfirmationStatus(Status status) {
  return status == Status::kOk || status == Status::kCompileError ||
         status == Status::kRuntimeError || status == Status::kCrashed ||
         status == Status::kTimeout;
}

std::ostream& operator<<(std::ostream& out, Status status) { return out << StatusName(status); }

}  // namespace beast
