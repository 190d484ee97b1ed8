# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""tle.sparse_mla_fwd on DeepSeek V3.2's FP8 KV cache (kv_format="v32")
against the fp32 reference on the dequantized cache (kv_cache.dequantize)
on the edge cases of the SparseMLA issues, and against the bf16 kernel on
the same dequantized rows, which it must equal bit for bit: the gather
writes the same bf16 tiles. Needs CUDA and the bundled kernels."""

import math

import pytest

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")]

import tle  # noqa: E402
from tle.bench.sparse_mla import check  # noqa: E402
from tle.sparse_mla import kv_cache, variant  # noqa: E402
from tle.sparse_mla.inputs import make_inputs  # noqa: E402
from tle.sparse_mla.kernel import SparseMLA  # noqa: E402
from tle.sparse_mla.reference import sparse_mla_reference  # noqa: E402
from test_sparse_mla_gpu import _rows  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def bundled():
    for name in ("seesaw_fp8", "seesaw"):
        if not variant(name).is_bundled():
            pytest.skip(f"no bundled kernel of '{name}': install the wheel")


def _case(s_q, s_kv, heads, topk, **kw):
    """q, the FP8 cache of s_kv / 64 blocks (FlashMLA's 65-row block stride),
    the cache dequantized [s_kv, 1, 576] and the indices."""
    q, kv, idx = make_inputs(s_q, s_kv, heads, topk, **kw)
    cache = kv_cache.quantize(kv.view(s_kv // 64, 64, 1, 576), "v32")
    return q, cache, kv_cache.dequantize(cache, "v32"), idx


def _fp8(cache):
    """check()'s f(q, kv, idx, sm_scale) on the cache (check passes it the
    dequantized rows for the reference)."""
    def fn(q, kv, idx, sm_scale, **kw):
        return tle.sparse_mla_fwd(q, cache, idx, sm_scale, kv_format="v32", **kw)
    fn.takes_outputs = True
    return fn


def test_the_public_call_picks_the_fp8_variant():
    q, cache, _, idx = _case(64, 256, 64, 128)
    assert SparseMLA().variant_for(q, cache, idx, kv_format="v32").name == "seesaw_fp8"


@pytest.mark.parametrize("heads", [64, 128])
@pytest.mark.parametrize("s_kv, topk", [(256, 128), (8192, 512), (20032, 2048),
                                        (131072, 2048)])
def test_against_the_reference(heads, s_kv, topk):
    """25% invalid ids of every kind (-1, negatives, INT_MIN, INT_MAX, s_kv,
    past s_kv), 2% empty rows, non-contiguous q."""
    s_q = 64 if s_kv == 256 else 1024
    q, cache, deq, idx = _case(s_q, s_kv, heads, topk, invalid_frac=0.25,
                               empty_frac=0.02, noncontiguous_q=True, seed=s_kv)
    res = check(_fp8(cache), q, deq, idx, 1 / math.sqrt(576), _rows(idx, s_q, s_kv))
    assert res["ok"], res
    assert res["empty_rows_checked"] > 0


@pytest.mark.parametrize("heads", [64, 128])
def test_equals_the_bf16_kernel_on_the_dequantized_cache(heads):
    q, cache, deq, idx = _case(512, 8192, heads, 2048, invalid_frac=0.1, empty_frac=0.02)
    fp8 = tle.sparse_mla_fwd(q, cache, idx, 0.5, kv_format="v32")
    bf16 = SparseMLA([variant("seesaw")])(q, deq, idx, 0.5)
    for a, b in zip(fp8, bf16):
        assert torch.equal(a, b)


def test_every_code_and_scale_dequantizes_exactly():
    """Every finite e4m3 code (subnormals included) at scales 2^-14 to
    2^12 (past 2^7, where a gather that folds 2^120 into the scale would
    leave bf16's range): the gather's tiles must be the dequantized rows
    bit for bit, so the output equals the bf16 kernel's on them."""
    s_kv, heads = 4096, 64
    q, cache, _, idx = _case(256, s_kv, heads, 512, invalid_frac=0.05)
    rows = cache[:, :, 0]                                   # [blocks, 64, 656]
    codes = torch.arange(256, dtype=torch.uint8, device="cuda")
    codes = codes[(codes != 0x7F) & (codes != 0xFF)]
    token = torch.arange(s_kv, device="cuda").view(-1, 64, 1)
    col = torch.arange(512, device="cuda").view(1, 1, -1)
    pattern = codes[(token * 37 + col) % codes.numel()]
    rows[..., :512] = pattern.to(torch.uint8)
    exps = torch.arange(-14, 13, device="cuda", dtype=torch.float32)
    tile = torch.arange(4, device="cuda").view(1, 1, -1)
    scales = torch.exp2(exps[(token * 5 + tile * 11) % exps.numel()])
    rows[..., 512:528] = scales.view(torch.uint8)
    deq = kv_cache.dequantize(cache, "v32")
    assert torch.isfinite(deq.float()).all()
    fp8 = tle.sparse_mla_fwd(q, cache, idx, 1 / 24, kv_format="v32")
    bf16 = SparseMLA([variant("seesaw")])(q, deq, idx, 1 / 24)
    for a, b in zip(fp8, bf16):
        assert torch.equal(a, b)


def test_attn_sink():
    q, cache, deq, idx = _case(256, 4096, 128, 1024, invalid_frac=0.1, empty_frac=0.02)
    sink = torch.randn(128, device="cuda")
    sink[:4] = float("-inf")
    sink[4] = float("inf")
    res = check(_fp8(cache), q, deq, idx, 0.5, torch.arange(256, device="cuda"),
                attn_sink=sink)
    assert res["ok"], res


def test_topk_length():
    q, cache, deq, idx = _case(128, 4096, 64, 1024, invalid_frac=0.1)
    length = torch.randint(0, 1025, (128,), dtype=torch.int32, device="cuda")
    length[:3] = torch.tensor([0, 1, 1024], dtype=torch.int32)
    out, maxl, lse = tle.sparse_mla_fwd(q, cache, idx, 0.5, topk_length=length,
                                        kv_format="v32")
    r_out, r_maxl, r_lse = sparse_mla_reference(q, deq, idx, 0.5, topk_length=length)
    torch.testing.assert_close(out.float(), r_out.float(), atol=8e-4, rtol=3.01 / 128)
    torch.testing.assert_close(lse, r_lse, atol=1e-6, rtol=2.01 / 65536)
    torch.testing.assert_close(maxl, r_maxl, atol=1e-6, rtol=2.01 / 65536)
    assert torch.isinf(lse[0]).all() and (out[0] == 0).all()


def test_batches_share_one_cache():
    q, cache, deq, idx = _case(64, 2048, 64, 256, invalid_frac=0.1)
    q2, _, _, idx2 = _case(64, 2048, 64, 256, seed=7)
    qb, idxb = torch.stack([q, q2]), torch.stack([idx, idx2])
    out, maxl, lse = tle.sparse_mla_fwd(qb, cache, idxb, 0.5, kv_format="v32")
    for b, (qq, ii) in enumerate(((q, idx), (q2, idx2))):
        r_out, r_maxl, r_lse = sparse_mla_reference(qq, deq, ii, 0.5)
        torch.testing.assert_close(out[b].float(), r_out.float(), atol=8e-4,
                                   rtol=3.01 / 128)
        torch.testing.assert_close(lse[b], r_lse, atol=1e-6, rtol=2.01 / 65536)


def test_float8_view_and_the_drop_in():
    q, cache, deq, idx = _case(64, 1024, 64, 128)
    a = tle.sparse_mla_fwd(q, cache, idx, 0.5, kv_format="v32")
    b = tle.sparse_mla_fwd(q, cache.view(torch.float8_e4m3fn), idx, 0.5, kv_format="v32")
    from tle.flash_mla import flash_mla_sparse_fwd
    c = flash_mla_sparse_fwd(q, cache, idx, 0.5, kv_format="v32")
    for x, y, z in zip(a, b, c):
        assert torch.equal(x, y) and torch.equal(x, z)
