//===- TLEToNVVM.h - Lower TLE kernels to LLVM and NVVM ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TLE_CONVERSION_TLETONVVM_TLETONVVM_H
#define TLE_CONVERSION_TLETONVVM_TLETONVVM_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class LLVMTypeConverter;
class RewritePatternSet;

namespace tle {

#define GEN_PASS_DECL_CONVERTTLETONVVM
#include "tle/Conversion/Passes.h.inc"

/// The name of the external shared-memory array that dynamic shared memory
/// is addressed through.
constexpr llvm::StringLiteral kDynamicSharedMemoryName = "tle_dynamic_smem";

/// Patterns lowering tle.shared_alloc, tle.slot and the tle.mbarrier_* ops.
void populateTLEToNVVMConversionPatterns(LLVMTypeConverter &converter,
                                         RewritePatternSet &patterns);

} // namespace tle
} // namespace mlir

#endif // TLE_CONVERSION_TLETONVVM_TLETONVVM_H
