//===- AssignPipePhases.cpp - Slot and parity of every pipe op --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Gives every lifecycle op the slot it uses and the barrier parity it waits
// for. Division is slow on the GPU and sits on the critical path of every
// hand-off, so an iteration that is the induction variable of a constant-step
// scf.for gets its (slot, lap parity) carried in iter_args and advanced by a
// compare and a select; any other iteration is divided where it is used.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tle-assign-pipe-phases"

namespace mlir::tle {
#define GEN_PASS_DEF_TLEASSIGNPIPEPHASES
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;

namespace {

/// Where an iteration falls in its pipe's ring: the slot (index), the lap
/// parity (i1) a wait waits for, and its inverse, which an acquire waits for.
struct Phase {
  Value slot;
  Value lap;
  Value freeParity;
};

/// How a carried phase moves in one loop iteration: `offset` slots
/// (offset < capacity) plus a number of whole laps, of which only the parity
/// matters. The values are constants built once before the loop.
struct Stride {
  int64_t offset;
  bool oddLaps;
  Value capacity;
  Value offsetValue;
  Value trueValue;
};

/// Records the arith ops the pass creates and tidies them at the end. Phases
/// are built eagerly and folded, which is simpler than building each piece on
/// demand but leaves unused ops and many equal constants behind.
class CreatedOps : public OpBuilder::Listener {
public:
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    // A rewrite that moves the author's ops reports where they were; only
    // ops inserted fresh are ours to tidy.
    if (!previous.isSet() && isa<arith::ArithDialect>(op->getDialect()))
      created.push_back(op);
  }

  /// Erases the unused ops and gathers the constants at the top of their
  /// function, one per value, reusing the author's where they dominate.
  void tidy(DominanceInfo &dominance);

private:
  Value findDominatingConstant(arith::ConstantOp constant, Block &entry,
                               DominanceInfo &dominance);

  SmallVector<Operation *> created;
  DenseMap<std::pair<Block *, Attribute>, Value> hoisted;
};

/// Assigns the phases of the lifecycle ops under one root.
class PhaseAssigner {
public:
  explicit PhaseAssigner(MLIRContext *ctx) : rewriter(ctx, &tracker) {}

  void run(Operation *root);

private:
  void carryAcrossLoops(ArrayRef<PipeLifecycleOpInterface> ops);
  void carry(scf::ForOp loop, ArrayRef<int64_t> capacities);
  Phase getPhase(Operation *user, Value iteration, int64_t capacity,
                 DominanceInfo &dominance);
  /// The phase of `iv + c` (c a positive constant) where the phase of the
  /// induction variable `iv` is carried: the carried one advanced by c at
  /// the start of the body, as a loop that waits one tile ahead needs.
  std::optional<Phase> getAdvancedPhase(Value iteration, int64_t capacity);
  void assign(PipeLifecycleOpInterface op, DominanceInfo &dominance);

  CreatedOps tracker;
  IRRewriter rewriter;
  /// Phases already built, by (iteration, capacity). A one_shot pipe's
  /// iteration is null. An entry is reused wherever it dominates the user.
  using PhaseKey = std::pair<Value, int64_t>;
  DenseMap<PhaseKey, Phase> phases;
};

} // namespace

/// The entry block of the closest isolated-from-above op around `op`: a
/// constant there dominates every use the pass makes of it.
static Block &getEntryBlock(Operation *op) {
  Region *region = op->getParentRegion();
  while (!region->getParentOp()->hasTrait<OpTrait::IsIsolatedFromAbove>())
    region = region->getParentRegion();
  return region->front();
}

Value CreatedOps::findDominatingConstant(arith::ConstantOp constant,
                                         Block &entry,
                                         DominanceInfo &dominance) {
  for (auto candidate : entry.getOps<arith::ConstantOp>()) {
    if (candidate == constant || candidate.getValue() != constant.getValue())
      continue;
    if (llvm::all_of(constant->getUsers(), [&](Operation *user) {
          return dominance.properlyDominates(candidate.getResult(), user);
        }))
      return candidate;
  }
  return {};
}

void CreatedOps::tidy(DominanceInfo &dominance) {
  // In reverse, so that an op is dead once its users are erased and the
  // hoisted constants keep the order they were created in.
  for (Operation *op : llvm::reverse(created)) {
    if (isOpTriviallyDead(op)) {
      op->erase();
      continue;
    }
    auto constant = dyn_cast<arith::ConstantOp>(op);
    if (!constant)
      continue;
    Block &entry = getEntryBlock(constant);
    Value &merged = hoisted[{&entry, constant.getValue()}];
    Value existing = findDominatingConstant(constant, entry, dominance);
    if (!existing)
      existing = merged;
    if (existing) {
      constant.replaceAllUsesWith(existing);
      constant.erase();
      continue;
    }
    constant->moveBefore(&entry, entry.begin());
    merged = constant;
  }
  created.clear();
}

static Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

static Value boolConstant(OpBuilder &b, Location loc, bool value) {
  return arith::ConstantIntOp::create(b, loc, value, /*width=*/1);
}

