// Weights prepared once, end to end on the OpenCL CPU device: beast tune
// measures conv2d/winograd_split with its filter transform as a prepare stage
// (its time kept apart: prepare_ms), beast export marks that stage in the
// table, and a consumer program built on the export runs the convolution
// through beast_conv2d_prepare / beast_conv2d_forward_prepared on its own
// buffers (prepared_consumer/main.c: correct for two inputs, a snapshot of
// the weights — zeroing them in place changes a plain call's result and not
// a prepared one's — and bad arguments refused).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "results_db/store.hpp"
#include "support/command_runner.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::RunCommand;

const char kProblem[] =
    "conv2d:N=1,C=8,H=10,W=10,K=8,R=3,S=3,stride_h=1,stride_w=1,pad_h=1,pad_w=1,dilation_h=1,"
    "dilation_w=1,groups=1,layout=NCHW,dtype=f32,bias=1";

TEST(PreparedExport, AWinogradWinnerRunsOnWeightsPreparedOnce) {
  const fs::path dir = testing::FreshTestDir("prepared_export");
  const std::string db = (dir / "beast.db").string();
  // The default config and one more: both have the prepare stage.
  testing::CommandResult tuned = RunCommand(
      BeastBinary() + " tune --template conv2d/winograd_split --problem " + kProblem +
      " --device opencl:0 --baselines none --max-configs 2 --max-reps 5 --confirm-top 0 --quiet"
      " --db " +
      db + " --cache-dir " + (dir / "cache").string());
  ASSERT_EQ(tuned.exit_code, 0) << tuned.output;
  {
    results_db::Store store = results_db::Store::OpenExisting(db);
    std::vector<results_db::ResultRow> rows = store.Query({});
    ASSERT_EQ(rows.size(), 2u);
    for (const results_db::ResultRow& r : rows) {
      EXPECT_EQ(r.status, beast::Status::kOk) << r.config_key << ": " << r.error_text;
      ASSERT_TRUE(r.prepare_ms.has_value()) << r.config_key;
      EXPECT_GT(*r.prepare_ms, 0) << r.config_key;
    }
  }
  // beast query says which time a row holds.
  testing::CommandResult query = RunCommand(BeastBinary() + " query --best --db " + db);
  EXPECT_NE(query.output.find("ms once per weight buffer (the weights' transform, "
                              "beast_conv2d_prepare), not in the median"),
            std::string::npos)
      << query.output;

  const fs::path out = dir / "tuned";
  testing::CommandResult exported =
      RunCommand(BeastBinary() + " export --db " + db + " --out " + out.string());
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  std::ifstream text(out / "src" / "beast_kernels.c");
  const std::string table{std::istreambuf_iterator<char>(text), std::istreambuf_iterator<char>()};
  // The filter transform is marked a prepare stage (the last field), the
  // input transform and the GEMM are not.
  EXPECT_NE(table.find("{\"conv2d_winograd_filter\", {64, 8, 1}, {64, 1, 1}, 1},"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("{\"conv2d_winograd_input\", {64, 8, 1}, {64, 1, 1}, 0},"),
            std::string::npos)
      << table;

  const std::string consumer =
      std::string(BEAST_TEST_SOURCE_DIR) + "/tests/integration/export/prepared_consumer";
  const fs::path build = dir / "consumer";
  testing::CommandResult configured = RunCommand("cmake -S " + consumer + " -B " + build.string() +
                                                 " -DBEAST_TUNED_SOURCE_DIR=" + out.string());
  ASSERT_EQ(configured.exit_code, 0) << configured.output;
  testing::CommandResult built = RunCommand("cmake --build " + build.string());
  ASSERT_EQ(built.exit_code, 0) << built.output;
  testing::CommandResult ran =
      RunCommand("BEAST_TUNED_CACHE_DIR= " + (build / "prepared_consumer").string());
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find("ok: a prepared call after the weights changed computes with the "
                            "prepared ones"),
            std::string::npos)
      << ran.output;
  EXPECT_NE(ran.output.find("beast_conv2d_forward_prepared: a NULL argument"), std::string::npos)
      << ran.output;
  EXPECT_NE(ran.output.find("beast_conv2d_prepare: problem->bias is 1 but bias is NULL"),
            std::string::npos)
      << ran.output;
  EXPECT_NE(ran.output.find("\n0 failed\n"), std::string::npos) << ran.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace beast
