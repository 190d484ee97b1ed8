# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs examples/pipes through libtle_runtime.so with ctypes.

usage: capi_pipes.py LIBTLE_RUNTIME PIPES_PTX

Uses only the standard library, as a minimal Python user of the C
interface would (include/tle/Runtime/tle_runtime.h). Prints "capi: ok".
"""

import array
import ctypes
import random
import struct
import sys

from ctypes import POINTER, byref, c_char_p, c_double, c_int, \
    c_int64, c_size_t, c_uint, c_uint8, c_uint64, c_void_p


def declare(lib):
    """The prototypes this script and shared_tiles.py use."""
    def fn(name, *args, restype=c_int):
        f = getattr(lib, name)
        f.argtypes = list(args)
        f.restype = restype
    fn("tle_rt_last_error", restype=c_char_p)
    fn("tle_rt_device_open", c_int, POINTER(c_void_p))
    fn("tle_rt_device_close", c_void_p, restype=None)
    fn("tle_rt_device_name", c_void_p, restype=c_char_p)
    fn("tle_rt_device_multiprocessors", c_void_p)
    fn("tle_rt_malloc", c_void_p, c_size_t, POINTER(c_uint64))
    fn("tle_rt_free", c_void_p, c_uint64)
    fn("tle_rt_upload", c_void_p, c_uint64, c_void_p, c_size_t)
    fn("tle_rt_download", c_void_p, c_void_p, c_uint64, c_size_t)
    fn("tle_rt_fill", c_void_p, c_uint64, c_uint8)
    fn("tle_rt_module_load", c_void_p, c_char_p, c_char_p, POINTER(c_void_p))
    fn("tle_rt_module_free", c_void_p, restype=None)
    fn("tle_rt_module_get_kernel", c_void_p, c_char_p, POINTER(c_void_p))
    fn("tle_rt_kernel_num_args", c_void_p)
    fn("tle_rt_args_create", POINTER(c_void_p))
    fn("tle_rt_args_free", c_void_p, restype=None)
    fn("tle_rt_args_add_memref", c_void_p, c_uint64, c_char_p, c_int,
       POINTER(c_int64), POINTER(c_int64), c_int64)
    fn("tle_rt_args_add_tensor_map", c_void_p, c_uint64, c_char_p, c_int,
       POINTER(c_int64), POINTER(c_int64))
    fn("tle_rt_args_add_index", c_void_p, c_int64)
    fn("tle_rt_launch", c_void_p, c_uint, c_uint, c_uint, c_void_p)
    fn("tle_rt_time", c_void_p, c_uint, c_uint, c_uint, c_void_p, c_int,
       c_int, POINTER(c_double), POINTER(c_double), POINTER(c_double))


def open_device(path, what):
    """The library at `path` with its prototypes declared, and device 0
    opened on it; without a device, exits with `what` and the runtime's
    message (every script here starts this way)."""
    lib = ctypes.CDLL(path)
    declare(lib)
    device = c_void_p()
    if lib.tle_rt_device_open(0, byref(device)) != 0:
        sys.exit(f"{what}: " + lib.tle_rt_last_error().decode())
    return lib, device


def main():
    lib, device = open_device(sys.argv[1], "capi")

    def check(code):
        if code != 0:
            sys.exit("capi: error %d: %s"
                     % (code, lib.tle_rt_last_error().decode()))

    module = c_void_p()
    check(lib.tle_rt_module_load(device, sys.argv[2].encode(), None,
                                 byref(module)))
    kernel = c_void_p()
    check(lib.tle_rt_module_get_kernel(module, None, byref(kernel)))
    assert lib.tle_rt_kernel_num_args(kernel) == 3

    ctas, n = 5, 9
    rows = ctas * n
    count = rows * 256
    rng = random.Random(3)
    values = array.array("f", [rng.uniform(-4, 4) for _ in range(count)])
    nbytes = count * 4
    src, dst = c_uint64(), c_uint64()
    check(lib.tle_rt_malloc(device, nbytes, byref(src)))
    check(lib.tle_rt_malloc(device, nbytes, byref(dst)))
    check(lib.tle_rt_upload(device, src, values.buffer_info()[0], nbytes))
    check(lib.tle_rt_fill(device, dst, 0xFF))

    args = c_void_p()
    check(lib.tle_rt_args_create(byref(args)))
    sizes = (c_int64 * 2)(rows, 256)
    check(lib.tle_rt_args_add_memref(args, src, b"f32", 2, sizes, None, 0))
    # A missing argument is reported, not launched.
    assert lib.tle_rt_launch(kernel, ctas, 1, 1, args) == 1
    assert b"takes 3 arguments" in lib.tle_rt_last_error()
    check(lib.tle_rt_args_add_memref(args, dst, b"f32", 2, sizes, None, 0))
    check(lib.tle_rt_args_add_index(args, n))
    check(lib.tle_rt_launch(kernel, ctas, 1, 1, args))

    out = array.array("f", bytes(nbytes))
    check(lib.tle_rt_download(device, out.buffer_info()[0], dst, nbytes))
    to_f32 = lambda x: struct.unpack("f", struct.pack("f", x))[0]
    for i, (x, y) in enumerate(zip(values, out)):
        want = to_f32(x * 2 + 1) if i % 256 < 128 else to_f32(x * 3)
        if want != y:
            sys.exit("capi: element %d: got %r, expected %r" % (i, y, want))

    median, low, high = c_double(), c_double(), c_double()
    check(lib.tle_rt_time(kernel, ctas, 1, 1, args, 2, 5, byref(median),
                          byref(low), byref(high)))
    assert 0 < low.value <= median.value <= high.value

    lib.tle_rt_args_free(args)
    check(lib.tle_rt_free(device, src))
    check(lib.tle_rt_free(device, dst))
    assert lib.tle_rt_free(device, dst) == 1
    lib.tle_rt_module_free(module)
    lib.tle_rt_device_close(device)
    print("capi: ok")


if __name__ == "__main__":
    main()
