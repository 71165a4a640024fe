// The summary beast tune prints: the winners table (FormatTuneSummary of
// beast/tuner.hpp) and its lines on programs and confirmations
// (tune_summary.hpp).
#include "beast/tuner/tune_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "beast/tuner/tune_baselines.hpp"
#include "beast/tuner/tune_peak.hpp"

namespace beast {

std::string ConfirmationLines(const PairSummary& p) {
  if (p.confirmed_candidates < 2 || !p.has_best) return "";
  char line[512];
  std::snprintf(
      line, sizeof line,
      "      confirmed: fastest of the top %d re-measured side by side, %.4f ms (%s)%s\n",
      p.confirmed_candidates, p.confirmed_ms, p.confirmed_now ? "this run" : "an earlier run",
      p.speedup_from_confirmed ? "; the speedup compares this with the default's confirmed median"
                               : "");
  std::string out = line;
  if (!p.unconfirmed_best.empty()) out += "      by median alone: " + p.unconfirmed_best + "\n";
  return out;
}

std::string ProgramsLine(const TuneSummary& s) {
  char line[1024];
  std::snprintf(line, sizeof line, "programs: %llu compiled now, %llu from the cache %s",
                static_cast<unsigned long long>(s.programs_compiled),
                static_cast<unsigned long long>(s.programs_from_cache),
                s.cache_dir.empty() ? "(none)" : s.cache_dir.c_str());
  std::string out = line;
  if (s.compile_jobs > 0) {
    std::snprintf(line, sizeof line,
                  "; compile pool: %d workers%s, the device waited %.1f s for it", s.compile_jobs,
                  s.pool_paused_while_timing ? " (stopped while kernels run)" : "",
                  s.compile_wait_seconds);
    out += line;
  } else {
    out += "; no compile pool";
  }
  out += "\n";
  if (!s.compile_pool_error.empty()) out += "compile pool: " + s.compile_pool_error + "\n";
  return out;
}

namespace {

// "      failed: 2 crashed, 1 timeout"; "" when nothing failed. Then what
// was measured again: configs whose worker died once (the second attempt
// is what is recorded) and recorded failures (--retry-failed).
std::string FailuresLine(const PairSummary& p) {
  std::string out;
  if (!p.failures.empty()) {
    std::string parts;
    for (const auto& [status, n] : p.failures)
      parts += (parts.empty() ? "" : ", ") + std::to_string(n) + " " + StatusName(status);
    out += "      failed: " + parts + "\n";
  }
  if (p.retried > 0)
    out += "      retried: " + std::to_string(p.retried) +
           " measured again in a fresh worker after the device worker died\n";
  if (p.remeasured > 0)
    out += "      recorded failures measured again: " + std::to_string(p.remeasured) + ", " +
           std::to_string(p.recovered) + " now ok\n";
  return out;
}

// Which device measured, and with which others.
std::string HeaderLines(const TuneSummary& s) {
  std::string out =
      "winners on " + s.device_id + " (" + s.device_name + ")" +
      (s.interrupted ? " — run interrupted, run the same command again to resume" : "") + "\n";
  if (s.devices.empty()) return out;
  std::string names;
  for (const std::string& d : s.devices) names += (names.empty() ? "" : ", ") + d;
  // One device of several groups, or the one rank of a cluster run: only
  // its name (the other groups, if any, have summaries of their own).
  return out + (s.devices.size() == 1
                    ? "measured on " + names + "\n"
                    : "measured on " + std::to_string(s.devices.size()) +
                          " devices at once, sharing the configs: " + names + "\n");
}

// The library column is named after the run's baseline library, or
// "vendor" when its problems have different ones (cuBLAS for GEMM, cuDNN
// for convolutions); each pair's lines below name its own.
std::string LibraryColumn(const TuneSummary& s) {
  std::string library;
  for (const auto& p : s.pairs) {
    if (p.baseline_library.empty()) continue;
    const std::string name = LibraryDisplayName(p.baseline_library);
    library = library.empty() || library == name ? name : "vendor";
  }
  if (library.empty()) library = s.device_id.rfind("cuda:", 0) == 0 ? "vendor" : "CLBlast";
  return "vs " + library;
}

std::string Ratio(double r) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", r);
  return text;
}

// "      search: model, 60 of 106272 configs (12 from the database), ..."
std::string SearchLine(const PairSummary& p) {
  std::string out = "      search: " + p.strategy + ", " + std::to_string(p.measured + p.skipped) +
                    " of " + std::to_string(p.space_size) + " configs";
  if (p.skipped) out += " (" + std::to_string(p.skipped) + " from the database)";
  if (p.transferred) {
    out +=
        ", learned from " + std::to_string(p.transferred) + " trials of other problems or devices";
  }
  char spent[48];
  std::snprintf(spent, sizeof spent, "; %.1f s this run", p.seconds);
  return out + spent + "\n";
}

// The template column's width: 20, or the longest name, so a long one does
// not push its row out of line with the header.
int TemplateWidth(const TuneSummary& s) {
  size_t width = 20;
  for (const PairSummary& p : s.pairs) width = std::max(width, p.template_name.size());
  return static_cast<int>(width);
}

// A pair's row of the winners table and the lines under it.
std::string PairLines(const PairSummary& p, int width, int64_t weight) {
  const std::string short_problem = p.problem_key.substr(0, p.problem_key.find(':'));
  const std::string speedup =
      p.speedup_vs_default > 0 ? std::to_string(p.speedup_vs_default).substr(0, 5) + "x" : "n/a";
  const std::string vs_library =
      p.has_best && p.baseline_ms > 0 && p.best_ms > 0 ? Ratio(p.baseline_ms / p.best_ms) : "n/a";
  char peak[32] = "n/a";
  if (p.fraction_of_peak > 0) std::snprintf(peak, sizeof peak, "%.1f%%", 100 * p.fraction_of_peak);
  char line[1024];
  std::snprintf(line, sizeof line,
                "%-*s %-10s %6llu %6llu %6llu %11.4f %9.2f %8s %10s %6s  %s\n      problem %s\n",
                width, p.template_name.c_str(), short_problem.c_str(),
                (unsigned long long)p.space_size, (unsigned long long)p.measured,
                (unsigned long long)p.failed, p.best_ms, p.best_gflops, speedup.c_str(),
                vs_library.c_str(), peak, p.has_best ? p.best_config.c_str() : "(none ran ok)",
                p.problem_key.c_str());
  std::string out = line;
  // The weight of a job's problem: the layers that share the shape.
  if (weight > 1) out.insert(out.size() - 1, " x" + std::to_string(weight));
  if (p.baseline_ms > 0) {
    std::snprintf(line, sizeof line, "      %s %s %.4f ms\n",
                  LibraryDisplayName(p.baseline_library).c_str(), p.baseline_routine.c_str(),
                  p.baseline_ms);
    out += line;
  }
  if (p.bandwidth_bound_gflops > 0) {
    std::snprintf(line, sizeof line,
                  "      memory-bound: moving its buffers once at the measured bandwidth allows "
                  "%.2f GFLOP/s; the winner reaches %.1f%% of that\n",
                  p.bandwidth_bound_gflops, 100 * p.fraction_of_bandwidth_bound);
    out += line;
  }
  return out + SearchLine(p) + FailuresLine(p) + ConfirmationLines(p);
}

// The baselines that did not run ok, the peak and where the time went.
// A batch job's totals under the table; "" for a run that is not a job.
std::string JobLines(const TuneSummary& s) {
  if (!s.job) return "";
  const JobTotals t = JobTotalsOf(s);
  char line[512];
  std::snprintf(line, sizeof line,
                "job: %d problems, %lld layers; weighted sum of the best times %.4f ms per pass",
                t.problems, static_cast<long long>(t.layers), t.weighted_best_ms);
  std::string out = line;
  if (t.weighted_library_ms > 0 && t.library_missing == 0) {
    std::snprintf(line, sizeof line, ", the library's %.4f ms (%.2fx)", t.weighted_library_ms,
                  t.weighted_library_ms / t.weighted_best_ms);
    out += line;
  } else if (t.library_missing > 0) {
    out += ", the library's unknown (" + std::to_string(t.library_missing) +
           " problems without its time)";
  }
  out += "\n";
  for (const auto& key : t.no_winner) out += "job: no ok winner for " + key + "\n";
  for (const auto& key : t.not_reached)
    out += "job: not reached before the interrupt (not in the sums): " + key + "\n";
  return out;
}

// Per problem tuned with several templates: the algorithm that won, and by
// how much over each other one ("fastest on PROBLEM: T 0.71 ms, 1.36x over U").
std::string FastestLines(const TuneSummary& s) {
  std::string out;
  std::vector<std::string> seen;
  for (const PairSummary& p : s.pairs) {
    if (std::find(seen.begin(), seen.end(), p.problem_key) != seen.end()) continue;
    seen.push_back(p.problem_key);
    std::vector<const PairSummary*> tuned;
    for (const PairSummary& q : s.pairs)
      if (q.problem_key == p.problem_key && q.has_best) tuned.push_back(&q);
    if (tuned.size() < 2) continue;
    std::sort(tuned.begin(), tuned.end(),
              [](const PairSummary* a, const PairSummary* b) { return a->best_ms < b->best_ms; });
    char line[256];
    std::snprintf(line, sizeof line, "fastest on %s: %s %.4f ms", p.problem_key.c_str(),
                  tuned[0]->template_name.c_str(), tuned[0]->best_ms);
    out += line;
    if (tuned[0]->best_prepare_ms) {
      // Its time leaves out what beast_conv2d_prepare does once per weight buffer.
      std::snprintf(line, sizeof line, " (+ %.4f ms weight transform once per weight buffer)",
                    *tuned[0]->best_prepare_ms);
      out += line;
    }
    for (size_t i = 1; i < tuned.size(); ++i) {
      std::snprintf(line, sizeof line, "%s %.2fx over %s", i == 1 ? "," : ";",
                    tuned[i]->best_ms / tuned[0]->best_ms, tuned[i]->template_name.c_str());
      out += line;
    }
    out += "\n";
  }
  return out;
}

std::string FooterLines(const TuneSummary& s) {
  std::string out = FastestLines(s) + JobLines(s);
  for (const auto& line : s.empty_spaces) out += "not tuned, empty space: " + line + "\n";
  for (const auto& line : s.other_layout) out += "not tuned, other layout: " + line + "\n";
  for (const auto& line : s.not_applicable) out += "not tuned, not computed: " + line + "\n";
  for (const auto& b : s.baselines) {
    if (b.status == Status::kOk) continue;
    out += "baseline " + LibraryDisplayName(b.library) + " " + b.routine + " " +
           StatusName(b.status) + (b.error_text.empty() ? "" : ": " + b.error_text) +
           "\n      problem " + b.problem_key + "\n";
  }
  char line[1024];
  if (s.peak_gflops > 0) {
    std::snprintf(line, sizeof line, "%%peak: of %.1f GFLOP/s fp32, measured by %s (best: %s)\n",
                  s.peak_gflops, s.peak_method.c_str(), s.peak_variant.c_str());
    out += line;
  } else if (!s.peak_error.empty()) {
    out += "%peak: n/a, the peak microbenchmark failed: " + s.peak_error + "\n";
  }
  // Tensor-core pairs: per mma input type, the tensor cores' peak they are
  // a fraction of, or why they have none.
  std::set<std::string> unmeasured;
  std::set<int> measured;
  for (const PairSummary& p : s.pairs) {
    if (!p.tensor_cores) continue;
    const int input = TensorInputOf(Problem::Parse(p.problem_key));
    if (input >= 0 && s.peak_gflops_tensor[input] > 0)
      measured.insert(input);
    else
      unmeasured.insert(p.template_name);
  }
  for (int input : measured) {
    std::snprintf(line, sizeof line,
                  "%%peak of tensor-core templates on %s: of %.1f GFLOP/s, the tensor cores' "
                  "(best: %s)\n",
                  harness::TensorInputName(input), s.peak_gflops_tensor[input],
                  s.peak_tensor_variant[input].c_str());
    out += line;
  }
  if (!unmeasured.empty()) {
    std::string names, why;
    for (const std::string& name : unmeasured) names += (names.empty() ? "" : ", ") + name;
    // Why the measurement gave no peak (a failed or timed-out one), where
    // the device was asked for one.
    for (int input = 0; input < harness::kTensorInputs; ++input) {
      const std::string& error = s.peak_tensor_error[input];
      if (!error.empty() && error.rfind("not measured", 0) != 0)
        why += std::string("; ") + harness::TensorInputName(input) + ": " + error;
    }
    out += "%peak: n/a for " + names +
           " (tensor cores): their roof is the tensor cores' rate, not measured in this run" + why +
           "\n";
  }
  if (s.peak_gflops_f64 > 0 &&
      s.pairs.end() != std::find_if(s.pairs.begin(), s.pairs.end(), [](const PairSummary& p) {
        return p.problem_key.find(",dtype=f64") != std::string::npos;
      })) {
    std::snprintf(line, sizeof line, "%%peak of f64 problems: of %.1f GFLOP/s fp64 (best: %s)\n",
                  s.peak_gflops_f64, s.peak_f64_variant.c_str());
    out += line;
  }
  if (s.bandwidth_gbs > 0) {
    std::snprintf(line, sizeof line, "bandwidth: %.1f GB/s, measured by %s (best: %s)\n",
                  s.bandwidth_gbs, s.bandwidth_method.c_str(), s.bandwidth_variant.c_str());
    out += line;
  }
  std::snprintf(
      line, sizeof line,
      "wall %.1f s: compile %.1f s, first launches %.1f s, benchmark %.1f s, confirmation %.1f s; "
      "device busy %.1f%% of the wall time%s\n",
      s.wall_seconds, s.compile_seconds, s.first_launch_seconds, s.benchmark_seconds,
      s.confirm_seconds, 100.0 * s.DeviceBusyFraction(),
      s.worker_restarts ? (", " + std::to_string(s.worker_restarts) + " worker restarts").c_str()
                        : "");
  out += line;
  std::snprintf(
      line, sizeof line, "search: %.2f s fitting and proposing (%.1f%% of the wall time)\n",
      s.proposal_seconds, s.wall_seconds > 0 ? 100.0 * s.proposal_seconds / s.wall_seconds : 0.0);
  return out + line + ProgramsLine(s);
}

}  // namespace

