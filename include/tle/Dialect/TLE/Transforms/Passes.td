//===- Passes.td - TLE dialect passes ----------------------*- tablegen -*-===//

#ifndef TLE_DIALECT_TLE_TRANSFORMS_PASSES
#define TLE_DIALECT_TLE_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

#endif // TLE_DIALECT_TLE_TRANSFORMS_PASSES
