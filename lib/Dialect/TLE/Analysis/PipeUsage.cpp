//===- PipeUsage.cpp - Who uses each pipe, and how ------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/IterationExpr.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tle;

StringRef tle::stringifyTransport(Transport transport) {
  switch (transport) {
  case Transport::Generic:
    return "ordinary stores";
  case Transport::CpAsync:
    return "cp.async";
  case Transport::TMA:
    return "TMA";
  }
  llvm_unreachable("unknown transport");
}

std::string tle::describePipeSide(PipeLifecycleOpInterface op) {
  return op.describeSide() + " of pipe '" + op.getPipeOp().getName().str() +
         "'";
}

std::string tle::describeIteration(Value iteration) {
  if (!iteration)
    return "its only iteration";
  APInt constant;
  if (matchPattern(iteration, m_ConstantInt(&constant)))
    return "iteration " + std::to_string(constant.getSExtValue());
  return "iteration <" + describeValue(iteration) + ">";
}

std::optional<unsigned> PipeUsage::getWriterPartition() const {
  for (auto &[partition, ops] : opsByPartition)
    if (llvm::any_of(
            ops, [](PipeLifecycleOpInterface op) { return op.isWriterSide(); }))
      return partition;
  return std::nullopt;
}

std::optional<unsigned> PipeUsage::getReaderPartition(StringRef reader) const {
  for (auto &[partition, ops] : opsByPartition)
    if (llvm::any_of(ops, [&](PipeLifecycleOpInterface op) {
          StringAttr name = op.getReaderAttr();
          return name && name.getValue() == reader;
        }))
      return partition;
  return std::nullopt;
}

SmallVector<PipeUsage> tle::collectPipeUsages(WarpSpecializeOp ws) {
  llvm::MapVector<Operation *, PipeUsage> usages;
  auto record = [&](PipeLifecycleOpInterface op) {
    PipeOp pipe = op.getPipeOp();
    if (!pipe)
      return;
    PipeUsage &usage = usages[pipe];
    usage.pipe = pipe;
    if (std::optional<unsigned> partition = ws.getPartitionOf(op))
      usage.opsByPartition[*partition].push_back(op);
    else
      usage.stray.push_back(op);
  };
  ws->walk([&](PipeLifecycleOpInterface op) { record(op); });
  // Lifecycle ops after the op run on the default partition's warps, but a
  // pipe is an edge between partitions: treat them as stray.
  for (Operation *op = ws->getNextNode(); op; op = op->getNextNode())
    op->walk([&](PipeLifecycleOpInterface lifecycle) {
      if (PipeOp pipe = lifecycle.getPipeOp(); pipe && usages.contains(pipe))
        usages[pipe].stray.push_back(lifecycle);
    });
  // Report pipes in the order they are declared.
  SmallVector<PipeUsage> result;
  Operation *scope = ws->getParentOp() ? ws->getParentOp() : ws.getOperation();
  scope->walk([&](PipeOp pipe) {
    auto it = usages.find(pipe);
    if (it != usages.end())
      result.push_back(std::move(it->second));
  });
  return result;
}

SmallVector<FieldGroup> tle::groupFieldsByReaders(PipeOp pipe) {
  auto readers = llvm::to_vector(pipe.getReaders().getAsRange<ReaderAttr>());
  SmallVector<FieldGroup> groups;
  for (unsigned f = 0, e = pipe.getNumFields(); f < e; ++f) {
    SmallVector<unsigned> readSet;
    for (auto [i, reader] : llvm::enumerate(readers))
      if (reader.readsField(pipe.getFieldName(f)))
        readSet.push_back(i);
    auto *group = llvm::find_if(
        groups, [&](const FieldGroup &g) { return g.readers == readSet; });
    if (group == groups.end())
      groups.push_back({{f}, readSet});
    else
      group->fields.push_back(f);
  }
  return groups;
}

bool tle::isSameIteration(Value a, Value b) {
  if (a == b)
    return true;
  return a && b && IterationExpr::get(a) == IterationExpr::get(b);
}

bool tle::isSameSide(PipeLifecycleOpInterface a, PipeLifecycleOpInterface b) {
  return a.getPipe() == b.getPipe() && a.getReaderAttr() == b.getReaderAttr();
}

