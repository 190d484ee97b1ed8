//===- PipeWindows.cpp - The slots each partition holds -------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/PipeWindows.h"
#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tle;

namespace {

/// One slot a side holds.
struct Window {
  /// The acquire or wait that opened it: it names the pipe and the side.
  PipeLifecycleOpInterface opener;
  /// None for a one_shot pipe.
  std::optional<IterationExpr> iteration;
  /// The iteration as the author wrote it, for diagnostics; null when the
  /// window came out of a loop that carries it.
  Value written;

  static Window openedBy(PipeLifecycleOpInterface op) {
    Value iteration = op.getIteration();
    return {op,
            iteration ? std::optional(IterationExpr::get(iteration))
                      : std::nullopt,
            iteration};
  }
  bool isSameSideAndIteration(const Window &other) const {
    return isSameSide(opener, other.opener) && iteration == other.iteration;
  }
  std::string describeHeldIteration() const {
    if (written || !iteration)
      return describeIteration(written);
    return "iteration <" + iteration->describe() + ">";
  }
};

/// The slots one partition holds at a program point.
struct HeldSlots {
  SmallVector<Window> open;
  /// one_shot pipes committed on this path.
  SmallVector<Operation *> committedOnce;

  const Window *find(const Window &window) const {
    const Window *it = llvm::find_if(open, [&](const Window &w) {
      return w.isSameSideAndIteration(window);
    });
    return it == open.end() ? nullptr : it;
  }
  bool operator==(const HeldSlots &other) const {
    return open.size() == other.open.size() &&
           llvm::all_of(open, [&](const Window &w) { return other.find(w); }) &&
           committedOnce.size() == other.committedOnce.size() &&
           llvm::all_of(committedOnce, [&](Operation *pipe) {
             return llvm::is_contained(other.committedOnce, pipe);
           });
  }
};

/// Walks one partition's structured control flow, path by path.
class BalanceChecker {
public:
  BalanceChecker(WarpSpecializeOp ws, unsigned partition,
                 CarriedWindows &carried)
      : ws(ws), partition(partition), carried(carried) {}

  LogicalResult run();

private:
  LogicalResult walkBlock(Block &block, HeldSlots &held);
  LogicalResult apply(PipeLifecycleOpInterface op, HeldSlots &held);
  LogicalResult checkBranches(scf::IfOp branch, HeldSlots &held);
  LogicalResult checkLoopBody(Operation *loop, Region &body, HeldSlots &held);
  /// The windows held where `loop` starts that its body closes at an
  /// iteration e(iv) with e(lower bound) equal to theirs: the body then
  /// starts holding e(iv). Rewrites `start` accordingly.
  /// `sides` gets, for each, the opener of the window held at the start.
  FailureOr<SmallVector<CarriedWindow>>
  findCarried(scf::ForOp loop, HeldSlots &start,
              SmallVectorImpl<PipeLifecycleOpInterface> &sides);
  /// Checks that the body ends holding e(iv + step) for each carried window
  /// and renames it e(iv) in `end`, so that `end` compares with the start.
  LogicalResult handOver(scf::ForOp loop, SmallVector<CarriedWindow> &windows,
                         ArrayRef<PipeLifecycleOpInterface> sides,
                         HeldSlots &end, const HeldSlots &start);
  InFlightDiagnostic reportDifference(Operation *at, const HeldSlots &a,
                                      const HeldSlots &b, StringRef what);

  WarpSpecializeOp ws;
  unsigned partition;
  CarriedWindows &carried;
};

} // namespace

LogicalResult BalanceChecker::run() {
  HeldSlots held;
  if (failed(walkBlock(ws.getPartitionRegion(partition).front(), held)))
    return failure();
  if (held.open.empty())
    return success();
  const Window &window = held.open.front();
  PipeLifecycleOpInterface opener = window.opener;
  bool acquired = isa<AcquireOp>(opener.getOperation());
  return opener->emitError()
         << describePipeSide(opener) << " "
         << (acquired ? "acquires " : "waits for ")
         << window.describeHeldIteration() << " but partition '"
         << ws.getPartitionLabel(partition) << "' never "
         << (acquired ? "commits" : "releases") << " it";
}

