//===- TestStorageReclaim.cpp - Test reusing a dead pipe's storage --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-test-storage-reclaim: the reclaim rule alone (checkReclaims): its
// first error, or a remark at each tle.reclaim when every one is proven.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/Protocol/StorageReclaim.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tle;

namespace mlir::tle::test {
#define GEN_PASS_DEF_TLETESTSTORAGERECLAIM
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

namespace {
struct TestStorageReclaimPass
    : public test::impl::TLETestStorageReclaimBase<TestStorageReclaimPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](WarpSpecializeOp ws) {
      if (failed(checkReclaims(ws, collectPipeUsages(ws))))
        return;
      ws->getParentOp()->walk([](ReclaimOp reclaim) {
        reclaim.emitRemark("reader '")
            << reclaim.getReader() << "' may use pipe '"
            << reclaim.getPipeOp().getName() << "' as scratch from here";
      });
    });
  }
};
} // namespace
