//===- ProtocolSimulation.h - Run partitions against barriers ---*- C++ -*-===//
//
// Executes the partitions of a tle.warp_specialize symbolically: each
// partition's lifecycle ops are unrolled into a sequence of events (with
// constant trip counts, and a chosen value for every symbolic one), then the
// sequences are run against the mbarrier semantics the compiler will emit
// (full/free barriers per slot, phase parity). A state in which every
// unfinished partition blocks is a deadlock that will happen on the GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_PROTOCOLSIMULATION_H
#define TLE_DIALECT_TLE_ANALYSIS_PROTOCOLSIMULATION_H

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"

namespace mlir::tle {

/// Emits an error describing the first deadlock found and fails; succeeds
/// when none is found or when the partitions cannot be unrolled (a loop
/// bound or branch condition computed from memory, for instance).
LogicalResult checkForDeadlock(WarpSpecializeOp ws, ArrayRef<PipeUsage> usages);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_PROTOCOLSIMULATION_H
