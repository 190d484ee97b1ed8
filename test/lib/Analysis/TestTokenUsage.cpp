//===- TestTokenUsage.cpp - Test the analysis of turn tokens --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-test-token-usage: a remark at each token a tle.warp_specialize uses,
// naming the partitions that signal and await it, the named barrier it
// becomes and the threads that meet there; an error where the CTA has too
// few named barriers (checkNamedBarrierBudget).
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/TokenUsage.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tle;

namespace mlir::tle::test {
#define GEN_PASS_DEF_TLETESTTOKENUSAGE
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

namespace {
struct TestTokenUsagePass
    : public test::impl::TLETestTokenUsageBase<TestTokenUsagePass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](WarpSpecializeOp ws) {
      SmallVector<TokenUsage> tokens = collectTokenUsages(ws);
      if (failed(checkNamedBarrierBudget(ws, tokens)))
        return;
      for (const TokenUsage &usage : tokens)
        TokenOp(usage.token).emitRemark()
            << "signaled by '" << ws.getPartitionLabel(usage.signaler)
            << "', awaited by '" << ws.getPartitionLabel(usage.waiter)
            << "': named barrier " << usage.barrierId << " of " << usage.threads
            << " threads";
    });
  }
};
} // namespace
