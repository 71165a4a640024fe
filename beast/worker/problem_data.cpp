// Inputs and reference outputs of a problem (problem_data.hpp).
#include "beast/worker/problem_data.hpp"

#include "harness/measure/reference.hpp"

namespace beast {

ProblemData ZeroProblemData(const Problem& problem) {
  ProblemData d;
  if (problem.op() == OpKind::kConv2d) {
    const Conv2dShape& s = problem.conv();
    d.input0.assign(harness::Conv2dInputCount(s), 0.0f);
    d.input1.assign(harness::Conv2dFilterCount(s), 0.0f);
    if (s.bias) d.bias.assign(static_cast<size_t>(s.k), 0.0f);
    d.output_count = harness::Conv2dOutputCount(s);
    d.reduction_length = harness::Conv2dReductionLength(s);
  } else {
    const GemmShape& g = problem.gemm();
    d.input0.assign(static_cast<size_t>(g.m * g.k), 0.0f);
    d.input1.assign(static_cast<size_t>(g.k * g.n), 0.0f);
    d.output_count = static_cast<size_t>(g.m * g.n);
    d.reduction_length = g.k;
  }
  return d;
}

ProblemData MakeProblemData(const Problem& problem) {
  ProblemData d;
  if (problem.op() == OpKind::kConv2d) {
    const Conv2dShape& s = problem.conv();
    d.input0 = harness::RandomInputs(harness::Conv2dInputCount(s), 1);
    d.input1 = harness::RandomInputs(harness::Conv2dFilterCount(s), 2);
    if (s.bias) d.bias = harness::RandomInputs(static_cast<size_t>(s.k), 3);
    d.output_count = harness::Conv2dOutputCount(s);
    d.reduction_length = harness::Conv2dReductionLength(s);
    d.reference.resize(d.output_count);
    d.abs_reference.resize(d.output_count);
    harness::ReferenceConv2d(s, d.input0.data(), d.input1.data(), s.bias ? d.bias.data() : nullptr,
                             d.reference.data(), d.abs_reference.data());
  } else {
    const GemmShape& g = problem.gemm();
    d.input0 = harness::RandomInputs(static_cast<size_t>(g.m * g.k), 1);
    d.input1 = harness::RandomInputs(static_cast<size_t>(g.k * g.n), 2);
    d.output_count = static_cast<size_t>(g.m * g.n);
    d.reduction_length = g.k;
    d.reference.resize(d.output_count);
    d.abs_reference.resize(d.output_count);
    harness::ReferenceGemm(g, d.input0.data(), d.input1.data(), d.reference.data(),
                           d.abs_reference.data());
  }
  return d;
}

}  // namespace beast
