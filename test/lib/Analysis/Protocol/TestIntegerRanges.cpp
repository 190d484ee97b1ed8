//===- TestIntegerRanges.cpp - Test the ranges of a kernel's integers -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-test-integer-ranges: a remark at each op of a function carrying a
// `tag` string with the signed range of its result and whether it is never
// negative, as the protocol check's integer range analysis finds it.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/IntegerRanges.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tle;

namespace mlir::tle::test {
#define GEN_PASS_DEF_TLETESTINTEGERRANGES
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

static void reportTagged(Operation *op, const IntegerRanges &ranges) {
  auto tag = op->getAttrOfType<StringAttr>("tag");
  if (!tag || op->getNumResults() != 1)
    return;
  Value result = op->getResult(0);
  InFlightDiagnostic remark = op->emitRemark("'") << tag.getValue() << "' ";
  std::optional<ConstantIntRanges> range = ranges.getRange(result);
  if (!range) {
    remark << "has no range";
    return;
  }
  remark << "in [" << range->smin().getSExtValue() << ", "
         << range->smax().getSExtValue() << "], "
         << (ranges.isNeverNegative(result) ? "never negative"
                                            : "may be negative");
}

namespace {
struct TestIntegerRangesPass
    : public test::impl::TLETestIntegerRangesBase<TestIntegerRangesPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](FunctionOpInterface kernel) {
      IntegerRanges ranges(kernel);
      kernel->walk([&](Operation *op) { reportTagged(op, ranges); });
    });
  }
};
} // namespace
