# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import importlib.util
import os
import sys

PYTHON = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The checkout the tests belong to.
REPO = os.path.dirname(PYTHON)

# An installed tle (the wheel) is tested as it is; without one, the
# checkout's sources are.
if importlib.util.find_spec("tle") is None:
    sys.path.insert(0, PYTHON)


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device and Triton")
