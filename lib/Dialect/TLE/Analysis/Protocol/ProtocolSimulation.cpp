//===- ProtocolSimulation.cpp - Choose inputs, run the kernel, report -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/ProtocolSimulation.h"
#include "tle/Dialect/TLE/Analysis/Protocol/IntegerRanges.h"
#include "tle/Dialect/TLE/Analysis/Protocol/ProtocolRun.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::protocol;

namespace {

/// How often the inputs may double while the check lengthens loops.
constexpr int kMaxGrowthRounds = 48;
/// Conditions the check chooses (i1 inputs: a comparison of floats, a flag
/// argument) are tried in every combination of 0 and 1 up to this many;
/// more are tried all 0 and all 1 only, and the check says so.
constexpr unsigned kMaxConditions = 3;

class Checker {
public:
  Checker(WarpSpecializeOp ws, ArrayRef<PipeUsage> usages,
          ArrayRef<TokenUsage> tokens, bool strict,
          function_ref<void(StringRef)> observe)
      : kernel(ws, usages, tokens), strict(strict), observe(observe) {}

  LogicalResult check();

private:
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
  /// Runs with inputs grown until every loop wraps its rings, each
  /// condition at 0 and at 1, and each loop step at every value up to the
  /// total capacity plus one.
  LogicalResult checkLongRuns();
  /// Grows `inputs` until every loop holding pipe operations runs `target`
  /// times (or no input can grow); a result when a run decides the check.
  std::optional<LogicalResult> lengthenRuns(Inputs &inputs, int64_t target,
                                            RunStats &stats);
  /// Runs `inputs` again with each input of a loop step at 1 .. `slots` +
  /// 1: a step that skips laps of a slot shows only for some values.
  LogicalResult exploreSteps(const Inputs &inputs, int64_t slots);
  /// The assignments of 0 and 1 to `conditions` the check tries.
  SmallVector<SmallVector<int64_t>>
  chooseConditions(ArrayRef<Value> conditions);
  /// The inputs a loop's trip count depends on (`all`), and those the
  /// check grows to lengthen it (`grown`): those its upper bound, or an
  /// scf.while's condition, depends on and its lower bound does not.
  struct LoopInputs {
    llvm::SetVector<Value> all, grown;
  };
  LoopInputs getLoopInputs(Operation *loop) const;
  /// The loops whose trip count depends on inputs that ran fewer than
  /// `target` times, or fewer than the capacity of their pipes plus one.
  SmallVector<Operation *> shortLoops(const RunStats &stats, int64_t target);
  /// Grows the inputs that lengthen `loops`; false when none can grow.
  bool lengthen(ArrayRef<Operation *> loops, Inputs &inputs);
  /// Keeps, over all runs, the most iterations of each loop and the
  /// largest value of each input.
  void recordRun(Inputs &inputs, const RunStats &stats);
  /// The warning for a loop that no run made run the capacity of its pipes
  /// plus one times: which inputs bound it, that the check chooses them,
  /// why they did not lengthen it, and what the author can write instead.
  void reportShortLoop(Operation *loop);

