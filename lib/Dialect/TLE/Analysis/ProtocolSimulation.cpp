//===- ProtocolSimulation.cpp - Run partitions against barriers -----------===//

#include "tle/Dialect/TLE/Analysis/ProtocolSimulation.h"
#include "tle/Dialect/TLE/Analysis/ReleasePlacement.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <functional>

using namespace mlir;
using namespace mlir::tle;

InFlightDiagnostic tle::emitUnproven(Operation *op, bool strict) {
  return emitAtHead(op, strict ? DiagnosticSeverity::Error
                               : DiagnosticSeverity::Warning);
}

namespace {

/// Bounds the work of one run (pipe operations plus loop iterations), so
/// that neither capacities nor trip counts make the check slow.
constexpr size_t kMaxSteps = size_t(1) << 20;
/// How often the inputs may double while the check lengthens loops, and
/// the largest value an input takes.
constexpr int kMaxGrowthRounds = 48;
constexpr int64_t kMaxInput = int64_t(1) << 40;

//===----------------------------------------------------------------------===//
// Integer arithmetic as the GPU computes it
//===----------------------------------------------------------------------===//

unsigned getWidth(Type type) {
  return type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
}

/// `value` as an integer of `type` holds it: i1 as 0 or 1, narrower
/// integers wrapped and sign-extended.
int64_t normalize(Type type, int64_t value) {
  unsigned width = getWidth(type);
  if (width == 1)
    return value & 1;
  return width >= 64 ? value : llvm::SignExtend64(value, width);
}

uint64_t toUnsigned(Type type, int64_t value) {
  unsigned width = getWidth(type);
  return width >= 64 ? static_cast<uint64_t>(value)
                     : static_cast<uint64_t>(value) &
                           llvm::maskTrailingOnes<uint64_t>(width);
}

/// Computes an integer result from the operands' values; nullopt where the
/// arithmetic is undefined (a division by zero, an overflow).
using Interpreter = std::function<std::optional<int64_t>(ArrayRef<int64_t>)>;

/// How `op` computes its integer result, or null for an op the check does
/// not interpret.
Interpreter getInterpreter(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumOperands() == 0 ||
      !op->getResult(0).getType().isIntOrIndex() ||
      !op->getOperand(0).getType().isIntOrIndex())
    return nullptr;
  Type type = op->getOperand(0).getType();
  unsigned width = getWidth(type);
  auto u = [type](int64_t v) { return toUnsigned(type, v); };
  using Result = std::optional<int64_t>;
  auto unsignedResult = [](uint64_t v) -> Result {
    return static_cast<int64_t>(v);
  };
  return llvm::TypeSwitch<Operation *, Interpreter>(op)
      .Case([](arith::AddIOp) -> Interpreter {
        return [](ArrayRef<int64_t> a) -> Result {
          int64_t r;
          return llvm::AddOverflow(a[0], a[1], r) ? Result() : r;
        };
      })
      .Case([](arith::SubIOp) -> Interpreter {
        return [](ArrayRef<int64_t> a) -> Result {
          int64_t r;
          return llvm::SubOverflow(a[0], a[1], r) ? Result() : r;
        };
      })
      .Case([](arith::MulIOp) -> Interpreter {
        return [](ArrayRef<int64_t> a) -> Result {
          int64_t r;
          return llvm::MulOverflow(a[0], a[1], r) ? Result() : r;
        };
      })
      .Case([&](arith::DivUIOp) -> Interpreter {
        return [=](ArrayRef<int64_t> a) -> Result {
          return u(a[1]) ? unsignedResult(u(a[0]) / u(a[1])) : Result();
        };
      })
      .Case([&](arith::CeilDivUIOp) -> Interpreter {
        return [=](ArrayRef<int64_t> a) -> Result {
          if (!u(a[1]))
            return std::nullopt;
          return unsignedResult(u(a[0]) / u(a[1]) + (u(a[0]) % u(a[1]) != 0));
        };
      })
      .Case([&](arith::RemUIOp) -> Interpreter {
        return [=](ArrayRef<int64_t> a) -> Result {
          return u(a[1]) ? unsignedResult(u(a[0]) % u(a[1])) : Result();
        };
      })
      .Case<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
            arith::FloorDivSIOp>([](auto div) -> Interpreter {
        bool isRem = isa<arith::RemSIOp>(div);
        bool isCeil = isa<arith::CeilDivSIOp>(div);
        bool isFloor = isa<arith::FloorDivSIOp>(div);
        return [=](ArrayRef<int64_t> a) -> Result {
          if (a[1] == 0 || (a[0] == INT64_MIN && a[1] == -1))
            return std::nullopt;
          int64_t q = a[0] / a[1], r = a[0] % a[1];
          if (isRem)
            return r;
          if (isCeil && r != 0 && (a[0] < 0) == (a[1] < 0))
            return q + 1;
          if (isFloor && r != 0 && (a[0] < 0) != (a[1] < 0))
            return q - 1;
          return q;
        };
      })
      .Case<arith::MinSIOp, arith::MaxSIOp>([](auto minmax) -> Interpreter {
        bool isMin = isa<arith::MinSIOp>(minmax);
        return [=](ArrayRef<int64_t> a) -> Result {
          return isMin ? std::min(a[0], a[1]) : std::max(a[0], a[1]);
        };
      })
      .Case<arith::MinUIOp, arith::MaxUIOp>([&](auto minmax) -> Interpreter {
        bool isMin = isa<arith::MinUIOp>(minmax);
        return [=](ArrayRef<int64_t> a) -> Result {
          return (u(a[0]) < u(a[1])) == isMin ? a[0] : a[1];
        };
      })
      .Case([](arith::AndIOp) -> Interpreter {
        return [](ArrayRef<int64_t> a) -> Result { return a[0] & a[1]; };
      })
      .Case([](arith::OrIOp) -> Interpreter {
        return [](ArrayRef<int64_t> a) -> Result { return a[0] | a[1]; };
      })
      .Case([](arith::XOrIOp) -> Interpreter {
        return [](ArrayRef<int64_t> a) -> Result { return a[0] ^ a[1]; };
      })
      .Case<arith::ShLIOp, arith::ShRUIOp, arith::ShRSIOp>(
          [&](auto shift) -> Interpreter {
            bool left = isa<arith::ShLIOp>(shift);
            bool arithmetic = isa<arith::ShRSIOp>(shift);
            return [=](ArrayRef<int64_t> a) -> Result {
              if (u(a[1]) >= width)
                return std::nullopt;
              if (left)
                return static_cast<int64_t>(u(a[0]) << u(a[1]));
              return arithmetic ? a[0] >> u(a[1])
                                : static_cast<int64_t>(u(a[0]) >> u(a[1]));
            };
          })
      .Case<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(
          [](auto) -> Interpreter {
            return [](ArrayRef<int64_t> a) -> Result { return a[0]; };
          })
      .Case<arith::IndexCastUIOp, arith::ExtUIOp>([&](auto) -> Interpreter {
        return [=](ArrayRef<int64_t> a) -> Result {
          return static_cast<int64_t>(u(a[0]));
        };
      })
      .Case([](arith::SelectOp) -> Interpreter {
        return [](ArrayRef<int64_t> a) -> Result { return a[0] ? a[1] : a[2]; };
      })
      .Case([&](arith::CmpIOp cmp) -> Interpreter {
        arith::CmpIPredicate predicate = cmp.getPredicate();
        return [=](ArrayRef<int64_t> a) -> Result {
          return arith::applyCmpPredicate(predicate, APInt(width, u(a[0])),
                                          APInt(width, u(a[1])));
        };
      })
      .Default([](Operation *) { return nullptr; });
}