std::string FormatTuneSummary(const TuneSummary& s) {
  if (s.compile_only) return FormatCompileOnlySummary(s);
  char header[512];
  const int width = TemplateWidth(s);
  std::snprintf(header, sizeof header, "%-*s %-10s %6s %6s %6s %11s %9s %8s %10s %6s  %s\n", width,
                "template", "problem", "space", "ran", "failed", "best ms", "GFLOP/s", "speedup",
                LibraryColumn(s).c_str(), "%peak", "best config");
  std::string out = HeaderLines(s) + header;
  for (const auto& p : s.pairs) {
    auto weight = s.weights.find(p.problem_key);
    out += PairLines(p, width, weight == s.weights.end() ? 1 : weight->second);
  }
  return out + FooterLines(s);
}

std::string FormatCompileOnlySummary(const TuneSummary& s) {
  std::string out;
  char line[1024];
  std::snprintf(line, sizeof line, "compiled for %s (%s) with NVRTC %s%s\n", s.device_id.c_str(),
                s.device_name.c_str(), s.compiler_version.c_str(),
                s.interrupted ? " — run interrupted, run the same command again to resume" : "");
  out += line;
  const int width = TemplateWidth(s);
  std::snprintf(line, sizeof line, "%-*s %-10s %8s %8s %8s %8s  %s\n", width, "template", "problem",
                "space", "compiled", "failed", "skipped", "registers");
  out += line;
  for (const auto& p : s.pairs) {
    std::string short_problem = p.problem_key.substr(0, p.problem_key.find(':'));
    std::string registers = "n/a";
    if (p.min_registers >= 0) {
      registers = std::to_string(p.min_registers) +
                  (p.max_registers != p.min_registers ? "-" + std::to_string(p.max_registers) : "");
    }
    std::snprintf(line, sizeof line, "%-*s %-10s %8llu %8llu %8llu %8llu  %s\n      problem %s\n",
                  width, p.template_name.c_str(), short_problem.c_str(),
                  (unsigned long long)p.space_size, (unsigned long long)(p.measured - p.failed),
                  (unsigned long long)p.failed, (unsigned long long)p.skipped, registers.c_str(),
                  p.problem_key.c_str());
    out += line;
    out += FailuresLine(p);
  }
  std::snprintf(line, sizeof line,
                "wall %.1f s: compile %.1f s on %u threads; programs: %llu compiled now, %llu "
                "from the cache %s\n",
                s.wall_seconds, s.compile_seconds, s.compile_threads,
                static_cast<unsigned long long>(s.programs_compiled),
                static_cast<unsigned long long>(s.programs_from_cache),
                s.cache_dir.empty() ? "(none)" : s.cache_dir.c_str());
  out += line;
  return out;
}

}  // namespace beast
