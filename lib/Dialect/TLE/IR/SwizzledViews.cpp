//===- SwizzledViews.cpp - Where a view of a #tle.shared tile starts ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/IR/SwizzledViews.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tle;

/// Rows of one swizzle pattern: a view that starts a whole number of them
/// into its source keeps the pattern of every row.
static constexpr int64_t kPatternRows = 8;

/// "rows [0, 64) and columns [256, 512)".
static std::string describeCut(ArrayRef<int64_t> offsets,
                               ArrayRef<int64_t> sizes) {
  auto range = [](int64_t offset, int64_t size) {
    if (ShapedType::isDynamic(offset) || ShapedType::isDynamic(size))
      return std::string("[?)");
    return "[" + std::to_string(offset) + ", " + std::to_string(offset + size) +
           ")";
  };
  size_t rank = offsets.size();
  return "rows " + range(offsets[rank - 2], sizes[rank - 2]) + " and columns " +
         range(offsets[rank - 1], sizes[rank - 1]);
}

/// One memref.subview of a swizzled tile, cut at `offsets`: checks that its
/// result is again a swizzled tile (chunk stride = its own rows) and returns
/// the bytes between its strided start and its swizzled start.
static FailureOr<int64_t>
getCutCorrection(memref::SubViewOp subview, ArrayRef<int64_t> offsets,
                 function_ref<InFlightDiagnostic()> emitError) {
  MemRefType source = subview.getSourceType();
  int64_t rank = source.getRank();
  ArrayRef<int64_t> sizes = subview.getStaticSizes();
  auto [strides, unusedOffset] = source.getStridesAndOffset();
  auto reject = [&](StringRef rule) -> FailureOr<int64_t> {
    InFlightDiagnostic diag = emitError() << "is " << describeOp(subview);
    if (rank >= 2)
      diag << ", which cuts " << describeCut(offsets, sizes) << " out of "
           << source;
    diag << "; a view of a swizzled tile " << rule;
    return failure();
  };
  if (rank < 2 || !source.getElementType().isIntOrFloat())
    return reject("needs a source of at least two dimensions holding "
                  "integer or float elements");
  llvm::SmallBitVector dropped = subview.getDroppedDims();
  if (dropped.test(rank - 2) || dropped.test(rank - 1))
    return reject("keeps the tile's rows and columns as its last two "
                  "dimensions");
  if (llvm::any_of(subview.getStaticStrides(),
                   [](int64_t stride) { return stride != 1; }))
    return reject("takes every element along each dimension (unit strides)");
  int64_t r0 = offsets[rank - 2], c0 = offsets[rank - 1];
  int64_t m = sizes[rank - 2], n = sizes[rank - 1];
  if (llvm::any_of(ArrayRef<int64_t>{r0, c0, m, n}, ShapedType::isDynamic) ||
      ShapedType::isDynamic(strides[rank - 2]) ||
      ShapedType::isDynamic(strides[rank - 1]))
    return reject("cuts rows and columns known at compile time out of a "
                  "source with static strides");

  int64_t swizzle = getSwizzleBytes(source);
  int64_t elementBytes = source.getElementTypeBitWidth() / 8;
  int64_t width = swizzle / elementBytes;
  int64_t rows = source.getDimSize(rank - 2);
  int64_t columns = source.getDimSize(rank - 1);
  bool allColumns = c0 == 0 && n == columns;
  bool allRows = r0 == 0 && m == rows;
  if (!allColumns && (c0 % width != 0 || n % width != 0))
    return reject(("takes whole " + Twine(width) +
                   "-column swizzle chunks (the " + Twine(swizzle) +
                   "-byte rows of the layout)")
                      .str());
  if (!allRows &&
      (r0 % kPatternRows != 0 || m % kPatternRows != 0 || n != width))
    return reject(("takes every row, or whole " + Twine(kPatternRows) +
                   "-row groups of a single " + Twine(width) +
                   "-column swizzle chunk (the chunks of a tile are its "
                   "rows apart)")
                      .str());
  int64_t swizzled = (c0 / width) * rows * swizzle + r0 * swizzle;
  int64_t strided =
      (r0 * strides[rank - 2] + c0 * strides[rank - 1]) * elementBytes;
  return swizzled - strided;
}

