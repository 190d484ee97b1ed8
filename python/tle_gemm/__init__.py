"""bf16 GEMM (C = A @ B, fp32 accumulation) through the TLE runtime: the
shape rules of tle-run's gemm problem (tools/tle-run/GemmProblem.h) and the
comparison with PyTorch. The benchmark is tle_gemm.bench; nothing here
imports torch.
"""

import math
import re

_TENSOR_MAP = re.compile(r"^!tle\.tensor_map<((?:\d+x)+)(\w+),\s*swizzle\s*=\s*(\d+)>$")


def tensor_map_box(type_text):
    """The box of a "!tle.tensor_map<128x64xbf16, swizzle = 128>" type, as
    a tuple of ints (outermost first)."""
    match = _TENSOR_MAP.match(type_text)
    if not match:
        raise ValueError(f"{type_text!r} is not a tensor map type")
    return tuple(int(d) for d in match.group(1).split("x")[:-1])


def tile_rows(signature):
    """bm, the rows of C one CTA computes: the rows of A's box (argument 0)."""
    if len(signature) != 4:
        raise ValueError(f"a GEMM kernel takes (a, b, c, k), this one {signature}")
    return tensor_map_box(signature[0])[0]


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
