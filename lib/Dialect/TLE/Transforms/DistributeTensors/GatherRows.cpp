//===- GatherRows.cpp - tle.gather_rows -----------------------------------===//
//
// Each thread copies 16-byte pieces of rows with cp.async, consecutive
// threads taking consecutive pieces of a row, so that a warp reads 512
// contiguous bytes. A row whose index is out of range is zero-filled
// (source size 0) from row 0's address, so that the index never forms an
// address.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::distribute;

namespace {
/// What every round of one gather shares.
struct Gather {
  int64_t elementBytes, rows, piecesPerRow, pieces, swizzle, threads;
  /// The destination's row-major row length (no swizzle).
  int64_t columns;
  Value sourceRows, rowStride, sourceAddress, destAddress, tid, zero;
  /// With `rows(...)`: each warp's copy of the indices, lane l of register
  /// g holding row 32 g + l; with `from`, empty and `first` set.
  SmallVector<Value> rowIndices;
  Value first;
};
} // namespace

/// Each warp loads the destination's indices once, 32 rows per register
/// (lane l holds rows l, l + 32, ...), and every round takes the index of
/// its row by a shuffle: a load per round would put a memory latency on
/// each round's critical path.
static SmallVector<Value> loadRowIndices(OpBuilder &b, Location loc,
                                         GatherRowsOp op, Value indices,
                                         const Gather &g) {
  Value lane = arith::RemUIOp::create(b, loc, g.tid,
                                      createIndex(b, loc, hopper::kWarpSize));
  SmallVector<Value> rowIndices;
  if (!indices)
    return rowIndices;
  // Already in registers, lane l holding rows l, l + 32, ...
  if (isa<RankedTensorType>(op.getIndices().getType()))
    return extractElements(b, loc, indices);
  for (int64_t base = 0; base < g.rows; base += hopper::kWarpSize) {
    // Lanes past the last row reload the last row's index.
    Value r = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, lane, createIndex(b, loc, base)),
        createIndex(b, loc, g.rows - 1));
    rowIndices.push_back(memref::LoadOp::create(b, loc, indices, r));
  }
  return rowIndices;
}

/// The source row of destination row `row`: its index, taken from the lane
/// of its warp that holds it, or `first` + `row`.
static Value emitSourceRow(OpBuilder &b, Location loc, const Gather &g,
                           Value row) {
  if (g.rowIndices.empty())
    return arith::AddIOp::create(b, loc, g.first, row);
  // Every lane shuffles, also those without a piece this round.
  Type i32 = b.getI32Type();
  Value fromLane = arith::IndexCastOp::create(
      b, loc, i32,
      arith::RemUIOp::create(b, loc, row,
                             createIndex(b, loc, hopper::kWarpSize)));
  Value width = createI32(b, loc, hopper::kWarpSize);
  Value group = arith::DivUIOp::create(b, loc, row,
                                       createIndex(b, loc, hopper::kWarpSize));
  Value index;
  for (auto [i, held] : llvm::enumerate(g.rowIndices)) {
    Value shuffled =
        gpu::ShuffleOp::create(
            b, loc, i32, b.getI1Type(), held, fromLane, width,
            gpu::ShuffleModeAttr::get(b.getContext(), gpu::ShuffleMode::IDX))
            .getShuffleResult();
    if (!index) {
      index = shuffled;
      continue;
    }
    Value isGroup = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          group, createIndex(b, loc, i));
    index = arith::SelectOp::create(b, loc, isGroup, shuffled, index);
  }
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
}

