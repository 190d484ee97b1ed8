//===- TokenUsage.h - Turn tokens and their named barriers ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Which tokens a tle.warp_specialize uses, which partitions are their two
// ends, and the hardware named barrier each one becomes. Named barrier 0 is
// the CTA's, ids 1..P belong to the P partitions (their partition-local
// barrier), and the tokens take the ids after them in the order they are
// declared. The protocol check, the sync plan and the lowering all read the
// ids from here.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_TOKENUSAGE_H
#define TLE_DIALECT_TLE_ANALYSIS_TOKENUSAGE_H

#include "tle/Dialect/TLE/IR/TLEDialect.h"

namespace mlir::tle {

/// The named barrier of partition `partition`'s own `gpu.barrier`s.
inline unsigned getPartitionBarrierId(unsigned partition) {
  return partition + 1;
}

/// One token used inside a tle.warp_specialize.
struct TokenUsage {
  TokenOp token;
  /// The partitions (0 = default) that signal and await it.
  unsigned signaler, waiter;
  /// The hardware named barrier it becomes.
  unsigned barrierId;
  /// The threads that meet at that barrier: both partitions'.
  unsigned threads;
};

/// The tokens that `ws` signals or awaits, in the order they are declared.
/// The ops must have passed their verifiers (both ends are partitions).
SmallVector<TokenUsage> collectTokenUsages(WarpSpecializeOp ws);

/// Fails, with an error at `ws`, when its partitions and tokens need more
/// named barriers than a CTA has.
LogicalResult checkNamedBarrierBudget(WarpSpecializeOp ws,
                                      ArrayRef<TokenUsage> tokens);

/// "tle.signal of token 'turn'", for diagnostics.
std::string describeTokenUse(Operation *op);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_TOKENUSAGE_H
