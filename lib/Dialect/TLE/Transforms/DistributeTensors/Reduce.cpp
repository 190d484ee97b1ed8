//===- Reduce.cpp - tle.reduce, tle.broadcast and tle.scale ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A reduction folds the thread's elements of each row (or column), then
// combines with the lanes that share the row by XOR shuffles and, where
// warps or warp groups share it, through a scratch buffer; one into a 2-D
// tensor stops after the fold, each thread keeping its partial results. A
// broadcast is its inverse shape and moves no data: every thread already holds
// the row's value. A scale multiplies by a broadcast, unless no factor the warp
// holds differs from 1.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::distribute;

static Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value lhs,
                     Value rhs) {
  if (kind == ReduceKind::Max)
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  return arith::AddFOp::create(b, loc, lhs, rhs);
}

/// The register of a row (or column) vector in `vectorMap` that holds the
/// element at `offset` from the base, the offset along the kept dimension
/// of a 2-D tile's element.
static int64_t getVectorRegister(const ThreadMap &vectorMap, int64_t offset) {
  return llvm::find_if(vectorMap.offsets,
                       [&](ArrayRef<int64_t> o) { return o[0] == offset; }) -
         vectorMap.offsets.begin();
}

/// For each register of a thread's elements of `matrix`, the register of
/// `vector`, its row (kept = 0) or column (kept = 1) vector, that holds
/// the element's row or column.
static SmallVector<int64_t> getBroadcastMask(RankedTensorType vector,
                                             RankedTensorType matrix,
                                             unsigned kept) {
  ThreadMap vectorMap = getThreadMap(vector);
  ThreadMap matrixMap = getThreadMap(matrix);
  SmallVector<int64_t> mask;
  for (ArrayRef<int64_t> offset : matrixMap.offsets)
    mask.push_back(getVectorRegister(vectorMap, offset[kept]));
  return mask;
}

/// The thread's row of the scratch buffer: the mixed-radix number of its
/// warp digits.
static Value emitWarpSlot(OpBuilder &b, Location loc,
                          ArrayRef<IndexTerm> warpTerms) {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value slot = createIndex(b, loc, 0);
  int64_t radix = 1;
  for (const IndexTerm &term : warpTerms) {
    Value digit = arith::RemUIOp::create(
        b, loc,
        arith::DivUIOp::create(b, loc, tid, createIndex(b, loc, term.div)),
        createIndex(b, loc, term.mod));
    slot = arith::AddIOp::create(
        b, loc, slot,
        arith::MulIOp::create(b, loc, digit, createIndex(b, loc, radix)));
    radix *= term.mod;
  }
  return slot;
}

