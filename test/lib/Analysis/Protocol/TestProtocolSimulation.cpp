//===- TestProtocolSimulation.cpp - Test the choice of inputs -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-test-protocol-simulation: the simulation alone (simulateProtocol),
// printing the inputs of each run it makes, in order (to stderr, among its
// diagnostics), then its errors and
// warnings, or a remark at the tle.warp_specialize when it proves the
// kernel free of deadlocks and races.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/ProtocolSimulation.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tle;

namespace mlir::tle::test {
#define GEN_PASS_DEF_TLETESTPROTOCOLSIMULATION
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

namespace {
struct TestProtocolSimulationPass
    : public test::impl::TLETestProtocolSimulationBase<
          TestProtocolSimulationPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](WarpSpecializeOp ws) {
      SmallVector<PipeUsage> usages = collectPipeUsages(ws);
      SmallVector<TokenUsage> tokens = collectTokenUsages(ws);
      unsigned runs = 0;
      auto print = [&](StringRef inputs) {
        llvm::errs() << "run " << runs++ << ":"
                     << (inputs.empty() ? " without inputs" : inputs) << "\n";
      };
      if (succeeded(
              simulateProtocol(ws, usages, tokens, /*strict=*/true, print)))
        emitAtHead(ws, DiagnosticSeverity::Remark)
            << "no deadlock or race in " << runs
            << (runs == 1 ? " run" : " runs");
    });
  }
};
} // namespace
