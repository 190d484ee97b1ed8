//===- TLEToNVVM.cpp - Patterns lowering TLE ops to LLVM and NVVM ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One conversion pattern per op that the TLE passes leave for the final
// lowering: shared buffers become addresses in one dynamic shared-memory
// array, pipe slots become pointer offsets into their buffer, and the
// mbarrier ops become their NVVM counterparts.
//
//===----------------------------------------------------------------------===//

#include "tle/Conversion/TLEToNVVM/TLEToNVVM.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Support/Hopper.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/Support/Debug.h"

#include <limits>

#define DEBUG_TYPE "convert-tle-to-nvvm"

using namespace mlir;
using namespace mlir::tle;
namespace hopper = ::tle::hopper;

/// The suspend-time hint, in nanoseconds, that each try_wait passes to the
/// hardware. nvvm.mbarrier.try_wait.parity retries until the phase completes,
/// so this only bounds how long a thread sleeps between polls.
static constexpr int32_t kTryWaitSuspendTimeHintNs = 10000000;

/// An i32 constant, the operand type the NVVM mbarrier ops take.
static Value createI32Constant(OpBuilder &builder, Location loc,
                               int64_t value) {
  return LLVM::ConstantOp::create(builder, loc, builder.getI32Type(),
                                  builder.getI32IntegerAttr(value));
}

/// The address of `barriers[index]` in shared memory.
static Value getBarrierPtr(ConversionPatternRewriter &rewriter, Location loc,
                           const LLVMTypeConverter &converter,
                           TypedValue<MemRefType> barriers,
                           Value convertedBarriers, Value convertedIndex) {
  return LLVM::getStridedElementPtr(rewriter, loc, converter,
                                    barriers.getType(), convertedBarriers,
                                    convertedIndex);
}

/// Returns the array that every shared buffer is an offset into, declaring
/// it in `symbolTableOp` on first use, or null if another symbol has its
/// name. It is an external zero-length array so that the launch, not the
/// module, sizes it as dynamic shared memory, aligned as swizzled TMA and
/// wgmma tiles need: buffer offsets assume the array's alignment.
static LLVM::GlobalOp
getOrCreateDynamicSharedMemory(ConversionPatternRewriter &rewriter,
                               Operation *symbolTableOp) {
  if (Operation *existing =
          SymbolTable::lookupSymbolIn(symbolTableOp, kDynamicSharedMemoryName))
    return dyn_cast<LLVM::GlobalOp>(existing);
  LLVM_DEBUG(llvm::dbgs() << "declaring @" << kDynamicSharedMemoryName << "\n");
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&symbolTableOp->getRegion(0).front());
  auto arrayType = LLVM::LLVMArrayType::get(rewriter.getI8Type(), 0);
  return LLVM::GlobalOp::create(
      rewriter, symbolTableOp->getLoc(), arrayType, /*isConstant=*/false,
      LLVM::Linkage::External, kDynamicSharedMemoryName, /*value=*/Attribute(),
      hopper::kSwizzledTileAlignment, hopper::kSharedAddressSpace);
}

namespace {

/// tle.shared_alloc {offset = N} -> the address N bytes into the dynamic
/// shared-memory array, wrapped in a static memref descriptor.
struct SharedAllocOpLowering : ConvertOpToLLVMPattern<SharedAllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(SharedAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<uint64_t> offset = op.getOffset();
    if (!offset)
      return rewriter.notifyMatchFailure(
          op, "has no offset; run --tle-allocate-shared-memory first");
    // A raw GEP index is an i32.
    if (*offset > uint64_t(std::numeric_limits<int32_t>::max()))
      return rewriter.notifyMatchFailure(op, "offset does not fit in i32");
    MemRefType type = op.getBuffer().getType();
    FailureOr<unsigned> addressSpace =
        getTypeConverter()->getMemRefAddressSpace(type);
    if (failed(addressSpace) || *addressSpace != hopper::kSharedAddressSpace)
      return rewriter.notifyMatchFailure(op, "buffer is not in shared memory");
    Operation *symbolTableOp = op->getParentWithTrait<OpTrait::SymbolTable>();
    if (!symbolTableOp)
      return rewriter.notifyMatchFailure(op, "no enclosing symbol table");

    Location loc = op.getLoc();
    LLVM::GlobalOp smem =
        getOrCreateDynamicSharedMemory(rewriter, symbolTableOp);
    if (!smem)
      return rewriter.notifyMatchFailure(
          op, "the dynamic shared-memory name is taken by another symbol");
    Value base = LLVM::AddressOfOp::create(rewriter, loc, smem);
    Value ptr = LLVM::GEPOp::create(
        rewriter, loc, base.getType(), rewriter.getI8Type(), base,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(*offset)});
    rewriter.replaceOp(op, Value(MemRefDescriptor::fromStaticShape(
                               rewriter, loc, *getTypeConverter(), type, ptr)));
    return success();
  }
};

