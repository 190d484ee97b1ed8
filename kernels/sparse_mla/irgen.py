# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What the generators of this folder share: the IR templates' two rules,
aligned tables for FileCheck lines, and writing or checking the generated
files. Standard library only.

A template is IR text with `$name` placeholders (string.Template; MLIR
has no `$`) and optional lines: a line that starts with `?flag ` is kept
where `flag` is true, one that starts with `?!flag ` where it is false,
and the tag goes, so that a template reads as the IR it writes; a line
with several tags (`?wg0 ?!split `) is kept where all of them hold.
"""

import difflib
import os
import re
import string
import sys

_TAG = re.compile(r"\?(!?)(\w+) ")


def expand(template, flags, **values):
    """`template` with the lines that `flags` leaves out dropped and the
    placeholders replaced by `values`."""
    lines = []
    for line in template.splitlines():
        keep = True
        tag = _TAG.match(line)
        while tag:
            keep = keep and bool(flags[tag.group(2)]) != bool(tag.group(1))
            line = line[tag.end():]
            tag = _TAG.match(line)
        if keep:
            lines.append(string.Template(line).substitute(values))
    return "\n".join(lines) + "\n"


def indent(text, spaces):
    """`text` with every non-empty line moved right by `spaces`."""
    pad = " " * spaces
    return "".join(pad + line if line.strip() else line
                   for line in text.splitlines(keepends=True))


def table(rows, indent_by=2):
    """Rows of cells as lines of aligned columns (two spaces apart); the
    last column is not padded."""
    widths = [max(len(row[c]) for row in rows if c < len(row))
              for c in range(max(len(row) for row in rows))]
    return [(" " * indent_by + "  ".join(
        cell.ljust(widths[c]) if c + 1 < len(row) else cell
        for c, cell in enumerate(row))).rstrip() for row in rows]


def main(here, generated, render, parser, params_of, argv):
    """The command line of a generator: with --write, `render(params)`
    into each `generated` file (name -> params, in folder `here`); with
    --check, compare them; else `render(params_of(options))` to -o or
    stdout. `parser` is an argparse parser with the generator's own
    options."""
    parser.add_argument("--write", action="store_true",
                        help="rewrite every committed file this generator makes")
    parser.add_argument("--check", action="store_true",
                        help="fail if a committed file differs from what it makes")
    parser.add_argument("-o", "--output", help="the file to write (default stdout)")
    a = parser.parse_args(argv)
    if a.write or a.check:
        stale = []
        for name, params in generated.items():
            path = os.path.join(here, name)
            text = render(params)
            if a.write:
                with open(path, "w") as f:
                    f.write(text)
                continue
            with open(path) as f:
                old = f.read()
            if old != text:
                stale.append(name)
                sys.stdout.writelines(difflib.unified_diff(
                    old.splitlines(keepends=True), text.splitlines(keepends=True),
                    name, name + " (generated)"))
        if stale:
            sys.stdout.flush()
            print(f"error: {', '.join(stale)}: not what {os.path.basename(sys.argv[0])} "
                  f"generates now; run it with --write", file=sys.stderr)
            return 1
        return 0
    text = render(params_of(a))
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0
