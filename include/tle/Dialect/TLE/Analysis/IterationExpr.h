//===- IterationExpr.h - Iterations as affine expressions -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Pipe windows are paired and followed from one loop iteration to the next
// by comparing iterations as affine expressions: an integer constant plus
// integer multiples of atoms, the values the expression does not look
// through (loop variables, kernel arguments, results of other ops). So
// `%i + 1` written twice is one iteration, and the window a loop body
// holds at `%i` is the one the previous iteration opened at `%i + 1` when
// the step is 1. Iterations are taken as exact integers; the protocol
// simulation checks the concrete values (no negative iteration).
//
// Not MLIR's ValueBoundsConstraintSet: the windows need an expression they
// can rewrite (the loop variable replaced by the lower bound, or by itself
// plus the step) and print, of any integer type, while value bounds
// compare two index values under the IR's constraints and rewrite
// nothing; and every check that pairs windows must agree on what "the same
// iteration" is, which one notion, this one, guarantees.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_ITERATIONEXPR_H
#define TLE_DIALECT_TLE_ANALYSIS_ITERATIONEXPR_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::tle {

class IterationExpr {
public:
  /// The expression of `value`, followed through constants, `arith.addi`,
  /// `arith.subi`, `arith.muli` by a constant, and casts that widen (an
  /// index from an i32, an i64 from an i32). Anything else is an atom.
  static IterationExpr get(Value value);
  static IterationExpr constant(int64_t value);

  /// This expression plus `scale` times `other`; none on overflow.
  std::optional<IterationExpr> add(const IterationExpr &other,
                                   int64_t scale = 1) const;
  /// This expression with `atom` replaced by `replacement`; none when a
  /// coefficient overflows.
  std::optional<IterationExpr>
  substitute(Value atom, const IterationExpr &replacement) const;
  /// The coefficient of `atom` (0 when it does not occur).
  int64_t getCoefficient(Value atom) const;
  /// "the loop variable of the scf.for at line 12 + 1", "3".
  std::string describe() const;

  bool operator==(const IterationExpr &other) const {
    return constantTerm == other.constantTerm && terms == other.terms;
  }
  bool operator!=(const IterationExpr &other) const {
    return !(*this == other);
  }

private:
  int64_t constantTerm = 0;
  /// Atoms with nonzero coefficients, ordered by the atom's address.
  SmallVector<std::pair<Value, int64_t>> terms;
};

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_ITERATIONEXPR_H
