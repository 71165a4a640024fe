// A job file: the problems of a batch tuning job (`beast tune --problems
// FILE`, `beast export --problems FILE`), one problem key per line with an
// optional weight — how many layers of the network share the shape:
//
//   # ResNet-50, batch 1
//   conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad=1   x3
//   gemm:M=1,N=1000,K=2048
//
// `#` starts a comment; blank lines are skipped; the same problem twice (in
// any spelling: canonical keys are compared) is one problem whose weights add
// up, in the order it first appears.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "beast/problem/problem.hpp"

namespace beast {

struct JobProblem {
  Problem problem;
  int64_t weight = 1;
};

// Reads `path`. A bad line throws Error(kBadArgument) "PATH:LINE: why"
// (a malformed problem, a weight that is not xN with N >= 1, extra words);
// a file that cannot be read, Error(kNotFound); a file with no problem,
// Error(kBadArgument).
std::vector<JobProblem> ReadJobFile(const std::string& path);

// Adds `problem` with `weight` to `job`, merging with an equal problem.
void AddToJob(std::vector<JobProblem>* job, Problem problem, int64_t weight);

}  // namespace beast
