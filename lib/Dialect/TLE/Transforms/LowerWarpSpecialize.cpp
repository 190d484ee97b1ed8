//===- LowerWarpSpecialize.cpp - Partitions onto warp groups --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Replaces tle.warp_specialize by a dispatch on the warp index: one branch
// per cluster of warp groups that share a register budget, which runs
// setmaxnreg and then the partitions placed on those warps, and turns each
// token into its named barrier. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/KernelPlacement.h"
#include "tle/Dialect/TLE/Analysis/TokenUsage.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Dialect/TLE/IR/WarpLayout.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"
#include "tle/Support/Hopper.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "tle-lower-warp-specialize"

namespace mlir::tle {
#define GEN_PASS_DEF_TLELOWERWARPSPECIALIZE
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;
namespace hopper = ::tle::hopper;

namespace {

/// Consecutive warp groups that one partition spans, or that several small
/// partitions share: they run one setmaxnreg and then dispatch by warp.
struct Cluster {
  unsigned firstWarp, endWarp;
  unsigned registers;
  SmallVector<unsigned> partitions;
};

SmallVector<Cluster> computeClusters(const WarpLayout &layout,
                                     ArrayRef<unsigned> budgets) {
  SmallVector<Cluster> clusters;
  for (auto [p, placement] : llvm::enumerate(layout.partitions)) {
    unsigned first =
        llvm::alignDown(placement.firstWarp, hopper::kWarpsPerWarpGroup);
    unsigned end = llvm::alignTo(placement.firstWarp + placement.numWarps,
                                 hopper::kWarpsPerWarpGroup);
    if (clusters.empty() || first >= clusters.back().endWarp)
      clusters.push_back(
          {first, end, budgets[first / hopper::kWarpsPerWarpGroup], {}});
    clusters.back().endWarp = std::max(clusters.back().endWarp, end);
    clusters.back().partitions.push_back(p);
  }
  return clusters;
}

class WarpSpecializeLowering {
public:
  WarpSpecializeLowering(WarpSpecializeOp ws, func::FuncOp kernel)
      : ws(ws), kernel(kernel), b(ws), layout(computeWarpLayout(ws)) {
    for (const TokenUsage &usage : collectTokenUsages(ws))
      tokens[usage.token] = usage;
  }

  void run();

private:
  Value warpBelow(unsigned warp);
  void emitClusters(ArrayRef<Cluster> clusters);
  void emitCluster(const Cluster &cluster);
  void emitPartitions(ArrayRef<unsigned> partitions);
  void inlinePartition(unsigned p);
  void localize(iterator_range<Block::iterator> ops, unsigned p);
  void setKernelAttributes();
  /// `bar.arrive` (a signal) or `bar.sync` (an await) on `op`'s token.
  void lowerTokenUse(Operation *op);

  WarpSpecializeOp ws;
  DenseMap<Operation *, TokenUsage> tokens;
  func::FuncOp kernel;
  OpBuilder b;
  WarpLayout layout;
  Value tid, warp;
  unsigned entryRegisters = 0;
  bool singleCluster = false;
};

} // namespace

Value WarpSpecializeLowering::warpBelow(unsigned bound) {
  Value c = arith::ConstantIndexOp::create(b, ws.getLoc(), bound);
  return arith::CmpIOp::create(b, ws.getLoc(), arith::CmpIPredicate::ult, warp,
                               c);
}

/// Inside partition `p`, thread ids count from 0 and CTA barriers become the
/// partition's named barrier.
void WarpSpecializeLowering::localize(iterator_range<Block::iterator> ops,
                                      unsigned p) {
  Location loc = ws.getLoc();
  unsigned firstThread = layout.partitions[p].firstWarp * hopper::kWarpSize;
  unsigned threads = layout.partitions[p].numWarps * hopper::kWarpSize;
  SmallVector<Operation *> toErase;
  auto rewrite = [&](Operation *op) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(op);
    if (auto id = dyn_cast<gpu::ThreadIdOp>(op);
        id && id.getDimension() == gpu::Dimension::x) {
      Value offset = arith::ConstantIndexOp::create(b, loc, firstThread);
      id.replaceAllUsesWith(
          arith::SubIOp::create(b, op->getLoc(), tid, offset).getResult());
      toErase.push_back(op);
    } else if (isa<gpu::BarrierOp>(op)) {
      Value barrierId = arith::ConstantIntOp::create(b, loc, p + 1, 32);
      Value count = arith::ConstantIntOp::create(b, loc, threads, 32);
      NVVM::BarrierOp::create(b, op->getLoc(), Type(), barrierId, count,
                              NVVM::BarrierReductionAttr(), Value());
      toErase.push_back(op);
    } else if (isa<SignalOp, AwaitOp>(op)) {
      lowerTokenUse(op);
      toErase.push_back(op);
    }
  };
  for (Operation &op : ops)
    op.walk(rewrite);
  for (Operation *op : toErase)
    op->erase();
}

