//===- Random.h - Portable random streams for problem inputs ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The standard fixes mt19937_64's output but leaves
// std::uniform_int_distribution, std::normal_distribution and std::shuffle to
// each library, so they are written out here: a seed gives the same inputs
// under libstdc++ and libc++. Independent streams, one per tensor chunk or
// index row, let the generators run in parallel and still produce the same
// data whatever the number of threads.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_LIB_PROBLEMS_RANDOM_H
#define TLE_LIB_PROBLEMS_RANDOM_H

#include <cstdint>
#include <random>
#include <utility>

namespace tle::problems {

/// The seed of stream (`stream`, `index`) under the user's `seed`. SplitMix64
/// decorrelates neighbouring indices, which mt19937_64's own seeding does not.
uint64_t deriveSeed(uint64_t seed, uint64_t stream, uint64_t index);

class Random {
public:
  explicit Random(uint64_t seed) : engine(seed) {}

  /// Uniform in [0, n) for n > 0, without modulo bias.
  uint64_t below(uint64_t n);
  /// Uniform in [0, 1), from 53 random bits.
  double uniform();
  /// Standard normal, by Box-Muller.
  double normal();

  /// Fisher-Yates.
  template <typename T> void shuffle(T *first, int64_t count) {
    for (int64_t i = count - 1; i > 0; --i)
      std::swap(first[i], first[below(static_cast<uint64_t>(i) + 1)]);
  }

private:
  std::mt19937_64 engine;
  /// Box-Muller makes normals in pairs; the second waits here.
  double spareNormal = 0;
  bool hasSpareNormal = false;
};

} // namespace tle::problems

#endif // TLE_LIB_PROBLEMS_RANDOM_H
