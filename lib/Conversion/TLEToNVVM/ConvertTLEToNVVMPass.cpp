//===- ConvertTLEToNVVMPass.cpp - Lower TLE kernels to LLVM and NVVM ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Lowers a kernel module in one dialect conversion: TLE's patterns and the
// upstream ones for every dialect a kernel uses share one type converter, so
// that memref descriptors, address spaces and the index width agree across
// dialects and no intermediate unrealized casts survive.
//
//===----------------------------------------------------------------------===//

#include "tle/Conversion/TLEToNVVM/TLEToNVVM.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Support/Hopper.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
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
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "convert-tle-to-nvvm"

namespace mlir::tle {
#define GEN_PASS_DEF_CONVERTTLETONVVM
#include "tle/Conversion/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;
namespace hopper = ::tle::hopper;

/// Emits an error at `op` if this pass cannot lower it for a reason the
/// author can act on, so that they get that reason rather than a generic
/// "failed to legalize" from the conversion driver.
static LogicalResult checkLowerable(Operation *op) {
  if (auto load = dyn_cast<TMALoadOp>(op); load && !load.getBarriers())
    return load.emitOpError("has no barrier; it must write a pipe slot "
                            "(between tle.acquire and tle.commit, or a "
                            "one_shot pipe's buffer before its tle.commit) "
                            "and run through --tle-lower-pipes first");
  if (auto store = dyn_cast<TMAStoreOp>(op); store && !store.getIssued())
    return store.emitOpError("must be expanded for its partition first; run "
                             "--tle-distribute-tensors");
  if (isa<memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp>(
          op) &&
      llvm::any_of(op->getOperandTypes(), [](Type type) {
        auto memref = dyn_cast<MemRefType>(type);
        return memref && getSwizzleBytes(memref) != 0;
      }))
    return op->emitOpError("accesses a swizzled #tle.shared buffer as if it "
                           "were row-major; use tle.local_load or "
                           "tle.local_store");
  if (llvm::any_of(op->getResultTypes(), [](Type type) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        return tensor && tensor.getEncoding();
      }))
    return op->emitOpError("produces a distributed tensor; run "
                           "--tle-distribute-tensors first");
  if (auto alloc = dyn_cast<SharedAllocOp>(op);
      alloc && !alloc->getParentOfType<FunctionOpInterface>())
    return alloc.emitOpError("is outside every kernel function; shared "
                             "memory belongs to a kernel");
  if (auto alloc = dyn_cast<SharedAllocOp>(op); alloc && !alloc.getOffset())
    return alloc.emitOpError(
        "has no offset; run --tle-allocate-shared-memory first");
  // Structured control flow would survive the conversion with unconverted
  // block arguments and only fail later, in reconcile-unrealized-casts.
  if (isa<scf::SCFDialect>(op->getDialect()))
    return op->emitOpError("must be lowered first; run --convert-scf-to-cf "
                           "before --convert-tle-to-nvvm");
  return success();
}

/// Checks every op, reporting all problems rather than only the first.
static LogicalResult checkPreconditions(ModuleOp module) {
  bool ok = true;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (succeeded(checkLowerable(op)))
      return WalkResult::advance();
    ok = false;
    // An op nested in one already reported adds no information.
    return WalkResult::skip();
  });
  return success(ok);
}

/// A function argument of a type the kernel ABI has no place for (an
/// nvgpu descriptor, a tensor) would fail the conversion of the whole
/// function; name the argument instead.
static LogicalResult checkSignatures(ModuleOp module,
                                     const TypeConverter &converter) {
  bool ok = true;
  module.walk([&](func::FuncOp func) {
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      if (!converter.convertType(type)) {
        func.emitOpError("argument ")
            << i << " of @" << func.getName() << " has type " << type
            << ", which a kernel cannot take as a parameter";
        ok = false;
      }
  });
  return success(ok);
}

/// Whether `func` is a kernel: tle-lower-warp-specialize gives a kernel its
/// block size.
static bool isKernel(func::FuncOp func) {
  return func->hasAttr(TLEDialect::kBlockSizeAttrName);
}

/// Records each kernel's argument types as written, before func-to-llvm
/// expands every memref into several LLVM parameters.
static void recordKernelSignatures(ModuleOp module) {
  module.walk([](func::FuncOp func) {
    if (!isKernel(func))
      return;
    SmallVector<Attribute> types;
    for (Type type : func.getArgumentTypes()) {
      std::string printed;
      llvm::raw_string_ostream os(printed);
      type.print(os);
      types.push_back(StringAttr::get(func.getContext(), printed));
    }
    auto signature = ArrayAttr::get(func.getContext(), types);
    LLVM_DEBUG(llvm::dbgs() << "kernel @" << func.getSymName() << " signature "
                            << signature << "\n");
    func->setAttr(TLEDialect::kKernelSignatureAttrName, signature);
  });
}

/// A tensor map reaches the kernel by value, as the CUDA driver expects
/// of a `const __grid_constant__ CUtensorMap` parameter: a 128-byte,
/// 64-byte aligned .param whose address the TMA instructions take.
static void markTensorMapArguments(ModuleOp module) {
  module.walk([](func::FuncOp func) {
    if (!isKernel(func))
      return;
    Builder b(func.getContext());
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      if (!isa<TensorMapType>(type))
        continue;
      func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(LLVM::LLVMArrayType::get(
                          b.getI8Type(), hopper::kTensorMapBytes)));
      func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                      b.getI64IntegerAttr(hopper::kTensorMapAlignment));
      func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                      b.getUnitAttr());
    }
  });
}

