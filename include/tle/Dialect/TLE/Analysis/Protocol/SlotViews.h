//===- SlotViews.h - Slots are touched only through their views -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A slot is safe to touch only while a side holds its window: between a
// tle.acquire and its tle.commit, or a tle.wait and its tle.release. These
// checks prove that every access to a pipe's buffers goes through the
// views those ops return, inside the window (or through the iter_args of
// a loop that carries it), and that no other view of the allocation
// touches the bytes of a field behind the protocol's back.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_SLOTVIEWS_H
#define TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_SLOTVIEWS_H

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/Protocol/PipeWindows.h"

namespace mlir::tle {

/// Checks that every view of a slot, and every loop that holds one in an
/// iter_arg, is used only inside its window (the views rule of
/// docs/SyncDerivation.md); `carried` are the windows loops carry.
LogicalResult checkSlotViews(WarpSpecializeOp ws,
                             const CarriedWindows &carried);

/// A pipe's buffers are touched only through slot views: by the code
/// before the partitions start, and for a one_shot pipe by its writer
/// before the commit. Anything else (a reader reading before it waits, a
/// writer storing to a slot it did not acquire, a field reused as scratch
/// without tle.reclaim) races with the other side. Accesses through any
/// view of the allocation that may share bytes with a field count.
LogicalResult checkDirectAccesses(WarpSpecializeOp ws, const PipeUsage &usage);

/// Every view derived from a slot view lies inside the slot: a subview
/// past its end (an offset computed from a replica index, say) touches the
/// next slot, which its writer refills meanwhile. Views whose offsets are
/// not constants after tle-expand-replicas folded the replica index are
/// not checked.
LogicalResult checkSlotBounds(WarpSpecializeOp ws);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_SLOTVIEWS_H
