//===- Utility.cpp - Helpers every op family of the pass shares ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The type conversion, the thread's coordinates (from the layout's thread
// map) and addresses in shared and global memory, including the XOR
// pattern of #tle.shared tiles.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "tle/Dialect/TLE/IR/SwizzledViews.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::distribute;

DistributedTypeConverter::DistributedTypeConverter() {
  addConversion([](Type type) { return type; });
  addConversion([](RankedTensorType type) -> Type {
    if (!isDistributedLayout(type.getEncoding()))
      return type;
    // The pass checked every type with a diagnostic before converting;
    // this only keeps the converter from building a wrong vector.
    ScopedDiagnosticHandler silence(type.getContext(),
                                    [](Diagnostic &) { return success(); });
    if (failed(verifyDistributedType(type, [&] {
          return emitError(UnknownLoc::get(type.getContext()));
        })))
      return Type();
    return VectorType::get({getThreadMap(type).getElementsPerThread()},
                           type.getElementType());
  });
}

RankedTensorType distribute::getDistributedType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isDistributedLayout(tensor.getEncoding()) ? tensor : nullptr;
}

Value distribute::createIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value distribute::createI32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

int64_t distribute::getElementBytes(Type type) {
  return type.getIntOrFloatBitWidth() / 8;
}

Value distribute::extractElement(OpBuilder &b, Location loc, Value vector,
                                 int64_t i) {
  return vector::ExtractOp::create(b, loc, vector, ArrayRef<int64_t>{i});
}

SmallVector<Value> distribute::extractElements(OpBuilder &b, Location loc,
                                               Value vector) {
  SmallVector<Value> elements;
  int64_t n = cast<VectorType>(vector.getType()).getNumElements();
  for (int64_t i = 0; i < n; ++i)
    elements.push_back(extractElement(b, loc, vector, i));
  return elements;
}

Value distribute::fromElements(OpBuilder &b, Location loc, Type elementType,
                               ArrayRef<Value> elements) {
  auto type =
      VectorType::get({static_cast<int64_t>(elements.size())}, elementType);
  return vector::FromElementsOp::create(b, loc, type, elements);
}

/// The sum of the map's terms, each ((tid / div) % mod) * mul, with the
/// modulo left out where the division already lands below `mod`.
Value distribute::emitWarpUniform(OpBuilder &b, Location loc, Value value) {
  Type i32 = b.getI32Type();
  Value narrow = arith::IndexCastOp::create(b, loc, i32, value);
  Value lane0 =
      gpu::ShuffleOp::create(
          b, loc, i32, b.getI1Type(), narrow, createI32(b, loc, 0),
          createI32(b, loc, hopper::kWarpSize),
          gpu::ShuffleModeAttr::get(b.getContext(), gpu::ShuffleMode::IDX))
          .getShuffleResult();
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), lane0);
}

Value distribute::emitBase(OpBuilder &b, Location loc, const ThreadMap &map,
                           unsigned dim) {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  // Digits of the warp index are the same in every lane: taken from the
  // warp-uniform index, they can live in uniform registers.
  Value warp;
  Value sum = createIndex(b, loc, 0);
  for (const IndexTerm &term : map.base[dim]) {
    if (term.mod == 1)
      continue;
    Value digit = tid;
    int64_t div = term.div;
    if (div % hopper::kWarpSize == 0) {
      if (!warp)
        warp = emitWarpUniform(
            b, loc,
            arith::DivUIOp::create(b, loc, tid,
                                   createIndex(b, loc, hopper::kWarpSize)));
      digit = warp;
      div /= hopper::kWarpSize;
    }
    if (div != 1)
      digit = arith::DivUIOp::create(b, loc, digit, createIndex(b, loc, div));
    // A layout spanning fewer threads than the partition repeats over the
    // rest, so the modulo stays unless no thread id can reach it.
    if (term.div * term.mod < hopper::kMaxThreadsPerCTA)
      digit =
          arith::RemUIOp::create(b, loc, digit, createIndex(b, loc, term.mod));
    if (term.mul != 1)
      digit =
          arith::MulIOp::create(b, loc, digit, createIndex(b, loc, term.mul));
    sum = arith::AddIOp::create(b, loc, sum, digit);
  }
  return sum;
}

SmallVector<Value> distribute::emitBases(OpBuilder &b, Location loc,
                                         const ThreadMap &map) {
  SmallVector<Value> bases;
  for (unsigned d = 0; d < map.base.size(); ++d)
    bases.push_back(emitBase(b, loc, map, d));
  return bases;
}

FailureOr<int64_t> distribute::getPartitionThreads(Operation *op) {
  for (Region *region = op->getParentRegion(); region;
       region = region->getParentRegion()) {
    auto ws = dyn_cast<WarpSpecializeOp>(region->getParentOp());
    if (!ws)
      continue;
    for (unsigned p = 0; p < ws.getNumPartitions(); ++p)
      if (&ws.getPartitionRegion(p) == region)
        return static_cast<int64_t>(ws.getPartitionNumWarps()[p]) *
               hopper::kWarpSize;
  }
  return failure();
}

