//===- SlotViews.cpp - Slots are touched only through their views ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/SlotViews.h"
#include "tle/Dialect/TLE/Analysis/IterationExpr.h"
#include "tle/Dialect/TLE/Analysis/StorageFootprint.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::tle;

namespace {

/// A value through which one side holds the view of one field of a window
/// in its block: a result of the tle.acquire or tle.wait that opened the
/// window, or, for a window that a loop carries, the iter_arg that holds
/// it in the body and the loop result that holds it after the loop.
struct ViewHolder {
  Value view;
  /// An op of the side (it names the pipe and the reader) and the field.
  PipeLifecycleOpInterface side;
  unsigned field;
  /// None for a one_shot pipe.
  std::optional<IterationExpr> iteration;
  /// The op after which the block may use it; null for the block's start.
  Operation *from;
};

/// Checks that every view is used only inside its window.
class ViewChecker {
public:
  explicit ViewChecker(const CarriedWindows &carried) : carried(carried) {}

  /// Checks the views of `opener`.
  LogicalResult checkOpener(PipeLifecycleOpInterface opener);
  /// Checks that the iter_args of `loop` that hold views carry a window
  /// the loop carries, from the view it starts with to the view the next
  /// iteration's tle.wait returns, and checks those holders.
  LogicalResult checkLoop(scf::ForOp loop);

private:
  LogicalResult check(ViewHolder holder);
  /// The holder `value` is, if any.
  std::optional<ViewHolder> getHolder(Value value);
  /// The window of `loop` whose next iteration `yielded` views, if any.
  const CarriedWindow *findCarriedWindow(scf::ForOp loop, Value yielded);

  const CarriedWindows &carried;
};

} // namespace

static SmallVector<unsigned> getViewedFields(PipeLifecycleOpInterface opener) {
  PipeOp pipe = opener.getPipeOp();
  if (isa<WaitOp>(opener.getOperation()))
    return pipe.getReaderFields(
        pipe.lookupReader(opener.getReaderAttr().getValue()));
  return llvm::to_vector(llvm::seq<unsigned>(0, pipe.getNumFields()));
}

const CarriedWindow *ViewChecker::findCarriedWindow(scf::ForOp loop,
                                                    Value yielded) {
  auto it = carried.find(loop);
  if (it == carried.end())
    return nullptr;
  for (const CarriedWindow &window : it->second)
    if (yielded.getDefiningOp() == window.next)
      return &window;
  return nullptr;
}

std::optional<ViewHolder> ViewChecker::getHolder(Value value) {
  if (auto opener = value.getDefiningOp<PipeLifecycleOpInterface>();
      opener && isa<AcquireOp, WaitOp>(opener.getOperation())) {
    Value iteration = opener.getIteration();
    return ViewHolder{
        value, opener,
        getViewedFields(opener)[cast<OpResult>(value).getResultNumber()],
        iteration ? std::optional(IterationExpr::get(iteration)) : std::nullopt,
        opener};
  }
  auto arg = dyn_cast<BlockArgument>(value);
  auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp())
                  : value.getDefiningOp<scf::ForOp>();
  if (!loop || (arg && arg == loop.getInductionVar()))
    return std::nullopt;
  unsigned index = arg ? arg.getArgNumber() - loop.getNumInductionVars()
                       : cast<OpResult>(value).getResultNumber();
  // The view of the next iteration's window comes straight from its
  // tle.wait: an opener's result, so this does not recurse further.
  Value yielded = loop.getYieldedValues()[index];
  const CarriedWindow *window = findCarriedWindow(loop, yielded);
  if (!window)
    return std::nullopt;
  std::optional<ViewHolder> next = getHolder(yielded);
  return ViewHolder{value, next->side, next->field,
                    arg ? window->iteration : window->afterLoop,
                    arg ? nullptr : loop.getOperation()};
}

LogicalResult ViewChecker::checkOpener(PipeLifecycleOpInterface opener) {
  for (Value view : opener->getResults())
    if (failed(check(*getHolder(view))))
      return failure();
  return success();
}

