//===- DistributeTensors.cpp - Tile ops to per-thread code ----------------===//
//
// Every tensor with a TLE layout becomes the vector of the elements one
// thread holds (Layouts.h says which), and every tile op becomes the code
// one thread runs: element-wise arith/math ops act on those vectors
// unchanged, wgmma becomes wgmma.mma_async with shared-memory descriptors,
// reductions become in-thread folds plus warp shuffles, and loads and
// stores become vector accesses at swizzled or strided addresses. The pass
// runs before warp specialization is lowered, so the thread ids it uses
// count from 0 within each partition.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/IR/Layouts.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/ADT/StringExtras.h"

#include "llvm/Support/Debug.h"
#include "llvm/Support/FormatVariadic.h"
#include <functional>

#define DEBUG_TYPE "tle-distribute-tensors"

namespace mlir::tle {
#define GEN_PASS_DEF_TLEDISTRIBUTETENSORS
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;

namespace {
constexpr int64_t kWarpSize = TLEDialect::kWarpSize;
constexpr int64_t kMaxThreadsPerCTA = kWarpSize * TLEDialect::kMaxWarpsPerCTA;
/// The widest single memory access a thread makes.
constexpr int64_t kMaxAccessBytes = 16;
/// The largest N of one wgmma instruction.
constexpr int64_t kMaxWgmmaN = 256;
constexpr unsigned kSharedAddressSpace =
    static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared);
constexpr unsigned kGlobalAddressSpace =
    static_cast<unsigned>(NVVM::NVVMMemorySpace::Global);
} // namespace

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static RankedTensorType getDistributedType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isDistributedLayout(tensor.getEncoding()) ? tensor : nullptr;
}

static Value createIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

static Value createI32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

static int64_t getElementBytes(Type type) {
  return type.getIntOrFloatBitWidth() / 8;
}

/// The thread's base coordinate along `dim`: the sum of the map's terms,
/// each ((tid / div) % mod) * mul, with the modulo left out where the
/// division already lands below `mod`.
static Value emitBase(OpBuilder &b, Location loc, const ThreadMap &map,
                      unsigned dim) {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value sum = createIndex(b, loc, 0);
  for (const IndexTerm &term : map.base[dim]) {
    if (term.mod == 1)
      continue;
    Value digit = tid;
    if (term.div != 1)
      digit =
          arith::DivUIOp::create(b, loc, digit, createIndex(b, loc, term.div));
    // A layout spanning fewer threads than the partition repeats over the
    // rest, so the modulo stays unless no thread id can reach it.
    if (term.div * term.mod < kMaxThreadsPerCTA)
      digit =
          arith::RemUIOp::create(b, loc, digit, createIndex(b, loc, term.mod));
    if (term.mul != 1)
      digit =
          arith::MulIOp::create(b, loc, digit, createIndex(b, loc, term.mul));
    sum = arith::AddIOp::create(b, loc, sum, digit);
  }
  return sum;
}

static SmallVector<Value> emitBases(OpBuilder &b, Location loc,
                                    const ThreadMap &map) {
  SmallVector<Value> bases;
  for (unsigned d = 0; d < map.base.size(); ++d)
    bases.push_back(emitBase(b, loc, map, d));
  return bases;
}

static Value extractElement(OpBuilder &b, Location loc, Value vector,
                            int64_t i) {
  return vector::ExtractOp::create(b, loc, vector, ArrayRef<int64_t>{i});
}

static SmallVector<Value> extractElements(OpBuilder &b, Location loc,
                                          Value vector) {
  SmallVector<Value> elements;
  int64_t n = cast<VectorType>(vector.getType()).getNumElements();
  for (int64_t i = 0; i < n; ++i)
    elements.push_back(extractElement(b, loc, vector, i));
  return elements;
}

static Value fromElements(OpBuilder &b, Location loc, Type elementType,
                          ArrayRef<Value> elements) {
  auto type =
      VectorType::get({static_cast<int64_t>(elements.size())}, elementType);
  return vector::FromElementsOp::create(b, loc, type, elements);
}

/// The address of the first element of `view`: its aligned pointer plus its
/// offset, as an integer of type i64.
static Value getByteAddress(OpBuilder &b, Location loc, Value view) {
  auto type = cast<MemRefType>(view.getType());
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, view);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, metadata.getBaseBuffer());
  Value offset = arith::MulIOp::create(
      b, loc, metadata.getOffset(),
      createIndex(b, loc, getElementBytes(type.getElementType())));
  Value address = arith::AddIOp::create(b, loc, base, offset);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
}

/// An LLVM pointer in `addressSpace` to `address` + `byteOffset` (index).
static Value getPointer(OpBuilder &b, Location loc, Value address,
                        Value byteOffset, unsigned addressSpace) {
  Value offset = arith::IndexCastOp::create(b, loc, b.getI64Type(), byteOffset);
  Value sum = arith::AddIOp::create(b, loc, address, offset);
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), addressSpace);
  return LLVM::IntToPtrOp::create(b, loc, ptrType, sum);
}

