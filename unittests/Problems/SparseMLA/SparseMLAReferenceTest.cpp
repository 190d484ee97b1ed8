//===- SparseMLAReferenceTest.cpp - The reference on hand-computed cases --===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Problems/BFloat16.h"
#include "tle/Problems/SparseMLA.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace tle::problems;

static constexpr double kInf = std::numeric_limits<double>::infinity();

namespace {
/// One query row of 64 heads, 64 slots and 8 kv rows, all zero, every slot
/// invalid: each test sets the few values it reasons about. sm_scale 0.5.
class SparseMLAReferenceTest : public ::testing::Test {
protected:
  SparseMLAReferenceTest() {
    SparseMLAConfig &config = inputs.config;
    config.sq = 1;
    config.h = 64;
    config.topk = 64;
    config.skv = 8;
    config.smScale = 0.5f;
    inputs.q.assign(getSparseMLAQElements(config), 0);
    inputs.kv.assign(config.skv * config.dqk, 0);
    inputs.indices.assign(config.topk, -1);
  }

  void setQ(int64_t head, int64_t d, float value) {
    inputs.q[head * inputs.config.dqk + d] = floatToBFloat16(value);
  }
  void setKV(int64_t row, int64_t d, float value) {
    inputs.kv[row * inputs.config.dqk + d] = floatToBFloat16(value);
  }
  float kvAt(int64_t row, int64_t d) const {
    return bfloat16ToFloat(inputs.kv[row * inputs.config.dqk + d]);
  }
  /// kv row `row` with K[0] = `key` (it is also V[0]) and V[d] = d % 8 / 8
  /// times `scale` elsewhere.
  void setKVRow(int64_t row, float key, float scale) {
    setKV(row, 0, key);
    for (int64_t d = 1; d < inputs.config.dqk; ++d)
      setKV(row, d, scale * (d % 8) / 8);
  }
  /// Every kind of invalid id, around the one valid slot 7.
  void setOneValidIndex(int32_t index) {
    const int32_t invalid[] = {-1,
                               -5,
                               std::numeric_limits<int32_t>::min(),
                               std::numeric_limits<int32_t>::max(),
                               8,
                               1000};
    for (int64_t slot = 0; slot < 64; ++slot)
      inputs.indices[slot] = invalid[slot % 6];
    inputs.indices[7] = index;
  }

  SparseMLAReference compute() {
    return computeSparseMLAReference(inputs, {0});
  }
  double out(const SparseMLAReference &reference, int64_t head, int64_t d) {
    return reference.out[head * inputs.config.dv + d];
  }

  SparseMLAInputs inputs;
};
} // namespace

TEST_F(SparseMLAReferenceTest, SingleIndexReturnsItsValueRow) {
  setQ(0, 0, 1);
  setKVRow(5, 2, 1);
  setOneValidIndex(5);
  SparseMLAReference reference = compute();
  // Head 0: score 0.5 * 1 * 2; the other heads have q = 0, score 0.
  EXPECT_EQ(reference.maxLogits[0], 1.0);
  EXPECT_EQ(reference.lse[0], 1.0);
  EXPECT_EQ(reference.maxLogits[1], 0.0);
  EXPECT_EQ(reference.lse[1], 0.0);
  for (int64_t head : {0, 1, 63})
    for (int64_t d = 0; d < 512; ++d)
      ASSERT_DOUBLE_EQ(out(reference, head, d), kvAt(5, d)) << "d " << d;
}

TEST_F(SparseMLAReferenceTest, TwoIndicesMixByTheirScores) {
  setQ(0, 0, 1);
  setKVRow(1, 0, 1); // score 0
  setKVRow(2, 2, 3); // score 1
  inputs.indices[10] = 2;
  inputs.indices[40] = 1;
  SparseMLAReference reference = compute();
  double e = std::exp(1.0);
  EXPECT_EQ(reference.maxLogits[0], 1.0);
  EXPECT_NEAR(reference.lse[0], std::log(1 + e), 1e-14);
  for (int64_t d : {0, 1, 5, 511})
    EXPECT_NEAR(out(reference, 0, d), (kvAt(1, d) + e * kvAt(2, d)) / (1 + e),
                1e-14);
  // Head 1 (q = 0) weighs both rows equally.
  EXPECT_NEAR(reference.lse[1], std::log(2.0), 1e-14);
  EXPECT_NEAR(out(reference, 1, 3), (kvAt(1, 3) + kvAt(2, 3)) / 2, 1e-14);
}

