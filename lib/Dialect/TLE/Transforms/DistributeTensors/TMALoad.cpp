//===- TMALoad.cpp - The destination of tle.tma_load in a swizzled view ---===//
//
// tle.tma_load is lowered by convert-tle-to-nvvm, after subviews have been
// expanded into row-major offsets, so a view of a swizzled tile would lose
// where it starts. Here, while the chain of views is still there, such a
// destination becomes a memref.reinterpret_cast whose offset is the view's
// swizzled start; the copy's lowering adds that offset to the buffer's
// address, and the view's shape tells it where each box goes.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "tle/Dialect/TLE/IR/SwizzledViews.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::distribute;

/// Bytes from the destination's strided start to its swizzled one (the
/// verifier checked the view).
static int64_t getCorrection(TMALoadOp op) {
  Value dest = op.getDestination();
  if (getSwizzleBytes(cast<MemRefType>(dest.getType())) == 0)
    return 0;
  return getSwizzledViewCorrection(dest, [&] { return op.emitOpError(); })
      .value_or(0);
}

bool distribute::isLegalTMALoad(TMALoadOp op) { return getCorrection(op) == 0; }

namespace {
struct TMALoadOpDestination : OpConversionPattern<TMALoadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TMALoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dest = op.getDestination();
    auto type = cast<MemRefType>(dest.getType());
    int64_t elements =
        getCorrection(op) / getElementBytes(type.getElementType());
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, dest);
    Value offset = arith::AddIOp::create(rewriter, loc, metadata.getOffset(),
                                         createIndex(rewriter, loc, elements));
    auto [strides, unusedOffset] = type.getStridesAndOffset();
    auto movedType =
        MemRefType::get(type.getShape(), type.getElementType(),
                        StridedLayoutAttr::get(rewriter.getContext(),
                                               ShapedType::kDynamic, strides),
                        type.getMemorySpace());
    SmallVector<OpFoldResult> sizes, strideValues;
    for (auto [size, stride] : llvm::zip(type.getShape(), strides)) {
      sizes.push_back(rewriter.getIndexAttr(size));
      strideValues.push_back(rewriter.getIndexAttr(stride));
    }
    Value moved = memref::ReinterpretCastOp::create(
        rewriter, loc, movedType, dest, offset, sizes, strideValues);
    rewriter.modifyOpInPlace(op,
                             [&] { op.getDestinationMutable().assign(moved); });
    return success();
  }
};
} // namespace

void distribute::populateTMALoadPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<TMALoadOpDestination>(converter, patterns.getContext());
}
