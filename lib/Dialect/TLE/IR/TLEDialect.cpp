//===- TLEDialect.cpp - TLE dialect registration, types and attributes ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Support/Hopper.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tle;
namespace hopper = ::tle::hopper;

#include "tle/Dialect/TLE/IR/TLEDialect.cpp.inc"
#include "tle/Dialect/TLE/IR/TLEEnums.cpp.inc"

/// `128x64xbf16`: a box shape and its element type.
static ParseResult parseBoxShape(AsmParser &parser, SmallVector<int64_t> &box,
                                 Type &elementType) {
  if (parser.parseDimensionList(box, /*allowDynamic=*/false,
                                /*withTrailingX=*/true))
    return failure();
  return parser.parseType(elementType);
}

static void printBoxShape(AsmPrinter &printer, ArrayRef<int64_t> box,
                          Type elementType) {
  for (int64_t extent : box)
    printer << extent << 'x';
  printer << elementType;
}

#define GET_TYPEDEF_CLASSES
#include "tle/Dialect/TLE/IR/TLETypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tle/Dialect/TLE/IR/TLEAttrs.cpp.inc"

#include "tle/Dialect/TLE/IR/TLEInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "tle/Dialect/TLE/IR/TLEOps.cpp.inc"

namespace {
/// Every TLE op may be inlined, and a call may be inlined into any region
/// of a TLE op (a partition of tle.warp_specialize): helper functions of a
/// kernel are inlined before the protocol check sees it. What an inlined
/// body does wrongly there (a pipe op in the wrong partition, a layout that
/// does not fit) is reported by the checks that follow.
struct TLEInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

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
  addInterfaces<TLEInlinerInterface>();
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
  } else if (name == TLEDialect::kPersistentAttrName) {
    valid = isa<UnitAttr>(value);
  } else if (name == TLEDialect::kCpAsyncFenceAttrName) {
    auto mode = dyn_cast<StringAttr>(value);
    if (!mode || (mode.getValue() != "readers" && mode.getValue() != "none"))
      return op->emitError("TLE attribute '")
             << name << "' must be \"readers\" or \"none\"";
    valid = true;
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

bool mlir::tle::readersFenceCpAsync(Operation *op) {
  if (!isa<FunctionOpInterface>(op))
    op = op->getParentOfType<FunctionOpInterface>();
  auto mode =
      op ? op->getAttrOfType<StringAttr>(TLEDialect::kCpAsyncFenceAttrName)
         : StringAttr();
  return !mode || mode.getValue() != "none";
}

std::optional<int64_t> mlir::tle::getBufferByteSize(MemRefType type) {
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
  // Saturates, so that an absurd shape is reported as too large rather
  // than wrapped into a plausible size.
  uint64_t bytes = lanes * llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  for (int64_t dim : type.getShape())
    bytes = llvm::SaturatingMultiply(bytes, static_cast<uint64_t>(dim));
  return static_cast<int64_t>(
      std::min<uint64_t>(bytes, std::numeric_limits<int64_t>::max()));
}

bool mlir::tle::isSharedMemorySpace(Attribute memorySpace) {
  if (isa_and_nonnull<SharedSpaceAttr>(memorySpace))
    return true;
  if (auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(memorySpace))
    return gpuSpace.getValue() == gpu::AddressSpace::Workgroup;
  if (auto intSpace = dyn_cast_or_null<IntegerAttr>(memorySpace))
    return intSpace.getInt() == hopper::kSharedAddressSpace;
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

int64_t mlir::tle::getSwizzleBytes(MemRefType type) {
  if (auto space = dyn_cast_or_null<SharedSpaceAttr>(type.getMemorySpace()))
    return space.getSwizzle();
  return 0;
}

static bool isValidSwizzle(int64_t swizzle, bool allowNone) {
  return (allowNone && swizzle == 0) || swizzle == 32 || swizzle == 64 ||
         swizzle == 128;
}

LogicalResult
SharedSpaceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        int64_t swizzle) {
  if (!isValidSwizzle(swizzle, /*allowNone=*/false))
    return emitError() << "swizzle must be 32, 64 or 128 bytes, got "
                       << swizzle;
  return success();
}

/// Checks a warp-group grid `[gm, gn]` of a wgmma layout.
static LogicalResult
verifyWarpGroupGrid(function_ref<InFlightDiagnostic()> emitError,
                    ArrayRef<int64_t> grid) {
  if (grid.size() != 2 || grid[0] < 1 || grid[1] < 1)
    return emitError() << "warp_groups must be two positive counts [gm, gn]";
  // Each count is bounded before the product, which could overflow.
  constexpr int64_t maxGroups =
      hopper::kMaxWarpsPerCTA / hopper::kWarpsPerWarpGroup;
  if (grid[0] > maxGroups || grid[1] > maxGroups ||
      grid[0] * grid[1] > maxGroups)
    return emitError() << "warp_groups [" << grid[0] << ", " << grid[1]
                       << "] needs more warps than a CTA has";
  return success();
}

LogicalResult
MmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<int64_t> warpGroups) {
  return verifyWarpGroupGrid(emitError, warpGroups);
}

