// beast tune: tunes templates on problems on one device into a database,
// with a progress line and a table of winners (or a JSON summary) at the end.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "beast/cli/command_line.hpp"
#include "beast/cli/json_text.hpp"
#include "beast/cli/tune_command_line.hpp"
#include "beast/cli/tune_json.hpp"
#include "beast/cli/verbs.hpp"
#include "beast/cluster/launcher.hpp"
#if BEAST_WITH_MPI
#include "beast/cluster/cluster_coordinator.hpp"
#include "beast/cluster/cluster_rank.hpp"
#include "beast/cluster/mpi/mpi_session.hpp"
#include "beast/tuner/interrupt_guard.hpp"
#endif
#include "beast/core/error.hpp"
#include "beast/tuner/multi_device_tune.hpp"
#include "beast/tuner/tuner.hpp"
#include "harness/devices/device_resolver.hpp"

namespace beast::cli {
namespace {

const char kDetails[] =
    "Measures the configs of each template on each problem of its op on device D\n"
    "(default: the first CUDA GPU, else the first OpenCL device) and records every outcome\n"
    "in FILE (default beast.db). On a CUDA GPU (cuda:N) kernels are compiled with NVRTC for\n"
    "its architecture and timed with CUDA events.\n"
    "Without --template, every template of the problems' ops is tuned (the algorithm is the\n"
    "tuner's choice: direct, implicit GEMM, Winograd); --template conv2d/* names a family.\n"
    "A template chosen so that does not compute a problem (Winograd on a 1x1 filter) is\n"
    "left out and listed, and the summary names the fastest algorithm of each problem.\n"
    "--max-configs N measures the default config plus N-1 configs a search strategy\n"
    "chooses (--strategy: model, the default: a cost model learns from every outcome and\n"
    "proposes batches with exploration forced into each; random; exhaustive), seeded by\n"
    "--seed S; 0 (the default) measures the whole space (exhaustive unless --strategy,\n"
    "--patience or --time-budget is given). --time-budget DURATION (90m, 1h30m, 45s) ends\n"
    "the measuring when the run's wall clock reaches it, each problem getting its share of\n"
    "the time left (a problem reached late still measures its default config); --patience\n"
    "M ends a template's problem after M configs without a 1% gain (not compile-only,\n"
    "which has no times). --transfer auto (the default) lets the\n"
    "model learn from what the database holds of the same template on other problems and\n"
    "devices; none does not. Configs already in the database for this device, problem\n"
    "and template version are not measured again:\n"
    "the search learns their recorded outcome, so a rerun resumes the same trajectory.\n"
    "Kernels run in a device worker process: one that crashes is recorded `crashed`, one\n"
    "that runs past its time limit `timeout`, and a fresh worker goes on. A config whose\n"
    "worker died is measured once more in a fresh worker first (a worker killed from\n"
    "outside is not the kernel's fault): only a second death is recorded. --retry-failed\n"
    "[STATUS,...] measures the recorded failures of those statuses again (default\n"
    "crashed,timeout,runtime_error), keeping the old outcomes as history. The limit is\n"
    "--timeout-seconds per config (default 60, build included; the problem's inputs and\n"
    "reference, made once, are not), and once the problem has a best time b, 3 s + 5 x\n"
    "build time + 50 x b x (1 + 2 warm-ups + max reps) after the build. Making a problem's\n"
    "inputs and reference may take --setup-seconds (default 600, or --timeout-seconds if\n"
    "longer); past that, or when the worker dies doing it (twice, for a config), the run\n"
    "stops with one line and exit code 4 (no config is to blame; under mpirun, exit 1).\n"
    "--max-seconds S bounds the timed repetitions of a config (default 2).\n"
    "--baselines: the vendor library measured once per problem on the same device, inputs,\n"
    "validation and timing as the kernels (skipped when the database has it): clblast\n"
    "(CLBlast's SGEMM or Convgemm, OpenCL), nvidia (cuBLAS SGEMM and cuDNN's fastest FP32\n"
    "forward convolution by its own search, no TF32; CUDA), auto (the device's own, the\n"
    "default) or none. The device's peak FLOP/s is measured at the start by an FMA\n"
    "microbenchmark. The table shows each winner's speed-up over the library and its\n"
    "fraction of that peak. --flush-cache writes over the device's last-level cache (a\n"
    "GPU's L2) before every timed run, so each starts cold.\n"
    "Progress goes to stderr: on a terminal a live line with a bar, redrawn at least every\n"
    "second; otherwise a plain line every --progress-seconds S (default 10). --quiet drops\n"
    "it. --json prints\n"
    "a JSON summary on stdout instead of the table. Ctrl-C stops at once; the same command\n"
    "resumes. Exit code 130 when interrupted.\n"
    "A template named with --template whose space is empty for a problem (the constraints\n"
    "that removed the last configs are named; --ignore-soft drops the soft ones) is left out\n"
    "and the others are tuned: the summary lists the empty ones and the exit code is 3 (one\n"
    "chosen by the problem's op or a family is listed as not computed, exit 0). When every\n"
    "space is empty nothing is tuned (exit 1).\n"
    "Built programs go into a cache on disk, keyed by source, options, device and driver:\n"
    "--cache-dir DIR (default $BEAST_CACHE_DIR, set but empty: no cache; else\n"
    "$XDG_CACHE_HOME/beast/programs, or ~/.cache/beast/programs),\n"
    "shared by runs and databases, so nothing is compiled twice; --no-cache builds afresh.\n"
    "A directory that cannot hold files stops the run at once. --compile-jobs N compile\n"
    "workers (default: one per core; 0: none) render and build the next configs into the\n"
    "cache ahead of the device; on a CPU device they stop while kernels are timed.\n"
    "--confirm-top K (default 3; 0: off) re-measures the K best configs of each template\n"
    "and problem side by side at the end, in rounds (A B C A B C ...), and the fastest of\n"
    "that re-measurement is the winner; a rerun does not redo it.\n"
    "Post-compile constraints (stage: after_compile in a space or constraint file, or a\n"
    "--constraint that reads registers, spills, stack_bytes or local_mem_used) are checked\n"
    "on each built kernel before it runs; one that fails is recorded pruned_after_compile.\n"
    "OpenCL reports no registers or spills: constraints reading them are not applied there\n"
    "(one line says which).\n"
    "--device cuda:sm_XX (an architecture with a table in constraints/devices) tunes\n"
    "compile-only: the same configs are rendered for CUDA and compiled with NVRTC on every\n"
    "core, and recorded compiled, compile_error or pruned_after_compile with their registers,\n"
    "spills, stack and shared memory. Nothing runs; a rerun resumes.\n"
    "--device may be given several times: each device gets a tuning process and worker of\n"
    "its own, all at once into the same database; identical devices (same name and driver,\n"
    "e.g. several GPUs of one model) share the configs, each measuring its share (the\n"
    "hidden --shard I/N and --progress-label L are what those processes are given); then\n"
    "the first device of each kind measures the baselines, confirms the winners and prints\n"
    "the summary (--json: an array of summaries).\n"
    "Under mpirun (or srun with PMIx; a beast built with MPI), rank 0 coordinates (it alone\n"
    "opens the database) and every other rank measures on one device: cuda:local is the\n"
    "node's GPU of the rank's place among the node's device ranks (the default there when\n"
    "the node has GPUs; no two ranks share one), several --device are dealt to a node's\n"
    "ranks in turn. Ranks with one device share the configs, dealt to whichever has a free\n"
    "slot; a killed job resumes with the same command.\n";

// argv without the given options (--name VALUE or --name=VALUE) and flags.
std::vector<std::string> Without(const Argv& argv, const std::set<std::string>& options,
                                 const std::set<std::string>& flags) {
  std::vector<std::string> out;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    const std::string name =
        a.rfind("--", 0) == 0
            ? a.substr(2, a.find('=') == std::string::npos ? std::string::npos : a.find('=') - 2)
            : "";
    if (flags.count(name)) continue;
    if (options.count(name)) {
      if (a.find('=') == std::string::npos) ++i;  // its value follows
      continue;
    }
    out.push_back(a);
  }
  return out;
}

// The exit code of a run that tuned every problem it could while others
// had empty spaces: not 0 (a job must notice), not 1 (nothing failed).
constexpr int kSomeSpacesEmpty = 3;

// The summaries of a run on several devices (one per device group): a
// table each, or one JSON array; the exit code.
int PrintGroups(const std::vector<TuneSummary>& groups, bool interrupted, bool json) {
  if (json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const TuneSummary& group : groups) out.push_back(SummaryJson(group));
    std::printf("%s\n", JsonText(out).c_str());
  } else if (interrupted && groups.empty()) {
    std::printf("run interrupted, run the same command again to resume\n");
  } else {
    for (const TuneSummary& group : groups) std::fputs(FormatTuneSummary(group).c_str(), stdout);
  }
  if (interrupted) return 130;
  for (const TuneSummary& group : groups)
    if (!group.empty_spaces.empty()) return kSomeSpacesEmpty;
  return 0;
}

