# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs the kernels of shared_tiles.mlir and checks their results exactly.

usage: shared_tiles.py LIBTLE_RUNTIME SHARED_TILES_PTX

@round_trip must give back its input tile bit for bit through each of
its buffers (swizzles 32, 64, 128 and row-major); @swizzled_views must
multiply and copy the views of its swizzled tiles as the host does.
Inputs are small multiples of 1/4, so every sum the tensor cores form is
exact in f32 whatever its order. Uses only the standard library (ctypes,
with the prototypes of capi_pipes.py). Prints "shared tiles: ok".
"""

import array
import random
import struct
import sys

from ctypes import byref, c_int64, c_uint64, c_void_p

from capi_pipes import open_device


def bf16_bits(value):
    """The bf16 bits of `value`, which bf16 holds exactly."""
    return struct.unpack("<I", struct.pack("<f", value))[0] >> 16


def from_bf16(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


class Runner:
    """Device 0, the module of a test script's kernels, device buffers and
    one-CTA launches; errors exit with `what` and the runtime's message."""

    def __init__(self, library, module_path, what):
        self.what = what
        self.lib, self.device = open_device(library, what)
        self.buffers = []
        self.module = c_void_p()
        self.check(self.lib.tle_rt_module_load(
            self.device, module_path.encode(), None, byref(self.module)))

    def close(self):
        """Frees the buffers, the module and the device."""
        for address in self.buffers:
            self.check(self.lib.tle_rt_free(self.device, address))
        self.lib.tle_rt_module_free(self.module)
        self.lib.tle_rt_device_close(self.device)

    def check(self, code):
        if code != 0:
            sys.exit("%s: error %d: %s"
                     % (self.what, code, self.lib.tle_rt_last_error().decode()))

    def buffer(self, typecode, count, values=None):
        """A device buffer of `count` elements, uploaded from `values`."""
        host = array.array(typecode, values if values is not None
                           else [0] * count)
        address = c_uint64()
        nbytes = count * host.itemsize
        self.check(self.lib.tle_rt_malloc(self.device, nbytes, byref(address)))
        self.check(self.lib.tle_rt_upload(self.device, address,
                                          host.buffer_info()[0], nbytes))
        self.buffers.append(address)
        return address

    def download(self, typecode, address, count):
        host = array.array(typecode, [0] * count)
        self.check(self.lib.tle_rt_download(
            self.device, host.buffer_info()[0], address,
            count * host.itemsize))
        return host

    def launch(self, name, add_args):
        kernel = c_void_p()
        self.check(self.lib.tle_rt_module_get_kernel(self.module, name.encode(),
                                                     byref(kernel)))
        args = c_void_p()
        self.check(self.lib.tle_rt_args_create(byref(args)))
        add_args(args)
        self.check(self.lib.tle_rt_launch(kernel, 1, 1, 1, args))
        self.lib.tle_rt_args_free(args)

    def memref(self, args, address, element, sizes):
        self.check(self.lib.tle_rt_args_add_memref(
            args, address, element.encode(), len(sizes),
            (c_int64 * len(sizes))(*sizes), None, 0))


def expect_equal(what, got, want, columns):
    """`got` and `want` are row-major tiles of `columns` columns."""
    for i, (x, y) in enumerate(zip(got, want)):
        if x != y:
            sys.exit("shared tiles: %s, row %d column %d: got %r, expected %r"
                     % (what, i // columns, i % columns, x, y))


def round_trip(run, rng):
    """Any bf16 bits but NaNs must come back unchanged."""
    tile = []
    while len(tile) < 64 * 64:
        bits = rng.getrandbits(16)
        if (bits >> 7) & 0xFF != 0xFF:
            tile.append(bits)
    src = run.buffer("H", len(tile), tile)
    names = ["the 32-byte swizzle", "the 64-byte swizzle",
             "the 128-byte swizzle", "the row-major buffer"]
    outs = [run.buffer("H", len(tile)) for _ in names]

    def add_args(args):
        for address in [src] + outs:
            run.memref(args, address, "bf16", [64, 64])
    run.launch("round_trip", add_args)
    for name, out in zip(names, outs):
        expect_equal("round trip through " + name,
                     run.download("H", out, len(tile)), tile, 64)


def swizzled_views(run, rng):
    quarter = lambda: rng.randint(-8, 8) / 4
    a = [[quarter() for _ in range(256)] for _ in range(64)]
    b = [[quarter() for _ in range(576)] for _ in range(64)]
    a_dev = run.buffer("H", 64 * 256, [bf16_bits(x) for row in a for x in row])
    b_dev = run.buffer("H", 64 * 576, [bf16_bits(x) for row in b for x in row])
    outs = {"t": ("f", 64 * 64), "n": ("f", 64 * 256), "v": ("H", 64 * 256),
            "c": ("H", 64 * 128), "d": ("H", 64 * 128)}
    dev = {name: run.buffer(code, count) for name, (code, count)
           in outs.items()}

    def add_args(args):
        run.memref(args, a_dev, "bf16", [64, 256])
        run.memref(args, b_dev, "bf16", [64, 576])
        run.check(run.lib.tle_rt_args_add_tensor_map(
            args, b_dev, b"bf16", 2, (c_int64 * 2)(64, 576),
            (c_int64 * 2)(576, 1)))
        run.memref(args, dev["t"], "f32", [64, 64])
        run.memref(args, dev["n"], "f32", [64, 256])
        run.memref(args, dev["v"], "bf16", [64, 256])
        run.memref(args, dev["c"], "bf16", [64, 128])
        run.memref(args, dev["d"], "bf16", [64, 128])
    run.launch("swizzled_views", add_args)
    got = {name: run.download(code, dev[name], count)
           for name, (code, count) in outs.items()}

    # B's view [0, 256] [64, 256]: columns 256..511 of every row.
    view = [row[256:512] for row in b]
    want_t = [sum(a[i][k] * view[j][k] for k in range(256))
              for i in range(64) for j in range(64)]
    want_n = [sum(a[i][k] * view[k][j] for k in range(64))
              for i in range(64) for j in range(256)]
    expect_equal("A . B[:, 256:512]^T", got["t"], want_t, 64)
    expect_equal("A[:, 0:64] . B[:, 256:512]", got["n"], want_n, 256)
    expect_equal("the view B[:, 256:512]", [from_bf16(x) for x in got["v"]],
                 [x for row in view for x in row], 256)
    for name, first in (("c", 320), ("d", 384)):
        block = [from_bf16(got[name][r * 128 + c])
                 for r in range(64) for c in range(64, 128)]
        expect_equal("column block 1 of " + name, block,
                     [x for row in b for x in row[first:first + 64]], 64)


def main():
    run = Runner(sys.argv[1], sys.argv[2], "shared tiles")
    rng = random.Random(12)
    round_trip(run, rng)
    swizzled_views(run, rng)
    run.close()
    print("shared tiles: ok")


if __name__ == "__main__":
    main()
