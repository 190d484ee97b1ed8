#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What each partition of a compiled TLE kernel executes per loop trip.

    utils/partition_sass.py KERNEL.cubin [--mlir KERNEL.mlir] [--sass-out F]
    utils/partition_sass.py --sass KERNEL.sass [--mlir KERNEL.mlir]

Disassembles the cubin with cuobjdump (the CUDA toolkit's: $CUOBJDUMP, else
the one on PATH, else $CUDA_HOME/bin's, CUDA_HOME defaulting to
/usr/local/cuda), splits the SASS into the partitions of its tle.warp_specialize
and prints, for each partition, its loops (a backward branch and the code
it jumps over) with their instruction counts by kind: tensor-core
multiplies, their fences and waits, global copies and loads, shared-memory
accesses, barriers, floating-point, integer and the rest. That is the cost
of one trip of a main loop, per partition, without a profiler.

A partition starts where the lowering raises or lowers its register budget
(USETMAXREG). With --mlir the partitions are named after the kernel's sync
plan (`tle-opt --tle-derive-sync --tle-sync-plan`, $TLE_OPT or tle-opt on
PATH), in the order tle.warp_specialize declares them; without it they are
numbered. A kernel whose partitions all keep the entry budget has no
USETMAXREG and is reported as one region.

A loop whose multiplies a warp vote guards (tle.scale: VOTE.ANY P, then
a forward branch @!P over the multiplies) also gets the count of a trip
in which every vote comes out false.
"""

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys

# One SASS instruction line: /*0a30*/  [@P0] OPCODE operands ;
LINE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)(.*?);")
BRANCH_TARGET = re.compile(r"\b0x([0-9a-f]+)\b")

# Kinds, first match wins, on the opcode without its modifiers.
KINDS = [
    ("tensor", {"HGMMA", "HMMA", "IMMA"}),
    ("tensor sync", {"WARPGROUP"}),
    ("global copy", {"LDGSTS", "UBLKCP", "UTMALDG", "UTMASTG", "UTMAPF"}),
    ("global load/store", {"LDG", "STG", "LD", "ST", "RED", "ATOMG"}),
    ("shared", {"LDS", "STS", "LDSM", "STSM", "ATOMS"}),
    ("barrier", {"SYNCS", "BAR", "WARPSYNC", "DEPBAR", "MEMBAR", "FENCE", "ERRBAR"}),
    ("float", {"FFMA", "FMUL", "FADD", "FMNMX", "MUFU", "FSEL", "FSETP", "F2F",
               "F2FP", "FCHK", "FSET", "HADD2", "HMUL2", "HFMA2"}),
    ("integer", {"IMAD", "IADD3", "LOP3", "SHF", "LEA", "ISETP", "IMNMX", "SEL",
                 "PRMT", "IABS", "POPC", "FLO", "BREV", "SGXT", "UIMAD",
                 "UIADD3", "ULOP3", "USHF", "ULEA", "UISETP", "USEL", "UPRMT",
                 "I2F", "F2I", "I2FP", "F2IP"}),
    ("move", {"MOV", "UMOV", "S2R", "S2UR", "R2UR", "CS2R", "SHFL", "VOTE",
              "VOTEU", "P2R", "R2P", "PLOP3", "UPLOP3", "ULDC", "LDC"}),
    ("branch", {"BRA", "BSSY", "BSYNC", "EXIT", "RET", "CALL", "NOP", "YIELD",
                "ELECT", "WARPGROUP.ARRIVE"}),
]


def kind_of(opcode):
    base = opcode.split(".")[0]
    for kind, names in KINDS:
        if base in names or opcode in names:
            return kind
    return "other"


def parse(sass):
    """[(address, opcode, text, predicated)] of the first kernel in
    cuobjdump's output."""
    out = []
    for line in sass.splitlines():
        m = LINE.match(line)
        if m:
            out.append((int(m.group(1), 16), m.group(3), line.strip(),
                        m.group(2) is not None))
    return out