int TuneOnSeveralDevices(const TuneOptions& o, const std::vector<DeviceSelector>& devices,
                         const Argv& argv, bool json) {
  MultiDeviceSummary run = TuneOnDevices(
      o, devices,
      // What each device process is given anew: a repeated option is refused.
      Without(argv, {"device", "baselines", "confirm-top", "progress-label"}, {"json", "quiet"}));
  if (run.setup_failed) return 4;  // the device's process said why
  return PrintGroups(run.groups, run.interrupted, json);
}

constexpr char kSummary[] = "Tune templates on problems on a device, into a database.";

#if BEAST_WITH_MPI
// beast tune as a rank of an MPI job: rank 0 coordinates and prints, every
// other rank serves one device (beast/cluster/). Bad input is one line, from
// rank 0 alone: a device rank's own (a file missing on its node) reaches it
// as the run's error, and whichever rank fails first, every other is told
// the run is over rather than left waiting.
int TuneAsRank(const Argv& argv) {
  MpiSession mpi;
  InterruptGuard guard;
  bool coordinating = false;  // CoordinateTune ends the ranks itself
  // A rank that ends before the run starts tells the others first: MPI's
  // end waits for every rank, and the others would wait for it.
  const auto end_unstarted = [&](const std::string& why) {
    if (mpi.rank() != 0) {
      RefuseToServe(mpi, mpi.host(), why, InterruptGuard::Stop());
    } else if (!coordinating) {
      EndUnstartedRun(mpi);
    }
  };
  // Said before MPI ends here: once every rank has ended MPI, mpirun may stop
  // this process for another rank's non-zero exit before main could print.
  const auto say = [&](const std::string& line) {
    if (mpi.rank() != 0) return;  // rank 0 says it
    std::fflush(stdout);
    std::fprintf(stderr, "beast tune: %s\n", line.c_str());
    std::fflush(stderr);
  };
  try {
    VerbApp app("tune", kSummary, kDetails);
    TuneArgs a;
    if (!ParseTuneArgs(app, argv, &a)) {  // --help
      end_unstarted("--help was given to this rank: it printed the help and serves nothing");
      return 0;
    }
    if (Given(app, "--shard") || Given(app, "--share-fd"))
      throw Error(ErrorCode::kBadArgument, "--shard is not taken under mpirun");
    std::vector<DeviceSelector> devices;
    TuneOptions o = OptionsOf(app, a, argv, &devices);
    o.command_line += " (mpirun: " + std::to_string(mpi.size()) + " ranks)";
    if (mpi.rank() != 0)
      return ServeDevice(mpi, o, devices, mpi.local_device_index(), mpi.host(),
                         InterruptGuard::Stop());
    coordinating = true;
    ClusterRun run = CoordinateTune(mpi, o, InterruptGuard::Stop());
    const int code = PrintGroups(run.groups, run.interrupted, a.json);
    if (run.late_failure.empty()) return code;
    say(run.late_failure);
    return code == 0 ? 1 : code;
  } catch (const Error& e) {
    end_unstarted(e.what());
    say(e.what());
    return e.code() == ErrorCode::kBadArgument ? 2 : 1;
  } catch (const std::exception& e) {
    end_unstarted(std::string("internal error: ") + e.what());
    say(std::string("internal error: ") + e.what());
    return 1;
  }
}
#endif

}  // namespace