//===----------------------------------------------------------------------===//
// What all runs of one kernel share
//===----------------------------------------------------------------------===//

enum class EventKind { Acquire, Commit, Wait, Release };

struct Event {
  Operation *op;
  EventKind kind;
  PipeOp pipe;
  StringRef reader;
  int64_t iteration;
};

/// The partitions' structure, the releases' placements, and which values
/// are inputs.
struct Kernel {
  WarpSpecializeOp ws;
  ArrayRef<PipeUsage> usages;
  /// Ops that hold lifecycle ops, in program order, with the largest
  /// capacity of a pipe used inside each.
  llvm::MapVector<Operation *, int64_t> holders;
  DenseMap<Operation *, ReleasePlacement> placements;
  /// The releases whose free arrive follows each tle.wgmma_wait.
  DenseMap<Operation *, SmallVector<Operation *>> releasedAfter;

  /// Whether `value` is computed before the tle.warp_specialize from
  /// something the check cannot know: then the check chooses it.
  bool isInput(Value value) const {
    if (matchPattern(value, m_Constant()) || isInsidePartitions(value))
      return false;
    Operation *def = value.getDefiningOp();
    return !def || !getInterpreter(def);
  }
  bool isInsidePartitions(Value value) const {
    return ws->isAncestor(value.getParentRegion()->getParentOp());
  }
  /// The inputs `value` is computed from. Through the loop variable of an
  /// enclosing loop, those of its upper bound when `throughUpperBounds`.
  void collectInputs(Value value, bool throughUpperBounds,
                     llvm::SetVector<Value> &inputs) const;
};

void Kernel::collectInputs(Value value, bool throughUpperBounds,
                           llvm::SetVector<Value> &inputs) const {
  llvm::SetVector<Value> visited;
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!visited.insert(v) || matchPattern(v, m_Constant()))
      continue;
    if (isInput(v)) {
      inputs.insert(v);
      continue;
    }
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (throughUpperBounds && loop && arg == loop.getInductionVar())
        worklist.push_back(loop.getUpperBound());
      continue;
    }
    llvm::append_range(worklist, v.getDefiningOp()->getOperands());
  }
}

/// The values the check chose for the inputs of one run.
class Inputs {
public:
  explicit Inputs(int64_t fallback) : fallback(fallback) {}

