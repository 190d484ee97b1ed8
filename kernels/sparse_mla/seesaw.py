#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The seesaw kernels of SparseMLA prefill, one source for every variant:
writes the TLE IR of the seesaw dataflow (FlashMLA's sm90 schedule as
pipes; README.md beside this file) for one parameter set.

    seesaw.py [--d-qk 576|512] [--fill-order k0-first|flashmla] [--split]
              [--kv-format bf16|v32] [-o F]
    seesaw.py --write     rewrite the committed kernels (GENERATED)
    seesaw.py --check     compare them instead (generated.test runs this)

--d-qk 576 is DeepSeek V3.2 (K = kv[..., :576], V its first 512
columns, so that Q and K carry a 64-column rope tail), 512 is V4's
"MODEL1" (448 NoPE and 64 RoPE columns, K = V = kv[..., :512]; without a
tail to hold it, P0 gets 8 KiB of its own). --fill-order is the order in
which the gather's pair loop fills the four halves of a pair: k0-first
(K0 left, K0 right, K1 right, K1 left) or flashmla (K0 left, K1 right,
K0 right, K1 left, FlashMLA's, with the next pair's indices loaded after
K0's right half so that the gather does not spill; shipped: it measured
0-2% faster on most shapes, bench/results/2026-12-03). --split makes the
decode kernel: a work item is a chunk of a row's topk, whose partial
output and lse go to workspaces that combine.mlir merges (README.md,
seesaw_decode.mlir). --kv-format v32 (d_qk 576 only) takes kv as
DeepSeek V3.2's FP8 KV cache, [blocks, 64, 1, 656] bytes indexed by
global token ids, and changes only the gather: it dequantizes each K half
into the same bf16 tiles (tle.gather_rows_fp8).

