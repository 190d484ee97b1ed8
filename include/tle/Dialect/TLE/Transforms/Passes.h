//===- Passes.h - TLE dialect passes ----------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_TRANSFORMS_PASSES_H
#define TLE_DIALECT_TLE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tle {

#define GEN_PASS_DECL
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_TRANSFORMS_PASSES_H
