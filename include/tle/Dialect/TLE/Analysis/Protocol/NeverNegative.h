//===- NeverNegative.h - Integers no input makes negative -------*- C++ -*-===//
//
// Some facts about counts hold only for values that cannot be negative as
// signed integers (`x != 0` says `x > 0` only then). Which values those
// are follows from what defines them, not from the inputs.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_NEVERNEGATIVE_H
#define TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_NEVERNEGATIVE_H

#include "mlir/IR/Value.h"

namespace mlir::tle {

/// Whether `value` is never negative as a signed integer, by what defines
/// it: sizes and ids, unsigned divisions and remainders by constants,
/// zero extensions from fewer bits, and sums, products, minima, maxima and
/// selections of such values, never through a truncation. (Sums and
/// products as the counts model them, without overflow.)
bool isNeverNegative(Value value, unsigned depth = 0);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_NEVERNEGATIVE_H