LogicalResult ViewChecker::checkLoop(scf::ForOp loop) {
  for (auto [index, init, yielded] :
       llvm::enumerate(loop.getInitArgs(), loop.getYieldedValues())) {
    if (!getViewedBuffer(init) && !getViewedBuffer(yielded))
      continue;
    const CarriedWindow *window = findCarriedWindow(loop, yielded);
    std::optional<ViewHolder> next = getHolder(yielded),
                              entry = getHolder(init);
    if (window && next && entry && isSameSide(entry->side, next->side) &&
        entry->field == next->field && entry->iteration == window->entry) {
      if (failed(check(*getHolder(loop.getRegionIterArgs()[index]))) ||
          failed(check(*getHolder(loop.getResult(index)))))
        return failure();
      continue;
    }
    // The iter_arg holds the window the loop starts with: its uses, the
    // yield among them, end where the body releases it.
    auto carriedWindows = carried.lookup(loop);
    const CarriedWindow *held =
        entry ? llvm::find_if(carriedWindows,
                              [&](const CarriedWindow &w) {
                                return isSameSide(w.next, entry->side) &&
                                       w.entry == entry->iteration;
                              })
              : carriedWindows.end();
    if (held != carriedWindows.end() &&
        failed(check({loop.getRegionIterArgs()[index], entry->side,
                      entry->field, held->iteration, nullptr})))
      return failure();
    PipeLifecycleOpInterface side = (next ? next : entry)
                                        ? (next ? next : entry)->side
                                        : PipeLifecycleOpInterface();
    InFlightDiagnostic diag = emitAtHead(loop) << "iter_arg " << index;
    if (side)
      diag << " holds a slot view of pipe '" << side.getPipeOp().getName()
           << "'";
    else
      diag << " holds a slot view";
    return diag << ", but it is not the view of a window this loop hands "
                   "from one iteration to the next: a loop carries a view "
                   "unchanged, from the one its first iteration holds to the "
                   "one the tle.wait of the next iteration returns";
  }
  return success();
}

LogicalResult ViewChecker::check(ViewHolder holder) {
  Block *block = holder.view.getParentBlock();
  Block::iterator begin =
      holder.from ? std::next(holder.from->getIterator()) : block->begin();
  // The window ends in this block at its closer, or where a loop that
  // carries it starts.
  Operation *end = nullptr;
  scf::ForOp carrier;
  for (Operation &op : llvm::make_range(begin, block->end())) {
    auto closer = dyn_cast<PipeLifecycleOpInterface>(&op);
    if (closer && !isa<AcquireOp, WaitOp>(&op) &&
        isSameSide(closer, holder.side) &&
        (closer.getIteration()
             ? holder.iteration && IterationExpr::get(closer.getIteration()) ==
                                       *holder.iteration
             : !holder.iteration)) {
      end = &op;
      break;
    }
    auto loop = dyn_cast<scf::ForOp>(&op);
    auto it = loop ? carried.find(loop) : carried.end();
    if (it != carried.end() &&
        llvm::any_of(it->second, [&](const CarriedWindow &window) {
          return isSameSide(window.next, holder.side) &&
                 window.entry == holder.iteration;
        })) {
      end = &op;
      carrier = loop;
      break;
    }
  }
  PipeOp pipe = holder.side.getPipeOp();
  StringRef field = pipe.getFieldName(holder.field);
  bool writer = holder.side.isWriterSide();
  for (Value alias : getDerivedViews(holder.view)) {
    for (OpOperand &use : alias.getUses()) {
      Operation *user = use.getOwner();
      // Into the loop that carries the window, or to the next iteration:
      // checkLoop follows it.
      if (alias == holder.view &&
          ((user == carrier &&
            use.getOperandNumber() >= carrier.getNumControlOperands()) ||
           (isa<scf::YieldOp>(user) && holder.from &&
            isa<WaitOp>(holder.from) &&
            findCarriedWindow(dyn_cast<scf::ForOp>(user->getParentOp()),
                              holder.view))))
        continue;
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!end || (ancestor && ancestor->isBeforeInBlock(end))) {
        if (!user->hasTrait<OpTrait::IsTerminator>())
          continue;
        return user->emitError("the slot view of field '")
               << field << "' of pipe '" << pipe.getName()
               << "' leaves the block of the " << holder.side.describeSide()
               << "'s window; use a slot's view only between its "
               << (writer ? "tle.acquire and tle.commit"
                          : "tle.wait and tle.release")
               << ", or hand it to the next iteration of a loop that "
                  "carries the window";
      }
      if (carrier) {
        InFlightDiagnostic diag =
            user->emitError("uses the slot of field '")
            << field << "' of pipe '" << pipe.getName()
            << "' inside or after the scf.for that carries the "
            << holder.side.describeSide()
            << "'s window to its next iterations; use the loop's iter_arg "
               "inside it and its result after it";
        diag.attachNote(carrier.getLoc()) << "the loop that carries it";
        return diag;
      }
      InFlightDiagnostic diag = user->emitError("uses the slot of field '")
                                << field << "' of pipe '" << pipe.getName()
                                << "' after the " << holder.side.describeSide()
                                << " " << (writer ? "committed" : "released")
                                << " it";
      diag.attachNote(end->getLoc()) << "the slot is given up here";
      return diag;
    }
  }
  return success();
}

