//===- Layouts.cpp - Thread maps of TLE's tensor layouts ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/IR/Layouts.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Support/Hopper.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tle;
namespace hopper = ::tle::hopper;

namespace {
/// Rows of one warp's part of a wgmma tile.
constexpr int64_t kMmaWarpRows = 16;
/// Columns of one accumulator register group (two registers per thread).
constexpr int64_t kMmaColumnGroup = 8;
} // namespace

int64_t ThreadMap::evaluateBase(int64_t tid, unsigned dim) const {
  int64_t value = 0;
  for (const IndexTerm &term : base[dim])
    value += ((tid / term.div) % term.mod) * term.mul;
  return value;
}

bool mlir::tle::isDistributedLayout(Attribute encoding) {
  return isa_and_nonnull<MmaLayoutAttr, MmaOperandLayoutAttr, SliceLayoutAttr,
                         BlockedLayoutAttr>(encoding);
}

ArrayRef<int64_t> mlir::tle::getWarpGroupGrid(Attribute layout) {
  if (auto mma = dyn_cast<MmaLayoutAttr>(layout))
    return mma.getWarpGroups();
  return cast<MmaOperandLayoutAttr>(layout).getWarpGroups();
}

int64_t mlir::tle::getNumThreads(Attribute layout) {
  if (isa<MmaLayoutAttr, MmaOperandLayoutAttr>(layout)) {
    ArrayRef<int64_t> grid = getWarpGroupGrid(layout);
    return grid[0] * grid[1] * hopper::kWarpGroupThreads;
  }
  if (auto slice = dyn_cast<SliceLayoutAttr>(layout))
    return getNumThreads(slice.getParent());
  auto blocked = cast<BlockedLayoutAttr>(layout);
  int64_t warps = 1;
  for (int64_t w : blocked.getWarps())
    warps *= w;
  return warps * hopper::kWarpSize;
}

/// The thread map of an #tle.mma (`operand` false) or #tle.mma_operand
/// layout over `shape`: row block by warp group, 16 rows per warp, the quad
/// layout of mma fragments within a warp.
static ThreadMap getMmaThreadMap(ArrayRef<int64_t> grid,
                                 ArrayRef<int64_t> shape, bool operand) {
  int64_t gm = grid[0], gn = grid[1];
  int64_t columns = operand ? shape[1] : shape[1] / gn;
  ThreadMap map;
  map.numThreads = gm * gn * hopper::kWarpGroupThreads;
  map.base.resize(2);
  map.base[0] = {{hopper::kWarpGroupThreads * gn, gm, kMmaRows},
                 {hopper::kWarpSize, hopper::kWarpsPerWarpGroup, kMmaWarpRows},
                 {4, 8, 1}};
  map.base[1] = {{1, 4, 2}};
  if (!operand)
    map.base[1].push_back({hopper::kWarpGroupThreads, gn, columns});
  for (int64_t group = 0; group < columns / kMmaColumnGroup; ++group)
    for (int64_t row : {0, 8})
      for (int64_t column : {0, 1})
        map.offsets.push_back({row, group * kMmaColumnGroup + column});
  map.contiguity = 2;
  return map;
}

static ThreadMap getBlockedThreadMap(BlockedLayoutAttr layout,
                                     ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> perThread = layout.getPerThread();
  ArrayRef<int64_t> threads = layout.getThreads();
  ArrayRef<int64_t> warps = layout.getWarps();
  unsigned rank = shape.size();
  ThreadMap map;
  map.numThreads = getNumThreads(layout);
  map.base.resize(rank);
  int64_t threadDiv = 1, warpDiv = hopper::kWarpSize;
  for (unsigned d = rank; d-- > 0;) {
    map.base[d] = {{threadDiv, threads[d], perThread[d]},
                   {warpDiv, warps[d], perThread[d] * threads[d]}};
    threadDiv *= threads[d];
    warpDiv *= warps[d];
  }
  // Repetitions of the whole block, row-major; within one, the elements of
  // a thread, row-major, so that the last dimension's run is contiguous.
  SmallVector<int64_t> tile(rank), reps(rank);
  for (unsigned d = 0; d < rank; ++d) {
    tile[d] = perThread[d] * threads[d] * warps[d];
    reps[d] = shape[d] / tile[d];
  }
  auto forEachIndex = [](ArrayRef<int64_t> extents,
                         function_ref<void(ArrayRef<int64_t>)> fn) {
    SmallVector<int64_t> index(extents.size(), 0);
    while (true) {
      fn(index);
      unsigned d = extents.size();
      while (d > 0 && ++index[d - 1] == extents[d - 1])
        index[--d] = 0;
      if (d == 0)
        return;
    }
  };
  forEachIndex(reps, [&](ArrayRef<int64_t> rep) {
    forEachIndex(perThread, [&](ArrayRef<int64_t> element) {
      SmallVector<int64_t, 2> offset(rank);
      for (unsigned d = 0; d < rank; ++d)
        offset[d] = rep[d] * tile[d] + element[d];
      map.offsets.push_back(offset);
    });
  });
  map.contiguity = perThread.back();
  return map;
}