CommitOp tle::findMatchingCommit(AcquireOp acquire) {
  for (Operation *op = acquire->getNextNode(); op; op = op->getNextNode()) {
    auto commit = dyn_cast<CommitOp>(op);
    if (commit && commit.getPipe() == acquire.getPipe() &&
        isSameIteration(commit.getIteration(), acquire.getIteration()))
      return commit;
  }
  return {};
}

/// `view` and every memref derived from it through view-like ops, and
/// through the iter_args and results of loops that carry it.
static SmallVector<Value> getAliases(Value view) {
  llvm::SetVector<Value> aliases;
  aliases.insert(view);
  auto carry = [&](scf::ForOp loop, unsigned index) {
    aliases.insert(loop.getRegionIterArgs()[index]);
    aliases.insert(loop.getResult(index));
  };
  for (unsigned i = 0; i < aliases.size(); ++i)
    for (OpOperand &use : aliases[i].getUses()) {
      Operation *user = use.getOwner();
      if (auto viewLike = dyn_cast<ViewLikeOpInterface>(user)) {
        if (viewLike.getViewSource() == aliases[i])
          aliases.insert(viewLike->getResults().begin(),
                         viewLike->getResults().end());
      } else if (auto loop = dyn_cast<scf::ForOp>(user)) {
        if (use.getOperandNumber() >= loop.getNumControlOperands())
          carry(loop, use.getOperandNumber() - loop.getNumControlOperands());
      } else if (isa<scf::YieldOp>(user)) {
        if (auto loop = dyn_cast<scf::ForOp>(user->getParentOp()))
          carry(loop, use.getOperandNumber());
      }
    }
  return aliases.takeVector();
}

/// The transport by which `user` writes `memref`, if it writes it.
static std::optional<Transport> getWriteTransport(Operation *user,
                                                  Value memref) {
  if (auto tma = dyn_cast<TMALoadOp>(user))
    return tma.getDestination() == memref ? std::optional(Transport::TMA)
                                          : std::nullopt;
  if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(user))
    return copy.getDst() == memref ? std::optional(Transport::CpAsync)
                                   : std::nullopt;
  if (auto gather = dyn_cast<GatherRowsOp>(user))
    return gather.getDestination() == memref ? std::optional(Transport::CpAsync)
                                             : std::nullopt;
  if (isa<ViewLikeOpInterface>(user))
    return std::nullopt;
  // A loop or branch that only carries the view (an init or yielded value)
  // does not write it; getAliases follows it to its uses inside.
  if (isa<scf::ForOp, scf::YieldOp, scf::IfOp, scf::WhileOp, scf::ConditionOp>(
          user))
    return std::nullopt;
  auto effects = dyn_cast<MemoryEffectOpInterface>(user);
  // An op that does not say what it does to memory may write it.
  if (!effects)
    return Transport::Generic;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffectsOnValue(memref, instances);
  if (llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
        return isa<MemoryEffects::Write>(e.getEffect());
      }))
    return Transport::Generic;
  return std::nullopt;
}

/// The writes to `fields` (and views of them) by ops that `inWindow` accepts.
static SmallVector<SlotWrite>
collectWrites(ValueRange fields, function_ref<bool(Operation *)> inWindow) {
  SmallVector<SlotWrite> writes;
  for (auto [field, view] : llvm::enumerate(fields))
    for (Value alias : getAliases(view))
      for (Operation *user : alias.getUsers())
        if (inWindow(user))
          if (std::optional<Transport> transport =
                  getWriteTransport(user, alias))
            writes.push_back(
                {user, alias, static_cast<unsigned>(field), *transport});
  return writes;
}

SmallVector<SlotWrite> tle::collectSlotWrites(AcquireOp acquire) {
  CommitOp commit = findMatchingCommit(acquire);
  Block *block = acquire->getBlock();
  return collectWrites(acquire.getViews(), [&](Operation *user) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    return ancestor && acquire->isBeforeInBlock(ancestor) &&
           (!commit || ancestor->isBeforeInBlock(commit));
  });
}

SmallVector<SlotWrite> tle::collectReaderWrites(WaitOp wait) {
  // Any use of the views outside the window is an error of its own (the
  // view check), so every write through them is in the window.
  SmallVector<SlotWrite> writes =
      collectWrites(wait.getViews(), [](Operation *) { return true; });
  PipeOp pipe = cast<PipeLifecycleOpInterface>(wait.getOperation()).getPipeOp();
  SmallVector<unsigned> fields =
      pipe.getReaderFields(pipe.lookupReader(wait.getReader()));
  for (SlotWrite &write : writes)
    write.field = fields[write.field];
  return writes;
}

