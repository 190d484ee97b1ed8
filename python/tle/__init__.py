"""TLE for PyTorch: compiled warp-specialized kernels for NVIDIA Hopper.

    import tle
    out, max_logits, lse = tle.sparse_mla_fwd(q, kv, indices, sm_scale)

sparse_mla_fwd is FlashMLA's flash_mla_sparse_fwd on TLE's compiled
SparseMLA kernels, which this package carries with the runtime library
that loads them. Behind it:

- tle.runtime: the runtime's binding (load any compiled kernel, launch it
  on PyTorch's stream, plan repeated launches, time it);
- tle.sparse_mla: the SparseMLA variants and calls, the PyTorch reference,
  input generators and the Triton peer;
- tle.gemm: the GEMM kernels' shape rules;
- tle.bench: the one timing harness, and the benchmarks as its submodules
  (python -m tle.bench.sparse_mla, python -m tle.bench.gemm).

Importing tle needs no torch: sparse_mla_fwd imports it when first named.
"""

from . import bench, gemm, runtime, sparse_mla  # noqa: F401
from ._version import __version__

__all__ = ["sparse_mla_fwd", "bench", "gemm", "runtime", "sparse_mla"]


def __getattr__(name):
    if name == "sparse_mla_fwd":
        from .sparse_mla.op import sparse_mla_fwd
        globals()[name] = sparse_mla_fwd
        return sparse_mla_fwd
    raise AttributeError(f"module 'tle' has no attribute {name!r}")
