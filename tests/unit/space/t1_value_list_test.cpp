// Kernel Tuner's Python value-list expressions in T1 files.
#include "beast/space/t1_value_list.hpp"

#include <gtest/gtest.h>

#include "beast/core/error.hpp"

namespace beast {
namespace {

std::vector<std::string> Texts(const std::string& list) {
  std::vector<std::string> out;
  for (const Value& v : EvaluateT1ValueList(list)) out.push_back(v.ToString());
  return out;
}

TEST(T1ValueList, EvaluatesThePythonSubsetKernelTunerWrites) {
  EXPECT_EQ(Texts("[16, 32, 48]"), (std::vector<std::string>{"16", "32", "48"}));
  EXPECT_EQ(Texts("[]"), std::vector<std::string>{});
  EXPECT_EQ(Texts("[1, 2,]"), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(Texts("[0.5, -1, 2**3]"), (std::vector<std::string>{"0.5", "-1", "8"}));
  EXPECT_EQ(Texts("[1, 2] + list(range(32, 96+1, 32))"),
            (std::vector<std::string>{"1", "2", "32", "64", "96"}));
  EXPECT_EQ(Texts("[2**i for i in range(0, 6)]"),
            (std::vector<std::string>{"1", "2", "4", "8", "16", "32"}));
  EXPECT_EQ(Texts("[i for i in range(3)]"), (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_EQ(Texts("list(range(10, 0, -4))"), (std::vector<std::string>{"10", "6", "2"}));
  EXPECT_EQ(Texts("[min(i, 2) for i in range(1, 4)]"), (std::vector<std::string>{"1", "2", "2"}));
}

TEST(T1ValueList, RefusesWhatIsOutsideTheSubset) {
  for (const char* bad : {"[1, 2", "(1, 2)", "[x]", "range(1, 2, 0)", "[1] * 3", "['a', 'b']"}) {
    EXPECT_THROW(EvaluateT1ValueList(bad), Error) << bad;
  }
  try {
    EvaluateT1ValueList("[1, 2");
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "value list \"[1, 2\": expected \"]\" at position 6");
  }
}

}  // namespace
}  // namespace beast
