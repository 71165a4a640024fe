// One tuning job on several devices at once (multi_device_tune.hpp).
#include "beast/tuner/multi_device_tune.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "beast/core/child_process.hpp"
#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"
#include "beast/problem/problem_buffers.hpp"
#include "beast/space/space_spec.hpp"
#include "beast/tuner/tune_plan.hpp"
#include "beast/tuner/tune_share.hpp"
#include "beast/worker/worker_wire.hpp"
#include "harness/devices/device_resolver.hpp"
#include "results_db/store.hpp"

namespace beast {
namespace {

std::atomic<int> g_signal{0};
// The device processes, for the handler to pass SIGTERM on to.
constexpr int kMaxChildren = 256;
pid_t g_children[kMaxChildren];
std::atomic<int> g_child_count{0};

void Remember(int sig) {
  g_signal = sig;
  for (int i = 0; i < g_child_count; ++i) kill(g_children[i], sig);
}

// While the per-device processes run, a signal that stops this process is
// passed on to them, and this process waits for them to stop. A Ctrl-C
// reached them already (they share the terminal's process group), but one
// sent to this process alone (kill -INT, a scheduler) did not; a second one
// only sets their stop flag again.
class SignalScope {
 public:
  SignalScope() {
    g_signal = 0;
    struct sigaction action = {};
    action.sa_handler = Remember;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_int_);
    sigaction(SIGTERM, &action, &previous_term_);
    sigaction(SIGHUP, &action, &previous_hup_);
  }
  ~SignalScope() {
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
    sigaction(SIGHUP, &previous_hup_, nullptr);
  }

 private:
  struct sigaction previous_int_ = {}, previous_term_ = {}, previous_hup_ = {};
};

struct Child {
  std::string device;
  std::unique_ptr<ChildProcess> process;
  std::string share;  // the frame's payload, when it came
};

// The descriptor a device's process writes its share on (--share-fd).
constexpr int kShareFd = 3;

// Starts `executable tune ARGS... --share-fd 3` with stdout on /dev/null (its
// table is of no use: the final run gives the group's), stderr and the
// terminal shared (Ctrl-C reaches it), and its share coming on a socket.
Child Spawn(const std::string& device, const std::string& executable,
            std::vector<std::string> args) {
  ChildProcess::Options o;
  o.argv = {executable};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.argv.insert(o.argv.end(), {"--share-fd", std::to_string(kShareFd)});
  o.in = ChildProcess::Stream::kInherit;
  o.out = ChildProcess::Stream::kNull;
  o.err = ChildProcess::Stream::kInherit;
  o.socket_fd = kShareFd;
  o.close_others = false;
  Child child;
  child.device = device;
  child.process = std::make_unique<ChildProcess>(o, "cannot start a tuning process");
  return child;
}

// The exit code of a device's process that could not make a problem's
// inputs and reference (main.cpp: ErrorCode::kProblemSetup).
constexpr int kProblemSetupExit = 4;

// Whether a device's process ended its tuning: exit code 0, or 3 (tuned,
// with some spaces empty, which the summary lists).
bool Tuned(int wait_status) {
  return WIFEXITED(wait_status) && (WEXITSTATUS(wait_status) == 0 || WEXITSTATUS(wait_status) == 3);
}

// One tuning process per device: a group of identical devices shares the
// configs (--shard k/N), and the baselines and confirmations are left for
// the final run of each group.
// With --retry-failed and a group of identical devices: the newest run
// before the job (0: not needed). Shards retrying failures agree on which:
// those recorded before the job; so does the final run, which retries what
// a failed shard 0 left.
int64_t RetryBeforeRun(const std::vector<std::vector<size_t>>& groups, const TuneOptions& options) {
  for (const auto& group : groups) {
    if (group.size() > 1 && !options.retry_failed.empty())
      return std::max<int64_t>(1, results_db::Store::Open(options.db_path).LastRunId());
  }
  return 0;
}

void SpawnAll(const std::vector<std::vector<size_t>>& groups,
              const std::vector<DeviceInfo>& devices, const TuneOptions& options,
              const std::vector<std::string>& tune_args, const std::string& executable,
              int64_t retry_before_run, std::vector<Child>* children) {
  for (const auto& group : groups) {
    for (size_t k = 0; k < group.size(); ++k) {
      const std::string id = devices[group[k]].Id();
      std::vector<std::string> args = {"tune"};
      args.insert(args.end(), tune_args.begin(), tune_args.end());
      args.insert(args.end(), {"--device", id, "--baselines", "none", "--confirm-top", "0",
                               "--progress-label", id});
      if (group.size() > 1) {
        args.insert(args.end(),
                    {"--shard", std::to_string(k) + "/" + std::to_string(group.size())});
        if (retry_before_run > 0)
          args.insert(args.end(), {"--retry-before-run", std::to_string(retry_before_run)});
      }
      if (!options.progress) args.push_back("--quiet");
      children->push_back(Spawn(id, executable, args));
      if (g_child_count < kMaxChildren)
        g_children[g_child_count++] = children->back().process->pid();
    }
  }
}

}  // namespace

std::string ResultIdentity(const DeviceInfo& d) {
  return std::string(BackendName(d.backend)) + "\n" + d.name + "\n" + d.driver_version;
}

void WriteShare(int fd, const TuneSummary& summary) {
  WriteFrame(fd, EncodeShare(summary), std::chrono::steady_clock::now() + std::chrono::minutes(10));
  close(fd);
}

