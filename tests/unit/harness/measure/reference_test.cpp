// CPU reference convolution and GEMM: hand-computed cases, NHWC against NCHW,
// the ONNX golden conv cases, large cases split over threads (and
// ParallelRows, which splits them: every row once, small counts on the
// calling thread, exceptions rethrown after every thread ended), and the
// portable random inputs.
#include "harness/measure/reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "beast/core/error.hpp"
#include "harness/measure/parallel_rows.hpp"
#include "harness/measure/validation.hpp"

namespace beast::harness {
namespace {

TEST(ReferenceConv2d, HandCaseWithGroupsPadStrideDilationBias) {
  // C=K=2, groups=2: output channel k reads input channel k only. Padding 1,
  // stride 2, dilation 2: output (p,q) reads input rows/cols {2p-1, 2p+1}.
  Conv2dShape shape;
  shape.n = 1, shape.c = 2, shape.h = 4, shape.w = 4, shape.k = 2, shape.r = 2, shape.s = 2;
  shape.pad_h = shape.pad_w = 1;
  shape.stride_h = shape.stride_w = 2;
  shape.dilation_h = shape.dilation_w = 2;
  shape.groups = 2;
  std::vector<float> x = {1,  2,   3, 4,  5, 6,  7, 8,    9,  10, 11,  12, 13, 14, 15, 16,
                          -1, 0.5, 2, -3, 4, -5, 6, 0.25, -7, 8,  1.5, -2, 3,  -4, 5,  -6};
  std::vector<float> w = {1, 2, 3, 4, -1, 0.5, 2, -2};
  std::vector<float> bias = {0.5, -1};
  ASSERT_EQ(Conv2dInputCount(shape), 32u);
  ASSERT_EQ(Conv2dFilterCount(shape), 8u);
  ASSERT_EQ(Conv2dOutputCount(shape), 8u);
  // (C/groups)*R*S = 4 products per output, and the bias a fifth term.
  EXPECT_EQ(Conv2dReductionLength(shape), 4);
  shape.bias = true;
  EXPECT_EQ(Conv2dReductionLength(shape), 5);
  std::vector<float> y(8), abs_y(8);
  ReferenceConv2d(shape, x.data(), w.data(), bias.data(), y.data(), abs_y.data());
  // k=0, (1,1): 1*x[1][1] + 2*x[1][3] + 3*x[3][1] + 4*x[3][3] + 0.5 = 6+16+42+64+0.5
  EXPECT_EQ(y, (std::vector<float>{24.5, 50.5, 68.5, 128.5, 9, -11.5, 4.5, 8.125}));
  EXPECT_EQ(abs_y, (std::vector<float>{24.5, 50.5, 68.5, 128.5, 11, 11.5, 11.5, 26.125}));

  std::vector<float> no_bias(8);
  ReferenceConv2d(shape, x.data(), w.data(), nullptr, no_bias.data(), nullptr);
  EXPECT_EQ(no_bias, (std::vector<float>{24, 50, 68, 128, 10, -10.5, 5.5, 9.125}));
}

TEST(ReferenceConv2d, RejectsShapesItCannotCompute) {
  Conv2dShape shape;
  shape.c = 3, shape.k = 2, shape.groups = 2;
  std::vector<float> buffer(64);
  EXPECT_THROW(
      ReferenceConv2d(shape, buffer.data(), buffer.data(), nullptr, buffer.data(), nullptr), Error);
  Conv2dShape too_big;  // 3x3 filter, stride 2, on a 2x2 input without padding
  too_big.h = too_big.w = 2, too_big.r = too_big.s = 3, too_big.stride_h = too_big.stride_w = 2;
  try {
    ReferenceConv2d(too_big, buffer.data(), buffer.data(), nullptr, buffer.data(), nullptr);
    FAIL() << "expected an Error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kBadArgument);
    EXPECT_STREQ(error.what(), "conv reference: the output would be empty");
  }
}

TEST(ReferenceConv2d, NhwcEqualsNchwAfterTransposition) {
  Conv2dShape shape;
  shape.n = 2, shape.c = 6, shape.h = 7, shape.w = 5, shape.k = 4, shape.r = 3, shape.s = 2;
  shape.stride_h = 2, shape.stride_w = 1, shape.pad_h = 1, shape.pad_w = 0;
  shape.dilation_h = 1, shape.dilation_w = 2, shape.groups = 2;
  const int64_t cg = shape.c / shape.groups, p_count = shape.OutH(), q_count = shape.OutW();
  ASSERT_EQ(p_count, 4);
  ASSERT_EQ(q_count, 3);
  std::vector<float> x = RandomInputs(Conv2dInputCount(shape), 1);
  std::vector<float> w = RandomInputs(Conv2dFilterCount(shape), 2);
  std::vector<float> bias = RandomInputs(shape.k, 3);
  std::vector<float> y(Conv2dOutputCount(shape)), abs_y(y.size());
  ReferenceConv2d(shape, x.data(), w.data(), bias.data(), y.data(), abs_y.data());

  std::vector<float> x_nhwc(x.size()), w_krsc(w.size());
  for (int64_t n = 0; n < shape.n; ++n)
    for (int64_t c = 0; c < shape.c; ++c)
      for (int64_t i = 0; i < shape.h * shape.w; ++i)
        x_nhwc[(n * shape.h * shape.w + i) * shape.c + c] =
            x[(n * shape.c + c) * shape.h * shape.w + i];
  for (int64_t k = 0; k < shape.k; ++k)
    for (int64_t c = 0; c < cg; ++c)
      for (int64_t i = 0; i < shape.r * shape.s; ++i)
        w_krsc[(k * shape.r * shape.s + i) * cg + c] = w[(k * cg + c) * shape.r * shape.s + i];
  Conv2dShape nhwc = shape;
  nhwc.layout = Layout::kNHWC;
  std::vector<float> y_nhwc(y.size()), abs_nhwc(y.size());
  ReferenceConv2d(nhwc, x_nhwc.data(), w_krsc.data(), bias.data(), y_nhwc.data(), abs_nhwc.data());
  for (int64_t n = 0; n < shape.n; ++n)
    for (int64_t k = 0; k < shape.k; ++k)
      for (int64_t i = 0; i < p_count * q_count; ++i) {
        int64_t nchw_index = (n * shape.k + k) * p_count * q_count + i;
        int64_t nhwc_index = (n * p_count * q_count + i) * shape.k + k;
        ASSERT_EQ(y[nchw_index], y_nhwc[nhwc_index]) << nchw_index;
        ASSERT_EQ(abs_y[nchw_index], abs_nhwc[nhwc_index]) << nchw_index;
      }
}

using Json = nlohmann::json;

template <typename T>
std::vector<T> Numbers(const Json& array) {
  return array.get<std::vector<T>>();
}

// Maps one ONNX Conv node to a Conv2dShape; false when the reference cannot
// express it (padding that differs between the two ends of an axis).
bool OnnxConvShape(const Json& attrs, const std::vector<int64_t>& x_dims,
                   const std::vector<int64_t>& w_dims, Conv2dShape* shape) {
  auto ints = [&attrs](const char* key, std::vector<int64_t> fallback) {
    return attrs.contains(key) ? Numbers<int64_t>(attrs[key]) : fallback;
  };
  shape->n = x_dims[0], shape->c = x_dims[1], shape->h = x_dims[2], shape->w = x_dims[3];
  shape->k = w_dims[0], shape->r = w_dims[2], shape->s = w_dims[3];
  shape->groups = attrs.value("group", int64_t{1});
  std::vector<int64_t> strides = ints("strides", {1, 1});
  std::vector<int64_t> dilations = ints("dilations", {1, 1});
  std::vector<int64_t> pads = ints("pads", {0, 0, 0, 0});  // h_begin, w_begin, h_end, w_end
  shape->stride_h = strides[0], shape->stride_w = strides[1];
  shape->dilation_h = dilations[0], shape->dilation_w = dilations[1];
  const std::string auto_pad = attrs.value("auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    // Output ceil(in / stride); the total padding is split, odd totals unevenly.
    const int64_t in[2] = {shape->h, shape->w}, filter[2] = {shape->r, shape->s};
    for (int axis = 0; axis < 2; ++axis) {
      int64_t out = (in[axis] + strides[axis] - 1) / strides[axis];
      int64_t total = std::max<int64_t>(
          0, (out - 1) * strides[axis] + (filter[axis] - 1) * dilations[axis] + 1 - in[axis]);
      int64_t small = total / 2, large = total - small;
      bool lower = auto_pad == "SAME_LOWER";
      pads[axis] = lower ? large : small;
      pads[axis + 2] = lower ? small : large;
    }
  } else if (auto_pad == "VALID") {
    pads = {0, 0, 0, 0};
  }
  if (pads[0] != pads[2] || pads[1] != pads[3]) return false;
  shape->pad_h = pads[0], shape->pad_w = pads[1];
  return true;
}

TEST(ReferenceConv2d, OnnxGoldenCases) {
  const std::string path = BEAST_TEST_SOURCE_DIR "/tests/data/onnx_conv/conv_cases.json";
  std::ifstream file(path);
  ASSERT_TRUE(file) << "cannot open " << path;
  const Json cases = Json::parse(file);
  ASSERT_EQ(cases.size(), 17u);
  int run = 0, skipped = 0;
  for (const auto& [name, test] : cases.items()) {
    SCOPED_TRACE(name);
    std::vector<int64_t> x_dims = Numbers<int64_t>(test["x"]["dims"]);
    std::vector<int64_t> w_dims = Numbers<int64_t>(test["w"]["dims"]);
    std::vector<int64_t> y_dims = Numbers<int64_t>(test["y"]["dims"]);
    Conv2dShape shape;
    if (!OnnxConvShape(test["attrs"], x_dims, w_dims, &shape)) {
      ++skipped;
      continue;
    }
    ASSERT_EQ(w_dims[1], shape.c / shape.groups);
    ASSERT_EQ(y_dims, (std::vector<int64_t>{shape.n, shape.k, shape.OutH(), shape.OutW()}));
    std::vector<float> x = Numbers<float>(test["x"]["data"]);
    std::vector<float> w = Numbers<float>(test["w"]["data"]);
    std::vector<float> expected = Numbers<float>(test["y"]["data"]);
    std::vector<float> bias = test.contains("b") && test["b"].is_array() ? Numbers<float>(test["b"])
                                                                         : std::vector<float>();
    ASSERT_EQ(x.size(), Conv2dInputCount(shape));
    ASSERT_EQ(w.size(), Conv2dFilterCount(shape));
    ASSERT_EQ(expected.size(), Conv2dOutputCount(shape));
    std::vector<float> y(expected.size()), abs_y(expected.size());
    ReferenceConv2d(shape, x.data(), w.data(), bias.empty() ? nullptr : bias.data(), y.data(),
                    abs_y.data());
    // ONNX's outputs were computed in float: within the float error bound.
    shape.bias = !bias.empty();
    ValidationResult check =
        Validate(expected.data(), y.data(), abs_y.data(), y.size(), Conv2dReductionLength(shape));
    EXPECT_TRUE(check.ok) << "max_error " << check.max_error << " at " << check.worst_index;
    // The "node/" cases sum small integers: exact.
    if (name.rfind("node/", 0) == 0) {
      EXPECT_EQ(y, expected);
    }
    ++run;
  }
  EXPECT_EQ(run, 17);  // ONNX's "asymmetric" case pads h 1/1, w 0/0: expressible
  EXPECT_EQ(skipped, 0);
}

TEST(ReferenceGemm, AllTranspositionFlags) {
  // A (2x3) = [[1,-2,3],[-4,5,-6]], B (3x2) = [[7,8],[9,10],[11,12]].
  const std::vector<float> a = {1, -2, 3, -4, 5, -6};
  const std::vector<float> a_t = {1, -4, -2, 5, 3, -6};  // stored 3x2
  const std::vector<float> b = {7, 8, 9, 10, 11, 12};
  const std::vector<float> b_t = {7, 9, 11, 8, 10, 12};  // stored 2x3
  for (bool trans_a : {false, true}) {
    for (bool trans_b : {false, true}) {
      GemmShape shape;
      shape.m = 2, shape.n = 2, shape.k = 3, shape.trans_a = trans_a, shape.trans_b = trans_b;
      std::vector<float> c(4), abs_c(4);
      ReferenceGemm(shape, trans_a ? a_t.data() : a.data(), trans_b ? b_t.data() : b.data(),
                    c.data(), abs_c.data());
      EXPECT_EQ(c, (std::vector<float>{22, 24, -49, -54})) << trans_a << trans_b;
      EXPECT_EQ(abs_c, (std::vector<float>{58, 64, 139, 154})) << trans_a << trans_b;
    }
  }
}

TEST(ReferenceGemm, ColumnMajorInEveryTransposition) {
  // The same product, every matrix column-major: A (2x3) is stored column by
  // column, which is the row-major storage of its transpose, and so on.
  const std::vector<float> a_col = {1, -4, -2, 5, 3, -6};    // A, 2x3 column-major
  const std::vector<float> a_t_col = {1, -2, 3, -4, 5, -6};  // A^T, 3x2 column-major
  const std::vector<float> b_col = {7, 9, 11, 8, 10, 12};    // B, 3x2 column-major
  const std::vector<float> b_t_col = {7, 8, 9, 10, 11, 12};  // B^T, 2x3 column-major
  for (bool trans_a : {false, true}) {
    for (bool trans_b : {false, true}) {
      GemmShape shape;
      shape.m = 2, shape.n = 2, shape.k = 3, shape.trans_a = trans_a, shape.trans_b = trans_b;
      shape.col_major = true;
      std::vector<float> c(4);
      ReferenceGemm(shape, trans_a ? a_t_col.data() : a_col.data(),
                    trans_b ? b_t_col.data() : b_col.data(), c.data(), nullptr);
      EXPECT_EQ(c, (std::vector<float>{22, -49, 24, -54})) << trans_a << trans_b;
    }
  }
}

TEST(ReferenceConv2d, ResNetLayerSplitOverThreadsMatchesDirectSums) {
  // N=2, K=64: 128 planes of 1.8M multiply-adds, split over every core.
  Conv2dShape shape;
  shape.n = 2, shape.c = 64, shape.h = 56, shape.w = 56, shape.k = 64, shape.r = 3, shape.s = 3;
  shape.pad_h = shape.pad_w = 1;
  std::vector<float> x = RandomInputs(Conv2dInputCount(shape), 4);
  std::vector<float> w = RandomInputs(Conv2dFilterCount(shape), 5);
  std::vector<float> y(Conv2dOutputCount(shape));
  ReferenceConv2d(shape, x.data(), w.data(), nullptr, y.data(), nullptr);
  // One output of every plane (so every thread's chunk), at positions that
  // sweep the borders (padding) and the interior, against a direct sum in
  // the reference's order (c, r, s).
  int64_t wrong = 0;
  for (int64_t plane = 0; plane < 2 * 64; ++plane) {
    const int64_t n = plane / 64, k = plane % 64, p = (plane * 7) % 56, q = (plane * 13) % 56;
    double expected = 0;
    for (int64_t c = 0; c < 64; ++c)
      for (int64_t r = 0; r < 3; ++r)
        for (int64_t s = 0; s < 3; ++s) {
          const int64_t ih = p - 1 + r, iw = q - 1 + s;
          if (ih < 0 || ih >= 56 || iw < 0 || iw >= 56) continue;
          expected += static_cast<double>(w[((k * 64 + c) * 3 + r) * 3 + s]) *
                      x[((n * 64 + c) * 56 + ih) * 56 + iw];
        }
    wrong += y[((n * 64 + k) * 56 + p) * 56 + q] != static_cast<float>(expected);
  }
  EXPECT_EQ(wrong, 0);
}

TEST(ReferenceGemm, TilesSplitOverThreadsMatchDirectSums) {
  // 300 x 300 x 512: 38 row blocks (the last of 4 rows) split over up to 6
  // threads, two column tiles (256 and a tail of 44); every output of every
  // transposition, row- and column-major, must equal its sum over k in order.
  GemmShape shape;
  shape.m = 300, shape.n = 300, shape.k = 512;
  const std::vector<float> a = RandomInputs(shape.m * shape.k, 6);
  const std::vector<float> b = RandomInputs(shape.k * shape.n, 7);
  for (int flags = 0; flags < 8; ++flags) {
    shape.trans_a = flags & 1, shape.trans_b = (flags >> 1) & 1, shape.col_major = (flags >> 2) & 1;
    // Element (i, j) of a stored r x c matrix: row-major, or column-major.
    auto at = [&](const std::vector<float>& v, int64_t i, int64_t j, int64_t r, int64_t c) {
      return static_cast<double>(shape.col_major ? v[j * r + i] : v[i * c + j]);
    };
    std::vector<float> c(shape.m * shape.n), abs_c(shape.m * shape.n);
    ReferenceGemm(shape, a.data(), b.data(), c.data(), abs_c.data());
    int64_t wrong = 0;
    for (int64_t m = 0; m < shape.m; ++m) {
      for (int64_t n = 0; n < shape.n; ++n) {
        double sum = 0, abs_sum = 0;
        for (int64_t k = 0; k < shape.k; ++k) {
          const double av =
              shape.trans_a ? at(a, k, m, shape.k, shape.m) : at(a, m, k, shape.m, shape.k);
          const double bv =
              shape.trans_b ? at(b, n, k, shape.n, shape.k) : at(b, k, n, shape.k, shape.n);
          sum += av * bv;
          abs_sum += std::fabs(av) * std::fabs(bv);
        }
        const int64_t at_c = shape.col_major ? n * shape.m + m : m * shape.n + n;
        wrong += c[at_c] != static_cast<float>(sum) || abs_c[at_c] != static_cast<float>(abs_sum);
      }
    }
    EXPECT_EQ(wrong, 0) << "transA=" << shape.trans_a << " transB=" << shape.trans_b
                        << " col_major=" << shape.col_major;
  }
}

TEST(ParallelRows, EveryRowOnceForAnyCountAndChunk) {
  for (int64_t count : {0, 1, 7, 64, 1001}) {
    for (int64_t min_chunk : {1, 3, 100}) {
      std::vector<std::atomic<int>> done(static_cast<size_t>(count));
      ParallelRows(count, min_chunk, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) done[static_cast<size_t>(i)]++;
      });
      int64_t wrong = 0;
      for (const auto& d : done) wrong += d.load() != 1;
      EXPECT_EQ(wrong, 0) << count << " rows, chunks of at least " << min_chunk;
    }
  }
}

