//===- GatherRows.cpp - tle.gather_rows -----------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each thread copies 16-byte pieces of rows with cp.async. Where the shape
// allows, the copies are tiled so that every address is a per-thread base
// plus a constant: a thread forms one source address per row and one
// swizzled destination base per gather, and each piece is an immediate
// offset from them. Other shapes take rounds of one piece per thread. A
// row whose index is out of range is zero-filled (source size 0) from row
// 0's address, so that the index never forms an address.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::distribute;

namespace {
/// The L2 hints of one gather's copies, and the cache policy operand that
/// an eviction priority needs (created once per gather).
struct CopyHints {
  std::optional<uint64_t> prefetch;
  std::optional<EvictionPolicy> eviction;
  Value policy;
};

/// What every copy of one gather shares.
struct Gather {
  int64_t elementBytes, rows, piecesPerRow, pieces, swizzle, threads;
  /// The destination's row-major row length (no swizzle).
  int64_t columns;
  Value sourceRows, rowStride, sourceAddress, destAddress, tid, zero;
  /// With `rows(...)`: min(sourceRows, 2^31) as an i32, the bound an i32
  /// index is compared with, unsigned (negative indices wrap past it).
  Value rowLimit;
  /// With `rows(...)`: each warp's copy of the indices, lane l of register
  /// g holding row 32 g + l; with `from`, empty and `first` set.
  SmallVector<Value> rowIndices;
  Value first;
  CopyHints hints;
};

/// How the threads split a gather so that every address is a per-thread
/// base plus a constant: `perRow` consecutive threads take a row's 16-byte
/// pieces round robin, and the partition covers `rowStep` rows at once. A
/// thread then writes the same 16-byte unit of every swizzle row it
/// touches, and rows `rowStep` apart share their swizzle pattern.
struct GatherTiling {
  int64_t perRow, rowStep;
};
} // namespace

/// A swizzle pattern repeats every 1024 bytes (8 rows of 128 bytes).
static constexpr int64_t kSwizzleAtomBytes = hopper::kSwizzledTileAlignment;
/// The bytes of one cp.async piece.
static constexpr int64_t kPieceBytes = hopper::kMaxAccessBytes;

/// A warp's copies of one row should cover whole 128-byte lines.
static constexpr int64_t kLineBytes = 128;

/// The split with the fewest rows per thread whose copies of a row are
/// whole lines: each row of a thread costs an index shuffle, a compare, a
/// select and an address, each piece only its cp.async. Narrower splits
/// (fewer than a line of a row per warp instruction) come last.
static std::optional<GatherTiling> planTiling(const Gather &g,
                                              bool indicesInRegisters) {
  int64_t units = g.swizzle / kPieceBytes;
  auto tiling = [&](int64_t perRow) -> std::optional<GatherTiling> {
    int64_t rowStep = g.threads / perRow;
    if (g.threads % perRow != 0 || g.piecesPerRow % perRow != 0 ||
        g.rows % rowStep != 0)
      return std::nullopt;
    // Every constant added to the swizzled base must be whole atoms.
    if (g.swizzle != 0 && (perRow % units != 0 ||
                           (rowStep * g.swizzle) % kSwizzleAtomBytes != 0 ||
                           (g.rows * g.swizzle) % kSwizzleAtomBytes != 0))
      return std::nullopt;
    // A row's index is then in a register whose number is a constant.
    if (indicesInRegisters && hopper::kWarpSize % rowStep != 0)
      return std::nullopt;
    return GatherTiling{perRow, rowStep};
  };
  int64_t widest = std::min(g.threads, g.piecesPerRow);
  int64_t line = kLineBytes / kPieceBytes;
  for (int64_t perRow = line; perRow <= widest; perRow *= 2)
    if (std::optional<GatherTiling> t = tiling(perRow))
      return t;
  for (int64_t perRow =
           llvm::bit_floor(static_cast<uint64_t>(std::min(line / 2, widest)));
       perRow >= 1; perRow /= 2)
    if (std::optional<GatherTiling> t = tiling(perRow))
      return t;
  return std::nullopt;
}

Value distribute::emitCachePolicy(OpBuilder &b, Location loc,
                                  EvictionPolicy eviction) {
  std::string assembly =
      ("createpolicy.fractional.L2::" + stringifyEvictionPolicy(eviction) +
       ".b64 $0, 1.0;")
          .str();
  return LLVM::InlineAsmOp::create(
             b, loc, b.getI64Type(), ValueRange(), assembly, "=l",
             /*has_side_effects=*/false, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
             ArrayAttr())
      .getRes();
}

