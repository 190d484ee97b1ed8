//===- Pipelines.h - Named TLE pass pipelines -------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TLE_PIPELINES_PIPELINES_H
#define TLE_PIPELINES_PIPELINES_H

#include <string>

namespace mlir {
class DialectRegistry;
class OpPassManager;

namespace tle {

/// What may differ between runs of the pipelines.
struct TLEToLLVMOptions {
  /// Runs tle-verify-pipes first. Only tests turn it off: a kernel whose
  /// protocol is wrong still lowers, and deadlocks on the GPU (the runtime's
  /// watchdog test needs one).
  bool verifyPipes = true;
  /// Makes tle-verify-pipes report what it cannot prove as errors.
  bool strictPipes = false;
  /// The readers' fence for cp.async data (tle-place-proxy-fences' form).
  std::string proxyFenceForm = "bidirectional";
};

/// The protocol check, the barriers and their counts, the slots and
/// parities, the readers' proxy fences (`tle-derive-sync`).
void buildDeriveSyncPipeline(OpPassManager &pm,
                             const TLEToLLVMOptions &options = {});

/// Everything from tile-level TLE IR to the LLVM dialect with NVVM, ready
/// for translation to PTX (`tle-to-llvm`, `tle-to-llvm=verify-pipes=false`).
void buildTLEToLLVMPipeline(OpPassManager &pm,
                            const TLEToLLVMOptions &options = {});

/// Adds the dialects kernels are written in (tle, func, scf, arith, math,
/// memref, vector, gpu, nvgpu) and those the lowering produces (cf, index,
/// llvm, nvvm).
void registerKernelDialects(DialectRegistry &registry);

/// Registers `tle-derive-sync` and `tle-to-llvm`.
void registerTLEPipelines();

} // namespace tle
} // namespace mlir

#endif // TLE_PIPELINES_PIPELINES_H
