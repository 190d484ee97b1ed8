//===- Patterns.h - The op families of --tle-distribute-tensors -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Private to the pass. Each op family lowers in its own file and exports
// one populate function; the helpers below are what more than one family
// needs: values of the thread's vector, the thread's coordinates, addresses
// in shared and global memory, tile loads and stores, and the scratch
// buffers of exchanges between threads.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_LIB_DIALECT_TLE_TRANSFORMS_DISTRIBUTETENSORS_PATTERNS_H
#define TLE_LIB_DIALECT_TLE_TRANSFORMS_DISTRIBUTETENSORS_PATTERNS_H

#include "tle/Dialect/TLE/IR/Layouts.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Support/Hopper.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tle::distribute {

namespace hopper = ::tle::hopper;

//===----------------------------------------------------------------------===//
// Populate functions, one per op family
//===----------------------------------------------------------------------===//

/// Element-wise arith/math ops, splat constants, tle.splat, tle.iota.
void populateElementwisePatterns(const TypeConverter &converter,
                                 RewritePatternSet &patterns);
/// tle.wgmma, tle.wgmma_wait.
void populateWgmmaPatterns(const TypeConverter &converter,
                           RewritePatternSet &patterns);
/// tle.reduce, tle.broadcast, tle.scale.
void populateReducePatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns);
/// tle.convert_layout.
void populateConvertLayoutPatterns(const TypeConverter &converter,
                                   RewritePatternSet &patterns);
/// tle.local_load, tle.local_store, tle.load, tle.store.
void populateLoadStorePatterns(const TypeConverter &converter,
                               RewritePatternSet &patterns);
/// tle.gather_rows.
void populateGatherRowsPatterns(const TypeConverter &converter,
                                RewritePatternSet &patterns);
/// tle.gather_rows_fp8.
void populateGatherRowsFp8Patterns(const TypeConverter &converter,
                                   RewritePatternSet &patterns);
/// tle.tma_load and tle.tma_store on a view of a swizzled tile (lowered
/// later, by convert-tle-to-nvvm): the tile's start corrected; and
/// tle.tma_store expanded around its issued form (TMA.cpp).
void populateTMAPatterns(const TypeConverter &converter,
                         RewritePatternSet &patterns);
/// Whether tle.tma_load `op` is left as it is.
bool isLegalTMALoad(TMALoadOp op);
/// Whether tle.tma_store `op` is left as it is (its issued form).
bool isLegalTMAStore(TMAStoreOp op);

//===----------------------------------------------------------------------===//
// Types and the thread's values (Utility.cpp)
//===----------------------------------------------------------------------===//

/// Every tensor with a TLE layout becomes the vector of the elements one
/// thread holds, in register order.
class DistributedTypeConverter : public TypeConverter {
public:
  DistributedTypeConverter();
};

/// `type` if it is a tensor with a TLE layout, else null.
RankedTensorType getDistributedType(Type type);

Value createIndex(OpBuilder &b, Location loc, int64_t value);
Value createI32(OpBuilder &b, Location loc, int64_t value);
int64_t getElementBytes(Type type);

Value extractElement(OpBuilder &b, Location loc, Value vector, int64_t i);
SmallVector<Value> extractElements(OpBuilder &b, Location loc, Value vector);
Value fromElements(OpBuilder &b, Location loc, Type elementType,
                   ArrayRef<Value> elements);

/// `value`, an index equal in every lane of a warp, as lane 0 holds it:
/// the shuffle tells ptxas that the result is warp-uniform, so that what is
/// computed from it can live in uniform registers.
Value emitWarpUniform(OpBuilder &b, Location loc, Value value);

/// The thread's base coordinate along `dim` (see ThreadMap).
Value emitBase(OpBuilder &b, Location loc, const ThreadMap &map, unsigned dim);
/// The thread's base coordinate along every dimension.
SmallVector<Value> emitBases(OpBuilder &b, Location loc, const ThreadMap &map);

/// The threads of the partition that runs `op`, or failure outside a
/// tle.warp_specialize.
FailureOr<int64_t> getPartitionThreads(Operation *op);
/// getPartitionThreads for an op that only runs in a partition (the
/// gathers): outside one, an error on `op` says so.
FailureOr<int64_t> requirePartitionThreads(Operation *op);

//===----------------------------------------------------------------------===//
// Addresses (Utility.cpp)
//===----------------------------------------------------------------------===//

/// The address of the first element of `view`, as an i64; for a view of a
/// #tle.shared tile, where the swizzled layout puts it.
Value getByteAddress(OpBuilder &b, Location loc, Value view);