/// One 16-byte cp.async from `src` + `srcOffset` to `dest` + `destOffset`
/// (constant byte offsets), reading `bytes` of it (0: zero-fill). The
/// offsets become the instruction's immediates.
static void emitCopy(OpBuilder &b, Location loc, const CopyHints &hints,
                     Value dest, int64_t destOffset, Value src,
                     int64_t srcOffset, Value bytes) {
  if (!hints.prefetch && !hints.eviction) {
    Type i8 = b.getI8Type();
    auto offset = [&](Value ptr, int64_t bytes) -> Value {
      if (bytes == 0)
        return ptr;
      return LLVM::GEPOp::create(
          b, loc, ptr.getType(), i8, ptr,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(bytes)});
    };
    NVVM::CpAsyncOp::create(
        b, loc, offset(dest, destOffset), offset(src, srcOffset),
        b.getI32IntegerAttr(kPieceBytes),
        NVVM::LoadCacheModifierKindAttr::get(b.getContext(),
                                             NVVM::LoadCacheModifierKind::CG),
        bytes);
    return;
  }
  // NVVM's cp.async has no cache hints: the instruction is written out.
  std::string modifiers;
  if (hints.eviction)
    modifiers += ".L2::cache_hint";
  if (hints.prefetch)
    modifiers += ".L2::" + std::to_string(*hints.prefetch) + "B";
  std::string assembly = llvm::formatv(
      "cp.async.cg.shared.global{0} [$0+{1}], [$1+{2}], 16, $2{3};", modifiers,
      destOffset, srcOffset, hints.eviction ? ", $3" : "");
  SmallVector<Value> operands{dest, src, bytes};
  std::string constraints = "l,l,r";
  if (hints.eviction) {
    operands.push_back(hints.policy);
    constraints += ",l";
  }
  LLVM::InlineAsmOp::create(b, loc, TypeRange(), operands, assembly,
                            constraints, /*has_side_effects=*/true,
                            /*is_align_stack=*/false,
                            LLVM::tailcallkind::TailCallKind::None,
                            LLVM::AsmDialectAttr(), ArrayAttr());
}

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

Value distribute::emitShuffledIndex(OpBuilder &b, Location loc, Value held,
                                    Value lane) {
  Type i32 = b.getI32Type();
  return gpu::ShuffleOp::create(
             b, loc, i32, b.getI1Type(), held, lane,
             createI32(b, loc, hopper::kWarpSize),
             gpu::ShuffleModeAttr::get(b.getContext(), gpu::ShuffleMode::IDX))
      .getShuffleResult();
}

/// The source row of destination row `row`: its index (an i32), taken from
/// the lane of its warp that holds it, or `first` + `row` (an index).
static Value emitSourceRow(OpBuilder &b, Location loc, const Gather &g,
                           Value row) {
  if (g.rowIndices.empty())
    return arith::AddIOp::create(b, loc, g.first, row);
  // Every lane shuffles, also those without a piece this round.
  Value fromLane = arith::IndexCastOp::create(
      b, loc, b.getI32Type(),
      arith::RemUIOp::create(b, loc, row,
                             createIndex(b, loc, hopper::kWarpSize)));
  Value group = arith::DivUIOp::create(b, loc, row,
                                       createIndex(b, loc, hopper::kWarpSize));
  Value index;
  for (auto [i, held] : llvm::enumerate(g.rowIndices)) {
    Value shuffled = emitShuffledIndex(b, loc, held, fromLane);
    if (!index) {
      index = shuffled;
      continue;
    }
    Value isGroup = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          group, createIndex(b, loc, i));
    index = arith::SelectOp::create(b, loc, isGroup, shuffled, index);
  }
  return index;
}

/// A pointer to source row `sourceRow` plus `columnBytes`, row 0's when
/// the index is out of range, and the bytes to read from it (16 or 0).
/// An i32 index (rows(...)) is checked and replaced in 32 bits and only
/// then widened, as the non-negative row it now is: one compare and one
/// select per row, and a 32 x 32 -> 64-bit multiply-add for the address.
static std::pair<Value, Value> emitSourcePiece(OpBuilder &b, Location loc,
                                               const Gather &g, Value sourceRow,
                                               Value columnBytes) {
  // Negative indices wrap to huge unsigned values: one compare.
  Value valid, safeRow;
  if (sourceRow.getType().isInteger(32)) {
    valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, sourceRow,
                                  g.rowLimit);
    safeRow = arith::IndexCastUIOp::create(
        b, loc, b.getIndexType(),
        arith::SelectOp::create(b, loc, valid, sourceRow,
                                createI32(b, loc, 0)));
  } else {
    valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, sourceRow,
                                  g.sourceRows);
    safeRow = arith::SelectOp::create(b, loc, valid, sourceRow, g.zero);
  }
  Value rowBytes = arith::MulIOp::create(
      b, loc, arith::MulIOp::create(b, loc, safeRow, g.rowStride),
      createIndex(b, loc, g.elementBytes));
  Value src = getPointer(b, loc, g.sourceAddress,
                         arith::AddIOp::create(b, loc, rowBytes, columnBytes),
                         hopper::kGlobalAddressSpace);
  Value bytes = arith::SelectOp::create(
      b, loc, valid, createI32(b, loc, kPieceBytes), createI32(b, loc, 0));
  return {src, bytes};
}

