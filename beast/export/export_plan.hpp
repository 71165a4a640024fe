// What an export contains: the winning config of each (device, problem) read
// from the database, checked against the current templates, bound into an
// instance and rendered for its device's backend: OpenCL source, or for a
// CUDA GPU a cubin and PTX compiled with NVRTC. Private to the exporter.
#pragma once

#include <string>
#include <vector>

#include "beast/export/exporter.hpp"
#include "beast/problem/device.hpp"
#include "beast/problem/problem.hpp"
#include "results_db/query.hpp"

namespace beast {

struct PlannedKernel {
  ExportEntry entry;
  Problem problem;
  std::string source;  // rendered, stamped with its generator and template
  // CUDA entries: NVRTC's cubin for the tuning GPU's architecture
  // (entry.device_arch) and the PTX of the same source for that compute
  // capability, which newer GPUs JIT-compile.
  std::string cubin, ptx;
  int ptx_cc = 0;
};

struct ExportPlan {
  std::vector<PlannedKernel> kernels;  // exact ones by device, problem; then nearest ones
  std::vector<std::string> skipped;    // winners left out, one line each (why)
  std::vector<std::string> generic;    // requested problems left to the generic kernel (why)
  std::string toolchain;  // what rendered and compiled the kernels ("jinja2 3.1.2; nvrtc 13.0")
};

// The fastest ok row over every template, per (device, problem), of rows as
// Store::Winners() returns them; with `plain`, by time plus prepare_ms (of
// Store::Winners(device, true)).
std::vector<results_db::WinnerRow> BestPerProblem(std::vector<results_db::WinnerRow> rows,
                                                  bool plain = false);

// A winner the library carries and the calls it serves (ExportEntry::calls).
struct ExportedWinner {
  results_db::WinnerRow row;
  EntryCalls calls = EntryCalls::kAll;
};

// Per (device, problem): BestPerProblem(every), serving every call — unless
// it has prepare stages and BestPerProblem(plain, true) is another config:
// then the first serves calls with prepared weights, the second plain ones
// (listed after it). Only conv2d has prepared calls: another op's entry is
// BestPerProblem(plain, true). Ordered by device, problem.
std::vector<ExportedWinner> ExportedWinners(const std::vector<results_db::WinnerRow>& every,
                                            const std::vector<results_db::WinnerRow>& plain);

// The rows tuned on one of `devices` (exact names); all rows when it is empty.
std::vector<results_db::WinnerRow> OfDevices(std::vector<results_db::WinnerRow> rows,
                                             const std::vector<std::string>& devices);

// Whether the library can carry row's kernel: an OpenCL winner, or a CUDA
// one when this beast has NVRTC; else *why says why not (imported results).
bool Exportable(const results_db::WinnerRow& row, std::string* why);
// Throws Error(kBadArgument) naming a problem the library cannot be asked to
// serve: a math=tf32 one.
void CheckServable(const Problem& problem);

// The tuning device of a winner as a space binds it, with the limits recorded
// when it was measured, so the export needs no access to that device.
DeviceInfo BindingDevice(const results_db::WinnerRow& row);

// Reads options.db_path and renders every winner, and the nearest winner
// for each of options.requested not tuned on a device. Throws Error: kDatabase
// when nothing can be exported, kBadInput when a template changed since it
// was tuned, kNotFound for a template that is gone.
ExportPlan PlanExport(const ExportOptions& options);

}  // namespace beast
