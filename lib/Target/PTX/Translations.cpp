//===- Translations.cpp - tle-translate's --tle-to-ptx and --tle-to-cubin -===//
//
// The command-line face of the PTX target: two mlir-translate translations
// and the options that pick the chip and the side outputs (metadata JSON,
// ptxas report).
//
//===----------------------------------------------------------------------===//

#include "tle/Target/PTX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

static llvm::cl::opt<std::string>
    chipOption("tle-chip", llvm::cl::desc("NVPTX chip to compile for"),
               llvm::cl::init(tle::kDefaultChip.str()));

static llvm::cl::opt<std::string> featuresOption(
    "tle-features",
    llvm::cl::desc("NVPTX features, comma separated; '+ptxNN' picks the PTX "
                   "ISA version"),
    llvm::cl::init(tle::kDefaultFeatures.str()));

static llvm::cl::opt<std::string> metadataOption(
    "tle-metadata",
    llvm::cl::desc("Write the kernels' launch metadata as JSON to this file"),
    llvm::cl::value_desc("file"));

static llvm::cl::opt<std::string> ptxasLogOption(
    "tle-ptxas-log",
    llvm::cl::desc("With --tle-to-cubin, write ptxas's -v report (registers, "
                   "warnings) to this file"),
    llvm::cl::value_desc("file"));

static LogicalResult writeFile(StringRef path, StringRef contents,
                               Location loc) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return emitError(loc) << error;
  file->os() << contents;
  file->keep();
  return success();
}

/// The PTX version recorded is the one the PTX declares, which is what the
/// driver checks, whatever the features asked for.
static LogicalResult writeMetadataIfRequested(ModuleOp module, StringRef ptx) {
  if (metadataOption.empty())
    return success();
  std::string version = tle::getPTXVersion(ptx).value_or("");
  FailureOr<llvm::json::Object> metadata =
      tle::getKernelMetadata(module, chipOption, version);
  if (failed(metadata))
    return failure();
  std::string text =
      llvm::formatv("{0:2}\n", llvm::json::Value(std::move(*metadata)));
  return writeFile(metadataOption, text, module.getLoc());
}

static LogicalResult translateToPTX(ModuleOp module, raw_ostream &os) {
  FailureOr<std::string> ptx =
      tle::translateModuleToPTX(module, chipOption, featuresOption);
  if (failed(ptx) || failed(writeMetadataIfRequested(module, *ptx)))
    return failure();
  os << *ptx;
  return success();
}

static LogicalResult translateToCubin(ModuleOp module, raw_ostream &os) {
  FailureOr<std::string> ptx =
      tle::translateModuleToPTX(module, chipOption, featuresOption);
  if (failed(ptx))
    return failure();
  std::string log;
  FailureOr<std::string> cubin =
      tle::assembleWithPtxas(*ptx, chipOption, module.getLoc(), &log);
  // The report is written even when ptxas failed: it holds the reason.
  if (!ptxasLogOption.empty() &&
      failed(writeFile(ptxasLogOption, log, module.getLoc())))
    return failure();
  if (failed(cubin) || failed(writeMetadataIfRequested(module, *ptx)))
    return failure();
  os << *cubin;
  return success();
}

void tle::registerTLETranslations() {
  // Registering a name twice is fatal, and several tools may call this.
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  TranslateFromMLIRRegistration toPTX(
      "tle-to-ptx", "Translate an LLVM-dialect TLE module to PTX",
      translateToPTX, registerPTXTranslationDialects);
  TranslateFromMLIRRegistration toCubin(
      "tle-to-cubin",
      "Translate an LLVM-dialect TLE module to a cubin with ptxas",
      translateToCubin, registerPTXTranslationDialects);
}