/// Iterations are non-negative, so an i32 one is zero-extended.
static Value castToIndex(OpBuilder &b, Location loc, Value value) {
  if (value.getType().isIndex())
    return value;
  return b.createOrFold<arith::IndexCastUIOp>(loc, b.getIndexType(), value);
}

/// The phase of `iteration` (index or i32; null for a one_shot pipe, which
/// has the single iteration 0) in a ring of `capacity` slots.
static Phase computePhase(OpBuilder &b, Location loc, Value iteration,
                          Value capacity) {
  Value index =
      iteration ? castToIndex(b, loc, iteration) : indexConstant(b, loc, 0);
  Value slot = b.createOrFold<arith::RemUIOp>(loc, index, capacity);
  Value laps = b.createOrFold<arith::DivUIOp>(loc, index, capacity);
  Value lowBit =
      b.createOrFold<arith::AndIOp>(loc, laps, indexConstant(b, loc, 1));
  Value lap = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                            lowBit, indexConstant(b, loc, 0));
  Value freeParity =
      b.createOrFold<arith::XOrIOp>(loc, lap, boolConstant(b, loc, true));
  return {slot, lap, freeParity};
}

/// The (slot, lap) one loop iteration after (slot, lap). Since slot and
/// offset are both below the capacity, their sum wraps at most once.
static std::pair<Value, Value> advance(OpBuilder &b, Location loc, Value slot,
                                       Value lap, const Stride &stride) {
  Value wrapped;
  if (stride.offset != 0) {
    Value next = arith::AddIOp::create(b, loc, slot, stride.offsetValue);
    wrapped = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, next,
                                    stride.capacity);
    Value back = arith::SubIOp::create(b, loc, next, stride.capacity);
    slot = arith::SelectOp::create(b, loc, wrapped, back, next);
  }
  Value flip = wrapped;
  if (stride.oddLaps)
    flip = wrapped ? arith::XOrIOp::create(b, loc, wrapped, stride.trueValue)
                   : stride.trueValue;
  if (flip)
    lap = arith::XOrIOp::create(b, loc, lap, flip);
  return {slot, lap};
}

/// The induction variable `iteration` adds a positive constant to, if any.
static Value getAdvancedInductionVar(Value iteration) {
  auto sum = iteration ? iteration.getDefiningOp<arith::AddIOp>() : nullptr;
  if (!sum)
    return {};
  for (auto [iv, offset] : {std::pair(sum.getLhs(), sum.getRhs()),
                            std::pair(sum.getRhs(), sum.getLhs())}) {
    std::optional<int64_t> c = getConstantIntValue(offset);
    if (c && *c > 0 && isa<BlockArgument>(iv) &&
        scf::getForInductionVarOwner(iv))
      return iv;
  }
  return {};
}

/// The loop that can carry the phase of `iteration`: the scf.for whose
/// induction variable it is, when that loop's step is a known constant.
static scf::ForOp getCarryingLoop(Value iteration) {
  // getForInductionVarOwner also answers for the loop's iter_args.
  scf::ForOp loop =
      iteration ? scf::getForInductionVarOwner(iteration) : scf::ForOp();
  if (!loop || loop.getInductionVar() != iteration)
    return {};
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  return step && *step > 0 ? loop : scf::ForOp();
}

void PhaseAssigner::run(Operation *root) {
  SmallVector<PipeLifecycleOpInterface> pending;
  root->walk([&](PipeLifecycleOpInterface op) {
    if (!op.getSlot() && op.getPipeOp())
      pending.push_back(op);
  });
  carryAcrossLoops(pending);
  // Built after the loops were rewritten: those rewrites replace regions.
  DominanceInfo dominance(root);
  for (PipeLifecycleOpInterface op : pending)
    assign(op, dominance);
  tracker.tidy(dominance);
}

void PhaseAssigner::carryAcrossLoops(ArrayRef<PipeLifecycleOpInterface> ops) {
  // Pipes of one capacity share a carried pair; in order of first use, so
  // that the added iter_args are deterministic.
  llvm::MapVector<Operation *, SmallVector<int64_t>> capacitiesByLoop;
  for (PipeLifecycleOpInterface op : ops) {
    scf::ForOp loop = getCarryingLoop(op.getIteration());
    if (!loop)
      loop = getCarryingLoop(getAdvancedInductionVar(op.getIteration()));
    if (!loop)
      continue;
    SmallVector<int64_t> &capacities = capacitiesByLoop[loop];
    auto capacity = static_cast<int64_t>(op.getPipeOp().getCapacity());
    if (!llvm::is_contained(capacities, capacity))
      capacities.push_back(capacity);
  }
  // Rewriting a loop moves its body, nested loops included, so the other
  // keys stay valid.
  for (auto &[loop, capacities] : capacitiesByLoop)
    carry(cast<scf::ForOp>(loop), capacities);
}

/// The constants for advancing a ring of `capacity` slots by `step`.
static Stride makeStride(OpBuilder &b, Location loc, int64_t step,
                         int64_t capacity, Value trueValue) {
  int64_t offset = step % capacity;
  return {offset, (step / capacity) % 2 == 1, indexConstant(b, loc, capacity),
          indexConstant(b, loc, offset), trueValue};
}

