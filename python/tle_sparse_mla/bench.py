"""Benchmark driver: check and time SparseMLA implementations per SKV.

    python -m tle_sparse_mla.bench [--skv 8192,32768,...] [--check]
        [--json FILE] [--plot FILE.png]

B=1, SQ=4096, H=128, topk=2048. TFLOPS = 2*B*SQ*H*topk*(576+512) / time.
"""

import argparse
import datetime
import json
import math
import sys

import torch

from .inputs import make_inputs
from .reference import sparse_mla_reference

D_QK, D_V = 576, 512

# Tolerances of the anchors (FlashMLA's test).
OUT_ATOL, OUT_RTOL, OUT_COS = 8e-4, 3.01 / 128, 7e-6
STAT_ATOL, STAT_RTOL = 1e-6, 2.01 / 65536


def _triton_impl():
    from .triton_peer import sparse_mla_triton
    return sparse_mla_triton


# Implementations under test: name -> zero-argument loader returning a
# callable f(q, kv, indices, sm_scale) -> (out, max_logits, lse).
# HOOK: the compiled TLE kernel is to be added here later as "tle", loading
# its PTX/cubin through libtle_runtime.so (docs/Runtime.md) via ctypes.
IMPLEMENTATIONS = {
    "triton_naive": _triton_impl,
}


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


def check(fn, q, kv, idx, sm_scale, rows):
    """Runs fn on the whole input and compares the sampled rows with the
    fp32 reference (computed on those rows only)."""
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


def time_ms(fn, warmup, rep):
    import triton.testing
    try:
        return float(triton.testing.do_bench(fn, warmup=warmup, rep=rep,
                                             return_mode="median"))
    except TypeError:  # older Triton: no return_mode
        return float(triton.testing.do_bench(fn, warmup=warmup, rep=rep,
                                             quantiles=[0.5]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skv", default="8192,32768,65536,98304,131072")
    ap.add_argument("--sq", type=int, default=4096)
    ap.add_argument("--heads", type=int, default=128)
    ap.add_argument("--topk", type=int, default=2048)
    ap.add_argument("--impl", default=",".join(IMPLEMENTATIONS))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--check-rows", type=int, default=256)
    ap.add_argument("--warmup", type=int, default=25, help="ms (do_bench)")
    ap.add_argument("--rep", type=int, default=200, help="ms (do_bench)")
    ap.add_argument("--json")
    ap.add_argument("--plot")
    a = ap.parse_args(argv)

    if not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 2
    skvs = [int(x) for x in a.skv.split(",")]
    impls = {n: IMPLEMENTATIONS[n]() for n in a.impl.split(",")}
    sm_scale = 1.0 / math.sqrt(D_QK)
    fl = flops(a.sq, a.heads, a.topk)
    report = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
              "device": torch.cuda.get_device_name(),
              "torch": torch.__version__,
              "shape": {"B": 1, "SQ": a.sq, "H": a.heads, "topk": a.topk,
                        "DQK": D_QK, "DV": D_V},
              "sm_scale": sm_scale, "flops": fl,
              "index_distribution": "uniform distinct causal: token t at "
                                    "SKV-SQ+t draws topk ids from [0, SKV-SQ+t]",
              "results": []}
    all_ok = True
    for skv in skvs:
        q, kv, idx = make_inputs(a.sq, skv, a.heads, a.topk, seed=skv)
        for name, fn in impls.items():
            entry = {"skv": skv, "impl": name}
            if a.check:
                g = torch.Generator(device="cpu").manual_seed(skv)
                rows = torch.randperm(a.sq, generator=g)[:a.check_rows].cuda()
                entry["check_clean"] = check(fn, q, kv, idx, sm_scale, rows)
                # Corrupted variant: 25% invalid ids of every kind, 2% empty
                # rows, non-contiguous q; the empty rows are all checked.
                qb, kvb, idxb = make_inputs(a.sq, skv, a.heads, a.topk,
                                            invalid_frac=0.25, empty_frac=0.02,
                                            noncontiguous_q=True, seed=skv + 1)
                empt = ((idxb[:, 0] < 0) | (idxb[:, 0] >= skv)).all(1).nonzero()[:, 0]
                rows_b = torch.unique(torch.cat([rows, empt]))
                entry["check_invalid"] = check(fn, qb, kvb, idxb, sm_scale, rows_b)
                del qb, kvb, idxb
                all_ok &= entry["check_clean"]["ok"] and entry["check_invalid"]["ok"]
            ms = time_ms(lambda: fn(q, kv, idx, sm_scale), a.warmup, a.rep)
            entry["ms"] = ms
            entry["tflops"] = fl / (ms * 1e-3) / 1e12
            report["results"].append(entry)
            line = f"skv={skv:>6} {name:>14}: {ms:8.3f} ms {entry['tflops']:7.1f} TFLOPS"
            if a.check:
                for key in ("check_clean", "check_invalid"):
                    c = entry[key]
                    line += (f" | {key[6:]} {'OK' if c['ok'] else 'FAIL'}"
                             f" out {c['out']['max_abs']:.2e} cos {c['out']['cos_diff']:.1e}"
                             f" lse {c['lse']['max_abs']:.2e} max {c['max_logits']['max_abs']:.2e}")
            print(line, flush=True)
        del q, kv, idx
        torch.cuda.empty_cache()

    # Table: SKV x implementation, TFLOPS.
    names = list(impls)
    print("\n| SKV | " + " | ".join(names) + " |")
    print("|---:|" + "---:|" * len(names))
    for skv in skvs:
        cells = [f"{e['tflops']:.1f}" for n in names for e in report["results"]
                 if e["skv"] == skv and e["impl"] == n]
        print(f"| {skv} | " + " | ".join(cells) + " |")

    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=2)
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for n in names:
            xs = [e["skv"] for e in report["results"] if e["impl"] == n]
            ys = [e["tflops"] for e in report["results"] if e["impl"] == n]
            ax.plot(xs, ys, marker="o", label=n)
        ax.set_xlabel("SKV")
        ax.set_ylabel("TFLOPS")
        ax.set_title(f"SparseMLA prefill, {report['device']}\n"
                     f"B=1 SQ={a.sq} H={a.heads} topk={a.topk}")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.plot, dpi=120)
    if a.check and not all_ok:
        print("CHECK FAILED", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
