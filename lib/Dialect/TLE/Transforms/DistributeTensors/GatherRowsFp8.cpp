//===- GatherRowsFp8.cpp - tle.gather_rows_fp8 ----------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each thread takes one 16-byte piece of the cache's token (16 fp8
// columns, or 8 rope columns) in every row it handles: `perRow`
// consecutive threads split a row and the partition covers `rowStep` rows
// at once, as tle.gather_rows's tiled form does. A thread thus reads the
// same scale tile of every row, writes the same 16-byte units of every
// swizzle row (its destination bases are swizzled once), and each row
// costs an index shuffle, a compare, a select, one address, a predicated
// 16-byte load (and a 4-byte scale load), the conversion and its stores.
// A row whose id is out of range loads nothing and stores zeros.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "tle/Support/KVCacheFormat.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::distribute;

namespace v32 = ::tle::kv_cache::v32;

namespace {
/// What every load of one gather shares.
struct Fp8Gather {
  /// Whether the window holds fp8 columns (else bf16 rope columns).
  bool fp8;
  int64_t rows, threads, perRow, rowStep, swizzle;
  /// The destination's bytes from one row to the next within a
  /// 64-column chunk (the row-major row length without a swizzle).
  int64_t rowPitch;
  /// Per thread: the bytes of its piece and of its tile's scale within a
  /// token, each a thread's part plus a constant (the instruction's
  /// immediate: gathers of other windows share the thread's part), and
  /// its destination units' swizzled bases (two for fp8).
  Value pieceOffset, scaleOffset;
  int64_t pieceConstant = 0, scaleConstant = 0;
  SmallVector<Value, 2> destBases;
  Value sourceAddress, blockStride, tokenStride, tokenLimit;
  SmallVector<Value> rowIndices;
  Value policy;
  std::optional<uint64_t> prefetch;
  bool evict;
};
} // namespace

/// The 16 source bytes of a piece, and the bf16 columns they become.
static constexpr int64_t kPieceBytes = hopper::kMaxAccessBytes;
static int64_t pieceColumns(bool fp8) { return fp8 ? kPieceBytes : 8; }

/// A predicated `ld.global.nc` of `words` 32-bit words from `address` +
/// `offset` (an immediate): zeros where `valid` is false, and then nothing
/// is read.
static SmallVector<Value> emitLoad(OpBuilder &b, Location loc,
                                   const Fp8Gather &g, Value address,
                                   int64_t offset, Value valid, int words) {
  std::string hints = ".L1::no_allocate";
  if (g.evict)
    hints += ".L2::cache_hint";
  if (g.prefetch)
    hints += ".L2::" + std::to_string(*g.prefetch) + "B";
  std::string outs, zero;
  for (int w = 0; w < words; ++w) {
    outs += llvm::formatv("{0}${1}", w ? ", " : "", w);
    zero += llvm::formatv("mov.b32 ${0}, 0; ", w);
  }
  std::string vec = words > 1 ? ".v" + std::to_string(words) : "";
  std::string assembly = llvm::formatv(
      "{{ .reg .pred p; setp.ne.b32 p, ${0}, 0; {1}@p "
      "ld.global.nc{2}{3}.b32 {4}, [${5}+{6}]{7}; }",
      words, zero, hints, vec, words > 1 ? "{" + outs + "}" : outs, words + 1,
      offset, g.evict ? ", $" + std::to_string(words + 2) : "");
  std::string constraints;
  for (int w = 0; w < words; ++w)
    constraints += "=r,";
  constraints += "r,l";
  Type i32 = b.getI32Type();
  SmallVector<Value> operands{
      arith::ExtUIOp::create(b, loc, i32, valid).getResult(), address};
  if (g.evict) {
    operands.push_back(g.policy);
    constraints += ",l";
  }
  SmallVector<Type> types(words, i32);
  Type result =
      words > 1 ? LLVM::LLVMStructType::getLiteral(b.getContext(), types) : i32;
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, result, operands, assembly, constraints,
      /*has_side_effects=*/false, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
      ArrayAttr());
  if (words == 1)
    return {asmOp.getRes()};
  SmallVector<Value> loaded;
  for (int w = 0; w < words; ++w)
    loaded.push_back(
        LLVM::ExtractValueOp::create(b, loc, asmOp.getRes(), w).getResult());
  return loaded;
}

