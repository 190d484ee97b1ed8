#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Where each partition of a kernel stalls, from ncu's source counters.

    ncu --section SourceCounters --section WarpStateStats -o R ...
    ncu --import R.ncu-rep --page source --print-source sass --csv > R.csv
    utils/ncu_stalls.py R.csv [--mlir KERNEL.mlir] [--split ADDR,...] [--top N]

Reads the warp-stall samples per SASS instruction and splits the code into
partitions where a warp group sets its register budget (USETMAXREG), as
utils/partition_sass.py does with a disassembly; --mlir names them after
the kernel's sync plan, and --split cuts a region further at the given
addresses (offsets from the kernel's first instruction, as the report
prints them), for a kernel such as FlashMLA whose consumer warp groups
share one USETMAXREG. For each region it prints its share of all samples,
the share spent in each kind of wait and the instructions that collect the
most samples, with their largest stall reason.

Kinds: an mbarrier wait is a SYNCS try-wait and the branch after it (where
the samples land while the result is pending) and the retry loops that
ptxas places after the last EXIT (counted apart, as "out of line", with
the partition whose branch jumps to them); a multiply wait is
WARPGROUP.DEPBAR; a named barrier is BAR; "issuing" is the samples of the
`selected` reason, an instruction being issued.
"""

import argparse
import collections
import csv
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import partition_sass  # noqa: E402

SAMPLES = "Warp Stall Sampling (All Samples)"
BRANCH = re.compile(r"\bBRA\s+0x([0-9a-f]+)")
# A try-wait's predicate, and the branch on it that ptxas may schedule a
# few instructions later.
TRYWAIT = re.compile(r"TRYWAIT\s+(P\d)\b")


def load(path):
    """[(offset, text, samples, {reason: samples})] in address order, and
    the address of the first instruction (branch targets are absolute)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header_at = next((i for i, row in enumerate(rows) if "Address" in row
                      and "Source" in row), None)
    if header_at is None:
        sys.exit(f"ncu_stalls: {path} has no Address and Source columns (export "
                 f"it with --page source --print-source sass --csv)")
    header = rows[header_at]
    at, text_at = header.index("Address"), header.index("Source")
    if SAMPLES not in header:
        sys.exit(f"ncu_stalls: {path} has no '{SAMPLES}' column (profile with "
                 f"--section SourceCounters --section WarpStateStats)")
    samples_at = header.index(SAMPLES)
    reasons = [(i, name[len("stall_"):]) for i, name in enumerate(header)
               if name.startswith("stall_") and "Not Issued" not in name]
    body = [row for row in rows[header_at + 1:] if len(row) == len(header)]
    if not body:
        sys.exit(f"ncu_stalls: {path} lists no instructions")
    base = int(body[0][at], 16)
    return [(int(row[at], 16) - base, row[text_at].strip(), int(row[samples_at] or 0),
             {name: int(row[i] or 0) for i, name in reasons}) for row in body], base


def as_code(instructions):
    """The instructions as partition_sass.parse reads cuobjdump's lines:
    [(address, opcode, text, predicated)], one per instruction."""
    code = partition_sass.parse("\n".join(f"/*{addr:04x}*/ {text} ;"
                                           for addr, text, _, _ in instructions))
    if len(code) != len(instructions):
        sys.exit("ncu_stalls: the Source column holds lines that are not SASS "
                 "instructions (export it with --print-source sass)")
    return code


def last_exit(code):
    """The index of the last EXIT: the retry loops of waits follow it."""
    return max((i for i, (_, op, _, _) in enumerate(code) if op == "EXIT"),
               default=len(code) - 1)


def kinds(code):
    """The kind of wait each instruction's samples count as."""
    end = last_exit(code)
    out, pending = [], None
    for i, (_, op, text, _) in enumerate(code):
        if i > end:
            kind = "mbarrier wait, out of line"
        elif "TRYWAIT" in op or (pending and op == "BRA"
                                 and text.split()[1] == f"@!{pending}"):
            kind = "mbarrier wait"
        elif op.startswith("WARPGROUP.DEPBAR"):
            kind = "multiply wait"
        elif op.startswith("BAR."):
            kind = "named barrier"
        else:
            kind = None
        m = TRYWAIT.search(text)
        if m:
            pending = m.group(1)
        elif op == "BRA" or op == "EXIT":
            pending = None
        out.append(kind)
    return out


