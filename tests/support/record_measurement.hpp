// Writes one measurement into a results database as a tuning run would
// record it — device, problem, template and config rows, a run of its own —
// for tests that need winners in a database without tuning (the export tests).
#pragma once

#include <optional>
#include <string>

#include "beast/core/config.hpp"
#include "beast/problem/device.hpp"
#include "beast/problem/problem.hpp"
#include "beast/space/space_spec.hpp"
#include "results_db/store.hpp"

namespace beast::testing {

// Records `config` of `spec` for `problem` on `device` in the database at
// `db`: ok at `ms` (three samples of it), or a compile error when ms <= 0.
// template_hash: the hash to record (empty: the template's own); prepare_ms:
// its prepare stages' time, when it has some.
inline void RecordMeasurement(const std::string& db, const DeviceInfo& device,
                              const Problem& problem, const SpaceSpec& spec, const Config& config,
                              double ms, const std::string& template_hash = "",
                              std::optional<double> prepare_ms = std::nullopt) {
  results_db::Store store = results_db::Store::Open(db);
  int64_t device_id =
      store.UpsertDevice({device.backend, device.name, device.vendor, device.driver_version,
                          device.arch, DeviceLimitsToJson(device.limits)});
  int64_t run = store.BeginRun("test", BEAST_VERSION);
  results_db::MeasurementRecord m;
  m.run_id = run;
  m.device_id = device_id;
  m.problem_id = store.UpsertProblem(problem.Key(), problem.OpName(), problem.Flops());
  m.config_id = store.UpsertConfig(
      store.UpsertTemplate(spec.name, template_hash.empty() ? spec.hash : template_hash,
                           spec.source_rel),
      config.Key(), config.Hash(), config.ToJson());
  m.is_default = false;
  m.status = ms > 0 ? beast::Status::kOk : beast::Status::kCompileError;
  if (ms > 0) {
    m.samples_ms = {ms, ms, ms};
    m.median_ms = ms;
    m.prepare_ms = prepare_ms;
  }
  store.RecordMeasurement(m);
  store.FinishRun(run, results_db::RunEnd::kFinished);
}

}  // namespace beast::testing
