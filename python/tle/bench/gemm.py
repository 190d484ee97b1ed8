# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Check and time a compiled TLE GEMM kernel against torch.matmul (cuBLAS).

    python -m tle.bench.gemm KERNEL.ptx [--metadata KERNEL.json]
        [--sizes 4096,8192] [--bn 256] [--json FILE]

For each size S: A [S, S] and B [S, S] bf16, uniform in [-1, 1), on the
GPU; the kernel writes C = A @ B (bf16, fp32 accumulation) into a C poisoned
with NaN, which must match torch.matmul(A, B) within tle.gemm.tolerance.
Then torch.matmul (cuBLAS) and the kernel (Kernel.launch_async on PyTorch's
stream) are timed alike by tle.bench, in --rounds interleaved rounds, with
each of its two methods: do_bench's median (L2 cleared before each run;
--do-bench-warmup, --do-bench-rep) and back-to-back launches between CUDA
events (--warmup, --reps). Each figure is the median of the rounds; TFLOPS =
2 S^3 / time; each ratio is tle's TFLOPS over cuBLAS's by one method.

The kernel takes (tensor_map over A, tensor_map over B, C, K) as tle-run's
gemm problem does, C as a memref or a tensor map; bm is the rows of A's box in its signature, bn (the
columns of C per CTA) is --bn. Exit codes: 0 ok, 1 a check failed, 2 no
CUDA device.
"""

import argparse
import datetime
import json
import statistics
import sys

import torch

from . import do_bench_ms, events_ms, interleaved
from .. import runtime as rt
from ..gemm import grid, tflops, tile_rows, tolerance


def make_inputs(size, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a, b = (torch.rand(size, size, device="cuda", generator=g) * 2 - 1 for _ in range(2))
    return a.to(torch.bfloat16), b.to(torch.bfloat16)


def reference(a, b):
    """torch.matmul without bf16 reductions inside cuBLAS (split-K), which
    would make the reference the less accurate of the two."""
    matmul = torch.backends.cuda.matmul
    saved = matmul.allow_bf16_reduced_precision_reduction
    matmul.allow_bf16_reduced_precision_reduction = False
    try:
        return torch.matmul(a, b)
    finally:
        matmul.allow_bf16_reduced_precision_reduction = saved


def compare(c, ref, k):
    got, want = c.float(), ref.float()
    diff = (got - want).abs()
    rel, abs_ = tolerance(k)
    allowed = rel * want.abs() + abs_
    bad = ~(diff <= allowed)  # NaN fails too
    nans = int(torch.isnan(got).sum())
    return {"max_abs_diff": float(diff.nan_to_num(float("inf")).max()),
            "worst_over_tolerance": float((diff / allowed).nan_to_num(float("inf")).max()),
            "mismatches": int(bad.sum()), "nans": nans,
            "tolerance": {"rel": rel, "abs": abs_}, "ok": not bool(bad.any())}


# Each timing method of tle.bench, as a function of the options.
METHODS = {
    "do_bench": lambda o: lambda fn: do_bench_ms(
        fn, o.do_bench_warmup, o.do_bench_rep),
    "events": lambda o: lambda fn: events_ms(fn, o.warmup, o.reps),
}
IMPLEMENTATIONS = ("cublas", "tle")


def run_size(kernel, size, bm, bn, options):
    m = n = k = size
    a, b = make_inputs(size, options.seed + size)
    c = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
    c.view(torch.int16).fill_(-1)  # 0xFFFF: NaN, which no correct kernel writes
    # C by address, or as a tensor map where the kernel stores it with TMA.
    c_arg = rt.tensor_map(c) if kernel.signature[2].kind == "tensor_map" else c
    args = kernel.args([rt.tensor_map(a), rt.tensor_map(b), c_arg, k])
    cta_grid = grid(m, n, bm, bn)
    kernel.launch(cta_grid, args)
    entry = {"size": size, "grid": list(cta_grid),
             "check": compare(c, reference(a, b), k)}
    out = torch.empty_like(c)
    calls = {"cublas": lambda: torch.matmul(a, b, out=out),
             "tle": lambda: kernel.launch_async(cta_grid, args)}
    for method, make_measure in METHODS.items():
        rounds = interleaved(calls, make_measure(options), options.rounds)
        for name in IMPLEMENTATIONS:
            ms = statistics.median(rounds[name])
            entry[f"{name}_{method}_rounds_ms"] = rounds[name]
            entry[f"{name}_{method}_ms"] = ms
            entry[f"{name}_{method}_tflops"] = tflops(m, n, k, ms)
        entry[f"tle_over_cublas_{method}"] = (entry[f"tle_{method}_tflops"] /
                                              entry[f"cublas_{method}_tflops"])
    return entry


def print_table(results):
    """One row per size: per method, cuBLAS's and tle's median times and
    TFLOPS and their ratio."""
    header = "| size |"
    for method in METHODS:
        header += (f" cuBLAS ms ({method}) | tle ms ({method}) | cuBLAS TFLOPS | "
                   f"tle TFLOPS | tle/cuBLAS ({method}) |")
    print("\n" + header)
    print("|---:|" + "---:|" * 5 * len(METHODS))
    for e in results:
        row = f"| {e['size']} |"
        for method in METHODS:
            row += (f" {e[f'cublas_{method}_ms']:.3f} | {e[f'tle_{method}_ms']:.3f} "
                    f"| {e[f'cublas_{method}_tflops']:.1f} "
                    f"| {e[f'tle_{method}_tflops']:.1f} "
                    f"| {e[f'tle_over_cublas_{method}']:.2f} |")
        print(row)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernel_file", help="the compiled kernel (.ptx or .cubin)")
    ap.add_argument("--metadata", help="its metadata (default: KERNEL.json)")
    ap.add_argument("--kernel", help="the kernel's name, if the module has several")
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--bn", type=int, default=256, help="columns of C per CTA")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--warmup", type=int, default=10,
                    help="launches before the event-timed ones")
    ap.add_argument("--reps", type=int, default=100, help="event-timed launches")
    ap.add_argument("--do-bench-warmup", type=int, default=25, help="ms")
    ap.add_argument("--do-bench-rep", type=int, default=100, help="ms")
    ap.add_argument("--rounds", type=int, default=3,
                    help="interleaved rounds; the median is reported")
    ap.add_argument("--json")
    a = ap.parse_args(argv)

    try:
        device = rt.Device(0)
    except rt.NoDeviceError as e:
        print(f"no CUDA device: {e}", file=sys.stderr)
        return rt.NO_DEVICE
    kernel = device.load(a.kernel_file, a.metadata).kernel(a.kernel)
    bm = tile_rows(kernel.signature)
    print(f"kernel {kernel.name} ({a.kernel_file}): block {kernel.block}, "
          f"{kernel.shared_memory} B shared memory, tile {bm}x{a.bn}; "
          f"device {device.name}", flush=True)
    results, all_ok = [], True
    for size in (int(s) for s in a.sizes.split(",")):
        entry = run_size(kernel, size, bm, a.bn, a)
        check = entry["check"]
        all_ok &= check["ok"]
        print(f"size {size}: check {'OK' if check['ok'] else 'FAILED'} "
              f"(max |tle - torch| {check['max_abs_diff']:.3g}, "
              f"{check['worst_over_tolerance']:.2f} of the tolerance at worst, "
              f"{check['mismatches']} off, {check['nans']} NaN)", flush=True)
        results.append(entry)
        torch.cuda.empty_cache()
    print_table(results)
    if a.json:
        report = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                  "device": device.name, "torch": torch.__version__,
                  "command": " ".join(sys.argv),
                  "kernel": kernel.name, "kernel_file": a.kernel_file,
                  "bm": bm, "bn": a.bn, "seed": a.seed,
                  "timing": f"tle.bench, both implementations alike, median of "
                            f"{a.rounds} interleaved rounds: do_bench median "
                            f"(warmup {a.do_bench_warmup} ms, rep "
                            f"{a.do_bench_rep} ms) and back-to-back events "
                            f"(median of {a.reps} launches after {a.warmup})",
                  "results": results}
        with open(a.json, "w") as f:
            json.dump(report, f, indent=2)
    if not all_ok:
        print("CHECK FAILED", file=sys.stderr)
        return rt.ERROR
    return rt.OK


if __name__ == "__main__":
    sys.exit(rt.exit_on_hang(main))
