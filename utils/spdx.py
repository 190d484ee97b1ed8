#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Checks that every source file of a TLE checkout names its license.

    spdx.py ROOT          list the tracked sources without the SPDX line
                          (exit status 1 if there are any)
    spdx.py ROOT --add    add the line where it is missing

A source is a C, C++, CUDA, TableGen, Python, shell or CMake file that git
tracks (test inputs and generated or copied data are not sources). The
line goes where the file's own conventions leave room for it: into an
LLVM-style banner, after a shebang or a mode line, or at the top. Standard library only.
"""

import argparse
import os
import subprocess
import sys

LICENSE = "Apache-2.0 WITH LLVM-exception"
TAG = "SPDX-License-Identifier: " + LICENSE
C_STYLE = (".c", ".cpp", ".cu", ".h", ".td")
HASH_STYLE = (".py", ".sh", ".cmake", ".toml", ".py.in", ".cfg")
# Files named like sources that are not sources: inputs of tests, and the
# tutorial's programs, which test/docs/tutorial.test checks are exact
# copies of the snippets in docs/Tutorial.md.
NOT_OURS = ("test/utils/Inputs/", "docs/tutorial/")
# How far into a file the line may sit (after a banner and a shebang).
HEAD = 600


def is_source(path):
    if path.startswith(NOT_OURS):
        return False
    name = os.path.basename(path)
    return (path.endswith(C_STYLE + HASH_STYLE) or name == "CMakeLists.txt"
            or path in (".ci/run", "utils/tle.sh"))


def tracked(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"],
                             check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as err:
        sys.exit(f"spdx.py: {root} is not a git checkout ({err})")
    return [p for p in out.split("\0") if p]


def with_tag(path, text):
    """Returns the text of `path` with the SPDX line added."""
    lines = text.split("\n")
    if path.endswith(C_STYLE):
        if lines[0].startswith("//===-"):
            # An LLVM banner; clang-format may have broken it in two.
            end = 2 if len(lines) > 1 and lines[1].startswith("//-*-") else 1
            rest = lines[end] if len(lines) > end else ""
            if rest == "//":  # the banner's description follows
                lines[end:end] = ["//", "// " + TAG]
            else:
                lines[end:end] = ["//", "// " + TAG, "//", "//" + "=" * 3
                                  + "-" * 70 + "===//"]
        elif lines[0].startswith("/*===-"):
            body = "|* " + TAG
            lines[2:2] = [body + " " * (77 - len(body)) + "*|", "|*" + " " * 76 + "*|"]
        elif lines[0].startswith("/*"):
            lines[0:0] = ["/* " + TAG + " */", ""]
        else:
            lines[0:0] = ["// " + TAG, "//"] if lines[0].startswith("//") \
                else ["// " + TAG, ""]
    else:
        # After a shebang or an editor's mode line, which must stay first.
        at = 1 if lines[0].startswith("#!") or "-*-" in lines[0] else 0
        lines[at:at] = ["# " + TAG]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root")
    parser.add_argument("--add", action="store_true",
                        help="add the line where it is missing")
    args = parser.parse_args()
    missing = []
    for path in tracked(args.root):
        if not is_source(path):
            continue
        full = os.path.join(args.root, path)
        with open(full, encoding="utf-8") as f:
            text = f.read()
        if TAG in text[:HEAD]:
            continue
        missing.append(path)
        if args.add:
            with open(full, "w", encoding="utf-8") as f:
                f.write(with_tag(path, text))
    if args.add:
        print(f"added the SPDX line to {len(missing)} files")
        return 0
    for path in missing:
        print(f"{path}: no '{TAG}' in its first {HEAD} characters")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
