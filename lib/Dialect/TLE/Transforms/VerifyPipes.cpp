//===- VerifyPipes.cpp - Static check of the pipe protocol ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Proves, before any barrier exists, that every pipe is used as declared:
// the kernel has the shape the lowering needs and fits in shared memory,
// one writer partition and one partition per reader, every thread reaches
// every lifecycle op, every acquire committed and every wait released on
// every path, slots touched only through their views, matching iteration
// counts, and no deadlock. What it cannot prove it reports. See Passes.td
// and docs/SyncDerivation.md.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/KernelPlacement.h"
#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/Protocol/IterationCounts.h"
#include "tle/Dialect/TLE/Analysis/Protocol/PipeWindows.h"
#include "tle/Dialect/TLE/Analysis/Protocol/ProtocolSimulation.h"
#include "tle/Dialect/TLE/Analysis/Protocol/ReaderWrites.h"
#include "tle/Dialect/TLE/Analysis/Protocol/SlotViews.h"
#include "tle/Dialect/TLE/Analysis/Protocol/StorageAliasing.h"
#include "tle/Dialect/TLE/Analysis/Protocol/StorageReclaim.h"
#include "tle/Dialect/TLE/Analysis/Protocol/Uniformity.h"
#include "tle/Dialect/TLE/Analysis/TokenUsage.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"
#include "tle/Support/Hopper.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#define DEBUG_TYPE "tle-verify-pipes"

