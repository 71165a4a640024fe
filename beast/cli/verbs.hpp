// The verbs of the beast CLI: each takes its arguments (after the verb) and
// returns the process exit code. Errors propagate as beast::Error.
#pragma once

#include <string>
#include <vector>

namespace beast::cli {

using Argv = std::vector<std::string>;

int Devices(const Argv& args);
int Space(const Argv& args);
int Tune(const Argv& args);
int Query(const Argv& args);
int Export(const Argv& args);
int Report(const Argv& args);
int Import(const Argv& args);
int ExportResults(const Argv& args);
int Problems(const Argv& args);
int Replay(const Argv& args);
int Worker(const Argv& args);  // hidden: the device worker `beast tune` starts

}  // namespace beast::cli
