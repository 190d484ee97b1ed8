//===- KernelArgsTest.cpp - Packing launch arguments ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "KernelInfos.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace tle::runtime;
using namespace tle::runtime::testing;

namespace {

std::string checkError(const KernelArgs &args, const KernelInfo &kernel) {
  Status status = args.check(kernel);
  EXPECT_FALSE(status) << "accepted " << args.describe();
  return status.message;
}

/// The value stored in the slot of parameter `i`.
template <typename T> T slot(KernelArgs &args, size_t i) {
  T value;
  std::memcpy(&value, args.pointers()[i], sizeof(T));
  return value;
}

/// `in` and `out` of examples/pipes with 64 rows, and `n`.
KernelArgs pipesArgs(const std::string &outType = "f32",
                     std::vector<int64_t> outStrides = {},
                     int64_t outOffset = 0) {
  KernelArgs args;
  args.addMemRef(0x1000, "f32", {64, 256});
  args.addMemRef(0x2000, outType, {64, 256}, std::move(outStrides), outOffset);
  args.addIndex(5);
  return args;
}

TEST(KernelArgs, PacksMemRefsInTheMLIRConvention) {
  KernelArgs args = pipesArgs();
  EXPECT_TRUE(args.check(pipesKernel()));
  // A strided layout that leaves strides and offset open takes any.
  KernelInfo strided = pipesKernel();
  strided.args[1] =
      stridedArg("memref<?x256xf32, strided<[?, ?], offset: ?>>", "f32",
                 {kDynamic, 256}, {kDynamic, kDynamic}, kDynamic);
  args = pipesArgs("f32", {512, 2}, 7);
  Status status = args.check(strided);
  EXPECT_TRUE(status) << status.message;
  ASSERT_EQ(args.pointers().size(), 15u);
  // allocated, aligned, offset, sizes, strides (contiguous by default).
  EXPECT_EQ(slot<uint64_t>(args, 0), 0x1000u);
  EXPECT_EQ(slot<uint64_t>(args, 1), 0x1000u);
  EXPECT_EQ(slot<int64_t>(args, 2), 0);
  EXPECT_EQ(slot<int64_t>(args, 3), 64);
  EXPECT_EQ(slot<int64_t>(args, 4), 256);
  EXPECT_EQ(slot<int64_t>(args, 5), 256);
  EXPECT_EQ(slot<int64_t>(args, 6), 1);
  EXPECT_EQ(slot<int64_t>(args, 9), 7);
  EXPECT_EQ(slot<int64_t>(args, 12), 512);
  EXPECT_EQ(slot<int64_t>(args, 13), 2);
  EXPECT_EQ(slot<int64_t>(args, 14), 5);
}

TEST(KernelArgs, Scalars) {
  KernelInfo kernel;
  kernel.name = "k";
  kernel.params = {"i32", "f32", "i64"};
  kernel.args = {scalarArg(KernelArgInfo::Kind::I32),
                 scalarArg(KernelArgInfo::Kind::F32),
                 scalarArg(KernelArgInfo::Kind::Index)};
  KernelArgs args;
  args.addI32(-3);
  args.addF32(1.5f);
  args.addIndex(9);
  EXPECT_TRUE(args.check(kernel));
  EXPECT_EQ(slot<int32_t>(args, 0), -3);
  EXPECT_EQ(slot<float>(args, 1), 1.5f);
  EXPECT_EQ(args.describe(), "i32, f32, i64");
}

TEST(KernelArgs, WrongArgumentCount) {
  KernelArgs args;
  args.addMemRef(0x1000, "f32", {64, 256});
  args.addIndex(5);
  EXPECT_EQ(checkError(args, pipesKernel()),
            "kernel 'pipes' takes 3 arguments (memref<?x256xf32>, "
            "memref<?x256xf32>, index), 2 were passed");
}

TEST(KernelArgs, WrongRank) {
  KernelArgs args;
  args.addMemRef(0x1000, "f32", {64 * 256});
  args.addMemRef(0x2000, "f32", {64, 256});
  args.addIndex(5);
  EXPECT_EQ(checkError(args, pipesKernel()),
            "kernel 'pipes': argument 0 (memref<?x256xf32>): the type has "
            "rank 2, the memref passed has rank 1");
}

TEST(KernelArgs, WrongStaticSize) {
  KernelArgs args;
  args.addMemRef(0x1000, "f32", {64, 256});
  args.addMemRef(0x2000, "f32", {64, 128}, {256, 1});
  args.addIndex(5);
  EXPECT_EQ(checkError(args, pipesKernel()),
            "kernel 'pipes': argument 1 (memref<?x256xf32>): dimension 1 is "
            "256, the memref passed has size 128");
}

TEST(KernelArgs, WrongKind) {
  KernelArgs args;
  args.addMemRef(0x1000, "f32", {64, 256});
  args.addMemRef(0x2000, "f32", {64, 256});
  args.addI32(5);
  EXPECT_EQ(checkError(args, pipesKernel()),
            "kernel 'pipes': argument 2 (index) was passed an i32");
  KernelArgs scalarForMemRef;
  scalarForMemRef.addIndex(0);
  scalarForMemRef.addMemRef(0x2000, "f32", {64, 256});
  scalarForMemRef.addIndex(5);
  EXPECT_EQ(checkError(scalarForMemRef, pipesKernel()),
            "kernel 'pipes': argument 0 (memref<?x256xf32>) was passed an "
            "index");
}

TEST(KernelArgs, StridesOfTheWrongLength) {
  KernelArgs args;
  args.addMemRef(0x1000, "f32", {64, 256}, {256});
  args.addMemRef(0x2000, "f32", {64, 256});
  args.addIndex(5);
  EXPECT_EQ(checkError(args, pipesKernel()),
            "kernel 'pipes': argument 0 (memref<?x256xf32>): the memref "
            "passed has 2 sizes but 1 strides");
}

TEST(KernelArgs, WrongElementType) {
  EXPECT_EQ(checkError(pipesArgs("f16"), pipesKernel()),
            "kernel 'pipes': argument 1 (memref<?x256xf32>): the element "
            "type is f32, the memref passed holds f16");
}

TEST(KernelArgs, NamedArgument) {
  KernelInfo kernel = pipesKernel();
  kernel.args[1].name = "out";
  EXPECT_EQ(checkError(pipesArgs("bf16"), kernel),
            "kernel 'pipes': argument 1 'out' (memref<?x256xf32>): the "
            "element type is f32, the memref passed holds bf16");
}

TEST(KernelArgs, IdentityLayoutNeedsContiguousStrides) {
  EXPECT_EQ(checkError(pipesArgs("f32", {512, 1}), pipesKernel()),
            "kernel 'pipes': argument 1 (memref<?x256xf32>): the identity "
            "(contiguous) layout has stride 256 in dimension 0, the memref "
            "passed has stride 512");
  EXPECT_EQ(checkError(pipesArgs("f32", {}, 4), pipesKernel()),
            "kernel 'pipes': argument 1 (memref<?x256xf32>): the identity "
            "(contiguous) layout has offset 0, the memref passed has offset "
            "4");
  // The stride of a dimension of size 1 is never used.
  KernelArgs oneRow;
  oneRow.addMemRef(0x1000, "f32", {1, 256}, {7, 1});
  oneRow.addMemRef(0x2000, "f32", {1, 256});
  oneRow.addIndex(1);
  EXPECT_TRUE(oneRow.check(pipesKernel()));
  // An empty tensor's strides are PyTorch's, which count the empty
  // dimension as 1.
  KernelInfo kernel = pipesKernel();
  kernel.args[0] =
      memrefArg("memref<?x?x4xf32>", "f32", {kDynamic, kDynamic, 4});
  kernel.params = getParams(kernel.args);
  KernelArgs empty;
  empty.addMemRef(0x1000, "f32", {2, 0, 4}, {4, 4, 1});
  empty.addMemRef(0x2000, "f32", {1, 256});
  empty.addIndex(1);
  Status status = empty.check(kernel);
  EXPECT_TRUE(status) << status.message;
}

TEST(KernelArgs, StridedLayoutFixesItsStaticStrides) {
  KernelInfo kernel = pipesKernel();
  kernel.args[1] = stridedArg("memref<?x256xf32, strided<[?, 1], offset: 8>>",
                              "f32", {kDynamic, 256}, {kDynamic, 1}, 8);
  EXPECT_TRUE(pipesArgs("f32", {300, 1}, 8).check(kernel));
  EXPECT_EQ(checkError(pipesArgs("f32", {600, 2}, 8), kernel),
            "kernel 'pipes': argument 1 (memref<?x256xf32, strided<[?, 1], "
            "offset: 8>>): the strided layout has stride 1 in dimension 1, "
            "the memref passed has stride 2");
  EXPECT_EQ(checkError(pipesArgs("f32", {300, 1}, 0), kernel),
            "kernel 'pipes': argument 1 (memref<?x256xf32, strided<[?, 1], "
            "offset: 8>>): the strided layout has offset 8, the memref "
            "passed has offset 0");
}

TEST(KernelArgs, ParamsWithoutArgs) {
  KernelInfo kernel = pipesKernel();
  kernel.args.clear();
  KernelArgs args = pipesArgs();
  EXPECT_TRUE(args.check(kernel));
  args.addI32(1);
  EXPECT_NE(checkError(args, kernel).find("has 15 parameters"),
            std::string::npos);
  KernelInfo scalar;
  scalar.name = "s";
  scalar.params = {"f32"};
  KernelArgs wrong;
  wrong.addI32(1);
  EXPECT_EQ(checkError(wrong, scalar),
            "kernel 's': parameter 0 is f32, a i32 was packed");
}

/// A plan's launch replaces each argument's value and nothing else.
TEST(KernelArgs, SetValues) {
  KernelInfo kernel = pipesKernel();
  kernel.args.push_back(scalarArg(KernelArgInfo::Kind::I32));
  kernel.args.push_back(scalarArg(KernelArgInfo::Kind::F32));
  kernel.params = getParams(kernel.args);
  KernelArgs args = pipesArgs();
  args.addI32(1);
  args.addF32(1.0f);
  ASSERT_TRUE(args.check(kernel));
  float half = 0.5f;
  uint32_t halfBits;
  std::memcpy(&halfBits, &half, sizeof(halfBits));
  const uint64_t values[] = {0x7000, 0x8000, 11, uint64_t(int64_t(-3)),
                             halfBits};
  auto noMaps = [](const detail::TensorMapEncoding &, void *) {
    return Status::error("no tensor map here");
  };
  Status status = args.setValues(kernel, values, 5, noMaps);
  ASSERT_TRUE(status) << status.message;
  EXPECT_EQ(slot<uint64_t>(args, 0), 0x7000u);
  EXPECT_EQ(slot<uint64_t>(args, 1), 0x7000u);
  EXPECT_EQ(slot<uint64_t>(args, 7), 0x8000u);
  EXPECT_EQ(slot<uint64_t>(args, 8), 0x8000u);
  // Sizes and strides stay.
  EXPECT_EQ(slot<int64_t>(args, 10), 64);
  EXPECT_EQ(slot<int64_t>(args, 12), 256);
  EXPECT_EQ(slot<int64_t>(args, 14), 11);
  EXPECT_EQ(slot<int32_t>(args, 15), -3);
  EXPECT_EQ(slot<float>(args, 16), 0.5f);
  EXPECT_TRUE(args.check(kernel));

  EXPECT_EQ(args.setValues(kernel, values, 4, noMaps).message,
            "kernel 'pipes' takes 5 argument values (one per argument), 4 "
            "were given");
  const uint64_t wideI32[] = {0x7000, 0x8000, 11, uint64_t(1) << 31, halfBits};
  EXPECT_EQ(args.setValues(kernel, wideI32, 5, noMaps).message,
            "kernel 'pipes': argument 3 (i32): the value 2147483648 does not "
            "fit an i32");
  const uint64_t wideF32[] = {0x7000, 0x8000, 11, 0, uint64_t(1) << 32};
  EXPECT_EQ(args.setValues(kernel, wideF32, 5, noMaps).message,
            "kernel 'pipes': argument 4 (f32): an f32 value is its 32 bits, "
            "in the low half of the 64; the high half is not 0");
}

TEST(KernelArgs, Clear) {
  KernelArgs args;
  args.addIndex(1);
  args.clear();
  EXPECT_TRUE(args.pointers().empty());
  EXPECT_EQ(args.describe(), "");
}

} // namespace
