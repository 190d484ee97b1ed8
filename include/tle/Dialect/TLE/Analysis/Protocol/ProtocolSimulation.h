//===- ProtocolSimulation.h - Run partitions against barriers ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Executes the partitions of a tle.warp_specialize: each partition's
// lifecycle ops are unrolled into a sequence of events, with releases where
// tle-lower-pipes puts them (ReleasePlacement), then the sequences run
// against the mbarrier semantics the lowering emits (full and free barriers
// per slot, phase parity). A state in which every unfinished partition
// blocks is a deadlock that happens on the GPU for those inputs, and a
// wait or acquire that passes on the phase another iteration completed is
// a race; a side that uses a slot's laps out of order is reported as such
// whatever the schedule (the lap rule, docs/SyncDerivation.md). Turn
// tokens run against their named barriers: an await passes once the
// matching signal was made, and a signal must be ordered, through the
// waits of the run (vector clocks), after the await of the previous signal,
// since a named barrier cannot hold two signals.
//
// Inputs are chosen, not guessed: every value the kernel computes before
// the tle.warp_specialize from something the check cannot know (kernel
// arguments, block ids, loads) is an input, the same in every partition.
// The check runs with every input 0, with every input 1, and then grows
// the inputs that bound each loop holding pipe operations until that loop
// runs at least capacity + 1 and then 2 x capacity + 1 times, whatever
// arithmetic turns the inputs into its trip count, with each condition
// (an i1 input) at 0 and at 1 and each input of a loop step at 1 up to
// the total capacity plus one. What it cannot run
// (a loop bound, branch or iteration computed inside a partition from a
// value it cannot know, a loop it cannot lengthen, more events than it
// simulates) it reports as unproven; for a loop it cannot lengthen, with
// the inputs that bound it, how far it grew them, the bound that caps the
// loop where the integer ranges show one, and what to write instead.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_PROTOCOLSIMULATION_H
#define TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_PROTOCOLSIMULATION_H

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/Protocol/Unproven.h"
#include "tle/Dialect/TLE/Analysis/TokenUsage.h"

namespace mlir::tle {

/// Errors for a deadlock, a race on a slot, a lap out of order, a token
/// overrun, a negative iteration, or writer and reader counts that
/// differ, found for some inputs; emitUnproven for what could
/// not be simulated. Fails after an error (or an unproven report when
/// `strict`).
/// `observe`, when given, is called after each run with the inputs it
/// chose (" when argument 0 of @k = 5", empty for a kernel without inputs).
LogicalResult simulateProtocol(WarpSpecializeOp ws, ArrayRef<PipeUsage> usages,
                               ArrayRef<TokenUsage> tokens, bool strict,
                               function_ref<void(StringRef)> observe = {});

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_PROTOCOLSIMULATION_H
