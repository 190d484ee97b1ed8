//===- KernelPlacement.h - Where a tle.warp_specialize may sit --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The lowering turns a kernel's tle.warp_specialize into the dispatch of
// the kernel's warps and moves the code after it into the default
// partition's branch. That takes one op, directly in the one-block body of
// a func.func that returns nothing. The protocol check rejects any other
// placement before it derives a sync plan that could not be lowered.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_KERNELPLACEMENT_H
#define TLE_DIALECT_TLE_ANALYSIS_KERNELPLACEMENT_H

#include "tle/Dialect/TLE/IR/TLEDialect.h"

namespace mlir::tle {

/// Fails after an error at `ws` when the lowering cannot place it (a second
/// tle.warp_specialize in its kernel is the one reported).
LogicalResult verifyKernelPlacement(WarpSpecializeOp ws);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_KERNELPLACEMENT_H
