//===- SparseMLAProblem.h - tle-run's SparseMLA problem ---------*- C++ -*-===//
//
// Meant to be registered as "sparse_mla", the prefix of its messages. Shape
// keys (--shape k=v,...), with the benchmark case as defaults:
//   b=1 sq=4096 h=128 topk=2048 skv=8192 invalid=0.25 empty=0.02 sink=0
//   topk_length=0 q_pad=0 distribution=random (or locality)
//   rows_checked=128 sm_scale=1/sqrt(576)
//
// The kernel it launches takes, in this order (MLIR types before lowering;
// a '?' may also be the configured size, and a strided layout is accepted
// wherever its static strides agree with the ones passed):
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
// Grid (sq, h / 64, b): one CTA per query token and group of 64 heads.
// max_logits and lse are in natural-log units; see
// include/tle/Problems/SparseMLA.h for the semantics.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_TOOLS_TLE_RUN_SPARSEMLAPROBLEM_H
#define TLE_TOOLS_TLE_RUN_SPARSEMLAPROBLEM_H

#include "Problem.h"

#include <memory>

namespace tle::run {

std::unique_ptr<Problem> createSparseMLAProblem();

} // namespace tle::run

#endif // TLE_TOOLS_TLE_RUN_SPARSEMLAPROBLEM_H
