//===- TensorMapTest.cpp - Tensor map arguments without a driver ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Everything up to the call of cuTensorMapEncodeTiled: the rules its
// arguments must meet, the arguments themselves and where the descriptor is
// packed.
//
//===----------------------------------------------------------------------===//

#include "TensorMap.h"
#include "KernelInfos.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace tle::runtime;
using namespace tle::runtime::testing;
using detail::TensorMapEncoding;

namespace {

const char *kA = "!tle.tensor_map<128x64xbf16, swizzle = 128>";

/// A tensor map argument of `elementType` with `box` and `swizzle`.
KernelArgInfo map(const std::string &elementType, std::vector<int64_t> box,
                  int swizzle) {
  return tensorMapArg("!tle.tensor_map<...>", elementType, std::move(box),
                      swizzle);
}

TensorMapEncoding encoded(const KernelArgInfo &type, uint64_t address,
                          const std::vector<int64_t> &sizes,
                          const std::vector<int64_t> &strides) {
  TensorMapEncoding encoding;
  Status status =
      detail::buildTensorMapEncoding(type, address, sizes, strides, encoding);
  EXPECT_TRUE(status) << status.message;
  return encoding;
}

std::string encodingError(const KernelArgInfo &type, uint64_t address,
                          const std::vector<int64_t> &sizes,
                          const std::vector<int64_t> &strides) {
  TensorMapEncoding encoding;
  Status status =
      detail::buildTensorMapEncoding(type, address, sizes, strides, encoding);
  EXPECT_FALSE(status);
  return status.message;
}

TEST(TensorMapEncoding, InnermostFirst) {
  // A [M, K] = [8192, 4096] bf16 matrix whose rows are padded to 4160.
  TensorMapEncoding e =
      encoded(gemmMap(), 0x7f0000000000, {8192, 4096}, {4160, 1});
  EXPECT_EQ(e.dataType, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(e.rank, 2u);
  EXPECT_EQ(e.address, 0x7f0000000000u);
  EXPECT_EQ(e.globalDim[0], 4096u);
  EXPECT_EQ(e.globalDim[1], 8192u);
  EXPECT_EQ(e.globalStrides[0], 4160u * 2);
  EXPECT_EQ(e.boxDim[0], 64u);
  EXPECT_EQ(e.boxDim[1], 128u);
  EXPECT_EQ(e.elementStrides[0], 1u);
  EXPECT_EQ(e.elementStrides[1], 1u);
  EXPECT_EQ(e.interleave, CU_TENSOR_MAP_INTERLEAVE_NONE);
  EXPECT_EQ(e.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(e.l2Promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  EXPECT_EQ(e.oobFill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

TEST(TensorMapEncoding, TypesAndSwizzles) {
  TensorMapEncoding e =
      encoded(map("f32", {2, 4, 8}, 32), 0x1000, {3, 5, 8}, {80, 16, 1});
  EXPECT_EQ(e.dataType, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  EXPECT_EQ(e.swizzle, CU_TENSOR_MAP_SWIZZLE_32B);
  EXPECT_EQ(e.rank, 3u);
  EXPECT_EQ(e.globalDim[2], 3u);
  EXPECT_EQ(e.globalStrides[0], 64u);
  EXPECT_EQ(e.globalStrides[1], 320u);
  EXPECT_EQ(e.boxDim[2], 2u);
  EXPECT_EQ(encoded(map("f16", {16, 32}, 64), 0, {16, 32}, {32, 1}).swizzle,
            CU_TENSOR_MAP_SWIZZLE_64B);
  EXPECT_EQ(encoded(map("i32", {16}, 0), 0, {100}, {1}).dataType,
            CU_TENSOR_MAP_DATA_TYPE_INT32);
  EXPECT_EQ(encoded(map("i8", {16}, 0), 0, {100}, {1}).dataType,
            CU_TENSOR_MAP_DATA_TYPE_UINT8);
}

TEST(TensorMapEncoding, Rules) {
  const KernelArgInfo a = gemmMap();
  EXPECT_EQ(encodingError(a, 0x1000, {64, 64, 64}, {4096, 64, 1}),
            "the box has rank 2, the tensor passed has rank 3");
  EXPECT_EQ(encodingError(a, 0x1000, {256, 256}, {256}),
            "the tensor passed has 2 sizes but 1 strides");
  EXPECT_EQ(encodingError(a, 0x1008, {256, 256}, {256, 1}),
            "the tensor's address 0x1008 is not 16-byte aligned");
  EXPECT_EQ(encodingError(a, 0x1000, {256, 0}, {256, 1}),
            "the tensor's size in dimension 1 is 0; each must be 1 to 2^32");
  EXPECT_EQ(encodingError(a, 0x1000, {256, 100}, {100, 1}),
            "the tensor's stride in dimension 0 is 100 elements = 200 bytes; "
            "TMA needs a multiple of 16 bytes");
  EXPECT_EQ(encodingError(a, 0x1000, {256, 256}, {1, 256}),
            "the tensor's innermost dimension must be contiguous (stride 1), "
            "not stride 256");
  EXPECT_EQ(encodingError(a, 0x1000, {256, 256}, {-256, 1}),
            "the tensor's stride in dimension 0 is -256 elements; each must "
            "be positive and under 2^40 bytes");
  EXPECT_EQ(
      encodingError(map("bf16", {128, 128}, 128), 0x1000, {256, 256}, {256, 1}),
      "the box's innermost dimension spans 256 bytes, more than the "
      "128-byte swizzle span");
  EXPECT_EQ(encodingError(map("bf16", {8, 4}, 0), 0x1000, {256, 256}, {256, 1}),
            "the box's innermost dimension spans 8 bytes; it must be a "
            "multiple of 16");
  EXPECT_EQ(
      encodingError(map("bf16", {512, 64}, 128), 0x1000, {1024, 256}, {256, 1}),
      "box dimension 0 is 512; each must be 1 to 256");
  EXPECT_EQ(encodingError(map("bf16", {1, 1, 1, 1, 1, 8}, 0), 0x1000,
                          {1, 1, 1, 1, 1, 8}, {8, 8, 8, 8, 8, 1}),
            "a tensor map has 1 to 5 dimensions, the box has 6");
  EXPECT_EQ(
      encodingError(map("bf16", {128, 64}, 16), 0x1000, {256, 256}, {256, 1}),
      "the swizzle must be 0, 32, 64 or 128 bytes, not 16");
  EXPECT_EQ(
      encodingError(map("f8", {128, 64}, 0), 0x1000, {256, 256}, {256, 1}),
      "a tensor map's element type must be one of i8, f8E4M3FN, "
      "f8E5M2, i16, f16, bf16, i32, f32, i64, f64, not 'f8'");
}

//===----------------------------------------------------------------------===//
// Tensor maps in KernelArgs
//===----------------------------------------------------------------------===//

/// A [512, 256], B [256, 1024] and C [512, 1024], in device memory.
struct Operand {
  uint64_t address;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides = {};
};
const Operand kOperandA{0x10000, {512, 256}}, kOperandB{0x20000, {256, 1024}},
    kOperandC{0x30000, {512, 1024}};

/// The GEMM kernel's arguments, A, B and C each passed as a tensor map
/// ('t') or a memref ('m') as `kinds` says.
KernelArgs gemmArgs(const std::string &kinds = "ttm",
                    const std::vector<Operand> &operands = {
                        kOperandA, kOperandB, kOperandC}) {
  KernelArgs args;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Operand &operand = operands[i];
    if (kinds[i] == 't')
      args.addTensorMap(operand.address, "bf16", operand.sizes,
                        operand.strides);
    else
      args.addMemRef(operand.address, "bf16", operand.sizes, operand.strides);
  }
  args.addIndex(256);
  return args;
}

std::string checkError(const KernelArgs &args, const KernelInfo &kernel) {
  Status status = args.check(kernel);
  EXPECT_FALSE(status) << "accepted " << args.describe();
  return status.message;
}

TEST(TensorMapArgs, Checks) {
  KernelArgs args = gemmArgs();
  Status status = args.check(gemmKernel());
  EXPECT_TRUE(status) << status.message;
  EXPECT_EQ(args.describe(), "tensor_map, tensor_map, ptr, ptr, i64, i64, "
                             "i64, i64, i64, i64");
}

TEST(TensorMapArgs, WrongKind) {
  EXPECT_EQ(checkError(gemmArgs("mtm"), gemmKernel()),
            "kernel 'gemm': argument 0 (" + std::string(kA) +
                ") was passed a memref");
  EXPECT_EQ(checkError(gemmArgs("ttt"), gemmKernel()),
            "kernel 'gemm': argument 2 (memref<?x?xbf16>) was passed a "
            "tensor map");
}

TEST(TensorMapArgs, WrongElementType) {
  KernelArgs args;
  args.addTensorMap(kOperandA.address, "f32", kOperandA.sizes);
  args.addTensorMap(kOperandB.address, "bf16", kOperandB.sizes);
  args.addMemRef(kOperandC.address, "bf16", kOperandC.sizes);
  args.addIndex(256);
  EXPECT_EQ(checkError(args, gemmKernel()),
            "kernel 'gemm': argument 0 (" + std::string(kA) +
                "): the element type is bf16, the tensor passed holds f32");
}

TEST(TensorMapArgs, WrongRank) {
  EXPECT_EQ(checkError(
                gemmArgs("ttm", {{0x10000, {512 * 256}}, kOperandB, kOperandC}),
                gemmKernel()),
            "kernel 'gemm': argument 0 (" + std::string(kA) +
                "): the box has rank 2, the tensor passed has rank 1");
}

TEST(TensorMapArgs, BadStrides) {
  Operand paddedB = kOperandB;
  paddedB.strides = {1028, 1};
  EXPECT_EQ(checkError(gemmArgs("ttm", {kOperandA, paddedB, kOperandC}),
                       gemmKernel()),
            "kernel 'gemm': argument 1 (!tle.tensor_map<64x64xbf16, swizzle "
            "= 128>): the tensor's stride in dimension 0 is 1028 elements = "
            "2056 bytes; TMA needs a multiple of 16 bytes");
}

TEST(TensorMapArgs, BadSwizzleInTheMetadata) {
  KernelInfo kernel = gemmKernel();
  kernel.args[0].swizzle = 16;
  EXPECT_EQ(checkError(gemmArgs(), kernel),
            "kernel 'gemm': argument 0 (" + std::string(kA) +
                "): the swizzle must be 0, 32, 64 or 128 bytes, not 16");
}

TEST(TensorMapArgs, PtrParamsOfOlderMetadata) {
  KernelInfo kernel = gemmKernel();
  kernel.params[0] = kernel.params[1] = "ptr";
  KernelArgs args = gemmArgs();
  EXPECT_TRUE(args.check(kernel));
  // Without arguments a tensor map has no box to be encoded with.
  kernel.args.clear();
  EXPECT_EQ(checkError(args, kernel),
            "kernel 'gemm' has no arguments in its metadata, which a tensor "
            "map argument needs (for its box, element type and swizzle)");
}

TEST(TensorMapArgs, PackingLayout) {
  KernelArgs args;
  args.addI32(7);
  args.addTensorMap(kOperandA.address, "bf16", kOperandA.sizes);
  args.addTensorMap(kOperandB.address, "bf16", kOperandB.sizes);
  args.addMemRef(kOperandC.address, "bf16", kOperandC.sizes);
  args.addIndex(256);
  args.addF32(2.5f);
  std::vector<void *> pointers = args.pointers();
  ASSERT_EQ(pointers.size(), 12u);
  auto at = [&](size_t i) { return reinterpret_cast<uintptr_t>(pointers[i]); };
  // Each descriptor is 128 bytes at a 64-byte (here 128-byte) boundary,
  // whatever comes before it; everything else keeps its own alignment.
  EXPECT_EQ(at(1) % 64, 0u);
  EXPECT_EQ(at(2) % 64, 0u);
  EXPECT_EQ(at(2) - at(1), 128u);
  EXPECT_GE(at(1) - at(0), sizeof(int32_t));
  EXPECT_GE(at(3) - at(2), 128u);
  for (size_t i = 3; i < 11; ++i)
    EXPECT_EQ(at(i) % 8, 0u);
  const unsigned char *map = static_cast<unsigned char *>(pointers[1]);
  for (int i = 0; i < 128; ++i)
    EXPECT_EQ(map[i], 0) << "byte " << i << " of an unencoded descriptor";
  int32_t first;
  std::memcpy(&first, pointers[0], sizeof(first));
  EXPECT_EQ(first, 7);
  uint64_t address;
  std::memcpy(&address, pointers[3], sizeof(address));
  EXPECT_EQ(address, 0x30000u);
  float last;
  std::memcpy(&last, pointers[11], sizeof(last));
  EXPECT_EQ(last, 2.5f);
}

TEST(TensorMapArgs, EncodesIntoTheParameters) {
  KernelArgs args = gemmArgs();
  std::vector<std::pair<TensorMapEncoding, void *>> calls;
  Status status = args.encodeTensorMaps(
      gemmKernel(), [&](const TensorMapEncoding &encoding, void *descriptor) {
        calls.push_back({encoding, descriptor});
        std::memset(descriptor, 0xAB, 128);
        return Status::ok();
      });
  ASSERT_TRUE(status) << status.message;
  std::vector<void *> pointers = args.pointers();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].second, pointers[0]);
  EXPECT_EQ(calls[1].second, pointers[1]);
  EXPECT_EQ(calls[0].first.address, 0x10000u);
  EXPECT_EQ(calls[0].first.boxDim[1], 128u);
  EXPECT_EQ(calls[1].first.globalDim[0], 1024u);
  EXPECT_EQ(calls[1].first.globalStrides[0], 2048u);
  EXPECT_EQ(static_cast<unsigned char *>(pointers[1])[127], 0xAB);
  // The memref after the descriptors is intact.
  uint64_t address;
  std::memcpy(&address, pointers[2], sizeof(address));
  EXPECT_EQ(address, 0x30000u);
}

TEST(TensorMapArgs, EncoderFailure) {
  KernelArgs args = gemmArgs();
  Status status = args.encodeTensorMaps(
      gemmKernel(), [](const TensorMapEncoding &, void *) {
        return Status::error("cuTensorMapEncodeTiled failed: "
                             "CUDA_ERROR_INVALID_VALUE");
      });
  EXPECT_EQ(status.message,
            "kernel 'gemm': argument 0 (" + std::string(kA) +
                "): cuTensorMapEncodeTiled failed: CUDA_ERROR_INVALID_VALUE");
}

/// A plan's launch: new addresses give new descriptors, unchanged ones keep
/// theirs, and an address TMA cannot take is named.
TEST(TensorMapArgs, SetValuesEncodesAnew) {
  KernelArgs args = gemmArgs();
  std::vector<TensorMapEncoding> calls;
  auto record = [&](const TensorMapEncoding &encoding, void *) {
    calls.push_back(encoding);
    return Status::ok();
  };
  const uint64_t values[] = {0x40000, 0x50000, 0x60000, 512};
  Status status = args.setValues(gemmKernel(), values, 4, record);
  ASSERT_TRUE(status) << status.message;
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].address, 0x40000u);
  EXPECT_EQ(calls[1].address, 0x50000u);
  // The shapes are those the list was made with.
  EXPECT_EQ(calls[1].globalDim[0], 1024u);
  // The same addresses again: the descriptors already hold them.
  ASSERT_TRUE(args.setValues(gemmKernel(), values, 4, record));
  EXPECT_EQ(calls.size(), 2u);
  const uint64_t moved[] = {0x40000, 0x70000, 0x60000, 512};
  ASSERT_TRUE(args.setValues(gemmKernel(), moved, 4, record));
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[2].address, 0x70000u);
  // A failed encoding is not kept: the next launch encodes again.
  auto failing = [](const TensorMapEncoding &, void *) {
    return Status::error("CUDA_ERROR_INVALID_VALUE");
  };
  const uint64_t elsewhere[] = {0x80000, 0x70000, 0x60000, 512};
  EXPECT_FALSE(args.setValues(gemmKernel(), elsewhere, 4, failing));
  ASSERT_TRUE(args.setValues(gemmKernel(), elsewhere, 4, record));
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[3].address, 0x80000u);
  const uint64_t misaligned[] = {0x40008, 0x50000, 0x60000, 512};
  EXPECT_EQ(args.setValues(gemmKernel(), misaligned, 4, record).message,
            "kernel 'gemm': argument 0 (" + std::string(kA) +
                "): the tensor's address 0x40008 is not 16-byte aligned");
  // Refused again, not launched with the previous descriptor.
  EXPECT_FALSE(args.setValues(gemmKernel(), misaligned, 4, record));
}

} // namespace
