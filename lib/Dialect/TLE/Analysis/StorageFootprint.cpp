//===- StorageFootprint.cpp - Which shared-memory bytes a memref covers ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/StorageFootprint.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::tle;

/// Enumerating more ranges than this falls back to the bounding range,
/// which covers more bytes and so stays sound.
static constexpr int64_t kMaxRanges = 8192;

namespace {
/// Where a memref's base pointer lies: bytes into an allocation.
struct Base {
  SharedAllocOp root;
  int64_t bytes;
};
} // namespace

/// Where `memref`'s base pointer lies in its allocation, or in `within`
/// (a view it derives from, taken as the start) when that is given.
static FailureOr<Base> resolveBase(Value memref, std::string *unresolved,
                                   Value within) {
  auto fail = [&](const std::string &why) -> FailureOr<Base> {
    if (unresolved)
      *unresolved = why;
    return failure();
  };
  if (within && memref == within)
    return Base{SharedAllocOp(), 0};
  Operation *def = memref.getDefiningOp();
  if (!def)
    return fail(describeValue(memref));
  if (auto alloc = dyn_cast<SharedAllocOp>(def))
    return Base{alloc, 0};
  // These keep the base pointer; the result type says where the view
  // starts relative to it.
  if (isa<memref::SubViewOp, memref::CastOp, memref::ExpandShapeOp,
          memref::CollapseShapeOp, memref::ReinterpretCastOp,
          memref::TransposeOp>(def))
    return resolveBase(cast<ViewLikeOpInterface>(def).getViewSource(),
                       unresolved, within);
  if (auto view = dyn_cast<memref::ViewOp>(def)) {
    std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
    if (!shift)
      return fail(describeOp(def) + ", whose byte shift is not a constant");
    FailureOr<Base> base = resolveBase(view.getSource(), unresolved, within);
    if (failed(base))
      return failure();
    return Base{base->root, base->bytes + *shift};
  }
  if (auto slot = dyn_cast<SlotOp>(def)) {
    std::optional<int64_t> index = getConstantIntValue(slot.getSlot());
    std::optional<int64_t> bytes = getBufferByteSize(slot.getView().getType());
    if (!index || !bytes)
      return fail(describeOp(def) + ", whose slot is not a constant");
    FailureOr<Base> base = resolveBase(slot.getBuffer(), unresolved, within);
    if (failed(base))
      return failure();
    return Base{base->root, base->bytes + *index * *bytes};
  }
  return fail(describeOp(def));
}

/// Sorts and merges overlapping or adjacent ranges.
static void mergeRanges(SmallVectorImpl<std::pair<int64_t, int64_t>> &ranges) {
  llvm::sort(ranges);
  SmallVector<std::pair<int64_t, int64_t>> merged;
  for (auto range : ranges) {
    if (!merged.empty() && range.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, range.second);
    else
      merged.push_back(range);
  }
  ranges.assign(merged.begin(), merged.end());
}

namespace {
/// A memref's elements relative to its base pointer, in elements.
struct Layout {
  SmallVector<int64_t> shape, strides;
  int64_t offset;
};
} // namespace

/// The layout of `memref`: its type's when that is static, else, for a
/// view whose operands are constants (a subview whose offsets became
/// constants that the canonicalizer would not fold into its type, a cast
/// of a static view), computed from its source.
static std::optional<Layout> getStaticLayout(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  Layout layout;
  if (type.hasStaticShape() &&
      succeeded(type.getStridesAndOffset(layout.strides, layout.offset)) &&
      !ShapedType::isDynamic(layout.offset) &&
      llvm::none_of(layout.strides, ShapedType::isDynamic)) {
    layout.shape = llvm::to_vector(type.getShape());
    return layout;
  }
  if (auto cast = memref.getDefiningOp<memref::CastOp>())
    return getStaticLayout(cast.getSource());
  auto subview = memref.getDefiningOp<memref::SubViewOp>();
  if (!subview)
    return std::nullopt;
  std::optional<Layout> source = getStaticLayout(subview.getSource());
  std::optional<SmallVector<int64_t>> offsets =
      getConstantIntValues(subview.getMixedOffsets());
  std::optional<SmallVector<int64_t>> sizes =
      getConstantIntValues(subview.getMixedSizes());
  std::optional<SmallVector<int64_t>> steps =
      getConstantIntValues(subview.getMixedStrides());
  if (!source || !offsets || !sizes || !steps)
    return std::nullopt;
  llvm::SmallBitVector dropped = subview.getDroppedDims();
  layout.offset = source->offset;
  for (unsigned d = 0; d < offsets->size(); ++d) {
    layout.offset += (*offsets)[d] * source->strides[d];
    if (dropped.test(d))
      continue;
    layout.shape.push_back((*sizes)[d]);
    layout.strides.push_back((*steps)[d] * source->strides[d]);
  }
  return layout;
}

