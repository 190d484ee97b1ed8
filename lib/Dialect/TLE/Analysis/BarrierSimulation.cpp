//===- BarrierSimulation.cpp - Pipe events against the mbarriers ----------===//
//
// Runs the partitions' event sequences against the barrier semantics the
// lowering emits (full and free barriers per slot, phase parity), and
// explains a state in which every unfinished partition blocks: the blocked
// op of each, the wait-for cycle, and where deferred releases take effect.
//
//===----------------------------------------------------------------------===//

#include "ProtocolRun.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::protocol;

namespace {

/// The barrier state of one pipe, as the hardware would hold it, for the
/// slots used so far: the memory grows with the events, not the capacity.
struct RingState {
  struct Slot {
    /// Completed phases of the full barrier and of each free barrier, and
    /// which readers arrived in each free barrier's current phase.
    int64_t fullPhases = 0;
    SmallVector<int64_t> freePhases;
    SmallVector<SmallVector<bool>> arrived;
  };

  PipeOp pipe;
  int64_t capacity;
  SmallVector<FieldGroup> groups;
  SmallVector<StringRef> readers;
  DenseMap<int64_t, Slot> slots;
  /// Iterations committed, and waited for by each reader.
  int64_t commits = 0;
  SmallVector<int64_t> waits;

  explicit RingState(PipeOp pipe)
      : pipe(pipe), capacity(pipe.getCapacityAttr().getInt()),
        groups(groupFieldsByReaders(pipe)) {
    for (auto reader : pipe.getReaders().getAsRange<ReaderAttr>())
      readers.push_back(reader.getName().getValue());
    waits.assign(readers.size(), 0);
  }

  Slot &slotOf(int64_t iteration) {
    auto [it, inserted] = slots.try_emplace(iteration % capacity);
    if (inserted) {
      it->second.freePhases.assign(groups.size(), 0);
      it->second.arrived.assign(groups.size(),
                                SmallVector<bool>(readers.size(), false));
    }
    return it->second;
  }
  int64_t parityOf(int64_t iteration) {
    return pipe.getOneShot() ? 0 : (iteration / capacity) & 1;
  }
  unsigned readerIndex(StringRef reader) const {
    return llvm::find(readers, reader) - readers.begin();
  }

  /// mbarrier.try_wait.parity P succeeds once the phase with parity P has
  /// completed, i.e. while the current phase's parity differs from P.
  bool canProceed(const Event &e) {
    Slot &slot = slotOf(e.iteration);
    int64_t parity = parityOf(e.iteration);
    if (e.kind == EventKind::Wait)
      return (slot.fullPhases & 1) != parity;
    if (e.kind == EventKind::Acquire)
      return llvm::all_of(slot.freePhases, [&](int64_t phases) {
        return (phases & 1) != (parity ^ 1);
      });
    return true;
  }

  void apply(const Event &e) {
    Slot &slot = slotOf(e.iteration);
    if (e.kind == EventKind::Commit) {
      ++slot.fullPhases;
      ++commits;
    }
    if (e.kind == EventKind::Wait)
      ++waits[readerIndex(e.reader)];
    if (e.kind != EventKind::Release)
      return;
    unsigned reader = readerIndex(e.reader);
    for (auto [g, group] : llvm::enumerate(groups)) {
      if (!llvm::is_contained(group.readers, reader))
        continue;
      SmallVector<bool> &arrived = slot.arrived[g];
      arrived[reader] = true;
      if (llvm::all_of(group.readers, [&](unsigned r) { return arrived[r]; })) {
        ++slot.freePhases[g];
        arrived.assign(arrived.size(), false);
      }
    }
  }

  /// Readers whose release the acquire of `e` still needs.
  SmallVector<StringRef> missingReleases(const Event &e) {
    Slot &slot = slotOf(e.iteration);
    SmallVector<StringRef> missing;
    for (auto [g, group] : llvm::enumerate(groups))
      for (unsigned r : group.readers)
        if (!slot.arrived[g][r] && !llvm::is_contained(missing, readers[r]))
          missing.push_back(readers[r]);
    return missing;
  }
};

class Simulation {
public:
  Simulation(Kernel &kernel, std::vector<std::vector<Event>> events)
      : kernel(kernel), ws(kernel.ws), events(std::move(events)),
        pcs(this->events.size(), 0) {
    for (const PipeUsage &usage : kernel.usages)
      rings.insert({usage.pipe, RingState(usage.pipe)});
  }

  /// Runs until every partition finishes (true) or none can move (false).
  bool run();
  /// Reports the blocked state after run() returned false.
  void reportDeadlock(StringRef qualifier);
  /// Reports a pipe whose writer and a reader count different iterations
  /// after run() returned true; fails if there is one.
  LogicalResult checkCounts(StringRef qualifier);

private:
  const PipeUsage &usageOf(PipeOp pipe) {
    return *llvm::find_if(kernel.usages,
                          [&](const PipeUsage &u) { return u.pipe == pipe; });
  }
  bool finished(unsigned p) { return pcs[p] == events[p].size(); }
  /// The partitions the blocked event of `p` waits for.
  SmallVector<unsigned> blockers(unsigned p);
  std::string describe(unsigned p);

