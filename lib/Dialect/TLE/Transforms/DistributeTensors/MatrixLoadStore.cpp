//===- MatrixLoadStore.cpp - 16-bit wgmma tiles as ldmatrix / stmatrix ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// In the wgmma layouts, lane l of a warp holds row l/4 and columns
// 2(l%4), +1 of every 8x8 block of its 16 rows: exactly one b32 register
// of the fragment that ldmatrix and stmatrix move. A thread's elements of
// a 16-bit tile are therefore whole matrices, four per instruction (.x4;
// .x2 for a last single 8-column group), where each lane gives the address
// of one 16-byte matrix row: lanes 8i..8i+7 the rows of matrix i, which
// covers rows 8(i%2).. and columns 8(i/2).. of the instruction's 16 x 16
// block. One instruction replaces four 4-byte accesses per thread.
//
// Addresses: every lane computes its row's address once. In a row-major
// buffer each instruction adds a constant to it, an immediate of the
// instruction. In a swizzled tile, an
// instruction `dc` columns further on lands in the same rows, so the XOR
// pattern of the rows is the same: its address is the thread's address,
// XORed with dc's bytes within a swizzle row and plus dc's whole chunks,
// as long as dc's bits within the chunk never meet a thread's own (checked
// for every thread; otherwise the instruction's address is formed whole).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::distribute;

/// Rows and columns of one matrix; at most four matrices per instruction.
static constexpr int64_t kMatrixSize = 8;
static constexpr int64_t kMaxMatrices = 4;
static constexpr int64_t kElementBytes = 2;

namespace {
/// One ldmatrix or stmatrix: `matrices` matrices, one b32 register (a pair
/// of elements of the thread's vector) each, from pair `firstPair` on, at
/// `address` (an i64) plus the constant `offset`.
struct MatrixAccess {
  int64_t firstPair, matrices;
  Value address;
  int64_t offset;
};
} // namespace

/// Whether `map` holds the fragments the instructions move: lane l of a
/// warp at row l/4 and column 2(l%4) from its warp's origin, and pair
/// 2j + h of its registers (two consecutive columns) in matrix row 8h,
/// column 8j from the thread's base, as the lowering assumes.
static bool holdsMatrixFragments(const ThreadMap &map) {
  int64_t elements = map.getElementsPerThread();
  if (map.base.size() != 2 || elements % 4 != 0)
    return false;
  for (int64_t tid = 0; tid < map.numThreads; ++tid) {
    int64_t lane = tid % hopper::kWarpSize, first = tid - lane;
    if (map.evaluateBase(tid, 0) - map.evaluateBase(first, 0) != lane / 4 ||
        map.evaluateBase(tid, 1) - map.evaluateBase(first, 1) != 2 * (lane % 4))
      return false;
  }
  for (int64_t pair = 0; pair < elements / 2; ++pair) {
    ArrayRef<int64_t> low = map.offsets[2 * pair];
    ArrayRef<int64_t> high = map.offsets[2 * pair + 1];
    if (low[0] != kMatrixSize * (pair % 2) ||
        low[1] != kMatrixSize * (pair / 2) || high[0] != low[0] ||
        high[1] != low[1] + 1)
      return false;
  }
  return true;
}

bool distribute::canMoveAsMatrices(RankedTensorType type, Value memory) {
  auto memoryType = cast<MemRefType>(memory.getType());
  Type element = type.getElementType();
  if (!isa<MmaLayoutAttr, MmaOperandLayoutAttr>(type.getEncoding()) ||
      !element.isIntOrFloat() || element.getIntOrFloatBitWidth() != 16 ||
      !isSharedMemorySpace(memoryType.getMemorySpace()) ||
      memoryType.getRank() != 2 || !memoryType.hasStaticShape() ||
      !holdsMatrixFragments(getThreadMap(type)))
    return false;
  if (getSwizzleBytes(memoryType) != 0)
    return true;
  return memoryType.getLayout().isIdentity() &&
         (memoryType.getDimSize(1) * kElementBytes) % hopper::kMaxAccessBytes ==
             0;
}

/// The coordinates each lane addresses: the warp's place in the tile as in
/// `map` (the terms of the warp index), and within the warp's 16 rows row
/// l%8 of matrix l/8 of the first 16 x 16 block.
static ThreadMap getRowAddressMap(ThreadMap map) {
  for (SmallVector<IndexTerm, 4> &terms : map.base)
    llvm::erase_if(terms, [](const IndexTerm &term) {
      return term.div < hopper::kWarpSize;
    });
  map.base[0].push_back({1, kMatrixSize, 1});
  map.base[0].push_back({kMatrixSize, 2, kMatrixSize});
  map.base[1].push_back({2 * kMatrixSize, 2, kMatrixSize});
  return map;
}

/// Whether, for every thread of `map`, its column and `columnStep` have no
/// bit in common within a `width`-element swizzle row: the instruction
/// `columnStep` columns on is then the thread's address XORed and offset
/// by constants.
static bool stepsByConstants(const ThreadMap &map, int64_t columnStep,
                             int64_t width) {
  for (int64_t tid = 0; tid < map.numThreads; ++tid)
    if ((map.evaluateBase(tid, 1) % width) & (columnStep % width))
      return false;
  return true;
}

