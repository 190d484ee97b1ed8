//===- VerifyPipes.cpp - Static check of the pipe protocol ----------------===//
//
// Proves, before any barrier exists, that every pipe is used as declared:
// the kernel has the shape the lowering needs and fits in shared memory,
// one writer partition and one partition per reader, every thread reaches
// every lifecycle op, every acquire committed and every wait released on
// every path, slots touched only through their views, matching iteration
// counts, and no deadlock. What it cannot prove it reports. See Passes.td
// and docs/SyncDerivation.md.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/IterationCounts.h"
#include "tle/Dialect/TLE/Analysis/KernelPlacement.h"
#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/ProtocolSimulation.h"
#include "tle/Dialect/TLE/Analysis/StorageAliasing.h"
#include "tle/Dialect/TLE/Analysis/StorageFootprint.h"
#include "tle/Dialect/TLE/Analysis/Uniformity.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"
#include "tle/Support/Hopper.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#define DEBUG_TYPE "tle-verify-pipes"

namespace mlir::tle {
#define GEN_PASS_DEF_TLEVERIFYPIPES
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;
namespace hopper = ::tle::hopper;

/// "iteration 2", "iteration <the loop variable of the scf.for at line 7>".
static std::string describeIteration(Value iteration) {
  if (!iteration)
    return "its only iteration";
  APInt constant;
  if (matchPattern(iteration, m_ConstantInt(&constant)))
    return "iteration " + std::to_string(constant.getSExtValue());
  return "iteration <" + describeValue(iteration) + ">";
}

/// "writer of pipe 'kv'" / "reader 'left' of pipe 'kv'".
static std::string describeSide(PipeLifecycleOpInterface op) {
  return op.describeSide() + " of pipe '" + op.getPipeOp().getName().str() +
         "'";
}

//===----------------------------------------------------------------------===//
// Roles: who writes and who reads
//===----------------------------------------------------------------------===//

static LogicalResult checkRoles(WarpSpecializeOp ws, const PipeUsage &usage) {
  PipeOp pipe = usage.pipe;
  std::optional<unsigned> writer;
  llvm::StringMap<unsigned> readerPartitions;
  for (auto &[partition, ops] : usage.opsByPartition) {
    for (PipeLifecycleOpInterface op : ops) {
      if (op.isWriterSide()) {
        if (writer && *writer != partition)
          return op->emitError("pipe '")
                 << pipe.getName() << "' is written by partitions '"
                 << ws.getPartitionLabel(*writer) << "' and '"
                 << ws.getPartitionLabel(partition)
                 << "'; a pipe has exactly one writer partition";
        writer = partition;
        continue;
      }
      StringRef reader = op.getReaderAttr().getValue();
      auto [it, inserted] = readerPartitions.try_emplace(reader, partition);
      if (!inserted && it->second != partition)
        return op->emitError("reader '")
               << reader << "' of pipe '" << pipe.getName()
               << "' is used by partitions '"
               << ws.getPartitionLabel(it->second) << "' and '"
               << ws.getPartitionLabel(partition)
               << "'; each reader is one partition";
    }
  }
  for (auto &[reader, partition] : readerPartitions)
    if (writer && partition == *writer)
      return pipe.emitError("partition '")
             << ws.getPartitionLabel(partition) << "' both writes pipe '"
             << pipe.getName() << "' and reads it as '" << reader
             << "'; a pipe connects two different partitions";
  for (auto reader : pipe.getReaders().getAsRange<ReaderAttr>())
    if (!readerPartitions.contains(reader.getName().getValue()))
      return pipe.emitError("reader '")
             << reader.getName().getValue() << "' of pipe '" << pipe.getName()
             << "' never waits on it"
             << (pipe.getOneShot() ? ""
                                   : "; the writer would block on its "
                                     "releases once the ring wraps");
  if (!writer)
    return pipe.emitError("pipe '")
           << pipe.getName()
           << "' is never committed; its readers would wait forever";
  return success();
}

//===----------------------------------------------------------------------===//
// Uniformity: every thread of a partition reaches its lifecycle ops
//===----------------------------------------------------------------------===//

/// The value that decides whether (and how often) `parent`'s regions run,
/// and the op it may vary from; null when provably uniform. An op whose
/// control flow the check does not follow is its own source.
static std::pair<Value, Operation *>
findVaryingControl(Operation *parent, const UniformityAnalysis &uniformity) {
  SmallVector<Value> controls;
  if (auto branch = dyn_cast<scf::IfOp>(parent))
    controls.push_back(branch.getCondition());
  else if (auto loop = dyn_cast<scf::ForOp>(parent))
    controls = {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()};
  else if (auto loop = dyn_cast<scf::WhileOp>(parent))
    controls.push_back(loop.getConditionOp().getCondition());
  else
    return {Value(), parent};
  for (Value control : controls)
    if (Operation *source = uniformity.getVaryingSource(control))
      return {control, source};
  return {};
}

static LogicalResult checkUniformity(WarpSpecializeOp ws,
                                     PipeLifecycleOpInterface op,
                                     unsigned partition,
                                     const UniformityAnalysis &uniformity) {
  std::string label = ws.getPartitionLabel(partition);
  for (Operation *parent = op->getParentOp(); parent && parent != ws;
       parent = parent->getParentOp()) {
    auto [control, source] = findVaryingControl(parent, uniformity);
    if (!source)
      continue;
    if (!control)
      return op->emitError()
             << describeSide(op) << " sits in " << describeOp(parent)
             << ", whose control flow the protocol check does not follow; "
                "use scf.for, scf.while or scf.if around pipe operations";
    InFlightDiagnostic diag =
        op->emitError() << describeSide(op)
                        << " sits under control flow that may differ "
                           "between the threads of partition '"
                        << label << "'; every thread of the partition must "
                        << "reach it";
    diag.attachNote(parent->getLoc())
        << "this " << parent->getName() << " depends on "
        << describeValue(control);
    diag.attachNote(source->getLoc())
        << "which may differ between threads: it comes from "
        << describeOp(source)
        << ", and only constants, kernel arguments, block ids, grid and "
           "block sizes, and loads from memory the kernel only reads are "
           "known to be the same in every thread";
    return diag;
  }
  Value iteration = op.getIteration();
  Operation *source =
      iteration ? uniformity.getVaryingSource(iteration) : nullptr;
  if (!source)
    return success();
  InFlightDiagnostic diag = op->emitError()
                            << describeSide(op)
                            << " works on an iteration that may differ "
                               "between the threads of partition '"
                            << label << "'; every thread must use the same";
  diag.attachNote(source->getLoc())
      << "the iteration comes from " << describeOp(source)
      << ", which may differ between threads";
  return diag;
}

//===----------------------------------------------------------------------===//
// Balance: acquire/commit and wait/release pair up on every path
//===----------------------------------------------------------------------===//

namespace {

/// The slots one partition holds at a program point: each entry is the op
/// that opened the window (an acquire or a wait).
struct HeldSlots {
  SmallVector<PipeLifecycleOpInterface> open;
  /// one_shot pipes committed on this path.
  SmallVector<Operation *> committedOnce;

