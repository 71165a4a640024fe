// The dialect's 16-bit storage helpers as kernels run them on the OpenCL
// device (PoCL here): the f16 lane-wise conversions agree bit for bit with
// the host's (beast/problem/storage16, itself checked against the
// compiler's _Float16) on every half and on floats chosen at every rounding
// edge, at every vector width; and the lane gathers, scattered lane stores
// and vector loads and stores off the vector's alignment move the right
// elements in f32, f16 and bf16.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "beast/problem/storage16.hpp"
#include "harness/opencl/opencl_context.hpp"
#include "harness/opencl/opencl_kernel.hpp"
#include "harness/render/renderer.hpp"
#include "support/test_dir.hpp"

namespace beast::harness {
namespace {

namespace fs = std::filesystem;

const int kWidths[] = {1, 2, 4, 8, 16};

// One kernel per vector width and direction, and a gather/scatter kernel
// through the lane macros: y[4i + e] = 2 * x[4i + 3 - e], lane 1 zero.
constexpr const char* kProbe = R"PROBE({% import "_common/dialect.j2" as d with context %}
{{ d.storage_prelude() }}
{% if STORAGE == "f16" %}
{% for n in [1, 2, 4, 8, 16] %}
__kernel void to_float{{ n }}(__global const ushort* h, __global float* f) {
  const int i = get_global_id(0);
{% if n == 1 %}
  f[i] = beast_half_to_float(h[i]);
{% else %}
  vstore{{ n }}(beast_half_to_float{{ n }}(vload{{ n }}(i, h)), i, f);
{% endif %}
}
__kernel void to_half{{ n }}(__global const float* f, __global ushort* h) {
  const int i = get_global_id(0);
{% if n == 1 %}
  h[i] = beast_float_to_half(f[i]);
{% else %}
  vstore{{ n }}(beast_float{{ n }}_to_half(vload{{ n }}(i, f)), i, h);
{% endif %}
}
{% endfor %}
{% endif %}
__kernel void reverse_lanes(__global const {{ d.gtype("float") }}* x, __global {{ d.gtype("float") }}* y) {
  const int i = get_global_id(0);
  {{ d.gstore_vector("float", 4, "v", d.gload_lanes("float", 4, "x", ["4 * i + 3", "4 * i + 2", "4 * i + 1", "4 * i"], ["i >= 0", "i < 0", "1", "1"]) ~ " * (float4)(2.0f)") }}
{% for e in range(4) %}
  {{ d.gstore_lane("y", "4 * i + %d" % e, "v", 4, e) }}
{% endfor %}
}
__kernel void shifted_vectors(__global const {{ d.gtype("float") }}* x, __global {{ d.gtype("float") }}* y) {
  const int i = get_global_id(0);
  {{ d.gvstore(4, d.gvload("float", 4, "x", "4 * i + 1") ~ " * (float4)(2.0f)", "y", "4 * i + 1") }}
}
)PROBE";

float FloatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

uint32_t BitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

bool IsF16Nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }

class Storage16Kernels : public ::testing::Test {
 protected:
  // Renders the probe for `storage` with the real dialect (beside it in a
  // folder of its own, removed once rendered) and builds it.
  void Build(const std::string& storage) {
    const fs::path dir = testing::FreshTestDir("storage16_kernel_test_" + storage);
    fs::create_directories(dir / "_common");
    fs::create_directories(dir / "t");
    fs::copy_file(fs::path(BEAST_TEST_SOURCE_DIR) / "kernel_templates/_common/dialect.j2",
                  dir / "_common/dialect.j2");
    std::ofstream(dir / "t/probe.cl.j2", std::ios::binary) << kProbe;
    std::string source;
    {
      Renderer renderer(BEAST_DEFAULT_PYTHON,
                        std::string(BEAST_TEST_SOURCE_DIR) + "/harness/render/render.py",
                        dir.string());
      source = renderer.Render("t/probe.cl.j2",
                               nlohmann::ordered_json{{"BACKEND", "opencl"}, {"STORAGE", storage}});
    }
    fs::remove_all(dir);
    OpenClBuildResult build = context_.Build(source, "-cl-std=CL1.2");
    ASSERT_TRUE(build.ok) << build.log << "\n" << source;
    program_ = build.program;
  }

