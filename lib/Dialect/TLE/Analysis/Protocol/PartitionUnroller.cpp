//===- PartitionUnroller.cpp - A partition as a sequence of pipe events ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Interprets the integer arithmetic and the scf control flow of one
// partition for the inputs of a run, recording its lifecycle ops in the
// order they execute, each release where tle-lower-pipes makes it take
// effect.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/ProtocolRun.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <functional>

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::protocol;

//===----------------------------------------------------------------------===//
// Integer arithmetic as the GPU computes it
//===----------------------------------------------------------------------===//
//
// A run needs the value of each integer at each iteration of each loop,
// for inputs the check has chosen: an interpreter, not MLIR's range
// analysis, which joins every iteration and every input into one interval.
// Nor the arith folders, which wrap where the run must stop instead (a sum
// that overflows is undefined, reported as such, since the counts and
// iterations are taken not to overflow).

static unsigned getWidth(Type type) {
  return type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
}

int64_t protocol::normalize(Type type, int64_t value) {
  unsigned width = getWidth(type);
  if (width == 1)
    return value & 1;
  return width >= 64 ? value : llvm::SignExtend64(value, width);
}

static uint64_t toUnsigned(Type type, int64_t value) {
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
static Interpreter getInterpreter(Operation *op) {
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
// Inputs: what the check chooses
//===----------------------------------------------------------------------===//

bool Kernel::isInput(Value value) const {
  if (matchPattern(value, m_Constant()) || isInsidePartitions(value))
    return false;
  Operation *def = value.getDefiningOp();
  return !def || !getInterpreter(def);
}

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

//===----------------------------------------------------------------------===//
// Unrolling a partition into events
//===----------------------------------------------------------------------===//

LogicalResult Kernel::prepare() {
  DenseMap<Operation *, int64_t> capacities;
  auto hold = [&](Operation *op, int64_t capacity) {
    for (Operation *a = op->getParentOp(); a && a != ws; a = a->getParentOp()) {
      int64_t &most = capacities[a];
      most = std::max(most, capacity);
    }
  };
  for (const PipeUsage &usage : usages) {
    int64_t capacity = PipeOp(usage.pipe).getCapacityAttr().getInt();
    for (auto &entry : usage.opsByPartition)
      for (PipeLifecycleOpInterface op : entry.second)
        hold(op, capacity);
  }
  // A token holds one signal: like a pipe of capacity 1.
  ws->walk([&](Operation *op) {
    if (isa<SignalOp, AwaitOp>(op))
      hold(op, 1);
  });
  ws->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto it = capacities.find(op); it != capacities.end())
      holders.insert({op, it->second});
  });
  WalkResult result = ws->walk([&](ReleaseOp release) {
    FailureOr<ReleasePlacement> placement = placeRelease(release);
    if (failed(placement))
      return WalkResult::interrupt();
    placements[release] = *placement;
    if (placement->kind != ReleasePlacement::Kind::AtRelease)
      releasedAfter[placement->wait].push_back(release);
    if (placement->kind == ReleasePlacement::Kind::NextIteration)
      releasedAfter[placement->afterLoop].push_back(release);
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

namespace {

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

} // namespace

std::optional<int64_t> Unroller::tryLookup(Value value) {
  // Only integers and indices have values here (a float or a tensor
  // carried by a loop has none, whatever defines it).
  if (!value.getType().isIntOrIndex())
    return std::nullopt;
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
  if (isa<SignalOp, AwaitOp>(op))
    return record({op, isa<SignalOp>(op) ? EventKind::Signal : EventKind::Await,
                   PipeOp(), StringRef(), 0,
                   op->getOperand(0).getDefiningOp<TokenOp>()});
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

LogicalResult protocol::unrollPartition(Kernel &kernel, unsigned partition,
                                        Inputs &inputs,
                                        std::vector<Event> &events,
                                        RunStats &stats) {
  return Unroller(kernel, partition, inputs, events, stats).run();
}