def split_partitions(code):
    """[(start index, end index)] of the code of each partition: from one
    USETMAXREG to the next (the first region starts at the first one; what
    precedes it is the kernel's prologue and dispatch)."""
    starts = [i for i, (_, op, _, _) in enumerate(code) if op.startswith("USETMAXREG")]
    if not starts:
        return [(0, len(code))]
    bounds = starts + [len(code)]
    return [(bounds[i], bounds[i + 1]) for i in range(len(starts))]


def loops(code, begin, end):
    """The loops in code[begin:end], outermost first, as [(first, last)]
    index ranges: a predicated branch back to an earlier address closes a
    loop (ptxas ends an scf.for that way). The retry loops of barrier waits,
    which ptxas moves out of line (a few instructions around a SYNCS try-wait
    that branch back into the code they wait for), are counted apart:
    returns (loops, number of wait loops)."""
    index = {addr: i for i, (addr, *_) in enumerate(code)}
    found, waits = [], 0
    for i in range(begin, end):
        addr, op, text, predicated = code[i]
        if not op.startswith("BRA") or not predicated:
            continue
        m = BRANCH_TARGET.search(text.split(op, 1)[1])
        if not m:
            continue
        target = int(m.group(1), 16)
        if target >= addr or target not in index or index[target] < begin:
            continue
        first = index[target]
        body = [c[1] for c in code[first:i + 1]]
        if len(body) <= 8 and any(o.startswith("SYNCS.PHASECHK") for o in body):
            waits += 1
            continue
        found.append((first, i))
    found.sort(key=lambda r: (r[0], -r[1]))
    return found, waits


def voted_skips(code, first, last):
    """Instructions of code[first:last + 1] that a warp jumps over when
    every warp vote in it comes out false: the multiplies of a tle.scale,
    which its lowering guards by VOTE.ANY P and a forward branch @!P."""
    index = {addr: i for i, (addr, *_) in enumerate(code)}
    skipped = 0
    for i in range(first, last + 1):
        text = code[i][2]
        m = re.search(r"\bVOTE\.ANY\s+(P\d)\b", text)
        if not m:
            continue
        guard = re.compile(r"@!" + m.group(1) + r"\s+BRA\b")
        for j in range(i + 1, last + 1):
            _, op, text, _ = code[j]
            if op.startswith("VOTE"):
                break
            if not guard.search(text):
                continue
            target = BRANCH_TARGET.search(text.split(op, 1)[1])
            end = index.get(int(target.group(1), 16)) if target else None
            if end is not None and j < end <= last + 1:
                skipped += end - j - 1
            break
    return skipped


def histogram(code, first, last):
    counts = collections.Counter(kind_of(c[1]) for c in code[first:last + 1])
    return counts


def fail(message):
    """Ends the run with `message` on stderr and exit status 1."""
    sys.exit(f"partition_sass: {message}")


def read(path, what):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        fail(f"cannot read the {what} {path}: {e.strerror}")


def run(tool, args, what):
    """`tool args` with its output; a tool that cannot be started ends the
    run with why."""
    try:
        return subprocess.run([tool] + args, capture_output=True, text=True)
    except OSError as e:
        fail(f"cannot run {what} {tool}: {e.strerror}")


def find_cuobjdump(environ=os.environ):
    """$CUOBJDUMP, else cuobjdump on PATH, else in $CUDA_HOME/bin
    ($CUDA_HOME defaults to /usr/local/cuda, where the toolkit installs
    without putting itself on PATH); None where there is none."""
    if environ.get("CUOBJDUMP"):
        return environ["CUOBJDUMP"]
    found = shutil.which("cuobjdump", path=environ.get("PATH"))
    if found:
        return found
    beside = os.path.join(environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "cuobjdump")
    return beside if os.access(beside, os.X_OK) else None


def partition_names(mlir, tle_opt):
    """Names and budgets from the sync plan's partition table, in order."""
    plan = run(tle_opt, [mlir, "--tle-derive-sync", "--tle-sync-plan", "-o", os.devnull],
               "tle-opt")
    if plan.returncode != 0:
        fail(f"tle-opt failed on {mlir}:\n{plan.stderr}")
    rows, table = [], False
    for line in plan.stdout.splitlines():
        if line.strip().startswith("partition "):
            table = True
            continue
        if table:
            fields = line.split()
            if len(fields) < 4 or not fields[1].isdigit():
                break
            rows.append((fields[0], int(fields[1]), int(fields[3])))
    return rows


