//===- Wgmma.cpp - tle.wgmma and tle.wgmma_wait ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A tle.wgmma becomes, for each K step of 16 and each chunk of at most 256
// columns, one wgmma.mma_async whose shared-memory operands are matrix
// descriptors (PTX ISA, "Matrix Descriptor Format"), between a wgmma.fence
// and a wgmma.commit_group.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::distribute;

/// The largest N of one wgmma instruction.
static constexpr int64_t kMaxWgmmaN = 256;

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

/// A shared-memory matrix descriptor: the start address and both byte
/// offsets in 16-byte units, and the swizzle mode. `address` is an i64;
/// the offsets are compile-time.
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

namespace {
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

/// What every wgmma.mma_async of one tle.wgmma shares: the warp group's
/// base descriptors (or A's registers) and the instruction's variant.
struct MmaOperands {
  /// K, and the columns of this warp group's block.
  int64_t k, blockN;
  SharedOperand a, b;
  /// A from shared memory: its descriptor; A in registers: the b32 pairs
  /// of its elements, four per K step.
  Value aDescriptor;
  SmallVector<Value> aRegisters;
  Value bDescriptor;
  bool transposeB;
  /// Whether the first K step ignores the accumulator (scale-d 0).
  bool zeroInit;
  /// The shape-independent part of the instruction name.
  std::string types;

  bool aInRegisters() const { return !aRegisters.empty(); }
};
} // namespace

/// The assembly of one wgmma.mma_async of `numRegisters` accumulator
/// registers ($0..), A (`aOperand`), B's base descriptor and the scale-d
/// predicate. Each step's descriptors are the base ones plus a constant,
/// added in the assembly: as separate values, the constants of every step
/// would be hoisted out of loops and held in registers.
static std::string getMmaAsyncAssembly(const MmaOperands &w, int64_t chunkN,
                                       int64_t numRegisters, StringRef aOperand,
                                       int64_t aIndex, int64_t aOffset,
                                       StringRef bOperand, int64_t bOffset,
                                       StringRef scale) {
  SmallVector<std::string> outputs;
  for (int64_t r = 0; r < numRegisters; ++r)
    outputs.push_back("$" + std::to_string(r));
  std::string transposes = w.aInRegisters() ? "" : "0, ";
  transposes += w.transposeB ? "0" : "1";
  std::string aStep = w.aInRegisters()
                          ? ""
                          : llvm::formatv("add.s64 da, {0}, {1};\n",
                                          "$" + std::to_string(aIndex), aOffset)
                                .str();
  return llvm::formatv(
      "{\n.reg .pred p;\n.reg .b64 da, db;\nsetp.ne.b32 p, {0}, 0;\n"
      "{7}add.s64 db, {5}, {8};\n"
      "wgmma.mma_async.sync.aligned.m64n{1}k16.{2} {{{3}}, {4}, db, p, "
      "1, 1, {6};\n}\n",
      scale, chunkN, w.types, llvm::join(outputs, ", "), aOperand, bOperand,
      transposes, aStep, bOffset);
}

/// One wgmma.mma_async: K step `step` of columns [n0, n0 + chunkN), which
/// replaces those columns' registers in `acc` (4 per 8 columns).
static void emitMmaAsync(OpBuilder &b, Location loc, const MmaOperands &w,
                         int64_t step, int64_t n0, int64_t chunkN,
                         SmallVectorImpl<Value> &acc) {
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
  if (w.aInRegisters()) {
    SmallVector<std::string> names;
    for (int64_t r = 0; r < 4; ++r) {
      operands.push_back(w.aRegisters[4 * step + r]);
      constraints += "r,";
      names.push_back("$" + std::to_string(next++));
    }
    aOperand = "{" + llvm::join(names, ", ") + "}";
  } else {
    operands.push_back(w.aDescriptor);
    constraints += "l,";
    aOffset = w.a.offsetOf(0, 16 * step) >> 4;
    aOperand = "da";
    ++next;
  }
  int64_t bOffset = (w.transposeB ? w.b.offsetOf(n0, 16 * step)
                                  : w.b.offsetOf(16 * step, n0)) >>
                    4;
  operands.push_back(w.bDescriptor);
  constraints += "l,r";
  std::string bOperand = "$" + std::to_string(next++);
  operands.push_back(createI32(b, loc, w.zeroInit && step == 0 ? 0 : 1));
  std::string scale = "$" + std::to_string(next++);

  std::string assembly =
      getMmaAsyncAssembly(w, chunkN, numRegisters, aOperand, aIndex, aOffset,
                          bOperand, bOffset, scale);
  auto resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(numRegisters, b.getF32Type()));
  auto wgmma = LLVM::InlineAsmOp::create(
      b, loc, resultType, operands, assembly, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  for (int64_t r = 0; r < numRegisters; ++r)
    acc[firstRegister + r] =
        LLVM::ExtractValueOp::create(b, loc, wgmma.getRes(), r);
}

