"""The compiled TLE SparseMLA kernel against the fp32 reference, launched
on PyTorch's stream (needs CUDA, libtle_runtime.so and the kernel named by
$TLE_SPARSE_MLA_KERNEL, its .json beside it)."""

import math
import os

import pytest

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")]

import tle_runtime as rt  # noqa: E402
from tle_sparse_mla import bench, tle_kernel  # noqa: E402
from tle_sparse_mla.bench import check  # noqa: E402
from tle_sparse_mla.inputs import make_inputs  # noqa: E402


@pytest.fixture(scope="module")
def tle_fn():
    if not os.environ.get(tle_kernel.ENV):
        pytest.skip(f"${tle_kernel.ENV} does not name the compiled kernel")
    try:
        return tle_kernel.load()
    except rt.LibraryNotFoundError as e:
        pytest.skip(str(e))


def _rows(idx, s_q, s_kv):
    """Every row of a small case; else 256 random rows and every empty one."""
    rows = torch.arange(s_q, device="cuda")
    if s_q > 512:
        rows = torch.randperm(s_q, device="cuda")[:256]
        empty = ((idx[:, 0] < 0) | (idx[:, 0] >= s_kv)).all(1).nonzero()[:, 0]
        rows = torch.unique(torch.cat([rows, empty]))
    return rows


def _run(fn, s_q, s_kv, h, topk, scale, **kw):
    q, kv, idx = make_inputs(s_q, s_kv, h, topk, **kw)
    res = check(fn, q, kv, idx, scale, _rows(idx, s_q, s_kv))
    assert res["ok"], res
    return res


@pytest.mark.parametrize("scale", [0.5, 1 / math.sqrt(576)])
def test_small_clean(tle_fn, scale):
    _run(tle_fn, 64, 256, 64, 128, scale)


def test_small_invalid_and_empty(tle_fn):
    res = _run(tle_fn, 128, 512, 128, 192, 0.5, invalid_frac=0.25, empty_frac=0.1,
               noncontiguous_q=True)
    assert res["empty_rows_checked"] > 0


def test_short_causal_range(tle_fn):
    # Early tokens have fewer than topk ids: their slots are padded with -1.
    _run(tle_fn, 64, 96, 64, 128, 0.5)


def test_every_row_written(tle_fn):
    """No NaN left of the poisoned outputs, also in rows check() skips."""
    q, kv, idx = make_inputs(256, 1024, 128, 256, invalid_frac=0.25, empty_frac=0.1)
    outputs = bench.poisoned_outputs(q)
    tle_fn(q, kv, idx, 0.5, out=outputs)
    torch.cuda.synchronize()
    for t in outputs:
        assert not torch.isnan(t.float()).any()


def test_batched(tle_fn):
    inputs = [make_inputs(64, 256, 64, 128, invalid_frac=0.1, seed=s) for s in (1, 2)]
    q, kv, idx = (torch.stack(parts) for parts in zip(*inputs))
    outputs = tle_fn(q, kv, idx, 0.5)
    assert outputs[0].shape == (2, 64, 64, 512) and outputs[2].shape == (2, 64, 64)
    for b, (qb, kvb, idxb) in enumerate(inputs):
        def batch_b(*args, **kwargs):
            return tuple(t[b] for t in outputs)
        res = check(batch_b, qb, kvb, idxb, 0.5, torch.arange(64, device="cuda"))
        assert res["ok"], (b, res)


def test_on_a_side_stream(tle_fn):
    """The launch follows PyTorch's current stream, whatever it is."""
    q, kv, idx = make_inputs(128, 512, 128, 192, invalid_frac=0.25, seed=3)
    expected = tle_fn(q, kv, idx, 0.5)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        got = tle_fn(q, kv, idx, 0.5)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    for e, g in zip(expected, got):
        assert torch.equal(e, g)


def test_benchmark_like(tle_fn):
    _run(tle_fn, 4096, 8192, 128, 2048, 1 / math.sqrt(576), invalid_frac=0.25,
         empty_frac=0.02)


def test_bench_end_to_end(tle_fn, tmp_path, capsys):
    pytest.importorskip("triton")
    report, png = tmp_path / "r.json", tmp_path / "r.png"
    code = bench.main(["--skv", "1024,2048", "--sq", "256", "--heads", "64",
                       "--topk", "128", "--check", "--impl", "triton_naive,tle",
                       "--warmup", "5", "--rep", "20", "--json", str(report),
                       "--plot", str(png)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "| SKV | triton_naive | tle | tle/triton_naive |" in out
    assert report.exists()


def test_attn_sink_and_topk_length(tle_fn):
    """FlashMLA's optional inputs: sinks of every kind (finite, -inf that
    changes nothing, +inf that zeroes the row) and lengths from 0 to past
    topk, odd ones included, against the reference."""
    from tle_sparse_mla.reference import sparse_mla_reference
    s_q, s_kv, h, topk = 64, 512, 64, 192
    q, kv, idx = make_inputs(s_q, s_kv, h, topk, invalid_frac=0.1)
    g = torch.Generator(device="cuda").manual_seed(7)
    sink = torch.randn(h, device="cuda", generator=g)
    sink[0], sink[1] = float("-inf"), float("inf")
    length = torch.randint(0, topk + 40, (s_q,), device="cuda", generator=g,
                           dtype=torch.int32)
    length[0], length[2], length[3] = 0, 1, 65
    out, max_logits, lse = tle_fn(q, kv, idx, 0.5, attn_sink=sink, topk_length=length)
    torch.cuda.synchronize()
    ref_out, ref_max, ref_lse = sparse_mla_reference(q, kv, idx, 0.5, attn_sink=sink,
                                                     topk_length=length)
    assert torch.equal(torch.isposinf(lse), torch.isposinf(ref_lse))
    assert torch.equal(torch.isneginf(max_logits), torch.isneginf(ref_max))
    finite = torch.isfinite(ref_lse)
    assert (lse[finite] - ref_lse[finite]).abs().max() <= 1e-5
    assert (max_logits[finite] - ref_max[finite]).abs().max() <= 1e-5
    assert (out.float() - ref_out.float()).abs().max() <= 2e-3
    assert bool((out[:, 1] == 0).all())   # the +inf sink
    assert bool((out[0] == 0).all())      # length 0: no valid index
