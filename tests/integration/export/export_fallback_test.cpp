// The exported library's fallback when tuned kernels fail where they run:
// an export is edited so that one tuned program no longer builds and one
// entry names a kernel its program lacks, as a driver or device that differs
// from the tuning one can make them fail. fallback_consumer/ calls them from
// four threads at once: every call must still succeed with a right answer
// (the next tuned entry, else the generic kernel, serves the broken shapes;
// beast_last_error() stays empty) and beast_explain must say which kernel was
// passed over and why. One problem is tuned only on another device: it runs
// that device's winner and says so. A build that fails for want of memory
// is no fault of the kernel (transient_consumer/): nothing is passed over.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "support/export_fixture.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::CountOccurrences;
using testing::RunCommand;

// Tuned only on kForeignDevice; fallback_consumer/main.c runs it too.
const char kForeignProblem[] = "gemm:M=40,N=24,K=16,dtype=f32";
const char kForeignDevice[] = "Foreign OpenCL Device";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Makes the program of `config` rendered for `problem_key` fail to build: an
// #error line at its start.
void BreakProgram(std::string* table, const std::string& config, const std::string& problem_key) {
  size_t at = table->find(", " + config + ", " + problem_key + " */\nstatic const char kProgram");
  ASSERT_NE(at, std::string::npos) << config << " " << problem_key;
  at = table->find("[] =\n", at);
  ASSERT_NE(at, std::string::npos);
  table->insert(at + 5, "    \"#error broken on purpose by export_fallback_test\\n\"\n");
}

// Renames the kernel of `problem_key`'s entry to one its program lacks.
void RenameKernel(std::string* table, const std::string& problem_key, const std::string& kernel) {
  size_t at = table->find("const beast_entry beast_entries[] = {");
  ASSERT_NE(at, std::string::npos);
  at = table->find("\"" + problem_key + "\",", at);
  ASSERT_NE(at, std::string::npos) << problem_key;
  at = table->find("\"" + kernel + "\", ", at);
  ASSERT_NE(at, std::string::npos) << kernel;
  table->replace(at, kernel.size() + 2, "\"no_such_kernel\"");
}

// The text after "explain NAME: " in the consumer's output.
std::string Explained(const std::string& output, const std::string& name) {
  const std::string tag = "\nexplain " + name + ": ";
  size_t at = ("\n" + output).find(tag);
  if (at == std::string::npos) return "";
  at += tag.size() - 1;
  return output.substr(at, output.find('\n', at) - at);
}

class ExportFallback : public testing::ExportFixture {};

