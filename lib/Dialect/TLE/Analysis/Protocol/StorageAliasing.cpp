//===- StorageAliasing.cpp - Pipes nested in another pipe's field ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The nesting rule. Pipe B lies inside field f of pipe A (slot k of every
// field of B inside slot k of f; equal capacities). A's writer refills f
// for the next lap once every reader holding f released the slot, so B is
// safe when
//  1. every partition that uses B reads f of A, so its release of A gates
//     that refill;
//  2. each of its windows on B (acquire..commit, wait..release) lies inside
//     its window on A for the same iteration, in one block; A's release
//     takes effect after any multiply reading B's slot (ReleasePlacement);
//  3. only B's writer reads f through A's views, before its acquire of B,
//     with every tle.wgmma doing so retired before it, so nothing reads the
//     old contents while B overwrites them;
//  4. A's writer does not refill f by TMA (a TMA refill after B's writes
//     would need a proxy fence that nothing places).
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/StorageAliasing.h"
#include "tle/Dialect/TLE/Analysis/Protocol/Unproven.h"
#include "tle/Dialect/TLE/Analysis/ReleasePlacement.h"
#include "tle/Dialect/TLE/Analysis/StorageFootprint.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::tle;

static std::string describeField(PipeOp pipe, unsigned field) {
  return ("field '" + pipe.getFieldName(field) + "' of pipe '" +
          pipe.getName() + "'")
      .str();
}

namespace {
struct FieldStorage {
  PipeOp pipe;
  unsigned field;
  StorageFootprint footprint;
};

/// Fields of B (first) that lie inside fields of A (second).
using NestedFields = SmallVector<std::pair<unsigned, unsigned>>;

/// Checks one pipe B nested in pipe A.
class NestingCheck {
public:
  NestingCheck(WarpSpecializeOp ws, const PipeUsage &outer,
               const PipeUsage &inner, const NestedFields &fields)
      : ws(ws), outer(outer), inner(inner), outerPipe(outer.pipe),
        innerPipe(inner.pipe), fields(fields) {}

  LogicalResult run();

private:
  LogicalResult checkSlots();
  LogicalResult checkRefill();
  LogicalResult checkWindow(PipeLifecycleOpInterface op, unsigned partition);
  LogicalResult checkOuterReads(WaitOp wait, unsigned partition);
  /// The reader of A that runs on `partition`, or null.
  ReaderAttr findOuterReader(unsigned partition);
  std::string describeNesting();

  WarpSpecializeOp ws;
  const PipeUsage &outer, &inner;
  PipeOp outerPipe, innerPipe;
  const NestedFields &fields;
  SmallVector<unsigned> outerFields;
};
} // namespace

std::string NestingCheck::describeNesting() {
  return "the storage of pipe '" + innerPipe.getName().str() +
         "' lies inside " + describeField(outerPipe, outerFields.front());
}

LogicalResult NestingCheck::checkSlots() {
  PipeOp a = outerPipe, b = innerPipe;
  if (a.getOneShot())
    return b.emitError() << describeNesting()
                         << ", a one_shot pipe that is never released; "
                            "reuse its storage after a tle.reclaim";
  if (b.getOneShot())
    return b.emitError() << describeNesting() << ", but one_shot pipe '"
                         << b.getName()
                         << "' is never released, so its readers' windows "
                            "have no end";
  int64_t capacity = a.getCapacityAttr().getInt();
  if (b.getCapacityAttr().getInt() != capacity)
    return b.emitError() << describeNesting() << ", but '" << b.getName()
                         << "' has " << b.getCapacityAttr().getInt()
                         << " slots and '" << a.getName() << "' " << capacity
                         << "; nested pipes need equal capacities so that "
                            "slot k of one lies in slot k of the other";
  for (auto [fb, fa] : fields)
    for (int64_t k = 0; k < capacity; ++k) {
      FailureOr<StorageFootprint> slotB =
          getSlotFootprint(b.getBuffers()[fb], k);
      FailureOr<StorageFootprint> slotA =
          getSlotFootprint(a.getBuffers()[fa], k);
      if (failed(slotA) || failed(slotB) || !slotA->contains(*slotB))
        return b.emitError()
               << "slot " << k << " of " << describeField(b, fb)
               << " does not lie inside slot " << k << " of "
               << describeField(a, fa)
               << "; a nested pipe's slot k must lie in the outer pipe's "
                  "slot k";
    }
  return success();
}

