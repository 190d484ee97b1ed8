//===- SparseMLA.cpp - Shape, layout and sampling of SparseMLA ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Problems/SparseMLA.h"

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace tle::problems;

/// The kernels give each CTA 64 heads and gather kv rows in tiles of 64.
static constexpr int64_t kTile = 64;
/// Ids above skv must still fit in int32.
static constexpr int64_t kMaxSKV = int64_t(1) << 30;

static std::string checkFixed(const char *name, int64_t value, int64_t fixed,
                              const char *why) {
  if (value == fixed)
    return "";
  std::ostringstream os;
  os << name << " must be " << fixed << " (" << why << "), got " << value;
  return os.str();
}

static std::string checkTiled(const char *name, int64_t value,
                              const char *why) {
  if (value > 0 && value % kTile == 0)
    return "";
  std::ostringstream os;
  os << name << " must be a positive multiple of " << kTile << " (" << why
     << "), got " << value;
  return os.str();
}

static std::string checkCount(const char *name, int64_t value, int64_t low,
                              int64_t high) {
  if (value >= low && value <= high)
    return "";
  std::ostringstream os;
  os << name << " must lie in [" << low << ", " << high << "], got " << value;
  return os.str();
}

static std::string checkFraction(const char *name, double value) {
  if (value >= 0 && value <= 1)
    return "";
  std::ostringstream os;
  os << name << " must lie in [0, 1], got " << value;
  return os.str();
}

std::string
tle::problems::validateSparseMLAConfig(const SparseMLAConfig &config) {
  const std::string checks[] = {
      checkCount("b", config.b, 1, 1 << 16),
      checkCount("sq", config.sq, 1, 1 << 24),
      checkCount("skv", config.skv, 1, kMaxSKV),
      checkTiled("h", config.h, "a CTA computes 64 heads"),
      checkTiled("topk", config.topk, "kv rows are gathered 64 at a time"),
      checkFixed("hkv", config.hkv, 1, "MLA shares one kv head"),
      checkFixed("dqk", config.dqk, 576, "512 latent + 64 rope dimensions"),
      checkFixed("dv", config.dv, 512, "V is the latent part of kv"),
      checkFraction("invalid fraction", config.invalidFraction),
      checkFraction("empty row fraction", config.emptyRowFraction),
      checkCount("q padding", config.qPad, 0, 1 << 16),
      std::isfinite(config.smScale) && config.smScale > 0
          ? ""
          : "sm_scale must be positive and finite",
  };
  for (const std::string &error : checks)
    if (!error.empty())
      return error;
  return "";
}

std::array<int64_t, 4>
tle::problems::getSparseMLAQStrides(const SparseMLAConfig &config) {
  int64_t head = config.dqk + config.qPad;
  int64_t token = config.h * head + config.qPad;
  return {config.sq * token, token, head, 1};
}

int64_t tle::problems::getSparseMLAQElements(const SparseMLAConfig &config) {
  return config.b * getSparseMLAQStrides(config)[0];
}

int64_t tle::problems::getSparseMLAQueryPosition(const SparseMLAConfig &config,
                                                 int64_t s) {
  return std::max<int64_t>(config.skv - config.sq + s, 0);
}

int64_t tle::problems::getSparseMLAFlops(const SparseMLAConfig &config) {
  return 2 * config.b * config.sq * config.h * config.topk *
         (config.dqk + config.dv);
}

std::array<unsigned, 3>
tle::problems::getSparseMLAGrid(const SparseMLAConfig &config, bool persistent,
                                int multiprocessors) {
  int64_t headGroups = config.h / 64;
  if (persistent) {
    int64_t items = config.b * config.sq * headGroups;
    int64_t ctas = std::max<int64_t>(
        1, std::min<int64_t>(items, std::max(multiprocessors, 1)));
    return {unsigned(ctas), 1, 1};
  }
  return {unsigned(config.sq * headGroups), unsigned(config.b), 1};
}

int64_t SparseMLAInputs::getKVRow(int64_t row, int64_t slot) const {
  if (!topkLength.empty() && slot >= topkLength[row])
    return -1;
  int32_t index = indices[row * config.hkv * config.topk + slot];
  if (index < 0 || index >= config.skv)
    return -1;
  return row / config.sq * config.skv + index;
}

bool SparseMLAInputs::isEmptyRow(int64_t row) const {
  for (int64_t slot = 0; slot < config.topk; ++slot)
    if (getKVRow(row, slot) >= 0)
      return false;
  return true;
}

std::vector<int64_t>
tle::problems::sampleSparseMLARows(const SparseMLAInputs &inputs,
                                   int64_t count) {
  int64_t rows = inputs.config.rows();
  std::vector<int64_t> sample;
  // Evenly spaced including both ends: the first and last tokens have the
  // shortest and the longest causal range.
  if (count >= rows) {
    for (int64_t row = 0; row < rows; ++row)
      sample.push_back(row);
  } else if (count == 1) {
    sample.push_back(rows - 1);
  } else {
    for (int64_t i = 0; i < count; ++i)
      sample.push_back(i * (rows - 1) / (count - 1));
  }
  // Empty rows cost nothing to check and exercise the -inf paths.
  for (int64_t row = 0; row < rows; ++row)
    if (inputs.isEmptyRow(row))
      sample.push_back(row);
  std::sort(sample.begin(), sample.end());
  sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
  return sample;
}

int64_t tle::problems::countSparseMLAKVRows(const SparseMLAInputs &inputs) {
  const SparseMLAConfig &config = inputs.config;
  std::vector<bool> selected(config.b * config.skv);
  for (int64_t row = 0; row < config.rows(); ++row)
    for (int64_t slot = 0; slot < config.topk; ++slot)
      if (int64_t kvRow = inputs.getKVRow(row, slot); kvRow >= 0)
        selected[kvRow] = true;
  return std::count(selected.begin(), selected.end(), true);
}

double tle::problems::getSparseMLAMinimumBytes(const SparseMLAInputs &inputs) {
  const SparseMLAConfig &config = inputs.config;
  double bf16 = 2, word = 4;
  double rowHeads = double(config.rows()) * config.h;
  double q = rowHeads * config.dqk * bf16;
  double kv =
      double(countSparseMLAKVRows(inputs)) * config.hkv * config.dqk * bf16;
  double indices = double(inputs.indices.size()) * word;
  double optional = (inputs.attnSink.size() + inputs.topkLength.size()) * word;
  double outputs = rowHeads * (config.dv * bf16 + 2 * word);
  return q + kv + indices + optional + outputs;
}