/// Byte offset of element (row, col) of a 2-D tile in #tle.shared with
/// `swizzle` bytes and `rows` rows, before the XOR: the column chunk, the
/// row within it, the bytes within the row.
static Value emitSwizzledLinearOffset(OpBuilder &b, Location loc, Value row,
                                      Value col, int64_t rows, int64_t swizzle,
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

/// Applies the swizzle to an absolute shared-memory address: bits 7.. of
/// the address (the row within the pattern) flip the 16-byte unit, as TMA
/// and wgmma do. The tile is 1024-byte aligned (the allocator's rule).
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

/// One access of `count` consecutive elements starting at element `first`
/// of a thread's vector.
struct Access {
  int64_t first, count;
};

/// Splits a thread's elements into accesses of consecutive elements along
/// the last dimension, at most 16 bytes each.
static SmallVector<Access> planAccesses(const ThreadMap &map,
                                        int64_t elementBytes) {
  // The widest power of two that divides the run: a run starts at a
  // multiple of its length, so such an access is aligned to its size.
  int64_t width = std::min(map.contiguity, kMaxAccessBytes / elementBytes);
  width = std::max<int64_t>(width, 1);
  while (map.contiguity % width != 0 || !llvm::isPowerOf2_64(width))
    --width;
  SmallVector<Access> accesses;
  for (int64_t i = 0; i < map.getElementsPerThread(); i += width)
    accesses.push_back({i, width});
  return accesses;
}

static Value extractSlice(OpBuilder &b, Location loc, Value vector,
                          Access access) {
  auto mask = llvm::to_vector(
      llvm::seq<int64_t>(access.first, access.first + access.count));
  return vector::ShuffleOp::create(b, loc, vector, vector, mask);
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

//===----------------------------------------------------------------------===//
// Type conversion and element-wise ops
//===----------------------------------------------------------------------===//

namespace {
class DistributedTypeConverter : public TypeConverter {
public:
  DistributedTypeConverter() {
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
};

/// Any element-wise arith or math op on distributed tensors: the same op on
/// the threads' vectors, since every operand holds the same coordinates in
/// the same order (the verifiers require equal types).
struct ElementwiseOpLowering : ConversionPattern {
  ElementwiseOpLowering(const TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp>(op) || op->getNumRegions() != 0)
      return failure();
    if (!op->hasTrait<OpTrait::Elementwise>() && !isa<arith::SelectOp>(op))
      return rewriter.notifyMatchFailure(op, "not element-wise");
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                resultTypes)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, resultTypes,
                         op->getAttrs());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

/// math.exp2 with `afn` (approximate functions allowed) on f32 elements
/// becomes the hardware's flush-to-zero approximation, one MUFU.EX2 each;
/// without the flag it keeps libdevice's denormal-correct expansion.
struct FastExp2Lowering : OpConversionPattern<math::Exp2Op> {
  FastExp2Lowering(const TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(math::Exp2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getDistributedType(op.getType());
    if (!type || !type.getElementType().isF32() ||
        !arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
      return failure();
    Location loc = op.getLoc();
    auto intrinsic = rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz.f");
    SmallVector<Value> results;
    for (Value x : extractElements(rewriter, loc, adaptor.getOperand()))
      results.push_back(LLVM::CallIntrinsicOp::create(rewriter, loc,
                                                      rewriter.getF32Type(),
                                                      intrinsic, ValueRange{x})
                            .getResult(0));
    rewriter.replaceOp(
        op, fromElements(rewriter, loc, rewriter.getF32Type(), results));
    return success();
  }
};

/// A splat constant tensor becomes a splat constant vector.
struct ConstantOpLowering : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!value)
      return op.emitOpError("a distributed tensor constant must be a splat");
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, type,
        SplatElementsAttr::get(type, value.getSplatValue<Attribute>()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

/// The 2-bit swizzle mode of a wgmma descriptor.
static int64_t getDescriptorSwizzleMode(int64_t swizzle) {
  switch (swizzle) {
  case 128:
    return 1;
  case 64:
    return 2;
  default:
    return 3;
  }
}

/// A shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"):
/// the start address and both byte offsets in 16-byte units, and the
/// swizzle mode. `address` is an i64; the offsets are compile-time.
static Value emitDescriptor(OpBuilder &b, Location loc, Value address,
                            int64_t leadingBytes, int64_t strideBytes,
                            int64_t swizzle) {
  Type i64 = b.getI64Type();
  auto constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  Value start = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, address, constant(4)),
      constant(0x3FFF));
  uint64_t fixed =
      (static_cast<uint64_t>(leadingBytes >> 4) << 16) |
      (static_cast<uint64_t>(strideBytes >> 4) << 32) |
      (static_cast<uint64_t>(getDescriptorSwizzleMode(swizzle)) << 62);
  return arith::OrIOp::create(b, loc, start,
                              constant(static_cast<int64_t>(fixed)));
}

/// Shared-memory operand addressing for one warp group's part of a wgmma:
/// the descriptor of each K step and N chunk.
struct SharedOperand {
  Value address;
  int64_t rows;
  int64_t swizzle;
  int64_t elementBytes;

  /// Byte offset of element (row, col) of the tile relative to its start,
  /// for a row at a multiple of 8 and a column at a 16-byte boundary.
  int64_t offsetOf(int64_t row, int64_t col) const {
    int64_t width = swizzle / elementBytes;
    return (col / width) * rows * swizzle + row * swizzle +
           (col % width) * elementBytes;
  }
};

struct WgmmaOpLowering : OpConversionPattern<WgmmaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WgmmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType accType = op.getAcc().getType();
    ArrayRef<int64_t> grid =
        cast<MmaLayoutAttr>(accType.getEncoding()).getWarpGroups();
    int64_t gn = grid[1];
    int64_t n = accType.getDimSize(1), blockN = n / gn;
    MemRefType bType = op.getB().getType();
    Type element = bType.getElementType();
    int64_t elementBytes = getElementBytes(element);
    bool aInRegisters = isa<RankedTensorType>(op.getA().getType());
    int64_t k = op.getTransposeB() ? bType.getDimSize(1) : bType.getDimSize(0);

    // This warp group's row block (of A) and column block (of B).
    Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value group = arith::DivUIOp::create(
        rewriter, loc, tid, createIndex(rewriter, loc, kWarpGroupThreads));
    Value rowBlock = arith::RemUIOp::create(
        rewriter, loc,
        arith::DivUIOp::create(rewriter, loc, group,
                               createIndex(rewriter, loc, gn)),
        createIndex(rewriter, loc, grid[0]));
    Value columnBlock = arith::RemUIOp::create(rewriter, loc, group,
                                               createIndex(rewriter, loc, gn));
    auto toI64 = [&](Value index) {
      return arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                        index);
    };
    auto scaled = [&](Value index, int64_t factor) {
      return toI64(arith::MulIOp::create(rewriter, loc, index,
                                         createIndex(rewriter, loc, factor)));
    };

    // B: this warp group's columns start at column block * blockN.
    int64_t bSwizzle = getSwizzleBytes(bType);
    SharedOperand b{getByteAddress(rewriter, loc, op.getB()),
                    bType.getDimSize(0), bSwizzle, elementBytes};
    Value bBlockOffset;
    int64_t bLeading, bStride = 8 * bSwizzle;
    if (op.getTransposeB()) {
      // [N, K], K-major: the block starts blockN rows further down.
      bBlockOffset = scaled(columnBlock, blockN * bSwizzle);
      bLeading = 16;
    } else {
      // [K, N], N-major: the block starts blockN / W chunks further on;
      // the leading byte offset steps from one chunk to the next.
      int64_t width = bSwizzle / elementBytes;
      bBlockOffset = scaled(columnBlock, (blockN / width) * k * bSwizzle);
      bLeading = k * bSwizzle;
    }
    Value bStart =
        arith::AddIOp::create(rewriter, loc, b.address, bBlockOffset);
    Value bDescriptor =
        emitDescriptor(rewriter, loc, bStart, bLeading, bStride, bSwizzle);

    // A from shared memory: this warp group's 64 rows.
    SharedOperand a{};
    Value aDescriptor;
    SmallVector<Value> aRegisters;
    if (!aInRegisters) {
      auto aType = cast<MemRefType>(op.getA().getType());
      a = {getByteAddress(rewriter, loc, op.getA()), aType.getDimSize(0),
           getSwizzleBytes(aType), elementBytes};
      Value aStart = arith::AddIOp::create(rewriter, loc, a.address,
                                           scaled(rowBlock, 64 * a.swizzle));
      aDescriptor =
          emitDescriptor(rewriter, loc, aStart, 16, 8 * a.swizzle, a.swizzle);
    } else {
      // Pairs of 16-bit elements make the b32 registers of the A fragment.
      auto aVector = cast<VectorType>(adaptor.getA().getType());
      Value pairs = vector::BitCastOp::create(
          rewriter, loc,
          VectorType::get({aVector.getNumElements() / 2},
                          rewriter.getI32Type()),
          adaptor.getA());
      aRegisters = extractElements(rewriter, loc, pairs);
    }

    SmallVector<Value> acc = extractElements(rewriter, loc, adaptor.getAcc());
    // A zero accumulator need not be read: the first step scales it by 0.
    bool zeroInit = matchPattern(op.getAcc(), m_AnyZeroFloat());
    std::string types = element.isBF16() ? "f32.bf16.bf16" : "f32.f16.f16";

    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    for (int64_t step = 0; step < k / 16; ++step) {
      for (int64_t n0 = 0; n0 < blockN; n0 += kMaxWgmmaN) {
        int64_t chunkN = std::min(kMaxWgmmaN, blockN - n0);
        // Accumulator registers of columns [n0, n0 + chunkN): 4 per 8.
        int64_t firstRegister = n0 / 2, numRegisters = chunkN / 2;
        SmallVector<Value> operands(acc.begin() + firstRegister,
                                    acc.begin() + firstRegister + numRegisters);
        std::string constraints;
        for (int64_t r = 0; r < numRegisters; ++r)
          constraints += "=f,";
        for (int64_t r = 0; r < numRegisters; ++r)
          constraints += std::to_string(r) + ",";
        std::string aOperand;
        int64_t next = 2 * numRegisters;
        int64_t aIndex = next, aOffset = 0;
        if (aInRegisters) {
          SmallVector<std::string> names;
          for (int64_t r = 0; r < 4; ++r) {
            operands.push_back(aRegisters[4 * step + r]);
            constraints += "r,";
            names.push_back("$" + std::to_string(next++));
          }
          aOperand = "{" + llvm::join(names, ", ") + "}";
        } else {
          operands.push_back(aDescriptor);
          constraints += "l,";
          aOffset = a.offsetOf(0, 16 * step) >> 4;
          aOperand = "da";
          ++next;
        }
        int64_t bOffset = (op.getTransposeB() ? b.offsetOf(n0, 16 * step)
                                              : b.offsetOf(16 * step, n0)) >>
                          4;
        operands.push_back(bDescriptor);
        constraints += "l,r";
        std::string bOperand = "$" + std::to_string(next++);
        operands.push_back(
            createI32(rewriter, loc, zeroInit && step == 0 ? 0 : 1));
        std::string scale = "$" + std::to_string(next++);

        SmallVector<std::string> outputs;
        for (int64_t r = 0; r < numRegisters; ++r)
          outputs.push_back("$" + std::to_string(r));
        std::string transposes = aInRegisters ? "" : "0, ";
        transposes += op.getTransposeB() ? "0" : "1";
        // Each step's descriptors are the base ones plus a constant, added
        // in the assembly: as separate values, the constants of every step
        // would be hoisted out of loops and held in registers.
        std::string aStep =
            aInRegisters ? ""
                         : llvm::formatv("add.s64 da, {0}, {1};\n",
                                         "$" + std::to_string(aIndex), aOffset)
                               .str();
        std::string assembly = llvm::formatv(
            "{\n.reg .pred p;\n.reg .b64 da, db;\nsetp.ne.b32 p, {0}, 0;\n"
            "{7}add.s64 db, {5}, {8};\n"
            "wgmma.mma_async.sync.aligned.m64n{1}k16.{2} {{{3}}, {4}, db, p, "
            "1, 1, {6};\n}\n",
            scale, chunkN, types, llvm::join(outputs, ", "), aOperand, bOperand,
            transposes, aStep, bOffset);
        auto resultType = LLVM::LLVMStructType::getLiteral(
            rewriter.getContext(),
            SmallVector<Type>(numRegisters, rewriter.getF32Type()));
        auto wgmma = LLVM::InlineAsmOp::create(
            rewriter, loc, resultType, operands, assembly, constraints,
            /*has_side_effects=*/true, /*is_align_stack=*/false,
            LLVM::tailcallkind::TailCallKind::None,
            LLVM::AsmDialectAttr::get(rewriter.getContext(),
                                      LLVM::AsmDialect::AD_ATT),
            /*operand_attrs=*/ArrayAttr());
        for (int64_t r = 0; r < numRegisters; ++r)
          acc[firstRegister + r] =
              LLVM::ExtractValueOp::create(rewriter, loc, wgmma.getRes(), r);
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    rewriter.replaceOp(op,
                       fromElements(rewriter, loc, rewriter.getF32Type(), acc));
    return success();
  }
};

/// tle.wgmma_wait -> wgmma.wait_group with every input register tied
/// through the instruction, so that no read of an accumulator moves above
/// the wait.
struct WgmmaWaitOpLowering : OpConversionPattern<WgmmaWaitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WgmmaWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> registers;
    SmallVector<Type> registerTypes;
    SmallVector<std::pair<int64_t, Type>> shapes;
    for (Value input : adaptor.getInputs()) {
      auto type = cast<VectorType>(input.getType());
      Type element = type.getElementType();
      if (element.getIntOrFloatBitWidth() != 32)
        return op.emitOpError("waits on 32-bit elements only, got ") << element;
      shapes.push_back({type.getNumElements(), element});
      for (Value e : extractElements(rewriter, loc, input)) {
        registers.push_back(e);
        registerTypes.push_back(element);
      }
    }
    std::string assembly =
        llvm::formatv("wgmma.wait_group.sync.aligned {0};", op.getPending());
    if (registers.empty()) {
      LLVM::InlineAsmOp::create(rewriter, loc, TypeRange(), ValueRange(),
                                assembly, "",
                                /*has_side_effects=*/true, false,
                                LLVM::tailcallkind::TailCallKind::None,
                                LLVM::AsmDialectAttr(), ArrayAttr());
      rewriter.eraseOp(op);
      return success();
    }
    SmallVector<std::string> constraints;
    for (Type type : registerTypes)
      constraints.push_back(type.isF32() ? "=f" : "=r");
    for (size_t r = 0; r < registers.size(); ++r)
      constraints.push_back(std::to_string(r));
    auto resultType =
        LLVM::LLVMStructType::getLiteral(rewriter.getContext(), registerTypes);
    auto wait = LLVM::InlineAsmOp::create(
        rewriter, loc, resultType, registers, assembly,
        llvm::join(constraints, ","), /*has_side_effects=*/true, false,
        LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
        ArrayAttr());
    SmallVector<Value> results;
    int64_t r = 0;
    for (auto [count, element] : shapes) {
      SmallVector<Value> elements;
      for (int64_t i = 0; i < count; ++i)
        elements.push_back(
            LLVM::ExtractValueOp::create(rewriter, loc, wait.getRes(), r++));
      results.push_back(fromElements(rewriter, loc, element, elements));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reductions, broadcasts, layout conversions
//===----------------------------------------------------------------------===//

static Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value lhs,
                     Value rhs) {
  if (kind == ReduceKind::Max)
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  return arith::AddFOp::create(b, loc, lhs, rhs);
}

/// A buffer of `type` in shared memory for an exchange between the threads
/// of `op`'s partition, allocated at the start of its function (the
/// allocator places it with the other buffers).
static Value createScratch(ConversionPatternRewriter &rewriter, Operation *op,
                           ArrayRef<int64_t> shape, Type elementType) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&func.getFunctionBody().front());
  auto type =
      MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                      gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                                 gpu::AddressSpace::Workgroup));
  return SharedAllocOp::create(rewriter, op->getLoc(), type,
                               rewriter.getStringAttr("scratch"), IntegerAttr(),
                               IntegerAttr());
}

