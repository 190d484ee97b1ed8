//===- ReleasePlacement.cpp - Where a release takes effect ----------------===//

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

/// The first tle.wgmma_wait in [begin, end) that retires a multiply after
/// which `issued` more were issued, counting the multiplies it passes: a
/// wait with pending(n) retires every multiply followed by n or more.
static WgmmaWaitOp findRetiringWait(Block::iterator begin, Block::iterator end,
                                    int64_t &issued) {
  for (Operation &op : llvm::make_range(begin, end)) {
    if (isa<WgmmaOp>(op))
      ++issued;
    if (auto wait = dyn_cast<WgmmaWaitOp>(op);
        wait && wait.getPending() <= issued)
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

FailureOr<ReleasePlacement> tle::placeRelease(ReleaseOp release) {
  PipeOp pipe = cast<PipeLifecycleOpInterface>(*release).getPipeOp();
  WgmmaOp reader;
  for (Operation *prev = release->getPrevNode(); prev && !reader;
       prev = prev->getPrevNode())
    if (auto wgmma = dyn_cast<WgmmaOp>(prev);
        wgmma && readsStorageOf(wgmma, pipe))
      reader = wgmma;
  int64_t issued = 0;
  if (!reader || findRetiringWait(std::next(reader->getIterator()),
                                  release->getIterator(), issued))
    return ReleasePlacement{};
  Block *block = release->getBlock();
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
