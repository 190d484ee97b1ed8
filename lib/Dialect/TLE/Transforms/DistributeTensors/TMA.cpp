//===- TMA.cpp - tle.tma_load and tle.tma_store before their lowering -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The TMA copies are lowered by convert-tle-to-nvvm, after subviews have
// been expanded into row-major offsets, so a view of a swizzled tile would
// lose where it starts. Here, while the chain of views is still there, such
// a tile becomes a memref.reinterpret_cast whose offset is the view's
// swizzled start; the copy's lowering adds that offset to the buffer's
// address, and the view's shape tells it where each box goes.
//
// tle.tma_store is also expanded into what the partition does around the
// copies: every thread fences its shared-memory writes for the async proxy,
// the partition meets (gpu.barrier, its named barrier once warp
// specialization is lowered), thread 0 runs the `issued` form (the copies
// and the wait for them to have read the tile) and the partition meets
// again before anyone may write the tile.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "tle/Dialect/TLE/IR/SwizzledViews.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::distribute;

/// Bytes from `tile`'s strided start to its swizzled one (the op's
/// verifier checked the view).
static int64_t getCorrection(Operation *op, Value tile) {
  if (getSwizzleBytes(cast<MemRefType>(tile.getType())) == 0)
    return 0;
  return getSwizzledViewCorrection(tile, [&] { return op->emitOpError(); })
      .value_or(0);
}

bool distribute::isLegalTMALoad(TMALoadOp op) {
  return getCorrection(op, op.getDestination()) == 0;
}

bool distribute::isLegalTMAStore(TMAStoreOp op) { return op.getIssued(); }

/// `tile` as a reinterpret_cast that starts `bytes` further on.
static Value moveStart(OpBuilder &b, Location loc, Value tile, int64_t bytes) {
  auto type = cast<MemRefType>(tile.getType());
  int64_t elements = bytes / getElementBytes(type.getElementType());
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, tile);
  Value offset = arith::AddIOp::create(b, loc, metadata.getOffset(),
                                       createIndex(b, loc, elements));
  auto [strides, unusedOffset] = type.getStridesAndOffset();
  auto movedType = MemRefType::get(
      type.getShape(), type.getElementType(),
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, strides),
      type.getMemorySpace());
  SmallVector<OpFoldResult> sizes, strideValues;
  for (auto [size, stride] : llvm::zip(type.getShape(), strides)) {
    sizes.push_back(b.getIndexAttr(size));
    strideValues.push_back(b.getIndexAttr(stride));
  }
  return memref::ReinterpretCastOp::create(b, loc, movedType, tile, offset,
                                           sizes, strideValues);
}

namespace {
struct TMALoadOpDestination : OpConversionPattern<TMALoadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TMALoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value moved = moveStart(rewriter, op.getLoc(), op.getDestination(),
                            getCorrection(op, op.getDestination()));
    rewriter.modifyOpInPlace(op,
                             [&] { op.getDestinationMutable().assign(moved); });
    return success();
  }
};

struct TMAStoreOpExpansion : OpConversionPattern<TMAStoreOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TMAStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value source = op.getSource();
    if (int64_t bytes = getCorrection(op, source))
      source = moveStart(rewriter, loc, source, bytes);
    // The partition's ordinary stores to the tile, then the copies that
    // read it through the async proxy.
    NVVM::FenceProxyOp::create(
        rewriter, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    gpu::BarrierOp::create(rewriter, loc);
    Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        tid, createIndex(rewriter, loc, 0));
    auto issue = scf::IfOp::create(rewriter, loc, first);
    rewriter.setInsertionPointToStart(issue.thenBlock());
    TMAStoreOp::create(rewriter, loc, op.getTensorMap(), op.getCoordinates(),
                       source, /*issued=*/true);
    rewriter.setInsertionPointAfter(issue);
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void distribute::populateTMAPatterns(const TypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<TMALoadOpDestination, TMAStoreOpExpansion>(
      converter, patterns.getContext());
}
