//===- Layouts.h - Where each element of a tensor lives -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A tensor whose encoding is a TLE layout (#tle.mma, #tle.mma_operand,
// #tle.slice, #tle.blocked) is spread over the threads of one partition.
// ThreadMap answers, for every thread, which elements it holds: a base
// coordinate that depends on the thread id, plus constant offsets, one per
// element, in the order of the thread's registers. Verifiers and every
// lowering of tile ops use this one description.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_IR_LAYOUTS_H
#define TLE_DIALECT_TLE_IR_LAYOUTS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::tle {

/// The rows of the wgmma tile one warp group computes.
constexpr int64_t kMmaRows = 64;

/// One term of a thread's base coordinate: ((tid / div) % mod) * mul.
struct IndexTerm {
  int64_t div, mod, mul;
};

struct ThreadMap {
  /// Threads the layout spans: thread ids 0 .. numThreads-1 of a partition.
  int64_t numThreads = 0;
  /// Per dimension, the terms whose sum is the thread's base coordinate.
  SmallVector<SmallVector<IndexTerm, 4>> base;
  /// Per element a thread holds, in register order: its coordinate minus
  /// the base.
  SmallVector<SmallVector<int64_t, 2>> offsets;
  /// Consecutive elements (in register order) that are also consecutive
  /// along the last dimension; runs start at multiples of it.
  int64_t contiguity = 1;

  int64_t getElementsPerThread() const { return offsets.size(); }
  /// The base coordinate of thread `tid` along `dim`.
  int64_t evaluateBase(int64_t tid, unsigned dim) const;
};

/// Whether `encoding` is one of TLE's tensor layouts.
bool isDistributedLayout(Attribute encoding);

/// Checks that `type` has a TLE layout that can hold its shape and element
/// type, reporting why not through `emitError`.
LogicalResult
verifyDistributedType(RankedTensorType type,
                      function_ref<InFlightDiagnostic()> emitError);

/// The thread map of a tensor type that verifyDistributedType accepts.
ThreadMap getThreadMap(RankedTensorType type);

/// Whether every thread holds the same elements of `a` and `b` (tensors of
/// one shape) in the same order, layouts over fewer threads repeating over
/// the larger thread count: converting between them moves no data.
bool keepsEveryElementInPlace(RankedTensorType a, RankedTensorType b);

/// For a fold of `source` along `dim` into `result` (same layout, extent
/// w along `dim`: element j of the result combines the elements j, j + w,
/// ...), the result register each source register goes to, the same in
/// every thread; none when some thread would need an element another
/// thread holds, or would hold a result element no element of its own
/// goes to.
std::optional<SmallVector<int64_t>> getFoldRegisters(RankedTensorType source,
                                                     RankedTensorType result,
                                                     unsigned dim);

/// The threads a layout spans, independent of the shape.
int64_t getNumThreads(Attribute layout);

/// The warp-group grid of an #tle.mma or #tle.mma_operand layout.
ArrayRef<int64_t> getWarpGroupGrid(Attribute layout);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_IR_LAYOUTS_H
