//===- TestReaderWrites.cpp - Test what a reader writes in its slot -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-test-reader-writes: a remark at each op by which a reader writes its
// slot (collectReaderWrites), and the errors of checkReaderWrites for each
// tle.wait.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/Protocol/ReaderWrites.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tle;

namespace mlir::tle::test {
#define GEN_PASS_DEF_TLETESTREADERWRITES
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

namespace {
struct TestReaderWritesPass
    : public test::impl::TLETestReaderWritesBase<TestReaderWritesPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](WaitOp wait) {
      PipeOp pipe = cast<PipeLifecycleOpInterface>(*wait).getPipeOp();
      for (const SlotWrite &write : collectReaderWrites(wait))
        write.op->emitRemark("reader '")
            << wait.getReader() << "' writes field '"
            << pipe.getFieldName(write.field) << "' of its slot with "
            << stringifyTransport(write.transport);
      (void)checkReaderWrites(wait);
    });
  }
};
} // namespace
