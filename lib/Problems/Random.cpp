//===- Random.cpp - Portable random streams for problem inputs ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Random.h"

#include <cmath>
#include <limits>

using namespace tle::problems;

static uint64_t splitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t tle::problems::deriveSeed(uint64_t seed, uint64_t stream,
                                   uint64_t index) {
  return splitMix64(splitMix64(splitMix64(seed) ^ stream) + index);
}

uint64_t Random::below(uint64_t n) {
  // Rejects the top partial block of 2^64 so every residue is equally likely.
  uint64_t limit = std::numeric_limits<uint64_t>::max() -
                   std::numeric_limits<uint64_t>::max() % n;
  uint64_t x;
  do
    x = engine();
  while (x >= limit);
  return x % n;
}

double Random::uniform() { return (engine() >> 11) * 0x1.0p-53; }

double Random::normal() {
  if (hasSpareNormal) {
    hasSpareNormal = false;
    return spareNormal;
  }
  // 1 - uniform() lies in (0, 1], so the logarithm is finite.
  double radius = std::sqrt(-2.0 * std::log(1.0 - uniform()));
  constexpr double twoPi = 6.283185307179586476925286766559;
  double angle = twoPi * uniform();
  spareNormal = radius * std::sin(angle);
  hasSpareNormal = true;
  return radius * std::cos(angle);
}
