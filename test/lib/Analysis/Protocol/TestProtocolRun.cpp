//===- TestProtocolRun.cpp - Test the parts of one protocol run -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One run of the protocol check with every input at the value of the
// option `input`, part by part (ProtocolRun.h):
//
// * tle-test-partition-unroller prints each partition's events in the
//   order it makes them, releases where they take effect, or where and
//   why the run stops;
// * tle-test-barrier-simulation runs the events against the barriers and
//   reports the deadlock, race, lap or count error, or a remark at the
//   tle.warp_specialize when the run finishes;
// * tle-test-lap-order checks the lap rule on the events alone.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/ProtocolRun.h"

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::protocol;

namespace mlir::tle::test {
#define GEN_PASS_DECL
#define GEN_PASS_DEF_TLETESTPARTITIONUNROLLER
#define GEN_PASS_DEF_TLETESTBARRIERSIMULATION
#define GEN_PASS_DEF_TLETESTLAPORDER
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

static StringRef stringifyStop(Stop::Kind kind) {
  switch (kind) {
  case Stop::Kind::Opaque:
    return "a value the check cannot compute";
  case Stop::Kind::Undefined:
    return "undefined arithmetic";
  case Stop::Kind::TooLong:
    return "too many steps";
  case Stop::Kind::Negative:
    return "a negative iteration";
  }
  llvm_unreachable("unknown stop");
}

/// "acquire 'kv' 3", "release 'kv' r 2", "signal 't'".
static void printEvent(raw_ostream &os, Event e) {
  static const char *const kinds[] = {"acquire", "commit", "wait",
                                      "release", "signal", "await"};
  os << kinds[static_cast<int>(e.kind)] << " '"
     << (e.token ? e.token.getName() : e.pipe.getName()) << "'";
  if (!e.reader.empty())
    os << " " << e.reader;
  if (!e.token)
    os << " " << e.iteration;
}

namespace {
/// The events of every partition for one choice of the inputs.
struct Run {
  Run(WarpSpecializeOp ws, int64_t input)
      : usages(collectPipeUsages(ws)), tokens(collectTokenUsages(ws)),
        kernel(ws, usages, tokens), inputs(input),
        events(ws.getNumPartitions()), stops(ws.getNumPartitions()) {}

  /// Unrolls every partition; false when the kernel has a release that
  /// no wait retires, or some partition stopped.
  bool unroll() {
    if (failed(kernel.prepare()))
      return false;
    bool complete = true;
    for (unsigned p = 0; p < events.size(); ++p) {
      RunStats stats;
      if (failed(unrollPartition(kernel, p, inputs, events[p], stats))) {
        stops[p] = stats.stop;
        complete = false;
      }
    }
    return complete;
  }

  SmallVector<PipeUsage> usages;
  SmallVector<TokenUsage> tokens;
  Kernel kernel;
  Inputs inputs;
  std::vector<std::vector<Event>> events;
  SmallVector<std::optional<Stop>> stops;
};

struct TestPartitionUnrollerPass
    : public test::impl::TLETestPartitionUnrollerBase<
          TestPartitionUnrollerPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](WarpSpecializeOp ws) {
      Run run(ws, input);
      (void)run.unroll();
      for (auto [p, events] : llvm::enumerate(run.events)) {
        llvm::outs() << "partition '" << ws.getPartitionLabel(p) << "':";
        for (const Event &e : events) {
          llvm::outs() << " ";
          printEvent(llvm::outs(), e);
        }
        if (const std::optional<Stop> &stop = run.stops[p])
          llvm::outs() << " stopped by " << stringifyStop(stop->kind) << " at "
                       << describeOp(stop->at);
        llvm::outs() << "\n";
      }
    });
  }
};

struct TestBarrierSimulationPass
    : public test::impl::TLETestBarrierSimulationBase<
          TestBarrierSimulationPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](WarpSpecializeOp ws) {
      Run run(ws, input);
      if (run.unroll() && succeeded(runAgainstBarriers(run.kernel, run.events,
                                                       run.inputs.describe())))
        emitAtHead(ws, DiagnosticSeverity::Remark)
            << "the run" << run.inputs.describe() << " finishes";
    });
  }
};

struct TestLapOrderPass
    : public test::impl::TLETestLapOrderBase<TestLapOrderPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](WarpSpecializeOp ws) {
      Run run(ws, input);
      if (run.unroll() &&
          succeeded(checkLapOrder(run.events, run.inputs.describe())))
        emitAtHead(ws, DiagnosticSeverity::Remark)
            << "every side uses every slot for laps 0, 1, 2, ... in order"
            << run.inputs.describe();
    });
  }
};
} // namespace