MultiDeviceSummary TuneOnDevices(const TuneOptions& options,
                                 const std::vector<DeviceSelector>& selectors,
                                 const std::vector<std::string>& tune_args) {
  BEAST_CHECK(selectors.size() >= 2);
  const auto start = std::chrono::steady_clock::now();
  // Everything is checked before anything runs.
  std::vector<DeviceInfo> devices;
  std::set<std::string> seen;  // device ids
  for (const DeviceSelector& s : selectors) {
    if (!s.arch.empty()) {
      throw Error(ErrorCode::kBadArgument,
                  "--device cuda:" + s.arch +
                      " compiles only, for one architecture: it cannot be combined with "
                      "other devices");
    }
    DeviceInfo d = ResolveDevice(s);
    if (!seen.insert(d.Id()).second)
      throw Error(ErrorCode::kBadArgument, "device " + d.Id() + " is named twice");
    devices.push_back(d);
  }
  Paths paths = Paths::Default();
  const std::string templates_dir =
      options.templates_dir.empty() ? paths.templates_dir : options.templates_dir;
  std::vector<SpaceSpec> specs;
  for (const auto& name : options.templates) specs.push_back(SpaceSpec::Load(templates_dir, name));
  for (const DeviceInfo& d : devices) {
    std::vector<std::string> empty;  // listed by each device's own run
    std::vector<std::string> other_layout, not_applicable;
    PlanPairs(specs, options, d, &empty, &other_layout, &not_applicable);
    for (const Problem& problem : options.problems) CheckProblemFits(problem, d, HostMemoryBytes());
  }

  // Groups of identical devices, in the order their first one was named.
  std::vector<std::vector<size_t>> groups;
  std::map<std::string, size_t> group_of;
  for (size_t i = 0; i < devices.size(); ++i) {
    auto [it, fresh] = group_of.emplace(ResultIdentity(devices[i]), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  const std::string executable =
      options.worker_executable.empty() ? "/proc/self/exe" : options.worker_executable;
  MultiDeviceSummary out;
  const int64_t retry_before_run = RetryBeforeRun(groups, options);
  std::vector<Child> children;
  {
    SignalScope signals;
    try {
      SpawnAll(groups, devices, options, tune_args, executable, retry_before_run, &children);
    } catch (...) {
      // The ones started stop; none is left running behind a failed run.
      for (Child& c : children) {
        kill(c.process->pid(), SIGTERM);
        c.process->CloseSocket();
        c.process->Wait();
      }
      g_child_count = 0;
      throw;
    }
    if (options.progress) {
      std::string names;
      for (const Child& c : children) names += (names.empty() ? "" : ", ") + c.device;
      std::fprintf(stderr, "tuning on %zu devices at once (%s), one process each\n",
                   children.size(), names.c_str());
    }
    for (Child& c : children) {
      // The share first (a process blocks on a full socket until it is read);
      // one that died before writing it all has none.
      try {
        if (!ReadFrame(c.process->socket(), &c.share)) c.share.clear();
      } catch (const Error&) {
        c.share.clear();
      }
      c.process->CloseSocket();
      c.process->Wait();
    }
    g_child_count = 0;
    out.interrupted = g_signal != 0;
  }
  for (const Child& c : children) {
    const int status = c.process->wait_status();
    if (WIFEXITED(status) && WEXITSTATUS(status) == 130) out.interrupted = true;
    if (WIFSIGNALED(status) &&
        (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM || WTERMSIG(status) == SIGHUP))
      out.interrupted = true;
  }
  if (out.interrupted) return out;
  for (const Child& c : children) {
    const int status = c.process->wait_status();
    if (WIFEXITED(status) && WEXITSTATUS(status) == kProblemSetupExit) out.setup_failed = true;
  }
  if (out.setup_failed) return out;
  // Each group's first device: what a failed process left, the baselines,
  // the confirmations and the summary.
  for (const auto& group : groups) {
    TuneOptions final_run = options;
    final_run.device = selectors[group.front()];
    // The group's first process (shard 0) measured the recorded failures
    // again; only if it failed is that left to this run.
    for (const Child& c : children) {
      if (c.device != devices[group.front()].Id()) continue;
      const int status = c.process->wait_status();
      if (Tuned(status)) final_run.retry_failed.clear();
      final_run.retry_before_run = group.size() > 1 ? retry_before_run : 0;
    }
    // The time budget was the shares': the final run measures only what a
    // failed process left, in the time left (if any).
    if (options.time_budget_seconds > 0) {
      const double spent =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      final_run.time_budget_seconds = std::max(1e-3, options.time_budget_seconds - spent);
    }
    TuneSummary summary = Tune(final_run);
    for (size_t i : group) {
      for (const Child& c : children) {
        if (c.device != devices[i].Id()) continue;
        if (!c.share.empty()) {
          try {
            AddShare(DecodeShare(c.share), &summary);
          } catch (const Error&) {
            // A share that does not decode counts nothing; the database has it all.
          }
        }
        const int status = c.process->wait_status();
        const bool ok = Tuned(status);
        summary.devices.push_back(
            c.device +
            (ok ? ""
                : " (its process failed: " +
                      (WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                                         : "signal " + std::to_string(WTERMSIG(status))) +
                      "; its share was measured by " + devices[group.front()].Id() + ")"));
      }
    }
    summary.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.groups.push_back(std::move(summary));
    if (out.groups.back().interrupted) {
      out.interrupted = true;
      break;
    }
  }
  return out;
}

}  // namespace beast
