//===- PipesProblemTest.cpp - The pipes problem without a GPU -------------===//

#include "Problem.h"

#include "gtest/gtest.h"

using namespace tle::run;

namespace {

TEST(PipesProblem, Defaults) {
  std::unique_ptr<Problem> problem = createProblem("pipes");
  ASSERT_TRUE(problem);
  ASSERT_TRUE(problem->configure({}));
  EXPECT_EQ(problem->describe(), "ctas=(one per SM) n=64");
  EXPECT_EQ(problem->flops(), 0);
}

TEST(PipesProblem, Shape) {
  std::unique_ptr<Problem> problem = createProblem("pipes");
  ASSERT_TRUE(problem->configure({{"ctas", "3"}, {"n", "13"}}));
  EXPECT_EQ(problem->describe(), "ctas=3 n=13");
  // Every row is read once and written once: 2 * rows * 256 floats.
  EXPECT_EQ(problem->bytesMoved(), 2.0 * 3 * 13 * 256 * 4);
}

TEST(PipesProblem, BadShapes) {
  std::unique_ptr<Problem> problem = createProblem("pipes");
  EXPECT_EQ(problem->configure({{"m", "1"}}).message,
            "problem 'pipes' has no shape key 'm' (it has ctas, n)");
  EXPECT_FALSE(problem->configure({{"n", "0"}}));
  EXPECT_FALSE(problem->configure({{"ctas", "-2"}}));
  EXPECT_FALSE(problem->configure({{"ctas", "100000"}, {"n", "100000"}}));
}

} // namespace
