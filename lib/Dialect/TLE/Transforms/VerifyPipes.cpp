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
#include "tle/Dialect/TLE/Analysis/IterationExpr.h"
#include "tle/Dialect/TLE/Analysis/KernelPlacement.h"
#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/PipeWindows.h"
#include "tle/Dialect/TLE/Analysis/ProtocolSimulation.h"
#include "tle/Dialect/TLE/Analysis/ReleasePlacement.h"
#include "tle/Dialect/TLE/Analysis/StorageAliasing.h"
#include "tle/Dialect/TLE/Analysis/StorageFootprint.h"
#include "tle/Dialect/TLE/Analysis/TokenUsage.h"
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
// Views: slots are touched only through the views, while they are held
//===----------------------------------------------------------------------===//

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

static bool isSameSide(PipeLifecycleOpInterface a, PipeLifecycleOpInterface b) {
  return a.getPipe() == b.getPipe() && a.getReaderAttr() == b.getReaderAttr();
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

/// A reader may write its slot only when no other reader reads the field:
/// the others read the same slot at the same time. Its own multiplies
/// must not read the field around the write either.
static LogicalResult checkReaderWrites(WaitOp wait) {
  PipeOp pipe = cast<PipeLifecycleOpInterface>(*wait).getPipeOp();
  SmallVector<unsigned> readerFields =
      pipe.getReaderFields(pipe.lookupReader(wait.getReader()));
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
    unsigned index =
        llvm::find(readerFields, write.field) - readerFields.begin();
    if (failed(checkReaderWriteOrder(wait, write, index)))
      return failure();
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

/// "3 times", "2 x trips(...) times", or what the check could not count.
static std::string describeTimes(const std::optional<std::string> &count) {
  if (!count)
    return "a number of times the check cannot count";
  return *count == "1" ? "once" : *count + " times";
}

/// An error where a token's signals and awaits certainly differ in number;
/// the tokens whose counts it cannot compare go to `unproven`.
static LogicalResult checkTokenCounts(
    WarpSpecializeOp ws, ArrayRef<TokenUsage> tokens,
    SmallVectorImpl<std::pair<TokenOp, CountComparison>> &unproven) {
  for (const TokenUsage &usage : tokens) {
    CountComparison c = compareTokenCounts(ws, usage);
    if (c.result == CountComparison::Result::Differ)
      return TokenOp(usage.token).emitError("partition '")
             << ws.getPartitionLabel(usage.signaler) << "' signals token '"
             << c.reader << "' " << describeTimes(c.committed)
             << " but partition '" << ws.getPartitionLabel(usage.waiter)
             << "' awaits it " << describeTimes(c.waited);
    if (c.result == CountComparison::Result::Unknown)
      unproven.push_back({TokenOp(usage.token), c});
  }
  return success();
}

static LogicalResult
reportUnprovenCounts(ArrayRef<std::pair<PipeOp, CountComparison>> unproven,
                     ArrayRef<std::pair<TokenOp, CountComparison>> tokens,
                     bool strict) {
  for (auto [token, c] : tokens)
    emitUnproven(token, strict)
        << "the protocol check cannot prove that token '" << c.reader
        << "' is awaited as many times as it is signaled: it is signaled "
        << describeTimes(c.committed) << " and awaited "
        << describeTimes(c.waited)
        << "; an await without its signal hangs, a signal left over "
           "completes the named barrier's next phase early";
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
  return failure(strict && (!unproven.empty() || !tokens.empty()));
}

/// A kernel that drops its readers' proxy fences for cp.async data relies
/// on a visibility the PTX memory model does not promise: the check says so,
/// when a reader does hand such data to the async proxy.
static LogicalResult reportUnfencedCpAsync(WarpSpecializeOp ws,
                                           ArrayRef<PipeUsage> usages,
                                           bool strict) {
  if (readersFenceCpAsync(ws))
    return success();
  WaitOp handoff;
  for (const PipeUsage &usage : usages) {
    SmallVector<WaitOp> waits = findCpAsyncHandoffs(usage);
    if (!waits.empty()) {
      handoff = waits.front();
      break;
    }
  }
  if (!handoff)
    return success();
  Operation *func = ws->getParentOfType<FunctionOpInterface>();
  InFlightDiagnostic diag =
      emitUnproven(func ? func : ws.getOperation(), strict);
  diag << "the protocol check cannot prove that the readers of cp.async data "
          "see it through the async proxy (the tensor cores, TMA): "
          "tle.cp_async_fence = \"none\" drops their fence.proxy.async, and "
          "the PTX memory model does not promise that a completed cp.async is "
          "visible there without one";
  diag.attachNote(handoff.getLoc())
      << describePipeSide(handoff)
      << " hands cp.async data to the async proxy after this wait";
  return failure(strict);
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
        if (failed(checkUniformControl(ws, op, describePipeSide(op),
                                       op.getIteration(), partition,
                                       uniformity)))
          return failure();
  SmallVector<TokenUsage> tokens = collectTokenUsages(ws);
  if (failed(checkNamedBarrierBudget(ws, tokens)))
    return failure();
  WalkResult tokensReached = ws->walk([&](Operation *op) {
    if (!isa<SignalOp, AwaitOp>(op))
      return WalkResult::advance();
    return WalkResult(checkUniformControl(ws, op, describeTokenUse(op), Value(),
                                          *ws.getPartitionOf(op), uniformity));
  });
  if (tokensReached.wasInterrupted())
    return failure();
  CarriedWindows carried;
  for (unsigned p = 0; p < ws.getNumPartitions(); ++p)
    if (failed(checkWindowBalance(ws, p, carried)))
      return failure();
  ViewChecker views(carried);
  WalkResult viewsChecked = ws->walk([&](Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return WalkResult(views.checkLoop(loop));
    if (isa<AcquireOp, WaitOp>(op))
      return WalkResult(views.checkOpener(cast<PipeLifecycleOpInterface>(op)));
    return WalkResult::advance();
  });
  if (viewsChecked.wasInterrupted() ||
      failed(checkStorageAliasing(ws, usages, strict)) ||
      failed(checkReclaims(ws, usages)))
    return failure();
  for (const PipeUsage &usage : usages) {
    if (failed(checkDirectAccesses(ws, usage)))
      return failure();
    for (auto &entry : usage.opsByPartition)
      for (PipeLifecycleOpInterface op : entry.second)
        if (auto wait = dyn_cast<WaitOp>(*op);
            wait && failed(checkReaderWrites(wait)))
          return failure();
  }
  SmallVector<std::pair<PipeOp, CountComparison>> unprovenCounts;
  for (const PipeUsage &usage : usages)
    if (failed(checkIterationCounts(ws, usage, unprovenCounts)))
      return failure();
  if (failed(simulateProtocol(ws, usages, tokens, strict)))
    return failure();
  // After the simulation, whose runs explain a mismatch they meet (the
  // await that blocks, the signal left over): the counts compared here
  // cover the inputs it did not try.
  SmallVector<std::pair<TokenOp, CountComparison>> unprovenTokens;
  if (failed(checkTokenCounts(ws, tokens, unprovenTokens)))
    return failure();
  if (failed(reportUnprovenCounts(unprovenCounts, unprovenTokens, strict)))
    return failure();
  return reportUnfencedCpAsync(ws, usages, strict);
}

namespace {
struct VerifyPipesPass : mlir::tle::impl::TLEVerifyPipesBase<VerifyPipesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(requireExpandedReplicas(getOperation(), getArgument())))
      return signalPassFailure();
    bool failed = false;
    getOperation()->walk([&](PipeLifecycleOpInterface op) {
      if (op->getParentOfType<WarpSpecializeOp>())
        return;
      op->emitError() << describePipeSide(op)
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
