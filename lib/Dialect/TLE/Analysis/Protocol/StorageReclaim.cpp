//===- StorageReclaim.cpp - Reusing a pipe's storage once it is dead ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The readers of a pipe reclaim it together (tle.reclaim lowers to one
// mbarrier that every thread of every reader arrives on and then waits
// for). The writer finished with every slot before the readers' last waits
// passed, so once the barrier completes no partition touches the storage
// through the pipe, and each reader may use its part of it. The check
// proves the parts of that argument the code could break: each reader
// reclaims once, unconditionally, after its last use of the pipe and of
// the pipes nested in it, with no tle.wgmma still reading them; the parts
// lie in the pipe's fields and are disjoint; scratch stays in its
// partition.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/StorageReclaim.h"
#include "tle/Dialect/TLE/Analysis/Protocol/StorageAliasing.h"
#include "tle/Dialect/TLE/Analysis/ReleasePlacement.h"
#include "tle/Dialect/TLE/Analysis/StorageFootprint.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::tle;

namespace {
class ReclaimCheck {
public:
  ReclaimCheck(WarpSpecializeOp ws, ArrayRef<PipeUsage> usages,
               const PipeUsage &usage, ArrayRef<ReclaimOp> reclaims)
      : ws(ws), usages(usages), usage(usage), pipe(usage.pipe),
        reclaims(reclaims.begin(), reclaims.end()) {}

  LogicalResult run();

private:
  LogicalResult checkPlacement(ReclaimOp op);
  LogicalResult checkEveryReader();
  LogicalResult checkStorage();
  LogicalResult checkLaterUses(ReclaimOp op);
  LogicalResult checkViewsEnd(ReclaimOp op);
  LogicalResult checkInFlight(ReclaimOp op);
  LogicalResult checkParts();

  WarpSpecializeOp ws;
  ArrayRef<PipeUsage> usages;
  const PipeUsage &usage;
  PipeOp pipe;
  SmallVector<ReclaimOp> reclaims;
  /// The pipe and the pipes nested in it: the storage the reclaim frees.
  SmallVector<PipeOp> reclaimed;
};
} // namespace

LogicalResult ReclaimCheck::checkPlacement(ReclaimOp op) {
  std::optional<unsigned> partition = ws.getPartitionOf(op);
  std::optional<unsigned> readerPartition =
      usage.getReaderPartition(op.getReader());
  if (!partition || partition != readerPartition)
    return op.emitError("reader '")
           << op.getReader() << "' of pipe '" << pipe.getName()
           << "' reclaims it "
           << (partition
                   ? "in partition '" + ws.getPartitionLabel(*partition) + "'"
                   : std::string("outside every partition"))
           << ", not in the partition where it reads the pipe";
  if (op->getBlock() != &ws.getPartitionRegion(*partition).front())
    return op.emitError("reader '")
           << op.getReader() << "' reclaims pipe '" << pipe.getName()
           << "' inside " << describeOp(op->getParentOp())
           << "; a reclaim is a barrier among the pipe's readers and runs "
              "exactly once, directly in the partition's body";
  for (Value view : op.getScratch() ? getDerivedViews(op.getScratch())
                                    : SmallVector<Value>())
    for (Operation *user : view.getUsers())
      if (user->hasTrait<OpTrait::IsTerminator>())
        return user->emitError("the scratch part of pipe '")
               << pipe.getName() << "' that reader '" << op.getReader()
               << "' reclaimed leaves its block; scratch stays in the "
                  "partition that reclaimed it";
  return success();
}

LogicalResult ReclaimCheck::checkEveryReader() {
  llvm::StringMap<ReclaimOp> byReader;
  for (ReclaimOp op : reclaims)
    if (!byReader.try_emplace(op.getReader(), op).second)
      return op.emitError("reader '")
             << op.getReader() << "' reclaims pipe '" << pipe.getName()
             << "' a second time; each reader reclaims it once";
  for (auto reader : pipe.getReaders().getAsRange<ReaderAttr>())
    if (!byReader.contains(reader.getName().getValue())) {
      InFlightDiagnostic diag =
          pipe.emitError("reader '")
          << reader.getName().getValue() << "' of pipe '" << pipe.getName()
          << "' never reclaims it, but reader '" << reclaims.front().getReader()
          << "' does; the reclaim is a barrier among all the pipe's "
             "readers, which the others would wait at forever";
      diag.attachNote(reclaims.front().getLoc()) << "reclaimed here";
      return diag;
    }
  return success();
}

