//===- KernelMetadata.cpp - Launch facts of the kernels in a module -------===//
//
// A cubin says which entry points it has but not how to launch them: the
// block size, the dynamic shared memory and the meaning of each parameter
// are read here from the attributes that the lowering left on the kernels.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Support/Hopper.h"
#include "tle/Target/PTX.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
namespace hopper = ::tle::hopper;

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
  Attribute attr =
      func->getAttr(mlir::tle::TLEDialect::kSharedMemorySizeAttrName);
  if (!attr)
    return 0;
  auto size = dyn_cast<IntegerAttr>(attr);
  if (!size || size.getInt() < 0)
    return emitError(func.getLoc())
           << "'" << mlir::tle::TLEDialect::kSharedMemorySizeAttrName
           << "' must be a non-negative integer, got " << attr;
  return size.getInt();
}

/// The launcher packs arguments by their LLVM types; pointers are spelled
/// "ptr" whatever their address space, since all are 64-bit addresses.
static std::string getParamTypeName(Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return "ptr";
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return name;
}

/// A CUtensorMap passed by value: a pointer with `llvm.byval` of the
/// descriptor's bytes. The launcher packs the descriptor itself, not a
/// pointer, so it is told apart from other pointers.
static bool isTensorMapParam(LLVM::LLVMFuncOp func, unsigned index) {
  auto byval = func.getArgAttrOfType<TypeAttr>(
      index, LLVM::LLVMDialect::getByValAttrName());
  auto array =
      byval ? dyn_cast<LLVM::LLVMArrayType>(byval.getValue()) : nullptr;
  return array && array.getNumElements() == hopper::kTensorMapBytes &&
         array.getElementType().isInteger(8);
}

static json::Array getParams(LLVM::LLVMFuncOp func) {
  json::Array params;
  ArrayRef<Type> types = func.getFunctionType().getParams();
  for (unsigned i = 0; i < types.size(); ++i)
    params.push_back(isTensorMapParam(func, i) ? "tensor_map"
                                               : getParamTypeName(types[i]));
  return params;
}

/// Copies the optional the kernel signature and grid attributes into `kernel`.
static LogicalResult addSourceFacts(LLVM::LLVMFuncOp func,
                                    json::Object &kernel) {
  if (Attribute attr =
          func->getAttr(mlir::tle::TLEDialect::kKernelSignatureAttrName)) {
    auto types = dyn_cast<ArrayAttr>(attr);
    if (!types || !llvm::all_of(types, llvm::IsaPred<StringAttr>))
      return emitError(func.getLoc())
             << "'" << mlir::tle::TLEDialect::kKernelSignatureAttrName
             << "' must be an array of strings, got " << attr;
    json::Array signature;
    for (StringAttr type : types.getAsRange<StringAttr>())
      signature.push_back(type.getValue().str());
    kernel["signature"] = std::move(signature);
  }
  if (Attribute attr = func->getAttr(mlir::tle::TLEDialect::kGridAttrName)) {
    auto grid = dyn_cast<StringAttr>(attr);
    if (!grid)
      return emitError(func.getLoc())
             << "'" << mlir::tle::TLEDialect::kGridAttrName
             << "' must be a string, got " << attr;
    kernel["grid"] = grid.getValue().str();
  }
  return success();
}

static FailureOr<json::Object> getKernel(LLVM::LLVMFuncOp func) {
  FailureOr<json::Array> block = getBlock(func);
  FailureOr<int64_t> sharedMemory = getSharedMemorySize(func);
  if (failed(block) || failed(sharedMemory))
    return failure();
  json::Object kernel{{"name", func.getSymName().str()},
                      {"block", std::move(*block)},
                      {"dynamic_shared_memory", *sharedMemory},
                      {"params", getParams(func)}};
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
  return json::Object{{"chip", chip.str()},
                      {"ptx_version", ptxVersion.str()},
                      {"kernels", std::move(kernels)}};
}
