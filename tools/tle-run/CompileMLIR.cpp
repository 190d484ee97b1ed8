//===- CompileMLIR.cpp - In-process compilation of .mlir kernels ----------===//

#include "Compile.h"

#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Pipelines/Pipelines.h"
#include "tle/Target/PTX.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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

/// The dialects tle-opt registers: what a kernel is written in, and what
/// the lowering produces.
static void registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<
      mtle::TLEDialect, mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect,
      mlir::index::IndexDialect, mlir::func::FuncDialect, mlir::gpu::GPUDialect,
      mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect, mlir::math::MathDialect,
      mlir::memref::MemRefDialect, mlir::nvgpu::NVGPUDialect,
      mlir::scf::SCFDialect, mlir::vector::VectorDialect>();
  mtle::registerPTXTranslationDialects(registry);
}

Status tle::run::compileMLIR(const std::string &path, bool verifyPipes,
                             std::string &ptx, std::string &metadata) {
  mlir::DialectRegistry registry;
  registerDialects(registry);
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