  // Runs `kernel` (in, out) on `values`, `width` elements per work-item:
  // the device's conversion of each value.
  template <typename Out, typename In>
  std::vector<Out> Convert(const std::string& kernel, const std::vector<In>& values, int width) {
    OpenClBuffer in = context_.Allocate(values.size() * sizeof(In));
    OpenClBuffer out = context_.Allocate(values.size() * sizeof(Out));
    context_.Write(in, values.data(), values.size() * sizeof(In));
    LaunchGeometry geometry;
    geometry.global[0] = values.size() / width;
    LaunchResult launch = Launch(context_, program_, kernel, {in, out}, geometry);
    EXPECT_TRUE(launch.ok()) << kernel << ": " << launch.message;
    std::vector<Out> converted(values.size());
    context_.Read(out, converted.data(), converted.size() * sizeof(Out));
    return converted;
  }

  // The device's f16 -> float of `halves`, and float -> f16 of `floats`, at
  // width n.
  std::vector<float> ToFloat(const std::vector<uint16_t>& halves, int n) {
    return Convert<float>("to_float" + std::to_string(n), halves, n);
  }
  std::vector<uint16_t> ToHalf(const std::vector<float>& floats, int n) {
    return Convert<uint16_t>("to_half" + std::to_string(n), floats, n);
  }

  OpenClContext context_{0};
  OpenClProgram program_;
};

TEST_F(Storage16Kernels, EveryHalfConvertsToTheHostsFloatAtEveryWidth) {
  Build("f16");
  std::vector<uint16_t> halves(65536);
  for (uint32_t h = 0; h <= 0xffff; ++h) halves[h] = static_cast<uint16_t>(h);
  for (int n : kWidths) {
    const std::vector<float> floats = ToFloat(halves, n);
    for (uint32_t h = 0; h <= 0xffff; ++h) {
      const float expected = F16BitsToFloat(static_cast<uint16_t>(h));
      if (std::isnan(expected)) {
        ASSERT_TRUE(std::isnan(floats[h])) << "width " << n << " half 0x" << std::hex << h;
      } else {
        // Bits, so that -0 is told from +0.
        ASSERT_EQ(BitsOf(floats[h]), BitsOf(expected))
            << "width " << n << " half 0x" << std::hex << h;
      }
    }
  }
}

TEST_F(Storage16Kernels, FloatsRoundToTheHostsHalfAtEveryEdgeAndWidth) {
  Build("f16");
  // Every half's value, the midpoints between neighbours (ties: to even) and
  // the floats one ulp either side of each, in both signs; the overflow edge
  // (65504, 65519.996, 65520), Inf, NaNs, float subnormals; and random bits.
  std::vector<float> floats;
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    const float lo = F16BitsToFloat(static_cast<uint16_t>(h));
    const float hi = F16BitsToFloat(static_cast<uint16_t>(h + 1));
    const float mid = lo + (hi - lo) / 2;
    for (float f : {lo, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      floats.push_back(f);
      floats.push_back(-f);
    }
  }
  for (uint32_t bits : {0x477fe000u, 0x477fefffu, 0x477ff000u, 0x47800000u, 0x7f7fffffu,
                        0x7f800000u, 0x7f800001u, 0x7fc00000u, 0x7fffffffu, 0x00000001u,
                        0x007fffffu, 0x00800000u, 0x33000000u, 0x33000001u, 0x337fffffu}) {
    floats.push_back(FloatOf(bits));
    floats.push_back(FloatOf(bits | 0x80000000u));
  }
  std::mt19937 random(17);
  for (int i = 0; i < (1 << 18); ++i) floats.push_back(FloatOf(random()));
  while (floats.size() % 16) floats.push_back(0.0f);

  for (int n : kWidths) {
    const std::vector<uint16_t> halves = ToHalf(floats, n);
    for (size_t i = 0; i < floats.size(); ++i) {
      const uint16_t expected = FloatToF16Bits(floats[i]);
      if (std::isnan(floats[i])) {
        ASSERT_TRUE(IsF16Nan(halves[i])) << "width " << n << " float bits 0x" << std::hex
                                         << BitsOf(floats[i]) << " gave 0x" << halves[i];
      } else {
        ASSERT_EQ(halves[i], expected) << "width " << n << " float " << floats[i] << " (bits 0x"
                                       << std::hex << BitsOf(floats[i]) << ")";
      }
    }
  }
}

