//===- Parallel.cpp - Split CPU work over threads -------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

void tle::problems::parallelFor(
    int64_t count, int64_t grain,
    const std::function<void(int64_t, int64_t)> &body) {
  int64_t chunks = (count + grain - 1) / grain;
  int64_t threads = std::min<int64_t>(
      chunks, std::max(1u, std::thread::hardware_concurrency()));
  // Threads take chunks from a shared counter, so a slow chunk does not hold
  // up a whole static share.
  std::atomic<int64_t> nextChunk{0};
  auto work = [&] {
    for (int64_t chunk = nextChunk++; chunk < chunks; chunk = nextChunk++)
      body(chunk * grain, std::min(count, (chunk + 1) * grain));
  };
  std::vector<std::thread> helpers;
  for (int64_t i = 1; i < threads; ++i)
    helpers.emplace_back(work);
  work();
  for (std::thread &helper : helpers)
    helper.join();
}
