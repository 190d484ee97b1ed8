//===- KernelPlacement.cpp - Where a tle.warp_specialize may sit ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/KernelPlacement.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::tle;

LogicalResult tle::verifyKernelPlacement(WarpSpecializeOp ws) {
  auto kernel = dyn_cast<func::FuncOp>(ws->getParentOp());
  if (!kernel)
    return emitOpErrorAtHead(ws)
           << "must sit directly in the body of a func.func kernel, not in "
           << describeOp(ws->getParentOp())
           << ": it splits the kernel's warps once, so it cannot run in a "
              "loop or a branch";
  if (kernel.getNumResults() != 0)
    return emitOpErrorAtHead(ws)
           << "is in '@" << kernel.getName()
           << "', which returns values; a GPU kernel returns nothing";
  if (!kernel.getBody().hasOneBlock())
    return emitOpErrorAtHead(ws) << "needs a kernel body of one block";
  auto others = kernel.getBody().front().getOps<WarpSpecializeOp>();
  WarpSpecializeOp first = *others.begin();
  if (first != ws) {
    InFlightDiagnostic diag = emitOpErrorAtHead(ws)
                              << "is one of several in '@" << kernel.getName()
                              << "'; a kernel has one tle.warp_specialize";
    diag.attachNote(first.getLoc()) << "the first is here";
    return diag;
  }
  return success();
}
