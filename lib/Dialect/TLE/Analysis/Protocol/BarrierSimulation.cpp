//===- BarrierSimulation.cpp - Pipe events against the mbarriers ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Runs the partitions' event sequences against the barrier semantics the
// lowering emits (full and free barriers per slot, phase parity, a named
// barrier per token), and explains a state in which every unfinished
// partition blocks: the blocked op of each, the wait-for cycle, and where
// deferred releases take effect.
//
// A wait passes on whichever phase of its parity completed last, so the
// run also records which iteration completed each slot's phases: a wait
// or acquire that passes on another iteration's phase is a race, reported
// at the op (the lap rule, LapOrder.cpp, says why and what to write).
//
// A named barrier counts arrivals and holds no more than one signal: the
// signaler's bar.arrive never blocks, so nothing in the hardware stops a
// second signal from completing the barrier before the waiter syncs. The
// run therefore tracks what each event is ordered after (a vector clock per
// partition, joined at every wait that passes through another partition's
// arrive) and requires every signal but the first to be ordered after the
// await of the previous one.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/ProtocolRun.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::protocol;

namespace {

/// Per partition, how many of its events are ordered before a point of the
/// run.
using Clock = SmallVector<int64_t>;

void join(Clock &into, const Clock &from) {
  if (into.size() < from.size())
    into.resize(from.size(), 0);
  for (auto [i, events] : llvm::enumerate(from))
    into[i] = std::max(into[i], events);
}

/// The iteration of a barrier's initial phase, which a fresh mbarrier
/// counts as completed for parity 1, and of a free phase that releases of
/// different iterations completed.
constexpr int64_t kInitialPhase = -1, kMixedPhase = -2;

/// The barrier state of one pipe, as the hardware would hold it, for the
/// slots used so far: the memory grows with the events, not the capacity.
struct RingState {
  struct Slot {
    /// Completed phases of the full barrier and of each free barrier, and
    /// which readers arrived in each free barrier's current phase.
    int64_t fullPhases = 0;
    SmallVector<int64_t> freePhases;
    SmallVector<SmallVector<bool>> arrived;
    /// The iteration whose commit completed the full barrier's last phase,
    /// whose releases completed each free barrier's, and that the
    /// arrivals so far of each free barrier's current phase release.
    int64_t fullIteration = kInitialPhase;
    SmallVector<int64_t> freeIterations, arrivedIterations;
    /// What the last completed phase of the full barrier and of each free
    /// barrier is ordered after, and the arrivals so far of each free
    /// barrier's current phase.
    Clock fullClock;
    SmallVector<Clock> freeClocks, arrivedClocks;
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
      it->second.freeIterations.assign(groups.size(), kInitialPhase);
      it->second.arrivedIterations.assign(groups.size(), kInitialPhase);
      it->second.arrived.assign(groups.size(),
                                SmallVector<bool>(readers.size(), false));
      it->second.freeClocks.resize(groups.size());
      it->second.arrivedClocks.resize(groups.size());
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

  /// For a wait or acquire that passes: the iteration of the phase it
  /// passes on, when that is not the one its own iteration needs (the
  /// commit of its iteration; for an acquire of lap L >= 1 the releases of
  /// iteration i - capacity, for lap 0 the initial phase).
  std::optional<int64_t> wrongPhase(const Event &e) {
    Slot &slot = slotOf(e.iteration);
    if (e.kind == EventKind::Wait)
      return slot.fullIteration == e.iteration
                 ? std::nullopt
                 : std::optional(slot.fullIteration);
    if (e.kind != EventKind::Acquire)
      return std::nullopt;
    int64_t needed =
        e.iteration < capacity ? kInitialPhase : e.iteration - capacity;
    for (int64_t passed : slot.freeIterations)
      if (passed != needed)
        return passed;
    return std::nullopt;
  }

