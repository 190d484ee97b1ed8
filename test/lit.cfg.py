# -*- Python -*-
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# lit configuration for TLE's CPU-side regression tests.

import glob
import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TLE " + config.tle_suite
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.join(config.tle_src_root, config.tle_suite)
config.test_exec_root = os.path.join(config.tle_obj_root, config.tle_suite)
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tle_tools_dir, append_path=True)

tool_dirs = [config.tle_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["tle-opt", "tle-translate", "tle-run"],
                                   tool_dirs)

# The GoogleTest binaries of the runtime and of tle-run, when GoogleTest was
# found.
for feature, path in (
        ("runtime-unittests", ("Runtime", "tle-runtime-unittests")),
        ("tle-run-unittests", ("tools", "tle-run", "tle-run-unittests"))):
    binary = os.path.join(config.tle_obj_root, "unittests", *path)
    if os.path.exists(binary):
        config.available_features.add(feature)
        config.substitutions.append(("%" + path[-1].replace("-", "_"), binary))

# Tests that expect "no CUDA device" are unsupported where there is one.
tle_run = os.path.join(config.tle_tools_dir, "tle-run")
if os.path.exists(tle_run):
    import subprocess
    probe = subprocess.run([tle_run, "--probe"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    if probe.returncode == 0:
        config.available_features.add("cuda-device")

# tle-opt's test passes of the analyses (tle-test-*), which
# test/Dialect/TLE/Analysis runs.
if config.tle_include_tests:
    config.available_features.add("tle-test-passes")

# The kernels and examples live outside test/ but carry their own RUN lines.
config.substitutions.append(("%tle_src_root", config.tle_src_root))
config.substitutions.append(("%tle_obj_root", config.tle_obj_root))

# The GoogleTest binary of lib/Problems; absent where libgtest-dev is not.
problems_tests = os.path.join(config.tle_obj_root, "unittests", "Problems",
                              "TLEProblemsTests")
if os.path.exists(problems_tests):
    config.available_features.add("problems-unittests")
    config.substitutions.append(("%tle_problems_tests", problems_tests))

# ptxas from the CUDA toolkit, when the machine has one.
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas"
    if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
# libdevice, which tle-translate links for math without an instruction.
libdevice = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                         "nvvm", "libdevice", "libdevice.10.bc")
if os.path.exists(libdevice):
    config.available_features.add("libdevice")

if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# nvcc from the CUDA toolkit, which compiles the CUDA probes of bench/.
nvcc = shutil.which("nvcc") or (
    "/usr/local/cuda/bin/nvcc"
    if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
if nvcc:
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc))

# A git checkout, whose tracked files utils/spdx.py checks (test/utils).
if shutil.which("git") and os.path.exists(os.path.join(config.tle_src_root, ".git")):
    config.available_features.add("git-checkout")

# The wheel of the Python package, and Debian's Python with pytest to test
# it (test/python).
wheels = sorted(glob.glob(os.path.join(config.tle_obj_root, "wheels", "tle_mlir-*.whl")),
                key=os.path.getmtime)
if config.tle_python and wheels:
    config.available_features.add("python-wheel")
    config.substitutions.append(("%tle_python", config.tle_python))
    config.substitutions.append(("%tle_wheel", wheels[-1]))
    import subprocess
    if subprocess.run([config.tle_python, "-c", "import pytest"],
                      stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode == 0:
        config.available_features.add("pytest")
    # PyTorch, which docs/tutorial/first.py imports (Debian: python3-torch).
    if subprocess.run([config.tle_python, "-c", "import torch"],
                      stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode == 0:
        config.available_features.add("torch")
    else:
        lit_config.note("%s has no PyTorch (Debian: python3-torch): the tests "
                        "that import it are unsupported" % config.tle_python)
    # PyTorch >= 2.4 for the operators' CPU tests, where utils/tle.sh test
    # installs it (test/python/torch-ops.txt), or $TLE_TORCH_OPS.
    torch_ops = os.environ.get("TLE_TORCH_OPS",
                               os.path.join(config.tle_obj_root, "torch-ops"))
    if os.path.isdir(torch_ops) and subprocess.run(
            [config.tle_python, "-c",
             "import torch; assert hasattr(torch.library, 'custom_op')"],
            env=dict(os.environ, PYTHONPATH=torch_ops), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL).returncode == 0:
        config.available_features.add("torch-ops")
        config.substitutions.append(("%torch_ops", torch_ops))
    else:
        lit_config.note("no PyTorch >= 2.4 in %s (utils/tle.sh test installs "
                        "test/python/torch-ops.txt there): the operator tests "
                        "are unsupported" % torch_ops)
else:
    lit_config.note("no wheel of the Python package in %s/wheels (ninja "
                    "tle-wheel): the Python tests (test/python) are "
                    "unsupported" % config.tle_obj_root)

for tool in ("clang-format", "git"):
    if shutil.which(tool):
        config.available_features.add(tool)

# CI installs GoogleTest, builds both unit-test binaries and has the CUDA
# toolkit: there a missing one is a broken set-up, not a reason to skip the
# tests that need it.
if os.environ.get("CI") == "true":
    for feature in ("runtime-unittests", "tle-run-unittests", "tle-test-passes",
                    "problems-unittests", "ptxas",
                    "libdevice", "nvcc", "clang-format", "git", "python-wheel",
                    "pytest", "torch", "torch-ops"):
        if feature not in config.available_features:
            lit_config.fatal("CI must run every CPU test, but '%s' is "
                             "missing" % feature)
