# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Sparse MLA decode without a GPU: the schedule's properties, the call's
refusals, the operator's fake implementation and torch.compile tracing it
into one node, FlashMLA's call's refusals, the interim FP8 rows and the
fp32 reference on small CPU cases. Needs torch >= 2.7 (float8 and
torch.library.custom_op); test/python/operator.test runs it."""

import math

import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch, "float8_e8m0fnu") or not hasattr(torch.library, "custom_op"):
    pytest.skip("needs torch >= 2.7", allow_module_level=True)

from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode  # noqa: E402

import tle  # noqa: E402
from tle import flash_mla  # noqa: E402
from tle.sparse_mla import kv_cache  # noqa: E402
from tle.sparse_mla import schedule as S  # noqa: E402
from tle.sparse_mla.decode import compact_rows  # noqa: E402
from tle.sparse_mla.reference import sparse_mla_decode_reference  # noqa: E402

BF16, F32, I32, U8 = torch.bfloat16, torch.float32, torch.int32, torch.uint8


def _inputs(b=2, s_q=1, h_q=64, topk=128, blocks=4, device="cuda"):
    cache = torch.empty(blocks, 65, 1, 656, dtype=U8, device=device)[:, :64]
    return (torch.empty(b, s_q, h_q, 576, dtype=BF16, device=device), cache,
            torch.empty(b, s_q, topk, dtype=I32, device=device))


@pytest.mark.parametrize("b", [1, 2, 32, 64, 128])
@pytest.mark.parametrize("s_q, h_q, topk", [(1, 64, 2048), (2, 128, 2048), (1, 128, 512),
                                           (2, 64, 64)])
def test_schedule_covers_the_topk_within_bounds(b, s_q, h_q, topk):
    """Every chunk has a pair of tiles or more, the chunks cover the topk,
    there are at most MAX_SPLITS, and the grid has no more CTAs than items
    or multiprocessors."""
    sched = S.make_schedule(b, s_q, h_q, topk, 132)
    pairs = -(-topk // S.PAIR)
    assert 1 <= sched.splits <= min(pairs, S.MAX_SPLITS)
    chunk = -(-pairs // sched.splits)
    assert chunk * sched.splits >= pairs and chunk * (sched.splits - 1) < pairs
    assert 1 <= sched.ctas <= min(sched.items, 132)
    assert sched.matches(b, s_q, h_q, topk) and not sched.matches(b + 1, s_q, h_q, topk)


def test_schedule_splits_small_batches_and_not_large_ones():
    """Few rows are split to fill the multiprocessors; rows enough to fill
    them are not."""
    assert S.make_schedule(1, 1, 128, 2048, 132).splits > 4
    assert S.make_schedule(32, 1, 128, 2048, 132).splits > 1
    assert S.make_schedule(128, 2, 128, 2048, 132).splits == 1
    assert S.make_schedule(0, 1, 64, 2048, 132).splits == 1


def test_schedule_refusals():
    with pytest.raises(ValueError, match=r"h_q \(48\) must be a multiple of 64"):
        S.make_schedule(1, 1, 48, 2048, 132)
    with pytest.raises(ValueError, match=r"topk must be an int"):
        S.make_schedule(1, 1, 64, 20.0, 132)


@pytest.mark.parametrize("b, s_q, h_q", [(2, 1, 64), (3, 2, 128)])
def test_fake_outputs(b, s_q, h_q):
    """On fake tensors the call goes to the operator: out [b, s_q, h_q, 512]
    bf16 and lse [b, h_q, s_q] f32 on q's device."""
    with FakeTensorMode():
        q, cache, idx = _inputs(b, s_q, h_q)
        out, lse = tle.sparse_mla_decode(q, cache, idx, sm_scale=0.5)
    assert isinstance(out, FakeTensor) and isinstance(lse, FakeTensor)
    assert (tuple(out.shape), out.dtype) == ((b, s_q, h_q, 512), BF16)
    assert (tuple(lse.shape), lse.dtype) == ((b, h_q, s_q), F32)


def test_refusals():
    """Shapes, dtypes and the V3.2 cache layout are checked, with the rule
    named; a schedule of other shapes is refused."""
    with FakeTensorMode():
        q, cache, idx = _inputs()
        with pytest.raises(ValueError, match=r"heads \(32\) must be a positive multiple"):
            tle.sparse_mla_decode(q[:, :, :32], cache, idx,
                                  schedule=S.make_schedule(2, 1, 64, 128, 132))
        with pytest.raises(ValueError, match=r"k_cache must be \[num_blocks, 64, 1, 656\]"):
            tle.sparse_mla_decode(q, torch.empty(4, 64, 1, 584, dtype=U8, device="cuda"),
                                  idx)
        with pytest.raises(TypeError, match=r"indices must be torch.int32"):
            tle.sparse_mla_decode(q, cache, idx.long())
        with pytest.raises(ValueError, match=r"topk \(100\) must be a multiple of 64"):
            tle.sparse_mla_decode(q, cache, idx[..., :100])
        with pytest.raises(ValueError, match=r"topk_length must be \[2\]"):
            tle.sparse_mla_decode(q, cache, idx, torch.empty(3, dtype=I32, device="cuda"))
        with pytest.raises(TypeError, match=r"attn_sink must be torch.float32"):
            tle.sparse_mla_decode(q, cache, idx, None,
                                  torch.empty(64, dtype=BF16, device="cuda"))
        with pytest.raises(ValueError, match=r"the schedule was made for"):
            tle.sparse_mla_decode(q, cache, idx, schedule=S.make_schedule(1, 1, 64, 128, 132))


