// Baselines on a problem's device buffers (baseline_measure.hpp).
#include "beast/worker/baseline_measure.hpp"

namespace beast {

harness::BaselineResult MeasureBaseline(harness::OpenClContext& context, const Problem& problem,
                                        const DeviceProblem& device_problem,
                                        const std::string& library,
                                        const harness::BenchmarkPlan& plan) {
  if (library != kBaselineClblast) {
    harness::BaselineResult out;
    out.status = Status::kUnsupported;
    out.error_text = "unknown baseline library \"" + library + "\"";
    return out;
  }
  const ProblemData& data = *device_problem.data;
  harness::BaselineOperands ops;
  ops.input0 = device_problem.input0;
  ops.input1 = device_problem.input1;
  ops.output = device_problem.output;
  ops.reference = data.reference.data();
  ops.abs_reference = data.abs_reference.data();
  ops.reference64 = data.reference64.data();
  ops.abs_reference64 = data.abs_reference64.data();
  ops.output_count = data.output_count;
  ops.reduction_length = data.reduction_length;
  return harness::MeasureClblast(context, problem, ops, plan);
}

}  // namespace beast
