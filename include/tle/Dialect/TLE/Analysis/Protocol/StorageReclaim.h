//===- StorageReclaim.h - A dead pipe's storage as scratch ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The reclaim rule of docs/SyncDerivation.md ("Shared storage"): the
// readers of a pipe declare together, with tle.reclaim, that they are done
// with it, and then use disjoint parts of its storage as scratch.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_STORAGERECLAIM_H
#define TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_STORAGERECLAIM_H

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"

namespace mlir::tle {

/// Checks every tle.reclaim of the kernel: all readers of the pipe reclaim
/// it once, in their partition's body, after their last use of it and of
/// the pipes nested in it, with no multiply still reading it; the scratch
/// parts lie in the pipe's fields and are disjoint.
LogicalResult checkReclaims(WarpSpecializeOp ws, ArrayRef<PipeUsage> usages);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_STORAGERECLAIM_H
