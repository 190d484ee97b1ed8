# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What a family of shipped kernels needs to find and load them: the
compiled file of a variant (the wheel puts tle/FAMILY/kernels/NAME.cubin,
.ptx and .json there), and each variant's kernel loaded once per device,
on Hopper only and never while a CUDA graph is being captured.

tle.attention uses it; tle.sparse_mla has its own copies of both from
before it (its variants.py and kernel.py). Nothing here imports torch
until a kernel is loaded.
"""

import os

from . import runtime as rt


class KernelNotFoundError(FileNotFoundError):
    """A variant's compiled kernel is not where it should be."""


def kernel_file(directory, name, path, family):
    """The compiled kernel of variant `name`: `path` when given, else the
    bundled cubin in `directory`, else the bundled PTX; its metadata
    (.json) must be beside it. `family` names the kernels in messages."""
    stem = os.path.join(directory, name)
    candidates = [path] if path else [stem + ".cubin", stem + ".ptx"]
    found = next((p for p in candidates if os.path.isfile(p)), None)
    if found is None:
        raise KernelNotFoundError(
            f"{path}: no such file" if path else
            f"no compiled kernel of the {family} variant '{name}' in {directory}: "
            f"this tle has no bundled kernels (installed from the source folder?). "
            f"Build the wheel (ninja -C build tle-wheel) and install it")
    metadata = os.path.splitext(found)[0] + ".json"
    if not os.path.isfile(metadata):
        raise KernelNotFoundError(f"{metadata}: no such file (a compiled kernel is a "
                                  f".ptx or .cubin with its .json beside it)")
    return found


def is_found(find):
    """Whether find() gives a kernel file rather than raising
    KernelNotFoundError (a variant's kernel_file: whether it is bundled)."""
    try:
        find()
    except KernelNotFoundError:
        return False
    return True


class Loader:
    """Kernels by (variant, device ordinal), each loaded at its first use
    through `check(kernel)`, which raises for a kernel of the wrong
    signature; `fail(message, error)` raises the family's errors."""

    def __init__(self, check, fail):
        self._check, self._fail = check, fail
        self._devices = {}
        self._kernels = {}

    def device(self, index):
        """rt.Device `index`, checked for sm_90a once."""
        if index not in self._devices:
            device = rt.Device(index)
            if device.compute_capability != 90:
                self._fail(f"the kernels are for sm_90a (Hopper); cuda:{index} "
                           f"({device.name}) has compute capability "
                           f"{device.compute_capability / 10:.1f}", RuntimeError)
            self._devices[index] = device
        return self._devices[index]

    def kernel(self, variant, index):
        """`variant`'s kernel on device `index`."""
        import torch
        key = (variant.name, index)
        if key not in self._kernels:
            if torch.cuda.is_current_stream_capturing():
                self._fail(f"the first call on cuda:{index} loads the kernel, which "
                           f"cannot happen while a CUDA graph is captured: call it "
                           f"once before capturing", RuntimeError)
            kernel = self.device(index).load(variant.kernel_file()).kernel()
            self._check(kernel)
            self._kernels[key] = kernel
        return self._kernels[key]