void PhaseAssigner::carry(scf::ForOp loop, ArrayRef<int64_t> capacities) {
  Location loc = loop.getLoc();
  LLVM_DEBUG(llvm::dbgs() << "carrying " << capacities.size()
                          << " phase(s) in the loop at " << loc << "\n");
  int64_t step = *getConstantIntValue(loop.getStep());
  rewriter.setInsertionPoint(loop);
  Value lowerBound = castToIndex(rewriter, loc, loop.getLowerBound());
  Value trueValue = boolConstant(rewriter, loc, true);
  SmallVector<Stride> strides;
  SmallVector<Value> inits;
  for (int64_t capacity : capacities) {
    strides.push_back(makeStride(rewriter, loc, step, capacity, trueValue));
    Phase first =
        computePhase(rewriter, loc, lowerBound, strides.back().capacity);
    inits.append({first.slot, first.lap});
  }

  auto yieldNext = [&](OpBuilder &b, Location loc,
                       ArrayRef<BlockArgument> args) {
    SmallVector<Value> next;
    for (auto [i, stride] : llvm::enumerate(strides)) {
      auto [slot, lap] = advance(b, loc, args[2 * i], args[2 * i + 1], stride);
      next.append({slot, lap});
    }
    return next;
  };
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, inits, /*replaceInitOperandUsesInLoop=*/false, yieldNext);
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());

  // One inverted parity per pair serves every acquire in the loop.
  rewriter.setInsertionPointToStart(newLoop.getBody());
  ValueRange args = newLoop.getRegionIterArgs().take_back(inits.size());
  for (auto [i, capacity] : llvm::enumerate(capacities)) {
    Value slot = args[2 * i], lap = args[2 * i + 1];
    Value freeParity = arith::XOrIOp::create(rewriter, loc, lap, trueValue);
    phases[PhaseKey(newLoop.getInductionVar(), capacity)] = {slot, lap,
                                                             freeParity};
  }
}

std::optional<Phase> PhaseAssigner::getAdvancedPhase(Value iteration,
                                                     int64_t capacity) {
  Value iv = getAdvancedInductionVar(iteration);
  auto carried = iv ? phases.find(PhaseKey(iv, capacity)) : phases.end();
  if (carried == phases.end())
    return std::nullopt;
  auto sum = iteration.getDefiningOp<arith::AddIOp>();
  int64_t offset =
      *getConstantIntValue(sum.getLhs() == iv ? sum.getRhs() : sum.getLhs());
  Phase from = carried->second;
  Location loc = sum.getLoc();
  rewriter.setInsertionPointAfterValue(from.freeParity);
  Stride stride = makeStride(rewriter, loc, offset, capacity,
                             boolConstant(rewriter, loc, true));
  auto [slot, lap] = advance(rewriter, loc, from.slot, from.lap, stride);
  Value freeParity =
      arith::XOrIOp::create(rewriter, loc, lap, stride.trueValue);
  return phases[PhaseKey(iteration, capacity)] = {slot, lap, freeParity};
}

Phase PhaseAssigner::getPhase(Operation *user, Value iteration,
                              int64_t capacity, DominanceInfo &dominance) {
  auto it = phases.find(PhaseKey(iteration, capacity));
  if (it != phases.end()) {
    const Phase &phase = it->second;
    if (llvm::all_of(
            ValueRange{phase.slot, phase.lap, phase.freeParity},
            [&](Value v) { return dominance.properlyDominates(v, user); }))
      return phase;
  }
  if (std::optional<Phase> advanced = getAdvancedPhase(iteration, capacity))
    return *advanced;
  rewriter.setInsertionPoint(user);
  Location loc = user->getLoc();
  Phase phase = computePhase(rewriter, loc, iteration,
                             indexConstant(rewriter, loc, capacity));
  phases[PhaseKey(iteration, capacity)] = phase;
  return phase;
}

void PhaseAssigner::assign(PipeLifecycleOpInterface op,
                           DominanceInfo &dominance) {
  auto capacity = static_cast<int64_t>(op.getPipeOp().getCapacity());
  Phase phase = getPhase(op, op.getIteration(), capacity, dominance);
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](AcquireOp acquire) {
        acquire.getSlotMutable().assign(phase.slot);
        acquire.getParityMutable().assign(phase.freeParity);
      })
      .Case([&](WaitOp wait) {
        wait.getSlotMutable().assign(phase.slot);
        wait.getParityMutable().assign(phase.lap);
      })
      .Case<CommitOp, ReleaseOp>(
          [&](auto other) { other.getSlotMutable().assign(phase.slot); });
}

namespace {
struct TLEAssignPipePhasesPass
    : tle::impl::TLEAssignPipePhasesBase<TLEAssignPipePhasesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(requireExpandedReplicas(getOperation(), getArgument())))
      return signalPassFailure();
    PhaseAssigner(&getContext()).run(getOperation());
  }
};
} // namespace
