//===- Launches.h - Back-to-back launches under the watchdog ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every launch the runtime waits for goes through runLaunches: the launches
// are enqueued back to back on one stream, each followed by an event (and,
// when timed, preceded by one), and the host then polls the events, never
// blocking in the driver, so that a deadlocked kernel is reported instead
// of hanging the process.
//
// Back to back matters for timing: waiting for each launch before the next
// leaves the GPU idle between launches, so each one starts cool and at full
// boost clock, while a peer timed back to back (CUDA events around a loop,
// triton.testing.do_bench) runs power-capped. Both are timed alike only if
// the launches queue up the same way.
//
// The functions take the driver as a parameter so that the unit tests can
// drive them with a fake one.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_LIB_RUNTIME_LAUNCHES_H
#define TLE_LIB_RUNTIME_LAUNCHES_H

#include "Driver.h"

#include <functional>
#include <string>
#include <vector>

namespace tle::runtime::detail {

/// Launches in flight at most. cuLaunchKernel blocks, inside the driver and
/// beyond the watchdog's reach, once a stream's queue is full (about a
/// thousand commands); a launch and its two events take three.
constexpr int kMaxLaunchesInFlight = 128;

/// One batch: `untimed` launches (warm-up), then `timed` ones, of the
/// kernel called `kernel` (for messages).
struct LaunchBatch {
  std::string kernel;
  int untimed = 0;
  int timed = 0;
  /// A hang is a batch in which no launch finishes for this long: the
  /// first has this long from when the batch is enqueued, each next one
  /// this long from when the one before it finished. A batch of n launches
  /// may thus take up to n times as long, and a deadlocked kernel is
  /// reported this long after the last launch that finished.
  double watchdogSeconds = 10;
};

/// Runs `batch` on `stream`: `enqueue` enqueues one launch. Events come from
/// `events`, which grows (through the driver) to two per launch in flight
/// and belongs to the caller. On success, `times` holds the milliseconds
/// of each timed launch between its two events, in order. Fails with
/// TLE_RT_HANG after the watchdog, or with the error a launch reported.
Status runLaunches(const Driver &driver, CUstream stream,
                   std::vector<CUevent> &events,
                   const std::function<Status()> &enqueue,
                   const LaunchBatch &batch, std::vector<double> &times);

/// The median (of an even count, the mean of the two middle times),
/// minimum and maximum of `times`.
Timing summarize(std::vector<double> times);

} // namespace tle::runtime::detail

#endif // TLE_LIB_RUNTIME_LAUNCHES_H
