//===- ReaderWrites.cpp - What a reader may write in its slot -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/ReaderWrites.h"
#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/ReleasePlacement.h"
#include "tle/Dialect/TLE/Analysis/StorageFootprint.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::tle;

/// Whether `a` comes before `b` in program order, both in `block` or
/// nested in its ops: the ancestors of `a` and `b` in `block` are in that
/// order, or, when they are the same op, `a` is before `b` inside it.
static bool isBeforeInWindow(Operation *a, Operation *b, Block *block) {
  Operation *topA = block->findAncestorOpInBlock(*a);
  Operation *topB = block->findAncestorOpInBlock(*b);
  if (!topA || !topB)
    return false;
  if (topA != topB)
    return topA->isBeforeInBlock(topB);
  for (Operation *inner = a; inner && inner != topA;
       inner = inner->getParentOp())
    if (Operation *other = inner->getBlock()->findAncestorOpInBlock(*b))
      return other != inner && inner->isBeforeInBlock(other);
  return false;
}

/// Whether `wgmma` has retired at `point` by the op of `block` that holds
/// it draining its multiplies (a loop whose body ends waiting for all of
/// them), or by a tle.wgmma_wait pending(0) in `block` between that op and
/// the one holding `point`.
static bool isDrainedBetween(WgmmaOp wgmma, Operation *point, Block *block) {
  Operation *from = block->findAncestorOpInBlock(*wgmma);
  Operation *to = block->findAncestorOpInBlock(*point);
  if (!from || !to || from == to)
    return false;
  if (from != wgmma.getOperation() && drainsMultiplies(*from))
    return true;
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (auto wait = dyn_cast<WgmmaWaitOp>(op); wait && wait.getPending() == 0)
      return true;
  return false;
}

/// A reader's ordinary stores to its slot go through the generic proxy,
/// while its own tle.wgmma reads the slot through the async proxy: a store
/// before a tle.wgmma_wait retires a multiply reading the field races with
/// it, and a multiply after the store would read it with no proxy fence
/// between (the lowering places none inside a window).
static LogicalResult checkReaderWriteOrder(WaitOp wait, const SlotWrite &write,
                                           unsigned index) {
  PipeOp pipe = cast<PipeLifecycleOpInterface>(*wait).getPipeOp();
  StringRef field = pipe.getFieldName(write.field);
  Block *block = wait->getBlock();
  for (Value view : getDerivedViews(wait.getViews()[index]))
    for (Operation *user : view.getUsers()) {
      auto wgmma = dyn_cast<WgmmaOp>(user);
      if (!wgmma)
        continue;
      if (isBeforeInWindow(wgmma, write.op, block)) {
        if (isRetiredBefore(wgmma, write.op) ||
            isDrainedBetween(wgmma, write.op, block))
          continue;
        InFlightDiagnostic diag = write.op->emitError("reader '")
                                  << wait.getReader() << "' of pipe '"
                                  << pipe.getName()
                                  << "' writes its slot of field '" << field
                                  << "' while a tle.wgmma it issued may still "
                                     "read it; retire the multiply with a "
                                     "tle.wgmma_wait pending(0) first";
        diag.attachNote(wgmma.getLoc()) << "the multiply";
        return diag;
      }
      InFlightDiagnostic diag = wgmma.emitError("this tle.wgmma reads field '")
                                << field << "' of pipe '" << pipe.getName()
                                << "', which reader '" << wait.getReader()
                                << "' wrote with ordinary stores in the same "
                                   "window; nothing fences those stores for "
                                   "the tensor cores: hand the data over "
                                   "through a pipe of its own";
      diag.attachNote(write.op->getLoc()) << "the store";
      return diag;
    }
  return success();
}

/// What reader `reader` touches of its slots of field `field`, as the
/// footprints within the slot of the views it accesses through; none when
/// a view's bytes are unknown or it leaves its block (a carried window).
static std::optional<SmallVector<StorageFootprint>>
getSlotAccesses(PipeOp pipe, StringRef reader, unsigned field) {
  SmallVector<unsigned> fields =
      pipe.getReaderFields(pipe.lookupReader(reader));
  const auto *position = llvm::find(fields, field);
  SmallVector<StorageFootprint> accesses;
  if (position == fields.end())
    return accesses;
  for (Operation *user : pipe->getUsers()) {
    auto wait = dyn_cast<WaitOp>(user);
    if (!wait || wait.getReader() != reader)
      continue;
    Value view = wait.getViews()[position - fields.begin()];
    for (Value derived : getDerivedViews(view))
      for (Operation *access : derived.getUsers()) {
        auto viewLike = dyn_cast<ViewLikeOpInterface>(access);
        if (viewLike && viewLike.getViewSource() == derived)
          continue;
        FailureOr<StorageFootprint> footprint =
            getFootprintWithin(derived, view);
        if (failed(footprint) || access->hasTrait<OpTrait::IsTerminator>())
          return std::nullopt;
        accesses.push_back(*footprint);
      }
  }
  return accesses;
}

/// Whether reader `other` touches none of the bytes `write` writes in its
/// slot (replicas that each write their own half).
static bool isDisjointFrom(WaitOp wait, const SlotWrite &write, unsigned index,
                           StringRef other) {
  PipeOp pipe = cast<PipeLifecycleOpInterface>(*wait).getPipeOp();
  FailureOr<StorageFootprint> written =
      getFootprintWithin(write.target, wait.getViews()[index]);
  std::optional<SmallVector<StorageFootprint>> accesses =
      getSlotAccesses(pipe, other, write.field);
  return succeeded(written) && accesses &&
         llvm::none_of(*accesses, [&](const StorageFootprint &access) {
           return access.overlaps(*written);
         });
}

LogicalResult tle::checkReaderWrites(WaitOp wait) {
  PipeOp pipe = cast<PipeLifecycleOpInterface>(*wait).getPipeOp();
  SmallVector<unsigned> readerFields =
      pipe.getReaderFields(pipe.lookupReader(wait.getReader()));
  for (const SlotWrite &write : collectReaderWrites(wait)) {
    StringRef field = pipe.getFieldName(write.field);
    unsigned index =
        llvm::find(readerFields, write.field) - readerFields.begin();
    for (auto other : pipe.getReaders().getAsRange<ReaderAttr>()) {
      StringRef name = other.getName().getValue();
      if (name == wait.getReader() || !other.readsField(field) ||
          isDisjointFrom(wait, write, index, name))
        continue;
      auto ws = wait->getParentOfType<WarpSpecializeOp>();
      return write.op->emitError("reader '")
             << wait.getReader() << "' of pipe '" << pipe.getName()
             << "' writes the slot of field '" << field << "' in partition '"
             << ws.getPartitionLabel(*ws.getPartitionOf(wait))
             << "', which reader '" << other.getName().getValue()
             << "' reads at the same time; a slot that several readers "
                "read is read-only, except for bytes that only the writing "
                "reader touches";
    }
    if (failed(checkReaderWriteOrder(wait, write, index)))
      return failure();
  }
  return success();
}
