//===- LowerPipes.cpp - Pipes to mbarriers, waits, arrives and fences -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Realizes the plan that tle-infer-arrive-counts wrote on each pipe, with
// the slots and parities of tle-assign-pipe-phases. See Passes.td and
// docs/SyncDerivation.md for the rules.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/ReleasePlacement.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"
#include "tle/Support/Hopper.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tle-lower-pipes"

namespace mlir::tle {
#define GEN_PASS_DEF_TLELOWERPIPES
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;

namespace {

/// The barriers of one pipe: the plan and the mbarrier array of each.
struct PipeBarriers {
  PipeOp pipe;
  BarrierAttr full;
  Value fullArray;
  SmallVector<BarrierAttr> free;
  SmallVector<Value> freeArrays;

  /// Whether the free barrier `i` covers fields that `reader` reads.
  bool isReadBy(unsigned i, StringRef reader) {
    StringRef field = cast<StringAttr>(free[i].getFields()[0]).getValue();
    return pipe.lookupReader(reader).readsField(field);
  }
  /// Whether the free barrier `i` covers the pipe's field `field`.
  bool covers(unsigned i, unsigned field) {
    return llvm::is_contained(free[i].getFields().getAsValueRange<StringAttr>(),
                              pipe.getFieldName(field));
  }
  bool writesWithStores() {
    return full.getArrive() == ArriveKind::PerThread ||
           full.getArrive() == ArriveKind::Elected ||
           full.getArrive() == ArriveKind::CpAsyncAndPerThread;
  }
  /// Whether the writer fences its ordinary stores before it arrives.
  bool writerFences() {
    return full.getFence() == FenceKind::Writer ||
           full.getFence() == FenceKind::Both;
  }
};

class PipeLowering {
public:
  explicit PipeLowering(WarpSpecializeOp ws) : ws(ws), b(ws) {}

  LogicalResult run();

private:
  LogicalResult collect();
  void createBarriers();
  void initBarriers();
  LogicalResult lower(PipeLifecycleOpInterface op);
  void lowerAcquire(AcquireOp op, PipeBarriers &barriers);
  /// Gives each tle.tma_load between `acquire` and `commit` the slot's full
  /// barrier and puts it under a thread-0 guard.
  void bindTMALoads(AcquireOp acquire, Operation *commit, Value fullArray);
  /// The same for the writer of a one_shot pipe, which has no acquire: the
  /// tle.tma_loads before `commit` in its partition that write the pipe's
  /// buffers get the full barrier, after thread 0's expect_tx arrive.
  void bindOneShotTMALoads(CommitOp commit, PipeBarriers &barriers);
  void guardTMALoad(TMALoadOp load, Value fullArray, Value slot);
  void lowerCommit(CommitOp op, PipeBarriers &barriers);
  void lowerWait(WaitOp op, PipeBarriers &barriers);
  LogicalResult lowerRelease(ReleaseOp op, PipeBarriers &barriers);
  /// The free-barrier arrives of `op`'s reader on `slot`.
  void arriveFree(ReleaseOp op, PipeBarriers &barriers, Value slot);

  /// `tle.slot` views of `fields` of the pipe at the op's slot.
  SmallVector<Value> createSlotViews(PipeLifecycleOpInterface op,
                                     ArrayRef<unsigned> fields);
  /// Arrives once per thread, or from thread 0 after the partition's
  /// barrier when `elected`.
  void arrive(Location loc, Value array, Value slot, bool elected);
  void fenceProxyAsync(Location loc);
  Value isThreadZero(Location loc);
  /// One mbarrier per reclaimed pipe, counting every thread of its
  /// readers; each reclaim arrives and waits for its first phase.
  void lowerReclaims();

