#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Feeds a tool damaged copies of MLIR files and fails if any input crashes it.

Each copy is cut at a random point, has a random line dropped or duplicated,
or has random characters replaced. The tool must answer every input with exit
status 0 or 1; a signal, any other status, a timeout or a stack dump counts
as a crash. The seed is fixed so that a failure can be replayed.
"""

import argparse
import random
import subprocess
import sys

GARBAGE = list("%^@#!(){}[]<>:=,\"'-0123456789xyz \n") + ["tle.", "-> ", "memref<"]


def mutate(text: str, rng: random.Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return text[: rng.randrange(len(text) + 1)]
    lines = text.splitlines(keepends=True)
    if kind == 1 and lines:
        del lines[rng.randrange(len(lines))]
        return "".join(lines)
    if kind == 2 and lines:
        i = rng.randrange(len(lines))
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
        return "".join(lines)
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        if chars:
            chars[rng.randrange(len(chars))] = rng.choice(GARBAGE)
    return "".join(chars)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--tool-arg", action="append", default=[])
    parser.add_argument("inputs", nargs="+")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    sources = [open(path).read() for path in args.inputs]
    crashes = 0
    for i in range(args.count):
        text = mutate(rng.choice(sources), rng)
        try:
            run = subprocess.run([args.tool, *args.tool_arg, "-"], input=text,
                                 capture_output=True, text=True,
                                 timeout=args.timeout)
            bad = (run.returncode not in (0, 1)
                   or "Stack dump" in run.stderr
                   or "Assertion" in run.stderr)
            reason = f"exit status {run.returncode}"
        except subprocess.TimeoutExpired:
            bad, reason = True, f"no answer within {args.timeout} s"
        if bad:
            crashes += 1
            print(f"mutation {i} (seed {args.seed}): {reason}; input:\n{text}",
                  file=sys.stderr)
    print(f"{args.count - crashes} passed, {crashes} failed")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
