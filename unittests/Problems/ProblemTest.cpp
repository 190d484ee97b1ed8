//===- ProblemTest.cpp - The registry and the shape helpers ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Problems/Problem.h"

#include "gtest/gtest.h"

using namespace tle::problems;

namespace {

TEST(Problems, Registry) {
  std::vector<std::string> names = getProblemNames();
  EXPECT_EQ(names, (std::vector<std::string>{"pipes", "sparse_mla", "gemm"}));
  for (const std::string &name : names)
    EXPECT_EQ(createProblem(name)->name(), name);
  EXPECT_FALSE(createProblem("nope"));
}

TEST(Shape, Ints) {
  Shape shape{{"n", "12"}, {"bad", "1x"}, {"neg", "-1"}};
  int64_t value = 7;
  ASSERT_TRUE(getShapeInt(shape, "n", 1, 100, value));
  EXPECT_EQ(value, 12);
  ASSERT_TRUE(getShapeInt(shape, "absent", 1, 100, value));
  EXPECT_EQ(value, 12);
  EXPECT_EQ(getShapeInt(shape, "bad", 1, 100, value).message,
            "shape key 'bad' must be an integer from 1 to 100, not '1x'");
  EXPECT_FALSE(getShapeInt(shape, "neg", 0, 100, value));
  EXPECT_FALSE(getShapeInt(shape, "n", 13, 100, value));
  EXPECT_EQ(checkShapeKeys(shape, {"n"}, "p").message,
            "problem 'p' has no shape key 'bad' (it has n)");
}

} // namespace