// Runs `kernel` of the probe on `storage` (f32, f16 or bf16) over `items`
// work-items on buffers of 4 (items + 1) elements, x[j] = (j % 97) / 4 - 7
// and y filled with 0xff bytes (a NaN in every type) before, and checks y
// against expected(x, j).
void CheckElements(OpenClContext& context, const OpenClProgram& program, const std::string& storage,
                   const std::string& kernel, int items,
                   float (*expected)(const std::vector<float>& x, size_t j)) {
  std::vector<float> x(4 * (items + 1));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 97) * 0.25f - 7.0f;
  const bool s16 = storage != "f32";
  const size_t bytes = x.size() * (s16 ? 2 : 4);
  std::vector<uint16_t> x16(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    x16[i] = storage == "f16" ? FloatToF16Bits(x[i]) : FloatToBf16Bits(x[i]);
  OpenClBuffer in = context.Allocate(bytes);
  OpenClBuffer out = context.Allocate(bytes);
  context.Write(in, s16 ? static_cast<const void*>(x16.data()) : x.data(), bytes);
  context.Fill(out, 0xff);
  LaunchGeometry geometry;
  geometry.global[0] = items;
  LaunchResult launch = Launch(context, program, kernel, {in, out}, geometry);
  ASSERT_TRUE(launch.ok()) << launch.message;
  std::vector<float> y(x.size());
  std::vector<uint16_t> y16(x.size());
  context.Read(out, s16 ? static_cast<void*>(y16.data()) : y.data(), bytes);
  for (size_t j = 0; j < y.size(); ++j) {
    if (s16) y[j] = storage == "f16" ? F16BitsToFloat(y16[j]) : Bf16BitsToFloat(y16[j]);
    const float want = expected(x, j);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(y[j])) << storage << " " << kernel << " element " << j;
    } else {
      ASSERT_EQ(y[j], want) << storage << " " << kernel << " element " << j;
    }
  }
}

TEST_F(Storage16Kernels, LaneGathersAndLaneStoresMoveTheRightElements) {
  // y[4i + e] = 2 * x[4i + 3 - e] for lanes 0, 2, 3; lane 1's condition is
  // false: zero; the last vector untouched.
  auto reversed = [](const std::vector<float>& x, size_t j) {
    const size_t e = j % 4;
    if (j >= 4 * 64) return std::nanf("");
    return e == 1 ? 0.0f : 2 * x[j - e + 3 - e];
  };
  for (const std::string storage : {"f32", "f16", "bf16"}) {
    Build(storage);
    CheckElements(context_, program_, storage, "reverse_lanes", 64, reversed);
    if (HasFatalFailure()) return;
  }
}

TEST_F(Storage16Kernels, VectorsOffTheirAlignmentLoadAndStoreExactly) {
  // Vectors of 4 from element 4i + 1 (2-byte aligned for 16-bit storage):
  // y[j] = 2 * x[j] for j in 1 .. 4 * 64, the elements around untouched.
  auto doubled = [](const std::vector<float>& x, size_t j) {
    return j >= 1 && j <= 4 * 64 ? 2 * x[j] : std::nanf("");
  };
  for (const std::string storage : {"f32", "f16", "bf16"}) {
    Build(storage);
    CheckElements(context_, program_, storage, "shifted_vectors", 64, doubled);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace beast::harness
