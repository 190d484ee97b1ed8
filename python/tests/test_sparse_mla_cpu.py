# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The SparseMLA call and the benchmark's bookkeeping without a GPU: the
variants and their limits, the checks of a call, what a call hands its
launch plan, the signatures it keys plans by, and the benchmark's
implementations and table (CPU tensors; skipped without torch)."""

import json
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


def _inputs(s_q=8, s_kv=32, h=64, topk=64, noncontiguous_q=False, d_qk=576):
    if noncontiguous_q:
        q = torch.zeros(h, s_q, d_qk, dtype=torch.bfloat16).transpose(0, 1)
    else:
        q = torch.zeros(s_q, h, d_qk, dtype=torch.bfloat16)
    kv = torch.zeros(s_kv, 1, d_qk, dtype=torch.bfloat16)
    idx = torch.zeros(s_q, 1, topk, dtype=torch.int32)
    return q, kv, idx


def test_variants_fastest_first_with_their_limits():
    assert [v.name for v in VARIANTS] == ["seesaw", "seesaw_k512", "seesaw_fp8", "pipe",
                                          "naive"]
    assert [v.d_qk for v in VARIANTS] == [576, 512, 576, 576, 576]
    assert [v.kv_format for v in VARIANTS] == ["bf16", "bf16", "v32", "bf16", "bf16"]
    assert choose(128, 2048, kv_format="v32") == variant("seesaw_fp8")
    assert variant("seesaw_fp8").refusal(64, 512) == "kv_format ('bf16') must be 'v32'"
    with pytest.raises(ValueError, match=r"d_qk 512, kv_format 'v32' \(seesaw_fp8: d_qk "
                                         r"\(512\) must be 576\)"):
        choose(64, 512, 512, kv_format="v32")
    assert choose(128, 2048) == VARIANTS[0]
    assert choose(64, 512, 512) == variant("seesaw_k512")
    assert variant("naive").refusal(192, 512) is None
    with pytest.raises(ValueError, match=r"no kernel takes 96 heads, topk 2048 and d_qk "
                                         r"576 \(seesaw: the number of heads \(96\) must be "
                                         r"a positive multiple of 64; seesaw_k512: d_qk "
                                         r"\(576\) must be 512; pipe: .*; naive: "):
        choose(96, 2048)
    with pytest.raises(ValueError, match=r"seesaw: topk \(100\) must be a multiple of 64"):
        choose(64, 100)
    with pytest.raises(ValueError, match=r"d_qk 448 \(seesaw: d_qk \(448\) must be 576; "
                                         r"seesaw_k512: d_qk \(448\) must be 512"):
        choose(64, 512, 448)
    with pytest.raises(ValueError, match="no SparseMLA variant 'flash'; the shipped "
                                         "ones are seesaw, seesaw_k512, seesaw_fp8, pipe, naive"):
        variant("flash")


def test_every_variant_is_a_shipped_kernel():
    """The build compiles kernels/sparse_mla/NAME.mlir for each variant."""
    for v in VARIANTS:
        assert os.path.isfile(os.path.join(REPO, "kernels", "sparse_mla",
                                           v.name + ".mlir")), v.name


def test_kernel_files(tmp_path, monkeypatch):
    ptx = tmp_path / "k.ptx"
    ptx.write_text("")
    given = Variant("k", 576, 64, 64, str(ptx))
    with pytest.raises(tle.sparse_mla.KernelNotFoundError, match=r"k\.json: no such file"):
        given.kernel_file()
    (tmp_path / "k.json").write_text("{}")
    assert given.kernel_file() == str(ptx) and given.is_bundled()
    with pytest.raises(tle.sparse_mla.KernelNotFoundError, match="nowhere.ptx: no such"):
        Variant("k", 576, 64, 64, str(tmp_path / "nowhere.ptx")).kernel_file()
    # Bundled: the cubin where there is one, else the PTX.
    monkeypatch.setattr(tle.sparse_mla.variants, "KERNELS", str(tmp_path))
    assert Variant("k", 576, 64, 64).kernel_file() == str(ptx)
    (tmp_path / "k.cubin").write_bytes(b"")
    assert Variant("k", 576, 64, 64).kernel_file() == str(tmp_path / "k.cubin")
    with pytest.raises(tle.sparse_mla.KernelNotFoundError,
                       match="no compiled kernel of the SparseMLA variant 'other' in "
                             ".*ninja -C build tle-wheel"):
        Variant("other", 576, 64, 64).kernel_file()


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
    _check(*_inputs(d_qk=512))
    with pytest.raises(ValueError, match=r"kv must be \[s_kv, 1, 512\] \(q's d_qk"):
        check_call(q[..., :512], kv, idx)
    with pytest.raises(ValueError, match="the kernels take d_v = 512, not 256"):
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


def test_fp8_cache_checks():
    """kv_format="v32": kv is the FP8 cache [num_blocks, 64, 1, 656] of
    one-byte elements (any block stride), shared by every batch; q has d_qk
    576; s_kv counts every token of every block."""
    q, _, idx = _inputs()
    cache = torch.zeros(3, 65, 1, 656, dtype=torch.uint8)[:, :64]
    _check(q, cache, idx, kv_format="v32")
    if hasattr(torch, "float8_e4m3fn"):
        _check(q, cache.view(torch.float8_e4m3fn), idx, kv_format="v32")
    _check(q, cache.view(torch.int8), idx, kv_format="v32")
    _check(q.unsqueeze(0).expand(2, *q.shape), cache, idx.unsqueeze(0).expand(2, *idx.shape),
           kv_format="v32")
    with pytest.raises(ValueError, match=r"kv_format must be one of 'bf16', 'v32', not "
                                         r"'model1'"):
        check_call(q, cache, idx, kv_format="model1")
    with pytest.raises(ValueError, match=r"the FP8 cache \[num_blocks, 64, 1, 656\], not "
                                         r"\[3, 64, 656\]"):
        check_call(q, cache[:, :, 0], idx, kv_format="v32")
    with pytest.raises(ValueError, match=r"the FP8 cache .*not \[3, 32, 1, 656\]"):
        check_call(q, cache[:, :32], idx, kv_format="v32")
    with pytest.raises(TypeError, match="one-byte elements .*not torch.bfloat16"):
        check_call(q, torch.zeros(3, 64, 1, 656, dtype=torch.bfloat16), idx,
                   kv_format="v32")
    if hasattr(torch, "float8_e5m2"):
        with pytest.raises(TypeError, match="one-byte elements .*not torch.float8_e5m2"):
            check_call(q, cache.view(torch.float8_e5m2), idx, kv_format="v32")
    with pytest.raises(ValueError, match="d_qk 576 with kv_format 'v32', not 512"):
        check_call(q[..., :512], cache, idx, kv_format="v32")
    with pytest.raises(ValueError, match="q and indices must both be 3-D"):
        check_call(q.unsqueeze(0), cache, idx, kv_format="v32")
    with pytest.raises(ValueError, match=r"s_kv \(2147483648\) must fit an int32"):
        check_call(q, torch.zeros(1, 64, 1, 656, dtype=torch.uint8).expand(2 ** 25, -1, -1, -1),
                   idx, kv_format="v32")
    assert check_call.__defaults__[-1] == "bf16"


def test_optional_inputs_are_checked():
    q, kv, idx = _inputs(h=64)
    _check(q, kv, idx, attn_sink=torch.zeros(64),
           topk_length=torch.full((8,), 32, dtype=torch.int32))
    with pytest.raises(ValueError, match=r"attn_sink must be \[64\] torch.float32, not "
                                         r"\[32\]"):
        check_call(q, kv, idx, attn_sink=torch.zeros(32))
    # A wrong dtype is a TypeError, as for q, kv and indices.
    with pytest.raises(TypeError, match="topk_length must be torch.int32, not torch.int64"):
        check_call(q, kv, idx, topk_length=torch.zeros(8, dtype=torch.int64))
    with pytest.raises(TypeError, match="attn_sink must be torch.float32, not torch.float16"):
        check_call(q, kv, idx, attn_sink=torch.zeros(64, dtype=torch.float16))
    with pytest.raises(ValueError, match=r"attn_sink must be contiguous, not of strides "
                                         r"\[2\]"):
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
    # The last dimension must be contiguous.
    with pytest.raises(ValueError, match="q's last dimension must be contiguous \\(stride 1\\), "
                                         "not of stride 2"):
        kernel._check_strides("q", torch.zeros(8, 64, 1152, dtype=torch.bfloat16)[..., ::2])


def test_kv_and_indices_as_views():
    """FlashMLA's kv [s_kv, 1, d_qk] and indices [s_q, 1, topk] as rows of
    larger buffers (a paged cache, a workspace): any row stride of 16-byte
    multiples, the last dimension contiguous."""
    paged = torch.zeros(32, 2, 640, dtype=torch.bfloat16)
    kv = paged[:, :1, :576]                                 # rows 2560 bytes apart
    ids = torch.zeros(8, 3, 96, dtype=torch.int32)[:, 1:2, :64]
    for name, tensor in (("kv", kv), ("indices", ids)):
        kernel._check_strides(name, tensor)
    q, _, _ = _inputs()
    _check(q, kv, ids)
    with pytest.raises(ValueError, match=r"kv's stride in dimension 0 \(580 elements\) must "
                                         r"be a multiple of 16 bytes"):
        kernel._check_strides("kv", torch.zeros(32, 1, 580, dtype=torch.bfloat16)[..., :576])
    with pytest.raises(ValueError, match=r"indices's stride in dimension 0 \(66 elements\)"):
        kernel._check_strides("indices", torch.zeros(8, 1, 66, dtype=torch.int32)[..., :64])


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
    monkeypatch.setattr(kernel.rt, "current_stream", lambda index: 0x5EED)
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
    q, _, _ = _inputs(h=128, noncontiguous_q=True)
    kv = torch.zeros(32, 2, 640, dtype=torch.bfloat16)[:, :1, :576]
    idx = torch.zeros(8, 2, 128, dtype=torch.int32)[:, :1, :64]
    call, recorder = _call(monkeypatch, Shape(False, 1, 8, 128, 32, 64), (q, kv, idx))
    assert recorder.grid == (16, 1, 1)
    views = recorder.plan_values
    assert [tuple(v.shape) for v in views[:6]] == [
        (1, 8, 128, 576), (1, 32, 1, 576), (1, 8, 1, 64), (1, 8, 128, 512),
        (1, 8, 128), (1, 8, 128)]
    # q, kv and indices keep their strides: q's heads outermost in memory,
    # kv's and indices' rows those of the larger buffers.
    assert views[0].stride()[1:] == (576, 8 * 576, 1)
    assert views[1].stride()[1] == 1280 and views[2].stride()[1] == 256
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
    assert recorder.launched[0][3:6] == tuple(t.data_ptr() for t in given)


def test_given_outputs_are_checked_like_the_inputs(monkeypatch):
    q, kv, idx = _inputs()
    call, recorder = _call(monkeypatch, Shape(False, 1, 8, 64, 32, 64), (q, kv, idx))
    out = (torch.empty(8, 64, 512, dtype=torch.bfloat16), torch.empty(8, 64),
           torch.empty(8, 64))
    assert call(q, kv, idx, None, None, list(out)) == list(out)
    cases = [
        ((out[0][:4],) + out[1:], ValueError,
         r"out must be \[8, 64, 512\] \(q's s_q and h_q, and d_v\), not \[4, 64, 512\]"),
        ((out[0].float(),) + out[1:], TypeError,
         "out must be torch.bfloat16, not torch.float32"),
        (out[:2] + (out[2].double(),), TypeError, "lse must be torch.float32, not torch.float64"),
        ((out[0], torch.empty(64, 8).t(), out[2]), ValueError,
         r"max_logits must be contiguous, not of strides \[1, 8\]"),
        ((out[0], out[1][:, :32], out[2]), ValueError,
         r"max_logits must be \[8, 64\] \(q's s_q and h_q\), not \[8, 32\]"),
        (out[:2], TypeError, r"out must be a tuple of the three outputs"),
        (out[0], TypeError, r"out must be a tuple of the three outputs"),
        ((out[0], out[1], 3), TypeError, "lse must be a tensor, not int"),
    ]
    for given, error, message in cases:
        with pytest.raises(error, match=message):
            call(q, kv, idx, None, None, given)
    shifted = torch.zeros(8 * 64 + 1)[1:].view(8, 64)
    with pytest.raises(ValueError, match="lse must start at a 16-byte boundary"):
        call(q, kv, idx, None, None, out[:2] + (shifted,))


def test_given_outputs_on_another_device_are_refused():
    out = (torch.empty(8, 64, 512, dtype=torch.bfloat16), torch.empty(8, 64),
           torch.empty(8, 64))
    with pytest.raises(ValueError, match="out is on cpu, q on cuda:0"):
        kernel.check_outputs(out, (8, 64, 512), (8, 64), torch.device("cuda:0"))


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

    def prepare(self, key, q, kv, indices, sm_scale, d_v, attn_sink, topk_length,
                kv_format):
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
    cache = torch.zeros(1, 64, 1, 656, dtype=torch.uint8)
    f(q, cache, idx, 0.5, kv_format="v32")              # the FP8 cache
    f(q, cache, idx, 0.5, kv_format="v32")
    assert len(prepared) == 5


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
    variants = (Variant("a", 576, 64, 64, str(tmp_path / "a.ptx")),
                Variant("b", 576, 64, 64, str(tmp_path / "b.ptx")),
                Variant("missing", 576, 64, 64, str(tmp_path / "c.ptx")))
    loaders, notes = bench.select_implementations(None, _options(), {}, variants)
    assert list(loaders) == ["triton_naive", "tle_a", "tle_b", "tle.sparse_mla_fwd"]
    assert isinstance(loaders["tle_a"](None), SparseMLA)
    loaders, _ = bench.select_implementations(None, _options(["a=x.ptx"]), {}, variants)
    assert loaders["tle_a"].__defaults__ == ("x.ptx",)


def test_a_kernel_given_by_path_takes_its_own_d_qk(tmp_path):
    """load() reads the columns of q from the kernel's metadata."""
    try:
        rt.library()
    except (rt.LibraryNotFoundError, OSError) as error:
        pytest.skip(f"libtle_runtime.so: {error}")
    (tmp_path / "k.ptx").write_text("")
    memref = {"kind": "memref", "type": "memref<?x?x?x512xbf16, strided<[?, ?, ?, 1]>>",
              "name": "q", "element_type": "bf16", "sizes": [-1, -1, -1, 512],
              "layout": "strided", "strides": [-1, -1, -1, 1], "offset": 0}
    (tmp_path / "k.json").write_text(json.dumps({"kernels": [{
        "name": "k", "block": [384, 1, 1], "dynamic_shared_memory": 0,
        "params": ["ptr", "ptr", "i64"] + ["i64"] * 8, "args": [memref]}]}))
    f = kernel.load(str(tmp_path / "k.ptx"))
    assert f.variants[0].d_qk == 512 and f.variants[0].path == str(tmp_path / "k.ptx")


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


