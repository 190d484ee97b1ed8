# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""tle.flash_mla.flash_mla_sparse_fwd on FlashMLA's own test cases: the
correctness cases, the cases with attn_sink and topk_length and the corner
cases of FlashMLA 9241ae3's tests/test_flash_mla_sparse_prefill.py, with
its input rules (non-contiguous q, kv and indices, invalid ids of every
kind, sinks of +-inf, sm_scale 0.5) and its tolerances, against the fp32
reference. Needs CUDA and the package's bundled kernels."""

import itertools
import random
import zlib

import pytest

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")]

import tle  # noqa: E402
from tle.flash_mla import flash_mla_sparse_fwd  # noqa: E402
from tle.sparse_mla.reference import sparse_mla_reference  # noqa: E402

# The ids FlashMLA's cases put where a row has no more valid ones.
INVALID_IDS = (-2147483648, -123456, -1, None, 114514, 1919810, 2147480000, 2147483647)
D_QKS, HEADS = (512, 576), (128, 64)
# (s_kv, topk): regular, irregular, and with fewer rows than topk.
SHAPES = [(128, 128), (256, 256), (512, 512), (592, 128), (1840, 256), (1592, 384),
          (1521, 512), (95, 128), (153, 256), (114, 384)]


def _case(s_q, s_kv, topk, h_q, d_qk, sink=False, length=False, all_invalid=False):
    return dict(s_q=s_q, s_kv=s_kv, topk=topk, h_q=h_q, d_qk=d_qk, sink=sink,
                length=length, all_invalid=all_invalid)


CORRECTNESS = [_case(s_q, s_kv, topk, h, d) for d, h, (s_kv, topk), s_q in
               itertools.product(D_QKS, HEADS, SHAPES, (1, 62, 213))]
WITH_FEATURES = [_case(s_q, s_kv, topk, h, d, sink, length) for d, h, (s_kv, topk), s_q,
                 sink, length in itertools.product(D_QKS, HEADS, SHAPES[3:], (62, 213),
                                                   (False, True), (False, True))]
CORNER = ([_case(s_q, s_kv, topk, h, d, True, True, all_invalid=True)
           for d, h, (s_q, s_kv, topk) in itertools.product(
               D_QKS, HEADS, [(1, 128, 128), (1, 256, 256), (1234, 4321, 4096),
                              (4096, 2048, 2048)])]
          # Tiles, even whole pairs, without any valid id.
          + [_case(s_q, s_kv, topk, h, d, True, True) for d, h, (s_kv, topk), s_q in
             itertools.product(D_QKS, HEADS, [(32, 2048), (64, 8192)], (1, 1024))])


def _name(case):
    flags = "".join(f"-{k}" for k in ("sink", "length", "all_invalid") if case[k])
    return (f"d{case['d_qk']}-h{case['h_q']}-sq{case['s_q']}-skv{case['s_kv']}"
            f"-topk{case['topk']}{flags}")


def _strided(tensor):
    """`tensor` copied into a larger buffer, as FlashMLA's tests pass every
    input: each dimension one longer, the last 128 longer."""
    shape = [n + 1 for n in tensor.shape[:-1]] + [tensor.shape[-1] + 128]
    big = torch.empty(shape, dtype=tensor.dtype, device=tensor.device)
    view = big[tuple(slice(0, n) for n in tensor.shape)]
    view.copy_(tensor)
    return view


def _inputs(case, seed):
    """FlashMLA's inputs for a case: randn / 10 plus a shift, distinct
    random ids per row, the rest of a row's slots (and, with all_invalid,
    about 2% of the rows) invalid ids of every kind."""
    rng = random.Random(seed)
    g = torch.Generator(device="cuda").manual_seed(seed)
    s_q, s_kv, topk, h_q, d_qk = (case[k] for k in ("s_q", "s_kv", "topk", "h_q", "d_qk"))

    def values(*shape):
        x = torch.randn(shape, device="cuda", generator=g) / 10 + (rng.random() - 0.5) / 10
        return x.clamp(-10, 10).to(torch.bfloat16)

    q, kv = values(s_q, h_q, d_qk), values(s_kv, 1, d_qk)
    candidates = torch.tensor([s_kv if i is None else i for i in INVALID_IDS],
                              dtype=torch.int32, device="cuda")
    keys = torch.rand(s_q, max(s_kv, topk), device="cuda", generator=g)
    keys[:, s_kv:] = float("-inf")
    ids = keys.topk(topk, dim=-1, sorted=True).indices.to(torch.int32)
    fill = candidates[torch.randint(0, len(candidates), ids.shape, device="cuda",
                                    generator=g)]
    ids = torch.where(ids >= s_kv, fill, ids)
    if case["all_invalid"]:
        rows = torch.randn(s_q, device="cuda", generator=g) < -2
        ids[rows] = candidates[rng.randrange(len(candidates))]
    sink = length = None
    if case["sink"]:
        sink = torch.randn(h_q, device="cuda", generator=g)
        mask = torch.randn(h_q, device="cuda", generator=g)
        sink[mask < -0.5] = float("-inf")
        sink[mask > 0.5] = float("inf")
    if case["length"]:
        length = torch.randint(0, max(topk + 1, 64), (s_q,), device="cuda",
                               generator=g).clamp_max(topk).to(torch.int32)
    return _strided(q), _strided(kv), _strided(ids[:, None, :]), sink, length


