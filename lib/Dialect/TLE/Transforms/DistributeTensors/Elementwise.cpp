//===- Elementwise.cpp - Element-wise ops, splats and iota ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Ops that compute each element of a thread's vector from the same element
// of its operands (or from its coordinate alone): no data moves between
// threads.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::distribute;

namespace {
/// Any element-wise arith or math op on distributed tensors: the same op on
/// the threads' vectors, since every operand holds the same coordinates in
/// the same order (the verifiers require equal types).
struct ElementwiseOpLowering : ConversionPattern {
  ElementwiseOpLowering(const TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp>(op) || op->getNumRegions() != 0)
      return failure();
    if (!op->hasTrait<OpTrait::Elementwise>() && !isa<arith::SelectOp>(op))
      return rewriter.notifyMatchFailure(op, "not element-wise");
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                resultTypes)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, resultTypes,
                         op->getAttrs());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

/// math.exp2 with `afn` (approximate functions allowed) on f32 elements
/// becomes the hardware's flush-to-zero approximation, one MUFU.EX2 each;
/// without the flag it keeps libdevice's denormal-correct expansion.
struct FastExp2Lowering : OpConversionPattern<math::Exp2Op> {
  FastExp2Lowering(const TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(math::Exp2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getDistributedType(op.getType());
    if (!type || !type.getElementType().isF32() ||
        !arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
      return failure();
    Location loc = op.getLoc();
    auto intrinsic = rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz.f");
    SmallVector<Value> results;
    for (Value x : extractElements(rewriter, loc, adaptor.getOperand()))
      results.push_back(LLVM::CallIntrinsicOp::create(rewriter, loc,
                                                      rewriter.getF32Type(),
                                                      intrinsic, ValueRange{x})
                            .getResult(0));
    rewriter.replaceOp(
        op, fromElements(rewriter, loc, rewriter.getF32Type(), results));
    return success();
  }
};

/// A splat constant tensor becomes a splat constant vector.
struct ConstantOpLowering : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!value)
      return op.emitOpError("a distributed tensor constant must be a splat");
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, type,
        SplatElementsAttr::get(type, value.getSplatValue<Attribute>()));
    return success();
  }
};

struct SplatOpLowering : OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type,
                                                     adaptor.getValue());
    return success();
  }
};

/// Each element is its coordinate along the op's dimension.
struct IotaOpLowering : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    ThreadMap map = getThreadMap(type);
    unsigned dim = op.getDim();
    Value base = emitBase(rewriter, loc, map, dim);
    SmallVector<Value> elements;
    for (ArrayRef<int64_t> offset : map.offsets) {
      Value coordinate = arith::AddIOp::create(
          rewriter, loc, base, createIndex(rewriter, loc, offset[dim]));
      if (!type.getElementType().isIndex())
        coordinate = arith::IndexCastOp::create(
            rewriter, loc, type.getElementType(), coordinate);
      elements.push_back(coordinate);
    }
    rewriter.replaceOp(
        op, fromElements(rewriter, loc, type.getElementType(), elements));
    return success();
  }
};
} // namespace

void distribute::populateElementwisePatterns(const TypeConverter &converter,
                                             RewritePatternSet &patterns) {
  patterns.add<ElementwiseOpLowering, FastExp2Lowering, ConstantOpLowering,
               SplatOpLowering, IotaOpLowering>(converter,
                                                patterns.getContext());
}
