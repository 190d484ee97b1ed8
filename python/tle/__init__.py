# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""TLE for PyTorch: compiled warp-specialized kernels for NVIDIA Hopper.

    import tle
    out, max_logits, lse = tle.sparse_mla_fwd(q, kv, indices, sm_scale)
    out, lse = tle.attention_fwd(q, k, v, causal=True)
    out, lse = tle.sparse_mla_decode(q, k_cache, indices, sm_scale=s)

sparse_mla_fwd is FlashMLA's flash_mla_sparse_fwd on TLE's compiled
SparseMLA kernels, sparse_mla_decode its sparse FP8 decode
(flash_mla_with_kvcache with indices), attention_fwd dense attention forward on TLE's
attention kernels; this package carries both with the runtime library
that loads them. Behind them:

- tle.runtime: the runtime's binding (load any compiled kernel, launch it
  on PyTorch's stream, plan repeated launches, time it);
- tle.sparse_mla: the SparseMLA variants and calls, the PyTorch reference,
  input generators and the Triton peer;
- tle.attention: the attention variants and calls, the fp32 reference;
- tle.gemm: the GEMM kernels' shape rules;
- tle.bench: the one timing harness, and the benchmarks as its submodules
  (python -m tle.bench.sparse_mla, python -m tle.bench.attention,
  python -m tle.bench.gemm).

Importing tle needs no torch: sparse_mla_fwd and attention_fwd import it
when first named.
"""

import importlib

from . import attention, bench, gemm, runtime, sparse_mla  # noqa: F401
from ._version import __version__

__all__ = ["sparse_mla_fwd", "sparse_mla_decode", "attention_fwd", "attention", "bench", "gemm",
           "runtime", "sparse_mla"]
# The calls that need torch, by the module that defines each.
_CALLS = {"sparse_mla_fwd": ".sparse_mla.op", "sparse_mla_decode": ".sparse_mla.decode",
          "attention_fwd": ".attention.op"}


def __getattr__(name):
    if name in _CALLS:
        call = getattr(importlib.import_module(_CALLS[name], __name__), name)
        globals()[name] = call
        return call
    raise AttributeError(f"module 'tle' has no attribute {name!r}")
