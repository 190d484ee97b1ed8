"""The SparseMLA call and the benchmark's bookkeeping without a GPU: the
variants and their limits, the checks of a call, what a call hands its
launch plan, the signatures it keys plans by, and the benchmark's
implementations and table (CPU tensors; skipped without torch)."""

import math
import os

import pytest

torch = pytest.importorskip("torch")

import tle  # noqa: E402
import tle.runtime as rt  # noqa: E402
from conftest import REPO  # noqa: E402
from tle.bench import sparse_mla as bench  # noqa: E402
from tle.sparse_mla import VARIANTS, Variant, choose, kernel, variant  # noqa: E402
from tle.sparse_mla.kernel import Shape, SparseMLA, check_call  # noqa: E402


def _inputs(s_q=8, s_kv=32, h=64, topk=64, noncontiguous_q=False):
    if noncontiguous_q:
        q = torch.zeros(h, s_q, 576, dtype=torch.bfloat16).transpose(0, 1)
    else:
        q = torch.zeros(s_q, h, 576, dtype=torch.bfloat16)
    kv = torch.zeros(s_kv, 1, 576, dtype=torch.bfloat16)
    idx = torch.zeros(s_q, 1, topk, dtype=torch.int32)
    return q, kv, idx


def test_variants_fastest_first_with_their_limits():
    assert [v.name for v in VARIANTS] == ["seesaw", "pipe", "naive"]
    assert choose(128, 2048) == VARIANTS[0]
    assert variant("naive").refusal(192, 512) is None
    with pytest.raises(ValueError, match=r"no kernel takes 96 heads and topk 2048 "
                                         r"\(seesaw: the number of heads \(96\) must be a "
                                         r"positive multiple of 64; pipe: .*; naive: "):
        choose(96, 2048)
    with pytest.raises(ValueError, match=r"seesaw: topk \(100\) must be a multiple of 64"):
        choose(64, 100)
    with pytest.raises(ValueError, match="no SparseMLA variant 'flash'; the shipped "
                                         "ones are seesaw, pipe, naive"):
        variant("flash")


def test_every_variant_is_a_shipped_kernel():
    """The build compiles kernels/sparse_mla/NAME.mlir for each variant."""
    for v in VARIANTS:
        assert os.path.isfile(os.path.join(REPO, "kernels", "sparse_mla",
                                           v.name + ".mlir")), v.name


def test_kernel_files(tmp_path, monkeypatch):
    ptx = tmp_path / "k.ptx"
    ptx.write_text("")
    given = Variant("k", 64, 64, str(ptx))
    with pytest.raises(tle.sparse_mla.KernelNotFoundError, match=r"k\.json: no such file"):
        given.kernel_file()
    (tmp_path / "k.json").write_text("{}")
    assert given.kernel_file() == str(ptx) and given.is_bundled()
    with pytest.raises(tle.sparse_mla.KernelNotFoundError, match="nowhere.ptx: no such"):
        Variant("k", 64, 64, str(tmp_path / "nowhere.ptx")).kernel_file()
    # Bundled: the cubin where there is one, else the PTX.
    monkeypatch.setattr(tle.sparse_mla.variants, "KERNELS", str(tmp_path))
    assert Variant("k", 64, 64).kernel_file() == str(ptx)
    (tmp_path / "k.cubin").write_bytes(b"")
    assert Variant("k", 64, 64).kernel_file() == str(tmp_path / "k.cubin")
    with pytest.raises(tle.sparse_mla.KernelNotFoundError,
                       match="no compiled kernel of the SparseMLA variant 'other' in "
                             ".*ninja -C build tle-wheel"):
        Variant("other", 64, 64).kernel_file()


def test_a_call_on_the_cpu_is_refused():
    with pytest.raises(ValueError, match="q is on cpu; the kernels run on CUDA devices"):
        tle.sparse_mla_fwd(*_inputs(), 0.5)


def _check(*args, **kwargs):
    """check_call, which ends at the device on the CPU: everything before
    it passed."""
    with pytest.raises(ValueError, match="q is on cpu"):
        check_call(*args, **kwargs)