/// Whether `op` exchanges data between threads through shared memory, or
/// has already become code that synchronizes the partition.
static bool isExchange(Operation *op);

/// After reading its scratch buffer, an exchange must keep its next
/// execution from overwriting the buffer while other threads still read it.
/// Any partition barrier in between does that: another exchange in the same
/// block (in a loop, the next iteration reaches it before this op again),
/// or none is needed when the op cannot run again, outside every loop.
static bool needsTrailingBarrier(Operation *op) {
  bool otherBarrier = llvm::any_of(*op->getBlock(), [&](Operation &sibling) {
    return &sibling != op && isExchange(&sibling);
  });
  bool mayRunAgain = op->getParentOfType<LoopLikeOpInterface>() != nullptr;
  return mayRunAgain && !otherBarrier;
}

/// A pointer to element `index` (an index value) of a row-major scratch
/// buffer whose address is `address`.
static Value getScratchPointer(OpBuilder &b, Location loc, Value address,
                               Value index, int64_t elementBytes) {
  Value bytes =
      arith::MulIOp::create(b, loc, index, createIndex(b, loc, elementBytes));
  return getPointer(b, loc, address, bytes, kSharedAddressSpace);
}

struct ReduceOpLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned dim = op.getDim(), kept = 1 - dim;
    ThreadMap source = getThreadMap(op.getSource().getType());
    ThreadMap result = getThreadMap(op.getResult().getType());
    // Threads that differ only in the reduced dimension's lane bits hold
    // the other parts of a row; other warps or warp groups would need
    // shared memory.
    SmallVector<int64_t> laneMasks;
    SmallVector<IndexTerm> warpTerms;
    for (const IndexTerm &term : source.base[dim]) {
      if (term.mod == 1)
        continue;
      if (term.div >= kWarpSize) {
        warpTerms.push_back(term);
        continue;
      }
      for (int64_t bit = 1; bit < term.mod; bit *= 2)
        laneMasks.push_back(term.div * bit);
    }

    SmallVector<Value> elements =
        extractElements(rewriter, loc, adaptor.getSource());
    SmallVector<Value> partial(result.getElementsPerThread());
    for (auto [i, offset] : llvm::enumerate(source.offsets)) {
      int64_t slot = llvm::find_if(result.offsets,
                                   [&](ArrayRef<int64_t> o) {
                                     return o[0] == offset[kept];
                                   }) -
                     result.offsets.begin();
      partial[slot] = partial[slot] ? combine(rewriter, loc, op.getKind(),
                                              partial[slot], elements[i])
                                    : elements[i];
    }
    for (Value &value : partial)
      for (int64_t mask : laneMasks) {
        Value other = gpu::ShuffleOp::create(rewriter, loc, value, mask,
                                             kWarpSize, gpu::ShuffleMode::XOR)
                          .getShuffleResult();
        value = combine(rewriter, loc, op.getKind(), value, other);
      }
    if (!warpTerms.empty())
      combineAcrossWarps(rewriter, op, warpTerms, result, partial);
    rewriter.replaceOp(
        op, fromElements(rewriter, loc, rewriter.getF32Type(), partial));
    return success();
  }

  /// Warps (or warp groups) that hold other parts of the same rows exchange
  /// their partial results through shared memory: each writes its partials
  /// to its own row of a scratch buffer, and after a barrier every thread
  /// combines all rows in the same order, so that all get identical values.
  /// The second barrier keeps the next use of the buffer from overwriting
  /// it while others still read.
  static void combineAcrossWarps(ConversionPatternRewriter &rewriter,
                                 ReduceOp op, ArrayRef<IndexTerm> warpTerms,
                                 const ThreadMap &result,
                                 SmallVectorImpl<Value> &partial) {
    Location loc = op.getLoc();
    // Decided before this op's own barrier exists, which would count.
    bool trailing = needsTrailingBarrier(op);
    int64_t slots = 1;
    for (const IndexTerm &term : warpTerms)
      slots *= term.mod;
    int64_t extent = op.getResult().getType().getDimSize(0);
    Value scratch =
        createScratch(rewriter, op, {slots, extent}, rewriter.getF32Type());
    Value address = getByteAddress(rewriter, loc, scratch);
    Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value slot = createIndex(rewriter, loc, 0);
    int64_t radix = 1;
    for (const IndexTerm &term : warpTerms) {
      Value digit = arith::RemUIOp::create(
          rewriter, loc,
          arith::DivUIOp::create(rewriter, loc, tid,
                                 createIndex(rewriter, loc, term.div)),
          createIndex(rewriter, loc, term.mod));
      slot = arith::AddIOp::create(
          rewriter, loc, slot,
          arith::MulIOp::create(rewriter, loc, digit,
                                createIndex(rewriter, loc, radix)));
      radix *= term.mod;
    }
    Value base = emitBase(rewriter, loc, result, 0);
    SmallVector<Value> coordinates;
    for (ArrayRef<int64_t> offset : result.offsets)
      coordinates.push_back(arith::AddIOp::create(
          rewriter, loc, base, createIndex(rewriter, loc, offset[0])));
    auto element = [&](Value row, Value coordinate) {
      Value index = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, row,
                                createIndex(rewriter, loc, extent)),
          coordinate);
      return getScratchPointer(rewriter, loc, address, index, 4);
    };
    for (auto [value, coordinate] : llvm::zip(partial, coordinates))
      LLVM::StoreOp::create(rewriter, loc, value, element(slot, coordinate), 4);
    gpu::BarrierOp::create(rewriter, loc);
    for (auto [value, coordinate] : llvm::zip(partial, coordinates)) {
      Value sum;
      for (int64_t j = 0; j < slots; ++j) {
        Value other = LLVM::LoadOp::create(
            rewriter, loc, rewriter.getF32Type(),
            element(createIndex(rewriter, loc, j), coordinate), 4);
        sum = sum ? combine(rewriter, loc, op.getKind(), sum, other) : other;
      }
      value = sum;
    }
    if (trailing)
      gpu::BarrierOp::create(rewriter, loc);
  }
};

