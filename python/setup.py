# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The wheel's version and tag; everything else is in pyproject.toml.

Version: tle/_version.py's (BASE.N, N the number of commits in the git
history), which the build wrote into the staged copy.

Tag: the wheel holds libtle_runtime.so, a native library that tle.runtime
loads with ctypes, so it is for one platform. Where it also holds
tle._launch, an extension module built with the limited API of Python 3.9,
it is tagged cp39-abi3-PLATFORM (any CPython from 3.9 on); without it it
is pure Python on one platform, py3-none-PLATFORM. PLATFORM is the oldest
manylinux policy that both native libraries meet (wheel_tag.py, which
reads what they link), else linux_x86_64.
"""

import glob
import os
import sys

from setuptools import setup
from setuptools.dist import Distribution

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1 has it from the wheel package
    from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import wheel_tag  # noqa: E402  (beside this file)
VERSION_FILE = os.path.join(HERE, "tle", "_version.py")


def version():
    """The staged tle/_version.py's version (one implementation: that
    file's)."""
    scope = {"__file__": VERSION_FILE}
    exec(compile(open(VERSION_FILE).read(), VERSION_FILE, "exec"), scope)
    return scope["__version__"]


class PlatformDistribution(Distribution):
    """Platform-specific: installed as a whole into platlib."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self):
        libs = sorted(glob.glob(os.path.join(HERE, "tle", "**", "*.so"), recursive=True))
        platform = wheel_tag.platform(libs, super().get_tag()[2])
        if os.path.exists(os.path.join(HERE, "tle", "_launch.abi3.so")):
            return "cp39", "abi3", platform
        return "py3", "none", platform


setup(version=version(), distclass=PlatformDistribution,
      cmdclass={"bdist_wheel": PlatformWheel})