/// The two bf16x2 words of the fp8 pairs in the halves of `word`, times
/// `scales` (the row's scale in both halves of a bf16x2): e4m3x2 -> f16x2,
/// -> f32x2, -> bf16x2 (each exact), then one bf16x2 multiply. The format's
/// scales are powers of two, so the product is exact; it is also what
/// tle.sparse_mla.kv_cache.dequantize_rows computes for any scale (the
/// scale rounded to bf16, one rounding of the product). A multiply per two
/// values instead of one per value in f32 before the narrowing.
static SmallVector<Value> emitDequantize(OpBuilder &b, Location loc, Value word,
                                         Value scales) {
  Type i32 = b.getI32Type();
  auto halves = LLVM::InlineAsmOp::create(
      b, loc, LLVM::LLVMStructType::getLiteral(b.getContext(), {i32, i32}),
      ValueRange{word},
      "{ .reg .b16 l, h; mov.b32 {l, h}, $2; cvt.rn.f16x2.e4m3x2 $0, l; "
      "cvt.rn.f16x2.e4m3x2 $1, h; }",
      "=r,=r,r", /*has_side_effects=*/false, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
      ArrayAttr());
  auto f16x2 = VectorType::get({2}, b.getF16Type());
  auto f32x2 = VectorType::get({2}, b.getF32Type());
  auto bf16x2 = VectorType::get({2}, b.getBF16Type());
  SmallVector<Value> packed;
  for (int64_t h = 0; h < 2; ++h) {
    Value pair = LLVM::BitcastOp::create(
        b, loc, f16x2,
        LLVM::ExtractValueOp::create(b, loc, halves.getRes(), h));
    Value wide = LLVM::FPExtOp::create(b, loc, f32x2, pair);
    Value narrow = LLVM::FPTruncOp::create(b, loc, bf16x2, wide);
    Value scaled = LLVM::FMulOp::create(b, loc, narrow, scales);
    packed.push_back(LLVM::BitcastOp::create(b, loc, i32, scaled));
  }
  return packed;
}

/// The LLVM vector of `type` whose elements are `elements`.
static Value emitVector(OpBuilder &b, Location loc, VectorType type,
                        ArrayRef<Value> elements) {
  Value vector = LLVM::UndefOp::create(b, loc, type);
  for (auto [i, e] : llvm::enumerate(elements))
    vector = LLVM::InsertElementOp::create(
        b, loc, vector, e,
        LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                 b.getI32IntegerAttr(static_cast<int32_t>(i))));
  return vector;
}

/// `scale` (f32) rounded to bf16, in both halves of a bf16x2.
static Value emitBf16Splat(OpBuilder &b, Location loc, Value scale) {
  Value narrow = LLVM::FPTruncOp::create(b, loc, b.getBF16Type(), scale);
  return emitVector(b, loc, VectorType::get({2}, b.getBF16Type()),
                    {narrow, narrow});
}

/// A 16-byte generic store of four words to `dest` + `offset`.
static void emitStore(OpBuilder &b, Location loc, ArrayRef<Value> words,
                      Value dest, int64_t offset) {
  Value vector =
      emitVector(b, loc, VectorType::get({4}, b.getI32Type()), words);
  Value ptr = dest;
  if (offset != 0)
    ptr = LLVM::GEPOp::create(
        b, loc, dest.getType(), b.getI8Type(), dest,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(offset)});
  LLVM::StoreOp::create(b, loc, vector, ptr, /*alignment=*/kPieceBytes);
}