def region_names(code, partitions):
    """A label per region of split_partitions: the partitions of the sync
    plan, matched in order by the budget their USETMAXREG sets. A partition
    that keeps the entry budget has no USETMAXREG, so its code stays in the
    region before it; the label says so."""
    budgets = []
    for begin, _ in split_partitions(code):
        op_text = code[begin][2]
        m = re.search(r"0x([0-9a-f]+)\s*;", op_text)
        budgets.append(int(m.group(1), 16) if m else None)
    labels, p = [], 0
    for budget in budgets:
        label = None
        while p < len(partitions):
            name, warps, registers = partitions[p]
            p += 1
            text = f"{name} ({warps} warps, {registers} registers)"
            if registers == budget or budget is None:
                label = text
                break
            if labels:
                labels[-1] += f" + {text}: no USETMAXREG, its code follows"
        labels.append(label or "?")
    for name, warps, registers in partitions[p:]:
        labels[-1] += (f" + {name} ({warps} warps, {registers} registers): "
                       f"no USETMAXREG, its code follows")
    return labels


def report(code, names, out):
    order = [k for k, _ in KINDS] + ["other"]
    for p, (begin, end) in enumerate(split_partitions(code)):
        name = names[p] if p < len(names) else f"partition {p}"
        print(f"{name}: {end - begin} instructions at "
              f"0x{code[begin][0]:04x}-0x{code[end - 1][0]:04x}", file=out)
        found, waits = loops(code, begin, end)
        if not found:
            print("  no loop", file=out)
        for first, last in found:
            counts = histogram(code, first, last)
            parts = ", ".join(f"{counts[k]} {k}" for k in order if counts[k])
            print(f"  loop 0x{code[first][0]:04x}-0x{code[last][0]:04x}: "
                  f"{last - first + 1} instructions per trip: {parts}", file=out)
            skipped = voted_skips(code, first, last)
            if skipped:
                print(f"    {last - first + 1 - skipped} when every warp skips "
                      f"its tle.scale multiplies ({skipped} guarded by a vote)",
                      file=out)
        if waits:
            print(f"  ({waits} barrier-wait retry loops, out of line)", file=out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cubin", nargs="?", help="the kernel, assembled by ptxas")
    ap.add_argument("--sass", help="read this cuobjdump -sass output instead")
    ap.add_argument("--mlir", help="the kernel's .mlir, to name the partitions")
    ap.add_argument("--sass-out", help="also write the disassembly here")
    a = ap.parse_args(argv)
    if bool(a.cubin) == bool(a.sass):
        ap.error("give a cubin or --sass FILE")
    if a.sass:
        sass = read(a.sass, "disassembly")
    else:
        if not os.path.isfile(a.cubin):
            fail(f"no cubin {a.cubin}")
        tool = find_cuobjdump()
        if not tool:
            fail("cuobjdump not found (not on PATH, nor in $CUDA_HOME/bin, "
                 "CUDA_HOME defaulting to /usr/local/cuda): install the CUDA "
                 "toolkit, set $CUOBJDUMP, "
                 "or disassemble elsewhere (cuobjdump -sass K.cubin > K.sass) "
                 "and pass --sass K.sass")
        done = run(tool, ["-sass", a.cubin], "cuobjdump")
        if done.returncode != 0:
            fail(f"{tool} failed: {done.stderr.strip()}")
        sass = done.stdout
    if a.sass_out:
        try:
            with open(a.sass_out, "w") as f:
                f.write(sass)
        except OSError as e:
            fail(f"cannot write {a.sass_out}: {e.strerror}")
    code = parse(sass)
    if not code:
        fail("no SASS instructions found")
    names = []
    if a.mlir:
        tle_opt = os.environ.get("TLE_OPT") or shutil.which("tle-opt")
        if not tle_opt:
            fail("tle-opt not found (put it on PATH or set $TLE_OPT)")
        names = region_names(code, partition_names(a.mlir, tle_opt))
    report(code, names, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
