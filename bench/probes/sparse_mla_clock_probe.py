# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The SM clock and power draw each SparseMLA implementation runs at when
it runs for a while: each is called back to back for --seconds while
nvidia-smi samples the card every 50 ms, in two interleaved rounds, one
process. Under the H200's power cap the clock follows the power a kernel
draws, so a kernel's time is its cycles at that clock; this prints both.

    PYTHONPATH=SITE TLE_FLASHMLA_PEER=PEER python3 bench/probes/sparse_mla_clock_probe.py \
        [--impl flashmla,tle_seesaw,tle_pipe] [--skv 65536] [--ids score|invalid]

tle (the wheel), torch and nvidia-smi must be there; --tle-kernel
NAME=PATH adds a compiled kernel as tle_NAME, as in tle.bench.sparse_mla.
SQ=4096, H=128, topk=2048. Samples from the first half second of each
window are dropped (the clock settles).
"""

import argparse
import datetime
import math
import subprocess
import sys
import tempfile
import time

import torch

from tle.bench import sparse_mla as bench
from tle.sparse_mla.inputs import make_inputs

QUERY = ("timestamp,clocks.sm,power.draw,clocks_event_reasons.active")


def read_samples(path):
    """(epoch seconds, MHz, W, throttle reasons) per nvidia-smi line."""
    samples = []
    with open(path) as log:
        for line in log:
            parts = [p.strip() for p in line.split(",")]
            try:
                stamp = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f")
                samples.append((stamp.timestamp(), float(parts[1]), float(parts[2]),
                                parts[3]))
            except (ValueError, IndexError):
                continue
    return samples


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--impl", default="flashmla,tle_seesaw,tle_pipe")
    ap.add_argument("--tle-kernel", action="append")
    ap.add_argument("--flashmla-peer")
    ap.add_argument("--skv", type=int, default=65536)
    ap.add_argument("--ids", choices=("score", "invalid"), default="score")
    ap.add_argument("--seconds", type=float, default=3.0)
    a = ap.parse_args(argv)
    loaders, _ = bench.select_implementations(a.impl, a)
    functions = {name: loaders[name](a) for name in a.impl.split(",")}
    q, kv, idx = make_inputs(4096, a.skv, 128, 2048, seed=7)
    if a.ids == "invalid":
        idx = torch.full_like(idx, -1)
    scale = 1 / math.sqrt(576)
    for fn in functions.values():
        fn(q, kv, idx, scale)
    torch.cuda.synchronize()

    windows = []
    with tempfile.NamedTemporaryFile("w+", suffix=".csv") as log:
        smi = subprocess.Popen(["nvidia-smi", f"--query-gpu={QUERY}",
                                "--format=csv,noheader,nounits", "-lms", "50"],
                               stdout=log)
        try:
            time.sleep(1.0)
            for r in range(2):
                for name, fn in functions.items():
                    torch.cuda.synchronize()
                    start, calls = time.time(), 0
                    begin = torch.cuda.Event(enable_timing=True)
                    end = torch.cuda.Event(enable_timing=True)
                    begin.record()
                    while time.time() - start < a.seconds:
                        for _ in range(5):
                            fn(q, kv, idx, scale)
                        calls += 5
                        torch.cuda.synchronize()
                    end.record()
                    torch.cuda.synchronize()
                    windows.append((name, r, start, time.time(),
                                    begin.elapsed_time(end) / calls))
        finally:
            smi.terminate()
            smi.wait()
        samples = read_samples(log.name)

    print(f"ids {a.ids}, SKV {a.skv}: nvidia-smi every 50 ms, {a.seconds} s each")
    print("| implementation | round | ms a call | SM MHz | W | M cycles a call "
          "| throttle reasons |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, r, start, stop, ms in windows:
        taken = [s for s in samples if start + 0.5 <= s[0] <= stop]
        if not taken:
            print(f"| {name} | {r} | {ms:.3f} | no samples | | | |")
            continue
        mhz = sum(s[1] for s in taken) / len(taken)
        watts = sum(s[2] for s in taken) / len(taken)
        reasons = " ".join(sorted({s[3] for s in taken}))
        print(f"| {name} | {r} | {ms:.3f} | {mhz:.0f} | {watts:.0f} | "
              f"{ms * mhz / 1e3:.3f} | {reasons} |")


if __name__ == "__main__":
    main(sys.argv[1:])
