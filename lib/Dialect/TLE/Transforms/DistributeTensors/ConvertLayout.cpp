//===- ConvertLayout.cpp - tle.convert_layout -----------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A conversion that keeps every element in its thread moves nothing; any
// other goes through shared memory between two barriers of the partition:
// the author's scratch view, or a row-major buffer of the compiler's (rows
// padded by 16 bytes against bank conflicts).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::distribute;

namespace {
struct ConvertLayoutOpLowering : OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType from = op.getSource().getType();
    RankedTensorType to = op.getResult().getType();
    if (keepsEveryElementInPlace(from, to)) {
      rewriter.replaceOp(op, adaptor.getSource());
      return success();
    }
    Location loc = op.getLoc();
    // Decided before this op's own barrier exists, which would count.
    bool trailing = needsTrailingBarrier(op);
    Type element = from.getElementType();
    Value scratch = op.getScratch();
    if (scratch) {
      // The author's buffer: other accesses of it in the partition, before
      // or after, must not overlap the exchange.
      bool accessedElsewhere = !scratch.hasOneUse();
      if (accessedElsewhere)
        gpu::BarrierOp::create(rewriter, loc);
      trailing |= accessedElsewhere;
    } else {
      SmallVector<int64_t> shape(from.getShape());
      shape.back() += hopper::kMaxAccessBytes / getElementBytes(element);
      scratch = createScratch(rewriter, op, shape, element);
    }
    emitTileStore(rewriter, loc, adaptor.getSource(), from, scratch);
    gpu::BarrierOp::create(rewriter, loc);
    SmallVector<Value> elements = emitTileLoad(rewriter, loc, to, scratch);
    if (trailing)
      gpu::BarrierOp::create(rewriter, loc);
    rewriter.replaceOp(op, fromElements(rewriter, loc, element, elements));
    return success();
  }
};
} // namespace

void distribute::populateConvertLayoutPatterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<ConvertLayoutOpLowering>(converter, patterns.getContext());
}
