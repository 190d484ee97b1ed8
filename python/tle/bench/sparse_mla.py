# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The SparseMLA benchmark: check and time SparseMLA implementations per
SKV, or measure the CPU cost of one call (--launch-cost).

    python -m tle.bench.sparse_mla [--skv 8192,32768,...] [--impl a,b]
        [--d-qk 576|512] [--tle-kernel [NAME=]K.ptx ...] [--flashmla-peer DIR]
        [--order score|sorted] [--rounds N] [--check] [--json F] [--plot F]
        [--launch-cost [--calls N]] [--sink] [--serving] [--kv-format v32]

B=1, SQ=4096, H=128, topk=2048, d_qk 576 (--d-qk 512: DeepSeek V4).
TFLOPS = 2*B*SQ*H*topk*(d_qk+512) / time.
Every implementation is timed in this process the same way, by tle.bench:
do_bench's median of calls that allocate the outputs and launch on
PyTorch's current stream, in --rounds interleaved rounds, each starting one
place further down the list of implementations (the median of the rounds
is reported). Indices are in score order unless --order sorted.

Ours: "tle_NAME" for each SparseMLA variant bundled in this package (the
kernel alone, tle.sparse_mla.SparseMLA), and "tle.sparse_mla_fwd", the
public call, which runs the fastest variant that takes the shape. A
compiled kernel given by --tle-kernel PATH (or $TLE_SPARSE_MLA_KERNEL, its
.json beside it) is "tle"; --tle-kernel NAME=PATH adds "tle_NAME" (in place
of a bundled variant of that name), and may be repeated. Peers:
"triton_naive", the Triton kernel of the same dataflow as the naive
variant, and "flashmla", FlashMLA's sm90 kernel through a peer extension
built on the GPU machine (bench/peers/README.md says how), found in
--flashmla-peer or $TLE_FLASHMLA_PEER; it is left out with a note when
absent.

--kv-format v32 times DeepSeek V3.2's FP8 KV cache (tle.sparse_mla.kv_cache):
kv is quantized into the cache, and every bf16 implementation runs on the
cache dequantized beforehand (the conversion not timed: FlashMLA's best
case); "tle_fp8" is tle.sparse_mla_fwd on the cache itself, and
"flashmla_dequant" what the engines run, timed together: PyTorch
dequantizes the context's rows (every row the indices may touch, as an
engine's upconversion does) into a bf16 buffer, then FlashMLA. The
references run on the dequantized cache.

--launch-cost measures, instead of TFLOPS, the CPU time of one call of
each implementation at the first SKV (tle.bench.cpu_us: perf_counter over
--calls calls back to back; the median of --rounds interleaved rounds).

