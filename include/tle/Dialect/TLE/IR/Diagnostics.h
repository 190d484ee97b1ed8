//===- Diagnostics.h - Diagnostics a kernel author can read -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Two habits every TLE diagnostic shares: an op is shown by its head, never
// with its regions (a tle.warp_specialize prints as a whole kernel
// otherwise), and a value is named by what the author wrote (a loop
// variable, a kernel argument, the op and line that computed it) instead of
// an SSA number the author never saw.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_IR_DIAGNOSTICS_H
#define TLE_DIALECT_TLE_IR_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

#include <string>

namespace mlir::tle {

/// A diagnostic at `op`. Where the context shows the op with its
/// diagnostics, the note shows its head with the regions elided.
InFlightDiagnostic
emitAtHead(Operation *op,
           DiagnosticSeverity severity = DiagnosticSeverity::Error);

/// emitAtHead, prefixed with "'<op name>' op " as Operation::emitOpError is.
InFlightDiagnostic emitOpErrorAtHead(Operation *op);

/// "the tle.wgmma_wait at line 12": an op by its name and source line.
std::string describeOp(Operation *op);

/// `value` as the author wrote it: an integer constant by its value, else
/// "the loop variable of the scf.for at line 12", "argument 2 of @gemm",
/// "the arith.divui at line 40", falling back to the SSA name where the IR
/// has no source lines.
std::string describeValue(Value value);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_IR_DIAGNOSTICS_H
