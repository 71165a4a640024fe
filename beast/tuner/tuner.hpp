// Tuner: drives one tuning run — for every (template, problem) pair it binds
// the space, has a search strategy choose the configs to measure (the
// default first; beast/search/), takes what the database already holds from
// there, renders the rest and has a device worker process
// compile, validate and time them, recording every outcome. Failing configs
// are data: a kernel that crashes or hangs kills only the worker, the config
// is recorded `crashed` or `timeout`, and a fresh worker goes on.
// Post-compile constraints are checked on each built kernel's resources
// before it runs (a failing one is recorded `pruned_after_compile`). For a
// device that is not present (cuda:sm_XX) the run is compile-only: every
// config is compiled with NVRTC and recorded `compiled`, `compile_error` or
// `pruned_after_compile` with its resources.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "beast/core/status.hpp"
#include "beast/problem/device.hpp"
#include "beast/problem/problem.hpp"
#include "beast/space/bound_space.hpp"

namespace beast {

struct TuneOptions {
  std::vector<std::string> templates;  // "gemm/tiled"; a template tunes the problems of its op
  // The templates were chosen by the problems (no --template, or a family
  // such as conv2d/*): a template that does not take a problem (another
  // layout, a space empty for it: Winograd on a 1x1 filter) is left out and
  // listed, not an error.
  bool templates_by_problem = false;
  std::vector<Problem> problems;
  // A batch job (--problems FILE): how many layers share each problem, by
  // key (absent: 1); the summary then ends with the job's weighted sums.
  bool job = false;
  std::map<std::string, int64_t> weights;
  DeviceSelector device;
  std::string db_path = "beast.db";
  std::string templates_dir;  // default: Paths::Default()
  BindOptions bind;
  uint64_t max_configs = 0;  // per pair, the default included; 0: the whole space
  // The search strategy (beast/search/strategy.hpp) and its seed; empty:
  // "model", or "exhaustive" when the budget is the whole space and neither
  // patience nor a time budget can end it early.
  std::string strategy;
  uint64_t seed = 1;
  double time_budget_seconds = 0;  // the whole run's wall clock, split over its pairs; 0: none
  uint64_t patience = 0;  // a pair ends after this many configs without a 1% gain; 0: never
  // Trials of the same template on other problems and devices in the
  // database warm-start the model (beast/tuner/pair_transfer.hpp).
  bool transfer = true;
  // Recorded failures of these statuses are measured again before each
  // pair's search (`--retry-failed`; the old outcome is kept as history,
  // superseded); empty: none.
  std::set<Status> retry_failed;
  std::string command_line;      // recorded with the run
  bool progress = true;          // progress lines on stderr
  double progress_seconds = 10;  // how often a plain progress line comes (not a terminal)
  // The beast binary the device worker runs as (`beast worker`); empty: the
  // running program, which must then be beast.
  std::string worker_executable;
  // Per config, build included; a faster limit applies once the problem has
  // a best time (beast/worker/worker_time_limit.hpp).
  double timeout_seconds = 60;
  // How long the device worker may take to make a problem's inputs and
  // reference on the host (at least timeout_seconds): past it, or when the
  // worker dies doing it, no config of the problem can be measured and the
  // run stops with one line (kProblemSetupSeconds).
  double setup_seconds = 600;
  // Timing: warm-up runs, then repetitions until the median is stable.
  int warmup = 2;
  int min_reps = 5;
  int max_reps = 30;
  double max_seconds_per_config = 2.0;
  // Write over the device's last-level cache (a GPU's L2) before every timed
  // launch, so each starts cold (harness::BenchmarkPlan::flush_cache).
  bool flush_cache = false;
  // Vendor-library baselines measured once per (device, problem) in the same
  // run, unless the database has them: "auto" (CLBlast on OpenCL devices when
  // this beast was built with it), "clblast", or "none".
  std::string baselines = "auto";
  // Programs are built through the program cache in this directory
  // (harness/program_cache.hpp); empty: no cache. beast tune defaults it to
  // $BEAST_CACHE_DIR, else $XDG_CACHE_HOME/beast/programs.
  std::string cache_dir;
  // Compile workers that render and build the next configs into the cache
  // ahead of the device (beast/compile/program_supply.hpp); -1: one per core;
  // 0: none, the device worker compiles each config itself. Needs the cache.
  int compile_jobs = -1;
  // At the end of each pair its top confirm_top ok configs (by median) are
  // re-measured side by side, in rounds, and the fastest of that is the
  // winner (beast/worker/confirm_measure.hpp); 0: off, else at least 2.
  int confirm_top = 3;
  // This run measures only every shard_count-th config of each pair's
  // trajectory, from the shard_index-th on, and learns the others' outcomes
  // from the database: the share of one of several identical devices tuning
  // the same problems at once (multi_device_tune.hpp).
  int shard_index = 0;
  int shard_count = 1;
  // With --retry-failed on shared identical devices: the recorded failures
  // to retry are those of runs up to this id (the newest before the job
  // began; 0: none given). Shard 0 measures them again; the other shards
  // wait for that before they read a pair's outcomes, so that every shard's
  // trajectory starts from the same ones.
  int64_t retry_before_run = 0;
  // Non-empty: progress comes as plain lines (never a live terminal line),
  // each starting with "[label] ", so several runs can share one stderr.
  std::string progress_label;
};

// A vendor library's routine on one problem of the run (this run's
// measurement, or the one the database already held).
struct BaselineSummary {
  std::string problem_key;
  std::string library;  // "clblast"
  std::string routine;  // "Sgemm", "Convgemm"
  Status status = Status::kOk;
  double median_ms = 0;  // when ok
  double gflops = 0;     // when ok
  // The median of CLBlast's last command alone (its GEMM kernel without the
  // copies or im2col before it), measured now; 0 when unknown. Not stored.
  double last_command_ms = 0;
  std::string error_text;
  bool from_database = false;  // measured by an earlier run
};

struct PairSummary {
  std::string template_name;
  std::string problem_key;
  uint64_t space_size = 0;  // valid configs
  std::string strategy;     // what chose the configs
  uint64_t selected = 0;    // the budget: configs this run wanted measured (default included)
  uint64_t measured = 0;    // measured now
  double seconds = 0;       // wall time this run spent on the pair (search, builds, runs)
  uint64_t skipped = 0;     // already in the database (or measured by another device of the run)
  // Trials of other problems or devices the model learned from (transfer).
  uint64_t transferred = 0;
  uint64_t failed = 0;  // measured now with a status other than ok (compile-only: compiled)
  // Measured twice because the device worker died under the first attempt.
  uint64_t retried = 0;
  // Recorded failures measured again (--retry-failed), and how many of them
  // now ended well.
  uint64_t remeasured = 0, recovered = 0;
  std::map<Status, uint64_t> failures;  // of those, how many per status
  // Best ok config in the database for this pair (this run or earlier).
  bool has_best = false;
  std::string best_config;
  double best_ms = 0;
  // The best config's prepare stages (run once per weight buffer, not in
  // best_ms), when it has some.
  std::optional<double> best_prepare_ms;
  double best_gflops = 0;
  double speedup_vs_default = 0;  // 0 when the default did not run ok
  // The speed-up compares the confirmed medians of the winner and the
  // default (both re-measured side by side), not their first medians.
  bool speedup_from_confirmed = false;
  // The fastest ok baseline of the run's library on this device and problem
  // (0 when none): baseline_ms / best_ms is the speed-up over the library.
  std::string baseline_library, baseline_routine;
  double baseline_ms = 0;
  // The template computes on tensor cores: the measured FMA peaks are not
  // its roof (SpaceSpec::tensor_cores).
  bool tensor_cores = false;
  // best_gflops / the measured peak of its arithmetic (the tensor cores'
  // for a tensor-core template); 0 when either is unknown (the bandwidth
  // bound below still applies).
  double fraction_of_peak = 0;
  // Where moving the problem's buffers once at the measured bandwidth bounds
  // it below the peak (a memory-bound problem): that bound in GFLOP/s and
  // best_gflops / it; 0 otherwise.
  double bandwidth_bound_gflops = 0, fraction_of_bandwidth_bound = 0;
  // The re-measurement of the pair's top configs that confirmed its winner:
  // how many it compared (0: none stands), whether this run made it, and the
  // winner's median in it.
  int confirmed_candidates = 0;
  bool confirmed_now = false;
  double confirmed_ms = 0;
  // The config the lowest median alone picks, when the confirmation picked
  // another; empty otherwise.
  std::string unconfirmed_best;
  // Compile-only: the fewest and most registers of the pair's compiled
  // configs in the database (this run or earlier); -1 when none.
  int64_t min_registers = -1, max_registers = -1;
};

struct TuneSummary {
  std::string device_id;
  std::string device_name;
  // A run on several devices (multi_device_tune.hpp): the devices of this
  // group that measured its configs at once, each with a note if its process
  // failed; empty for a run on one device.
  std::vector<std::string> devices;
  // A run under mpirun (beast/cluster/): each device rank of this group, the
  // configs it measured and the seconds its device spent timing them.
  struct RankShare {
    int rank = 0;
    std::string host;
    uint64_t measured = 0;
    double busy_seconds = 0;
  };
  std::vector<RankShare> ranks;
  std::vector<PairSummary> pairs;
  // The pairs not tuned because their space is empty: "TEMPLATE on PROBLEM:
  // why" (the run's exit code is then 3, see beast tune --help).
  std::vector<std::string> empty_spaces;
  // The conv2d pairs left out because the template does not take the
  // problem's layout: "TEMPLATE takes NCHW, not PROBLEM".
  std::vector<std::string> other_layout;
  // With templates chosen by the problems: the pairs left out because the
  // template does not compute the problem ("TEMPLATE on PROBLEM: why").
  std::vector<std::string> not_applicable;
  // The problems with at least one pair planned (their keys), reached or not.
  std::set<std::string> planned_problems;
  // A batch job's weights (TuneOptions::weights); `job` says to sum them up.
  bool job = false;
  std::map<std::string, int64_t> weights;
  double wall_seconds = 0;
  double compile_seconds = 0;       // builds from source now, by the worker or the pool
  double first_launch_seconds = 0;  // their validation launches (on PoCL: the JIT)
  double benchmark_seconds = 0;     // their timed runs (warm-up included): the device busy
  int worker_restarts = 0;          // device workers replaced after a crash, hang or lost device
  // Programs built from source now (by the device worker or the compile
  // pool) and programs found in the program cache, built by an earlier run.
  uint64_t programs_compiled = 0;
  uint64_t programs_from_cache = 0;
  std::string cache_dir;                  // the program cache; empty when none
  int compile_jobs = 0;                   // the compile pool's workers; 0: no pool
  bool pool_paused_while_timing = false;  // a CPU device: the pool stops while kernels run
  double compile_wait_seconds = 0;        // the tuner waited for the pool to finish a build
  double proposal_seconds = 0;            // the search strategies fitting and proposing
  std::string compile_pool_error;  // why the pool's workers did not start; empty when they did
  bool interrupted = false;
  // Peak fp32 FLOP/s of the device, measured by peak_method at the start of
  // the run (harness/peak_flops.hpp); 0 when the microbenchmark failed
  // (peak_error says why).
  double peak_gflops = 0;
  std::string peak_method, peak_variant, peak_error;
  // The same in double precision (the roof of f64 winners), where measured;
  // 0 otherwise (peak_f64_error says why).
  double peak_gflops_f64 = 0;
  std::string peak_f64_variant, peak_f64_error;
  // The tensor cores' peak per mma input type (harness::TensorInput: f16,
  // bf16, tf32), the roof of the tensor-core templates' winners, where
  // measured (a CUDA GPU of compute capability 8.0 or later, a problem of
  // that type); 0 otherwise (peak_tensor_error says why).
  double peak_gflops_tensor[3] = {0, 0, 0};
  std::string peak_tensor_variant[3], peak_tensor_error[3];
  // Memory bandwidth of the device in GB/s, measured with the peak
  // (harness/measure/bandwidth.hpp); 0 when unknown (bandwidth_error says why).
  double bandwidth_gbs = 0;
  std::string bandwidth_method, bandwidth_variant, bandwidth_error;
  std::vector<BaselineSummary> baselines;
  // The post-compile constraints the device's backend cannot apply, in one
  // line (post_compile.hpp); "" when none.
  std::string post_compile_not_applied;
  // A compile-only run (no device present): the compiler, its version and
  // the threads that compiled; compile_seconds sums their compile times.
  bool compile_only = false;
  std::string compiler, compiler_version;
  unsigned compile_threads = 0;
  // Wall clock of the re-measurements that confirmed winners (timed rounds,
  // the device busy too).
  double confirm_seconds = 0;
  // (benchmark_seconds + confirm_seconds) / wall_seconds: how much of the run
  // kept the device busy (on several devices at once: each, on average).
  double DeviceBusyFraction() const {
    const double devices_wall =
        wall_seconds * static_cast<double>(devices.empty() ? 1 : devices.size());
    return devices_wall > 0 ? (benchmark_seconds + confirm_seconds) / devices_wall : 0;
  }
};

// Throws Error(kBadArgument) for options no run takes: no template or
// problem, a timeout that is not positive, a negative time budget.
void CheckTuneOptions(const TuneOptions& options);

// Validates everything first (templates, problems, device, non-empty spaces,
// valid defaults) and starts the device worker, so bad input writes nothing;
// then tunes. Throws beast::Error for bad input or environment. Ctrl-C
// (SIGINT) or SIGTERM stops at once: the config in flight is abandoned (its
// worker killed) and stays unmeasured, the run is marked interrupted. A rerun
// of the same command resumes: it measures exactly what is missing.
TuneSummary Tune(const TuneOptions& options);

// The winners table `beast tune` prints (with the speed-up over the baseline
// library and the fraction of the measured peak), the baselines that did not
// run ok, the time spent and the fraction of it the device was busy.
std::string FormatTuneSummary(const TuneSummary& summary);

// A batch job's totals over its problems: each problem's best time (the
// fastest of its templates' winners) and the vendor library's, times its
// weight, summed — an estimate of the network's conv + GEMM time per pass.
struct JobTotals {
  int problems = 0;
  int64_t layers = 0;                  // the weights summed
  double weighted_best_ms = 0;         // over the problems with an ok winner
  double weighted_library_ms = 0;      // over the problems the library timed
  int library_missing = 0;             // problems with a winner but no library time
  std::vector<std::string> no_winner;  // problem keys without an ok winner
  // An interrupted run's problems whose pairs it never reached (their
  // winners, if any, are the database's: beast query --problems).
  std::vector<std::string> not_reached;
};
JobTotals JobTotalsOf(const TuneSummary& summary);

}  // namespace beast
