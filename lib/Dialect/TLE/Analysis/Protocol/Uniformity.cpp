//===- Uniformity.cpp - Values every thread of a partition shares ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/Uniformity.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tle;

/// Ops whose result is the same in every thread of the CTA.
static bool isUniformSource(Operation *op) {
  return op->hasTrait<OpTrait::ConstantLike>() ||
         isa<gpu::BlockIdOp, gpu::GridDimOp, gpu::BlockDimOp, gpu::ClusterIdOp,
             gpu::ClusterDimOp, gpu::ClusterDimBlocksOp, gpu::ClusterBlockIdOp,
             NVVM::BlockIdXOp, NVVM::BlockIdYOp, NVVM::BlockIdZOp,
             NVVM::GridDimXOp, NVVM::GridDimYOp, NVVM::GridDimZOp,
             NVVM::BlockDimXOp, NVVM::BlockDimYOp, NVVM::BlockDimZOp,
             NVVM::ClusterIdXOp, NVVM::ClusterIdYOp, NVVM::ClusterIdZOp,
             NVVM::ClusterDimXOp, NVVM::ClusterDimYOp, NVVM::ClusterDimZOp,
             NVVM::BlockInClusterIdXOp, NVVM::BlockInClusterIdYOp,
             NVVM::BlockInClusterIdZOp, SharedAllocOp>(op);
}

/// Ops that compute their result from their operands alone, the same way
/// in every thread.
static bool isComputation(Operation *op) {
  return isa<arith::ArithDialect, index::IndexDialect, math::MathDialect>(
             op->getDialect()) ||
         isa<memref::DimOp, ViewLikeOpInterface>(op);
}

/// The kernel argument `memref` views, if it views one.
static BlockArgument getArgumentRoot(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  auto arg = dyn_cast<BlockArgument>(memref);
  if (!arg || !isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
    return {};
  return arg;
}

/// Whether some op may write through `arg` or a view of it.
static bool isWritten(BlockArgument arg) {
  SetVector<Value> aliases;
  aliases.insert(arg);
  for (unsigned i = 0; i < aliases.size(); ++i)
    for (OpOperand &use : aliases[i].getUses()) {
      Operation *user = use.getOwner();
      if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
        aliases.insert(view->getResults().begin(), view->getResults().end());
        continue;
      }
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects)
        return true;
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      if (llvm::any_of(instances, [&](const MemoryEffects::EffectInstance &e) {
            return isa<MemoryEffects::Write>(e.getEffect()) &&
                   (!e.getValue() || e.getValue() == aliases[i]);
          }))
        return true;
    }
  return false;
}

namespace {
/// One round of the fixpoint: every value starts uniform and becomes
/// varying when its definition says so under the current state.
struct Solver {
  DenseMap<Value, Operation *> &varying;
  DenseMap<BlockArgument, bool> writtenArguments;

  Operation *sourceOf(Value value) const { return varying.lookup(value); }
  Operation *firstVarying(ValueRange values) const {
    for (Value value : values)
      if (Operation *source = sourceOf(value))
        return source;
    return nullptr;
  }
  Operation *forControl(scf::ForOp loop) const {
    return firstVarying(
        {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()});
  }
  Operation *loadSource(memref::LoadOp load);
  Operation *resultSource(OpResult result);
  Operation *argumentSource(BlockArgument arg) const;
};
} // namespace

Operation *Solver::loadSource(memref::LoadOp load) {
  if (Operation *source = firstVarying(load->getOperands()))
    return source;
  BlockArgument root = getArgumentRoot(load.getMemRef());
  if (!root)
    return load;
  auto [it, inserted] = writtenArguments.try_emplace(root, false);
  if (inserted)
    it->second = isWritten(root);
  return it->second ? load.getOperation() : nullptr;
}

Operation *Solver::resultSource(OpResult result) {
  Operation *op = result.getOwner();
  unsigned i = result.getResultNumber();
  if (isUniformSource(op))
    return nullptr;
  if (isComputation(op))
    return firstVarying(op->getOperands());
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return loadSource(load);
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    if (Operation *source = forControl(loop))
      return source;
    return firstVarying({loop.getInitArgs()[i], loop.getYieldedValues()[i]});
  }
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    if (Operation *source = sourceOf(branch.getCondition()))
      return source;
    return firstVarying(
        {branch.thenYield().getOperand(i), branch.elseYield().getOperand(i)});
  }
  if (auto loop = dyn_cast<scf::WhileOp>(op)) {
    scf::ConditionOp condition = loop.getConditionOp();
    if (Operation *source = sourceOf(condition.getCondition()))
      return source;
    return sourceOf(condition.getArgs()[i]);
  }
  return op;
}

Operation *Solver::argumentSource(BlockArgument arg) const {
  Operation *owner = arg.getOwner()->getParentOp();
  unsigned i = arg.getArgNumber();
  if (isa<FunctionOpInterface>(owner))
    return nullptr;
  if (auto loop = dyn_cast<scf::ForOp>(owner)) {
    if (arg == loop.getInductionVar())
      return forControl(loop);
    return firstVarying(
        {loop.getInitArgs()[i - 1], loop.getYieldedValues()[i - 1]});
  }
  if (auto loop = dyn_cast<scf::WhileOp>(owner)) {
    if (arg.getParentRegion() == &loop.getAfter())
      return sourceOf(loop.getConditionOp().getArgs()[i]);
    return firstVarying({loop.getInits()[i], loop.getYieldOp().getOperand(i)});
  }
  return owner;
}

UniformityAnalysis::UniformityAnalysis(Operation *kernel) {
  Solver solver{varying, DenseMap<BlockArgument, bool>()};
  auto update = [&](Value value, Operation *source) {
    return source && varying.try_emplace(value, source).second;
  };
  // Values only ever turn varying, so the rounds end.
  bool changed = true;
  while (changed) {
    changed = false;
    kernel->walk([&](Operation *op) {
      for (OpResult result : op->getResults())
        changed |= !varying.contains(result) &&
                   update(result, solver.resultSource(result));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            changed |= !varying.contains(arg) &&
                       update(arg, solver.argumentSource(arg));
    });
  }
}

Operation *UniformityAnalysis::getVaryingSource(Value value) const {
  return varying.lookup(value);
}

//===----------------------------------------------------------------------===//
// Checking that every thread of a partition reaches an op
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

LogicalResult tle::checkUniformControl(WarpSpecializeOp ws, Operation *op,
                                       StringRef side, Value iteration,
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
             << side << " sits in " << describeOp(parent)
             << ", whose control flow the protocol check does not follow; "
                "use scf.for, scf.while or scf.if around synchronizing "
                "operations";
    InFlightDiagnostic diag =
        op->emitError() << side
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
  Operation *source =
      iteration ? uniformity.getVaryingSource(iteration) : nullptr;
  if (!source)
    return success();
  InFlightDiagnostic diag = op->emitError()
                            << side
                            << " works on an iteration that may differ "
                               "between the threads of partition '"
                            << label << "'; every thread must use the same";
  diag.attachNote(source->getLoc())
      << "the iteration comes from " << describeOp(source)
      << ", which may differ between threads";
  return diag;
}