  int64_t get(Value input) {
    used.insert(input);
    auto it = values.find(input);
    return normalize(input.getType(),
                     it == values.end() ? fallback : it->second);
  }
  /// Doubles `input`; false when it is already as large as it gets.
  bool grow(Value input) {
    int64_t &value = values.try_emplace(input, fallback).first->second;
    if (value >= kMaxInput)
      return false;
    value = std::min(std::max<int64_t>(value, 1) * 2, kMaxInput);
    return true;
  }
  /// " when argument 2 of @k = 5, ..." for the inputs a run used.
  std::string describe() {
    std::string text;
    llvm::raw_string_ostream os(text);
    for (auto [i, input] : llvm::enumerate(used))
      os << (i ? ", " : " when ") << describeValue(input) << " = "
         << get(input);
    return text;
  }

  llvm::SetVector<Value> used;

private:
  DenseMap<Value, int64_t> values;
  int64_t fallback;
};

/// Why a run stopped before its end.
struct Stop {
  enum class Kind {
    /// A value the run needs comes from an op the check cannot compute.
    Opaque,
    /// The arithmetic is undefined for these inputs (a division by zero).
    Undefined,
    /// More than kMaxSteps.
    TooLong,
    /// A lifecycle op works on a negative iteration.
    Negative,
  };
  Kind kind;
  /// The loop, branch or lifecycle op that needed the value.
  Operation *at;
  /// Opaque: the op whose result the check cannot compute.
  Operation *source = nullptr;
  int64_t iteration = 0;
};

struct RunStats {
  std::optional<Stop> stop;
  /// Per loop holding lifecycle ops: the most iterations of one execution.
  DenseMap<Operation *, int64_t> maxTrips;
  size_t steps = 0;
};

//===----------------------------------------------------------------------===//
// Unrolling a partition into events
//===----------------------------------------------------------------------===//

/// Interprets the integer arithmetic and structured control flow of one
/// partition region, recording its lifecycle ops in execution order, each
/// release where the lowering makes it take effect.
class Unroller {
public:
  Unroller(Kernel &kernel, unsigned partition, Inputs &inputs,
           std::vector<Event> &events, RunStats &stats)
      : kernel(kernel), region(kernel.ws.getPartitionRegion(partition)),
        inputs(inputs), events(events), stats(stats) {}

  LogicalResult run() { return execBlock(region.front()); }

private:
  std::optional<int64_t> tryLookup(Value value);
  /// Computes `op`'s integer result into the environment, if it can.
  std::optional<int64_t> evaluate(Operation *op);
  /// The value of `value`, or a stop at `at` naming why it is unknown.
  std::optional<int64_t> require(Value value, Operation *at);
  Stop explain(Value value, Operation *at);
  LogicalResult stopAt(Stop stop) {
    stats.stop = stop;
    return failure();
  }
  LogicalResult step(Operation *at);
  LogicalResult execBlock(Block &block);
  LogicalResult execOp(Operation *op);
  LogicalResult execLifecycle(PipeLifecycleOpInterface op);
  LogicalResult execFor(scf::ForOp loop);
  LogicalResult execWhile(scf::WhileOp loop);
  LogicalResult execIf(scf::IfOp branch);
  LogicalResult emitDeferredReleases(Operation *wait);
  void bind(ValueRange targets, ValueRange sources);
  LogicalResult record(Event event);

  Kernel &kernel;
  Region &region;
  Inputs &inputs;
  std::vector<Event> &events;
  RunStats &stats;
  DenseMap<Value, int64_t> env;
  /// Loops being executed, innermost last.
  SmallVector<Operation *> loops;
  /// Releases waiting for a tle.wgmma_wait later in their block.
  DenseMap<Operation *, SmallVector<Event>> pendingAfterWait;
  /// Releases the loop carries: the iteration released by the previous
  /// iteration (visible in this one), by this one, and by the last.
  DenseMap<Operation *, std::optional<int64_t>> carriedIn, carriedOut,
      afterLoop;
};

std::optional<int64_t> Unroller::tryLookup(Value value) {
  if (auto it = env.find(value); it != env.end())
    return it->second;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return normalize(value.getType(), constant.getSExtValue());
  if (kernel.isInsidePartitions(value))
    return std::nullopt;
  if (kernel.isInput(value))
    return inputs.get(value);
  return evaluate(value.getDefiningOp());
}

std::optional<int64_t> Unroller::evaluate(Operation *op) {
  Interpreter interpret = getInterpreter(op);
  if (!interpret)
    return std::nullopt;
  SmallVector<int64_t> args;
  for (Value operand : op->getOperands()) {
    std::optional<int64_t> v = tryLookup(operand);
    if (!v)
      return std::nullopt;
    args.push_back(*v);
  }
  std::optional<int64_t> result = interpret(args);
  if (!result)
    return std::nullopt;
  Value value = op->getResult(0);
  return env[value] = normalize(value.getType(), *result);
}

