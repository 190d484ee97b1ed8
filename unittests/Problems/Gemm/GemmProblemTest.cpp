//===- GemmProblemTest.cpp - The gemm problem without a GPU ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "KernelInfos.h"
#include "tle/Problems/Gemm.h"
#include "tle/Problems/Problem.h"

#include "gtest/gtest.h"

using namespace tle;
using namespace tle::problems;
using runtime::testing::gemmKernel;

namespace {

TEST(GemmProblem, Defaults) {
  std::unique_ptr<Problem> problem = createProblem("gemm");
  ASSERT_TRUE(problem);
  ASSERT_TRUE(problem->configure({}));
  EXPECT_EQ(problem->describe(), "m=8192 n=8192 k=8192 bm=128 bn=256");
  EXPECT_EQ(problem->flops(), 2.0 * 8192 * 8192 * 8192);
  EXPECT_EQ(problem->bytesMoved(), 2.0 * 3 * 8192 * 8192);
}

TEST(GemmProblem, Shape) {
  std::unique_ptr<Problem> problem = createProblem("gemm");
  ASSERT_TRUE(problem->configure(
      {{"m", "256"}, {"n", "512"}, {"k", "128"}, {"bm", "64"}, {"bn", "128"}}));
  EXPECT_EQ(problem->describe(), "m=256 n=512 k=128 bm=64 bn=128");
  EXPECT_EQ(problem->flops(), 2.0 * 256 * 512 * 128);
  EXPECT_EQ(problem->bytesMoved(), 2.0 * (256 * 128 + 128 * 512 + 256 * 512));
}

TEST(GemmProblem, BadShapes) {
  std::unique_ptr<Problem> problem = createProblem("gemm");
  EXPECT_EQ(problem->configure({{"ctas", "1"}}).message,
            "problem 'gemm' has no shape key 'ctas' (it has m, n, k, bm, bn)");
  EXPECT_EQ(problem->configure({{"m", "1000"}}).message,
            "gemm: m = 1000 must be a multiple of bm = 128");
  EXPECT_EQ(problem->configure({{"n", "4096"}, {"bn", "96"}}).message,
            "gemm: n = 4096 must be a multiple of bn = 96");
  EXPECT_EQ(problem->configure({{"k", "100"}}).message,
            "gemm: k = 100 must be a multiple of the K step = 64");
  EXPECT_EQ(problem->configure({{"bm", "512"}}).message,
            "shape key 'bm' must be an integer from 1 to 256, not '512'");
  EXPECT_FALSE(problem->configure({{"m", "0"}}));
  // A rejected shape leaves the last good one.
  EXPECT_EQ(problem->describe(), "m=8192 n=8192 k=8192 bm=128 bn=256");
}

std::string kernelError(const runtime::KernelInfo &kernel,
                        const GemmConfig &config = {}) {
  runtime::Status status = checkGemmKernel(kernel, config);
  EXPECT_FALSE(status);
  return status.message;
}

TEST(GemmProblem, Kernel) {
  EXPECT_TRUE(checkGemmKernel(gemmKernel(), {}));
  GemmConfig config;
  config.bm = 64;
  config.bn = 128;
  EXPECT_TRUE(checkGemmKernel(gemmKernel({64, 32}, {32, 64}), config));
}

TEST(GemmProblem, KernelBoxes) {
  EXPECT_EQ(kernelError(gemmKernel({64, 64})),
            "gemm: kernel 'gemm': A's box is 64x64 (rows x K step), so its "
            "rows must be bm = 128; this kernel is built for bm = 64");
  EXPECT_EQ(kernelError(gemmKernel({128, 64}, {32, 64})),
            "gemm: kernel 'gemm': B's box is 32x64 (K step x columns); its "
            "rows must be A's K step 64");
  GemmConfig config;
  config.bn = 96;
  config.n = 96 * 64;
  EXPECT_EQ(kernelError(gemmKernel(), config),
            "gemm: kernel 'gemm': B's box has 64 columns, which must divide "
            "bn = 96");
  config = {};
  config.k = 64 * 3;
  EXPECT_EQ(kernelError(gemmKernel({128, 128}, {128, 64}), config),
            "gemm: kernel 'gemm': k = 192 must be a multiple of the kernel's "
            "K step 128");
}

TEST(GemmProblem, KernelArguments) {
  runtime::KernelInfo kernel = gemmKernel();
  kernel.args.pop_back();
  EXPECT_NE(kernelError(kernel).find("takes 3 arguments; GEMM passes 4"),
            std::string::npos);
  kernel = gemmKernel();
  kernel.args[0] = kernel.args[2];
  EXPECT_EQ(kernelError(kernel),
            "gemm: kernel 'gemm': argument 0 (memref<?x?xbf16>) must be a "
            "tensor map with a 2-d box of bf16 (A)");
  kernel = gemmKernel();
  kernel.args[1].elementType = "f16";
  EXPECT_EQ(kernelError(kernel),
            "gemm: kernel 'gemm': argument 1 (!tle.tensor_map<64x64xbf16, "
            "swizzle = 128>) must be a tensor map with a 2-d box of bf16 (B)");
}

/// A kernel that stores C with TMA takes a tensor map over C, whose box
/// must divide the tile.
TEST(GemmProblem, MapOfC) {
  runtime::KernelInfo kernel = gemmKernel();
  kernel.args[2] = runtime::testing::gemmMap({64, 64});
  EXPECT_TRUE(checkGemmKernel(kernel, {}));
  kernel.args[2] = runtime::testing::gemmMap({64, 96});
  EXPECT_EQ(kernelError(kernel),
            "gemm: kernel 'gemm': C's box is 64x96, which must divide the "
            "tile bm x bn = 128x256");
  kernel.args[2].elementType = "f16";
  EXPECT_EQ(kernelError(kernel),
            "gemm: kernel 'gemm': argument 2 (!tle.tensor_map<64x96xbf16, "
            "swizzle = 128>) must be a tensor map with a 2-d box of bf16 (C)");
  // And the runtime's check of the arguments tle-run packs for it.
  using namespace runtime::testing;
  std::unique_ptr<Problem> problem = createProblem("gemm");
  ASSERT_TRUE(problem->configure({{"m", "256"}, {"n", "512"}, {"k", "128"}}));
  runtime::Status status = problem->checkKernel(
      makeKernel("gemm", {gemmMap(), gemmMap({64, 64}), gemmMap({64, 64}),
                          scalarArg(runtime::KernelArgInfo::Kind::Index)}));
  EXPECT_TRUE(status) << status.message;
}

/// What tle-run checks before it opens a device: the rules above, then the
/// runtime's check of C and K.
TEST(GemmProblem, CheckKernelWithoutADevice) {
  std::unique_ptr<Problem> problem = createProblem("gemm");
  ASSERT_TRUE(problem->configure({{"m", "256"}, {"n", "512"}, {"k", "128"}}));
  runtime::Status status = problem->checkKernel(gemmKernel());
  EXPECT_TRUE(status) << status.message;
  EXPECT_EQ(problem->checkKernel(gemmKernel({64, 64})).message,
            "gemm: kernel 'gemm': A's box is 64x64 (rows x K step), so its "
            "rows must be bm = 128; this kernel is built for bm = 64");
  runtime::KernelInfo kernel = gemmKernel();
  kernel.args[2].elementType = "f32";
  EXPECT_EQ(problem->checkKernel(kernel).message,
            "gemm: kernel 'gemm': argument 2 (memref<?x?xbf16>): the element "
            "type is f32, the memref passed holds bf16");
  kernel = gemmKernel();
  kernel.args[3] =
      runtime::testing::scalarArg(runtime::KernelArgInfo::Kind::I32);
  EXPECT_EQ(problem->checkKernel(kernel).message,
            "gemm: kernel 'gemm': argument 3 (i32) was passed an index");
}

} // namespace
