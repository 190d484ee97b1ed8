# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""How much of a SparseMLA kernel's time is the gather's memory traffic:
each implementation timed (do_bench medians, interleaved rounds, one
process) on the same problem with three sets of indices,

  score    the benchmark's: random rows in score order (most miss L2);
  shared   every query row takes the same topk rows, which stay in L2
           after the first CTAs (the copies still run, from L2);
  invalid  every index -1: no row is read (the copies zero-fill) and the
           result is empty, but every multiply and softmax still runs.

    PYTHONPATH=SITE TLE_FLASHMLA_PEER=PEER python3 bench/probes/sparse_mla_memory_probe.py \
        [--impl flashmla,tle_seesaw,tle_pipe] [--skv 65536] [--rounds 3]

tle (the wheel), torch and Triton must be importable; --tle-kernel
NAME=PATH adds a compiled kernel as tle_NAME, as in tle.bench.sparse_mla.
"""

import argparse
import functools
import math
import statistics
import sys

import torch

from tle.bench import do_bench_ms, interleaved
from tle.bench import sparse_mla as bench
from tle.sparse_mla.inputs import make_inputs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--impl", default="flashmla,tle_seesaw,tle_pipe")
    ap.add_argument("--tle-kernel", action="append")
    ap.add_argument("--flashmla-peer")
    ap.add_argument("--skv", type=int, default=65536)
    ap.add_argument("--sq", type=int, default=4096)
    ap.add_argument("--heads", type=int, default=128)
    ap.add_argument("--topk", type=int, default=2048)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args(argv)
    loaders, _ = bench.select_implementations(a.impl, a)
    impls = {name: load(a) for name, load in loaders.items()}
    q, kv, idx = make_inputs(a.sq, a.skv, a.heads, a.topk, seed=a.skv)
    sets = {
        "score": idx,
        "shared": idx[:1].expand_as(idx).contiguous(),
        "invalid": torch.full_like(idx, -1),
    }
    sm_scale = 1 / math.sqrt(q.shape[-1])
    flops = bench.flops(a.sq, a.heads, a.topk)
    print(f"| ids | {' | '.join(impls)} |  (ms, and TFLOPS by SPARSE_MLA.md)")
    print(f"|---|{'---:|' * len(impls)}")
    for label, ids in sets.items():
        calls = {name: functools.partial(fn, q, kv, ids, sm_scale)
                 for name, fn in impls.items()}
        rounds = interleaved(calls, lambda f: do_bench_ms(f, 25, 200), a.rounds)
        cells = []
        for name in impls:
            ms = statistics.median(rounds[name])
            cells.append(f"{ms:.3f} ({flops / (ms * 1e-3) / 1e12:.0f})")
        print(f"| {label} | {' | '.join(cells)} |", flush=True)
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