The templates (`irgen.expand`) are the IR with placeholders and optional
lines; each consumer's pair is one template, which gives both the loop's
body and the item's last pair, peeled off the loop (flag `last`).
Standard library only.
"""

import argparse
import os
import sys
from typing import NamedTuple

from irgen import expand, indent, main, table

HERE = os.path.dirname(os.path.abspath(__file__))


class Params(NamedTuple):
    d_qk: int = 576
    fill_order: str = "flashmla"
    split: bool = False
    kv_format: str = "bf16"


# The committed kernels beside this file; the wheel compiles those that
# python/tle/sparse_mla/variants.json lists.
GENERATED = {
    "seesaw.mlir": Params(576),
    "seesaw_k512.mlir": Params(512),
    "seesaw_decode.mlir": Params(576, split=True),
    "seesaw_fp8.mlir": Params(576, kv_format="v32"),
    "seesaw_decode_fp8.mlir": Params(576, split=True, kv_format="v32"),
}
# The halves of a pair in the order the gather's pair loop fills them.
FILL_ORDERS = {
    "k0-first": ("k0l", "k0r", "k1r", "k1l"),
    "flashmla": ("k0l", "k1r", "k0r", "k1l"),
}
# The layouts of kv: bf16 rows of d_qk, or V3.2's FP8 cache.
KV_FORMATS = ("bf16", "v32")
# An item's first pair: the halves that the previous item's last pair
# frees first, then the two its epilogue staged the output in.
FIRST_PAIR = ("k0r", "k1l", "k0l", "k1r")
# Where each order loads the next pair's indices: before the half named
# (None: at the top of the pair).
NEXT_IDS_BEFORE = {"k0-first": None, "flashmla": "k1l"}

BYTES = {"bf16": 2, "f32": 4}
# The fence.proxy.async in a kernel's PTX (its FENCES line): the readers'
# 12 (or, with the FP8 gather, the writer's and Q's 10), the 4 after
# storing P0 and P1, and the 2 of the TMA stores that the split kernel has
# not.
def fences(params):
    return (10 if params.kv_format == "v32" else 12) + 4 + (0 if params.split else 2)


# The register split (each consumer warp group, the gather): FlashMLA's
# 216/216/72 for the bf16 kernels, whose gather holds no row in registers.
# The FP8 gather loads each row into registers to dequantize it, and with
# 72 it keeps about three rows in flight and waits on them (long-scoreboard
# stalls, bench/results/2026-12-04/NOTES.md); 200/200/104 is the most the
# consumers give without spilling (192 spills), and it ran the FP8
# kernels faster than 216/216/72 and 208/208/88 (fp8-registers-ab.log there).
def registers(params):
    return (200, 104) if params.kv_format == "v32" else (216, 72)


class Buffer(NamedTuple):
    ssa: str
    name: str
    shape: str
    space: str = "#sw"

    def memref(self, slot=False):
        return f"memref<{'' if slot else '1x'}{self.shape}, {self.space}>"

    def bytes(self):
        *dims, element = self.shape.split("x")
        count = 1
        for d in dims:
            count *= int(d)
        return count * BYTES[element]


class Pipe(NamedTuple):
    name: str
    ssa: str
    fields: tuple  # (field name, buffer ssa) pairs
    readers: str
    comment: str = ""


class Kernel:
    """One variant's storage and the names the templates use."""

    def __init__(self, params):
        self.params = params
        self.tail = params.d_qk == 576
        half, tile, row = "64x256xbf16", "64x64xbf16", "64xf32"
        tails = lambda k: [Buffer(f"%{k}t", f"{k}_t", tile)] if self.tail else []  # noqa: E731
        self.buffers = (
            [Buffer("%ql", "q_l", half), Buffer("%qr", "q_r", half)] + tails("q")
            + [Buffer("%k0l", "k0_l", half), Buffer("%k0r", "k0_r", half)] + tails("k0")
            + [Buffer("%k1l", "k1_l", half), Buffer("%k1r", "k1_r", half)] + tails("k1")
            + ([] if self.tail else [Buffer("%p0b", "p0", tile)])
            + [Buffer("%p1b", "p1", tile)]
            + [Buffer(s, n, row, "#smem") for s, n in (
                ("%m0b", "m0"), ("%m01b", "m01"), ("%fb", "scale"), ("%b0b", "bias0"),
                ("%b1b", "bias1"), ("%l1b", "l1"), ("%x1b", "x1"))])
        t = lambda k: [("t", f"%{k}t")] if self.tail else []  # noqa: E731
        self.pipes = [
            Pipe("q", "%qp", [("q_l", "%ql"), ("q_r", "%qr")] + [
                ("q_t", "%qt")] * self.tail, "wg0, wg1",
                "Q once an item, read by both warp groups' scores."),
            Pipe("k0l", "%k0lp", [("v", "%k0l"), ("bias", "%b0b")], "wg0"),
            Pipe("k0r", "%k0rp", [("v", "%k0r")] + t("k0"), "wg0, wg1"),
            Pipe("k1l", "%k1lp", [("v", "%k1l")], "wg1, wg0"),
            Pipe("k1r", "%k1rp", [("v", "%k1r")] + t("k1") + [("bias", "%b1b")], "wg1"),
            Pipe("m0", "%m0p", [("m", "%m0b")], "wg1"),
            Pipe("m01", "%m01p", [("m", "%m01b")], "wg0"),
            Pipe("p0", "%p0p", [("p", "%k0t" if self.tail else "%p0b")], "wg1",
                 "P0 lives in K0's rope tail: wg0 writes it after its S0 has retired and\n"
                 "before it releases k0r; wg1 reads it inside its own window on k0r."
                 if self.tail else
                 "P0 has storage of its own: there is no rope tail to lend it."),
            Pipe("p1", "%p1p", [("p", "%p1b")], "wg0"),
            Pipe("final", "%fp", [("scale", "%fb")], "wg1",
                 "Once an item: wg0's final scale of wg1's rows, wg1's row sums and maxima."),
            Pipe("l1", "%l1p", [("l", "%l1b"), ("x", "%x1b")], "wg0"),
        ]
        self.by_ssa = {b.ssa: b for b in self.buffers}

    def pipe(self, name):
        return next(p for p in self.pipes if p.name == name)

    def fields(self, pipe):
        return [f for f, _ in self.pipe(pipe).fields]

    def slot_types(self, pipe):
        """The types of a slot's views, as acquire and wait return them."""
        return ", ".join(self.by_ssa[s].memref(slot=True) for _, s in self.pipe(pipe).fields)

    def storage(self):
        """Every buffer's shared_alloc, then the pipes over them."""
        lines = [f'{b.ssa} = tle.shared_alloc {{name = "{b.name}"}} : {b.memref()}'
                 for b in self.buffers]
        for p in self.pipes:
            lines += [f"// {line}" for line in p.comment.splitlines()]
            fields = (",\n" + " " * 11).join(f"{f} = {s} : {self.by_ssa[s].memref()}"
                                              for f, s in p.fields)
            lines.append(f'{p.ssa} = tle.pipe "{p.name}" capacity 1\n'
                         f"    fields({fields}) readers({p.readers})")
        return indent("\n".join(lines) + "\n", 2)

    def sync_plan_checks(self):
        """The FileCheck lines of the sync plan's pipes and of its shared
        memory, from the pipes and buffers the IR declares."""
        rows = [["pipe", "capacity", "field", "slot", "bytes/slot"]]
        for p in self.pipes:
            for i, (field, s) in enumerate(p.fields):
                b = self.by_ssa[s]
                rows.append([p.name if i == 0 else "", "1" if i == 0 else "", field,
                             b.shape, str(b.bytes())])
        total = sum(b.bytes() for b in self.buffers)
        return ("\n".join(f"// CHECK-NEXT:{line}" for line in table(rows)),
                f"{total} B of buffers + 176 B of barriers = {total + 176} B")

    def values(self):
        """The placeholders every template may use."""
        d = self.params.d_qk
        fp8 = self.params.kv_format == "v32"
        q_views = "%q_l, %q_r, %q_t" if self.tail else "%q_l, %q_r"
        consumer, gather = registers(self.params)
        return dict(
            d=d, kernel_name="sparse_mla_seesaw" + ("" if self.tail else "_k512")
            + ("_decode" if self.params.split else "")
            + ("_fp8" if fp8 else ""), fences=fences(self.params),
            consumer_registers=consumer, gather_registers=gather,
            # The sync plan's registers column, 11 wide.
            consumer_cell=f"{consumer:<11}", gather_cell=f"{gather:<11}",
            q_views=q_views, q_types=self.slot_types("q"),
            k0r_views="%v0r, %t0" if self.tail else "%v0r",
            k0r_types=self.slot_types("k0r"),
            k1r_views="%v1r, %t1, %bias_slot" if self.tail else "%v1r, %bias_slot",
            k1r_types=self.slot_types("k1r"),
            s0="%s_all" if self.tail else "%s_lr",
            s1_right_acc="%s_t" if self.tail else "%zero_s",
            s1_right="%s_tr" if self.tail else "%s_r",
            q_type=f"memref<?x?x?x{d}xbf16, strided<[?, ?, ?, 1]>>",
            kv_type="memref<?x64x1x656xi8, strided<[?, ?, ?, 1]>>" if fp8 else
            f"memref<?x?x1x{d}xbf16, strided<[?, ?, ?, 1]>>",
            kv_cache="memref<?x64x656xi8, strided<[?, ?, 1]>>",
            indices_type="memref<?x?x1x?xi32, strided<[?, ?, ?, 1]>>",
            ids_type="memref<?xi32, strided<[1], offset: ?>>",
            kv_rows=f"memref<?x{d}xbf16, strided<[?, 1], offset: ?>>",
            kv_half="memref<?x256xbf16, strided<[?, 1], offset: ?>>",
            kv_tail="memref<?x64xbf16, strided<[?, 1], offset: ?>>",
            q_rows=f"memref<64x{d}xbf16, strided<[?, 1], offset: ?>>",
        )


