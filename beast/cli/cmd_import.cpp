// beast import: loads a Kernel Tuner cache file into a result database. The
// work is in the Python analysis package
// (analysis/beast_analysis/kernel_tuner_import.py); --help comes from there too.
#include "beast/cli/analysis_verb.hpp"
#include "beast/cli/verbs.hpp"

namespace beast::cli {

int Import(const Argv& args) { return RunAnalysisVerb("import", args); }

}  // namespace beast::cli
