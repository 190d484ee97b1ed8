//===- SparseMLAInputsTest.cpp - Shape checks and input generation --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Problems/BFloat16.h"
#include "tle/Problems/SparseMLA.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <set>

using namespace tle::problems;

namespace {
/// A few hundred rows with a long enough causal range for every row.
SparseMLAConfig smallConfig() {
  SparseMLAConfig config;
  config.b = 2;
  config.sq = 256;
  config.h = 64;
  config.topk = 256;
  config.skv = 1024;
  return config;
}

/// The kinds of invalid id the generator must produce.
enum InvalidKind { MinusOne, OtherNegative, IntMin, IntMax, Skv, AboveSkv };

InvalidKind classifyInvalid(int32_t index, int64_t skv) {
  if (index == -1)
    return MinusOne;
  if (index == std::numeric_limits<int32_t>::min())
    return IntMin;
  if (index < 0)
    return OtherNegative;
  if (index == std::numeric_limits<int32_t>::max())
    return IntMax;
  return index == skv ? Skv : AboveSkv;
}

const int32_t *rowSlots(const SparseMLAInputs &inputs, int64_t row) {
  return inputs.indices.data() + row * inputs.config.topk;
}
} // namespace

TEST(SparseMLAConfig, DefaultsAreTheBenchmarkCase) {
  SparseMLAConfig config;
  EXPECT_EQ(validateSparseMLAConfig(config), "");
  EXPECT_EQ(config.rows(), 4096);
  EXPECT_EQ(config.smScale, float(1 / std::sqrt(576.0)));
  EXPECT_EQ(getSparseMLAFlops(config), 2336462209024);
}

TEST(SparseMLAConfig, RejectsShapesTheKernelsCannotTake) {
  struct Case {
    void (*change)(SparseMLAConfig &);
    /// What the message must name.
    const char *names;
  };
  const Case cases[] = {
      {[](SparseMLAConfig &c) { c.topk = 100; }, "topk"},
      {[](SparseMLAConfig &c) { c.h = 96; }, "h must"},
      {[](SparseMLAConfig &c) { c.dqk = 512; }, "dqk"},
      {[](SparseMLAConfig &c) { c.dv = 576; }, "dv"},
      {[](SparseMLAConfig &c) { c.hkv = 2; }, "hkv"},
      {[](SparseMLAConfig &c) { c.skv = 0; }, "skv"},
      {[](SparseMLAConfig &c) { c.invalidFraction = 1.5; }, "invalid"},
      {[](SparseMLAConfig &c) { c.qPad = -1; }, "q padding"},
      {[](SparseMLAConfig &c) { c.smScale = 0; }, "sm_scale"},
  };
  for (const Case &test : cases) {
    SparseMLAConfig config;
    test.change(config);
    EXPECT_NE(validateSparseMLAConfig(config).find(test.names),
              std::string::npos)
        << test.names;
  }
}

TEST(SparseMLAInputs, ValidIndicesAreDistinctAndCausal) {
  SparseMLAConfig config = smallConfig();
  config.sq = 64;
  config.skv = 200; // The first tokens have fewer positions than valid slots.
  SparseMLAInputs inputs = generateSparseMLAInputs(config, 1);
  for (int64_t row = 0; row < config.rows(); ++row) {
    int64_t position = getSparseMLAQueryPosition(config, row % config.sq);
    std::set<int32_t> seen;
    for (int64_t slot = 0; slot < config.topk; ++slot) {
      int32_t index = rowSlots(inputs, row)[slot];
      if (index < 0 || index >= config.skv)
        continue;
      EXPECT_LE(index, position) << "row " << row;
      EXPECT_TRUE(seen.insert(index).second) << "row " << row;
    }
    if (!inputs.isEmptyRow(row)) {
      int64_t expected = std::min<int64_t>(position + 1, 192);
      EXPECT_EQ(int64_t(seen.size()), expected) << "row " << row;
    }
  }
}

TEST(SparseMLAInputs, PositionClampsAtZero) {
  SparseMLAConfig config = smallConfig();
  config.b = 1;
  config.sq = 128;
  config.skv = 64;
  config.emptyRowFraction = 0;
  SparseMLAInputs inputs = generateSparseMLAInputs(config, 2);
  EXPECT_EQ(getSparseMLAQueryPosition(config, 10), 0);
  EXPECT_EQ(getSparseMLAQueryPosition(config, 127), 63);
  // Token 10 may only attend to position 0.
  int64_t valid = 0;
  for (int64_t slot = 0; slot < config.topk; ++slot)
    if (int64_t kvRow = inputs.getKVRow(10, slot); kvRow >= 0) {
      EXPECT_EQ(kvRow, 0);
      ++valid;
    }
  EXPECT_EQ(valid, 1);
}

