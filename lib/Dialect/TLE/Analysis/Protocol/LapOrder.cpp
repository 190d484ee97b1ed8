//===- LapOrder.cpp - Each side uses every slot for laps 0, 1, 2, ... -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-assign-pipe-phases gives iteration i the slot i mod c and the parity
// (i / c) & 1, and an mbarrier wait returns as soon as the phase of that
// parity has completed (a fresh barrier counts its phase "-1", parity 1,
// as done). That is right only while each side uses each slot for laps 0,
// 1, 2, ... in order: a slot whose first use is lap 1 passes at once on
// the fresh barrier, and one that skips from lap 0 to lap 2 passes on the
// phase lap 0 completed. Whether a side does so depends only on its own
// sequence of iterations, not on how the partitions interleave, so the
// rule is checked on each run's sequences as they are.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/ProtocolRun.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::protocol;

std::string protocol::describeSide(const Event &e) {
  auto op = cast<PipeLifecycleOpInterface>(e.op);
  return (op.isWriterSide() ? "the " : "") + describePipeSide(op);
}

std::string protocol::getLapRule(int64_t capacity) {
  return "the parity of iteration i is (i / " + std::to_string(capacity) +
         ") & 1, which is right only when each side uses every slot for "
         "laps 0, 1, 2, ... in order (iteration = lap x capacity + slot); "
         "count the pipe's iterations from 0 in the order the slots are "
         "used, e.g. by the loop's position rather than a tile index or an "
         "offset";
}

LogicalResult protocol::checkLapOrder(ArrayRef<std::vector<Event>> events,
                                      StringRef qualifier) {
  // Per side (pipe, reader; none for the writer), the next lap of each
  // slot it has used.
  using Side = std::pair<Operation *, StringRef>;
  DenseMap<Side, DenseMap<int64_t, int64_t>> nextLaps;
  for (const std::vector<Event> &partition : events)
    for (Event e : partition) {
      if (e.token || e.pipe.getOneShot() ||
          (e.kind != EventKind::Acquire && e.kind != EventKind::Wait))
        continue;
      int64_t capacity = e.pipe.getCapacityAttr().getInt();
      int64_t slot = e.iteration % capacity, lap = e.iteration / capacity;
      int64_t &expected = nextLaps[{e.pipe, e.reader}][slot];
      if (lap == expected) {
        ++expected;
        continue;
      }
      InFlightDiagnostic diag =
          e.op->emitError()
          << describeSide(e) << " uses slot " << slot << " for lap " << lap
          << " (iteration " << e.iteration << ")" << qualifier
          << ", but its next lap of the slot is lap " << expected
          << " (iteration " << expected * capacity + slot
          << "): a lap out of order makes a wait or acquire pass "
             "on the phase of another lap (a race) or "
             "never pass; "
          << getLapRule(capacity);
      return diag;
    }
  return success();
}
