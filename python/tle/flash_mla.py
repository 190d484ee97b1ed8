# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""FlashMLA's sparse prefill and sparse FP8 decode under their own names,
on TLE's kernels: an engine that calls `flash_mla_sparse_fwd`, or
`get_mla_metadata` and `flash_mla_with_kvcache` with is_fp8_kvcache=True
and indices, switches with one import,

    from tle.flash_mla import flash_mla_sparse_fwd
    from tle.flash_mla import flash_mla_with_kvcache, get_mla_metadata

The contract is that of FlashMLA's (flash_mla/flash_mla_interface.py and
csrc/api/sparse_fwd.h at 9241ae3, the last commit with Hopper kernels):
q [s_q, h_q, d_qk] bf16, kv [s_kv, h_kv, d_qk] bf16 with h_kv = 1, indices
[s_q, h_kv, topk] int32, d_qk 576 (V3.2) or 512 (V4), d_v 512, attn_sink
[h_q] f32 and topk_length [s_q] int32 optional, the last dimension of each
contiguous and the other strides free; it returns new (out [s_q, h_q,
512] bf16, max_logits [s_q, h_q] f32, lse [s_q, h_q] f32) with FlashMLA's
semantics (docs/Python.md). It takes what FlashMLA's sm90 kernel takes and
more: any h_q and topk that are multiples of 64 (FlashMLA: h_q 64 or 128,
topk a multiple of 128). What it refuses that FlashMLA takes: indices
whose row stride is not a multiple of 16 bytes (4 ids) or that do not
start at a 16-byte boundary; for q and kv both need the same (FlashMLA
copies q with TMA and kv rows with 16-byte cp.async). Refusals are
ValueError and TypeError naming the rule, where FlashMLA raises
RuntimeError.

With kv_format="v32" (not FlashMLA's: its sparse prefill takes bf16 only)
kv is DeepSeek V3.2's FP8 KV cache [num_blocks, 64, 1, 656] and indices
are global token ids, as tle.sparse_mla_fwd takes them.

Decode (FlashMLA's sparse mode of flash_mla_with_kvcache, V3.2 cache):
get_mla_metadata() returns an empty schedule, filled at the first call
from the shapes (as FlashMLA's FlashMLASchedMeta is), and reusable while
they stay; later calls with other shapes are refused. The call takes q
[b, s_q, h_q, 576] bf16, k_cache [num_blocks, 64, 1, 656] (V3.2 FP8
bytes), indices [b, s_q, topk] int32 global ids, topk_length [b] and
attn_sink [h_q] optional, and returns (out [b, s_q, h_q, 512] bf16, lse
[b, h_q, s_q] f32); tle.sparse_mla_decode is what runs
(docs/Python.md). Refused, with a ValueError naming it: the dense modes
(no indices, or is_fp8_kvcache False), causal, the extra cache (V4), a
block_table or cache_seqlens (sparse decode ignores neither silently),
num_splits, head_dim_v other than 512, h_q not a multiple of 64.
"""

import dataclasses
from typing import Optional

from .sparse_mla.op import sparse_mla_fwd
from .sparse_mla.variants import D_V

__all__ = ["flash_mla_sparse_fwd", "flash_mla_with_kvcache", "get_mla_metadata",
           "MLASchedule"]


def flash_mla_sparse_fwd(q, kv, indices, sm_scale, d_v=D_V, attn_sink=None,
                         topk_length=None, *, kv_format="bf16"):
    """Sparse attention prefill, FlashMLA's call (see the module's doc):
    returns (out, max_logits, lse)."""
    if kv_format != "bf16":
        if (q.dim(), indices.dim()) != (3, 3):
            raise ValueError(f"flash_mla_sparse_fwd: q and indices must be 3-D, not "
                             f"{q.dim()}- and {indices.dim()}-D")
        return sparse_mla_fwd(q, kv, indices, sm_scale, d_v, attn_sink, topk_length,
                              kv_format=kv_format)
    if (q.dim(), kv.dim(), indices.dim()) != (3, 3, 3):
        raise ValueError(f"flash_mla_sparse_fwd: q, kv and indices must be 3-D, not "
                         f"{q.dim()}-, {kv.dim()}- and {indices.dim()}-D")
    if kv.shape[1] != 1:
        raise ValueError(f"flash_mla_sparse_fwd: h_kv (kv.shape[1] = {kv.shape[1]}) "
                         f"must be 1")
    return sparse_mla_fwd(q, kv, indices, sm_scale, d_v, attn_sink, topk_length)


@dataclasses.dataclass
class MLASchedule:
    """What get_mla_metadata returns: empty until the first
    flash_mla_with_kvcache call fills `schedule` (tle.sparse_mla.schedule
    .Schedule) from its shapes."""
    schedule: Optional[object] = None


def get_mla_metadata(*args, **kwargs):
    """FlashMLA's get_mla_metadata at 9241ae3: (an empty schedule, None);
    the arguments are ignored, as FlashMLA ignores them."""
    return MLASchedule(), None


def _refuse(message):
    raise ValueError(f"flash_mla_with_kvcache: {message}")


def flash_mla_with_kvcache(q, k_cache, block_table, cache_seqlens, head_dim_v,
                           tile_scheduler_metadata, num_splits=None, softmax_scale=None,
                           causal=False, is_fp8_kvcache=False, indices=None,
                           attn_sink=None, extra_k_cache=None,
                           extra_indices_in_kvcache=None, topk_length=None,
                           extra_topk_length=None):
    """FlashMLA's decode call, its sparse FP8 mode only (see the module's
    doc): returns (out, lse)."""
    from .sparse_mla.decode import schedule_for, sparse_mla_decode

    if indices is None or not is_fp8_kvcache:
        _refuse("tle runs the sparse FP8 mode only (is_fp8_kvcache=True with "
                "indices); the dense bf16 and FP8 decodes are not implemented")
    if causal:
        _refuse("causal must be False in sparse mode")
    if (extra_k_cache is not None or extra_indices_in_kvcache is not None
            or extra_topk_length is not None):
        _refuse("the extra cache (DeepSeek V4's window tokens) is not implemented")
    if block_table is not None or cache_seqlens is not None:
        _refuse("block_table and cache_seqlens must be None in sparse mode (indices "
                "are global token ids, block * 64 + offset)")
    if num_splits is not None:
        _refuse("num_splits must be None")
    if head_dim_v != 512:
        _refuse(f"head_dim_v must be 512, not {head_dim_v}")
    if not isinstance(tile_scheduler_metadata, MLASchedule):
        _refuse("tile_scheduler_metadata must be what tle.flash_mla.get_mla_metadata "
                "returns")
    if tile_scheduler_metadata.schedule is None:
        tile_scheduler_metadata.schedule = schedule_for(q, indices)
    return sparse_mla_decode(q, k_cache, indices, topk_length, attn_sink, softmax_scale,
                             tile_scheduler_metadata.schedule)
