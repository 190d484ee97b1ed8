//===- ReleasePlacement.cpp - Where a release takes effect ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/ReleasePlacement.h"
#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/StorageFootprint.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tle;

bool tle::readsStorageOf(WgmmaOp wgmma, PipeOp pipe) {
  return llvm::any_of(wgmma->getOperands(), [&](Value operand) {
    Value buffer = getViewedBuffer(operand);
    return buffer && llvm::any_of(pipe.getBuffers(), [&](Value field) {
             return mayShareStorage(buffer, field);
           });
  });
}

/// Whether `op` is a tle.wgmma reading a slot of `pipe` or holds one in its
/// regions: a multiply issued there is retired by what retires the op's
/// last multiply.
static bool mayReadSlotOf(Operation &op, PipeOp pipe) {
  // A multiply reading a pipe that lives inside this one's storage reads
  // this one's slot too.
  if (auto wgmma = dyn_cast<WgmmaOp>(op))
    return readsStorageOf(wgmma, pipe);
  return op.getNumRegions() != 0 && op.walk([&](WgmmaOp wgmma) {
                                        return readsStorageOf(wgmma, pipe)
                                                   ? WalkResult::interrupt()
                                                   : WalkResult::advance();
                                      }).wasInterrupted();
}

/// Whether a block that starts with no multiply in flight ends with none:
/// a tle.wgmma_wait pending(0) (wgmma.wait_group 0 waits for every group)
/// follows its last multiply, and every op after that wait that holds
/// multiplies in its regions drains them too.
static bool blockDrainsMultiplies(Block &block) {
  bool inFlight = false;
  for (Operation &op : block) {
    if (isa<WgmmaOp>(op))
      inFlight = true;
    else if (auto wait = dyn_cast<WgmmaWaitOp>(op))
      inFlight = inFlight && wait.getPending() != 0;
    else if (op.getNumRegions() != 0 && !drainsMultiplies(op))
      inFlight = true;
  }
  return !inFlight;
}

/// Whether `op`, an op with regions, leaves no multiply it issued in
/// flight: every block of its regions drains. A loop whose body drains
/// retires in each iteration what was in flight when the iteration began,
/// so after it nothing is in flight unless it ran no iteration at all.
bool tle::drainsMultiplies(Operation &op) {
  if (isa<WgmmaOp>(op))
    return false;
  for (Region &region : op.getRegions())
    for (Block &block : region)
      if (!blockDrainsMultiplies(block))
        return false;
  return true;
}

/// Whether the release closes a window its loop carries in from the
/// previous iteration (or from before the loop): no wait of its reader and
/// iteration precedes it in its block.
static bool closesCarriedWindow(ReleaseOp release) {
  if (!isa<scf::ForOp>(release->getParentOp()))
    return false;
  for (Operation *prev = release->getPrevNode(); prev;
       prev = prev->getPrevNode())
    if (auto wait = dyn_cast<WaitOp>(prev);
        wait && wait.getPipe() == release.getPipe() &&
        wait.getReader() == release.getReader() &&
        isSameIteration(wait.getIteration(), release.getIteration()))
      return false;
  return true;
}

/// The first tle.wgmma_wait in [begin, end) that retires a multiply after
/// which `issued` more were issued, counting the multiplies it passes: a
/// wait with pending(n) retires every multiply followed by n or more.
static WgmmaWaitOp findRetiringWait(Block::iterator begin, Block::iterator end,
                                    int64_t &issued) {
  for (Operation &op : llvm::make_range(begin, end)) {
    if (isa<WgmmaOp>(op))
      ++issued;
    if (auto wait = dyn_cast<WgmmaWaitOp>(op);
        wait && static_cast<int64_t>(wait.getPending()) <= issued)
      return wait;
  }
  return nullptr;
}

bool tle::isRetiredBefore(WgmmaOp wgmma, Operation *point) {
  Operation *at = wgmma->getBlock()->findAncestorOpInBlock(*point);
  if (!at || !wgmma->isBeforeInBlock(at))
    return false;
  int64_t issued = 0;
  return findRetiringWait(std::next(wgmma->getIterator()), at->getIterator(),
                          issued) != nullptr;
}

/// The last op before `point` in its block that may read a slot of `pipe`
/// and may leave that multiply in flight at `point`. An op with regions
/// whose multiplies all drain (a loop whose body ends with a wait for
/// every multiply) leaves none in flight, except those issued before it
/// when it runs no iteration: the search goes on before it.
static Operation *findInFlightReader(Operation *point, PipeOp pipe) {
  for (Operation *prev = point->getPrevNode(); prev;
       prev = prev->getPrevNode()) {
    if (!mayReadSlotOf(*prev, pipe))
      continue;
    if (isa<WgmmaOp>(prev) || !drainsMultiplies(*prev))
      return prev;
  }
  return nullptr;
}

FailureOr<ReleasePlacement> tle::placeRelease(ReleaseOp release) {
  PipeOp pipe = cast<PipeLifecycleOpInterface>(*release).getPipeOp();
  Operation *reader = findInFlightReader(release, pipe);
  Block *block = release->getBlock();
  int64_t issued = 0;
  // A carried window's slot may still be read by a multiply of an earlier
  // iteration, or one issued before the loop, that nothing in this block
  // has retired yet: every multiply issued before the block is older than
  // the ones issued in it.
  if (!reader && closesCarriedWindow(release)) {
    auto loop = cast<scf::ForOp>(release->getParentOp());
    if (!mayReadSlotOf(*loop, pipe) &&
        llvm::none_of(
            llvm::make_range(loop->getBlock()->begin(), loop->getIterator()),
            [&](Operation &op) { return mayReadSlotOf(op, pipe); }))
      return ReleasePlacement{};
    if (findRetiringWait(block->begin(), release->getIterator(), issued))
      return ReleasePlacement{};
    if (WgmmaWaitOp wait = findRetiringWait(std::next(release->getIterator()),
                                            block->end(), issued))
      return ReleasePlacement{ReleasePlacement::Kind::AfterWait, wait, {}};
    return release.emitOpError("of pipe '")
           << pipe.getName() << "': reader '" << release.getReader()
           << "' releases a slot its loop carries from the previous "
              "iteration, which a tle.wgmma issued there or before the loop "
              "may still be reading, and no tle.wgmma_wait in this "
              "iteration retires it";
  }
  if (!reader || findRetiringWait(std::next(reader->getIterator()),
                                  release->getIterator(), issued))
    return ReleasePlacement{};
  if (WgmmaWaitOp wait = findRetiringWait(std::next(release->getIterator()),
                                          block->end(), issued))
    return ReleasePlacement{ReleasePlacement::Kind::AfterWait, wait, {}};
  // The next iteration's wait counts the multiplies issued after this one
  // in both iterations; so does the wait after the loop.
  auto loop = dyn_cast<scf::ForOp>(release->getParentOp());
  int64_t issuedInNext = issued, issuedAfter = issued;
  WgmmaWaitOp next =
      loop ? findRetiringWait(block->begin(), block->end(), issuedInNext)
           : nullptr;
  WgmmaWaitOp last =
      loop ? findRetiringWait(std::next(loop->getIterator()),
                              loop->getBlock()->end(), issuedAfter)
           : nullptr;
  if (!next || !last)
    return release.emitOpError("of pipe '")
           << pipe.getName() << "': reader '" << release.getReader()
           << "' releases a slot that a tle.wgmma is still reading, and no "
              "tle.wgmma_wait retires that multiply later (in this "
              "iteration, the next one and after the loop)";
  return ReleasePlacement{ReleasePlacement::Kind::NextIteration, next, last};
}
