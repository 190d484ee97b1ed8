//===- TestStorageFootprint.cpp - Test which bytes a memref covers --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-test-storage-footprint: a remark at each tle.shared_alloc and view op
// with the bytes of its allocation its result covers, or why the analysis
// cannot tell; for a view of a pipe's slot, the bytes it covers within the
// slot; and at each pipe, the bytes of each slot of each field.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/StorageFootprint.h"

#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tle;

namespace mlir::tle::test {
#define GEN_PASS_DEF_TLETESTSTORAGEFOOTPRINT
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

/// "bytes 0..255, 512..767".
static void printRanges(InFlightDiagnostic &diag,
                        const StorageFootprint &footprint) {
  if (footprint.ranges.empty()) {
    diag << "no bytes";
    return;
  }
  diag << "bytes ";
  for (auto [i, range] : llvm::enumerate(footprint.ranges))
    diag << (i ? ", " : "") << range.first << ".." << range.second - 1;
}

/// The slot view `view` is derived from, through view ops, if any.
static Value getSlotView(Value view) {
  while (auto viewLike = view.getDefiningOp<ViewLikeOpInterface>())
    view = viewLike.getViewSource();
  auto opener = view.getDefiningOp<PipeLifecycleOpInterface>();
  return opener && isa<AcquireOp, WaitOp>(*opener) ? view : Value();
}

static void reportMemref(Value memref) {
  Operation *op = memref.getDefiningOp();
  if (Value slot = getSlotView(memref)) {
    InFlightDiagnostic remark = op->emitRemark("within its slot: ");
    std::string why;
    FailureOr<StorageFootprint> within = getFootprintWithin(memref, slot, &why);
    if (failed(within))
      remark << "unknown (" << why << ")";
    else
      printRanges(remark, *within);
    return;
  }
  InFlightDiagnostic remark = op->emitRemark();
  std::string why;
  FailureOr<StorageFootprint> footprint = getStorageFootprint(memref, &why);
  if (failed(footprint)) {
    remark << "unknown (" << why << ")";
    return;
  }
  printRanges(remark, *footprint);
  remark << " of " << describeStorage(footprint->root);
}

static void reportPipe(PipeOp pipe) {
  InFlightDiagnostic remark = pipe.emitRemark();
  int64_t capacity = pipe.getCapacityAttr().getInt();
  for (auto [f, field] : llvm::enumerate(pipe.getBuffers()))
    for (int64_t slot = 0; slot < capacity; ++slot) {
      remark << (f || slot ? "; " : "") << pipe.getFieldName(f) << "[" << slot
             << "]: ";
      FailureOr<StorageFootprint> footprint = getSlotFootprint(field, slot);
      if (failed(footprint))
        remark << "unknown";
      else
        printRanges(remark, *footprint);
    }
}

namespace {
struct TestStorageFootprintPass
    : public test::impl::TLETestStorageFootprintBase<TestStorageFootprintPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (auto pipe = dyn_cast<PipeOp>(op))
        return reportPipe(pipe);
      if (isa<SharedAllocOp, ViewLikeOpInterface>(op))
        for (Value result : op->getResults())
          if (isa<MemRefType>(result.getType()))
            reportMemref(result);
    });
  }
};
} // namespace
