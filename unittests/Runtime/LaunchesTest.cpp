//===- LaunchesTest.cpp - Watched, timed launches on a fake driver --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// runLaunches drives the CUDA driver through the Driver table, so a table
// of fake functions stands in for a GPU here: it runs what is enqueued on
// its one stream in order, each kernel for the duration the test gives it
// (in real time, so that the watchdog's clock applies), and completes an
// event once everything enqueued before it has.
//
//===----------------------------------------------------------------------===//

#include "Launches.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <map>

using namespace tle::runtime;
using namespace tle::runtime::detail;

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kForever = std::numeric_limits<double>::infinity();

/// The GPU behind the fake driver: one stream, run in order.
struct FakeGpu {
  Clock::time_point origin = Clock::now();
  /// Seconds after `origin` when all that is enqueued is done.
  double busyUntil = 0;
  /// When each event's latest record completes.
  std::map<CUevent, double> doneAt;
  /// Of the kernels, in launch order; the last one repeats.
  std::vector<double> seconds = {1e-3};
  /// What a query of an event behind a kernel that failed returns.
  CUresult failure = CUDA_SUCCESS;
  double failsAt = kForever;
  int launches = 0;
  /// Queries answered "done": the host has seen that many events finish.
  int seenDone = 0;
  int queries = 0;
  /// Launches enqueued before the first query, and the most enqueued
  /// while the host had not yet seen them finish.
  int launchesBeforeFirstQuery = -1;
  int mostInFlight = 0;
  intptr_t nextEvent = 1;

  double now() const {
    return std::chrono::duration<double>(Clock::now() - origin).count();
  }

  Status launch() {
    double duration = seconds[std::min<size_t>(launches, seconds.size() - 1)];
    busyUntil = std::max(now(), busyUntil) + duration;
    ++launches;
    // Each launch has its stop event, whose "done" the host sees once.
    mostInFlight = std::max(mostInFlight, launches - seenDone);
    return Status::ok();
  }
};

FakeGpu *gpu = nullptr;

CUresult fakeEventCreate(CUevent *event, unsigned int) {
  *event = reinterpret_cast<CUevent>(gpu->nextEvent++);
  return CUDA_SUCCESS;
}

CUresult fakeEventRecord(CUevent event, CUstream) {
  gpu->doneAt[event] = std::max(gpu->now(), gpu->busyUntil);
  return CUDA_SUCCESS;
}

CUresult fakeEventQuery(CUevent event) {
  if (gpu->queries++ == 0)
    gpu->launchesBeforeFirstQuery = gpu->launches;
  double done = gpu->doneAt.at(event);
  if (done >= gpu->failsAt && gpu->now() >= gpu->failsAt)
    return gpu->failure;
  if (gpu->now() < done)
    return CUDA_ERROR_NOT_READY;
  ++gpu->seenDone;
  return CUDA_SUCCESS;
}

CUresult fakeEventElapsedTime(float *ms, CUevent start, CUevent stop) {
  *ms = float((gpu->doneAt.at(stop) - gpu->doneAt.at(start)) * 1e3);
  return CUDA_SUCCESS;
}

/// A driver whose event functions are the fake GPU's; launches go through
/// the batch's enqueue function, which calls FakeGpu::launch.
class Launches : public ::testing::Test {
protected:
  void SetUp() override {
    gpu = &fake;
    driver.eventCreate = fakeEventCreate;
    driver.eventRecord = fakeEventRecord;
    driver.eventQuery = fakeEventQuery;
    driver.eventElapsedTime = fakeEventElapsedTime;
  }
  void TearDown() override { gpu = nullptr; }

  Status run(int untimed, int timed, double watchdog = 5) {
    return runLaunches(
        driver, nullptr, events, [] { return gpu->launch(); },
        {"k", untimed, timed, watchdog}, times);
  }

  FakeGpu fake;
  Driver driver;
  std::vector<CUevent> events;
  std::vector<double> times;
};

