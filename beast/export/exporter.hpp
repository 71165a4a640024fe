// Exporter: turns the winners of a results database into a self-contained
// CMake project — a C library (include/beast_tuned.h) that runs the winning
// kernel for each tuned problem on the device it was tuned on.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "beast/core/backend.hpp"
#include "beast/space/bound_space.hpp"

namespace beast {

struct ExportOptions {
  std::string db_path;        // an existing beast database
  std::string out_dir;        // the project folder to write (or replace)
  std::string templates_dir;  // kernel_templates/ the winners are rendered from
  std::string python;         // Python with Jinja2
  std::string render_script;  // harness/render.py
  std::string skeleton_dir;   // the static parts (ROOT/beast/export_skeleton)
  // Problem keys the library will be called with that may not be tuned: each
  // one not tuned on a device gets that device's nearest tuned winner that
  // fits it (export_nearest.hpp), or stays on the generic kernel.
  std::vector<std::string> requested;
  // Device names (exact) whose winners to export; empty: every device's.
  std::vector<std::string> devices;
  // Also write pytorch/ (the PyTorch operators, a CMake project that builds
  // this library as its subproject) and examples/pytorch/.
  bool pytorch = false;

  // Every path from Paths::Default(); db_path and out_dir left empty.
  static ExportOptions Defaults();
};

enum class EntryCalls { kAll = 0, kPrepared = 1, kPlain = 2 };

// One tuned kernel of the library: the fastest ok config, over every template,
// of one problem on one device; or, for a requested problem nobody tuned
// there (nearest), the config of a nearby tuned problem rendered for it.
struct ExportEntry {
  Backend backend = Backend::kOpenCL;  // the tuning device's
  std::string problem_key;
  std::string template_name;
  std::string template_hash;
  std::string config_key;
  std::string kernel_name;
  std::string device_name;
  std::string device_vendor;
  std::string device_driver;
  std::string device_arch;
  double median_ms = 0;  // measured for problem_key; for nearest, for source_problem
  size_t global[3] = {1, 1, 1};
  size_t local[3] = {1, 1, 1};
  int64_t dynamic_local_bytes = -1;  // the kernel's __local argument at launch; -1: none
  int shared_carveout = -1;          // CUDA's carveout at launch, percent; -1: the driver's
  // Kernels launched before it, in order, and the workspace they share (a
  // multi-stage config: Winograd's SPLIT).
  std::vector<Instance::Stage> before;
  int64_t workspace_bytes = 0;
  bool nearest = false;
  std::string source_problem;  // nearest: the tuned problem the config comes from
  double distance = 0;         // nearest: ShapeDistance to it
  // Which calls it serves (beast_entry.calls): every one; or, where the
  // fastest config has prepare stages and another is faster when those run
  // in the call, calls with prepared weights (beast_conv2d_prepare) only,
  // and the other config plain calls only.
  EntryCalls calls = EntryCalls::kAll;
  std::optional<double> prepare_ms;  // the prepare stages' time, when it has some
};

struct ExportSummary {
  std::string out_dir;
  std::vector<ExportEntry> entries;  // ordered by device, problem
  std::vector<std::string> files;    // written, relative to out_dir, sorted
  std::vector<std::string> skipped;  // winners left out (another backend), one line each
  // Requested problems left to the generic kernel on a device, one line each (why).
  std::vector<std::string> generic;
};

// Writes the project into a temporary folder beside out_dir and renames it
// into place, replacing a previous export (recognized by its stamp file).
// Throws Error: kDatabase for a database without an ok measurement ("no ok
// measurement to export"), kBadInput for a template whose hash changed since
// it was tuned, kBadArgument for an out_dir that holds something else.
ExportSummary ExportLibrary(const ExportOptions& options);

// The name of the stamp file that marks a folder as a beast export.
inline constexpr const char kExportStampFile[] = ".beast-export";

// One exported entry as a stamp-file line: "entry", then device, driver,
// problem, template, template hash, config and median ms, tab-separated.
std::string FormatStampEntry(const ExportEntry& e);

// Whether an export is stale against a database and the templates.
struct ExportCheck {
  size_t entries = 0;              // kernels in the export
  std::vector<std::string> stale;  // one line per difference; empty: up to date
};

// Compares options.out_dir's stamp with the database's current winners and
// the templates' current hashes. Throws Error(kBadArgument) when out_dir is not
// a beast export, and what Store::OpenExisting throws for the database.
ExportCheck CheckExport(const ExportOptions& options);

}  // namespace beast
