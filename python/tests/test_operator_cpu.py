# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The PyTorch operators behind tle.sparse_mla_fwd and tle.attention_fwd,
without a GPU: fake implementations on fake CUDA tensors, the checks they
share with the kernels, and torch.compile and make_fx tracing a call into
one graph node. Needs torch >= 2.4 (torch.library.custom_op); Debian's
1.13 skips this file, test/python/operator.test runs it with the torch that
utils/tle.sh test installs beside the build.
"""

import math

import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch.library, "custom_op"):
    pytest.skip(f"torch {torch.__version__} has no torch.library.custom_op "
                f"(test/python/operator.test runs this file with torch 2.11)",
                allow_module_level=True)

from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

import tle  # noqa: E402

BF16, F32, I32 = torch.bfloat16, torch.float32, torch.int32


def _sparse_inputs(s_q=8, s_kv=32, heads=64, topk=64, d_qk=576, batch=()):
    return (torch.empty(*batch, s_q, heads, d_qk, dtype=BF16, device="cuda"),
            torch.empty(*batch, s_kv, 1, d_qk, dtype=BF16, device="cuda"),
            torch.empty(*batch, s_q, 1, topk, dtype=I32, device="cuda"))


def _described(tensors):
    return [(tuple(t.shape), t.dtype, str(t.device)) for t in tensors]


def _ops_in(graph):
    return {str(node.target) for node in graph.graph.nodes if node.op == "call_function"}


class _Capture:
    """A torch.compile backend that keeps the graphs and runs nothing."""

    def __init__(self):
        self.graphs = []

    def __call__(self, graph, example_inputs):
        self.graphs.append(graph)
        return graph.forward


def test_the_operators_exist():
    tle.sparse_mla_fwd, tle.attention_fwd  # the first use imports their modules
    for name in ("sparse_mla_fwd", "sparse_mla_fwd_out", "attention_fwd"):
        assert hasattr(torch.ops.tle, name), name


@pytest.mark.parametrize("d_qk, heads, batch", [(576, 128, ()), (512, 64, ()),
                                                 (576, 64, (3,))])
def test_sparse_mla_fake_outputs(d_qk, heads, batch):
    """On fake tensors the call goes to the operator, whose fake
    implementation gives out [.., s_q, h, 512] bf16 and max_logits and lse
    [.., s_q, h] f32 on q's device."""
    with FakeTensorMode():
        q, kv, idx = _sparse_inputs(heads=heads, d_qk=d_qk, batch=batch)
        out = tle.sparse_mla_fwd(q, kv, idx, 1 / math.sqrt(d_qk))
    assert all(isinstance(t, FakeTensor) for t in out)
    stats = (*batch, 8, heads)
    assert _described(out) == [((*stats, 512), BF16, "cuda:0"), (stats, F32, "cuda:0"),
                               (stats, F32, "cuda:0")]


@pytest.mark.parametrize("batch", [(), (2,)])
def test_sparse_mla_fake_fp8_cache(batch):
    """kv_format="v32" reaches the operator: the FP8 cache [blocks, 64, 1,
    656] as kv, one for every batch; the fake refuses a bf16 kv."""
    with FakeTensorMode():
        q, _, idx = _sparse_inputs(batch=batch)
        cache = torch.empty(4, 65, 1, 656, dtype=torch.uint8, device="cuda")[:, :64]
        out = tle.sparse_mla_fwd(q, cache, idx, 0.5, kv_format="v32")
        stats = (*batch, 8, 64)
        assert _described(out) == [((*stats, 512), BF16, "cuda:0"),
                                   (stats, F32, "cuda:0"), (stats, F32, "cuda:0")]
        with pytest.raises(TypeError, match="one-byte elements"):
            tle.sparse_mla_fwd(q, torch.empty(4, 64, 1, 656, dtype=BF16, device="cuda"),
                               idx, 0.5, kv_format="v32")
        given = (torch.empty(*stats, 512, dtype=BF16, device="cuda"),
                 torch.empty(stats, dtype=F32, device="cuda"),
                 torch.empty(stats, dtype=F32, device="cuda"))
        assert all(a is b for a, b in zip(
            tle.sparse_mla_fwd(q, cache, idx, 0.5, out=given, kv_format="v32"), given))


