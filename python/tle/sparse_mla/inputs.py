# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Benchmark and test inputs, generated with torch on the target device.

Index distribution (SPARSE_MLA.md): query token t sits at kv position
s_kv - s_q + t and gets topk distinct uniformly random indices from the
causal range [0, s_kv - s_q + t]; if that range holds fewer than topk ids,
the remaining slots are -1. By default a row lists its ids in score order,
as a top-k over indexer scores returns them (random positions); "sorted"
lists them by position, which gathers with better DRAM locality and runs
faster for every kernel, so it is only ever reported beside score order. Optional corruption replaces a fraction of slots
with invalid ids of every kind, and a fraction of rows with only invalid ids.
"""

import torch

INT_MIN = -(2 ** 31)
INT_MAX = 2 ** 31 - 1


ORDERS = ("score", "sorted")


def causal_topk_indices(s_q, s_kv, topk, device="cuda", generator=None,
                        chunk_rows=512, order="score"):
    """[s_q, topk] int32 distinct random ids per row, causal as above.

    Distinct sampling without a Python loop: draw one random key per
    candidate id (its score), push ids past the row's causal limit to +inf,
    and keep the topk smallest keys in key order. Chunked over rows to bound
    the [rows, s_kv] keys.
    """
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    out = torch.empty(s_q, topk, dtype=torch.int32, device=device)
    k = min(topk, s_kv)
    cols = torch.arange(s_kv, device=device)
    for r0 in range(0, s_q, chunk_rows):
        r1 = min(r0 + chunk_rows, s_q)
        limit = s_kv - s_q + torch.arange(r0, r1, device=device)  # inclusive
        keys = torch.rand(r1 - r0, s_kv, device=device, generator=generator)
        keys.masked_fill_(cols[None, :] > limit[:, None], float("inf"))
        vals, ids = torch.topk(keys, k, dim=1, largest=False, sorted=True)
        ids = torch.where(torch.isinf(vals), torch.full_like(ids, -1), ids)
        if order == "sorted":
            # By position, the -1 padding last.
            ids = torch.where(ids < 0, torch.full_like(ids, s_kv), ids)
            ids = torch.sort(ids, dim=1).values
            ids = torch.where(ids == s_kv, torch.full_like(ids, -1), ids)
        if k < topk:
            pad = torch.full((r1 - r0, topk - k), -1, dtype=ids.dtype, device=device)
            ids = torch.cat([ids, pad], dim=1)
        out[r0:r1] = ids.to(torch.int32)
    return out


def random_invalid_ids(shape, s_kv, device="cuda", generator=None):
    """Invalid ids drawn evenly from every kind the kernels must survive:
    -1, other negatives, INT_MIN, INT_MAX, s_kv, and ids past s_kv."""
    kind = torch.randint(0, 6, shape, device=device, generator=generator)
    neg = -torch.randint(2, 2 ** 30, shape, device=device, generator=generator)
    # Past s_kv but still an int32 (s_kv + 1 .. s_kv + 2^20).
    past = s_kv + torch.randint(1, 2 ** 20, shape, device=device, generator=generator)
    ids = torch.full(shape, -1, dtype=torch.int64, device=device)
    ids = torch.where(kind == 1, neg, ids)
    ids = torch.where(kind == 2, torch.full_like(ids, INT_MIN), ids)
    ids = torch.where(kind == 3, torch.full_like(ids, INT_MAX), ids)
    ids = torch.where(kind == 4, torch.full_like(ids, s_kv), ids)
    ids = torch.where(kind == 5, past, ids)
    return ids.to(torch.int32)


def make_inputs(s_q=4096, s_kv=8192, h_q=128, topk=2048, d_qk=576,
                invalid_frac=0.0, empty_frac=0.0, q_offset=0.02,
                noncontiguous_q=False, device="cuda", seed=0, order="score"):
    """Returns (q [s_q,h_q,d_qk] bf16, kv [s_kv,1,d_qk] bf16,
    indices [s_q,1,topk] int32) in FlashMLA's call shapes."""
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    if noncontiguous_q:
        # Heads outermost in memory, then viewed as [s_q, h_q, d]: strides
        # differ from the contiguous layout, the last dim stays unit-stride.
        q = torch.randn(h_q, s_q, d_qk, device=device, generator=g).transpose(0, 1)
    else:
        q = torch.randn(s_q, h_q, d_qk, device=device, generator=g)
    q = (q / 10 + q_offset).to(torch.bfloat16)
    kv = (torch.randn(s_kv, 1, d_qk, device=device, generator=g) / 10).to(torch.bfloat16)
    idx = causal_topk_indices(s_q, s_kv, topk, device=device, generator=g,
                              order=order)
    if invalid_frac > 0:
        hit = torch.rand(s_q, topk, device=device, generator=g) < invalid_frac
        idx = torch.where(hit, random_invalid_ids((s_q, topk), s_kv, device, g), idx)
    if empty_frac > 0:
        # round(empty_frac * s_q) rows, at least one: a small case that asks
        # for empty rows always has one to check.
        count = max(1, round(empty_frac * s_q))
        rows = torch.zeros(s_q, dtype=torch.bool, device=device)
        rows[torch.randperm(s_q, device=device, generator=g)[:count]] = True
        bad = random_invalid_ids((s_q, topk), s_kv, device, g)
        idx = torch.where(rows[:, None], bad, idx)
    return q, kv, idx[:, None, :].contiguous()
