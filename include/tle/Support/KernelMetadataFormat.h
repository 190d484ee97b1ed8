//===- KernelMetadataFormat.h - The keys of the kernel metadata -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-translate --tle-metadata (lib/Target/PTX/KernelMetadata.cpp) writes one
// JSON file per module; the runtime (lib/Runtime/KernelMetadata.cpp) is its
// only reader. Both take every key and fixed value from here, so that the
// two cannot drift apart. Plain C++ with no LLVM: the runtime builds on GPU
// machines that have none. docs/Translation.md shows a whole file.
//
//   {"chip": "sm_90a", "ptx_version": "8.0", "kernels": [
//     {"name": "k", "block": [128, 1, 1], "dynamic_shared_memory": 1024,
//      "params": ["ptr", "ptr", "i64", "i64", "i64", "i32"],
//      "args": [{"kind": "memref", "type": "memref<?xf32>",
//                "element_type": "f32", "sizes": [-1],
//                "layout": "identity"},
//               {"kind": "i32", "type": "i32"}],
//      "grid": "n / 128"}]}
//
//===----------------------------------------------------------------------===//

#ifndef TLE_SUPPORT_KERNELMETADATAFORMAT_H
#define TLE_SUPPORT_KERNELMETADATAFORMAT_H

#include <cstdint>

namespace tle::metadata {

/// The module.
inline constexpr char kChip[] = "chip";
inline constexpr char kPTXVersion[] = "ptx_version";
inline constexpr char kKernels[] = "kernels";

/// One kernel: its symbol, launch shape, LLVM parameters (how to pack a
/// launch), source arguments (what a caller passes) and grid rule.
inline constexpr char kName[] = "name";
inline constexpr char kBlock[] = "block";
inline constexpr char kDynamicSharedMemory[] = "dynamic_shared_memory";
inline constexpr char kParams[] = "params";
inline constexpr char kArgs[] = "args";
inline constexpr char kGrid[] = "grid";
/// true for a kernel with tle.persistent (absent otherwise): it loops over
/// the work items of its CTA's linear id, and a launcher gives it at most
/// one CTA per multiprocessor.
inline constexpr char kPersistent[] = "persistent";

/// The values of "params": every pointer is one 64-bit "ptr" whatever its
/// address space, a CUtensorMap passed by value is a "tensor_map"; other
/// parameters are spelled as LLVM prints their type ("i64", "f32", ...).
inline constexpr char kPtrParam[] = "ptr";
inline constexpr char kTensorMapParam[] = "tensor_map";

/// One argument of "args". Every argument has a kind and its type as the
/// kernel's author wrote it (for messages); a name where the compiler knows
/// one (kName).
inline constexpr char kKind[] = "kind";
inline constexpr char kType[] = "type";
/// Memrefs and tensor maps: the element type as MLIR spells it ("bf16").
inline constexpr char kElementType[] = "element_type";
/// Memrefs: "sizes", and "layout", which is kIdentityLayout or
/// kStridedLayout; a strided layout also has "strides" and "offset".
/// Sizes, strides and the offset are kDynamic where the type leaves them
/// open.
inline constexpr char kSizes[] = "sizes";
inline constexpr char kLayout[] = "layout";
inline constexpr char kStrides[] = "strides";
inline constexpr char kOffset[] = "offset";
/// Tensor maps: the box one copy moves (outermost dimension first) and the
/// shared-memory swizzle span in bytes (0, 32, 64 or 128).
inline constexpr char kBox[] = "box";
inline constexpr char kSwizzle[] = "swizzle";

/// The values of "kind".
inline constexpr char kMemRefKind[] = "memref";
inline constexpr char kTensorMapKind[] = "tensor_map";
inline constexpr char kIndexKind[] = "index";
inline constexpr char kI32Kind[] = "i32";
inline constexpr char kF32Kind[] = "f32";

/// The values of "layout". The identity layout is contiguous (row-major)
/// with offset 0.
inline constexpr char kIdentityLayout[] = "identity";
inline constexpr char kStridedLayout[] = "strided";

/// A size, stride or offset the type leaves open.
inline constexpr int64_t kDynamic = -1;

} // namespace tle::metadata

#endif // TLE_SUPPORT_KERNELMETADATAFORMAT_H