/// Row `firstRow + rowOffset` of the thread: its token's address (token 0's
/// when the id is out of range) and whether the id is in range.
static std::pair<Value, Value> emitTokenAddress(OpBuilder &b, Location loc,
                                                const Fp8Gather &g,
                                                Value firstRow,
                                                int64_t rowOffset) {
  auto index = [&](int64_t v) { return createIndex(b, loc, v); };
  // The row's register is a constant, its lane the thread's row.
  Value lane = arith::IndexCastOp::create(
      b, loc, b.getI32Type(),
      arith::AddIOp::create(b, loc, firstRow,
                            index(rowOffset % hopper::kWarpSize)));
  // Gathers of the same ids into a tile's other halves would share the
  // row's shuffle and address with this one (CSE) and keep them live in
  // between, which the gather's register budget cannot afford: the ids
  // pass through an opaque move, so that each gather forms its own.
  Value held =
      LLVM::InlineAsmOp::create(
          b, loc, b.getI32Type(),
          ValueRange{g.rowIndices[rowOffset / hopper::kWarpSize]},
          "mov.b32 $0, $1;", "=r,r", /*has_side_effects=*/true,
          /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
          LLVM::AsmDialectAttr(), ArrayAttr())
          .getRes();
  Value id = emitShuffledIndex(b, loc, held, lane);
  // Negative ids wrap to huge unsigned values: one compare.
  Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, id,
                                      g.tokenLimit);
  Value safe = arith::IndexCastUIOp::create(
      b, loc, b.getIndexType(),
      arith::SelectOp::create(b, loc, valid, id, createI32(b, loc, 0)));
  Value block = arith::DivUIOp::create(b, loc, safe,
                                       index(::tle::kv_cache::kBlockTokens));
  Value token = arith::RemUIOp::create(b, loc, safe,
                                       index(::tle::kv_cache::kBlockTokens));
  Value bytes = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, block, g.blockStride),
      arith::MulIOp::create(b, loc, token, g.tokenStride));
  Value address =
      getPointer(b, loc, g.sourceAddress, bytes, hopper::kGlobalAddressSpace);
  return {address, valid};
}

namespace {
struct GatherRowsFp8OpLowering : OpConversionPattern<GatherRowsFp8Op> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherRowsFp8Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<int64_t> threads = requirePartitionThreads(op);
    if (failed(threads))
      return failure();
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    auto index = [&](int64_t v) { return createIndex(b, loc, v); };
    MemRefType destType = op.getDestination().getType();
    Fp8Gather g;
    g.threads = *threads;
    g.fp8 = op.getFirstColumn() < v32::kFp8Columns;
    g.rows = destType.getDimSize(0);
    int64_t width = destType.getDimSize(1);
    g.perRow = width / pieceColumns(g.fp8);
    g.swizzle = getSwizzleBytes(destType);
    g.rowPitch = g.swizzle != 0 ? g.swizzle : width * 2;
    g.rowStep = g.threads / g.perRow;
    // Every row of a thread must share its swizzle pattern and its
    // index register.
    if (g.threads % g.perRow != 0 || g.rows % g.rowStep != 0 ||
        hopper::kWarpSize % g.rowStep != 0 ||
        (g.swizzle != 0 &&
         (g.rowStep * g.swizzle) % hopper::kSwizzledTileAlignment != 0))
      return op.emitOpError("cannot split ")
             << g.rows << " rows of " << g.perRow << " pieces over "
             << g.threads << " threads with the same swizzle row and index "
             << "register in every row of a thread";