SmallVector<SlotWrite> tle::collectOneShotWrites(CommitOp commit) {
  auto ws = commit->getParentOfType<WarpSpecializeOp>();
  std::optional<unsigned> partition =
      ws ? ws.getPartitionOf(commit) : std::nullopt;
  if (!partition)
    return {};
  Region &region = ws.getPartitionRegion(*partition);
  PipeOp pipe =
      cast<PipeLifecycleOpInterface>(commit.getOperation()).getPipeOp();
  return collectWrites(pipe.getBuffers(), [&](Operation *user) {
    if (!region.isAncestor(user->getParentRegion()))
      return false;
    Operation *ancestor = commit->getBlock()->findAncestorOpInBlock(*user);
    return !ancestor || ancestor->isBeforeInBlock(commit);
  });
}

Value tle::getViewedBuffer(Value view) {
  while (true) {
    if (auto viewLike = view.getDefiningOp<ViewLikeOpInterface>()) {
      view = viewLike.getViewSource();
      continue;
    }
    // A view a loop carries comes in through its init operand.
    auto arg = dyn_cast<BlockArgument>(view);
    auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp())
                    : view.getDefiningOp<scf::ForOp>();
    OpOperand *init = !loop ? nullptr
                      : arg ? loop.getTiedLoopInit(arg)
                            : loop.getTiedLoopInit(cast<OpResult>(view));
    if (!init)
      break;
    view = init->get();
  }
  auto result = dyn_cast<OpResult>(view);
  auto lifecycle =
      dyn_cast_if_present<PipeLifecycleOpInterface>(view.getDefiningOp());
  if (!result || !lifecycle)
    return {};
  PipeOp pipe = lifecycle.getPipeOp();
  unsigned index = result.getResultNumber();
  if (isa<WaitOp>(*lifecycle))
    index = pipe.getReaderFields(
        pipe.lookupReader(lifecycle.getReaderAttr().getValue()))[index];
  return pipe.getBuffers()[index];
}

bool tle::readsThroughAsyncProxy(Operation *op) {
  return isa<WgmmaOp, nvgpu::WarpgroupGenerateDescriptorOp,
             nvgpu::WarpgroupMmaOp, nvgpu::TmaAsyncStoreOp>(op);
}

bool tle::isReadByAsyncProxy(Value view) {
  for (Value alias : getAliases(view))
    if (llvm::any_of(alias.getUsers(), readsThroughAsyncProxy))
      return true;
  return false;
}

SmallVector<WriterWindow> tle::collectWriterWindows(const PipeUsage &usage) {
  std::optional<unsigned> writer = usage.getWriterPartition();
  if (!writer)
    return {};
  SmallVector<WriterWindow> windows;
  for (PipeLifecycleOpInterface op : usage.opsByPartition.lookup(*writer)) {
    if (auto acquire = dyn_cast<AcquireOp>(op.getOperation()))
      windows.push_back({acquire, collectSlotWrites(acquire)});
    else if (auto commit = dyn_cast<CommitOp>(op.getOperation());
             commit && PipeOp(usage.pipe).getOneShot())
      windows.push_back({commit, collectOneShotWrites(commit)});
  }
  return windows;
}

void tle::forEachAsyncProxyRead(const PipeUsage &usage,
                                function_ref<void(WaitOp, unsigned)> fn) {
  PipeOp pipe = usage.pipe;
  for (auto &[partition, ops] : usage.opsByPartition)
    for (PipeLifecycleOpInterface op : ops)
      if (auto wait = dyn_cast<WaitOp>(op.getOperation()))
        for (auto [view, field] : llvm::zip(
                 wait.getViews(),
                 pipe.getReaderFields(pipe.lookupReader(wait.getReader()))))
          if (isReadByAsyncProxy(view))
            fn(wait, field);
}

SmallVector<WaitOp> tle::findCpAsyncHandoffs(const PipeUsage &usage) {
  SmallVector<bool> copied(PipeOp(usage.pipe).getNumFields(), false);
  for (const WriterWindow &window : collectWriterWindows(usage))
    for (const SlotWrite &write : window.writes)
      copied[write.field] |= write.transport == Transport::CpAsync;
  llvm::SetVector<WaitOp> waits;
  forEachAsyncProxyRead(usage, [&](WaitOp wait, unsigned field) {
    if (copied[field])
      waits.insert(wait);
  });
  return waits.takeVector();
}
