//===- SparseMLA.h - DeepSeek's sparse MLA prefill --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The problem "sparse_mla": its shape, deterministic inputs, an independent
// double-precision reference for sampled query rows, the comparison the
// published kernels are held to, and the FLOP count their TFLOPS figures
// use (lib/Problems/SparseMLA/), and the device binding
// (SparseMLAProblem.cpp, created by createSparseMLAProblem in Problem.h).
//
// Per query row (b, s) and head, over the topk kv rows its indices select:
//   P = sm_scale * q . K^T   (K = kv[..., :576]; invalid slots are -inf)
//   max_logits = max P,  lse = log sum exp P  (natural log),
//   out = softmax(P) @ V     (V = kv[..., :512]).
// A slot is invalid when its index is < 0 or >= skv, or, with topk_length,
// when the slot's position is >= topk_length[row]. A row without a valid
// slot has out = 0, lse = +inf and max_logits = -inf. An attention sink
// scales out by e^lse / (e^lse + e^sink) and leaves the statistics alone.
//
// Shape keys (--shape k=v,...), with the benchmark case as defaults:
//   b=1 sq=4096 h=128 topk=2048 skv=8192 invalid=0.25 empty=0.02 sink=0
//   topk_length=0 q_pad=0 distribution=random (or locality)
//   rows_checked=128 sm_scale=1/sqrt(576)
//
// The kernel takes, in this order (MLIR types before lowering; a '?' may
// also be the configured size, and a strided layout is accepted wherever
// its static strides agree with the ones passed):
//
//   q           memref<?x?x?x576xbf16, strided<[?, ?, ?, 1]>>  [b, sq, h, 576]
//               (strided whenever q_pad > 0: the head and token strides
//               are then larger than dense)
//   kv          memref<?x?x1x576xbf16>   [b, skv, 1, 576]
//   indices     memref<?x?x1x?xi32>      [b, sq, 1, topk]
//   out         memref<?x?x?x512xbf16>   [b, sq, h, 512]
//   max_logits  memref<?x?x?xf32>        [b, sq, h]
//   lse         memref<?x?x?xf32>        [b, sq, h]
//   sm_scale    f32
//
// and, for a kernel that supports them, two more; with sink=0 or
// topk_length=0 they hold values that change nothing (all -inf, all topk):
//
//   attn_sink   memref<?xf32>            [h]
//   topk_length memref<?xi32>            [b * sq]
//
// and after those, for a kernel that writes its output with TMA stores,
//
//   out_map     !tle.tensor_map<...xbf16, ...>   out as [b * sq * h, 512]
//
// a descriptor of out's memory (the box and swizzle from the signature).
//
// Grid (sq * h / 64, b): one CTA per work item, a query token and a group
// of 64 heads, a token's head groups adjacent in x; or, for a persistent
// kernel (tle.persistent), one CTA per multiprocessor, each taking the
// items of its linear id (getSparseMLAGrid).
//
// Plain C++17 without LLVM: tle-run links this on GPU machines that have the
// CUDA driver and nothing else.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_PROBLEMS_SPARSEMLA_H
#define TLE_PROBLEMS_SPARSEMLA_H

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace tle::problems {

/// Where the valid indices of a query row come from.
enum class IndexDistribution {
  /// Uniform over every position the token may attend to.
  Random,
  /// Mostly from the 20000 positions before the token: the gathers hit L2.
  Locality,
};

/// The defaults are the benchmark case at its smallest kv length.
struct SparseMLAConfig {
  int64_t b = 1;
  int64_t sq = 4096;
  int64_t h = 128;
  int64_t hkv = 1;
  int64_t dqk = 576;
  int64_t dv = 512;
  int64_t topk = 2048;
  int64_t skv = 8192;
  /// 1 / sqrt(576). A float because the kernel receives an f32; the
  /// reference uses exactly the value the kernel gets.
  float smScale = 1.0f / 24.0f;
  /// Share of the index slots of each row that hold invalid ids.
  double invalidFraction = 0.25;
  /// Share of the query rows without any valid index.
  double emptyRowFraction = 0.02;
  IndexDistribution distribution = IndexDistribution::Random;
  /// Whether the problem has an attn_sink [h] and a topk_length [b * sq].
  bool attnSink = false;
  bool topkLength = false;
  /// Elements of padding after each head of q and after each token's heads,
  /// so that q's head and token strides are not the dense ones.
  int64_t qPad = 0;

  int64_t rows() const { return b * sq; }
};

/// Empty if the kernels can take `config`, else what is wrong with it.
std::string validateSparseMLAConfig(const SparseMLAConfig &config);

/// q's strides in elements for [b, sq, h, dqk], and the elements it spans.
std::array<int64_t, 4> getSparseMLAQStrides(const SparseMLAConfig &config);
int64_t getSparseMLAQElements(const SparseMLAConfig &config);

/// The kv position of query token `s`: the causal bound of its indices.
int64_t getSparseMLAQueryPosition(const SparseMLAConfig &config, int64_t s);

/// 2 * b * sq * h * topk * (dqk + dv): invalid slots count, softmax does not.
int64_t getSparseMLAFlops(const SparseMLAConfig &config);

/// The launch grid of a SparseMLA kernel: one CTA per work item (a query
/// token and 64 heads), (sq * h / 64, b); for a `persistent` kernel, which
/// takes the items of its CTA's linear id in a loop (metadata
/// "persistent"), min(b * sq * h / 64, multiprocessors) CTAs in x.
std::array<unsigned, 3> getSparseMLAGrid(const SparseMLAConfig &config,
                                         bool persistent, int multiprocessors);

/// The inputs of one launch, on the host, in the kernel's layouts.
struct SparseMLAInputs {
  SparseMLAConfig config;
  /// bf16 bits at getSparseMLAQStrides(); the padding holds NaN so that a
  /// kernel reading it produces NaN.
  std::vector<uint16_t> q;
  /// bf16 bits, dense [b, skv, hkv, dqk].
  std::vector<uint16_t> kv;
  /// Dense [b, sq, hkv, topk].
  std::vector<int32_t> indices;
  /// [h] when config.attnSink, else empty.
  std::vector<float> attnSink;
  /// [b * sq] when config.topkLength, else empty.
  std::vector<int32_t> topkLength;

  /// The flat kv row (batch * skv + index) that `slot` of flat query row
  /// `row` (batch * sq + s) selects, or -1 for an invalid slot.
  int64_t getKVRow(int64_t row, int64_t slot) const;
  bool isEmptyRow(int64_t row) const;
};

/// Deterministic for a seed (on any standard library and thread count).
/// Each row gets distinct valid indices within its causal bound (as many as
/// (1 - invalidFraction) * topk, fewer where the bound leaves fewer), the
/// other slots get invalid ids of every kind (-1, other negatives, INT_MIN,
/// INT_MAX, skv, above skv), emptyRowFraction of the rows get invalid ids
/// only, and each row is shuffled. q and kv are randn / 10 plus an offset
/// per tensor, rounded to bf16. `config` must validate.
SparseMLAInputs generateSparseMLAInputs(const SparseMLAConfig &config,
                                        uint64_t seed);

/// About `count` rows spread evenly from the first to the last, plus every
/// row without a valid slot; sorted.
std::vector<int64_t> sampleSparseMLARows(const SparseMLAInputs &inputs,
                                         int64_t count);

/// Distinct kv rows the valid slots select: the gather traffic at least.
int64_t countSparseMLAKVRows(const SparseMLAInputs &inputs);

/// Bytes a launch must move at least: q, each selected kv row once, the
/// indices, the optional inputs and the outputs.
double getSparseMLAMinimumBytes(const SparseMLAInputs &inputs);

/// The reference for `rows` (flat rows b * sq + s), all heads, computed in
/// double from the bf16 inputs. Invalid slots are never read.
struct SparseMLAReference {
  std::vector<int64_t> rows;
  /// [rows.size(), h, dv]
  std::vector<double> out;
  /// [rows.size(), h]
  std::vector<double> maxLogits;
  std::vector<double> lse;
};
SparseMLAReference computeSparseMLAReference(const SparseMLAInputs &inputs,
                                             const std::vector<int64_t> &rows);

/// What a kernel wrote, downloaded whole.
struct SparseMLAOutputs {
  /// bf16 bits, dense [b, sq, h, dv].
  std::vector<uint16_t> out;
  /// Dense [b, sq, h].
  std::vector<float> maxLogits;
  std::vector<float> lse;
};

/// out is compared in bf16 on both sides (the reference rounded to bf16), as
/// the anchors do; the statistics in float against double.
/// An element fails when both its absolute error reaches `abs` and its
/// relative error |actual - expected| / (|expected| + 1e-6) reaches `rel`;
/// the tensor fails when any element does or when its cosine difference
/// 1 - 2 sum(a e) / sum(a^2 + e^2) exceeds `cosDiff`. Infinities and NaNs
/// must sit at the same positions with the same values.
struct SparseMLATolerance {
  double abs;
  double rel;
  double cosDiff;
};
/// The anchors' figures (FlashMLA's test).
constexpr SparseMLATolerance kSparseMLAOutTolerance{8e-4, 3.01 / 128, 7e-6};
constexpr SparseMLATolerance kSparseMLAStatTolerance{
    1e-6, 2.01 / 65536, std::numeric_limits<double>::infinity()};

/// The comparison of one output tensor over the sampled rows.
struct SparseMLATensorReport {
  /// "out", "max_logits" or "lse".
  std::string name;
  int64_t compared = 0;
  int64_t mismatches = 0;
  /// Over the elements where both values are finite.
  double maxAbsError = 0;
  double maxRelError = 0;
  double cosDiff = 0;
  /// Flat index into the kernel's tensor of the first failing element, the
  /// same as text ("out[b=0, s=12, h=3, d=5]"), and both values; -1 when
  /// none failed.
  int64_t firstMismatch = -1;
  std::string firstMismatchAt;
  double expected = 0;
  double actual = 0;
  bool passed = true;
};

struct SparseMLAReport {
  int64_t rowsCompared = 0;
  SparseMLATensorReport out;
  SparseMLATensorReport maxLogits;
  SparseMLATensorReport lse;
  /// Every row is also scanned, sampled or not: an empty row must read
  /// exactly 0 / -inf / +inf and any other row finite values, which catches
  /// rows a kernel never wrote (their poison is NaN) outside the sample.
  int64_t rowsScanned = 0;
  int64_t scanErrors = 0;
  std::string firstScanError;

  bool passed() const;
  /// One line: each tensor's figures, its first mismatch, then the scan.
  std::string summary() const;
};

SparseMLAReport compareSparseMLA(const SparseMLAInputs &inputs,
                                 const SparseMLAReference &reference,
                                 const SparseMLAOutputs &outputs);

} // namespace tle::problems

#endif // TLE_PROBLEMS_SPARSEMLA_H