struct BroadcastOpLowering : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned kept = 1 - op.getDim();
    ThreadMap source = getThreadMap(op.getSource().getType());
    ThreadMap result = getThreadMap(op.getResult().getType());
    SmallVector<int64_t> mask;
    for (ArrayRef<int64_t> offset : result.offsets)
      mask.push_back(llvm::find_if(source.offsets,
                                   [&](ArrayRef<int64_t> o) {
                                     return o[0] == offset[kept];
                                   }) -
                     source.offsets.begin());
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(op, adaptor.getSource(),
                                                   adaptor.getSource(), mask);
    return success();
  }
};

static SmallVector<std::pair<Access, Value>>
emitLocalPointers(OpBuilder &b, Location loc, RankedTensorType type,
                  Value buffer);

/// A conversion that keeps every element in its thread moves nothing;
/// any other goes through a row-major scratch buffer in shared memory
/// (rows padded by 16 bytes against bank conflicts) between two barriers
/// of the partition.
struct ConvertLayoutOpLowering : OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType from = op.getSource().getType();
    RankedTensorType to = op.getResult().getType();
    if (keepsEveryElementInPlace(from, to)) {
      rewriter.replaceOp(op, adaptor.getSource());
      return success();
    }
    Location loc = op.getLoc();
    // Decided before this op's own barrier exists, which would count.
    bool trailing = needsTrailingBarrier(op);
    Type element = from.getElementType();
    int64_t elementBytes = getElementBytes(element);
    SmallVector<int64_t> shape(from.getShape());
    shape.back() += kMaxAccessBytes / elementBytes;
    Value scratch = createScratch(rewriter, op, shape, element);
    for (auto [access, ptr] : emitLocalPointers(rewriter, loc, from, scratch))
      LLVM::StoreOp::create(
          rewriter, loc,
          extractSlice(rewriter, loc, adaptor.getSource(), access), ptr,
          access.count * elementBytes);
    gpu::BarrierOp::create(rewriter, loc);
    SmallVector<Value> elements;
    for (auto [access, ptr] : emitLocalPointers(rewriter, loc, to, scratch)) {
      Value loaded = LLVM::LoadOp::create(
          rewriter, loc, VectorType::get({access.count}, element), ptr,
          access.count * elementBytes);
      llvm::append_range(elements, extractElements(rewriter, loc, loaded));
    }
    if (trailing)
      gpu::BarrierOp::create(rewriter, loc);
    rewriter.replaceOp(op, fromElements(rewriter, loc, element, elements));
    return success();
  }
};

