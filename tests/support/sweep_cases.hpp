// The cases of the correctness sweep: the ONNX golden convolutions and the
// DeepBench / benchdnn shapes that tests/data/make_conv_sweep_data.py drew,
// read from tests/data, plus the GEMM shapes. Each case becomes a problem in a
// given layout and the ProblemData (inputs and reference) kernels are checked
// against.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "beast/problem/problem.hpp"
#include "beast/worker/problem_data.hpp"
#include "harness/measure/reference.hpp"

namespace beast::testing {

// An ONNX node test: NCHW tensors, filter K x C/groups x R x S, expected y.
struct GoldenConv {
  std::string name;
  Conv2dShape shape;
  std::vector<float> x, w, b, y;
};

inline std::vector<float> ParseFloats(std::istringstream& in) {
  std::vector<float> values;
  double v = 0;
  while (in >> v) values.push_back(static_cast<float>(v));
  return values;
}

inline std::vector<GoldenConv> LoadGoldenConvs(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error(path + ": cannot open");
  std::vector<GoldenConv> cases;
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string tag;
    in >> tag;
    if (tag == "case") {
      GoldenConv c;
      Conv2dShape& s = c.shape;
      int bias = 0;
      in >> c.name >> s.n >> s.c >> s.h >> s.w >> s.k >> s.r >> s.s >> s.stride_h >> s.stride_w >>
          s.pad_h >> s.pad_w >> s.dilation_h >> s.dilation_w >> s.groups >> bias;
      s.bias = bias == 1;
      cases.push_back(c);
    } else if (cases.empty()) {
      throw std::runtime_error(path + ": tensor line before any case");
    } else if (tag == "x") {
      cases.back().x = ParseFloats(in);
    } else if (tag == "w") {
      cases.back().w = ParseFloats(in);
    } else if (tag == "b") {
      cases.back().b = ParseFloats(in);
    } else if (tag == "y") {
      cases.back().y = ParseFloats(in);
    } else {
      throw std::runtime_error(path + ": unknown line tag " + tag);
    }
  }
  return cases;
}

// Problem strings, one per line, comments after '#'.
inline std::vector<std::string> LoadShapeList(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error(path + ": cannot open");
  std::vector<std::string> shapes;
  std::string line;
  while (std::getline(file, line)) {
    std::string text = line.substr(0, line.find('#'));
    while (!text.empty() && text.back() == ' ') text.pop_back();
    if (!text.empty()) shapes.push_back(text);
  }
  return shapes;
}

// NCHW -> NHWC for x and y ([N][C][H][W] -> [N][H][W][C]); filters go
// [K][C][R][S] -> [K][R][S][C], the same permutation with N=K.
inline std::vector<float> ToChannelsLast(const std::vector<float>& t, int64_t n, int64_t c,
                                         int64_t h, int64_t w) {
  std::vector<float> out(t.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < c; ++j)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
          out[((i * h + y) * w + x) * c + j] = t[((i * c + j) * h + y) * w + x];
  return out;
}

// The golden case as ProblemData in `layout`: its own inputs, ONNX's output
// as the reference, and beast's reference over absolute values as the error
// scale. `beast_reference` receives beast's own reference output (same
// layout) so the test can check it against ONNX too.
inline ProblemData GoldenProblemData(const GoldenConv& g, Layout layout,
                                     std::vector<float>* beast_reference) {
  Conv2dShape s = g.shape;
  s.layout = layout;
  const int64_t cg = s.c / s.groups, p = s.OutH(), q = s.OutW();
  ProblemData d;
  d.input0 = layout == Layout::kNHWC ? ToChannelsLast(g.x, s.n, s.c, s.h, s.w) : g.x;
  d.input1 = layout == Layout::kNHWC ? ToChannelsLast(g.w, s.k, cg, s.r, s.s) : g.w;
  d.bias = g.b;
  d.reference = layout == Layout::kNHWC ? ToChannelsLast(g.y, s.n, s.k, p, q) : g.y;
  d.output_count = d.reference.size();
  d.reduction_length = harness::Conv2dReductionLength(s);
  d.problem_key = Problem::Conv2d(s).Key();  // a Winograd kernel's bound reads the shape
  d.abs_reference.resize(d.output_count);
  beast_reference->resize(d.output_count);
  harness::ReferenceConv2d(s, d.input0.data(), d.input1.data(), s.bias ? d.bias.data() : nullptr,
                           beast_reference->data(), d.abs_reference.data());
  return d;
}

// GEMM shapes: all four transpositions, row- and column-major, odd sizes,
// vectors and a long K.
inline std::vector<std::string> GemmSweepShapes() {
  std::vector<std::string> shapes;
  for (const char* dims : {"M=1,N=1,K=1", "M=17,N=33,K=9", "M=64,N=64,K=64", "M=100,N=3,K=257",
                           "M=1,N=384,K=96", "M=255,N=129,K=31"}) {
    for (int t = 0; t < 8; ++t) {
      shapes.push_back(std::string("gemm:") + dims + ",transA=" + std::to_string(t & 1) +
                       ",transB=" + std::to_string((t >> 1) & 1) + (t & 4 ? ",layout=col" : ""));
    }
  }
  return shapes;
}

}  // namespace beast::testing