/// `address` (i64, where a tile or a view the layout expresses starts)
/// plus `byteOffset` (index) with the XOR pattern of a `swizzle`-byte
/// #tle.shared tile applied to it (0: a row-major buffer, no pattern), as
/// an i64.
Value emitAddress(OpBuilder &b, Location loc, Value address, Value byteOffset,
                  int64_t swizzle = 0);
/// An LLVM pointer in `addressSpace` to `address` (i64).
Value toPointer(OpBuilder &b, Location loc, Value address,
                unsigned addressSpace);
/// toPointer(emitAddress(...)).
Value getPointer(OpBuilder &b, Location loc, Value address, Value byteOffset,
                 unsigned addressSpace, int64_t swizzle = 0);

/// The shared-memory destination of a cp.async: `address` (i64) plus
/// `byteOffset` (index), the XOR pattern of a `swizzle`-byte tile applied
/// to the whole sum. The same address as getPointer's, in a form ptxas
/// cannot split: given a warp-uniform base apart from the thread's
/// swizzled offset, ptxas 13.0 folds the base into an LDGSTS with an L2
/// cache policy as [R+UR+imm], desc[UR] naming uniform registers that
/// nothing sets; the kernel stops with an illegal instruction (H200, see
/// docs/Compute.md).
Value getAsyncCopyDestination(OpBuilder &b, Location loc, Value address,
                              Value byteOffset, int64_t swizzle);

/// Byte offset of element (row, col) of a 2-D tile in #tle.shared with
/// `swizzle` bytes and `rows` rows, before the XOR (getPointer applies it).
Value emitSwizzledLinearOffset(OpBuilder &b, Location loc, Value row, Value col,
                               int64_t rows, int64_t swizzle,
                               int64_t elementBytes);

//===----------------------------------------------------------------------===//
// Gathers (GatherRows.cpp)
//===----------------------------------------------------------------------===//

/// The createpolicy of `eviction` for every line a copy touches.
Value emitCachePolicy(OpBuilder &b, Location loc, EvictionPolicy eviction);

/// The index that lane `lane` (an i32) of the warp holds in `held`.
Value emitShuffledIndex(OpBuilder &b, Location loc, Value held, Value lane);

//===----------------------------------------------------------------------===//
// Tile loads and stores (LoadStore.cpp)
//===----------------------------------------------------------------------===//

/// The thread's elements of a tensor of `type`, in register order, read
/// from `memory`: a whole shared-memory buffer (no `indices`), or the tile
/// of a global memref that starts at `indices`, whose elements out of
/// bounds are not read and become `padding` (zero if null).
SmallVector<Value> emitTileLoad(OpBuilder &b, Location loc,
                                RankedTensorType type, Value memory,
                                ValueRange indices = {},
                                Attribute padding = {});

/// Writes `vector`, the thread's elements of a tensor of `type`, to
/// `memory` as emitTileLoad reads it; global elements out of bounds are
/// not written.
void emitTileStore(OpBuilder &b, Location loc, Value vector,
                   RankedTensorType type, Value memory,
                   ValueRange indices = {});

//===----------------------------------------------------------------------===//
// 8x8 matrices of 16-bit elements (MatrixLoadStore.cpp)
//===----------------------------------------------------------------------===//

/// Whether the thread's elements of a tensor of `type` move to and from
/// `memory` as whole 8x8 matrices (ldmatrix / stmatrix): 16-bit elements
/// in a wgmma layout, and a #tle.shared tile or a row-major shared buffer
/// whose rows keep every 8-element row of a matrix 16-byte aligned.
bool canMoveAsMatrices(RankedTensorType type, Value memory);

/// emitTileLoad and emitTileStore for what canMoveAsMatrices accepts.
SmallVector<Value> emitMatrixLoad(OpBuilder &b, Location loc,
                                  RankedTensorType type, Value memory);
void emitMatrixStore(OpBuilder &b, Location loc, Value vector,
                     RankedTensorType type, Value memory);

//===----------------------------------------------------------------------===//
// Exchanges between threads (Exchange.cpp)
//===----------------------------------------------------------------------===//

/// A shared-memory buffer for an exchange between the threads of `op`'s
/// partition, allocated at the start of its function.
Value createScratch(ConversionPatternRewriter &rewriter, Operation *op,
                    ArrayRef<int64_t> shape, Type elementType);

/// Whether `op`, an exchange, needs a barrier after reading its scratch
/// buffer. Ask before creating the op's own barriers, which would count.
bool needsTrailingBarrier(Operation *op);

} // namespace mlir::tle::distribute

#endif // TLE_LIB_DIALECT_TLE_TRANSFORMS_DISTRIBUTETENSORS_PATTERNS_H