TEST(SparseMLAInputs, InvalidFractionCoversEveryKind) {
  SparseMLAConfig config = smallConfig();
  SparseMLAInputs inputs = generateSparseMLAInputs(config, 3);
  int64_t kinds[6] = {};
  int64_t invalidInFullRows = 0, fullRows = 0;
  for (int64_t row = 0; row < config.rows(); ++row) {
    int64_t invalid = 0;
    for (int64_t slot = 0; slot < config.topk; ++slot) {
      int32_t index = rowSlots(inputs, row)[slot];
      if (index >= 0 && index < config.skv)
        continue;
      ++invalid;
      ++kinds[classifyInvalid(index, config.skv)];
    }
    if (inputs.isEmptyRow(row))
      continue;
    ++fullRows;
    invalidInFullRows += invalid;
  }
  EXPECT_EQ(invalidInFullRows, fullRows * 64); // 0.25 * 256 in every row.
  for (int64_t kind = 0; kind < 6; ++kind)
    EXPECT_GT(kinds[kind], 0) << "kind " << kind;
}

TEST(SparseMLAInputs, EmptyRowCountIsExact) {
  SparseMLAConfig config = smallConfig();
  SparseMLAInputs inputs = generateSparseMLAInputs(config, 4);
  int64_t empty = 0;
  for (int64_t row = 0; row < config.rows(); ++row)
    empty += inputs.isEmptyRow(row);
  EXPECT_EQ(empty, 10); // round(0.02 * 512)
}

TEST(SparseMLAInputs, DeterministicForASeed) {
  SparseMLAConfig config = smallConfig();
  config.attnSink = true;
  config.topkLength = true;
  config.qPad = 8;
  SparseMLAInputs first = generateSparseMLAInputs(config, 5);
  SparseMLAInputs second = generateSparseMLAInputs(config, 5);
  SparseMLAInputs other = generateSparseMLAInputs(config, 6);
  EXPECT_EQ(first.kv, second.kv);
  EXPECT_EQ(first.indices, second.indices);
  EXPECT_EQ(first.attnSink, second.attnSink);
  EXPECT_EQ(first.topkLength, second.topkLength);
  // NaN padding: compare the bit patterns, not as floats.
  EXPECT_EQ(first.q, second.q);
  EXPECT_NE(first.q, other.q);
  EXPECT_NE(first.kv, other.kv);
  EXPECT_NE(first.indices, other.indices);
}

TEST(SparseMLAInputs, ValuesLookLikeTheAnchors) {
  SparseMLAInputs inputs = generateSparseMLAInputs(smallConfig(), 7);
  double sum = 0, squares = 0;
  for (uint16_t bits : inputs.kv) {
    double value = bfloat16ToFloat(bits);
    sum += value;
    squares += value * value;
  }
  double mean = sum / inputs.kv.size();
  double deviation = std::sqrt(squares / inputs.kv.size() - mean * mean);
  EXPECT_LE(std::abs(mean), 0.051);
  EXPECT_NEAR(deviation, 0.1, 0.002);
}

TEST(SparseMLAInputs, LocalityStaysNearTheToken) {
  SparseMLAConfig config = smallConfig();
  config.b = 1;
  config.sq = 64;
  config.topk = 512;
  config.skv = 65536;
  auto nearShare = [&](IndexDistribution distribution) {
    config.distribution = distribution;
    SparseMLAInputs inputs = generateSparseMLAInputs(config, 8);
    int64_t valid = 0, near = 0;
    for (int64_t row = 0; row < config.rows(); ++row) {
      int64_t position = getSparseMLAQueryPosition(config, row);
      for (int64_t slot = 0; slot < config.topk; ++slot) {
        int64_t kvRow = inputs.getKVRow(row, slot);
        valid += kvRow >= 0;
        near += kvRow >= 0 && kvRow > position - 20000;
      }
    }
    return double(near) / valid;
  };
  EXPECT_GE(nearShare(IndexDistribution::Locality), 0.9);
  EXPECT_LE(nearShare(IndexDistribution::Random), 0.4);
}

