//===- TestSlotViews.cpp - Test that slots are touched through views ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-test-slot-views: the view checks alone (checkSlotViews,
// checkSlotBounds, checkDirectAccesses, with the windows the balance check
// finds loops to carry), their first error, or a remark at the
// tle.warp_specialize when they pass.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/Protocol/PipeWindows.h"
#include "tle/Dialect/TLE/Analysis/Protocol/SlotViews.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tle;

namespace mlir::tle::test {
#define GEN_PASS_DEF_TLETESTSLOTVIEWS
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

static LogicalResult checkViews(WarpSpecializeOp ws) {
  CarriedWindows carried;
  for (unsigned p = 0; p < ws.getNumPartitions(); ++p)
    if (failed(checkWindowBalance(ws, p, carried)))
      return failure();
  if (failed(checkSlotViews(ws, carried)) || failed(checkSlotBounds(ws)))
    return failure();
  for (const PipeUsage &usage : collectPipeUsages(ws))
    if (failed(checkDirectAccesses(ws, usage)))
      return failure();
  return success();
}

namespace {
struct TestSlotViewsPass
    : public test::impl::TLETestSlotViewsBase<TestSlotViewsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](WarpSpecializeOp ws) {
      if (succeeded(checkViews(ws)))
        emitAtHead(ws, DiagnosticSeverity::Remark)
            << "every slot is touched through its views, inside its window";
    });
  }
};
} // namespace