LogicalResult tle::checkSlotViews(WarpSpecializeOp ws,
                                  const CarriedWindows &carried) {
  ViewChecker views(carried);
  WalkResult result = ws->walk([&](Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return WalkResult(views.checkLoop(loop));
    if (isa<AcquireOp, WaitOp>(op))
      return WalkResult(views.checkOpener(cast<PipeLifecycleOpInterface>(op)));
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Whether `user` may read or write `memref`: it says so, or says nothing.
static bool mayAccess(Operation *user, Value memref) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(user);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [&](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect()) &&
           (!e.getValue() || e.getValue() == memref);
  });
}

LogicalResult tle::checkDirectAccesses(WarpSpecializeOp ws,
                                       const PipeUsage &usage) {
  PipeOp pipe = usage.pipe;
  SmallVector<Operation *> commits;
  if (pipe.getOneShot())
    for (auto &entry : usage.opsByPartition)
      for (PipeLifecycleOpInterface op : entry.second)
        if (isa<CommitOp>(*op))
          commits.push_back(op);
  auto isBeforeOneShotCommit = [&](Operation *user) {
    return llvm::any_of(commits, [&](Operation *commit) {
      Operation *ancestor = commit->getBlock()->findAncestorOpInBlock(*user);
      return ancestor && ancestor->isBeforeInBlock(commit);
    });
  };
  for (auto [field, buffer] : llvm::enumerate(pipe.getBuffers())) {
    for (Value alias : getViewsSharingStorage(buffer)) {
      for (Operation *user : alias.getUsers()) {
        Operation *top = ws->getBlock()->findAncestorOpInBlock(*user);
        if (isa<PipeOp, ViewLikeOpInterface, ReclaimOp>(user) ||
            (top && top->isBeforeInBlock(ws)) || !mayAccess(user, alias) ||
            isBeforeOneShotCommit(user))
          continue;
        std::optional<unsigned> partition = ws.getPartitionOf(user);
        InFlightDiagnostic diag = user->emitError();
        if (partition)
          diag << "partition '" << ws.getPartitionLabel(*partition) << "'";
        else
          diag << "the code after the tle.warp_specialize";
        diag << " accesses the buffer of field '" << pipe.getFieldName(field)
             << "' of pipe '" << pipe.getName()
             << "' directly; a pipe's buffers are accessed only through the "
                "slot views that tle.acquire and tle.wait return, until "
                "the matching tle.commit or tle.release"
             << (pipe.getOneShot() ? " (a one_shot pipe's writer writes "
                                     "its buffers before the tle.commit)"
                                   : "")
             << "; a dead pipe's storage becomes scratch through "
                "tle.reclaim";
        return diag;
      }
    }
  }
  return success();
}

LogicalResult tle::checkSlotBounds(WarpSpecializeOp ws) {
  WalkResult result = ws->walk([&](Operation *op) {
    auto opener = dyn_cast<PipeLifecycleOpInterface>(op);
    if (!opener || !isa<AcquireOp, WaitOp>(op))
      return WalkResult::advance();
    PipeOp pipe = opener.getPipeOp();
    SmallVector<unsigned> fields = getViewedFields(opener);
    for (auto [index, view] : llvm::enumerate(op->getResults())) {
      std::optional<int64_t> bytes =
          getBufferByteSize(cast<MemRefType>(view.getType()));
      if (!bytes)
        continue;
      StorageFootprint slot{SharedAllocOp(), {{0, *bytes}}};
      for (Value derived : getDerivedViews(view)) {
        FailureOr<StorageFootprint> footprint =
            getFootprintWithin(derived, view);
        if (failed(footprint) || slot.contains(*footprint))
          continue;
        std::optional<unsigned> partition = ws.getPartitionOf(op);
        emitAtHead(derived.getDefiningOp())
            << "this view covers bytes " << footprint->ranges.front().first
            << ".." << footprint->ranges.back().second - 1
            << " of the slot of field '" << pipe.getFieldName(fields[index])
            << "' of pipe '" << pipe.getName() << "' that the "
            << opener.describeSide() << " holds in partition '"
            << ws.getPartitionLabel(*partition) << "', which has " << *bytes
            << " bytes: it reaches into another slot, which its writer "
               "refills meanwhile; every view of a slot lies inside it";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
