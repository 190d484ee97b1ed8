//===- TLEOps.td - TLE operations --------------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every op of the dialect, one file per group, each beside the .cpp in
// lib/Dialect/TLE/IR/ that verifies it. The generated TLEOps.*.inc and the
// dialect's reference (docs/generated/TLEDialect.md) come from this file.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_OPS
#define TLE_OPS

include "tle/Dialect/TLE/IR/PipeOps.td"
include "tle/Dialect/TLE/IR/TokenOps.td"
include "tle/Dialect/TLE/IR/ComputeOps.td"
include "tle/Dialect/TLE/IR/WarpSpecializeOp.td"

#endif // TLE_OPS
