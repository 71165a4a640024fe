// beast export-results: a database's measurements in the T4 results format of
// Kernel Tuner, KTT and BAT. The work is in the Python analysis package
// (analysis/beast_analysis/t4_export.py); --help comes from there too.
#include "beast/cli/analysis_verb.hpp"
#include "beast/cli/verbs.hpp"

namespace beast::cli {

int ExportResults(const Argv& args) { return RunAnalysisVerb("export-results", args); }

}  // namespace beast::cli
