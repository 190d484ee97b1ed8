# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs examples/ping_pong on the device and checks its sums exactly.

usage: ping_pong.py LIBTLE_RUNTIME PING_PONG_PTX

Each CTA of @ping_pong adds its 2n rows of a 128-column f32 matrix, row
after row, with two warp groups taking turns through two turn tokens
(named barriers): wg0 the even rows, wg1 the odd ones. The inputs are
small integers, so every partial sum is exact and any lost, repeated or
reordered turn changes a result. Uses only the standard library (ctypes,
with the prototypes of capi_pipes.py). Prints "ping pong: ok".
"""

import array
import random
import sys

from ctypes import byref, c_int64, c_uint64, c_void_p

from capi_pipes import open_device

COLUMNS = 128


def main():
    lib, device = open_device(sys.argv[1], "ping pong")

    def check(code):
        if code != 0:
            sys.exit("ping pong: error %d: %s"
                     % (code, lib.tle_rt_last_error().decode()))

    module, kernel = c_void_p(), c_void_p()
    check(lib.tle_rt_module_load(device, sys.argv[2].encode(), None,
                                 byref(module)))
    check(lib.tle_rt_module_get_kernel(module, b"ping_pong", byref(kernel)))
    rng = random.Random(5)
    for blocks, n in ((1, 1), (4, 3), (132, 64), (264, 257)):
        rows = blocks * 2 * n
        host_in = array.array("f", [float(rng.randint(-8, 7))
                                    for _ in range(rows * COLUMNS)])
        host_out = array.array("f", [float("nan")] * (blocks * COLUMNS))
        dev_in, dev_out = c_uint64(), c_uint64()
        for address, host in ((dev_in, host_in), (dev_out, host_out)):
            nbytes = len(host) * host.itemsize
            check(lib.tle_rt_malloc(device, nbytes, byref(address)))
            check(lib.tle_rt_upload(device, address, host.buffer_info()[0],
                                    nbytes))
        args = c_void_p()
        check(lib.tle_rt_args_create(byref(args)))
        for address, count in ((dev_in, rows), (dev_out, blocks)):
            check(lib.tle_rt_args_add_memref(
                args, address, b"f32", 2, (c_int64 * 2)(count, COLUMNS),
                None, 0))
        check(lib.tle_rt_args_add_index(args, n))
        check(lib.tle_rt_launch(kernel, blocks, 1, 1, args))
        lib.tle_rt_args_free(args)
        check(lib.tle_rt_download(device, host_out.buffer_info()[0], dev_out,
                                  len(host_out) * host_out.itemsize))
        for b in range(blocks):
            for t in range(COLUMNS):
                want = sum(host_in[(b * 2 * n + r) * COLUMNS + t]
                           for r in range(2 * n))
                if host_out[b * COLUMNS + t] != want:
                    sys.exit("ping pong: blocks=%d n=%d, block %d column %d: "
                             "got %r, expected %r"
                             % (blocks, n, b, t, host_out[b * COLUMNS + t],
                                want))
        for address in (dev_in, dev_out):
            check(lib.tle_rt_free(device, address))
    lib.tle_rt_module_free(module)
    lib.tle_rt_device_close(device)
    print("ping pong: ok")


if __name__ == "__main__":
    main()