namespace {
struct WgmmaOpLowering : OpConversionPattern<WgmmaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WgmmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MmaOperands w = getOperands(rewriter, op, adaptor);
    SmallVector<Value> acc = extractElements(rewriter, loc, adaptor.getAcc());
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    for (int64_t step = 0; step < w.k / 16; ++step)
      for (int64_t n0 = 0; n0 < w.blockN; n0 += kMaxWgmmaN)
        emitMmaAsync(rewriter, loc, w, step, n0,
                     std::min(kMaxWgmmaN, w.blockN - n0), acc);
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    rewriter.replaceOp(op,
                       fromElements(rewriter, loc, rewriter.getF32Type(), acc));
    return success();
  }

  /// The base descriptors of this warp group's row block of A and column
  /// block of B (warp group g of the [gm, gn] grid: g / gn and g % gn), or
  /// A's registers.
  static MmaOperands getOperands(ConversionPatternRewriter &rewriter,
                                 WgmmaOp op, OpAdaptor adaptor) {
    Location loc = op.getLoc();
    RankedTensorType accType = op.getAcc().getType();
    ArrayRef<int64_t> grid =
        cast<MmaLayoutAttr>(accType.getEncoding()).getWarpGroups();
    int64_t gn = grid[1];
    MemRefType bType = op.getB().getType();
    Type element = bType.getElementType();
    int64_t elementBytes = getElementBytes(element);

    // The descriptors are the same in every lane: built from the
    // warp-uniform group index, they stay in uniform registers.
    Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value group = emitWarpUniform(
        rewriter, loc,
        arith::DivUIOp::create(
            rewriter, loc, tid,
            createIndex(rewriter, loc, hopper::kWarpGroupThreads)));
    Value rowBlock = arith::RemUIOp::create(
        rewriter, loc,
        arith::DivUIOp::create(rewriter, loc, group,
                               createIndex(rewriter, loc, gn)),
        createIndex(rewriter, loc, grid[0]));
    Value columnBlock = arith::RemUIOp::create(rewriter, loc, group,
                                               createIndex(rewriter, loc, gn));
    auto scaled = [&](Value index, int64_t factor) {
      return arith::IndexCastOp::create(
          rewriter, loc, rewriter.getI64Type(),
          arith::MulIOp::create(rewriter, loc, index,
                                createIndex(rewriter, loc, factor)));
    };

    MmaOperands w;
    w.blockN = accType.getDimSize(1) / gn;
    w.k = op.getTransposeB() ? bType.getDimSize(1) : bType.getDimSize(0);
    w.transposeB = op.getTransposeB();
    w.types = element.isBF16() ? "f32.bf16.bf16" : "f32.f16.f16";
    // A zero accumulator need not be read: the first step scales it by 0.
    w.zeroInit = matchPattern(op.getAcc(), m_AnyZeroFloat());

    // B: this warp group's columns start at column block * blockN.
    int64_t bSwizzle = getSwizzleBytes(bType);
    w.b = {getByteAddress(rewriter, loc, op.getB()), bType.getDimSize(0),
           bSwizzle, elementBytes};
    Value bBlockOffset;
    int64_t bLeading, bStride = 8 * bSwizzle;
    if (w.transposeB) {
      // [N, K], K-major: the block starts blockN rows further down.
      bBlockOffset = scaled(columnBlock, w.blockN * bSwizzle);
      bLeading = 16;
    } else {
      // [K, N], N-major: the block starts blockN / W chunks further on;
      // the leading byte offset steps from one chunk to the next.
      int64_t width = bSwizzle / elementBytes;
      bBlockOffset = scaled(columnBlock, (w.blockN / width) * w.k * bSwizzle);
      bLeading = w.k * bSwizzle;
    }
    Value bStart =
        arith::AddIOp::create(rewriter, loc, w.b.address, bBlockOffset);
    w.bDescriptor =
        emitDescriptor(rewriter, loc, bStart, bLeading, bStride, bSwizzle);

    if (auto aType = dyn_cast<MemRefType>(op.getA().getType())) {
      // A from shared memory: this warp group's 64 rows.
      w.a = {getByteAddress(rewriter, loc, op.getA()), aType.getDimSize(0),
             getSwizzleBytes(aType), elementBytes};
      Value aStart = arith::AddIOp::create(
          rewriter, loc, w.a.address, scaled(rowBlock, kMmaRows * w.a.swizzle));
      w.aDescriptor = emitDescriptor(rewriter, loc, aStart, 16, 8 * w.a.swizzle,
                                     w.a.swizzle);
      return w;
    }
    // Pairs of 16-bit elements make the b32 registers of the A fragment.
    auto aVector = cast<VectorType>(adaptor.getA().getType());
    Value pairs = vector::BitCastOp::create(
        rewriter, loc,
        VectorType::get({aVector.getNumElements() / 2}, rewriter.getI32Type()),
        adaptor.getA());
    w.aRegisters = extractElements(rewriter, loc, pairs);
    return w;
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
    // Only results that are read are tied to the wait. An unread one may
    // name registers that a later multiply still accumulates into (a
    // pending(1) wait on the first of two chained multiplies): tying them
    // would make LLVM copy them while that multiply runs, and ptxas then
    // serialises every wgmma of the kernel (C7514).
    SmallVector<Value> passThrough(op->getNumResults());
    for (auto [input, result] :
         llvm::zip_equal(adaptor.getInputs(), op->getResults())) {
      auto type = cast<VectorType>(input.getType());
      Type element = type.getElementType();
      if (element.getIntOrFloatBitWidth() != 32)
        return op.emitOpError("waits on 32-bit elements only, got ") << element;
      if (result.use_empty()) {
        passThrough[result.getResultNumber()] = input;
        continue;
      }
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
      rewriter.replaceOp(op, passThrough);
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
    SmallVector<Value> results = std::move(passThrough);
    int64_t r = 0;
    auto shape = shapes.begin();
    for (Value &result : results) {
      if (result)
        continue;
      auto [count, element] = *shape++;
      SmallVector<Value> elements;
      for (int64_t i = 0; i < count; ++i)
        elements.push_back(
            LLVM::ExtractValueOp::create(rewriter, loc, wait.getRes(), r++));
      result = fromElements(rewriter, loc, element, elements);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};
} // namespace

void distribute::populateWgmmaPatterns(const TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<WgmmaOpLowering, WgmmaWaitOpLowering>(converter,
                                                     patterns.getContext());
}
