//===- LoadStore.cpp - Tile loads and stores, shared and global -----------===//
//
// tle.local_load/local_store (a whole shared-memory buffer, row-major or
// swizzled) and tle.load/store (a tile of a global memref at some indices,
// bounds-checked) walk the same accesses: a thread's elements cut into runs
// of consecutive elements along the last dimension, one vector access of
// at most 16 bytes each. Only the address of an access and, for global
// memory, its bounds check differ; loads and stores only in the memory op.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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

/// Byte offset of the element at `coordinates` in a shared-memory buffer,
/// before the swizzle's XOR: in the #tle.shared chunks, or row-major by the
/// static shape.
static Value emitSharedOffset(OpBuilder &b, Location loc, MemRefType type,
                              ArrayRef<Value> coordinates,
                              int64_t elementBytes) {
  if (int64_t swizzle = getSwizzleBytes(type))
    return emitSwizzledLinearOffset(b, loc, coordinates[0], coordinates[1],
                                    type.getDimSize(0), swizzle, elementBytes);
  Value linear = createIndex(b, loc, 0);
  for (auto [d, c] : llvm::enumerate(coordinates))
    linear = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, linear,
                              createIndex(b, loc, type.getDimSize(d))),
        c);
  return arith::MulIOp::create(b, loc, linear,
                               createIndex(b, loc, elementBytes));
}

/// Byte offset of the element at `indices` + `coordinates` in a global
/// memref, by its strides; records in `access` what its bounds checks
/// need.
static Value emitGlobalOffset(OpBuilder &b, Location loc,
                              memref::ExtractStridedMetadataOp metadata,
                              ValueRange indices, ArrayRef<Value> coordinates,
                              int64_t elementBytes, TileAccess &access) {
  Value linear = createIndex(b, loc, 0);
  access.outerInBounds = arith::ConstantIntOp::create(b, loc, 1, 1);
  int64_t last = coordinates.size() - 1;
  for (int64_t d = 0; d <= last; ++d) {
    Value index = arith::AddIOp::create(b, loc, indices[d], coordinates[d]);
    if (d == last) {
      access.lastIndex = index;
    } else {
      Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          index, metadata.getSizes()[d]);
      access.outerInBounds =
          arith::AndIOp::create(b, loc, access.outerInBounds, below);
    }
    linear = arith::AddIOp::create(
        b, loc, linear,
        arith::MulIOp::create(b, loc, index, metadata.getStrides()[d]));
  }
  access.lastSize = metadata.getSizes()[last];
  return arith::MulIOp::create(b, loc, linear,
                               createIndex(b, loc, elementBytes));
}

/// The accesses a thread makes to `memory` for its elements of a tensor of
/// `type`: a shared-memory buffer, or the tile of a global memref that
/// starts at `indices`.
static SmallVector<TileAccess> emitTileAccesses(OpBuilder &b, Location loc,
                                                RankedTensorType type,
                                                Value memory,
                                                ValueRange indices) {
  auto memoryType = cast<MemRefType>(memory.getType());
  bool shared = isSharedMemorySpace(memoryType.getMemorySpace());
  int64_t elementBytes = getElementBytes(type.getElementType());
  ThreadMap map = getThreadMap(type);
  SmallVector<Value> bases = emitBases(b, loc, map);
  memref::ExtractStridedMetadataOp metadata;
  if (!shared)
    metadata = memref::ExtractStridedMetadataOp::create(b, loc, memory);
  Value address = getByteAddress(b, loc, memory);
  SmallVector<TileAccess> accesses;
  for (Access access : planAccesses(map, elementBytes)) {
    SmallVector<Value> coordinates =
        getCoordinates(b, loc, map, bases, access.first);
    TileAccess tile{access};
    if (shared) {
      Value byteOffset =
          emitSharedOffset(b, loc, memoryType, coordinates, elementBytes);
      tile.ptr =
          getPointer(b, loc, address, byteOffset, hopper::kSharedAddressSpace,
                     getSwizzleBytes(memoryType));
    } else {
      Value byteOffset = emitGlobalOffset(b, loc, metadata, indices,
                                          coordinates, elementBytes, tile);
      tile.ptr =
          getPointer(b, loc, address, byteOffset, hopper::kGlobalAddressSpace);
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
