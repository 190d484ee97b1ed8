//===- KernelArgsTest.cpp - Packing launch arguments ----------------------===//

#include "tle/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace tle::runtime;

namespace {

KernelInfo pipesKernel() {
  KernelInfo kernel;
  kernel.name = "pipes";
  kernel.params = {"ptr", "ptr", "i64", "i64", "i64", "i64", "i64", "ptr",
                   "ptr", "i64", "i64", "i64", "i64", "i64", "i64"};
  kernel.signature = {"memref<?x256xf32>", "memref<?x256xf32>", "index"};
  return kernel;
}

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

TEST(KernelArgs, PacksMemRefsInTheMLIRConvention) {
  KernelArgs args;
  args.addMemRef(0x1000, {64, 256});
  args.addMemRef(0x2000, {64, 256}, {512, 2}, 7);
  args.addIndex(5);
  EXPECT_TRUE(args.check(pipesKernel()));
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
  kernel.signature = {"i32", "f32", "i64"};
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
  args.addMemRef(0x1000, {64, 256});
  args.addIndex(5);
  EXPECT_EQ(checkError(args, pipesKernel()),
            "kernel 'pipes' takes 3 arguments (memref<?x256xf32>, "
            "memref<?x256xf32>, index), 2 were passed");
}

TEST(KernelArgs, WrongRank) {
  KernelArgs args;
  args.addMemRef(0x1000, {64 * 256});
  args.addMemRef(0x2000, {64, 256});
  args.addIndex(5);
  EXPECT_EQ(checkError(args, pipesKernel()),
            "kernel 'pipes': argument 0 (memref<?x256xf32>) has rank 2, the "
            "memref passed has rank 1");
}

TEST(KernelArgs, WrongStaticSize) {
  KernelArgs args;
  args.addMemRef(0x1000, {64, 256});
  args.addMemRef(0x2000, {64, 128});
  args.addIndex(5);
  EXPECT_EQ(checkError(args, pipesKernel()),
            "kernel 'pipes': argument 1 (memref<?x256xf32>): dimension 1 is "
            "256, the memref passed has size 128");
}

TEST(KernelArgs, WrongKind) {
  KernelArgs args;
  args.addMemRef(0x1000, {64, 256});
  args.addMemRef(0x2000, {64, 256});
  args.addI32(5);
  EXPECT_EQ(checkError(args, pipesKernel()),
            "kernel 'pipes': argument 2 (index) was passed as i32");
  KernelArgs scalarForMemRef;
  scalarForMemRef.addIndex(0);
  scalarForMemRef.addMemRef(0x2000, {64, 256});
  scalarForMemRef.addIndex(5);
  EXPECT_EQ(checkError(scalarForMemRef, pipesKernel()),
            "kernel 'pipes': argument 0 (memref<?x256xf32>) was passed as "
            "index");
}

TEST(KernelArgs, StridesOfTheWrongLength) {
  KernelArgs args;
  args.addMemRef(0x1000, {64, 256}, {256});
  args.addMemRef(0x2000, {64, 256});
  args.addIndex(5);
  EXPECT_NE(checkError(args, pipesKernel())
                .find("was passed as memref with 2 sizes but 1 strides"),
            std::string::npos);
}

TEST(KernelArgs, ParamsWithoutSignature) {
  KernelInfo kernel = pipesKernel();
  kernel.signature.clear();
  KernelArgs args;
  args.addMemRef(0x1000, {64, 256});
  args.addMemRef(0x2000, {64, 256});
  args.addIndex(5);
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

TEST(KernelArgs, Clear) {
  KernelArgs args;
  args.addIndex(1);
  args.clear();
  EXPECT_TRUE(args.pointers().empty());
  EXPECT_EQ(args.describe(), "");
}

} // namespace
