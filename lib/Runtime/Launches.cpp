//===- Launches.cpp - Back-to-back launches under the watchdog ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Launches.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

using namespace tle::runtime;
using namespace tle::runtime::detail;

namespace {
using Clock = std::chrono::steady_clock;

/// One batch in progress: launch `enqueued` is the next to enqueue,
/// launch `finished` the next to wait for. Launch i uses the events of slot
/// i % window, which the launch `window` before it has released.
class BatchRunner {
public:
  BatchRunner(const Driver &driver, CUstream stream,
              std::vector<CUevent> &events,
              const std::function<Status()> &enqueue, const LaunchBatch &batch,
              std::vector<double> &times)
      : driver(driver), stream(stream), events(events), enqueue(enqueue),
        batch(batch), times(times) {}

  Status run();

private:
  int total() const { return batch.untimed + batch.timed; }
  CUevent start(int launch) const { return events[2 * (launch % window)]; }
  CUevent stop(int launch) const { return events[2 * (launch % window) + 1]; }
  Status createEvents();
  Status enqueueNext();
  Status recordTime();
  Status hang() const;

  const Driver &driver;
  CUstream stream;
  std::vector<CUevent> &events;
  const std::function<Status()> &enqueue;
  const LaunchBatch &batch;
  std::vector<double> &times;
  int window = 0;
  int enqueued = 0;
  int finished = 0;
};
} // namespace

Status BatchRunner::createEvents() {
  while (events.size() < size_t(2 * window)) {
    CUevent event;
    if (Status s = driver.check(driver.eventCreate(&event, CU_EVENT_DEFAULT),
                                "cuEventCreate");
        !s)
      return s;
    events.push_back(event);
  }
  return Status::ok();
}

/// A timed launch sits between its two events; every launch is followed by
/// one, which the host polls to see it finish.
Status BatchRunner::enqueueNext() {
  int launch = enqueued++;
  if (launch >= batch.untimed)
    if (Status s = driver.check(driver.eventRecord(start(launch), stream),
                                "cuEventRecord");
        !s)
      return s;
  if (Status s = enqueue(); !s)
    return s;
  return driver.check(driver.eventRecord(stop(launch), stream),
                      "cuEventRecord");
}

Status BatchRunner::recordTime() {
  float ms = 0;
  if (Status s = driver.check(
          driver.eventElapsedTime(&ms, start(finished), stop(finished)),
          "cuEventElapsedTime");
      !s)
    return s;
  times.push_back(ms);
  return Status::ok();
}

Status BatchRunner::hang() const {
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%g", batch.watchdogSeconds);
  return Status::hang("kernel '" + batch.kernel + "' did not finish within " +
                      seconds +
                      " s; a pipe is probably deadlocked (a reader that never "
                      "releases, or a wait that is never committed)");
}

/// Polls with sleeps that grow from 20 us to 1 ms while nothing finishes:
/// short kernels are seen finishing quickly, long ones cost little CPU. A
/// launch that finishes starts the next one's watchdog period.
Status BatchRunner::run() {
  window = std::min(total(), kMaxLaunchesInFlight);
  if (Status s = createEvents(); !s)
    return s;
  while (enqueued < window)
    if (Status s = enqueueNext(); !s)
      return s;
  auto period = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(batch.watchdogSeconds));
  Clock::time_point deadline = Clock::now() + period;
  const std::chrono::microseconds shortest(20), longest(1000);
  std::chrono::microseconds pause = shortest;
  while (finished < total()) {
    CUresult result = driver.eventQuery(stop(finished));
    if (result == CUDA_SUCCESS) {
      Status s = finished >= batch.untimed ? recordTime() : Status::ok();
      ++finished;
      if (s && enqueued < total())
        s = enqueueNext();
      if (!s)
        return s;
      deadline = Clock::now() + period;
      pause = shortest;
      continue;
    }
    if (result != CUDA_ERROR_NOT_READY)
      return Status::error("kernel '" + batch.kernel +
                           "' failed: " + driver.describe(result));
    if (Clock::now() > deadline)
      return hang();
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, longest);
  }
  return Status::ok();
}

Status detail::runLaunches(const Driver &driver, CUstream stream,
                           std::vector<CUevent> &events,
                           const std::function<Status()> &enqueue,
                           const LaunchBatch &batch,
                           std::vector<double> &times) {
  times.clear();
  return BatchRunner(driver, stream, events, enqueue, batch, times).run();
}

Timing detail::summarize(std::vector<double> times) {
  Timing timing;
  timing.reps = static_cast<int>(times.size());
  if (times.empty())
    return timing;
  std::sort(times.begin(), times.end());
  size_t mid = times.size() / 2;
  timing.medianMs =
      times.size() % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  timing.minMs = times.front();
  timing.maxMs = times.back();
  return timing;
}
