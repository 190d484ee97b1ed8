# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""tle.sparse_mla_decode on the GPU against the fp32 reference on the
dequantized FP8 cache: batches 1 to 128, s_q 1 and 2, 64 and 128 heads,
topk 2048 and 512, caches of 1 to 128k tokens, invalid ids, empty rows,
topk_length, attn_sink; both kernel paths (one chunk a row: the prefill
kernel; several: the split kernel and the combine); FlashMLA's call by
its name; CUDA-graph replay. Needs CUDA and the wheel's bundled kernels."""

import pytest

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")]

import tle  # noqa: E402
from tle import flash_mla  # noqa: E402
from tle.bench.sparse_mla import OUT_ATOL, OUT_RTOL, STAT_ATOL, STAT_RTOL  # noqa: E402
from tle.bench.sparse_mla_decode import make_case  # noqa: E402
from tle.sparse_mla import schedule as S  # noqa: E402
from tle.sparse_mla.reference import sparse_mla_decode_reference  # noqa: E402

SCALE = 1 / 24


def _check(q, cache, ids, length=None, sink=None, splits=None):
    b, s_q, h_q, _ = q.shape
    sched = S.make_schedule(b, s_q, h_q, ids.shape[-1], 132)
    if splits is not None:
        sched = sched._replace(splits=splits)
    out, lse = tle.sparse_mla_decode(q, cache, ids, length, sink, SCALE, sched)
    r_out, r_lse = sparse_mla_decode_reference(q, cache, ids, length, sink, SCALE)
    assert out.shape == r_out.shape and lse.shape == r_lse.shape
    assert not torch.isnan(out).any() and not torch.isnan(lse).any()
    d = (out.float() - r_out.float()).abs()
    assert (d <= OUT_ATOL + OUT_RTOL * r_out.float().abs()).all(), float(d.max())
    assert torch.equal(torch.isinf(lse), torch.isinf(r_lse))
    fin = torch.isfinite(r_lse)
    dl = (lse[fin] - r_lse[fin]).abs()
    assert (dl <= STAT_ATOL + STAT_RTOL * r_lse[fin].abs()).all(), float(dl.max())
    return out, lse, sched


@pytest.mark.parametrize("b, s_q, h_q, topk, tokens", [
    (1, 1, 64, 2048, 4096), (1, 2, 128, 2048, 131072), (2, 1, 128, 512, 64),
    (32, 1, 128, 2048, 65536), (32, 2, 64, 2048, 8192), (64, 1, 64, 512, 131072),
    (64, 2, 128, 2048, 32768), (128, 1, 128, 2048, 131072), (128, 2, 64, 512, 65536)])
def test_against_reference(b, s_q, h_q, topk, tokens):
    q, cache, ids = make_case(b, s_q, h_q, topk, tokens, seed=b + s_q)
    _check(q, cache, ids)


@pytest.mark.parametrize("splits", [1, 2, 5, 16])
def test_invalid_ids_empty_rows_lengths_and_sinks(splits):
    """25% invalid ids of every kind, a row of only invalid ids, a batch of
    topk_length 0 and one of 100, sinks of -inf, +inf and finite values;
    every split count (5 leaves the last chunk short, 16 gives one pair a
    chunk)."""
    b, s_q, h_q, topk = 4, 2, 128, 2048
    q, cache, ids = make_case(b, s_q, h_q, topk, 20000, seed=7)
    g = torch.Generator(device="cuda").manual_seed(3)
    bad = torch.rand(ids.shape, device="cuda", generator=g) < 0.25
    junk = torch.tensor([-1, -2 ** 31, 2 ** 31 - 1, 20032, 10 ** 6], dtype=torch.int32,
                        device="cuda")
    pick = torch.randint(0, 5, ids.shape, device="cuda", generator=g)
    ids = torch.where(bad, junk[pick], ids)
    ids[1, 0] = -1
    length = torch.tensor([topk, 0, 100, 1500], dtype=torch.int32, device="cuda")
    sink = torch.randn(h_q, device="cuda", generator=g)
    sink[0], sink[1] = float("-inf"), float("inf")
    out, lse, _ = _check(q, cache, ids, length, sink, splits)
    assert (out[1] == 0).all() and torch.isposinf(lse[1]).all()
    assert (out[:, :, 1] == 0).all()


def test_flash_mla_call_is_the_decode():
    q, cache, ids = make_case(8, 2, 64, 2048, 10000, seed=5)
    meta, _ = flash_mla.get_mla_metadata()
    got = flash_mla.flash_mla_with_kvcache(q, cache, None, None, 512, meta,
                                           softmax_scale=SCALE, is_fp8_kvcache=True,
                                           indices=ids)
    want = tle.sparse_mla_decode(q, cache, ids, sm_scale=SCALE, schedule=meta.schedule)
    assert all(torch.equal(x, y) for x, y in zip(got, want))


@pytest.mark.parametrize("b", [2, 64])
def test_cuda_graph_replay_is_identical(b):
    """Captured after one eager call, replayed on new inputs copied into
    the captured ones, the graph gives the eager call's bits."""
    q, cache, ids = make_case(b, 1, 128, 2048, 65536, seed=11)
    length = torch.full((b,), 1900, dtype=torch.int32, device="cuda")
    sched = S.make_schedule(b, 1, 128, 2048, 132)
    args = (q, cache, ids, length, None, SCALE, sched)
    tle.sparse_mla_decode(*args)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out, lse = tle.sparse_mla_decode(*args)
    q2, _, ids2 = make_case(b, 1, 128, 2048, 65536, seed=12)
    q.copy_(q2)
    ids.copy_(ids2)
    graph.replay()
    want = tle.sparse_mla_decode(*args)
    torch.cuda.synchronize()
    assert torch.equal(out, want[0]) and torch.equal(lse, want[1])
