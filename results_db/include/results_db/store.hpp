// Store: the SQLite result database of beast. Creates or opens a database,
// records devices, problems, template versions, configs, runs and
// measurements, and answers what is measured and which config won.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "results_db/confirmation.hpp"
#include "results_db/query.hpp"
#include "results_db/records.hpp"

namespace results_db {

// The header fields that identify a beast database ('BEAS') and its schema.
inline constexpr int32_t kApplicationId = 0x42454153;
inline constexpr int kSchemaVersion = 9;

// One open database connection. Errors throw beast::Error(kDatabase) naming the
// file. Not thread-safe: use one Store per thread (SQLite's WAL mode and busy
// timeout let several Stores, in one or many processes, share a file).
class Store {
 public:
  // For writing: creates `path` with the schema (all or nothing) if it does
  // not exist or is empty, else opens it after checking it is a beast
  // database whose schema version this beast reads and whose pages are
  // intact (SQLite's quick_check). A file refused, or one created and not
  // finished (a full disk), is left as it was, with no -wal or -shm beside.
  static Store Open(const std::string& path);
  // For readers (query, export): like Open, but a missing or empty file, or
  // an SQLite file without beast's schema, is an error (nothing is written to
  // it), and the pages are not checked first.
  static Store OpenExisting(const std::string& path);

  Store(Store&& other) noexcept;
  Store& operator=(Store&& other) noexcept;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  ~Store();

  const std::string& path() const;

  // Insert-or-find by identity. An existing row keeps its limits, and gains
  // the measured values (limits_json keys ending "_measured" or "_method":
  // the peaks and bandwidth beast measured, and how) it does not hold yet,
  // so a peak a later run measures first (a new dtype's) is kept too and no
  // earlier measurement is replaced.
  int64_t UpsertDevice(const DeviceRecord& device);
  int64_t UpsertProblem(const std::string& key, const std::string& op, double flops);
  int64_t UpsertTemplate(const std::string& name, const std::string& hash,
                         const std::string& source_path);
  int64_t UpsertConfig(int64_t template_id, const std::string& config_key,
                       const std::string& config_hash, const std::string& params_json);

  // Several writes in one transaction: they commit together when Commit() is
  // called, and none of them if the batch is destroyed first (an exception).
  // Outside a batch every call is its own transaction. One batch at a time per
  // Store; it takes the write lock when it starts (waiting up to the busy
  // timeout for another writer), so keep it short.
  class Batch {
   public:
    explicit Batch(Store& store);
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;
    ~Batch();
    void Commit();

   private:
    Store& store_;
    bool open_ = true;
  };

  // A run starts "running"; FinishRun records how it ended ("finished" or
  // "interrupted") and the finish time.
  int64_t BeginRun(const std::string& command, const std::string& beast_version);
  void FinishRun(int64_t run_id, RunEnd end);
  // The newest run's id, 0 when there is none: what a job's later runs are
  // newer than.
  int64_t LastRunId();

  // Records one measurement in its own transaction (or the open Batch's), so a
  // killed process loses nothing already recorded. If (device, problem, config) is already measured
  // the existing row is kept (only is_default is raised when this record is the
  // default config) and false is returned; true when a new row was written.
  bool RecordMeasurement(const MeasurementRecord& measurement);
  // Replaces the outcome of measurement `measurement_id` (a recorded failure
  // measured again) with `measurement`'s, keeping the old one in
  // superseded_measurements (superseded by measurement.run_id); identity,
  // is_default and strategy stay. In the open Batch, else its own
  // transaction. Throws kDatabase when there is no such measurement.
  void SupersedeMeasurement(int64_t measurement_id, const MeasurementRecord& measurement);

  // Records one vendor-library baseline in its own transaction. If (device,
  // problem, library, routine) is already recorded the existing row is kept and
  // false is returned; true when a new row was written. Throws kBadArgument for
  // an unknown status or an empty library or routine name.
  bool RecordBaseline(const BaselineRecord& baseline);

