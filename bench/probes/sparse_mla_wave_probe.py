#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Does a kernel's time follow its work items or its waves? Times FlashMLA
(or any implementation of tle.bench.sparse_mla) at query lengths whose item
counts (SQ * H / 64) fill 132 multiprocessors exactly (SQ 4092: 62 waves,
4158: 63) or leave a remainder (4096: 62 waves and 8 items), and prints the
time per wave and per 132 items:

    PYTHONPATH=SITE TLE_FLASHMLA_PEER=PEER python3 bench/probes/sparse_mla_wave_probe.py \\
        [--impl flashmla] [--skv 8192]

do_bench medians of 4 interleaved rounds, score-order ids, H=128,
topk=2048. If time follows items, splitting the last items over idle CTAs
gains nothing.
"""

import argparse
import math
import statistics

import torch
from triton.testing import do_bench

from tle.bench import sparse_mla as bench
from tle.sparse_mla.inputs import make_inputs

QUERY_LENGTHS = (4092, 4096, 4158, 4224)


class _Options:
    flashmla_peer = None
    tle_kernel = None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--impl", default="flashmla")
    ap.add_argument("--skv", type=int, default=8192)
    ap.add_argument("--rounds", type=int, default=4)
    a = ap.parse_args()
    loaders, _ = bench.select_implementations(a.impl, _Options())
    fn = loaders[a.impl](_Options())
    heads, topk, multiprocessors = 128, 2048, 132
    cases = {sq: make_inputs(sq, a.skv, heads, topk, seed=7) for sq in QUERY_LENGTHS}
    times = {sq: [] for sq in QUERY_LENGTHS}
    for r in range(a.rounds):
        order = QUERY_LENGTHS[r % len(QUERY_LENGTHS):] + QUERY_LENGTHS[:r % len(QUERY_LENGTHS)]
        for sq in order:
            q, kv, idx = cases[sq]
            times[sq].append(do_bench(lambda: fn(q, kv, idx, 1 / math.sqrt(576)),
                                      warmup=25, rep=200))
    torch.cuda.synchronize()
    print(f"{a.impl}, SKV {a.skv}")
    print("| SQ | items | waves | ms | us per wave | us per 132 items |")
    print("|---:|---:|---:|---:|---:|---:|")
    for sq in QUERY_LENGTHS:
        items = sq * heads // 64
        waves = math.ceil(items / multiprocessors)
        t = statistics.median(times[sq])
        print(f"| {sq} | {items} | {waves} | {t:.4f} | {1000 * t / waves:.2f} | "
              f"{1000 * t / (items / multiprocessors):.2f} |")


if __name__ == "__main__":
    main()