/// Both ends meet at the token's named barrier: the signaler's threads
/// arrive without waiting, the waiter's threads wait there, and the barrier
/// completes when the threads of both partitions have arrived.
void WarpSpecializeLowering::lowerTokenUse(Operation *op) {
  const TokenUsage &usage =
      tokens.find(op->getOperand(0).getDefiningOp())->second;
  Location loc = op->getLoc();
  Value id = arith::ConstantIntOp::create(b, loc, usage.barrierId, 32);
  Value count = arith::ConstantIntOp::create(b, loc, usage.threads, 32);
  // The intrinsic, unlike nvvm.barrier.arrive's inline assembly, is
  // convergent: LLVM will not duplicate it into divergent paths.
  if (isa<SignalOp>(op))
    LLVM::CallIntrinsicOp::create(
        b, loc, b.getStringAttr("llvm.nvvm.barrier.cta.arrive.aligned.count"),
        ValueRange{id, count});
  else
    NVVM::BarrierOp::create(b, loc, Type(), id, count,
                            NVVM::BarrierReductionAttr(), Value());
}

/// Moves the body of partition `p` to the insertion point. The default
/// partition also takes the rest of the kernel, which runs on its warps.
void WarpSpecializeLowering::inlinePartition(unsigned p) {
  Block &body = ws.getPartitionRegion(p).front();
  Operation *terminator = body.getTerminator();
  localize({body.begin(), terminator->getIterator()}, p);
  Block *dest = b.getInsertionBlock();
  dest->getOperations().splice(b.getInsertionPoint(), body.getOperations(),
                               body.begin(), terminator->getIterator());
  if (p != 0)
    return;
  ws.replaceAllUsesWith(terminator->getOperands());
  Block *kernelBody = ws->getBlock();
  Operation *end = kernelBody->getTerminator();
  if (ws->getNextNode() == end)
    return;
  localize({ws->getNextNode()->getIterator(), end->getIterator()}, p);
  // Localizing may have replaced the first op after the kernel's split.
  dest->getOperations().splice(
      b.getInsertionPoint(), kernelBody->getOperations(),
      ws->getNextNode()->getIterator(), end->getIterator());
}

void WarpSpecializeLowering::emitPartitions(ArrayRef<unsigned> partitions) {
  if (partitions.empty())
    return;
  unsigned p = partitions.front();
  const PartitionPlacement &placement = layout.partitions[p];
  bool lastCoversRest = partitions.size() == 1 &&
                        placement.numWarps % hopper::kWarpsPerWarpGroup == 0;
  if (lastCoversRest) {
    inlinePartition(p);
    return;
  }
  Value lower = arith::CmpIOp::create(
      b, ws.getLoc(), arith::CmpIPredicate::uge, warp,
      arith::ConstantIndexOp::create(b, ws.getLoc(), placement.firstWarp));
  Value inside = arith::AndIOp::create(
      b, ws.getLoc(), lower,
      warpBelow(placement.firstWarp + placement.numWarps));
  auto branch = scf::IfOp::create(b, ws.getLoc(), inside,
                                  /*withElseRegion=*/partitions.size() > 1);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(branch.thenBlock()->getTerminator());
    inlinePartition(p);
  }
  if (partitions.size() > 1) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(branch.elseBlock()->getTerminator());
    emitPartitions(partitions.drop_front());
  }
}

