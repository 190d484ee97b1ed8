//===- IntegerRanges.h - The ranges of a kernel's integers ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Some facts about counts hold only for values that cannot be negative as
// signed integers (`x != 0` says `x > 0` only then). Which values those
// are follows from what defines them (a size or an id, an unsigned
// division, a zero extension, ...), which is what MLIR's integer range
// analysis computes. The check takes integer arithmetic on the kernel's
// inputs not to overflow (docs/SyncDerivation.md, "What the check cannot
// prove"), so here sums, differences and products of integers range as if
// they carried `nsw`: the sum of two sizes is a size, not a value that
// wraps.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_INTEGERRANGES_H
#define TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_INTEGERRANGES_H

#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"

namespace mlir::tle {

/// mlir::dataflow::IntegerRangeAnalysis over one kernel, with signed
/// overflow left out of arith.addi, arith.subi and arith.muli.
class IntegerRanges {
public:
  /// Analyses every integer of `kernel` (a function).
  explicit IntegerRanges(Operation *kernel);

  /// The values `value` may take; none for a value that is not an integer
  /// or that the analysis did not reach (in a block that never runs).
  std::optional<ConstantIntRanges> getRange(Value value) const;

  /// Whether `value` is never negative as a signed integer.
  bool isNeverNegative(Value value) const;

private:
  DataFlowSolver solver;
};

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_INTEGERRANGES_H
