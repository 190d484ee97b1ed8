//===- PlaceProxyFences.cpp - Readers' fences for cp.async data -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A reader that waited for cp.async data must fence.proxy.async before the
// async proxy (the tensor cores, TMA) reads it. One fence orders everything
// the thread waited for before it, so the pass places as few as each path
// needs: a forward dataflow over the partition's structured control flow
// whose state says whether the thread holds unfenced cp.async data. See
// Passes.td and docs/SyncDerivation.md.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tle-place-proxy-fences"

namespace mlir::tle {
#define GEN_PASS_DEF_TLEPLACEPROXYFENCES
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;

namespace {

/// Where a fence goes: after `after` in `block`, or at the block's start
/// when `after` is null.
struct FencePoint {
  Block *block;
  Operation *after;
  bool operator==(const FencePoint &other) const {
    return block == other.block && after == other.after;
  }
};
using FencePlan = SmallVector<FencePoint>;

/// The dataflow. A thread is dirty from a wait that hands cp.async data to
/// the async proxy until it fences; an async-proxy read while dirty needs a
/// fence. The fence goes as early as it can: right after the last op of
/// the read's block that left the thread dirty (where the per-wait fence
/// stood, so that only the fences that go away change the code), before a
/// loop or an scf.if whose every branch would need it only because the
/// thread entered dirty, and at the end of an iteration that hands its data
/// to the next.
class FencePlanner {
public:
  FencePlanner(const DenseSet<Operation *> &handoffs,
               const DenseSet<Operation *> &fencing)
      : handoffs(handoffs), fencing(fencing) {}

  /// How a walk leaves a block: dirty or not, and after which op (null:
  /// from the block's start) the thread last became dirty.
  struct Exit {
    bool dirty;
    FencePoint lastDirt;
  };

  /// Adds to `plan` the fences `block` needs when entered in state `dirty`.
  Exit walkBlock(Block &block, bool dirty, FencePlan &plan);

private:
  /// The same for an op with regions; returns whether it may exit dirty.
  bool walkRegions(Operation *op, bool dirty, FencePlan &plan);
  bool walkIf(scf::IfOp op, bool dirty, FencePlan &plan);
  bool walkFor(scf::ForOp op, bool dirty, FencePlan &plan);
  /// Any other op with regions is taken as a loop whose blocks may run in
  /// any order, any number of times (scf.while, and whatever else a
  /// partition holds: sound, if not as tight as scf.for).
  bool walkLoop(Operation *op, bool dirty, FencePlan &plan);
  /// Whether a fence before `op`, entered dirty, saves fences inside it.
  bool shouldHoist(Operation *op);
  /// Whether nothing inside `op` waits, fences or reads through the async
  /// proxy: the state passes it unchanged, and a fence may stay before it.
  bool isTransparent(Operation *op);

  const DenseSet<Operation *> &handoffs;
  const DenseSet<Operation *> &fencing;
};

} // namespace

FencePlanner::Exit FencePlanner::walkBlock(Block &block, bool dirty,
                                           FencePlan &plan) {
  FencePoint lastDirt{&block, nullptr};
  for (Operation &op : block) {
    if (fencing.contains(&op)) {
      dirty = false;
    } else if (handoffs.contains(&op)) {
      dirty = true;
      lastDirt = {&block, &op};
    } else if (readsThroughAsyncProxy(&op)) {
      if (dirty)
        plan.push_back(lastDirt);
      dirty = false;
    } else if (op.getNumRegions() && !isTransparent(&op)) {
      if (dirty && shouldHoist(&op)) {
        plan.push_back(lastDirt);
        dirty = false;
      }
      dirty = walkRegions(&op, dirty, plan);
      if (dirty)
        lastDirt = {&block, &op};
    }
  }
  return {dirty, lastDirt};
}

bool FencePlanner::isTransparent(Operation *op) {
  return !op->walk([&](Operation *inner) {
              return handoffs.contains(inner) || fencing.contains(inner) ||
                             readsThroughAsyncProxy(inner)
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            }).wasInterrupted();
}

bool FencePlanner::shouldHoist(Operation *op) {
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    // Both branches need it: one fence before them, the same on every path.
    if (branch.getElseRegion().empty())
      return false;
    for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()}) {
      FencePlan entered, clean;
      walkBlock(region->front(), true, entered);
      walkBlock(region->front(), false, clean);
      if (entered.size() == clean.size())
        return false;
    }
    return true;
  }
  // A loop would fence in every iteration what one fence before it orders.
  FencePlan entered, clean;
  walkRegions(op, true, entered);
  walkRegions(op, false, clean);
  return entered.size() > clean.size();
}

bool FencePlanner::walkRegions(Operation *op, bool dirty, FencePlan &plan) {
  if (auto branch = dyn_cast<scf::IfOp>(op))
    return walkIf(branch, dirty, plan);
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return walkFor(loop, dirty, plan);
  return walkLoop(op, dirty, plan);
}

bool FencePlanner::walkIf(scf::IfOp op, bool dirty, FencePlan &plan) {
  bool thenDirty = walkBlock(op.getThenRegion().front(), dirty, plan).dirty;
  if (op.getElseRegion().empty())
    return thenDirty || dirty;
  return walkBlock(op.getElseRegion().front(), dirty, plan).dirty || thenDirty;
}

