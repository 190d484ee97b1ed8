#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Extracts the tagged code blocks of a Markdown page and runs them, so that
a test fails when the page and the tools disagree (test/docs/tutorial.test).

    snippets.py PAGE.md OUTDIR

A block is tagged by an HTML comment (invisible on the rendered page) on
the line before its opening fence:

    <!-- file: NAME -->          the block is NAME, or its next part: the
                                 parts of NAME, in page order, make the file
    <!-- patch: SRC -> NAME -->  a ```diff block: its hunks (separated by
                                 lines "@@"; ' ' context, '-' removed,
                                 '+' added) applied to SRC give NAME
    <!-- run -->                 shell commands, run in OUTDIR by bash
                                 (PATH ends with $CUDA_HOME/bin, by default
                                 /usr/local/cuda/bin, for ptxas);
                                 `<!-- run: exit N -->` expects status N
                                 (default 0), `needs TOOL` skips the block
                                 where TOOL is not on PATH, `no-gpu` where
                                 `tle-run --probe` finds a device
    <!-- output -->              what the run block before it prints,
                                 stdout and stderr together; lines are
                                 compared without their leading and
                                 trailing white space, runs of white space
                                 as one space

Files are written before any block runs; every .py file is byte-compiled.
Prints what it did, and for each difference the page's line and a diff;
exits 1 when anything differs or fails.
"""

import difflib
import os
import re
import shutil
import subprocess
import sys

TAG = re.compile(r"^<!--\s*(file|patch|run|output)\s*(?::\s*(.*?))?\s*-->\s*$")
FENCE = re.compile(r"^(```+|~~~+)")


def blocks(page):
    """[(kind, argument, first line number, lines)] of the tagged blocks."""
    lines = page.splitlines()
    found = []
    i = 0
    while i < len(lines):
        tag = TAG.match(lines[i])
        if not tag:
            i += 1
            continue
        fence = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if not fence:
            raise SystemExit(f"line {i + 1}: a tag must stand right above a fenced block")
        end = i + 2
        while end < len(lines) and not lines[end].startswith(fence.group(1)):
            end += 1
        if end == len(lines):
            raise SystemExit(f"line {i + 2}: the block never ends")
        found.append((tag.group(1), tag.group(2) or "", i + 3, lines[i + 2:end]))
        i = end + 1
    return found


def apply_patch(source, hunks, where):
    """`source` (lines) with every hunk of the diff applied, in order."""
    result = list(source)
    for hunk in hunks:
        old = [line[1:] for line in hunk if line[:1] in (" ", "-")]
        new = [line[1:] for line in hunk if line[:1] in (" ", "+")]
        bad = [line for line in hunk if line[:1] not in (" ", "-", "+")]
        if bad:
            raise SystemExit(f"line {where}: a diff line starts with ' ', '-' or '+': {bad[0]!r}")
        at = [i for i in range(len(result) - len(old) + 1) if result[i:i + len(old)] == old]
        if len(at) != 1:
            raise SystemExit(f"line {where}: a hunk's old lines occur {len(at)} times "
                             f"in the file, not once:\n" + "\n".join(old))
        result[at[0]:at[0] + len(old)] = new
    return result


def split_hunks(lines):
    hunks, current = [], []
    for line in lines:
        if line.startswith("@@"):
            if current:
                hunks.append(current)
            current = []
        else:
            current.append(line)
    if current:
        hunks.append(current)
    return hunks


def normalized(text):
    lines = [" ".join(line.split()) for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def tool_path():
    """PATH for the run blocks: the caller's, then the CUDA toolkit's."""
    cuda = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin")
    return os.pathsep.join(filter(None, [os.environ.get("PATH"), cuda]))


def has_gpu(path):
    tle_run = shutil.which("tle-run", path=path)
    return bool(tle_run) and subprocess.run(
        [tle_run, "--probe"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL).returncode == 0


def write_files(tagged, outdir):
    files = {}
    for kind, argument, line, body in tagged:
        if kind == "file":
            files.setdefault(argument, []).extend(body)
        elif kind == "patch":
            source, _, name = (part.strip() for part in argument.partition("->"))
            if source not in files:
                raise SystemExit(f"line {line}: patch of {source}, which no block before it is")
            files[name] = apply_patch(files[source], split_hunks(body), line)
    for name, body in files.items():
        with open(os.path.join(outdir, name), "w") as f:
            f.write("\n".join(body) + "\n")
        if name.endswith(".py"):
            compile("\n".join(body) + "\n", name, "exec")
        print(f"wrote {name} ({len(body)} lines)")


def run_blocks(tagged, outdir):
    failures, last = 0, None
    path = tool_path()
    env = dict(os.environ, PATH=path)
    for kind, argument, line, body in tagged:
        if kind == "run":
            words = argument.replace(",", " ").split()
            expected = int(words[words.index("exit") + 1]) if "exit" in words else 0
            needs = words[words.index("needs") + 1] if "needs" in words else None
            skip = (f"{needs} is not on PATH" if needs and not shutil.which(needs, path=path)
                    else "a GPU is here" if "no-gpu" in words and has_gpu(path) else None)
            last = None
            if skip:
                print(f"line {line}: skipped ({skip})")
                continue
            done = subprocess.run(["bash", "-o", "pipefail", "-c", "\n".join(body)],
                                  cwd=outdir, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
            last = (line, done.stdout)
            if done.returncode != expected:
                failures += 1
                print(f"line {line}: exit status {done.returncode}, the page says "
                      f"{expected}; output:\n{done.stdout}")
            else:
                print(f"line {line}: ran, exit status {expected}")
        elif kind == "output":
            if last is None:
                continue
            run_line, text = last
            if normalized(text) != normalized("\n".join(body)):
                failures += 1
                diff = difflib.unified_diff(normalized("\n".join(body)), normalized(text),
                                            "the page", "the tools", lineterm="")
                print(f"line {line}: the output of the block at line {run_line} differs "
                      f"from the page:\n" + "\n".join(diff))
            else:
                print(f"line {line}: output as shown")
            last = None
    return failures


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    with open(argv[1]) as f:
        tagged = blocks(f.read())
    os.makedirs(argv[2], exist_ok=True)
    write_files(tagged, argv[2])
    failures = run_blocks(tagged, argv[2])
    if failures:
        print(f"{failures} block(s) of {argv[1]} disagree with the tools")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
