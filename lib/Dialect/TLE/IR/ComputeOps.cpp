//===- ComputeOps.cpp - Verifiers of TLE's tile compute ops ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/IR/Diagnostics.h"
#include "tle/Dialect/TLE/IR/Layouts.h"
#include "tle/Dialect/TLE/IR/SwizzledViews.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Support/Hopper.h"
#include "tle/Support/KVCacheFormat.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tle;
namespace hopper = ::tle::hopper;

/// Checks that `value` is a tensor with a TLE layout.
static LogicalResult verifyDistributed(Operation *op, Type type,
                                       StringRef role) {
  auto tensor = cast<RankedTensorType>(type);
  return verifyDistributedType(
      tensor, [&] { return op->emitOpError() << role << ": "; });
}

/// Ops that move elements through memory or tie them to registers need
/// their size; `index` has none until the target is known.
static LogicalResult verifyHasBitWidth(Operation *op, Type type,
                                       StringRef role) {
  Type element = getElementTypeOrSelf(type);
  if (element.isIntOrFloat())
    return success();
  return op->emitOpError()
         << role << " has " << element
         << " elements, which have no fixed size; use an integer or float "
            "type (i32 or i64 for an index)";
}

/// Elements of one swizzle row (the chunk width of #tle.shared).
static int64_t getSwizzleWidth(MemRefType type) {
  int64_t bits = type.getElementTypeBitWidth();
  return getSwizzleBytes(type) * 8 / bits;
}

/// Checks that `view`, a memref in #tle.shared, is a tile its layout can
/// express where it was cut out of a larger one.
static LogicalResult verifySwizzledView(Operation *op, Value view,
                                        StringRef role) {
  return getSwizzledViewCorrection(
      view, [&] { return op->emitOpError() << role << " "; });
}

/// Checks a 2-D statically shaped shared-memory tile in #tle.shared that a
/// tensor-core op reads or writes.
static LogicalResult verifySwizzledTile(Operation *op, Value tile,
                                        StringRef role) {
  auto type = cast<MemRefType>(tile.getType());
  if (type.getRank() != 2 || !type.hasStaticShape())
    return op->emitOpError() << role << " must be a statically shaped 2-D "
                             << "shared-memory tile, got " << type;
  if (getSwizzleBytes(type) == 0)
    return op->emitOpError()
           << role << " must be in the swizzled layout (#tle.shared<swizzle "
           << "= 32|64|128>), got " << type;
  int64_t width = getSwizzleWidth(type);
  if (type.getDimSize(1) % width != 0)
    return op->emitOpError() << role << " has " << type.getDimSize(1)
                             << " columns, not a whole number of " << width
                             << "-element swizzle rows";
  return verifySwizzledView(op, tile, role);
}

//===----------------------------------------------------------------------===//
// tle.wgmma, tle.wgmma_wait
//===----------------------------------------------------------------------===//

/// The tle.wgmma ops among the ops of `range` (nested ones are not
/// counted: counting fewer multiplies retires fewer, which is safe).
static int64_t countMultiplies(iterator_range<Block::iterator> range) {
  return llvm::count_if(range, [](Operation &op) { return isa<WgmmaOp>(op); });
}

static bool retires(WgmmaWaitOp wait, Value input, unsigned depth = 0);

/// Whether `value` may be an accumulator a multiply still writes: only a
/// tle.wgmma, a loop or branch result, a block argument and the result of a
/// tle.wgmma_wait that does not retire its input can be (verifyInFlightUses
/// keeps in-flight values from any other op). `depth` bounds the waits
/// followed through loops; past it a value counts as in flight.
static bool mayBeInFlight(Value value, unsigned depth) {
  Operation *def = value.getDefiningOp();
  if (auto wait = dyn_cast_if_present<WgmmaWaitOp>(def))
    return depth >= 4 ||
           !retires(wait,
                    wait.getInputs()[cast<OpResult>(value).getResultNumber()],
                    depth + 1);
  return !def || isa<WgmmaOp, scf::ForOp, scf::IfOp>(def);
}

/// The multiplies issued after the tle.wgmma that defines `value`, up to
/// `end` in its block; none when `value` is not such a result.
static std::optional<int64_t> countIssuedAfter(Value value, Operation *end) {
  auto wgmma = value.getDefiningOp<WgmmaOp>();
  if (!wgmma || wgmma->getBlock() != end->getBlock() ||
      !wgmma->isBeforeInBlock(end))
    return std::nullopt;
  return countMultiplies(
      llvm::make_range(std::next(wgmma->getIterator()), end->getIterator()));
}

