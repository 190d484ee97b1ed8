//===- TestReleasePlacement.cpp - Test where releases take effect ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-test-release-placement: a remark at each tle.release saying where its
// free arrive takes effect (placeRelease; an error where no tle.wgmma_wait
// retires the multiply reading its slot), and one at each op with regions
// that issues a tle.wgmma, saying whether it drains its multiplies.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/ReleasePlacement.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tle;

namespace mlir::tle::test {
#define GEN_PASS_DEF_TLETESTRELEASEPLACEMENT
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

static void reportRelease(ReleaseOp release) {
  FailureOr<ReleasePlacement> placement = placeRelease(release);
  if (failed(placement))
    return;
  InFlightDiagnostic remark = release.emitRemark("takes effect ");
  switch (placement->kind) {
  case ReleasePlacement::Kind::AtRelease:
    remark << "here";
    return;
  case ReleasePlacement::Kind::AfterWait:
    remark << "after " << describeOp(placement->wait);
    return;
  case ReleasePlacement::Kind::NextIteration:
    remark << "after " << describeOp(placement->wait)
           << " of the next iteration, and for the last iteration after "
           << describeOp(placement->afterLoop);
    return;
  }
}

namespace {
struct TestReleasePlacementPass
    : public test::impl::TLETestReleasePlacementBase<TestReleasePlacementPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (auto release = dyn_cast<ReleaseOp>(op))
        return reportRelease(release);
      if (op->getNumRegions() == 0 || isa<WarpSpecializeOp>(op) ||
          !op->getParentOfType<WarpSpecializeOp>() ||
          !op->walk([](WgmmaOp) {
               return WalkResult::interrupt();
             }).wasInterrupted())
        return;
      emitAtHead(op, DiagnosticSeverity::Remark)
          << (drainsMultiplies(*op) ? "drains its multiplies"
                                    : "may leave a multiply in flight");
    });
  }
};
} // namespace
