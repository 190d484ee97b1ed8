# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""tle.flash_mla, FlashMLA's call by its own name, without a GPU: its
signature and the rules it checks before the kernels' (CPU tensors;
skipped without torch)."""

import inspect

import pytest

torch = pytest.importorskip("torch")

from tle.flash_mla import flash_mla_sparse_fwd  # noqa: E402


def _inputs(s_q=8, s_kv=32, h=64, topk=64, d_qk=576, h_kv=1):
    return (torch.zeros(s_q, h, d_qk, dtype=torch.bfloat16),
            torch.zeros(s_kv, h_kv, d_qk, dtype=torch.bfloat16),
            torch.zeros(s_q, h_kv, topk, dtype=torch.int32))


def test_flashmla_signature():
    """FlashMLA 9241ae3's flash_mla_sparse_fwd: the same parameters, in
    the same order, with the same defaults; then TLE's keyword-only
    kv_format, which no FlashMLA call passes."""
    parameters = inspect.signature(flash_mla_sparse_fwd).parameters
    assert list(parameters) == ["q", "kv", "indices", "sm_scale", "d_v", "attn_sink",
                                "topk_length", "kv_format"]
    assert [p.default for p in parameters.values()][4:] == [512, None, None, "bf16"]
    assert parameters["kv_format"].kind is inspect.Parameter.KEYWORD_ONLY


def test_flashmla_shapes_reach_the_kernels_checks():
    """What FlashMLA takes gets past the drop-in's own rules to the call's
    (which on the CPU stops at the device)."""
    for d_qk in (576, 512):
        with pytest.raises(ValueError, match="q is on cpu"):
            flash_mla_sparse_fwd(*_inputs(d_qk=d_qk), 0.5)
    q, kv, idx = _inputs()
    with pytest.raises(ValueError, match="q is on cpu"):
        flash_mla_sparse_fwd(q, kv, idx, 0.5, 512, torch.zeros(64),
                             torch.zeros(8, dtype=torch.int32))


def test_what_flashmla_refuses():
    q, kv, idx = _inputs()
    with pytest.raises(ValueError, match="q, kv and indices must be 3-D, not 4-, 4- and 4-D"):
        flash_mla_sparse_fwd(q[None], kv[None], idx[None], 0.5)
    with pytest.raises(ValueError, match=r"h_kv \(kv.shape\[1\] = 2\) must be 1"):
        flash_mla_sparse_fwd(*_inputs(h_kv=2), 0.5)
    with pytest.raises(ValueError, match="the kernels take d_v = 512, not 256"):
        flash_mla_sparse_fwd(q, kv, idx, 0.5, d_v=256)
    with pytest.raises(TypeError, match="kv must be torch.bfloat16, not torch.float32"):
        flash_mla_sparse_fwd(q, kv.float(), idx, 0.5)
