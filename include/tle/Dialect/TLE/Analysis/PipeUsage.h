//===- PipeUsage.h - Who uses each pipe, and how ----------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The facts every sync pass starts from: which partition of a
// tle.warp_specialize writes each pipe, which partition each reader runs on,
// how the writer fills the slots (its transport) and whether a reader hands
// them to the async proxy.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_PIPEUSAGE_H
#define TLE_DIALECT_TLE_ANALYSIS_PIPEUSAGE_H

#include "tle/Dialect/TLE/IR/TLEDialect.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::tle {

/// How a writer puts data into a slot.
enum class Transport {
  /// Ordinary shared-memory stores from registers (generic proxy).
  Generic,
  /// Non-bulk cp.async copies from global memory.
  CpAsync,
  /// Bulk tensor copies (TMA) that complete on an mbarrier (async proxy).
  TMA,
};

StringRef stringifyTransport(Transport transport);

/// The lifecycle ops of one pipe within one tle.warp_specialize, grouped by
/// the partition they sit in.
struct PipeUsage {
  PipeOp pipe;
  /// Lifecycle ops per partition index, in program order.
  llvm::MapVector<unsigned, SmallVector<PipeLifecycleOpInterface>>
      opsByPartition;
  /// Lifecycle ops outside every partition region.
  SmallVector<PipeLifecycleOpInterface> stray;

  /// The partition of the first writer-side op, if any.
  std::optional<unsigned> getWriterPartition() const;
  /// The partition of the first op of `reader`, if any.
  std::optional<unsigned> getReaderPartition(StringRef reader) const;
};

/// The pipes that `ws` uses, in the order their declarations appear.
SmallVector<PipeUsage> collectPipeUsages(WarpSpecializeOp ws);

/// One op that writes a field of a pipe slot.
struct SlotWrite {
  Operation *op;
  /// The memref the op writes (a slot view or a view derived from it).
  Value target;
  unsigned field;
  Transport transport;
};

/// The ops (nested ones included) that write the slot views of `acquire`
/// before its matching commit. Views are followed through view-like ops.
SmallVector<SlotWrite> collectSlotWrites(AcquireOp acquire);

/// The ops that write the slot views of `wait`, followed through view-like
/// ops and the loops that carry them (the view check rejects any use
/// outside the window); `field` indexes the pipe's fields.
SmallVector<SlotWrite> collectReaderWrites(WaitOp wait);

/// The ops in the writer partition that write the buffers of a one_shot
/// pipe before `commit`.
SmallVector<SlotWrite> collectOneShotWrites(CommitOp commit);

/// One window of a pipe's writer and what it writes in it.
struct WriterWindow {
  /// The op that opens it: a tle.acquire, or the tle.commit of a one_shot
  /// pipe (whose writes come before it).
  Operation *start;
  SmallVector<SlotWrite> writes;
};

/// Every window of the pipe's writer partition, in program order.
SmallVector<WriterWindow> collectWriterWindows(const PipeUsage &usage);

/// Calls `fn` for every wait of a reader of the pipe and each field of the
/// wait whose view the async proxy reads (isReadByAsyncProxy).
void forEachAsyncProxyRead(const PipeUsage &usage,
                           function_ref<void(WaitOp, unsigned field)> fn);

/// The waits that hand data the writer copied with cp.async to the async
/// proxy: without fence.proxy.async in the reader between the wait and the
/// read, the PTX memory model does not order the two.
SmallVector<WaitOp> findCpAsyncHandoffs(const PipeUsage &usage);

/// Whether `op` reads shared memory through the async proxy: a tensor-core
/// operand or descriptor, or the source of a TMA store that is not
/// tle.tma_store (which fences for itself).
bool readsThroughAsyncProxy(Operation *op);

/// The pipe buffer whose slot `view` shows: `view` comes, through view-like
/// ops and the iter_args of loops that carry it, from a tle.acquire or
/// tle.wait. Null for any other memref.
Value getViewedBuffer(Value view);

/// Whether `view` (or a view derived from it, or carried by a loop) is read
/// through the async proxy (tensor-core descriptors, TMA stores).
bool isReadByAsyncProxy(Value view);

/// The commit that closes `acquire`: the next tle.commit of the same pipe
/// and iteration in the same block, or null.
CommitOp findMatchingCommit(AcquireOp acquire);

/// Fields of a pipe that are read by exactly the same readers; each such
/// group gets its own slot-free barrier.
struct FieldGroup {
  SmallVector<unsigned> fields;
  /// Indices into the pipe's readers.
  SmallVector<unsigned> readers;
};
SmallVector<FieldGroup> groupFieldsByReaders(PipeOp pipe);

/// Whether two iteration values certainly denote the same iteration: the
/// same affine expression (IterationExpr), or both absent (one_shot).
bool isSameIteration(Value a, Value b);

/// Whether `a` and `b` are ops of the same side of the same pipe: its
/// writer, or one reader.
bool isSameSide(PipeLifecycleOpInterface a, PipeLifecycleOpInterface b);

/// "writer of pipe 'kv'" / "reader 'left' of pipe 'kv'", for diagnostics.
std::string describePipeSide(PipeLifecycleOpInterface op);

/// "iteration 2", "iteration <the loop variable of the scf.for at line 7>",
/// or "its only iteration" for a one_shot pipe's (null) iteration.
std::string describeIteration(Value iteration);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_PIPEUSAGE_H
