// Status: names round-trip, and the statuses each record kind may hold are
// exactly those the schema's CHECK constraints list (results_db/schema.sql),
// so the enum and the database cannot drift apart.
#include "beast/core/status.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace beast {
namespace {

// The names in `CHECK (status IN (...))` of table `table` in schema.sql.
std::vector<std::string> SchemaStatuses(const std::string& table) {
  std::ifstream in(std::string(BEAST_TEST_SOURCE_DIR) + "/results_db/schema.sql");
  std::stringstream text;
  text << in.rdbuf();
  const std::string schema = text.str();
  const size_t start = schema.find("CREATE TABLE " + table + " (");
  EXPECT_NE(start, std::string::npos) << table;
  const size_t check = schema.find("CHECK (status IN (", start);
  const size_t end = schema.find("))", check);
  const std::string list = schema.substr(check, end - check);
  std::vector<std::string> names;
  std::regex quoted("'([a-z_]+)'");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), quoted);
       it != std::sregex_iterator(); ++it)
    names.push_back((*it)[1]);
  return names;
}

std::vector<std::string> NamesWhere(bool (*allowed)(Status)) {
  std::vector<std::string> names;
  for (Status s : kAllStatuses) {
    if (allowed(s)) names.push_back(StatusName(s));
  }
  return names;
}

TEST(Status, NamesRoundTripAndNothingElseParses) {
  for (Status s : kAllStatuses) EXPECT_EQ(ParseStatus(StatusName(s)), s) << StatusName(s);
  EXPECT_EQ(ParseStatus("OK"), std::nullopt);
  EXPECT_EQ(ParseStatus(""), std::nullopt);
  EXPECT_EQ(ParseStatus("exploded"), std::nullopt);
  std::ostringstream out;
  out << Status::kPrunedAfterCompile;
  EXPECT_EQ(out.str(), "pruned_after_compile");
}

TEST(Status, EachRecordKindHoldsWhatTheSchemaAllows) {
  EXPECT_EQ(NamesWhere(IsMeasurementStatus), SchemaStatuses("measurements"));
  EXPECT_EQ(NamesWhere(IsBaselineStatus), SchemaStatuses("baselines"));
  EXPECT_EQ(NamesWhere(IsConfirmationStatus), SchemaStatuses("confirmation_results"));
  EXPECT_EQ(SchemaStatuses("measurements"),
            (std::vector<std::string>{"ok", "compile_error", "runtime_error", "crashed", "timeout",
                                      "wrong_result", "pruned_after_compile", "compiled"}));
}

}  // namespace
}  // namespace beast
