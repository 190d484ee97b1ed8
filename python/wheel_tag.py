# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The manylinux policy the wheel's native libraries meet (PEP 600).

    python3 wheel_tag.py LIB...   print each library's needs and the tag

A manylinux_2_N wheel may link only the libraries every such Linux has
(glibc's, libstdc++, libgcc_s) and use only the symbol versions that
glibc 2.N and the compilers of that generation provide. `platform(libs,
fallback)` reads each library's DT_NEEDED entries and the symbol versions
it needs with readelf (binutils) and returns the oldest policy that they
all meet, or `fallback` (linux_x86_64) where one needs more, is not
x86-64, or readelf is missing: the tag never claims more than was checked.
auditwheel does the same with a table of every policy, but it needs
pyelftools, which the build does not otherwise, and it cannot read a
module that links no library at all, as tle._launch.
"""

import re
import shutil
import subprocess
import sys

# Oldest first: the newest version of each versioned library that the
# policy allows (auditwheel 6.8's manylinux-policy.json, x86_64).
POLICIES = (
    ("manylinux_2_17_x86_64.manylinux2014_x86_64",
     {"GLIBC": (2, 17), "GLIBCXX": (3, 4, 19), "CXXABI": (1, 3, 7), "GCC": (4, 8, 0)}),
    ("manylinux_2_28_x86_64",
     {"GLIBC": (2, 28), "GLIBCXX": (3, 4, 24), "CXXABI": (1, 3, 11), "GCC": (7, 0, 0)}),
    ("manylinux_2_34_x86_64",
     {"GLIBC": (2, 34), "GLIBCXX": (3, 4, 29), "CXXABI": (1, 3, 13), "GCC": (7, 0, 0)}),
)
# The libraries a manylinux wheel may need without bundling them, of
# those this project's libraries could link.
SYSTEM = {"libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0",
          "libstdc++.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2"}
VERSION = re.compile(r"Name: ([A-Z]+)_([0-9.]+)\s")


class Needs:
    """What one library needs of the system: machine, DT_NEEDED entries
    and, per versioned library (GLIBC, GLIBCXX, ...), the newest version."""

    def __init__(self, path, readelf):
        header = _run([readelf, "-hW", path])
        self.machine = re.search(r"Machine:\s+(.*)", header).group(1).strip()
        self.libraries = set(re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]",
                                        _run([readelf, "-dW", path])))
        self.versions = {}
        versions = _run([readelf, "-VW", path])
        needs = versions.split("Version needs section", 1)
        for name, number in VERSION.findall(needs[1] if len(needs) > 1 else ""):
            number = tuple(int(n) for n in number.split("."))
            self.versions[name] = max(self.versions.get(name, number), number)

    def meets(self, allowed):
        return (self.machine.endswith("X86-64") and self.libraries <= SYSTEM
                and all(name in allowed and number <= allowed[name]
                        for name, number in self.versions.items()))


def _run(argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def platform(libs, fallback):
    """The manylinux tag that every library in `libs` meets, else
    `fallback`."""
    readelf = shutil.which("readelf")
    if not readelf or not libs or not fallback.endswith("x86_64"):
        return fallback
    needs = [Needs(lib, readelf) for lib in libs]
    for tag, allowed in POLICIES:
        if all(n.meets(allowed) for n in needs):
            return tag
    return fallback


def main(libs):
    readelf = shutil.which("readelf")
    if not readelf:
        sys.exit("wheel_tag.py: no readelf (Debian: binutils)")
    for lib in libs:
        n = Needs(lib, readelf)
        versions = ", ".join(f"{k} {'.'.join(map(str, v))}" for k, v in sorted(n.versions.items()))
        print(f"{lib}: {n.machine}; needs {', '.join(sorted(n.libraries)) or 'no library'}"
              f"; symbol versions up to {versions or 'none'}")
    print("tag:", platform(libs, "linux_x86_64"))


if __name__ == "__main__":
    main(sys.argv[1:])