namespace {
struct ReduceOpLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getResult().getType().getRank() == 2)
      return foldInThread(op, adaptor, rewriter);
    Location loc = op.getLoc();
    unsigned dim = op.getDim(), kept = 1 - dim;
    ThreadMap source = getThreadMap(op.getSource().getType());
    ThreadMap result = getThreadMap(op.getResult().getType());
    // Threads that differ only in the reduced dimension's lane bits hold
    // the other parts of a row; other warps or warp groups would need
    // shared memory.
    SmallVector<int64_t> laneMasks;
    SmallVector<IndexTerm> warpTerms;
    for (const IndexTerm &term : source.base[dim]) {
      if (term.mod == 1)
        continue;
      if (term.div >= hopper::kWarpSize) {
        warpTerms.push_back(term);
        continue;
      }
      for (int64_t bit = 1; bit < term.mod; bit *= 2)
        laneMasks.push_back(term.div * bit);
    }

    SmallVector<Value> elements =
        extractElements(rewriter, loc, adaptor.getSource());
    SmallVector<Value> partial(result.getElementsPerThread());
    for (auto [i, offset] : llvm::enumerate(source.offsets)) {
      int64_t slot = getVectorRegister(result, offset[kept]);
      partial[slot] = partial[slot] ? combine(rewriter, loc, op.getKind(),
                                              partial[slot], elements[i])
                                    : elements[i];
    }
    for (Value &value : partial)
      for (int64_t mask : laneMasks) {
        Value other =
            gpu::ShuffleOp::create(rewriter, loc, value, mask,
                                   hopper::kWarpSize, gpu::ShuffleMode::XOR)
                .getShuffleResult();
        value = combine(rewriter, loc, op.getKind(), value, other);
      }
    if (!warpTerms.empty())
      combineAcrossWarps(rewriter, op, warpTerms, result, partial);
    rewriter.replaceOp(
        op, fromElements(rewriter, loc, rewriter.getF32Type(), partial));
    return success();
  }

  /// A fold into per-thread partial results: each thread combines its own
  /// elements, and nothing moves between threads.
  static LogicalResult foldInThread(ReduceOp op, OpAdaptor adaptor,
                                    ConversionPatternRewriter &rewriter) {
    Location loc = op.getLoc();
    SmallVector<int64_t> registers = *getFoldRegisters(
        op.getSource().getType(), op.getResult().getType(), op.getDim());
    SmallVector<Value> elements =
        extractElements(rewriter, loc, adaptor.getSource());
    SmallVector<Value> partial(
        getThreadMap(op.getResult().getType()).getElementsPerThread());
    for (auto [element, j] : llvm::zip(elements, registers))
      partial[j] =
          partial[j] ? combine(rewriter, loc, op.getKind(), partial[j], element)
                     : element;
    rewriter.replaceOp(
        op, fromElements(rewriter, loc, rewriter.getF32Type(), partial));
    return success();
  }

  /// Warps (or warp groups) that hold other parts of the same rows exchange
  /// their partial results through shared memory: each writes its partials
  /// to its own row of a scratch buffer, and after a barrier every thread
  /// combines all rows in the same order, so that all get identical values.
  static void combineAcrossWarps(ConversionPatternRewriter &rewriter,
                                 ReduceOp op, ArrayRef<IndexTerm> warpTerms,
                                 const ThreadMap &result,
                                 SmallVectorImpl<Value> &partial) {
    Location loc = op.getLoc();
    // Decided before this op's own barrier exists, which would count.
    bool trailing = needsTrailingBarrier(op);
    int64_t slots = 1;
    for (const IndexTerm &term : warpTerms)
      slots *= term.mod;
    int64_t extent = op.getResult().getType().getDimSize(0);
    Value scratch =
        createScratch(rewriter, op, {slots, extent}, rewriter.getF32Type());
    Value address = getByteAddress(rewriter, loc, scratch);
    Value slot = emitWarpSlot(rewriter, loc, warpTerms);
    Value base = emitBase(rewriter, loc, result, 0);
    SmallVector<Value> coordinates;
    for (ArrayRef<int64_t> offset : result.offsets)
      coordinates.push_back(arith::AddIOp::create(
          rewriter, loc, base, createIndex(rewriter, loc, offset[0])));
    // Element (row, coordinate) of the row-major [slots, extent] buffer.
    auto element = [&](Value row, Value coordinate) {
      Value index = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, row,
                                createIndex(rewriter, loc, extent)),
          coordinate);
      Value bytes = arith::MulIOp::create(rewriter, loc, index,
                                          createIndex(rewriter, loc, 4));
      return getPointer(rewriter, loc, address, bytes,
                        hopper::kSharedAddressSpace);
    };
    for (auto [value, coordinate] : llvm::zip(partial, coordinates))
      LLVM::StoreOp::create(rewriter, loc, value, element(slot, coordinate), 4);
    gpu::BarrierOp::create(rewriter, loc);
    for (auto [value, coordinate] : llvm::zip(partial, coordinates)) {
      Value sum;
      for (int64_t j = 0; j < slots; ++j) {
        Value other = LLVM::LoadOp::create(
            rewriter, loc, rewriter.getF32Type(),
            element(createIndex(rewriter, loc, j), coordinate), 4);
        sum = sum ? combine(rewriter, loc, op.getKind(), sum, other) : other;
      }
      value = sum;
    }
    if (trailing)
      gpu::BarrierOp::create(rewriter, loc);
  }
};

struct BroadcastOpLowering : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned kept = 1 - op.getDim();
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(
        op, adaptor.getSource(), adaptor.getSource(),
        getBroadcastMask(op.getSource().getType(), op.getResult().getType(),
                         kept));
    return success();
  }
};

/// source * broadcast(factors) under a warp vote: the warp multiplies when
/// any of its threads holds a factor that is not exactly 1 (compared
/// unordered, so NaN multiplies), and otherwise yields `source` as it is.
struct ScaleOpLowering : OpConversionPattern<ScaleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<int64_t> mask = getBroadcastMask(
        op.getFactors().getType(), op.getResult().getType(), 1 - op.getDim());
    // The factors the thread multiplies by, each once.
    SmallVector<int64_t> used(mask);
    llvm::sort(used);
    used.erase(llvm::unique(used), used.end());
    assert(!used.empty() && "a TLE layout gives every thread an element");
    SmallVector<Value> factors =
        extractElements(rewriter, loc, adaptor.getFactors());
    Type elementType = op.getFactors().getType().getElementType();
    Value one = arith::ConstantOp::create(
        rewriter, loc, rewriter.getFloatAttr(elementType, 1.0));
    Value differs;
    for (int64_t r : used) {
      Value ne = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::UNE,
                                       factors[r], one);
      differs = differs ? arith::OrIOp::create(rewriter, loc, differs, ne) : ne;
    }
    Value warp = NVVM::VoteSyncOp::create(rewriter, loc, rewriter.getI1Type(),
                                          createI32(rewriter, loc, -1), differs,
                                          NVVM::VoteSyncKind::any);

    Value source = adaptor.getSource();
    auto ifOp = scf::IfOp::create(rewriter, loc, source.getType(), warp,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    Value wide = vector::ShuffleOp::create(rewriter, loc, adaptor.getFactors(),
                                           adaptor.getFactors(), mask);
    scf::YieldOp::create(
        rewriter, loc,
        arith::MulFOp::create(rewriter, loc, source, wide).getResult());
    rewriter.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(rewriter, loc, source);
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};
} // namespace

void distribute::populateReducePatterns(const TypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<ReduceOpLowering, BroadcastOpLowering, ScaleOpLowering>(
      converter, patterns.getContext());
}
