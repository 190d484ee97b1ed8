//===- ProtocolRun.h - What the parts of one protocol run share -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The protocol check (ProtocolSimulation.cpp) chooses inputs and runs the
// kernel once per choice: PartitionUnroller.cpp interprets each partition
// into a sequence of lifecycle events, and BarrierSimulation.cpp runs the
// sequences against the mbarriers. This header holds what passes between
// them; the protocol check's own code and its test passes use it.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_PROTOCOLRUN_H
#define TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_PROTOCOLRUN_H

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/ReleasePlacement.h"
#include "tle/Dialect/TLE/Analysis/TokenUsage.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "llvm/ADT/SetVector.h"

#include <vector>

namespace mlir::tle::protocol {

/// Bounds the work of one run (pipe operations plus loop iterations), so
/// that neither capacities nor trip counts make the check slow.
constexpr size_t kMaxSteps = size_t(1) << 20;
/// The largest value an input takes while the check lengthens loops.
constexpr int64_t kMaxInput = int64_t(1) << 40;

/// `value` as an integer of `type` holds it: i1 as 0 or 1, narrower
/// integers wrapped and sign-extended.
int64_t normalize(Type type, int64_t value);

enum class EventKind { Acquire, Commit, Wait, Release, Signal, Await };

/// One pipe lifecycle op or token op, as a partition executes it.
struct Event {
  Operation *op;
  EventKind kind;
  /// The pipe, or null for a token event.
  PipeOp pipe;
  StringRef reader;
  int64_t iteration;
  /// The token of a tle.signal or tle.await, or null.
  TokenOp token = {};
};

/// The partitions' structure, the releases' placements, and which values
/// are inputs.
struct Kernel {
  Kernel(WarpSpecializeOp ws, ArrayRef<PipeUsage> usages,
         ArrayRef<TokenUsage> tokens)
      : ws(ws), usages(usages), tokens(tokens) {}

  /// Finds the ops that hold lifecycle or token ops and where each
  /// release takes effect; fails after an error at a release that no
  /// tle.wgmma_wait retires. Runs before anything unrolls the partitions.
  LogicalResult prepare();

  WarpSpecializeOp ws;
  ArrayRef<PipeUsage> usages;
  ArrayRef<TokenUsage> tokens;
  /// Ops that hold lifecycle or token ops, in program order, with the
  /// largest capacity of a pipe used inside each (1 for a token).
  llvm::MapVector<Operation *, int64_t> holders;
  DenseMap<Operation *, ReleasePlacement> placements;
  /// The releases whose free arrive follows each tle.wgmma_wait.
  DenseMap<Operation *, SmallVector<Operation *>> releasedAfter;

  /// Whether `value` is computed before the tle.warp_specialize from
  /// something the check cannot know: then the check chooses it.
  bool isInput(Value value) const;
  bool isInsidePartitions(Value value) const {
    return ws->isAncestor(value.getParentRegion()->getParentOp());
  }
  /// The inputs `value` is computed from. Through the loop variable of an
  /// enclosing loop, those of its upper bound when `throughUpperBounds`.
  void collectInputs(Value value, bool throughUpperBounds,
                     llvm::SetVector<Value> &inputs) const;
};

/// The values the check chose for the inputs of one run.
class Inputs {
public:
  explicit Inputs(int64_t fallback) : fallback(fallback) {}

  int64_t get(Value input) {
    used.insert(input);
    auto it = values.find(input);
    return normalize(input.getType(),
                     it == values.end() ? fallback : it->second);
  }
  void set(Value input, int64_t value) { values[input] = value; }
  /// These inputs with `input` at `value`, none used yet.
  Inputs with(Value input, int64_t value) const {
    Inputs copy(fallback);
    copy.values = values;
    copy.set(input, value);
    return copy;
  }
  /// Doubles `input`; false when it is already as large as it gets, or a
  /// condition (i1), whose values are chosen, not grown.
  bool grow(Value input) {
    if (input.getType().isInteger(1))
      return false;
    int64_t &value = values.try_emplace(input, fallback).first->second;
    if (value >= kMaxInput)
      return false;
    value = std::min(std::max<int64_t>(value, 1) * 2, kMaxInput);
    return true;
  }
  /// " when argument 2 of @k = 5, ..." for the inputs a run used.
  std::string describe() {
    std::string text;
    llvm::raw_string_ostream os(text);
    for (auto [i, input] : llvm::enumerate(used))
      os << (i ? ", " : " when ") << describeValue(input) << " = "
         << get(input);
    return text;
  }

  llvm::SetVector<Value> used;

private:
  DenseMap<Value, int64_t> values;
  int64_t fallback;
};

/// Why a run stopped before its end.
struct Stop {
  enum class Kind {
    /// A value the run needs comes from an op the check cannot compute.
    Opaque,
    /// The arithmetic is undefined for these inputs (a division by zero).
    Undefined,
    /// More than kMaxSteps.
    TooLong,
    /// A lifecycle op works on a negative iteration.
    Negative,
  };
  Kind kind;
  /// The loop, branch or lifecycle op that needed the value.
  Operation *at;
  /// Opaque: the op whose result the check cannot compute.
  Operation *source = nullptr;
  int64_t iteration = 0;
};

struct RunStats {
  std::optional<Stop> stop;
  /// Per loop holding lifecycle ops: the most iterations of one execution.
  DenseMap<Operation *, int64_t> maxTrips;
  size_t steps = 0;
};

/// Interprets the integer arithmetic and structured control flow of
/// partition `partition` for `inputs`, appending its lifecycle ops to
/// `events` in execution order, each release where the lowering makes it
/// take effect. Fails with `stats.stop` set when the run cannot go on.
LogicalResult unrollPartition(Kernel &kernel, unsigned partition,
                              Inputs &inputs, std::vector<Event> &events,
                              RunStats &stats);

/// Runs the partitions' events against the barriers the lowering emits.
/// Errors, whose `qualifier` names the inputs, for a wait or acquire that
/// passes on the phase of another iteration than its own, for a side that
/// uses a slot's laps out of order (checkLapOrder), for a state in which
/// every unfinished partition blocks, for a reader that waits for another
/// number of iterations than the writer commits, for a signal of a token
/// that nothing orders after the await of its previous signal, and for a
/// token signaled more often than awaited.
LogicalResult runAgainstBarriers(Kernel &kernel,
                                 ArrayRef<std::vector<Event>> events,
                                 StringRef qualifier);

/// The lap rule: the slot and parity of iteration i are i mod c and
/// (i / c) & 1, and a wait passes once the phase of its parity completed,
/// so they are right only when each side (the writer, each reader) uses
/// every slot for laps 0, 1, 2, ... in program order: its k-th acquire or
/// wait on slot s is for iteration k x c + s. That holds on every
/// schedule or on none, whatever order the simulation ran the partitions
/// in. Errors at the first acquire or wait that breaks it, `qualifier`
/// naming the inputs.
LogicalResult checkLapOrder(ArrayRef<std::vector<Event>> events,
                            StringRef qualifier);

/// "the writer of pipe 'p'", "reader 'r' of pipe 'p'": the side of `e`.
std::string describeSide(const Event &e);

/// Why the lap rule holds and what to write instead, for the messages of a
/// pipe of capacity `capacity`.
std::string getLapRule(int64_t capacity);

} // namespace mlir::tle::protocol

#endif // TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_PROTOCOLRUN_H
