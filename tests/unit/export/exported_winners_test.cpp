// Which winners the library carries for which calls (export_plan.hpp): the
// fastest config per (device, problem) serves every call, unless it has
// prepare stages and another config is faster once those run in the call:
// then it serves calls with prepared weights and the other plain calls.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "beast/export/export_plan.hpp"

namespace beast {
namespace {

results_db::WinnerRow Row(int64_t problem, int64_t template_id, int64_t config, double ms,
                          std::optional<double> prepare = std::nullopt,
                          const std::string& op = "conv2d") {
  results_db::WinnerRow r;
  r.op = op;
  r.device_id = 1;
  r.problem_id = problem;
  r.problem_key = "p" + std::to_string(problem);
  r.template_id = template_id;
  r.config_id = config;
  r.config_key = "c" + std::to_string(config);
  r.median_ms = ms;
  r.prepare_ms = prepare;
  return r;
}

std::string Describe(const std::vector<ExportedWinner>& winners) {
  std::string out;
  for (const ExportedWinner& w : winners)
    out += w.row.problem_key + ":" + w.row.config_key + ":" +
           std::to_string(static_cast<int>(w.calls)) + " ";
  return out;
}

TEST(ExportedWinners, APrepareStageSplitsTheWinnerOnlyWhenAPlainCallWouldRunAnother) {
  // p1: Winograd (1 ms + 5 ms prepare) against direct (2 ms): prepared calls
  // run Winograd, plain calls direct (2 < 6). p2: Winograd 1 + 0.5 against
  // direct 2: Winograd for every call (1.5 < 2). p3: no prepare stages.
  const std::vector<results_db::WinnerRow> every = {
      Row(1, 10, 100, 1.0, 5.0), Row(1, 20, 200, 2.0), Row(2, 10, 101, 1.0, 0.5),
      Row(2, 20, 201, 2.0),      Row(3, 20, 202, 3.0),
  };
  // The plain ranking within Winograd prefers another of its configs on p1
  // (1.5 ms + 1 ms prepare), still slower than direct plain.
  std::vector<results_db::WinnerRow> plain = every;
  plain[0] = Row(1, 10, 102, 1.5, 1.0);
  EXPECT_EQ(Describe(ExportedWinners(every, plain)), "p1:c100:1 p1:c200:2 p2:c101:0 p3:c202:0 ");
  // When Winograd's plain-ranked config beats direct for plain calls too,
  // it is the plain calls' entry.
  plain[0] = Row(1, 10, 102, 1.2, 0.6);
  EXPECT_EQ(Describe(ExportedWinners(every, plain)), "p1:c100:1 p1:c102:2 p2:c101:0 p3:c202:0 ");
  // Ties keep the first by template name order (the rows' order).
  EXPECT_EQ(Describe(ExportedWinners({Row(4, 20, 203, 1.0), Row(4, 30, 300, 1.0)},
                                     {Row(4, 20, 203, 1.0), Row(4, 30, 300, 1.0)})),
            "p4:c203:0 ");
}

TEST(ExportedWinners, AnotherOpHasOnlyPlainCallsSoItsOneEntryIsThePlainRankings) {
  // A GEMM whose fastest config has 5 ms of prepare stages: every beast_gemm
  // call runs them, so the 2 ms config is its entry, for every call.
  const std::vector<results_db::WinnerRow> every = {Row(5, 10, 500, 1.0, 5.0, "gemm"),
                                                    Row(5, 20, 501, 2.0, std::nullopt, "gemm")};
  EXPECT_EQ(Describe(ExportedWinners(every, every)), "p5:c501:0 ");
}

}  // namespace
}  // namespace beast
