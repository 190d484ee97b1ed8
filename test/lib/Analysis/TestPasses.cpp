//===- TestPasses.cpp - Register the analyses' test passes ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The passes of TestPasses.td, which tle-opt registers when it is built
// with TLE_INCLUDE_TESTS.
//
//===----------------------------------------------------------------------===//

#include "mlir/Pass/Pass.h"

namespace mlir::tle::test {
#define GEN_PASS_DECL
#include "TestPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "TestPasses.h.inc"

void registerTestPasses() { registerTLETestPasses(); }
} // namespace mlir::tle::test
