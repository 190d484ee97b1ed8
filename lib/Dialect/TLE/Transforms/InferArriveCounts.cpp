//===- InferArriveCounts.cpp - Derive each pipe's barriers ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Turns "who writes a pipe, how, and who reads which fields" into barriers:
// for each pipe one slot-full barrier and one slot-free barrier per group of
// fields with the same readers, with arrive counts and transaction bytes.
// The rules are documented in docs/SyncDerivation.md.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"
#include "tle/Support/Hopper.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tle-infer-arrive-counts"

namespace mlir::tle {
#define GEN_PASS_DEF_TLEINFERARRIVECOUNTS
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;
namespace hopper = ::tle::hopper;

namespace {

/// What the writer of one pipe does, summed over all its commits.
struct WriterSummary {
  /// The transports used for each field.
  SmallVector<llvm::SmallSetVector<Transport, 2>> fieldTransports;
  /// Bytes TMA copies into one slot; equal for every commit.
  std::optional<int64_t> txBytes;
};

class PipeBarrierBuilder {
public:
  PipeBarrierBuilder(WarpSpecializeOp ws, const PipeUsage &usage,
                     bool electedArrive)
      : ws(ws), usage(usage), pipe(usage.pipe), electedArrive(electedArrive) {}

  /// The barriers of the pipe, or failure after a diagnostic.
  FailureOr<ArrayAttr> build();

private:
  unsigned threadsOf(unsigned partition) {
    return ws.getPartitionNumWarps()[partition] * hopper::kWarpSize;
  }
  StringAttr labelOf(unsigned partition) {
    return StringAttr::get(ws.getContext(), ws.getPartitionLabel(partition));
  }
  ArrayAttr fieldNames(ArrayRef<unsigned> fields);

  LogicalResult addWrites(ArrayRef<SlotWrite> writes, Operation *commitPoint);
  FailureOr<int64_t> countTxBytes(const SlotWrite &write,
                                  Operation *windowStart);
  FailureOr<BarrierAttr> buildFull(unsigned writer);
  SmallVector<BarrierAttr> buildFree(unsigned writer);

