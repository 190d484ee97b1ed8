//===- Pipelines.cpp - Named TLE pass pipelines ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Pipelines/Pipelines.h"
#include "tle/Conversion/Passes.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"

#include "tle/Dialect/TLE/IR/TLEDialect.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tle::registerKernelDialects(DialectRegistry &registry) {
  registry.insert<TLEDialect, arith::ArithDialect, cf::ControlFlowDialect,
                  index::IndexDialect, func::FuncDialect, gpu::GPUDialect,
                  LLVM::LLVMDialect, NVVM::NVVMDialect, math::MathDialect,
                  memref::MemRefDialect, nvgpu::NVGPUDialect, scf::SCFDialect,
                  vector::VectorDialect>();
  func::registerInlinerExtension(registry);
}

void tle::buildDeriveSyncPipeline(OpPassManager &pm,
                                  const TLEToLLVMOptions &options) {
  // Helper functions are inlined into the kernels that call them, and
  // dropped, before anything looks at a kernel; nothing else changes (no
  // canonicalization in between). Replicated partitions are written out
  // next, once a helper called with the replica index is inlined and can be
  // folded with it.
  pm.addPass(createInlinerPass({}, [](OpPassManager &) {}));
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createTLEExpandReplicas());
  if (options.verifyPipes)
    pm.addPass(createTLEVerifyPipes({options.strictPipes}));
  pm.addPass(createTLEInferArriveCounts());
  pm.addPass(createTLEAssignPipePhases());
  pm.addPass(createTLEPlaceProxyFences({options.proxyFenceForm}));
}

void tle::buildTLEToLLVMPipeline(OpPassManager &pm,
                                 const TLEToLLVMOptions &options) {
  buildDeriveSyncPipeline(pm, options);
  pm.addPass(createTLELowerPipes());
  pm.addPass(createTLEDistributeTensors());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createTLEAllocateSharedMemory());
  pm.addPass(createTLELowerWarpSpecialize());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createSCFToControlFlowPass());
  // Subviews become reinterpret casts over extracted metadata, whose index
  // arithmetic is affine.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertTLEToNVVM());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

namespace {
/// The command-line form of TLEToLLVMOptions, for both pipelines.
struct TLEPipelineOptions : public PassPipelineOptions<TLEPipelineOptions> {
  Option<bool> verifyPipes{
      *this, "verify-pipes",
      llvm::cl::desc("Check the pipe protocol first (turn off only to build "
                     "a deliberately broken kernel for a test)"),
      llvm::cl::init(true)};
  Option<bool> strictPipes{
      *this, "strict-pipes",
      llvm::cl::desc("Report what the protocol check cannot prove as "
                     "errors, not warnings"),
      llvm::cl::init(false)};
  Option<std::string> proxyFenceForm{
      *this, "proxy-fence-form",
      llvm::cl::desc("The readers' fence for cp.async data: 'acquire' (PTX "
                     "8.6, the default) or 'bidirectional'"),
      llvm::cl::init("acquire")};

  tle::TLEToLLVMOptions get() const {
    tle::TLEToLLVMOptions options;
    options.verifyPipes = verifyPipes;
    options.strictPipes = strictPipes;
    options.proxyFenceForm = proxyFenceForm;
    return options;
  }
};
} // namespace

void tle::registerTLEPipelines() {
  PassPipelineRegistration<TLEPipelineOptions>(
      "tle-derive-sync",
      "Inline helper functions, expand replicated partitions, check the pipe "
      "protocol, derive barriers and counts, assign slots and parities, "
      "place the readers' proxy fences",
      [](OpPassManager &pm, const TLEPipelineOptions &cl) {
        buildDeriveSyncPipeline(pm, cl.get());
      });
  PassPipelineRegistration<TLEPipelineOptions>(
      "tle-to-llvm",
      "Lower TLE kernels all the way to the LLVM dialect with NVVM",
      [](OpPassManager &pm, const TLEPipelineOptions &cl) {
        buildTLEToLLVMPipeline(pm, cl.get());
      });
}
