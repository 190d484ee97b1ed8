//===- LoadStore.cpp - Tile loads and stores, shared and global -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle.local_load/local_store (a whole shared-memory buffer, row-major or
// swizzled) and tle.load/store (a tile of a global memref at some indices,
// bounds-checked) walk the same accesses: a thread's elements cut into runs
// of consecutive elements along the last dimension, one vector access of
// at most 16 bytes each. Only the address of an access and, for global
// memory, its bounds check differ; loads and stores only in the memory op.
// 16-bit tiles in a wgmma layout move through shared memory as 8x8
// matrices instead (MatrixLoadStore.cpp).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <map>

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::distribute;

namespace {
/// One access of `count` consecutive elements starting at element `first`
/// of a thread's vector.
struct Access {
  int64_t first, count;
};

/// Where one access goes, and for global memory whether it is in bounds.
struct TileAccess {
  Access access;
  Value ptr;
  /// Global memory only (null in shared memory, where tiles are whole):
  /// whether the whole access lies inside the memref.
  Value inBounds;
  /// Global memory: whether every dimension but the last is in bounds, the
  /// access's index along the last and that dimension's size.
  Value outerInBounds, lastIndex, lastSize;

  /// Whether element `i` of the access lies inside the memref.
  Value emitElementInBounds(OpBuilder &b, Location loc, int64_t i) const {
    Value index =
        arith::AddIOp::create(b, loc, lastIndex, createIndex(b, loc, i));
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        index, lastSize);
    return arith::AndIOp::create(b, loc, outerInBounds, below);
  }
};
} // namespace

/// Splits a thread's elements into accesses of consecutive elements along
/// the last dimension, at most 16 bytes each.
static SmallVector<Access> planAccesses(const ThreadMap &map,
                                        int64_t elementBytes) {
  // The widest power of two that divides the run: a run starts at a
  // multiple of its length, so such an access is aligned to its size.
  int64_t width =
      std::min(map.contiguity, hopper::kMaxAccessBytes / elementBytes);
  width = std::max<int64_t>(width, 1);
  while (map.contiguity % width != 0 || !llvm::isPowerOf2_64(width))
    --width;
  SmallVector<Access> accesses;
  for (int64_t i = 0; i < map.getElementsPerThread(); i += width)
    accesses.push_back({i, width});
  return accesses;
}

/// The coordinates of element `i` of a thread: base + offset.
static SmallVector<Value> getCoordinates(OpBuilder &b, Location loc,
                                         const ThreadMap &map,
                                         ArrayRef<Value> bases, int64_t i) {
  SmallVector<Value> coordinates;
  for (auto [d, base] : llvm::enumerate(bases))
    coordinates.push_back(arith::AddIOp::create(
        b, loc, base, createIndex(b, loc, map.offsets[i][d])));
  return coordinates;
}

/// Records in `access` what the bounds checks of a global access at
/// `indices` + `coordinates` need.
static void emitGlobalBounds(OpBuilder &b, Location loc,
                             memref::ExtractStridedMetadataOp metadata,
                             ValueRange indices, ArrayRef<Value> coordinates,
                             TileAccess &access) {
  access.outerInBounds = arith::ConstantIntOp::create(b, loc, 1, 1);
  int64_t last = coordinates.size() - 1;
  for (int64_t d = 0; d <= last; ++d) {
    Value index = arith::AddIOp::create(b, loc, indices[d], coordinates[d]);
    if (d == last) {
      access.lastIndex = index;
      continue;
    }
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        index, metadata.getSizes()[d]);
    access.outerInBounds =
        arith::AndIOp::create(b, loc, access.outerInBounds, below);
  }
  access.lastSize = metadata.getSizes()[last];
}

namespace {
/// The element strides of a row-major shared buffer or a global memref: a
/// constant where the type fixes it, else the memref's runtime value.
struct Strides {
  SmallVector<int64_t> fixed;
  SmallVector<Value> dynamic;

