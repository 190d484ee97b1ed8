# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Sparse MLA decode on the V3.2 FP8 KV cache: TLE beside FlashMLA's
sparse FP8 decode (flash_mla_with_kvcache with is_fp8_kvcache=True and
indices, through the peer folder, bench/peers/README.md), in one process.

    python -m tle.bench.sparse_mla_decode [--batches 32,64,128] [--s-q 1,2]
        [--heads 64,128] [--topk 2048] [--tokens 65536] [--rounds 3]
        [--flashmla-peer DIR] [--json F]

For each case it checks TLE's public call against the fp32 reference on
the dequantized cache, then times, in rotated rounds (tle.bench.interleaved)
with do_bench medians: `tle` (the public call, tle.sparse_mla_decode with
its schedule made once: its kernels read the FP8 cache), `tle-kernels`
(the bf16 kernels on rows dequantized beforehand, compact_rows),
`tle-rows` (that PyTorch gather and dequantization alone) and `flashmla`
(its call with the metadata reused, as engines do).
TFLOPS = 2 b s_q h_q topk (576 + 512) / time (SPARSE_MLA.md; invalid
slots counted). It also measures the CPU time of one call of `tle`,
`tle-kernels` and `flashmla` (tle.bench.cpu_us). Ids: topk distinct random tokens of the
cache per query row, in score order (random, as torch.topk of random keys
returns them).
"""

import argparse
import json
import os
import statistics
import sys

from . import cpu_us, do_bench_ms, interleaved

FLASHMLA_ENV = "TLE_FLASHMLA_PEER"
D_QK, D_V = 576, 512


def flops(b, s_q, h_q, topk):
    return 2 * b * s_q * h_q * topk * (D_QK + D_V)


def make_case(b, s_q, h_q, topk, tokens, seed=0):
    """q, the FP8 cache of `tokens` tokens (rounded up to blocks of 64)
    and ids [b, s_q, topk] of distinct random tokens, score order."""
    import torch
    from ..sparse_mla import kv_cache
    g = torch.Generator(device="cuda").manual_seed(seed)
    blocks = -(-tokens // 64)
    kv = (torch.randn(blocks, 64, 1, D_QK, device="cuda", generator=g) / 10).to(torch.bfloat16)
    cache = kv_cache.quantize(kv, "v32")
    q = (torch.randn(b, s_q, h_q, D_QK, device="cuda", generator=g) / 10).to(torch.bfloat16)
    keys = torch.rand(b * s_q, tokens, device="cuda", generator=g)
    k = min(topk, tokens)
    ids = keys.topk(k, dim=-1, sorted=True).indices.int()
    if k < topk:
        ids = torch.cat([ids, torch.full((b * s_q, topk - k), -1, dtype=torch.int32,
                                         device="cuda")], dim=-1)
    return q, cache, ids.view(b, s_q, topk)


def flashmla_peer(where=None):
    where = where or os.environ.get(FLASHMLA_ENV)
    if not where:
        return None
    sys.path.insert(0, where)
    try:
        import tle_flashmla_peer as peer
    finally:
        sys.path.remove(where)
    return peer


def check(q, cache, ids, sm_scale, out, lse):
    """Max abs error of out and lse against the fp32 reference, and
    whether they are within FlashMLA's test tolerances (out abs 8e-4 + rel
    3.01/128, lse abs 1e-6 + rel 2.01/65536, infinities in place)."""
    import torch
    from ..sparse_mla.reference import sparse_mla_decode_reference
    r_out, r_lse = sparse_mla_decode_reference(q, cache, ids, sm_scale=sm_scale)
    d_out = (out.float() - r_out.float()).abs()
    ok_out = bool((d_out <= 8e-4 + 3.01 / 128 * r_out.float().abs()).all())
    fin = torch.isfinite(r_lse)
    d_lse = (lse[fin] - r_lse[fin]).abs()
    ok_lse = bool((d_lse <= 1e-6 + 2.01 / 65536 * r_lse[fin].abs()).all()) and bool(
        torch.equal(torch.isinf(lse), torch.isinf(r_lse)))
    return {"out_max_abs": float(d_out.max()), "lse_max_abs": float(d_lse.max()
            if d_lse.numel() else 0.0), "ok": ok_out and ok_lse}


def run_case(b, s_q, h_q, topk, tokens, a, peer):
    import torch
    import tle
    from ..sparse_mla.decode import _DECODE, compact_rows, schedule_for
    q, cache, ids = make_case(b, s_q, h_q, topk, tokens)
    scale = 1 / D_QK ** 0.5
    sched = schedule_for(q, ids)
    out, lse = tle.sparse_mla_decode(q, cache, ids, sm_scale=scale, schedule=sched)
    torch.cuda.synchronize()
    entry = {"b": b, "s_q": s_q, "h_q": h_q, "topk": topk, "tokens": tokens,
             "splits": sched.splits, "ctas": sched.ctas,
             "check": check(q, cache, ids, scale, out, lse)}
    kv, local = compact_rows(cache, ids)
    fns = {
        "tle": lambda: tle.sparse_mla_decode(q, cache, ids, sm_scale=scale, schedule=sched),
        "tle-kernels": lambda: _DECODE.kernels(q, kv, local, None, scale, sched.splits),
        "tle-rows": lambda: compact_rows(cache, ids),
    }
    if peer is not None:
        meta, _ = peer.get_mla_metadata()

        def flashmla():
            return peer.flash_mla_with_kvcache(q, cache, None, None, D_V, meta,
                                               softmax_scale=scale, is_fp8_kvcache=True,
                                               indices=ids)
        f_out, f_lse = flashmla()
        torch.cuda.synchronize()
        entry["flashmla_vs_tle_out_max_abs"] = float((f_out.float() - out.float()).abs().max())
        fns["flashmla"] = flashmla
    times = interleaved(fns, lambda f: do_bench_ms(f, a.warmup_ms, a.rep_ms), a.rounds)
    entry["ms"] = times
    entry["us_median"] = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    entry["tflops"] = {k: flops(b, s_q, h_q, topk) / (statistics.median(v) * 1e-3) / 1e12
                       for k, v in times.items() if k != "tle-rows"}
    cpu = {k: fns[k] for k in ("tle", "tle-kernels", "flashmla") if k in fns}
    entry["cpu_us"] = interleaved(cpu, lambda f: cpu_us(f, a.calls), a.rounds)
    return entry


def _ints(text):
    return [int(x) for x in text.split(",") if x]


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batches", type=_ints, default=[1, 32, 64, 128])
    ap.add_argument("--s-q", type=_ints, default=[1, 2])
    ap.add_argument("--heads", type=_ints, default=[64, 128])
    ap.add_argument("--topk", type=_ints, default=[2048])
    ap.add_argument("--tokens", type=int, default=65536)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup-ms", type=int, default=25)
    ap.add_argument("--rep-ms", type=int, default=100)
    # A call of tle-kernels enqueues about 15 kernels (compact_rows' and its
    # own): 50 calls stay below the launch queue's depth, so that the CPU
    # never waits for the GPU inside the timing.
    ap.add_argument("--calls", type=int, default=50, help="calls per CPU-cost round")
    ap.add_argument("--flashmla-peer", default=None)
    ap.add_argument("--json", default=None)
    return ap.parse_args(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse_args(argv)
    peer = flashmla_peer(a.flashmla_peer)
    report = {"command": "python -m tle.bench.sparse_mla_decode " + " ".join(argv),
              "flashmla": peer is not None, "cases": []}
    print("| b | s_q | h_q | topk | splits | ok | tle us | kernels us | rows us | "
          "flashmla us | flashmla / tle | flashmla / kernels | tle cpu us | kernels cpu us | "
          "flashmla cpu us |")
    print("|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for topk in a.topk:
        for b in a.batches:
            for s_q in a.s_q:
                for h_q in a.heads:
                    e = run_case(b, s_q, h_q, topk, a.tokens, a, peer)
                    report["cases"].append(e)
                    us, cpu = e["us_median"], {k: statistics.median(v)
                                               for k, v in e["cpu_us"].items()}
                    fm = us.get("flashmla", float("nan"))
                    print(f"| {b} | {s_q} | {h_q} | {topk} | {e['splits']} | "
                          f"{e['check']['ok']} | {us['tle']:.1f} | {us['tle-kernels']:.1f} | "
                          f"{us['tle-rows']:.1f} | {fm:.1f} | {fm / us['tle']:.2f} | "
                          f"{fm / us['tle-kernels']:.2f} | "
                          f"{cpu['tle']:.1f} | {cpu['tle-kernels']:.1f} | "
                          f"{cpu.get('flashmla', float('nan')):.1f} |",
                          flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0 if all(e["check"]["ok"] for e in report["cases"]) else 1


if __name__ == "__main__":
    sys.exit(main())
