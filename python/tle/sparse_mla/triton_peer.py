# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The Triton peer: dataflow 1 ("naive") of SPARSE_MLA.md.

One program per (query token, block of 64 heads). It walks the token's topk
ids in tiles of BK=64, gathers the 64 KV rows of a tile (main 512 columns and
the 64-column rope tail separately, so that each tl.dot has a power-of-two K),
and folds them into an online softmax kept in base 2.
"""

import math

import torch
import triton
import triton.language as tl

LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453


@triton.jit
def _sparse_mla_naive_kernel(
    q_ptr, kv_ptr, idx_ptr, out_ptr, lse_ptr, maxl_ptr,
    s_kv, topk, scale_log2,
    stride_qs, stride_qh, stride_qd,
    stride_kvs, stride_kvd,
    stride_is, stride_ik,
    stride_os, stride_oh, stride_od,
    stride_ls, stride_lh,
    BH: tl.constexpr, BK: tl.constexpr, DM: tl.constexpr, DT: tl.constexpr,
):
    t = tl.program_id(0)
    h0 = tl.program_id(1) * BH
    offs_h = h0 + tl.arange(0, BH)
    offs_dm = tl.arange(0, DM)
    offs_dt = DM + tl.arange(0, DT)
    offs_k = tl.arange(0, BK)

    q_row = q_ptr + t * stride_qs + offs_h[:, None] * stride_qh
    q_main = tl.load(q_row + offs_dm[None, :] * stride_qd)   # [BH, DM] bf16
    q_tail = tl.load(q_row + offs_dt[None, :] * stride_qd)   # [BH, DT] bf16

    # Finite start value: a tile with no valid id leaves m at -1e30 and
    # exp2(-inf - (-1e30)) = 0, where -inf would give exp2(NaN).
    m_i = tl.full([BH], -1.0e30, tl.float32)
    l_i = tl.zeros([BH], tl.float32)
    acc = tl.zeros([BH, DM], tl.float32)

    for k0 in range(0, topk, BK):
        pos = k0 + offs_k
        ids = tl.load(idx_ptr + t * stride_is + pos * stride_ik,
                      mask=pos < topk, other=-1)
        valid = (ids >= 0) & (ids < s_kv)
        # Never form an address from an invalid id (INT_MIN * stride would
        # wrap); row 0 stands in and the load mask keeps it unread anyway.
        safe = tl.where(valid, ids, 0).to(tl.int64)
        kv_row = kv_ptr + safe[:, None] * stride_kvs
        k_main = tl.load(kv_row + offs_dm[None, :] * stride_kvd,
                         mask=valid[:, None], other=0.0)      # [BK, DM]
        k_tail = tl.load(kv_row + offs_dt[None, :] * stride_kvd,
                         mask=valid[:, None], other=0.0)      # [BK, DT]

        qk = tl.dot(q_tail, tl.trans(k_tail))
        qk = tl.dot(q_main, tl.trans(k_main), qk)            # [BH, BK] fp32
        qk = qk * scale_log2
        qk = tl.where(valid[None, :], qk, float("-inf"))

        m_new = tl.maximum(m_i, tl.max(qk, 1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(qk - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(tl.bfloat16), k_main, acc)         # V = K[:, :512]
        m_i = m_new

    empty = l_i == 0.0
    l_safe = tl.where(empty, 1.0, l_i)
    o = acc / l_safe[:, None]
    o = tl.where(empty[:, None], 0.0, o)
    # Back to natural log: x_nat = x_log2 * ln 2.
    lse = tl.where(empty, float("inf"), (m_i + tl.log2(l_safe)) * 0.6931471805599453)
    maxl = tl.where(empty, float("-inf"), m_i * 0.6931471805599453)

    o_ptrs = out_ptr + t * stride_os + offs_h[:, None] * stride_oh + offs_dm[None, :] * stride_od
    tl.store(o_ptrs, o.to(tl.bfloat16))
    tl.store(lse_ptr + t * stride_ls + offs_h * stride_lh, lse)
    tl.store(maxl_ptr + t * stride_ls + offs_h * stride_lh, maxl)


def sparse_mla_triton(q, kv, indices, sm_scale=None, d_v=512):
    """FlashMLA-shaped call: q[s_q,h_q,576], kv[s_kv,1,576],
    indices[s_q,1,topk] -> (out bf16, max_logits f32, lse f32)."""
    s_q, h_q, d_qk = q.shape
    s_kv = kv.shape[0]
    topk = indices.shape[-1]
    BH, BK, DM, DT = 64, 64, 512, 64
    assert d_qk == DM + DT and d_v == DM, "kernel is specialised for 576/512"
    assert h_q % BH == 0, "h_q must be a multiple of 64"
    assert q.dtype == torch.bfloat16 and kv.dtype == torch.bfloat16
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(d_qk)
    out = torch.empty(s_q, h_q, d_v, dtype=torch.bfloat16, device=q.device)
    lse = torch.empty(s_q, h_q, dtype=torch.float32, device=q.device)
    maxl = torch.empty_like(lse)
    grid = (s_q, h_q // BH)
    _sparse_mla_naive_kernel[grid](
        q, kv, indices, out, lse, maxl,
        s_kv, topk, sm_scale * LOG2E,
        q.stride(0), q.stride(1), q.stride(2),
        kv.stride(0), kv.stride(2),
        indices.stride(0), indices.stride(2),
        out.stride(0), out.stride(1), out.stride(2),
        lse.stride(0), lse.stride(1),
        BH=BH, BK=BK, DM=DM, DT=DT,
        num_warps=8, num_stages=2,
    )
    return out, maxl, lse
