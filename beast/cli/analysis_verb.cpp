// Starting the Python analysis package as a child process (analysis_verb.hpp):
// no shell, so arguments reach Python exactly as given.
#include "beast/cli/analysis_verb.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "beast/core/child_process.hpp"
#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"
#include "beast/problem/problem.hpp"

extern char** environ;

namespace beast::cli {
namespace {

// The parent's environment with PYTHONPATH led by ROOT/analysis and the
// version beast records in the runs it writes.
std::vector<std::string> ChildEnvironment(const std::string& analysis_dir) {
  std::vector<std::string> env;
  std::string pythonpath = "PYTHONPATH=" + analysis_dir;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    if (entry.rfind("PYTHONPATH=", 0) == 0) {
      if (entry.size() > 11) pythonpath += ":" + entry.substr(11);
    } else if (entry.rfind("BEAST_VERSION=", 0) != 0) {
      env.push_back(entry);
    }
  }
  env.push_back(pythonpath);
  env.push_back("BEAST_VERSION=" BEAST_VERSION);
  return env;
}

// Ctrl-C reaches the whole process group: the child (Python) stops cleanly on
// it and reports, so the parent ignores it while waiting and only relays the
// child's exit code.
class IgnoreInterrupts {
 public:
  IgnoreInterrupts() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ignore, &old_int_);
    sigaction(SIGTERM, &ignore, &old_term_);
  }
  ~IgnoreInterrupts() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// The canonical key of a --problem filter: the database holds canonical keys,
// and the filter takes any spelling `beast query` takes (defaults left out,
// keys in any order), or an imported problem's key as recorded. Throws
// Error(kBadArgument) naming a malformed one.
std::string CanonicalProblem(const std::string& text) {
  try {
    return ProblemFilterKey(text);
  } catch (const Error& e) {
    throw Error(ErrorCode::kBadArgument, e.what());  // names the problem and what is wrong
  }
}

Argv WithCanonicalProblems(Argv args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--problem" && i + 1 < args.size()) {
      args[i + 1] = CanonicalProblem(args[i + 1]);
      ++i;
    } else if (args[i].rfind("--problem=", 0) == 0) {
      args[i] = "--problem=" + CanonicalProblem(args[i].substr(10));
    }
  }
  return args;
}

}  // namespace

int RunAnalysisVerb(const std::string& subcommand, const Argv& given) {
  const Paths paths = Paths::Default();
  const Argv args = WithCanonicalProblems(given);
  ChildProcess::Options o;
  o.argv = {paths.python, "-m", "beast_analysis", subcommand};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.env = ChildEnvironment(paths.root + "/analysis");
  o.in = o.out = o.err = ChildProcess::Stream::kInherit;
  o.close_others = false;
  IgnoreInterrupts ignore;
  std::unique_ptr<ChildProcess> child;
  try {
    child = std::make_unique<ChildProcess>(o, "cannot run the analysis Python " + paths.python);
  } catch (const Error& e) {
    throw Error(ErrorCode::kEnvironment,
                e.what() + std::string(" (set BEAST_PYTHON, or run ./run)"));
  }
  const int status = child->Wait();
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

}  // namespace beast::cli
