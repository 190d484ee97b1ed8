//===- KernelInfos.h - Kernel descriptions for the unit tests ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Builds KernelArgInfo and KernelInfo as the metadata reader would from
// tle-translate's descriptors, so that tests of argument checks need no
// JSON (KernelMetadataTest covers the reading).
//
//===----------------------------------------------------------------------===//

#ifndef TLE_UNITTESTS_KERNELINFOS_H
#define TLE_UNITTESTS_KERNELINFOS_H

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

/// The LLVM parameters MLIR's calling convention gives `args`.
inline std::vector<std::string>
getParams(const std::vector<KernelArgInfo> &args) {
  std::vector<std::string> params;
  for (const KernelArgInfo &arg : args) {
    switch (arg.kind) {
    case KernelArgInfo::Kind::MemRef:
      params.insert(params.end(), {"ptr", "ptr", "i64"});
      params.insert(params.end(), 2 * arg.sizes.size(), "i64");
      break;
    case KernelArgInfo::Kind::TensorMap:
      params.push_back("tensor_map");
      break;
    case KernelArgInfo::Kind::Index:
      params.push_back("i64");
      break;
    case KernelArgInfo::Kind::I32:
      params.push_back("i32");
      break;
    case KernelArgInfo::Kind::F32:
      params.push_back("f32");
      break;
    }
  }
  return params;
}

/// A kernel called `name` taking `args`.
inline KernelInfo makeKernel(std::string name,
                             std::vector<KernelArgInfo> args) {
  KernelInfo kernel;
  kernel.name = std::move(name);
  kernel.params = getParams(args);
  kernel.args = std::move(args);
  return kernel;
}

/// examples/pipes: (memref<?x256xf32>, memref<?x256xf32>, index).
inline KernelInfo pipesKernel() {
  return makeKernel("pipes",
                    {memrefArg("memref<?x256xf32>", "f32", {kDynamic, 256}),
                     memrefArg("memref<?x256xf32>", "f32", {kDynamic, 256}),
                     scalarArg(KernelArgInfo::Kind::Index)});
}

/// A tensor map of examples/gemm (A's box by default).
inline KernelArgInfo gemmMap(std::vector<int64_t> box = {128, 64}) {
  std::string shape = std::to_string(box[0]) + "x" + std::to_string(box[1]);
  return tensorMapArg("!tle.tensor_map<" + shape + "xbf16, swizzle = 128>",
                      "bf16", box, 128);
}

/// examples/gemm: (A's map, B's map, memref<?x?xbf16>, index).
inline KernelInfo gemmKernel(std::vector<int64_t> boxA = {128, 64},
                             std::vector<int64_t> boxB = {64, 64}) {
  return makeKernel(
      "gemm", {gemmMap(boxA), gemmMap(boxB),
               memrefArg("memref<?x?xbf16>", "bf16", {kDynamic, kDynamic}),
               scalarArg(KernelArgInfo::Kind::Index)});
}

} // namespace tle::runtime::testing

#endif // TLE_UNITTESTS_KERNELINFOS_H