LogicalResult
MmaOperandLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             ArrayRef<int64_t> warpGroups) {
  return verifyWarpGroupGrid(emitError, warpGroups);
}

LogicalResult
SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        int64_t dim, Attribute parent) {
  if (dim != 0 && dim != 1)
    return emitError() << "a slice removes dimension 0 or 1, got " << dim;
  bool twoDimensional =
      isa<MmaLayoutAttr>(parent) ||
      (isa<BlockedLayoutAttr>(parent) &&
       cast<BlockedLayoutAttr>(parent).getPerThread().size() == 2);
  if (!twoDimensional)
    return emitError() << "a slice's parent must be a 2-D #tle.mma or "
                          "#tle.blocked layout, got "
                       << parent;
  return success();
}

LogicalResult
BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<int64_t> perThread,
                          ArrayRef<int64_t> threads, ArrayRef<int64_t> warps) {
  if (perThread.empty() || perThread.size() != threads.size() ||
      perThread.size() != warps.size())
    return emitError() << "per_thread, threads and warps need one entry per "
                          "dimension";
  // A bound far above any register file, so that block sizes computed from
  // the layout never overflow.
  constexpr int64_t kMaxPerThread = int64_t(1) << 20;
  int64_t threadCount = 1, warpCount = 1, elementCount = 1;
  for (auto [p, t, w] : llvm::zip_equal(perThread, threads, warps)) {
    if (p < 1 || t < 1 || w < 1)
      return emitError() << "per_thread, threads and warps must be positive";
    if (p > kMaxPerThread || t > hopper::kMaxThreadsPerCTA ||
        w > hopper::kMaxThreadsPerCTA)
      return emitError() << "per_thread entries are at most " << kMaxPerThread
                         << ", threads and warps entries at most "
                         << hopper::kMaxThreadsPerCTA;
    threadCount *= t;
    warpCount *= w;
    elementCount *= p;
    if (elementCount > kMaxPerThread)
      return emitError() << "a thread would hold more than " << kMaxPerThread
                         << " elements of one block";
  }
  if (threadCount != hopper::kWarpSize)
    return emitError() << "threads must multiply to the warp size ("
                       << hopper::kWarpSize << "), got " << threadCount;
  if (warpCount > hopper::kMaxWarpsPerCTA)
    return emitError() << "warps multiply to " << warpCount
                       << ", more than a CTA has";
  return success();
}

LogicalResult
TensorMapType::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<int64_t> box, Type elementType,
                      int64_t swizzle) {
  if (box.empty() || box.size() > hopper::kMaxTensorMapRank)
    return emitError() << "a TMA box has 1 to " << hopper::kMaxTensorMapRank
                       << " dimensions, got " << box.size();
  if (llvm::any_of(box, [](int64_t e) { return e < 1 || e > 256; }))
    return emitError() << "TMA box dimensions are 1..256";
  if (!elementType.isIntOrFloat() || elementType.getIntOrFloatBitWidth() % 8)
    return emitError() << "a TMA element type is a whole number of bytes, got "
                       << elementType;
  if (!isValidSwizzle(swizzle, /*allowNone=*/true))
    return emitError() << "swizzle must be 0, 32, 64 or 128 bytes, got "
                       << swizzle;
  int64_t innerBytes = box.back() * elementType.getIntOrFloatBitWidth() / 8;
  if (innerBytes % 16 != 0)
    return emitError() << "the innermost box dimension spans " << innerBytes
                       << " bytes; TMA needs a multiple of 16";
  if (swizzle != 0 && innerBytes > swizzle)
    return emitError() << "the innermost box dimension spans " << innerBytes
                       << " bytes, more than the " << swizzle
                       << "-byte swizzle";
  return success();
}