LogicalResult BalanceChecker::apply(PipeLifecycleOpInterface op,
                                    HeldSlots &held) {
  PipeOp pipe = op.getPipeOp();
  Window window = Window::openedBy(op);
  const Window *match = held.find(window);
  bool opens = isa<AcquireOp, WaitOp>(op.getOperation());
  if (isa<CommitOp>(op.getOperation()) && pipe.getOneShot()) {
    if (llvm::is_contained(held.committedOnce, pipe.getOperation()))
      return op->emitError("commits one_shot pipe '")
             << pipe.getName() << "' a second time; it is committed once";
    held.committedOnce.push_back(pipe);
    return success();
  }
  if (isa<WaitOp>(op.getOperation()) && pipe.getOneShot())
    return success();
  if (opens) {
    if (match)
      return op->emitError()
             << describePipeSide(op) << " opens "
             << describeIteration(op.getIteration()) << " again before "
             << (isa<AcquireOp>(op.getOperation()) ? "committing" : "releasing")
             << " it";
    int64_t holding = llvm::count_if(
        held.open, [&](const Window &w) { return isSameSide(w.opener, op); });
    if (holding + 1 > pipe.getCapacityAttr().getInt())
      return op->emitError("deadlock: ")
             << describePipeSide(op) << " would hold " << holding + 1
             << " slots at once, more than the capacity "
             << pipe.getCapacityAttr().getInt()
             << "; this slot cannot be filled until it gives one back";
    held.open.push_back(window);
    return success();
  }
  if (!match)
    return op->emitError() << describePipeSide(op) << " "
                           << (isa<CommitOp>(op.getOperation()) ? "commits"
                                                                : "releases")
                           << " " << describeIteration(op.getIteration())
                           << " without having "
                           << (isa<CommitOp>(op.getOperation()) ? "acquired"
                                                                : "waited for")
                           << " it on this path";
  held.open.erase(held.open.begin() + (match - held.open.begin()));
  return success();
}

InFlightDiagnostic BalanceChecker::reportDifference(Operation *at,
                                                    const HeldSlots &a,
                                                    const HeldSlots &b,
                                                    StringRef what) {
  for (auto [mine, theirs] : {std::pair(&a, &b), std::pair(&b, &a)})
    for (const Window &window : mine->open)
      if (!theirs->find(window)) {
        InFlightDiagnostic diag =
            emitAtHead(at) << describePipeSide(window.opener) << " holds "
                           << window.describeHeldIteration() << " " << what;
        diag.attachNote(window.opener->getLoc()) << "opened here";
        return diag;
      }
  return emitAtHead(at) << "commits a one_shot pipe " << what;
}

LogicalResult BalanceChecker::checkBranches(scf::IfOp branch, HeldSlots &held) {
  HeldSlots thenHeld = held, elseHeld = held;
  if (failed(walkBlock(branch.getThenRegion().front(), thenHeld)))
    return failure();
  if (!branch.getElseRegion().empty() &&
      failed(walkBlock(branch.getElseRegion().front(), elseHeld)))
    return failure();
  if (!(thenHeld == elseHeld))
    return reportDifference(branch, thenHeld, elseHeld,
                            "on one path of this scf.if but not on the other");
  held = thenHeld;
  return success();
}

FailureOr<SmallVector<CarriedWindow>>
BalanceChecker::findCarried(scf::ForOp loop, HeldSlots &start,
                            SmallVectorImpl<PipeLifecycleOpInterface> &sides) {
  Value iv = loop.getInductionVar();
  IterationExpr lower = IterationExpr::get(loop.getLowerBound());
  SmallVector<CarriedWindow> windows;
  for (Window &window : start.open) {
    if (!window.iteration)
      continue;
    // The first closer that names the window as e(iv), with e(lower) its
    // iteration where the loop starts.
    PipeLifecycleOpInterface closer;
    IterationExpr e;
    loop.getBody()->walk([&](PipeLifecycleOpInterface op) {
      if (isa<AcquireOp, WaitOp>(op.getOperation()) ||
          !isSameSide(window.opener, op))
        return WalkResult::advance();
      e = IterationExpr::get(op.getIteration());
      if (e.getCoefficient(iv) == 0 ||
          e.substitute(iv, lower) != window.iteration)
        return WalkResult::advance();
      closer = op;
      return WalkResult::interrupt();
    });
    if (!closer)
      continue;
    // tle.commit does not block: a writer loses nothing by committing an
    // iteration before the next, and the transport analysis and the
    // lowering of a window need its commit in the block of its acquire.
    if (closer.isWriterSide())
      return closer->emitError()
             << describePipeSide(closer) << " commits "
             << describeIteration(closer.getIteration())
             << " in a later iteration of its loop than it acquired it; a "
                "writer's window cannot cross a loop iteration: commit each "
                "iteration before the next (tle.commit does not block)";
    windows.push_back({{}, *window.iteration, e, {}});
    sides.push_back(window.opener);
    window.iteration = e;
    window.written = closer.getIteration();
  }
  return windows;
}

