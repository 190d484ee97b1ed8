#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""One call of the public SparseMLA op (SparseMLA(), which picks the
fastest shipped variant) on the edge cases, checked against the fp32
reference, small enough for compute-sanitizer:

    PYTHONPATH=SITE compute-sanitizer --tool memcheck|racecheck|synccheck \\
        --error-exitcode 9 python3 bench/probes/sparse_mla_sanitizer_case.py [VARIANT]

With VARIANT (a name of tle.sparse_mla.VARIANTS) that variant alone
runs, with q and kv of its d_qk; a variant that reads the FP8 cache
(seesaw_fp8) gets kv quantized (tle.sparse_mla.kv_cache) and the
reference its dequantized rows.

SQ=70 (140 items on 132 CTAs), SKV=8192, topk=256, H=128; 25% invalid ids
of every kind, 5% rows without a valid id, attn_sink with +inf and -inf,
topk_length from 0 to topk. Exits 1 when the result is off.
"""

import math
import sys

import torch

from tle.sparse_mla import kv_cache, reference
from tle.sparse_mla.inputs import make_inputs
from tle.sparse_mla.kernel import SparseMLA
from tle.sparse_mla.variants import VARIANTS, variant


def main(argv):
    torch.manual_seed(3)
    chosen = [variant(argv[0])] if argv else VARIANTS
    d_qk = chosen[0].d_qk if argv else 576
    q, kv, idx = make_inputs(70, 8192, 128, 256, d_qk=d_qk, invalid_frac=0.25,
                             empty_frac=0.05, seed=3)
    sink = torch.randn(128, device="cuda")
    sink[0], sink[1] = math.inf, -math.inf
    length = torch.randint(0, 257, (70,), device="cuda", dtype=torch.int32)
    length[0], length[1] = 0, 256
    scale = 1 / math.sqrt(d_qk)
    f = SparseMLA(chosen)
    kv_format = chosen[0].kv_format if argv else "bf16"
    given = kv
    if kv_format != "bf16":
        given = kv_cache.quantize(kv.view(-1, kv_cache.BLOCK, 1, d_qk), kv_format)
        kv = kv_cache.dequantize(given, kv_format)
    print("variant", f.variant_for(q, given, idx, attn_sink=sink, topk_length=length,
                                   kv_format=kv_format).name)
    out, max_logits, lse = f(q, given, idx, scale, attn_sink=sink, topk_length=length,
                             kv_format=kv_format)
    ref_out, ref_max, ref_lse = reference.sparse_mla_reference(
        q, kv, idx, scale, attn_sink=sink, topk_length=length)
    same_inf = (torch.equal(torch.isinf(lse), torch.isinf(ref_lse))
                and torch.equal(torch.isinf(max_logits), torch.isinf(ref_max)))
    finite = torch.isfinite(ref_lse)
    d_out = (out.float() - ref_out.float()).abs().max().item()
    d_lse = (lse[finite] - ref_lse[finite]).abs().max().item()
    print(f"out max|d| {d_out:.2e}, lse max|d| {d_lse:.2e}, "
          f"infinities where the reference has them: {same_inf}")
    return 0 if d_out < 1e-2 and d_lse < 1e-4 and same_inf else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
