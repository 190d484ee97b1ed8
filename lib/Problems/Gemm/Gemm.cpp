//===- Gemm.cpp - bf16 GEMM on the CPU ------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Problems/Gemm.h"

#include "Parallel.h"
#include "Random.h"
#include "tle/Problems/BFloat16.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

using namespace tle::problems;

/// Random streams of deriveSeed.
enum : uint64_t { kStreamA = 1, kStreamB = 2, kStreamSample = 3 };

/// Elements per random stream when generating inputs.
static constexpr int64_t kChunk = int64_t(1) << 16;

std::string tle::problems::validateGemmConfig(const GemmConfig &config) {
  auto multiple = [](const char *what, int64_t value, const char *tileName,
                     int64_t tile) {
    return std::string(what) + " = " + std::to_string(value) +
           " must be a multiple of " + tileName + " = " + std::to_string(tile);
  };
  if (config.m < 1 || config.n < 1 || config.k < 1)
    return "m, n and k must be positive";
  if (config.bm < 1 || config.bn < 1)
    return "bm and bn must be positive";
  if (config.m % config.bm)
    return multiple("m", config.m, "bm", config.bm);
  if (config.n % config.bn)
    return multiple("n", config.n, "bn", config.bn);
  if (config.k % kGemmTileK)
    return multiple("k", config.k, "the K step", kGemmTileK);
  return "";
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// Uniform on a 2^-23 grid over [-1, 1), which float holds exactly; dropping
/// the low half of the float rounds its magnitude down, so the bf16 stays in
/// [-1, 1) and the distribution symmetric.
static uint16_t randomBFloat16(Random &random) {
  constexpr int64_t half = int64_t(1) << 23;
  float value =
      static_cast<float>(static_cast<int64_t>(random.below(2 * half)) - half) /
      static_cast<float>(half);
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return static_cast<uint16_t>(bits >> 16);
}

static std::vector<uint16_t> generateMatrix(int64_t elements, uint64_t seed,
                                            uint64_t stream) {
  std::vector<uint16_t> values(static_cast<size_t>(elements));
  parallelFor(elements, kChunk, [&](int64_t begin, int64_t end) {
    Random random(deriveSeed(seed, stream, static_cast<uint64_t>(begin)));
    for (int64_t i = begin; i < end; ++i)
      values[i] = randomBFloat16(random);
  });
  return values;
}

GemmInputs tle::problems::generateGemmInputs(const GemmConfig &config,
                                             uint64_t seed) {
  GemmInputs inputs;
  inputs.config = config;
  inputs.a = generateMatrix(config.m * config.k, seed, kStreamA);
  inputs.b = generateMatrix(config.k * config.n, seed, kStreamB);
  return inputs;
}

std::vector<int64_t> tle::problems::sampleGemmEntries(const GemmConfig &config,
                                                      uint64_t seed,
                                                      int64_t count) {
  const int64_t m = config.m, n = config.n;
  Random random(deriveSeed(seed, kStreamSample, 0));
  std::vector<int64_t> entries = {0, n - 1, (m - 1) * n, m * n - 1};
  for (int64_t i = 0; i < count; ++i) {
    int64_t row = static_cast<int64_t>(random.below(m));
    entries.push_back(row * n + static_cast<int64_t>(random.below(n)));
  }
  int64_t fullRow = static_cast<int64_t>(random.below(m));
  int64_t fullColumn = static_cast<int64_t>(random.below(n));
  for (int64_t column = 0; column < n; ++column)
    entries.push_back(fullRow * n + column);
  for (int64_t row = 0; row < m; ++row)
    entries.push_back(row * n + fullColumn);
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  return entries;
}

//===----------------------------------------------------------------------===//
// Reference
//===----------------------------------------------------------------------===//

/// B's columns as rows, so that every dot product reads memory in order.
static std::vector<uint16_t> transpose(const std::vector<uint16_t> &b,
                                       int64_t rows, int64_t columns) {
  std::vector<uint16_t> result(b.size());
  parallelFor(columns, 64, [&](int64_t begin, int64_t end) {
    for (int64_t row = 0; row < rows; ++row)
      for (int64_t column = begin; column < end; ++column)
        result[column * rows + row] = b[row * columns + column];
  });
  return result;
}

std::vector<double>
tle::problems::computeGemmReference(const GemmInputs &inputs,
                                    const std::vector<int64_t> &entries) {
  const GemmConfig &config = inputs.config;
  std::vector<uint16_t> bt = transpose(inputs.b, config.k, config.n);
  std::vector<double> reference(entries.size());
  parallelFor(static_cast<int64_t>(entries.size()), 64,
              [&](int64_t begin, int64_t end) {
                for (int64_t e = begin; e < end; ++e) {
                  const uint16_t *a =
                      &inputs.a[entries[e] / config.n * config.k];
                  const uint16_t *b = &bt[entries[e] % config.n * config.k];
                  // Each product of two bf16 is exact in double, and so is
                  // the sum to far more bits than bf16 keeps.
                  double sum = 0;
                  for (int64_t i = 0; i < config.k; ++i)
                    sum += double(bfloat16ToFloat(a[i])) *
                           double(bfloat16ToFloat(b[i]));
                  reference[e] = sum;
                }
              });
  return reference;
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

GemmTolerance tle::problems::getGemmTolerance(int64_t k) {
  return {std::ldexp(1.0, -8), 1e-4 * std::sqrt(static_cast<double>(k))};
}

static void scanForNaN(const std::vector<uint16_t> &c, GemmReport &report) {
  report.scanned = static_cast<int64_t>(c.size());
  for (size_t i = 0; i < c.size(); ++i) {
    if (!std::isnan(bfloat16ToFloat(c[i])))
      continue;
    if (report.firstNaN < 0)
      report.firstNaN = static_cast<int64_t>(i);
    ++report.nans;
  }
}

GemmReport tle::problems::compareGemm(const std::vector<int64_t> &entries,
                                      const std::vector<double> &reference,
                                      const std::vector<uint16_t> &c,
                                      const GemmTolerance &tolerance) {
  GemmReport report;
  report.compared = static_cast<int64_t>(entries.size());
  for (size_t e = 0; e < entries.size(); ++e) {
    double expected = reference[e];
    double actual = bfloat16ToFloat(c[entries[e]]);
    double error = std::fabs(actual - expected);
    bool ok = error <= tolerance.rel * std::fabs(expected) + tolerance.abs;
    if (!std::isnan(actual)) {
      report.maxAbsError = std::max(report.maxAbsError, error);
      if (std::fabs(expected) * tolerance.rel >= tolerance.abs)
        report.maxRelError =
            std::max(report.maxRelError, error / std::fabs(expected));
    }
    if (ok)
      continue;
    if (report.firstMismatch < 0) {
      report.firstMismatch = entries[e];
      report.expected = expected;
      report.actual = actual;
    }
    ++report.mismatches;
  }
  scanForNaN(c, report);
  return report;
}

std::string GemmReport::summary(const GemmConfig &config) const {
  auto at = [&](int64_t flat) {
    return "C[" + std::to_string(flat / config.n) + ", " +
           std::to_string(flat % config.n) + "]";
  };
  char figures[96];
  std::snprintf(figures, sizeof(figures), "max abs err %.3g, max rel err %.3g",
                maxAbsError, maxRelError);
  std::string text = std::to_string(compared - mismatches) + " of " +
                     std::to_string(compared) + " sampled entries within " +
                     "tolerance (" + figures + ")";
  if (firstMismatch >= 0) {
    char values[80];
    std::snprintf(values, sizeof(values), "%.6g, expected %.6g", actual,
                  expected);
    text += "; first off: " + at(firstMismatch) + " = " + values;
  }
  text += "; " + std::to_string(scanned) + " entries scanned, ";
  if (nans == 0)
    return text + "no NaN";
  return text + std::to_string(nans) + " NaN (never written?), first " +
         at(firstNaN);
}