static bool isExchange(Operation *op) {
  if (isa<gpu::BarrierOp>(op))
    return true;
  if (auto convert = dyn_cast<ConvertLayoutOp>(op))
    return !keepsEveryElementInPlace(convert.getSource().getType(),
                                     convert.getResult().getType());
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    ThreadMap source = getThreadMap(reduce.getSource().getType());
    return llvm::any_of(source.base[reduce.getDim()], [](const IndexTerm &t) {
      return t.mod > 1 && t.div >= kWarpSize;
    });
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

/// The shared-memory pointer of each access a thread makes to `buffer`
/// for a tensor of `type`.
static SmallVector<std::pair<Access, Value>>
emitLocalPointers(OpBuilder &b, Location loc, RankedTensorType type,
                  Value buffer) {
  auto bufferType = cast<MemRefType>(buffer.getType());
  int64_t elementBytes = getElementBytes(type.getElementType());
  int64_t swizzle = getSwizzleBytes(bufferType);
  ThreadMap map = getThreadMap(type);
  SmallVector<Value> bases = emitBases(b, loc, map);
  Value address = getByteAddress(b, loc, buffer);
  auto ptrType =
      LLVM::LLVMPointerType::get(b.getContext(), kSharedAddressSpace);
  SmallVector<std::pair<Access, Value>> pointers;
  for (Access access : planAccesses(map, elementBytes)) {
    SmallVector<Value> coordinates =
        getCoordinates(b, loc, map, bases, access.first);
    Value byteOffset;
    if (swizzle != 0) {
      byteOffset = emitSwizzledLinearOffset(
          b, loc, coordinates[0], coordinates[1], bufferType.getDimSize(0),
          swizzle, elementBytes);
    } else {
      // Row-major: linearize with the static shape.
      Value linear = createIndex(b, loc, 0);
      for (auto [d, c] : llvm::enumerate(coordinates))
        linear = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(
                b, loc, linear, createIndex(b, loc, bufferType.getDimSize(d))),
            c);
      byteOffset = arith::MulIOp::create(b, loc, linear,
                                         createIndex(b, loc, elementBytes));
    }
    Value absolute = arith::AddIOp::create(
        b, loc, address,
        arith::IndexCastOp::create(b, loc, b.getI64Type(), byteOffset));
    if (swizzle != 0)
      absolute = emitSwizzle(b, loc, absolute, swizzle);
    pointers.push_back(
        {access, LLVM::IntToPtrOp::create(b, loc, ptrType, absolute)});
  }
  return pointers;
}

