//===- Passes.h - TLE dialect passes ----------------------------*- C++ -*-===//

#ifndef TLE_DIALECT_TLE_TRANSFORMS_PASSES_H
#define TLE_DIALECT_TLE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::tle {

#define GEN_PASS_DECL
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"

/// Adds the passes that derive the synchronization of every kernel: the
/// protocol check, the barriers and their counts, the slots and parities.
void buildDeriveSyncPipeline(OpPassManager &pm);

/// Registers the named pipelines (`tle-derive-sync`).
void registerTLEPipelines();

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_TRANSFORMS_PASSES_H
