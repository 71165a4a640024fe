// The verbs' command lines, read by CLI11: each verb declares its options on
// a CLI::App (which also writes its --help), and ParseCommandLine turns every
// mistake into one line (beast::Error kBadArgument: `beast VERB: ...`, exit
// 2) in the words beast always used: "unknown option --x (see beast VERB
// --help)", "unexpected argument 'x'", "--x needs a value", "--x must be an
// integer, not \"y\"".
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "beast/cli/verbs.hpp"

namespace beast::cli {

// The App of `beast VERB`: `summary` heads its help, `details` (the verb's
// longer explanation) ends it.
class VerbApp : public CLI::App {
 public:
  VerbApp(const std::string& verb, const std::string& summary, const std::string& details = "");
};

// A repeatable option taking one value per occurrence (--template A
// --template B).
CLI::Option* AddRepeated(CLI::App& app, const std::string& name, std::vector<std::string>* values,
                         const std::string& help);
// An integer option; a value that is not one is refused in beast's words.
CLI::Option* AddInteger(CLI::App& app, const std::string& name, long* value,
                        const std::string& help);
// A number of seconds that must be positive.
CLI::Option* AddSeconds(CLI::App& app, const std::string& name, double* value,
                        const std::string& help);
// A positive wall-clock duration in seconds: "90m", "1h30m", "45s", "2.5h",
// or a plain number of seconds.
CLI::Option* AddDuration(CLI::App& app, const std::string& name, double* seconds,
                         const std::string& help);

// Parses `args` (after the verb). Arguments that are not options go to
// *positional when it is given (and are refused otherwise). Returns false
// when --help was asked: the help is printed and the verb has nothing to do.
bool ParseCommandLine(CLI::App& app, const Argv& args,
                      std::vector<std::string>* positional = nullptr);

// Whether option `name` ("--db") was given.
inline bool Given(const CLI::App& app, const std::string& name) { return app.count(name) > 0; }

}  // namespace beast::cli