struct LocalLoadOpLowering : OpConversionPattern<LocalLoadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LocalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    Type element = type.getElementType();
    SmallVector<Value> elements;
    for (auto [access, ptr] :
         emitLocalPointers(rewriter, loc, type, op.getSource())) {
      auto vectorType = VectorType::get({access.count}, element);
      Value loaded =
          LLVM::LoadOp::create(rewriter, loc, vectorType, ptr,
                               access.count * getElementBytes(element));
      llvm::append_range(elements, extractElements(rewriter, loc, loaded));
    }
    rewriter.replaceOp(op, fromElements(rewriter, loc, element, elements));
    return success();
  }
};

struct LocalStoreOpLowering : OpConversionPattern<LocalStoreOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LocalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getValue().getType();
    Type element = type.getElementType();
    for (auto [access, ptr] :
         emitLocalPointers(rewriter, loc, type, op.getDestination())) {
      Value piece = extractSlice(rewriter, loc, adaptor.getValue(), access);
      LLVM::StoreOp::create(rewriter, loc, piece, ptr,
                            access.count * getElementBytes(element));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

/// One access a thread makes to a global tile: where, and whether it lies
/// inside the memref.
struct GlobalAccess {
  Access access;
  Value ptr;
  /// Whether the whole access lies inside the memref.
  Value inBounds;
  /// Whether its element `i` does (for an access that straddles the end of
  /// the last dimension).
  std::function<Value(OpBuilder &, Location, int64_t)> elementInBounds;
};

static SmallVector<GlobalAccess> emitGlobalAccesses(OpBuilder &b, Location loc,
                                                    RankedTensorType type,
                                                    Value memref,
                                                    ValueRange indices) {
  auto memrefType = cast<MemRefType>(memref.getType());
  int64_t elementBytes = getElementBytes(type.getElementType());
  ThreadMap map = getThreadMap(type);
  SmallVector<Value> bases = emitBases(b, loc, map);
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value address = getByteAddress(b, loc, memref);
  SmallVector<GlobalAccess> accesses;
  for (Access access : planAccesses(map, elementBytes)) {
    SmallVector<Value> coordinates =
        getCoordinates(b, loc, map, bases, access.first);
    Value linear = createIndex(b, loc, 0);
    Value outerInBounds = arith::ConstantIntOp::create(b, loc, 1, 1);
    int64_t last = memrefType.getRank() - 1;
    Value lastIndex;
    for (int64_t d = 0; d <= last; ++d) {
      Value index = arith::AddIOp::create(b, loc, indices[d], coordinates[d]);
      if (d == last) {
        lastIndex = index;
      } else {
        Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            index, metadata.getSizes()[d]);
        outerInBounds = arith::AndIOp::create(b, loc, outerInBounds, below);
      }
      linear = arith::AddIOp::create(
          b, loc, linear,
          arith::MulIOp::create(b, loc, index, metadata.getStrides()[d]));
    }
    Value lastSize = metadata.getSizes()[last];
    auto elementInBounds = [=](OpBuilder &b, Location l, int64_t i) -> Value {
      Value index =
          arith::AddIOp::create(b, l, lastIndex, createIndex(b, l, i));
      Value below = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                          index, lastSize);
      return arith::AndIOp::create(b, l, outerInBounds, below);
    };
    Value byteOffset = arith::MulIOp::create(b, loc, linear,
                                             createIndex(b, loc, elementBytes));
    accesses.push_back(
        {access, getPointer(b, loc, address, byteOffset, kGlobalAddressSpace),
         elementInBounds(b, loc, access.count - 1), elementInBounds});
  }
  return accesses;
}

/// For an access that straddles the end of the last dimension: calls `fn`
/// with each element's index, pointer and whether it is in bounds. (An
/// access of one element never straddles.)
static void
forEachStraddlingElement(OpBuilder &b, Location loc, const GlobalAccess &g,
                         Type element,
                         function_ref<void(int64_t, Value, Value)> fn) {
  for (int64_t i = 0; g.access.count > 1 && i < g.access.count; ++i) {
    Value ptr =
        LLVM::GEPOp::create(b, loc, g.ptr.getType(), element, g.ptr,
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    fn(i, ptr, g.elementInBounds(b, loc, i));
  }
}

struct LoadOpLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    Type element = type.getElementType();
    int64_t elementBytes = getElementBytes(element);
    SmallVector<Value> elements;
    for (GlobalAccess g : emitGlobalAccesses(
             rewriter, loc, type, op.getSource(), adaptor.getIndices())) {
      auto vectorType = VectorType::get({g.access.count}, element);
      Attribute fill =
          op.getPadding() ? *op.getPadding() : rewriter.getZeroAttr(element);
      Value zero = arith::ConstantOp::create(
          rewriter, loc, vectorType, SplatElementsAttr::get(vectorType, fill));
      // Out-of-bounds elements are never dereferenced: a whole vector in
      // bounds is one load, one that straddles the end loads element by
      // element under each element's check.
      auto ifOp = scf::IfOp::create(
          rewriter, loc, g.inBounds,
          [&](OpBuilder &b, Location l) {
            Value loaded = LLVM::LoadOp::create(b, l, vectorType, g.ptr,
                                                g.access.count * elementBytes);
            scf::YieldOp::create(b, l, loaded);
          },
          [&](OpBuilder &b, Location l) {
            Value partial = zero;
            forEachStraddlingElement(
                b, l, g, element, [&](int64_t i, Value ptr, Value inBounds) {
                  Value fillValue = extractElement(b, l, zero, i);
                  auto one = scf::IfOp::create(
                      b, l, inBounds,
                      [&](OpBuilder &bb, Location ll) {
                        scf::YieldOp::create(bb, ll,
                                             LLVM::LoadOp::create(bb, ll,
                                                                  element, ptr,
                                                                  elementBytes)
                                                 .getResult());
                      },
                      [&](OpBuilder &bb, Location ll) {
                        scf::YieldOp::create(bb, ll, fillValue);
                      });
                  partial = vector::InsertOp::create(b, l, one.getResult(0),
                                                     partial, i);
                });
            scf::YieldOp::create(b, l, partial);
          });
      llvm::append_range(elements,
                         extractElements(rewriter, loc, ifOp.getResult(0)));
    }
    rewriter.replaceOp(op, fromElements(rewriter, loc, element, elements));
    return success();
  }
};

