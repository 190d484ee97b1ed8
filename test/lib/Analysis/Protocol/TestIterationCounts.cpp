//===- TestIterationCounts.cpp - Test the counts of commits and waits -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-test-iteration-counts: a remark at each tle.commit, tle.wait,
// tle.signal and tle.await with the polynomial of how often it runs, and
// at each pipe and token the comparison of the writer's count with each
// reader's (signals with awaits).
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/IterationCounts.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tle;

namespace mlir::tle::test {
#define GEN_PASS_DEF_TLETESTITERATIONCOUNTS
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

static StringRef stringifyResult(CountComparison::Result result) {
  switch (result) {
  case CountComparison::Result::Equal:
    return "equal";
  case CountComparison::Result::Differ:
    return "differ";
  case CountComparison::Result::Unknown:
    return "unknown";
  }
  llvm_unreachable("unknown result");
}

static void reportComparison(Operation *at, StringRef side,
                             const CountComparison &c) {
  at->emitRemark() << side << " '" << c.reader
                   << "': " << stringifyResult(c.result) << " ("
                   << c.committed.value_or("?") << " against "
                   << c.waited.value_or("?") << ")";
}

namespace {
struct TestIterationCountsPass
    : public test::impl::TLETestIterationCountsBase<TestIterationCountsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](WarpSpecializeOp ws) {
      ws->walk([&](Operation *op) {
        if (!isa<CommitOp, WaitOp, SignalOp, AwaitOp>(op))
          return;
        std::optional<std::string> count = describeRunCount(ws, op);
        op->emitRemark() << (count ? "runs " + *count + " times"
                                   : "runs a number of times that is not a "
                                     "polynomial");
      });
      for (const PipeUsage &usage : collectPipeUsages(ws))
        for (const CountComparison &c : compareIterationCounts(ws, usage))
          reportComparison(PipeOp(usage.pipe), "reader", c);
      for (const TokenUsage &usage : collectTokenUsages(ws))
        reportComparison(TokenOp(usage.token), "token",
                         compareTokenCounts(ws, usage));
    });
  }
};
} // namespace