def test_compiles_into_one_node():
    """torch.compile(fullgraph=True) traces a call as one node of the
    operator, with the schedule's splits as a constant."""
    graphs = []

    def capture(graph, example_inputs):
        graphs.append(graph)
        return graph.forward

    def decode(q, cache, idx, length, sink):
        out, lse = tle.sparse_mla_decode(q, cache, idx, length, sink, 0.5)
        return out.float().sum(-1), lse * 2

    with FakeTensorMode():
        q, cache, idx = _inputs(b=2)
        length = torch.empty(2, dtype=I32, device="cuda")
        sink = torch.empty(64, dtype=F32, device="cuda")
        out, lse = torch.compile(decode, backend=capture, fullgraph=True)(
            q, cache, idx, length, sink)
    assert tuple(out.shape) == (2, 1, 64) and tuple(lse.shape) == (2, 64, 1)
    calls = [n for n in graphs[0].graph.nodes
             if str(n.target) == "tle.sparse_mla_decode.default"]
    assert len(calls) == 1


def test_flash_mla_refuses_the_modes_it_does_not_run():
    with FakeTensorMode():
        q, cache, idx = _inputs()
        meta, none = flash_mla.get_mla_metadata()
        assert none is None and meta.schedule is None
        for kwargs, message in (
                (dict(is_fp8_kvcache=False, indices=idx), "sparse FP8 mode only"),
                (dict(is_fp8_kvcache=True), "sparse FP8 mode only"),
                (dict(is_fp8_kvcache=True, indices=idx, causal=True), "causal"),
                (dict(is_fp8_kvcache=True, indices=idx, extra_k_cache=cache), "extra cache"),
                (dict(is_fp8_kvcache=True, indices=idx, num_splits=4), "num_splits")):
            with pytest.raises(ValueError, match=message):
                flash_mla.flash_mla_with_kvcache(q, cache, None, None, 512, meta, **kwargs)
        with pytest.raises(ValueError, match="block_table"):
            flash_mla.flash_mla_with_kvcache(q, cache, idx[:, 0], None, 512, meta,
                                             is_fp8_kvcache=True, indices=idx)
        out, lse = flash_mla.flash_mla_with_kvcache(q, cache, None, None, 512, meta,
                                                    is_fp8_kvcache=True, indices=idx)
        assert meta.schedule.matches(2, 1, 64, 128)
        assert tuple(out.shape) == (2, 1, 64, 512) and tuple(lse.shape) == (2, 64, 1)


def _cache(blocks, seed=0):
    torch.manual_seed(seed)
    kv = (torch.randn(blocks, 64, 1, 576) / 4).to(BF16)
    return kv_cache.quantize(kv, "v32")


def test_compact_rows_are_the_dequantized_tokens():
    """The interim FP8 path: row p of a batch's compact rows is the
    dequantized token its id names, and invalid ids or positions past
    topk_length become -1."""
    cache = _cache(3)
    tokens = 3 * 64
    idx = torch.randint(0, tokens, (2, 2, 64), dtype=I32)
    idx[0, 0, 5] = -1
    idx[1, 1, 7] = tokens
    idx[1, 0, 9] = -2 ** 31
    length = torch.tensor([64, 40], dtype=I32)
    rows, local = compact_rows(cache, idx, length)
    assert tuple(rows.shape) == (2, 128, 1, 576) and tuple(local.shape) == (2, 2, 1, 64)
    whole = kv_cache.dequantize(cache)[:, 0]
    for b in range(2):
        for s in range(2):
            for j in range(64):
                p = local[b, s, 0, j].item()
                i = idx[b, s, j].item()
                if 0 <= i < tokens and j < length[b]:
                    assert p == s * 64 + j
                    assert torch.equal(rows[b, p, 0], whole[i])
                else:
                    assert p == -1


def test_reference_on_empty_rows_and_sinks():
    """The fp32 reference: a row without a valid id gives out 0 and lse
    +inf; topk_length 0 is such a row; a sink of +inf zeroes the output and
    leaves lse; the lse of a row is that of its logits."""
    cache = _cache(2, seed=1)
    torch.manual_seed(2)
    q = (torch.randn(2, 2, 64, 576) / 4).to(BF16)
    idx = torch.randint(0, 128, (2, 2, 64), dtype=I32)
    idx[0, 1] = -1
    length = torch.tensor([64, 0], dtype=I32)
    out, lse = sparse_mla_decode_reference(q, cache, idx, length, sm_scale=0.5)
    assert tuple(out.shape) == (2, 2, 64, 512) and tuple(lse.shape) == (2, 64, 2)
    assert torch.isinf(lse[0, :, 1]).all() and (lse[0, :, 1] > 0).all()
    assert torch.isinf(lse[1]).all() and (out[1] == 0).all() and (out[0, 1] == 0).all()
    kv = kv_cache.dequantize(cache)[:, 0].float()
    logits = q[0, 0].float() @ kv[idx[0, 0].long()].T * 0.5
    assert torch.allclose(lse[0, :, 0], torch.logsumexp(logits, -1), atol=1e-5)
    sink = torch.full((64,), float("inf"))
    out_s, lse_s = sparse_mla_decode_reference(q, cache, idx, length, sink, 0.5)
    assert (out_s == 0).all() and torch.equal(lse_s, lse)
    assert math.isclose(1 / math.sqrt(576), 1 / 24)
