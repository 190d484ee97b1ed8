//===- SparseMLAProblemTest.cpp - The sparse_mla kernel check, no GPU -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What tle-run checks before it opens a device: the argument count, then
// the runtime's check of every argument against the shape.
//
//===----------------------------------------------------------------------===//

#include "KernelInfos.h"
#include "tle/Problems/Problem.h"

#include "gtest/gtest.h"

using namespace tle;
using namespace tle::problems;
using namespace tle::runtime::testing;
using runtime::KernelArgInfo;
using runtime::KernelInfo;

namespace {

/// kernels/sparse_mla/naive.mlir's arguments, the optional two included.
KernelInfo sparseMLAKernel() {
  return makeKernel(
      "sparse_mla_naive",
      {stridedArg("memref<?x?x?x576xbf16, strided<[?, ?, ?, 1]>>", "bf16",
                  {kDynamic, kDynamic, kDynamic, 576},
                  {kDynamic, kDynamic, kDynamic, 1}),
       memrefArg("memref<?x?x1x576xbf16>", "bf16",
                 {kDynamic, kDynamic, 1, 576}),
       memrefArg("memref<?x?x1x?xi32>", "i32",
                 {kDynamic, kDynamic, 1, kDynamic}),
       memrefArg("memref<?x?x?x512xbf16>", "bf16",
                 {kDynamic, kDynamic, kDynamic, 512}),
       memrefArg("memref<?x?x?xf32>", "f32", {kDynamic, kDynamic, kDynamic}),
       memrefArg("memref<?x?x?xf32>", "f32", {kDynamic, kDynamic, kDynamic}),
       scalarArg(KernelArgInfo::Kind::F32),
       memrefArg("memref<?xf32>", "f32", {kDynamic}),
       memrefArg("memref<?xi32>", "i32", {kDynamic})});
}

std::string checkError(const KernelInfo &kernel, const Shape &shape = {}) {
  std::unique_ptr<Problem> problem = createProblem("sparse_mla");
  EXPECT_TRUE(problem->configure(shape));
  runtime::Status status = problem->checkKernel(kernel);
  EXPECT_FALSE(status);
  return status.message;
}

TEST(SparseMLAProblem, CheckKernel) {
  std::unique_ptr<Problem> problem = createProblem("sparse_mla");
  ASSERT_TRUE(problem->configure({{"sink", "1"}, {"q_pad", "8"}}));
  runtime::Status status = problem->checkKernel(sparseMLAKernel());
  EXPECT_TRUE(status) << status.message;
  // Without the optional arguments, as long as the shape needs none.
  KernelInfo base = sparseMLAKernel();
  base.args.resize(7);
  base = makeKernel(base.name, base.args);
  ASSERT_TRUE(problem->configure({}));
  status = problem->checkKernel(base);
  EXPECT_TRUE(status) << status.message;
  EXPECT_EQ(checkError(base, {{"topk_length", "1"}}),
            "sparse_mla: kernel 'sparse_mla_naive' takes no attn_sink and "
            "topk_length, but the shape asks for sink=1 or topk_length=1");
  // With out_map after them, a tensor map of out's memory: its element
  // type must be out's.
  KernelInfo withMap = sparseMLAKernel();
  withMap.args.push_back(tensorMapArg(
      "!tle.tensor_map<64x64xbf16, swizzle = 128>", "bf16", {64, 64}, 128));
  withMap = makeKernel(withMap.name, withMap.args);
  status = problem->checkKernel(withMap);
  EXPECT_TRUE(status) << status.message;
  withMap.args.back().elementType = "f32";
  EXPECT_EQ(checkError(withMap),
            "sparse_mla: kernel 'sparse_mla_naive': argument 9 "
            "(!tle.tensor_map<64x64xbf16, swizzle = 128>): the element type "
            "is f32, the tensor passed holds bf16");
}

TEST(SparseMLAProblem, KernelMismatches) {
  KernelInfo kernel = sparseMLAKernel();
  kernel.args.resize(8);
  EXPECT_EQ(checkError(makeKernel(kernel.name, kernel.args)),
            "sparse_mla: kernel 'sparse_mla_naive' takes 8 arguments; "
            "SparseMLA passes (q, kv, indices, out, max_logits, lse, "
            "sm_scale), optionally (attn_sink, topk_length) and after them "
            "optionally out_map");
  kernel = sparseMLAKernel();
  kernel.args[2].elementType = "i64";
  EXPECT_EQ(checkError(kernel),
            "sparse_mla: kernel 'sparse_mla_naive': argument 2 "
            "(memref<?x?x1x?xi32>): the element type is i64, the memref "
            "passed holds i32");
  // A padded q needs a kernel whose q layout leaves the strides open.
  kernel = sparseMLAKernel();
  kernel.args[0] = memrefArg("memref<?x?x?x576xbf16>", "bf16",
                             {kDynamic, kDynamic, kDynamic, 576});
  EXPECT_EQ(checkError(kernel, {{"q_pad", "8"}}),
            "sparse_mla: kernel 'sparse_mla_naive': argument 0 "
            "(memref<?x?x?x576xbf16>): the identity (contiguous) layout has "
            "stride 73728 in dimension 1, the memref passed has stride 74760");
}

} // namespace
