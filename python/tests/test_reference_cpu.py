# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Reference semantics on hand-built cases, CPU only (skipped without torch)."""

import math

import pytest

torch = pytest.importorskip("torch")

from tle.sparse_mla.reference import sparse_mla_reference  # noqa: E402

H, D = 4, 576


def _inputs(s_q=2, s_kv=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    q = (torch.randn(s_q, H, D, generator=g) / 10 + 0.02).to(torch.bfloat16)
    kv = (torch.randn(s_kv, 1, D, generator=g) / 10).to(torch.bfloat16)
    return q, kv


def test_single_valid_index():
    q, kv = _inputs()
    idx = torch.tensor([[[3, -1, 8, 2 ** 31 - 1]], [[-(2 ** 31), 5, 9, -7]]], dtype=torch.int32)
    out, maxl, lse = sparse_mla_reference(q, kv, idx, 0.5)
    for row, j in ((0, 3), (1, 5)):
        s = 0.5 * (q[row].float() @ kv[j, 0].float())
        # One valid column: softmax weight 1, lse == max == its score.
        torch.testing.assert_close(out[row].float(), kv[j, 0, :512].float().expand(H, 512),
                                   atol=0, rtol=0)
        torch.testing.assert_close(maxl[row], s, atol=1e-6, rtol=1e-6)
        torch.testing.assert_close(lse[row], s, atol=1e-6, rtol=1e-6)


def test_matches_dense_softmax():
    q, kv = _inputs(s_q=3, s_kv=16, seed=1)
    idx = torch.tensor([[[0, 4, 4 + 16, 7]], [[15, 1, -1, 2]], [[3, 16, 9, 11]]], dtype=torch.int32)
    out, maxl, lse = sparse_mla_reference(q, kv, idx, 0.3)
    for r in range(3):
        ids = [i for i in idx[r, 0].tolist() if 0 <= i < 16]
        k = kv[ids, 0].float()
        s = 0.3 * q[r].float() @ k.T
        torch.testing.assert_close(lse[r], torch.logsumexp(s, -1), atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(maxl[r], s.amax(-1), atol=1e-6, rtol=1e-6)
        ref = (torch.softmax(s, -1) @ k[:, :512]).to(torch.bfloat16).float()
        torch.testing.assert_close(out[r].float(), ref, atol=1e-2, rtol=1e-2)


def test_all_invalid_row():
    q, kv = _inputs()
    idx = torch.tensor([[[-1, 8, -(2 ** 31), 2 ** 31 - 1]], [[1, 2, 3, 4]]], dtype=torch.int32)
    out, maxl, lse = sparse_mla_reference(q, kv, idx, 0.5)
    assert not torch.isnan(out.float()).any()
    assert (out[0].float() == 0).all()
    assert torch.isposinf(lse[0]).all() and torch.isneginf(maxl[0]).all()
    assert torch.isfinite(lse[1]).all() and torch.isfinite(maxl[1]).all()


def test_sink():
    q, kv = _inputs()
    idx = torch.tensor([[[0, 1, 2, -1]], [[-1, -1, -1, -1]]], dtype=torch.int32)
    base, maxl0, lse0 = sparse_mla_reference(q, kv, idx, 0.5)
    o, m, l = sparse_mla_reference(q, kv, idx, 0.5, attn_sink=torch.full((H,), -math.inf))
    assert torch.equal(o, base) and torch.equal(l, lse0) and torch.equal(m, maxl0)
    o, m, l = sparse_mla_reference(q, kv, idx, 0.5, attn_sink=torch.full((H,), math.inf))
    assert (o.float() == 0).all() and not torch.isnan(o.float()).any()
    assert torch.equal(l, lse0) and torch.equal(m, maxl0)
    sink = torch.linspace(-1, 1, H)
    o, _, _ = sparse_mla_reference(q, kv, idx, 0.5, attn_sink=sink)
    w = torch.exp(lse0[0]) / (torch.exp(lse0[0]) + torch.exp(sink))
    ref = (base[0].float() * w[:, None]).to(torch.bfloat16).float()
    torch.testing.assert_close(o[0].float(), ref, atol=1e-2, rtol=1e-2)
    assert (o[1].float() == 0).all()


def test_topk_length():
    q, kv = _inputs()
    idx = torch.tensor([[[0, 1, 2, 3]], [[4, 5, 6, 7]]], dtype=torch.int32)
    tlen = torch.tensor([2, 0], dtype=torch.int32)
    o, m, l = sparse_mla_reference(q, kv, idx, 0.5, topk_length=tlen)
    o2, m2, l2 = sparse_mla_reference(q, kv, idx[:, :, :2].clone(), 0.5)
    torch.testing.assert_close(o[0], o2[0], atol=0, rtol=0)
    torch.testing.assert_close(l[0], l2[0], atol=0, rtol=0)
    assert torch.isposinf(l[1]).all() and (o[1].float() == 0).all()


def test_inputs_have_the_empty_rows_asked_for():
    """empty_frac gives round(empty_frac * s_q) rows without a valid id,
    at least one, so that a small case always checks an empty row."""
    from tle.sparse_mla.inputs import make_inputs
    for frac, want in ((0.01, 1), (0.25, 16)):
        _, _, idx = make_inputs(64, 256, 64, 64, empty_frac=frac, device="cpu", seed=1)
        empty = ((idx[:, 0] < 0) | (idx[:, 0] >= 256)).all(1)
        assert int(empty.sum()) == want