def test_mismatched_inputs():
    q, kv, idx = _inputs()
    _check(q, kv, idx)
    with pytest.raises(ValueError, match="d_qk = 576 and d_v = 512"):
        check_call(q[..., :512], kv, idx)
    with pytest.raises(ValueError, match="d_qk = 576 and d_v = 512, not 576 and 256"):
        check_call(q, kv, idx, d_v=256)
    with pytest.raises(ValueError, match="indices must be"):
        check_call(q, kv, idx[:4])
    with pytest.raises(ValueError, match=r"kv must be \[s_kv, 1, 576\]"):
        check_call(q, torch.zeros(32, 2, 576, dtype=torch.bfloat16), idx)
    with pytest.raises(ValueError, match="all be 3-D .* or all 4-D"):
        check_call(q.unsqueeze(0), kv, idx)
    with pytest.raises(TypeError, match="kv must be torch.bfloat16, not torch.float16"):
        check_call(q, kv.half(), idx)
    with pytest.raises(TypeError, match="indices must be torch.int32, not torch.int64"):
        check_call(q, kv, idx.long())


def test_optional_inputs_are_checked():
    q, kv, idx = _inputs(h=64)
    _check(q, kv, idx, attn_sink=torch.zeros(64),
           topk_length=torch.full((8,), 32, dtype=torch.int32))
    with pytest.raises(ValueError, match=r"attn_sink must be \[64\] float32"):
        check_call(q, kv, idx, attn_sink=torch.zeros(32))
    with pytest.raises(ValueError, match=r"topk_length must be \[8\] int32"):
        check_call(q, kv, idx, topk_length=torch.zeros(8, dtype=torch.int64))
    with pytest.raises(ValueError, match="attn_sink must be contiguous"):
        check_call(q, kv, idx, attn_sink=torch.zeros(64, 2)[:, 0])
    # Batched: one length per batch and query row.
    qb, kvb, idxb = (t.unsqueeze(0).expand(2, *t.shape) for t in (q, kv, idx))
    _check(qb, kvb, idxb, topk_length=torch.zeros(2, 8, dtype=torch.int32))


def test_strides_and_alignment():
    q, kv, idx = _inputs()
    padded = torch.zeros(8, 64, 580, dtype=torch.bfloat16)[..., :576]
    with pytest.raises(ValueError, match=r"q's stride in dimension 1 \(580 elements\)"):
        kernel._check_strides("q", padded)
    # Rows padded to a multiple of 16 bytes are fine.
    kernel._check_strides("q", torch.zeros(8, 64, 584, dtype=torch.bfloat16)[..., :576])
    shifted = torch.zeros(8 * 64 * 576 + 1, dtype=torch.bfloat16)[1:].view(8, 64, 576)
    with pytest.raises(ValueError, match="q must start at a 16-byte boundary"):
        kernel._misaligned((shifted, kv, idx))


class _Recorder:
    """Stands in for a loaded kernel and its plan: records what it gets."""

    def __init__(self, persistent=False, out_map=False):
        self.persistent = persistent
        kinds = kernel.OUT_MAP_KINDS if out_map else kernel.KINDS
        self.signature = tuple(type("Arg", (), {"kind": k})() for k in kinds)
        device = type("Device", (), {"multiprocessors": 132})()
        self.module = type("Module", (), {"device": device})()

    def plan(self, grid, values):
        self.grid, self.plan_values = grid, values
        return self

    def launcher(self):
        def launch(stream, values):
            self.launched = (values, stream)
            return 0
        return launch


def _call(monkeypatch, shape, inputs, sink=None, length=None, persistent=False,
          out_map=False):
    monkeypatch.setattr(kernel, "_raw_stream", lambda index: 0x5EED)
    rows = shape.b * shape.s_q
    sink = torch.full((shape.heads,), -math.inf) if sink is None else sink
    length = torch.full((rows,), 2 ** 31 - 1, dtype=torch.int32) if length is None \
        else length
    recorder = _Recorder(persistent, out_map)
    call = kernel._Call(recorder, shape, torch.device("cpu"),
                        (*inputs, 0.5, sink, length))
    return call, recorder


