// What an export contains: the winning config of each (device, problem) read
// from the database, checked against the current templates, bound into an
// instance and rendered to OpenCL source. Private to the exporter.
#pragma once

#include <string>
#include <vector>

#include "beast/exporter.hpp"
#include "beast/problem.hpp"
#include "results_db/query.hpp"

namespace beast {

struct PlannedKernel {
  ExportEntry entry;
  Problem problem;
  std::string source;  // rendered, stamped with its generator and template
};

struct ExportPlan {
  std::vector<PlannedKernel> kernels;  // ordered by device, problem
  std::vector<std::string> skipped;    // winners left out, one line each (why)
};

// The fastest ok row over every template, per (device, problem), of rows as
// Store::Winners() returns them.
std::vector<results_db::WinnerRow> BestPerProblem(std::vector<results_db::WinnerRow> rows);

// Reads options.db_path and renders every winner. Throws Error: kDatabase
// when nothing can be exported, kBadInput when a template changed since it
// was tuned, kNotFound for a template that is gone.
ExportPlan PlanExport(const ExportOptions& options);

}  // namespace beast
