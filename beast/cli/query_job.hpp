// beast query --problems FILE: a batch job's view of a database. Per device
// that measured any of the job's problems, per problem in the job's order:
// its weight, the best time over its templates and which template, the
// speed-up over that template's default config and over the fastest vendor
// library, how many configs were measured and the wall time spent on it (the
// gaps between its records, Store::TimeSpent); then the job's weighted sums (an
// estimate of the network's conv + GEMM time per forward pass, and the
// library's) and the problems without an ok winner — what beast tune
// --problems prints at its end, read back from the database.
#pragma once

#include <string>
#include <vector>

#include "beast/problem/job_file.hpp"
#include "results_db/store.hpp"

namespace beast::cli {

// Prints the view as a table, or as JSON (an array with one object per
// device). device_name: only that device ("" : every device with results).
void PrintJob(results_db::Store& store, const std::vector<JobProblem>& job,
              const std::string& device_name, bool json);

}  // namespace beast::cli
