# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The ctypes binding without a GPU: finding the library, and turning
Python values into the C calls (through a stand-in for the library, and
through the real one where it is built). Needs neither torch nor a device."""

import ctypes
import glob
import json
import os
import types

import pytest

import tle.runtime as rt
from conftest import REPO
from fakes import FakeLibrary, FakeTensor

HEADER = os.path.join(REPO, "include", "tle", "Runtime", "tle_runtime.h")


def test_values_become_their_kinds():
    lib = FakeLibrary()
    a = FakeTensor(0x1000, (128, 64), (64, 1), "torch.bfloat16")
    c = FakeTensor(0x3000, (4, 8), (16, 1))  # a column slice of a [4, 16]
    args = rt.Args([rt.tensor_map(a), c, 8192, 0.5], lib=lib)
    args.i32(-3)
    assert lib.calls == [
        ("tensor_map", 0x1000, "bf16", [128, 64], [64, 1]),
        ("memref", 0x3000, "f32", [4, 8], [16, 1], 0),
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
    assert lib.calls == [("memref", 0x2000, "f32", [], [], 0)]
    assert args._keep == [scalar]


@pytest.mark.parametrize("value", [True, "x", None, [1, 2],
                                   FakeTensor(0, (2,), (1,), "torch.complex64")])
def test_other_values_are_refused(value):
    with pytest.raises(TypeError):
        rt.Args([value], lib=FakeLibrary())


def test_element_types_are_mlir_spellings():
    assert rt.element_type(FakeTensor(0, (), (), "torch.bfloat16")) == "bf16"
    assert rt.element_type(FakeTensor(0, (), (), "torch.int32")) == "i32"
    assert rt.element_type(FakeTensor(0, (), (), "torch.uint8")) == "i8"


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
    bundled = tmp_path / "bundled.so"
    bundled.write_bytes(b"")
    assert rt.find_library({"TLE_RUNTIME_LIB": str(path)}, str(bundled)) == str(path)
    with pytest.raises(rt.LibraryNotFoundError,
                       match="TLE_RUNTIME_LIB=/nowhere/lib.so: no such file"):
        rt.find_library({"TLE_RUNTIME_LIB": "/nowhere/lib.so"})


def test_library_bundled_then_beside_the_build(tmp_path):
    bundled = tmp_path / "tle" / "lib" / "libtle_runtime.so"
    with pytest.raises(rt.LibraryNotFoundError) as error:
        rt.find_library({}, str(bundled), root=str(tmp_path))
    message = str(error.value)
    assert "libtle_runtime.so not found: this tle bundles none" in message
    assert str(tmp_path) in message and "TLE_RUNTIME_LIB" in message
    assert "ninja -C build tle-wheel" in message
    built = tmp_path / "build-gpu" / "lib"
    built.mkdir(parents=True)
    (built / "libtle_runtime.so").write_bytes(b"")
    assert rt.find_library({}, str(bundled), root=str(tmp_path)) == str(
        built / "libtle_runtime.so")
    bundled.parent.mkdir(parents=True)
    bundled.write_bytes(b"")
    assert rt.find_library({}, str(bundled), root=str(tmp_path)) == str(bundled)


def test_an_installed_package_looks_for_no_build(tmp_path):
    """Beside an installed tle (site-packages, a --target folder) a build*
    folder is nobody's build: only a source checkout looks for one."""
    built = tmp_path / "build" / "lib"
    built.mkdir(parents=True)
    (built / "libtle_runtime.so").write_bytes(b"")
    bundled = tmp_path / "tle" / "lib" / "libtle_runtime.so"
    with pytest.raises(rt.LibraryNotFoundError) as error:
        rt.find_library({}, str(bundled), root=None)
    message = str(error.value)
    assert "not imported from a source checkout" in message
    assert "build*" not in message and "TLE_RUNTIME_LIB" in message


