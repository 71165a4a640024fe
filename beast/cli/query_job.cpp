// The batch job's view of beast query (query_job.hpp).
#include "beast/cli/query_job.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "beast/cli/json_text.hpp"

namespace beast::cli {
namespace {

using Json = nlohmann::ordered_json;

Json OrNull(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

struct ProblemLine {
  std::string key;
  int64_t weight = 1;
  const results_db::ResultRow* best = nullptr;  // the fastest ok over templates; null: none
  const results_db::BaselineSpeedup* library = nullptr;  // its fastest vendor routine
  int64_t configs = 0;                                   // measured, every status
  double seconds = 0;  // wall time spent on it over every run (Store::TimeSpent)
};

// One device row (backend, name, driver: results of another driver or
// backend on the same device are not mixed in).
struct DeviceView {
  int64_t device_id = 0;
  std::string device, backend, driver;
  bool name_shared = false;  // another device row of the view has its name
  std::vector<ProblemLine> lines;
  int64_t layers = 0;
  double weighted_best_ms = 0, weighted_library_ms = 0;
  double seconds = 0;  // spent on the job's problems
  int library_missing = 0;
  std::vector<std::string> no_winner;
};

using PerProblem = std::map<std::pair<int64_t, std::string>, int64_t>;  // (device id, problem)
using SecondsPerProblem = std::map<std::pair<int64_t, std::string>, double>;

void FillView(const std::vector<JobProblem>& job,
              const std::vector<results_db::ResultRow>& best_rows, const PerProblem& counts,
              const SecondsPerProblem& seconds, DeviceView* view) {
  DeviceView& v = *view;
  const int64_t device = v.device_id;
  for (const JobProblem& jp : job) {
    ProblemLine line;
    line.key = jp.problem.Key();
    line.weight = jp.weight;
    for (const results_db::ResultRow& r : best_rows) {
      if (r.device_id != device || r.problem_key != line.key || !r.median_ms) continue;
      if (!line.best || *r.median_ms < *line.best->median_ms) line.best = &r;
    }
    if (line.best) {
      for (const results_db::BaselineSpeedup& b : line.best->baselines)
        if (!line.library || b.median_ms < line.library->median_ms) line.library = &b;
    }
    const auto count = counts.find({device, line.key});
    line.configs = count == counts.end() ? 0 : count->second;
    const auto spent = seconds.find({device, line.key});
    line.seconds = spent == seconds.end() ? 0 : spent->second;
    v.seconds += line.seconds;
    v.layers += line.weight;
    if (!line.best) {
      v.no_winner.push_back(line.key);
    } else {
      v.weighted_best_ms += static_cast<double>(line.weight) * *line.best->median_ms;
      if (line.library) {
        v.weighted_library_ms += static_cast<double>(line.weight) * line.library->median_ms;
      } else {
        ++v.library_missing;
      }
    }
    v.lines.push_back(line);
  }
}

// The device as a line names it: with its backend and driver when another
// device row of the view has the same name.
std::string Label(const DeviceView& v) {
  return v.name_shared ? v.device + " (" + v.backend + ", driver " + v.driver + ")" : v.device;
}

Json JsonOf(const DeviceView& v) {
  Json problems = Json::array();
  for (const ProblemLine& l : v.lines) {
    problems.push_back(
        {{"problem", l.key},
         {"weight", l.weight},
         {"template", l.best ? Json(l.best->template_name) : Json(nullptr)},
         {"config", l.best ? Json(l.best->config_key) : Json(nullptr)},
         {"best_ms", l.best ? OrNull(l.best->median_ms) : Json(nullptr)},
         {"speedup_vs_default", l.best ? OrNull(l.best->speedup_vs_default) : Json(nullptr)},
         {"library",
          l.library ? Json(l.library->library + " " + l.library->routine) : Json(nullptr)},
         {"library_ms", l.library ? Json(l.library->median_ms) : Json(nullptr)},
         {"speedup_vs_library", l.library ? OrNull(l.library->speedup) : Json(nullptr)},
         {"configs_measured", l.configs},
         {"seconds", l.seconds}});
  }
  return {{"device", v.device},
          {"backend", v.device_id ? Json(v.backend) : Json(nullptr)},
          {"driver", v.device_id ? Json(v.driver) : Json(nullptr)},
          {"problems", problems},
          {"layers", v.layers},
          {"weighted_best_ms", v.weighted_best_ms},
          {"weighted_library_ms", v.library_missing == 0 && v.weighted_library_ms > 0
                                      ? Json(v.weighted_library_ms)
                                      : Json(nullptr)},
          {"seconds", v.seconds},
          {"no_winner", v.no_winner}};
}

void PrintTable(const DeviceView& v) {
  std::printf("job on %s: %zu problems, %lld layers\n", Label(v).c_str(), v.lines.size(),
              static_cast<long long>(v.layers));
  std::printf("%6s  %-20s %11s %9s %24s %9s %8s %8s  %s\n", "weight", "template", "best ms",
              "vs dflt", "library (ms)", "vs lib", "configs", "time s", "problem");
  for (const ProblemLine& l : v.lines) {
    char best[32] = "-", dflt[32] = "-", lib[64] = "-", vs[32] = "-";
    if (l.best) {
      std::snprintf(best, sizeof best, "%.4f", *l.best->median_ms);
      if (l.best->speedup_vs_default)
        std::snprintf(dflt, sizeof dflt, "%.2fx", *l.best->speedup_vs_default);
    }
    if (l.library) {
      std::snprintf(lib, sizeof lib, "%s %.4f", l.library->routine.c_str(), l.library->median_ms);
      if (l.library->speedup) std::snprintf(vs, sizeof vs, "%.2fx", *l.library->speedup);
    }
    std::printf("%6lld  %-20s %11s %9s %24s %9s %8lld %8.1f  %s\n",
                static_cast<long long>(l.weight),
                l.best ? l.best->template_name.c_str() : "(no ok winner)", best, dflt, lib, vs,
                static_cast<long long>(l.configs), l.seconds, l.key.c_str());
  }
  std::printf("weighted sum of the best times %.4f ms per pass", v.weighted_best_ms);
  if (v.library_missing == 0 && v.weighted_library_ms > 0) {
    std::printf(", the library's %.4f ms (%.2fx)", v.weighted_library_ms,
                v.weighted_library_ms / v.weighted_best_ms);
  } else if (v.library_missing > 0) {
    std::printf(" (%d problems without a library time)", v.library_missing);
  }
  std::printf("; %.1f s spent tuning them\n", v.seconds);
  for (const std::string& key : v.no_winner) std::printf("no ok winner: %s\n", key.c_str());
}

}  // namespace

void PrintJob(results_db::Store& store, const std::vector<JobProblem>& job,
              const std::string& device_name, bool json) {
  results_db::QueryFilter best;
  best.best_only = true;
  results_db::QueryFilter all;
  if (!device_name.empty()) best.device_name = all.device_name = device_name;
  const std::vector<results_db::ResultRow> best_rows = store.Query(best);
  PerProblem counts;
  std::vector<int64_t> device_ids;  // with results for the job, first seen first
  for (const results_db::ResultRow& r : store.Query(all)) {
    ++counts[{r.device_id, r.problem_key}];
    for (const JobProblem& jp : job) {
      if (r.problem_key == jp.problem.Key() &&
          std::find(device_ids.begin(), device_ids.end(), r.device_id) == device_ids.end())
        device_ids.push_back(r.device_id);
    }
  }
  SecondsPerProblem seconds;
  for (const results_db::TimeSpentRow& t : store.TimeSpent())
    seconds[{t.device_id, t.problem_key}] += t.seconds;
  std::vector<DeviceView> views;
  const std::vector<results_db::DeviceRow> rows = store.Devices();
  for (int64_t id : device_ids) {
    DeviceView v;
    v.device_id = id;
    for (const results_db::DeviceRow& d : rows) {
      if (d.device_id != id) continue;
      v.device = d.name;
      v.backend = d.backend;
      v.driver = d.driver_version;
    }
    views.push_back(std::move(v));
  }
  if (views.empty()) {
    DeviceView none;
    none.device = device_name.empty() ? "(no device)" : device_name;
    views.push_back(std::move(none));
  }
  for (DeviceView& v : views) {
    v.name_shared = std::count_if(views.begin(), views.end(),
                                  [&](const DeviceView& w) { return w.device == v.device; }) > 1;
    FillView(job, best_rows, counts, seconds, &v);
  }
  Json out = Json::array();
  for (const DeviceView& view : views) {
    if (json) {
      out.push_back(JsonOf(view));
    } else {
      PrintTable(view);
    }
  }
  if (json) std::printf("%s\n", JsonText(out).c_str());
}

}  // namespace beast::cli