/// The copies of `tiling`, unrolled: a thread forms its swizzled
/// destination base once and one source address per row, and every piece
/// adds constants to both.
static void emitTiledCopies(OpBuilder &b, Location loc, const Gather &g,
                            GatherTiling tiling) {
  auto index = [&](int64_t v) { return createIndex(b, loc, v); };
  auto [perRow, rowStep] = tiling;
  int64_t units = g.swizzle / kPieceBytes;
  int64_t rowBytes = g.columns * g.elementBytes;
  Value column = arith::RemUIOp::create(b, loc, g.tid, index(perRow));
  Value firstRow = arith::DivUIOp::create(b, loc, g.tid, index(perRow));
  Value columnBytes = arith::MulIOp::create(b, loc, column, index(kPieceBytes));
  Value destOffset;
  if (g.swizzle != 0) {
    // Chunk, row within it, 16-byte unit within the row.
    Value chunk = arith::DivUIOp::create(b, loc, column, index(units));
    Value unit = arith::RemUIOp::create(b, loc, column, index(units));
    destOffset = arith::AddIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, chunk, index(g.rows * g.swizzle)),
            arith::MulIOp::create(b, loc, firstRow, index(g.swizzle))),
        arith::MulIOp::create(b, loc, unit, index(kPieceBytes)));
  } else {
    destOffset = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, firstRow, index(rowBytes)),
        columnBytes);
  }
  Value dest =
      getAsyncCopyDestination(b, loc, g.destAddress, destOffset, g.swizzle);
  for (int64_t k = 0; k < g.rows / rowStep; ++k) {
    int64_t rowOffset = k * rowStep;
    Value sourceRow;
    if (g.rowIndices.empty()) {
      sourceRow = arith::AddIOp::create(
          b, loc, g.first,
          arith::AddIOp::create(b, loc, firstRow, index(rowOffset)));
    } else {
      // The row's register is a constant, its lane the thread's row.
      Value lane = arith::IndexCastOp::create(
          b, loc, b.getI32Type(),
          arith::AddIOp::create(b, loc, firstRow,
                                index(rowOffset % hopper::kWarpSize)));
      sourceRow = emitShuffledIndex(
          b, loc, g.rowIndices[rowOffset / hopper::kWarpSize], lane);
    }
    auto [src, bytes] = emitSourcePiece(b, loc, g, sourceRow, columnBytes);
    int64_t rowConstant = rowOffset * (g.swizzle != 0 ? g.swizzle : rowBytes);
    for (int64_t j = 0; j < g.piecesPerRow / perRow; ++j) {
      int64_t pieceConstant = g.swizzle != 0
                                  ? j * (perRow / units) * g.rows * g.swizzle
                                  : j * perRow * kPieceBytes;
      emitCopy(b, loc, g.hints, dest, rowConstant + pieceConstant, src,
               j * perRow * kPieceBytes, bytes);
    }
  }
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
      createIndex(b, loc, kPieceBytes / g.elementBytes));
  Value sourceRow = emitSourceRow(b, loc, g, row);
  // The last round may leave some threads without a piece.
  if (g.pieces % g.threads != 0) {
    Value has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, piece,
                                      createIndex(b, loc, g.pieces));
    auto guard = scf::IfOp::create(b, loc, has);
    b.setInsertionPointToStart(guard.thenBlock());
  }
  auto [src, bytes] =
      emitSourcePiece(b, loc, g, sourceRow,
                      arith::MulIOp::create(
                          b, loc, column, createIndex(b, loc, g.elementBytes)));
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
  Value dest =
      getAsyncCopyDestination(b, loc, g.destAddress, destOffset, g.swizzle);
  emitCopy(b, loc, g.hints, dest, 0, src, 0, bytes);
}

namespace {
struct GatherRowsOpLowering : OpConversionPattern<GatherRowsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<int64_t> threads = requirePartitionThreads(op);
    if (failed(threads))
      return failure();
    Location loc = op.getLoc();
    MemRefType destType = op.getDestination().getType();
    Gather g;
    g.threads = *threads;
    g.elementBytes = getElementBytes(destType.getElementType());
    g.rows = destType.getDimSize(0);
    g.columns = destType.getDimSize(1);
    g.piecesPerRow = g.columns * g.elementBytes / kPieceBytes;
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
    if (!g.rowIndices.empty()) {
      // Every i32 index is below 2^31: a larger source compares as 2^31.
      Value limit =
          arith::MinUIOp::create(rewriter, loc, g.sourceRows,
                                 createIndex(rewriter, loc, int64_t{1} << 31));
      g.rowLimit = arith::IndexCastUIOp::create(rewriter, loc,
                                                rewriter.getI32Type(), limit);
    }
    g.first = adaptor.getFirst();
    g.hints.prefetch = op.getL2Prefetch();
    g.hints.eviction = op.getEviction();
    if (g.hints.eviction)
      g.hints.policy = emitCachePolicy(rewriter, loc, *g.hints.eviction);

    if (std::optional<GatherTiling> tiling =
            planTiling(g, /*indicesInRegisters=*/!g.rowIndices.empty())) {
      emitTiledCopies(rewriter, loc, g, *tiling);
      rewriter.eraseOp(op);
      return success();
    }

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