/// Every pipe sharing bytes with the reclaimed one lies inside it: a pipe
/// around it would refill the bytes under the scratch.
LogicalResult ReclaimCheck::checkStorage() {
  reclaimed = getNestedPipes(pipe, usages);
  reclaimed.push_back(pipe);
  for (const PipeUsage &other : usages) {
    PipeOp theirPipe = other.pipe;
    if (llvm::is_contained(reclaimed, theirPipe))
      continue;
    for (Value field : pipe.getBuffers())
      for (Value theirs : theirPipe.getBuffers())
        if (mayShareStorage(field, theirs))
          return reclaims.front().emitError("pipe '")
                 << pipe.getName() << "' shares storage with pipe '"
                 << theirPipe.getName()
                 << "', which does not lie inside it; only storage that "
                    "the reclaimed pipe owns can become scratch";
  }
  return success();
}

/// The protocol simulation does not run the reclaim barrier. It cannot
/// close a cycle when every pipe operation of the partition, deferred
/// releases included, precedes it: then no partition waits for anything
/// this one does after the reclaim, and the simulation proves that every
/// partition reaches its reclaim.
LogicalResult ReclaimCheck::checkLaterUses(ReclaimOp op) {
  auto reportAfter = [&](Operation *later, StringRef what) {
    InFlightDiagnostic diag = later->emitError()
                              << what << " after reader '" << op.getReader()
                              << "' reclaimed pipe '" << pipe.getName()
                              << "' in partition '"
                              << ws.getPartitionLabel(*ws.getPartitionOf(op))
                              << "'; a reclaim waits for the other readers, so "
                                 "it follows every pipe operation of the "
                                 "partition";
    diag.attachNote(op.getLoc()) << "reclaimed here";
    return diag;
  };
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode()) {
    WalkResult result = next->walk([&](PipeLifecycleOpInterface later) {
      std::string what = later.describeSide() + " uses pipe '" +
                         later.getPipeOp().getName().str() + "'";
      (void)reportAfter(later, what);
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      return failure();
  }
  Region &region = ws.getPartitionRegion(*ws.getPartitionOf(op));
  WalkResult deferred = region.walk([&](ReleaseOp release) {
    FailureOr<ReleasePlacement> placement = placeRelease(release);
    if (failed(placement))
      return WalkResult::interrupt();
    WgmmaWaitOp last = placement->afterLoop;
    if (!last ||
        op->getBlock()->findAncestorOpInBlock(*last)->isBeforeInBlock(op))
      return WalkResult::advance();
    (void)reportAfter(last, "the release of reader '" +
                                release.getReader().str() + "' of pipe '" +
                                cast<PipeLifecycleOpInterface>(*release)
                                    .getPipeOp()
                                    .getName()
                                    .str() +
                                "' takes effect at this tle.wgmma_wait, " +
                                "which comes");
    return WalkResult::interrupt();
  });
  return failure(deferred.wasInterrupted());
}

/// The reclaim ends every view of the pipe: once it passes, another
/// reader may own the bytes as scratch. A one_shot pipe's views, which no
/// release ends, are the ones that could still be used.
LogicalResult ReclaimCheck::checkViewsEnd(ReclaimOp op) {
  unsigned partition = *ws.getPartitionOf(op);
  for (PipeLifecycleOpInterface opener : usage.opsByPartition.lookup(partition))
    for (auto [index, view] : llvm::enumerate(opener->getResults()))
      for (Value derived : getDerivedViews(view))
        for (Operation *user : derived.getUsers()) {
          Operation *ancestor = op->getBlock()->findAncestorOpInBlock(*user);
          if (!ancestor || !op->isBeforeInBlock(ancestor))
            continue;
          SmallVector<unsigned> fields =
              pipe.getReaderFields(pipe.lookupReader(op.getReader()));
          InFlightDiagnostic diag =
              user->emitError("reader '")
              << op.getReader() << "' uses its view of field '"
              << pipe.getFieldName(fields[index]) << "' of pipe '"
              << pipe.getName()
              << "' after it reclaimed the pipe in partition '"
              << ws.getPartitionLabel(partition)
              << "'; the reclaim ends every view of the pipe's storage, "
                 "which another reader may now own as scratch: finish with "
                 "the view before the tle.reclaim";
          diag.attachNote(op.getLoc()) << "reclaimed here";
          return diag;
        }
  return success();
}

/// A multiply that reads the storage must be retired by a
/// tle.wgmma_wait pending(0) with no multiply between it and the reclaim.
LogicalResult ReclaimCheck::checkInFlight(ReclaimOp op) {
  WgmmaOp reader;
  Region &region = ws.getPartitionRegion(*ws.getPartitionOf(op));
  region.walk([&](WgmmaOp wgmma) {
    Operation *ancestor = op->getBlock()->findAncestorOpInBlock(*wgmma);
    if (ancestor && ancestor->isBeforeInBlock(op) && !reader &&
        llvm::any_of(reclaimed,
                     [&](PipeOp pipe) { return readsStorageOf(wgmma, pipe); }))
      reader = wgmma;
  });
  if (!reader)
    return success();
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto wait = dyn_cast<WgmmaWaitOp>(prev); wait && wait.getPending() == 0)
      return success();
    bool issues = prev->walk([](WgmmaOp) { return WalkResult::interrupt(); })
                      .wasInterrupted();
    if (issues)
      break;
  }
  InFlightDiagnostic diag = op.emitError("reader '")
                            << op.getReader() << "' reclaims pipe '"
                            << pipe.getName()
                            << "' while a tle.wgmma may still read it; "
                               "retire it with tle.wgmma_wait pending(0) "
                               "before the tle.reclaim";
  diag.attachNote(reader.getLoc()) << "the multiply";
  return diag;
}