TEST(SparseMLAInputs, OptionalInputs) {
  SparseMLAConfig config = smallConfig();
  SparseMLAInputs plain = generateSparseMLAInputs(config, 9);
  EXPECT_TRUE(plain.attnSink.empty());
  EXPECT_TRUE(plain.topkLength.empty());

  config.attnSink = true;
  config.topkLength = true;
  SparseMLAInputs inputs = generateSparseMLAInputs(config, 9);
  ASSERT_EQ(int64_t(inputs.attnSink.size()), config.h);
  int64_t negative = 0, positive = 0, finite = 0;
  for (float sink : inputs.attnSink) {
    negative += sink == -std::numeric_limits<float>::infinity();
    positive += sink == std::numeric_limits<float>::infinity();
    finite += std::isfinite(sink);
  }
  EXPECT_GT(negative, 0);
  EXPECT_GT(positive, 0);
  EXPECT_GT(finite, 0);

  ASSERT_EQ(int64_t(inputs.topkLength.size()), config.rows());
  std::set<int32_t> lengths(inputs.topkLength.begin(), inputs.topkLength.end());
  EXPECT_GE(*lengths.begin(), 0);
  EXPECT_LE(*lengths.rbegin(), config.topk);
  EXPECT_GT(lengths.size(), 10u);
}

TEST(SparseMLAInputs, PaddedQKeepsValuesOutOfThePadding) {
  SparseMLAConfig config = smallConfig();
  config.qPad = 8;
  std::array<int64_t, 4> strides = getSparseMLAQStrides(config);
  EXPECT_EQ(strides[3], 1);
  EXPECT_EQ(strides[2], config.dqk + 8);
  EXPECT_EQ(strides[1], config.h * strides[2] + 8);
  EXPECT_EQ(strides[0], config.sq * strides[1]);

  SparseMLAInputs inputs = generateSparseMLAInputs(config, 10);
  ASSERT_EQ(int64_t(inputs.q.size()), getSparseMLAQElements(config));
  int64_t nan = 0;
  for (uint16_t bits : inputs.q)
    nan += std::isnan(bfloat16ToFloat(bits));
  int64_t padding = int64_t(inputs.q.size()) - config.rows() * config.h * 576;
  EXPECT_EQ(nan, padding);
  // The first head's row is data, the padding behind it is not.
  EXPECT_FALSE(std::isnan(bfloat16ToFloat(inputs.q[575])));
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(inputs.q[576])));
}

TEST(SparseMLAInputs, SampleSpansTheRowsAndTakesEveryEmptyRow) {
  SparseMLAInputs inputs = generateSparseMLAInputs(smallConfig(), 11);
  std::vector<int64_t> rows = sampleSparseMLARows(inputs, 16);
  EXPECT_EQ(rows.front(), 0);
  EXPECT_EQ(rows.back(), 511);
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
  EXPECT_EQ(std::adjacent_find(rows.begin(), rows.end()), rows.end());
  std::set<int64_t> sampled(rows.begin(), rows.end());
  int64_t empty = 0;
  for (int64_t row = 0; row < 512; ++row)
    if (inputs.isEmptyRow(row)) {
      ++empty;
      EXPECT_TRUE(sampled.count(row)) << "row " << row;
    }
  EXPECT_LE(int64_t(rows.size()), 16 + empty);
  EXPECT_GE(int64_t(rows.size()), 16);
  EXPECT_EQ(int64_t(sampleSparseMLARows(inputs, 1000).size()), 512);
}

TEST(SparseMLAInputs, MinimumBytesCountEachKVRowOnce) {
  SparseMLAConfig config = smallConfig();
  config.b = 1;
  config.sq = 1;
  config.skv = 8;
  config.topk = 64;
  SparseMLAInputs inputs;
  inputs.config = config;
  inputs.indices.assign(64, -1);
  inputs.indices[0] = 3;
  inputs.indices[1] = 5;
  inputs.indices[2] = 3;
  EXPECT_EQ(countSparseMLAKVRows(inputs), 2);
  double q = 64 * 576 * 2, kv = 2 * 576 * 2, indices = 64 * 4;
  double outputs = 64 * (512 * 2 + 8);
  EXPECT_EQ(getSparseMLAMinimumBytes(inputs), q + kv + indices + outputs);
}

TEST(SparseMLAGrid, OneCTAPerItemOrOnePerMultiprocessor) {
  SparseMLAConfig config;
  config.b = 2;
  config.sq = 100;
  config.h = 128;
  // One CTA per token and head group, a token's groups adjacent in x.
  EXPECT_EQ(getSparseMLAGrid(config, /*persistent=*/false, 132),
            (std::array<unsigned, 3>{200, 2, 1}));
  // A persistent kernel: one CTA per multiprocessor, never more CTAs than
  // items, at least one.
  EXPECT_EQ(getSparseMLAGrid(config, /*persistent=*/true, 132),
            (std::array<unsigned, 3>{132, 1, 1}));
  config.sq = 10;
  EXPECT_EQ(getSparseMLAGrid(config, /*persistent=*/true, 132),
            (std::array<unsigned, 3>{40, 1, 1}));
  EXPECT_EQ(getSparseMLAGrid(config, /*persistent=*/true, 0),
            (std::array<unsigned, 3>{1, 1, 1}));
}
