//===- Pipelines.h - Named TLE pass pipelines -------------------*- C++ -*-===//

#ifndef TLE_PIPELINES_PIPELINES_H
#define TLE_PIPELINES_PIPELINES_H

namespace mlir {
class OpPassManager;

namespace tle {

/// The protocol check, the barriers and their counts, the slots and
/// parities (`tle-derive-sync`).
void buildDeriveSyncPipeline(OpPassManager &pm);

/// Everything from tile-level TLE IR to the LLVM dialect with NVVM, ready
/// for translation to PTX (`tle-to-llvm`).
void buildTLEToLLVMPipeline(OpPassManager &pm);

/// Registers `tle-derive-sync` and `tle-to-llvm`.
void registerTLEPipelines();

} // namespace tle
} // namespace mlir

#endif // TLE_PIPELINES_PIPELINES_H
