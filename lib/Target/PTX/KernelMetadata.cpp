//===- KernelMetadata.cpp - Launch facts of the kernels in a module -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A cubin says which entry points it has but not how to launch them: the
// block size, the dynamic shared memory and the meaning of each parameter
// are read here from the attributes that the lowering left on the kernels.
// Each argument is described as data (kind, element type, sizes, layout,
// box), with the keys the runtime reads (tle/Support/KernelMetadataFormat.h),
// so that no reader has to parse MLIR's type syntax.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Support/Hopper.h"
#include "tle/Support/KernelMetadataFormat.h"
#include "tle/Target/PTX.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using mlir::tle::TensorMapType;
using mlir::tle::TLEDialect;
// The runtime's facts and keys live in ::tle, the compiler in mlir::tle.
namespace md = ::tle::metadata;

// json::Value keeps a StringRef without copying it, so every string is
// copied into a std::string first.
namespace json = llvm::json;

/// The launch must use exactly the block size the kernel was compiled for:
/// ptxas needs `.maxntid` to honour setmaxnreg, so a missing one is an
/// error rather than a guess.
static FailureOr<json::Array> getBlock(LLVM::LLVMFuncOp func) {
  StringRef attrName = NVVM::NVVMDialect::getMaxntidAttrName();
  auto maxntid = func->getAttrOfType<DenseI32ArrayAttr>(attrName);
  if (!maxntid)
    return emitError(func.getLoc())
           << "kernel '" << func.getSymName() << "' has no '" << attrName
           << "' attribute; the block size of "
           << "its launch is unknown";
  ArrayRef<int32_t> dims = maxntid.asArrayRef();
  if (dims.empty() || dims.size() > 3)
    return emitError(func.getLoc())
           << "kernel '" << func.getSymName() << "': '" << attrName
           << "' must have 1 to 3 dimensions";
  json::Array block;
  for (unsigned i = 0; i < 3; ++i)
    block.push_back(i < dims.size() ? dims[i] : 1);
  return block;
}

static FailureOr<int64_t> getSharedMemorySize(LLVM::LLVMFuncOp func) {
  Attribute attr = func->getAttr(TLEDialect::kSharedMemorySizeAttrName);
  if (!attr)
    return 0;
  auto size = dyn_cast<IntegerAttr>(attr);
  if (!size || size.getInt() < 0)
    return emitError(func.getLoc())
           << "'" << TLEDialect::kSharedMemorySizeAttrName
           << "' must be a non-negative integer, got " << attr;
  return size.getInt();
}

static std::string print(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// The launcher packs arguments by their LLVM types; pointers are spelled
/// "ptr" whatever their address space, since all are 64-bit addresses.
static std::string getParamTypeName(Type type) {
  return isa<LLVM::LLVMPointerType>(type) ? md::kPtrParam : print(type);
}

/// A CUtensorMap passed by value: a pointer with `llvm.byval` of the
/// descriptor's bytes. The launcher packs the descriptor itself, not a
/// pointer, so it is told apart from other pointers.
static bool isTensorMapParam(LLVM::LLVMFuncOp func, unsigned index) {
  auto byval = func.getArgAttrOfType<TypeAttr>(
      index, LLVM::LLVMDialect::getByValAttrName());
  auto array =
      byval ? dyn_cast<LLVM::LLVMArrayType>(byval.getValue()) : nullptr;
  return array && array.getNumElements() == ::tle::hopper::kTensorMapBytes &&
         array.getElementType().isInteger(8);
}

static json::Array getParams(LLVM::LLVMFuncOp func) {
  json::Array params;
  ArrayRef<Type> types = func.getFunctionType().getParams();
  for (unsigned i = 0; i < types.size(); ++i)
    params.push_back(isTensorMapParam(func, i) ? md::kTensorMapParam
                                               : getParamTypeName(types[i]));
  return params;
}

//===----------------------------------------------------------------------===//
// Argument descriptors
//===----------------------------------------------------------------------===//

/// Sizes, strides and offsets with the runtime's spelling of "dynamic".
static json::Array getDims(ArrayRef<int64_t> dims) {
  json::Array result;
  for (int64_t dim : dims)
    result.push_back(ShapedType::isDynamic(dim) ? md::kDynamic : dim);
  return result;
}

/// `tle.kernel_signature` keeps each argument type as text (the conversion
/// writes it before func-to-llvm expands memrefs); MLIR's own parser turns
/// it back into the type, which the TLE dialect must be loaded to read.
static FailureOr<Type> parseArgumentType(LLVM::LLVMFuncOp func, size_t index,
                                         StringRef text) {
  MLIRContext *context = func.getContext();
  context->getOrLoadDialect<TLEDialect>();
  std::string why;
  Type type;
  {
    ScopedDiagnosticHandler capture(context, [&](Diagnostic &diagnostic) {
      why = diagnostic.str();
      return success();
    });
    type = parseType(text, context);
  }
  if (!type)
    return emitError(func.getLoc())
           << "kernel '" << func.getSymName() << "': argument " << index
           << " of '" << TLEDialect::kKernelSignatureAttrName << "', '" << text
           << "', is not a type: " << why;
  return type;
}

/// Sizes and layout: the identity layout, or the strides and offset of a
/// strided one. Other layouts (affine maps) have no descriptor.
static LogicalResult describeMemRef(LLVM::LLVMFuncOp func, size_t index,
                                    MemRefType memref, json::Object &arg) {
  arg[md::kElementType] = print(memref.getElementType());
  arg[md::kSizes] = getDims(memref.getShape());
  if (memref.getLayout().isIdentity()) {
    arg[md::kLayout] = md::kIdentityLayout;
    return success();
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)))
    return emitError(func.getLoc())
           << "kernel '" << func.getSymName() << "': argument " << index
           << " has type " << memref
           << ", whose layout is not strided; a launch can only pass "
              "memrefs with the identity or a strided layout";
  arg[md::kLayout] = md::kStridedLayout;
  arg[md::kStrides] = getDims(strides);
  arg[md::kOffset] = ShapedType::isDynamic(offset) ? md::kDynamic : offset;
  return success();
}

