"""The ctypes binding without a GPU: finding the library, and turning
Python values into the C calls (through a stand-in for the library, and
through the real one where it is built). Needs neither torch nor a device."""

import os
import types

import pytest

import tle_runtime as rt
from fakes import FakeLibrary, FakeTensor


def test_values_become_their_kinds():
    lib = FakeLibrary()
    a = FakeTensor(0x1000, (128, 64), (64, 1))
    c = FakeTensor(0x3000, (4, 8), (16, 1))  # a column slice of a [4, 16]
    args = rt.Args([rt.tensor_map(a), c, 8192, 0.5], lib=lib)
    args.i32(-3)
    assert lib.calls == [
        ("tensor_map", 0x1000, [128, 64], [64, 1]),
        ("memref", 0x3000, [4, 8], [16, 1], 0),
        ("index", 8192),
        ("f32", 0.5),
        ("i32", -3),
    ]
    del args
    assert lib.calls[-1] == ("free",)


def test_zero_rank_and_keeping_tensors_alive():
    lib = FakeLibrary()
    scalar = FakeTensor(0x2000, (), ())
    args = rt.Args([scalar], lib=lib)
    assert lib.calls == [("memref", 0x2000, [], [], 0)]
    assert args._keep == [scalar]


@pytest.mark.parametrize("value", [True, "x", None, [1, 2]])
def test_other_values_are_refused(value):
    with pytest.raises(TypeError):
        rt.Args([value], lib=FakeLibrary())


def test_failures_raise_with_the_runtime_message():
    lib = FakeLibrary(code=rt.ERROR, error=b"tle_rt_args_add_memref: bad")
    with pytest.raises(rt.TleError, match="tle_rt_args_add_memref: bad"):
        rt.Args([FakeTensor(0x1000, (2,), (1,))], lib=lib)
    lib = FakeLibrary(code=rt.NO_DEVICE, error=b"no CUDA device")
    with pytest.raises(rt.NoDeviceError, match="no CUDA device"):
        rt.Args([1], lib=lib)


def test_grid():
    assert rt._grid(5) == (5, 1, 1)
    assert rt._grid((32, 64)) == (32, 64, 1)
    for bad in ((), (1, 2, 3, 4), (0,), (2.0,)):
        with pytest.raises(ValueError):
            rt._grid(bad)


def test_library_from_the_environment(tmp_path):
    path = tmp_path / "libtle_runtime.so"
    path.write_bytes(b"")
    assert rt.find_library({"TLE_RUNTIME_LIB": str(path)}) == str(path)
    with pytest.raises(rt.LibraryNotFoundError,
                       match="TLE_RUNTIME_LIB=/nowhere/lib.so: no such file"):
        rt.find_library({"TLE_RUNTIME_LIB": "/nowhere/lib.so"})


def test_library_beside_the_build(tmp_path):
    with pytest.raises(rt.LibraryNotFoundError) as error:
        rt.find_library({}, root=str(tmp_path))
    message = str(error.value)
    assert "libtle_runtime.so not found" in message
    assert str(tmp_path) in message and "TLE_RUNTIME_LIB" in message
    built = tmp_path / "build-gpu" / "lib"
    built.mkdir(parents=True)
    (built / "libtle_runtime.so").write_bytes(b"")
    assert rt.find_library({}, root=str(tmp_path)) == str(built / "libtle_runtime.so")


def test_metadata(tmp_path):
    assert rt.default_metadata_path("out/gemm.ptx") == "out/gemm.json"
    path = tmp_path / "k.json"
    path.write_text('{"kernels": [{"name": "gemm", "block": [384, 1, 1], '
                    '"params": ["tensor_map"], "signature": '
                    '["!tle.tensor_map<128x64xbf16, swizzle = 128>"]}]}')
    kernels = rt.read_kernel_metadata(str(path))
    assert kernels["gemm"]["params"] == ["tensor_map"]


def _real_library():
    try:
        return rt.library()
    except (rt.LibraryNotFoundError, OSError) as e:
        pytest.skip(f"libtle_runtime.so: {e}")


def test_real_library_packs_arguments():
    lib = _real_library()
    a = FakeTensor(0x10000, (256, 128), (128, 1))
    args = rt.Args([rt.tensor_map(a), a, 7, 1.5])
    assert args._handle
    # The runtime rejects what it can tell is wrong without a kernel.
    with pytest.raises(rt.TleError, match="a tensor map needs a rank >= 1"):
        args.tensor_map(FakeTensor(0x10000, (), ()))
    assert isinstance(lib.tle_rt_last_error(), bytes)


def test_real_library_without_a_device():
    _real_library()
    try:
        device = rt.Device(0)
    except rt.NoDeviceError as e:
        assert "CUDA" in str(e)
        return
    assert device.name  # a machine with a GPU


def test_ctypes_prototypes_are_in_the_header():
    header = os.path.join(rt._REPO, "include", "tle", "Runtime", "tle_runtime.h")
    with open(header) as f:
        declared = {line.split("(")[0].split()[-1].lstrip("*")
                    for line in f if line.startswith("TLE_RT_API")}
    assert set(rt._PROTOTYPES) <= declared


