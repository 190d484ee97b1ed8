//===- Gemm.h - The bf16 GEMM problem ---------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The problem "gemm": C[M, N] = A[M, K] . B[K, N] with A, B and C bf16 and
// row-major and the products accumulated in fp32 by the kernel. Its shape,
// deterministic inputs, a reference computed in double for a sample of C's
// entries, the comparison (lib/Problems/Gemm/Gemm.cpp), and the device
// binding (GemmProblem.cpp, created by createGemmProblem in Problem.h).
//
// Shape keys (--shape k=v,...), with the benchmark case as defaults:
// m=8192 n=8192 k=8192 bm=128 bn=256, where bm x bn is the tile of C one
// CTA computes; m, n and k must be multiples of bm, bn and 64. The kernel
// takes, in this order:
//
//   a  !tle.tensor_map<BMx64xbf16, swizzle = 128>   over A [M, K]
//   b  !tle.tensor_map<64x64xbf16, swizzle = 128>   over B [K, N]
//   c  memref<?x?xbf16>                              [M, N]
//      or !tle.tensor_map<RxCxbf16, swizzle = ...>   over C (TMA stores)
//   k  index                                         K
//
// The boxes are read from the kernel's arguments: a's rows must be bm, b's
// rows a's columns (the K step BK, which must divide k), b's columns
// must divide bn, and a box of C must divide bm x bn. Grid (N / bn,
// M / bm, 1).
//
// Plain C++17 without LLVM: tle-run links this on GPU machines that have the
// CUDA driver and nothing else.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_PROBLEMS_GEMM_H
#define TLE_PROBLEMS_GEMM_H

#include "tle/Runtime/Runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tle::problems {

/// The K step of the kernels: shapes must be multiples of it.
constexpr int64_t kGemmTileK = 64;

/// The defaults are the benchmark case.
struct GemmConfig {
  int64_t m = 8192;
  int64_t n = 8192;
  int64_t k = 8192;
  /// The tile of C one CTA computes.
  int64_t bm = 128;
  int64_t bn = 256;
};

/// Empty if the kernels can take `config`, else what is wrong with it.
std::string validateGemmConfig(const GemmConfig &config);

/// The inputs of one launch: bf16 bits, row-major.
struct GemmInputs {
  GemmConfig config;
  /// [m, k]
  std::vector<uint16_t> a;
  /// [k, n]
  std::vector<uint16_t> b;
};

/// Uniform in [-1, 1), rounded toward zero to bf16; deterministic for a
/// seed on any standard library and thread count. `config` must validate.
GemmInputs generateGemmInputs(const GemmConfig &config, uint64_t seed);

/// The entries of C to compare, as flat indices row * n + column, sorted
/// and distinct: `count` drawn at random from `seed`, the four corners, and
/// every entry of one row and one column also drawn from `seed`.
std::vector<int64_t> sampleGemmEntries(const GemmConfig &config, uint64_t seed,
                                       int64_t count);

/// The exact dot products (in double, from the bf16 inputs) for `entries`.
std::vector<double> computeGemmReference(const GemmInputs &inputs,
                                         const std::vector<int64_t> &entries);

/// An entry passes when |actual - expected| <= rel * |expected| + abs.
struct GemmTolerance {
  double rel;
  double abs;
};
/// Rounding the fp32 sum to bf16 (to nearest) is off by at most 2^-8 of the
/// value: `rel`. The fp32 sum itself strays from the exact one by a random
/// walk of roundings, of the order of 2^-24 * K / 4 for inputs in [-1, 1)
/// (5e-5 at K = 8192) whatever the order of the additions; `abs` = 1e-4 *
/// sqrt(K) (9e-3 there) leaves two orders of magnitude to spare and stays
/// well below what one missing product (1/4 on average) changes.
GemmTolerance getGemmTolerance(int64_t k);

struct GemmReport {
  int64_t compared = 0;
  int64_t mismatches = 0;
  /// Over the compared entries; NaNs count as mismatches, not here.
  double maxAbsError = 0;
  /// |actual - expected| / |expected| where the tolerance is mostly
  /// relative: |expected| >= abs / rel.
  double maxRelError = 0;
  /// The first failing entry, or -1.
  int64_t firstMismatch = -1;
  double expected = 0;
  double actual = 0;
  /// Every entry of C is scanned for NaN, the pattern the outputs are
  /// poisoned with: it finds tiles a kernel never wrote, sampled or not.
  int64_t scanned = 0;
  int64_t nans = 0;
  int64_t firstNaN = -1;

  bool passed() const { return mismatches == 0 && nans == 0; }
  std::string summary(const GemmConfig &config) const;
};

/// Compares `c` (bf16 bits, row-major) with the reference at `entries`.
GemmReport compareGemm(const std::vector<int64_t> &entries,
                       const std::vector<double> &reference,
                       const std::vector<uint16_t> &c,
                       const GemmTolerance &tolerance);

/// Whether `kernel`'s tensor maps are those above, with boxes that fit
/// `config`; the message says which does not, and why. The rest of the
/// signature is the runtime's to check (Problem::checkKernel).
runtime::Status checkGemmKernel(const runtime::KernelInfo &kernel,
                                const GemmConfig &config);

} // namespace tle::problems

#endif // TLE_PROBLEMS_GEMM_H