Stop Unroller::explain(Value value, Operation *at) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return {Stop::Kind::Opaque, at,
            cast<BlockArgument>(value).getOwner()->getParentOp()};
  if (!getInterpreter(def))
    return {Stop::Kind::Opaque, at, def};
  for (Value operand : def->getOperands())
    if (!tryLookup(operand))
      return explain(operand, at);
  return {Stop::Kind::Undefined, at, def};
}

std::optional<int64_t> Unroller::require(Value value, Operation *at) {
  std::optional<int64_t> v = tryLookup(value);
  if (!v)
    stats.stop = explain(value, at);
  return v;
}

void Unroller::bind(ValueRange targets, ValueRange sources) {
  for (auto [target, source] : llvm::zip(targets, sources)) {
    if (std::optional<int64_t> v = tryLookup(source))
      env[target] = *v;
    else
      env.erase(target);
  }
}

LogicalResult Unroller::step(Operation *at) {
  if (++stats.steps <= kMaxSteps)
    return success();
  return stopAt({Stop::Kind::TooLong, loops.empty() ? at : loops.back()});
}

LogicalResult Unroller::record(Event event) {
  events.push_back(event);
  return step(event.op);
}

LogicalResult Unroller::execLifecycle(PipeLifecycleOpInterface op) {
  int64_t iteration = 0;
  if (Value iter = op.getIteration()) {
    std::optional<int64_t> v = require(iter, op);
    if (!v)
      return failure();
    if (*v < 0)
      return stopAt({Stop::Kind::Negative, op, nullptr, *v});
    iteration = *v;
  }
  EventKind kind = llvm::TypeSwitch<Operation *, EventKind>(op)
                       .Case([](AcquireOp) { return EventKind::Acquire; })
                       .Case([](CommitOp) { return EventKind::Commit; })
                       .Case([](WaitOp) { return EventKind::Wait; })
                       .Default([](Operation *) { return EventKind::Release; });
  StringAttr reader = op.getReaderAttr();
  Event event{op, kind, op.getPipeOp(),
              reader ? reader.getValue() : StringRef(), iteration};
  if (kind != EventKind::Release)
    return record(event);
  const ReleasePlacement &placement = kernel.placements.find(op)->second;
  switch (placement.kind) {
  case ReleasePlacement::Kind::AtRelease:
    return record(event);
  case ReleasePlacement::Kind::AfterWait:
    pendingAfterWait[placement.wait].push_back(event);
    return success();
  case ReleasePlacement::Kind::NextIteration:
    carriedOut[op] = iteration;
    return success();
  }
  llvm_unreachable("unknown placement");
}

LogicalResult Unroller::emitDeferredReleases(Operation *wait) {
  auto it = kernel.releasedAfter.find(wait);
  if (it == kernel.releasedAfter.end())
    return success();
  SmallVector<Event> due = pendingAfterWait.lookup(wait);
  pendingAfterWait.erase(wait);
  for (Operation *release : it->second) {
    const ReleasePlacement &placement = kernel.placements.find(release)->second;
    if (placement.kind != ReleasePlacement::Kind::NextIteration)
      continue;
    std::optional<int64_t> iteration;
    if (placement.wait == wait)
      iteration = carriedIn.lookup(release);
    if (placement.afterLoop == wait)
      iteration = afterLoop.lookup(release);
    if (!iteration)
      continue;
    auto lifecycle = cast<PipeLifecycleOpInterface>(release);
    due.push_back({release, EventKind::Release, lifecycle.getPipeOp(),
                   lifecycle.getReaderAttr().getValue(), *iteration});
  }
  for (Event &event : due)
    if (failed(record(event)))
      return failure();
  return success();
}

LogicalResult Unroller::execFor(scf::ForOp loop) {
  std::optional<int64_t> lb = require(loop.getLowerBound(), loop);
  std::optional<int64_t> ub =
      lb ? require(loop.getUpperBound(), loop) : std::nullopt;
  std::optional<int64_t> stepSize =
      ub ? require(loop.getStep(), loop) : std::nullopt;
  if (!stepSize)
    return failure();
  if (*stepSize <= 0)
    return stopAt({Stop::Kind::Undefined, loop, loop});
  SmallVector<Operation *> carried;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto it = kernel.placements.find(&op);
        it != kernel.placements.end() &&
        it->second.kind == ReleasePlacement::Kind::NextIteration) {
      carried.push_back(&op);
      carriedIn[&op] = std::nullopt;
    }
  bind(loop.getRegionIterArgs(), loop.getInitArgs());
  loops.push_back(loop);
  int64_t trips = 0;
  for (int64_t iv = *lb; iv < *ub; ++trips) {
    if (failed(step(loop)))
      return failure();
    env[loop.getInductionVar()] = iv;
    if (failed(execBlock(*loop.getBody())))
      return failure();
    bind(loop.getRegionIterArgs(), loop.getYieldedValues());
    for (Operation *release : carried)
      carriedIn[release] = carriedOut.lookup(release);
    if (llvm::AddOverflow(iv, *stepSize, iv))
      break;
  }
  loops.pop_back();
  int64_t &most = stats.maxTrips[loop];
  most = std::max(most, trips);
  bind(loop.getResults(), loop.getRegionIterArgs());
  for (Operation *release : carried)
    afterLoop[release] = carriedIn.lookup(release);
  return success();
}