/// Whether `wait` retires the multiply whose accumulator is `input`: the
/// multiply's group is older than the `pending` groups it lets run on.
/// Counted are the multiplies issued in the wait's block before it, after
/// the input's multiply; for an iter_arg of the loop whose body is that
/// block, after the multiply of each value that reaches it: the init's,
/// up to the loop, and the previous iteration's yielded one, up to the end
/// of the body.
static bool retires(WgmmaWaitOp wait, Value input, unsigned depth) {
  int64_t pending = wait.getPending();
  if (pending == 0)
    return true;
  if (std::optional<int64_t> issued = countIssuedAfter(input, wait))
    return *issued >= pending;
  auto arg = dyn_cast<BlockArgument>(input);
  auto loop =
      arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : scf::ForOp();
  if (!loop || arg.getOwner() != wait->getBlock() ||
      arg == loop.getInductionVar())
    return false;
  // Ops verify before the loop that holds them: a body without its yield,
  // or with inits or yielded values that do not match the iter_args, is
  // the loop's verifier's to report; nothing is retired through it here.
  Block *body = loop.getBody();
  unsigned iterArgs = loop.getNumRegionIterArgs();
  auto yield = body->mightHaveTerminator()
                   ? dyn_cast<scf::YieldOp>(body->getTerminator())
                   : scf::YieldOp();
  if (!yield || yield.getNumOperands() != iterArgs ||
      loop.getInitArgs().size() != iterArgs)
    return false;
  int64_t inBody =
      countMultiplies(llvm::make_range(body->begin(), wait->getIterator()));
  auto retiredBy = [&](Value incoming, Operation *end) {
    if (!mayBeInFlight(incoming, depth))
      return true;
    std::optional<int64_t> issued = countIssuedAfter(incoming, end);
    return issued && *issued + inBody >= pending;
  };
  return retiredBy(loop.getTiedLoopInit(arg)->get(), loop) &&
         retiredBy(loop.getTiedLoopYieldedValue(arg)->get(), yield);
}

/// Checks that `value`, an accumulator a multiply may still be writing,
/// reaches only ops that leave it in flight: the accumulator of another
/// tle.wgmma, a tle.wgmma_wait, a yield (whose loop or branch results are
/// then in flight too) or a loop's init operand (its iter_arg and result).
static LogicalResult verifyInFlightUses(Operation *op, Value value) {
  SetVector<Value> inFlight;
  inFlight.insert(value);
  for (unsigned i = 0; i < inFlight.size(); ++i) {
    for (OpOperand &use : inFlight[i].getUses()) {
      Operation *user = use.getOwner();
      if (auto wgmma = dyn_cast<WgmmaOp>(user);
          wgmma && use.get() == wgmma.getAcc() && use.get() != wgmma.getA())
        continue;
      if (isa<WgmmaWaitOp>(user))
        continue;
      // Ops verify before the loop or branch that holds them: where a
      // yield or an init has no iter_arg or result to match, the parent's
      // verifier reports it, and the value is followed no further.
      if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        unsigned index = use.getOperandNumber();
        Operation *parent = yield->getParentOp();
        if (isa<scf::ForOp, scf::IfOp>(parent)) {
          if (auto loop = dyn_cast<scf::ForOp>(parent);
              loop && index < loop.getNumRegionIterArgs())
            inFlight.insert(loop.getRegionIterArgs()[index]);
          if (index < parent->getNumResults())
            inFlight.insert(parent->getResult(index));
          continue;
        }
      }
      // A loop's init operand: its iter_arg and result are in flight too.
      if (auto loop = dyn_cast<scf::ForOp>(user);
          loop && use.getOperandNumber() >= loop.getNumControlOperands()) {
        unsigned index = use.getOperandNumber() - loop.getNumControlOperands();
        if (index < loop.getNumRegionIterArgs())
          inFlight.insert(loop.getRegionIterArgs()[index]);
        if (index < loop.getNumResults())
          inFlight.insert(loop.getResult(index));
        continue;
      }
      return op->emitOpError("result is read by ")
             << describeOp(user)
             << " while the multiply may still write it; only another "
                "tle.wgmma (as its accumulator), a tle.wgmma_wait, a "
                "loop's yield or a loop's init operand may take it before "
                "a tle.wgmma_wait retires the multiply";
    }
  }
  return success();
}

