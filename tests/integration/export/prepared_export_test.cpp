// Weights prepared once, end to end on the OpenCL CPU device: beast tune
// measures conv2d/winograd_split with its filter transform as a prepare stage
// (its time kept apart: prepare_ms), beast export marks that stage in the
// table, and a consumer program built on the export runs the convolution
// through beast_conv2d_prepare / beast_conv2d_forward_prepared on its own
// buffers (prepared_consumer/main.c: correct for two inputs, a snapshot of
// the weights — zeroing them in place changes a plain call's result and not
// a prepared one's — plain calls keeping one workspace in the context, and
// bad arguments refused). And where the Winograd
// winner is slower than another config once its transform runs in the call,
// the library carries both: prepared calls run Winograd, plain calls the other.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "beast/space/bound_space.hpp"
#include "harness/opencl/opencl_devices.hpp"
#include "results_db/store.hpp"
#include "support/command_runner.hpp"
#include "support/record_measurement.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::RunCommand;

// The consumer's problem with an image of side hw (its CONSUMER_HW). The two
// tests take different sides: CTest runs them at once, and PoCL's kernel
// cache, shared between tests, is then not asked for one program twice.
std::string ProblemOfSide(int hw) {
  const std::string side = std::to_string(hw);
  return "conv2d:N=1,C=8,H=" + side + ",W=" + side +
         ",K=8,R=3,S=3,stride_h=1,stride_w=1,pad_h=1,pad_w=1,dilation_h=1,dilation_w=1,groups=1,"
         "layout=NCHW,dtype=f32,bias=1";
}

// Exports db into dir/tuned (its summary must hold each of `summary`, and
// `beast export --check` must find it up to date), puts the table's source
// in *table, then builds prepared_consumer on the export and runs it with
// `args`, built for an image of side hw.
testing::CommandResult ExportAndRunConsumer(const fs::path& dir, const std::string& db,
                                            const std::vector<std::string>& summary,
                                            const std::string& args, std::string* table, int hw) {
  const fs::path out = dir / "tuned";
  testing::CommandResult exported =
      RunCommand(BeastBinary() + " export --db " + db + " --out " + out.string());
  EXPECT_EQ(exported.exit_code, 0) << exported.output;
  for (const std::string& line : summary)
    EXPECT_NE(exported.output.find(line), std::string::npos) << line << "\n" << exported.output;
  testing::CommandResult checked =
      RunCommand(BeastBinary() + " export --check " + out.string() + " --db " + db);
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
  std::ifstream text(out / "src" / "beast_kernels.c");
  table->assign(std::istreambuf_iterator<char>(text), std::istreambuf_iterator<char>());
  const std::string consumer =
      std::string(BEAST_TEST_SOURCE_DIR) + "/tests/integration/export/prepared_consumer";
  const fs::path build = dir / "consumer";
  testing::CommandResult configured = RunCommand("cmake -S " + consumer + " -B " + build.string() +
                                                 " -DBEAST_TUNED_SOURCE_DIR=" + out.string() +
                                                 " -DCONSUMER_HW=" + std::to_string(hw));
  EXPECT_EQ(configured.exit_code, 0) << configured.output;
  testing::CommandResult built = RunCommand("cmake --build " + build.string());
  EXPECT_EQ(built.exit_code, 0) << built.output;
  return RunCommand("BEAST_TUNED_CACHE_DIR= " + (build / "prepared_consumer").string() + " " +
                    args);
}

