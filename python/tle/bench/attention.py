# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The attention forward benchmark: TLE's kernels beside cuDNN's SDPA and
PyTorch's flash backend, in one process.

    python -m tle.bench.attention [--head-dims 128,64] [--causal both|yes|no]
        [--shapes 16x16,4x16] [--seqlens 2048,4096,8192,16384] [--group G]
        [--impl a,b] [--tle-kernel NAME=PATH ...] [--rounds N] [--check]
        [--json F]

For each head dim, mask, B x H and S: q, k, v [B, S, H, D] bf16 (k and v
with H / G heads), uniform normal. TFLOPS = 4 B H S^2 D / time, halved for
causal. Every implementation is timed the same way, by tle.bench:
do_bench's median of calls that allocate their outputs, in --rounds
interleaved rounds, each starting one place further down the list of
implementations (the median of the rounds is reported).

Ours: "tle_NAME" for the bundled variant of the head dim and mask (the
kernel alone, tle.attention.kernel.Attention), "tle.attention_fwd", the
public call, and "tle_NAME" for each --tle-kernel NAME=PATH (a compiled
kernel of the variant NAME's kind, in place of the bundled one). Peers:
"cudnn" and "flash", torch.nn.functional.scaled_dot_product_attention
under torch.nn.attention.sdpa_kernel with SDPBackend.CUDNN_ATTENTION and
FLASH_ATTENTION, on the [B, H, S, D] views of the same tensors (the
layout both read natively, no copy), and "fa3", FlashAttention-3's own
kernel where its hopper/ build is importable ($TLE_FA3_PEER names its
folder; kernels/attention/README.md says how to build it); a peer this
torch or GPU lacks is left out with a note. --check compares every implementation's out, and
ours' lse, with the fp32 reference on 256 sampled rows and the last one.
"""

import argparse
import datetime
import functools
import json
import math
import statistics
import sys

import torch

from . import do_bench_ms, interleaved
from .. import runtime as rt
from ..attention import VARIANTS, choose, variant
from ..attention.kernel import Attention, load
from ..attention.reference import attention_reference

PUBLIC = "tle.attention_fwd"
PEERS = {"cudnn": "CUDNN_ATTENTION", "flash": "FLASH_ATTENTION"}
# What each compiled kernel is divided by, where it ran.
BASELINES = tuple(PEERS) + ("fa3",)
# bf16 out against fp32 (P is rounded to bf16 before P V); lse in fp32.
OUT_ATOL, OUT_RTOL, OUT_COS = 2e-2, 2e-2, 1e-5
LSE_ATOL, LSE_RTOL = 1e-3, 2e-5
CHECK_ROWS = 256


def flops(b, heads, s, head_dim, causal):
    full = 4 * b * heads * s * s * head_dim
    return full / 2 if causal else full


def make_inputs(b, s, heads, kv_heads, head_dim, seed, scale=1.0, device="cuda"):
    g = torch.Generator(device=device).manual_seed(seed)
    q = torch.randn(b, s, heads, head_dim, device=device, generator=g) * scale
    k = torch.randn(b, s, kv_heads, head_dim, device=device, generator=g) * scale
    v = torch.randn(b, s, kv_heads, head_dim, device=device, generator=g)
    return q.bfloat16(), k.bfloat16(), v.bfloat16()


def sdpa_peer(backend_name):
    """f(q, k, v, causal, sm_scale) -> (out [B, S, H, D], None) by torch's
    SDPA restricted to one backend; OSError where this torch lacks it."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError as error:
        raise OSError(f"torch {torch.__version__} has no torch.nn.attention "
                      f"({error})") from error
    backend = getattr(SDPBackend, backend_name)
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def peer(q, k, v, causal=False, sm_scale=None):
        grouped = {"enable_gqa": True} if k.shape[2] != q.shape[2] else {}
        with sdpa_kernel(backend):
            out = sdpa(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                       is_causal=causal, scale=sm_scale, **grouped)
        return out.transpose(1, 2), None
    return peer


FA3_ENV = "TLE_FA3_PEER"


def fa3_peer(where=None):
    """f(q, k, v, causal, sm_scale) -> (out, None) by FlashAttention-3's
    hopper/ build (flash_attn_interface, kernels/attention/README.md says
    how to build it), found in `where`, $TLE_FA3_PEER or installed;
    ImportError where it is not."""
    import importlib
    import os
    where = where or os.environ.get(FA3_ENV)
    if where:
        sys.path.insert(0, where)
    try:
        interface = importlib.import_module("flash_attn_interface")
    finally:
        if where:
            sys.path.remove(where)

    def peer(q, k, v, causal=False, sm_scale=None):
        result = interface.flash_attn_func(q, k, v, softmax_scale=sm_scale, causal=causal)
        return (result[0] if isinstance(result, tuple) else result), None
    return peer


def _public(_):
    from .. import attention_fwd
    return attention_fwd


def implementations(head_dim, causal, kernels=(), variants=VARIANTS):
    """{name: loader()} for one head dim and mask: the bundled variant, a
    compiled kernel given for its name instead, the public call, the
    peers. `kernels` is [(NAME, PATH)] from --tle-kernel."""
    loaders = {}
    given = dict(kernels)
    try:
        mine = choose(head_dim, causal, variants)
    except ValueError:
        mine = None
    if mine is not None:
        name = f"tle_{mine.name}"
        if mine.name in given:
            path = given[mine.name]
            loaders[name] = lambda: load(path, mine)
        elif mine.is_bundled():
            loaders[name] = lambda: Attention([mine])
            loaders[PUBLIC] = lambda: _public(None)
    for peer, backend in PEERS.items():
        loaders[peer] = functools.partial(sdpa_peer, backend)
    loaders["fa3"] = fa3_peer
    return loaders


def parse_kernels(specs):
    """[(NAME, PATH)] of --tle-kernel NAME=PATH; NAME a shipped variant."""
    kernels = []
    for spec in specs or []:
        name, sep, path = spec.partition("=")
        if not sep:
            raise ValueError(f"--tle-kernel takes NAME=PATH, not '{spec}'")
        variant(name)
        kernels.append((name, path))
    return kernels


def compare(name, got, ref, atol, rtol):
    """Max abs error and whether every entry is within atol + rtol |ref|
    (NaN fails)."""
    got, ref = got.float(), ref.float()
    diff = (got - ref).abs()
    ok = bool((diff <= atol + rtol * ref.abs()).all())
    return {"name": name, "max_abs": float(diff.nan_to_num(float("inf")).max())
            if diff.numel() else 0.0, "ok": ok}


def cos_diff(x, y):
    """1 - 2<x,y> / (<x,x> + <y,y>), FlashMLA's similarity measure."""
    x, y = x.double(), y.double()
    den = (x * x + y * y).sum()
    return float(1 - 2 * (x * y).sum() / den) if den else 0.0


def sample_rows(s, seed):
    """256 random query rows and the last one (the ragged tail)."""
    if s <= CHECK_ROWS:
        return torch.arange(s)
    g = torch.Generator().manual_seed(seed)
    return torch.unique(torch.cat([torch.randperm(s, generator=g)[:CHECK_ROWS],
                                   torch.tensor([s - 1])]))


def check(fn, q, k, v, causal, sm_scale, rows):
    """fn's out (and lse, where it gives one) on `rows` against the fp32
    reference; outputs poisoned with NaN first where fn takes them."""
    if getattr(fn, "takes_outputs", False):
        b, s, heads, d = q.shape
        poisoned = (torch.full((b, s, heads, d), float("nan"), dtype=torch.bfloat16,
                               device=q.device),
                    torch.full((b, heads, s), float("nan"), device=q.device))
        out, lse = fn(q, k, v, causal, sm_scale, out=poisoned)
    else:
        out, lse = fn(q, k, v, causal, sm_scale)
    torch.cuda.synchronize()
    ref_out, ref_lse = attention_reference(q, k, v, causal, sm_scale, rows)
    rows = rows.to(q.device)
    res = {"out": compare("out", out[:, rows], ref_out, OUT_ATOL, OUT_RTOL),
           "rows_checked": int(rows.numel())}
    res["out"]["cos_diff"] = cos_diff(out[:, rows], ref_out)
    res["out"]["ok"] = res["out"]["ok"] and res["out"]["cos_diff"] < OUT_COS
    if lse is not None:
        res["lse"] = compare("lse", lse[:, :, rows], ref_lse, LSE_ATOL, LSE_RTOL)
    res["ok"] = all(res[key]["ok"] for key in ("out", "lse") if key in res)
    return res


def ratios(entries, names):
    """{"impl/baseline": {point: ratio}} of TFLOPS, for every compiled
    kernel against every baseline that ran at a point."""
    by = {(e["point"], e["impl"]): e["tflops"] for e in entries}
    out = {}
    for impl in (n for n in names if n.startswith("tle")):
        for base in BASELINES:
            r = {p: t / by[(p, base)] for (p, n), t in by.items()
                 if n == impl and (p, base) in by}
            if r:
                out[f"{impl}/{base}"] = r
    return out


def print_table(entries, title):
    """One row per point, one TFLOPS column per implementation, then the
    ratios."""
    names = list(dict.fromkeys(e["impl"] for e in entries))
    rows = {e["point"]: e["row"] for e in entries}
    ratio = ratios(entries, names)
    by = {(e["point"], e["impl"]): e["tflops"] for e in entries}
    print(f"\n{title}\n| B x H, S | " + " | ".join(names + list(ratio)) + " |")
    print("|---|" + "---:|" * (len(names) + len(ratio)))
    for p, row in rows.items():
        cells = [f"{by[(p, n)]:.1f}" if (p, n) in by else "-" for n in names]
        cells += [f"{r[p]:.3f}" if p in r else "-" for r in ratio.values()]
        print(f"| {row} | " + " | ".join(cells) + " |")


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--head-dims", default="128,64")
    ap.add_argument("--causal", choices=("both", "yes", "no"), default="both")
    ap.add_argument("--shapes", default="16x16,4x16", help="B x H, comma-separated")
    ap.add_argument("--seqlens", default="2048,4096,8192,16384")
    ap.add_argument("--group", type=int, default=1, help="H / H_kv (default 1)")
    ap.add_argument("--impl", help="comma-separated names (default: all available)")
    ap.add_argument("--tle-kernel", action="append",
                    help="NAME=PATH of a compiled kernel timed as tle_NAME in "
                    "place of the bundled variant NAME; repeatable")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--warmup", type=int, default=25, help="ms (do_bench)")
    ap.add_argument("--rep", type=int, default=200, help="ms (do_bench)")
    ap.add_argument("--rounds", type=int, default=4,
                    help="interleaved rounds; the median is reported")
    ap.add_argument("--json")
    return ap.parse_args(argv)


def _load(loaders, wanted, notes):
    """{name: callable} of the loaders that load; the others left out with
    a note (a peer this torch lacks)."""
    impls = {}
    for name, loader in loaders.items():
        if wanted and name not in wanted:
            continue
        try:
            impls[name] = loader()
        except (OSError, ImportError, RuntimeError) as error:
            notes.append(f"note: '{name}' left out: {error}")
    return impls


def run_point(impls, a, point, report):
    """Checks (with --check) and times every implementation at one point;
    whether every check passed."""
    d, causal, b, heads, s = point
    q, k, v = make_inputs(b, s, heads, heads // a.group, d, seed=s + b * heads + d)
    scale = 1.0 / math.sqrt(d)
    label = f"{b} x {heads}, {s}"
    ok = True
    entries = {name: {"head_dim": d, "causal": causal, "b": b, "h": heads,
                      "h_kv": heads // a.group, "s": s, "row": label,
                      "point": f"d{d} {'causal' if causal else 'full'} {label}",
                      "impl": name}
               for name in impls}
    runnable = {}
    for name, fn in impls.items():
        call = functools.partial(fn, q, k, v, causal, scale)
        try:
            call()
            if a.check:
                entries[name]["check"] = check(fn, q, k, v, causal, scale,
                                               sample_rows(s, s))
                ok &= entries[name]["check"]["ok"]
            runnable[name] = call
        except RuntimeError as error:
            # A peer may not take a shape (flash and GQA); ours must.
            entries[name]["error"] = str(error)
            ok &= name in BASELINES
            print(f"{label} {name} left out: {error}", file=sys.stderr)
    rounds = interleaved(runnable, lambda f: do_bench_ms(f, a.warmup, a.rep), a.rounds)
    fl = flops(b, heads, s, d, causal)
    for name, entry in entries.items():
        if name in rounds:
            entry["rounds_ms"] = rounds[name]
            entry["ms"] = statistics.median(rounds[name])
            entry["tflops"] = fl / (entry["ms"] * 1e-3) / 1e12
            report["results"].append(entry)
            checked = entry.get("check", {}).get("ok")
            verdict = "" if checked is None else (" | check OK" if checked else
                                                  " | check FAIL")
            print(f"d={d} causal={int(causal)} {label:>14} {name:>20}: "
                  f"{entry['ms']:8.3f} ms {entry['tflops']:7.1f} TFLOPS{verdict}",
                  flush=True)
    del q, k, v
    torch.cuda.empty_cache()
    return ok


def main(argv=None):
    a = parse_args(argv)
    if not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return rt.NO_DEVICE
    try:
        kernels = parse_kernels(a.tle_kernel)
        dims = [int(x) for x in a.head_dims.split(",")]
        shapes = [tuple(int(n) for n in x.split("x")) for x in a.shapes.split(",")]
        seqlens = [int(x) for x in a.seqlens.split(",")]
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return rt.ERROR
    masks = {"both": (False, True), "yes": (True,), "no": (False,)}[a.causal]
    wanted = set(a.impl.split(",")) if a.impl else None
    report = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
              "device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "command": " ".join(sys.argv),
              "timing": (f"tle.bench: triton.testing.do_bench median, warmup "
                         f"{a.warmup} ms, rep {a.rep} ms, median of {a.rounds} "
                         f"interleaved rounds; each call allocates its outputs"),
              "flops": "4 B H S^2 D, halved for causal", "results": [], "notes": []}
    all_ok = True
    for d in dims:
        for causal in masks:
            impls = _load(implementations(d, causal, kernels), wanted, report["notes"])
            for (b, heads) in shapes:
                for s in seqlens:
                    all_ok &= run_point(impls, a, (d, causal, b, heads, s), report)
            entries = [e for e in report["results"]
                       if e["head_dim"] == d and e["causal"] == causal]
            print_table(entries, f"head dim {d}, {'causal' if causal else 'non-causal'}"
                                 f", TFLOPS")
    for note in dict.fromkeys(report["notes"]):
        print(note, file=sys.stderr)
    report["ratios"] = ratios(report["results"],
                              list(dict.fromkeys(e["impl"] for e in report["results"])))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=2)
    if not all_ok:
        print("CHECK FAILED", file=sys.stderr)
        return rt.ERROR
    return rt.OK


if __name__ == "__main__":
    sys.exit(main())
