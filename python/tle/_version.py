# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The package's version, BASE.N with N the number of commits in the git
history it was built from: every commit that lands gives a larger version,
so `pip install` of a newer wheel upgrades an older one.

The wheel's build (python/cmake/StageVersion.cmake) writes VERSION into
the staged copy of this file; in a source checkout VERSION is None and the
version is asked of git when first imported."""

BASE = "0.2"
VERSION = None


def from_git(folder):
    """BASE.N for the checkout that holds `folder`, or BASE.0+unknown."""
    import subprocess
    try:
        count = subprocess.run(["git", "-C", folder, "rev-list", "--count", "HEAD"],
                               capture_output=True, text=True, check=True,
                               timeout=10)
        return f"{BASE}.{int(count.stdout)}"
    except (OSError, subprocess.SubprocessError, ValueError):
        return f"{BASE}.0+unknown"


if VERSION is None:
    import os
    __version__ = from_git(os.path.dirname(os.path.abspath(__file__)))
else:
    __version__ = VERSION
