//===- PipesProblemTest.cpp - The pipes problem without a GPU -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "KernelInfos.h"
#include "tle/Problems/Problem.h"

#include "gtest/gtest.h"

using namespace tle::problems;
using tle::runtime::testing::pipesKernel;

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

/// Before a device gives the default ctas, the rows are 0: the kernel's
/// rows are dynamic, so the check holds for any count.
TEST(PipesProblem, CheckKernelWithoutADevice) {
  std::unique_ptr<Problem> problem = createProblem("pipes");
  ASSERT_TRUE(problem->configure({}));
  tle::runtime::Status status = problem->checkKernel(pipesKernel());
  EXPECT_TRUE(status) << status.message;
  tle::runtime::KernelInfo kernel = pipesKernel();
  kernel.args[1].sizes[1] = 128;
  EXPECT_EQ(problem->checkKernel(kernel).message,
            "pipes: kernel 'pipes': argument 1 (memref<?x256xf32>): dimension "
            "1 is 128, the memref passed has size 256");
  kernel = pipesKernel();
  kernel.args.pop_back();
  EXPECT_EQ(problem->checkKernel(kernel).message,
            "pipes: kernel 'pipes' takes 2 arguments (memref<?x256xf32>, "
            "memref<?x256xf32>), 3 were passed");
}

} // namespace
