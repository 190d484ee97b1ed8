//===- TestKernelPlacement.cpp - Test where a kernel's partitions sit -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-test-kernel-placement: a remark at each tle.warp_specialize the
// lowering can place (verifyKernelPlacement), the error where it cannot.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/KernelPlacement.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tle;

namespace mlir::tle::test {
#define GEN_PASS_DEF_TLETESTKERNELPLACEMENT
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

namespace {
struct TestKernelPlacementPass
    : public test::impl::TLETestKernelPlacementBase<TestKernelPlacementPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](WarpSpecializeOp ws) {
      if (succeeded(verifyKernelPlacement(ws)))
        emitAtHead(ws, DiagnosticSeverity::Remark)
            << "the lowering can split the kernel's warps here";
    });
  }
};
} // namespace