LogicalResult NestingCheck::checkRefill() {
  auto writer = outer.getWriterPartition();
  if (!writer)
    return success();
  for (PipeLifecycleOpInterface op : outer.opsByPartition.lookup(*writer))
    if (auto acquire = dyn_cast<AcquireOp>(op.getOperation()))
      for (const SlotWrite &write : collectSlotWrites(acquire))
        if (write.transport == Transport::TMA &&
            llvm::is_contained(outerFields, write.field))
          return write.op->emitError("the writer of pipe '")
                 << outerPipe.getName() << "' refills "
                 << describeField(outerPipe, write.field)
                 << " by TMA, but pipe '" << innerPipe.getName()
                 << "' reuses those bytes; a TMA refill after its writes "
                    "needs a proxy fence that the lowering does not place "
                    "(refill the field with cp.async or ordinary stores)";
  return success();
}

ReaderAttr NestingCheck::findOuterReader(unsigned partition) {
  for (auto reader : outerPipe.getReaders().getAsRange<ReaderAttr>())
    if (outer.getReaderPartition(reader.getName().getValue()) == partition)
      return reader;
  return {};
}

/// The next op after `from` in its block that `match` accepts, or null.
template <typename OpT>
static OpT findNext(Operation *from, function_ref<bool(OpT)> match) {
  for (Operation *op = from->getNextNode(); op; op = op->getNextNode())
    if (auto candidate = dyn_cast<OpT>(op); candidate && match(candidate))
      return candidate;
  return {};
}

LogicalResult NestingCheck::checkWindow(PipeLifecycleOpInterface op,
                                        unsigned partition) {
  std::string label = ws.getPartitionLabel(partition);
  ReaderAttr reader = findOuterReader(partition);
  if (!reader || llvm::any_of(outerFields, [&](unsigned f) {
        return !reader.readsField(outerPipe.getFieldName(f));
      }))
    return op->emitError()
           << op.describeSide() << " of pipe '" << innerPipe.getName()
           << "' runs in partition '" << label << "', which "
           << (reader ? "does not declare " : "does not read ")
           << describeField(outerPipe, outerFields.front()) << "; "
           << describeNesting() << ", which its writer refills once the "
           << "readers of that field released it, so every partition that "
              "uses '"
           << innerPipe.getName() << "' reads that field of '"
           << outerPipe.getName() << "'";
  bool anySlot = outerPipe.getCapacityAttr().getInt() == 1;
  auto sameWindow = [&](StringAttr name, Value iteration) {
    return name.getValue() == reader.getName().getValue() &&
           (anySlot || isSameIteration(iteration, op.getIteration()));
  };
  WaitOp opener;
  for (Operation *prev = op->getPrevNode(); prev && !opener;
       prev = prev->getPrevNode())
    if (auto wait = dyn_cast<WaitOp>(prev);
        wait && wait.getPipe() == outerPipe.getResult() &&
        sameWindow(wait.getReaderAttr(), wait.getIteration()))
      opener = wait;
  ReleaseOp closer;
  if (opener)
    closer = findNext<ReleaseOp>(opener, [&](ReleaseOp release) {
      return release.getPipe() == outerPipe.getResult() &&
             sameWindow(release.getReaderAttr(), release.getIteration());
    });
  if (opener && closer && op->isBeforeInBlock(closer))
    return success();
  return op->emitError() << op.describeSide() << " of pipe '"
                         << innerPipe.getName() << "' in partition '" << label
                         << "' lies outside the window of reader '"
                         << reader.getName().getValue() << "' on pipe '"
                         << outerPipe.getName() << "' for the same "
                         << (anySlot ? "slot" : "iteration") << "; "
                         << describeNesting()
                         << ", so each window on it must lie between a "
                            "tle.wait and the tle.release of '"
                         << outerPipe.getName() << "' in the same block";
}

