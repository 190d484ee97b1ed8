"""The "tle" SparseMLA implementation and the benchmark's table without a
GPU: finding the kernel, the views and arguments a call passes, the errors
for what the kernel cannot take (CPU tensors; skipped without torch)."""

import math

import pytest

torch = pytest.importorskip("torch")

import tle_runtime as rt  # noqa: E402
from fakes import FakeLibrary  # noqa: E402
from tle_sparse_mla import bench, tle_kernel  # noqa: E402


def _inputs(s_q=8, s_kv=32, h=64, topk=64, noncontiguous_q=False):
    if noncontiguous_q:
        q = torch.zeros(h, s_q, 576, dtype=torch.bfloat16).transpose(0, 1)
    else:
        q = torch.zeros(s_q, h, 576, dtype=torch.bfloat16)
    kv = torch.zeros(s_kv, 1, 576, dtype=torch.bfloat16)
    idx = torch.zeros(s_q, 1, topk, dtype=torch.int32)
    return q, kv, idx


def test_kernel_path(tmp_path):
    with pytest.raises(tle_kernel.KernelNotFoundError,
                       match="set TLE_SPARSE_MLA_KERNEL=.* or pass --tle-kernel"):
        tle_kernel.kernel_path(None, environ={})
    ptx = tmp_path / "k.ptx"
    ptx.write_text("")
    with pytest.raises(tle_kernel.KernelNotFoundError, match=r"k\.json: no such file"):
        tle_kernel.kernel_path(None, environ={tle_kernel.ENV: str(ptx)})
    (tmp_path / "k.json").write_text("{}")
    assert tle_kernel.kernel_path(str(ptx), environ={}) == str(ptx)
    with pytest.raises(tle_kernel.KernelNotFoundError, match="nowhere.ptx: no such file"):
        tle_kernel.kernel_path(str(tmp_path / "nowhere.ptx"))


def test_views_do_not_copy():
    q, kv, idx = _inputs(noncontiguous_q=True)
    q4, kv4, idx4, batched = tle_kernel.kernel_views(q, kv, idx)
    assert not batched
    assert q4.shape == (1, 8, 64, 576) and q4.stride()[1:] == (576, 8 * 576, 1)
    assert kv4.shape == (1, 32, 1, 576) and idx4.shape == (1, 8, 1, 64)
    for view, tensor in ((q4, q), (kv4, kv), (idx4, idx)):
        assert view.data_ptr() == tensor.data_ptr()
    assert tle_kernel.grid(q4) == (8, 1, 1)


def test_arguments_of_a_call():
    """What a call hands the runtime, in the kernel's signature order."""
    q, kv, idx = _inputs(h=128, noncontiguous_q=True)
    values, grid, (out, maxl, lse) = tle_kernel.launch_values(q, kv, idx)
    assert grid == (16, 1, 1)
    assert out.shape == (8, 128, 512) and out.dtype == torch.bfloat16
    assert maxl.shape == lse.shape == (8, 128) and lse.dtype == torch.float32
    assert values[6] == pytest.approx(1 / math.sqrt(576))
    # Left out, attn_sink and topk_length are neutral: -inf sinks, full length.
    sink, length = values[7], values[8]
    assert sink.shape == (128,) and bool(torch.isneginf(sink).all())
    assert length.shape == (8,) and bool((length == 64).all())
    lib = FakeLibrary()
    args = rt.Args(values, lib=lib)
    memrefs = [c for c in lib.calls if c[0] == "memref"]
    assert [c[2] for c in memrefs] == ["bf16", "bf16", "i32", "bf16", "f32", "f32",
                                       "f32", "i32"]
    assert [c[3] for c in memrefs] == [[1, 8, 128, 576], [1, 32, 1, 576], [1, 8, 1, 64],
                                       [1, 8, 128, 512], [1, 8, 128], [1, 8, 128],
                                       [128], [8]]
    # q's real strides: heads outermost in memory.
    assert memrefs[0][1] == q.data_ptr() and memrefs[0][4][1:] == [576, 8 * 576, 1]
    assert memrefs[3][1] == out.data_ptr()
    assert ("f32", pytest.approx(1 / math.sqrt(576))) in lib.calls
    del args


def test_optional_inputs_are_checked():
    """attn_sink and topk_length given by the caller reach the kernel as
    they are; wrong shapes or types are refused."""
    q, kv, idx = _inputs(h=64)
    sink = torch.zeros(64)
    length = torch.full((8,), 32, dtype=torch.int32)
    values, _, _ = tle_kernel.launch_values(q, kv, idx, attn_sink=sink,
                                            topk_length=length)
    assert values[7].data_ptr() == sink.data_ptr()
    assert values[8].data_ptr() == length.data_ptr()
    with pytest.raises(ValueError, match="attn_sink must be"):
        tle_kernel.launch_values(q, kv, idx, attn_sink=torch.zeros(32))
    with pytest.raises(ValueError, match="topk_length must hold 8 int32"):
        tle_kernel.launch_values(q, kv, idx, topk_length=length.long())