struct StoreOpLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getValue().getType();
    int64_t elementBytes = getElementBytes(type.getElementType());
    for (GlobalAccess g : emitGlobalAccesses(
             rewriter, loc, type, op.getDestination(), adaptor.getIndices())) {
      Value piece = extractSlice(rewriter, loc, adaptor.getValue(), g.access);
      Type element = type.getElementType();
      // A vector that straddles the end of the last dimension is stored
      // element by element, each under its own check.
      scf::IfOp::create(
          rewriter, loc, g.inBounds,
          [&](OpBuilder &b, Location l) {
            LLVM::StoreOp::create(b, l, piece, g.ptr,
                                  g.access.count * elementBytes);
            scf::YieldOp::create(b, l);
          },
          [&](OpBuilder &b, Location l) {
            forEachStraddlingElement(
                b, l, g, element, [&](int64_t i, Value ptr, Value inBounds) {
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
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// tle.splat, tle.gather_rows
//===----------------------------------------------------------------------===//

struct SplatOpLowering : OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type,
                                                     adaptor.getValue());
    return success();
  }
};

/// Each element is its coordinate along the op's dimension.
struct IotaOpLowering : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    ThreadMap map = getThreadMap(type);
    unsigned dim = op.getDim();
    Value base = emitBase(rewriter, loc, map, dim);
    SmallVector<Value> elements;
    for (ArrayRef<int64_t> offset : map.offsets) {
      Value coordinate = arith::AddIOp::create(
          rewriter, loc, base, createIndex(rewriter, loc, offset[dim]));
      if (!type.getElementType().isIndex())
        coordinate = arith::IndexCastOp::create(
            rewriter, loc, type.getElementType(), coordinate);
      elements.push_back(coordinate);
    }
    rewriter.replaceOp(
        op, fromElements(rewriter, loc, type.getElementType(), elements));
    return success();
  }
};

/// The threads of the partition that runs `op`.
static FailureOr<int64_t> getPartitionThreads(Operation *op) {
  for (Region *region = op->getParentRegion(); region;
       region = region->getParentRegion()) {
    auto ws = dyn_cast<WarpSpecializeOp>(region->getParentOp());
    if (!ws)
      continue;
    for (unsigned p = 0; p < ws.getNumPartitions(); ++p)
      if (&ws.getPartitionRegion(p) == region)
        return static_cast<int64_t>(ws.getPartitionNumWarps()[p]) * kWarpSize;
  }
  return failure();
}

