// Starting the Python analysis package as a child process (analysis_verb.hpp):
// posix_spawn, no shell, so arguments reach Python exactly as given.
#include "beast/cli/analysis_verb.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"

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

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (auto& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
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

}  // namespace

int RunAnalysisVerb(const std::string& subcommand, const Argv& args) {
  Paths paths = Paths::Default();
  std::vector<std::string> argv = {paths.python, "-m", "beast_analysis", subcommand};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> env = ChildEnvironment(paths.root + "/analysis");
  std::vector<char*> argv_ptrs = Pointers(argv);
  std::vector<char*> env_ptrs = Pointers(env);

  // The child starts with default SIGINT/SIGTERM handling even though the
  // parent ignores them (an ignored SIGINT would stop Python from installing
  // its KeyboardInterrupt handler).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);

  IgnoreInterrupts ignore;
  pid_t pid = 0;
  int rc =
      posix_spawn(&pid, paths.python.c_str(), nullptr, &attr, argv_ptrs.data(), env_ptrs.data());
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    throw Error(ErrorCode::kEnvironment, "cannot run the analysis Python " + paths.python + ": " +
                                             std::strerror(rc) +
                                             " (set BEAST_PYTHON, or run ./run)");
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      throw Error(ErrorCode::kInternal,
                  std::string("waiting for the analysis Python: ") + std::strerror(errno));
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

}  // namespace beast::cli