TEST_F(ExportFallback, BrokenTunedKernelsArePassedOverForTheGenericOneAndExplained) {
  std::map<std::string, std::string> winners = RecordWinners();
  const std::string foreign = Problem::Parse(kForeignProblem).Key();
  const Config foreign_config = Configs(kForeignProblem)[1];
  Record(kForeignProblem, foreign_config, 1.5, "", kForeignDevice);
  // The broken gemm has a second entry, tuned elsewhere, to fall back on.
  const std::string broken_gemm = Problem::Parse(testing::kTunedProblems[0]).Key();
  const Config second = Configs(broken_gemm).at(1);
  Record(broken_gemm, second, 3.0, "", kForeignDevice);
  ExportSummary summary = ExportLibrary(options_);
  std::map<std::string, ExportEntry> entries;  // this device's, and the foreign-only one
  for (const ExportEntry& e : summary.entries) {
    if (e.device_name == device_.name || e.problem_key == foreign) entries[e.problem_key] = e;
  }
  ASSERT_EQ(summary.entries.size(), testing::kTunedProblems.size() + 2);
  ASSERT_EQ(entries.size(), testing::kTunedProblems.size() + 1);
  ASSERT_EQ(entries[foreign].device_name, kForeignDevice);

  const std::string intact_gemm = Problem::Parse(testing::kTunedProblems[1]).Key();
  const std::string renamed_conv = Problem::Parse(testing::kTunedProblems[3]).Key();
  const fs::path table_file = fs::path(options_.out_dir) / "src" / "beast_kernels.c";
  std::string table = ReadFile(table_file);
  BreakProgram(&table, winners[broken_gemm], broken_gemm);
  RenameKernel(&table, renamed_conv, entries[renamed_conv].kernel_name);
  std::ofstream(table_file) << table;

  testing::CommandResult run = BuildAndRunConsumer("fallback_consumer");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(CountOccurrences("\n" + run.output, "\nok thread "), 16u) << run.output;
  EXPECT_EQ(CountOccurrences(run.output, "FAIL"), 0u) << run.output;

  const std::string device = device_.name;
  // The broken gemm runs the entry tuned elsewhere, and says why.
  const std::string gemm = Explained(run.output, "gemm 64x48x40");
  EXPECT_EQ(gemm.rfind(broken_gemm + " -> exact tuned: gemm/tiled (kernel ", 0), 0u) << gemm;
  EXPECT_NE(gemm.find(" config " + second.Key() + ", "), std::string::npos) << gemm;
  EXPECT_NE(gemm.find("; running on " + device +
                      " (not the tuning device: a kernel tuned elsewhere); tuned kernel " +
                      entries[broken_gemm].kernel_name + " (gemm/tiled, " + winners[broken_gemm] +
                      ") failed here, passed over: gemm/tiled (" + winners[broken_gemm] +
                      ") does not build on " + device + " (error -11): "),
            std::string::npos)
      << gemm;
  EXPECT_NE(gemm.find("broken on purpose by export_fallback_test"), std::string::npos) << gemm;

  EXPECT_EQ(Explained(run.output, "conv2d 11x13 stride 2"),
            renamed_conv +
                " -> generic kernel beast_generic_conv2d (correct for every shape, not tuned): 1 "
                "of the 1 tuned kernels for " +
                renamed_conv + " failed on " + device +
                "; tuned kernel no_such_kernel (conv2d/direct_nchw, " + winners[renamed_conv] +
                ") failed here, passed over: kernel no_such_kernel of conv2d/direct_nchw is "
                "missing from its program (error -46); running on " +
                device);

  const std::string intact = Explained(run.output, "gemm 33x17x29 tt");
  EXPECT_EQ(intact.rfind(intact_gemm + " -> exact tuned: gemm/tiled (kernel ", 0), 0u) << intact;
  EXPECT_EQ(intact.find("passed over"), std::string::npos) << intact;
  EXPECT_EQ(intact.find("not the tuning device"), std::string::npos) << intact;

  const std::string elsewhere = Explained(run.output, "gemm 40x24x16 foreign");
  EXPECT_EQ(elsewhere.rfind(foreign + " -> exact tuned: gemm/tiled (kernel ", 0), 0u) << elsewhere;
  EXPECT_NE(elsewhere.find(" config " + foreign_config.Key() + ", "), std::string::npos)
      << elsewhere;
  EXPECT_NE(elsewhere.find("; tuned on " + std::string(kForeignDevice) + " ("), std::string::npos)
      << elsewhere;
  EXPECT_EQ(elsewhere.substr(elsewhere.find("; running on ")),
            "; running on " + device + " (not the tuning device: a kernel tuned elsewhere)")
      << elsewhere;
}

// A build or kernel creation that fails for want of memory (the consumer
// makes OpenCL return CL_OUT_OF_HOST_MEMORY) fails that call with
// BEAST_ERROR_DEVICE and retires nothing: the next call of the shape builds
// again and runs its tuned kernel, or the generic one, and is right.
TEST_F(ExportFallback, AnOutOfMemoryBuildRetiresNothing) {
  RecordWinners();
  ExportLibrary(options_);
  testing::CommandResult run = BuildAndRunConsumer("transient_consumer");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(CountOccurrences("\n" + run.output, "\nok "), 20u) << run.output;
  EXPECT_EQ(CountOccurrences(run.output, "FAIL"), 0u) << run.output;
}

}  // namespace
}  // namespace beast