    auto cache =
        memref::ExtractStridedMetadataOp::create(b, loc, op.getCache());
    g.blockStride = cache.getStrides()[0];
    g.tokenStride = cache.getStrides()[1];
    g.sourceAddress = getByteAddress(b, loc, op.getCache());
    // Ids are i32: a cache of 2^31 tokens or more compares as 2^31.
    Value tokens = arith::MinUIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, cache.getSizes()[0],
                              index(::tle::kv_cache::kBlockTokens)),
        index(int64_t{1} << 31));
    g.tokenLimit = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), tokens);
    g.rowIndices = extractElements(b, loc, adaptor.getIndices());
    g.prefetch = op.getL2Prefetch();
    g.evict = op.getEviction().has_value();
    if (g.evict)
      g.policy = emitCachePolicy(b, loc, *op.getEviction());

    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value column = arith::RemUIOp::create(b, loc, tid, index(g.perRow));
    Value firstRow = arith::DivUIOp::create(b, loc, tid, index(g.perRow));
    int64_t first = op.getFirstColumn();
    Value destAddress = getByteAddress(b, loc, op.getDestination());
    int64_t columns = pieceColumns(g.fp8);
    Value destColumn = arith::MulIOp::create(b, loc, column, index(columns));
    for (int64_t unit = 0; unit < columns / 8; ++unit) {
      Value col = arith::AddIOp::create(b, loc, destColumn, index(8 * unit));
      Value offset =
          g.swizzle != 0
              ? emitSwizzledLinearOffset(b, loc, firstRow, col, g.rows,
                                         g.swizzle, 2)
              : arith::AddIOp::create(
                    b, loc,
                    arith::MulIOp::create(b, loc, firstRow, index(g.rowPitch)),
                    arith::MulIOp::create(b, loc, col, index(2)));
      g.destBases.push_back(getPointer(b, loc, destAddress, offset,
                                       hopper::kSharedAddressSpace, g.swizzle));
    }
    // The piece's bytes within a token: the fp8 columns are bytes 0..511,
    // the rope columns bf16 after the scales. Whole tiles of the window's
    // start go to the constants, so that the thread's parts depend on the
    // window only through its start within a tile.
    int64_t tileBytes = g.fp8 ? v32::kTileColumns : 0;
    int64_t inTile = g.fp8 ? first % tileBytes : 0;
    g.pieceConstant = g.fp8 ? first - inTile
                            : v32::kRopeOffset + (first - v32::kFp8Columns) * 2;
    g.pieceOffset = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, column, index(kPieceBytes)),
        index(inTile));
    if (g.fp8) {
      g.scaleOffset = arith::MulIOp::create(
          b, loc,
          arith::DivUIOp::create(b, loc, g.pieceOffset, index(tileBytes)),
          index(v32::kScaleBytes));
      g.scaleConstant =
          v32::kScaleOffset + (first - inTile) / tileBytes * v32::kScaleBytes;
    }

    for (int64_t k = 0; k < g.rows / g.rowStep; ++k) {
      int64_t rowOffset = k * g.rowStep;
      auto [token, valid] = emitTokenAddress(b, loc, g, firstRow, rowOffset);
      Type ptrType = token.getType();
      auto at = [&](Value offset) -> Value {
        return LLVM::GEPOp::create(
            b, loc, ptrType, b.getI8Type(), token,
            ArrayRef<LLVM::GEPArg>{
                arith::IndexCastOp::create(b, loc, b.getI64Type(), offset)
                    .getResult()});
      };
      SmallVector<Value> words =
          emitLoad(b, loc, g, at(g.pieceOffset), g.pieceConstant, valid, 4);
      int64_t rowBytes = rowOffset * g.rowPitch;
      if (!g.fp8) {
        emitStore(b, loc, words, g.destBases[0], rowBytes);
        continue;
      }
      Value scale = emitBf16Splat(
          b, loc,
          LLVM::BitcastOp::create(b, loc, b.getF32Type(),
                                  emitLoad(b, loc, g, at(g.scaleOffset),
                                           g.scaleConstant, valid, 1)[0]));
      for (int64_t unit = 0; unit < 2; ++unit) {
        SmallVector<Value> out;
        for (int64_t w = 0; w < 2; ++w)
          llvm::append_range(
              out, emitDequantize(b, loc, words[2 * unit + w], scale));
        emitStore(b, loc, out, g.destBases[unit], rowBytes);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void distribute::populateGatherRowsFp8Patterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<GatherRowsFp8OpLowering>(converter, patterns.getContext());
}