LogicalResult Unroller::execWhile(scf::WhileOp loop) {
  bind(loop.getBeforeArguments(), loop.getInits());
  loops.push_back(loop);
  scf::ConditionOp condition = loop.getConditionOp();
  int64_t trips = 0;
  while (true) {
    if (failed(execBlock(loop.getBefore().front())))
      return failure();
    std::optional<int64_t> proceed = require(condition.getCondition(), loop);
    if (!proceed)
      return failure();
    if (!*proceed)
      break;
    ++trips;
    if (failed(step(loop)))
      return failure();
    bind(loop.getAfterArguments(), condition.getArgs());
    if (failed(execBlock(loop.getAfter().front())))
      return failure();
    bind(loop.getBeforeArguments(), loop.getYieldOp().getOperands());
  }
  loops.pop_back();
  int64_t &most = stats.maxTrips[loop];
  most = std::max(most, trips);
  bind(loop.getResults(), condition.getArgs());
  return success();
}

LogicalResult Unroller::execIf(scf::IfOp branch) {
  std::optional<int64_t> condition = require(branch.getCondition(), branch);
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
  if (auto lifecycle = dyn_cast<PipeLifecycleOpInterface>(op))
    return execLifecycle(lifecycle);
  if (kernel.holders.contains(op))
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case([&](scf::ForOp loop) { return execFor(loop); })
        .Case([&](scf::WhileOp loop) { return execWhile(loop); })
        .Case([&](scf::IfOp branch) { return execIf(branch); })
        .Default([&](Operation *) {
          return stopAt({Stop::Kind::Opaque, op, op});
        });
  if (isa<WgmmaWaitOp>(op))
    return emitDeferredReleases(op);
  // Values the check cannot compute stay unknown until something needs
  // them.
  (void)evaluate(op);
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

/// The barrier state of one pipe, as the hardware would hold it, for the
/// slots used so far: the memory grows with the events, not the capacity.
struct RingState {
  struct Slot {
    /// Completed phases of the full barrier and of each free barrier, and
    /// which readers arrived in each free barrier's current phase.
    int64_t fullPhases = 0;
    SmallVector<int64_t> freePhases;
    SmallVector<SmallVector<bool>> arrived;
  };

  PipeOp pipe;
  int64_t capacity;
  SmallVector<FieldGroup> groups;
  SmallVector<StringRef> readers;
  DenseMap<int64_t, Slot> slots;
  /// Iterations committed, and waited for by each reader.
  int64_t commits = 0;
  SmallVector<int64_t> waits;

  explicit RingState(PipeOp pipe)
      : pipe(pipe), capacity(pipe.getCapacityAttr().getInt()),
        groups(groupFieldsByReaders(pipe)) {
    for (auto reader : pipe.getReaders().getAsRange<ReaderAttr>())
      readers.push_back(reader.getName().getValue());
    waits.assign(readers.size(), 0);
  }

  Slot &slotOf(int64_t iteration) {
    auto [it, inserted] = slots.try_emplace(iteration % capacity);
    if (inserted) {
      it->second.freePhases.assign(groups.size(), 0);
      it->second.arrived.assign(groups.size(),
                                SmallVector<bool>(readers.size(), false));
    }
    return it->second;
  }
  int64_t parityOf(int64_t iteration) {
    return pipe.getOneShot() ? 0 : (iteration / capacity) & 1;
  }
  unsigned readerIndex(StringRef reader) const {
    return llvm::find(readers, reader) - readers.begin();
  }

  /// mbarrier.try_wait.parity P succeeds once the phase with parity P has
  /// completed, i.e. while the current phase's parity differs from P.
  bool canProceed(const Event &e) {
    Slot &slot = slotOf(e.iteration);
    int64_t parity = parityOf(e.iteration);
    if (e.kind == EventKind::Wait)
      return (slot.fullPhases & 1) != parity;
    if (e.kind == EventKind::Acquire)
      return llvm::all_of(slot.freePhases, [&](int64_t phases) {
        return (phases & 1) != (parity ^ 1);
      });
    return true;
  }

  void apply(const Event &e) {
    Slot &slot = slotOf(e.iteration);
    if (e.kind == EventKind::Commit) {
      ++slot.fullPhases;
      ++commits;
    }
    if (e.kind == EventKind::Wait)
      ++waits[readerIndex(e.reader)];
    if (e.kind != EventKind::Release)
      return;
    unsigned reader = readerIndex(e.reader);
    for (auto [g, group] : llvm::enumerate(groups)) {
      if (!llvm::is_contained(group.readers, reader))
        continue;
      SmallVector<bool> &arrived = slot.arrived[g];
      arrived[reader] = true;
      if (llvm::all_of(group.readers, [&](unsigned r) { return arrived[r]; })) {
        ++slot.freePhases[g];
        arrived.assign(arrived.size(), false);
      }
    }
  }

  /// Readers whose release the acquire of `e` still needs.
  SmallVector<StringRef> missingReleases(const Event &e) {
    Slot &slot = slotOf(e.iteration);
    SmallVector<StringRef> missing;
    for (auto [g, group] : llvm::enumerate(groups))
      for (unsigned r : group.readers)
        if (!slot.arrived[g][r] && !llvm::is_contained(missing, readers[r]))
          missing.push_back(readers[r]);
    return missing;
  }
};

class Simulation {
public:
  Simulation(Kernel &kernel, std::vector<std::vector<Event>> events)
      : kernel(kernel), ws(kernel.ws), events(std::move(events)),
        pcs(this->events.size(), 0) {
    for (const PipeUsage &usage : kernel.usages)
      rings.insert({usage.pipe, RingState(usage.pipe)});
  }

  /// Runs until every partition finishes (true) or none can move (false).
  bool run();
  /// Reports the blocked state after run() returned false.
  void reportDeadlock(StringRef qualifier);
  /// Reports a pipe whose writer and a reader count different iterations
  /// after run() returned true; fails if there is one.
  LogicalResult checkCounts(StringRef qualifier);

private:
  const PipeUsage &usageOf(PipeOp pipe) {
    return *llvm::find_if(kernel.usages,
                          [&](const PipeUsage &u) { return u.pipe == pipe; });
  }
  bool finished(unsigned p) { return pcs[p] == events[p].size(); }
  /// The partitions the blocked event of `p` waits for.
  SmallVector<unsigned> blockers(unsigned p);
  std::string describe(unsigned p);

  Kernel &kernel;
  WarpSpecializeOp ws;
  std::vector<std::vector<Event>> events;
  SmallVector<size_t> pcs;
  llvm::MapVector<Operation *, RingState> rings;
};

bool Simulation::run() {
  bool progress = true;
  while (progress) {
    progress = false;
    for (unsigned p = 0; p < events.size(); ++p) {
      while (!finished(p)) {
        const Event &e = events[p][pcs[p]];
        RingState &ring = rings.find(e.pipe)->second;
        if (!ring.canProceed(e))
          break;
        ring.apply(e);
        ++pcs[p];
        progress = true;
      }
    }
  }
  return llvm::all_of(llvm::seq<unsigned>(0, events.size()),
                      [&](unsigned p) { return finished(p); });
}

SmallVector<unsigned> Simulation::blockers(unsigned p) {
  const Event &e = events[p][pcs[p]];
  const PipeUsage &usage = usageOf(e.pipe);
  if (e.kind == EventKind::Wait)
    return {*usage.getWriterPartition()};
  SmallVector<unsigned> result;
  for (StringRef reader : rings.find(e.pipe)->second.missingReleases(e))
    if (std::optional<unsigned> q = usage.getReaderPartition(reader))
      result.push_back(*q);
  return result;
}

std::string Simulation::describe(unsigned p) {
  Event e = events[p][pcs[p]];
  RingState &ring = rings.find(e.pipe)->second;
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
  os << "waits to acquire iteration " << e.iteration << " of pipe '"
     << e.pipe.getName() << "' (slot " << e.iteration % ring.capacity
     << "), which needs iteration " << e.iteration - ring.capacity
     << " released by ";
  llvm::interleave(
      ring.missingReleases(e), os,
      [&](StringRef reader) {
        os << "reader '" << reader << "'";
        std::optional<unsigned> q = usage.getReaderPartition(reader);
        if (q && finished(*q))
          os << " (partition '" << ws.getPartitionLabel(*q)
             << "' has finished)";
        if (!q)
          return;
        // Name where a deferred release takes effect: that, not where it
        // is written, is what the writer waits for.
        for (PipeLifecycleOpInterface op : usage.opsByPartition.lookup(*q)) {
          auto it = kernel.placements.find(op);
          if (it != kernel.placements.end() &&
              it->second.kind != ReleasePlacement::Kind::AtRelease) {
            os << ", whose release takes effect only after "
               << describeOp(it->second.wait)
               << " retires the tle.wgmma reading the slot";
            return;
          }
        }
      },
      ", ");
  return text;
}

void Simulation::reportDeadlock(StringRef qualifier) {
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

LogicalResult Simulation::checkCounts(StringRef qualifier) {
  for (auto &[op, ring] : rings) {
    if (ring.pipe.getOneShot())
      continue;
    for (auto [reader, waits] : llvm::zip(ring.readers, ring.waits)) {
      if (waits == ring.commits)
        continue;
      auto iterations = [](int64_t n) {
        return std::to_string(n) + (n == 1 ? " iteration" : " iterations");
      };
      return ring.pipe.emitError("the writer of pipe '")
             << ring.pipe.getName() << "' commits " << iterations(ring.commits)
             << " but reader '" << reader << "' waits for " << iterations(waits)
             << qualifier
             << (waits < ring.commits
                     ? "; the iterations it skips are never read"
                     : "; it waits for iterations never committed");
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Choosing inputs
//===----------------------------------------------------------------------===//

class Checker {
public:
  Checker(WarpSpecializeOp ws, ArrayRef<PipeUsage> usages, bool strict)
      : kernel{ws, usages, {}, {}, {}}, strict(strict) {}

  LogicalResult check();

private:
  LogicalResult collect();
  enum class Outcome { Passed, Failed, Stopped };
  /// One run: unrolls every partition, runs the events, and reports what
  /// it finds.
  Outcome run(Inputs &inputs, RunStats &stats);
  LogicalResult reportStop(const Stop &stop, Inputs &inputs);
  /// One run: a result when it decides the check (an error, a report),
  /// nullopt to go on.
  std::optional<LogicalResult> attempt(Inputs &inputs, RunStats &stats);
  /// Runs with every input 0, then 1; a result when they decide the check.
  std::optional<LogicalResult> checkSmallInputs();
  /// Runs with inputs grown until every loop wraps its rings.
  LogicalResult checkLongRuns();
  /// The loops whose trip count depends on inputs that ran fewer than
  /// `target` times, or fewer than the capacity of their pipes plus one.
  SmallVector<Operation *> shortLoops(const RunStats &stats, int64_t target);
  /// Grows the inputs that lengthen `loops`; false when none can grow.
  bool lengthen(ArrayRef<Operation *> loops, Inputs &inputs);

  Kernel kernel;
  bool strict;
};

LogicalResult Checker::collect() {
  DenseMap<Operation *, int64_t> capacities;
  for (const PipeUsage &usage : kernel.usages) {
    int64_t capacity = PipeOp(usage.pipe).getCapacityAttr().getInt();
    for (auto &entry : usage.opsByPartition)
      for (PipeLifecycleOpInterface op : entry.second)
        for (Operation *a = op->getParentOp(); a && a != kernel.ws;
             a = a->getParentOp()) {
          int64_t &most = capacities[a];
          most = std::max(most, capacity);
        }
  }
  kernel.ws->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto it = capacities.find(op); it != capacities.end())
      kernel.holders.insert({op, it->second});
  });
  WalkResult result = kernel.ws->walk([&](ReleaseOp release) {
    FailureOr<ReleasePlacement> placement = placeRelease(release);
    if (failed(placement))
      return WalkResult::interrupt();
    kernel.placements[release] = *placement;
    if (placement->kind != ReleasePlacement::Kind::AtRelease)
      kernel.releasedAfter[placement->wait].push_back(release);
    if (placement->kind == ReleasePlacement::Kind::NextIteration)
      kernel.releasedAfter[placement->afterLoop].push_back(release);
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

Checker::Outcome Checker::run(Inputs &inputs, RunStats &stats) {
  WarpSpecializeOp ws = kernel.ws;
  std::vector<std::vector<Event>> events(ws.getNumPartitions());
  for (unsigned p = 0; p < ws.getNumPartitions(); ++p) {
    if (succeeded(Unroller(kernel, p, inputs, events[p], stats).run()))
      continue;
    if (stats.stop->kind != Stop::Kind::Negative)
      return Outcome::Stopped;
    auto op = cast<PipeLifecycleOpInterface>(stats.stop->at);
    op->emitError() << op.describeSide() << " of pipe '"
                    << op.getPipeOp().getName() << "' works on iteration "
                    << stats.stop->iteration << inputs.describe()
                    << "; iterations must not be negative: slot and parity "
                       "of a negative iteration are those of another, so "
                       "the barrier may pass before the slot is ready";
    return Outcome::Failed;
  }
  std::string qualifier = inputs.describe();
  Simulation simulation(kernel, std::move(events));
  if (!simulation.run()) {
    simulation.reportDeadlock(qualifier);
    return Outcome::Failed;
  }
  return failed(simulation.checkCounts(qualifier)) ? Outcome::Failed
                                                   : Outcome::Passed;
}

LogicalResult Checker::reportStop(const Stop &stop, Inputs &inputs) {
  std::optional<unsigned> partition = kernel.ws.getPartitionOf(stop.at);
  std::string where =
      partition
          ? " in partition '" + kernel.ws.getPartitionLabel(*partition) + "'"
          : "";
  InFlightDiagnostic diag = emitUnproven(stop.at, strict);
  if (stop.kind == Stop::Kind::TooLong) {
    diag << "the protocol check stopped simulating this " << stop.at->getName()
         << where << " after " << kMaxSteps << " steps" << inputs.describe()
         << "; deadlock freedom is not proven for the kernel";
    return failure(strict);
  }
  diag << "the protocol check cannot simulate this " << stop.at->getName()
       << where << ": it depends on " << describeOp(stop.source)
       << ", whose value the check cannot know; deadlock freedom is not "
          "proven for the kernel (compute the value before "
          "tle.warp_specialize, where the check chooses it)";
  diag.attachNote(stop.source->getLoc()) << "the value comes from here";
  return failure(strict);
}

SmallVector<Operation *> Checker::shortLoops(const RunStats &stats,
                                             int64_t target) {
  SmallVector<Operation *> result;
  for (auto &[op, capacity] : kernel.holders) {
    llvm::SetVector<Value> inputs;
    if (auto loop = dyn_cast<scf::ForOp>(op))
      for (Value bound :
           {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
        kernel.collectInputs(bound, /*throughUpperBounds=*/true, inputs);
    else if (auto loop = dyn_cast<scf::WhileOp>(op))
      kernel.collectInputs(loop.getConditionOp().getCondition(),
                           /*throughUpperBounds=*/true, inputs);
    int64_t trips = stats.maxTrips.lookup(op);
    if (!inputs.empty() && (trips < capacity + 1 || trips < target))
      result.push_back(op);
  }
  return result;
}

bool Checker::lengthen(ArrayRef<Operation *> loops, Inputs &inputs) {
  llvm::SetVector<Value> grow;
  for (Operation *op : loops) {
    llvm::SetVector<Value> upper, lower;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      kernel.collectInputs(loop.getUpperBound(), true, upper);
      kernel.collectInputs(loop.getLowerBound(), false, lower);
    } else {
      kernel.collectInputs(
          cast<scf::WhileOp>(op).getConditionOp().getCondition(), true, upper);
    }
    for (Value input : upper)
      if (!lower.contains(input))
        grow.insert(input);
  }
  bool grown = false;
  for (Value input : grow)
    grown |= inputs.grow(input);
  return grown;
}

std::optional<LogicalResult> Checker::attempt(Inputs &inputs, RunStats &stats) {
  Outcome outcome = run(inputs, stats);
  if (outcome == Outcome::Failed)
    return failure();
  if (outcome == Outcome::Stopped && stats.stop->kind != Stop::Kind::Undefined)
    return reportStop(*stats.stop, inputs);
  return std::nullopt;
}

std::optional<LogicalResult> Checker::checkSmallInputs() {
  std::optional<Stop> undefined;
  bool passed = false;
  for (int64_t fallback : {0, 1}) {
    Inputs inputs(fallback);
    RunStats stats;
    if (std::optional<LogicalResult> result = attempt(inputs, stats))
      return result;
    // Without inputs the run was the kernel's only behaviour.
    if (inputs.used.empty() && !stats.stop)
      return success();
    passed |= !stats.stop;
    if (stats.stop)
      undefined = stats.stop;
    if (inputs.used.empty())
      break;
  }
  if (passed)
    return std::nullopt;
  emitUnproven(undefined->at, strict)
      << "the protocol check cannot simulate this " << undefined->at->getName()
      << ": it divides by zero or overflows for every input tried; deadlock "
         "freedom is not proven for the kernel";
  return failure(strict);
}

LogicalResult Checker::checkLongRuns() {
  // Every loop long enough to fill every ring and wrap it, once and then
  // twice: a cycle through several pipes can wait until all of them are
  // full.
  int64_t slots = 0;
  for (const PipeUsage &usage : kernel.usages)
    slots += PipeOp(usage.pipe).getCapacityAttr().getInt();
  SmallVector<Operation *> uncovered;
  for (int64_t laps : {1, 2}) {
    Inputs inputs(laps * slots + 1);
    RunStats stats;
    for (int round = 0; round < kMaxGrowthRounds; ++round) {
      stats = RunStats();
      if (std::optional<LogicalResult> result = attempt(inputs, stats))
        return *result;
      SmallVector<Operation *> tooShort = shortLoops(stats, laps * slots + 1);
      if (tooShort.empty() || !lengthen(tooShort, inputs))
        break;
    }
    // What the check owes every loop is its own capacity plus one.
    if (laps == 1)
      uncovered = shortLoops(stats, 0);
  }
  for (Operation *loop : uncovered) {
    std::optional<unsigned> partition = kernel.ws.getPartitionOf(loop);
    emitUnproven(loop, strict)
        << "the protocol check found no inputs for which this "
        << loop->getName() << " in partition '"
        << kernel.ws.getPartitionLabel(*partition) << "' runs "
        << kernel.holders.lookup(loop) + 1
        << " times (the capacity of its pipes, plus one); deadlock freedom "
           "is not proven for longer runs";
  }
  return failure(strict && !uncovered.empty());
}

LogicalResult Checker::check() {
  if (failed(collect()))
    return failure();
  // Small inputs first: empty loops, single iterations, i - 1 at i = 0.
  if (std::optional<LogicalResult> result = checkSmallInputs())
    return *result;
  return checkLongRuns();
}

} // namespace

LogicalResult tle::simulateProtocol(WarpSpecializeOp ws,
                                    ArrayRef<PipeUsage> usages, bool strict) {
  return Checker(ws, usages, strict).check();
}
