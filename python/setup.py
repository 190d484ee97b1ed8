"""The wheel's tag. It holds libtle_runtime.so, a native library that
tle.runtime loads with ctypes, and tle._launch, an extension module built
with the limited API (abi3, Python 3.9+) that tle.runtime does without
where it cannot import it: the wheel is for one platform but for any
Python 3 on it (py3-none-PLATFORM), so that one built with Python 3.11
installs on 3.12. Everything else is in pyproject.toml."""

from setuptools import setup
from setuptools.dist import Distribution

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1 has it from the wheel package
    from wheel.bdist_wheel import bdist_wheel


class PlatformDistribution(Distribution):
    """Platform-specific: installed as a whole into platlib."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self):
        return "py3", "none", super().get_tag()[2]


setup(distclass=PlatformDistribution, cmdclass={"bdist_wheel": PlatformWheel})
