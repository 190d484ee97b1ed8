//===- TestPipeWindows.cpp - Test the slots each partition holds ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-test-pipe-windows: the balance check of every partition
// (checkWindowBalance), its error where a window does not close, and a
// remark at each scf.for that carries a reader's window from one iteration
// to the next, with the iterations it holds where the loop starts, in its
// body and after it.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/Protocol/PipeWindows.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tle;

namespace mlir::tle::test {
#define GEN_PASS_DEF_TLETESTPIPEWINDOWS
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

namespace {
struct TestPipeWindowsPass
    : public test::impl::TLETestPipeWindowsBase<TestPipeWindowsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](WarpSpecializeOp ws) {
      CarriedWindows carried;
      for (unsigned p = 0; p < ws.getNumPartitions(); ++p)
        (void)checkWindowBalance(ws, p, carried);
      ws->walk([&](Operation *loop) {
        for (const CarriedWindow &window : carried.lookup(loop))
          emitAtHead(loop, DiagnosticSeverity::Remark)
              << "carries the window of "
              << describePipeSide(cast<PipeLifecycleOpInterface>(*window.next))
              << ": iteration <" << window.entry.describe()
              << "> where it starts, <" << window.iteration.describe()
              << "> in its body, <" << window.afterLoop.describe()
              << "> after it";
      });
    });
  }
};
} // namespace
