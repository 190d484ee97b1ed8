#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes bench/CURRENT.md, the one table of current figures, from the data
files of bench/results/ that CURRENT names; with --check, fails when
CURRENT.md or a page that embeds one of its tables is not what the data
says.

    bench/current.py            rewrite bench/CURRENT.md and the tables the
                                pages of EMBEDDING_PAGES embed
    bench/current.py --check    compare instead (a lit test runs this)

A page embeds table NAME between `<!-- current:NAME -->` and
`<!-- /current:NAME -->`; the check compares the text between the two with
the table as generated. Nothing here is measured: every figure is read from
a data file that `python -m tle.bench.*` wrote on the GPU machine. Needs
only the standard library.
"""

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The current data, one entry a table: (name, title, kind, data file under
# bench/results/). A run that supersedes one replaces its entry here.
CURRENT = [
    ("sparse_mla", "SparseMLA prefill, DeepSeek V3.2 shape", "sparse_mla",
     "2026-12-03/sparse_mla_20261203_final.json"),
    ("sparse_mla_shapes", "SparseMLA prefill, other shapes", "sparse_mla_shapes",
     ["2026-12-03/shapes_h64_20261203_final.json",
      "2026-12-03/shapes_topk512_20261203_final.json",
      "2026-12-03/shapes_topk1024_20261203_final.json",
      "2026-12-03/shapes_sq512_20261203_final.json",
      "2026-12-03/shapes_sink_20261203_final.json"]),
    ("serving", "SparseMLA prefill, serving shapes (FlashMLA padded to 64 heads "
     "where it pads)", "serving", "2026-12-03/serving_20261203.json"),
    ("attention", "Attention forward, bf16, against cuDNN and PyTorch's flash "
     "backend", "attention", "2026-12-03/attention_20261203.json"),
    ("gemm", "GEMM, bf16, against cuBLAS", "gemm",
     "2026-12-03/gemm_20261203.json"),
]
# Pages that embed tables of CURRENT.md (relative to the repository root).
EMBEDDING_PAGES = ["README.md"]

# Columns of a SparseMLA table, in this order where they ran, and the peer
# the ratios are taken against.
SPARSE_MLA_ORDER = ["flashmla", "tle.sparse_mla_fwd", "tle_seesaw", "tle_pipe",
                    "tle_naive", "triton_naive"]
SPARSE_MLA_NAMES = {
    "flashmla": "FlashMLA", "tle.sparse_mla_fwd": "tle.sparse_mla_fwd",
    "tle_seesaw": "seesaw", "tle_pipe": "pipe", "tle_naive": "naive",
    "triton_naive": "Triton",
}
PEER = "flashmla"


def _sparse_mla_table(data):
    impls = sorted({r["impl"] for r in data["results"]},
                   key=lambda i: (SPARSE_MLA_ORDER.index(i)
                                  if i in SPARSE_MLA_ORDER else 99, i))
    skvs = sorted({r["skv"] for r in data["results"]})
    tflops = {(r["skv"], r["impl"]): r["tflops"] for r in data["results"]}
    head = ["SKV"] + [f"{SPARSE_MLA_NAMES.get(i, i)} TFLOPS" for i in impls]
    ours = [i for i in impls if i.startswith("tle") and PEER in impls]
    head += [f"{SPARSE_MLA_NAMES.get(i, i)} / FlashMLA" for i in ours]
    rows = []
    for skv in skvs:
        row = [str(skv)] + [f"{tflops[(skv, i)]:.1f}" if (skv, i) in tflops
                            else "-" for i in impls]
        for i in ours:
            a, b = tflops.get((skv, i)), tflops.get((skv, PEER))
            row.append(f"{a / b:.3f}" if a and b else "-")
        rows.append(row)
    shape = data.get("shape", {})
    note = (", ".join(f"{k}={v}" for k, v in shape.items()) +
            f"; {data.get('index_distribution', '')}")
    return head, rows, note


def _gemm_table(data):
    head = ["M=N=K", "cuBLAS TFLOPS", "TLE TFLOPS", "TLE / cuBLAS"]
    rows = [[str(r["size"]), f"{r['cublas_do_bench_tflops']:.1f}",
             f"{r['tle_do_bench_tflops']:.1f}",
             f"{r['tle_over_cublas_do_bench']:.3f}"] for r in data["results"]]
    note = f"kernel {data.get('kernel')}, tile {data.get('bm')}x{data.get('bn')}"
    return head, rows, note


def _shapes_table(datas):
    """One row per data file: its shape (what differs from the V3.2 case)
    and SKV, each implementation's TFLOPS and the ratio to FlashMLA."""
    base = {"B": 1, "SQ": 4096, "H": 128, "topk": 2048, "DQK": 576, "DV": 512}
    impls = []
    for data in datas:
        for r in data["results"]:
            if r["impl"] not in impls:
                impls.append(r["impl"])
    impls.sort(key=lambda i: (SPARSE_MLA_ORDER.index(i)
                              if i in SPARSE_MLA_ORDER else 99, i))
    ours = [i for i in impls if i.startswith("tle")]
    head = (["shape", "SKV"] + [f"{SPARSE_MLA_NAMES.get(i, i)} TFLOPS" for i in impls]
            + [f"{SPARSE_MLA_NAMES.get(i, i)} / FlashMLA" for i in ours])
    rows = []
    for data in datas:
        shape = ", ".join(f"{k}={v}" for k, v in data["shape"].items()
                          if base.get(k) != v) or "V3.2"
        for skv in sorted({r["skv"] for r in data["results"]}):
            t = {r["impl"]: r["tflops"] for r in data["results"] if r["skv"] == skv}
            row = [shape, str(skv)] + [f"{t[i]:.1f}" if i in t else "-" for i in impls]
            row += [f"{t[i] / t[PEER]:.3f}" if i in t and PEER in t else "-"
                    for i in ours]
            rows.append(row)
    return head, rows, "score-order ids, attn_sink only where the shape names it"


