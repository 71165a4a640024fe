// The result of timing a vendor library's routine on a problem (CLBlast on
// OpenCL, cuBLAS / cuDNN on CUDA), validated and timed like a tuned kernel.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "beast/core/status.hpp"

namespace beast::harness {

struct BaselineResult {
  // ok, unsupported, compile_error (CLBlast could not build its kernels),
  // runtime_error, wrong_result (results_db::kBaselineStatuses).
  Status status = Status::kOk;
  std::string routine;  // as ClblastRoutine
  std::vector<double> samples_ms;
  std::optional<double> median_ms, spread, max_error;
  // Wall clock of the validation call: CLBlast compiles its kernels for the
  // device on its first call in a process.
  std::optional<double> first_call_ms;
  // Median of the last command alone (the event CLBlast returns): the GEMM
  // kernel without the copies or im2col CLBlast runs before it. For insight
  // only; the baseline's time is median_ms.
  std::optional<double> last_command_median_ms;
  std::string error_text;
  // What the library chose, for the record (cuDNN: its algorithm and math).
  std::string detail;
};

}  // namespace beast::harness
