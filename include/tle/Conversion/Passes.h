//===- Passes.h - TLE conversion passes -------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TLE_CONVERSION_PASSES_H
#define TLE_CONVERSION_PASSES_H

#include "tle/Conversion/TLEToNVVM/TLEToNVVM.h"

namespace mlir::tle {

#define GEN_PASS_REGISTRATION
#include "tle/Conversion/Passes.h.inc"

} // namespace mlir::tle

#endif // TLE_CONVERSION_PASSES_H
