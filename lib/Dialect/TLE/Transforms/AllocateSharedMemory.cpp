//===- AllocateSharedMemory.cpp - Place every shared-memory buffer --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Lays out the tle.shared_alloc buffers of each kernel in its dynamic shared
// memory: declaration order, mbarrier arrays last, each buffer at the
// alignment its users need. TMA and the tensor cores read 128-byte swizzled
// tiles whose swizzle pattern repeats every 1024 bytes, so buffers that reach
// them (directly, through slot views or through the pipes binding them) start
// on a 1024-byte boundary; the dynamic shared memory base is 1024-aligned, so
// aligned offsets are aligned addresses.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"
#include "tle/Support/Hopper.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "tle-allocate-shared-memory"

namespace mlir::tle {
#define GEN_PASS_DEF_TLEALLOCATESHAREDMEMORY
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;
namespace hopper = ::tle::hopper;

/// Besides swizzled tiles (hopper::kSwizzledTileAlignment) and mbarriers
/// (their natural alignment, hopper::kMBarrierBytes), everything starts on
/// a 128-byte line (all 32 banks), so that its bank mapping and 16-byte
/// vector alignment do not depend on the buffers placed before it.
static constexpr int64_t kDefaultAlignment = 128;

namespace {
/// One buffer and where it goes.
struct Placement {
  SharedAllocOp alloc;
  /// Index in declaration order, for buffers without a label.
  unsigned index;
  int64_t size, alignment, offset = 0;
  bool isMBarrierArray;
};
} // namespace

/// The type every tle.mbarrier_* op takes; such buffers hold barriers only.
static bool isMBarrierArrayType(MemRefType type) {
  return type.getRank() == 1 && type.getElementType().isInteger(64);
}

/// The view of pipe field `field` that `op` returns, if it returns one:
/// an acquire views every field, a wait only those its reader declared.
static Value getFieldView(PipeOp pipe, Operation *op, unsigned field) {
  if (auto acquire = dyn_cast<AcquireOp>(op))
    return field < acquire.getViews().size() ? acquire.getViews()[field]
                                             : Value();
  auto wait = dyn_cast<WaitOp>(op);
  if (!wait)
    return {};
  ReaderAttr reader = pipe.lookupReader(wait.getReader());
  if (!reader)
    return {};
  SmallVector<unsigned> fields = pipe.getReaderFields(reader);
  auto *it = llvm::find(fields, field);
  size_t index = std::distance(fields.begin(), it);
  if (it == fields.end() || index >= wait.getViews().size())
    return {};
  return wait.getViews()[index];
}

/// Adds the memrefs through which `use` exposes the memory of its operand:
/// view-like results, tle.slot views, and the slot views of a pipe binding
/// it.
static void appendDerivedViews(OpOperand &use, llvm::SetVector<Value> &views) {
  Operation *user = use.getOwner();
  if (auto slot = dyn_cast<SlotOp>(user)) {
    if (use.get() == slot.getBuffer())
      views.insert(slot.getView());
    return;
  }
  if (auto pipe = dyn_cast<PipeOp>(user)) {
    unsigned field =
        use.getOperandNumber() - pipe.getBuffers().getBeginOperandIndex();
    for (Operation *lifecycle : pipe.getPipe().getUsers())
      if (Value view = getFieldView(pipe, lifecycle, field))
        views.insert(view);
    return;
  }
  if (auto viewLike = dyn_cast<ViewLikeOpInterface>(user))
    if (viewLike.getViewSource() == use.get())
      views.insert(viewLike->result_begin(), viewLike->result_end());
}

/// `buffer` and every memref that reaches its memory.
static SmallVector<Value> collectViews(Value buffer) {
  llvm::SetVector<Value> views;
  views.insert(buffer);
  for (unsigned i = 0; i < views.size(); ++i)
    for (OpOperand &use : views[i].getUses())
      appendDerivedViews(use, views);
  return views.takeVector();
}

static bool isTMADestination(Value view) {
  return llvm::any_of(view.getUsers(), [&](Operation *user) {
    auto tma = dyn_cast<TMALoadOp>(user);
    return tma && tma.getDestination() == view;
  });
}

/// Whether TMA writes `buffer` or the async proxy reads it, by any view: it
/// then holds swizzled tiles.
static bool holdsTiles(Value buffer) {
  return llvm::any_of(collectViews(buffer), [](Value view) {
    return isTMADestination(view) || isReadByAsyncProxy(view);
  });
}

/// Sizes `alloc` and decides its alignment and whether it goes last.
static std::optional<Placement> describe(SharedAllocOp alloc, unsigned index) {
  MemRefType type = alloc.getBuffer().getType();
  std::optional<int64_t> size = getBufferByteSize(type);
  if (!size)
    return std::nullopt;
  bool tiles = getSwizzleBytes(type) != 0 || holdsTiles(alloc.getBuffer());
  // An i64 array that TMA or the tensor cores touch holds data, not barriers.
  bool isMBarrierArray = isMBarrierArrayType(type) && !tiles;
  int64_t alignment = tiles             ? hopper::kSwizzledTileAlignment
                      : isMBarrierArray ? hopper::kMBarrierBytes
                                        : kDefaultAlignment;
  // An explicit alignment can only raise what the users need.
  if (std::optional<uint64_t> explicitAlignment = alloc.getAlignment())
    alignment = std::max<int64_t>(alignment, *explicitAlignment);
  return Placement{alloc, index, *size, alignment, 0, isMBarrierArray};
}

/// The buffers of `func` (not of functions nested in it), in declaration
/// order, sized; failure after a diagnostic if one cannot be sized.
static FailureOr<SmallVector<Placement>>
collectBuffers(FunctionOpInterface func) {
  SmallVector<Placement> buffers;
  WalkResult result = func->walk([&](SharedAllocOp alloc) {
    if (alloc->getParentOfType<FunctionOpInterface>() != func)
      return WalkResult::advance();
    std::optional<Placement> placement = describe(alloc, buffers.size());
    if (!placement) {
      alloc.emitOpError("cannot size a buffer of element type ")
          << alloc.getBuffer().getType().getElementType();
      return WalkResult::interrupt();
    }
    buffers.push_back(*placement);
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  return buffers;
}

/// Orders the buffers (barriers last, so that the 8-byte arrays do not
/// leave 1024-byte holes between tiles) and gives each its offset; returns
/// the end of the last one.
static int64_t place(SmallVector<Placement> &buffers) {
  std::stable_partition(buffers.begin(), buffers.end(),
                        [](const Placement &p) { return !p.isMBarrierArray; });
  int64_t end = 0;
  for (Placement &p : buffers) {
    p.offset = llvm::alignTo(end, p.alignment);
    end = p.offset + p.size;
    LLVM_DEBUG(llvm::dbgs()
               << "buffer #" << p.index << ": " << p.size << " B at "
               << p.offset << " (align " << p.alignment << ")\n");
  }
  return end;
}

/// "pipe.field" for every field of a pipe in `func` that binds each buffer,
/// in declaration order.
static DenseMap<Value, SmallVector<std::string>>
collectFieldLabels(FunctionOpInterface func) {
  DenseMap<Value, SmallVector<std::string>> labels;
  func->walk([&](PipeOp pipe) {
    for (auto [i, buffer] : llvm::enumerate(pipe.getBuffers()))
      labels[buffer].push_back(
          (pipe.getName() + "." + pipe.getFieldName(i)).str());
  });
  return labels;
}

/// How a diagnostic names a buffer: its own name, else the pipe fields
/// binding it, else its position.
static std::string
getLabel(const Placement &p,
         const DenseMap<Value, SmallVector<std::string>> &fields) {
  SharedAllocOp alloc = p.alloc;
  if (std::optional<StringRef> name = alloc.getName())
    return name->str();
  auto it = fields.find(alloc.getBuffer());
  if (it != fields.end())
    return llvm::join(it->second, ", ");
  return "buffer #" + std::to_string(p.index);
}

/// The over-limit error, with every buffer listed so that the author sees
/// what to shrink, alignment padding included.
static void reportOverflow(FunctionOpInterface func,
                           ArrayRef<Placement> buffers, int64_t total) {
  InFlightDiagnostic diag = emitAtHead(func)
                            << "kernel '@" << func.getName() << "' needs "
                            << total << " bytes of shared memory, over the "
                            << hopper::kMaxSharedMemoryBytes
                            << " (227 KiB) an sm_90 CTA can use:";
  auto fields = collectFieldLabels(func);
  for (const Placement &p : buffers)
    diag.attachNote(p.alloc->getLoc())
        << "'" << getLabel(p, fields) << "': " << p.size << " bytes at offset "
        << p.offset << " (alignment " << p.alignment << ")";
}

/// Places the buffers of `func`; failure after a diagnostic.
static LogicalResult allocate(FunctionOpInterface func) {
  FailureOr<SmallVector<Placement>> buffers = collectBuffers(func);
  if (failed(buffers))
    return failure();
  int64_t total = place(*buffers);
  if (total > hopper::kMaxSharedMemoryBytes) {
    reportOverflow(func, *buffers, total);
    return failure();
  }
  Builder b(func.getContext());
  for (Placement &p : *buffers)
    p.alloc.setOffsetAttr(b.getI64IntegerAttr(p.offset));
  // Recomputed from scratch, so a kernel that lost its buffers loses the
  // size of an earlier run too.
  if (total == 0)
    func->removeAttr(TLEDialect::kSharedMemorySizeAttrName);
  else
    func->setAttr(TLEDialect::kSharedMemorySizeAttrName,
                  b.getI64IntegerAttr(total));
  return success();
}

namespace {
struct AllocateSharedMemoryPass
    : mlir::tle::impl::TLEAllocateSharedMemoryBase<AllocateSharedMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    // Every kernel is checked, so that one run reports all that overflow.
    bool failedAny = false;
    getOperation()->walk(
        [&](FunctionOpInterface func) { failedAny |= failed(allocate(func)); });
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