def test_only_python_tle_of_a_tle_tree_is_a_source_checkout(tmp_path):
    header = tmp_path / "src" / "include" / "tle" / "Runtime" / "tle_runtime.h"
    header.parent.mkdir(parents=True)
    header.write_text("")
    package = tmp_path / "src" / "python" / "tle"
    package.mkdir(parents=True)
    assert rt.source_checkout(str(package)) == str(tmp_path / "src")
    site = tmp_path / "src" / "site-packages" / "tle"
    site.mkdir(parents=True)
    assert rt.source_checkout(str(site)) is None
    bare = tmp_path / "other" / "python" / "tle"
    bare.mkdir(parents=True)
    assert rt.source_checkout(str(bare)) is None
    # This very package: a checkout's sources, or the wheel installed
    # (test/python/cpu.test), which is none.
    here = os.path.dirname(os.path.abspath(rt.__file__))
    from_sources = here == os.path.join(REPO, "python", "tle")
    assert rt.SOURCE_CHECKOUT == (REPO if from_sources else None)


def test_a_hang_raises_and_the_process_goes_on():
    lib = FakeLibrary(code=rt.HANG, error=b"kernel 'k' did not finish within 2 s")
    with pytest.raises(rt.KernelHangError, match="did not finish within 2 s") as error:
        rt.Args([1], lib=lib)
    assert isinstance(error.value, rt.TleError)


def test_a_program_ends_on_a_hang_with_its_status(tmp_path):
    """exit_on_hang: the entry point's wrapper, not the library, ends the
    process, with the message and status HANG; other results pass."""
    import subprocess
    import sys
    program = tmp_path / "hangs.py"
    program.write_text(
        "import sys\n"
        "import tle.runtime as rt\n"
        "def main():\n"
        "    raise rt.KernelHangError(\"kernel 'k' did not finish within 2 s\")\n"
        "sys.exit(rt.exit_on_hang(main))\n")
    tle_folder = os.path.dirname(os.path.dirname(os.path.abspath(rt.__file__)))
    done = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=tle_folder))
    assert done.returncode == rt.HANG
    assert done.stderr == "tle.runtime: kernel 'k' did not finish within 2 s\n"
    assert rt.exit_on_hang(lambda x: x + 1, 2) == 3


def test_current_stream_asks_torch_once(monkeypatch):
    asked = []
    fake_torch = types.SimpleNamespace(_C=types.SimpleNamespace(
        _cuda_getCurrentRawStream=lambda index: asked.append(index) or 0x1000 + index))
    monkeypatch.setitem(__import__("sys").modules, "torch", fake_torch)
    monkeypatch.setattr(rt, "_raw_stream", None)
    assert rt.current_stream(3) == 0x1003
    assert rt.current_stream(0) == 0x1000
    assert asked == [3, 0]
    # Without the raw getter, the public torch.cuda call.
    fake_torch = types.SimpleNamespace(_C=types.SimpleNamespace(), cuda=types.SimpleNamespace(
        current_stream=lambda index: types.SimpleNamespace(cuda_stream=0x2000 + index)))
    monkeypatch.setitem(__import__("sys").modules, "torch", fake_torch)
    monkeypatch.setattr(rt, "_raw_stream", None)
    assert rt.current_stream(1) == 0x2001


def test_metadata_path():
    assert rt.default_metadata_path("out/gemm.ptx") == "out/gemm.json"


def _real_library():
    try:
        return rt.library()
    except (rt.LibraryNotFoundError, OSError) as e:
        pytest.skip(f"libtle_runtime.so: {e}")


def test_real_library_packs_arguments():
    lib = _real_library()
    a = FakeTensor(0x10000, (256, 128), (128, 1), "torch.bfloat16")
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
    with open(HEADER) as f:
        declared = {line.split("(")[0].split()[-1].lstrip("*")
                    for line in f if line.startswith("TLE_RT_API")}
    assert set(rt._PROTOTYPES) <= declared


def test_status_codes_are_the_headers():
    with open(HEADER) as f:
        text = f.read()
    for name in ("OK", "ERROR", "NO_DEVICE", "HANG"):
        assert f"TLE_RT_{name} = {getattr(rt, name)}," in text


def test_arg_info_matches_the_header():
    """_ArgInfo declares tle_rt_arg_info's fields in the header's order."""
    with open(HEADER) as f:
        text = f.read()
    body = text[text.index("typedef struct tle_rt_arg_info {"):
                text.index("} tle_rt_arg_info;")]
    fields = [line.rstrip(";").split()[-1].lstrip("*")
              for line in (raw.strip() for raw in body.splitlines()[1:])
              if line.endswith(";")]
    assert fields == [name for name, _ in rt._ArgInfo._fields_]


