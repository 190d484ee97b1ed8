#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Fuzzes tle-opt with mutations of the test corpus, looking for kernels the
protocol check mishandles.

Every input is one split (`// -----`) of a .mlir file under test/,
kernels/ or examples/, damaged by one to three mutations: the text ones of
mutate_inputs.py (cut, line dropped or repeated, characters replaced) and
ones that keep it parseable more often (a number changed, two lines
swapped, a value or a lifecycle op replaced by another). Each runs through
`tle-opt --tle-derive-sync`; what that accepts also runs through
`tle-opt --tle-to-llvm`. A finding is

  crash      a signal, an exit status other than 0 or 1, a stack dump;
  hang       no answer within --timeout seconds;
  broken     accepted by the check, then rejected by the lowering with
             internal errors only (messages that blame the compiler, not
             the kernel, listed in INTERNAL_ERRORS).

Seeds are deterministic: input i of seed s is the same on every machine, so
a finding replays with --seed s --first i --count 1. Findings are printed
with their input (and written to --save DIR); the exit status is 1 when
there is one.
"""

import argparse
import concurrent.futures
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mutate_inputs import mutate as damage  # noqa: E402

# Messages that mean the compiler, not the kernel, is wrong: a pass that
# needs one the pipeline already ran, an op no pattern lowers, LLVM's own
# fatal errors.
INTERNAL_ERRORS = [
    "failed to legalize",
    "run --tle-",
    "has no slot and parity yet",
    "has no derived barriers",
    "cannot carry the deferred release",
    "LLVM ERROR",
    "UNREACHABLE",
    "Assertion",
    "failed to materialize",
]

NUMBER = re.compile(r"(?<![\w.%#@])-?\d+(?![\w.])")
VALUE = re.compile(r"%[A-Za-z_][\w$.]*|%\d+")
SWAPS = [("tle.acquire", "tle.wait"), ("tle.commit", "tle.release"),
         ("pending(0)", "pending(1)"), ("one_shot", ""),
         ("scf.for", "scf.for"), ("warps(4)", "warps(2)"),
         ("warps(8)", "warps(1)"), ("capacity 2", "capacity 1"),
         ("arith.addi", "arith.subi"), ("arith.divui", "arith.muli"),
         ("gpu.block_id", "gpu.thread_id"), ("reader \"", "reader \"x")]


def tweak_number(text, rng):
    numbers = list(NUMBER.finditer(text))
    if not numbers:
        return text
    m = rng.choice(numbers)
    n = int(m.group())
    new = rng.choice([0, 1, 2, -1, n + 1, n - 1, 2 * n, 1 << rng.randrange(64)])
    return text[:m.start()] + str(new) + text[m.end():]


def swap_lines(text, rng):
    lines = text.splitlines(keepends=True)
    if len(lines) < 2:
        return text
    i = rng.randrange(len(lines) - 1)
    j = min(len(lines) - 1, i + rng.randrange(1, 4))
    lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines)


def replace_value(text, rng):
    uses = list(VALUE.finditer(text))
    if len(uses) < 2:
        return text
    m = rng.choice(uses)
    return text[:m.start()] + rng.choice(uses).group() + text[m.end():]


def swap_words(text, rng):
    a, b = rng.choice(SWAPS)
    if rng.randrange(2):
        a, b = b, a
    spots = [m.start() for m in re.finditer(re.escape(a), text)]
    if not spots:
        return text
    at = rng.choice(spots)
    return text[:at] + b + text[at + len(a):]


MUTATIONS = [damage, tweak_number, swap_lines, replace_value, swap_words,
             tweak_number, swap_words, replace_value]


def mutate(text, rng):
    for _ in range(rng.randint(1, 3)):
        text = rng.choice(MUTATIONS)(text, rng)
    return text


def load_corpus(root):
    chunks = []
    for folder in ("test", "kernels", "examples"):
        for dirpath, _, files in sorted(os.walk(os.path.join(root, folder))):
            for name in sorted(files):
                if not name.endswith(".mlir"):
                    continue
                with open(os.path.join(dirpath, name)) as f:
                    text = f.read()
                chunks += [c for c in re.split(r"(?m)^// -----\n", text)
                           if "tle." in c]
    return chunks


def run(tool, args, text, timeout):
    """(finding or None, exit status)."""
    try:
        p = subprocess.run([tool, *args, "-", "-o", "/dev/null"], input=text,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"hang in {' '.join(args)}", None
    if p.returncode not in (0, 1) or "Stack dump" in p.stderr:
        return f"crash in {' '.join(args)} (exit status {p.returncode})", None
    return None, (p.returncode, p.stderr)


def check(tool, text, timeout):
    """(finding or None, how far the input got)."""
    finding, result = run(tool, ["--tle-derive-sync"], text, timeout)
    if finding or result[0] != 0:
        return finding, "rejected"
    finding, result = run(tool, ["--tle-to-llvm"], text, timeout)
    if finding or result[0] == 0:
        return finding, "lowered"
    # The lowering may follow a good message with an internal one (a
    # pattern that reported why it failed, then the driver's "failed to
    # legalize"): only errors that are all internal are a finding.
    errors = [line for line in result[1].splitlines() if "error:" in line]
    if errors and all(any(e in line for e in INTERNAL_ERRORS)
                      for line in errors):
        return "broken: accepted by --tle-derive-sync, then " + errors[0], \
            "accepted"
    return None, "accepted"


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--tool", required=True, help="the tle-opt binary")
    parser.add_argument("--root", default=os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))),
                        help="the source tree whose test/, kernels/ and examples/ "
                             "make the corpus")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--first", type=int, default=0,
                        help="the index of the first input")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--save", help="write each finding's input here")
    args = parser.parse_args()

    corpus = load_corpus(args.root)

    def make(i):
        rng = random.Random(f"{args.seed}:{i}")
        return mutate(rng.choice(corpus), rng)

    indices = range(args.first, args.first + args.count)
    findings = []
    reached = {"rejected": 0, "accepted": 0, "lowered": 0}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = pool.map(lambda i: (i, check(args.tool, make(i),
                                               args.timeout)), indices)
        for i, (finding, stage) in results:
            reached[stage] += 1
            if finding:
                findings.append(i)
                print(f"input {i} (seed {args.seed}): {finding}; input:\n"
                      f"{make(i)}", file=sys.stderr)
                if args.save:
                    os.makedirs(args.save, exist_ok=True)
                    with open(os.path.join(args.save, f"{args.seed}-{i}.mlir"),
                              "w") as f:
                        f.write(make(i))
    print(f"{args.count} inputs, {len(findings)} findings")
    print(f"rejected by --tle-derive-sync: {reached['rejected']}, accepted "
          f"but not lowered: {reached['accepted']}, lowered: "
          f"{reached['lowered']}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