/// Each thread copies 16-byte pieces of rows, consecutive threads taking
/// consecutive pieces of a row, so that a warp reads 512 contiguous bytes.
struct GatherRowsOpLowering : OpConversionPattern<GatherRowsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<int64_t> threads = getPartitionThreads(op);
    if (failed(threads))
      return op.emitOpError("must run in a partition of a tle.warp_specialize");
    Location loc = op.getLoc();
    MemRefType destType = op.getDestination().getType();
    int64_t elementBytes = getElementBytes(destType.getElementType());
    int64_t rows = destType.getDimSize(0);
    int64_t piecesPerRow = destType.getDimSize(1) * elementBytes / 16;
    int64_t pieces = rows * piecesPerRow;
    int64_t swizzle = getSwizzleBytes(destType);

    auto source =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSource());
    Value sourceRows = source.getSizes()[0];
    Value rowStride = source.getStrides()[0];
    Value sourceAddress = getByteAddress(rewriter, loc, op.getSource());
    Value destAddress = getByteAddress(rewriter, loc, op.getDestination());
    Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value zero = createIndex(rewriter, loc, 0);
    auto sharedPtr =
        LLVM::LLVMPointerType::get(getContext(), kSharedAddressSpace);

    // Each warp loads the destination's indices once, 32 rows per register
    // (lane l holds rows l, l + 32, ...), and every round takes the index of
    // its row by a shuffle: a load per round would put a memory latency
    // on each round's critical path.
    Value lane = arith::RemUIOp::create(rewriter, loc, tid,
                                        createIndex(rewriter, loc, kWarpSize));
    SmallVector<Value> rowIndices;
    if (isa_and_present<RankedTensorType>(
            op.getIndices() ? op.getIndices().getType() : Type())) {
      // Already in registers, lane l holding rows l, l + 32, ...
      rowIndices = extractElements(rewriter, loc, adaptor.getIndices());
    } else if (Value indices = adaptor.getIndices()) {
      for (int64_t base = 0; base < rows; base += kWarpSize) {
        // Lanes past the last row reload the last row's index.
        Value r = arith::MinUIOp::create(
            rewriter, loc,
            arith::AddIOp::create(rewriter, loc, lane,
                                  createIndex(rewriter, loc, base)),
            createIndex(rewriter, loc, rows - 1));
        rowIndices.push_back(memref::LoadOp::create(rewriter, loc, indices, r));
      }
    }

    // A loop over rounds, not an unrolled sequence: unrolled, the work of
    // every round would be hoisted and stay live at once.
    int64_t rounds = llvm::divideCeil(pieces, *threads);
    auto loop = scf::ForOp::create(rewriter, loc, zero,
                                   createIndex(rewriter, loc, rounds),
                                   createIndex(rewriter, loc, 1));
    rewriter.setInsertionPointToStart(loop.getBody());
    {
      Value piece = arith::AddIOp::create(
          rewriter, loc, tid,
          arith::MulIOp::create(rewriter, loc, loop.getInductionVar(),
                                createIndex(rewriter, loc, *threads)));
      Value row = arith::DivUIOp::create(
          rewriter, loc, piece, createIndex(rewriter, loc, piecesPerRow));
      Value column = arith::MulIOp::create(
          rewriter, loc,
          arith::RemUIOp::create(rewriter, loc, piece,
                                 createIndex(rewriter, loc, piecesPerRow)),
          createIndex(rewriter, loc, 16 / elementBytes));
      Value sourceRow;
      if (!rowIndices.empty()) {
        // Every lane shuffles, also those without a piece this round.
        Type i32 = rewriter.getI32Type();
        Value fromLane = arith::IndexCastOp::create(
            rewriter, loc, i32,
            arith::RemUIOp::create(rewriter, loc, row,
                                   createIndex(rewriter, loc, kWarpSize)));
        Value width = createI32(rewriter, loc, kWarpSize);
        Value group = arith::DivUIOp::create(
            rewriter, loc, row, createIndex(rewriter, loc, kWarpSize));
        Value index;
        for (auto [g, held] : llvm::enumerate(rowIndices)) {
          Value shuffled =
              gpu::ShuffleOp::create(rewriter, loc, i32, rewriter.getI1Type(),
                                     held, fromLane, width,
                                     gpu::ShuffleModeAttr::get(
                                         getContext(), gpu::ShuffleMode::IDX))
                  .getShuffleResult();
          if (!index) {
            index = shuffled;
            continue;
          }
          Value isGroup =
              arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                    group, createIndex(rewriter, loc, g));
          index =
              arith::SelectOp::create(rewriter, loc, isGroup, shuffled, index);
        }
        sourceRow = arith::IndexCastOp::create(rewriter, loc,
                                               rewriter.getIndexType(), index);
      } else {
        sourceRow =
            arith::AddIOp::create(rewriter, loc, adaptor.getFirst(), row);
      }
      // The last round may leave some threads without a piece.
      if (pieces % *threads != 0) {
        Value has =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                  piece, createIndex(rewriter, loc, pieces));
        auto guard = scf::IfOp::create(rewriter, loc, has);
        rewriter.setInsertionPointToStart(guard.thenBlock());
      }
      // An index outside [0, R) (negative ones wrap to huge unsigned
      // values) copies nothing and zero-fills; the address it would have
      // formed is replaced by row 0's.
      Value valid = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, sourceRow, sourceRows);
      Value safeRow =
          arith::SelectOp::create(rewriter, loc, valid, sourceRow, zero);
      Value sourceOffset = arith::MulIOp::create(
          rewriter, loc,
          arith::AddIOp::create(
              rewriter, loc,
              arith::MulIOp::create(rewriter, loc, safeRow, rowStride), column),
          createIndex(rewriter, loc, elementBytes));
      Value src = getPointer(rewriter, loc, sourceAddress, sourceOffset,
                             kGlobalAddressSpace);
      Value destOffset;
      if (swizzle != 0) {
        destOffset = emitSwizzledLinearOffset(rewriter, loc, row, column, rows,
                                              swizzle, elementBytes);
      } else {
        destOffset = arith::MulIOp::create(
            rewriter, loc,
            arith::AddIOp::create(
                rewriter, loc,
                arith::MulIOp::create(
                    rewriter, loc, row,
                    createIndex(rewriter, loc, destType.getDimSize(1))),
                column),
            createIndex(rewriter, loc, elementBytes));
      }
      Value dest = arith::AddIOp::create(
          rewriter, loc, destAddress,
          arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                     destOffset));
      if (swizzle != 0)
        dest = emitSwizzle(rewriter, loc, dest, swizzle);
      Value destPtr = LLVM::IntToPtrOp::create(rewriter, loc, sharedPtr, dest);
      Value bytes = arith::SelectOp::create(rewriter, loc, valid,
                                            createI32(rewriter, loc, 16),
                                            createI32(rewriter, loc, 0));
      NVVM::CpAsyncOp::create(
          rewriter, loc, destPtr, src, rewriter.getI32IntegerAttr(16),
          NVVM::LoadCacheModifierKindAttr::get(getContext(),
                                               NVVM::LoadCacheModifierKind::CG),
          bytes);
    }
    rewriter.setInsertionPointAfter(loop);
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct TLEDistributeTensorsPass
    : tle::impl::TLEDistributeTensorsBase<TLEDistributeTensorsPass> {
  /// A layout must cover its partition's threads a whole number of times:
  /// over fewer threads it repeats, over more some of its elements would
  /// belong to threads that do not exist.
  LogicalResult checkPartitionSizes() {
    WalkResult result = getOperation()->walk([](Operation *op) {
      FailureOr<int64_t> threads = getPartitionThreads(op);
      int64_t partitionThreads = succeeded(threads) ? *threads : 0;
      for (Type type : op->getResultTypes()) {
        RankedTensorType tensor = getDistributedType(type);
        if (!tensor)
          continue;
        if (failed(verifyDistributedType(
                tensor, [&] { return op->emitOpError("result: "); })))
          return WalkResult::interrupt();
        int64_t spans = getNumThreads(tensor.getEncoding());
        if (partitionThreads != 0 && partitionThreads % spans != 0)
          return WalkResult(op->emitOpError("produces ")
                            << tensor << ", whose layout spans " << spans
                            << " threads, in a partition of "
                            << partitionThreads
                            << "; a layout must span the partition's threads "
                               "or a divisor of them");
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    if (failed(checkPartitionSizes()))
      return signalPassFailure();
    DistributedTypeConverter converter;
    ConversionTarget target(*context);
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      return converter.isLegal(op) &&
             llvm::all_of(op->getRegions(), [&](Region &region) {
               return converter.isLegal(&region);
             });
    });
    target.addIllegalOp<GatherRowsOp, IotaOp, SplatOp, WgmmaOp, WgmmaWaitOp,
                        ReduceOp, BroadcastOp, ConvertLayoutOp, LocalLoadOp,
                        LocalStoreOp, LoadOp, StoreOp>();
    RewritePatternSet patterns(context);
    patterns.add<ElementwiseOpLowering, FastExp2Lowering>(converter, context);
    patterns.add<ConstantOpLowering, WgmmaOpLowering, WgmmaWaitOpLowering,
                 ReduceOpLowering, BroadcastOpLowering, ConvertLayoutOpLowering,
                 LocalLoadOpLowering, LocalStoreOpLowering, LoadOpLowering,
                 StoreOpLowering, SplatOpLowering, GatherRowsOpLowering,
                 IotaOpLowering>(converter, context);
    scf::populateSCFStructuralTypeConversions(converter, patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
