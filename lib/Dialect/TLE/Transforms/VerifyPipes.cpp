//===- VerifyPipes.cpp - Static check of the pipe protocol ----------------===//
//
// Proves, before any barrier exists, that every pipe is used as declared:
// one writer partition, one partition per reader, every acquire committed
// and every wait released on every path, no view used outside its window,
// matching iteration counts, and no deadlock. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/ProtocolSimulation.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "tle-verify-pipes"

namespace mlir::tle {
#define GEN_PASS_DEF_TLEVERIFYPIPES
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;

/// "%arg3" or "2": how an iteration value reads in a diagnostic.
static std::string describeIteration(Value iteration) {
  if (!iteration)
    return "its only iteration";
  std::string text;
  llvm::raw_string_ostream os(text);
  APInt constant;
  if (matchPattern(iteration, m_ConstantInt(&constant)))
    os << "iteration " << constant.getSExtValue();
  else {
    os << "iteration ";
    iteration.printAsOperand(os, OpPrintingFlags().useLocalScope());
  }
  return text;
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

static bool isThreadDependentSource(Operation *op) {
  return isa<gpu::ThreadIdOp, gpu::LaneIdOp, gpu::SubgroupIdOp,
             NVVM::ThreadIdXOp, NVVM::ThreadIdYOp, NVVM::ThreadIdZOp,
             NVVM::LaneIdOp, NVVM::WarpIdOp>(op);
}

/// A thread-id-dependent value among `values`, if there is one.
static Value findThreadDependent(ValueRange values) {
  for (Value value : values) {
    if (Operation *def = value.getDefiningOp();
        def && isThreadDependentSource(def))
      return value;
    SetVector<Operation *> slice;
    BackwardSliceOptions options;
    options.omitBlockArguments = true;
    (void)getBackwardSlice(value, &slice, options);
    if (llvm::any_of(slice, isThreadDependentSource))
      return value;
  }
  return {};
}

static LogicalResult checkUniformity(WarpSpecializeOp ws,
                                     PipeLifecycleOpInterface op,
                                     unsigned partition) {
  for (Operation *parent = op->getParentOp(); parent && parent != ws;
       parent = parent->getParentOp()) {
    Value dependent;
    if (auto branch = dyn_cast<scf::IfOp>(parent))
      dependent = findThreadDependent(branch.getCondition());
    else if (auto loop = dyn_cast<scf::ForOp>(parent))
      dependent = findThreadDependent(
          {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()});
    else if (auto loop = dyn_cast<scf::WhileOp>(parent))
      dependent = findThreadDependent(loop.getConditionOp().getCondition());
    if (!dependent)
      continue;
    InFlightDiagnostic diag =
        op->emitError() << describeSide(op)
                        << " sits under control flow that depends on "
                           "the thread id; every thread of partition '"
                        << ws.getPartitionLabel(partition) << "' must reach it";
    diag.attachNote(parent->getLoc()) << "this op depends on the thread id";
    return diag;
  }
  return success();
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
        InFlightDiagnostic diag = at->emitError()
                                  << describeSide(op) << " holds "
                                  << describeIteration(op.getIteration()) << " "
                                  << what;
        diag.attachNote(op->getLoc()) << "opened here";
        return diag;
      }
  return at->emitError("commits a one_shot pipe ") << what;
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
    return loop->emitError("unstructured control flow in partition '")
           << ws.getPartitionLabel(partition)
           << "' cannot be checked; use scf ops around pipe operations";
  HeldSlots inside = held;
  size_t committedBefore = inside.committedOnce.size();
  if (failed(walkBlock(body.front(), inside)))
    return failure();
  if (inside.committedOnce.size() != committedBefore)
    return loop->emitError("commits one_shot pipe '")
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
// Views: used only while the slot is held
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
  if (!closer)
    return success();
  PipeOp pipe = opener.getPipeOp();
  auto fields =
      isa<WaitOp>(op)
          ? pipe.getReaderFields(
                pipe.lookupReader(opener.getReaderAttr().getValue()))
          : llvm::to_vector(llvm::seq<unsigned>(0, pipe.getNumFields()));
  for (auto [view, field] : llvm::zip(op->getResults(), fields)) {
    SetVector<Value> aliases;
    aliases.insert(view);
    for (unsigned i = 0; i < aliases.size(); ++i) {
      for (Operation *user : aliases[i].getUsers()) {
        if (auto viewLike = dyn_cast<ViewLikeOpInterface>(user))
          aliases.insert(viewLike->getResults().begin(),
                         viewLike->getResults().end());
        Operation *ancestor = op->getBlock()->findAncestorOpInBlock(*user);
        if (ancestor && ancestor->isBeforeInBlock(closer))
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

//===----------------------------------------------------------------------===//
// Iteration counts: the writer commits what each reader waits for
//===----------------------------------------------------------------------===//

namespace {

/// The number of times an op runs: a constant times a product of loop trip
/// counts that are not constant (each loop named by its bounds).
struct LoopKey {
  std::array<Value, 3> bounds;
  bool operator==(const LoopKey &other) const {
    return llvm::all_of(llvm::seq(0, 3), [&](int i) {
      return isSameIteration(bounds[i], other.bounds[i]);
    });
  }
};

struct Monomial {
  SmallVector<LoopKey> loops;
  int64_t coefficient;
};

using Count = SmallVector<Monomial>;

bool sameLoops(ArrayRef<LoopKey> a, ArrayRef<LoopKey> b) {
  if (a.size() != b.size())
    return false;
  SmallVector<bool> used(b.size(), false);
  for (const LoopKey &key : a) {
    auto it = llvm::find_if(llvm::seq<size_t>(0, b.size()),
                            [&](size_t i) { return !used[i] && b[i] == key; });
    if (it == llvm::seq<size_t>(0, b.size()).end())
      return false;
    used[*it] = true;
  }
  return true;
}

void addTo(Count &count, const Monomial &term) {
  for (Monomial &m : count)
    if (sameLoops(m.loops, term.loops)) {
      m.coefficient += term.coefficient;
      return;
    }
  count.push_back(term);
}

/// How often `op` runs in its partition, or nullopt under a condition or in
/// a loop the check cannot count.
std::optional<Monomial> countRuns(Operation *op, WarpSpecializeOp ws) {
  Monomial term{{}, 1};
  for (Operation *parent = op->getParentOp(); parent && parent != ws;
       parent = parent->getParentOp()) {
    auto loop = dyn_cast<scf::ForOp>(parent);
    if (!loop)
      return std::nullopt;
    if (std::optional<APInt> trips = loop.getStaticTripCount())
      term.coefficient *= trips->getSExtValue();
    else
      term.loops.push_back(
          {{loop.getLowerBound(), loop.getUpperBound(), loop.getStep()}});
  }
  return term;
}

std::string printCount(const Count &count) {
  std::string text;
  llvm::raw_string_ostream os(text);
  bool first = true;
  for (const Monomial &m : count) {
    if (m.coefficient == 0)
      continue;
    os << (first ? "" : " + ");
    first = false;
    if (m.loops.empty() || m.coefficient != 1)
      os << m.coefficient;
    for (auto [i, loop] : llvm::enumerate(m.loops)) {
      os << ((i || m.coefficient != 1) ? " x " : "") << "trips(";
      llvm::interleave(
          loop.bounds, os,
          [&](Value v) {
            v.printAsOperand(os, OpPrintingFlags().useLocalScope());
          },
          " to ");
      os << ")";
    }
  }
  if (first)
    os << "0";
  return text;
}

} // namespace

static LogicalResult checkIterationCounts(WarpSpecializeOp ws,
                                          const PipeUsage &usage) {
  PipeOp pipe = usage.pipe;
  if (pipe.getOneShot())
    return success();
  Count written;
  llvm::StringMap<Count> read;
  for (auto &entry : usage.opsByPartition)
    for (PipeLifecycleOpInterface op : entry.second) {
      if (!isa<CommitOp, WaitOp>(op.getOperation()))
        continue;
      std::optional<Monomial> runs = countRuns(op, ws);
      if (!runs)
        return success();
      addTo(op.isWriterSide() ? written : read[op.getReaderAttr().getValue()],
            *runs);
    }
  for (auto &[reader, count] : read) {
    // Certain only when every term differs in the same direction.
    Count difference = written;
    for (Monomial m : count) {
      m.coefficient = -m.coefficient;
      addTo(difference, m);
    }
    bool more = llvm::all_of(
        difference, [](const Monomial &m) { return m.coefficient >= 0; });
    bool fewer = llvm::all_of(
        difference, [](const Monomial &m) { return m.coefficient <= 0; });
    bool equal = more && fewer;
    if (equal || !(more || fewer))
      continue;
    return pipe.emitError("the writer of pipe '")
           << pipe.getName() << "' commits " << printCount(written)
           << " iterations but reader '" << reader << "' waits for "
           << printCount(count);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

static LogicalResult verifyKernel(WarpSpecializeOp ws) {
  SmallVector<PipeUsage> usages = collectPipeUsages(ws);
  for (const PipeUsage &usage : usages)
    if (failed(checkRoles(ws, usage)))
      return failure();
  for (const PipeUsage &usage : usages)
    for (auto &[partition, ops] : usage.opsByPartition)
      for (PipeLifecycleOpInterface op : ops)
        if (failed(checkUniformity(ws, op, partition)))
          return failure();
  for (unsigned p = 0; p < ws.getNumPartitions(); ++p)
    if (failed(BalanceChecker(ws, p).run()))
      return failure();
  for (const PipeUsage &usage : usages)
    for (auto &entry : usage.opsByPartition)
      for (PipeLifecycleOpInterface op : entry.second)
        if (isa<AcquireOp, WaitOp>(op.getOperation()) &&
            failed(checkViewLifetimes(op)))
          return failure();
  for (const PipeUsage &usage : usages)
    if (failed(checkIterationCounts(ws, usage)))
      return failure();
  return checkForDeadlock(ws, usages);
}

namespace {
struct VerifyPipesPass : tle::impl::TLEVerifyPipesBase<VerifyPipesPass> {
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
    getOperation()->walk(
        [&](WarpSpecializeOp ws) { failed |= mlir::failed(verifyKernel(ws)); });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