  Strides(OpBuilder &b, Location loc, MemRefType type,
          memref::ExtractStridedMetadataOp metadata) {
    if (!metadata) {
      // Row-major by the static shape.
      fixed.assign(type.getRank(), 1);
      for (int64_t d = type.getRank() - 2; d >= 0; --d)
        fixed[d] = fixed[d + 1] * type.getDimSize(d + 1);
      dynamic.assign(type.getRank(), Value());
      return;
    }
    auto [strides, offset] = type.getStridesAndOffset();
    for (auto [d, stride] : llvm::enumerate(strides)) {
      bool known = !ShapedType::isDynamic(stride);
      fixed.push_back(known ? stride : 0);
      dynamic.push_back(known ? Value() : metadata.getStrides()[d]);
    }
  }

  /// Elements from the origin to `coordinates`.
  Value emitLinear(OpBuilder &b, Location loc, ArrayRef<Value> coordinates) {
    Value linear = createIndex(b, loc, 0);
    for (auto [d, c] : llvm::enumerate(coordinates)) {
      Value stride = dynamic[d] ? dynamic[d] : createIndex(b, loc, fixed[d]);
      linear = arith::AddIOp::create(b, loc, linear,
                                     arith::MulIOp::create(b, loc, c, stride));
    }
    return linear;
  }
};

/// Pointers to a thread's accesses in a row-major or strided memory: one
/// base per thread, and per access a constant (the static strides) plus,
/// where strides are dynamic, one product per distinct offset, shared by
/// the accesses that need it. The constants end up as immediates of the
/// memory instructions.
class StridedPointers {
public:
  StridedPointers(OpBuilder &b, Location loc, Value threadPointer,
                  Strides strides, int64_t elementBytes)
      : b(b), loc(loc), threadPointer(threadPointer),
        strides(std::move(strides)), elementBytes(elementBytes) {}

  Value get(ArrayRef<int64_t> offset) {
    int64_t constant = 0;
    SmallVector<int64_t> dynamicKey;
    for (auto [d, o] : llvm::enumerate(offset)) {
      constant += o * strides.fixed[d];
      dynamicKey.push_back(strides.dynamic[d] ? o : 0);
    }
    Value ptr = threadPointer;
    if (llvm::any_of(dynamicKey, [](int64_t o) { return o != 0; })) {
      Value &rowPointer = rowPointers[dynamicKey];
      if (!rowPointer) {
        Value elements = createIndex(b, loc, 0);
        for (auto [d, o] : llvm::enumerate(dynamicKey))
          if (o != 0)
            elements = arith::AddIOp::create(
                b, loc, elements,
                arith::MulIOp::create(b, loc, createIndex(b, loc, o),
                                      strides.dynamic[d]));
        Value bytes = arith::IndexCastOp::create(
            b, loc, b.getI64Type(),
            arith::MulIOp::create(b, loc, elements,
                                  createIndex(b, loc, elementBytes)));
        rowPointer = LLVM::GEPOp::create(b, loc, ptr.getType(), b.getI8Type(),
                                         ptr, ValueRange{bytes});
      }
      ptr = rowPointer;
    }
    if (constant == 0)
      return ptr;
    return LLVM::GEPOp::create(
        b, loc, ptr.getType(), b.getI8Type(), ptr,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(constant * elementBytes)});
  }

private:
  OpBuilder &b;
  Location loc;
  Value threadPointer;
  Strides strides;
  int64_t elementBytes;
  std::map<SmallVector<int64_t>, Value> rowPointers;
};
} // namespace

