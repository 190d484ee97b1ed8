//===- TokenUsage.cpp - Turn tokens and their named barriers --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/TokenUsage.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"
#include "tle/Dialect/TLE/IR/WarpLayout.h"
#include "tle/Support/Hopper.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tle;
namespace hopper = ::tle::hopper;

static unsigned findPartition(WarpSpecializeOp ws, StringRef label) {
  for (unsigned p = 0; p < ws.getNumPartitions(); ++p)
    if (ws.getPartitionLabel(p) == label)
      return p;
  llvm_unreachable("the token verifiers check that both ends exist");
}

SmallVector<TokenUsage> mlir::tle::collectTokenUsages(WarpSpecializeOp ws) {
  llvm::SetVector<Operation *> used;
  ws->walk([&](Operation *op) {
    if (auto signal = dyn_cast<SignalOp>(op); signal && signal.getTokenOp())
      used.insert(signal.getTokenOp());
    if (auto await = dyn_cast<AwaitOp>(op); await && await.getTokenOp())
      used.insert(await.getTokenOp());
  });
  WarpLayout layout = computeWarpLayout(ws);
  auto threadsOf = [&](unsigned p) {
    return layout.partitions[p].numWarps * hopper::kWarpSize;
  };
  SmallVector<TokenUsage> result;
  Operation *scope = ws->getParentOp() ? ws->getParentOp() : ws.getOperation();
  scope->walk([&](TokenOp token) {
    if (!used.contains(token))
      return;
    unsigned signaler = findPartition(ws, token.getSignaler());
    unsigned waiter = findPartition(ws, token.getWaiter());
    unsigned id = getPartitionBarrierId(ws.getNumPartitions() - 1) + 1 +
                  static_cast<unsigned>(result.size());
    result.push_back(
        {token, signaler, waiter, id,
         static_cast<unsigned>(threadsOf(signaler) + threadsOf(waiter))});
  });
  return result;
}

LogicalResult mlir::tle::checkNamedBarrierBudget(WarpSpecializeOp ws,
                                                 ArrayRef<TokenUsage> tokens) {
  unsigned needed = ws.getNumPartitions() + tokens.size() + 1;
  if (needed <= hopper::kNumNamedBarriers)
    return success();
  return emitOpErrorAtHead(ws)
         << "needs " << needed << " named barriers (1 for the CTA, "
         << ws.getNumPartitions() << " for its partitions and " << tokens.size()
         << " for its tokens), but a CTA has " << hopper::kNumNamedBarriers
         << "; use fewer tokens or partitions, or a pipe for some edge";
}

std::string mlir::tle::describeTokenUse(Operation *op) {
  auto token = op->getOperand(0).getDefiningOp<TokenOp>();
  return (op->getName().getStringRef() + " of token '" + token.getName() + "'")
      .str();
}
