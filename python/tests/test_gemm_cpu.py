# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The GEMM benchmark's shape rules and tolerance, without torch or a GPU."""

import math

import pytest

import tle.gemm as tle_gemm
import tle.runtime as rt

def _map(box):
    return rt.Arg("tensor_map", f"!tle.tensor_map<{box[0]}x{box[1]}xbf16, swizzle = 128>",
                  element_type="bf16", box=box, swizzle=128)

def test_tile_rows_from_the_signature():
    signature = (_map((128, 64)), _map((64, 64)),
                 rt.Arg("memref", "memref<?x?xbf16>", element_type="bf16", sizes=(-1, -1)),
                 rt.Arg("index", "index"))
    assert tle_gemm.tile_rows(signature) == 128
    with pytest.raises(ValueError, match=r"this one \(!tle.tensor_map<64x64xbf16"):
        tle_gemm.tile_rows(signature[1:])
    with pytest.raises(ValueError, match="takes"):
        tle_gemm.tile_rows(signature[2:] + signature[:2])

def test_grid():
    assert tle_gemm.grid(8192, 4096, 128, 256) == (16, 64)
    with pytest.raises(ValueError, match="n = 4000 must be a multiple of the tile 256"):
        tle_gemm.grid(4096, 4000, 128, 256)

def test_tolerance_is_two_bf16_roundings():
    rel, abs_ = tle_gemm.tolerance(8192)
    assert rel == 2.0 ** -7
    assert abs_ == pytest.approx(1e-4 * math.sqrt(8192))

def test_tflops():
    assert tle_gemm.tflops(8192, 8192, 8192, 1.0) == pytest.approx(1099.5, rel=1e-4)

def test_table_compares_each_method_with_itself(capsys):
    pytest.importorskip("torch")
    from tle.bench import gemm as bench
    entry = {"size": 8192}
    for method, (cublas, tle) in {"do_bench": (1.6, 1.8), "events": (1.5, 1.7)}.items():
        for name, ms in (("cublas", cublas), ("tle", tle)):
            entry[f"{name}_{method}_ms"] = ms
            entry[f"{name}_{method}_tflops"] = tle_gemm.tflops(8192, 8192, 8192, ms)
        entry[f"tle_over_cublas_{method}"] = cublas / tle
    bench.print_table([entry])
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("| size | cuBLAS ms (do_bench) | tle ms (do_bench) |")
    assert "tle/cuBLAS (events) |" in lines[0]
    assert lines[2].startswith("| 8192 | 1.600 | 1.800 | 687.2 | 610.8 | 0.89 | 1.500 |")