--serving times instead the shapes DeepSeek's serving engines run
(SERVING_CASES: V4's d_qk 512 on FlashMLA's MODEL1 cases with attn_sink;
8, 16 and 32 heads of V3.2, which every kernel runs padded to 64 heads,
as the engines pad q), FlashMLA against tle.sparse_mla_fwd and the
kernels --tle-kernel names (each where it takes the shape). TFLOPS count
the useful work, the real heads only; the gather rate is the bytes of KV
rows the CTAs copy (each CTA its token's topk rows of d_qk columns) over
the time.
"""

import argparse
import datetime
import functools
import json
import math
import os
import statistics
import sys
from typing import NamedTuple, Tuple

import torch

from . import cpu_us, do_bench_ms, interleaved
from .. import runtime as rt
from ..sparse_mla import D_QK, D_V, VARIANTS, choose, kv_cache
from ..sparse_mla.inputs import ORDERS, make_inputs
from ..sparse_mla.kernel import SparseMLA, load
from ..sparse_mla.reference import sparse_mla_reference

# The compiled kernel timed as "tle" when --tle-kernel names none.
KERNEL_ENV = "TLE_SPARSE_MLA_KERNEL"
# The public call, timed beside the variants it picks from.
PUBLIC = "tle.sparse_mla_fwd"

# Tolerances of the anchors (FlashMLA's test).
OUT_ATOL, OUT_RTOL, OUT_COS = 8e-4, 3.01 / 128, 7e-6
STAT_ATOL, STAT_RTOL = 1e-6, 2.01 / 65536


def _triton_impl(options):
    from ..sparse_mla.triton_peer import sparse_mla_triton
    return sparse_mla_triton


def _public_impl(options):
    from .. import sparse_mla_fwd
    return sparse_mla_fwd


FLASHMLA_ENV = "TLE_FLASHMLA_PEER"


def _flashmla_impl(options):
    """FlashMLA's own kernel, through the peer extension module
    tle_flashmla_peer (sparse_fwd with flash_mla_sparse_fwd's arguments)."""
    where = getattr(options, "flashmla_peer", None) or os.environ.get(FLASHMLA_ENV)
    if not where:
        raise OSError(f"no FlashMLA peer: --flashmla-peer DIR or ${FLASHMLA_ENV}")
    sys.path.insert(0, where)
    try:
        import tle_flashmla_peer as peer
    finally:
        sys.path.remove(where)

    def flashmla(q, kv, indices, sm_scale, attn_sink=None):
        return peer.sparse_fwd(q, kv, indices, sm_scale, D_V, attn_sink, None)
    return flashmla


def _tle_fp8_impl(options):
    """tle.sparse_mla_fwd reading the V3.2 FP8 cache (--kv-format v32)."""
    from .. import sparse_mla_fwd

    def tle_fp8(q, cache, indices, sm_scale, attn_sink=None, out=None):
        return sparse_mla_fwd(q, cache, indices, sm_scale, attn_sink=attn_sink, out=out,
                              kv_format="v32")
    tle_fp8.kv_format, tle_fp8.takes_outputs = "v32", True
    return tle_fp8


def _flashmla_dequant_impl(options):
    """The engines' FP8 path: the context's rows of the cache dequantized
    into bf16 by PyTorch, then FlashMLA on them."""
    flashmla = _flashmla_impl(options)

    def flashmla_dequant(q, cache, indices, sm_scale, attn_sink=None):
        return flashmla(q, kv_cache.dequantize(cache, "v32"), indices, sm_scale, attn_sink)
    flashmla_dequant.kv_format = "v32"
    return flashmla_dequant


def kv_format_of(fn):
    """The kv an implementation takes: bf16 rows, or the FP8 cache."""
    if isinstance(fn, SparseMLA):
        return fn.variants[0].kv_format
    return getattr(fn, "kv_format", "bf16")


def _tle_kernels(options, environ=os.environ):
    """{implementation name: kernel path} of the compiled kernels named by
    --tle-kernel ([NAME=]PATH, repeatable) or $TLE_SPARSE_MLA_KERNEL."""
    given = getattr(options, "tle_kernel", None) or []
    if isinstance(given, str):
        given = [given]
    if not given and environ.get(KERNEL_ENV):
        given = [environ[KERNEL_ENV]]
    kernels = {}
    for spec in given:
        name, sep, path = spec.partition("=")
        kernels["tle_" + name if sep else "tle"] = path if sep else spec
    return kernels


def _bundled(variants=VARIANTS):
    """{implementation name: loader} of the variants this package holds
    compiled, and the public call when it holds any."""
    loaders = {f"tle_{v.name}": (lambda o, v=v: SparseMLA([v]))
               for v in variants if v.is_bundled() and v.kv_format == "bf16"}
    if loaders:
        loaders[PUBLIC] = _public_impl
    return loaders


# Implementations besides the compiled kernels: name -> loader(options)
# returning a callable f(q, kv, indices, sm_scale) -> (out, max_logits,
# lse). A callable whose `takes_outputs` is true also takes out=(out,
# max_logits, lse), which check() poisons first.
IMPLEMENTATIONS = {
    "triton_naive": _triton_impl,
    "flashmla": _flashmla_impl,
}
# Those of --kv-format v32, which also times the bf16 ones on the
# dequantized cache.
FP8_IMPLEMENTATIONS = {
    "tle_fp8": _tle_fp8_impl,
    "flashmla_dequant": _flashmla_dequant_impl,
}
# The columns every compiled kernel's TFLOPS are divided by, where they ran.
BASELINES = ("flashmla", "triton_naive", "flashmla_dequant")


def flops(s_q, h_q, topk, b=1, d_qk=D_QK):
    return 2 * b * s_q * h_q * topk * (d_qk + D_V)


def cos_diff(x, y):
    """1 - cosine-like similarity as FlashMLA's test defines it:
    1 - 2<x,y> / (<x,x> + <y,y>)."""
    x, y = x.double(), y.double()
    den = (x * x + y * y).sum()
    if den == 0:
        return 0.0
    return float(1 - 2 * (x * y).sum() / den)


def _compare(name, got, ref, atol, rtol):
    """Max abs error over finite entries, whether all pass |d| <= atol +
    rtol*|ref|, and whether +-inf / NaN positions match exactly."""
    got, ref = got.float(), ref.float()
    same_special = bool(torch.equal(torch.isnan(got), torch.isnan(ref)) and
                        torch.equal(torch.isposinf(got), torch.isposinf(ref)) and
                        torch.equal(torch.isneginf(got), torch.isneginf(ref)))
    fin = torch.isfinite(ref) & torch.isfinite(got)
    d = (got[fin] - ref[fin]).abs()
    ok_tol = bool((d <= atol + rtol * ref[fin].abs()).all())
    max_abs = float(d.max()) if d.numel() else 0.0
    rel = d / ref[fin].abs().clamp_min(1e-30)
    max_rel = float(rel.max()) if d.numel() else 0.0
    return {"name": name, "max_abs": max_abs, "max_rel": max_rel,
            "within_tol": ok_tol, "special_match": same_special,
            "ok": ok_tol and same_special}


def poisoned_outputs(q, d_v=D_V):
    """(out, max_logits, lse) for q's rows, all NaN: the reference has no
    NaN, so an entry a kernel leaves unwritten fails the check (torch.empty
    could hand back memory holding another implementation's right
    answer)."""
    lead = tuple(q.shape[:-1])
    out = torch.full(lead + (d_v,), float("nan"), dtype=torch.bfloat16, device=q.device)
    stats = torch.full(lead, float("nan"), dtype=torch.float32, device=q.device)
    return out, stats, stats.clone()


def check(fn, q, kv, idx, sm_scale, rows, attn_sink=None, ref_kv=None):
    """Runs fn on the whole input and compares the sampled rows with the
    fp32 reference (computed on those rows only), on `ref_kv` if given (the
    dequantized rows of an FP8 cache kv)."""
    given = {} if attn_sink is None else {"attn_sink": attn_sink}
    if getattr(fn, "takes_outputs", False):
        given["out"] = poisoned_outputs(q)
    out, maxl, lse = fn(q, kv, idx, sm_scale, **given)
    torch.cuda.synchronize()
    r_out, r_maxl, r_lse = sparse_mla_reference(q[rows], kv if ref_kv is None else ref_kv,
                                                idx[rows], sm_scale, attn_sink=attn_sink)
    res = {
        "out": _compare("out", out[rows], r_out, OUT_ATOL, OUT_RTOL),
        "lse": _compare("lse", lse[rows], r_lse, STAT_ATOL, STAT_RTOL),
        "max_logits": _compare("max_logits", maxl[rows], r_maxl, STAT_ATOL, STAT_RTOL),
    }
    cd = cos_diff(out[rows].float(), r_out.float())
    res["out"]["cos_diff"] = cd
    res["out"]["ok"] = res["out"]["ok"] and cd < OUT_COS
    res["rows_checked"] = int(rows.numel())
    res["empty_rows_checked"] = int(torch.isinf(r_lse[:, 0]).sum())
    res["ok"] = all(res[k]["ok"] for k in ("out", "lse", "max_logits"))
    return res


def fp8_inputs(skv, q, kv, idx):
    """(q, the dequantized cache, idx, the V3.2 FP8 cache) of make_inputs'
    output: kv quantized into skv / 64 blocks with FlashMLA's block stride."""
    cache = kv_cache.quantize(kv.view(skv // kv_cache.BLOCK, kv_cache.BLOCK, 1, -1), "v32")
    return q, kv_cache.dequantize(cache, "v32"), idx, cache


def check_inputs(fn, options, skv, q, kv, idx, sm_scale, attn_sink=None, cache=None):
    """The checks of one implementation at one SKV: the timed input (sampled
    rows) and a corrupted one (25% invalid ids of every kind, 2% empty rows,
    non-contiguous q; every empty row checked), with `attn_sink` if given.
    With `cache` (kv its dequantized rows), an implementation of the FP8
    cache gets the cache."""
    g = torch.Generator(device="cpu").manual_seed(skv)
    rows = torch.randperm(options.sq, generator=g)[:options.check_rows].cuda()
    fp8 = kv_format_of(fn) != "bf16"
    clean = check(fn, q, cache if fp8 else kv, idx, sm_scale, rows, attn_sink, kv)
    qb, kvb, idxb = make_inputs(options.sq, skv, options.heads, options.topk,
                                d_qk=options.d_qk, invalid_frac=0.25, empty_frac=0.02,
                                noncontiguous_q=True, seed=skv + 1,
                                order=options.order)
    cacheb = None
    if cache is not None:
        qb, kvb, idxb, cacheb = fp8_inputs(skv, qb, kvb, idxb)
    empty = ((idxb[:, 0] < 0) | (idxb[:, 0] >= skv)).all(1).nonzero()[:, 0]
    rows_b = torch.unique(torch.cat([rows, empty]))
    return {"check_clean": clean,
            "check_invalid": check(fn, qb, cacheb if fp8 else kvb, idxb, sm_scale, rows_b,
                                   attn_sink, kvb)}


def result_line(entry, checked):
    """One implementation at one SKV: its time and, if checked, the checks."""
    line = (f"skv={entry['skv']:>6} {entry['impl']:>14}: {entry['ms']:8.3f} ms "
            f"{entry['tflops']:7.1f} TFLOPS")
    if checked:
        for key in ("check_clean", "check_invalid"):
            c = entry[key]
            line += (f" | {key[6:]} {'OK' if c['ok'] else 'FAIL'}"
                     f" out {c['out']['max_abs']:.2e} cos {c['out']['cos_diff']:.1e}"
                     f" lse {c['lse']['max_abs']:.2e} max {c['max_logits']['max_abs']:.2e}")
    return line


def select_implementations(impl, options, environ=os.environ, variants=VARIANTS):
    """{name: loader} to run and notes on what was left out: `impl`
    (comma-separated) when given, else every implementation that is
    available (the bundled variants, compiled kernels named, the FlashMLA
    peer present)."""
    fp8 = getattr(options, "kv_format", "bf16") == "v32"
    loaders = {**(FP8_IMPLEMENTATIONS if fp8 else {}), **IMPLEMENTATIONS}
    loaders.update(_bundled(variants))
    for name, path in _tle_kernels(options, environ).items():
        loaders[name] = lambda o, path=path: load(path)
    if impl:
        names = impl.split(",")
        unknown = [n for n in names if n not in loaders]
        if unknown:
            raise ValueError(f"unknown implementation(s) {', '.join(unknown)}; "
                             f"known: {', '.join(loaders)}")
        return {n: loaders[n] for n in names}, []
    notes = []
    if not any(n.startswith("tle") for n in loaders):
        notes.append(f"note: no compiled kernel: none bundled (install the wheel "
                     f"that ninja -C build tle-wheel builds), none named "
                     f"(--tle-kernel or ${KERNEL_ENV})")
    if not (getattr(options, "flashmla_peer", None) or environ.get(FLASHMLA_ENV)):
        for name in ("flashmla", "flashmla_dequant"):
            if loaders.pop(name, None):
                notes.append(f"note: '{name}' left out: no peer (--flashmla-peer or "
                             f"${FLASHMLA_ENV})")
    return loaders, notes


def kernel_report(fn, q, kv, indices):
    """What a call of `fn` runs on, for the JSON report: the variant and its
    kernel for a SparseMLA, the variant it picks for the public call."""
    if isinstance(fn, SparseMLA):
        variant = fn.variant_for(q, kv, indices)
        kernel = fn.kernel(variant, q.device.index)
        return {"variant": variant.name, "file": variant.kernel_file(),
                "kernel": kernel.name, "block": list(kernel.block),
                "shared_memory": kernel.shared_memory}
    return {"variant": SparseMLA().variant_for(q, kv, indices).name}


def ratios(results, names):
    """{(impl, baseline): {skv: impl TFLOPS / baseline TFLOPS}} for every
    compiled kernel against every baseline that ran."""
    by = {(e["skv"], e["impl"]): e["tflops"] for e in results}
    out = {}
    for impl in (n for n in names if n.startswith("tle")):
        for base in (b for b in BASELINES if b in names):
            out[(impl, base)] = {skv: t / by[(skv, base)] for (skv, n), t in by.items()
                                 if n == impl and (skv, base) in by}
    return out


def print_table(results, names, skvs):
    """SKV rows, implementation columns (TFLOPS), and each compiled kernel
    over each baseline."""
    ratio = ratios(results, names)
    columns = names + [f"{i}/{b}" for i, b in ratio]
    print("\n| SKV | " + " | ".join(columns) + " |")
    print("|---:|" + "---:|" * len(columns))
    by = {(e["skv"], e["impl"]): e["tflops"] for e in results}
    for skv in skvs:
        cells = [f"{by[(skv, n)]:.1f}" if (skv, n) in by else "-" for n in names]
        cells += [f"{r[skv]:.2f}" if skv in r else "-" for r in ratio.values()]
        print(f"| {skv} | " + " | ".join(cells) + " |")


def plot(results, names, path, title):
    """TFLOPS against SKV, one line per implementation; False (with a
    message) when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"matplotlib is not installed: no plot written to {path}",
              file=sys.stderr)
        return False
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for n in names:
        xs = [e["skv"] for e in results if e["impl"] == n]
        ys = [e["tflops"] for e in results if e["impl"] == n]
        ax.plot(xs, ys, marker="o", label=n)
    ax.set_xlabel("SKV")
    ax.set_ylabel("TFLOPS")
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def launch_cost(impls, inputs, sm_scale, calls, rounds):
    """{name: [microseconds of CPU time per call, each round]} of every
    implementation called on `inputs`, in interleaved rounds."""
    q, kv, idx = inputs
    functions = {name: functools.partial(fn, q, kv, idx, sm_scale)
                 for name, fn in impls.items()}
    return interleaved(functions, lambda f: cpu_us(f, calls), rounds)


def print_launch_cost(rounds):
    print("\n| implementation | CPU us per call (median) | min |")
    print("|---|---:|---:|")
    for name, times in rounds.items():
        print(f"| {name} | {statistics.median(times):.1f} | {min(times):.1f} |")


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skv", default="8192,32768,65536,98304,131072")
    ap.add_argument("--sq", type=int, default=4096)
    ap.add_argument("--heads", type=int, default=128)
    ap.add_argument("--topk", type=int, default=2048)
    ap.add_argument("--impl", help="comma-separated, of: "
                    + ", ".join(IMPLEMENTATIONS) + f", tle[_NAME], {PUBLIC} "
                    "(default: all that are available)")
    ap.add_argument("--tle-kernel", action="append",
                    help="[NAME=]PATH of a compiled SparseMLA kernel (.ptx or "
                    ".cubin, its .json beside it), timed as tle or tle_NAME; "
                    f"repeatable; default ${KERNEL_ENV}")
    ap.add_argument("--flashmla-peer", help="folder of the FlashMLA peer "
                    f"extension; default ${FLASHMLA_ENV}")
    ap.add_argument("--order", choices=ORDERS, default="score",
                    help="index order within a row (default: score)")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--check-rows", type=int, default=256)
    ap.add_argument("--warmup", type=int, default=25, help="ms (do_bench)")
    ap.add_argument("--rep", type=int, default=200, help="ms (do_bench)")
    ap.add_argument("--rounds", type=int, default=4,
                    help="interleaved rounds; the median is reported")
    ap.add_argument("--launch-cost", action="store_true",
                    help="measure the CPU time of one call instead of TFLOPS")
    ap.add_argument("--calls", type=int, default=100,
                    help="calls per round of --launch-cost")
    ap.add_argument("--d-qk", type=int, choices=(576, 512), default=D_QK,
                    help="q and kv columns: 576 (V3.2) or 512 (V4)")
    ap.add_argument("--sink", action="store_true",
                    help="pass seeded finite attn_sink values to every implementation")
    ap.add_argument("--serving", action="store_true",
                    help="time the serving shapes (SERVING_CASES) instead")
    ap.add_argument("--kv-format", choices=("bf16", "v32"), default="bf16",
                    help="v32: time the FP8 KV cache (see above)")
    ap.add_argument("--json")
    ap.add_argument("--plot")
    return ap.parse_args(argv)


def main(argv=None):
    a = parse_args(argv)
    if not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return rt.NO_DEVICE
    skvs = [int(x) for x in a.skv.split(",")]
    try:
        loaders, notes = select_implementations(a.impl, a)
        if a.serving and not a.impl:
            loaders = {n: f for n, f in loaders.items()
                       if n in SERVING_PEERS or n in _tle_kernels(a)}
        for note in notes:
            print(note, file=sys.stderr)
        impls = {n: load_impl(a) for n, load_impl in loaders.items()}
        if not a.serving:
            for name in [n for n, f in impls.items()
                         if not takes(f, a.heads, a.topk, a.d_qk)]:
                print(f"note: '{name}' left out: it does not take {a.heads} heads, "
                      f"topk {a.topk} and d_qk {a.d_qk}", file=sys.stderr)
                del impls[name]
    except (ValueError, OSError, ImportError) as e:
        print(f"error: {e}", file=sys.stderr)
        return rt.ERROR
    sm_scale = 1.0 / math.sqrt(a.d_qk)
    fl = flops(a.sq, a.heads, a.topk, d_qk=a.d_qk)
    report = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
              "device": torch.cuda.get_device_name(),
              "torch": torch.__version__,
              "command": " ".join(sys.argv),
              "shape": {"B": 1, "SQ": a.sq, "H": a.heads, "topk": a.topk,
                        "DQK": a.d_qk, "DV": D_V, **({"attn_sink": True} if a.sink else {})},
              "sm_scale": sm_scale, "flops": fl,
              "index_distribution": f"distinct causal, {a.order} order: token t "
                                    "at SKV-SQ+t draws topk ids from [0, SKV-SQ+t]",
              "results": []}
    if a.serving:
        del report["shape"], report["sm_scale"], report["flops"]
        report["timing"] = (f"tle.bench: triton.testing.do_bench median, warmup "
                            f"{a.warmup} ms, rep {a.rep} ms, median of {a.rounds} "
                            f"interleaved rounds; each call allocates its outputs "
                            f"and, for a padded case, copies q into a zeroed "
                            f"workspace of the padded heads")
        ok = run_serving(impls, a, report)
        if a.json:
            write_json(report, a.json)
        if not ok:
            print("CHECK FAILED", file=sys.stderr)
            return rt.ERROR
        return rt.OK
    if a.launch_cost:
        inputs = make_inputs(a.sq, skvs[0], a.heads, a.topk, d_qk=a.d_qk, seed=skvs[0],
                             order=a.order)
        rounds = launch_cost(impls, inputs, sm_scale, a.calls, a.rounds)
        report["timing"] = (f"tle.bench.cpu_us: perf_counter over {a.calls} calls "
                            f"back to back at SKV {skvs[0]}, median of {a.rounds} "
                            f"interleaved rounds")
        report["launch_cost_us"] = rounds
        print_launch_cost(rounds)
    else:
        report["timing"] = (f"tle.bench: triton.testing.do_bench median, warmup "
                            f"{a.warmup} ms, rep {a.rep} ms, median of {a.rounds} "
                            f"interleaved rounds; each call allocates its outputs")
        if not run_tflops(impls, a, skvs, sm_scale, report):
            if a.json:
                write_json(report, a.json)
            print("CHECK FAILED", file=sys.stderr)
            return rt.ERROR
    if a.json:
        write_json(report, a.json)
    return rt.OK


def write_json(report, path):
    with open(path, "w") as f:
        json.dump(report, f, indent=2)


def run_tflops(impls, a, skvs, sm_scale, report):
    """Times (and with --check, checks) every implementation at every SKV
    into `report`, prints the table and draws the plot; whether every check
    passed."""
    names = list(impls)
    fl = report["flops"]
    all_ok = True
    for skv in skvs:
        q, kv, idx = make_inputs(a.sq, skv, a.heads, a.topk, d_qk=a.d_qk, seed=skv,
                                 order=a.order)
        cache = None
        if getattr(a, "kv_format", "bf16") == "v32":
            q, kv, idx, cache = fp8_inputs(skv, q, kv, idx)
        sink = seeded_sinks(a.heads) if getattr(a, "sink", False) else None
        given = {} if sink is None else {"attn_sink": sink}
        if skv == skvs[0]:
            report["tle_kernels"] = {n: kernel_report(f, q, kv, idx)
                                     for n, f in impls.items()
                                     if n.startswith("tle") and kv_format_of(f) == "bf16"}
        entries = {name: {"skv": skv, "impl": name} for name in impls}
        if a.check:
            for name, fn in impls.items():
                entries[name].update(check_inputs(fn, a, skv, q, kv, idx, sm_scale,
                                                  sink, cache))
                all_ok &= entries[name]["check_clean"]["ok"]
                all_ok &= entries[name]["check_invalid"]["ok"]
        calls = {name: functools.partial(
                     fn, q, kv if kv_format_of(fn) == "bf16" else cache, idx, sm_scale,
                     **given)
                 for name, fn in impls.items()}
        rounds = interleaved(calls, lambda f: do_bench_ms(f, a.warmup, a.rep), a.rounds)
        for name, entry in entries.items():
            entry["rounds_ms"] = rounds[name]
            entry["ms"] = statistics.median(rounds[name])
            entry["tflops"] = fl / (entry["ms"] * 1e-3) / 1e12
            report["results"].append(entry)
            print(result_line(entry, a.check), flush=True)
        del q, kv, idx, cache
        torch.cuda.empty_cache()

    print_table(report["results"], names, skvs)
    report["ratios"] = {f"{i}/{b}": {str(k): v for k, v in r.items()}
                        for (i, b), r in ratios(report["results"], names).items()}
    if a.plot:
        plot(report["results"], names, a.plot,
             f"SparseMLA prefill, {report['device']}, {a.order}-order ids\n"
             f"B=1 SQ={a.sq} H={a.heads} topk={a.topk}")
    return not a.check or all_ok



class ServingCase(NamedTuple):
    """A serving shape: `heads` real heads, run as `run_heads` (q padded
    with zero heads where the kernels take no fewer), at each of `skvs`."""
    name: str
    d_qk: int
    heads: int
    run_heads: int
    topk: int
    skvs: Tuple[int, ...]
    attn_sink: bool


# The shapes DeepSeek's serving engines run on Hopper (SERVING.md): V4's
# d_qk 512 on FlashMLA's own MODEL1 performance cases (with attn_sink), and
# V3.2 at tensor parallelism 16, 8 and 4 over 128 heads.
SERVING_CASES = (
    ServingCase("V4 h64 topk512", 512, 64, 64, 512, (8192, 32768, 49152, 65536), True),
    ServingCase("V4 h128 topk1024", 512, 128, 128, 1024, (8192, 32768, 49152, 65536),
                True),
    ServingCase("V3.2 h32 topk2048", 576, 32, 64, 2048, (8192, 65536, 131072), False),
    ServingCase("V3.2 h16 topk2048", 576, 16, 64, 2048, (8192, 65536, 131072), False),
    ServingCase("V3.2 h8 topk2048", 576, 8, 64, 2048, (8192, 65536, 131072), False),
)
# What --serving times by default, beside the kernels --tle-kernel names.
SERVING_PEERS = ("flashmla", PUBLIC)


def padded(fn, q, attn_sink, run_heads):
    """`fn` as an engine calls it with fewer heads than it takes: each
    call copies q into a zeroed workspace of `run_heads` heads (sinks of
    the extra heads -inf) and returns views of the real heads' outputs."""
    heads = q.shape[1]
    if heads == run_heads:
        return fn
    work = q.new_zeros(q.shape[0], run_heads, q.shape[2])
    sink = None
    if attn_sink is not None:
        sink = torch.full((run_heads,), float("-inf"), device=q.device)
        sink[:heads] = attn_sink

    # attn_sink: the real heads' sinks, those the wrapper was made with.
    def call(q, kv, indices, sm_scale, attn_sink=None):
        work[:, :heads].copy_(q)
        given = {} if sink is None else {"attn_sink": sink}
        return tuple(t[:, :heads] for t in fn(work, kv, indices, sm_scale, **given))
    return call


def takes(fn, heads, topk, d_qk):
    """Whether `fn` runs the shape: a compiled kernel (a bundled variant,
    one named by path) only its own d_qk and head counts; the peers and
    the public call all."""
    if not isinstance(fn, SparseMLA):
        return True
    try:
        choose(heads, topk, d_qk, fn.variants)
    except ValueError:
        return False
    return True


def serving_inputs(case, a, skv):
    """The inputs of a case at `skv`, and the sinks (seeded, finite)."""
    q, kv, idx = make_inputs(a.sq, skv, case.heads, case.topk, d_qk=case.d_qk,
                             seed=skv + case.heads, order=a.order)
    return q, kv, idx, seeded_sinks(case.heads) if case.attn_sink else None


def seeded_sinks(heads):
    """attn_sink for `heads` heads: finite, seeded by the head count."""
    g = torch.Generator(device="cuda").manual_seed(heads)
    return torch.randn(heads, device="cuda", generator=g)


def run_serving(impls, a, report):
    """Times (and with --check, checks) every implementation on every
    serving case into `report` and prints the table; whether every check
    passed."""
    all_ok = True
    for case in SERVING_CASES:
        sm_scale = 1.0 / math.sqrt(case.d_qk)
        for skv in case.skvs:
            q, kv, idx, sink = serving_inputs(case, a, skv)
            calls, entries = {}, {}
            for name, fn in impls.items():
                if not takes(fn, case.run_heads, case.topk, case.d_qk):
                    continue
                run = padded(fn, q, sink, case.run_heads)
                given = {} if sink is None else {"attn_sink": sink}
                calls[name] = functools.partial(run, q, kv, idx, sm_scale, **given)
                entries[name] = {"case": case.name, "d_qk": case.d_qk,
                                 "heads": case.heads, "run_heads": case.run_heads,
                                 "topk": case.topk, "attn_sink": case.attn_sink,
                                 "skv": skv, "impl": name}
                if a.check:
                    rows = torch.randperm(a.sq, device="cuda")[:a.check_rows]
                    entries[name]["check"] = check(run, q, kv, idx, sm_scale, rows, sink)
                    all_ok &= entries[name]["check"]["ok"]
            rounds = interleaved(calls, lambda f: do_bench_ms(f, a.warmup, a.rep),
                                 a.rounds)
            useful = flops(a.sq, case.heads, case.topk, d_qk=case.d_qk)
            gathered = a.sq * -(-case.run_heads // 64) * case.topk * case.d_qk * 2
            for name, entry in entries.items():
                ms = statistics.median(rounds[name])
                entry.update(rounds_ms=rounds[name], ms=ms,
                             tflops=useful / (ms * 1e-3) / 1e12,
                             gather_tbps=gathered / (ms * 1e-3) / 1e12)
                report["results"].append(entry)
                line = (f"{case.name:>18} skv={skv:>6} {name:>18}: {ms:8.3f} ms "
                        f"{entry['tflops']:7.1f} TFLOPS {entry['gather_tbps']:5.2f} TB/s")
                if a.check:
                    line += f" | check {'OK' if entry['check']['ok'] else 'FAIL'}"
                print(line, flush=True)
            del q, kv, idx, calls
            torch.cuda.empty_cache()
    print_serving_table(report["results"], list(impls))
    return not a.check or all_ok


def print_serving_table(results, names):
    """A row per case and SKV: each implementation's useful TFLOPS and
    gather rate, and each compiled kernel over FlashMLA."""
    by = {(e["case"], e["skv"], e["impl"]): e for e in results}
    names = [n for n in names if any(k[2] == n for k in by)]
    ours = [n for n in names if n.startswith("tle") and "flashmla" in names]
    print("\n| case | SKV | " + " | ".join(f"{n} TFLOPS (TB/s)" for n in names)
          + "".join(f" | {n}/flashmla" for n in ours) + " |")
    print("|---|---:|" + "---:|" * (len(names) + len(ours)))
    for case, skv in dict.fromkeys((e["case"], e["skv"]) for e in results):
        got = {n: by[(case, skv, n)] for n in names if (case, skv, n) in by}
        cells = [f"{got[n]['tflops']:.1f} ({got[n]['gather_tbps']:.2f})" if n in got
                 else "-" for n in names]
        cells += [f"{got[n]['tflops'] / got['flashmla']['tflops']:.2f}"
                  if n in got and "flashmla" in got else "-" for n in ours]
        print(f"| {case} | {skv} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(rt.exit_on_hang(main))
