// Reading a job file (job_file.hpp).
#include "beast/problem/job_file.hpp"

#include <fstream>
#include <sstream>

#include "beast/core/error.hpp"

namespace beast {
namespace {

// "x3" -> 3; 0 when the word is not a weight.
int64_t WeightOf(const std::string& word) {
  if (word.size() < 2 || word[0] != 'x') return 0;
  int64_t weight = 0;
  for (size_t i = 1; i < word.size(); ++i) {
    if (word[i] < '0' || word[i] > '9' || weight > 1000000000) return 0;
    weight = weight * 10 + (word[i] - '0');
  }
  return weight;
}

}  // namespace

void AddToJob(std::vector<JobProblem>* job, Problem problem, int64_t weight) {
  for (JobProblem& p : *job) {
    if (p.problem.Key() == problem.Key()) {
      p.weight += weight;
      return;
    }
  }
  job->push_back({std::move(problem), weight});
}

std::vector<JobProblem> ReadJobFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw Error(ErrorCode::kNotFound, path + ": cannot read the job file");
  std::vector<JobProblem> job;
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    const std::string where = path + ":" + std::to_string(number) + ": ";
    std::istringstream words(line.substr(0, line.find('#')));
    std::string key, weight_word, extra;
    if (!(words >> key)) continue;  // blank or a comment
    int64_t weight = 1;
    if (words >> weight_word) {
      weight = WeightOf(weight_word);
      if (weight < 1)
        throw Error(ErrorCode::kBadArgument,
                    where + "\"" + weight_word + "\" is not a weight (xN, N >= 1, e.g. x3)");
    }
    if (words >> extra)
      throw Error(ErrorCode::kBadArgument,
                  where + "unexpected \"" + extra + "\" after the problem and its weight");
    try {
      AddToJob(&job, Problem::Parse(key), weight);
    } catch (const Error& e) {
      throw Error(ErrorCode::kBadArgument, where + e.what());
    }
  }
  if (job.empty()) throw Error(ErrorCode::kBadArgument, path + ": the job file lists no problem");
  return job;
}

}  // namespace beast
