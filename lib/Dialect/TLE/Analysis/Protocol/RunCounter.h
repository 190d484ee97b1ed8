//===- RunCounter.h - How often an op runs, as a polynomial -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The algebra behind IterationCounts.h: the number of times an op of a
// tle.warp_specialize runs, as a polynomial (Polynomial.h) whose unknowns
// are trip counts, branch conditions and values computed from the
// kernel's inputs. Private to IterationCounts.cpp and RunCounter.cpp.
//
// Not MLIR's IntegerRangeAnalysis or ValueBoundsConstraintSet: a count is
// compared as an identity for every input (the writer's trips(n) against
// a reader's [n > 0] + trips(n) - [n > 0]), with products of trip counts
// of nested loops and conditions that are 0 or 1. Ranges give intervals,
// not identities, and value bounds are linear constraints on index
// values; neither can say that two such counts are equal. Which values
// are never negative, a fact about ranges, does come from the range
// analysis (IntegerRanges.h).
//
//===----------------------------------------------------------------------===//

#ifndef TLE_LIB_DIALECT_TLE_ANALYSIS_PROTOCOL_RUNCOUNTER_H
#define TLE_LIB_DIALECT_TLE_ANALYSIS_PROTOCOL_RUNCOUNTER_H

#include "Polynomial.h"
#include "tle/Dialect/TLE/Analysis/Protocol/IntegerRanges.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <map>

namespace mlir::tle {

/// Builds the polynomials of one tle.warp_specialize; an unknown is created
/// once per distinct key, so equal keys are the same unknown.
class RunCounter {
public:
  explicit RunCounter(WarpSpecializeOp ws) : ws(ws) {}

  /// The number of times `op` runs in its partition.
  std::optional<Polynomial> runs(Operation *op);
  std::string print(const Polynomial &p) const;
  /// Whether every unknown of `p` is a trip count or a condition, which
  /// are never negative.
  bool hasOnlyNonNegativeUnknowns(const Polynomial &p) const;

private:
  /// A fact a then-branch states about a value: `value` >= `atLeast`.
  struct Guard {
    Polynomial value;
    int64_t atLeast;
  };

  std::optional<Polynomial> of(Value value);
  std::optional<Polynomial> compute(Value value);
  /// `value` as c x iv + rest, iv the variable of `loop`, c 0 or 1, rest
  /// not depending on the loop: what a branch on the loop variable
  /// compares.
  std::optional<std::pair<int64_t, Polynomial>> ofInLoop(Value value,
                                                         scf::ForOp loop);
  /// The iterations of `loop` (step 1) in which `branch`, directly in its
  /// body, takes its then-region, for the conditions that pick out or
  /// leave out its first or its last iteration (`iv != lb`, `iv > lb`,
  /// `iv + 1 < ub`, `iv == lb`, ...): trips - [ub > lb] or [ub > lb].
  std::optional<Polynomial> takenInLoop(scf::IfOp branch, scf::ForOp loop);
  /// [a > b] as the condition of `scf.if (a > b)` would be.
  Polynomial greaterThan(const Polynomial &a, const Polynomial &b);
  /// How a division rounds: as arith.divui, floordivsi, divsi, ceildivui
  /// and ceildivsi do.
  enum class Rounding { Unsigned, Floor, TowardZero, UnsignedUp, Up };
  /// `x` divided by `d` > 0, not exactly: ceil(x / d) is floor((x + d -
  /// 1) / d), and for an x never negative every rounding down is divui's.
  std::optional<Polynomial> divideByConstant(const Polynomial &x, int64_t d,
                                             Rounding rounding,
                                             bool neverNegative);
  /// The unknown of arithmetic the counter does not follow: `name` applied
  /// to `args`, the same unknown wherever the same op meets the same
  /// operands.
  Polynomial opaque(const std::string &name, ArrayRef<Polynomial> args,
                    bool commutative);
  /// [condition], 0 or 1, the condition of a branch; `guard` is what its
  /// then-region states.
  Polynomial taken(const Polynomial &condition, std::optional<Guard> guard);
  std::optional<Polynomial> tripCount(scf::ForOp loop);
  /// max(0, span) for a step of 1.
  std::optional<Polynomial> stepOneTrips(const Polynomial &span);
  /// `cmp` as `x > k` (signed) for a value x and a constant k, if it is
  /// one: a signed comparison of a value with a constant, or an unsigned
  /// or inequality test of a never-negative value against 0 or 1 (`x != 0`,
  /// `x >u 0`, `x >=u 1`, ...), which for such a value says `x > 0`.
  std::optional<std::pair<Value, int64_t>> asGreaterThan(arith::CmpIOp cmp);
  /// The guard `branch`'s condition states in its then-region, if it is
  /// `x > k` (asGreaterThan).
  std::optional<Guard> getGuard(scf::IfOp branch);
  /// The guards of the then-branches around `op` inside the partition.
  SmallVector<Guard> getGuardsAround(Operation *op);
  /// [c] x [c] = [c] for a condition c, and [X >= 1] x trips(X) = trips(X):
  /// the trip count is 0 where the condition fails.
  Polynomial simplify(const Polynomial &p) const;
  Polynomial unknown(const std::string &key, const std::string &text,
                     bool nonNegative);
  std::string keyOf(const Polynomial &p) const;
  /// Whether `value` is never negative, by the kernel's integer ranges
  /// (computed on first use: most kernels divide nothing).
  bool hasNonNegativeRange(Value value);

  WarpSpecializeOp ws;
  std::optional<IntegerRanges> ranges;
  std::map<std::string, unsigned> ids;
  SmallVector<std::string> texts;
  SmallVector<bool> nonNegative;
  DenseMap<Value, std::optional<Polynomial>> memo;
  /// The branch conditions among the unknowns, with their guards.
  DenseMap<unsigned, std::optional<Guard>> conditions;
  /// The trip counts max(0, span) of step 1, by unknown, with their spans.
  DenseMap<unsigned, Polynomial> stepOneSpans;
};

} // namespace mlir::tle

#endif // TLE_LIB_DIALECT_TLE_ANALYSIS_PROTOCOL_RUNCOUNTER_H
