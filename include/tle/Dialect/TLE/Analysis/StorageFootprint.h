//===- StorageFootprint.h - Shared-memory bytes a memref covers -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Pipes may bind one tle.shared_alloc through views of it, so which pipes
// share bytes is a question about addresses, not about SSA values. This
// analysis follows a memref back through view ops with constant offsets
// (memref.view, memref.subview, casts and reshapes, tle.slot) to the
// allocation it lies in, and lists the bytes it covers. What it cannot
// follow it says, so that callers report it rather than assume the memref
// disjoint from everything else.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_STORAGEFOOTPRINT_H
#define TLE_DIALECT_TLE_ANALYSIS_STORAGEFOOTPRINT_H

#include "tle/Dialect/TLE/IR/TLEDialect.h"

namespace mlir::tle {

/// The bytes of one tle.shared_alloc that a memref covers: sorted,
/// disjoint, non-adjacent half-open ranges relative to the allocation.
struct StorageFootprint {
  SharedAllocOp root;
  SmallVector<std::pair<int64_t, int64_t>> ranges;

  bool overlaps(const StorageFootprint &other) const;
  bool contains(const StorageFootprint &other) const;
  /// The bytes both cover (same root), as "bytes 1024..1279" for messages.
  std::string describeOverlap(const StorageFootprint &other) const;
};

/// The footprint of `memref`, or the op (or value) the analysis could not
/// follow: a view with a dynamic offset or shape, a block argument, an op
/// it does not know. `unresolved` names it for diagnostics.
FailureOr<StorageFootprint>
getStorageFootprint(Value memref, std::string *unresolved = nullptr);

/// The bytes `memref` covers relative to the start of `within`, a memref
/// it is derived from through view ops (a slot view and its subviews);
/// the footprint's root is null.
FailureOr<StorageFootprint>
getFootprintWithin(Value memref, Value within,
                   std::string *unresolved = nullptr);

/// The bytes of slot `slot` of a pipe field (a buffer whose leading
/// dimension indexes the slots).
FailureOr<StorageFootprint> getSlotFootprint(Value field, int64_t slot);

/// Whether `a` and `b` may share bytes: they do, or the analysis cannot
/// tell (an unresolved footprint on the same or an unknown allocation).
bool mayShareStorage(Value a, Value b);

/// The memrefs derived through view-like ops from the allocation that
/// `buffer` lies in and that may share bytes with `buffer` (`buffer` and
/// its own views included); just `buffer` and its views when the
/// allocation is unknown.
SmallVector<Value> getViewsSharingStorage(Value buffer);

/// `value` and every memref derived from it through view-like ops.
SmallVector<Value> getDerivedViews(Value value);

/// "buffer 'k'" or "the tle.shared_alloc at line 12".
std::string describeStorage(SharedAllocOp root);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_STORAGEFOOTPRINT_H
