//===- SparseMLACompareTest.cpp - The comparison catches what it must ----===//
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

namespace {
/// Outputs a perfect kernel would write: the reference of every row,
/// rounded to the kernel's types.
class SparseMLACompareTest : public ::testing::Test {
protected:
  SparseMLACompareTest() {
    SparseMLAConfig config;
    config.sq = 16;
    config.h = 64;
    config.topk = 128;
    config.skv = 512;
    config.emptyRowFraction = 0.125; // Two empty rows.
    inputs = generateSparseMLAInputs(config, 21);
    std::vector<int64_t> rows;
    for (int64_t row = 0; row < config.rows(); ++row)
      rows.push_back(row);
    reference = computeSparseMLAReference(inputs, rows);
    for (double value : reference.out)
      outputs.out.push_back(floatToBFloat16(float(value)));
    outputs.maxLogits.assign(reference.maxLogits.begin(),
                             reference.maxLogits.end());
    outputs.lse.assign(reference.lse.begin(), reference.lse.end());
  }

  SparseMLAReport compare() {
    return compareSparseMLA(inputs, reference, outputs);
  }
  int64_t firstRow(bool empty) const {
    for (int64_t row = 0;; ++row)
      if (inputs.isEmptyRow(row) == empty)
        return row;
  }

  SparseMLAInputs inputs;
  SparseMLAReference reference;
  SparseMLAOutputs outputs;
};
} // namespace

TEST_F(SparseMLACompareTest, PerfectOutputsPass) {
  SparseMLAReport report = compare();
  EXPECT_TRUE(report.passed()) << report.summary();
  EXPECT_EQ(report.rowsCompared, 16);
  EXPECT_EQ(report.out.compared, 16 * 64 * 512);
  EXPECT_EQ(report.lse.compared, 16 * 64);
  EXPECT_EQ(report.rowsScanned, 16);
  EXPECT_EQ(report.out.firstMismatch, -1);
  // out is compared in bf16 on both sides; the statistics lose only the
  // rounding to float.
  EXPECT_EQ(report.out.maxAbsError, 0);
  EXPECT_NEAR(report.out.cosDiff, 0, 1e-15);
  EXPECT_GT(report.lse.maxAbsError, 0);
  EXPECT_LE(report.lse.maxRelError, 0x1.0p-24);
}

TEST_F(SparseMLACompareTest, PlantedOutputErrorIsFound) {
  int64_t position = ((3 * 64) + 5) * 512 + 17; // s=3, h=5, d=17
  float wrong = bfloat16ToFloat(outputs.out[position]) + 0.01f;
  outputs.out[position] = floatToBFloat16(wrong);
  SparseMLAReport report = compare();
  EXPECT_FALSE(report.passed());
  EXPECT_FALSE(report.out.passed);
  EXPECT_TRUE(report.lse.passed);
  EXPECT_EQ(report.out.mismatches, 1);
  EXPECT_EQ(report.out.firstMismatch, position);
  EXPECT_EQ(report.out.firstMismatchAt, "out[b=0, s=3, h=5, d=17]");
  EXPECT_NEAR(report.out.actual - report.out.expected, 0.01, 0.002);
  EXPECT_NE(report.summary().find("out[b=0, s=3, h=5, d=17]"),
            std::string::npos);
}

TEST_F(SparseMLACompareTest, StatisticsToleranceIsTight) {
  int64_t position = 2 * 64 + 9;
  // lse is about 4.6 here: a relative error of 2.01 / 65536 is about 1.4e-4.
  outputs.lse[position] = float(reference.lse[position] + 2e-5);
  EXPECT_TRUE(compare().passed());
  outputs.lse[position] = float(reference.lse[position] + 1e-3);
  SparseMLAReport report = compare();
  EXPECT_FALSE(report.lse.passed);
  EXPECT_EQ(report.lse.firstMismatchAt, "lse[b=0, s=2, h=9]");
}

TEST_F(SparseMLACompareTest, NaNWhereAValueBelongsFails) {
  int64_t position = 7 * 64 + 1;
  outputs.maxLogits[position] = std::numeric_limits<float>::quiet_NaN();
  SparseMLAReport report = compare();
  EXPECT_FALSE(report.maxLogits.passed);
  EXPECT_EQ(report.maxLogits.firstMismatch, position);
  EXPECT_TRUE(std::isnan(report.maxLogits.actual));
  EXPECT_GT(report.scanErrors, 0);
}

TEST_F(SparseMLACompareTest, InfinitiesMustSitWhereTheReferenceHasThem) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  int64_t empty = firstRow(true) * 64;
  ASSERT_EQ(reference.lse[empty], inf);
  outputs.lse[empty] = 0;
  SparseMLAReport report = compare();
  EXPECT_FALSE(report.lse.passed);
  EXPECT_EQ(report.lse.firstMismatch, empty);

  outputs.lse[empty] = inf;
  int64_t finite = firstRow(false) * 64;
  outputs.lse[finite] = inf;
  report = compare();
  EXPECT_FALSE(report.lse.passed);
  EXPECT_EQ(report.lse.firstMismatch, finite);
}

TEST_F(SparseMLACompareTest, CosineCatchesASmallSystematicError) {
  // 1% too large everywhere: every element is within 3.01/128, but the
  // cosine difference (about 5e-5) is not within 7e-6.
  for (uint16_t &bits : outputs.out)
    bits = floatToBFloat16(bfloat16ToFloat(bits) * 1.01f);
  SparseMLAReport report = compare();
  EXPECT_EQ(report.out.mismatches, 0);
  EXPECT_GT(report.out.cosDiff, 7e-6);
  EXPECT_FALSE(report.out.passed);
}

TEST_F(SparseMLACompareTest, ScanFindsUnwrittenRowsOutsideTheSample) {
  // Compare row 0 only; leave row 9 as poison (0xFF bytes).
  SparseMLAReference sampled = computeSparseMLAReference(inputs, {0});
  ASSERT_FALSE(inputs.isEmptyRow(9));
  for (int64_t i = 9 * 64 * 512; i < 10 * 64 * 512; ++i)
    outputs.out[i] = 0xFFFF;
  SparseMLAReport report = compareSparseMLA(inputs, sampled, outputs);
  EXPECT_TRUE(report.out.passed);
  EXPECT_EQ(report.scanErrors, 64 * 512);
  EXPECT_FALSE(report.passed());
  EXPECT_NE(report.firstScanError.find("out[b=0, s=9, h=0, d=0] = "),
            std::string::npos)
      << report.firstScanError;
}

TEST_F(SparseMLACompareTest, ScanWantsExactValuesInEmptyRows) {
  SparseMLAReference sampled = computeSparseMLAReference(inputs, {});
  int64_t position = firstRow(true) * 64 + 3;
  outputs.out[position * 512 + 4] = floatToBFloat16(1e-3f);
  SparseMLAReport report = compareSparseMLA(inputs, sampled, outputs);
  EXPECT_EQ(report.scanErrors, 1);
  EXPECT_NE(report.firstScanError.find("no valid index"), std::string::npos);
}
