//===- GemmProblem.h - tle-run's GEMM problem -------------------*- C++ -*-===//
//
// Registered as "gemm": C[M, N] = A[M, K] . B[K, N], A, B and C bf16 and
// row-major, accumulated in fp32. Shape keys (--shape k=v,...), with the
// benchmark case as defaults: m=8192 n=8192 k=8192 bm=128 bn=256, where bm
// x bn is the tile of C one CTA computes; m, n and k must be multiples of
// bm, bn and 64.
//
// The kernel it launches takes, in this order:
//
//   a  !tle.tensor_map<BMx64xbf16, swizzle = 128>   over A [M, K]
//   b  !tle.tensor_map<64x64xbf16, swizzle = 128>   over B [K, N]
//   c  memref<?x?xbf16>                              [M, N]
//   k  index                                         K
//
// The boxes are read from the kernel's signature: a's rows must be bm, b's
// rows a's columns (the K step BK, which must divide k), and b's columns
// must divide bn. Grid (N / bn, M / bm, 1).
//
//===----------------------------------------------------------------------===//

#ifndef TLE_TOOLS_TLE_RUN_GEMMPROBLEM_H
#define TLE_TOOLS_TLE_RUN_GEMMPROBLEM_H

#include "Problem.h"

#include "tle/Problems/Gemm.h"

namespace tle::run {

/// Whether `kernel` takes the arguments above with boxes that fit `config`;
/// the message says which does not, and why.
runtime::Status checkGemmKernel(const runtime::KernelInfo &kernel,
                                const problems::GemmConfig &config);

} // namespace tle::run

#endif // TLE_TOOLS_TLE_RUN_GEMMPROBLEM_H
