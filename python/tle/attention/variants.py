# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The attention forward kernels this package ships, and which one takes a
call.

A variant NAME is kernels/attention/NAME.mlir, which
kernels/attention/generate.py writes from the entry of variants.json
beside this file (head dimension, causal or not, persistent, consumer warp
groups, K/V tile rows and stages, register split), compiled when the wheel is built (`ninja -C build
tle-wheel`) into kernels/NAME.ptx with its metadata kernels/NAME.json,
and kernels/NAME.cubin where ptxas was found. Every variant takes bf16 q,
k, v [B, S, H, D] of its head dimension with H a multiple of H_kv; one
per head dimension and mask. Nothing here needs torch.
"""

import json
import os
from typing import NamedTuple, Optional

# KernelNotFoundError is re-exported by tle.attention.
from .._kernels import KernelNotFoundError, is_found, kernel_file  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
# Where the build puts the compiled kernels, inside the package.
KERNELS = os.path.join(HERE, "kernels")


class Variant(NamedTuple):
    name: str
    head_dim: int
    causal: bool
    persistent: bool
    # Consumer warp groups of 64 query rows each, K/V rows per tile.
    consumers: int = 2
    block_n: int = 128
    stages: int = 2
    registers: tuple = (232, 40)
    # A compiled kernel elsewhere (.ptx or .cubin, its .json beside it);
    # None for the bundled one.
    path: Optional[str] = None

    def kernel_file(self):
        """The compiled kernel: `path`, else the bundled cubin, else the
        bundled PTX, with its metadata (.json) beside it."""
        return kernel_file(KERNELS, self.name, self.path, "attention")

    @property
    def block_m(self):
        """The query rows of a work item."""
        return 64 * self.consumers

    def is_bundled(self):
        """Whether the package holds this variant's compiled kernel."""
        return is_found(self.kernel_file)


def _read(path=os.path.join(HERE, "variants.json")):
    with open(path) as f:
        return tuple(Variant(**dict(entry, registers=tuple(entry["registers"])))
                     for entry in json.load(f))


VARIANTS = _read()
HEAD_DIMS = tuple(sorted({v.head_dim for v in VARIANTS}))


def variant(name):
    """The shipped variant called `name`."""
    for v in VARIANTS:
        if v.name == name:
            return v
    raise ValueError(f"no attention variant '{name}'; the shipped ones are "
                     f"{', '.join(v.name for v in VARIANTS)}")


def choose(head_dim, causal, variants=VARIANTS):
    """The variant of `variants` for a head dimension and mask; a
    ValueError naming the head dimensions there are when none fits."""
    for v in variants:
        if v.head_dim == head_dim and v.causal == bool(causal):
            return v
    dims = sorted({v.head_dim for v in variants if v.causal == bool(causal)})
    raise ValueError(f"tle attention: no {'causal' if causal else 'non-causal'} "
                     f"kernel for head dim {head_dim}; the kernels take head dims "
                     f"{', '.join(map(str, dims)) or 'none'}")