TEST_F(SparseMLAReferenceTest, RopeDimensionsCountInTheScore) {
  // d = 570 lies in the rope tail, part of K but not of V.
  setQ(0, 570, 1);
  setKV(3, 570, 4);
  setKV(3, 100, 1);
  setOneValidIndex(3);
  SparseMLAReference reference = compute();
  EXPECT_EQ(reference.lse[0], 2.0);
  EXPECT_EQ(out(reference, 0, 100), 1.0);
}

TEST_F(SparseMLAReferenceTest, RowWithoutValidIndex) {
  setOneValidIndex(-7);
  SparseMLAReference reference = compute();
  for (int64_t head = 0; head < 64; ++head) {
    EXPECT_EQ(reference.maxLogits[head], -kInf);
    EXPECT_EQ(reference.lse[head], kInf);
    for (int64_t d = 0; d < 512; ++d)
      ASSERT_EQ(out(reference, head, d), 0.0);
  }
}

TEST_F(SparseMLAReferenceTest, SinkScalesOutputOnly) {
  inputs.config.attnSink = true;
  inputs.attnSink.assign(64, 0);
  inputs.attnSink[0] = -kInf;
  inputs.attnSink[1] = kInf;
  inputs.attnSink[2] = 1; // e^1 / (e^1 + e^1)
  inputs.attnSink[3] = 1 + std::log(3.0f);
  for (int64_t head = 0; head < 4; ++head)
    setQ(head, 0, 1);
  setKVRow(5, 2, 1);
  setOneValidIndex(5);
  SparseMLAReference reference = compute();
  for (int64_t head = 0; head < 4; ++head) {
    EXPECT_EQ(reference.lse[head], 1.0);
    EXPECT_EQ(reference.maxLogits[head], 1.0);
  }
  EXPECT_EQ(out(reference, 0, 3), kvAt(5, 3));
  EXPECT_EQ(out(reference, 1, 3), 0.0);
  EXPECT_DOUBLE_EQ(out(reference, 2, 3), kvAt(5, 3) / 2);
  EXPECT_NEAR(out(reference, 3, 3), kvAt(5, 3) / 4, 1e-7);
}

TEST_F(SparseMLAReferenceTest, SinkLeavesEmptyRowsAlone) {
  inputs.config.attnSink = true;
  inputs.attnSink.assign(64, kInf);
  inputs.attnSink[0] = 1;
  SparseMLAReference reference = compute();
  EXPECT_EQ(reference.lse[0], kInf);
  EXPECT_EQ(out(reference, 0, 0), 0.0);
  EXPECT_FALSE(std::isnan(out(reference, 1, 0)));
}

TEST_F(SparseMLAReferenceTest, TopkLengthCutsLaterSlots) {
  inputs.config.topkLength = true;
  setKVRow(1, 0, 1);
  setKVRow(2, 0, 3);
  inputs.indices[0] = 2;
  inputs.indices[1] = 1;
  inputs.topkLength = {1};
  EXPECT_EQ(out(compute(), 0, 1), kvAt(2, 1));
  inputs.topkLength = {2};
  EXPECT_NEAR(out(compute(), 0, 1), (kvAt(1, 1) + kvAt(2, 1)) / 2, 1e-14);
  inputs.topkLength = {0};
  EXPECT_TRUE(inputs.isEmptyRow(0));
  EXPECT_EQ(compute().lse[0], kInf);
}

TEST(SparseMLAReference, PaddedQGivesTheSameResult) {
  SparseMLAConfig config;
  config.sq = 4;
  config.h = 64;
  config.topk = 64;
  config.skv = 256;
  config.qPad = 0;
  SparseMLAInputs dense = generateSparseMLAInputs(config, 12);
  config.qPad = 24;
  SparseMLAInputs padded = generateSparseMLAInputs(config, 12);
  // Same values, other layout: the padding holds NaN, so any read of it
  // would show.
  ASSERT_EQ(dense.indices, padded.indices);
  std::vector<int64_t> rows = {0, 1, 2, 3};
  SparseMLAReference expected = computeSparseMLAReference(dense, rows);
  SparseMLAReference actual = computeSparseMLAReference(padded, rows);
  EXPECT_EQ(expected.out, actual.out);
  EXPECT_EQ(expected.lse, actual.lse);
  EXPECT_EQ(expected.maxLogits, actual.maxLogits);
}
