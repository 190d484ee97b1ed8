# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""bf16 GEMM (C = A @ B, fp32 accumulation) through the TLE runtime: the
shape rules of tle-run's gemm problem (include/tle/Problems/Gemm.h) and the
comparison with PyTorch. The benchmark is tle.bench.gemm; nothing here
imports torch.
"""

import math


def tile_rows(signature):
    """bm, the rows of C one CTA computes: the rows of A's box (argument 0)
    of a kernel's signature (tle.runtime.Arg)."""
    if len(signature) != 4 or signature[0].kind != "tensor_map":
        types = ", ".join(arg.type for arg in signature)
        raise ValueError(f"a GEMM kernel takes (a tensor map over A, one over B, "
                         f"C, K), this one ({types})")
    return signature[0].box[0]


def grid(m, n, bm, bn):
    """(n / bn, m / bm): one CTA per bm x bn tile of C."""
    for name, size, tile in (("m", m, bm), ("n", n, bn)):
        if size % tile:
            raise ValueError(f"{name} = {size} must be a multiple of the tile {tile}")
    return (n // bn, m // bm)


def tolerance(k):
    """(rel, abs) for comparing two bf16 results of the same fp32-accumulated
    product: each rounds its fp32 sum to bf16, off by up to 2^-8 of the value,
    so together 2^-7; the two sums differ by their additions' rounding, of the
    order of 2^-24 * K / 4 for inputs in [-1, 1), which 1e-4 * sqrt(K) covers
    a hundredfold (tle-run's check: include/tle/Problems/Gemm.h)."""
    return 2.0 ** -7, 1e-4 * math.sqrt(k)


def tflops(m, n, k, ms):
    return 2.0 * m * n * k / (ms * 1e-3) / 1e12
