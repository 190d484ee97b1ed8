//===- Parallel.h - Split CPU work over threads -----------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Generating the benchmark's inputs (300 million bf16 values for q) and the
// double-precision reference take seconds per core; the GPU machines have
// 16 or more cores to spread them over.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_LIB_PROBLEMS_PARALLEL_H
#define TLE_LIB_PROBLEMS_PARALLEL_H

#include <cstdint>
#include <functional>

namespace tle::problems {

/// Calls `body(begin, end)` on consecutive chunks of at most `grain` items
/// that cover [0, count), from several threads. The caller makes the result
/// independent of the split (no shared state, a random stream per chunk).
void parallelFor(int64_t count, int64_t grain,
                 const std::function<void(int64_t, int64_t)> &body);

} // namespace tle::problems

#endif // TLE_LIB_PROBLEMS_PARALLEL_H