int Tune(const Argv& argv) {
  if (std::optional<LaunchedRanks> launched = LaunchedAsRanks()) {
#if BEAST_WITH_MPI
    return TuneAsRank(argv);
#else
    RefuseLaunchWithoutMpi(*launched);
#endif
  }
  VerbApp app("tune", kSummary, kDetails);
  TuneArgs a;
  if (!ParseTuneArgs(app, argv, &a)) return 0;
  std::vector<DeviceSelector> devices;
  const TuneOptions o = OptionsOf(app, a, argv, &devices);
  if (devices.size() > 1) {
    if (Given(app, "--shard"))
      throw Error(ErrorCode::kBadArgument, "--shard goes with one --device");
    return TuneOnSeveralDevices(o, devices, argv, a.json);
  }
  const TuneSummary summary = Tune(o);
  if (Given(app, "--share-fd")) WriteShare(static_cast<int>(a.share_fd), summary);
  if (a.json) {
    std::printf("%s\n", JsonText(SummaryJson(summary)).c_str());
  } else {
    std::fputs(FormatTuneSummary(summary).c_str(), stdout);
  }
  if (summary.interrupted) return 130;
  return summary.empty_spaces.empty() ? 0 : kSomeSpacesEmpty;
}

}  // namespace beast::cli
