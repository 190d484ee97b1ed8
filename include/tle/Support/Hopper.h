//===- Hopper.h - Facts about sm_90a that the compiler and runtime share --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One home for every hardware number TLE relies on, so that the compiler
// (which emits code against them) and the runtime (which checks launches
// against them) cannot disagree. Plain C++ with no LLVM: the runtime and
// tle-run include it on GPU machines that have no LLVM.
//
// Sources: PTX ISA 8.x (setmaxnreg, mbarrier, bar.sync, cp.async.bulk.tensor,
// wgmma), the CUDA C Programming Guide's compute capability 9.0 table, and
// cuda.h (CUtensorMap).
//
//===----------------------------------------------------------------------===//

#ifndef TLE_SUPPORT_HOPPER_H
#define TLE_SUPPORT_HOPPER_H

#include <cstdint>

namespace tle::hopper {

/// Threads of a warp, warps of a warp group (the unit of wgmma and
/// setmaxnreg), threads of a warp group.
constexpr int64_t kWarpSize = 32;
constexpr int64_t kWarpsPerWarpGroup = 4;
constexpr int64_t kWarpGroupThreads = kWarpSize * kWarpsPerWarpGroup;

/// Threads and warps of one CTA.
constexpr int64_t kMaxThreadsPerCTA = 1024;
constexpr int64_t kMaxWarpsPerCTA = kMaxThreadsPerCTA / kWarpSize;

/// One SM's register file, which a CTA launched one per SM may hold whole,
/// and setmaxnreg's bounds and granularity.
constexpr int64_t kRegistersPerSM = 65536;
constexpr int64_t kMinRegisters = 24;
constexpr int64_t kMaxRegisters = 256;
constexpr int64_t kRegisterGranule = 8;

/// Dynamic shared memory one CTA may use (227 KiB).
constexpr int64_t kMaxSharedMemoryBytes = 232448;
/// 128-byte swizzled tiles repeat their pattern every 1024 bytes; TMA boxes
/// and wgmma descriptors assume a tile starts on such a boundary.
constexpr int64_t kSwizzledTileAlignment = 1024;
/// An mbarrier is one 8-byte object with its natural alignment.
constexpr int64_t kMBarrierBytes = 8;
/// The largest count an mbarrier's phase can expect (2^20 - 1 arrivals).
constexpr int64_t kMaxMBarrierCount = (int64_t(1) << 20) - 1;

/// Named barriers per CTA (bar.sync ids 0..15).
constexpr int64_t kNumNamedBarriers = 16;

/// The widest single memory access of one thread, and of one cp.async.
constexpr int64_t kMaxAccessBytes = 16;

/// A CUtensorMap: 128 opaque bytes, 64-byte aligned, at most rank 5.
constexpr int64_t kTensorMapBytes = 128;
constexpr int64_t kTensorMapAlignment = 64;
constexpr int64_t kMaxTensorMapRank = 5;
/// What cuTensorMapEncodeTiled accepts of a tiled map: box dimensions of 1
/// to 256 elements (the innermost spanning a multiple of 16 bytes), a
/// global address and strides that are multiples of 16 bytes, strides
/// under 2^40 bytes and sizes up to 2^32.
constexpr int64_t kMaxTensorMapBoxDim = 256;
constexpr int64_t kTensorMapGlobalAlignment = 16;
constexpr int64_t kMaxTensorMapStrideBytes = int64_t(1) << 40;
constexpr int64_t kMaxTensorMapGlobalDim = int64_t(1) << 32;

/// The largest N of one wgmma (the columns of its accumulator).
constexpr int64_t kMaxWgmmaN = 256;

/// A CTA's block: x and y of at most 1024 threads, z of at most 64, and
/// kMaxThreadsPerCTA in all.
constexpr int64_t kMaxBlockDims[3] = {1024, 1024, 64};

/// NVVM address spaces (the NVPTX backend's numbering).
constexpr unsigned kGlobalAddressSpace = 1;
constexpr unsigned kSharedAddressSpace = 3;

} // namespace tle::hopper

#endif // TLE_SUPPORT_HOPPER_H