LogicalResult NestingCheck::checkOuterReads(WaitOp wait, unsigned partition) {
  PipeOp a = outerPipe;
  SmallVector<unsigned> declared = a.getReaderFields(
      a.lookupReader(cast<PipeLifecycleOpInterface>(wait.getOperation())
                         .getReaderAttr()
                         .getValue()));
  std::optional<unsigned> innerWriter = inner.getWriterPartition();
  Block *block = wait->getBlock();
  AcquireOp overwrite;
  if (ReleaseOp release = findNext<ReleaseOp>(wait, [&](ReleaseOp r) {
        return r.getPipe() == wait.getPipe() &&
               r.getReader() == wait.getReader() &&
               isSameIteration(r.getIteration(), wait.getIteration());
      }))
    overwrite = findNext<AcquireOp>(wait, [&](AcquireOp acquire) {
      return acquire.getPipe() == innerPipe.getResult() &&
             acquire->isBeforeInBlock(release);
    });
  for (auto [index, field] : llvm::enumerate(declared)) {
    if (!llvm::is_contained(outerFields, field))
      continue;
    for (Value view : getDerivedViews(wait.getViews()[index]))
      for (Operation *user : view.getUsers()) {
        if (auto viewLike = dyn_cast<ViewLikeOpInterface>(user);
            viewLike && viewLike.getViewSource() == view)
          continue;
        if (partition != innerWriter)
          return user->emitError("reader '")
                 << wait.getReader() << "' of pipe '" << a.getName()
                 << "' accesses " << describeField(a, field)
                 << " in partition '" << ws.getPartitionLabel(partition)
                 << "', but pipe '" << innerPipe.getName()
                 << "' reuses those bytes; only the partition that writes '"
                 << innerPipe.getName()
                 << "' reads that field, before its tle.acquire";
        if (!overwrite)
          continue;
        Operation *ancestor = block->findAncestorOpInBlock(*user);
        auto wgmma = dyn_cast<WgmmaOp>(user);
        bool before = ancestor && ancestor->isBeforeInBlock(overwrite);
        if (before && (!wgmma || isRetiredBefore(wgmma, overwrite)))
          continue;
        InFlightDiagnostic diag = user->emitError();
        if (before)
          diag << "this tle.wgmma still reads ";
        else
          diag << "reads ";
        diag << describeField(a, field) << " " << (before ? "at" : "after")
             << " the tle.acquire of pipe '" << innerPipe.getName()
             << "', which overwrites those bytes; "
             << (before ? "retire it with a tle.wgmma_wait before the "
                          "acquire"
                        : "read the field before acquiring '" +
                              innerPipe.getName().str() + "'");
        diag.attachNote(overwrite.getLoc()) << "the acquire";
        return diag;
      }
  }
  return success();
}

LogicalResult NestingCheck::run() {
  for (auto [fb, fa] : fields)
    if (!llvm::is_contained(outerFields, fa))
      outerFields.push_back(fa);
  if (failed(checkSlots()) || failed(checkRefill()))
    return failure();
  for (auto &[partition, ops] : inner.opsByPartition)
    for (PipeLifecycleOpInterface op : ops)
      if (failed(checkWindow(op, partition)))
        return failure();
  for (auto &[partition, ops] : outer.opsByPartition)
    for (PipeLifecycleOpInterface op : ops)
      if (auto wait = dyn_cast<WaitOp>(op.getOperation()))
        if (failed(checkOuterReads(wait, partition)))
          return failure();
  return success();
}

/// The footprints of every field that the analysis resolves; the others are
/// reported.
static SmallVector<FieldStorage> collectFields(ArrayRef<PipeUsage> usages,
                                               bool strict, bool &unproven) {
  SmallVector<FieldStorage> fields;
  for (const PipeUsage &usage : usages) {
    PipeOp pipe = usage.pipe;
    for (auto [f, buffer] : llvm::enumerate(pipe.getBuffers())) {
      std::string why;
      FailureOr<StorageFootprint> footprint = getStorageFootprint(buffer, &why);
      if (succeeded(footprint)) {
        fields.push_back({pipe, static_cast<unsigned>(f), *footprint});
        continue;
      }
      unproven = true;
      emitUnproven(pipe, strict)
          << "the protocol check cannot tell which bytes of shared memory "
          << describeField(pipe, f) << " binds: it comes from " << why
          << "; other pipes may share them, and nothing orders their "
             "windows (bind a tle.shared_alloc or a view of it with "
             "constant offsets)";
    }
  }
  return fields;
}