/// The accesses a thread makes to `memory` for its elements of a tensor of
/// `type`: a shared-memory buffer, or the tile of a global memref that
/// starts at `indices`.
static SmallVector<TileAccess> emitTileAccesses(OpBuilder &b, Location loc,
                                                RankedTensorType type,
                                                Value memory,
                                                ValueRange indices) {
  auto memoryType = cast<MemRefType>(memory.getType());
  bool shared = isSharedMemorySpace(memoryType.getMemorySpace());
  int64_t swizzle = getSwizzleBytes(memoryType);
  int64_t elementBytes = getElementBytes(type.getElementType());
  ThreadMap map = getThreadMap(type);
  SmallVector<Value> bases = emitBases(b, loc, map);
  memref::ExtractStridedMetadataOp metadata;
  if (!shared)
    metadata = memref::ExtractStridedMetadataOp::create(b, loc, memory);
  Value address = getByteAddress(b, loc, memory);
  unsigned addressSpace =
      shared ? hopper::kSharedAddressSpace : hopper::kGlobalAddressSpace;

  // Unswizzled memory: the thread's first element, then constants.
  std::optional<StridedPointers> pointers;
  if (swizzle == 0) {
    SmallVector<Value> origin(bases);
    if (!shared)
      for (auto [d, index] : llvm::enumerate(indices))
        origin[d] = arith::AddIOp::create(b, loc, index, bases[d]);
    Strides strides(b, loc, memoryType, metadata);
    Value threadOffset =
        arith::MulIOp::create(b, loc, strides.emitLinear(b, loc, origin),
                              createIndex(b, loc, elementBytes));
    pointers.emplace(b, loc,
                     getPointer(b, loc, address, threadOffset, addressSpace),
                     std::move(strides), elementBytes);
  }

  SmallVector<TileAccess> accesses;
  for (Access access : planAccesses(map, elementBytes)) {
    TileAccess tile{access};
    if (pointers) {
      tile.ptr = pointers->get(map.offsets[access.first]);
    } else {
      // A #tle.shared tile: chunk, row and unit of each access, swizzled.
      SmallVector<Value> coordinates =
          getCoordinates(b, loc, map, bases, access.first);
      Value byteOffset = emitSwizzledLinearOffset(
          b, loc, coordinates[0], coordinates[1], memoryType.getDimSize(0),
          swizzle, elementBytes);
      tile.ptr = getPointer(b, loc, address, byteOffset, addressSpace, swizzle);
    }
    if (!shared) {
      emitGlobalBounds(b, loc, metadata, indices,
                       getCoordinates(b, loc, map, bases, access.first), tile);
      tile.inBounds = tile.emitElementInBounds(b, loc, access.count - 1);
    }
    accesses.push_back(tile);
  }
  return accesses;
}