# What tle-translate writes for a kernel of every argument kind.
DESCRIBED = {"kernels": [{
    "name": "k", "block": [128, 1, 1], "dynamic_shared_memory": 0,
    "params": ["tensor_map"] + ["ptr", "ptr", "i64"] + ["i64"] * 8
              + ["ptr", "ptr", "i64", "i64", "i64", "i64", "i64", "f32"],
    "args": [
        {"kind": "tensor_map", "type": "!tle.tensor_map<128x64xbf16, swizzle = 128>",
         "element_type": "bf16", "box": [128, 64], "swizzle": 128},
        {"kind": "memref", "type": "memref<?x?x?x576xbf16, strided<[?, ?, ?, 1]>>",
         "name": "q", "element_type": "bf16", "sizes": [-1, -1, -1, 576],
         "layout": "strided", "strides": [-1, -1, -1, 1], "offset": 0},
        {"kind": "memref", "type": "memref<?x576xbf16>", "element_type": "bf16",
         "sizes": [-1, 576], "layout": "identity"},
        {"kind": "f32", "type": "f32"}]}]}


def _described_kernel(tmp_path):
    _real_library()
    path = tmp_path / "k.json"
    path.write_text(json.dumps(DESCRIBED))
    return rt.Metadata(str(path)).kernel()


def test_signature_through_the_c_api(tmp_path):
    kernel = _described_kernel(tmp_path)
    a, q, kv, scale = kernel.signature
    assert a == rt.Arg("tensor_map", "!tle.tensor_map<128x64xbf16, swizzle = 128>",
                       element_type="bf16", box=(128, 64), swizzle=128)
    assert q.name == "q" and q.sizes == (-1, -1, -1, 576)
    assert q.strides == (-1, -1, -1, 1) and q.offset == 0
    assert kv.strides is None and kv.sizes == (-1, 576)
    assert scale == rt.Arg("f32", "f32")


def _values(q=None, kv=None):
    a = FakeTensor(0x10000, (256, 128), (128, 1), "torch.bfloat16")
    # q with its heads outermost in memory, as bench's non-contiguous q.
    q = q or FakeTensor(0x20000, (1, 8, 64, 576), (0, 576, 8 * 576, 1), "torch.bfloat16")
    kv = kv or FakeTensor(0x30000, (10, 576), (576, 1), "torch.bfloat16")
    return [rt.tensor_map(a), q, kv, 0.5]


def test_the_runtime_checks_arguments(tmp_path):
    kernel = _described_kernel(tmp_path)
    kernel.args(_values())
    # Strides of size-1 dimensions do not matter (unsqueeze, expand).
    kernel.args(_values(kv=FakeTensor(0x30000, (1, 576), (7, 1), "torch.bfloat16")))


@pytest.mark.parametrize("values, message", [
    (_values()[:3], r"kernel 'k' takes 4 arguments \(.*\), 3 were passed"),
    (_values(kv=FakeTensor(0x30000, (10, 576), (576, 1))),
     r"argument 2 \(memref<\?x576xbf16>\): the element type is bf16, the memref "
     r"passed holds f32"),
    (_values(kv=FakeTensor(0x30000, (10, 576), (1152, 1), "torch.bfloat16")),
     r"argument 2 \(memref<\?x576xbf16>\): the identity \(contiguous\) layout has "
     r"stride 576 in dimension 0, the memref passed has stride 1152"),
    (_values(q=FakeTensor(0x20000, (1, 8, 64, 576), (0, 1152, 8 * 1152, 2),
                          "torch.bfloat16")),
     r"argument 1 'q' \(.*\): the strided layout has stride 1 in dimension 3, the "
     r"memref passed has stride 2"),
    (_values(kv=FakeTensor(0x30000, (10, 1, 576), (576, 576, 1), "torch.bfloat16")),
     r"argument 2 \(memref<\?x576xbf16>\): the type has rank 2, the memref passed "
     r"has rank 3"),
    ([rt.tensor_map(FakeTensor(0x10000, (256, 128), (128, 1)))] + _values()[1:],
     r"argument 0 \(!tle.tensor_map<.*>\): the element type is bf16, the tensor "
     r"passed holds f32"),
])
def test_the_runtime_rejects_with_the_argument(tmp_path, values, message):
    kernel = _described_kernel(tmp_path)
    with pytest.raises(rt.TleError, match=message):
        kernel.args(values)