def test_memref_types():
    assert rt.parse_memref_type("memref<?x?x?x576xbf16, strided<[?, ?, ?, 1]>>") == (
        (-1, -1, -1, 576), "bf16", (-1, -1, -1, 1), 0)
    assert rt.parse_memref_type("memref<?x?x1x576xbf16>") == (
        (-1, -1, 1, 576), "bf16", None, 0)
    assert rt.parse_memref_type("memref<64xf32, strided<[1], offset: ?>>") == (
        (64,), "f32", (1,), None)
    assert rt.parse_memref_type("memref<f32>") == ((), "f32", None, 0)
    for bad in ("tensor<4xf32>", "memref<4xf32, affine_map<(d0) -> (d0)>>",
                "memref<4x4xf32, strided<[1]>>"):
        with pytest.raises(ValueError):
            rt.parse_memref_type(bad)


IDENTITY = "memref<?x?x1x576xbf16>"
STRIDED = "memref<?x?x?x576xbf16, strided<[?, ?, ?, 1]>>"


def test_identity_layouts_take_contiguous_tensors():
    # Strides of size-1 dimensions do not matter (unsqueeze, expand).
    rt.check_memref(IDENTITY, FakeTensor(0, (1, 10, 1, 576), (7, 576, 1, 1), "torch.bfloat16"))
    with pytest.raises(ValueError, match=r"stride 1152 in dimension 1, the contiguous "
                                         r"stride is 576"):
        rt.check_memref(IDENTITY, FakeTensor(0, (1, 10, 1, 576), (11520, 1152, 576, 1)))


def test_strided_layouts_take_any_dynamic_stride():
    # q with its heads outermost in memory, as bench's non-contiguous q.
    rt.check_memref(STRIDED, FakeTensor(0, (1, 8, 64, 576), (0, 576, 8 * 576, 1)))
    with pytest.raises(ValueError, match="stride 2 in dimension 3, the layout stride is 1"):
        rt.check_memref(STRIDED, FakeTensor(0, (1, 8, 64, 576), (0, 1152, 8 * 1152, 2)))


@pytest.mark.parametrize("tensor, message", [
    (FakeTensor(0, (8, 1, 576), (576, 576, 1)), "a tensor of rank 3"),
    (FakeTensor(0, (1, 8, 2, 576), (9216, 1152, 576, 1)), "size 2 in dimension 2"),
    (FakeTensor(0, (1, 8, 1, 576), (4608, 576, 576, 1), "torch.float32"),
     "a torch.float32 tensor, the kernel takes bfloat16"),
])
def test_memref_mismatches(tensor, message):
    with pytest.raises(ValueError, match=message):
        rt.check_memref(IDENTITY, tensor, "argument 1")


def test_signature_args_pass_real_strides():
    lib = FakeLibrary()
    q = FakeTensor(0x1000, (1, 8, 64, 576), (0, 576, 8 * 576, 1))
    args = rt.signature_args([STRIDED, "f32"], [q, 0.5], lib=lib)
    assert lib.calls == [("memref", 0x1000, [1, 8, 64, 576], [0, 576, 4608, 1], 0),
                         ("f32", 0.5)]
    del args
    with pytest.raises(ValueError, match=r"kernel 'k' takes 2 arguments \(.*\), 1 were given"):
        rt.signature_args([STRIDED, "f32"], [q], "kernel 'k'", lib=lib)
    with pytest.raises(ValueError, match="kernel 'k': argument 0"):
        rt.signature_args([IDENTITY, "f32"], [q, 0.5], "kernel 'k'", lib=lib)


def test_stream_handles(monkeypatch):
    assert rt.stream_handle(0x55aa) == 0x55aa
    assert rt.stream_handle(types.SimpleNamespace(cuda_stream=0x77)) == 0x77
    for bad in (True, "s", 1.5):
        with pytest.raises(TypeError):
            rt.stream_handle(bad)
    monkeypatch.setitem(__import__("sys").modules, "torch", None)  # not importable
    assert rt.stream_handle(None) == 0


def _fake_kernel(lib, signature):
    module = types.SimpleNamespace(_lib=lib, device=types.SimpleNamespace(ordinal=0),
                                   metadata={"k": {"signature": signature}})
    return rt.Kernel(module, rt.c_void_p(1))


def test_launch_async_on_a_given_stream():
    lib = FakeLibrary()
    kernel = _fake_kernel(lib, ["index"])
    kernel.launch_async((4, 2), kernel.args([3]), stream=0x1234)
    # The list is freed as soon as the launch returns: the driver copied it.
    assert lib.calls[-2:] == [("launch_on_stream", (4, 2, 1), 0x1234), ("free",)]
    with pytest.raises(ValueError):
        kernel.launch_async((0,), kernel.args([3]), stream=0)
    lib.code, lib.error = rt.ERROR, b"kernel 'k': the grid has a zero dimension"
    with pytest.raises(rt.TleError, match="zero dimension"):
        kernel.launch_async((1,), rt.Args([], lib=FakeLibrary()), stream=0)