static const PipeUsage *findUsage(ArrayRef<PipeUsage> usages, PipeOp pipe) {
  for (const PipeUsage &usage : usages)
    if (usage.pipe == pipe)
      return &usage;
  return nullptr;
}

/// Pairs (outer, inner) of pipes with the fields of inner that lie in
/// fields of outer; an error for overlaps that are not nestings.
static FailureOr<
    llvm::MapVector<std::pair<Operation *, Operation *>, NestedFields>>
findNestings(MutableArrayRef<FieldStorage> fields) {
  llvm::MapVector<std::pair<Operation *, Operation *>, NestedFields> nested;
  for (auto [i, x] : llvm::enumerate(fields))
    for (FieldStorage y : llvm::drop_begin(fields, i + 1)) {
      if (!x.footprint.overlaps(y.footprint))
        continue;
      if (x.pipe == y.pipe)
        return y.pipe.emitError()
               << describeField(x.pipe, x.field) << " and field '"
               << y.pipe.getFieldName(y.field) << "' share "
               << x.footprint.describeOverlap(y.footprint)
               << "; the fields of one pipe are disjoint";
      // Of two pipes that bind the same bytes, the first declared is the
      // outer one.
      if (x.footprint.contains(y.footprint))
        nested[{x.pipe, y.pipe}].push_back({y.field, x.field});
      else if (y.footprint.contains(x.footprint))
        nested[{y.pipe, x.pipe}].push_back({x.field, y.field});
      else
        return y.pipe.emitError()
               << describeField(y.pipe, y.field) << " and "
               << describeField(x.pipe, x.field) << " share "
               << x.footprint.describeOverlap(y.footprint)
               << ", but neither lies inside the other; pipes share "
                  "storage only when one lies inside a field of the other "
                  "(or after a tle.reclaim)";
    }
  return nested;
}

LogicalResult tle::checkStorageAliasing(WarpSpecializeOp ws,
                                        ArrayRef<PipeUsage> usages,
                                        bool strict) {
  bool unproven = false;
  SmallVector<FieldStorage> fields = collectFields(usages, strict, unproven);
  auto nested = findNestings(fields);
  if (failed(nested))
    return failure();
  for (auto &[pair, nestedFields] : *nested) {
    const PipeUsage *outer = findUsage(usages, cast<PipeOp>(pair.first));
    const PipeUsage *inner = findUsage(usages, cast<PipeOp>(pair.second));
    if (failed(NestingCheck(ws, *outer, *inner, nestedFields).run()))
      return failure();
  }
  return failure(strict && unproven);
}

SmallVector<PipeOp> tle::getNestedPipes(PipeOp outer,
                                        ArrayRef<PipeUsage> usages) {
  SmallVector<PipeOp> nested;
  for (const PipeUsage &usage : usages) {
    PipeOp pipe = usage.pipe;
    if (pipe == outer)
      continue;
    bool inside = llvm::any_of(pipe.getBuffers(), [&](Value inner) {
      FailureOr<StorageFootprint> b = getStorageFootprint(inner);
      return succeeded(b) && llvm::any_of(outer.getBuffers(), [&](Value field) {
               FailureOr<StorageFootprint> a = getStorageFootprint(field);
               // As in findNestings: of two pipes that bind the same
               // bytes, the first declared is the outer one.
               return succeeded(a) && a->overlaps(*b) && a->contains(*b) &&
                      (!b->contains(*a) ||
                       (outer->getBlock() == pipe->getBlock() &&
                        outer->isBeforeInBlock(pipe)));
             });
    });
    if (inside)
      nested.push_back(pipe);
  }
  return nested;
}
