// OpenCL builds through the program cache on the machine's device (PoCL in
// CI): the second build of a source is loaded from its binary and computes the
// same result; a rejected source is not compiled twice; an entry that does not
// load, or fails its checksum, is compiled again and replaced.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "harness/opencl/opencl_cached_build.hpp"
#include "harness/opencl/opencl_devices.hpp"
#include "harness/opencl/opencl_kernel.hpp"
#include "support/test_dir.hpp"

namespace beast::harness {
namespace {

namespace fs = std::filesystem;

constexpr const char* kScale = R"(
__kernel void scale(__global const float* a, __global float* c) {
  int i = get_global_id(0);
  c[i] = 3.0f * a[i] + 1.0f;
}
)";

class CachedBuildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("cached_build");
    cache_ = std::make_shared<ProgramCache>(dir_.string());
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `scale` of the program on 0..15 and returns the output.
  std::vector<float> RunScale(const OpenClProgram& program) {
    std::vector<float> a(16), c(16, -1);
    for (int i = 0; i < 16; ++i) a[i] = static_cast<float>(i);
    OpenClBuffer in = context_.Allocate(a.size() * sizeof(float));
    OpenClBuffer out = context_.Allocate(c.size() * sizeof(float));
    context_.Write(in, a.data(), a.size() * sizeof(float));
    LaunchGeometry g;
    g.global[0] = 16;
    g.local[0] = 4;
    LaunchResult r = Launch(context_, program, "scale", {in, out}, g);
    EXPECT_TRUE(r.ok()) << r.message;
    context_.Read(out, c.data(), c.size() * sizeof(float));
    return c;
  }

  static std::vector<float> Expected() {
    std::vector<float> e(16);
    for (int i = 0; i < 16; ++i) e[i] = 3.0f * static_cast<float>(i) + 1.0f;
    return e;
  }

  fs::path dir_;
  OpenClContext context_{0};
  std::shared_ptr<ProgramCache> cache_;
};

TEST_F(CachedBuildTest, TheSecondBuildLoadsTheBinaryAndComputesTheSame) {
  OpenClBuildResult first = BuildOpenClThroughCache(context_, *cache_, kScale, "");
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_FALSE(first.from_cache);
  EXPECT_EQ(RunScale(first.program), Expected());
  ASSERT_TRUE(cache_->Load(OpenClKeyFor(context_, kScale, "")).has_value());

  OpenClBuildResult second = BuildOpenClThroughCache(context_, *cache_, kScale, "");
  ASSERT_TRUE(second.ok) << second.log;
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.compile_ms, first.compile_ms);  // the program's compile time, paid once
  EXPECT_GT(second.load_ms, 0);  // the wall clock of reading and loading the entry
  EXPECT_EQ(RunScale(second.program), Expected());

  // Other options are another program.
  OpenClBuildResult other =
      BuildOpenClThroughCache(context_, *cache_, kScale, "-cl-fast-relaxed-math");
  ASSERT_TRUE(other.ok) << other.log;
  EXPECT_FALSE(other.from_cache);
}

TEST_F(CachedBuildTest, TheContextBuildsThroughItsCacheOnceGivenOne) {
  EXPECT_FALSE(context_.Build(kScale, "").from_cache);  // no cache yet: nothing stored
  EXPECT_FALSE(cache_->Load(OpenClKeyFor(context_, kScale, "")).has_value());
  context_.UseProgramCache(cache_);
  EXPECT_FALSE(context_.Build(kScale, "").from_cache);
  EXPECT_TRUE(context_.Build(kScale, "").from_cache);
  EXPECT_FALSE(context_.BuildFromSource(kScale, "").from_cache);
  context_.UseProgramCache(nullptr);
  EXPECT_FALSE(context_.Build(kScale, "").from_cache);
}

TEST_F(CachedBuildTest, ARejectedSourceIsNotCompiledTwice) {
  const std::string bad = "__kernel void broken(__global float* c) { c[0] = undefined_name; }";
  OpenClBuildResult first = BuildOpenClThroughCache(context_, *cache_, bad, "");
  ASSERT_FALSE(first.ok);
  EXPECT_TRUE(first.rejected);
  EXPECT_FALSE(first.from_cache);
  EXPECT_NE(first.log.find("undefined_name"), std::string::npos) << first.log;
  OpenClBuildResult second = BuildOpenClThroughCache(context_, *cache_, bad, "");
  EXPECT_FALSE(second.ok);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.log, first.log);
  EXPECT_EQ(second.compile_ms, first.compile_ms);
}

TEST_F(CachedBuildTest, BadOptionsAreNotCached) {
  // The runtime refuses the options before compiling anything: not the
  // source's fault, so nothing is stored.
  OpenClBuildResult r = BuildOpenClThroughCache(context_, *cache_, kScale, "-no-such-option-xyz");
  ASSERT_FALSE(r.ok);
  EXPECT_FALSE(r.rejected);
  EXPECT_FALSE(cache_->Load(OpenClKeyFor(context_, kScale, "-no-such-option-xyz")).has_value());
}

TEST_F(CachedBuildTest, AnEntryThatDoesNotLoadIsCompiledAgainAndReplaced) {
  const ProgramKey key = OpenClKeyFor(context_, kScale, "");
  CachedProgram junk;
  junk.built = true;
  junk.binary = "not a program binary";
  junk.compile_ms = 1;
  ASSERT_TRUE(cache_->Store(key, junk));
  OpenClBuildResult rebuilt = BuildOpenClThroughCache(context_, *cache_, kScale, "");
  ASSERT_TRUE(rebuilt.ok) << rebuilt.log;
  EXPECT_FALSE(rebuilt.from_cache);
  EXPECT_EQ(RunScale(rebuilt.program), Expected());
  std::optional<CachedProgram> replaced = cache_->Load(key);
  ASSERT_TRUE(replaced.has_value());
  EXPECT_NE(replaced->binary, "not a program binary");
  OpenClBuildResult loaded = BuildOpenClThroughCache(context_, *cache_, kScale, "");
  EXPECT_TRUE(loaded.from_cache);
  EXPECT_EQ(RunScale(loaded.program), Expected());
}

TEST_F(CachedBuildTest, ADamagedEntryIsCompiledAgainAndReplaced) {
  ASSERT_TRUE(BuildOpenClThroughCache(context_, *cache_, kScale, "").ok);
  const std::string path = cache_->PathOf(OpenClKeyFor(context_, kScale, ""));
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x40);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  OpenClBuildResult rebuilt = BuildOpenClThroughCache(context_, *cache_, kScale, "");
  ASSERT_TRUE(rebuilt.ok);
  EXPECT_FALSE(rebuilt.from_cache);
  EXPECT_TRUE(BuildOpenClThroughCache(context_, *cache_, kScale, "").from_cache);
}

TEST(CachedBuild, PoclsDeviceIsACpuAndNoDeviceIsNone) {
  EXPECT_FALSE(IsCpuOpenClDevice(-1));
  EXPECT_FALSE(IsCpuOpenClDevice(1000));
  OpenClContext context(0);
  if (context.device().compiler_version.find("PoCL") == std::string::npos)
    GTEST_SKIP() << "not PoCL";
  EXPECT_TRUE(IsCpuOpenClDevice(0));
}

}  // namespace
}  // namespace beast::harness