static SmallVector<MatrixAccess> emitMatrixAccesses(OpBuilder &b, Location loc,
                                                    RankedTensorType type,
                                                    Value memory) {
  auto memoryType = cast<MemRefType>(memory.getType());
  int64_t swizzle = getSwizzleBytes(memoryType);
  int64_t width = swizzle / kElementBytes;
  int64_t rows = memoryType.getDimSize(0);
  ThreadMap elements = getThreadMap(type);
  ThreadMap lanes = getRowAddressMap(elements);
  SmallVector<Value> bases = emitBases(b, loc, lanes);
  Value address = getByteAddress(b, loc, memory);
  auto index = [&](int64_t v) { return createIndex(b, loc, v); };
  auto emitLaneAddress = [&](Value column) {
    Value offset;
    if (swizzle != 0) {
      offset = emitSwizzledLinearOffset(b, loc, bases[0], column, rows, swizzle,
                                        kElementBytes);
    } else {
      Value linear = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, bases[0],
                                index(memoryType.getDimSize(1))),
          column);
      offset = arith::MulIOp::create(b, loc, linear, index(kElementBytes));
    }
    return emitAddress(b, loc, address, offset, swizzle);
  };
  Value threadAddress = emitLaneAddress(bases[1]);

  SmallVector<MatrixAccess> accesses;
  int64_t pairs = elements.getElementsPerThread() / 2;
  for (int64_t first = 0; first < pairs; first += kMaxMatrices) {
    MatrixAccess access{first, std::min(kMaxMatrices, pairs - first),
                        threadAddress, 0};
    // Two pairs (rows 0-7 and 8-15) per 8 columns.
    int64_t column = elements.offsets[2 * first][1];
    if (swizzle == 0) {
      access.offset = column * kElementBytes;
    } else if (stepsByConstants(lanes, column, width)) {
      if (int64_t flip = (column % width) * kElementBytes)
        access.address = arith::XOrIOp::create(
            b, loc, threadAddress,
            arith::ConstantIntOp::create(b, loc, b.getI64Type(), flip));
      access.offset = (column / width) * rows * swizzle;
    } else {
      access.address = emitLaneAddress(
          arith::AddIOp::create(b, loc, bases[1], index(column)));
    }
    accesses.push_back(access);
  }
  return accesses;
}

/// The pointer of one instruction: the lane's row address plus the
/// instruction's constant, which ptxas folds into the instruction's
/// immediate even where LLVM hoists the sum out of a loop.
static Value getMatrixPointer(OpBuilder &b, Location loc,
                              const MatrixAccess &access) {
  Value pointer =
      toPointer(b, loc, access.address,
                static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  if (access.offset == 0)
    return pointer;
  return LLVM::GEPOp::create(
      b, loc, pointer.getType(), b.getI8Type(), pointer,
      ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(access.offset)});
}

static NVVM::LdStMatrixShapeAttr getMatrixShape(OpBuilder &b) {
  return NVVM::LdStMatrixShapeAttr::get(b.getContext(), kMatrixSize,
                                        kMatrixSize);
}

/// The thread's elements as b32 registers, two elements each.
static VectorType getPairsType(OpBuilder &b, RankedTensorType type) {
  return VectorType::get({getThreadMap(type).getElementsPerThread() / 2},
                         b.getI32Type());
}

SmallVector<Value> distribute::emitMatrixLoad(OpBuilder &b, Location loc,
                                              RankedTensorType type,
                                              Value memory) {
  Type i32 = b.getI32Type();
  SmallVector<Value> pairs;
  for (const MatrixAccess &access : emitMatrixAccesses(b, loc, type, memory)) {
    int64_t n = access.matrices;
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(n, i32));
    auto load = NVVM::LdMatrixOp::create(
        b, loc, resultType, getMatrixPointer(b, loc, access), n,
        NVVM::MMALayout::row, getMatrixShape(b), NVVM::LdStMatrixEltType::B16);
    for (int64_t m = 0; m < n; ++m)
      pairs.push_back(LLVM::ExtractValueOp::create(b, loc, load.getRes(), m));
  }
  Value vector =
      vector::FromElementsOp::create(b, loc, getPairsType(b, type), pairs);
  auto elementsType = VectorType::get({2 * static_cast<int64_t>(pairs.size())},
                                      type.getElementType());
  return extractElements(
      b, loc, vector::BitCastOp::create(b, loc, elementsType, vector));
}

void distribute::emitMatrixStore(OpBuilder &b, Location loc, Value vector,
                                 RankedTensorType type, Value memory) {
  Value pairs =
      vector::BitCastOp::create(b, loc, getPairsType(b, type), vector);
  for (const MatrixAccess &access : emitMatrixAccesses(b, loc, type, memory)) {
    SmallVector<Value> sources;
    for (int64_t m = 0; m < access.matrices; ++m)
      sources.push_back(extractElement(b, loc, pairs, access.firstPair + m));
    NVVM::StMatrixOp::create(b, loc, getMatrixPointer(b, loc, access), sources,
                             NVVM::MMALayout::row, getMatrixShape(b),
                             NVVM::LdStMatrixEltType::B16);
  }
}