def sections(path=os.path.join(HERE, "seesaw.mlir.in")):
    """The template's sections by name (`//@ name` starts one; `//#` lines
    are the template's own comments)."""
    found, name = {}, None
    with open(path) as f:
        for line in f:
            if line.startswith("//@ "):
                name = line[4:].strip()
                found[name] = ""
            elif name and not line.startswith("//#"):
                found[name] += line
    return found


def render(params):
    """The IR of the seesaw kernel for `params`."""
    if params.d_qk not in (576, 512):
        raise ValueError(f"d_qk {params.d_qk}: the seesaw kernels take 576 or 512")
    if params.kv_format not in KV_FORMATS:
        raise ValueError(f"kv format {params.kv_format!r}: one of {', '.join(KV_FORMATS)}")
    if params.kv_format != "bf16" and params.d_qk != 576:
        raise ValueError(f"kv format {params.kv_format}: d_qk 576 only")
    if params.fill_order not in FILL_ORDERS:
        raise ValueError(f"fill order {params.fill_order!r}: one of "
                         f"{', '.join(FILL_ORDERS)}")
    t = sections()
    kernel = Kernel(params)
    values = kernel.values()
    fp8 = params.kv_format == "v32"
    flags = {"tail": kernel.tail, "k0first": params.fill_order == "k0-first",
             "split": params.split, "fp8": fp8, "bf16tail": kernel.tail and not fp8}
    # The snippets both modes share at their places in the consumers and
    # the gather.
    values.update(
        item=indent(expand(t["item"], flags), 8).rstrip("\n"),
        ids_view=indent(expand(t["ids_view"], flags, **values), 8).rstrip("\n"),
        o_partial=expand(t["o_partial"], flags).rstrip("\n"))

    def gather_pair(order, it, ids, biases, next_ids_before=None, suffix=""):
        text = ""
        for half in order:
            if half == next_ids_before:
                text += expand(t["next_ids"], flags, **values)
            tile = int(half[1])
            rope = kernel.tail and half[2] == "r"
            text += expand(t["gather_half"], dict(
                flags, rope=rope, bias=half in ("k0l", "k1r"), bf16rope=rope and not fp8,
                fp8rope=rope and fp8),
                half=half, column=0 if half[2] == "l" else 256, view=half + suffix, side=half[2], it=it, ids=ids[tile],
                bias=biases[tile], types=kernel.slot_types(half),
                views=", ".join(f"%{half}{suffix}_{f}" for f in kernel.fields(half)),
                **values)
        return text

    def biases(suffix, ids):
        return expand(t["biases"], flags, ids0=ids[0], ids1=ids[1],
                      ok0=f"%ok{suffix}0", ok1=f"%ok{suffix}1",
                      bias0=f"%bias{suffix}0", bias1=f"%bias{suffix}1")

    def consumer(wg, l_out):
        def pair(last):
            state = ("%m_a", "%x_a", "%l_a", "%acc_a") if last else (
                "%m_old", "%x_old", "%l_old", "%acc_old")
            return indent(expand(t[f"pair_{wg}"], dict(flags, last=last, loop=not last),
                                 **dict(zip(("m", "x", "l", "acc"), state)), **values),
                          8 if last else 10).rstrip("\n")
        return expand(t["consumer"], dict(flags, wg0=wg == "wg0"), wg=wg, l_out=l_out,
                      o_col=0 if wg == "wg0" else 256,
                      loop_pair=pair(False), last_pair=pair(True),
                      epilogue=indent(expand(t[f"epilogue_{wg}"], flags, **values),
                                      8).rstrip("\n"), **values)

    order = FILL_ORDERS[params.fill_order]
    before = NEXT_IDS_BEFORE[params.fill_order]
    ids_j = ("%ids0_j", "%ids1_j")
    loop = ((expand(t["next_ids"], flags, **values) if before is None else "")
            + biases("j", ids_j)
            + gather_pair(order, "%it", ids_j, ("%biasj0", "%biasj1"), before, "_j"))
    pipes_checks, memory = kernel.sync_plan_checks()
    names = {"k0l": "K0 left", "k0r": "K0 right", "k1l": "K1 left", "k1r": "K1 right"}
    return "".join([
        expand(t["header"], flags, params=f"--d-qk {params.d_qk} --fill-order "
               f"{params.fill_order}" + " --split" * params.split
               + (f" --kv-format {params.kv_format}" if fp8 else ""),
               order=", ".join(names[h] for h in order),
               pipes=pipes_checks, memory=memory, **values),
        expand(t["kernel"], flags, storage=kernel.storage().rstrip("\n"), **values),
        consumer("wg0", "%l_pair"),
        consumer("wg1", "%l_new"),
        expand(t["gather"], flags,
               first_biases=indent(biases("", ("%ids0", "%ids1")), 8).rstrip("\n"),
               first_pair=indent(gather_pair(FIRST_PAIR, "%base", ("%ids0", "%ids1"),
                                             ("%bias0", "%bias1")), 8).rstrip("\n"),
               loop_pair=indent(loop, 10).rstrip("\n"), **values),
    ])


def parser():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--d-qk", type=int, default=576, choices=(576, 512))
    ap.add_argument("--fill-order", default="flashmla", choices=list(FILL_ORDERS))
    ap.add_argument("--split", action="store_true",
                    help="the split-KV decode kernel (partial results to workspaces)")
    ap.add_argument("--kv-format", default="bf16", choices=KV_FORMATS)
    return ap


if __name__ == "__main__":
    sys.exit(main(HERE, GENERATED, render, parser(),
                  lambda a: Params(a.d_qk, a.fill_order, a.split, a.kv_format),
                  sys.argv[1:]))