def test_serving_cases():
    """The shapes of the issue: V4 on FlashMLA's MODEL1 cases with sinks,
    V3.2 at 8, 16 and 32 heads run padded to 64."""
    cases = {c.name: c for c in bench.SERVING_CASES}
    assert cases["V4 h64 topk512"] == bench.ServingCase(
        "V4 h64 topk512", 512, 64, 64, 512, (8192, 32768, 49152, 65536), True)
    assert cases["V4 h128 topk1024"].skvs == (8192, 32768, 49152, 65536)
    for heads in (8, 16, 32):
        case = cases[f"V3.2 h{heads} topk2048"]
        assert (case.d_qk, case.run_heads, case.topk, case.skvs, case.attn_sink) == (
            576, 64, 2048, (8192, 65536, 131072), False)


def test_a_padded_call():
    """As an engine pads: q copied into zero heads, the sinks of the extra
    heads -inf, the outputs cut back to the real heads."""
    seen = {}

    def kernel_call(q, kv, idx, sm_scale, attn_sink=None):
        seen.update(q=q.clone(), sink=attn_sink)
        heads = q.shape[1]
        return (torch.ones(q.shape[0], heads, 512), torch.zeros(q.shape[0], heads),
                torch.zeros(q.shape[0], heads))

    q = torch.ones(4, 16, 576, dtype=torch.bfloat16)
    sink = torch.arange(16.0)
    call = bench.padded(kernel_call, q, sink, 64)
    out, max_logits, lse = call(q, None, None, 0.5)
    assert seen["q"].shape == (4, 64, 576)
    assert bool((seen["q"][:, :16] == 1).all()) and bool((seen["q"][:, 16:] == 0).all())
    assert torch.equal(seen["sink"][:16], sink) and bool(torch.isinf(seen["sink"][16:]).all())
    assert out.shape == (4, 16, 512) and lse.shape == (4, 16)
    assert bench.padded(kernel_call, torch.ones(4, 64, 576), None, 64) is kernel_call