def test_what_a_call_hands_its_plan(monkeypatch):
    """The plan is made with 4-D views in the kernels' argument order; a
    call launches it with the tensors' addresses on the current stream."""
    q, kv, idx = _inputs(h=128, noncontiguous_q=True)
    call, recorder = _call(monkeypatch, Shape(False, 1, 8, 128, 32, 64), (q, kv, idx))
    assert recorder.grid == (16, 1, 1)
    views = recorder.plan_values
    assert [tuple(v.shape) for v in views[:6]] == [
        (1, 8, 128, 576), (1, 32, 1, 576), (1, 8, 1, 64), (1, 8, 128, 512),
        (1, 8, 128), (1, 8, 128)]
    # q keeps its strides: heads outermost in memory.
    assert views[0].stride()[1:] == (576, 8 * 576, 1)
    assert views[6] == 0.5 and views[7].shape == (128,) and views[8].shape == (8,)
    out, max_logits, lse = call(q, kv, idx, None, None, None)
    assert out.shape == (8, 128, 512) and out.dtype == torch.bfloat16
    assert max_logits.shape == lse.shape == (8, 128) and lse.dtype == torch.float32
    values, stream = recorder.launched
    assert stream == 0x5EED
    assert list(values) == [q.data_ptr(), kv.data_ptr(), idx.data_ptr(),
                            out.data_ptr(), max_logits.data_ptr(), lse.data_ptr(),
                            rt.f32_bits(0.5), views[7].data_ptr(), views[8].data_ptr()]
    # Given optional inputs reach the kernel as they are.
    sink, length = torch.zeros(128), torch.full((8,), 3, dtype=torch.int32)
    call(q, kv, idx, sink, length, None)
    assert recorder.launched[0][7:] == (sink.data_ptr(), length.data_ptr())


def test_a_kernel_with_an_out_map_gets_out_twice(monkeypatch):
    """A tenth argument, a tensor map of out as [B * SQ * H, 512], for a
    kernel that writes out with TMA stores; each launch passes out's
    address again for it."""
    q, kv, idx = _inputs(h=128)
    call, recorder = _call(monkeypatch, Shape(False, 1, 8, 128, 32, 64), (q, kv, idx),
                           out_map=True)
    values = recorder.plan_values
    assert len(values) == 10 and isinstance(values[9], rt.TensorMap)
    out_view = values[3]
    assert tuple(values[9].tensor.shape) == (8 * 128, 512)
    assert values[9].tensor.data_ptr() == out_view.data_ptr()
    given = call.empty_outputs()
    call(q, kv, idx, None, None, given)
    launched = recorder.launched[0]
    assert len(launched) == 10 and launched[3] == launched[9] == given[0].data_ptr()


def test_batched_call_with_given_outputs(monkeypatch):
    q, kv, idx = (t.unsqueeze(0).expand(2, *t.shape).contiguous() for t in _inputs())
    call, recorder = _call(monkeypatch, Shape(True, 2, 8, 64, 32, 64), (q, kv, idx))
    assert recorder.grid == (8, 2, 1)
    assert tuple(recorder.plan_values[3].shape) == (2, 8, 64, 512)
    given = (torch.empty(2, 8, 64, 512, dtype=torch.bfloat16),
             torch.empty(2, 8, 64), torch.empty(2, 8, 64))
    assert call(q, kv, idx, None, None, given) is given
    assert recorder.launched[0][3] == given[0].data_ptr()
    with pytest.raises(ValueError, match="the outputs must be contiguous"):
        call(q, kv, idx, None, None, (given[0][:1],) + given[1:])


