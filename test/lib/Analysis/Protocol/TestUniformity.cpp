//===- TestUniformity.cpp - Test which values every thread shares ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-test-uniformity: a remark at each op carrying a `tag` string saying
// whether its results are the same in every thread of a partition, and if
// not, where they may start to differ; and the errors of
// checkUniformControl at the first pipe lifecycle op or token op that not
// every thread of its partition reaches.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/Protocol/Uniformity.h"
#include "tle/Dialect/TLE/Analysis/TokenUsage.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tle;

namespace mlir::tle::test {
#define GEN_PASS_DEF_TLETESTUNIFORMITY
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

static void reportTagged(Operation *op, const UniformityAnalysis &uniformity) {
  auto tag = op->getAttrOfType<StringAttr>("tag");
  if (!tag)
    return;
  for (Value result : op->getResults()) {
    InFlightDiagnostic remark = op->emitRemark("'") << tag.getValue() << "' ";
    if (Operation *source = uniformity.getVaryingSource(result))
      remark << "may differ between threads, from " << describeOp(source);
    else
      remark << "is uniform";
  }
}

/// The first op that not every thread of its partition reaches, as
/// tle-verify-pipes reports it.
static void checkControl(WarpSpecializeOp ws,
                         const UniformityAnalysis &uniformity) {
  ws->walk([&](Operation *op) {
    std::optional<unsigned> partition = ws.getPartitionOf(op);
    LogicalResult reached = success();
    if (auto lifecycle = dyn_cast<PipeLifecycleOpInterface>(op))
      reached =
          checkUniformControl(ws, op, describePipeSide(lifecycle),
                              lifecycle.getIteration(), *partition, uniformity);
    if (isa<SignalOp, AwaitOp>(op))
      reached = checkUniformControl(ws, op, describeTokenUse(op), Value(),
                                    *partition, uniformity);
    return WalkResult(reached);
  });
}

namespace {
struct TestUniformityPass
    : public test::impl::TLETestUniformityBase<TestUniformityPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](WarpSpecializeOp ws) {
      UniformityAnalysis uniformity(ws->getParentOp());
      ws->getParentOp()->walk(
          [&](Operation *op) { reportTagged(op, uniformity); });
      checkControl(ws, uniformity);
    });
  }
};
} // namespace
