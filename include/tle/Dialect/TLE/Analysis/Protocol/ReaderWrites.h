//===- ReaderWrites.h - What a reader may write in its slot -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Readers normally only read their slots, but a sole reader of a field
// may write its slot (the seesaw stages its output in a K half only one
// warp group reads). The writes must not race with the other readers of
// the slot, nor with the reader's own tensor-core multiplies, which read
// the slot through the async proxy that nothing fences inside a window.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_READERWRITES_H
#define TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_READERWRITES_H

#include "tle/Dialect/TLE/IR/TLEDialect.h"

namespace mlir::tle {

/// Checks the writes of `wait`'s reader to its slot: no other reader reads
/// the field, and each tle.wgmma of the reader that reads the field is
/// retired before the write, with none after it.
LogicalResult checkReaderWrites(WaitOp wait);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_PROTOCOL_READERWRITES_H