def test_launch_grid():
    """One CTA per token and head group, or, for a persistent kernel, one
    per multiprocessor and never more than items."""
    assert kernel.launch_grid(Shape(True, 2, 100, 128, 32, 64), False, 132) == (200, 2, 1)
    assert kernel.launch_grid(Shape(True, 2, 100, 128, 32, 64), True, 132) == (132, 1, 1)
    assert kernel.launch_grid(Shape(True, 2, 10, 128, 32, 64), True, 132) == (40, 1, 1)
    assert kernel.launch_grid(Shape(False, 1, 1, 64, 32, 64), True, 0) == (1, 1, 1)


def test_a_persistent_kernel_gets_one_cta_per_multiprocessor(monkeypatch):
    q, kv, idx = _inputs(h=128)
    _, recorder = _call(monkeypatch, Shape(False, 1, 8, 128, 32, 64), (q, kv, idx),
                        persistent=True)
    assert recorder.grid == (16, 1, 1)
    q, kv, idx = _inputs(s_q=200, h=128)
    _, recorder = _call(monkeypatch, Shape(False, 1, 200, 128, 32, 64), (q, kv, idx),
                        persistent=True)
    assert recorder.grid == (132, 1, 1)


def test_nothing_to_compute(monkeypatch):
    q, kv, idx = _inputs(s_q=0)
    call, recorder = _call(monkeypatch, Shape(False, 1, 0, 64, 32, 64), (q, kv, idx))
    out = call(q, kv, idx, None, None, None)
    assert out[0].shape == (0, 64, 512) and not hasattr(recorder, "plan_values")


def test_a_misaligned_address_is_named(monkeypatch):
    _, kv, idx = _inputs()
    q = torch.zeros(8 * 64 * 576 + 8, dtype=torch.bfloat16)[8:].view(8, 64, 576)
    call, recorder = _call(monkeypatch, Shape(False, 1, 8, 64, 32, 64), (q, kv, idx))
    call(q, kv, idx, None, None, None)
    shifted = torch.zeros(8 * 64 * 576 + 1, dtype=torch.bfloat16)[1:].view(8, 64, 576)
    with pytest.raises(ValueError, match="q must start at a 16-byte boundary"):
        call(shifted, kv, idx, None, None, None)


def test_calls_are_prepared_once_per_signature(monkeypatch):
    prepared = []

    def prepare(self, key, q, kv, indices, sm_scale, d_v, attn_sink, topk_length):
        prepared.append(key)
        call = lambda *args: args[0]  # noqa: E731
        self._calls[key] = call
        return call

    monkeypatch.setattr(SparseMLA, "_prepare", prepare)
    f = SparseMLA()
    q, kv, idx = _inputs()
    f(q, kv, idx, 0.5)
    f(q.clone(), kv.clone(), idx.clone(), 0.5)
    assert len(prepared) == 1
    f(_inputs(noncontiguous_q=True)[0], kv, idx, 0.5)   # other strides
    f(q, kv, idx, 0.25)                                 # another sm_scale
    f(q, kv, idx, 0.5, attn_sink=torch.zeros(64))       # a sink
    f(q, kv, idx, 0.5, attn_sink=torch.zeros(64))
    assert len(prepared) == 4


def _options(tle_kernel_specs=None, flashmla_peer=None):
    return type("Options", (), {"tle_kernel": tle_kernel_specs,
                                "flashmla_peer": flashmla_peer})()


def test_implementations_selected(tmp_path):
    loaders, notes = bench.select_implementations(None, _options(), {}, variants=())
    assert list(loaders) == ["triton_naive"]
    assert notes[0].startswith("note: no compiled kernel: none bundled")
    assert notes[1] == ("note: 'flashmla' left out: no peer (--flashmla-peer or "
                        "$TLE_FLASHMLA_PEER)")
    loaders, _ = bench.select_implementations(None, _options(["k.ptx"]), {}, variants=())
    assert list(loaders) == ["triton_naive", "tle"]
    loaders, _ = bench.select_implementations(
        None, _options(["naive=a.ptx", "pipe=b.ptx"], "peer"), {}, variants=())
    assert list(loaders) == ["triton_naive", "flashmla", "tle_naive", "tle_pipe"]
    loaders, _ = bench.select_implementations(None, _options(),
                                              {bench.KERNEL_ENV: "k.ptx"}, variants=())
    assert list(loaders)[-1] == "tle"
    loaders, notes = bench.select_implementations("tle", _options(["k.ptx"]), {},
                                                  variants=())
    assert list(loaders) == ["tle"] and notes == []
    with pytest.raises(ValueError, match="unknown implementation"):
        bench.select_implementations("cuda", _options(), {})


