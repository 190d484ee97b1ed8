//===- SwizzledViews.h - Where a view of a #tle.shared tile starts -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A memref.subview of a #tle.shared tile has a strided layout that describes
// a row-major buffer: once subviews are expanded, its offset counts
// `row * stride + column` elements from the source, while the swizzled
// layout stores the tile column chunk after column chunk. Every op that
// addresses such a view (wgmma descriptors, tile loads and stores,
// gather_rows, TMA) asks the one function below where the view really
// starts, and every verifier of those ops asks it whether the layout can
// express the view at all.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_IR_SWIZZLEDVIEWS_H
#define TLE_DIALECT_TLE_IR_SWIZZLEDVIEWS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Value.h"

namespace mlir::tle {

/// Walks `view`, a memref in #tle.shared, back through its memref.subview (and
/// memref.cast) ops to the buffer, slot or argument they start from: a whole
/// tile with the identity layout, whose memref points at its first element, or
/// a memref.reinterpret_cast whose offset already is the swizzled start (as the
/// distribution pass writes for tle.tma_load); a strided view that comes from
/// anywhere else is rejected. Each step must cut out a tile the swizzled layout
/// can express on its own: any index of the dimensions in front of the last two
/// (whole tiles), and of the tile itself either whole swizzle chunks of every
/// row, or whole 8-row groups of a single chunk. Returns the bytes to add to
/// the view's strided start (where its memref descriptor points once lowered)
/// to reach its first element in the swizzled layout, or reports through
/// `emitError` which view breaks which rule.
FailureOr<int64_t>
getSwizzledViewCorrection(Value view,
                          function_ref<InFlightDiagnostic()> emitError);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_IR_SWIZZLEDVIEWS_H
