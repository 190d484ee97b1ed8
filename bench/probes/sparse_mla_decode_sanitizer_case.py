# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""One small sparse MLA decode case on both kernel paths (one chunk a row:
the prefill kernel; four: the split kernel and the combine), with invalid
ids, an empty row, topk_length and attn_sink, for compute-sanitizer:

    compute-sanitizer --tool memcheck|racecheck|synccheck \\
        python3 bench/probes/sparse_mla_decode_sanitizer_case.py

Exits non-zero if a result differs from the fp32 reference."""

import sys

import torch

import tle
from tle.bench.sparse_mla_decode import make_case
from tle.sparse_mla import schedule as S
from tle.sparse_mla.reference import sparse_mla_decode_reference


def main():
    b, s_q, h_q, topk = 2, 2, 64, 512
    q, cache, ids = make_case(b, s_q, h_q, topk, 1000, seed=1)
    ids[0, 1, ::3] = -1
    ids[1, 0] = 2 ** 31 - 1
    length = torch.tensor([400, topk], dtype=torch.int32, device="cuda")
    sink = torch.zeros(h_q, device="cuda")
    ref = sparse_mla_decode_reference(q, cache, ids, length, sink, 0.1)
    bad = 0
    for splits in (1, 4):
        sched = S.make_schedule(b, s_q, h_q, topk, 132)._replace(splits=splits)
        out, lse = tle.sparse_mla_decode(q, cache, ids, length, sink, 0.1, sched)
        torch.cuda.synchronize()
        d = float((out.float() - ref[0].float()).abs().max())
        same_inf = bool(torch.equal(torch.isinf(lse), torch.isinf(ref[1])))
        print(f"splits {splits}: out max abs {d:.2e}, infinities in place {same_inf}")
        bad += d > 2e-2 or not same_inf
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