LogicalResult ReclaimCheck::checkParts() {
  SmallVector<std::pair<ReclaimOp, StorageFootprint>> parts;
  for (ReclaimOp op : reclaims) {
    Value part = op.getPart();
    if (!part)
      continue;
    std::string why;
    FailureOr<StorageFootprint> footprint = getStorageFootprint(part, &why);
    if (failed(footprint))
      return op.emitError("the protocol check cannot tell which bytes the "
                          "scratch part of reader '")
             << op.getReader() << "' covers: it comes from " << why;
    bool inField = llvm::any_of(pipe.getBuffers(), [&](Value field) {
      FailureOr<StorageFootprint> f = getStorageFootprint(field);
      return succeeded(f) && f->contains(*footprint);
    });
    if (!inField)
      return op.emitError("the scratch part of reader '")
             << op.getReader() << "' does not lie inside a field of pipe '"
             << pipe.getName() << "'";
    for (auto &[other, theirs] : parts)
      if (theirs.overlaps(*footprint)) {
        InFlightDiagnostic diag = op.emitError("the scratch parts of readers '")
                                  << other.getReader() << "' and '"
                                  << op.getReader() << "' of pipe '"
                                  << pipe.getName() << "' share "
                                  << theirs.describeOverlap(*footprint)
                                  << "; each reader reclaims a disjoint part";
        diag.attachNote(other.getLoc()) << "the other part";
        return diag;
      }
    parts.push_back({op, *footprint});
  }
  return success();
}

LogicalResult ReclaimCheck::run() {
  for (ReclaimOp op : reclaims)
    if (failed(checkPlacement(op)))
      return failure();
  if (failed(checkEveryReader()) || failed(checkStorage()))
    return failure();
  for (ReclaimOp op : reclaims)
    if (failed(checkLaterUses(op)) || failed(checkViewsEnd(op)) ||
        failed(checkInFlight(op)))
      return failure();
  return checkParts();
}

LogicalResult tle::checkReclaims(WarpSpecializeOp ws,
                                 ArrayRef<PipeUsage> usages) {
  llvm::MapVector<Operation *, SmallVector<ReclaimOp>> byPipe;
  ws->getParentOp()->walk(
      [&](ReclaimOp op) { byPipe[op.getPipeOp()].push_back(op); });
  for (auto &[pipe, reclaims] : byPipe) {
    const PipeUsage *usage = llvm::find_if(usages, [&](const PipeUsage &u) {
      return u.pipe == cast<PipeOp>(pipe);
    });
    if (usage == usages.end())
      return reclaims.front().emitError("reclaims pipe '")
             << cast<PipeOp>(pipe).getName()
             << "', which no partition of this kernel uses";
    if (failed(ReclaimCheck(ws, usages, *usage, reclaims).run()))
      return failure();
  }
  return success();
}
