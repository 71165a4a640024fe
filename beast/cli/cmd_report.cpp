// beast report: an HTML page with plots of a result database. The work is in
// the Python analysis package (analysis/beast_analysis/report.py); --help
// comes from there too.
#include "beast/cli/analysis_verb.hpp"
#include "beast/cli/verbs.hpp"

namespace beast::cli {

int Report(const Argv& args) { return RunAnalysisVerb("report", args); }

}  // namespace beast::cli
