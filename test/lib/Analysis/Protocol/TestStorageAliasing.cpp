//===- TestStorageAliasing.cpp - Test pipes nested in another's field -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-test-storage-aliasing: a remark at each pipe with the pipes nested in
// its fields (getNestedPipes), the errors and warnings of the nesting rule
// (checkStorageAliasing), and a remark at the tle.warp_specialize when
// every pipe that shares bytes keeps the rule.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/Protocol/StorageAliasing.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tle;

namespace mlir::tle::test {
#define GEN_PASS_DEF_TLETESTSTORAGEALIASING
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

namespace {
struct TestStorageAliasingPass
    : public test::impl::TLETestStorageAliasingBase<TestStorageAliasingPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](WarpSpecializeOp ws) {
      SmallVector<PipeUsage> usages = collectPipeUsages(ws);
      for (const PipeUsage &usage : usages) {
        SmallVector<PipeOp> nested = getNestedPipes(usage.pipe, usages);
        if (nested.empty())
          continue;
        InFlightDiagnostic remark =
            PipeOp(usage.pipe).emitRemark("holds pipe ");
        for (auto [i, pipe] : llvm::enumerate(nested))
          remark << (i ? ", " : "") << "'" << pipe.getName() << "'";
      }
      if (succeeded(checkStorageAliasing(ws, usages, /*strict=*/true)))
        emitAtHead(ws, DiagnosticSeverity::Remark)
            << "every pipe that shares bytes keeps the nesting rule";
    });
  }
};
} // namespace