  // Records a confirmation and its results in one transaction (or the open
  // Batch's); returns its id. Throws kBadArgument for no results, an unknown
  // status or a config twice.
  int64_t RecordConfirmation(const Confirmation& confirmation);
  // The confirmations of a (device, problem, template version), oldest first.
  std::vector<Confirmation> Confirmations(int64_t device_id, int64_t problem_id,
                                          int64_t template_id);

  // What a resumed run skips.
  bool HasMeasurement(int64_t device_id, int64_t problem_id, int64_t config_id);
  bool HasBaseline(int64_t device_id, int64_t problem_id, const std::string& library,
                   const std::string& routine);
  // Every config measured for the pair, oldest first, with its outcome.
  std::vector<MeasuredOutcome> MeasuredOutcomes(int64_t device_id, int64_t problem_id,
                                                int64_t template_id);
  std::set<std::string> MeasuredConfigKeys(int64_t device_id, int64_t problem_id,
                                           int64_t template_id);
  // The measurement id below which the pair's search reads its transfer
  // set: fixed by the first call for the pair (one past the newest
  // measurement then), the same ever after.
  int64_t TransferCutoff(int64_t device_id, int64_t problem_id, int64_t template_id);
  // The lead of the pair's search (proposed configs kept ahead of its
  // measurements): the largest any run of it proposed. A resume with a
  // smaller lead (fewer ranks or cores) keeps the larger, so it continues
  // the same trajectory; one with a larger lead (more slots to feed) raises
  // it, and its trajectory goes its own way from there.
  int64_t SearchLead(int64_t device_id, int64_t problem_id, int64_t template_id, int64_t proposed);
  // Every measurement of any version of `template_name`, on any device and
  // problem, with an id below `before_id`, oldest first: what a search
  // transfers from earlier tunings.
  std::vector<MeasuredOutcome> TemplateOutcomes(const std::string& template_name,
                                                int64_t before_id);

  // Rows carry the speed-up over each library's fastest ok baseline on their
  // device and problem (ResultRow::baselines).
  std::vector<ResultRow> Query(const QueryFilter& filter);
  std::vector<BaselineRow> Baselines(const BaselineFilter& filter = BaselineFilter());
  // Every problem key, and every template name (any version), sorted.
  std::vector<std::string> ProblemKeys();
  std::vector<std::string> TemplateNames();
  // Every device, ordered by name, backend, driver version.
  std::vector<DeviceRow> Devices();
  // The parameter names in the configs of `template_name` (all templates when
  // unset), sorted: what a ParamMatch may name.
  std::vector<std::string> ParameterNames(const std::optional<std::string>& template_name);
  // The problems both devices (exact names) have an ok measurement of, each
  // with the best of each device over the templates `filter` allows (its
  // device fields, best_only, top_k and limit are ignored); by problem key.
  std::vector<ComparisonRow> Compare(const std::string& device_a, const std::string& device_b,
                                     const QueryFilter& filter);
  // Best ok config per (device, problem, template) as QueryFilter::best_only
  // picks it, for one device or (nullopt) all; ordered by device, problem,
  // template name. With `plain`, ranked for a call without prepared weights:
  // by time plus prepare_ms (a config's prepare stages then run every call).
  std::vector<WinnerRow> Winners(std::optional<int64_t> device_id = std::nullopt,
                                 bool plain = false);
  // The wall time spent on each (device, problem) over every run, read from
  // the record timestamps: each measurement, baseline and confirmation is
  // charged the time since the previous record of its run on its device (the
  // first since the run started). Ordered by device name, problem key. Where
  // several processes record for one device at once (ranks of a cluster run
  // on identical devices) the gaps interleave and the sum is the job's wall
  // time shared among its problems, not each device's busy time.
  std::vector<TimeSpentRow> TimeSpent();

 private:
  struct Impl;
  static Store OpenFile(const std::string& path, bool for_writing);
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace results_db