  bool operator==(const HeldSlots &other) const;
};

bool sameSideAndIteration(PipeLifecycleOpInterface a,
                          PipeLifecycleOpInterface b) {
  return a.getPipe() == b.getPipe() && a.getReaderAttr() == b.getReaderAttr() &&
         isSameIteration(a.getIteration(), b.getIteration());
}

bool HeldSlots::operator==(const HeldSlots &other) const {
  auto contains = [](ArrayRef<PipeLifecycleOpInterface> set,
                     PipeLifecycleOpInterface op) {
    return llvm::any_of(set, [&](PipeLifecycleOpInterface o) {
      return sameSideAndIteration(o, op);
    });
  };
  return open.size() == other.open.size() &&
         llvm::all_of(open,
                      [&](auto op) { return contains(other.open, op); }) &&
         committedOnce.size() == other.committedOnce.size() &&
         llvm::all_of(committedOnce, [&](Operation *pipe) {
           return llvm::is_contained(other.committedOnce, pipe);
         });
}

/// Walks one partition's structured control flow, path by path.
class BalanceChecker {
public:
  BalanceChecker(WarpSpecializeOp ws, unsigned partition)
      : ws(ws), partition(partition) {}

  LogicalResult run() {
    HeldSlots held;
    if (failed(walkBlock(ws.getPartitionRegion(partition).front(), held)))
      return failure();
    if (held.open.empty())
      return success();
    PipeLifecycleOpInterface op = held.open.front();
    return op->emitError() << describeSide(op) << " "
                           << (isa<AcquireOp>(op.getOperation()) ? "acquires "
                                                                 : "waits for ")
                           << describeIteration(op.getIteration())
                           << " but partition '"
                           << ws.getPartitionLabel(partition) << "' never "
                           << (isa<AcquireOp>(op.getOperation()) ? "commits"
                                                                 : "releases")
                           << " it";
  }

private:
  LogicalResult walkBlock(Block &block, HeldSlots &held);
  LogicalResult apply(PipeLifecycleOpInterface op, HeldSlots &held);
  LogicalResult checkBranches(scf::IfOp branch, HeldSlots &held);
  LogicalResult checkLoopBody(Operation *loop, Region &body, HeldSlots &held);
  InFlightDiagnostic reportDifference(Operation *at, const HeldSlots &a,
                                      const HeldSlots &b, StringRef what);