/// tle.slot %buf[%s] -> the buffer's aligned pointer advanced by
/// s * (elements per slot) elements; the verifier guarantees a static
/// identity layout, so the buffer's descriptor offset is zero.
struct SlotOpLowering : ConvertOpToLLVMPattern<SlotOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(SlotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType viewType = op.getView().getType();
    Type elementType =
        getTypeConverter()->convertType(viewType.getElementType());
    if (!elementType)
      return rewriter.notifyMatchFailure(op, "cannot convert element type");

    Location loc = op.getLoc();
    Value base =
        MemRefDescriptor(adaptor.getBuffer()).alignedPtr(rewriter, loc);
    Value slotElements = createIndexAttrConstant(rewriter, loc, getIndexType(),
                                                 viewType.getNumElements());
    Value start =
        LLVM::MulOp::create(rewriter, loc, adaptor.getSlot(), slotElements);
    Value ptr = LLVM::GEPOp::create(rewriter, loc, base.getType(), elementType,
                                    base, start);
    rewriter.replaceOp(op,
                       Value(MemRefDescriptor::fromStaticShape(
                           rewriter, loc, *getTypeConverter(), viewType, ptr)));
    return success();
  }
};

/// tle.mbarrier_init %b[%i] count C -> nvvm.mbarrier.init.
struct MBarrierInitOpLowering : ConvertOpToLLVMPattern<MBarrierInitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(MBarrierInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value barrier =
        getBarrierPtr(rewriter, loc, *getTypeConverter(), op.getBarriers(),
                      adaptor.getBarriers(), adaptor.getIndex());
    Value count = createI32Constant(rewriter, loc, op.getCount());
    NVVM::MBarrierInitOp::create(rewriter, loc, barrier, count,
                                 /*predicate=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};

/// tle.mbarrier_wait %b[%i], %parity -> nvvm.mbarrier.try_wait.parity, which
/// itself loops until the phase of that parity has completed.
struct MBarrierWaitOpLowering : ConvertOpToLLVMPattern<MBarrierWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(MBarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value barrier =
        getBarrierPtr(rewriter, loc, *getTypeConverter(), op.getBarriers(),
                      adaptor.getBarriers(), adaptor.getIndex());
    Value parity = LLVM::ZExtOp::create(rewriter, loc, rewriter.getI32Type(),
                                        adaptor.getParity());
    Value ticks = createI32Constant(rewriter, loc, kTryWaitSuspendTimeHintNs);
    NVVM::MBarrierTryWaitParityOp::create(rewriter, loc, barrier, parity,
                                          ticks);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tle.mbarrier_arrive -> the NVVM arrive of its form. None of them returns
/// the phase token: waits use the parity instead.
struct MBarrierArriveOpLowering : ConvertOpToLLVMPattern<MBarrierArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value barrier =
        getBarrierPtr(rewriter, loc, *getTypeConverter(), op.getBarriers(),
                      adaptor.getBarriers(), adaptor.getIndex());
    switch (op.getForm()) {
    case ArriveForm::Plain:
      NVVM::MBarrierArriveOp::create(rewriter, loc, /*res=*/Type(), barrier,
                                     /*count=*/Value());
      break;
    case ArriveForm::CpAsync:
      // noinc: the init count already includes this arrival.
      NVVM::CpAsyncMBarrierArriveOp::create(rewriter, loc, barrier,
                                            /*noinc=*/true);
      break;
    case ArriveForm::ExpectTx: {
      std::optional<uint64_t> txBytes = op.getTxBytes();
      if (!txBytes)
        return rewriter.notifyMatchFailure(op, "expect_tx without tx bytes");
      Value tx = createI32Constant(rewriter, loc, *txBytes);
      NVVM::MBarrierArriveExpectTxOp::create(
          rewriter, loc, /*res=*/Type(), barrier, tx, NVVM::MemScopeKind::CTA,
          /*relaxed=*/false, /*predicate=*/Value());
      break;
    }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The boxes a TMA copy of a shared-memory tile of `tileType` through a map
/// with box `box` splits into: for each, the element offset in the tile
/// and the offsets to add to the copy's coordinates (innermost first). A
/// swizzled tile stores its column chunks one after another, so box (i, j)
/// of an [R, C] tile lies at chunk j, row i * box rows.
struct TMABox {
  int64_t elementOffset, columnOffset, rowOffset;
};
} // namespace

static SmallVector<TMABox> getTMABoxes(MemRefType tileType,
                                       ArrayRef<int64_t> box) {
  bool is2D = tileType.getRank() == 2;
  int64_t rows = is2D ? tileType.getDimSize(0) : 1;
  int64_t columns = tileType.getShape().back();
  int64_t boxRows = is2D && box.size() > 1 ? box[box.size() - 2] : 1;
  int64_t boxColumns = box.back();
  SmallVector<TMABox> boxes;
  for (int64_t j = 0; j < columns / boxColumns; ++j)
    for (int64_t i = 0; i < rows / boxRows; ++i) {
      int64_t offset = getSwizzleBytes(tileType) == 0
                           ? i * boxRows * columns
                           : j * rows * boxColumns + i * boxRows * boxColumns;
      boxes.push_back({offset, j * boxColumns, i * boxRows});
    }
  return boxes;
}

