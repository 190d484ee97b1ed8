//===- Exchange.cpp - Scratch buffers of exchanges between threads --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A reduction across warps and a layout conversion that moves data write
// to a scratch buffer in shared memory, pass a barrier of the partition and
// read: the only lowerings that synchronize a partition (docs/Compute.md,
// "Exchanges").
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace mlir::tle;
using namespace mlir::tle::distribute;

/// The allocator places it with the other buffers.
Value distribute::createScratch(ConversionPatternRewriter &rewriter,
                                Operation *op, ArrayRef<int64_t> shape,
                                Type elementType) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&func.getFunctionBody().front());
  auto type =
      MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                      gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                                 gpu::AddressSpace::Workgroup));
  return SharedAllocOp::create(rewriter, op->getLoc(), type,
                               rewriter.getStringAttr("scratch"), IntegerAttr(),
                               IntegerAttr());
}

/// Whether `op` exchanges data between threads through shared memory, or
/// has already become code that synchronizes the partition.
static bool isExchange(Operation *op) {
  if (isa<gpu::BarrierOp>(op))
    return true;
  if (auto convert = dyn_cast<ConvertLayoutOp>(op))
    return !keepsEveryElementInPlace(convert.getSource().getType(),
                                     convert.getResult().getType());
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    ThreadMap source = getThreadMap(reduce.getSource().getType());
    return llvm::any_of(source.base[reduce.getDim()], [](const IndexTerm &t) {
      return t.mod > 1 && t.div >= hopper::kWarpSize;
    });
  }
  return false;
}

/// The barrier keeps the op's next execution from overwriting the buffer
/// while other threads still read it. Any partition barrier in between does
/// that: another exchange in the same block (in a loop, the next iteration
/// reaches it before this op again), or none is needed when the op cannot
/// run again, outside every loop.
bool distribute::needsTrailingBarrier(Operation *op) {
  bool otherBarrier = llvm::any_of(*op->getBlock(), [&](Operation &sibling) {
    return &sibling != op && isExchange(&sibling);
  });
  bool mayRunAgain = op->getParentOfType<LoopLikeOpInterface>() != nullptr;
  return mayRunAgain && !otherBarrier;
}