/// `value` with the replica index `index` set to `replica`, when folding
/// the pure ops it is computed with gives an integer.
static std::optional<int64_t> evaluateForReplica(Value value, Value index,
                                                 int64_t replica,
                                                 unsigned depth = 0) {
  if (value == index)
    return replica;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  Operation *def = value.getDefiningOp();
  if (!def || def->getNumResults() != 1 || !isPure(def) || depth > 16)
    return std::nullopt;
  SmallVector<Attribute> operands;
  for (Value operand : def->getOperands()) {
    std::optional<int64_t> known =
        evaluateForReplica(operand, index, replica, depth + 1);
    if (!known || !operand.getType().isIntOrIndex())
      return std::nullopt;
    operands.push_back(IntegerAttr::get(operand.getType(), *known));
  }
  SmallVector<OpFoldResult> folded;
  if (failed(def->fold(operands, folded)) || folded.size() != 1)
    return std::nullopt;
  if (auto same = dyn_cast<Value>(folded.front()))
    return evaluateForReplica(same, index, replica, depth + 1);
  if (auto attr = dyn_cast<IntegerAttr>(cast<Attribute>(folded.front())))
    return attr.getValue().getSExtValue();
  return std::nullopt;
}

/// Checks one memref.subview step. Offsets computed from the replica index
/// of a replicated partition are checked for every replica (the correction
/// is replica 0's: passes that use it see the replicas expanded, where the
/// offsets are static).
static FailureOr<int64_t>
getStepCorrection(memref::SubViewOp subview,
                  function_ref<InFlightDiagnostic()> emitError) {
  ArrayRef<int64_t> offsets = subview.getStaticOffsets();
  auto ws = subview->getParentOfType<WarpSpecializeOp>();
  std::optional<unsigned> partition =
      ws ? ws.getPartitionOf(subview) : std::nullopt;
  if (!partition || !ws.isReplicated(*partition) ||
      llvm::none_of(offsets, ShapedType::isDynamic))
    return getCutCorrection(subview, offsets, emitError);
  Value index = ws.getPartitionRegion(*partition).getArgument(0);
  std::optional<int64_t> first;
  for (unsigned r = 0, e = ws.getNumReplicas(*partition); r < e; ++r) {
    SmallVector<int64_t> replicaOffsets;
    for (OpFoldResult offset : subview.getMixedOffsets()) {
      std::optional<int64_t> known =
          isa<Attribute>(offset)
              ? getConstantIntValue(offset)
              : evaluateForReplica(cast<Value>(offset), index, r);
      replicaOffsets.push_back(known.value_or(ShapedType::kDynamic));
    }
    FailureOr<int64_t> correction =
        getCutCorrection(subview, replicaOffsets, emitError);
    if (failed(correction))
      return failure();
    first = first.value_or(*correction);
  }
  return *first;
}

FailureOr<int64_t>
tle::getSwizzledViewCorrection(Value view,
                               function_ref<InFlightDiagnostic()> emitError) {
  int64_t correction = 0;
  while (true) {
    // A cast keeps the start (canonicalization casts a static offset in),
    // and a reclaimed part is the view it was cut as.
    if (auto cast = view.getDefiningOp<memref::CastOp>()) {
      view = cast.getSource();
      continue;
    }
    if (auto reclaim = view.getDefiningOp<ReclaimOp>();
        reclaim && reclaim.getPart()) {
      view = reclaim.getPart();
      continue;
    }
    auto subview = view.getDefiningOp<memref::SubViewOp>();
    if (!subview)
      break;
    FailureOr<int64_t> step = getStepCorrection(subview, emitError);
    if (failed(step))
      return failure();
    correction += *step;
    view = subview.getSource();
  }
  // A strided start that no subview here explains (a view passed in as an
  // argument or through control flow) cannot be placed in the layout. The
  // distribution pass states a corrected start with a reinterpret_cast.
  auto root = cast<MemRefType>(view.getType());
  if (!root.getLayout().isIdentity() &&
      !view.getDefiningOp<memref::ReinterpretCastOp>()) {
    emitError() << "is a view of a swizzled tile that does not start at a "
                   "memref.subview chain from the tile ("
                << root
                << "); cut views with memref.subview where they are used";
    return failure();
  }
  return correction;
}