/// The start of the tile `memref` (its aligned pointer plus its offset).
static Value getTileStart(OpBuilder &b, Location loc, Value memref,
                          Type elementType) {
  MemRefDescriptor tile(memref);
  Value aligned = tile.alignedPtr(b, loc);
  return LLVM::GEPOp::create(b, loc, aligned.getType(), elementType, aligned,
                             tile.offset(b, loc));
}

/// `coordinates` (index values, outermost first) as i32, innermost first
/// as PTX lists them.
static SmallVector<Value> getCopyCoordinates(OpBuilder &b, Location loc,
                                             ValueRange coordinates) {
  SmallVector<Value> result;
  for (Value c : llvm::reverse(coordinates))
    result.push_back(LLVM::TruncOp::create(b, loc, b.getI32Type(), c));
  return result;
}

/// The coordinates of `box` (getCopyCoordinates plus its offsets).
static SmallVector<Value> getBoxCoordinates(OpBuilder &b, Location loc,
                                            ArrayRef<Value> coordinates,
                                            const TMABox &box, bool is2D) {
  SmallVector<Value> result(coordinates);
  result[0] = LLVM::AddOp::create(b, loc, result[0],
                                  createI32Constant(b, loc, box.columnOffset));
  if (is2D && result.size() > 1)
    result[1] = LLVM::AddOp::create(b, loc, result[1],
                                    createI32Constant(b, loc, box.rowOffset));
  return result;
}

namespace {

/// tle.tma_load -> one cp.async.bulk.tensor per box of the destination,
/// each completing on the slot's full barrier.
struct TMALoadOpLowering : ConvertOpToLLVMPattern<TMALoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(TMALoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getBarriers())
      return rewriter.notifyMatchFailure(op, "no barrier");
    Location loc = op.getLoc();
    MemRefType destType = op.getDestination().getType();
    Type elementType =
        getTypeConverter()->convertType(destType.getElementType());
    Value base =
        getTileStart(rewriter, loc, adaptor.getDestination(), elementType);
    Value barrier =
        getBarrierPtr(rewriter, loc, *getTypeConverter(), op.getBarriers(),
                      adaptor.getBarriers(), adaptor.getBarrierIndex());
    auto mode = NVVM::TMALoadModeAttr::get(rewriter.getContext(),
                                           NVVM::TMALoadMode::TILE);
    SmallVector<Value> coordinates =
        getCopyCoordinates(rewriter, loc, adaptor.getCoordinates());
    for (const TMABox &box :
         getTMABoxes(destType, op.getTensorMap().getType().getBox())) {
      Value dst = LLVM::GEPOp::create(
          rewriter, loc, base.getType(), elementType, base,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(box.elementOffset)});
      SmallVector<Value> boxCoordinates = getBoxCoordinates(
          rewriter, loc, coordinates, box, destType.getRank() == 2);
      // The CTA's own shared memory, addressed in the cluster window that
      // the shared::cluster form of the copy takes.
      Value clusterDst = LLVM::AddrSpaceCastOp::create(
          rewriter, loc,
          LLVM::LLVMPointerType::get(
              rewriter.getContext(),
              static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster)),
          dst);
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rewriter, loc, clusterDst, adaptor.getTensorMap(), boxCoordinates,
          barrier, /*im2colOffsets=*/ValueRange(), /*multicastMask=*/Value(),
          /*l2CacheHint=*/Value(), mode,
          /*isCTAOnly=*/rewriter.getBoolAttr(false),
          /*group=*/NVVM::CTAGroupKindAttr(), /*predicate=*/Value());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tle.tma_store (issued) -> one cp.async.bulk.tensor per box of the
/// source into one bulk async-group, committed, and a wait until the
/// group has read the tile (wait_group.read 0): the thread that issues it
/// returns when shared memory may be written again.
struct TMAStoreOpLowering : ConvertOpToLLVMPattern<TMAStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(TMAStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getIssued())
      return rewriter.notifyMatchFailure(op, "not expanded");
    Location loc = op.getLoc();
    MemRefType sourceType = op.getSource().getType();
    Type elementType =
        getTypeConverter()->convertType(sourceType.getElementType());
    Value base = getTileStart(rewriter, loc, adaptor.getSource(), elementType);
    SmallVector<Value> coordinates =
        getCopyCoordinates(rewriter, loc, adaptor.getCoordinates());
    for (const TMABox &box :
         getTMABoxes(sourceType, op.getTensorMap().getType().getBox())) {
      Value src = LLVM::GEPOp::create(
          rewriter, loc, base.getType(), elementType, base,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(box.elementOffset)});
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          rewriter, loc, adaptor.getTensorMap(), src,
          getBoxCoordinates(rewriter, loc, coordinates, box,
                            sourceType.getRank() == 2),
          /*l2CacheHint=*/Value(), NVVM::TMAStoreMode::TILE,
          /*predicate=*/Value());
    }
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
    NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, loc, /*group=*/0,
                                         /*read=*/rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tle::populateTLEToNVVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<SharedAllocOpLowering, SlotOpLowering, MBarrierInitOpLowering,
               MBarrierWaitOpLowering, MBarrierArriveOpLowering,
               TMALoadOpLowering, TMAStoreOpLowering>(converter);
}
