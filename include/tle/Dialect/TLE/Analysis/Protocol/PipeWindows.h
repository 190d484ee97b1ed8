//===- PipeWindows.h - The slots each partition holds -----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A window is the span in which one side of a pipe holds one iteration's
// slot: from a tle.acquire to its tle.commit, or from a reader's tle.wait
// to its tle.release. The balance check walks each partition path by path
// and proves that every window closes: in the block it opens in, or, for a
// reader, in the next iteration of an scf.for that carries it. A loop body
// that starts holding a reader's window at iteration e(iv) and ends
// holding the same reader's window at e(iv + step) hands the window to its
// next iteration (its views pass through iter_args), which is what a
// consumer needs to keep tile i while it waits for tile i + 1. The loops
// that do so are recorded for the checks and passes that follow the views.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_PIPEWINDOWS_H
#define TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_PIPEWINDOWS_H

#include "tle/Dialect/TLE/Analysis/IterationExpr.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"

namespace mlir::tle {

/// A reader's window that an scf.for hands from each iteration to the next.
struct CarriedWindow {
  /// The tle.wait in the body that opens the window of the next iteration;
  /// it names the pipe and the reader.
  WaitOp next;
  /// The iteration of the window held where the loop starts, as seen
  /// outside the loop: e(lower bound).
  IterationExpr entry;
  /// e(iv): the iteration held when an iteration of the body starts.
  IterationExpr iteration;
  /// e(upper bound): the iteration held after the loop, exact when the
  /// step divides upper - lower bound and the loop does not run backwards
  /// (the protocol simulation checks the runs it makes).
  IterationExpr afterLoop;
};

/// The windows each scf.for carries across its iterations.
using CarriedWindows = DenseMap<Operation *, SmallVector<CarriedWindow>>;

/// Checks that partition `partition` of `ws` closes every window it opens
/// on every path (the balance and capacity rules of docs/SyncDerivation.md),
/// reporting the first violation at the op that breaks it, and adds the
/// windows its loops carry to `carried`.
LogicalResult checkWindowBalance(WarpSpecializeOp ws, unsigned partition,
                                 CarriedWindows &carried);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_PIPEWINDOWS_H
