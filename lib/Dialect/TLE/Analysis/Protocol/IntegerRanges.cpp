//===- IntegerRanges.cpp - The ranges of a kernel's integers --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/IntegerRanges.h"

#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/Utils/InferIntRangeCommon.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tle;
using dataflow::IntegerValueRangeLattice;

namespace {
/// IntegerRangeAnalysis, but a sum, difference or product does not wrap
/// as a signed integer.
class NoSignedOverflowAnalysis : public dataflow::IntegerRangeAnalysis {
public:
  using IntegerRangeAnalysis::IntegerRangeAnalysis;

  LogicalResult
  visitOperation(Operation *op,
                 ArrayRef<const IntegerValueRangeLattice *> operands,
                 ArrayRef<IntegerValueRangeLattice *> results) override;
};
} // namespace

/// The range of `op`'s result without signed overflow, for the ops the
/// check's assumption concerns whose operands have ranges.
static std::optional<ConstantIntRanges> inferWithoutSignedOverflow(
    Operation *op, ArrayRef<const IntegerValueRangeLattice *> operands) {
  if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(op) ||
      llvm::any_of(operands, [](const IntegerValueRangeLattice *operand) {
        return operand->getValue().isUninitialized();
      }))
    return std::nullopt;
  SmallVector<ConstantIntRanges> ranges;
  for (const IntegerValueRangeLattice *operand : operands)
    ranges.push_back(operand->getValue().getValue());
  auto flags = intrange::OverflowFlags::Nsw;
  return llvm::TypeSwitch<Operation *, ConstantIntRanges>(op)
      .Case([&](arith::AddIOp) { return intrange::inferAdd(ranges, flags); })
      .Case([&](arith::SubIOp) { return intrange::inferSub(ranges, flags); })
      .Default([&](Operation *) { return intrange::inferMul(ranges, flags); });
}

LogicalResult NoSignedOverflowAnalysis::visitOperation(
    Operation *op, ArrayRef<const IntegerValueRangeLattice *> operands,
    ArrayRef<IntegerValueRangeLattice *> results) {
  std::optional<ConstantIntRanges> range =
      inferWithoutSignedOverflow(op, operands);
  if (!range)
    return IntegerRangeAnalysis::visitOperation(op, operands, results);
  IntegerValueRangeLattice *lattice = results.front();
  IntegerValueRange before = lattice->getValue();
  ChangeResult changed = lattice->join(IntegerValueRange(*range));
  // As IntegerRangeAnalysis does for every op: a value a loop carries
  // that keeps changing takes every value at once, so that the fixpoint
  // is reached (a counter would otherwise grow one step per round).
  Value result = op->getResult(0);
  bool yielded = llvm::any_of(result.getUsers(), [](Operation *user) {
    return user->hasTrait<OpTrait::IsTerminator>();
  });
  if (yielded && !before.isUninitialized() && !(lattice->getValue() == before))
    changed |= lattice->join(IntegerValueRange::getMaxRange(result));
  propagateIfChanged(lattice, changed);
  return success();
}

IntegerRanges::IntegerRanges(Operation *kernel) {
  dataflow::loadBaselineAnalyses(solver);
  solver.load<NoSignedOverflowAnalysis>();
  // A failure leaves the lattices it did not reach uninitialized, which
  // getRange reports as unknown.
  (void)solver.initializeAndRun(kernel);
}

std::optional<ConstantIntRanges> IntegerRanges::getRange(Value value) const {
  const auto *lattice = solver.lookupState<IntegerValueRangeLattice>(value);
  if (!lattice || lattice->getValue().isUninitialized())
    return std::nullopt;
  return lattice->getValue().getValue();
}

bool IntegerRanges::isNeverNegative(Value value) const {
  std::optional<ConstantIntRanges> range = getRange(value);
  return range && range->smin().isNonNegative();
}
