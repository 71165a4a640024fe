// The nearest-tuned tier of an export: for a shape the framework will call
// that nobody tuned on a device, the winning config of the nearest tuned
// problem (of the same op, layout or transpositions, on that device) that
// the template's constraints accept for the new shape (the soft ones too
// where any winner passes them, else the hard ones), rendered for it.
// Chosen at export time, since a rendered kernel bakes its shape in. Private
// to the exporter (beast export and beast export --check share it).
#pragma once

#include <string>
#include <vector>

#include "beast/problem/problem.hpp"
#include "results_db/query.hpp"

namespace beast {

// How far apart two shapes are: the Euclidean distance between their vectors
// of log2 sizes, so doubling or halving one size adds 1 in its direction.
// conv2d: N C H W K R S stride_h stride_w dilation_h dilation_w groups, and
// pad_h pad_w bias as log2(1 + value); gemm: M N K.
double ShapeDistance(const Problem& a, const Problem& b);

// Whether a tuned problem b may lend its winners to a: the same op and
// dtype, and the same layout (conv2d) or transpositions and order (gemm).
bool SameKind(const Problem& a, const Problem& b);

struct NearestChoice {
  results_db::WinnerRow source;  // the winner whose config is reused
  Problem problem;               // the requested shape it is rendered for
  double distance = 0;           // ShapeDistance(problem, source's problem)
};

struct NearestPlan {
  std::vector<NearestChoice> choices;  // by device, then in the order requested
  // One line per (requested problem, device) left to the generic kernel: why.
  std::vector<std::string> generic;
};

// For every OpenCL device in `winners` (the best ok row per device, problem
// and template, as Store::Winners() gives them) and every requested problem
// not tuned there: the tuned problems of the same kind on that device from
// nearest to farthest (ties by key), each one's winners fastest first, and
// the first whose config passes the hard constraints of its template bound
// to the requested problem and the device. Winners of a template that
// changed since they were measured are passed over.
NearestPlan PlanNearest(const std::vector<results_db::WinnerRow>& winners,
                        const std::vector<Problem>& requested, const std::string& templates_dir);

}  // namespace beast
