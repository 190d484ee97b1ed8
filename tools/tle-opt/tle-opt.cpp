//===- tle-opt.cpp - TLE optimizer driver ---------------------------------===//
//
// Runs TLE's passes (and the upstream ones kernels need) over MLIR files.
//
//===----------------------------------------------------------------------===//

#include "tle/Conversion/Passes.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"
#include "tle/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  mlir::registerSCFToControlFlowPass();
  mlir::registerConvertNVVMToLLVMPass();
  mlir::registerReconcileUnrealizedCastsPass();
  mlir::tle::registerTLEPasses();
  mlir::tle::registerTLEConversionPasses();
  mlir::tle::registerTLEPipelines();

  mlir::DialectRegistry registry;
  mlir::tle::registerKernelDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "TLE optimizer driver\n", registry));
}