def _serving_table(data):
    impls = []
    for r in data["results"]:
        if r["impl"] not in impls:
            impls.append(r["impl"])
    ours = [i for i in impls if i != PEER]
    head = (["case", "SKV"] + [f"{SPARSE_MLA_NAMES.get(i, i)} TFLOPS (TB/s)" for i in impls]
            + [f"{SPARSE_MLA_NAMES.get(i, i)} / FlashMLA" for i in ours])
    rows, seen = [], []
    for r in data["results"]:
        if (r["case"], r["skv"]) not in seen:
            seen.append((r["case"], r["skv"]))
    for case, skv in seen:
        t = {r["impl"]: r for r in data["results"]
             if r["case"] == case and r["skv"] == skv}
        row = [case, str(skv)] + [
            f"{t[i]['tflops']:.1f} ({t[i]['gather_tbps']:.2f})" if i in t else "-"
            for i in impls]
        row += [f"{t[i]['tflops'] / t[PEER]['tflops']:.3f}" if i in t and PEER in t
                else "-" for i in ours]
        rows.append(row)
    return head, rows, ("useful FLOPs of the real heads; TB/s is the rate of "
                        "the rows gathered")


def _attention_table(data):
    """One row per head dim, causality and B x H, S; the public call's
    TFLOPS beside the peers' and its ratios to them."""
    points = []
    for r in data["results"]:
        key = (r["head_dim"], r["causal"], r["row"])
        if key not in points:
            points.append(key)
    peers = [p for p in ("cudnn", "flash", "fa3")
             if any(r["impl"] == p for r in data["results"])]
    ours = "tle.attention_fwd"
    head = (["head dim", "causal", "B x H, S", "TLE TFLOPS"]
            + [f"{p} TFLOPS" for p in peers] + [f"TLE / {p}" for p in peers])
    rows = []
    for d, causal, row in points:
        t = {r["impl"]: r["tflops"] for r in data["results"]
             if (r["head_dim"], r["causal"], r["row"]) == (d, causal, row)}
        cells = [str(d), "yes" if causal else "no", row,
                 f"{t[ours]:.1f}" if ours in t else "-"]
        cells += [f"{t[p]:.1f}" if p in t else "-" for p in peers]
        cells += [f"{t[ours] / t[p]:.3f}" if ours in t and p in t else "-"
                  for p in peers]
        rows.append(cells)
    notes = list(dict.fromkeys(data.get("notes", [])))
    return head, rows, "; ".join(notes) or "all peers ran"