/// The descriptor of argument `index`, whose type is written `text`: its
/// kind and what a caller must pass for it (docs/Translation.md).
static FailureOr<json::Object> describeArgument(LLVM::LLVMFuncOp func,
                                                size_t index, StringRef text) {
  FailureOr<Type> type = parseArgumentType(func, index, text);
  if (failed(type))
    return failure();
  json::Object arg{{md::kType, text.str()}};
  if (isa<IndexType>(*type)) {
    arg[md::kKind] = md::kIndexKind;
  } else if (type->isSignlessInteger(32)) {
    arg[md::kKind] = md::kI32Kind;
  } else if (type->isF32()) {
    arg[md::kKind] = md::kF32Kind;
  } else if (auto map = dyn_cast<TensorMapType>(*type)) {
    arg[md::kKind] = md::kTensorMapKind;
    arg[md::kElementType] = print(map.getElementType());
    arg[md::kBox] = getDims(map.getBox());
    arg[md::kSwizzle] = map.getSwizzle();
  } else if (auto memref = dyn_cast<MemRefType>(*type)) {
    arg[md::kKind] = md::kMemRefKind;
    if (failed(describeMemRef(func, index, memref, arg)))
      return failure();
  } else {
    return emitError(func.getLoc())
           << "kernel '" << func.getSymName() << "': argument " << index
           << " has type " << *type
           << ", which a launch cannot pass; kernel arguments are memrefs, "
              "tensor maps, index, i32 or f32";
  }
  return arg;
}

/// The descriptors of the arguments listed in `tle.kernel_signature`.
static FailureOr<json::Array> getArgs(LLVM::LLVMFuncOp func, Attribute attr) {
  auto types = dyn_cast<ArrayAttr>(attr);
  if (!types || !llvm::all_of(types, llvm::IsaPred<StringAttr>))
    return emitError(func.getLoc())
           << "'" << TLEDialect::kKernelSignatureAttrName
           << "' must be an array of strings, got " << attr;
  json::Array args;
  for (auto [index, text] : llvm::enumerate(types.getAsRange<StringAttr>())) {
    FailureOr<json::Object> arg = describeArgument(func, index, text);
    if (failed(arg))
      return failure();
    args.push_back(std::move(*arg));
  }
  return args;
}

/// Copies the optional kernel signature, grid and persistent attributes
/// into `kernel`.
static LogicalResult addSourceFacts(LLVM::LLVMFuncOp func,
                                    json::Object &kernel) {
  if (Attribute attr = func->getAttr(TLEDialect::kKernelSignatureAttrName)) {
    FailureOr<json::Array> args = getArgs(func, attr);
    if (failed(args))
      return failure();
    kernel[md::kArgs] = std::move(*args);
  }
  if (Attribute attr = func->getAttr(TLEDialect::kGridAttrName)) {
    auto grid = dyn_cast<StringAttr>(attr);
    if (!grid)
      return emitError(func.getLoc()) << "'" << TLEDialect::kGridAttrName
                                      << "' must be a string, got " << attr;
    kernel[md::kGrid] = grid.getValue().str();
  }
  if (func->hasAttr(TLEDialect::kPersistentAttrName))
    kernel[md::kPersistent] = true;
  return success();
}

static FailureOr<json::Object> getKernel(LLVM::LLVMFuncOp func) {
  FailureOr<json::Array> block = getBlock(func);
  FailureOr<int64_t> sharedMemory = getSharedMemorySize(func);
  if (failed(block) || failed(sharedMemory))
    return failure();
  json::Object kernel{{md::kName, func.getSymName().str()},
                      {md::kBlock, std::move(*block)},
                      {md::kDynamicSharedMemory, *sharedMemory},
                      {md::kParams, getParams(func)}};
  if (failed(addSourceFacts(func, kernel)))
    return failure();
  return kernel;
}

FailureOr<json::Object> mlir::tle::getKernelMetadata(ModuleOp module,
                                                     StringRef chip,
                                                     StringRef ptxVersion) {
  json::Array kernels;
  bool failedAny = false;
  // Every kernel is checked so that all problems are reported at once.
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    if (!func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
      continue;
    FailureOr<json::Object> kernel = getKernel(func);
    if (failed(kernel))
      failedAny = true;
    else
      kernels.push_back(std::move(*kernel));
  }
  if (failedAny)
    return failure();
  return json::Object{{md::kChip, chip.str()},
                      {md::kPTXVersion, ptxVersion.str()},
                      {md::kKernels, std::move(kernels)}};
}