LogicalResult WgmmaOp::verify() {
  if (failed(verifyDistributed(*this, getAcc().getType(), "accumulator")))
    return failure();
  RankedTensorType accType = getAcc().getType();
  auto mma = dyn_cast<MmaLayoutAttr>(accType.getEncoding());
  if (!mma || !accType.getElementType().isF32())
    return emitOpError("accumulates in f32 tensors in the #tle.mma layout, "
                       "got ")
           << accType;
  if (getResult().getType() != accType)
    return emitOpError("result type must be the accumulator's type");
  int64_t m = accType.getDimSize(0), n = accType.getDimSize(1);
  ArrayRef<int64_t> grid = mma.getWarpGroups();

  Type aElement;
  int64_t aRows, k;
  if (auto aTensor = dyn_cast<RankedTensorType>(getA().getType())) {
    if (failed(verifyDistributed(*this, aTensor, "A")))
      return failure();
    auto operand = dyn_cast<MmaOperandLayoutAttr>(aTensor.getEncoding());
    if (!operand || operand.getWarpGroups() != grid)
      return emitOpError("A in registers must be in #tle.mma_operand with the "
                         "accumulator's warp_groups, got ")
             << aTensor;
    aElement = aTensor.getElementType();
    aRows = aTensor.getDimSize(0);
    k = aTensor.getDimSize(1);
  } else {
    auto aBuffer = cast<MemRefType>(getA().getType());
    if (failed(verifySwizzledTile(*this, getA(), "A")))
      return failure();
    aElement = aBuffer.getElementType();
    aRows = aBuffer.getDimSize(0);
    k = aBuffer.getDimSize(1);
  }
  if (!aElement.isBF16() && !aElement.isF16())
    return emitOpError("multiplies bf16 or f16, got ") << aElement;
  if (aRows != m)
    return emitOpError("A has ") << aRows << " rows, the accumulator " << m;
  if (k % 16 != 0)
    return emitOpError("K (") << k << ") must be a multiple of 16";

  MemRefType bType = getB().getType();
  if (failed(verifySwizzledTile(*this, getB(), "B")))
    return failure();
  if (bType.getElementType() != aElement)
    return emitOpError("A and B must have one element type, got ")
           << aElement << " and " << bType.getElementType();
  int64_t bK = getTransposeB() ? bType.getDimSize(1) : bType.getDimSize(0);
  int64_t bN = getTransposeB() ? bType.getDimSize(0) : bType.getDimSize(1);
  if (bK != k || bN != n)
    return emitOpError("B must be ")
           << (getTransposeB() ? "[N, K] = [" : "[K, N] = [")
           << (getTransposeB() ? n : k) << ", " << (getTransposeB() ? k : n)
           << "] for this A and accumulator, got " << bType;
  // An N-major B is read in whole swizzle rows: every warp group's columns
  // and every instruction's N must cover whole rows.
  if (!getTransposeB() && (n / grid[1]) % getSwizzleWidth(bType) != 0)
    return emitOpError("each warp group's ")
           << n / grid[1] << " columns of an N-major B must be whole "
           << getSwizzleWidth(bType) << "-element swizzle rows";

  return verifyInFlightUses(*this, getResult());
}

