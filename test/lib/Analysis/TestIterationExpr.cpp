//===- TestIterationExpr.cpp - Test iterations as affine expressions ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-test-iteration-expr: a remark at each pipe lifecycle op with the
// affine expression of its iteration, and at each tle.acquire the
// tle.commit of the same iteration that closes it (findMatchingCommit,
// which compares the expressions).
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/IterationExpr.h"
#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tle;

namespace mlir::tle::test {
#define GEN_PASS_DEF_TLETESTITERATIONEXPR
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

namespace {
struct TestIterationExprPass
    : public test::impl::TLETestIterationExprBase<TestIterationExprPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](PipeLifecycleOpInterface op) {
      Value iteration = op.getIteration();
      if (!iteration)
        return;
      InFlightDiagnostic remark = op->emitRemark("iteration ");
      remark << IterationExpr::get(iteration).describe();
      if (auto acquire = dyn_cast<AcquireOp>(*op)) {
        CommitOp commit = findMatchingCommit(acquire);
        remark << ", committed by "
               << (commit ? describeOp(commit) : "no tle.commit in its block");
      }
    });
  }
};
} // namespace