  /// Joins into `clock` what a wait or acquire that passes is ordered
  /// after: the arrivals of the phases it waited for.
  void joinEnabling(const Event &e, Clock &clock) {
    Slot &slot = slotOf(e.iteration);
    if (e.kind == EventKind::Wait)
      join(clock, slot.fullClock);
    if (e.kind == EventKind::Acquire)
      for (const Clock &free : slot.freeClocks)
        join(clock, free);
  }

  /// Applies `e`, made by a partition whose clock is `clock`.
  void apply(const Event &e, const Clock &clock) {
    Slot &slot = slotOf(e.iteration);
    if (e.kind == EventKind::Commit) {
      ++slot.fullPhases;
      ++commits;
      slot.fullClock = clock;
      slot.fullIteration = e.iteration;
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
      int64_t &releasing = slot.arrivedIterations[g];
      bool first = llvm::none_of(arrived, [](bool a) { return a; });
      releasing = first || releasing == e.iteration ? e.iteration : kMixedPhase;
      arrived[reader] = true;
      join(slot.arrivedClocks[g], clock);
      if (llvm::all_of(group.readers, [&](unsigned r) { return arrived[r]; })) {
        ++slot.freePhases[g];
        arrived.assign(arrived.size(), false);
        slot.freeClocks[g] = std::move(slot.arrivedClocks[g]);
        slot.arrivedClocks[g].clear();
        slot.freeIterations[g] = releasing;
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

/// The state of one token's named barrier.
struct TokenState {
  const TokenUsage *usage;
  int64_t signals = 0, awaits = 0;
  /// What the last signal is ordered after (itself included).
  Clock signalClock;
  /// The waiter's events up to and including its last await.
  int64_t awaitedAt = 0;
  Operation *lastSignal = nullptr;
};

class Simulation {
public:
  Simulation(Kernel &kernel, ArrayRef<std::vector<Event>> events)
      : kernel(kernel), ws(kernel.ws), events(events),
        pcs(this->events.size(), 0),
        clocks(this->events.size(), Clock(this->events.size(), 0)) {
    for (const PipeUsage &usage : kernel.usages)
      rings.insert({usage.pipe, RingState(usage.pipe)});
    for (const TokenUsage &usage : kernel.tokens)
      tokens.insert({usage.token, TokenState{&usage}});
  }

  enum class Outcome { Finished, Blocked, Overrun, Race };
  /// Runs until every partition finishes, none can move, a signal is found
  /// that may overrun its token, or a wait or acquire passes on another
  /// iteration's phase (both reported).
  Outcome run(StringRef qualifier);
  /// Reports the blocked state after run() returned false.
  void reportDeadlock(StringRef qualifier);
  /// Reports a pipe whose writer and a reader count different iterations
  /// after run() returned true; fails if there is one.
  LogicalResult checkCounts(StringRef qualifier);

private:
  /// Tries the next event of `p`; false when it blocks or overruns.
  bool step(unsigned p, StringRef qualifier);
  /// Tries a token event of `p`; false when it blocks or overruns.
  bool stepToken(unsigned p, const Event &e, StringRef qualifier);
  void reportOverrun(const Event &signal, TokenState &token,
                     StringRef qualifier);
  void reportRace(Event e, int64_t passed, StringRef qualifier);
  /// "partition 'wg1' awaits signal 2 of token 't', which ...".
  std::string describeAwait(unsigned p, const Event &e);
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
  ArrayRef<std::vector<Event>> events;
  SmallVector<size_t> pcs;
  /// Per partition, what its next event is ordered after.
  SmallVector<Clock> clocks;
  llvm::MapVector<Operation *, RingState> rings;
  llvm::MapVector<Operation *, TokenState> tokens;
  /// A signal overran its token, or a wait or acquire raced.
  bool stopped = false;
  bool raced = false;
};

bool Simulation::step(unsigned p, StringRef qualifier) {
  const Event &e = events[p][pcs[p]];
  if (e.token)
    return stepToken(p, e, qualifier);
  RingState &ring = rings.find(e.pipe)->second;
  if (!ring.canProceed(e))
    return false;
  if (std::optional<int64_t> passed = ring.wrongPhase(e)) {
    reportRace(e, *passed, qualifier);
    stopped = raced = true;
    return false;
  }
  ring.joinEnabling(e, clocks[p]);
  clocks[p][p] = ++pcs[p];
  ring.apply(e, clocks[p]);
  return true;
}

bool Simulation::stepToken(unsigned p, const Event &e, StringRef qualifier) {
  TokenState &token = tokens.find(e.token)->second;
  if (e.kind == EventKind::Await) {
    if (token.awaits == token.signals)
      return false;
    join(clocks[p], token.signalClock);
    clocks[p][p] = ++pcs[p];
    ++token.awaits;
    token.awaitedAt = pcs[p];
    return true;
  }
  // The previous signal must have been awaited, and this partition must
  // know it: otherwise some schedule signals again first.
  unsigned waiter = token.usage->waiter;
  if (token.signals > 0 &&
      (token.awaits < token.signals || clocks[p][waiter] < token.awaitedAt)) {
    reportOverrun(e, token, qualifier);
    stopped = true;
    return false;
  }
  clocks[p][p] = ++pcs[p];
  ++token.signals;
  token.signalClock = clocks[p];
  token.lastSignal = e.op;
  return true;
}

Simulation::Outcome Simulation::run(StringRef qualifier) {
  bool progress = true;
  while (progress) {
    progress = false;
    for (unsigned p = 0; p < events.size(); ++p) {
      while (!finished(p) && step(p, qualifier))
        progress = true;
      if (stopped)
        return raced ? Outcome::Race : Outcome::Overrun;
    }
  }
  return llvm::all_of(llvm::seq<unsigned>(0, events.size()),
                      [&](unsigned p) { return finished(p); })
             ? Outcome::Finished
             : Outcome::Blocked;
}

void Simulation::reportOverrun(const Event &signal, TokenState &token,
                               StringRef qualifier) {
  const TokenUsage &usage = *token.usage;
  TokenOp tokenOp = usage.token;
  StringRef name = tokenOp.getName();
  std::string signaler = ws.getPartitionLabel(usage.signaler);
  std::string waiter = ws.getPartitionLabel(usage.waiter);
  InFlightDiagnostic diag = signal.op->emitError("token '");
  diag << name << "' may be signaled again before its previous signal is "
       << "awaited" << qualifier << ": nothing orders this tle.signal in "
       << "partition '" << signaler << "' after partition '" << waiter
       << "' awaits the previous one, and a named barrier holds one signal, "
       << "so the second arrival could complete it without the waiter (a "
       << "race); order each signal after the previous await, e.g. by "
       << "awaiting a token from '" << waiter << "' to '" << signaler
       << "' in between";
  diag.attachNote(token.lastSignal->getLoc()) << "the previous signal";
  // The await that should come first: the waiter's next one.
  const std::vector<Event> &waits = events[usage.waiter];
  auto next = std::find_if(
      waits.begin() + pcs[usage.waiter], waits.end(), [&](const Event &e) {
        return e.token == usage.token && e.kind == EventKind::Await;
      });
  if (next != waits.end())
    diag.attachNote(next->op->getLoc()) << "the await of partition '" << waiter
                                        << "' that the previous signal is for";
  else
    diag.attachNote(tokenOp.getLoc())
        << "partition '" << waiter << "' never awaits the previous signal";
}

void Simulation::reportRace(Event e, int64_t passed, StringRef qualifier) {
  int64_t capacity = e.pipe.getCapacityAttr().getInt();
  int64_t slot = e.iteration % capacity, lap = e.iteration / capacity;
  bool wait = e.kind == EventKind::Wait;
  InFlightDiagnostic diag = e.op->emitError("the ");
  diag << (wait ? "wait of " : "acquire of ") << describeSide(e)
       << " for iteration " << e.iteration << " (slot " << slot << ", lap "
       << lap << ")" << qualifier << " passes on ";
  if (passed == kInitialPhase)
    diag << "the initial phase of the slot's " << (wait ? "full" : "free")
         << " barrier, before any " << (wait ? "commit" : "release")
         << " of the slot";
  else if (passed == kMixedPhase)
    diag << "a phase of the slot's free barrier that releases of different "
            "iterations completed";
  else
    diag << "the phase that the " << (wait ? "commit" : "releases")
         << " of iteration " << passed << " completed";
  if (!wait)
    diag << (lap == 0 ? ", not on the initial phase"
                      : ", not on the releases of iteration " +
                            std::to_string(e.iteration - capacity));
  diag << ": "
       << (wait ? "the reader would read data the writer has not written "
                  "for this iteration"
                : "the writer would refill the slot while a reader may "
                  "still read it")
       << " (a race); " << getLapRule(capacity);
}

SmallVector<unsigned> Simulation::blockers(unsigned p) {
  const Event &e = events[p][pcs[p]];
  if (e.token)
    return {tokens.find(e.token)->second.usage->signaler};
  const PipeUsage &usage = usageOf(e.pipe);
  if (e.kind == EventKind::Wait)
    return {*usage.getWriterPartition()};
  SmallVector<unsigned> result;
  for (StringRef reader : rings.find(e.pipe)->second.missingReleases(e))
    if (std::optional<unsigned> q = usage.getReaderPartition(reader))
      result.push_back(*q);
  return result;
}

std::string Simulation::describeAwait(unsigned p, const Event &e) {
  TokenState &token = tokens.find(e.token)->second;
  unsigned signaler = token.usage->signaler;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "partition '" << ws.getPartitionLabel(p) << "' awaits signal "
     << token.awaits + 1 << " of token '" << TokenOp(e.token).getName()
     << "', which partition '" << ws.getPartitionLabel(signaler)
     << "' has not made";
  if (finished(signaler))
    os << " and never will (it has finished after " << token.signals
       << (token.signals == 1 ? " signal)" : " signals)");
  return text;
}

std::string Simulation::describe(unsigned p) {
  Event e = events[p][pcs[p]];
  if (e.token)
    return describeAwait(p, e);
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
  for (auto &[op, token] : tokens) {
    // An await without its signal blocks, so only signals can be left over.
    if (token.signals == token.awaits)
      continue;
    const TokenUsage &usage = *token.usage;
    TokenOp tokenOp = usage.token;
    auto times = [](int64_t n) {
      return std::to_string(n) + (n == 1 ? " time" : " times");
    };
    return tokenOp.emitError("partition '")
           << ws.getPartitionLabel(usage.signaler) << "' signals token '"
           << tokenOp.getName() << "' " << times(token.signals)
           << " but partition '" << ws.getPartitionLabel(usage.waiter)
           << "' awaits it " << times(token.awaits) << qualifier
           << "; every signal must be awaited, or its arrivals stay on the "
              "named barrier";
  }
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

LogicalResult protocol::runAgainstBarriers(Kernel &kernel,
                                           ArrayRef<std::vector<Event>> events,
                                           StringRef qualifier) {
  Simulation simulation(kernel, events);
  switch (simulation.run(qualifier)) {
  case Simulation::Outcome::Overrun:
  case Simulation::Outcome::Race:
    return failure();
  case Simulation::Outcome::Blocked:
    // A lap skipped is the cause, and the deadlock would name an
    // iteration that no side uses.
    if (failed(checkLapOrder(events, qualifier)))
      return failure();
    simulation.reportDeadlock(qualifier);
    return failure();
  case Simulation::Outcome::Finished:
    if (failed(checkLapOrder(events, qualifier)))
      return failure();
    return simulation.checkCounts(qualifier);
  }
  llvm_unreachable("unknown outcome");
}
