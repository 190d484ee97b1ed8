//===- Unproven.h - What the protocol check cannot prove --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The check reports what it cannot prove (a loop it cannot simulate, a
// field whose bytes it cannot tell, counts it cannot compare) at the op,
// as a warning, or as an error when it is strict (--tle-verify-pipes=
// strict=true, the pipelines' strict-pipes=true).
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_UNPROVEN_H
#define TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_UNPROVEN_H

#include "tle/Dialect/TLE/IR/Diagnostics.h"

namespace mlir::tle {

/// What the protocol check could not prove, at the head of `op`: a
/// warning, or an error when the check is strict.
inline InFlightDiagnostic emitUnproven(Operation *op, bool strict) {
  return emitAtHead(op, strict ? DiagnosticSeverity::Error
                               : DiagnosticSeverity::Warning);
}

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_UNPROVEN_H
