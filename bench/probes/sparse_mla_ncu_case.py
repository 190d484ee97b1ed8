# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""One call of one SparseMLA implementation on the profiling case of issue
12 (SQ=512, SKV=65536, H=128, topk=2048, score-order ids), for a profiler
to capture:

    ncu --kernel-name regex:"sparse_attn_fwd_kernel|sparse_mla" ... \
        python3 bench/probes/sparse_mla_ncu_case.py IMPL [NAME=KERNEL ...]

IMPL is a name of `python -m tle.bench.sparse_mla --impl` (flashmla,
tle_seesaw, tle_NAME with NAME=KERNEL given, ...); tle must be importable.
With IDS=invalid in the environment every index is -1: no KV row is read
and all the math still runs (bench/probes/sparse_mla_memory_probe.py), which
profiles the consumers' path without the gather's memory latency.
SQ=n, SKV=n and TOPK=k in the environment change those sizes, e.g. TOPK=128
(one pair of KV tiles per CTA) to see where the cost of each CTA goes, or
SKV=8192 (every row in L2). KV_FORMAT=v32 quantizes kv into DeepSeek
V3.2's FP8 cache (as `--kv-format v32` does) for the implementations that
read it (tle_fp8, flashmla_dequant); the others get the dequantized rows.
"""

import math
import os
import sys

import torch

from tle.bench import sparse_mla as bench
from tle.sparse_mla.inputs import make_inputs


class _Options:
    flashmla_peer = None
    tle_kernel = None
    kv_format = os.environ.get("KV_FORMAT", "bf16")


def main(argv):
    if not argv:
        sys.exit(__doc__)
    options = _Options()
    options.tle_kernel = argv[1:]
    loaders, _ = bench.select_implementations(argv[0], options)
    fn = loaders[argv[0]](options)
    sq = int(os.environ.get("SQ", 512))
    skv = int(os.environ.get("SKV", 65536))
    topk = int(os.environ.get("TOPK", 2048))
    q, kv, idx = make_inputs(sq, skv, 128, topk, seed=7)
    if os.environ.get("IDS") == "invalid":
        idx = torch.full_like(idx, -1)
    if options.kv_format == "v32":
        q, kv, idx, cache = bench.fp8_inputs(skv, q, kv, idx)
        if bench.kv_format_of(fn) == "v32":
            kv = cache
    torch.cuda.synchronize()
    fn(q, kv, idx, 1 / math.sqrt(576))
    torch.cuda.synchronize()


if __name__ == "__main__":
    main(sys.argv[1:])
