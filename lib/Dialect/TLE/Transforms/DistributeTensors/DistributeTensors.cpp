//===- DistributeTensors.cpp - Tile ops to per-thread code ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every tensor with a TLE layout becomes the vector of the elements one
// thread holds (Layouts.h says which), and every tile op becomes the code
// one thread runs: element-wise arith/math ops act on those vectors
// unchanged, wgmma becomes wgmma.mma_async with shared-memory descriptors,
// reductions become in-thread folds plus warp shuffles, and loads and
// stores become vector or matrix accesses at swizzled or strided addresses
// (a view of a swizzled tile addressed where the layout puts it; a TMA
// copy of one gets that address for its later lowering, and tle.tma_store
// is expanded around the one thread that issues it). The pass
// runs before warp specialization is lowered, so the thread ids it uses
// count from 0 within each partition.
//
// The patterns live beside this file, one file per op family (Patterns.h).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"

#include "mlir/Dialect/SCF/Transforms/Patterns.h"

#define DEBUG_TYPE "tle-distribute-tensors"

namespace mlir::tle {
#define GEN_PASS_DEF_TLEDISTRIBUTETENSORS
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::distribute;

namespace {
struct TLEDistributeTensorsPass
    : mlir::tle::impl::TLEDistributeTensorsBase<TLEDistributeTensorsPass> {
  /// A layout must cover its partition's threads a whole number of times:
  /// over fewer threads it repeats, over more some of its elements would
  /// belong to threads that do not exist.
  LogicalResult checkPartitionSizes() {
    WalkResult result = getOperation()->walk([](Operation *op) {
      FailureOr<int64_t> threads = getPartitionThreads(op);
      int64_t partitionThreads = succeeded(threads) ? *threads : 0;
      for (Type type : op->getResultTypes()) {
        RankedTensorType tensor = getDistributedType(type);
        if (!tensor)
          continue;
        if (failed(verifyDistributedType(
                tensor, [&] { return op->emitOpError("result: "); })))
          return WalkResult::interrupt();
        int64_t spans = getNumThreads(tensor.getEncoding());
        if (partitionThreads != 0 && partitionThreads % spans != 0)
          return WalkResult(op->emitOpError("produces ")
                            << tensor << ", whose layout spans " << spans
                            << " threads, in a partition of "
                            << partitionThreads
                            << "; a layout must span the partition's threads "
                               "or a divisor of them");
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  /// A distributed tensor lives in the registers of one partition's
  /// threads; no function boundary can carry it (the pass converts no
  /// signature), so name the argument or result instead of failing to
  /// legalize the function.
  LogicalResult checkSignatures() {
    WalkResult result = getOperation()->walk([](FunctionOpInterface func) {
      auto hasTensor = [](TypeRange types) {
        return llvm::any_of(types, [](Type type) {
          return static_cast<bool>(getDistributedType(type));
        });
      };
      if (!hasTensor(func.getArgumentTypes()) &&
          !hasTensor(func.getResultTypes()))
        return WalkResult::advance();
      return WalkResult(func.emitOpError("@")
                        << func.getName()
                        << " takes or returns a tensor with a TLE layout, "
                           "which lives in the registers of one partition; "
                           "pass it through shared or global memory");
    });
    return failure(result.wasInterrupted());
  }

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    if (failed(checkSignatures()) || failed(checkPartitionSizes()))
      return signalPassFailure();
    DistributedTypeConverter converter;
    ConversionTarget target(*context);
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      return converter.isLegal(op) &&
             llvm::all_of(op->getRegions(), [&](Region &region) {
               return converter.isLegal(&region);
             });
    });
    target.addIllegalOp<GatherRowsOp, GatherRowsFp8Op, IotaOp, SplatOp, WgmmaOp,
                        WgmmaWaitOp, ReduceOp, BroadcastOp, ScaleOp,
                        ConvertLayoutOp, LocalLoadOp, LocalStoreOp, LoadOp,
                        StoreOp>();
    target.addDynamicallyLegalOp<TMALoadOp>(isLegalTMALoad);
    target.addDynamicallyLegalOp<TMAStoreOp>(isLegalTMAStore);
    RewritePatternSet patterns(context);
    populateElementwisePatterns(converter, patterns);
    populateWgmmaPatterns(converter, patterns);
    populateReducePatterns(converter, patterns);
    populateConvertLayoutPatterns(converter, patterns);
    populateLoadStorePatterns(converter, patterns);
    populateGatherRowsPatterns(converter, patterns);
    populateGatherRowsFp8Patterns(converter, patterns);
    populateTMAPatterns(converter, patterns);
    scf::populateSCFStructuralTypeConversions(converter, patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