TEST_F(Launches, BackToBackWithOneWait) {
  fake.seconds = {5e-3, 5e-3, 5e-3, 8e-3, 2e-3, 6e-3, 4e-3, 3e-3};
  Status status = run(3, 5);
  ASSERT_TRUE(status) << status.message;
  // All eight are queued before the host waits for any: the GPU never idles.
  EXPECT_EQ(fake.launchesBeforeFirstQuery, 8);
  // Each timed launch's own time, between its two events.
  ASSERT_EQ(times.size(), 5u);
  const double expected[] = {8, 2, 6, 4, 3};
  for (size_t i = 0; i < 5; ++i)
    EXPECT_NEAR(times[i], expected[i], 1e-3) << "launch " << i;
  // Two events per launch in flight, kept for the next batch.
  EXPECT_EQ(events.size(), 16u);
  Timing timing = summarize(times);
  EXPECT_EQ(timing.reps, 5);
  EXPECT_NEAR(timing.medianMs, 4, 1e-3);
  EXPECT_NEAR(timing.minMs, 2, 1e-3);
  EXPECT_NEAR(timing.maxMs, 8, 1e-3);
}

TEST_F(Launches, AtMostAWindowInFlight) {
  fake.seconds = {2e-5};
  int total = 3 * kMaxLaunchesInFlight;
  Status status = run(10, total - 10);
  ASSERT_TRUE(status) << status.message;
  EXPECT_EQ(times.size(), size_t(total - 10));
  EXPECT_EQ(fake.launches, total);
  EXPECT_EQ(fake.launchesBeforeFirstQuery, kMaxLaunchesInFlight);
  EXPECT_LE(fake.mostInFlight, kMaxLaunchesInFlight);
  EXPECT_EQ(events.size(), size_t(2 * kMaxLaunchesInFlight));
}

/// A deadlocked kernel: reported once the watchdog's time has passed since
/// the last launch finished, and soon after.
TEST_F(Launches, HangIsReportedAfterTheWatchdog) {
  fake.seconds = {1e-3, 1e-3, kForever};
  Clock::time_point begin = Clock::now();
  Status status = run(1, 9, 0.2);
  double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
  EXPECT_EQ(status.code, TLE_RT_HANG);
  EXPECT_EQ(status.message,
            "kernel 'k' did not finish within 0.2 s; a pipe is probably "
            "deadlocked (a reader that never releases, or a wait that is "
            "never committed)");
  EXPECT_GE(elapsed, 0.2);
  EXPECT_LT(elapsed, 1.5);
}

/// The watchdog limits each launch, not the batch: ten launches of 60 ms
/// take 0.6 s under a 0.15 s watchdog.
TEST_F(Launches, DeadlineMovesWithEachLaunch) {
  fake.seconds = {0.06};
  Status status = run(0, 10, 0.15);
  ASSERT_TRUE(status) << status.message;
  EXPECT_EQ(times.size(), 10u);
  EXPECT_NEAR(summarize(times).medianMs, 60, 1e-2);
}

TEST_F(Launches, KernelFailure) {
  fake.seconds = {1e-3};
  fake.failsAt = 0;
  fake.failure = CUDA_ERROR_NO_DEVICE;
  Status status = run(0, 3);
  EXPECT_EQ(status.code, TLE_RT_ERROR);
  EXPECT_EQ(status.message, "kernel 'k' failed: CUDA error " +
                                std::to_string(int(CUDA_ERROR_NO_DEVICE)));
}

TEST_F(Launches, EnqueueFailureStopsTheBatch) {
  Status status = runLaunches(
      driver, nullptr, events,
      [] {
        return gpu->launches < 2 ? gpu->launch()
                                 : Status::error("cuLaunchKernel failed");
      },
      {"k", 0, 5, 5}, times);
  EXPECT_EQ(status.message, "cuLaunchKernel failed");
  EXPECT_EQ(fake.launches, 2);
}

TEST(Summarize, MedianOfEvenAndOddCounts) {
  EXPECT_EQ(summarize({3, 1, 2}).medianMs, 2);
  Timing even = summarize({4, 1, 3, 2});
  EXPECT_EQ(even.medianMs, 2.5);
  EXPECT_EQ(even.minMs, 1);
  EXPECT_EQ(even.maxMs, 4);
  EXPECT_EQ(even.reps, 4);
  EXPECT_EQ(summarize({}).reps, 0);
}

} // namespace