def test_a_kernel_of_metadata_does_not_launch(tmp_path):
    kernel = _described_kernel(tmp_path)
    with pytest.raises(rt.TleError, match="comes from metadata read without a device"):
        kernel.launch_async((1,), kernel.args(_values()), stream=0)


def test_stream_handles(monkeypatch):
    assert rt.stream_handle(0x55aa) == 0x55aa
    assert rt.stream_handle(types.SimpleNamespace(cuda_stream=0x77)) == 0x77
    for bad in (True, "s", 1.5):
        with pytest.raises(TypeError):
            rt.stream_handle(bad)
    monkeypatch.setitem(__import__("sys").modules, "torch", None)  # not importable
    assert rt.stream_handle(None) == 0


def _fake_kernel(lib):
    module = types.SimpleNamespace(_lib=lib, device=types.SimpleNamespace(ordinal=0))
    return rt.Kernel(module, rt.c_void_p(1))


def test_launch_async_on_a_given_stream():
    lib = FakeLibrary()
    kernel = _fake_kernel(lib)
    kernel.launch_async((4, 2), kernel.args([3]), stream=0x1234)
    # The list is freed as soon as the launch returns: the driver copied it.
    assert lib.calls[-2:] == [("launch_on_stream", (4, 2, 1), 0x1234), ("free",)]
    with pytest.raises(ValueError):
        kernel.launch_async((0,), kernel.args([3]), stream=0)
    lib.code, lib.error = rt.ERROR, b"kernel 'k': the grid has a zero dimension"
    with pytest.raises(rt.TleError, match="zero dimension"):
        kernel.launch_async((1,), rt.Args([], lib=FakeLibrary()), stream=0)


def test_a_plan_launches_new_values():
    lib = FakeLibrary()
    kernel = _fake_kernel(lib)
    plan = kernel.plan((4, 2), rt.Args([3], lib=lib))
    assert ("plan_create", (4, 2, 1)) in lib.calls
    assert plan.num_values == 3
    plan.launch((0x1000, 7, rt.f32_bits(0.5)), 0x55)
    assert lib.calls[-1] == ("plan_launch", [0x1000, 7, 0x3F000000], 0x55)
    with pytest.raises(ValueError, match=r"kernel 'k' takes 3 argument values "
                                         r"\(one per argument\), 2 were given"):
        plan.launch((1, 2), 0)
    lib.code, lib.error = rt.ERROR, b"kernel 'k': the tensor's address is bad"
    with pytest.raises(rt.TleError, match="address is bad"):
        plan.launch((1, 2, 3), 0)
    del plan
    assert lib.calls[-1] == ("plan_free",)


def test_a_plans_launcher_skips_the_checks_and_returns_the_status():
    lib = FakeLibrary()
    plan = _fake_kernel(lib).plan((4, 2), rt.Args([3], lib=lib))
    launch = plan.launcher(fast=False)
    assert launch(0x55, (0x1000, 7, rt.f32_bits(0.5))) == rt.OK
    assert lib.calls[-1] == ("plan_launch", [0x1000, 7, 0x3F000000], 0x55)
    lib.code, lib.error = rt.ERROR, b"kernel 'k': the tensor's address is bad"
    assert launch(0, (1, 2, 3)) == rt.ERROR
    with pytest.raises(rt.TleError, match="address is bad"):
        plan.raise_for(rt.ERROR)


def _c_launch():
    """tle._launch, or a skip where this tle has none: the checkout's
    sources, or a wheel built without Python's headers. A module that is
    there but does not import is a failure."""
    folder = os.path.dirname(rt.__file__)
    if not glob.glob(os.path.join(folder, "_launch*.so")):
        pytest.skip(f"{folder} has no tle._launch (the sources, or a wheel built "
                    f"without python3-dev): plans launch through ctypes")
    from tle import _launch
    return _launch


# tle_rt_plan_launch's C signature, for C stand-ins of the library.
_PLAN_LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                                ctypes.POINTER(ctypes.c_uint64), ctypes.c_int,
                                ctypes.c_uint64)


def _recording_plan_launch(calls, code=rt.OK):
    """A C function with tle_rt_plan_launch's signature that records its
    arguments in `calls` and returns `code`."""

    def plan_launch(plan, values, count, stream):
        calls.append((plan, [values[i] for i in range(count)], stream))
        return code

    return _PLAN_LAUNCH(plan_launch)


