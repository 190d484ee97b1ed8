//===- ReleasePlacement.h - Where a release takes effect --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A tle.wgmma reads its shared-memory operands until a tle.wgmma_wait
// retires it, so a tle.release of a slot that a preceding multiply reads
// cannot hand the slot back where it is written: tle-lower-pipes puts its
// free arrive after the wait that retires the multiply, possibly in the
// next iteration of the loop. The protocol check must judge the kernel the
// lowering emits, so it simulates the release there. Both ask this one
// analysis, so they cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_ANALYSIS_RELEASEPLACEMENT_H
#define TLE_DIALECT_TLE_ANALYSIS_RELEASEPLACEMENT_H

#include "tle/Dialect/TLE/IR/TLEDialect.h"

namespace mlir::tle {

/// Where the free arrive of one tle.release takes effect.
struct ReleasePlacement {
  enum class Kind {
    /// At the release: no multiply before it reads the slot, or a wait
    /// between them retired it.
    AtRelease,
    /// Right after `wait`, later in the release's block.
    AfterWait,
    /// The release's scf.for carries it: right after `wait` in the next
    /// iteration, and for the last iteration right after `afterLoop`, which
    /// follows the loop.
    NextIteration,
  };
  Kind kind = Kind::AtRelease;
  WgmmaWaitOp wait;
  WgmmaWaitOp afterLoop;
};

/// Where `release` takes effect, or an error at it (naming the pipe and
/// the reader) when no tle.wgmma_wait retires the multiply reading its slot.
FailureOr<ReleasePlacement> placeRelease(ReleaseOp release);

/// Whether `wgmma` reads shared memory that `pipe` binds, through the slot
/// view of `pipe` or of any pipe whose storage may share bytes with it (a
/// pipe aliased into one of its fields).
bool readsStorageOf(WgmmaOp wgmma, PipeOp pipe);

/// Whether a tle.wgmma_wait between `wgmma` and `point` (in `wgmma`'s
/// block, `point` or the op holding it) retires `wgmma`.
bool isRetiredBefore(WgmmaOp wgmma, Operation *point);

/// Whether `op`, an op with regions, leaves no multiply it issued in
/// flight: every block of it ends with a tle.wgmma_wait pending(0) after
/// its last multiply.
bool drainsMultiplies(Operation &op);

} // namespace mlir::tle

#endif // TLE_DIALECT_TLE_ANALYSIS_RELEASEPLACEMENT_H