/// The footprint of `memref` relative to its allocation, or to `within`.
static FailureOr<StorageFootprint>
computeFootprint(Value memref, std::string *unresolved, Value within) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type)
    return failure();
  FailureOr<Base> base = resolveBase(memref, unresolved, within);
  if (failed(base))
    return failure();
  std::optional<Layout> layout = getStaticLayout(memref);
  if (!layout || !type.getElementType().isIntOrFloat() ||
      type.getElementTypeBitWidth() % 8 != 0) {
    if (unresolved) {
      llvm::raw_string_ostream os(*unresolved);
      os << "a view of type " << type << ", whose layout is not static";
    }
    return failure();
  }
  int64_t element = type.getElementTypeBitWidth() / 8;
  StorageFootprint footprint{base->root, {}};
  int64_t start = base->bytes + layout->offset * element;
  if (llvm::is_contained(layout->shape, 0))
    return footprint;
  // Dimensions from the innermost stride out; those that continue a
  // contiguous run widen it, the others are enumerated.
  SmallVector<std::pair<int64_t, int64_t>> dims; // (stride bytes, size)
  ArrayRef<int64_t> strides = layout->strides;
  for (auto [stride, size] : llvm::zip(strides, layout->shape))
    if (size > 1)
      dims.push_back({std::abs(stride) * element, size});
  bool negative = llvm::any_of(strides, [](int64_t s) { return s < 0; });
  llvm::sort(dims);
  int64_t run = element;
  unsigned outer = 0;
  while (outer < dims.size() && dims[outer].first == run)
    run *= dims[outer++].second;
  int64_t count = 1, extent = 0;
  for (unsigned d = 0; d < dims.size(); ++d) {
    if (d >= outer)
      count *= dims[d].second;
    extent += (dims[d].second - 1) * dims[d].first;
  }
  if (negative || count > kMaxRanges) {
    int64_t low = negative ? start - extent : start;
    footprint.ranges.push_back({low, low + extent + element});
    return footprint;
  }
  SmallVector<int64_t> index(dims.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t at = start;
    for (unsigned d = outer; d < dims.size(); ++d)
      at += index[d] * dims[d].first;
    footprint.ranges.push_back({at, at + run});
    for (unsigned d = outer; d < dims.size(); ++d) {
      if (++index[d] < dims[d].second)
        break;
      index[d] = 0;
    }
  }
  mergeRanges(footprint.ranges);
  return footprint;
}

FailureOr<StorageFootprint> tle::getStorageFootprint(Value memref,
                                                     std::string *unresolved) {
  return computeFootprint(memref, unresolved, Value());
}

FailureOr<StorageFootprint> tle::getFootprintWithin(Value memref, Value within,
                                                    std::string *unresolved) {
  return computeFootprint(memref, unresolved, within);
}

FailureOr<StorageFootprint> tle::getSlotFootprint(Value field, int64_t slot) {
  FailureOr<StorageFootprint> whole = getStorageFootprint(field);
  auto type = cast<MemRefType>(field.getType());
  std::optional<int64_t> bytes = getBufferByteSize(type);
  if (failed(whole) || !bytes || whole->ranges.size() != 1 ||
      type.getDimSize(0) < 1)
    return failure();
  int64_t slotBytes = *bytes / type.getDimSize(0);
  int64_t start = whole->ranges.front().first + slot * slotBytes;
  return StorageFootprint{whole->root, {{start, start + slotBytes}}};
}

bool StorageFootprint::overlaps(const StorageFootprint &other) const {
  if (root != other.root)
    return false;
  auto a = ranges.begin(), b = other.ranges.begin();
  while (a != ranges.end() && b != other.ranges.end()) {
    if (a->second <= b->first)
      ++a;
    else if (b->second <= a->first)
      ++b;
    else
      return true;
  }
  return false;
}

bool StorageFootprint::contains(const StorageFootprint &other) const {
  if (root != other.root)
    return other.ranges.empty();
  // Each range of `other` lies inside one range here: ranges are merged.
  return llvm::all_of(other.ranges, [&](auto range) {
    return llvm::any_of(ranges, [&](auto mine) {
      return mine.first <= range.first && range.second <= mine.second;
    });
  });
}

std::string
StorageFootprint::describeOverlap(const StorageFootprint &other) const {
  int64_t low = INT64_MAX, high = INT64_MIN;
  for (auto a : ranges)
    for (auto b : other.ranges)
      if (std::max(a.first, b.first) < std::min(a.second, b.second)) {
        low = std::min(low, std::max(a.first, b.first));
        high = std::max(high, std::min(a.second, b.second));
      }
  if (low >= high)
    return "no bytes";
  return "bytes " + std::to_string(low) + ".." + std::to_string(high - 1) +
         " of " + describeStorage(root);
}

std::string tle::describeStorage(SharedAllocOp root) {
  if (std::optional<StringRef> name = root.getName())
    return "buffer '" + name->str() + "'";
  return describeOp(root);
}

/// The allocation a memref is a view of, through any view-like ops.
static SharedAllocOp findRoot(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref.getDefiningOp<SharedAllocOp>();
}

bool tle::mayShareStorage(Value a, Value b) {
  if (a == b)
    return true;
  FailureOr<StorageFootprint> x = getStorageFootprint(a);
  FailureOr<StorageFootprint> y = getStorageFootprint(b);
  if (succeeded(x) && succeeded(y))
    return x->overlaps(*y);
  SharedAllocOp rootA = findRoot(a), rootB = findRoot(b);
  return !rootA || !rootB || rootA == rootB;
}

SmallVector<Value> tle::getDerivedViews(Value value) {
  llvm::SetVector<Value> views;
  views.insert(value);
  for (unsigned i = 0; i < views.size(); ++i)
    for (Operation *user : views[i].getUsers())
      if (auto viewLike = dyn_cast<ViewLikeOpInterface>(user);
          viewLike && viewLike.getViewSource() == views[i])
        views.insert(viewLike->getResults().begin(),
                     viewLike->getResults().end());
  return views.takeVector();
}

SmallVector<Value> tle::getViewsSharingStorage(Value buffer) {
  SharedAllocOp root = findRoot(buffer);
  FailureOr<StorageFootprint> footprint = getStorageFootprint(buffer);
  if (!root || failed(footprint))
    return getDerivedViews(buffer);
  SmallVector<Value> sharing;
  for (Value view : getDerivedViews(root.getBuffer())) {
    FailureOr<StorageFootprint> other = getStorageFootprint(view);
    if (failed(other) || other->overlaps(*footprint))
      sharing.push_back(view);
  }
  return sharing;
}
