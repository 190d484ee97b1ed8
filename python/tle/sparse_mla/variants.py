# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The SparseMLA kernels this package ships, fastest first, and the shapes
each takes.

A variant NAME is kernels/sparse_mla/NAME.mlir, compiled when the wheel is
built (`ninja -C build tle-wheel`) into kernels/NAME.ptx with its metadata
kernels/NAME.json, and kernels/NAME.cubin where ptxas was found.
variants.json beside this file lists them, and the build compiles what it
lists: shipping a new kernel is one entry there. Each entry gives the
kernel's limits beyond those every variant shares (d_v 512, bf16 q and kv,
int32 indices, CUDA, 16-byte alignment): the columns of q and kv it takes
(`d_qk`: 576, DeepSeek V3.2, or 512, V4), and the number of heads and topk
must be positive multiples of `heads_multiple` (heads per CTA) and
multiples of `topk_multiple` (KV rows per tile, or per pair of tiles);
`kv_format` (left out: "bf16") is how it takes kv: bf16 rows, or "v32",
DeepSeek V3.2's FP8 KV cache (tle.sparse_mla.kv_cache), which it
dequantizes as it gathers.

The order is speed on the H200, fastest first, as `python -m
tle.bench.sparse_mla` measures the variants side by side (bench/CURRENT.md
has the figures), and a call takes the first variant whose limits it
meets. Nothing here needs torch.
"""

import json
import os
from typing import NamedTuple, Optional

# d_qk of DeepSeek V3.2 (512 columns of V and a 64-column rope tail) and
# of V4 ("MODEL1": 448 NoPE and 64 RoPE columns, all of them V); d_v.
D_QK, D_QK_V4, D_V = 576, 512, 512
HERE = os.path.dirname(os.path.abspath(__file__))
# How kv is stored: bf16 rows of d_qk, or V3.2's FP8 cache.
KV_FORMATS = ("bf16", "v32")
# Where the build puts the compiled kernels, inside the package.
KERNELS = os.path.join(HERE, "kernels")


class KernelNotFoundError(FileNotFoundError):
    """A variant's compiled kernel is not where it should be."""


class Variant(NamedTuple):
    name: str
    d_qk: int
    heads_multiple: int
    topk_multiple: int
    # A compiled kernel elsewhere (.ptx or .cubin, its .json beside it), as
    # the benchmark's --tle-kernel gives; None for the bundled one.
    path: Optional[str] = None
    kv_format: str = "bf16"

    def refusal(self, heads, topk, d_qk=D_QK, kv_format="bf16"):
        """Why this variant cannot take `heads` heads, `topk` indices per
        row, q and kv of `d_qk` columns and kv in `kv_format`, or None if
        it can."""
        if kv_format != self.kv_format:
            return f"kv_format ({kv_format!r}) must be {self.kv_format!r}"
        if d_qk != self.d_qk:
            return f"d_qk ({d_qk}) must be {self.d_qk}"
        if heads <= 0 or heads % self.heads_multiple:
            return (f"the number of heads ({heads}) must be a positive multiple "
                    f"of {self.heads_multiple}")
        if topk % self.topk_multiple:
            return f"topk ({topk}) must be a multiple of {self.topk_multiple}"
        return None

    def kernel_file(self):
        """The compiled kernel: `path`, else the bundled cubin, else the
        bundled PTX; its metadata (.json) must be beside it."""
        if self.path:
            candidates = [self.path]
        else:
            stem = os.path.join(KERNELS, self.name)
            candidates = [stem + ".cubin", stem + ".ptx"]
        for path in candidates:
            if os.path.isfile(path):
                metadata = os.path.splitext(path)[0] + ".json"
                if not os.path.isfile(metadata):
                    raise KernelNotFoundError(
                        f"{metadata}: no such file (a compiled SparseMLA kernel "
                        f"is a .ptx or .cubin with its .json beside it)")
                return path
        if self.path:
            raise KernelNotFoundError(f"{self.path}: no such file")
        raise KernelNotFoundError(
            f"no compiled kernel of the SparseMLA variant '{self.name}' in "
            f"{KERNELS}: this tle has no bundled kernels (installed from the "
            f"source folder?). Build the wheel (ninja -C build tle-wheel) and "
            f"install it")

    def is_bundled(self):
        """Whether the package holds this variant's compiled kernel."""
        try:
            self.kernel_file()
        except KernelNotFoundError:
            return False
        return True


def _read(path=os.path.join(HERE, "variants.json")):
    with open(path) as f:
        return tuple(Variant(**entry) for entry in json.load(f))


VARIANTS = _read()


def variant(name):
    """The shipped variant called `name`."""
    for v in VARIANTS:
        if v.name == name:
            return v
    raise ValueError(f"no SparseMLA variant '{name}'; the shipped ones are "
                     f"{', '.join(v.name for v in VARIANTS)}")


def choose(heads, topk, d_qk=D_QK, variants=VARIANTS, kv_format="bf16"):
    """The first of `variants` that takes `heads`, `topk`, `d_qk` and
    `kv_format`; a ValueError that gives each one's reason when none does."""
    reasons = []
    # A variant of another kv format has nothing to say about this call.
    for v in (v for v in variants if v.kv_format == kv_format):
        reason = v.refusal(heads, topk, d_qk, kv_format)
        if reason is None:
            return v
        reasons.append(f"{v.name}: {reason}")
    what = "" if kv_format == "bf16" else f", kv_format {kv_format!r}"
    raise ValueError(f"tle sparse_mla: no kernel takes {heads} heads, topk {topk} "
                     f"and d_qk {d_qk}{what} ({'; '.join(reasons)})")
