# -*- Python -*-
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# lit configuration of the GPU suite. It must run where only Python's lit
# package exists (no LLVM, no FileCheck): tests use grep and exit codes.
#
# Features:
#   cuda-device   `tle-run --probe` found a device (every test requires it)
#   tle-compiler  tle-run can compile .mlir (not a TLE_RUNTIME_ONLY build)
#   cubin         the kernels folder holds pipes_cap2.cubin
#   compute-sanitizer  NVIDIA's compute-sanitizer is on PATH
#   torch         the Python running lit imports torch
#
# `lit --param tle_kernels=DIR` overrides the kernels folder.

import os
import shutil
import subprocess
import sys

import lit.formats

config.name = "TLE integration"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tle_obj_root, "integration")

# What the driver and the tools need from the caller's environment.
for name in ["PATH", "LD_LIBRARY_PATH", "HOME", "TMPDIR", "CUDA_HOME",
             "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES"]:
    if name in os.environ:
        config.environment[name] = os.environ[name]

kernels = lit_config.params.get("tle_kernels", config.tle_kernels_dir)
tle_run = os.path.join(config.tle_tools_dir, "tle-run")
# Longest first: lit substitutes in order, and %tle_run prefixes
# %tle_runtime_library.
config.substitutions.extend([
    ("%tle_runtime_library", config.tle_runtime_library),
    ("%tle_kernels", kernels),
    ("%tle_src_root", config.tle_src_root),
    ("%tle_run", tle_run),
    ("%python", sys.executable),
])

probe = subprocess.run([tle_run, "--probe"], capture_output=True, text=True)
if probe.returncode == 0:
    config.available_features.add("cuda-device")
    lit_config.note("device: " + probe.stdout.strip())
else:
    lit_config.note("no GPU tests will run: " +
                    (probe.stderr.strip() or "tle-run --probe failed"))

if not config.tle_runtime_only:
    config.available_features.add("tle-compiler")

# PyTorch in the Python that runs lit, for docs/tutorial/first.py.
if subprocess.run([sys.executable, "-c", "import torch"], stdout=subprocess.DEVNULL,
                  stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("torch")

if shutil.which("compute-sanitizer"):
    config.available_features.add("compute-sanitizer")

if os.path.exists(os.path.join(kernels, "pipes_cap2.cubin")):
    config.available_features.add("cubin")
if not os.path.exists(os.path.join(kernels, "pipes_cap2.ptx")):
    lit_config.warning(
        "no precompiled kernels in '%s': build them with `ninja "
        "tle-integration-kernels` where the compiler is, and pass the folder "
        "with -DTLE_INTEGRATION_KERNELS=DIR or `lit --param tle_kernels=DIR`"
        % kernels)