  WarpSpecializeOp ws;
  OpBuilder b;
  llvm::MapVector<Operation *, PipeBarriers> pipes;
  DenseMap<ReleaseOp, ReleasePlacement> placements;
  /// The reclaim mbarriers and their arrive counts.
  SmallVector<std::pair<Value, int64_t>> reclaimBarriers;
};

} // namespace

LogicalResult PipeLowering::collect() {
  WalkResult result = ws->walk([&](PipeLifecycleOpInterface op) {
    PipeOp pipe = op.getPipeOp();
    if (!op.getSlot() || (isa<AcquireOp, WaitOp>(op.getOperation()) &&
                          !op->getOperand(op->getNumOperands() - 1)))
      return WalkResult(op->emitOpError("has no slot and parity yet; run "
                                        "--tle-assign-pipe-phases first"));
    if (pipes.contains(pipe))
      return WalkResult::advance();
    auto plan = pipe->getAttrOfType<ArrayAttr>(TLEDialect::kBarriersAttrName);
    if (!plan)
      return WalkResult(pipe.emitError("pipe '")
                        << pipe.getName()
                        << "' has no derived barriers; run "
                           "--tle-infer-arrive-counts first");
    PipeBarriers &barriers = pipes[pipe];
    barriers.pipe = pipe;
    for (auto barrier : plan.getAsRange<BarrierAttr>()) {
      if (barrier.getKind() == BarrierKind::Full)
        barriers.full = barrier;
      else
        barriers.free.push_back(barrier);
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

void PipeLowering::createBarriers() {
  for (auto &[op, barriers] : pipes) {
    PipeOp pipe = barriers.pipe;
    b.setInsertionPointAfter(pipe);
    // Barriers are plain shared memory whatever layout the fields use.
    auto arrayType =
        MemRefType::get({pipe.getCapacityAttr().getInt()}, b.getI64Type(),
                        MemRefLayoutAttrInterface(),
                        gpu::AddressSpaceAttr::get(
                            b.getContext(), gpu::AddressSpace::Workgroup));
    auto createArray = [&](BarrierAttr barrier) -> Value {
      std::string name =
          (pipe.getName() + "." + stringifyBarrierKind(barrier.getKind()))
              .str();
      if (barrier.getKind() == BarrierKind::Free && barriers.free.size() > 1)
        name +=
            "." +
            llvm::join(barrier.getFields().getAsValueRange<StringAttr>(), "+");
      return SharedAllocOp::create(b, pipe.getLoc(), arrayType,
                                   b.getStringAttr(name), IntegerAttr(),
                                   IntegerAttr());
    };
    barriers.fullArray = createArray(barriers.full);
    for (BarrierAttr barrier : barriers.free)
      barriers.freeArrays.push_back(createArray(barrier));
  }
}

/// Thread 0 of the CTA initializes every mbarrier before the partitions
/// start; the fence makes the inits visible to the async proxy (TMA,
/// cp.async arrivals) and the CTA barrier to the other threads.
void PipeLowering::initBarriers() {
  Location loc = ws.getLoc();
  b.setInsertionPoint(ws);
  auto isFirst = scf::IfOp::create(b, loc, isThreadZero(loc));
  b.setInsertionPointToStart(isFirst.thenBlock());
  SmallVector<Value> slots;
  for (auto &[op, barriers] : pipes) {
    auto init = [&](Value array, BarrierAttr barrier) {
      for (int64_t s = 0, e = barriers.pipe.getCapacityAttr().getInt(); s < e;
           ++s) {
        if (s == static_cast<int64_t>(slots.size()))
          slots.push_back(arith::ConstantIndexOp::create(b, loc, s));
        MBarrierInitOp::create(b, loc, array, slots[s],
                               b.getI64IntegerAttr(barrier.getCount()));
      }
    };
    init(barriers.fullArray, barriers.full);
    for (auto [array, barrier] : llvm::zip(barriers.freeArrays, barriers.free))
      init(array, barrier);
  }
  for (auto [array, count] : reclaimBarriers) {
    if (slots.empty())
      slots.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    MBarrierInitOp::create(b, loc, array, slots[0], b.getI64IntegerAttr(count));
  }
  b.setInsertionPoint(ws);
  NVVM::FenceMbarrierInitOp::create(b, loc);
  gpu::BarrierOp::create(b, loc);
}

Value PipeLowering::isThreadZero(Location loc) {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
}

void PipeLowering::fenceProxyAsync(Location loc) {
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
}

void PipeLowering::arrive(Location loc, Value array, Value slot, bool elected) {
  if (!elected) {
    MBarrierArriveOp::create(b, loc, ArriveForm::Plain, array, slot,
                             IntegerAttr());
    return;
  }
  // The partition's barrier (gpu.barrier becomes its named barrier when
  // warp specialization is lowered) orders every thread's accesses before
  // the one arrive.
  gpu::BarrierOp::create(b, loc);
  auto first = scf::IfOp::create(b, loc, isThreadZero(loc));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(first.thenBlock());
  MBarrierArriveOp::create(b, loc, ArriveForm::Plain, array, slot,
                           IntegerAttr());
}

SmallVector<Value> PipeLowering::createSlotViews(PipeLifecycleOpInterface op,
                                                 ArrayRef<unsigned> fields) {
  PipeOp pipe = op.getPipeOp();
  SmallVector<Value> views;
  for (auto [field, result] : llvm::zip(fields, op->getResults()))
    views.push_back(SlotOp::create(b, op.getLoc(), result.getType(),
                                   pipe.getBuffers()[field], op.getSlot()));
  return views;
}

/// The first op of `block` at or after `start` that uses one of `values`
/// or a view derived from them, or null.
static Operation *findFirstUse(ArrayRef<Value> values, Operation *start) {
  SetVector<Value> aliases(values.begin(), values.end());
  for (unsigned i = 0; i < aliases.size(); ++i)
    for (Operation *user : aliases[i].getUsers())
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        aliases.insert(view->getResults().begin(), view->getResults().end());
  Operation *first = nullptr;
  for (Value alias : aliases)
    for (Operation *user : alias.getUsers()) {
      Operation *ancestor = start->getBlock()->findAncestorOpInBlock(*user);
      if (!ancestor || ancestor->isBeforeInBlock(start))
        continue;
      if (!first || ancestor->isBeforeInBlock(first))
        first = ancestor;
    }
  return first;
}

void PipeLowering::lowerAcquire(AcquireOp op, PipeBarriers &barriers) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  auto all =
      llvm::to_vector(llvm::seq<unsigned>(0, barriers.pipe.getNumFields()));
  SmallVector<Value> views = createSlotViews(op, all);
  for (auto [result, view] : llvm::zip(op.getViews(), views))
    result.replaceAllUsesWith(view);
  Operation *commit = nullptr;
  for (Operation *next = op->getNextNode(); next && !commit;
       next = next->getNextNode())
    if (auto c = dyn_cast<CommitOp>(next); c && c.getPipe() == op.getPipe())
      commit = c;

  if (barriers.full.getArrive() == ArriveKind::ExpectTx) {
    // The expect_tx arrive may only join this lap's phase once every reader
    // has released the slot, so all free waits come first.
    for (Value array : barriers.freeArrays)
      MBarrierWaitOp::create(b, loc, array, op.getSlot(), op.getParity());
    auto first = scf::IfOp::create(b, loc, isThreadZero(loc));
    b.setInsertionPointToStart(first.thenBlock());
    MBarrierArriveOp::create(b, loc, ArriveForm::ExpectTx, barriers.fullArray,
                             op.getSlot(),
                             b.getI64IntegerAttr(barriers.full.getTxBytes()));
    bindTMALoads(op, commit, barriers.fullArray);
  } else {
    // Wait for each field group just before the writer first touches it, so
    // a group its readers have released can be refilled while another
    // group is still being read.
    for (auto [i, array] : llvm::enumerate(barriers.freeArrays)) {
      SmallVector<Value> groupViews;
      for (unsigned f : all)
        if (barriers.covers(i, f))
          groupViews.push_back(views[f]);
      Operation *firstUse = findFirstUse(groupViews, op);
      b.setInsertionPoint(firstUse ? firstUse : commit ? commit : op);
      MBarrierWaitOp::create(b, loc, array, op.getSlot(), op.getParity());
    }
  }
  op->erase();
}

void PipeLowering::bindTMALoads(AcquireOp acquire, Operation *commit,
                                Value fullArray) {
  SmallVector<TMALoadOp> loads;
  for (Operation *op = acquire->getNextNode(); op && op != commit;
       op = op->getNextNode())
    op->walk([&](TMALoadOp load) { loads.push_back(load); });
  for (TMALoadOp load : loads)
    guardTMALoad(load, fullArray, acquire.getSlot());
}

void PipeLowering::guardTMALoad(TMALoadOp load, Value fullArray, Value slot) {
  // The copy completes on the slot's full barrier; one thread issues it.
  load.getBarriersMutable().assign(fullArray);
  load.getBarrierIndexMutable().assign(slot);
  b.setInsertionPoint(load);
  auto first = scf::IfOp::create(b, load.getLoc(), isThreadZero(load.getLoc()));
  load->moveBefore(first.thenBlock()->getTerminator());
}

/// Whether `memref` is one of `buffers` or a view of one.
static bool isViewOf(Value memref, ValueRange buffers) {
  while (memref) {
    if (llvm::is_contained(buffers, memref))
      return true;
    auto view = memref.getDefiningOp<ViewLikeOpInterface>();
    memref = view ? view.getViewSource() : Value();
  }
  return false;
}

void PipeLowering::bindOneShotTMALoads(CommitOp commit,
                                       PipeBarriers &barriers) {
  Region *partition = &ws->getRegion(*ws.getPartitionOf(commit));
  Block &entry = partition->front();
  Operation *commitTop = entry.findAncestorOpInBlock(*commit);
  SmallVector<TMALoadOp> loads;
  partition->walk([&](TMALoadOp load) {
    Operation *top = entry.findAncestorOpInBlock(*load);
    if (top && top->isBeforeInBlock(commitTop) &&
        isViewOf(load.getDestination(), barriers.pipe.getBuffers()))
      loads.push_back(load);
  });
  if (loads.empty())
    return;
  // Thread 0 expects the bytes before it issues the first copy.
  Location loc = commit.getLoc();
  b.setInsertionPoint(entry.findAncestorOpInBlock(*loads.front()));
  auto first = scf::IfOp::create(b, loc, isThreadZero(loc));
  b.setInsertionPointToStart(first.thenBlock());
  MBarrierArriveOp::create(b, loc, ArriveForm::ExpectTx, barriers.fullArray,
                           commit.getSlot(),
                           b.getI64IntegerAttr(barriers.full.getTxBytes()));
  for (TMALoadOp load : loads)
    guardTMALoad(load, barriers.fullArray, commit.getSlot());
}

void PipeLowering::lowerCommit(CommitOp op, PipeBarriers &barriers) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  ArriveKind kind = barriers.full.getArrive();
  Value slot = op.getSlot();
  if (kind == ArriveKind::ExpectTx && barriers.pipe.getOneShot())
    bindOneShotTMALoads(op, barriers);
  if (kind == ArriveKind::CpAsync || kind == ArriveKind::CpAsyncAndPerThread)
    MBarrierArriveOp::create(b, loc, ArriveForm::CpAsync, barriers.fullArray,
                             slot, IntegerAttr());
  if (barriers.writesWithStores()) {
    // Ordinary stores that the async proxy reads next need the proxy fence
    // in each writing thread before its arrive publishes them.
    if (barriers.writerFences())
      fenceProxyAsync(loc);
    arrive(loc, barriers.fullArray, slot, kind == ArriveKind::Elected);
  }
  op->erase();
}

void PipeLowering::lowerWait(WaitOp op, PipeBarriers &barriers) {
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  // The readers' fences for cp.async data are already in place
  // (tle-place-proxy-fences).
  MBarrierWaitOp::create(b, loc, barriers.fullArray, op.getSlot(),
                         op.getParity());
  PipeOp pipe = barriers.pipe;
  SmallVector<Value> views = createSlotViews(
      op, pipe.getReaderFields(pipe.lookupReader(op.getReader())));
  for (auto [result, view] : llvm::zip(op.getViews(), views))
    result.replaceAllUsesWith(view);
  op->erase();
}

void PipeLowering::arriveFree(ReleaseOp op, PipeBarriers &barriers,
                              Value slot) {
  for (auto [i, array] : llvm::enumerate(barriers.freeArrays))
    if (barriers.isReadBy(i, op.getReader()))
      arrive(op.getLoc(), array, slot,
             barriers.free[i].getArrive() == ArriveKind::Elected);
}

LogicalResult PipeLowering::lowerRelease(ReleaseOp op, PipeBarriers &barriers) {
  const ReleasePlacement &placement = placements.lookup(op);
  if (placement.kind != ReleasePlacement::Kind::NextIteration) {
    if (placement.kind == ReleasePlacement::Kind::AfterWait)
      b.setInsertionPointAfter(placement.wait);
    else
      b.setInsertionPoint(op);
    arriveFree(op, barriers, op.getSlot());
    op->erase();
    return success();
  }
  // The loop carries the slot to release and whether one is pending; the
  // arrive follows the wait that retires the multiply, in the next
  // iteration and after the loop for the last one.
  auto loop = cast<scf::ForOp>(op->getParentOp());
  LLVM_DEBUG(llvm::dbgs() << "deferring " << op << " to " << placement.wait
                          << " and " << placement.afterLoop << "\n");
  Location loc = op.getLoc();
  IRRewriter rewriter(op.getContext());
  rewriter.setInsertionPoint(loop);
  Value none = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value pendingInit = arith::ConstantIntOp::create(rewriter, loc, 0, 1);
  Value pendingNext = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
  Value slot = op.getSlot();
  FailureOr<LoopLikeOpInterface> carried = loop.replaceWithAdditionalYields(
      rewriter, {none, pendingInit}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return SmallVector<Value>{slot, pendingNext};
      });
  if (failed(carried))
    return op.emitOpError("cannot carry the deferred release through its loop");
  auto newLoop = cast<scf::ForOp>(carried->getOperation());
  auto arriveIf = [&](Operation *after, Value pending, Value pendingSlot) {
    b.setInsertionPointAfter(after);
    auto guard = scf::IfOp::create(b, loc, pending);
    b.setInsertionPointToStart(guard.thenBlock());
    arriveFree(op, barriers, pendingSlot);
  };
  unsigned n = newLoop.getNumRegionIterArgs();
  arriveIf(placement.wait, newLoop.getRegionIterArgs()[n - 1],
           newLoop.getRegionIterArgs()[n - 2]);
  unsigned r = newLoop.getNumResults();
  arriveIf(placement.afterLoop, newLoop.getResult(r - 1),
           newLoop.getResult(r - 2));
  op->erase();
  return success();
}

void PipeLowering::lowerReclaims() {
  llvm::MapVector<Operation *, SmallVector<ReclaimOp>> byPipe;
  ws->walk([&](ReclaimOp op) { byPipe[op.getPipeOp()].push_back(op); });
  for (auto &[pipe, reclaims] : byPipe) {
    int64_t threads = 0;
    for (ReclaimOp op : reclaims)
      threads += ws.getPartitionNumWarps()[*ws.getPartitionOf(op)] *
                 ::tle::hopper::kWarpSize;
    Location loc = pipe->getLoc();
    b.setInsertionPointAfter(pipe);
    auto type =
        MemRefType::get({1}, b.getI64Type(), MemRefLayoutAttrInterface(),
                        gpu::AddressSpaceAttr::get(
                            b.getContext(), gpu::AddressSpace::Workgroup));
    Value array = SharedAllocOp::create(
        b, loc, type,
        b.getStringAttr(cast<PipeOp>(pipe).getName() + ".reclaim"),
        IntegerAttr(), IntegerAttr());
    reclaimBarriers.push_back({array, threads});
    for (ReclaimOp op : reclaims) {
      b.setInsertionPoint(op);
      Value zero = arith::ConstantIndexOp::create(b, op.getLoc(), 0);
      Value phase = arith::ConstantIntOp::create(b, op.getLoc(), 0, 1);
      MBarrierArriveOp::create(b, op.getLoc(), ArriveForm::Plain, array, zero,
                               IntegerAttr());
      MBarrierWaitOp::create(b, op.getLoc(), array, zero, phase);
      if (Value scratch = op.getScratch())
        scratch.replaceAllUsesWith(op.getPart());
      op->erase();
    }
  }
}

LogicalResult PipeLowering::lower(PipeLifecycleOpInterface op) {
  PipeBarriers &barriers = pipes[op.getPipeOp()];
  if (auto release = dyn_cast<ReleaseOp>(op.getOperation()))
    return lowerRelease(release, barriers);
  llvm::TypeSwitch<Operation *, void>(op.getOperation())
      .Case([&](AcquireOp acquire) { lowerAcquire(acquire, barriers); })
      .Case([&](CommitOp commit) { lowerCommit(commit, barriers); })
      .Case([&](WaitOp wait) { lowerWait(wait, barriers); });
  return success();
}

LogicalResult PipeLowering::run() {
  if (failed(collect()))
    return failure();
  if (pipes.empty())
    return success();
  // Decided on the IR as written, before any view becomes a tle.slot.
  WalkResult placed = ws->walk([&](ReleaseOp release) {
    FailureOr<ReleasePlacement> placement = placeRelease(release);
    if (failed(placement))
      return WalkResult::interrupt();
    placements[release] = *placement;
    return WalkResult::advance();
  });
  if (placed.wasInterrupted())
    return failure();
  createBarriers();
  lowerReclaims();
  initBarriers();
  SmallVector<PipeLifecycleOpInterface> ops;
  ws->walk([&](PipeLifecycleOpInterface op) { ops.push_back(op); });
  for (PipeLifecycleOpInterface op : ops)
    if (failed(lower(op)))
      return failure();
  for (auto &[op, barriers] : pipes)
    if (barriers.pipe->use_empty())
      barriers.pipe->erase();
  return success();
}

namespace {
struct LowerPipesPass : mlir::tle::impl::TLELowerPipesBase<LowerPipesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(requireExpandedReplicas(getOperation(), getArgument())))
      return signalPassFailure();
    SmallVector<WarpSpecializeOp> kernels;
    getOperation()->walk([&](WarpSpecializeOp ws) { kernels.push_back(ws); });
    for (WarpSpecializeOp ws : kernels)
      if (failed(PipeLowering(ws).run()))
        return signalPassFailure();
    WalkResult stray = getOperation()->walk([](Operation *op) {
      if (isa<PipeOp, PipeLifecycleOpInterface>(op))
        return WalkResult(op->emitError("is outside every tle.warp_specialize "
                                        "and cannot be lowered"));
      return WalkResult::advance();
    });
    if (stray.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