bool FencePlanner::walkFor(scf::ForOp op, bool dirty, FencePlan &plan) {
  // The head joins the entry and the end of each iteration; with two states
  // it settles after at most two rounds. The loop exits from the head.
  Block &body = *op.getBody();
  bool head = dirty;
  FencePlan joined;
  Exit end;
  while (true) {
    joined.clear();
    end = walkBlock(body, head, joined);
    if ((dirty || end.dirty) == head)
      break;
    head = true;
  }
  if (end.dirty && !dirty) {
    // An iteration that ends dirty (a carried window's wait for the next
    // tile) can fence after its last wait instead: as often as a fence in
    // the next iteration, and the loop exits clean.
    FencePlan fenced = {end.lastDirt};
    walkBlock(body, false, fenced);
    if (fenced.size() <= joined.size()) {
      plan.append(fenced);
      return false;
    }
  }
  plan.append(joined);
  return head;
}

bool FencePlanner::walkLoop(Operation *op, bool dirty, FencePlan &plan) {
  bool head = dirty;
  while (true) {
    FencePlan body;
    bool end = false;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        end |= walkBlock(block, head, body).dirty;
    if ((dirty || end) == head) {
      plan.append(body);
      return head;
    }
    head = true;
  }
}

namespace {

/// Places the fences of one tle.warp_specialize.
class ProxyFencePlacement {
public:
  ProxyFencePlacement(WarpSpecializeOp ws, bool acquireForm)
      : ws(ws), acquireForm(acquireForm) {}

  void run();

private:
  void collect();
  void createFence(OpBuilder &b, Location loc);

  WarpSpecializeOp ws;
  bool acquireForm;
  /// Waits that hand cp.async data to the async proxy.
  DenseSet<Operation *> handoffs;
  /// Ops that fence.proxy.async in every thread of their partition.
  DenseSet<Operation *> fencing;
};

} // namespace

/// Whether the writer's threads fence before the arrive of `commit`
/// (tle-lower-pipes, for ordinary stores the async proxy reads).
static bool fencesAtCommit(CommitOp commit) {
  PipeOp pipe =
      cast<PipeLifecycleOpInterface>(commit.getOperation()).getPipeOp();
  auto plan = pipe->getAttrOfType<ArrayAttr>(TLEDialect::kBarriersAttrName);
  if (!plan)
    return false;
  auto full = cast<BarrierAttr>(plan[0]);
  return full.getFence() == FenceKind::Writer ||
         full.getFence() == FenceKind::Both;
}

/// Whether every thread that runs `op` issues a fence that orders the
/// cp.async data it waited for before its later async-proxy reads.
static bool ordersCpAsyncForAsyncProxy(Operation *op) {
  if (auto proxy = dyn_cast<NVVM::FenceProxyOp>(op))
    return proxy.getKind() == NVVM::ProxyKind::async ||
           proxy.getKind() == NVVM::ProxyKind::async_shared;
  if (auto restricted = dyn_cast<NVVM::FenceProxySyncRestrictOp>(op))
    return restricted.getOrder() == NVVM::MemOrderKind::ACQUIRE;
  if (auto commit = dyn_cast<CommitOp>(op))
    return fencesAtCommit(commit);
  // tle-distribute-tensors fences every thread before thread 0 issues the
  // copy.
  return isa<TMAStoreOp>(op);
}

void ProxyFencePlacement::collect() {
  for (const PipeUsage &usage : collectPipeUsages(ws))
    for (WaitOp wait : findCpAsyncHandoffs(usage))
      handoffs.insert(wait);
  ws->walk([&](Operation *op) {
    if (ordersCpAsyncForAsyncProxy(op))
      fencing.insert(op);
  });
}

void ProxyFencePlacement::createFence(OpBuilder &b, Location loc) {
  if (acquireForm) {
    NVVM::FenceProxySyncRestrictOp::create(b, loc, NVVM::MemOrderKind::ACQUIRE,
                                           NVVM::ProxyKind::GENERIC,
                                           NVVM::ProxyKind::async);
    return;
  }
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
}

void ProxyFencePlacement::run() {
  // Under tle.cp_async_fence = "none" the plan has no readers' fences, so
  // no wait hands cp.async data over.
  if (!readersFenceCpAsync(ws))
    return;
  collect();
  if (handoffs.empty())
    return;
  FencePlanner planner(handoffs, fencing);
  FencePlan plan;
  for (Region &partition : ws->getRegions())
    planner.walkBlock(partition.front(), /*dirty=*/false, plan);
  SmallVector<FencePoint> points;
  for (const FencePoint &point : plan)
    if (!llvm::is_contained(points, point))
      points.push_back(point);
  OpBuilder b(ws.getContext());
  for (const FencePoint &point : points) {
    if (point.after)
      b.setInsertionPointAfter(point.after);
    else
      b.setInsertionPointToStart(point.block);
    Location loc = point.after ? point.after->getLoc()
                               : point.block->getParentOp()->getLoc();
    LLVM_DEBUG(llvm::dbgs() << "fence at " << loc << "\n");
    createFence(b, loc);
  }
}

namespace {
struct PlaceProxyFencesPass
    : mlir::tle::impl::TLEPlaceProxyFencesBase<PlaceProxyFencesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (form != "bidirectional" && form != "acquire") {
      getOperation()->emitError("form must be 'bidirectional' or 'acquire', "
                                "got '")
          << form << "'";
      return signalPassFailure();
    }
    if (failed(requireExpandedReplicas(getOperation(), getArgument())))
      return signalPassFailure();
    getOperation()->walk([&](WarpSpecializeOp ws) {
      ProxyFencePlacement(ws, form == "acquire").run();
    });
  }
};
} // namespace
