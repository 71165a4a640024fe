// Tests of reading a job file (job_file.hpp) from real files: comments,
// blank lines and weights; the same problem in two spellings merged with its
// weights added; each bad line named by FILE:LINE with what is wrong.
#include "beast/problem/job_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "beast/core/error.hpp"
#include "support/test_dir.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;

class JobFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("job");
    path_ = (dir_ / "job.txt").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& text) { std::ofstream(path_) << text; }
  std::string ErrorOf(const std::string& text) {
    Write(text);
    try {
      ReadJobFile(path_);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kBadArgument);
      return e.what();
    }
    return "no error";
  }
  fs::path dir_;
  std::string path_;
};

TEST_F(JobFile, WeightsCommentsAndTheSameProblemTwice) {
  Write(
      "# ResNet-50 stage 2, batch 1\n"
      "\n"
      "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad=1   x3  # three layers\n"
      "gemm:M=1,N=1000,K=2048\n"
      "   conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad_h=1,pad_w=1,dtype=f32 x2\n");
  const std::vector<JobProblem> job = ReadJobFile(path_);
  ASSERT_EQ(job.size(), 2u);
  EXPECT_EQ(job[0].problem.Key(),
            "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride_h=1,stride_w=1,pad_h=1,pad_w=1,"
            "dilation_h=1,dilation_w=1,groups=1,layout=NCHW,dtype=f32");
  EXPECT_EQ(job[0].weight, 5);
  EXPECT_EQ(job[1].problem.Key(), "gemm:M=1,N=1000,K=2048,transA=0,transB=0,dtype=f32");
  EXPECT_EQ(job[1].weight, 1);
}

TEST_F(JobFile, EachBadLineIsNamedWithWhatIsWrong) {
  EXPECT_EQ(ErrorOf("gemm:M=1,N=2,K=3\n\ngemm:M=1,N=2\n"),
            path_ + ":3: problem \"gemm:M=1,N=2\": missing K");
  EXPECT_EQ(ErrorOf("gemm:M=1,N=2,K=3 3\n"),
            path_ + ":1: \"3\" is not a weight (xN, N >= 1, e.g. x3)");
  EXPECT_EQ(ErrorOf("gemm:M=1,N=2,K=3 x0\n"),
            path_ + ":1: \"x0\" is not a weight (xN, N >= 1, e.g. x3)");
  EXPECT_EQ(ErrorOf("gemm:M=1,N=2,K=3 x2 layers\n"),
            path_ + ":1: unexpected \"layers\" after the problem and its weight");
  EXPECT_EQ(ErrorOf("# nothing\n\n"), path_ + ": the job file lists no problem");
}

TEST_F(JobFile, AMissingFileIsNotFound) {
  try {
    ReadJobFile(path_ + ".missing");
    FAIL() << "read a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_EQ(std::string(e.what()), path_ + ".missing: cannot read the job file");
  }
}

}  // namespace
}  // namespace beast
