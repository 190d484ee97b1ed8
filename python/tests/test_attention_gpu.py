# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""TLE's attention forward on the GPU: every bundled variant against the
fp32 reference (S from 1 to 16,384 with ragged tails, B x H up to 128,
causal and not, grouped KV heads, large scores, strided inputs), and
tle.attention_fwd as a PyTorch op (streams, CUDA graphs, torch.compile,
the operator's fake implementation). Needs CUDA and the package's bundled
kernels (the wheel that `ninja -C build tle-wheel` builds)."""

import math

import pytest

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")]

import tle  # noqa: E402
from tle.attention import VARIANTS, choose  # noqa: E402
from tle.attention.kernel import Attention  # noqa: E402
from tle.bench import attention as bench  # noqa: E402
from tle.bench.attention import check, make_inputs, sample_rows  # noqa: E402

NOT_BUNDLED = ("no bundled kernel of '{}': install the wheel that ninja -C build "
               "tle-wheel builds")


def _kernel(head_dim, causal):
    v = choose(head_dim, causal)
    if not v.is_bundled():
        pytest.skip(NOT_BUNDLED.format(v.name))
    return Attention([v])


@pytest.fixture(scope="module")
def fwd():
    if not all(v.is_bundled() for v in VARIANTS):
        pytest.skip(NOT_BUNDLED.format(", ".join(v.name for v in VARIANTS)))
    return tle.attention_fwd


def _run(b, s_q, s_k, heads, kv_heads, head_dim, causal, scale=None, magnitude=1.0,
         seed=0, rows=None):
    fn = _kernel(head_dim, causal)
    q, _, _ = make_inputs(b, s_q, heads, kv_heads, head_dim, seed, magnitude)
    _, k, v = make_inputs(b, s_k, heads, kv_heads, head_dim, seed + 1, magnitude)
    rows = sample_rows(s_q, seed) if rows is None else rows
    res = check(fn, q, k, v, causal, scale, rows)
    assert res["ok"], res
    return res


HEAD_DIMS = (64, 128)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", HEAD_DIMS)
@pytest.mark.parametrize("s", [1, 2, 63, 64, 65, 127, 128, 129, 255, 257, 1000, 2047,
                               4096, 5000])
def test_sequence_lengths(s, head_dim, causal):
    """Ragged tails: every query block and key tile size left over."""
    _run(2, s, s, 4, 4, head_dim, causal, seed=s)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", HEAD_DIMS)
def test_16384(head_dim, causal):
    _run(1, 16384, 16384, 8, 8, head_dim, causal, seed=16384)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", HEAD_DIMS)
@pytest.mark.parametrize("b,heads", [(1, 128), (8, 16), (128, 1), (3, 5)])
def test_batches_and_heads(b, heads, head_dim, causal):
    """B x H up to 128, persistent CTAs wrapping over many items."""
    _run(b, 1031, 1031, heads, heads, head_dim, causal, seed=b * heads)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", HEAD_DIMS)
@pytest.mark.parametrize("kv_heads", [1, 2, 8])
def test_grouped_kv_heads(kv_heads, head_dim, causal):
    _run(2, 700, 700, 16, kv_heads, head_dim, causal, seed=kv_heads)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", HEAD_DIMS)
@pytest.mark.parametrize("s_q,s_k", [(1, 4096), (300, 77), (77, 300), (4096, 129)])
def test_different_lengths(s_q, s_k, head_dim, causal):
    """S_q != S_k; causal masks j > i from the upper left."""
    _run(2, s_q, s_k, 4, 2, head_dim, causal, seed=s_q + s_k)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", HEAD_DIMS)
@pytest.mark.parametrize("magnitude,scale", [(8.0, None), (3.0, 1.0), (1.0, 1e-3)])
def test_large_and_small_scores(magnitude, scale, head_dim, causal):
    """Scores in the hundreds (the reference maximum jumps, P one-hot) and
    nearly uniform ones."""
    _run(2, 1500, 1500, 4, 4, head_dim, causal, scale, magnitude, seed=7)


@pytest.mark.parametrize("head_dim", HEAD_DIMS)
def test_strided_inputs(head_dim):
    """q, k and v out of one packed [B, S, 3, H, D] tensor, and padded rows."""
    fn = _kernel(head_dim, False)
    g = torch.Generator(device="cuda").manual_seed(3)
    packed = torch.randn(2, 333, 3, 4, head_dim + 8, device="cuda", generator=g)
    packed = packed.bfloat16()[..., :head_dim]
    q, k, v = packed.unbind(2)
    res = check(fn, q, k, v, False, None, torch.arange(333))
    assert res["ok"], res


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", HEAD_DIMS)
def test_every_row_written(head_dim, causal):
    """No NaN left of poisoned outputs, in rows check() does not sample."""
    fn = _kernel(head_dim, causal)
    q, k, v = make_inputs(3, 777, 6, 3, head_dim, 5)
    poisoned = (torch.full_like(q, float("nan")),
                torch.full((3, 6, 777), float("nan"), device="cuda"))
    out, lse = fn(q, k, v, causal, None, out=poisoned)
    torch.cuda.synchronize()
    assert not torch.isnan(out.float()).any() and not torch.isnan(lse).any()


def test_the_public_call(fwd):
    q, k, v = make_inputs(2, 300, 8, 2, 128, 9)
    for causal in (False, True):
        out, lse = fwd(q, k, v, causal=causal)
        expected = Attention([choose(128, causal)])(q, k, v, causal)
        assert torch.equal(out, expected[0]) and torch.equal(lse, expected[1])
    with pytest.raises(ValueError, match="no non-causal kernel for head dim 96"):
        fwd(*make_inputs(1, 64, 2, 2, 96, 1))
    with pytest.raises(ValueError, match="k is on cpu, q on cuda:0"):
        fwd(q, k.cpu(), v)
    with pytest.raises(ValueError, match="sm_scale must be positive"):
        fwd(q, k, v, sm_scale=-1.0)


def test_on_a_side_stream(fwd):
    q, k, v = make_inputs(2, 1000, 8, 8, 128, 4)
    expected = fwd(q, k, v, causal=True)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        got = fwd(q, k, v, causal=True)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    for e, g in zip(expected, got):
        assert torch.equal(e, g)


def test_cuda_graph_capture_and_replay(fwd):
    q, k, v = make_inputs(2, 1000, 8, 4, 64, 11)
    fwd(q, k, v)  # warm up: the kernel loads, the plan is made
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = fwd(q, k, v)
    fresh = make_inputs(2, 1000, 8, 4, 64, 12)
    for t, f in zip((q, k, v), fresh):
        t.copy_(f)
    graph.replay()
    expected = fwd(*fresh)
    torch.cuda.synchronize()
    for e, g in zip(expected, captured):
        assert torch.equal(e, g)


def _needs_custom_op():
    if not hasattr(torch.library, "custom_op"):
        pytest.skip(f"torch {torch.__version__} has no torch.library.custom_op")


def test_the_operator(fwd):
    """opcheck: schema, fake implementation and dispatch agree."""
    _needs_custom_op()
    q, k, v = make_inputs(2, 200, 4, 2, 128, 13)
    for causal in (False, True):
        torch.library.opcheck(torch.ops.tle.attention_fwd.default,
                              (q, k, v, causal, 1 / math.sqrt(128)))


@pytest.mark.parametrize("mode", [None, "reduce-overhead"])
def test_torch_compile(fwd, mode):
    _needs_custom_op()
    q, k, v = make_inputs(2, 600, 8, 2, 128, 21)

    def attention(q, k, v):
        out, lse = fwd(q, k, v, causal=True)
        return out.float() * 2, lse

    compiled = torch.compile(attention, fullgraph=True, mode=mode)
    expected = attention(q, k, v)
    for _ in range(3):  # "reduce-overhead" warms up, records, then replays
        got = compiled(q, k, v)
    torch.cuda.synchronize()
    for e, g in zip(expected, got):
        assert torch.equal(e, g)


def test_bench_end_to_end(tmp_path, capsys):
    pytest.importorskip("triton")
    report = tmp_path / "r.json"
    code = bench.main(["--head-dims", "128", "--shapes", "2x4", "--seqlens", "1000",
                       "--check", "--warmup", "5", "--rep", "20", "--rounds", "2",
                       "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "| B x H, S | tle_fwd_d128 | tle.attention_fwd |" in out
    assert report.exists()
