//===- SparseMLAInputs.cpp - Deterministic SparseMLA inputs ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Parallel.h"
#include "Random.h"
#include "tle/Problems/BFloat16.h"
#include "tle/Problems/SparseMLA.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

using namespace tle::problems;

namespace {
/// One family of random streams per thing generated, so that changing how
/// one tensor is made leaves the others as they were.
enum Stream : uint64_t {
  QValues = 1,
  KVValues,
  Offsets,
  EmptyRows,
  RowIndices,
  Sinks,
};
} // namespace

/// The positions before a token that the locality distribution favours, and
/// the share of a row's valid indices drawn from them.
static constexpr int64_t kLocalWindow = 20000;
static constexpr double kLocalShare = 0.9;
/// Rows of q or kv that one random stream fills.
static constexpr int64_t kRowsPerStream = 256;
/// Query rows whose indices one task makes (each row has its own stream).
static constexpr int64_t kIndexRowsPerTask = 64;
/// The kinds of invalid id: -1, other negatives, INT_MIN, INT_MAX, skv and
/// above skv.
static constexpr int64_t kInvalidKinds = 6;
static constexpr uint16_t kBFloat16NaN = 0x7FC0;

/// Fills `count` rows of `length` bf16 values drawn as randn / 10 + offset,
/// like the anchors' tests; row i starts at rowStart(i).
template <typename RowStart>
static void fillNormalRows(int64_t count, int64_t length, double offset,
                           uint64_t seed, Stream stream, RowStart rowStart) {
  parallelFor(count, kRowsPerStream, [&](int64_t begin, int64_t end) {
    Random random(deriveSeed(seed, stream, begin / kRowsPerStream));
    for (int64_t row = begin; row < end; ++row) {
      uint16_t *values = rowStart(row);
      for (int64_t i = 0; i < length; ++i)
        values[i] = floatToBFloat16(float(random.normal() / 10 + offset));
    }
  });
}

/// Picks `count` distinct values of [low, low + range) by Floyd's algorithm
/// (one draw per value) and marks them in `taken`.
static void pickDistinct(int64_t low, int64_t range, int64_t count,
                         Random &random, std::vector<uint8_t> &taken,
                         std::vector<int64_t> &picked) {
  for (int64_t j = range - count; j < range; ++j) {
    int64_t candidate = low + random.below(j + 1);
    if (taken[candidate])
      candidate = low + j;
    taken[candidate] = 1;
    picked.push_back(candidate);
  }
}

/// Picks `count` more distinct values of [0, range) that `taken` leaves
/// free, by rejection: the window took at most a few of them.
static void pickMore(int64_t range, int64_t count, Random &random,
                     std::vector<uint8_t> &taken,
                     std::vector<int64_t> &picked) {
  while (count > 0) {
    int64_t candidate = random.below(range);
    if (taken[candidate])
      continue;
    taken[candidate] = 1;
    picked.push_back(candidate);
    --count;
  }
}

/// Picks `count` distinct positions of [0, range) by the configured
/// distribution; `taken` is all clear before and after.
static void pickValid(const SparseMLAConfig &config, int64_t range,
                      int64_t count, Random &random,
                      std::vector<uint8_t> &taken,
                      std::vector<int64_t> &picked) {
  picked.clear();
  int64_t windowLow = std::max<int64_t>(range - kLocalWindow, 0);
  if (config.distribution == IndexDistribution::Random || windowLow == 0) {
    pickDistinct(0, range, count, random, taken, picked);
  } else {
    int64_t near =
        std::min<int64_t>(std::llround(kLocalShare * count), range - windowLow);
    pickDistinct(windowLow, range - windowLow, near, random, taken, picked);
    pickMore(range, count - near, random, taken, picked);
  }
  for (int64_t position : picked)
    taken[position] = 0;
}

static int32_t makeInvalidIndex(int64_t kind, int64_t skv, Random &random) {
  constexpr int32_t intMin = std::numeric_limits<int32_t>::min();
  constexpr int32_t intMax = std::numeric_limits<int32_t>::max();
  switch (kind % kInvalidKinds) {
  case 0:
    return -1;
  case 1:
    return int32_t(-2 - int64_t(random.below(1 << 30)));
  case 2:
    return intMin;
  case 3:
    return intMax;
  case 4:
    return int32_t(skv);
  default:
    return int32_t(skv + 1 + int64_t(random.below(intMax - 1 - skv)));
  }
}

