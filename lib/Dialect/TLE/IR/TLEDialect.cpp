//===- TLEDialect.cpp - TLE dialect registration, types and attributes ----===//

#include "tle/Dialect/TLE/IR/TLEDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tle;

#include "tle/Dialect/TLE/IR/TLEDialect.cpp.inc"
#include "tle/Dialect/TLE/IR/TLEEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tle/Dialect/TLE/IR/TLETypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tle/Dialect/TLE/IR/TLEAttrs.cpp.inc"

#include "tle/Dialect/TLE/IR/TLEInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "tle/Dialect/TLE/IR/TLEOps.cpp.inc"

void TLEDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tle/Dialect/TLE/IR/TLETypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tle/Dialect/TLE/IR/TLEAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tle/Dialect/TLE/IR/TLEOps.cpp.inc"
      >();
}

/// Checks a discardable attribute of a kernel function.
static LogicalResult verifyKernelAttribute(Operation *op, NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  bool valid = false;
  if (name == TLEDialect::kBlockSizeAttrName ||
      name == TLEDialect::kSharedMemorySizeAttrName) {
    auto integer = dyn_cast<IntegerAttr>(value);
    valid = integer && !integer.getValue().isNegative();
  } else if (name == TLEDialect::kKernelSignatureAttrName) {
    auto array = dyn_cast<ArrayAttr>(value);
    valid = array && llvm::all_of(array, llvm::IsaPred<StringAttr>);
  } else if (name == TLEDialect::kGridAttrName) {
    valid = isa<StringAttr>(value);
  } else {
    return op->emitError("unknown TLE attribute '") << name << "'";
  }
  if (!valid)
    return op->emitError("TLE attribute '") << name << "' has a wrong value";
  if (!isa<FunctionOpInterface>(op))
    return op->emitError("TLE attribute '") << name << "' belongs on a kernel "
                                            << "function";
  return success();
}

LogicalResult TLEDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() != kBarriersAttrName)
    return verifyKernelAttribute(op, attr);
  if (!isa<PipeOp>(op))
    return op->emitError("'") << kBarriersAttrName << "' belongs on tle.pipe";
  auto barriers = dyn_cast<ArrayAttr>(attr.getValue());
  if (!barriers || barriers.empty() ||
      !llvm::all_of(barriers, llvm::IsaPred<BarrierAttr>))
    return op->emitError("'") << kBarriersAttrName
                              << "' must be a non-empty array of #tle.barrier";
  return success();
}

std::optional<int64_t> tle::getBufferByteSize(MemRefType type) {
  Type element = type.getElementType();
  int64_t lanes = 1;
  if (auto vector = dyn_cast<VectorType>(element)) {
    if (vector.isScalable())
      return std::nullopt;
    lanes = vector.getNumElements();
    element = vector.getElementType();
  }
  if (!element.isIntOrFloat() || !type.hasStaticShape())
    return std::nullopt;
  return type.getNumElements() * lanes *
         llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
}

bool tle::isSharedMemorySpace(Attribute memorySpace) {
  if (auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(memorySpace))
    return gpuSpace.getValue() == gpu::AddressSpace::Workgroup;
  if (auto intSpace = dyn_cast_or_null<IntegerAttr>(memorySpace))
    return intSpace.getInt() == 3;
  return false;
}

bool ReaderAttr::readsField(StringRef field) const {
  ArrayAttr fields = getFields();
  return fields.empty() ||
         llvm::any_of(fields.getAsValueRange<StringAttr>(),
                      [&](StringRef f) { return f == field; });
}

PipeOp PipeLifecycleOpInterface::getPipeOp() {
  return getPipe().getDefiningOp<PipeOp>();
}

std::string PipeLifecycleOpInterface::describeSide() {
  if (StringAttr reader = getReaderAttr())
    return ("reader '" + reader.getValue() + "'").str();
  return "writer";
}
