//===- Pipelines.cpp - Named pass pipelines -------------------------------===//

#include "tle/Dialect/TLE/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void tle::buildDeriveSyncPipeline(OpPassManager &pm) {
  pm.addPass(createTLEVerifyPipes());
  pm.addPass(createTLEInferArriveCounts());
  pm.addPass(createTLEAssignPipePhases());
}

void tle::registerTLEPipelines() {
  PassPipelineRegistration<>(
      "tle-derive-sync",
      "Check the pipe protocol, derive barriers and counts, assign slots and "
      "parities",
      buildDeriveSyncPipeline);
}
