//===- KVCacheFormat.h - DeepSeek's FP8 KV cache layouts --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The one home of the byte layout that tle.gather_rows_fp8 reads, as
// FlashMLA's tests/quant.py (`quantize_k_cache`) defines it and
// python/tle/sparse_mla/kv_cache.py writes it. Plain C++ with no LLVM,
// like Hopper.h.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_SUPPORT_KVCACHEFORMAT_H
#define TLE_SUPPORT_KVCACHEFORMAT_H

#include <cstdint>

namespace tle::kv_cache {

/// Tokens of one cache block; a token id is block * 64 + offset.
constexpr int64_t kBlockTokens = 64;

/// DeepSeek V3.2 ("V32_FP8Sparse"): 512 float8_e4m3fn values in tiles of
/// 128 columns, one f32 scale a tile, then the 64 rope columns as bf16.
namespace v32 {
constexpr int64_t kFp8Columns = 512;
constexpr int64_t kTileColumns = 128;
constexpr int64_t kScaleOffset = kFp8Columns;
constexpr int64_t kScaleBytes = 4;
constexpr int64_t kRopeOffset =
    kScaleOffset + kFp8Columns / kTileColumns * kScaleBytes;
constexpr int64_t kRopeColumns = 64;
constexpr int64_t kTokenBytes = kRopeOffset + kRopeColumns * 2;
constexpr int64_t kColumns = kFp8Columns + kRopeColumns;
static_assert(kTokenBytes == 656, "FlashMLA's V3.2 token is 656 bytes");
} // namespace v32

} // namespace tle::kv_cache

#endif // TLE_SUPPORT_KVCACHEFORMAT_H
