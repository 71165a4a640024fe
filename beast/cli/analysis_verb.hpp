// Running a verb that lives in the Python analysis package: `beast report`,
// `beast import` and `beast export-results` hand their arguments to
// `PYTHON -m beast_analysis SUBCOMMAND ...` and pass its exit code through.
#pragma once

#include <string>

#include "beast/cli/verbs.hpp"

namespace beast::cli {

// Runs Paths::Default().python -m beast_analysis `subcommand` args... with
// ROOT/analysis first on PYTHONPATH, and returns the child's exit code
// (128 + N when signal N ended it). The child prints its own output and its
// one-line errors. Throws Error(kEnvironment) when the Python cannot start.
int RunAnalysisVerb(const std::string& subcommand, const Argv& args);

}  // namespace beast::cli
