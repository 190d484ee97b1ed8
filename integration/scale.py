# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs the kernels of scale.mlir and checks their results bit for bit.

usage: scale.py LIBTLE_RUNTIME SCALE_PTX

Each element must be x * factor rounded to f32, whether the warp holding
it multiplied or skipped (all its factors 1): subnormal x stay subnormal
(the multiplies do not flush), a NaN factor gives NaN, and signed zeros
and infinities come out as IEEE says. Uses only the standard library.
Prints "scale: ok".
"""

import math
import random
import struct
import sys

from shared_tiles import Runner

ROWS = COLS = 64


def f32(value):
    """`value` rounded to f32 (a product of two f32 is exact in a double,
    so this is the correctly rounded f32 product)."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


def bits(value):
    return struct.unpack("<I", struct.pack("<f", value))[0]


def same(x, y):
    """Equal bits, or both NaN (the payload of a NaN is the hardware's)."""
    return (math.isnan(x) and math.isnan(y)) or bits(x) == bits(y)


def make_x(rng):
    special = [0.0, -0.0, math.inf, -math.inf, 1e-40, -3e-42, 1.1754942e-38]
    x = [f32(rng.uniform(-4, 4)) for _ in range(ROWS * COLS)]
    for i in range(0, ROWS * COLS, 37):
        x[i] = f32(special[(i // 37) % len(special)])
    return x


def make_factors(rng):
    """Warp w of the accumulator layout holds rows (or, scaling columns,
    every thread holds some of the columns) 16 w .. 16 w + 15."""
    factors = [1.0] * 64                  # rows 0-15: warp 0 skips
    factors[20] = 2.0                     # warp 1: one factor other than 1
    factors[40] = math.nan                # warp 2: a NaN among ones
    for i in range(48, 64):               # warp 3: ordinary factors
        factors[i] = f32(rng.uniform(-2, 2))
    factors[50] = -0.0
    factors[51] = math.inf
    return factors


def run_kernel(run, name, x, factors):
    x_dev = run.buffer("f", ROWS * COLS, x)
    f_dev = run.buffer("f", 64, factors)
    out = run.buffer("f", ROWS * COLS)

    def add_args(args):
        run.memref(args, x_dev, "f32", [ROWS, COLS])
        run.memref(args, f_dev, "f32", [64])
        run.memref(args, out, "f32", [ROWS, COLS])
    run.launch(name, add_args)
    return run.download("f", out, ROWS * COLS)


def check(name, got, x, factor_of):
    for i, value in enumerate(got):
        want = f32(x[i] * factor_of(i))
        if not same(value, want):
            sys.exit("scale: %s, row %d column %d: %r * %r gave %r, expected %r"
                     % (name, i // COLS, i % COLS, x[i], factor_of(i), value, want))


def main():
    run = Runner(sys.argv[1], sys.argv[2], "scale")
    rng = random.Random(7)
    x = make_x(rng)
    factors = make_factors(rng)
    # The warp that skips holds subnormals, which it must leave as they are.
    assert any(0 < abs(v) < 1.1754944e-38 for v in x[:16 * COLS])
    got = run_kernel(run, "scale_rows", x, factors)
    check("scale_rows", got, x, lambda i: factors[i // COLS])
    got = run_kernel(run, "scale_columns", x, factors)
    check("scale_columns", got, x, lambda i: factors[i % COLS])
    run.close()
    print("scale: ok")


if __name__ == "__main__":
    main()
