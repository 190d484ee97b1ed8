//===- NeverNegative.cpp - Integers no input makes negative ---------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/NeverNegative.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tle;

bool tle::isNeverNegative(Value value, unsigned depth) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return !constant.isNegative();
  Operation *def = value.getDefiningOp();
  if (!def || depth > 16)
    return false;
  auto positiveConstant = [](Value v, int64_t atLeast) {
    APInt c;
    return matchPattern(v, m_ConstantInt(&c)) && !c.isNegative() &&
           c.getSExtValue() >= atLeast;
  };
  auto never = [&](Value v) { return isNeverNegative(v, depth + 1); };
  auto bits = [](Value v) {
    return v.getType().isIndex() ? 64u : v.getType().getIntOrFloatBitWidth();
  };
  return llvm::TypeSwitch<Operation *, bool>(def)
      .Case<memref::DimOp, gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp,
            gpu::GridDimOp>([](auto) { return true; })
      // (2^64 - 1) / 2 < 2^63; a remainder is below its divisor.
      .Case([&](arith::DivUIOp op) {
        return positiveConstant(op.getRhs(), 2) ||
               (never(op.getLhs()) && never(op.getRhs()));
      })
      .Case([&](arith::RemUIOp op) {
        return positiveConstant(op.getRhs(), 1) || never(op.getLhs());
      })
      .Case([&](arith::ShRUIOp op) {
        return positiveConstant(op.getRhs(), 1) || never(op.getLhs());
      })
      .Case<arith::DivSIOp, arith::CeilDivSIOp, arith::FloorDivSIOp,
            arith::CeilDivUIOp>([&](auto op) {
        return never(op.getLhs()) && positiveConstant(op.getRhs(), 1);
      })
      // A truncation may set the sign bit.
      .Case<arith::ExtUIOp, arith::IndexCastUIOp>([&](auto op) {
        return bits(op.getIn()) < bits(op.getOut()) ||
               (bits(op.getIn()) == bits(op.getOut()) && never(op.getIn()));
      })
      .Case<arith::ExtSIOp, arith::IndexCastOp>([&](auto op) {
        return bits(op.getIn()) <= bits(op.getOut()) && never(op.getIn());
      })
      .Case<arith::MaxSIOp, arith::MinUIOp, arith::AndIOp>(
          [&](auto op) { return never(op.getLhs()) || never(op.getRhs()); })
      .Case<arith::MinSIOp, arith::MaxUIOp, arith::AddIOp, arith::MulIOp,
            arith::OrIOp>(
          [&](auto op) { return never(op.getLhs()) && never(op.getRhs()); })
      .Case([&](arith::SelectOp op) {
        return never(op.getTrueValue()) && never(op.getFalseValue());
      })
      .Default([](Operation *) { return false; });
}