def test_which_kernels_take_a_shape():
    """A compiled kernel runs only its own d_qk (the default mode leaves
    the others out, --serving skips them per case); peers run all."""
    by_path = SparseMLA([Variant("k512", 512, 64, 64, "k.ptx")])
    assert bench.takes(by_path, 64, 512, 512) and not bench.takes(by_path, 64, 2048, 576)
    assert not bench.takes(by_path, 32, 512, 512)
    assert bench.takes(lambda *args: None, 64, 2048, 576)


SERVING = [{"case": "V4 h64 topk512", "skv": 8192, "impl": "flashmla", "tflops": 400.0,
            "gather_tbps": 3.0},
           {"case": "V4 h64 topk512", "skv": 8192, "impl": "tle.sparse_mla_fwd",
            "tflops": 440.0, "gather_tbps": 3.3},
           {"case": "V3.2 h16 topk2048", "skv": 65536, "impl": "flashmla",
            "tflops": 122.0, "gather_tbps": 4.0}]


def test_serving_table(capsys):
    bench.print_serving_table(SERVING, ["flashmla", "tle.sparse_mla_fwd", "tle_x"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == ("| case | SKV | flashmla TFLOPS (TB/s) | tle.sparse_mla_fwd TFLOPS "
                        "(TB/s) | tle.sparse_mla_fwd/flashmla |")
    assert lines[2] == "| V4 h64 topk512 | 8192 | 400.0 (3.00) | 440.0 (3.30) | 1.10 |"
    assert lines[3] == "| V3.2 h16 topk2048 | 65536 | 122.0 (4.00) | - | - |"


def test_prepare_gives_the_call_a_call_keeps(monkeypatch):
    """SparseMLA.prepare returns the prepared call of a signature, the same
    object its calls then run, and another for another signature."""
    monkeypatch.setattr(kernel.rt, "current_stream", lambda index: 0x5EED)
    # CPU tensors stand in for CUDA ones past the device check.
    monkeypatch.setattr(kernel, "check_call", lambda *args: Shape(False, 1, 8, 64, 32, 64))
    forward = SparseMLA()
    recorder = _Recorder()
    monkeypatch.setattr(forward, "kernel", lambda variant, index: recorder)
    q, kv, idx = _inputs()
    optional = dict(attn_sink=torch.zeros(64), topk_length=torch.ones(8, dtype=torch.int32))
    call = forward.prepare(q, kv, idx, 0.5, **optional)
    assert call.out_shape == (8, 64, 512) and call.plan is recorder
    out = forward(q, kv, idx, 0.5, **optional)
    assert recorder.launched[0][3] == out[0].data_ptr()
    assert forward.prepare(q, kv, idx, 0.5, **optional) is call
    assert forward.prepare(q, kv, idx, 0.25, **optional) is not call
