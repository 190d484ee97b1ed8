//===- SparseMLAReference.cpp - Double-precision SparseMLA reference ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Written from the definition, with nothing in common with how a kernel
// computes it: no tiling, no online softmax, no base-2 exponentials. The
// sums run in double over the exact float values of the bf16 inputs.
//
//===----------------------------------------------------------------------===//

#include "Parallel.h"
#include "tle/Problems/BFloat16.h"
#include "tle/Problems/SparseMLA.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace tle::problems;

static constexpr double kInf = std::numeric_limits<double>::infinity();

/// The K rows (V is the first dv columns of each) that the valid slots of
/// `row` select, as floats: converted once, used by every head.
static std::vector<float> gatherKeys(const SparseMLAInputs &inputs,
                                     int64_t row) {
  const SparseMLAConfig &config = inputs.config;
  std::vector<float> keys;
  for (int64_t slot = 0; slot < config.topk; ++slot) {
    int64_t kvRow = inputs.getKVRow(row, slot);
    if (kvRow < 0)
      continue;
    const uint16_t *source = inputs.kv.data() + kvRow * config.hkv * config.dqk;
    for (int64_t d = 0; d < config.dqk; ++d)
      keys.push_back(bfloat16ToFloat(source[d]));
  }
  return keys;
}

static std::vector<float> loadQuery(const SparseMLAInputs &inputs, int64_t row,
                                    int64_t head) {
  const SparseMLAConfig &config = inputs.config;
  std::array<int64_t, 4> strides = getSparseMLAQStrides(config);
  const uint16_t *source = inputs.q.data() + row / config.sq * strides[0] +
                           row % config.sq * strides[1] + head * strides[2];
  std::vector<float> query(config.dqk);
  for (int64_t d = 0; d < config.dqk; ++d)
    query[d] = bfloat16ToFloat(source[d]);
  return query;
}

/// e^lse / (e^lse + e^sink), in a form that overflows for no finite input.
static double getSinkFactor(double lse, float sink) {
  if (sink == -kInf)
    return 1;
  if (sink == kInf)
    return 0;
  return 1 / (1 + std::exp(double(sink) - lse));
}

namespace {
/// Where one head's results go.
struct HeadResult {
  double *out;
  double &maxLogit;
  double &lse;
};
} // namespace

static void computeHead(const SparseMLAInputs &inputs,
                        const std::vector<float> &query,
                        const std::vector<float> &keys, int64_t head,
                        HeadResult result) {
  const SparseMLAConfig &config = inputs.config;
  int64_t count = keys.size() / config.dqk;
  std::vector<double> scores(count);
  for (int64_t j = 0; j < count; ++j) {
    const float *key = keys.data() + j * config.dqk;
    double dot = 0;
    for (int64_t d = 0; d < config.dqk; ++d)
      dot += double(query[d]) * key[d];
    scores[j] = config.smScale * dot;
  }
  result.maxLogit = *std::max_element(scores.begin(), scores.end());
  double sum = 0;
  for (double score : scores)
    sum += std::exp(score - result.maxLogit);
  result.lse = result.maxLogit + std::log(sum);

  double factor =
      config.attnSink ? getSinkFactor(result.lse, inputs.attnSink[head]) : 1;
  std::fill(result.out, result.out + config.dv, 0.0);
  for (int64_t j = 0; j < count; ++j) {
    double weight = std::exp(scores[j] - result.lse) * factor;
    const float *value = keys.data() + j * config.dqk;
    for (int64_t d = 0; d < config.dv; ++d)
      result.out[d] += weight * value[d];
  }
}

/// Row `index` of `reference`, all heads.
static void computeRow(const SparseMLAInputs &inputs, int64_t index,
                       SparseMLAReference &reference) {
  const SparseMLAConfig &config = inputs.config;
  int64_t row = reference.rows[index];
  std::vector<float> keys = gatherKeys(inputs, row);
  for (int64_t head = 0; head < config.h; ++head) {
    int64_t stat = index * config.h + head;
    HeadResult result{reference.out.data() + stat * config.dv,
                      reference.maxLogits[stat], reference.lse[stat]};
    if (keys.empty()) {
      // The defined result of attending to nothing; no NaN from 0 / 0.
      std::fill(result.out, result.out + config.dv, 0.0);
      result.maxLogit = -kInf;
      result.lse = kInf;
      continue;
    }
    computeHead(inputs, loadQuery(inputs, row, head), keys, head, result);
  }
}

SparseMLAReference
tle::problems::computeSparseMLAReference(const SparseMLAInputs &inputs,
                                         const std::vector<int64_t> &rows) {
  const SparseMLAConfig &config = inputs.config;
  SparseMLAReference reference;
  reference.rows = rows;
  int64_t stats = int64_t(rows.size()) * config.h;
  reference.out.resize(stats * config.dv);
  reference.maxLogits.resize(stats);
  reference.lse.resize(stats);
  parallelFor(rows.size(), 1, [&](int64_t begin, int64_t end) {
    for (int64_t index = begin; index < end; ++index)
      computeRow(inputs, index, reference);
  });
  return reference;
}
