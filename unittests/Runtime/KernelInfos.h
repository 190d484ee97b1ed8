//===- KernelInfos.h - Kernel descriptions for the unit tests ---*- C++ -*-===//
//
// Builds KernelArgInfo and KernelInfo as the metadata reader would from
// tle-translate's descriptors, so that tests of argument checks need no
// JSON (KernelMetadataTest covers the reading).
//
//===----------------------------------------------------------------------===//

#ifndef TLE_UNITTESTS_RUNTIME_KERNELINFOS_H
#define TLE_UNITTESTS_RUNTIME_KERNELINFOS_H

#include "tle/Runtime/Runtime.h"

namespace tle::runtime::testing {

using metadata::kDynamic;

/// A memref argument with the identity layout.
inline KernelArgInfo memrefArg(std::string type, std::string elementType,
                               std::vector<int64_t> sizes) {
  KernelArgInfo arg;
  arg.kind = KernelArgInfo::Kind::MemRef;
  arg.type = std::move(type);
  arg.elementType = std::move(elementType);
  arg.sizes = std::move(sizes);
  return arg;
}

/// A memref argument with a strided layout.
inline KernelArgInfo stridedArg(std::string type, std::string elementType,
                                std::vector<int64_t> sizes,
                                std::vector<int64_t> strides,
                                int64_t offset = 0) {
  KernelArgInfo arg =
      memrefArg(std::move(type), std::move(elementType), std::move(sizes));
  arg.identityLayout = false;
  arg.strides = std::move(strides);
  arg.offset = offset;
  return arg;
}

inline KernelArgInfo tensorMapArg(std::string type, std::string elementType,
                                  std::vector<int64_t> box, int swizzle) {
  KernelArgInfo arg;
  arg.kind = KernelArgInfo::Kind::TensorMap;
  arg.type = std::move(type);
  arg.elementType = std::move(elementType);
  arg.box = std::move(box);
  arg.swizzle = swizzle;
  return arg;
}

/// An index, i32 or f32 argument.
inline KernelArgInfo scalarArg(KernelArgInfo::Kind kind) {
  KernelArgInfo arg;
  arg.kind = kind;
  arg.type = kind == KernelArgInfo::Kind::Index ? "index"
             : kind == KernelArgInfo::Kind::I32 ? "i32"
                                                : "f32";
  return arg;
}

/// examples/pipes: (memref<?x256xf32>, memref<?x256xf32>, index).
inline KernelInfo pipesKernel() {
  KernelInfo kernel;
  kernel.name = "pipes";
  kernel.params = {"ptr", "ptr", "i64", "i64", "i64", "i64", "i64", "ptr",
                   "ptr", "i64", "i64", "i64", "i64", "i64", "i64"};
  kernel.args = {memrefArg("memref<?x256xf32>", "f32", {kDynamic, 256}),
                 memrefArg("memref<?x256xf32>", "f32", {kDynamic, 256}),
                 scalarArg(KernelArgInfo::Kind::Index)};
  return kernel;
}

/// The tensor map of A in examples/gemm.
inline KernelArgInfo gemmMapA(std::vector<int64_t> box = {128, 64}) {
  std::string shape = std::to_string(box[0]) + "x" + std::to_string(box[1]);
  return tensorMapArg("!tle.tensor_map<" + shape + "xbf16, swizzle = 128>",
                      "bf16", box, 128);
}

/// examples/gemm: (A's map, B's map, memref<?x?xbf16>, index).
inline KernelInfo gemmKernel(std::vector<int64_t> boxA = {128, 64},
                             std::vector<int64_t> boxB = {64, 64}) {
  KernelInfo kernel;
  kernel.name = "gemm";
  kernel.params = {"tensor_map", "tensor_map", "ptr", "ptr", "i64",
                   "i64",        "i64",        "i64", "i64", "i64"};
  kernel.args = {gemmMapA(boxA), gemmMapA(boxB),
                 memrefArg("memref<?x?xbf16>", "bf16", {kDynamic, kDynamic}),
                 scalarArg(KernelArgInfo::Kind::Index)};
  return kernel;
}

} // namespace tle::runtime::testing

#endif // TLE_UNITTESTS_RUNTIME_KERNELINFOS_H
