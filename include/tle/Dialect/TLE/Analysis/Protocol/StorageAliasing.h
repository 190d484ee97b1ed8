//===- StorageAliasing.h - Pipes that share shared-memory bytes -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Two rules under which pipes may share storage, checked by
// --tle-verify-pipes (docs/SyncDerivation.md, "Shared storage"):
//
// * nesting: pipe B lies inside field f of pipe A, and every window on B
//   lies inside a window on A that holds f, so A's writer cannot refill
//   the bytes while B uses them;
// * reclaim: the readers of a pipe declare together, with tle.reclaim,
//   that they are done with it, and then use disjoint parts of its
//   storage as scratch (StorageReclaim.h).
//
// Any other overlap between pipes is an error, and storage the analysis
// cannot resolve is reported as unproven.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_STORAGEALIASING_H
#define TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_STORAGEALIASING_H

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"

namespace mlir::tle {

/// Finds every pair of fields of `usages` that share bytes and proves the
/// nesting rule for each; reports fields whose storage it cannot resolve
/// (as errors when `strict`).
LogicalResult checkStorageAliasing(WarpSpecializeOp ws,
                                   ArrayRef<PipeUsage> usages, bool strict);

/// The pipes whose storage lies inside a field of `outer` (nested in it),
/// by the footprints of their fields.
SmallVector<PipeOp> getNestedPipes(PipeOp outer, ArrayRef<PipeUsage> usages);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_STORAGEALIASING_H