  Kernel kernel;
  bool strict;
  function_ref<void(StringRef)> observe;
  DenseMap<Operation *, int64_t> longestRuns;
  DenseMap<Value, int64_t> largestInputs;
};

Checker::Outcome Checker::run(Inputs &inputs, RunStats &stats) {
  auto report = llvm::make_scope_exit([&] {
    recordRun(inputs, stats);
    if (observe)
      observe(inputs.describe());
  });
  WarpSpecializeOp ws = kernel.ws;
  std::vector<std::vector<Event>> events(ws.getNumPartitions());
  for (unsigned p = 0; p < ws.getNumPartitions(); ++p) {
    if (succeeded(unrollPartition(kernel, p, inputs, events[p], stats)))
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
  return failed(runAgainstBarriers(kernel, events, inputs.describe()))
             ? Outcome::Failed
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

Checker::LoopInputs Checker::getLoopInputs(Operation *op) const {
  LoopInputs inputs;
  llvm::SetVector<Value> upper, lower;
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    kernel.collectInputs(loop.getUpperBound(), true, upper);
    kernel.collectInputs(loop.getLowerBound(), false, lower);
    for (Value bound : {loop.getLowerBound(), loop.getStep()})
      kernel.collectInputs(bound, /*throughUpperBounds=*/true, inputs.all);
  } else if (auto loop = dyn_cast<scf::WhileOp>(op)) {
    kernel.collectInputs(loop.getConditionOp().getCondition(), true, upper);
  }
  inputs.all.insert(upper.begin(), upper.end());
  for (Value input : upper)
    if (!lower.contains(input) && !input.getType().isInteger(1))
      inputs.grown.insert(input);
  return inputs;
}

SmallVector<Operation *> Checker::shortLoops(const RunStats &stats,
                                             int64_t target) {
  SmallVector<Operation *> result;
  for (auto &[op, capacity] : kernel.holders) {
    int64_t trips = stats.maxTrips.lookup(op);
    if (!getLoopInputs(op).all.empty() &&
        (trips < capacity + 1 || trips < target))
      result.push_back(op);
  }
  return result;
}

bool Checker::lengthen(ArrayRef<Operation *> loops, Inputs &inputs) {
  llvm::SetVector<Value> grow;
  for (Operation *op : loops) {
    LoopInputs bounds = getLoopInputs(op);
    grow.insert(bounds.grown.begin(), bounds.grown.end());
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

std::optional<LogicalResult>
Checker::lengthenRuns(Inputs &inputs, int64_t target, RunStats &stats) {
  for (int round = 0; round < kMaxGrowthRounds; ++round) {
    stats = RunStats();
    if (std::optional<LogicalResult> result = attempt(inputs, stats))
      return result;
    SmallVector<Operation *> tooShort = shortLoops(stats, target);
    if (tooShort.empty() || !lengthen(tooShort, inputs))
      break;
  }
  return std::nullopt;
}

LogicalResult Checker::exploreSteps(const Inputs &inputs, int64_t slots) {
  llvm::SetVector<Value> steps;
  for (auto &[op, capacity] : kernel.holders)
    if (auto loop = dyn_cast<scf::ForOp>(op))
      kernel.collectInputs(loop.getStep(), /*throughUpperBounds=*/false, steps);
  for (Value step : steps) {
    if (step.getType().isInteger(1))
      continue;
    for (int64_t value = 1; value <= slots + 1; ++value) {
      Inputs tried = inputs.with(step, value);
      RunStats stats;
      // A run that stops early (too long, a division by zero) is no
      // error: the runs before it reported what the check cannot simulate.
      if (run(tried, stats) == Outcome::Failed)
        return failure();
    }
  }
  return success();
}

SmallVector<SmallVector<int64_t>>
Checker::chooseConditions(ArrayRef<Value> conditions) {
  SmallVector<SmallVector<int64_t>> choices;
  if (conditions.size() > kMaxConditions) {
    for (int64_t value : {0, 1})
      choices.push_back(SmallVector<int64_t>(conditions.size(), value));
    return choices;
  }
  for (unsigned mask = 0; mask < (1u << conditions.size()); ++mask) {
    SmallVector<int64_t> choice;
    for (unsigned c = 0; c < conditions.size(); ++c)
      choice.push_back((mask >> c) & 1);
    choices.push_back(choice);
  }
  return choices;
}

LogicalResult Checker::checkLongRuns() {
  // Every loop long enough to fill every ring and wrap it, once and then
  // twice: a cycle through several pipes can wait until all of them are
  // full.
  int64_t slots = 0;
  for (const PipeUsage &usage : kernel.usages)
    slots += PipeOp(usage.pipe).getCapacityAttr().getInt();
  slots += static_cast<int64_t>(kernel.tokens.size());
  Inputs first(slots + 1);
  RunStats stats;
  if (std::optional<LogicalResult> result =
          lengthenRuns(first, slots + 1, stats))
    return *result;
  // What the check owes every loop is its own capacity plus one.
  SmallVector<Operation *> uncovered = shortLoops(stats, 0);
  if (failed(exploreSteps(first, slots)))
    return failure();
  SmallVector<Value> conditions;
  for (Value input : first.used)
    if (input.getType().isInteger(1))
      conditions.push_back(input);
  for (int64_t laps : {1, 2})
    for (ArrayRef<int64_t> choice : chooseConditions(conditions)) {
      // The first run tried the conditions at what the fallback gives.
      if (laps == 1 && llvm::all_of(choice, [&](int64_t value) {
            return value == ((slots + 1) & 1);
          }))
        continue;
      Inputs inputs(laps * slots + 1);
      for (auto [condition, value] : llvm::zip(conditions, choice))
        inputs.set(condition, value);
      if (std::optional<LogicalResult> result =
              lengthenRuns(inputs, laps * slots + 1, stats))
        return *result;
      if (laps != 1)
        continue;
      SmallVector<Operation *> stillShort = shortLoops(stats, 0);
      llvm::erase_if(uncovered, [&](Operation *loop) {
        return !llvm::is_contained(stillShort, loop);
      });
    }
  if (conditions.size() > kMaxConditions)
    emitUnproven(conditions.front().getDefiningOp()
                     ? conditions.front().getDefiningOp()
                     : kernel.ws.getOperation(),
                 strict)
        << "the protocol check tried the " << conditions.size()
        << " conditions it cannot compute before tle.warp_specialize ("
        << describeValue(conditions.front())
        << " and others) all 0 and all 1, not in every combination; "
           "deadlock freedom is not proven for the others";
  for (Operation *loop : uncovered)
    reportShortLoop(loop);
  return failure(strict &&
                 (!uncovered.empty() || conditions.size() > kMaxConditions));
}

void Checker::recordRun(Inputs &inputs, const RunStats &stats) {
  for (auto [loop, trips] : stats.maxTrips) {
    int64_t &most = longestRuns[loop];
    most = std::max(most, trips);
  }
  for (Value input : inputs.used) {
    auto [it, inserted] = largestInputs.try_emplace(input, inputs.get(input));
    it->second = std::max(it->second, inputs.get(input));
  }
}

/// "the gpu.block_id at line 7 and argument 0 of @k".
static void describeInputs(InFlightDiagnostic &diag,
                           const llvm::SetVector<Value> &inputs,
                           function_ref<void(Value)> suffix = {}) {
  for (auto [i, input] : llvm::enumerate(inputs)) {
    diag << (i == 0                   ? ""
             : i + 1 == inputs.size() ? " and "
                                      : ", ")
         << describeValue(input);
    if (suffix)
      suffix(input);
  }
}

/// The most iterations `loop` can make for any input, by the integer
/// ranges of its bounds, when that is fewer than `wanted`; and the upper
/// bound's maximum that keeps it so.
static std::optional<int64_t> getCappedUpperBound(Operation *loop,
                                                  int64_t wanted) {
  auto forOp = dyn_cast<scf::ForOp>(loop);
  if (!forOp)
    return std::nullopt;
  IntegerRanges ranges(loop->getParentOfType<FunctionOpInterface>());
  std::optional<ConstantIntRanges> lb = ranges.getRange(forOp.getLowerBound());
  std::optional<ConstantIntRanges> ub = ranges.getRange(forOp.getUpperBound());
  std::optional<ConstantIntRanges> step = ranges.getRange(forOp.getStep());
  if (!lb || !ub || !step || !step->smin().isStrictlyPositive())
    return std::nullopt;
  int64_t low = lb->smin().getSExtValue(), high = ub->smax().getSExtValue();
  int64_t span;
  if (llvm::SubOverflow(high, low, span) || span >= wanted)
    return std::nullopt;
  return high;
}

void Checker::reportShortLoop(Operation *loop) {
  WarpSpecializeOp ws = kernel.ws;
  int64_t wanted = kernel.holders.lookup(loop) + 1;
  LoopInputs inputs = getLoopInputs(loop);
  InFlightDiagnostic diag = emitUnproven(loop, strict);
  diag << "the protocol check found no inputs for which this "
       << loop->getName() << " in partition '"
       << ws.getPartitionLabel(*ws.getPartitionOf(loop)) << "' runs " << wanted
       << " times (the capacity of its pipes, plus one); deadlock freedom is "
          "not proven for longer runs: its trip count depends on ";
  describeInputs(diag, inputs.all);
  bool one = inputs.all.size() == 1;
  diag << (one ? ", an input" : ", inputs") << " the check chooses ("
       << (one ? "a value" : "values")
       << " computed before tle.warp_specialize from the kernel's "
          "arguments, block ids, tensor sizes or loads)";
  int64_t longest = longestRuns.lookup(loop);
  auto times = [](int64_t n) {
    return std::to_string(n) + (n == 1 ? " time" : " times");
  };
  if (inputs.grown.empty()) {
    diag << ", none of which it grows for this loop: it grows what the "
            "upper bound depends on and the lower bound does not, and the "
            "loop ran at most "
         << times(longest)
         << "; count the loop from 0 to a trip count computed from a kernel "
            "argument (`0 to %n`), which the check grows, and add the offset "
            "to the index inside the loop";
    return;
  }
  diag << "; with ";
  describeInputs(diag, inputs.grown, [&](Value input) {
    diag << " up to " << largestInputs.lookup(input);
  });
  diag << " the loop ran at most " << times(longest);
  if (std::optional<int64_t> cap = getCappedUpperBound(loop, wanted))
    diag << ", and no input makes it run " << wanted
         << " times: its upper bound ("
         << describeValue(cast<scf::ForOp>(loop).getUpperBound())
         << ") is at most " << *cap;
  diag << "; compute the trip count from a kernel argument, which the check "
          "grows, or write a loop whose trip count grows with its inputs (a "
          "limit per block as a branch inside the loop, not a clamp of its "
          "bound)";
}

LogicalResult Checker::check() {
  if (failed(kernel.prepare()))
    return failure();
  // Small inputs first: empty loops, single iterations, i - 1 at i = 0.
  if (std::optional<LogicalResult> result = checkSmallInputs())
    return *result;
  return checkLongRuns();
}

} // namespace

LogicalResult tle::simulateProtocol(WarpSpecializeOp ws,
                                    ArrayRef<PipeUsage> usages,
                                    ArrayRef<TokenUsage> tokens, bool strict,
                                    function_ref<void(StringRef)> observe) {
  return Checker(ws, usages, tokens, strict, observe).check();
}
