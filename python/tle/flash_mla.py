# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""FlashMLA's sparse prefill under its own name, on TLE's kernels: an engine
that calls `flash_mla_sparse_fwd` switches with one import,

    from tle.flash_mla import flash_mla_sparse_fwd

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
"""

from .sparse_mla.op import sparse_mla_fwd
from .sparse_mla.variants import D_V

__all__ = ["flash_mla_sparse_fwd"]


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
