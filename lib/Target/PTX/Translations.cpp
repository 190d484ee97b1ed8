//===- Translations.cpp - tle-translate's --tle-to-ptx and --tle-to-cubin -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The command-line face of the PTX target: two mlir-translate translations
// and the options that pick the chip and the side outputs (metadata JSON,
// ptxas report).
//
//===----------------------------------------------------------------------===//

#include "tle/Target/PTX.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"
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

/// The op, attribute or type name at `loc` when it belongs to a dialect the
/// tool does not know: the input has not been lowered to the LLVM dialect.
static std::optional<StringRef> getForeignNameAt(llvm::SourceMgr &sourceMgr,
                                                 Location loc,
                                                 MLIRContext *context) {
  auto file = dyn_cast<FileLineColLoc>(loc);
  if (!file)
    return std::nullopt;
  unsigned id = sourceMgr.getMainFileID();
  SMLoc at =
      sourceMgr.FindLocForLineAndColumn(id, file.getLine(), file.getColumn());
  if (!at.isValid())
    return std::nullopt;
  // The location may point into the name (attributes point past their
  // dialect): take the whole name around it.
  auto isNameChar = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$';
  };
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(id);
  const char *begin = at.getPointer();
  while (begin > buffer->getBufferStart() && isNameChar(begin[-1]))
    --begin;
  StringRef name =
      StringRef(begin, buffer->getBufferEnd() - begin).take_while(isNameChar);
  auto [dialect, rest] = name.split('.');
  if (rest.empty() || context->getOrLoadDialect(dialect))
    return std::nullopt;
  return name;
}

/// Parses the input as mlir-translate does, but says what to do when it is
/// TLE or other IR not yet lowered to the LLVM dialect, instead of the
/// parser's complaint about the first op it does not know.
static OwningOpRef<ModuleOp>
parseKernelModule(const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                  MLIRContext *context) {
  DialectRegistry registry;
  tle::registerPTXTranslationDialects(registry);
  context->appendDialectRegistry(registry);
  bool reported = false;
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    if (reported || diag.getSeverity() != DiagnosticSeverity::Error)
      return failure();
    std::optional<StringRef> name =
        getForeignNameAt(*sourceMgr, diag.getLocation(), context);
    if (!name)
      return failure();
    reported = true;
    emitError(diag.getLocation())
        << "'" << *name << "' is not in the LLVM dialect: tle-translate "
        << "translates what `tle-opt --tle-to-llvm` produces; run that first";
    return success();
  });
  return parseSourceFile<ModuleOp>(sourceMgr, context);
}

/// An input without a kernel translates to PTX and metadata without one,
/// which is worth a word.
static void warnIfNoKernel(ModuleOp module) {
  if (llvm::none_of(module.getOps<LLVM::LLVMFuncOp>(), [](LLVM::LLVMFuncOp f) {
        return f->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName());
      }))
    emitWarning(module.getLoc())
        << "the input holds no kernel (no llvm.func with nvvm.kernel); the "
           "output and its metadata describe none";
}

/// Registers `name` as a translation of the kernel module by `translate`.
static void
registerKernelTranslation(StringRef name, StringRef description,
                          LogicalResult (*translate)(ModuleOp, raw_ostream &)) {
  TranslateRegistration(
      name, description,
      [translate](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                  raw_ostream &os, MLIRContext *context) {
        OwningOpRef<ModuleOp> module = parseKernelModule(sourceMgr, context);
        if (!module || failed(translate(*module, os)))
          return failure();
        warnIfNoKernel(*module);
        return success();
      });
}

void tle::registerTLETranslations() {
  // Registering a name twice is fatal, and several tools may call this.
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  registerKernelTranslation("tle-to-ptx",
                            "Translate an LLVM-dialect TLE module to PTX",
                            translateToPTX);
  registerKernelTranslation(
      "tle-to-cubin",
      "Translate an LLVM-dialect TLE module to a cubin with ptxas",
      translateToCubin);
}