LogicalResult WgmmaWaitOp::verify() {
  if (getInputs().getTypes() != getResults().getTypes())
    return emitOpError("results must have the types of the inputs");
  auto pending = static_cast<int64_t>(getPending());
  if (pending < 0 || pending > 7)
    return emitOpError("pending must be in 0..7, got ") << pending;
  for (Type type : getInputs().getTypes())
    if (failed(verifyDistributed(*this, type, "input")) ||
        failed(verifyHasBitWidth(*this, type, "input")))
      return failure();
  // With pending(n) the last n multiplies run on: an accumulator of one of
  // them is still in flight after the wait.
  for (auto [input, result] : llvm::zip(getInputs(), getResults()))
    if (!retires(*this, input) && failed(verifyInFlightUses(*this, result)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// tle.reduce, tle.broadcast, tle.convert_layout
//===----------------------------------------------------------------------===//

/// Checks that `vector` is `matrix` with dimension `dim` removed.
static LogicalResult verifySlicePair(Operation *op, RankedTensorType matrix,
                                     RankedTensorType vector, int64_t dim) {
  if (dim != 0 && dim != 1)
    return op->emitOpError("dim must be 0 or 1, got ") << dim;
  if (failed(verifyDistributed(op, matrix, "2-D tensor")) ||
      failed(verifyDistributed(op, vector, "1-D tensor")))
    return failure();
  if (matrix.getRank() != 2)
    return op->emitOpError("expects a 2-D tensor, got ") << matrix;
  auto expected =
      SliceLayoutAttr::get(op->getContext(), dim, matrix.getEncoding());
  if (vector.getEncoding() != expected ||
      vector.getShape() != ArrayRef<int64_t>{matrix.getDimSize(1 - dim)} ||
      vector.getElementType() != matrix.getElementType())
    return op->emitOpError("expects the 1-D tensor to be ")
           << RankedTensorType::get({matrix.getDimSize(1 - dim)},
                                    matrix.getElementType(), expected)
           << ", got " << vector;
  return success();
}

/// A reduction into a 2-D tensor of the source's layout folds the reduced
/// dimension into `w` per-thread partial results (columns j, j + w, ...
/// into column j), which is only a fold when each thread holds the
/// elements it combines.
static LogicalResult verifyFold(ReduceOp op) {
  RankedTensorType source = op.getSource().getType();
  RankedTensorType result = op.getResult().getType();
  int64_t dim = op.getDim();
  if (dim != 0 && dim != 1)
    return op.emitOpError("dim must be 0 or 1, got ") << dim;
  if (failed(verifyDistributed(op, source, "2-D tensor")) ||
      failed(verifyDistributed(op, result, "result")))
    return failure();
  if (source.getRank() != 2)
    return op.emitOpError("expects a 2-D tensor, got ") << source;
  int64_t width = result.getDimSize(dim), extent = source.getDimSize(dim);
  if (result.getEncoding() != source.getEncoding() ||
      result.getElementType() != source.getElementType() ||
      result.getDimSize(1 - dim) != source.getDimSize(1 - dim) ||
      extent % width != 0)
    return op.emitOpError("folds dimension ")
           << dim << " of " << source
           << " into a tensor of the same layout, element type and other "
              "dimension whose extent divides "
           << extent << ", got " << result;
  if (!getFoldRegisters(source, result, dim))
    return op.emitOpError("cannot fold dimension ")
           << dim << " of " << source << " into " << width
           << " per thread: in this layout a thread does not hold every "
              "element it would combine (each keeps partial results only "
              "of the positions it holds; #tle.mma holds columns 2 (lane mod "
              "4) and the next of every 8, so folds its columns into a "
              "multiple of 8); reduce into the 1-D #tle.slice instead";
  return success();
}

LogicalResult ReduceOp::verify() {
  if (!getSource().getType().getElementType().isF32())
    return emitOpError("reduces f32 tensors, got ")
           << getSource().getType().getElementType();
  if (getResult().getType().getRank() == 2)
    return verifyFold(*this);
  return verifySlicePair(*this, getSource().getType(), getResult().getType(),
                         getDim());
}

LogicalResult BroadcastOp::verify() {
  return verifySlicePair(*this, getResult().getType(), getSource().getType(),
                         getDim());
}

LogicalResult ScaleOp::verify() {
  if (!isa<FloatType>(getSource().getType().getElementType()))
    return emitOpError("scales floating-point tensors, got ")
           << getSource().getType().getElementType();
  return verifySlicePair(*this, getSource().getType(), getFactors().getType(),
                         getDim());
}

static LogicalResult verifyLocalAccess(Operation *op, RankedTensorType tensor,
                                       Value memory);

LogicalResult ConvertLayoutOp::verify() {
  RankedTensorType from = getSource().getType(), to = getResult().getType();
  if (failed(verifyDistributed(*this, from, "source")) ||
      failed(verifyDistributed(*this, to, "result")) ||
      failed(verifyHasBitWidth(*this, from, "source")))
    return failure();
  if (from.getShape() != to.getShape() ||
      from.getElementType() != to.getElementType())
    return emitOpError("changes only the layout; shapes and element types "
                       "must match");
  // The scratch buffer is written and read as tle.local_store and
  // tle.local_load would.
  if (Value scratch = getScratch())
    return verifyLocalAccess(*this, from, scratch);
  return success();
}

LogicalResult IotaOp::verify() {
  RankedTensorType type = getResult().getType();
  if (failed(verifyDistributed(*this, type, "result")))
    return failure();
  // The attribute is read back unsigned: -1 comes in as 2^64 - 1.
  auto dim = static_cast<int64_t>(getDim());
  if (dim < 0 || dim >= type.getRank())
    return emitOpError("dim ") << dim << " is not a dimension of " << type;
  if (!type.getElementType().isSignlessInteger() &&
      !type.getElementType().isIndex())
    return emitOpError("holds coordinates: signless integers or index, got ")
           << type.getElementType();
  return success();
}

LogicalResult SplatOp::verify() {
  if (failed(verifyDistributed(*this, getResult().getType(), "result")))
    return failure();
  if (getValue().getType() != getResult().getType().getElementType())
    return emitOpError("splats a ")
           << getValue().getType() << " into a tensor of "
           << getResult().getType().getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// Shared and global memory
//===----------------------------------------------------------------------===//

/// Checks a shared-memory tile against the tensor read from or written to
/// it. A swizzled tile may be a view of a larger one; a row-major buffer
/// is addressed by its shape.
static LogicalResult verifyLocalAccess(Operation *op, RankedTensorType tensor,
                                       Value memory) {
  auto buffer = cast<MemRefType>(memory.getType());
  if (failed(verifyDistributed(op, tensor, "tensor")) ||
      failed(verifyHasBitWidth(op, tensor, "tensor")))
    return failure();
  if (!isSharedMemorySpace(buffer.getMemorySpace()))
    return op->emitOpError("expects a shared-memory buffer, got ") << buffer;
  bool swizzled = getSwizzleBytes(buffer) != 0;
  if (!buffer.hasStaticShape() ||
      (!swizzled && !buffer.getLayout().isIdentity()))
    return op->emitOpError("expects a statically shaped buffer with the "
                           "identity layout, got ")
           << buffer;
  if (buffer.getShape() != tensor.getShape() ||
      buffer.getElementType() != tensor.getElementType())
    return op->emitOpError("tensor ")
           << tensor << " does not match buffer " << buffer;
  if (swizzled)
    return verifySwizzledTile(op, memory, "the buffer");
  return success();
}

LogicalResult LocalLoadOp::verify() {
  return verifyLocalAccess(*this, getResult().getType(), getSource());
}

LogicalResult LocalStoreOp::verify() {
  return verifyLocalAccess(*this, getValue().getType(), getDestination());
}

/// Checks a global tile access.
static LogicalResult verifyGlobalAccess(Operation *op, RankedTensorType tensor,
                                        MemRefType memory, size_t numIndices) {
  if (failed(verifyDistributed(op, tensor, "tensor")) ||
      failed(verifyHasBitWidth(op, tensor, "tensor")))
    return failure();
  if (isSharedMemorySpace(memory.getMemorySpace()))
    return op->emitOpError("accesses global memory; use tle.local_load or "
                           "tle.local_store for shared memory");
  if (memory.getRank() != tensor.getRank() ||
      numIndices != static_cast<size_t>(memory.getRank()))
    return op->emitOpError("expects one index per dimension of the ")
           << memory.getRank() << "-D memref and a tensor of that rank";
  if (memory.getElementType() != tensor.getElementType())
    return op->emitOpError("element types differ: ")
           << memory.getElementType() << " and " << tensor.getElementType();
  return success();
}

LogicalResult LoadOp::verify() {
  if (std::optional<TypedAttr> padding = getPadding();
      padding && padding->getType() != getResult().getType().getElementType())
    return emitOpError("padding ") << *padding << " is not of the element type "
                                   << getResult().getType().getElementType();
  return verifyGlobalAccess(*this, getResult().getType(), getSource().getType(),
                            getIndices().size());
}

LogicalResult StoreOp::verify() {
  return verifyGlobalAccess(*this, getValue().getType(),
                            getDestination().getType(), getIndices().size());
}

//===----------------------------------------------------------------------===//
// tle.tma_load
//===----------------------------------------------------------------------===//

/// Checks `tile`, the shared-memory side of a TMA copy through `map`
/// with `coordinates` (`role` names it in messages): a whole number of
/// the map's boxes along each dimension, laid out as the map swizzles.
static LogicalResult verifyTMATile(Operation *op, TensorMapType map,
                                   ValueRange coordinates, Value tile,
                                   StringRef role) {
  auto type = cast<MemRefType>(tile.getType());
  ArrayRef<int64_t> box = map.getBox();
  if (coordinates.size() != box.size())
    return op->emitOpError("takes one coordinate per dimension of the ")
           << box.size() << "-D box, got " << coordinates.size();
  if (!isSharedMemorySpace(type.getMemorySpace()) || !type.hasStaticShape() ||
      type.getRank() < 1 || type.getRank() > 2)
    return op->emitOpError()
           << role << " must be a statically shaped 1-D or 2-D shared-memory "
           << "tile, got " << type;
  if (type.getElementType() != map.getElementType())
    return op->emitOpError("the tensor map holds ")
           << map.getElementType() << " but " << role << " holds "
           << type.getElementType();
  if (getSwizzleBytes(type) != map.getSwizzle())
    return op->emitOpError("the tensor map swizzles ")
           << map.getSwizzle() << " bytes but the tile's layout "
           << getSwizzleBytes(type);
  if (llvm::any_of(box.drop_back(std::min<size_t>(type.getRank(), box.size())),
                   [](int64_t e) { return e != 1; }))
    return op->emitOpError("box dimensions beyond the tile's rank must be 1");
  int64_t rows = type.getRank() == 2 ? type.getDimSize(0) : 1;
  int64_t boxRows =
      type.getRank() == 2 && box.size() > 1 ? box[box.size() - 2] : 1;
  int64_t columns = type.getShape().back(), boxColumns = box.back();
  if (rows % boxRows || columns % boxColumns)
    return op->emitOpError("the tile ")
           << type << " is not a whole number of " << boxRows << "x"
           << boxColumns << " boxes";
  bool oneColumnOfBoxes = columns == boxColumns;
  if (map.getSwizzle() != 0 && boxColumns != getSwizzleWidth(type))
    return op->emitOpError("a swizzled box must span one ")
           << map.getSwizzle() << "-byte swizzle row (" << getSwizzleWidth(type)
           << " elements), got " << boxColumns;
  if (map.getSwizzle() == 0 && !oneColumnOfBoxes)
    return op->emitOpError("an unswizzled box must span the tile's columns");
  if (map.getSwizzle() != 0)
    return verifySwizzledView(op, tile, role);
  return success();
}

LogicalResult TMALoadOp::verify() {
  if (static_cast<bool>(getBarriers()) != static_cast<bool>(getBarrierIndex()))
    return emitOpError("a barrier needs its index");
  return verifyTMATile(*this, getTensorMap().getType(), getCoordinates(),
                       getDestination(), "the destination");
}

LogicalResult TMAStoreOp::verify() {
  return verifyTMATile(*this, getTensorMap().getType(), getCoordinates(),
                       getSource(), "the source");
}

//===----------------------------------------------------------------------===//
// tle.gather_rows
//===----------------------------------------------------------------------===//

/// That `tensor` holds `rows` i32 indices, lane l of a warp rows l, l + 32,
/// ...: what the gathers take in registers.
static LogicalResult verifyLaneIndices(Operation *op, RankedTensorType tensor,
                                       int64_t rows, StringRef rule) {
  MLIRContext *ctx = op->getContext();
  auto lanes = BlockedLayoutAttr::get(ctx, {1}, {hopper::kWarpSize}, {1});
  if (tensor.getRank() == 1 && tensor.getEncoding() == lanes &&
      tensor.getElementType().isInteger(32) && tensor.getDimSize(0) == rows)
    return success();
  return op->emitOpError(rule)
         << RankedTensorType::get({rows}, IntegerType::get(ctx, 32), lanes)
         << ", got " << tensor;
}

/// The prefetch sizes of ld/cp.async's .L2::NB qualifier.
static LogicalResult verifyL2Prefetch(Operation *op,
                                      std::optional<uint64_t> prefetch) {
  if (prefetch && *prefetch != 64 && *prefetch != 128 && *prefetch != 256)
    return op->emitOpError("prefetches 64, 128 or 256 bytes into L2, not ")
           << *prefetch;
  return success();
}

LogicalResult GatherRowsOp::verify() {
  MemRefType source = getSource().getType();
  MemRefType dest = getDestination().getType();
  if (failed(verifyL2Prefetch(*this, getL2Prefetch())))
    return failure();
  if (static_cast<bool>(getIndices()) == static_cast<bool>(getFirst()))
    return emitOpError("takes either rows(indices) or from first, not both "
                       "or neither");
  if (isSharedMemorySpace(source.getMemorySpace()) || source.getRank() != 2)
    return emitOpError("gathers from a 2-D global memref, got ") << source;
  if (!isSharedMemorySpace(dest.getMemorySpace()) || dest.getRank() != 2 ||
      !dest.hasStaticShape())
    return emitOpError("writes a statically shaped 2-D shared-memory tile, "
                       "got ")
           << dest;
  if (source.getElementType() != dest.getElementType() ||
      !dest.getElementType().isIntOrFloat())
    return emitOpError("copies ")
           << source.getElementType() << " into a tile of "
           << dest.getElementType();
  if (source.getDimSize(1) != dest.getDimSize(1))
    return emitOpError("source rows have ")
           << source.getDimSize(1) << " elements, destination rows "
           << dest.getDimSize(1);
  auto [strides, offset] = source.getStridesAndOffset();
  if (strides.back() != 1)
    return emitOpError("needs source rows with unit stride");
  int64_t rowBytes = dest.getDimSize(1) * dest.getElementTypeBitWidth() / 8;
  if (rowBytes % hopper::kMaxAccessBytes != 0)
    return emitOpError("copies rows in ")
           << hopper::kMaxAccessBytes << "-byte pieces; a row has " << rowBytes
           << " bytes";
  if (getSwizzleBytes(dest) != 0 &&
      failed(verifySwizzledTile(*this, getDestination(), "the destination")))
    return failure();
  if (auto tensor = dyn_cast_if_present<RankedTensorType>(
          getIndices() ? getIndices().getType() : Type())) {
    if (failed(verifyLaneIndices(*this, tensor, dest.getDimSize(0),
                                 "indices in registers must be ")))
      return failure();
  } else if (Value indices = getIndices()) {
    auto type = cast<MemRefType>(indices.getType());
    if (type.getRank() != 1 || !type.getElementType().isInteger(32) ||
        isSharedMemorySpace(type.getMemorySpace()))
      return emitOpError("indices must be a 1-D global memref of i32, got ")
             << type;
    if (!type.isDynamicDim(0) && type.getDimSize(0) != dest.getDimSize(0))
      return emitOpError("has ") << type.getDimSize(0) << " indices for "
                                 << dest.getDimSize(0) << " rows";
  }
  return success();
}

LogicalResult GatherRowsFp8Op::verify() {
  namespace v32 = ::tle::kv_cache::v32;
  MemRefType cache = getCache().getType();
  MemRefType dest = getDestination().getType();
  if (failed(verifyL2Prefetch(*this, getL2Prefetch())))
    return failure();
  if (isSharedMemorySpace(cache.getMemorySpace()) || cache.getRank() != 3 ||
      !cache.getElementType().isInteger(8) ||
      cache.getDimSize(1) != ::tle::kv_cache::kBlockTokens ||
      cache.getDimSize(2) != v32::kTokenBytes)
    return emitOpError("reads a v32 cache as a global memref<?x")
           << ::tle::kv_cache::kBlockTokens << "x" << v32::kTokenBytes
           << "xi8> (blocks, tokens, bytes), got " << cache;
  if (cache.getStridesAndOffset().first.back() != 1)
    return emitOpError("needs the cache's bytes with unit stride");
  if (!isSharedMemorySpace(dest.getMemorySpace()) || dest.getRank() != 2 ||
      !dest.hasStaticShape() || !dest.getElementType().isBF16())
    return emitOpError("writes a statically shaped 2-D shared-memory tile of "
                       "bf16, got ")
           << dest;
  int64_t first = getFirstColumn(), width = dest.getDimSize(1);
  bool fp8 = first >= 0 && first % 16 == 0 && width % 16 == 0 &&
             first + width <= v32::kFp8Columns;
  bool rope = first >= v32::kFp8Columns && first % 8 == 0 && width % 8 == 0 &&
              first + width <= v32::kColumns;
  if (!fp8 && !rope)
    return emitOpError("columns [")
           << first << ", " << first + width
           << ") must lie in the fp8 columns [0, " << v32::kFp8Columns
           << ") 16-aligned or in the rope columns [" << v32::kFp8Columns
           << ", " << v32::kColumns << ") 8-aligned";
  if (getSwizzleBytes(dest) != 0 &&
      failed(verifySwizzledTile(*this, getDestination(), "the destination")))
    return failure();
  return verifyLaneIndices(*this,
                           cast<RankedTensorType>(getIndices().getType()),
                           dest.getDimSize(0), "indices must be ");
}