FailureOr<int64_t> distribute::requirePartitionThreads(Operation *op) {
  FailureOr<int64_t> threads = getPartitionThreads(op);
  if (failed(threads))
    op->emitOpError("must run in a partition of a tle.warp_specialize");
  return threads;
}

/// The aligned pointer plus the offset of the view's descriptor, which for
/// a view of a swizzled tile counts row-major and is corrected to where
/// the swizzled layout puts the view.
Value distribute::getByteAddress(OpBuilder &b, Location loc, Value view) {
  auto type = cast<MemRefType>(view.getType());
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, view);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, metadata.getBaseBuffer());
  Value offset = arith::MulIOp::create(
      b, loc, metadata.getOffset(),
      createIndex(b, loc, getElementBytes(type.getElementType())));
  Value address = arith::AddIOp::create(b, loc, base, offset);
  if (getSwizzleBytes(type) != 0) {
    // The verifier of every op that takes a swizzled view checked it.
    FailureOr<int64_t> correction = getSwizzledViewCorrection(
        view, [&] { return emitError(loc) << "the swizzled view "; });
    assert(succeeded(correction) && "an unchecked view of a swizzled tile");
    if (correction.value_or(0) != 0)
      address = arith::AddIOp::create(b, loc, address,
                                      createIndex(b, loc, *correction));
  }
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
}

/// Bits 7.. of the address (the row within the pattern) flip its 16-byte
/// unit, as TMA and wgmma do. The pattern repeats every 8 swizzle rows,
/// and tiles (1024-byte aligned by the allocator), their slots and the
/// views the layout can express all start at a multiple of that, so the
/// pattern is taken from the offset within the tile: it depends on the
/// thread only, and the tile's address is added after the XOR.
static Value emitSwizzle(OpBuilder &b, Location loc, Value address,
                         int64_t swizzle) {
  int64_t mask = swizzle / 16 - 1;
  Type i64 = b.getI64Type();
  Value row = arith::ShRUIOp::create(
      b, loc, address, arith::ConstantIntOp::create(b, loc, i64, 7));
  row = arith::AndIOp::create(b, loc, row,
                              arith::ConstantIntOp::create(b, loc, i64, mask));
  Value flip = arith::ShLIOp::create(
      b, loc, row, arith::ConstantIntOp::create(b, loc, i64, 4));
  return arith::XOrIOp::create(b, loc, address, flip);
}

Value distribute::emitAddress(OpBuilder &b, Location loc, Value address,
                              Value byteOffset, int64_t swizzle) {
  Value offset = arith::IndexCastOp::create(b, loc, b.getI64Type(), byteOffset);
  if (swizzle != 0)
    offset = emitSwizzle(b, loc, offset, swizzle);
  return arith::AddIOp::create(b, loc, address, offset);
}

Value distribute::getAsyncCopyDestination(OpBuilder &b, Location loc,
                                          Value address, Value byteOffset,
                                          int64_t swizzle) {
  Value offset = arith::IndexCastOp::create(b, loc, b.getI64Type(), byteOffset);
  Value sum = arith::AddIOp::create(b, loc, address, offset);
  if (swizzle != 0)
    sum = emitSwizzle(b, loc, sum, swizzle);
  return toPointer(b, loc, sum, hopper::kSharedAddressSpace);
}

Value distribute::toPointer(OpBuilder &b, Location loc, Value address,
                            unsigned addressSpace) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), addressSpace);
  return LLVM::IntToPtrOp::create(b, loc, ptrType, address);
}

Value distribute::getPointer(OpBuilder &b, Location loc, Value address,
                             Value byteOffset, unsigned addressSpace,
                             int64_t swizzle) {
  return toPointer(b, loc, emitAddress(b, loc, address, byteOffset, swizzle),
                   addressSpace);
}

/// The column chunk, the row within it, the bytes within the row.
Value distribute::emitSwizzledLinearOffset(OpBuilder &b, Location loc,
                                           Value row, Value col, int64_t rows,
                                           int64_t swizzle,
                                           int64_t elementBytes) {
  int64_t width = swizzle / elementBytes;
  Value chunk = arith::DivUIOp::create(b, loc, col, createIndex(b, loc, width));
  Value inChunk =
      arith::RemUIOp::create(b, loc, col, createIndex(b, loc, width));
  Value chunkBytes =
      arith::MulIOp::create(b, loc, chunk, createIndex(b, loc, rows * swizzle));
  Value rowBytes =
      arith::MulIOp::create(b, loc, row, createIndex(b, loc, swizzle));
  Value columnBytes =
      arith::MulIOp::create(b, loc, inChunk, createIndex(b, loc, elementBytes));
  return arith::AddIOp::create(
      b, loc, arith::AddIOp::create(b, loc, chunkBytes, rowBytes), columnBytes);
}
