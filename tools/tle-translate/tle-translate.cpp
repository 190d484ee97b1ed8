//===- tle-translate.cpp - TLE translation driver -------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Turns LLVM-dialect TLE kernels (tle-opt --tle-to-llvm) into PTX or cubins
// and their launch metadata.
//
//===----------------------------------------------------------------------===//

#include "tle/Target/PTX.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  // mlir-translate chains several translations, feeding each the output of
  // the last; PTX is no input for a second one.
  int translations =
      llvm::count_if(llvm::ArrayRef(argv + 1, argc - 1), [](const char *arg) {
        llvm::StringRef flag = llvm::StringRef(arg).ltrim('-');
        return flag == "tle-to-ptx" || flag == "tle-to-cubin";
      });
  if (translations > 1) {
    llvm::errs() << "tle-translate: give one translation, --tle-to-ptx or "
                    "--tle-to-cubin (with --tle-metadata for the launch "
                    "metadata of either)\n";
    return 1;
  }
  mlir::tle::registerTLETranslations();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "TLE translation driver\n"));
}