TEST(ParallelRows, FewerRowsThanTheMinimumChunkStayOnTheCallingThread) {
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<std::thread::id> ran_on;
  ParallelRows(5, 8, [&](int64_t begin, int64_t end) {
    ran_on.push_back(std::this_thread::get_id());
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, 5);
  });
  ASSERT_EQ(ran_on.size(), 1u);
  EXPECT_EQ(ran_on[0], caller);
}

TEST(ParallelRows, AnExceptionOfAnyChunkReachesTheCallerAfterAllEnded) {
  // The last chunk throws; on one hardware thread that is the caller's only
  // chunk, elsewhere another thread's.
  std::atomic<int64_t> rows_done{0};
  EXPECT_THROW(ParallelRows(1000, 1,
                            [&](int64_t begin, int64_t end) {
                              if (end == 1000) throw std::runtime_error("chunk failed");
                              rows_done += end - begin;
                            }),
               std::runtime_error);
  // Every other chunk ran to its end before ParallelRows returned.
  const int64_t threads =
      std::min<int64_t>(1000, std::max(1u, std::thread::hardware_concurrency()));
  const int64_t chunk = (1000 + threads - 1) / threads;
  EXPECT_EQ(rows_done.load(), threads == 1 ? 0 : 1000 - (1000 - (threads - 1) * chunk));
}

TEST(RandomInputs, DeterministicPortableUniform) {
  std::vector<float> values = RandomInputs(100000, 42);
  EXPECT_EQ(values, RandomInputs(100000, 42));
  EXPECT_NE(values, RandomInputs(100000, 43));
  double sum = 0;
  for (float v : values) {
    ASSERT_GE(v, -1.0f);
    ASSERT_LT(v, 1.0f);
    ASSERT_EQ(std::ldexp(v, 23), std::floor(std::ldexp(v, 23)));  // a multiple of 2^-23
    sum += v;
  }
  EXPECT_LT(std::fabs(sum / values.size()), 0.01);
  // Pinned, so a change of generator (which would change every stored
  // validation input) is noticed. splitmix64(0) starts 0xE220A8397B1DCDAF,
  // whose top 24 bits are 14819496 = 8388608 + 6430888.
  std::vector<float> first = RandomInputs(4, 0);
  EXPECT_EQ(first, (std::vector<float>{6430888 * 0x1p-23f, -1148770 * 0x1p-23f, -7945123 * 0x1p-23f,
                                       7900088 * 0x1p-23f}));
}

}  // namespace
}  // namespace beast::harness
