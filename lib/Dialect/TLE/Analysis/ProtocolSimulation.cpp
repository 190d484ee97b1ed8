//===- ProtocolSimulation.cpp - Run partitions against barriers -----------===//

#include "tle/Dialect/TLE/Analysis/ProtocolSimulation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tle;

namespace {

/// Bounds the work of one simulation; beyond it the check gives up.
constexpr size_t kMaxEvents = 1 << 18;

enum class EventKind { Acquire, Commit, Wait, Release };

struct Event {
  Operation *op;
  EventKind kind;
  PipeOp pipe;
  StringRef reader;
  int64_t iteration;
};

//===----------------------------------------------------------------------===//
// Unrolling a partition into events
//===----------------------------------------------------------------------===//

/// Interprets the integer arithmetic and structured control flow of one
/// partition region, recording its lifecycle ops in execution order. Values
/// defined outside the region that cannot be computed (kernel arguments,
/// block ids) all take the value `symbol`.
class Unroller {
public:
  Unroller(Region &region, int64_t symbol,
           const llvm::DenseSet<Operation *> &hasLifecycleOps)
      : region(region), symbol(symbol), hasLifecycleOps(hasLifecycleOps) {}

  /// Fails when the events cannot be determined.
  LogicalResult run(std::vector<Event> &events) {
    out = &events;
    return execBlock(region.front());
  }
  const llvm::SetVector<Value> &getSymbols() { return symbols; }

private:
  std::optional<int64_t> lookup(Value value);
  std::optional<int64_t> evaluate(Operation *op);
  LogicalResult execBlock(Block &block);
  LogicalResult execOp(Operation *op);
  LogicalResult execFor(scf::ForOp loop);
  LogicalResult execIf(scf::IfOp branch);
  void bind(ValueRange targets, ValueRange sources);

