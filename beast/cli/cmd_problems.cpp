// beast problems: the job file of an ONNX model (its Conv, Gemm and MatMul
// shapes as problem keys with weights). The work is in the Python analysis
// package (analysis/beast_analysis/onnx_problems.py); --help comes from there.
#include "beast/cli/analysis_verb.hpp"
#include "beast/cli/verbs.hpp"

namespace beast::cli {

int Problems(const Argv& args) { return RunAnalysisVerb("problems", args); }

}  // namespace beast::cli
