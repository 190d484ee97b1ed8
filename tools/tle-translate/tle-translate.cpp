//===- tle-translate.cpp - TLE translation driver -------------------------===//
//
// Turns LLVM-dialect TLE kernels (tle-opt --tle-to-llvm) into PTX or cubins
// and their launch metadata.
//
//===----------------------------------------------------------------------===//

#include "tle/Target/PTX.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::tle::registerTLETranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "TLE translation driver\n"));
}