/// The smallest extent of dimension `dim` that `layout` can distribute.
static int64_t getMinimalExtent(Attribute layout, unsigned dim) {
  if (auto mma = dyn_cast<MmaLayoutAttr>(layout))
    return dim == 0 ? kMmaRows * mma.getWarpGroups()[0]
                    : kMmaColumnGroup * mma.getWarpGroups()[1];
  if (auto operand = dyn_cast<MmaOperandLayoutAttr>(layout))
    return dim == 0 ? kMmaRows * operand.getWarpGroups()[0] : 16;
  auto blocked = cast<BlockedLayoutAttr>(layout);
  return blocked.getPerThread()[dim] * blocked.getThreads()[dim] *
         blocked.getWarps()[dim];
}

static ThreadMap getThreadMap(Attribute layout, ArrayRef<int64_t> shape);

/// A slice keeps the parent's map along the remaining dimension; elements
/// the parent repeats along the removed one collapse into one.
static ThreadMap getSliceThreadMap(SliceLayoutAttr slice,
                                   ArrayRef<int64_t> shape) {
  unsigned dim = slice.getDim();
  SmallVector<int64_t, 2> parentShape(2);
  parentShape[1 - dim] = shape[0];
  parentShape[dim] = getMinimalExtent(slice.getParent(), dim);
  ThreadMap parent = getThreadMap(slice.getParent(), parentShape);
  ThreadMap map;
  map.numThreads = parent.numThreads;
  map.base = {parent.base[1 - dim]};
  llvm::SetVector<int64_t> kept;
  for (ArrayRef<int64_t> offset : parent.offsets)
    kept.insert(offset[1 - dim]);
  for (int64_t offset : kept)
    map.offsets.push_back({offset});
  map.contiguity = dim == 0 ? parent.contiguity : 1;
  return map;
}

static ThreadMap getThreadMap(Attribute layout, ArrayRef<int64_t> shape) {
  if (auto mma = dyn_cast<MmaLayoutAttr>(layout))
    return getMmaThreadMap(mma.getWarpGroups(), shape, /*operand=*/false);
  if (auto operand = dyn_cast<MmaOperandLayoutAttr>(layout))
    return getMmaThreadMap(operand.getWarpGroups(), shape, /*operand=*/true);
  if (auto slice = dyn_cast<SliceLayoutAttr>(layout))
    return getSliceThreadMap(slice, shape);
  return getBlockedThreadMap(cast<BlockedLayoutAttr>(layout), shape);
}

ThreadMap mlir::tle::getThreadMap(RankedTensorType type) {
  return ::getThreadMap(type.getEncoding(), type.getShape());
}

