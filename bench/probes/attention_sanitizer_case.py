#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""One call of every attention variant on a ragged shape, checked against
the fp32 reference, small enough for compute-sanitizer:

    PYTHONPATH=SITE compute-sanitizer --tool memcheck|racecheck|synccheck \\
        --error-exitcode 9 python3 bench/probes/attention_sanitizer_case.py

B=2, S_q=333 (three query blocks, the last one and a replica's half
ragged), S_k=201, H=6, H_kv=3, every head dim and mask; the persistent
variants on as many CTAs as items. The turn tokens hand over no shared
memory (the consumers write none), so racecheck can judge the pipes'
slots here; should it flag accesses around a bar.arrive / bar.sync, see
examples/ping_pong/README.md. Exits 1 when a result is off.
"""

import sys

import torch

from tle.attention import VARIANTS
from tle.attention.kernel import Attention
from tle.bench.attention import check, make_inputs


def main():
    failed = 0
    for variant in VARIANTS:
        q, _, _ = make_inputs(2, 333, 6, 3, variant.head_dim, 1)
        _, k, v = make_inputs(2, 201, 6, 3, variant.head_dim, 2)
        res = check(Attention([variant]), q, k, v, variant.causal, None,
                    torch.arange(333))
        print(variant.name, "OK" if res["ok"] else "FAIL", res["out"]["max_abs"],
              res["lse"]["max_abs"])
        failed += not res["ok"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
