//===- Uniformity.h - Values every thread of a partition shares -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Barrier arrive counts assume that every thread of a partition reaches each
// lifecycle op, on the same iteration. That holds when the control flow
// around the op and its iteration depend only on values that are provably
// the same in every thread. The proof is an allow-list: a value is uniform
// when it is
//
//   * a constant or an argument of the kernel function;
//   * a block or cluster index or a grid, cluster or block dimension
//     (gpu.block_id, gpu.grid_dim, gpu.block_dim, gpu.cluster_id,
//     gpu.cluster_dim, gpu.cluster_block_id and their NVVM registers);
//   * a shared-memory buffer (tle.shared_alloc) or a memref.dim or view of
//     a uniform memref;
//   * a memref.load at uniform indices from memory that the kernel reads
//     only: a view of a kernel argument through which nothing in the kernel
//     writes (kernel arguments are taken not to alias each other);
//   * an arith, index or math op, or an scf.for, scf.if or scf.while
//     result, loop variable or loop-carried value, computed from uniform
//     values under uniform control.
//
// Everything else may differ between threads: thread, lane, warp and
// global ids, clocks, loads from shared memory or from memory the kernel
// writes (a per-thread value round-tripped through memory), and every op
// the list does not name.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_UNIFORMITY_H
#define TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_UNIFORMITY_H

#include "tle/Dialect/TLE/IR/TLEDialect.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tle {

class UniformityAnalysis {
public:
  /// Analyses every value of `kernel` (a function).
  explicit UniformityAnalysis(Operation *kernel);

  /// The op from which `value` may differ between threads (the non-uniform
  /// source, or the region op whose control is not uniform), or null when
  /// `value` is provably uniform.
  Operation *getVaryingSource(Value value) const;

private:
  /// Why a value may vary; values absent are uniform.
  llvm::DenseMap<Value, Operation *> varying;
};

/// Checks that every thread of partition `partition` of `ws` reaches `op`
/// (a pipe lifecycle op, tle.signal or tle.await), with the same
/// `iteration` when there is one: the control flow around it is scf.for,
/// scf.while or scf.if on uniform values. `side` names the op in errors
/// ("reader 'r' of pipe 'kv'").
LogicalResult checkUniformControl(WarpSpecializeOp ws, Operation *op,
                                  StringRef side, Value iteration,
                                  unsigned partition,
                                  const UniformityAnalysis &uniformity);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_UNIFORMITY_H