def _close(name, got, want, abs_tol, rel_tol, cos_tol):
    """FlashMLA's comparison: +-inf and NaN at the same places, each other
    entry within abs_tol or rel_tol, and the cosine difference of the whole
    below cos_tol."""
    got, want = got.float().clone(), want.float().clone()
    for special in (torch.isposinf, torch.isneginf, torch.isnan):
        where = special(want)
        assert torch.equal(special(got), where), f"{name}: {special.__name__} differ"
        got[where] = want[where] = 0
    err = (got - want).abs()
    ok = (err < abs_tol) | (err / (want.abs() + 1e-6) < rel_tol)
    assert bool(ok.all()), f"{name}: {int((~ok).sum())} entries off, max error {err.max()}"
    g, w = got.double(), want.double()
    if (w * w).sum() >= 1e-12:
        cos = 1 - 2 * (g * w).sum() / (g * g + w * w).sum()
        assert abs(float(cos)) <= cos_tol, f"{name}: cosine difference {float(cos)}"


@pytest.fixture(scope="module", autouse=True)
def bundled():
    if not all(v.is_bundled() for v in tle.sparse_mla.VARIANTS):
        pytest.skip("no bundled kernels: install the wheel that ninja -C build "
                    "tle-wheel builds")


@pytest.mark.parametrize("case", CORRECTNESS + WITH_FEATURES + CORNER, ids=_name)
def test_flashmla_case(case):
    q, kv, idx, sink, length = _inputs(case, seed=zlib.crc32(_name(case).encode()))
    out, max_logits, lse = flash_mla_sparse_fwd(q, kv, idx, 0.5, 512, sink, length)
    torch.cuda.synchronize()
    want_out, want_max, want_lse = sparse_mla_reference(
        q, kv, idx, 0.5, attn_sink=sink, topk_length=length, out_dtype=torch.float32)
    assert out.shape == (case["s_q"], case["h_q"], 512) and out.dtype == torch.bfloat16
    _close("out", out, want_out, 8e-4, 3.01 / 128, 7e-6)
    _close("max_logits", max_logits, want_max, 1e-6, 2.01 / 65536, 1e-7)
    _close("lse", lse, want_lse, 1e-6, 2.01 / 65536, 1e-7)


@pytest.mark.parametrize("d_qk,h_q", itertools.product(D_QKS, HEADS))
def test_flashmla_many_tokens(d_qk, h_q):
    """FlashMLA's case of more tokens than a grid's y or z dimension holds
    (s_q 70000), which it runs without checking: every row is written."""
    case = _case(70000, 256, 256, h_q, d_qk, True, True)
    q, kv, idx, sink, length = _inputs(case, seed=70000 + d_qk + h_q)
    out, max_logits, lse = flash_mla_sparse_fwd(q, kv, idx, 0.5, 512, sink, length)
    torch.cuda.synchronize()
    assert not torch.isnan(lse).any() and not torch.isnan(out.float()).any()
    rows = torch.tensor([0, 1, 34999, 69999], device="cuda")
    want = sparse_mla_reference(q[rows], kv, idx[rows], 0.5, attn_sink=sink,
                                topk_length=length[rows], out_dtype=torch.float32)
    for name, got, expected in zip(("out", "max_logits", "lse"),
                                   (out[rows], max_logits[rows], lse[rows]), want):
        _close(name, got, expected, 8e-4 if name == "out" else 1e-6,
               3.01 / 128 if name == "out" else 2.01 / 65536, 7e-6)
