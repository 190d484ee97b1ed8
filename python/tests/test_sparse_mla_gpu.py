# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""TLE's SparseMLA on the GPU: every bundled variant against the fp32
reference on the edge cases of the SparseMLA issues, and tle.sparse_mla_fwd
as a PyTorch op (the variant it picks, streams and devices, CUDA graphs,
torch.compile, the CPU cost of a call). Needs CUDA and the package's
bundled kernels (the wheel that `ninja -C build tle-wheel` builds)."""

import json
import math

import pytest

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")]

import tle  # noqa: E402
from tle.bench import cpu_us  # noqa: E402
from tle.bench import sparse_mla as bench  # noqa: E402
from tle.bench.sparse_mla import check  # noqa: E402
from tle.sparse_mla import VARIANTS  # noqa: E402
from tle.sparse_mla.inputs import make_inputs  # noqa: E402
from tle.sparse_mla.kernel import SparseMLA  # noqa: E402
from tle.sparse_mla.reference import sparse_mla_reference  # noqa: E402

NOT_BUNDLED = ("no bundled kernel of '{}': install the wheel that ninja -C build "
               "tle-wheel builds")


@pytest.fixture(scope="module",
                params=[v.name for v in VARIANTS if v.kv_format == "bf16"])
def tle_fn(request):
    """Each shipped variant of bf16 kv alone (test_sparse_mla_fp8_gpu.py
    has the FP8 cache's)."""
    variant = tle.sparse_mla.variant(request.param)
    if not variant.is_bundled():
        pytest.skip(NOT_BUNDLED.format(variant.name))
    return SparseMLA([variant])


@pytest.fixture(scope="module")
def fwd():
    """The public call, on whichever variant it picks."""
    if not all(v.is_bundled() for v in VARIANTS):
        pytest.skip(NOT_BUNDLED.format(", ".join(v.name for v in VARIANTS)))
    return tle.sparse_mla_fwd


def _rows(idx, s_q, s_kv):
    """Every row of a small case; else 256 random rows and every empty one."""
    rows = torch.arange(s_q, device="cuda")
    if s_q > 512:
        rows = torch.randperm(s_q, device="cuda")[:256]
        empty = ((idx[:, 0] < 0) | (idx[:, 0] >= s_kv)).all(1).nonzero()[:, 0]
        rows = torch.unique(torch.cat([rows, empty]))
    return rows


def _inputs(fn, *args, **kw):
    """make_inputs for the d_qk that `fn`'s variant takes (576 for the
    public call)."""
    d_qk = fn.variants[0].d_qk if isinstance(fn, SparseMLA) else 576
    return make_inputs(*args, d_qk=d_qk, **kw)


def _run(fn, s_q, s_kv, h, topk, scale, **kw):
    q, kv, idx = _inputs(fn, s_q, s_kv, h, topk, **kw)
    res = check(fn, q, kv, idx, scale, _rows(idx, s_q, s_kv))
    assert res["ok"], res
    return res


@pytest.mark.parametrize("scale", [0.5, 1 / math.sqrt(576)])
def test_small_clean(tle_fn, scale):
    _run(tle_fn, 64, 256, 64, 128, scale)


@pytest.mark.parametrize("heads", [64, 128, 192])
@pytest.mark.parametrize("topk", [512, 2048])
@pytest.mark.parametrize("s_kv", [8192, 20001, 131072])
def test_heads_topk_and_skv(tle_fn, heads, topk, s_kv):
    """The issues' grid, with 25% invalid ids of every kind and empty rows."""
    res = _run(tle_fn, 64, s_kv, heads, topk, 1 / math.sqrt(576), invalid_frac=0.25,
               empty_frac=0.1, seed=heads + topk + s_kv)
    assert res["empty_rows_checked"] > 0


def test_small_invalid_and_empty(tle_fn):
    res = _run(tle_fn, 128, 512, 128, 256, 0.5, invalid_frac=0.25, empty_frac=0.1,
               noncontiguous_q=True)
    assert res["empty_rows_checked"] > 0


def test_short_causal_range(tle_fn):
    # Early tokens have fewer than topk ids: their slots are padded with -1.
    _run(tle_fn, 64, 96, 64, 128, 0.5)


def test_duplicated_ids_and_padded_q(tle_fn):
    q, kv, idx = _inputs(tle_fn, 64, 4096, 128, 512, invalid_frac=0.1, seed=5)
    idx[:, :, 256:] = idx[:, :, :256]     # every id twice
    d_qk = q.shape[-1]
    padded = torch.zeros(64, 128, d_qk + 64, dtype=torch.bfloat16,
                         device="cuda")[..., :d_qk]
    padded.copy_(q)
    res = check(tle_fn, padded, kv, idx, 0.5, torch.arange(64, device="cuda"))
    assert res["ok"], res


def test_every_row_written(tle_fn):
    """No NaN left of the poisoned outputs, also in rows check() skips."""
    q, kv, idx = _inputs(tle_fn, 256, 1024, 128, 256, invalid_frac=0.25, empty_frac=0.1)
    outputs = bench.poisoned_outputs(q)
    tle_fn(q, kv, idx, 0.5, out=outputs)
    torch.cuda.synchronize()
    for t in outputs:
        assert not torch.isnan(t.float()).any()


def test_batched(tle_fn):
    inputs = [_inputs(tle_fn, 64, 256, 64, 128, invalid_frac=0.1, seed=s) for s in (1, 2)]
    q, kv, idx = (torch.stack(parts) for parts in zip(*inputs))
    outputs = tle_fn(q, kv, idx, 0.5)
    assert outputs[0].shape == (2, 64, 64, 512) and outputs[2].shape == (2, 64, 64)
    for b, (qb, kvb, idxb) in enumerate(inputs):
        def batch_b(*args, **kwargs):
            return tuple(t[b] for t in outputs)
        res = check(batch_b, qb, kvb, idxb, 0.5, torch.arange(64, device="cuda"))
        assert res["ok"], (b, res)


def test_benchmark_like(tle_fn):
    _run(tle_fn, 4096, 8192, 128, 2048, 1 / math.sqrt(576), invalid_frac=0.25,
         empty_frac=0.02)


def test_attn_sink_and_topk_length(tle_fn):
    """FlashMLA's optional inputs: sinks of every kind (finite, -inf that
    changes nothing, +inf that zeroes the row) and lengths from 0 to past
    topk, topk itself and odd ones included, against the reference."""
    s_q, s_kv, h, topk = 64, 512, 64, 256
    q, kv, idx = _inputs(tle_fn, s_q, s_kv, h, topk, invalid_frac=0.1)
    g = torch.Generator(device="cuda").manual_seed(7)
    sink = torch.randn(h, device="cuda", generator=g)
    sink[0], sink[1] = float("-inf"), float("inf")
    length = torch.randint(0, topk + 40, (s_q,), device="cuda", generator=g,
                           dtype=torch.int32)
    length[0], length[2], length[3], length[4] = 0, 1, 65, topk
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


def test_kv_and_indices_as_views(tle_fn):
    """kv as rows of a larger cache and indices as rows of a larger
    buffer (FlashMLA's own test makes every input so): the same results as
    from contiguous copies."""
    q, kv, idx = _inputs(tle_fn, 128, 2048, 128, 256, invalid_frac=0.1, seed=31)
    d_qk = q.shape[-1]
    cache = torch.randn(2048 + 1, 2, d_qk + 128, device="cuda").to(torch.bfloat16)
    kv_view = cache[:2048, :1, :d_qk]
    kv_view.copy_(kv)
    ids = torch.full((128 + 1, 2, 256 + 128), -7, dtype=torch.int32, device="cuda")
    idx_view = ids[:128, 1:2, :256]
    idx_view.copy_(idx)
    q_view = torch.zeros(128 + 1, 128 + 1, d_qk + 128, dtype=torch.bfloat16,
                         device="cuda")[:128, :128, :d_qk]
    q_view.copy_(q)
    expected = tle_fn(q, kv, idx, 0.5)
    got = tle_fn(q_view, kv_view, idx_view, 0.5)
    torch.cuda.synchronize()
    for e, g in zip(expected, got):
        assert torch.equal(e, g)


def test_given_outputs(tle_fn):
    """out= writes the tensors given, batched too, and returns them."""
    q, kv, idx = _inputs(tle_fn, 128, 1024, 128, 256, invalid_frac=0.1, seed=32)
    expected = tle_fn(q, kv, idx, 0.5)
    given = bench.poisoned_outputs(q)
    got = tle_fn(q, kv, idx, 0.5, out=given)
    torch.cuda.synchronize()
    assert all(g is t for g, t in zip(got, given))
    for e, g in zip(expected, given):
        assert torch.equal(e, g)


def test_the_public_call_picks_the_fastest_variant(fwd):
    for d_qk in (576, 512):
        q, kv, idx = make_inputs(128, 1024, 128, 256, d_qk=d_qk, invalid_frac=0.1)
        picked = SparseMLA().variant_for(q, kv, idx)
        assert picked == next(v for v in VARIANTS if v.d_qk == d_qk)
        res = check(fwd, q, kv, idx, 0.5, torch.arange(128, device="cuda"))
        assert res["ok"], res
        expected = SparseMLA([picked])(q, kv, idx, 0.5)
        for e, g in zip(expected, fwd(q, kv, idx, 0.5)):
            assert torch.equal(e, g)


def test_the_public_call_writes_given_outputs(fwd):
    q, kv, idx = make_inputs(64, 512, 64, 128, invalid_frac=0.1, seed=33)
    expected = fwd(q, kv, idx, 0.5)
    given = bench.poisoned_outputs(q)
    assert fwd(q, kv, idx, 0.5, out=given) is given
    torch.cuda.synchronize()
    for e, g in zip(expected, given):
        assert torch.equal(e, g)


def test_clear_errors_on_the_gpu(fwd):
    q, kv, idx = make_inputs(64, 256, 64, 128)
    with pytest.raises(ValueError, match=r"no kernel takes 96 heads"):
        fwd(q[:, :32].repeat(1, 3, 1), kv, idx, 0.5)
    with pytest.raises(ValueError, match="d_v = 512, not 256"):
        fwd(q, kv, idx, 0.5, d_v=256)
    with pytest.raises(ValueError, match="kv is on cpu, q on cuda:0"):
        fwd(q, kv.cpu(), idx, 0.5)
    with pytest.raises(TypeError, match="sm_scale must be a Python float"):
        fwd(q, kv, idx, torch.tensor(0.5))
    with pytest.raises(TypeError, match="attn_sink must be torch.float32, not torch.float64"):
        fwd(q, kv, idx, 0.5, attn_sink=torch.zeros(64, dtype=torch.float64, device="cuda"))
    odd_rows = torch.cat([kv, kv[..., :4]], 2)[..., :576]     # rows 1160 bytes apart
    with pytest.raises(ValueError, match=r"kv's stride in dimension 0 \(580 elements\)"):
        fwd(q, odd_rows, idx, 0.5)
    out = bench.poisoned_outputs(q)
    with pytest.raises(ValueError, match="lse is on cpu, q on cuda:0"):
        fwd(q, kv, idx, 0.5, out=(out[0], out[1], out[2].cpu()))


def test_on_a_side_stream(fwd):
    """The launch follows PyTorch's current stream, whatever it is."""
    q, kv, idx = make_inputs(128, 512, 128, 256, invalid_frac=0.25, seed=3)
    expected = fwd(q, kv, idx, 0.5)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        got = fwd(q, kv, idx, 0.5)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    for e, g in zip(expected, got):
        assert torch.equal(e, g)


def _capture(fn):
    """A CUDA graph of fn(), captured on a side stream as PyTorch advises,
    and its outputs."""
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outputs = fn()
    return graph, outputs


def test_cuda_graph_capture_and_replay(fwd):
    q, kv, idx = make_inputs(128, 1024, 128, 256, invalid_frac=0.1, seed=11)
    fwd(q, kv, idx, 0.5)  # warm up: the kernel loads, the plan is made
    torch.cuda.synchronize()
    graph, captured = _capture(lambda: fwd(q, kv, idx, 0.5))
    fresh_q, fresh_kv, fresh_idx = make_inputs(128, 1024, 128, 256, invalid_frac=0.1,
                                               seed=12)
    q.copy_(fresh_q)
    kv.copy_(fresh_kv)
    idx.copy_(fresh_idx)
    graph.replay()
    expected = fwd(fresh_q, fresh_kv, fresh_idx, 0.5)
    torch.cuda.synchronize()
    for e, g in zip(expected, captured):
        assert torch.equal(e, g)


def test_a_new_shape_inside_a_capture(fwd):
    """A shape first seen while capturing: its neutral inputs are made
    inside the graph, and the replay is right."""
    fwd(*make_inputs(64, 256, 64, 128), 0.5)  # the kernel is loaded
    q, kv, idx = make_inputs(3000, 4096, 64, 128, invalid_frac=0.1, seed=13)
    torch.cuda.synchronize()
    graph, captured = _capture(lambda: fwd(q, kv, idx, 0.5))
    graph.replay()
    expected = fwd(q, kv, idx, 0.5)
    torch.cuda.synchronize()
    for e, g in zip(expected, captured):
        assert torch.equal(e, g)


def _needs_custom_op():
    if not hasattr(torch.library, "custom_op"):
        pytest.skip(f"torch {torch.__version__} has no torch.library.custom_op")


def test_the_operator(fwd):
    """opcheck: schema, fake implementation and dispatch agree."""
    _needs_custom_op()
    q, kv, idx = make_inputs(64, 512, 64, 128, invalid_frac=0.1)
    sink = torch.zeros(64, device="cuda")
    torch.library.opcheck(torch.ops.tle.sparse_mla_fwd.default,
                          (q, kv, idx, 0.5, 512, None, None))
    torch.library.opcheck(torch.ops.tle.sparse_mla_fwd.default,
                          (q, kv, idx, 0.5, 512, sink, None))
    torch.library.opcheck(torch.ops.tle.sparse_mla_fwd_out.default,
                          (q, kv, idx, 0.5, 512, sink, None) + bench.poisoned_outputs(q))


@pytest.mark.parametrize("mode", [None, "reduce-overhead"])
def test_torch_compile(fwd, mode):
    """torch.compile (and its CUDA graphs) gives what eager mode gives."""
    _needs_custom_op()
    q, kv, idx = make_inputs(128, 1024, 128, 256, invalid_frac=0.1, seed=21)

    def attention(q, kv, idx):
        out, max_logits, lse = fwd(q, kv, idx, 0.5)
        return out.float() * 2, max_logits, lse

    compiled = torch.compile(attention, fullgraph=True, mode=mode)
    expected = attention(q, kv, idx)
    for _ in range(3):  # "reduce-overhead" warms up, records, then replays
        got = compiled(q, kv, idx)
    torch.cuda.synchronize()
    for e, g in zip(expected, got):
        assert torch.equal(e, g)


def test_torch_compile_with_given_outputs(fwd):
    """out= under torch.compile: the operator that writes its outputs."""
    _needs_custom_op()
    q, kv, idx = make_inputs(128, 1024, 128, 256, invalid_frac=0.1, seed=22)

    def attention(q, kv, idx, out):
        fwd(q, kv, idx, 0.5, out=out)
        return out[0].float() * 2

    expected = fwd(q, kv, idx, 0.5)[0].float() * 2
    out = bench.poisoned_outputs(q)
    got = torch.compile(attention, fullgraph=True)(q, kv, idx, out)
    torch.cuda.synchronize()
    assert torch.equal(expected, got)


def test_a_second_gpu(fwd):
    if torch.cuda.device_count() < 2:
        pytest.skip("one CUDA device")
    q, kv, idx = make_inputs(64, 512, 128, 128, invalid_frac=0.1, device="cuda:1")
    with torch.cuda.device(0):  # the current device is another one
        out, max_logits, lse = fwd(q, kv, idx, 0.5)
    assert out.device == lse.device == torch.device("cuda:1")
    torch.cuda.synchronize(1)
    ref_out, ref_max, ref_lse = sparse_mla_reference(q, kv, idx, 0.5)
    assert (out.float() - ref_out.float()).abs().max() <= 2e-3
    finite = torch.isfinite(ref_lse)
    assert (lse[finite] - ref_lse[finite]).abs().max() <= 1e-5
    # And on a side stream of that device.
    with torch.cuda.device(1):
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            again = fwd(q, kv, idx, 0.5)
        torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize(1)
    assert torch.equal(again[0], out)


def test_cpu_cost_of_a_call(fwd):
    """At most 30 us of CPU time per call, as the issue asks (the median of
    five rounds of 200 calls)."""
    q, kv, idx = make_inputs(64, 256, 64, 128)
    rounds = sorted(cpu_us(lambda: fwd(q, kv, idx, 0.5), 200) for _ in range(5))
    assert rounds[2] <= 30, f"{rounds} us per call"


def test_bench_end_to_end(tmp_path, capsys):
    pytest.importorskip("triton")
    if not all(v.is_bundled() for v in VARIANTS):
        pytest.skip(NOT_BUNDLED.format(", ".join(v.name for v in VARIANTS)))
    report, png = tmp_path / "r.json", tmp_path / "r.png"
    impls = ",".join(["triton_naive"] + [f"tle_{v.name}" for v in VARIANTS
                       if v.d_qk == 576 and v.kv_format == "bf16"]
                     + ["tle.sparse_mla_fwd"])
    code = bench.main(["--skv", "1024,2048", "--sq", "256", "--heads", "64",
                       "--topk", "128", "--check", "--impl", impls,
                       "--warmup", "5", "--rep", "20", "--json", str(report),
                       "--plot", str(png)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "| SKV | " + " | ".join(impls.split(",")) + " |" in out
    assert report.exists()
    code = bench.main(["--skv", "1024", "--sq", "64", "--heads", "64", "--topk", "128",
                       "--impl", impls, "--launch-cost", "--calls", "50",
                       "--rounds", "2"])
    out = capsys.readouterr().out
    assert code == 0 and "| tle.sparse_mla_fwd |" in out, out
    v4 = ",".join([f"tle_{v.name}" for v in VARIANTS if v.d_qk == 512]
                  + ["tle.sparse_mla_fwd"])
    code = bench.main(["--d-qk", "512", "--skv", "1024", "--sq", "256", "--heads", "64",
                       "--topk", "128", "--check", "--impl", v4, "--warmup", "5",
                       "--rep", "20", "--rounds", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "| SKV | " + " | ".join(v4.split(",")) + " |" in out, out


def test_bench_serving_end_to_end(tmp_path, capsys):
    """--serving on every shape of SERVING_CASES (few tokens), checked."""
    pytest.importorskip("triton")
    report = tmp_path / "serving.json"
    code = bench.main(["--serving", "--sq", "64", "--check", "--check-rows", "32",
                       "--impl", "tle.sparse_mla_fwd", "--warmup", "5", "--rep", "20",
                       "--rounds", "1", "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "| V3.2 h16 topk2048 | 131072 |" in out and "| V4 h128 topk1024 | 49152 |" in out
    results = json.loads(report.read_text())["results"]
    assert len(results) == sum(len(c.skvs) for c in bench.SERVING_CASES)