  Region &region;
  int64_t symbol;
  const llvm::DenseSet<Operation *> &hasLifecycleOps;
  DenseMap<Value, int64_t> env;
  std::vector<Event> *out = nullptr;
  llvm::SetVector<Value> symbols;
};

std::optional<int64_t> Unroller::lookup(Value value) {
  if (auto it = env.find(value); it != env.end())
    return it->second;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  if (region.isAncestor(value.getParentRegion()))
    return std::nullopt;
  // Defined above the partition: compute it if it is arithmetic on
  // computable values, otherwise it is a symbol.
  if (Operation *def = value.getDefiningOp())
    if (def->getNumResults() == 1)
      if (std::optional<int64_t> result = evaluate(def))
        return result;
  symbols.insert(value);
  return symbol;
}

std::optional<int64_t> Unroller::evaluate(Operation *op) {
  SmallVector<int64_t, 3> args;
  for (Value operand : op->getOperands()) {
    std::optional<int64_t> v = lookup(operand);
    if (!v)
      return std::nullopt;
    args.push_back(*v);
  }
  auto binary = [&](auto fn) -> std::optional<int64_t> {
    return args.size() == 2 ? std::optional<int64_t>(fn(args[0], args[1]))
                            : std::nullopt;
  };
  auto divide = [&](auto fn) -> std::optional<int64_t> {
    return args.size() == 2 && args[1] != 0
               ? std::optional<int64_t>(fn(args[0], args[1]))
               : std::nullopt;
  };
  return llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
      .Case<arith::AddIOp>(
          [&](auto) { return binary([](auto a, auto b) { return a + b; }); })
      .Case<arith::SubIOp>(
          [&](auto) { return binary([](auto a, auto b) { return a - b; }); })
      .Case<arith::MulIOp>(
          [&](auto) { return binary([](auto a, auto b) { return a * b; }); })
      .Case<arith::DivUIOp, arith::DivSIOp>(
          [&](auto) { return divide([](auto a, auto b) { return a / b; }); })
      .Case<arith::RemUIOp, arith::RemSIOp>(
          [&](auto) { return divide([](auto a, auto b) { return a % b; }); })
      .Case<arith::FloorDivSIOp>([&](auto) {
        return divide([](auto a, auto b) {
          return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
        });
      })
      .Case<arith::CeilDivSIOp, arith::CeilDivUIOp>([&](auto) {
        return divide([](auto a, auto b) {
          return a / b + ((a % b != 0) && ((a < 0) == (b < 0)));
        });
      })
      .Case<arith::MinSIOp, arith::MinUIOp>([&](auto) {
        return binary([](auto a, auto b) { return std::min(a, b); });
      })
      .Case<arith::MaxSIOp, arith::MaxUIOp>([&](auto) {
        return binary([](auto a, auto b) { return std::max(a, b); });
      })
      .Case<arith::AndIOp>(
          [&](auto) { return binary([](auto a, auto b) { return a & b; }); })
      .Case<arith::OrIOp>(
          [&](auto) { return binary([](auto a, auto b) { return a | b; }); })
      .Case<arith::XOrIOp>(
          [&](auto) { return binary([](auto a, auto b) { return a ^ b; }); })
      .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp, arith::TruncIOp>(
          [&](auto) { return std::optional<int64_t>(args[0]); })
      .Case<arith::SelectOp>([&](auto) {
        return std::optional<int64_t>(args[0] ? args[1] : args[2]);
      })
      .Case<arith::CmpIOp>([&](arith::CmpIOp cmp) -> std::optional<int64_t> {
        int64_t a = args[0], b = args[1];
        switch (cmp.getPredicate()) {
        case arith::CmpIPredicate::eq:
          return a == b;
        case arith::CmpIPredicate::ne:
          return a != b;
        case arith::CmpIPredicate::slt:
        case arith::CmpIPredicate::ult:
          return a < b;
        case arith::CmpIPredicate::sle:
        case arith::CmpIPredicate::ule:
          return a <= b;
        case arith::CmpIPredicate::sgt:
        case arith::CmpIPredicate::ugt:
          return a > b;
        case arith::CmpIPredicate::sge:
        case arith::CmpIPredicate::uge:
          return a >= b;
        }
        return std::nullopt;
      })
      .Default([](Operation *) { return std::nullopt; });
}

void Unroller::bind(ValueRange targets, ValueRange sources) {
  for (auto [target, source] : llvm::zip(targets, sources)) {
    if (std::optional<int64_t> v = lookup(source))
      env[target] = *v;
    else
      env.erase(target);
  }
}

LogicalResult Unroller::execFor(scf::ForOp loop) {
  std::optional<int64_t> lb = lookup(loop.getLowerBound());
  std::optional<int64_t> ub = lookup(loop.getUpperBound());
  std::optional<int64_t> step = lookup(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return failure();
  bind(loop.getRegionIterArgs(), loop.getInitArgs());
  for (int64_t iv = *lb; iv < *ub; iv += *step) {
    if (out->size() > kMaxEvents)
      return failure();
    env[loop.getInductionVar()] = iv;
    if (failed(execBlock(*loop.getBody())))
      return failure();
    bind(loop.getRegionIterArgs(), loop.getYieldedValues());
  }
  bind(loop.getResults(), loop.getRegionIterArgs());
  return success();
}

LogicalResult Unroller::execIf(scf::IfOp branch) {
  std::optional<int64_t> condition = lookup(branch.getCondition());
  if (!condition)
    return failure();
  Region &taken = *condition ? branch.getThenRegion() : branch.getElseRegion();
  if (taken.empty())
    return success();
  if (failed(execBlock(taken.front())))
    return failure();
  bind(branch.getResults(), taken.front().getTerminator()->getOperands());
  return success();
}

LogicalResult Unroller::execOp(Operation *op) {
  if (auto lifecycle = dyn_cast<PipeLifecycleOpInterface>(op)) {
    int64_t iteration = 0;
    if (Value iter = lifecycle.getIteration()) {
      std::optional<int64_t> v = lookup(iter);
      if (!v || *v < 0)
        return failure();
      iteration = *v;
    }
    EventKind kind =
        llvm::TypeSwitch<Operation *, EventKind>(op)
            .Case<AcquireOp>([](auto) { return EventKind::Acquire; })
            .Case<CommitOp>([](auto) { return EventKind::Commit; })
            .Case<WaitOp>([](auto) { return EventKind::Wait; })
            .Default([](auto) { return EventKind::Release; });
    StringAttr reader = lifecycle.getReaderAttr();
    out->push_back({op, kind, lifecycle.getPipeOp(),
                    reader ? reader.getValue() : StringRef(), iteration});
    return success();
  }
  bool relevant = hasLifecycleOps.contains(op);
  if (auto loop = dyn_cast<scf::ForOp>(op); loop && relevant)
    return execFor(loop);
  if (auto branch = dyn_cast<scf::IfOp>(op); branch && relevant)
    return execIf(branch);
  if (relevant)
    return failure();
  if (op->getNumResults() == 1 && op->getNumRegions() == 0)
    if (std::optional<int64_t> v = evaluate(op))
      env[op->getResult(0)] = *v;
  return success();
}

LogicalResult Unroller::execBlock(Block &block) {
  for (Operation &op : block.without_terminator())
    if (failed(execOp(&op)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Running the events against the barriers
//===----------------------------------------------------------------------===//

/// The barrier state of one pipe, as the hardware would hold it.
struct PipeBarriers {
  PipeOp pipe;
  int64_t capacity;
  /// Completed phases of each slot's full barrier.
  SmallVector<int64_t> fullPhases;
  SmallVector<FieldGroup> groups;
  /// Per free barrier group and slot: completed phases, and which readers
  /// arrived in the current phase.
  SmallVector<SmallVector<int64_t>> freePhases;
  SmallVector<SmallVector<SmallVector<bool>>> arrived;

  explicit PipeBarriers(PipeOp pipe)
      : pipe(pipe), capacity(pipe.getCapacityAttr().getInt()),
        fullPhases(capacity, 0), groups(groupFieldsByReaders(pipe)) {
    unsigned numReaders = pipe.getReaders().size();
    for (size_t g = 0; g < groups.size(); ++g) {
      freePhases.emplace_back(capacity, 0);
      arrived.emplace_back(capacity, SmallVector<bool>(numReaders, false));
    }
  }

  int64_t slotOf(int64_t iteration) { return iteration % capacity; }
  int64_t parityOf(int64_t iteration) {
    return pipe.getOneShot() ? 0 : (iteration / capacity) & 1;
  }
  unsigned readerIndex(StringRef reader) {
    for (auto [i, r] :
         llvm::enumerate(pipe.getReaders().getAsRange<ReaderAttr>()))
      if (r.getName().getValue() == reader)
        return i;
    llvm_unreachable("verified reader");
  }

  /// mbarrier.try_wait.parity P succeeds once the phase with parity P has
  /// completed, i.e. while the current phase's parity differs from P.
  bool canProceed(Event e) {
    int64_t slot = slotOf(e.iteration), parity = parityOf(e.iteration);
    if (e.kind == EventKind::Wait)
      return (fullPhases[slot] & 1) != parity;
    if (e.kind == EventKind::Acquire)
      return llvm::all_of(freePhases, [&](const SmallVector<int64_t> &phases) {
        return (phases[slot] & 1) != (parity ^ 1);
      });
    return true;
  }

  void apply(Event e) {
    int64_t slot = slotOf(e.iteration);
    if (e.kind == EventKind::Commit)
      ++fullPhases[slot];
    if (e.kind != EventKind::Release)
      return;
    unsigned reader = readerIndex(e.reader);
    for (auto [g, group] : llvm::enumerate(groups)) {
      if (!llvm::is_contained(group.readers, reader))
        continue;
      arrived[g][slot][reader] = true;
      if (llvm::all_of(group.readers,
                       [&](unsigned r) { return arrived[g][slot][r]; })) {
        ++freePhases[g][slot];
        arrived[g][slot].assign(arrived[g][slot].size(), false);
      }
    }
  }

  /// Readers whose release the acquire of `e` still needs.
  SmallVector<StringRef> missingReleases(Event e) {
    int64_t slot = slotOf(e.iteration);
    auto readers = llvm::to_vector(pipe.getReaders().getAsRange<ReaderAttr>());
    SmallVector<StringRef> missing;
    for (auto [g, group] : llvm::enumerate(groups))
      for (unsigned r : group.readers)
        if (!arrived[g][slot][r] &&
            !llvm::is_contained(missing, readers[r].getName().getValue()))
          missing.push_back(readers[r].getName().getValue());
    return missing;
  }
};

class Simulation {
public:
  Simulation(WarpSpecializeOp ws, ArrayRef<PipeUsage> usages,
             std::vector<std::vector<Event>> events)
      : ws(ws), usages(usages), events(std::move(events)),
        pcs(this->events.size(), 0) {
    for (const PipeUsage &usage : usages)
      barriers.try_emplace(usage.pipe, usage.pipe);
  }

  /// Runs until every partition finishes (true) or none can move (false).
  bool run();
  /// Reports the blocked state after run() returned false.
  void report(StringRef qualifier);

private:
  const PipeUsage &usageOf(PipeOp pipe) {
    return *llvm::find_if(usages,
                          [&](const PipeUsage &u) { return u.pipe == pipe; });
  }
  bool finished(unsigned p) { return pcs[p] == events[p].size(); }
  /// The partitions the blocked event of `p` waits for.
  SmallVector<unsigned> blockers(unsigned p);
  std::string describe(unsigned p);

  WarpSpecializeOp ws;
  ArrayRef<PipeUsage> usages;
  std::vector<std::vector<Event>> events;
  SmallVector<size_t> pcs;
  llvm::DenseMap<Operation *, PipeBarriers> barriers;
};

bool Simulation::run() {
  bool progress = true;
  while (progress) {
    progress = false;
    for (unsigned p = 0; p < events.size(); ++p) {
      while (!finished(p)) {
        Event e = events[p][pcs[p]];
        PipeBarriers &state = barriers.find(e.pipe)->second;
        if (!state.canProceed(e))
          break;
        state.apply(e);
        ++pcs[p];
        progress = true;
      }
    }
  }
  return llvm::all_of(llvm::seq<unsigned>(0, events.size()),
                      [&](unsigned p) { return finished(p); });
}

SmallVector<unsigned> Simulation::blockers(unsigned p) {
  Event e = events[p][pcs[p]];
  const PipeUsage &usage = usageOf(e.pipe);
  if (e.kind == EventKind::Wait)
    return {*usage.getWriterPartition()};
  SmallVector<unsigned> result;
  for (StringRef reader : barriers.find(e.pipe)->second.missingReleases(e))
    if (std::optional<unsigned> q = usage.getReaderPartition(reader))
      result.push_back(*q);
  return result;
}

std::string Simulation::describe(unsigned p) {
  Event e = events[p][pcs[p]];
  PipeBarriers &state = barriers.find(e.pipe)->second;
  const PipeUsage &usage = usageOf(e.pipe);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "partition '" << ws.getPartitionLabel(p) << "' ";
  if (e.kind == EventKind::Wait) {
    unsigned writer = *usage.getWriterPartition();
    os << "waits as reader '" << e.reader << "' for ";
    if (!e.pipe.getOneShot())
      os << "iteration " << e.iteration << " of ";
    os << "pipe '" << e.pipe.getName() << "', which partition '"
       << ws.getPartitionLabel(writer) << "' has not committed";
    if (finished(writer))
      os << " and never will (it has finished)";
    return text;
  }
  int64_t previous = e.iteration - state.capacity;
  os << "waits to acquire iteration " << e.iteration << " of pipe '"
     << e.pipe.getName() << "' (slot " << state.slotOf(e.iteration)
     << "), which needs iteration " << previous << " released by ";
  llvm::interleave(
      state.missingReleases(e), os,
      [&](StringRef reader) {
        os << "reader '" << reader << "'";
        if (std::optional<unsigned> q = usage.getReaderPartition(reader);
            q && finished(*q))
          os << " (partition '" << ws.getPartitionLabel(*q)
             << "' has finished)";
      },
      ", ");
  return text;
}

void Simulation::report(StringRef qualifier) {
  SmallVector<unsigned> blocked;
  for (unsigned p = 0; p < events.size(); ++p)
    if (!finished(p))
      blocked.push_back(p);

  // Follow the wait-for edges from the first blocked partition; revisiting
  // a partition closes a cycle.
  SmallVector<unsigned> path = {blocked.front()};
  std::string cycle;
  while (true) {
    SmallVector<unsigned> next = blockers(path.back());
    auto it = llvm::find_if(next, [&](unsigned q) { return !finished(q); });
    if (it == next.end())
      break;
    auto seen = llvm::find(path, *it);
    if (seen != path.end()) {
      for (auto pit = seen; pit != path.end(); ++pit)
        cycle += "'" + ws.getPartitionLabel(*pit) + "' -> ";
      cycle += "'" + ws.getPartitionLabel(*it) + "'";
      break;
    }
    path.push_back(*it);
  }

  const Event &first = events[blocked.front()][pcs[blocked.front()]];
  InFlightDiagnostic diag = first.op->emitError("deadlock");
  diag << qualifier << ": ";
  if (!cycle.empty())
    diag << "partitions wait on each other in a cycle " << cycle << "; ";
  diag << describe(blocked.front());
  for (unsigned p : llvm::drop_begin(blocked))
    diag.attachNote(events[p][pcs[p]].op->getLoc()) << describe(p);
}

} // namespace

LogicalResult tle::checkForDeadlock(WarpSpecializeOp ws,
                                    ArrayRef<PipeUsage> usages) {
  llvm::DenseSet<Operation *> hasLifecycleOps;
  int64_t maxCapacity = 1;
  for (const PipeUsage &usage : usages) {
    PipeOp pipe = usage.pipe;
    maxCapacity = std::max(maxCapacity, pipe.getCapacityAttr().getInt());
    for (auto &entry : usage.opsByPartition)
      for (PipeLifecycleOpInterface op : entry.second)
        for (Operation *a = op->getParentOp(); a && a != ws;
             a = a->getParentOp())
          hasLifecycleOps.insert(a);
  }
  // Symbolic trip counts take a few values: one lap, just past a lap, and
  // several laps of the largest ring.
  for (int64_t symbol : {int64_t(1), maxCapacity + 1, 4 * maxCapacity + 1}) {
    std::vector<std::vector<Event>> events(ws.getNumPartitions());
    llvm::SetVector<Value> symbols;
    for (unsigned p = 0; p < ws.getNumPartitions(); ++p) {
      Unroller unroller(ws.getPartitionRegion(p), symbol, hasLifecycleOps);
      if (failed(unroller.run(events[p])))
        return success();
      symbols.insert(unroller.getSymbols().begin(),
                     unroller.getSymbols().end());
    }
    bool usedSymbol = !symbols.empty();
    Simulation simulation(ws, usages, std::move(events));
    if (simulation.run()) {
      if (!usedSymbol)
        return success();
      continue;
    }
    std::string qualifier;
    if (usedSymbol) {
      llvm::raw_string_ostream os(qualifier);
      os << " when ";
      for (Value value : symbols) {
        value.printAsOperand(os, OpPrintingFlags().useLocalScope());
        os << " = ";
      }
      os << symbol;
    }
    simulation.report(qualifier);
    return failure();
  }
  return success();
}
