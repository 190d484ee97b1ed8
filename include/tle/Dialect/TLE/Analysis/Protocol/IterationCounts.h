//===- IterationCounts.h - Writer and reader counts, compared ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// How many iterations the writer of a pipe commits and each reader waits
// for, as polynomials with integer coefficients whose unknowns are the trip
// counts of loops, the conditions of branches and the values computed from
// the kernel's inputs. A count is exact algebra, not a sample: two counts
// that are the same polynomial are equal for every input.
//
// A loop's trip count is max(0, ceil((ub - lb) / step)); a constant factor
// of ub - lb that the step divides is taken out, so that `for 0 to 4 * n`
// and four iterations inside `for 0 to n` count alike. Under a then-branch
// of `x > k` (signed), a step-1 loop whose span is x - d with d <= k + 1
// runs trips(x) - d times, and [x > 0] x trips(x) is trips(x): so a
// reader that peels the first and last iteration off its loop (a carried
// window, `0 to n - 1` under `n > 0`) counts as the writer's `0 to n`;
// conditions are 0 or 1, so [c] x [c] = [c]. A branch directly in a
// step-1 loop on its variable that leaves out or picks the first or the
// last iteration is taken trips - [ub > lb] or [ub > lb] times. Values
// are followed through addi, subi, muli, shifts left by a constant and
// casts. A division by a positive constant is one unknown however it is
// written: a right shift by k divides by 2^k, ceil(x / d) is floor((x +
// d - 1) / d), and for an x never negative every rounding down is divui's,
// so `(s + 63) / 64` and `(s + 63) >> 6` count alike. Any other arithmetic
// (minima, comparisons) is an unknown of its own, equal to another
// exactly when it applies the same op to the same operands. A
// count under an scf.while, or a loop bound or any other branch condition
// computed from a loop variable, a loop-carried value or a load inside a
// partition, is not a polynomial.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_ITERATIONCOUNTS_H
#define TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_ITERATIONCOUNTS_H

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/TokenUsage.h"

namespace mlir::tle {

/// The writer's count of one pipe against one reader's.
struct CountComparison {
  enum class Result {
    /// The same polynomial: equal for every input.
    Equal,
    /// Their difference has one sign in every term: different whenever
    /// the loops run.
    Differ,
    /// Neither is provable (or a count is not a polynomial).
    Unknown,
  };
  StringRef reader;
  Result result;
  /// The counts as text, e.g. "2 x trips(argument 0 of @k)"; none where a
  /// count is not a polynomial.
  std::optional<std::string> committed, waited;
};

/// How often `op` (a commit, wait, signal or await) runs in its partition,
/// as the comparisons print it ("trips(argument 0 of @k) - 1"); none where
/// the count is not a polynomial.
std::optional<std::string> describeRunCount(WarpSpecializeOp ws, Operation *op);

/// One comparison per reader of `usage.pipe`; none for one_shot pipes.
SmallVector<CountComparison> compareIterationCounts(WarpSpecializeOp ws,
                                                    const PipeUsage &usage);

/// How often `usage.token` is signaled (`committed`) against how often it
/// is awaited (`waited`); `reader` is the token's name. A
/// named barrier holds no count of its own, so the two must be equal for
/// every input: an await without its signal hangs, a signal left over
/// corrupts the barrier's next use.
CountComparison compareTokenCounts(WarpSpecializeOp ws,
                                   const TokenUsage &usage);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_ITERATIONCOUNTS_H