namespace mlir::tle {
#define GEN_PASS_DEF_TLEVERIFYPIPES
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;
namespace hopper = ::tle::hopper;

//===----------------------------------------------------------------------===//
// Roles: who writes and who reads
//===----------------------------------------------------------------------===//

static LogicalResult checkRoles(WarpSpecializeOp ws, const PipeUsage &usage) {
  PipeOp pipe = usage.pipe;
  // The other partitions cannot name it, so its readers would never wait.
  if (std::optional<unsigned> inside = ws.getPartitionOf(pipe))
    return pipe.emitError("pipe '")
           << pipe.getName() << "' is defined inside partition '"
           << ws.getPartitionLabel(*inside)
           << "', where no other partition can use it; a pipe connects "
              "partitions: define it, and its buffers, in the kernel's body "
              "before the tle.warp_specialize";
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
// Shared memory: checked before the simulation, whose work would otherwise
// follow absurd capacities
//===----------------------------------------------------------------------===//

static LogicalResult checkSharedMemory(WarpSpecializeOp ws,
                                       ArrayRef<PipeUsage> usages) {
  auto kernel = cast<FunctionOpInterface>(ws->getParentOp());
  uint64_t buffers = 0, barriers = 0;
  kernel->walk([&](SharedAllocOp alloc) {
    buffers = llvm::SaturatingAdd(
        buffers,
        static_cast<uint64_t>(
            getBufferByteSize(alloc.getBuffer().getType()).value_or(0)));
  });
  for (const PipeUsage &usage : usages) {
    PipeOp pipe = usage.pipe;
    uint64_t arrays =
        1 + (pipe.getOneShot() ? 0 : groupFieldsByReaders(pipe).size());
    barriers = llvm::SaturatingAdd(
        barriers, llvm::SaturatingMultiply(
                      arrays * hopper::kMBarrierBytes,
                      static_cast<uint64_t>(pipe.getCapacityAttr().getInt())));
  }
  uint64_t total = llvm::SaturatingAdd(buffers, barriers);
  if (total <= static_cast<uint64_t>(hopper::kMaxSharedMemoryBytes))
    return success();
  InFlightDiagnostic diag =
      emitOpErrorAtHead(ws)
      << "needs at least " << total << " bytes of shared memory (" << buffers
      << " of buffers, " << barriers
      << " of mbarriers for the pipes' slots), over the "
      << hopper::kMaxSharedMemoryBytes << " a CTA may use";
  for (const PipeUsage &usage : usages) {
    PipeOp pipe = usage.pipe;
    diag.attachNote(pipe.getLoc())
        << "pipe '" << pipe.getName() << "' has "
        << pipe.getCapacityAttr().getInt() << " slots";
  }
  return diag;
}

//===----------------------------------------------------------------------===//
// Iteration counts: the writer commits what each reader waits for
//===----------------------------------------------------------------------===//

/// "7 iterations", "2 x trips(...) iterations", or what the check could
/// not count.
static std::string describeCount(const std::optional<std::string> &count) {
  if (!count)
    return "a number of iterations the check cannot count";
  return *count + (*count == "1" ? " iteration" : " iterations");
}

/// Errors for counts that certainly differ; the counts it cannot compare go
/// to `unproven`, to be reported once the simulation found no certain
/// mismatch.
static LogicalResult checkIterationCounts(
    WarpSpecializeOp ws, const PipeUsage &usage,
    SmallVectorImpl<std::pair<PipeOp, CountComparison>> &unproven) {
  PipeOp pipe = usage.pipe;
  for (const CountComparison &c : compareIterationCounts(ws, usage)) {
    if (c.result == CountComparison::Result::Differ)
      return pipe.emitError("the writer of pipe '")
             << pipe.getName() << "' commits " << describeCount(c.committed)
             << " but reader '" << c.reader << "' waits for "
             << describeCount(c.waited);
    if (c.result == CountComparison::Result::Unknown)
      unproven.push_back({pipe, c});
  }
  return success();
}

/// "3 times", "2 x trips(...) times", or what the check could not count.
static std::string describeTimes(const std::optional<std::string> &count) {
  if (!count)
    return "a number of times the check cannot count";
  return *count == "1" ? "once" : *count + " times";
}

/// An error where a token's signals and awaits certainly differ in number;
/// the tokens whose counts it cannot compare go to `unproven`.
static LogicalResult checkTokenCounts(
    WarpSpecializeOp ws, ArrayRef<TokenUsage> tokens,
    SmallVectorImpl<std::pair<TokenOp, CountComparison>> &unproven) {
  for (const TokenUsage &usage : tokens) {
    CountComparison c = compareTokenCounts(ws, usage);
    if (c.result == CountComparison::Result::Differ)
      return TokenOp(usage.token).emitError("partition '")
             << ws.getPartitionLabel(usage.signaler) << "' signals token '"
             << c.reader << "' " << describeTimes(c.committed)
             << " but partition '" << ws.getPartitionLabel(usage.waiter)
             << "' awaits it " << describeTimes(c.waited);
    if (c.result == CountComparison::Result::Unknown)
      unproven.push_back({TokenOp(usage.token), c});
  }
  return success();
}

static LogicalResult
reportUnprovenCounts(ArrayRef<std::pair<PipeOp, CountComparison>> unproven,
                     ArrayRef<std::pair<TokenOp, CountComparison>> tokens,
                     bool strict) {
  for (auto [token, c] : tokens)
    emitUnproven(token, strict)
        << "the protocol check cannot prove that token '" << c.reader
        << "' is awaited as many times as it is signaled: it is signaled "
        << describeTimes(c.committed) << " and awaited "
        << describeTimes(c.waited)
        << "; an await without its signal hangs, a signal left over "
           "completes the named barrier's next phase early";
  for (auto [pipe, c] : unproven)
    emitUnproven(pipe, strict)
        << "the protocol check cannot prove that reader '" << c.reader
        << "' of pipe '" << pipe.getName()
        << "' waits for as many iterations as the writer commits: the "
           "writer commits "
        << describeCount(c.committed) << ", the reader waits for "
        << describeCount(c.waited)
        << "; a reader that stops early drops the last slots, one that "
           "waits for more hangs";
  return failure(strict && (!unproven.empty() || !tokens.empty()));
}

/// A kernel that drops its readers' proxy fences for cp.async data relies
/// on a visibility the PTX memory model does not promise: the check says so,
/// when a reader does hand such data to the async proxy.
static LogicalResult reportUnfencedCpAsync(WarpSpecializeOp ws,
                                           ArrayRef<PipeUsage> usages,
                                           bool strict) {
  if (readersFenceCpAsync(ws))
    return success();
  WaitOp handoff;
  for (const PipeUsage &usage : usages) {
    SmallVector<WaitOp> waits = findCpAsyncHandoffs(usage);
    if (!waits.empty()) {
      handoff = waits.front();
      break;
    }
  }
  if (!handoff)
    return success();
  Operation *func = ws->getParentOfType<FunctionOpInterface>();
  InFlightDiagnostic diag =
      emitUnproven(func ? func : ws.getOperation(), strict);
  diag << "the protocol check cannot prove that the readers of cp.async data "
          "see it through the async proxy (the tensor cores, TMA): "
          "tle.cp_async_fence = \"none\" drops their fence.proxy.async, and "
          "the PTX memory model does not promise that a completed cp.async is "
          "visible there without one";
  diag.attachNote(handoff.getLoc())
      << describePipeSide(handoff)
      << " hands cp.async data to the async proxy after this wait";
  return failure(strict);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

static LogicalResult verifyKernel(WarpSpecializeOp ws, bool strict) {
  if (failed(verifyKernelPlacement(ws)))
    return failure();
  SmallVector<PipeUsage> usages = collectPipeUsages(ws);
  for (const PipeUsage &usage : usages)
    if (failed(checkRoles(ws, usage)))
      return failure();
  if (failed(checkSharedMemory(ws, usages)))
    return failure();
  UniformityAnalysis uniformity(ws->getParentOp());
  for (const PipeUsage &usage : usages)
    for (auto &[partition, ops] : usage.opsByPartition)
      for (PipeLifecycleOpInterface op : ops)
        if (failed(checkUniformControl(ws, op, describePipeSide(op),
                                       op.getIteration(), partition,
                                       uniformity)))
          return failure();
  SmallVector<TokenUsage> tokens = collectTokenUsages(ws);
  if (failed(checkNamedBarrierBudget(ws, tokens)))
    return failure();
  WalkResult tokensReached = ws->walk([&](Operation *op) {
    if (!isa<SignalOp, AwaitOp>(op))
      return WalkResult::advance();
    return WalkResult(checkUniformControl(ws, op, describeTokenUse(op), Value(),
                                          *ws.getPartitionOf(op), uniformity));
  });
  if (tokensReached.wasInterrupted())
    return failure();
  CarriedWindows carried;
  for (unsigned p = 0; p < ws.getNumPartitions(); ++p)
    if (failed(checkWindowBalance(ws, p, carried)))
      return failure();
  if (failed(checkSlotViews(ws, carried)) || failed(checkSlotBounds(ws)) ||
      failed(checkStorageAliasing(ws, usages, strict)) ||
      failed(checkReclaims(ws, usages)))
    return failure();
  for (const PipeUsage &usage : usages) {
    if (failed(checkDirectAccesses(ws, usage)))
      return failure();
    for (auto &entry : usage.opsByPartition)
      for (PipeLifecycleOpInterface op : entry.second)
        if (auto wait = dyn_cast<WaitOp>(*op);
            wait && failed(checkReaderWrites(wait)))
          return failure();
  }
  SmallVector<std::pair<PipeOp, CountComparison>> unprovenCounts;
  for (const PipeUsage &usage : usages)
    if (failed(checkIterationCounts(ws, usage, unprovenCounts)))
      return failure();
  if (failed(simulateProtocol(ws, usages, tokens, strict)))
    return failure();
  // After the simulation, whose runs explain a mismatch they meet (the
  // await that blocks, the signal left over): the counts compared here
  // cover the inputs it did not try.
  SmallVector<std::pair<TokenOp, CountComparison>> unprovenTokens;
  if (failed(checkTokenCounts(ws, tokens, unprovenTokens)))
    return failure();
  if (failed(reportUnprovenCounts(unprovenCounts, unprovenTokens, strict)))
    return failure();
  return reportUnfencedCpAsync(ws, usages, strict);
}

namespace {
struct VerifyPipesPass : mlir::tle::impl::TLEVerifyPipesBase<VerifyPipesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(requireExpandedReplicas(getOperation(), getArgument())))
      return signalPassFailure();
    bool failed = false;
    getOperation()->walk([&](PipeLifecycleOpInterface op) {
      if (op->getParentOfType<WarpSpecializeOp>())
        return;
      op->emitError() << describePipeSide(op)
                      << " is used outside every partition; pipe operations "
                         "belong inside a tle.warp_specialize region";
      failed = true;
    });
    getOperation()->walk([&](WarpSpecializeOp ws) {
      failed |= mlir::failed(verifyKernel(ws, strict));
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