def test_sparse_mla_fake_refusals():
    """The fake implementation refuses what the kernels refuse, with the
    same messages."""
    with FakeTensorMode():
        q, kv, idx = _sparse_inputs(heads=48)
        with pytest.raises(ValueError, match=r"heads \(48\) must be a positive multiple of 64"):
            tle.sparse_mla_fwd(q, kv, idx, 0.5)
        q, kv, idx = _sparse_inputs(d_qk=320)
        with pytest.raises(ValueError, match=r"d_qk"):
            tle.sparse_mla_fwd(q, kv, idx, 0.5)
        q, kv, idx = _sparse_inputs()
        with pytest.raises(TypeError, match=r"indices"):
            tle.sparse_mla_fwd(q, kv, idx.to(torch.int64), 0.5)


def test_sparse_mla_fake_with_given_outputs():
    """out= goes to the mutating operator: the given tensors come back, and
    outputs of the wrong shape are refused."""
    with FakeTensorMode():
        q, kv, idx = _sparse_inputs()
        given = (torch.empty(8, 64, 512, dtype=BF16, device="cuda"),
                 torch.empty(8, 64, dtype=F32, device="cuda"),
                 torch.empty(8, 64, dtype=F32, device="cuda"))
        assert all(a is b for a, b in zip(tle.sparse_mla_fwd(q, kv, idx, 0.5, out=given),
                                          given))
        wrong = (torch.empty(8, 64, 256, dtype=BF16, device="cuda"),) + given[1:]
        with pytest.raises(ValueError, match=r"out"):
            tle.sparse_mla_fwd(q, kv, idx, 0.5, out=wrong)


def test_sparse_mla_compiles_into_one_node():
    """torch.compile(fullgraph=True) traces a call as one node of the
    operator (no graph break), and out= as the mutating one."""
    def attend(q, kv, idx):
        out, _, lse = tle.sparse_mla_fwd(q, kv, idx, 0.5)
        return out.float().sum(-1) + lse

    def attend_into(q, kv, idx, out, max_logits, lse):
        tle.sparse_mla_fwd(q, kv, idx, 0.5, out=(out, max_logits, lse))
        return lse * 2

    capture = _Capture()
    with FakeTensorMode():
        q, kv, idx = _sparse_inputs()
        result = torch.compile(attend, backend=capture, fullgraph=True)(q, kv, idx)
        assert tuple(result.shape) == (8, 64)
        given = (torch.empty(8, 64, 512, dtype=BF16, device="cuda"),
                 torch.empty(8, 64, dtype=F32, device="cuda"),
                 torch.empty(8, 64, dtype=F32, device="cuda"))
        torch.compile(attend_into, backend=capture, fullgraph=True)(q, kv, idx, *given)
    assert len(capture.graphs) == 2
    assert "tle.sparse_mla_fwd.default" in _ops_in(capture.graphs[0])
    assert "tle.sparse_mla_fwd_out.default" in _ops_in(capture.graphs[1])


def test_sparse_mla_make_fx():
    """The AOT trace holds the operator with the defaults filled in."""
    with FakeTensorMode():
        q, kv, idx = _sparse_inputs()
        graph = make_fx(lambda q, kv, idx: tle.sparse_mla_fwd(q, kv, idx, 0.5)[0])(q, kv, idx)
    calls = [n for n in graph.graph.nodes if str(n.target) == "tle.sparse_mla_fwd.default"]
    assert len(calls) == 1
    assert calls[0].args[3:] == (0.5, 512, None, None)


@pytest.mark.parametrize("causal", [False, True])
def test_attention_fake_outputs_and_compile(causal):
    """attention_fwd's fake implementation: out [B, S, H, D] bf16 and lse
    [B, H, S] f32; grouped KV heads; sm_scale resolved before the operator
    (its schema takes a float); one node under torch.compile."""
    def attend(q, k, v):
        return tle.attention_fwd(q, k, v, causal=causal)

    capture = _Capture()
    with FakeTensorMode():
        q = torch.empty(2, 100, 8, 128, dtype=BF16, device="cuda")
        k = torch.empty(2, 100, 2, 128, dtype=BF16, device="cuda")
        v = torch.empty(2, 100, 2, 128, dtype=BF16, device="cuda")
        out = attend(q, k, v)
        assert _described(out) == [((2, 100, 8, 128), BF16, "cuda:0"),
                                   ((2, 8, 100), F32, "cuda:0")]
        torch.compile(attend, backend=capture, fullgraph=True)(q, k, v)
        with pytest.raises(ValueError):
            attend(q, k, torch.empty(2, 100, 3, 128, dtype=BF16, device="cuda"))
    calls = [n for n in capture.graphs[0].graph.nodes
             if str(n.target) == "tle.attention_fwd.default"]
    assert len(calls) == 1 and calls[0].args[3:] == (causal, 1 / math.sqrt(128))
