# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Triton naive kernel against the fp32 reference (needs CUDA and Triton)."""

import math

import pytest

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")]

from tle.bench.sparse_mla import check  # noqa: E402
from tle.sparse_mla.inputs import make_inputs  # noqa: E402


def _run(s_q, s_kv, h, topk, scale, **kw):
    pytest.importorskip("triton")
    from tle.sparse_mla.triton_peer import sparse_mla_triton
    q, kv, idx = make_inputs(s_q, s_kv, h, topk, **kw)
    rows = torch.arange(s_q, device="cuda")
    if s_q > 512:
        rows = torch.randperm(s_q, device="cuda")[:256]
        empt = ((idx[:, 0] < 0) | (idx[:, 0] >= s_kv)).all(1).nonzero()[:, 0]
        rows = torch.unique(torch.cat([rows, empt]))
    res = check(sparse_mla_triton, q, kv, idx, scale, rows)
    assert res["ok"], res
    return res


@pytest.mark.parametrize("scale", [0.5, 1 / math.sqrt(576)])
def test_small_clean(scale):
    _run(64, 256, 64, 128, scale)


def test_small_invalid_and_empty():
    res = _run(128, 512, 128, 192, 0.5, invalid_frac=0.25, empty_frac=0.1,
               noncontiguous_q=True)
    assert res["empty_rows_checked"] > 0


def test_topk_not_multiple_of_tile_and_short_range():
    # Causal range shorter than topk for early tokens: padded with -1.
    _run(64, 96, 64, 100, 0.5)


def test_benchmark_like():
    _run(4096, 8192, 128, 2048, 1 / math.sqrt(576), invalid_frac=0.25, empty_frac=0.02)