/// For an access that straddles the end of the last dimension: calls `fn`
/// with each element's index, pointer and whether it is in bounds. (An
/// access of one element never straddles.)
static void
forEachStraddlingElement(OpBuilder &b, Location loc, const TileAccess &tile,
                         Type element,
                         function_ref<void(int64_t, Value, Value)> fn) {
  for (int64_t i = 0; tile.access.count > 1 && i < tile.access.count; ++i) {
    Value ptr =
        LLVM::GEPOp::create(b, loc, tile.ptr.getType(), element, tile.ptr,
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    fn(i, ptr, tile.emitElementInBounds(b, loc, i));
  }
}

/// Out-of-bounds elements are never dereferenced: a whole vector in bounds
/// is one load, one that straddles the end loads element by element under
/// each element's check.
static Value emitCheckedLoad(OpBuilder &b, Location loc, const TileAccess &tile,
                             VectorType vectorType, Attribute padding) {
  Type element = vectorType.getElementType();
  int64_t elementBytes = getElementBytes(element);
  Attribute fill = padding ? padding : b.getZeroAttr(element);
  Value filled = arith::ConstantOp::create(
      b, loc, vectorType, SplatElementsAttr::get(vectorType, fill));
  auto ifOp = scf::IfOp::create(
      b, loc, tile.inBounds,
      [&](OpBuilder &b, Location l) {
        Value loaded = LLVM::LoadOp::create(b, l, vectorType, tile.ptr,
                                            tile.access.count * elementBytes);
        scf::YieldOp::create(b, l, loaded);
      },
      [&](OpBuilder &b, Location l) {
        Value partial = filled;
        forEachStraddlingElement(
            b, l, tile, element, [&](int64_t i, Value ptr, Value inBounds) {
              Value fillValue = extractElement(b, l, filled, i);
              auto one = scf::IfOp::create(
                  b, l, inBounds,
                  [&](OpBuilder &bb, Location ll) {
                    scf::YieldOp::create(
                        bb, ll,
                        LLVM::LoadOp::create(bb, ll, element, ptr, elementBytes)
                            .getResult());
                  },
                  [&](OpBuilder &bb, Location ll) {
                    scf::YieldOp::create(bb, ll, fillValue);
                  });
              partial =
                  vector::InsertOp::create(b, l, one.getResult(0), partial, i);
            });
        scf::YieldOp::create(b, l, partial);
      });
  return ifOp.getResult(0);
}

/// A vector that straddles the end of the last dimension is stored element
/// by element, each under its own check.
static void emitCheckedStore(OpBuilder &b, Location loc, const TileAccess &tile,
                             Value piece) {
  Type element = cast<VectorType>(piece.getType()).getElementType();
  int64_t elementBytes = getElementBytes(element);
  scf::IfOp::create(
      b, loc, tile.inBounds,
      [&](OpBuilder &b, Location l) {
        LLVM::StoreOp::create(b, l, piece, tile.ptr,
                              tile.access.count * elementBytes);
        scf::YieldOp::create(b, l);
      },
      [&](OpBuilder &b, Location l) {
        forEachStraddlingElement(
            b, l, tile, element, [&](int64_t i, Value ptr, Value inBounds) {
              Value value = extractElement(b, l, piece, i);
              scf::IfOp::create(
                  b, l, inBounds, [&](OpBuilder &bb, Location ll) {
                    LLVM::StoreOp::create(bb, ll, value, ptr, elementBytes);
                    scf::YieldOp::create(bb, ll);
                  });
            });
        scf::YieldOp::create(b, l);
      });
}

SmallVector<Value> distribute::emitTileLoad(OpBuilder &b, Location loc,
                                            RankedTensorType type, Value memory,
                                            ValueRange indices,
                                            Attribute padding) {
  if (canMoveAsMatrices(type, memory))
    return emitMatrixLoad(b, loc, type, memory);
  Type element = type.getElementType();
  SmallVector<Value> elements;
  for (const TileAccess &tile :
       emitTileAccesses(b, loc, type, memory, indices)) {
    auto vectorType = VectorType::get({tile.access.count}, element);
    Value loaded =
        tile.inBounds
            ? emitCheckedLoad(b, loc, tile, vectorType, padding)
            : LLVM::LoadOp::create(b, loc, vectorType, tile.ptr,
                                   tile.access.count * getElementBytes(element))
                  .getResult();
    llvm::append_range(elements, extractElements(b, loc, loaded));
  }
  return elements;
}

void distribute::emitTileStore(OpBuilder &b, Location loc, Value vector,
                               RankedTensorType type, Value memory,
                               ValueRange indices) {
  if (canMoveAsMatrices(type, memory))
    return emitMatrixStore(b, loc, vector, type, memory);
  int64_t elementBytes = getElementBytes(type.getElementType());
  for (const TileAccess &tile :
       emitTileAccesses(b, loc, type, memory, indices)) {
    auto mask = llvm::to_vector(llvm::seq<int64_t>(
        tile.access.first, tile.access.first + tile.access.count));
    Value piece = vector::ShuffleOp::create(b, loc, vector, vector, mask);
    if (tile.inBounds)
      emitCheckedStore(b, loc, tile, piece);
    else
      LLVM::StoreOp::create(b, loc, piece, tile.ptr,
                            tile.access.count * elementBytes);
  }
}

namespace {
/// tle.local_load and tle.load: only a global load has indices and padding.
template <typename OpTy> struct TileLoadOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getResult().getType();
    ValueRange indices;
    Attribute padding;
    if constexpr (std::is_same_v<OpTy, LoadOp>) {
      indices = adaptor.getIndices();
      padding = op.getPaddingAttr();
    }
    SmallVector<Value> elements = emitTileLoad(
        rewriter, op.getLoc(), type, op.getSource(), indices, padding);
    rewriter.replaceOp(op, fromElements(rewriter, op.getLoc(),
                                        type.getElementType(), elements));
    return success();
  }
};

/// tle.local_store and tle.store: only a global store has indices.
template <typename OpTy>
struct TileStoreOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange indices;
    if constexpr (std::is_same_v<OpTy, StoreOp>)
      indices = adaptor.getIndices();
    emitTileStore(rewriter, op.getLoc(), adaptor.getValue(),
                  op.getValue().getType(), op.getDestination(), indices);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void distribute::populateLoadStorePatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<TileLoadOpLowering<LocalLoadOp>, TileLoadOpLowering<LoadOp>,
               TileStoreOpLowering<LocalStoreOp>, TileStoreOpLowering<StoreOp>>(
      converter, patterns.getContext());
}
