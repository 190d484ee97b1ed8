"""The ctypes binding without a GPU: finding the library, and turning
Python values into the C calls (through a stand-in for the library, and
through the real one where it is built). Needs neither torch nor a device."""

import os

import pytest

import tle_runtime as rt


class FakeTensor:
    """What the binding reads of a torch.Tensor."""

    def __init__(self, address, shape, stride):
        self.address, self.shape, self._stride = address, shape, stride

    def data_ptr(self):
        return self.address

    def stride(self):
        return self._stride


class FakeLibrary:
    """Records the tle_rt_args_* calls it gets, as plain Python values."""

    def __init__(self, code=rt.OK, error=b""):
        self.calls, self.code, self.error = [], code, error

    def tle_rt_args_create(self, handle):
        handle._obj.value = 1
        return rt.OK

    def tle_rt_args_free(self, handle):
        self.calls.append(("free",))

    def tle_rt_last_error(self):
        return self.error

    def _record(self, name, *values):
        self.calls.append((name,) + values)
        return self.code

    def tle_rt_args_add_memref(self, handle, address, rank, sizes, strides, offset):
        return self._record("memref", address, list(sizes[:rank]), list(strides[:rank]),
                            offset)

    def tle_rt_args_add_tensor_map(self, handle, address, rank, sizes, strides):
        return self._record("tensor_map", address, list(sizes[:rank]),
                            list(strides[:rank]))

    def tle_rt_args_add_index(self, handle, value):
        return self._record("index", value)

    def tle_rt_args_add_i32(self, handle, value):
        return self._record("i32", value)

    def tle_rt_args_add_f32(self, handle, value):
        return self._record("f32", value)


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
