# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""fp32 PyTorch reference for attention forward, for the rows asked for.

Computed per batch on a chunk of query rows at a time, all heads at once,
so that memory stays bounded at S = 16,384 and the tests can check a
sample of rows of a large case without computing all of them.
"""

import math

import torch

# Scores per chunk (heads x rows x keys), about 256 MiB of fp32.
CHUNK_SCORES = 1 << 26


def attention_reference(q, k, v, causal=False, sm_scale=None, rows=None):
    """(out, lse) of rows `rows` (query positions, all when None) in fp32:
    out [B, len(rows), H, D] and lse [B, H, len(rows)], natural log. q [B,
    S_q, H, D], k and v [B, S_k, H_kv, D]; causal: query i sees keys j <= i."""
    b, s_q, heads, d = q.shape
    s_k, kv_heads = k.shape[1], k.shape[2]
    group = heads // kv_heads
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(d)
    if rows is None:
        rows = torch.arange(s_q, device=q.device)
    rows = rows.to(q.device)
    out = torch.empty(b, rows.numel(), heads, d, dtype=torch.float32, device=q.device)
    lse = torch.empty(b, heads, rows.numel(), dtype=torch.float32, device=q.device)
    chunk = max(1, CHUNK_SCORES // max(1, heads * s_k))
    keys = torch.arange(s_k, device=q.device)
    # TF32 would make the "fp32" reference less accurate than the kernels it
    # judges.
    tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        for batch in range(b):
            kb = k[batch].float().transpose(0, 1).repeat_interleave(group, 0)
            vb = v[batch].float().transpose(0, 1).repeat_interleave(group, 0)
            for r0 in range(0, rows.numel(), chunk):
                picked = rows[r0:r0 + chunk]
                qc = q[batch, picked].float().transpose(0, 1)     # [H, c, D]
                s = torch.matmul(qc, kb.transpose(1, 2)) * sm_scale  # [H, c, S_k]
                if causal:
                    hidden = keys[None, :] > picked[:, None]
                    s = s.masked_fill(hidden[None], float("-inf"))
                top = s.amax(-1, keepdim=True)
                p = torch.exp(s - top)
                total = p.sum(-1, keepdim=True)
                out[batch, r0:r0 + chunk] = (torch.matmul(p, vb) / total).transpose(0, 1)
                lse[batch, :, r0:r0 + chunk] = (top + torch.log(total))[..., 0]
    finally:
        torch.backends.cuda.matmul.allow_tf32 = tf32
    return out, lse
