//===- GemmTest.cpp - The GEMM problem's CPU parts ------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Problems/Gemm.h"
#include "tle/Problems/BFloat16.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace tle::problems;

namespace {

GemmConfig small(int64_t m, int64_t n, int64_t k) {
  GemmConfig config;
  config.m = m;
  config.n = n;
  config.k = k;
  config.bm = 1;
  config.bn = 1;
  return config;
}

TEST(Gemm, Validation) {
  EXPECT_EQ(validateGemmConfig(GemmConfig()), "");
  GemmConfig config;
  config.m = 8000;
  EXPECT_EQ(validateGemmConfig(config),
            "m = 8000 must be a multiple of bm = 128");
  config = GemmConfig();
  config.bn = 192;
  EXPECT_EQ(validateGemmConfig(config),
            "n = 8192 must be a multiple of bn = 192");
  config = GemmConfig();
  config.k = 4000;
  EXPECT_EQ(validateGemmConfig(config),
            "k = 4000 must be a multiple of the K step = 64");
  config = GemmConfig();
  config.n = 0;
  EXPECT_EQ(validateGemmConfig(config), "m, n and k must be positive");
  config = GemmConfig();
  config.bm = 0;
  EXPECT_EQ(validateGemmConfig(config), "bm and bn must be positive");
}

TEST(Gemm, InputsAreDeterministicAndInRange) {
  GemmConfig config = small(64, 96, 128);
  GemmInputs first = generateGemmInputs(config, 7);
  GemmInputs again = generateGemmInputs(config, 7);
  GemmInputs other = generateGemmInputs(config, 8);
  ASSERT_EQ(first.a.size(), 64u * 128);
  ASSERT_EQ(first.b.size(), 128u * 96);
  EXPECT_EQ(first.a, again.a);
  EXPECT_EQ(first.b, again.b);
  EXPECT_NE(first.a, other.a);
  EXPECT_NE(first.a, std::vector<uint16_t>(first.b.begin(),
                                           first.b.begin() + first.a.size()));
  double sum = 0, low = 1, high = -1;
  for (uint16_t bits : first.a) {
    float value = bfloat16ToFloat(bits);
    low = std::min<double>(low, value);
    high = std::max<double>(high, value);
    sum += value;
  }
  EXPECT_GE(low, -1.0);
  EXPECT_LT(high, 1.0);
  EXPECT_LT(low, -0.99);
  EXPECT_GT(high, 0.99);
  // 8192 values of variance 1/3: the mean is within 4 sigma of 0.
  EXPECT_LT(std::fabs(sum / first.a.size()), 4 * std::sqrt(1.0 / 3 / 8192));
}

TEST(Gemm, Sample) {
  GemmConfig config = small(100, 30, 64);
  std::vector<int64_t> entries = sampleGemmEntries(config, 3, 50);
  EXPECT_TRUE(std::is_sorted(entries.begin(), entries.end()));
  EXPECT_EQ(std::adjacent_find(entries.begin(), entries.end()), entries.end());
  for (int64_t corner :
       {int64_t(0), int64_t(29), int64_t(99 * 30), int64_t(100 * 30 - 1)})
    EXPECT_TRUE(std::binary_search(entries.begin(), entries.end(), corner));
  // A full row and a full column (which share one entry) at least.
  std::vector<int64_t> perRow(100), perColumn(30);
  for (int64_t entry : entries) {
    ++perRow[entry / 30];
    ++perColumn[entry % 30];
  }
  EXPECT_EQ(*std::max_element(perRow.begin(), perRow.end()), 30);
  EXPECT_EQ(*std::max_element(perColumn.begin(), perColumn.end()), 100);
  EXPECT_LE(entries.size(), 4u + 50 + 30 + 100);
  EXPECT_GE(entries.size(), 30u + 100 - 1);
  EXPECT_EQ(entries, sampleGemmEntries(config, 3, 50));
}

TEST(Gemm, ReferenceOfAHandComputedCase) {
  GemmInputs inputs;
  inputs.config = small(2, 3, 2);
  for (float value : {1.0f, 2.0f, 3.0f, 4.0f})
    inputs.a.push_back(floatToBFloat16(value));
  for (float value : {5.0f, 6.0f, 7.0f, 0.5f, -9.0f, 0.25f})
    inputs.b.push_back(floatToBFloat16(value));
  // [[1, 2], [3, 4]] . [[5, 6, 7], [0.5, -9, 0.25]]
  std::vector<double> reference =
      computeGemmReference(inputs, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(reference, (std::vector<double>{6, -12, 7.5, 17, -18, 22}));
}

TEST(Gemm, ReferenceMatchesTheDefinition) {
  GemmInputs inputs = generateGemmInputs(small(5, 7, 64), 1);
  std::vector<int64_t> entries = {0, 8, 13, 34};
  std::vector<double> reference = computeGemmReference(inputs, entries);
  for (size_t e = 0; e < entries.size(); ++e) {
    int64_t row = entries[e] / 7, column = entries[e] % 7;
    double sum = 0;
    for (int64_t i = 0; i < 64; ++i)
      sum += double(bfloat16ToFloat(inputs.a[row * 64 + i])) *
             bfloat16ToFloat(inputs.b[i * 7 + column]);
    EXPECT_EQ(reference[e], sum);
  }
}

/// C as a kernel that accumulates exactly and rounds to nearest writes it,
/// at the entries of `reference`; NaN (the poison) elsewhere.
std::vector<uint16_t> roundedC(const GemmConfig &config,
                               const std::vector<int64_t> &entries,
                               const std::vector<double> &reference) {
  std::vector<uint16_t> c(config.m * config.n, 0xFFFF);
  for (size_t e = 0; e < entries.size(); ++e)
    c[entries[e]] = floatToBFloat16(static_cast<float>(reference[e]));
  return c;
}

TEST(Gemm, ToleranceAcceptsRoundedResults) {
  GemmConfig config = small(64, 64, 8192);
  std::vector<int64_t> entries(config.m * config.n);
  std::vector<double> reference(entries.size());
  // Values of every magnitude around those a K = 8192 product reaches.
  for (size_t e = 0; e < entries.size(); ++e) {
    entries[e] = static_cast<int64_t>(e);
    reference[e] = std::ldexp(1.0 + e * 0.618034 - std::floor(e * 0.618034),
                              static_cast<int>(e % 16) - 8) *
                   (e % 2 ? -1 : 1);
  }
  GemmReport report =
      compareGemm(entries, reference, roundedC(config, entries, reference),
                  getGemmTolerance(config.k));
  EXPECT_TRUE(report.passed()) << report.summary(config);
  EXPECT_EQ(report.compared, 4096);
  EXPECT_LE(report.maxRelError, std::ldexp(1.0, -8));
  // Rounding to nearest alone needs no absolute allowance.
  GemmReport exact =
      compareGemm(entries, reference, roundedC(config, entries, reference),
                  {std::ldexp(1.0, -8), 0});
  EXPECT_TRUE(exact.passed()) << exact.summary(config);
}

TEST(Gemm, ToleranceRejectsWrongResults) {
  GemmInputs inputs = generateGemmInputs(small(4, 4, 64), 5);
  const GemmConfig &config = inputs.config;
  std::vector<int64_t> entries(16);
  for (int64_t e = 0; e < 16; ++e)
    entries[e] = e;
  std::vector<double> reference = computeGemmReference(inputs, entries);
  GemmTolerance tolerance = getGemmTolerance(config.k);
  std::vector<uint16_t> right = roundedC(config, entries, reference);
  ASSERT_TRUE(compareGemm(entries, reference, right, tolerance).passed());

  // C[1, 2] without its largest product, as a kernel that skipped one
  // element of K would compute it.
  double missing = 0;
  for (int64_t i = 0; i < 64; ++i) {
    double product = double(bfloat16ToFloat(inputs.a[1 * 64 + i])) *
                     bfloat16ToFloat(inputs.b[i * 4 + 2]);
    if (std::fabs(product) > std::fabs(missing))
      missing = product;
  }
  ASSERT_GT(std::fabs(missing), 0.1);
  std::vector<uint16_t> wrong = right;
  wrong[6] = floatToBFloat16(static_cast<float>(reference[6] - missing));
  GemmReport report = compareGemm(entries, reference, wrong, tolerance);
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.mismatches, 1);
  EXPECT_EQ(report.firstMismatch, 6);
  EXPECT_NE(report.summary(config).find("15 of 16 sampled entries within "
                                        "tolerance"),
            std::string::npos);
  EXPECT_NE(report.summary(config).find("first off: C[1, 2] = "),
            std::string::npos);

  // Truncating instead of rounding is off by up to 2^-7 of the value.
  std::vector<double> value = {1.0078};
  EXPECT_TRUE(
      compareGemm({0}, value, {0x3F81}, {std::ldexp(1.0, -8), 0}).passed());
  EXPECT_FALSE(
      compareGemm({0}, value, {0x3F80}, {std::ldexp(1.0, -8), 0}).passed());
}

TEST(Gemm, UnwrittenEntriesFail) {
  GemmInputs inputs = generateGemmInputs(small(8, 8, 64), 2);
  std::vector<int64_t> entries = {0, 63};
  std::vector<double> reference = computeGemmReference(inputs, entries);
  std::vector<uint16_t> c = roundedC(inputs.config, entries, reference);
  GemmReport report =
      compareGemm(entries, reference, c, getGemmTolerance(inputs.config.k));
  EXPECT_EQ(report.mismatches, 0);
  EXPECT_EQ(report.nans, 62);
  EXPECT_EQ(report.firstNaN, 1);
  EXPECT_FALSE(report.passed());
  EXPECT_NE(report.summary(inputs.config)
                .find("64 entries scanned, 62 NaN (never written?), first "
                      "C[0, 1]"),
            std::string::npos);
  // A NaN among the sampled entries is a mismatch.
  c[63] = 0xFFFF;
  EXPECT_EQ(
      compareGemm(entries, reference, c, getGemmTolerance(inputs.config.k))
          .mismatches,
      1);
}

} // namespace
