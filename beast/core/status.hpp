// Status: how measuring one config ended, or a vendor library's call, or a
// candidate of a confirmation. One enum for the worker, the tuner, the store
// and the export; its text form ("ok", "compile_error", ...) appears only
// where beast meets text: the database, JSON, the worker's wire and the CLI.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string_view>

namespace beast {

enum class Status : uint8_t {
  kOk,
  kCompileError,
  kRuntimeError,
  kCrashed,
  kTimeout,
  kWrongResult,
  // A post-compile constraint rejected the compiled kernel, which did not run.
  kPrunedAfterCompile,
  // Compiled fine for a device that is not present (compile-only), not run.
  kCompiled,
  // A vendor library's routine cannot compute the problem (baselines only).
  kUnsupported,
};

// Every status, in the schema's order.
inline constexpr Status kAllStatuses[] = {
    Status::kOk,         Status::kCompileError, Status::kRuntimeError,       Status::kCrashed,
    Status::kTimeout,    Status::kWrongResult,  Status::kPrunedAfterCompile, Status::kCompiled,
    Status::kUnsupported};

// "ok", "compile_error", "runtime_error", "crashed", "timeout",
// "wrong_result", "pruned_after_compile", "compiled", "unsupported".
const char* StatusName(Status status);
// The status named `name`; nullopt for any other text.
std::optional<Status> ParseStatus(std::string_view name);

// Which statuses each kind of record may hold (the schema's CHECKs):
// a measurement any but unsupported; a baseline any but the two that only
// a compiled kernel can have; a confirmation candidate ok or a failure of
// building or running it.
bool IsMeasurementStatus(Status status);
bool IsBaselineStatus(Status status);
bool IsConfirmationStatus(Status status);

// Writes StatusName (test failure messages print statuses by name).
std::ostream& operator<<(std::ostream& out, Status status);

}  // namespace beast
