"""Check and time a compiled TLE GEMM kernel against torch.matmul (cuBLAS).

    python -m tle_gemm.bench KERNEL.ptx [--metadata KERNEL.json]
        [--sizes 4096,8192] [--bn 256] [--json FILE]

For each size S: A [S, S] and B [S, S] bf16, uniform in [-1, 1), on the
GPU; the kernel writes C = A @ B (bf16, fp32 accumulation) into a C poisoned
with NaN, which must match torch.matmul(A, B) within tle_gemm.tolerance.
Then torch.matmul is timed with triton.testing.do_bench (median; do_bench
clears the L2 cache before each run) and the kernel with the runtime's CUDA
events on its own stream (median of --reps launches, one after the other,
so inputs may stay in L2 from the previous launch). TFLOPS = 2 S^3 / time;
the ratio is tle's TFLOPS over cuBLAS's.

The kernel takes (tensor_map over A, tensor_map over B, C, K) as tle-run's
gemm problem does; bm is the rows of A's box in its signature, bn (the
columns of C per CTA) is --bn. Exit codes: 0 ok, 1 a check failed, 2 no
CUDA device.
"""

import argparse
import datetime
import json
import sys

import torch

import tle_runtime as rt
from tle_sparse_mla.bench import time_ms

from . import grid, tflops, tile_rows, tolerance


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


def run_size(kernel, size, bm, bn, options):
    m = n = k = size
    a, b = make_inputs(size, options.seed + size)
    c = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
    c.view(torch.int16).fill_(-1)  # 0xFFFF: NaN, which no correct kernel writes
    args = rt.Args([rt.tensor_map(a), rt.tensor_map(b), c, k])
    cta_grid = grid(m, n, bm, bn)
    kernel.launch(cta_grid, args)
    entry = {"size": size, "grid": list(cta_grid),
             "check": compare(c, reference(a, b), k)}
    out = torch.empty_like(c)
    matmul = lambda: torch.matmul(a, b, out=out)  # noqa: E731
    entry["cublas_ms"] = time_ms(matmul, options.torch_warmup, options.torch_rep)
    # The same method as the runtime's timing of our kernel, so that the
    # ratio does not depend on whether L2 was flushed between runs.
    entry["cublas_events_ms"] = time_events_ms(matmul, options.warmup,
                                               options.reps)
    entry["tle_ms"], entry["tle_min_ms"], entry["tle_max_ms"] = kernel.time(
        cta_grid, args, options.warmup, options.reps)
    for name in ("cublas", "cublas_events", "tle"):
        entry[name + "_tflops"] = tflops(m, n, k, entry[name + "_ms"])
    entry["tle_over_cublas"] = entry["tle_tflops"] / entry["cublas_tflops"]
    entry["tle_over_cublas_events"] = (entry["tle_tflops"] /
                                       entry["cublas_events_tflops"])
    return entry


def time_events_ms(fn, warmup, reps):
    """Median of `reps` launches of `fn`, one after the other, each between
    two CUDA events on the current stream, after `warmup` untimed ones."""
    for _ in range(warmup):
        fn()
    pairs = [(torch.cuda.Event(enable_timing=True),
              torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for start, end in pairs:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    times = sorted(start.elapsed_time(end) for start, end in pairs)
    return times[len(times) // 2]


def print_table(results):
    print("\n| size | cuBLAS ms (do_bench) | cuBLAS TFLOPS | cuBLAS ms (events) "
          "| cuBLAS TFLOPS | tle ms | tle TFLOPS | tle/cuBLAS (do_bench) "
          "| tle/cuBLAS (events) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for e in results:
        print(f"| {e['size']} | {e['cublas_ms']:.3f} | {e['cublas_tflops']:.1f} "
              f"| {e['cublas_events_ms']:.3f} | {e['cublas_events_tflops']:.1f} "
              f"| {e['tle_ms']:.3f} | {e['tle_tflops']:.1f} "
              f"| {e['tle_over_cublas']:.2f} | {e['tle_over_cublas_events']:.2f} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernel_file", help="the compiled kernel (.ptx or .cubin)")
    ap.add_argument("--metadata", help="its metadata (default: KERNEL.json)")
    ap.add_argument("--kernel", help="the kernel's name, if the module has several")
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--bn", type=int, default=256, help="columns of C per CTA")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--warmup", type=int, default=10, help="tle launches")
    ap.add_argument("--reps", type=int, default=100, help="tle launches")
    ap.add_argument("--torch-warmup", type=int, default=25, help="ms (do_bench)")
    ap.add_argument("--torch-rep", type=int, default=100, help="ms (do_bench)")
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
                  "kernel": kernel.name, "kernel_file": a.kernel_file,
                  "bm": bm, "bn": a.bn, "seed": a.seed,
                  "tle_timing": f"median of {a.reps} launches after {a.warmup}",
                  "cublas_timing": f"do_bench median, warmup {a.torch_warmup} ms, "
                                   f"rep {a.torch_rep} ms",
                  "results": results}
        with open(a.json, "w") as f:
            json.dump(report, f, indent=2)
    if not all_ok:
        print("CHECK FAILED", file=sys.stderr)
        return rt.ERROR
    return rt.OK


if __name__ == "__main__":
    sys.exit(main())
