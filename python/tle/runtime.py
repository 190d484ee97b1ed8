# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ctypes binding of the TLE runtime (libtle_runtime.so), for PyTorch users.

    import tle.runtime as rt

    device = rt.Device(0)
    kernel = device.load("gemm.ptx").kernel()        # + gemm.json beside it
    args = rt.Args([rt.tensor_map(a), rt.tensor_map(b), c, k])
    kernel.launch((n // 256, m // 128), args)
    median_ms, min_ms, max_ms = kernel.time((n // 256, m // 128), args)

Arguments follow the kernel's signature: a torch tensor is a memref, a
`tensor_map(tensor)` a `!tle.tensor_map<...>` (encoded by the runtime from
the tensor and the kernel's box), an int an `index`, a float an `f32`.

`launch` and `time` run on the runtime's own stream and return when the
kernel is done, under the runtime's watchdog; they call
`torch.cuda.synchronize()` first, so that what PyTorch wrote on its streams
is complete. A kernel that outlives the watchdog (TLE_RT_HANG, a deadlocked
pipe) raises KernelHangError: its device is unusable from then on, and the
program should end (exit_on_hang(main) does it for an entry point, with
os._exit(HANG), which skips finalizers that could wait for the kernel, as
tle-run does).

`launch_async` enqueues on PyTorch's current stream (or a given one) and
returns at once, like a PyTorch or Triton kernel: CUDA events on that
stream (triton.testing.do_bench) time it, and its errors show at the next
synchronization. `kernel.plan(grid, args)` checks a launch once and gives a
LaunchPlan, whose launches take only the arguments' new values (addresses
of new tensors of the same shapes): the launch path of an operator called
again and again, made in C by tle._launch where the package has it.
`kernel.signature` describes the kernel's arguments as the runtime read
them from the metadata (`Arg`), and `kernel.args(values)`
builds an argument list that the runtime has checked against them (rank,
static sizes, element type, layout strides), so that a wrong tensor is
named before anything runs.

The library is $TLE_RUNTIME_LIB, else the one bundled in this package (a
wheel built by `ninja -C build tle-wheel` has it), else, only where this
package is imported from a source checkout (SOURCE_CHECKOUT: python/tle of
a TLE tree), the newest build*/lib/libtle_runtime.so of that checkout.
Tensors are used through data_ptr(), shape, stride() and dtype alone; torch
is imported only to find the current stream.
"""

import ctypes
import functools
import glob
import os
import struct
import sys
from ctypes import POINTER, byref, c_char_p, c_double, c_int, c_int64, c_uint64, c_void_p
from typing import NamedTuple, Optional, Tuple

# tle_rt_status (tle_runtime.h), which are also tle-run's exit codes.
OK, ERROR, NO_DEVICE, HANG = 0, 1, 2, 3

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
# Where the wheel puts the library.
BUNDLED_LIBRARY = os.path.join(_PACKAGE, "lib", "libtle_runtime.so")


def source_checkout(package=_PACKAGE):
    """The root of the TLE source tree whose python/tle is `package`, or
    None where the package is installed (site-packages, a --target folder):
    the one place where a build tree beside the package is the library's."""
    python = os.path.dirname(package)
    root = os.path.dirname(python)
    if (os.path.basename(package), os.path.basename(python)) != ("tle", "python"):
        return None
    marker = os.path.join(root, "include", "tle", "Runtime", "tle_runtime.h")
    return root if os.path.isfile(marker) else None


# The checkout this package is imported from, or None.
SOURCE_CHECKOUT = source_checkout()


class TleError(RuntimeError):
    """A runtime call failed; the message is tle_rt_last_error()."""


class NoDeviceError(TleError):
    """No CUDA driver or no CUDA device (TLE_RT_NO_DEVICE)."""


class KernelHangError(TleError):
    """A kernel outlived the runtime's watchdog (TLE_RT_HANG): most likely a
    deadlocked pipe, in a kernel built without tle-verify-pipes. The kernel
    still runs, so its device's context can be neither used nor torn down:
    every later call on that device raises this again, and nothing of it is
    freed. End the process; `os._exit(tle.runtime.HANG)` leaves without
    running finalizers (PyTorch's among them) that could wait for the
    kernel, and the driver reclaims the GPU when the process is gone."""


class LibraryNotFoundError(OSError):
    """libtle_runtime.so is not where it was looked for."""


def find_library(environ=os.environ, bundled=BUNDLED_LIBRARY, root=SOURCE_CHECKOUT):
    """The path of libtle_runtime.so: $TLE_RUNTIME_LIB, else `bundled`
    (the package's own), else, where `root` is a source checkout, the newest
    root/build*/lib/libtle_runtime.so."""
    path = environ.get("TLE_RUNTIME_LIB")
    if path:
        if not os.path.isfile(path):
            raise LibraryNotFoundError(
                f"TLE_RUNTIME_LIB={path}: no such file (it must name "
                f"libtle_runtime.so itself)")
        return path
    if os.path.isfile(bundled):
        return bundled
    if root is None:
        raise LibraryNotFoundError(
            f"libtle_runtime.so not found: this tle bundles none (no {bundled}) "
            f"and is not imported from a source checkout, whose build it could "
            f"use. Install the wheel that `ninja -C build tle-wheel` builds, or "
            f"set TLE_RUNTIME_LIB to the library's path")
    pattern = os.path.join(root, "build*", "lib", "libtle_runtime.so")
    found = glob.glob(pattern)
    if not found:
        raise LibraryNotFoundError(
            f"libtle_runtime.so not found: this tle bundles none (no {bundled}: "
            f"installed from the source folder?) and there is no {pattern}. "
            f"Install the wheel that `ninja -C build tle-wheel` builds, or build "
            f"the library (cmake -G Ninja -S . -B build -DTLE_RUNTIME_ONLY=ON && "
            f"ninja -C build tle_runtime), or set TLE_RUNTIME_LIB to its path")
    return max(found, key=os.path.getmtime)


_SIZES = POINTER(c_int64)


class _ArgInfo(ctypes.Structure):
    """tle_rt_arg_info of tle_runtime.h, field for field."""
    _fields_ = [("kind", c_int), ("type", c_char_p), ("name", c_char_p),
                ("element_type", c_char_p), ("rank", c_int), ("sizes", _SIZES),
                ("strides", _SIZES), ("offset", c_int64), ("box", _SIZES),
                ("swizzle", c_int)]

# name: (restype, argtypes); every other function returns an int code.
_PROTOTYPES = {
    "tle_rt_last_error": (c_char_p, []),
    "tle_rt_device_open": (c_int, [c_int, POINTER(c_void_p)]),
    "tle_rt_device_close": (None, [c_void_p]),
    "tle_rt_device_name": (c_char_p, [c_void_p]),
    "tle_rt_device_compute_capability": (c_int, [c_void_p]),
    "tle_rt_device_multiprocessors": (c_int, [c_void_p]),
    "tle_rt_device_set_watchdog": (c_int, [c_void_p, c_double]),
    "tle_rt_module_load": (c_int, [c_void_p, c_char_p, c_char_p, POINTER(c_void_p)]),
    "tle_rt_module_free": (None, [c_void_p]),
    "tle_rt_metadata_read": (c_int, [c_char_p, POINTER(c_void_p)]),
    "tle_rt_metadata_free": (None, [c_void_p]),
    "tle_rt_module_get_kernel": (c_int, [c_void_p, c_char_p, POINTER(c_void_p)]),
    "tle_rt_metadata_get_kernel": (c_int, [c_void_p, c_char_p, POINTER(c_void_p)]),
    "tle_rt_kernel_name": (c_char_p, [c_void_p]),
    "tle_rt_kernel_num_args": (c_int, [c_void_p]),
    "tle_rt_kernel_arg": (c_int, [c_void_p, c_int, POINTER(_ArgInfo)]),
    "tle_rt_kernel_block": (None, [c_void_p, POINTER(c_int)]),
    "tle_rt_kernel_shared_memory": (c_int64, [c_void_p]),
    "tle_rt_kernel_persistent": (c_int, [c_void_p]),
    "tle_rt_args_create": (c_int, [POINTER(c_void_p)]),
    "tle_rt_args_free": (None, [c_void_p]),
    "tle_rt_args_add_memref": (c_int, [c_void_p, c_uint64, c_char_p, c_int, _SIZES, _SIZES,
                                       c_int64]),
    "tle_rt_args_add_tensor_map": (c_int, [c_void_p, c_uint64, c_char_p, c_int, _SIZES,
                                           _SIZES]),
    "tle_rt_args_add_index": (c_int, [c_void_p, c_int64]),
    "tle_rt_args_add_i32": (c_int, [c_void_p, ctypes.c_int32]),
    "tle_rt_args_add_f32": (c_int, [c_void_p, ctypes.c_float]),
    "tle_rt_args_check": (c_int, [c_void_p, c_void_p]),
    "tle_rt_launch": (c_int, [c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, c_void_p]),
    "tle_rt_launch_on_stream": (c_int, [c_void_p, ctypes.c_uint, ctypes.c_uint,
                                        ctypes.c_uint, c_void_p, c_uint64]),
    "tle_rt_time": (c_int, [c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, c_void_p,
                            c_int, c_int, POINTER(c_double), POINTER(c_double),
                            POINTER(c_double)]),
    "tle_rt_plan_create": (c_int, [c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                   c_void_p, POINTER(c_void_p)]),
    "tle_rt_plan_free": (None, [c_void_p]),
    "tle_rt_plan_num_values": (c_int, [c_void_p]),
    "tle_rt_plan_launch": (c_int, [c_void_p, POINTER(c_uint64), c_int, c_uint64]),
}

_lib = None

# tle._launch.launch, LaunchPlan.launch's path in C (tle/_launch.c), or None
# where the package was built without it; it takes plans of at most
# _FAST_MAX_VALUES values.
try:
    from ._launch import MAX_VALUES as _FAST_MAX_VALUES, launch as _fast_launch
except ImportError:
    _fast_launch, _FAST_MAX_VALUES = None, 0

# Whether this package has tle._launch, the C path of LaunchPlan launches
# (a wheel built where Python's headers were); without it they go through
# ctypes (LaunchPlan.c_launch).
HAS_C_LAUNCH = _fast_launch is not None


def library():
    """The loaded library, with its prototypes declared (loaded once)."""
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(find_library())
        for name, (restype, argtypes) in _PROTOTYPES.items():
            function = getattr(lib, name)
            function.restype = restype
            function.argtypes = argtypes
        _lib = lib
    return _lib


def _check(code, lib=None):
    if code == OK:
        return
    lib = lib or library()
    message = lib.tle_rt_last_error().decode()
    error = {NO_DEVICE: NoDeviceError, HANG: KernelHangError}.get(code, TleError)
    raise error(message)


def exit_on_hang(main, *args):
    """main(*args), for a program's entry point: where it raises
    KernelHangError, the message goes to stderr and the process ends at
    once with status HANG (os._exit: no finalizer waits for the hung
    kernel), as tle-run does. Library code raises; only a program decides
    to end the process."""
    try:
        return main(*args)
    except KernelHangError as error:
        print(f"tle.runtime: {error}", file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(HANG)


def _sync_torch():
    """Waits for PyTorch's work on the GPU, if PyTorch is in use."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def _grid(grid):
    dims = (grid,) if isinstance(grid, int) else tuple(grid)
    if not 1 <= len(dims) <= 3 or any(not isinstance(d, int) or d < 1 for d in dims):
        raise ValueError(f"a grid is 1 to 3 positive ints, not {grid!r}")
    return dims + (1,) * (3 - len(dims))


# PyTorch's current stream of a device as an int, the cheapest way torch
# offers (what Triton's launcher calls); bound on the first current_stream.
_raw_stream = None


def current_stream(device=0):
    """PyTorch's current CUstream on CUDA device `device` (an index), as the
    int that launch_async and LaunchPlan.launch take: through
    torch._C._cuda_getCurrentRawStream where torch has it (a fraction of a
    microsecond, for launch paths taken at every call), else
    torch.cuda.current_stream(device).cuda_stream. Needs torch with CUDA."""
    global _raw_stream
    if _raw_stream is None:
        import torch
        _raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
            lambda index: torch.cuda.current_stream(index).cuda_stream)
    return _raw_stream(device)


def stream_handle(stream=None, device=0):
    """The CUstream, as an int, that a launch_async with `stream` runs on:
    an int is taken as it is, an object with `cuda_stream` (a
    torch.cuda.Stream) gives that, and None means PyTorch's current stream
    on `device` where torch has CUDA, else 0 (the legacy default stream)."""
    if stream is None:
        try:
            import torch
        except ImportError:
            return 0
        if not torch.cuda.is_available():
            return 0
        return int(current_stream(device))
    if isinstance(stream, bool):
        raise TypeError("a stream is an int (a CUstream) or a torch.cuda.Stream")
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "cuda_stream"):
        return int(stream.cuda_stream)
    raise TypeError(f"a stream is an int (a CUstream) or a torch.cuda.Stream, "
                    f"not {type(stream).__name__}")


def f32_bits(value):
    """The bits of `value` as an f32, which is how a LaunchPlan takes an
    f32 argument."""
    return struct.unpack("<I", struct.pack("<f", value))[0]


class TensorMap:
    """A tensor passed as a `!tle.tensor_map<...>` argument."""

    def __init__(self, tensor):
        self.tensor = tensor


def tensor_map(tensor):
    """Marks `tensor` to be passed as a TMA descriptor (the kernel's
    signature gives the box and swizzle; the tensor's dtype must be its
    element type)."""
    return TensorMap(tensor)


# torch's dtypes by the element types MLIR spells (memrefs are signless).
_ELEMENT_TYPES = {"bfloat16": "bf16", "float16": "f16", "float32": "f32",
                  "float64": "f64", "bool": "i1", "int8": "i8", "uint8": "i8",
                  "int16": "i16", "int32": "i32", "int64": "i64",
                  "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2"}


def element_type(tensor):
    """The element type, as MLIR spells it, of a tensor's dtype."""
    name = str(tensor.dtype).replace("torch.", "")
    if name not in _ELEMENT_TYPES:
        raise TypeError(f"a {tensor.dtype} tensor cannot be a kernel argument "
                        f"(dtypes: {', '.join(_ELEMENT_TYPES)})")
    return _ELEMENT_TYPES[name]


def _shape(tensor):
    """Address, element type, sizes and strides (in elements) of a tensor,
    through the calls torch.Tensor has."""
    sizes = [int(s) for s in tensor.shape]
    strides = [int(s) for s in tensor.stride()]
    return (int(tensor.data_ptr()), element_type(tensor).encode(),
            (c_int64 * len(sizes))(*sizes), (c_int64 * len(strides))(*strides))


class Args:
    """An argument list in the order of the kernel's signature. `values`
    (or add()) take tensors (memrefs), TensorMap (tensor_map()), ints
    (index) and floats (f32); i32() adds an i32."""

    def __init__(self, values=(), lib=None):
        self._lib = lib or library()
        self._handle = c_void_p()
        _check(self._lib.tle_rt_args_create(byref(self._handle)), self._lib)
        # The tensors stay alive as long as the list that points at them.
        self._keep = []
        for value in values:
            self.add(value)

    def add(self, value):
        if isinstance(value, TensorMap):
            return self.tensor_map(value.tensor)
        if hasattr(value, "data_ptr"):
            return self.memref(value)
        if isinstance(value, bool):
            raise TypeError("a bool is no kernel argument; pass an int (index) "
                            "or use i32()")
        if isinstance(value, int):
            return self.index(value)
        if isinstance(value, float):
            return self.f32(value)
        raise TypeError(f"cannot pass {type(value).__name__} as a kernel argument "
                        "(tensors, tensor_map(tensor), int, float)")

    def memref(self, tensor):
        """A memref descriptor with the tensor's real strides. data_ptr()
        already points at the first element (the storage offset included),
        so the descriptor's offset is 0: right both for identity layouts,
        whose static offset 0 the kernel assumes, and for strided ones. An
        identity layout also assumes contiguous strides, which the runtime's
        check demands: pass contiguous tensors there."""
        address, element, sizes, strides = _shape(tensor)
        self._keep.append(tensor)
        _check(self._lib.tle_rt_args_add_memref(self._handle, address, element,
                                                len(sizes), sizes, strides, 0),
               self._lib)
        return self

    def tensor_map(self, tensor):
        address, element, sizes, strides = _shape(tensor)
        self._keep.append(tensor)
        _check(self._lib.tle_rt_args_add_tensor_map(self._handle, address, element,
                                                    len(sizes), sizes, strides),
               self._lib)
        return self

    def index(self, value):
        _check(self._lib.tle_rt_args_add_index(self._handle, int(value)), self._lib)
        return self

    def i32(self, value):
        _check(self._lib.tle_rt_args_add_i32(self._handle, int(value)), self._lib)
        return self

    def f32(self, value):
        _check(self._lib.tle_rt_args_add_f32(self._handle, float(value)), self._lib)
        return self

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.tle_rt_args_free(self._handle)
            self._handle = None


def _as_args(args):
    return args if isinstance(args, Args) else Args(args)


class Arg(NamedTuple):
    """One argument of a kernel, as the runtime read it from the metadata
    (tle_rt_arg_info): `kind` is "memref", "tensor_map", "index", "i32" or
    "f32"; -1 stands for a dynamic size, stride or offset."""
    kind: str
    type: str
    name: str = ""
    element_type: str = ""
    # Memrefs: the sizes; strides None for the identity layout (contiguous,
    # offset 0), else the layout's strides and offset.
    sizes: Tuple[int, ...] = ()
    strides: Optional[Tuple[int, ...]] = None
    offset: int = 0
    # Tensor maps: the box (outermost first) and the swizzle span in bytes.
    box: Tuple[int, ...] = ()
    swizzle: int = 0


# Indexed by TLE_RT_ARG_*.
_ARG_KINDS = ("memref", "tensor_map", "index", "i32", "f32")


def _arg(info):
    def values(pointer):
        return tuple(pointer[:info.rank]) if pointer else ()

    kind = _ARG_KINDS[info.kind]
    return Arg(kind=kind, type=info.type.decode(), name=info.name.decode(),
               element_type=info.element_type.decode(),
               sizes=values(info.sizes),
               strides=values(info.strides) if info.strides else None,
               offset=info.offset, box=values(info.box), swizzle=info.swizzle)


def default_metadata_path(image_path):
    """Where tle-translate's metadata is by convention: k.ptx -> k.json."""
    return os.path.splitext(image_path)[0] + ".json"


class Metadata:
    """tle-translate's metadata read by the runtime without a device: its
    kernels describe their arguments and check argument lists
    (Kernel.signature, Kernel.args), but cannot be launched."""

    device = None

    def __init__(self, path, lib=None):
        self._lib = lib or library()
        self._handle = c_void_p()
        _check(self._lib.tle_rt_metadata_read(path.encode(), byref(self._handle)),
               self._lib)

    def kernel(self, name=None):
        """The kernel called `name`, or the only one."""
        handle = c_void_p()
        _check(self._lib.tle_rt_metadata_get_kernel(
            self._handle, name.encode() if name else None, byref(handle)), self._lib)
        return Kernel(self, handle)

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.tle_rt_metadata_free(self._handle)
            self._handle = None


class Device:
    """A CUDA device's primary context (the one PyTorch uses)."""

    def __init__(self, ordinal=0, watchdog=None):
        self._lib = library()
        self._handle = c_void_p()
        self.ordinal = ordinal
        _check(self._lib.tle_rt_device_open(ordinal, byref(self._handle)))
        if watchdog is not None:
            _check(self._lib.tle_rt_device_set_watchdog(self._handle, watchdog))
        self.name = self._lib.tle_rt_device_name(self._handle).decode()
        self.compute_capability = self._lib.tle_rt_device_compute_capability(self._handle)
        self.multiprocessors = self._lib.tle_rt_device_multiprocessors(self._handle)

    def load(self, image_path, metadata_path=None):
        """A module from PTX or a cubin and tle-translate's metadata."""
        return Module(self, image_path, metadata_path)

    def __del__(self):
        # Its modules hold a reference to it, so they are gone by now.
        if getattr(self, "_handle", None):
            self._lib.tle_rt_device_close(self._handle)
            self._handle = None


class Module:
    def __init__(self, device, image_path, metadata_path=None):
        self.device = device
        self._lib = device._lib
        self._handle = c_void_p()
        metadata_path = metadata_path or default_metadata_path(image_path)
        _check(self._lib.tle_rt_module_load(device._handle, image_path.encode(),
                                            metadata_path.encode(), byref(self._handle)))

    def kernel(self, name=None):
        """The kernel called `name`, or the module's only one."""
        handle = c_void_p()
        _check(self._lib.tle_rt_module_get_kernel(
            self._handle, name.encode() if name else None, byref(handle)))
        return Kernel(self, handle)

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.tle_rt_module_free(self._handle)
            self._handle = None


class Kernel:
    """A kernel of a loaded Module (or of Metadata, which cannot launch)."""

    def __init__(self, module, handle):
        self.module = module
        self._lib = module._lib
        self._handle = handle
        self.name = self._lib.tle_rt_kernel_name(handle).decode()
        block = (c_int * 3)()
        self._lib.tle_rt_kernel_block(handle, block)
        self.block = tuple(block)
        self.shared_memory = self._lib.tle_rt_kernel_shared_memory(handle)
        # Loops over the work items of its CTA's linear id (tle.persistent).
        self.persistent = bool(self._lib.tle_rt_kernel_persistent(handle))
        # The arguments (Arg), () if the metadata has none.
        self.signature = tuple(self._read_arg(i) for i in
                               range(max(self._lib.tle_rt_kernel_num_args(handle), 0)))

    def _read_arg(self, index):
        info = _ArgInfo()
        _check(self._lib.tle_rt_kernel_arg(self._handle, index, byref(info)), self._lib)
        return _arg(info)

    def args(self, values):
        """An Args of `values`, checked against the kernel's arguments: a
        TleError names the first argument that does not fit and why."""
        args = values if isinstance(values, Args) else Args(values, lib=self._lib)
        self.check(args)
        return args

    def check(self, args):
        """Checks `args` against the kernel's metadata, as launches do."""
        _check(self._lib.tle_rt_args_check(_as_args(args)._handle, self._handle), self._lib)

    def launch(self, grid, args):
        """One launch; returns when the kernel is done."""
        args = _as_args(args)
        _sync_torch()
        _check(self._lib.tle_rt_launch(self._handle, *_grid(grid), args._handle))

    def launch_async(self, grid, args, stream=None):
        """Enqueues one launch on `stream` (default: PyTorch's current
        stream; see stream_handle) and returns at once, without the
        watchdog. Work queued before it on that stream is ordered before it,
        so nothing is synchronized; a fault of the kernel surfaces at the
        next synchronization (e.g. torch.cuda.synchronize()). `args` may be
        dropped right after (the driver copied the parameters); the tensors
        must live until the kernel ends, as for any kernel on PyTorch's
        streams."""
        args = _as_args(args)
        device = self.module.device
        handle = stream_handle(stream, device.ordinal if device else 0)
        _check(self._lib.tle_rt_launch_on_stream(self._handle, *_grid(grid),
                                                 args._handle, handle), self._lib)

    def plan(self, grid, args):
        """A LaunchPlan of `args` on `grid`, checked now as launch_async
        checks (a TleError names what does not fit)."""
        return LaunchPlan(self, grid, _as_args(args))

    def time(self, grid, args, warmup=10, reps=100):
        """(median, min, max) milliseconds of `reps` launches, each between
        two CUDA events on the runtime's stream, after `warmup` untimed
        ones: all enqueued back to back and waited for once (under the
        watchdog), so that the GPU runs them as it runs a peer's timing
        loop. The caches are as the previous launch left them. To time a
        kernel beside a peer, time both with tle.bench and launch_async."""
        args = _as_args(args)
        _sync_torch()
        times = [c_double(), c_double(), c_double()]
        _check(self._lib.tle_rt_time(self._handle, *_grid(grid), args._handle, warmup,
                                     reps, *(byref(t) for t in times)))
        return tuple(t.value for t in times)

    def launcher(self, grid, args):
        """A zero-argument callable that launches, for harnesses such as
        triton.testing.do_bench; it does not synchronize PyTorch first.

        Not a kernel timer: each call returns only once the kernel is done
        (the runtime polls an event, sleeping 20 us to 1 ms between polls),
        and do_bench's events sit on PyTorch's stream, not the runtime's, so
        what they measure is the host's round trip. Time kernels with
        time(), or give do_bench a function that calls launch_async()."""
        args = _as_args(args)
        dims = _grid(grid)
        lib, handle = self._lib, self._handle

        def launch():
            _check(lib.tle_rt_launch(handle, *dims, args._handle), lib)

        return launch


class LaunchPlan:
    """A launch checked once (Kernel.plan) and then enqueued again and again
    with new argument values (tle_rt_plan_launch): one value per argument,
    in order, each a memref's or tensor map's address (data_ptr()), an
    index's or i32's value, or an f32's bits (f32_bits). The tensors must
    have the shapes, strides and dtypes of those the plan was made with;
    nothing else is checked again, which is what makes a launch cheap."""

    def __init__(self, kernel, grid, args):
        self.kernel = kernel
        self._lib = kernel._lib
        self._handle = c_void_p()
        _check(self._lib.tle_rt_plan_create(kernel._handle, *_grid(grid), args._handle,
                                            byref(self._handle)), self._lib)
        self.num_values = self._lib.tle_rt_plan_num_values(self._handle)
        self._values = c_uint64 * self.num_values
        self._launch = self._lib.tle_rt_plan_launch
        # The C hot path (tle/_launch.c) where the wheel has it and the
        # library's function has an address (a stand-in in tests may not);
        # else ctypes.
        self._fast, self._no_fast = None, None
        if _fast_launch is None:
            self._no_fast = "this tle has no tle._launch"
        elif self.num_values > _FAST_MAX_VALUES:
            self._no_fast = (f"{self.num_values} values; tle._launch takes at most "
                             f"{_FAST_MAX_VALUES}")
        else:
            try:
                function = ctypes.cast(self._launch, c_void_p).value
            except ctypes.ArgumentError:
                function = None
            if function:
                self._fast = (function, self._handle.value)
            else:
                self._no_fast = "the library's tle_rt_plan_launch has no C address"
        self.c_launch = self._fast is not None

    @property
    def c_launch(self):
        """Whether launch() goes through tle._launch (C) rather than ctypes:
        true where the package has it (HAS_C_LAUNCH) and the plan's values
        fit it. Set it to False to launch through ctypes (to measure what
        the C path saves, say); setting True where the plan has no C path
        raises ValueError."""
        return self._c_launch

    @c_launch.setter
    def c_launch(self, value):
        if value and self._fast is None:
            raise ValueError(f"kernel '{self.kernel.name}': this plan has no C "
                             f"launch path ({self._no_fast})")
        self._c_launch = bool(value)
        self._enqueue = self.launcher(fast=self._c_launch)

    def launch(self, values, stream):
        """Enqueues one launch with `values` on `stream` (a CUstream as an
        int, or anything stream_handle takes) and returns at once, as
        Kernel.launch_async does."""
        if not isinstance(stream, int) or isinstance(stream, bool):
            device = self.kernel.module.device
            stream = stream_handle(stream, device.ordinal if device else 0)
        count = len(values)
        if count != self.num_values:
            raise ValueError(f"kernel '{self.kernel.name}' takes {self.num_values} "
                             f"argument values (one per argument), {count} were given")
        code = self._enqueue(stream, tuple(values))
        if code:
            self.raise_for(code)

    def launcher(self, fast=True):
        """launch without its checks, for a caller that has made its values
        right once and launches many times: f(stream, values) -> the
        library's status (0 on success; raise_for raises its error).
        `stream` must be a CUstream as an int and `values` a tuple of
        exactly num_values ints; nothing is checked. It may be called only
        while this plan lives. The C path where this plan has one and
        `fast` is true, else ctypes."""
        if fast and self._fast is not None:
            return functools.partial(_fast_launch, *self._fast)
        enqueue, handle, make, count = (self._launch, self._handle, self._values,
                                        self.num_values)
        return lambda stream, values: enqueue(handle, make(*values), count, stream)

    def raise_for(self, code):
        """Raises the library's error for the status `code` of a launch."""
        _check(code, self._lib)

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.tle_rt_plan_free(self._handle)
            self._handle = None
