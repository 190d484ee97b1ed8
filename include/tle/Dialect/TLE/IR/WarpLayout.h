//===- WarpLayout.h - Placement of partitions on warps ----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Where each partition of a tle.warp_specialize runs. The verifier uses it
// to check the register arithmetic; the lowering uses it to dispatch warps.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_IR_WARPLAYOUT_H
#define TLE_DIALECT_TLE_IR_WARPLAYOUT_H

#include "llvm/ADT/SmallVector.h"

namespace mlir::tle {
class WarpSpecializeOp;

struct PartitionPlacement {
  unsigned firstWarp;
  unsigned numWarps;
  /// The partition placed here, and which of its replicas (0 unless it is
  /// replicated).
  unsigned partition;
  unsigned replica;
};

struct WarpLayout {
  /// One entry per copy of a partition, the default partition first, a
  /// replicated partition's replicas in order. Once the replicas are
  /// expanded, entry i is partition i.
  llvm::SmallVector<PartitionPlacement> partitions;
  /// Warps in the CTA: a whole number of warp groups.
  unsigned numWarps = 0;
  /// For each warp group, the entries of `partitions` that run on it.
  llvm::SmallVector<llvm::SmallVector<unsigned, 4>> warpGroupPartitions;
  /// For each warp group, the registers its first requesting partition asks
  /// for, or 0. (The verifier rejects partitions of one warp group that
  /// disagree.)
  llvm::SmallVector<unsigned> requestedRegisters;

  unsigned getNumWarpGroups() const { return warpGroupPartitions.size(); }
  unsigned getNumThreads() const;
};

/// Places the partitions in order, each replica of each at the next warp
/// index that is a multiple of min(warps, 4), and rounds the CTA up to whole
/// warp groups.
/// Expects positive power-of-two warp counts.
WarpLayout computeWarpLayout(WarpSpecializeOp op);

/// The register budget of each warp group: the requested one where there is
/// one; the others share what the requests leave of the register file
/// equally, rounded down to a multiple of 8 and clamped to 24..256.
/// What ptxas gives every thread at entry under the kernel's launch bounds:
/// the register file split evenly over `numThreads`, at most 255, in steps
/// of 8.
unsigned getEntryRegisters(unsigned numThreads);

/// The registers setmaxnreg can redistribute among the warp groups of a CTA
/// of `numThreads`: what they hold at entry. Measured on the H200 (ptxas
/// 13.0): budgets that add up to more (e.g. the full 65,536 with 384
/// threads, which start at 168) make setmaxnreg.inc wait forever.
unsigned getRegisterCapacity(unsigned numThreads);

llvm::SmallVector<unsigned> deriveWarpGroupRegisters(const WarpLayout &layout);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_IR_WARPLAYOUT_H