/// Fills the topk slots of query row `row` (and its topk_length) from the
/// row's own stream.
static void generateRowIndices(const SparseMLAConfig &config, int64_t row,
                               bool empty, uint64_t seed,
                               std::vector<uint8_t> &taken,
                               std::vector<int64_t> &picked, int32_t *slots,
                               int32_t *topkLength) {
  Random random(deriveSeed(seed, RowIndices, row));
  int64_t range = getSparseMLAQueryPosition(config, row % config.sq) + 1;
  int64_t wanted =
      config.topk - std::llround(config.invalidFraction * config.topk);
  int64_t valid = empty ? 0 : std::min(range, wanted);
  pickValid(config, range, valid, random, taken, picked);
  std::copy(picked.begin(), picked.end(), slots);
  // The k-th invalid slot of row r gets kind (r + k): every kind appears
  // once six invalid slots exist anywhere.
  for (int64_t slot = valid; slot < config.topk; ++slot)
    slots[slot] = makeInvalidIndex(row + slot - valid, config.skv, random);
  random.shuffle(slots, config.topk);
  if (topkLength)
    *topkLength = int32_t(random.below(config.topk + 1));
}

/// Exactly round(emptyRowFraction * rows) rows, as flags.
static std::vector<uint8_t> pickEmptyRows(const SparseMLAConfig &config,
                                          uint64_t seed) {
  std::vector<uint8_t> empty(config.rows());
  std::vector<int64_t> picked;
  Random random(deriveSeed(seed, EmptyRows, 0));
  pickDistinct(0, config.rows(),
               std::llround(config.emptyRowFraction * config.rows()), random,
               empty, picked);
  return empty;
}

static void generateIndices(SparseMLAInputs &inputs, uint64_t seed) {
  const SparseMLAConfig &config = inputs.config;
  std::vector<uint8_t> empty = pickEmptyRows(config, seed);
  inputs.indices.resize(config.rows() * config.hkv * config.topk);
  if (config.topkLength)
    inputs.topkLength.resize(config.rows());
  parallelFor(
      config.rows(), kIndexRowsPerTask, [&](int64_t begin, int64_t end) {
        std::vector<uint8_t> taken(config.skv);
        std::vector<int64_t> picked;
        for (int64_t row = begin; row < end; ++row)
          generateRowIndices(
              config, row, empty[row], seed, taken, picked,
              inputs.indices.data() + row * config.hkv * config.topk,
              config.topkLength ? inputs.topkLength.data() + row : nullptr);
      });
}

/// Sinks around the typical lse (log of the number of valid slots), and in
/// every 64-head CTA a few heads at each infinity.
static std::vector<float> generateSinks(const SparseMLAConfig &config,
                                        uint64_t seed) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  Random random(deriveSeed(seed, Sinks, 0));
  std::vector<float> sinks(config.h);
  for (int64_t head = 0; head < config.h; ++head) {
    float finite = float(10 * random.uniform());
    sinks[head] = head % 16 == 3 ? -inf : head % 16 == 11 ? inf : finite;
  }
  return sinks;
}

static void generateValues(SparseMLAInputs &inputs, uint64_t seed) {
  const SparseMLAConfig &config = inputs.config;
  // Per-tensor offsets as in the anchors: (uniform - 0.5) / 10.
  Random offsets(deriveSeed(seed, Offsets, 0));
  double qOffset = (offsets.uniform() - 0.5) / 10;
  double kvOffset = (offsets.uniform() - 0.5) / 10;

  std::array<int64_t, 4> strides = getSparseMLAQStrides(config);
  inputs.q.assign(getSparseMLAQElements(config), kBFloat16NaN);
  fillNormalRows(config.rows() * config.h, config.dqk, qOffset, seed, QValues,
                 [&](int64_t headRow) {
                   int64_t row = headRow / config.h;
                   return inputs.q.data() + row / config.sq * strides[0] +
                          row % config.sq * strides[1] +
                          headRow % config.h * strides[2];
                 });

  int64_t kvRows = config.b * config.skv * config.hkv;
  inputs.kv.resize(kvRows * config.dqk);
  fillNormalRows(
      kvRows, config.dqk, kvOffset, seed, KVValues,
      [&](int64_t row) { return inputs.kv.data() + row * config.dqk; });
}

SparseMLAInputs
tle::problems::generateSparseMLAInputs(const SparseMLAConfig &config,
                                       uint64_t seed) {
  assert(validateSparseMLAConfig(config).empty() && "invalid configuration");
  SparseMLAInputs inputs;
  inputs.config = config;
  generateValues(inputs, seed);
  generateIndices(inputs, seed);
  if (config.attnSink)
    inputs.attnSink = generateSinks(config, seed);
  return inputs;
}