  WarpSpecializeOp ws;
  unsigned partition;
};

} // namespace

LogicalResult BalanceChecker::apply(PipeLifecycleOpInterface op,
                                    HeldSlots &held) {
  PipeOp pipe = op.getPipeOp();
  auto match = llvm::find_if(held.open, [&](PipeLifecycleOpInterface o) {
    return sameSideAndIteration(o, op);
  });
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
    if (match != held.open.end())
      return op->emitError()
             << describeSide(op) << " opens "
             << describeIteration(op.getIteration()) << " again before "
             << (isa<AcquireOp>(op.getOperation()) ? "committing" : "releasing")
             << " it";
    int64_t holding =
        llvm::count_if(held.open, [&](PipeLifecycleOpInterface o) {
          return o.getPipe() == op.getPipe() &&
                 o.getReaderAttr() == op.getReaderAttr();
        });
    if (holding + 1 > pipe.getCapacityAttr().getInt())
      return op->emitError("deadlock: ")
             << describeSide(op) << " would hold " << holding + 1
             << " slots at once, more than the capacity "
             << pipe.getCapacityAttr().getInt()
             << "; this slot cannot be filled until it gives one back";
    held.open.push_back(op);
    return success();
  }
  if (match == held.open.end())
    return op->emitError() << describeSide(op) << " "
                           << (isa<CommitOp>(op.getOperation()) ? "commits"
                                                                : "releases")
                           << " " << describeIteration(op.getIteration())
                           << " without having "
                           << (isa<CommitOp>(op.getOperation()) ? "acquired"
                                                                : "waited for")
                           << " it on this path";
  held.open.erase(match);
  return success();
}