  Kernel &kernel;
  WarpSpecializeOp ws;
  std::vector<std::vector<Event>> events;
  SmallVector<size_t> pcs;
  llvm::MapVector<Operation *, RingState> rings;
};

bool Simulation::run() {
  bool progress = true;
  while (progress) {
    progress = false;
    for (unsigned p = 0; p < events.size(); ++p) {
      while (!finished(p)) {
        const Event &e = events[p][pcs[p]];
        RingState &ring = rings.find(e.pipe)->second;
        if (!ring.canProceed(e))
          break;
        ring.apply(e);
        ++pcs[p];
        progress = true;
      }
    }
  }
  return llvm::all_of(llvm::seq<unsigned>(0, events.size()),
                      [&](unsigned p) { return finished(p); });
}

SmallVector<unsigned> Simulation::blockers(unsigned p) {
  const Event &e = events[p][pcs[p]];
  const PipeUsage &usage = usageOf(e.pipe);
  if (e.kind == EventKind::Wait)
    return {*usage.getWriterPartition()};
  SmallVector<unsigned> result;
  for (StringRef reader : rings.find(e.pipe)->second.missingReleases(e))
    if (std::optional<unsigned> q = usage.getReaderPartition(reader))
      result.push_back(*q);
  return result;
}

std::string Simulation::describe(unsigned p) {
  Event e = events[p][pcs[p]];
  RingState &ring = rings.find(e.pipe)->second;
  const PipeUsage &usage = usageOf(e.pipe);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "partition '" << ws.getPartitionLabel(p) << "' ";
  if (e.kind == EventKind::Wait) {
    unsigned writer = *usage.getWriterPartition();
    os << "waits as reader '" << e.reader << "' for ";
    if (!e.pipe.getOneShot())
      os << "iteration " << e.iteration << " of ";
    os << "pipe '" << e.pipe.getName() << "', which partition '"
       << ws.getPartitionLabel(writer) << "' has not committed";
    if (finished(writer))
      os << " and never will (it has finished)";
    return text;
  }
  os << "waits to acquire iteration " << e.iteration << " of pipe '"
     << e.pipe.getName() << "' (slot " << e.iteration % ring.capacity
     << "), which needs iteration " << e.iteration - ring.capacity
     << " released by ";
  llvm::interleave(
      ring.missingReleases(e), os,
      [&](StringRef reader) {
        os << "reader '" << reader << "'";
        std::optional<unsigned> q = usage.getReaderPartition(reader);
        if (q && finished(*q))
          os << " (partition '" << ws.getPartitionLabel(*q)
             << "' has finished)";
        if (!q)
          return;
        // Name where a deferred release takes effect: that, not where it
        // is written, is what the writer waits for.
        for (PipeLifecycleOpInterface op : usage.opsByPartition.lookup(*q)) {
          auto it = kernel.placements.find(op);
          if (it != kernel.placements.end() &&
              it->second.kind != ReleasePlacement::Kind::AtRelease) {
            os << ", whose release takes effect only after "
               << describeOp(it->second.wait)
               << " retires the tle.wgmma reading the slot";
            return;
          }
        }
      },
      ", ");
  return text;
}

void Simulation::reportDeadlock(StringRef qualifier) {
  SmallVector<unsigned> blocked;
  for (unsigned p = 0; p < events.size(); ++p)
    if (!finished(p))
      blocked.push_back(p);

  // Follow the wait-for edges from the first blocked partition; revisiting
  // a partition closes a cycle.
  SmallVector<unsigned> path = {blocked.front()};
  std::string cycle;
  while (true) {
    SmallVector<unsigned> next = blockers(path.back());
    auto it = llvm::find_if(next, [&](unsigned q) { return !finished(q); });
    if (it == next.end())
      break;
    auto seen = llvm::find(path, *it);
    if (seen != path.end()) {
      for (auto pit = seen; pit != path.end(); ++pit)
        cycle += "'" + ws.getPartitionLabel(*pit) + "' -> ";
      cycle += "'" + ws.getPartitionLabel(*it) + "'";
      break;
    }
    path.push_back(*it);
  }

  const Event &first = events[blocked.front()][pcs[blocked.front()]];
  InFlightDiagnostic diag = first.op->emitError("deadlock");
  diag << qualifier << ": ";
  if (!cycle.empty())
    diag << "partitions wait on each other in a cycle " << cycle << "; ";
  diag << describe(blocked.front());
  for (unsigned p : llvm::drop_begin(blocked))
    diag.attachNote(events[p][pcs[p]].op->getLoc()) << describe(p);
}

LogicalResult Simulation::checkCounts(StringRef qualifier) {
  for (auto &[op, ring] : rings) {
    if (ring.pipe.getOneShot())
      continue;
    for (auto [reader, waits] : llvm::zip(ring.readers, ring.waits)) {
      if (waits == ring.commits)
        continue;
      auto iterations = [](int64_t n) {
        return std::to_string(n) + (n == 1 ? " iteration" : " iterations");
      };
      return ring.pipe.emitError("the writer of pipe '")
             << ring.pipe.getName() << "' commits " << iterations(ring.commits)
             << " but reader '" << reader << "' waits for " << iterations(waits)
             << qualifier
             << (waits < ring.commits
                     ? "; the iterations it skips are never read"
                     : "; it waits for iterations never committed");
    }
  }
  return success();
}

} // namespace

LogicalResult
protocol::runAgainstBarriers(Kernel &kernel,
                             std::vector<std::vector<Event>> events,
                             StringRef qualifier) {
  Simulation simulation(kernel, std::move(events));
  if (!simulation.run()) {
    simulation.reportDeadlock(qualifier);
    return failure();
  }
  return simulation.checkCounts(qualifier);
}