/// func-to-llvm copies the function's discardable attributes onto the
/// llvm.func, where the block size becomes the PTX entry's launch bounds:
/// `.maxntid` and `.minnctapersm 1`. With both, ptxas starts every thread at
/// 65536 / block size registers and honours setmaxnreg; without them it
/// ignores setmaxnreg (warning C7508).
static void markKernels(ModuleOp module) {
  module.walk([&](LLVM::LLVMFuncOp func) {
    auto blockSize =
        func->getAttrOfType<IntegerAttr>(TLEDialect::kBlockSizeAttrName);
    if (!blockSize)
      return;
    Builder b(func.getContext());
    func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                  b.getDenseI32ArrayAttr(
                      {static_cast<int32_t>(blockSize.getInt()), 1, 1}));
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(1));
  });
}

// The runtime shares Hopper.h's numbering, which must be NVVM's.
static_assert(hopper::kGlobalAddressSpace ==
              static_cast<unsigned>(NVVM::NVVMMemorySpace::Global));
static_assert(hopper::kSharedAddressSpace ==
              static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));

/// The NVPTX address space of each gpu address space.
static unsigned mapGpuAddressSpace(gpu::AddressSpace space) {
  switch (space) {
  case gpu::AddressSpace::Global:
    return hopper::kGlobalAddressSpace;
  case gpu::AddressSpace::Workgroup:
    return hopper::kSharedAddressSpace;
  case gpu::AddressSpace::Private:
    return static_cast<unsigned>(NVVM::NVVMMemorySpace::Local);
  }
  llvm_unreachable("unknown gpu address space");
}

/// Adds the type conversions beyond the LLVMTypeConverter's defaults.
static void configureTypeConverter(LLVMTypeConverter &converter) {
  populateGpuMemorySpaceAttributeConversions(converter, mapGpuAddressSpace);
  // cp.async groups are counted by the hardware, so the token that
  // nvgpu.device_async_copy returns carries no value; NVGPU's patterns
  // replace it by an i32, as the upstream NVGPU-to-NVVM pass does.
  converter.addTypeAttributeConversion(
      [](BaseMemRefType type,
         SharedSpaceAttr) -> TypeConverter::AttributeConversionResult {
        return IntegerAttr::get(IntegerType::get(type.getContext(), 64),
                                hopper::kSharedAddressSpace);
      });
  // The kernel parameter is the descriptor's generic address.
  converter.addConversion([](TensorMapType type) {
    return LLVM::LLVMPointerType::get(type.getContext());
  });
  converter.addConversion([&converter](nvgpu::DeviceAsyncTokenType type) {
    return converter.convertType(IntegerType::get(type.getContext(), 32));
  });
}

static void populatePatterns(LLVMTypeConverter &converter,
                             RewritePatternSet &patterns) {
  populateTLEToNVVMConversionPatterns(converter, patterns);
  // arith-to-llvm has no patterns for ceildiv/floordiv, which kernels use
  // for tile counts; these rewrite them into arith ops that it does convert.
  arith::populateCeilFloorDivExpandOpsPatterns(patterns);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  populateFuncToLLVMConversionPatterns(converter, patterns);
  index::populateIndexToLLVMConversionPatterns(converter, patterns);
  populateMathToLLVMConversionPatterns(converter, patterns);
  populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
  populateVectorToLLVMConversionPatterns(converter, patterns);
  populateGpuToNVVMConversionPatterns(converter, patterns);
  populateNVGPUToNVVMConversionPatterns(converter, patterns);
  ub::populateUBToLLVMConversionPatterns(converter, patterns);
}

static void configureTarget(ConversionTarget &target) {
  // Besides LLVM and NVVM being legal and gpu illegal, this makes illegal
  // the LLVM math intrinsics that NVPTX cannot select (llvm.exp, llvm.sin,
  // ...), so that those math ops become libdevice calls instead.
  configureGpuToNVVMConversionLegality(target);
  target.addIllegalDialect<TLEDialect, arith::ArithDialect,
                           cf::ControlFlowDialect, func::FuncDialect,
                           index::IndexDialect, math::MathDialect,
                           memref::MemRefDialect, nvgpu::NVGPUDialect,
                           ub::UBDialect, vector::VectorDialect>();
}

namespace {
struct ConvertTLEToNVVMPass
    : mlir::tle::impl::ConvertTLEToNVVMBase<ConvertTLEToNVVMPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    if (failed(checkPreconditions(module)))
      return signalPassFailure();
    recordKernelSignatures(module);
    markTensorMapArguments(module);

    LowerToLLVMOptions options(context, DataLayout(module));
    LLVMTypeConverter converter(context, options);
    configureTypeConverter(converter);
    if (failed(checkSignatures(module, converter)))
      return signalPassFailure();
    RewritePatternSet patterns(context);
    populatePatterns(converter, patterns);
    ConversionTarget target(*context);
    configureTarget(target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    markKernels(module);
  }
};
} // namespace