def test_bundled_variants_are_implementations(tmp_path):
    """Each bundled variant by its name, and the public call beside them; a
    kernel given by path takes the place of a bundled one of its name."""
    for name in ("a", "b"):
        (tmp_path / f"{name}.ptx").write_text("")
        (tmp_path / f"{name}.json").write_text("{}")
    variants = (Variant("a", 64, 64, str(tmp_path / "a.ptx")),
                Variant("b", 64, 64, str(tmp_path / "b.ptx")),
                Variant("missing", 64, 64, str(tmp_path / "c.ptx")))
    loaders, notes = bench.select_implementations(None, _options(), {}, variants)
    assert list(loaders) == ["triton_naive", "tle_a", "tle_b", "tle.sparse_mla_fwd"]
    assert isinstance(loaders["tle_a"](None), SparseMLA)
    loaders, _ = bench.select_implementations(None, _options(["a=x.ptx"]), {}, variants)
    assert loaders["tle_a"](None).variants[0].path == "x.ptx"


def test_an_explicit_tle_without_kernel_fails_clearly(monkeypatch):
    monkeypatch.delenv(bench.KERNEL_ENV, raising=False)
    with pytest.raises(ValueError, match="unknown implementation"):
        bench.select_implementations("tle", _options(), environ={})


def test_flashmla_without_peer_fails_clearly(monkeypatch):
    monkeypatch.delenv(bench.FLASHMLA_ENV, raising=False)
    with pytest.raises(OSError, match="TLE_FLASHMLA_PEER"):
        bench.IMPLEMENTATIONS["flashmla"](_options())


RESULTS = [{"skv": 8192, "impl": "triton_naive", "tflops": 200.0},
           {"skv": 8192, "impl": "tle", "tflops": 300.0},
           {"skv": 32768, "impl": "triton_naive", "tflops": 180.0},
           {"skv": 32768, "impl": "tle", "tflops": 270.0}]


def test_table_with_ratio(capsys):
    bench.print_table(RESULTS, ["triton_naive", "tle"], [8192, 32768])
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "| SKV | triton_naive | tle | tle/triton_naive |"
    assert lines[2] == "| 8192 | 200.0 | 300.0 | 1.50 |"
    assert lines[3] == "| 32768 | 180.0 | 270.0 | 1.50 |"
    bench.print_table(RESULTS[:1], ["triton_naive"], [8192])
    assert capsys.readouterr().out.strip().splitlines()[0] == "| SKV | triton_naive |"


def test_launch_cost_table(capsys):
    bench.print_launch_cost({"tle.sparse_mla_fwd": [21.0, 19.5, 20.0],
                             "flashmla": [18.0, 17.0, 19.0]})
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "| implementation | CPU us per call (median) | min |"
    assert lines[2:] == ["| tle.sparse_mla_fwd | 20.0 | 19.5 |",
                         "| flashmla | 18.0 | 17.0 |"]


def test_plot(tmp_path, capsys):
    path = tmp_path / "plot.png"
    if bench.plot(RESULTS, ["triton_naive", "tle"], str(path), "title"):
        assert path.read_bytes()[:4] == b"\x89PNG"
    else:
        assert "matplotlib is not installed" in capsys.readouterr().err


def test_poisoned_outputs():
    q, _, _ = _inputs(noncontiguous_q=True)
    out, maxl, lse = bench.poisoned_outputs(q)
    assert out.shape == (8, 64, 512) and out.is_contiguous()
    assert maxl.shape == lse.shape == (8, 64) and maxl.data_ptr() != lse.data_ptr()
    assert all(torch.isnan(t.float()).all() for t in (out, maxl, lse))
