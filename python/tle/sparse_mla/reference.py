# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""fp32 PyTorch reference for sparse MLA prefill.

Computed on gathered KV rows (not a dense mask over all of SKV), in chunks of
query rows so that memory stays bounded at the benchmark size.
"""

import math

import torch


def valid_mask(indices, s_kv, topk_length=None):
    """Which index slots take part: 0 <= id < s_kv and position < topk_length.

    indices: [s_q, topk] int. Returns bool [s_q, topk].
    """
    valid = (indices >= 0) & (indices < s_kv)
    if topk_length is not None:
        pos = torch.arange(indices.shape[-1], device=indices.device)
        valid &= pos[None, :] < topk_length.to(indices.device)[:, None].long()
    return valid


def sparse_mla_reference(q, kv, indices, sm_scale=None, d_v=512,
                         attn_sink=None, topk_length=None, chunk=16,
                         out_dtype=torch.bfloat16):
    """Reference forward. Returns (out [s_q,h,d_v] of `out_dtype`, bf16 as
    the kernels' or float32 unrounded, max_logits f32 [s_q,h], lse f32
    [s_q,h]); statistics in natural-log units.

    q: [s_q, h_q, d_qk]; kv: [s_kv, 1, d_qk]; indices: [s_q, 1, topk].
    """
    s_q, h_q, d_qk = q.shape
    s_kv = kv.shape[0]
    assert kv.shape[1] == 1 and indices.shape[1] == 1
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(d_qk)
    idx = indices[:, 0, :]
    kv2 = kv[:, 0, :]
    dev = q.device

    out = torch.empty(s_q, h_q, d_v, dtype=out_dtype, device=dev)
    max_logits = torch.empty(s_q, h_q, dtype=torch.float32, device=dev)
    lse = torch.empty(s_q, h_q, dtype=torch.float32, device=dev)

    # TF32 would make the "fp32" reference less accurate than the kernels it
    # judges; force full fp32 matmuls for the duration of the call.
    tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        for r0 in range(0, s_q, chunk):
            r1 = min(r0 + chunk, s_q)
            ids = idx[r0:r1].long()
            tl_chunk = None if topk_length is None else topk_length[r0:r1]
            valid = valid_mask(ids, s_kv, tl_chunk)
            # Invalid ids are never used to index: clamp to row 0, then mask.
            safe = torch.where(valid, ids, torch.zeros_like(ids))
            kg = kv2[safe].float()                       # [c, topk, d_qk]
            qc = q[r0:r1].float()                        # [c, h, d_qk]
            s = torch.matmul(qc, kg.transpose(1, 2)) * sm_scale  # [c, h, topk]
            s = s.masked_fill(~valid[:, None, :], float("-inf"))
            m = s.amax(dim=-1)                           # -inf on empty rows
            empty = ~valid.any(dim=-1)                   # [c]
            # Subtract a finite max so empty rows give exp(-inf) = 0, not NaN.
            m_safe = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
            p = torch.exp(s - m_safe[..., None])
            denom = p.sum(dim=-1)                        # 0 on empty rows
            o = torch.matmul(p, kg[..., :d_v])           # [c, h, d_v]
            o = o / torch.where(denom > 0, denom, torch.ones_like(denom))[..., None]
            l = m_safe + torch.log(denom)                # -inf on empty rows
            l = torch.where(empty[:, None], torch.full_like(l, float("inf")), l)
            if attn_sink is not None:
                # e^lse / (e^lse + e^sink) = sigmoid(lse - sink): -inf sink
                # gives 1, +inf sink gives 0, no overflow for large lse.
                sink = attn_sink.float().to(dev)[None, :]
                w = torch.sigmoid(l - sink)
                # lse = +inf with sink = +inf is NaN; those rows are 0 anyway.
                w = torch.where(empty[:, None], torch.zeros_like(w), w)
                o = o * w[..., None]
            o = torch.where(empty[:, None, None], torch.zeros_like(o), o)
            out[r0:r1] = o.to(out_dtype)
            max_logits[r0:r1] = m
            lse[r0:r1] = l
    finally:
        torch.backends.cuda.matmul.allow_tf32 = tf32
    return out, max_logits, lse


def sparse_mla_decode_reference(q, k_cache, indices, topk_length=None, attn_sink=None,
                                sm_scale=None):
    """fp32 reference of sparse MLA decode on the V3.2 FP8 cache, judged on
    the dequantized cache: q [b, s_q, h_q, 576], k_cache [num_blocks, 64,
    1, 656] uint8, indices [b, s_q, topk] global ids, topk_length [b].
    Returns (out [b, s_q, h_q, 512] bf16, lse [b, h_q, s_q] f32)."""
    from .kv_cache import dequantize

    b, s_q, h_q, d_qk = q.shape
    topk = indices.shape[-1]
    kv = dequantize(k_cache)                             # [tokens, 1, 576]
    rows = indices.reshape(b * s_q, 1, topk)
    lengths = None
    if topk_length is not None:
        lengths = topk_length.to(torch.int32).repeat_interleave(s_q)
    out, _, lse = sparse_mla_reference(q.reshape(b * s_q, h_q, d_qk), kv, rows, sm_scale,
                                       attn_sink=attn_sink, topk_length=lengths)
    return out.view(b, s_q, h_q, -1), lse.view(b, s_q, h_q).transpose(1, 2).contiguous()