/// The cp.async of piece `piece` of the destination (row-major over its
/// rows' 16-byte pieces).
static void emitPieceCopy(OpBuilder &b, Location loc, const Gather &g,
                          Value piece) {
  Value row = arith::DivUIOp::create(b, loc, piece,
                                     createIndex(b, loc, g.piecesPerRow));
  Value column = arith::MulIOp::create(
      b, loc,
      arith::RemUIOp::create(b, loc, piece,
                             createIndex(b, loc, g.piecesPerRow)),
      createIndex(b, loc, hopper::kMaxAccessBytes / g.elementBytes));
  Value sourceRow = emitSourceRow(b, loc, g, row);
  // The last round may leave some threads without a piece.
  if (g.pieces % g.threads != 0) {
    Value has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, piece,
                                      createIndex(b, loc, g.pieces));
    auto guard = scf::IfOp::create(b, loc, has);
    b.setInsertionPointToStart(guard.thenBlock());
  }
  // An index outside [0, R) (negative ones wrap to huge unsigned values)
  // copies nothing and zero-fills; the address it would have formed is
  // replaced by row 0's.
  Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                      sourceRow, g.sourceRows);
  Value safeRow = arith::SelectOp::create(b, loc, valid, sourceRow, g.zero);
  Value sourceOffset = arith::MulIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, safeRow, g.rowStride), column),
      createIndex(b, loc, g.elementBytes));
  Value src = getPointer(b, loc, g.sourceAddress, sourceOffset,
                         hopper::kGlobalAddressSpace);
  Value destOffset;
  if (g.swizzle != 0) {
    destOffset = emitSwizzledLinearOffset(b, loc, row, column, g.rows,
                                          g.swizzle, g.elementBytes);
  } else {
    destOffset = arith::MulIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, row, createIndex(b, loc, g.columns)),
            column),
        createIndex(b, loc, g.elementBytes));
  }
  Value dest = getPointer(b, loc, g.destAddress, destOffset,
                          hopper::kSharedAddressSpace, g.swizzle);
  Value bytes = arith::SelectOp::create(
      b, loc, valid, createI32(b, loc, hopper::kMaxAccessBytes),
      createI32(b, loc, 0));
  NVVM::CpAsyncOp::create(b, loc, dest, src,
                          b.getI32IntegerAttr(hopper::kMaxAccessBytes),
                          NVVM::LoadCacheModifierKindAttr::get(
                              b.getContext(), NVVM::LoadCacheModifierKind::CG),
                          bytes);
}

namespace {
struct GatherRowsOpLowering : OpConversionPattern<GatherRowsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<int64_t> threads = getPartitionThreads(op);
    if (failed(threads))
      return op.emitOpError("must run in a partition of a tle.warp_specialize");
    Location loc = op.getLoc();
    MemRefType destType = op.getDestination().getType();
    Gather g;
    g.threads = *threads;
    g.elementBytes = getElementBytes(destType.getElementType());
    g.rows = destType.getDimSize(0);
    g.columns = destType.getDimSize(1);
    g.piecesPerRow = g.columns * g.elementBytes / hopper::kMaxAccessBytes;
    g.pieces = g.rows * g.piecesPerRow;
    g.swizzle = getSwizzleBytes(destType);
    auto source =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSource());
    g.sourceRows = source.getSizes()[0];
    g.rowStride = source.getStrides()[0];
    g.sourceAddress = getByteAddress(rewriter, loc, op.getSource());
    g.destAddress = getByteAddress(rewriter, loc, op.getDestination());
    g.tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    g.zero = createIndex(rewriter, loc, 0);
    g.rowIndices = loadRowIndices(rewriter, loc, op, adaptor.getIndices(), g);
    g.first = adaptor.getFirst();

    // A loop over rounds, not an unrolled sequence: unrolled, the work of
    // every round would be hoisted and stay live at once.
    int64_t rounds = llvm::divideCeil(g.pieces, g.threads);
    auto loop = scf::ForOp::create(rewriter, loc, g.zero,
                                   createIndex(rewriter, loc, rounds),
                                   createIndex(rewriter, loc, 1));
    rewriter.setInsertionPointToStart(loop.getBody());
    Value piece = arith::AddIOp::create(
        rewriter, loc, g.tid,
        arith::MulIOp::create(rewriter, loc, loop.getInductionVar(),
                              createIndex(rewriter, loc, g.threads)));
    emitPieceCopy(rewriter, loc, g, piece);
    rewriter.setInsertionPointAfter(loop);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void distribute::populateGatherRowsPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<GatherRowsOpLowering>(converter, patterns.getContext());
}