InFlightDiagnostic BalanceChecker::reportDifference(Operation *at,
                                                    const HeldSlots &a,
                                                    const HeldSlots &b,
                                                    StringRef what) {
  for (auto [mine, theirs] : {std::pair(&a, &b), std::pair(&b, &a)})
    for (PipeLifecycleOpInterface op : mine->open)
      if (llvm::none_of(theirs->open, [&](PipeLifecycleOpInterface o) {
            return sameSideAndIteration(o, op);
          })) {
        InFlightDiagnostic diag = emitAtHead(at)
                                  << describeSide(op) << " holds "
                                  << describeIteration(op.getIteration()) << " "
                                  << what;
        diag.attachNote(op->getLoc()) << "opened here";
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

LogicalResult BalanceChecker::checkLoopBody(Operation *loop, Region &body,
                                            HeldSlots &held) {
  if (!body.hasOneBlock())
    return emitAtHead(loop)
           << "unstructured control flow in partition '"
           << ws.getPartitionLabel(partition)
           << "' cannot be checked; use scf ops around pipe operations";
  HeldSlots inside = held;
  size_t committedBefore = inside.committedOnce.size();
  if (failed(walkBlock(body.front(), inside)))
    return failure();
  if (inside.committedOnce.size() != committedBefore)
    return emitAtHead(loop)
           << "commits one_shot pipe '"
           << cast<PipeOp>(inside.committedOnce.back()).getName()
           << "' inside this loop; a one_shot pipe is committed once";
  if (!(inside == held))
    return reportDifference(loop, inside, held,
                            "at the end of an iteration of this loop but not "
                            "at its start; each iteration must close what it "
                            "opens");
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

//===----------------------------------------------------------------------===//
// Views: slots are touched only through the views, while they are held
//===----------------------------------------------------------------------===//

static LogicalResult checkViewLifetimes(PipeLifecycleOpInterface opener) {
  Operation *op = opener.getOperation();
  Operation *closer = nullptr;
  for (Operation *next = op->getNextNode(); next && !closer;
       next = next->getNextNode())
    if (auto other = dyn_cast<PipeLifecycleOpInterface>(next);
        other && !isa<AcquireOp, WaitOp>(next) &&
        sameSideAndIteration(other, opener))
      closer = next;
  PipeOp pipe = opener.getPipeOp();
  auto fields =
      isa<WaitOp>(op)
          ? pipe.getReaderFields(
                pipe.lookupReader(opener.getReaderAttr().getValue()))
          : llvm::to_vector(llvm::seq<unsigned>(0, pipe.getNumFields()));
  for (auto [view, field] : llvm::zip(op->getResults(), fields)) {
    for (Value alias : getDerivedViews(view)) {
      for (Operation *user : alias.getUsers()) {
        // A view that leaves its block (through a yield) outlives the
        // window in a way the check cannot follow.
        if (user->hasTrait<OpTrait::IsTerminator>())
          return user->emitError("the slot view of field '")
                 << pipe.getFieldName(field) << "' of pipe '" << pipe.getName()
                 << "' leaves the block of the " << opener.describeSide()
                 << "'s window; use a slot's view only between its "
                 << (isa<AcquireOp>(op) ? "tle.acquire and tle.commit"
                                        : "tle.wait and tle.release");
        Operation *ancestor = op->getBlock()->findAncestorOpInBlock(*user);
        if (!closer || (ancestor && ancestor->isBeforeInBlock(closer)))
          continue;
        InFlightDiagnostic diag =
            user->emitError("uses the slot of field '")
            << pipe.getFieldName(field) << "' of pipe '" << pipe.getName()
            << "' after the " << opener.describeSide() << " "
            << (isa<AcquireOp>(op) ? "committed" : "released") << " it";
        diag.attachNote(closer->getLoc()) << "the slot is given up here";
        return diag;
      }
    }
  }
  return success();
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

/// A pipe's buffers are touched only through slot views: by the code
/// before the partitions start, and for a one_shot pipe by its writer
/// before the commit. Anything else (a reader reading before it waits, a
/// writer storing to a slot it did not acquire, a field reused as scratch
/// without tle.reclaim) races with the other side. Accesses through any
/// view of the allocation that may share bytes with a field count.
static LogicalResult checkDirectAccesses(WarpSpecializeOp ws,
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

/// A reader may write its slot only when no other reader reads the field:
/// the others read the same slot at the same time.
static LogicalResult checkReaderWrites(WaitOp wait) {
  PipeOp pipe = cast<PipeLifecycleOpInterface>(*wait).getPipeOp();
  for (const SlotWrite &write : collectReaderWrites(wait)) {
    StringRef field = pipe.getFieldName(write.field);
    for (auto other : pipe.getReaders().getAsRange<ReaderAttr>()) {
      if (other.getName().getValue() == wait.getReader() ||
          !other.readsField(field))
        continue;
      auto ws = wait->getParentOfType<WarpSpecializeOp>();
      return write.op->emitError("reader '")
             << wait.getReader() << "' of pipe '" << pipe.getName()
             << "' writes the slot of field '" << field << "' in partition '"
             << ws.getPartitionLabel(*ws.getPartitionOf(wait))
             << "', which reader '" << other.getName().getValue()
             << "' reads at the same time; a slot that several readers "
                "read is read-only";
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Shared memory: checked before the simulation, whose work would otherwise
// follow absurd capacities
//===----------------------------------------------------------------------===//

static LogicalResult checkSharedMemory(WarpSpecializeOp ws,
                                       ArrayRef<PipeUsage> usages) {
  auto kernel = cast<FunctionOpInterface>(ws->getParentOp());
  uint64_t buffers = 0, barriers = 0;
  kernel->walk([&](SharedAllocOp alloc) {
    buffers = llvm::SaturatingAdd(
        buffers,
        static_cast<uint64_t>(
            getBufferByteSize(alloc.getBuffer().getType()).value_or(0)));
  });
  for (const PipeUsage &usage : usages) {
    PipeOp pipe = usage.pipe;
    uint64_t arrays =
        1 + (pipe.getOneShot() ? 0 : groupFieldsByReaders(pipe).size());
    barriers = llvm::SaturatingAdd(
        barriers, llvm::SaturatingMultiply(
                      arrays * hopper::kMBarrierBytes,
                      static_cast<uint64_t>(pipe.getCapacityAttr().getInt())));
  }
  uint64_t total = llvm::SaturatingAdd(buffers, barriers);
  if (total <= static_cast<uint64_t>(hopper::kMaxSharedMemoryBytes))
    return success();
  InFlightDiagnostic diag =
      emitOpErrorAtHead(ws)
      << "needs at least " << total << " bytes of shared memory (" << buffers
      << " of buffers, " << barriers
      << " of mbarriers for the pipes' slots), over the "
      << hopper::kMaxSharedMemoryBytes << " a CTA may use";
  for (const PipeUsage &usage : usages) {
    PipeOp pipe = usage.pipe;
    diag.attachNote(pipe.getLoc())
        << "pipe '" << pipe.getName() << "' has "
        << pipe.getCapacityAttr().getInt() << " slots";
  }
  return diag;
}

//===----------------------------------------------------------------------===//
// Iteration counts: the writer commits what each reader waits for
//===----------------------------------------------------------------------===//

/// "7 iterations", "2 x trips(...) iterations", or what the check could
/// not count.
static std::string describeCount(const std::optional<std::string> &count) {
  if (!count)
    return "a number of iterations the check cannot count";
  return *count + (*count == "1" ? " iteration" : " iterations");
}

/// Errors for counts that certainly differ; the counts it cannot compare go
/// to `unproven`, to be reported once the simulation found no certain
/// mismatch.
static LogicalResult checkIterationCounts(
    WarpSpecializeOp ws, const PipeUsage &usage,
    SmallVectorImpl<std::pair<PipeOp, CountComparison>> &unproven) {
  PipeOp pipe = usage.pipe;
  for (const CountComparison &c : compareIterationCounts(ws, usage)) {
    if (c.result == CountComparison::Result::Differ)
      return pipe.emitError("the writer of pipe '")
             << pipe.getName() << "' commits " << describeCount(c.committed)
             << " but reader '" << c.reader << "' waits for "
             << describeCount(c.waited);
    if (c.result == CountComparison::Result::Unknown)
      unproven.push_back({pipe, c});
  }
  return success();
}

static LogicalResult
reportUnprovenCounts(ArrayRef<std::pair<PipeOp, CountComparison>> unproven,
                     bool strict) {
  for (auto [pipe, c] : unproven)
    emitUnproven(pipe, strict)
        << "the protocol check cannot prove that reader '" << c.reader
        << "' of pipe '" << pipe.getName()
        << "' waits for as many iterations as the writer commits: the "
           "writer commits "
        << describeCount(c.committed) << ", the reader waits for "
        << describeCount(c.waited)
        << "; a reader that stops early drops the last slots, one that "
           "waits for more hangs";
  return failure(strict && !unproven.empty());
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

static LogicalResult verifyKernel(WarpSpecializeOp ws, bool strict) {
  if (failed(verifyKernelPlacement(ws)))
    return failure();
  SmallVector<PipeUsage> usages = collectPipeUsages(ws);
  for (const PipeUsage &usage : usages)
    if (failed(checkRoles(ws, usage)))
      return failure();
  if (failed(checkSharedMemory(ws, usages)))
    return failure();
  UniformityAnalysis uniformity(ws->getParentOp());
  for (const PipeUsage &usage : usages)
    for (auto &[partition, ops] : usage.opsByPartition)
      for (PipeLifecycleOpInterface op : ops)
        if (failed(checkUniformity(ws, op, partition, uniformity)))
          return failure();
  for (unsigned p = 0; p < ws.getNumPartitions(); ++p)
    if (failed(BalanceChecker(ws, p).run()))
      return failure();
  if (failed(checkStorageAliasing(ws, usages, strict)) ||
      failed(checkReclaims(ws, usages)))
    return failure();
  for (const PipeUsage &usage : usages) {
    if (failed(checkDirectAccesses(ws, usage)))
      return failure();
    for (auto &entry : usage.opsByPartition)
      for (PipeLifecycleOpInterface op : entry.second) {
        if (isa<AcquireOp, WaitOp>(*op) && failed(checkViewLifetimes(op)))
          return failure();
        if (auto wait = dyn_cast<WaitOp>(*op);
            wait && failed(checkReaderWrites(wait)))
          return failure();
      }
  }
  SmallVector<std::pair<PipeOp, CountComparison>> unprovenCounts;
  for (const PipeUsage &usage : usages)
    if (failed(checkIterationCounts(ws, usage, unprovenCounts)))
      return failure();
  if (failed(simulateProtocol(ws, usages, strict)))
    return failure();
  return reportUnprovenCounts(unprovenCounts, strict);
}

namespace {
struct VerifyPipesPass : mlir::tle::impl::TLEVerifyPipesBase<VerifyPipesPass> {
  using Base::Base;

  void runOnOperation() override {
    bool failed = false;
    getOperation()->walk([&](PipeLifecycleOpInterface op) {
      if (op->getParentOfType<WarpSpecializeOp>())
        return;
      op->emitError() << describeSide(op)
                      << " is used outside every partition; pipe operations "
                         "belong inside a tle.warp_specialize region";
      failed = true;
    });
    getOperation()->walk([&](WarpSpecializeOp ws) {
      failed |= mlir::failed(verifyKernel(ws, strict));
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