/// Checks `shape` against `layout`; `what` names the tensor's role.
static LogicalResult verifyShape(Attribute layout, ArrayRef<int64_t> shape,
                                 function_ref<InFlightDiagnostic()> emitError) {
  if (auto slice = dyn_cast<SliceLayoutAttr>(layout)) {
    if (shape.size() != 1)
      return emitError() << "a #tle.slice tensor has rank 1, got rank "
                         << shape.size();
    SmallVector<int64_t, 2> parentShape(2);
    parentShape[1 - slice.getDim()] = shape[0];
    parentShape[slice.getDim()] =
        getMinimalExtent(slice.getParent(), slice.getDim());
    return verifyShape(slice.getParent(), parentShape, emitError);
  }
  if (isa<MmaLayoutAttr, MmaOperandLayoutAttr>(layout)) {
    ArrayRef<int64_t> grid = getWarpGroupGrid(layout);
    bool operand = isa<MmaOperandLayoutAttr>(layout);
    if (shape.size() != 2)
      return emitError() << "a wgmma layout distributes 2-D tensors, got rank "
                         << shape.size();
    if (shape[0] != kMmaRows * grid[0])
      return emitError() << "a wgmma layout with " << grid[0]
                         << " warp group(s) along M holds "
                         << kMmaRows * grid[0] << " rows, got " << shape[0];
    int64_t columnTile = operand ? 16 : kMmaColumnGroup * grid[1];
    if (shape[1] % columnTile != 0)
      return emitError() << "the columns (" << shape[1]
                         << ") of a wgmma layout tensor must be a multiple of "
                         << columnTile;
    return success();
  }
  auto blocked = cast<BlockedLayoutAttr>(layout);
  if (shape.size() != blocked.getPerThread().size())
    return emitError() << "#tle.blocked of rank "
                       << blocked.getPerThread().size()
                       << " cannot distribute a tensor of rank "
                       << shape.size();
  for (auto [d, extent] : llvm::enumerate(shape)) {
    int64_t tile = getMinimalExtent(blocked, d);
    if (extent % tile != 0)
      return emitError() << "dimension " << d << " (" << extent
                         << ") is not a multiple of the layout's block ("
                         << tile << ")";
  }
  return success();
}

LogicalResult
mlir::tle::verifyDistributedType(RankedTensorType type,
                                 function_ref<InFlightDiagnostic()> emitError) {
  Attribute layout = type.getEncoding();
  if (!isDistributedLayout(layout))
    return emitError() << "expects a tensor with a TLE layout (#tle.mma, "
                          "#tle.mma_operand, #tle.slice, #tle.blocked), got "
                       << type;
  if (!type.hasStaticShape())
    return emitError() << "expects a statically shaped tensor, got " << type;
  if (isa<MmaOperandLayoutAttr>(layout) && !type.getElementType().isBF16() &&
      !type.getElementType().isF16())
    return emitError() << "#tle.mma_operand holds bf16 or f16, got "
                       << type.getElementType();
  return verifyShape(layout, type.getShape(), emitError);
}

/// Whether every thread holds the same elements of `a` and `b` in the same
/// order, replicated layouts repeating over the larger thread count.
bool mlir::tle::keepsEveryElementInPlace(RankedTensorType a,
                                         RankedTensorType b) {
  ThreadMap mapA = getThreadMap(a), mapB = getThreadMap(b);
  if (mapA.offsets != mapB.offsets)
    return false;
  int64_t threads = std::max(mapA.numThreads, mapB.numThreads);
  for (int64_t tid = 0; tid < threads; ++tid)
    for (unsigned d = 0; d < mapA.base.size(); ++d)
      if (mapA.evaluateBase(tid, d) != mapB.evaluateBase(tid, d))
        return false;
  return true;
}

std::optional<SmallVector<int64_t>>
mlir::tle::getFoldRegisters(RankedTensorType source, RankedTensorType result,
                            unsigned dim) {
  ThreadMap from = getThreadMap(source), to = getThreadMap(result);
  int64_t width = result.getDimSize(dim);
  unsigned rank = source.getRank();
  SmallVector<int64_t> registers(from.offsets.size(), -1);
  int64_t threads = std::max(from.numThreads, to.numThreads);
  for (int64_t tid = 0; tid < threads; ++tid) {
    SmallVector<bool> reached(to.offsets.size(), false);
    for (auto [i, offset] : llvm::enumerate(from.offsets)) {
      SmallVector<int64_t, 2> coordinate(rank);
      for (unsigned d = 0; d < rank; ++d)
        coordinate[d] = from.evaluateBase(tid, d) + offset[d];
      coordinate[dim] %= width;
      auto *it = llvm::find_if(to.offsets, [&](ArrayRef<int64_t> held) {
        for (unsigned d = 0; d < rank; ++d)
          if (to.evaluateBase(tid, d) + held[d] != coordinate[d])
            return false;
        return true;
      });
      int64_t j = it - to.offsets.begin();
      if (it == to.offsets.end() || (registers[i] != -1 && registers[i] != j))
        return std::nullopt;
      registers[i] = j;
      reached[j] = true;
    }
    if (!llvm::all_of(reached, [](bool r) { return r; }))
      return std::nullopt;
  }
  return registers;
}