def test_batched_inputs_and_given_outputs():
    q, kv, idx = (t.unsqueeze(0).expand(2, *t.shape).contiguous() for t in _inputs())
    given = (torch.empty(2, 8, 64, 512, dtype=torch.bfloat16),
             torch.empty(2, 8, 64), torch.empty(2, 8, 64))
    values, grid, outputs = tle_kernel.launch_values(q, kv, idx, 0.5, out=given)
    assert grid == (8, 2, 1) and outputs == given
    assert values[3] is given[0] and values[6] == 0.5


@pytest.mark.parametrize("change, message", [
    (dict(h=96), r"heads \(96\) must be a positive multiple of 64"),
    (dict(topk=100), r"topk \(100\) must be a multiple of 64"),
])
def test_shapes_the_kernel_cannot_take(change, message):
    with pytest.raises(ValueError, match=message):
        tle_kernel.kernel_views(*_inputs(**change))


def test_mismatched_inputs():
    q, kv, idx = _inputs()
    with pytest.raises(ValueError, match="d_qk = 576 and d_v = 512"):
        tle_kernel.kernel_views(q[..., :512], kv, idx)
    with pytest.raises(ValueError, match="indices must be"):
        tle_kernel.kernel_views(q, kv, idx[:4])
    with pytest.raises(ValueError, match=r"kv must be \[s_kv, 1, 576\]"):
        tle_kernel.kernel_views(q, torch.zeros(32, 2, 576, dtype=torch.bfloat16), idx)
    with pytest.raises(ValueError, match="all be 3-D .* or all 4-D"):
        tle_kernel.kernel_views(q.unsqueeze(0), kv, idx)


def test_alignment():
    q, kv, idx = _inputs()
    storage = torch.zeros(8 * 64 * 576 + 1, dtype=torch.bfloat16)
    shifted = storage[1:].view(8, 64, 576)
    with pytest.raises(ValueError, match="q must start at a 16-byte boundary"):
        tle_kernel.kernel_views(shifted, kv, idx)
    padded = torch.zeros(8, 64, 580, dtype=torch.bfloat16)[..., :576]
    with pytest.raises(ValueError, match=r"stride in dimension 2 \(580 elements\)"):
        tle_kernel.kernel_views(padded, kv, idx)
    # Rows padded to a multiple of 16 bytes are fine.
    tle_kernel.kernel_views(torch.zeros(8, 64, 584, dtype=torch.bfloat16)[..., :576], kv, idx)


def test_the_kernel_must_take_the_sparse_mla_arguments():
    kernel = type("K", (), {"name": "other", "signature": (rt.Arg("index", "index"),)})()
    with pytest.raises(ValueError, match="kernel 'other' takes \\(index\\); the SparseMLA "
                                         "kernel takes"):
        tle_kernel.SparseMLA(kernel)


def _options(tle_kernel_specs=None, flashmla_peer=None):
    return type("Options", (), {"tle_kernel": tle_kernel_specs,
                                "flashmla_peer": flashmla_peer})()


def test_implementations_selected():
    loaders, notes = bench.select_implementations(None, _options(), environ={})
    assert list(loaders) == ["triton_naive"]
    assert notes == ["note: no compiled kernel (--tle-kernel or $TLE_SPARSE_MLA_KERNEL)",
                     "note: 'flashmla' left out: no peer (--flashmla-peer or "
                     "$TLE_FLASHMLA_PEER)"]
    loaders, _ = bench.select_implementations(None, _options(["k.ptx"]), environ={})
    assert list(loaders) == ["triton_naive", "tle"]
    loaders, _ = bench.select_implementations(
        None, _options(["naive=a.ptx", "pipe=b.ptx"], "peer"), environ={})
    assert list(loaders) == ["triton_naive", "flashmla", "tle_naive", "tle_pipe"]
    loaders, _ = bench.select_implementations(None, _options(),
                                              {tle_kernel.ENV: "k.ptx"})
    assert list(loaders)[-1] == "tle"
    loaders, notes = bench.select_implementations("tle", _options(["k.ptx"]), environ={})
    assert list(loaders) == ["tle"] and notes == []
    with pytest.raises(ValueError, match="unknown implementation"):
        bench.select_implementations("cuda", _options(), environ={})


def test_an_explicit_tle_without_kernel_fails_clearly(monkeypatch):
    monkeypatch.delenv(tle_kernel.ENV, raising=False)
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