  WarpSpecializeOp ws;
  const PipeUsage &usage;
  PipeOp pipe;
  bool electedArrive;
  WriterSummary summary;
};

} // namespace

ArrayAttr PipeBarrierBuilder::fieldNames(ArrayRef<unsigned> fields) {
  SmallVector<Attribute> names;
  for (unsigned f : fields)
    names.push_back(StringAttr::get(ws.getContext(), pipe.getFieldName(f)));
  return ArrayAttr::get(ws.getContext(), names);
}

/// Bytes one TMA copy moves per slot: the destination's size times the trip
/// counts of the loops between it and the window start.
FailureOr<int64_t> PipeBarrierBuilder::countTxBytes(const SlotWrite &write,
                                                    Operation *windowStart) {
  auto type = cast<MemRefType>(write.target.getType());
  int64_t bytes = *getBufferByteSize(type);
  for (Operation *parent = write.op->getParentOp();
       parent && parent != windowStart->getParentOp();
       parent = parent->getParentOp()) {
    auto loop = dyn_cast<scf::ForOp>(parent);
    std::optional<APInt> trips =
        loop ? loop.getStaticTripCount() : std::nullopt;
    if (!trips)
      return write.op->emitError("cannot count the bytes this TMA copy adds "
                                 "to a slot of pipe '")
             << pipe.getName() << "': it sits in '" << parent->getName()
             << "', which does not run a constant number of times";
    bytes *= trips->getSExtValue();
  }
  return bytes;
}

/// Records the transports of one commit's writes and checks that TMA moves
/// the same number of bytes at every commit.
LogicalResult PipeBarrierBuilder::addWrites(ArrayRef<SlotWrite> writes,
                                            Operation *windowStart) {
  int64_t tx = 0;
  bool usesTma = false;
  for (const SlotWrite &write : writes) {
    summary.fieldTransports[write.field].insert(write.transport);
    if (write.transport != Transport::TMA)
      continue;
    FailureOr<int64_t> bytes = countTxBytes(write, windowStart);
    if (failed(bytes))
      return failure();
    tx += *bytes;
    usesTma = true;
  }
  if (!usesTma)
    return success();
  if (summary.txBytes && *summary.txBytes != tx)
    return windowStart->emitError("TMA copies ")
           << tx << " bytes into this slot of pipe '" << pipe.getName()
           << "' but " << *summary.txBytes
           << " into another; every commit must expect the same bytes";
  summary.txBytes = tx;
  return success();
}

FailureOr<BarrierAttr> PipeBarrierBuilder::buildFull(unsigned writer) {
  MLIRContext *ctx = ws.getContext();
  summary.fieldTransports.resize(pipe.getNumFields());
  for (const WriterWindow &window : collectWriterWindows(usage))
    if (failed(addWrites(window.writes, window.start)))
      return failure();

  llvm::SmallSetVector<Transport, 3> transports;
  for (auto &fieldSet : summary.fieldTransports)
    transports.insert(fieldSet.begin(), fieldSet.end());
  if (transports.contains(Transport::TMA) && transports.size() > 1) {
    std::string used;
    for (auto [i, t] : llvm::enumerate(transports))
      used += (i ? " and " : "") + stringifyTransport(t).str();
    return pipe.emitError("pipe '")
           << pipe.getName() << "' is written by " << used
           << "; no arrive rule mixes TMA with another transport in one "
              "pipe: split the TMA fields into a pipe of their own";
  }

  unsigned threads = threadsOf(writer);
  int64_t count = threads;
  ArriveKind arrive = ArriveKind::PerThread;
  if (transports.contains(Transport::TMA)) {
    count = 1;
    arrive = ArriveKind::ExpectTx;
  } else if (transports.contains(Transport::CpAsync)) {
    bool alsoGeneric = transports.contains(Transport::Generic);
    count = alsoGeneric ? 2 * threads : threads;
    arrive =
        alsoGeneric ? ArriveKind::CpAsyncAndPerThread : ArriveKind::CpAsync;
  } else if (electedArrive) {
    count = 1;
    arrive = ArriveKind::Elected;
  }

  // Generic-proxy writes that a reader hands to the tensor cores or TMA
  // need a proxy fence between the two: issued by the writer after its
  // ordinary stores, by the readers after their wait for cp.async data
  // (unless the kernel says tle.cp_async_fence = "none"). A field that only
  // generic loads read needs none.
  bool fenceCpAsync = readersFenceCpAsync(pipe);
  bool writerFence = false, readersFence = false;
  forEachAsyncProxyRead(usage, [&](WaitOp, unsigned field) {
    writerFence |= summary.fieldTransports[field].contains(Transport::Generic);
    readersFence |= fenceCpAsync &&
                    summary.fieldTransports[field].contains(Transport::CpAsync);
  });
  SmallVector<Attribute> waiters;
  for (auto reader : pipe.getReaders().getAsRange<ReaderAttr>())
    if (std::optional<unsigned> partition =
            usage.getReaderPartition(reader.getName().getValue()))
      waiters.push_back(labelOf(*partition));
  FenceKind fence = writerFence
                        ? (readersFence ? FenceKind::Both : FenceKind::Writer)
                        : (readersFence ? FenceKind::Readers : FenceKind::None);
  auto all = llvm::to_vector(llvm::seq<unsigned>(0, pipe.getNumFields()));
  return BarrierAttr::get(ctx, BarrierKind::Full, fieldNames(all), count,
                          summary.txBytes.value_or(0), arrive, fence,
                          ArrayAttr::get(ctx, {labelOf(writer)}),
                          ArrayAttr::get(ctx, waiters));
}

/// One free barrier per group of fields read by the same set of readers, so
/// that the writer can refill a group as soon as its own readers are done.
SmallVector<BarrierAttr> PipeBarrierBuilder::buildFree(unsigned writer) {
  MLIRContext *ctx = ws.getContext();
  auto readers = llvm::to_vector(pipe.getReaders().getAsRange<ReaderAttr>());
  SmallVector<BarrierAttr> barriers;
  for (const FieldGroup &group : groupFieldsByReaders(pipe)) {
    int64_t count = 0;
    SmallVector<Attribute> arrivers;
    for (unsigned i : group.readers) {
      unsigned partition =
          *usage.getReaderPartition(readers[i].getName().getValue());
      count += electedArrive ? 1 : threadsOf(partition);
      arrivers.push_back(labelOf(partition));
    }
    barriers.push_back(BarrierAttr::get(
        ctx, BarrierKind::Free, fieldNames(group.fields), count,
        /*txBytes=*/0,
        electedArrive ? ArriveKind::Elected : ArriveKind::PerThread,
        FenceKind::None, ArrayAttr::get(ctx, arrivers),
        ArrayAttr::get(ctx, {labelOf(writer)})));
  }
  return barriers;
}

FailureOr<ArrayAttr> PipeBarrierBuilder::build() {
  std::optional<unsigned> writer = usage.getWriterPartition();
  if (!writer)
    return pipe.emitError("pipe '")
           << pipe.getName() << "' is never committed in this "
           << "tle.warp_specialize, so it has no writer to count";
  for (auto reader : pipe.getReaders().getAsRange<ReaderAttr>())
    if (!usage.getReaderPartition(reader.getName().getValue()))
      return pipe.emitError("reader '")
             << reader.getName().getValue() << "' of pipe '" << pipe.getName()
             << "' never waits in this tle.warp_specialize, so its "
                "partition and arrive count are unknown";
  FailureOr<BarrierAttr> full = buildFull(*writer);
  if (failed(full))
    return failure();
  SmallVector<Attribute> barriers = {*full};
  if (!pipe.getOneShot())
    llvm::append_range(barriers, buildFree(*writer));
  return ArrayAttr::get(ws.getContext(), barriers);
}

namespace {
struct InferArriveCountsPass
    : mlir::tle::impl::TLEInferArriveCountsBase<InferArriveCountsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(requireExpandedReplicas(getOperation(), getArgument())))
      return signalPassFailure();
    if (genericArrive != "per-thread" && genericArrive != "elected") {
      getOperation()->emitError("generic-arrive must be 'per-thread' or "
                                "'elected', got '")
          << genericArrive << "'";
      return signalPassFailure();
    }
    bool elected = genericArrive == "elected";
    WalkResult result = getOperation()->walk([&](WarpSpecializeOp ws) {
      for (const PipeUsage &usage : collectPipeUsages(ws)) {
        FailureOr<ArrayAttr> barriers =
            PipeBarrierBuilder(ws, usage, elected).build();
        if (failed(barriers))
          return WalkResult::interrupt();
        usage.pipe->setAttr(TLEDialect::kBarriersAttrName, *barriers);
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
