"""The SparseMLA benchmark: check and time SparseMLA implementations per
SKV, or measure the CPU cost of one call (--launch-cost).

    python -m tle.bench.sparse_mla [--skv 8192,32768,...] [--impl a,b]
        [--tle-kernel [NAME=]K.ptx ...] [--flashmla-peer DIR]
        [--order score|sorted] [--rounds N] [--check] [--json F] [--plot F]
        [--launch-cost [--calls N]]

B=1, SQ=4096, H=128, topk=2048. TFLOPS = 2*B*SQ*H*topk*(576+512) / time.
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

--launch-cost measures, instead of TFLOPS, the CPU time of one call of
each implementation at the first SKV (tle.bench.cpu_us: perf_counter over
--calls calls back to back; the median of --rounds interleaved rounds).
"""

import argparse
import datetime
import functools
import json
import math
import os
import statistics
import sys

import torch

from . import cpu_us, do_bench_ms, interleaved
from .. import runtime as rt
from ..sparse_mla import D_QK, D_V, VARIANTS
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

    def flashmla(q, kv, indices, sm_scale):
        return peer.sparse_fwd(q, kv, indices, sm_scale, D_V, None, None)
    return flashmla


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
               for v in variants if v.is_bundled()}
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
# The columns every compiled kernel's TFLOPS are divided by, where they ran.
BASELINES = ("flashmla", "triton_naive")


def flops(s_q, h_q, topk, b=1):
    return 2 * b * s_q * h_q * topk * (D_QK + D_V)


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


def check(fn, q, kv, idx, sm_scale, rows):
    """Runs fn on the whole input and compares the sampled rows with the
    fp32 reference (computed on those rows only)."""
    if getattr(fn, "takes_outputs", False):
        out, maxl, lse = fn(q, kv, idx, sm_scale, out=poisoned_outputs(q))
    else:
        out, maxl, lse = fn(q, kv, idx, sm_scale)
    torch.cuda.synchronize()
    r_out, r_maxl, r_lse = sparse_mla_reference(q[rows], kv, idx[rows], sm_scale)
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


def check_inputs(fn, options, skv, q, kv, idx, sm_scale):
    """The checks of one implementation at one SKV: the timed input (sampled
    rows) and a corrupted one (25% invalid ids of every kind, 2% empty rows,
    non-contiguous q; every empty row checked)."""
    g = torch.Generator(device="cpu").manual_seed(skv)
    rows = torch.randperm(options.sq, generator=g)[:options.check_rows].cuda()
    clean = check(fn, q, kv, idx, sm_scale, rows)
    qb, kvb, idxb = make_inputs(options.sq, skv, options.heads, options.topk,
                                invalid_frac=0.25, empty_frac=0.02,
                                noncontiguous_q=True, seed=skv + 1,
                                order=options.order)
    empty = ((idxb[:, 0] < 0) | (idxb[:, 0] >= skv)).all(1).nonzero()[:, 0]
    rows_b = torch.unique(torch.cat([rows, empty]))
    return {"check_clean": clean,
            "check_invalid": check(fn, qb, kvb, idxb, sm_scale, rows_b)}


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
    loaders = dict(IMPLEMENTATIONS)
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
        loaders.pop("flashmla")
        notes.append(f"note: 'flashmla' left out: no peer (--flashmla-peer or "
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
        for note in notes:
            print(note, file=sys.stderr)
        impls = {n: load_impl(a) for n, load_impl in loaders.items()}
    except (ValueError, OSError, ImportError) as e:
        print(f"error: {e}", file=sys.stderr)
        return rt.ERROR
    sm_scale = 1.0 / math.sqrt(D_QK)
    fl = flops(a.sq, a.heads, a.topk)
    report = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
              "device": torch.cuda.get_device_name(),
              "torch": torch.__version__,
              "command": " ".join(sys.argv),
              "shape": {"B": 1, "SQ": a.sq, "H": a.heads, "topk": a.topk,
                        "DQK": D_QK, "DV": D_V},
              "sm_scale": sm_scale, "flops": fl,
              "index_distribution": f"distinct causal, {a.order} order: token t "
                                    "at SKV-SQ+t draws topk ids from [0, SKV-SQ+t]",
              "results": []}
    if a.launch_cost:
        inputs = make_inputs(a.sq, skvs[0], a.heads, a.topk, seed=skvs[0], order=a.order)
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
        q, kv, idx = make_inputs(a.sq, skv, a.heads, a.topk, seed=skv, order=a.order)
        if skv == skvs[0]:
            report["tle_kernels"] = {n: kernel_report(f, q, kv, idx)
                                     for n, f in impls.items() if n.startswith("tle")}
        entries = {name: {"skv": skv, "impl": name} for name in impls}
        if a.check:
            for name, fn in impls.items():
                entries[name].update(check_inputs(fn, a, skv, q, kv, idx, sm_scale))
                all_ok &= entries[name]["check_clean"]["ok"]
                all_ok &= entries[name]["check_invalid"]["ok"]
        calls = {name: functools.partial(fn, q, kv, idx, sm_scale)
                 for name, fn in impls.items()}
        rounds = interleaved(calls, lambda f: do_bench_ms(f, a.warmup, a.rep), a.rounds)
        for name, entry in entries.items():
            entry["rounds_ms"] = rounds[name]
            entry["ms"] = statistics.median(rounds[name])
            entry["tflops"] = fl / (entry["ms"] * 1e-3) / 1e12
            report["results"].append(entry)
            print(result_line(entry, a.check), flush=True)
        del q, kv, idx
        torch.cuda.empty_cache()

    print_table(report["results"], names, skvs)
    report["ratios"] = {f"{i}/{b}": {str(k): v for k, v in r.items()}
                        for (i, b), r in ratios(report["results"], names).items()}
    if a.plot:
        plot(report["results"], names, a.plot,
             f"SparseMLA prefill, {report['device']}, {a.order}-order ids\n"
             f"B=1 SQ={a.sq} H={a.heads} topk={a.topk}")
    return not a.check or all_ok


if __name__ == "__main__":
    sys.exit(rt.exit_on_hang(main))