TEST(PreparedExport, AWinogradWinnerRunsOnWeightsPreparedOnce) {
  const fs::path dir = testing::FreshTestDir("prepared_export");
  const std::string db = (dir / "beast.db").string();
  // The default config and one more: both have the prepare stage.
  testing::CommandResult tuned = RunCommand(
      BeastBinary() + " tune --template conv2d/winograd_split --problem " + ProblemOfSide(10) +
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
      EXPECT_GE(*r.prepare_ms, 0) << r.config_key;  // a tiny kernel may time at 0 on PoCL
    }
  }
  // beast query says which time a row holds.
  testing::CommandResult query = RunCommand(BeastBinary() + " query --best --db " + db);
  EXPECT_NE(query.output.find("ms once per weight buffer (the weights' transform, "
                              "beast_conv2d_prepare), not in the median"),
            std::string::npos)
      << query.output;
  // The export carries one entry, or two when the faster config by time is
  // the slower one with its transform counted ("...; calls with prepared
  // weights)" and "...; plain calls)"): which one, the two configs' times
  // decide, so the summary is checked for what holds either way.
  std::string table;
  testing::CommandResult ran =
      ExportAndRunConsumer(dir, db, {"ms prepare once per weight buffer"}, "", &table, 10);
  // The filter transform is marked a prepare stage (the last field), the
  // input transform and the GEMM are not.
  EXPECT_NE(table.find("{\"conv2d_winograd_filter\", {64, 8, 1}, {64, 1, 1}, 1},"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("{\"conv2d_winograd_input\", {64, 8, 1}, {64, 1, 1}, 0},"),
            std::string::npos)
      << table;
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find("ok: a prepared call after the weights changed computes with the "
                            "prepared ones"),
            std::string::npos)
      << ran.output;
  EXPECT_NE(ran.output.find("beast_conv2d_forward_prepared: a NULL argument"), std::string::npos)
      << ran.output;
  // Plain calls keep one workspace in the context, on either queue, until
  // it is released.
  for (const char* line :
       {"ok: a plain call keeps its workspace",
        "ok: plain calls alternating between two queues compute the convolution",
        "ok: plain calls enqueued together on two queues compute the convolution",
        "ok: four threads calling at once on their own queues compute the "
        "convolution",
        "ok: they keep the same workspace", "ok: releasing the workspace lets it go",
        "ok: a call after the release computes and keeps a workspace again"})
    EXPECT_NE(ran.output.find(line), std::string::npos) << line << "\n" << ran.output;
  EXPECT_NE(ran.output.find("beast_conv2d_prepare: problem->bias is 1 but bias is NULL"),
            std::string::npos)
      << ran.output;
  EXPECT_NE(ran.output.find("\n0 failed\n"), std::string::npos) << ran.output;
  fs::remove_all(dir);
}

TEST(PreparedExport, PlainCallsRunTheirOwnWinnerWhenTheTransformMakesWinogradSlower) {
  const fs::path dir = testing::FreshTestDir("prepared_export_plain");
  const std::string db = (dir / "beast.db").string();
  std::vector<DeviceInfo> devices = harness::ListOpenClDevices();
  ASSERT_FALSE(devices.empty());
  const Problem problem = Problem::Parse(ProblemOfSide(9));
  const std::string templates = std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";
  // Recorded times (the selection is what is tested; the kernels are real):
  // Winograd 1 ms with a 5 ms filter transform, the direct kernel 2 ms.
  auto record = [&](const std::string& name, double ms, std::optional<double> prepare) {
    SpaceSpec spec = SpaceSpec::Load(templates, name);
    const Config config = BoundSpace(spec, problem, devices[0]).Enumerate().front();
    testing::RecordMeasurement(db, devices[0], problem, spec, config, ms, "", prepare);
  };
  record("conv2d/winograd_split", 1.0, 5.0);
  record("conv2d/direct_nchw", 2.0, std::nullopt);
  std::string table;
  testing::CommandResult ran = ExportAndRunConsumer(
      dir, db,
      {"exported 2 tuned kernels",
       "(1 ms + 5 ms prepare once per weight buffer; calls with prepared weights)",
       "(2 ms; plain calls)"},
      "conv2d/direct_nchw", &table, 9);
  // Both entries, each marked with the calls it serves (the last field).
  EXPECT_NE(table.find("kStages0, 3, "), std::string::npos) << table;
  EXPECT_NE(table.find("LL, 1},\n"), std::string::npos) << table;
  EXPECT_NE(table.find("NULL, 0, 0LL, 2},\n"), std::string::npos) << table;
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find("ok: plain calls run the expected tuned entry"), std::string::npos)
      << ran.output;
  EXPECT_NE(ran.output.find("ok: explain names the prepared calls' winner"), std::string::npos)
      << ran.output;
  EXPECT_NE(ran.output.find("ok: plain calls keep no workspace"), std::string::npos) << ran.output;
  // Zeroed weights change a plain (direct) call and not a prepared (Winograd) one.
  EXPECT_NE(ran.output.find("ok: a prepared call after the weights changed computes with the "
                            "prepared ones"),
            std::string::npos)
      << ran.output;
  EXPECT_NE(ran.output.find("\n0 failed\n"), std::string::npos) << ran.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace beast
