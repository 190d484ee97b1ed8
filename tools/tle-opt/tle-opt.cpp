//===- tle-opt.cpp - TLE optimizer driver ---------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Runs TLE's passes (and the upstream ones kernels need) over MLIR files.
//
// MlirOptMain does the work; this driver adds what a kernel author needs
// around it: the command line suggests tle-opt's own flags for a misspelt
// one (libLLVM registers some two thousand options of its backends, which
// would otherwise be the nearest match, `--mno-sort-sda` for
// `--no-sort-sda`), an input that is not MLIR text nor bytecode is
// rejected before the parser would quote its bytes back, and an empty
// input, which compiles to an empty module, says so.
//
//===----------------------------------------------------------------------===//

#include "tle/Conversion/Passes.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"
#include "tle/Pipelines/Pipelines.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;

#ifdef TLE_INCLUDE_TESTS
namespace mlir::tle::test {
void registerTestPasses();
} // namespace mlir::tle::test
#endif

/// The options registered before MlirOptMain's are libLLVM's. Those a user
/// of tle-opt may want stay listed; the rest (backend and optimizer flags
/// that no TLE pass reads) stay usable but are left out of --help and of
/// the suggestions for a misspelt flag.
static void hideForeignOptions() {
  static const llvm::StringRef keptCategories[] = {"Generic Options",
                                                   "Color Options"};
  static const llvm::StringRef kept[] = {"debug", "debug-only", "debug-counter",
                                         "print-debug-counter"};
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::cl::Option *option = entry.second;
    bool general = llvm::any_of(option->Categories, [](auto *category) {
      return llvm::is_contained(keptCategories, category->getName());
    });
    if (!general && !llvm::is_contained(kept, entry.first))
      option->setHiddenFlag(llvm::cl::ReallyHidden);
  }
}

/// Fails, saying where, for an input that is neither MLIR bytecode nor
/// text: a NUL or other control byte, or bytes that are not UTF-8.
static LogicalResult checkIsText(llvm::MemoryBufferRef buffer,
                                 llvm::StringRef name) {
  if (isBytecode(buffer))
    return success();
  llvm::StringRef text = buffer.getBuffer();
  const auto *begin = reinterpret_cast<const llvm::UTF8 *>(text.begin());
  const auto *end = reinterpret_cast<const llvm::UTF8 *>(text.end());
  const llvm::UTF8 *bad = begin;
  bool legal = llvm::isLegalUTF8String(&bad, end);
  size_t offset = bad - begin;
  for (size_t i = 0; legal && i < text.size(); ++i) {
    unsigned char c = text[i];
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' &&
        c != '\v') {
      legal = false;
      offset = i;
    }
  }
  if (legal)
    return success();
  llvm::WithColor::error(llvm::errs(), "tle-opt")
      << "'" << name << "' is not MLIR: byte "
      << llvm::format_hex(static_cast<unsigned char>(text[offset]), 4)
      << " at offset " << offset << " (line "
      << text.take_front(offset).count('\n') + 1
      << ") is not text; tle-opt reads MLIR text (.mlir) or MLIR bytecode\n";
  return failure();
}

static LogicalResult run(int argc, char **argv, DialectRegistry &registry) {
  hideForeignOptions();
  auto [inputName, outputName] = registerAndParseCLIOptions(
      argc, argv, "TLE optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // These list what tle-opt knows and read no input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return MlirOptMain(argc, argv, inputName, outputName, registry);

  llvm::InitLLVM init(argc, argv);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputName, &error);
  if (!input) {
    llvm::WithColor::error(llvm::errs(), "tle-opt") << error << "\n";
    return failure();
  }
  std::string name = inputName == "-" ? "<stdin>" : inputName;
  if (failed(checkIsText(*input, name)))
    return failure();
  if (input->getBuffer().trim().empty())
    llvm::WithColor::warning(llvm::errs(), "tle-opt")
        << "'" << name
        << "' is empty: there is no kernel in it, and the output is an "
           "empty module\n";
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputName, &error);
  if (!output) {
    llvm::WithColor::error(llvm::errs(), "tle-opt") << error << "\n";
    return failure();
  }
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return failure();
  output->keep();
  return success();
}

int main(int argc, char **argv) {
  registerTransformsPasses();
  registerSCFToControlFlowPass();
  registerConvertNVVMToLLVMPass();
  registerReconcileUnrealizedCastsPass();
  tle::registerTLEPasses();
  tle::registerTLEConversionPasses();
  tle::registerTLEPipelines();
#ifdef TLE_INCLUDE_TESTS
  tle::test::registerTestPasses();
#endif

  DialectRegistry registry;
  tle::registerKernelDialects(registry);
  return asMainReturnCode(run(argc, argv, registry));
}
