//===- CompileMLIR.cpp - In-process compilation of .mlir kernels ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

#include "tle/Pipelines/Pipelines.h"
#include "tle/Target/PTX.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"

// The compiler lives in mlir::tle, the runtime and tle-run in ::tle; names
// are qualified to keep the two apart.
namespace mtle = mlir::tle;
using tle::runtime::Status;

Status tle::run::compileMLIR(const std::string &path, bool verifyPipes,
                             std::string &ptx, std::string &metadata) {
  mlir::DialectRegistry registry;
  mtle::registerKernelDialects(registry);
  mtle::registerPTXTranslationDialects(registry);
  mlir::MLIRContext context(registry);
  // The source locations say where; a dump of the op in generic form would
  // bury them.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(path, sourceMgr, &context);
  if (!module)
    return Status::error("cannot parse '" + path + "'");

  mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
  mtle::TLEToLLVMOptions options;
  options.verifyPipes = verifyPipes;
  mtle::buildTLEToLLVMPipeline(pm, options);
  if (mlir::failed(pm.run(*module)))
    return Status::error("lowering '" + path + "' to the LLVM dialect failed");

  mlir::FailureOr<std::string> text = mtle::translateModuleToPTX(*module);
  if (mlir::failed(text))
    return Status::error("translating '" + path + "' to PTX failed");
  // Recorded as tle-translate does: the version the PTX declares.
  mlir::FailureOr<llvm::json::Object> kernels = mtle::getKernelMetadata(
      *module, mtle::kDefaultChip, mtle::getPTXVersion(*text).value_or(""));
  if (mlir::failed(kernels))
    return Status::error("collecting the kernel metadata of '" + path +
                         "' failed");
  ptx = std::move(*text);
  metadata = llvm::formatv("{0:2}", llvm::json::Value(std::move(*kernels)));
  return Status::ok();
}