void WarpSpecializeLowering::emitCluster(const Cluster &cluster) {
  // setmaxnreg is warp-group wide: every warp of the cluster, idle padding
  // warps included, executes the same instruction before dispatching. A
  // kernel of one cluster already owns the whole register file.
  if (!singleCluster && cluster.registers != entryRegisters) {
    auto action = cluster.registers > entryRegisters
                      ? NVVM::SetMaxRegisterAction::increase
                      : NVVM::SetMaxRegisterAction::decrease;
    NVVM::SetMaxRegisterOp::create(
        b, ws.getLoc(), b.getI32IntegerAttr(cluster.registers),
        NVVM::SetMaxRegisterActionAttr::get(b.getContext(), action));
  }
  emitPartitions(cluster.partitions);
}

void WarpSpecializeLowering::emitClusters(ArrayRef<Cluster> clusters) {
  const Cluster &cluster = clusters.front();
  if (clusters.size() == 1 && cluster.endWarp == layout.numWarps) {
    emitCluster(cluster);
    return;
  }
  auto branch = scf::IfOp::create(b, ws.getLoc(), warpBelow(cluster.endWarp),
                                  /*withElseRegion=*/clusters.size() > 1);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(branch.thenBlock()->getTerminator());
    emitCluster(cluster);
  }
  if (clusters.size() > 1) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(branch.elseBlock()->getTerminator());
    emitClusters(clusters.drop_front());
  }
}

/// The block size marks the function as a kernel; the conversion to NVVM
/// turns it into the launch bounds (nvvm.maxntid, nvvm.minctasm = 1) that
/// make ptxas honour setmaxnreg.
void WarpSpecializeLowering::setKernelAttributes() {
  kernel->setAttr(TLEDialect::kBlockSizeAttrName,
                  b.getI32IntegerAttr(layout.getNumThreads()));
}

void WarpSpecializeLowering::run() {
  SmallVector<unsigned> budgets = deriveWarpGroupRegisters(layout);
  entryRegisters = getEntryRegisters(layout.getNumThreads());
  setKernelAttributes();
  b.setInsertionPoint(ws);
  tid = gpu::ThreadIdOp::create(b, ws.getLoc(), gpu::Dimension::x);
  warp = arith::DivUIOp::create(
      b, ws.getLoc(), tid,
      arith::ConstantIndexOp::create(b, ws.getLoc(), hopper::kWarpSize));
  SmallVector<Cluster> clusters = computeClusters(layout, budgets);
  singleCluster = clusters.size() == 1;
  emitClusters(clusters);
  ws->erase();
}

namespace {
struct LowerWarpSpecializePass
    : mlir::tle::impl::TLELowerWarpSpecializeBase<LowerWarpSpecializePass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(requireExpandedReplicas(getOperation(), getArgument())))
      return signalPassFailure();
    SmallVector<WarpSpecializeOp> kernels;
    getOperation()->walk([&](WarpSpecializeOp ws) { kernels.push_back(ws); });
    for (WarpSpecializeOp ws : kernels)
      if (failed(verifyKernelPlacement(ws)) ||
          failed(checkNamedBarrierBudget(ws, collectTokenUsages(ws))))
        return signalPassFailure();
    for (WarpSpecializeOp ws : kernels)
      WarpSpecializeLowering(ws, cast<func::FuncOp>(ws->getParentOp())).run();
    // The tokens are now named barriers.
    getOperation()->walk([](TokenOp token) {
      if (token->use_empty())
        token->erase();
    });
  }
};
} // namespace