def test_the_c_launch_path_passes_every_value():
    module = _c_launch()
    launch, most = module.launch, module.MAX_VALUES
    assert most == 64
    calls = []
    function = _recording_plan_launch(calls, code=7)
    address = ctypes.cast(function, ctypes.c_void_p).value
    # Addresses, f32 bits, and negative scalars in two's complement as
    # ctypes' c_uint64 takes them.
    values = (0x7F0000001000, rt.f32_bits(0.5), -3, 2 ** 64 - 1)
    assert launch(address, 0x1234, 0x55, values) == 7
    assert calls == [(0x1234, [0x7F0000001000, 0x3F000000, 2 ** 64 - 3, 2 ** 64 - 1],
                      0x55)]
    with pytest.raises(TypeError, match="values must be a tuple"):
        launch(address, 1, 0, [1])
    with pytest.raises(ValueError, match="address is NULL"):
        launch(0, 1, 0, ())
    with pytest.raises(TypeError):
        launch(address, 1, 0, (1.5,))
    with pytest.raises(ValueError, match=f"at most {most} values, not {most + 1}"):
        launch(address, 1, 0, tuple(range(most + 1)))
    assert launch(address, 1, 0, tuple(range(most))) == 7
    assert len(calls) == 2 and len(calls[1][1]) == most


def test_a_plan_launches_through_c_where_it_can():
    _c_launch()
    calls = []
    lib = FakeLibrary()
    lib.tle_rt_plan_launch = _recording_plan_launch(calls)
    plan = _fake_kernel(lib).plan((4, 2), rt.Args([3], lib=lib))
    plan.launch((0x1000, 7, rt.f32_bits(0.5)), 0x55)
    assert calls == [(2, [0x1000, 7, 0x3F000000], 0x55)]
    assert not any(call[0] == "plan_launch" for call in lib.calls)
    with pytest.raises(ValueError, match="takes 3 argument values"):
        plan.launch((1, 2), 0)
    assert plan.launcher()(0x66, (4, 5, 6)) == rt.OK
    assert calls[-1] == (2, [4, 5, 6], 0x66)
    failing = FakeLibrary(error=b"kernel 'k': cuLaunchKernel failed")
    failing.tle_rt_plan_launch = _recording_plan_launch([], code=rt.ERROR)
    plan = _fake_kernel(failing).plan((1,), rt.Args([3], lib=failing))
    with pytest.raises(rt.TleError, match="cuLaunchKernel failed"):
        plan.launch((1, 2, 3), 0)


def test_a_plan_chooses_its_launch_path(monkeypatch):
    """c_launch says which path LaunchPlan.launch takes and switches it."""
    lib = FakeLibrary()
    plan = _fake_kernel(lib).plan((4, 2), rt.Args([3], lib=lib))
    # A stand-in whose function has no C address has only ctypes.
    assert not plan.c_launch
    with pytest.raises(ValueError, match="kernel 'k': this plan has no C launch path"):
        plan.c_launch = True
    # A C path (a recorder standing in for tle._launch.launch), and back.
    fast = []
    monkeypatch.setattr(rt, "_fast_launch", lambda *call: fast.append(call) or rt.OK)
    monkeypatch.setattr(rt, "_FAST_MAX_VALUES", 64)
    calls = []
    lib.tle_rt_plan_launch = _recording_plan_launch(calls)
    plan = _fake_kernel(lib).plan((4, 2), rt.Args([3], lib=lib))
    assert plan.c_launch
    plan.launch((1, 2, 3), 0x55)
    assert len(fast) == 1 and fast[0][2:] == (0x55, (1, 2, 3)) and not calls
    plan.c_launch = False
    assert not plan.c_launch
    plan.launch((4, 5, 6), 0x66)
    assert len(fast) == 1 and calls == [(2, [4, 5, 6], 0x66)]
    plan.c_launch = True
    plan.launch((7, 8, 9), 0)
    assert len(fast) == 2


def test_a_kernel_of_metadata_makes_no_plan(tmp_path):
    kernel = _described_kernel(tmp_path)
    with pytest.raises(rt.TleError, match="tle_rt_plan_create: kernel 'k' comes from "
                                          "metadata read without a device"):
        kernel.plan((1,), kernel.args(_values()))


def test_f32_bits():
    assert rt.f32_bits(1.0) == 0x3F800000
    assert rt.f32_bits(-2.0) == 0xC0000000
    assert rt.f32_bits(float("-inf")) == 0xFF800000