LogicalResult BalanceChecker::handOver(scf::ForOp loop,
                                       SmallVector<CarriedWindow> &windows,
                                       ArrayRef<PipeLifecycleOpInterface> sides,
                                       HeldSlots &end, const HeldSlots &start) {
  Value iv = loop.getInductionVar();
  std::optional<IterationExpr> ivNext =
      IterationExpr::get(iv).add(IterationExpr::get(loop.getStep()));
  for (auto [carriedWindow, side] : llvm::zip(windows, sides)) {
    const Window *held = llvm::find_if(start.open, [&](const Window &w) {
      return isSameSide(w.opener, side) &&
             w.iteration == carriedWindow.iteration;
    });
    std::optional<IterationExpr> next =
        ivNext ? carriedWindow.iteration.substitute(iv, *ivNext) : std::nullopt;
    Window *opened = llvm::find_if(end.open, [&](const Window &w) {
      return isSameSide(w.opener, held->opener) && next && w.iteration == next;
    });
    if (opened == end.open.end()) {
      InFlightDiagnostic diag =
          emitAtHead(loop) << describePipeSide(held->opener) << " releases "
                           << held->describeHeldIteration()
                           << " in this loop, which it held when the loop "
                              "started, but an iteration does not end "
                              "holding the next one ("
                           << (next ? "iteration <" + next->describe() + ">"
                                    : "the iteration one step later")
                           << "); a window crosses a loop iteration only "
                              "into the next";
      diag.attachNote(held->opener->getLoc()) << "opened here";
      return diag;
    }
    carriedWindow.next = cast<WaitOp>(opened->opener.getOperation());
    std::optional<IterationExpr> afterLoop = carriedWindow.iteration.substitute(
        iv, IterationExpr::get(loop.getUpperBound()));
    if (!afterLoop)
      return emitAtHead(loop) << "the iteration the loop carries overflows";
    carriedWindow.afterLoop = *afterLoop;
    *opened = *held;
  }
  return success();
}

LogicalResult BalanceChecker::checkLoopBody(Operation *loop, Region &body,
                                            HeldSlots &held) {
  if (!body.hasOneBlock())
    return emitAtHead(loop)
           << "unstructured control flow in partition '"
           << ws.getPartitionLabel(partition)
           << "' cannot be checked; use scf ops around pipe operations";
  HeldSlots start = held;
  auto forOp = dyn_cast<scf::ForOp>(loop);
  SmallVector<CarriedWindow> windows;
  SmallVector<PipeLifecycleOpInterface> sides;
  if (forOp) {
    FailureOr<SmallVector<CarriedWindow>> found =
        findCarried(forOp, start, sides);
    if (failed(found))
      return failure();
    windows = std::move(*found);
  }
  HeldSlots inside = start;
  size_t committedBefore = inside.committedOnce.size();
  if (failed(walkBlock(body.front(), inside)))
    return failure();
  if (inside.committedOnce.size() != committedBefore)
    return emitAtHead(loop)
           << "commits one_shot pipe '"
           << cast<PipeOp>(inside.committedOnce.back()).getName()
           << "' inside this loop; a one_shot pipe is committed once";
  if (forOp && failed(handOver(forOp, windows, sides, inside, start)))
    return failure();
  if (!(inside == start))
    return reportDifference(loop, inside, start,
                            "at the end of an iteration of this loop but not "
                            "at its start; each iteration must close what it "
                            "opens, or hand the next iteration the window "
                            "one step on");
  // After the loop the side holds the window its last iteration opened.
  for (const CarriedWindow &carriedWindow : windows) {
    Window *window = llvm::find_if(held.open, [&](const Window &w) {
      return isSameSide(w.opener, carriedWindow.next) &&
             w.iteration == carriedWindow.entry;
    });
    *window = {carriedWindow.next, carriedWindow.afterLoop, Value()};
  }
  if (!windows.empty())
    llvm::append_range(carried[loop], windows);
  return success();
}

LogicalResult BalanceChecker::walkBlock(Block &block, HeldSlots &held) {
  for (Operation &op : block) {
    if (auto lifecycle = dyn_cast<PipeLifecycleOpInterface>(&op)) {
      if (failed(apply(lifecycle, held)))
        return failure();
      continue;
    }
    if (auto branch = dyn_cast<scf::IfOp>(&op)) {
      if (failed(checkBranches(branch, held)))
        return failure();
      continue;
    }
    for (Region &region : op.getRegions())
      if (!region.empty() && failed(checkLoopBody(&op, region, held)))
        return failure();
  }
  return success();
}

LogicalResult tle::checkWindowBalance(WarpSpecializeOp ws, unsigned partition,
                                      CarriedWindows &carried) {
  return BalanceChecker(ws, partition, carried).run();
}