KINDS = {"sparse_mla": _sparse_mla_table, "gemm": _gemm_table,
         "attention": _attention_table,
         "sparse_mla_shapes": _shapes_table, "serving": _serving_table}


def _markdown(head, rows):
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---:" for _ in head) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def tables():
    """{name: (title, markdown table, provenance lines)} of CURRENT."""
    out = {}
    for name, title, kind, paths in CURRENT:
        many = isinstance(paths, list)
        datas = []
        for path in paths if many else [paths]:
            with open(os.path.join(HERE, "results", path)) as f:
                datas.append(json.load(f))
        head, rows, note = KINDS[kind](datas if many else datas[0])
        data = datas[0]
        links = ", ".join(f"[results/{p}](results/{p})"
                          for p in (paths if many else [paths]))
        provenance = [
            f"Data: {links}, measured "
            f"{data.get('date', '?')[:10]} on {data.get('device', '?')} "
            f"(torch {data.get('torch', '?')}); {note}.",
            f"Timing: {data.get('timing', 'not recorded')}.",
        ] + [f"Command: `{d.get('command') or 'not recorded in the data file'}`"
             for d in datas]
        out[name] = (title, _markdown(head, rows), provenance)
    return out


def _plot_of(name):
    """The plot beside a table's data file (same stem, .png), if any."""
    path = next(p for n, _, _, p in CURRENT if n == name)
    if isinstance(path, list):
        return None
    png = os.path.splitext(path)[0] + ".png"
    return png if os.path.exists(os.path.join(HERE, "results", png)) else None


def current_md():
    parts = ["# Current figures", "",
             "Generated by `bench/current.py` from the data files it names;",
             "edit those, not this page (a test checks it is current). Every",
             "other page links here rather than copying a figure. Older runs",
             "and the experiments behind each change are in the lab notebook",
             "under [results/](results/).", ""]
    for name, (title, table, provenance) in tables().items():
        parts += [f"## {title}", "", f"<!-- current:{name} -->", table,
                  f"<!-- /current:{name} -->", ""] + provenance + [""]
        plot = _plot_of(name)
        if plot:
            parts += [f"![{title}](results/{plot})", ""]
    return "\n".join(parts)


def embedded(page_text):
    """{name: table text} of the tables a page embeds."""
    found = {}
    for m in re.finditer(r"<!-- current:([a-z_0-9]+) -->\n(.*?)\n<!-- /current:\1 -->",
                         page_text, re.S):
        found[m.group(1)] = m.group(2)
    return found


def check():
    problems = []
    path = os.path.join(HERE, "CURRENT.md")
    want = current_md()
    have = open(path).read() if os.path.exists(path) else ""
    if have != want:
        problems.append("bench/CURRENT.md is not what bench/current.py "
                        "generates from the data: run bench/current.py")
    generated = tables()
    for page in EMBEDDING_PAGES:
        text = open(os.path.join(ROOT, page)).read()
        for name, table in embedded(text).items():
            if name not in generated:
                problems.append(f"{page} embeds table '{name}', which "
                                "bench/CURRENT.md does not have")
            elif table != generated[name][1]:
                problems.append(f"{page}'s table '{name}' differs from "
                                "bench/CURRENT.md's: copy it from there")
    for p in problems:
        print("error: " + p, file=sys.stderr)
    return 1 if problems else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="compare CURRENT.md and the embedding pages with the "
                         "data instead of writing")
    args = ap.parse_args(argv)
    if args.check:
        return check()
    with open(os.path.join(HERE, "CURRENT.md"), "w") as f:
        f.write(current_md())
    generated = tables()
    for page in EMBEDDING_PAGES:
        path = os.path.join(ROOT, page)
        text = open(path).read()
        for name in embedded(text):
            if name in generated:
                text = re.sub(r"(<!-- current:%s -->\n).*?(\n<!-- /current:%s -->)"
                              % (name, name),
                              lambda m: m.group(1) + generated[name][1] + m.group(2),
                              text, flags=re.S)
        with open(path, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