def regions(code, split, names):
    """[(label, first index, end index)]: the prologue, then a region per
    USETMAXREG up to the last EXIT, each cut further at the --split
    offsets."""
    code = code[:last_exit(code) + 1]
    bounds = partition_sass.split_partitions(code)
    labels = names or [f"partition {i}" for i in range(len(bounds))]
    out = []
    if bounds and bounds[0][0] > 0:
        out.append(("prologue", 0, bounds[0][0]))
    index = {addr: i for i, (addr, *_) in enumerate(code)}
    for (begin, end), label in zip(bounds, labels):
        cuts = sorted(index[a] for a in split if a in index and begin < index[a] < end)
        edges = [begin] + cuts + [end]
        for k in range(len(edges) - 1):
            suffix = f", part {k + 1}" if len(edges) > 2 else ""
            out.append((label + suffix, edges[k], edges[k + 1]))
    return out


def owners(code, base, parts):
    """The region of each instruction: its own, or for a retry loop after
    the last EXIT the region of the branch that jumps to it."""
    owner = [None] * len(code)
    for r, (_, begin, end) in enumerate(parts):
        for i in range(begin, end):
            owner[i] = r
    index = {addr: i for i, (addr, *_) in enumerate(code)}
    end = last_exit(code)
    entries = {}
    for i in range(end + 1):
        m = BRANCH.search(code[i][2])
        target = index.get(int(m.group(1), 16) - base) if m else None
        if target is not None and target > end:
            entries.setdefault(target, owner[i])
    current = None
    for i in range(end + 1, len(code)):
        current = entries.get(i, current)
        owner[i] = current
    return owner


def report(instructions, code, base, parts, top, out):
    total = sum(s for _, _, s, _ in instructions) or 1
    kind = kinds(code)
    owner = owners(code, base, parts)
    print(f"{total} samples", file=out)
    for r, (label, begin, end) in enumerate(parts):
        chunk = [i for i in range(len(instructions)) if owner[i] == r]
        mine = sum(instructions[i][2] for i in chunk)
        waits = collections.Counter()
        for i in chunk:
            if kind[i] and instructions[i][2]:
                waits[kind[i]] += instructions[i][2]
        issuing = sum(instructions[i][3].get("selected", 0) for i in chunk)
        shares = ", ".join(f"{k} {100 * v / total:.1f}%" for k, v in waits.most_common())
        print(f"{label} (0x{instructions[begin][0]:04x}-0x{instructions[end - 1][0]:04x}): "
              f"{100 * mine / total:.1f}% of the samples; issuing "
              f"{100 * issuing / total:.1f}%{'; ' + shares if shares else ''}", file=out)
        hottest = sorted(chunk, key=lambda i: -instructions[i][2])[:top]
        for i in hottest:
            addr, text, samples, reasons = instructions[i]
            if not samples:
                break
            reason = max(reasons, key=reasons.get) if reasons else "?"
            print(f"  0x{addr:04x} {100 * samples / total:5.1f}%  {reason:<12} {text}",
                  file=out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="ncu --page source --print-source sass --csv output")
    ap.add_argument("--mlir", help="the kernel's .mlir, to name the partitions")
    ap.add_argument("--split", default="",
                    help="comma-separated offsets (0x...) where a region is cut further")
    ap.add_argument("--top", type=int, default=6,
                    help="instructions listed per region (default 6)")
    a = ap.parse_args(argv)
    instructions, base = load(a.csv)
    code = as_code(instructions)
    names = []
    if a.mlir:
        tle_opt = os.environ.get("TLE_OPT") or shutil.which("tle-opt")
        if not tle_opt:
            sys.exit("ncu_stalls: tle-opt not found (put it on PATH or set $TLE_OPT)")
        names = partition_sass.region_names(code[:last_exit(code) + 1],
                                            partition_sass.partition_names(a.mlir, tle_opt))
    try:
        split = [int(x, 16) for x in a.split.split(",") if x]
    except ValueError:
        ap.error(f"--split takes hexadecimal offsets such as 0x7740, not '{a.split}'")
    report(instructions, code, base, regions(code, split, names), a.top, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
