"""ctypes binding of the TLE runtime (libtle_runtime.so), for PyTorch users.

    import torch, tle_runtime as rt

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
is complete. A hung kernel (TLE_RT_HANG) leaves the device unusable: the
message is printed and the process ends with os._exit(3).

`launch_async` enqueues on PyTorch's current stream (or a given one) and
returns at once, like a PyTorch or Triton kernel: CUDA events on that
stream (triton.testing.do_bench) time it, and its errors show at the next
synchronization. `kernel.args(values)` checks tensors against the kernel's
memref types (rank, static sizes, element type, layout strides) before
building the list, since the runtime checks neither dtypes nor strides.

The library is $TLE_RUNTIME_LIB, else the newest build*/lib/libtle_runtime.so
of this checkout. Tensors are used through data_ptr(), shape, stride() and
dtype alone; torch is imported only to find the current stream.
"""

import ctypes
import functools
import glob
import json
import os
import re
import sys
from ctypes import POINTER, byref, c_char_p, c_double, c_int, c_int64, c_uint64, c_void_p

OK, ERROR, NO_DEVICE, HANG = 0, 1, 2, 3

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class TleError(RuntimeError):
    """A runtime call failed; the message is tle_rt_last_error()."""


class NoDeviceError(TleError):
    """No CUDA driver or no CUDA device (TLE_RT_NO_DEVICE)."""


class LibraryNotFoundError(OSError):
    """libtle_runtime.so is not where it was looked for."""


def find_library(environ=os.environ, root=_REPO):
    """The path of libtle_runtime.so: $TLE_RUNTIME_LIB, else the newest
    root/build*/lib/libtle_runtime.so."""
    path = environ.get("TLE_RUNTIME_LIB")
    if path:
        if not os.path.isfile(path):
            raise LibraryNotFoundError(
                f"TLE_RUNTIME_LIB={path}: no such file (it must name "
                f"libtle_runtime.so itself)")
        return path
    pattern = os.path.join(root, "build*", "lib", "libtle_runtime.so")
    found = glob.glob(pattern)
    if not found:
        raise LibraryNotFoundError(
            f"libtle_runtime.so not found: no {pattern}. Build it (e.g. "
            f"cmake -G Ninja -S . -B build -DTLE_RUNTIME_ONLY=ON && ninja -C "
            f"build tle_runtime) or set TLE_RUNTIME_LIB to its path")
    return max(found, key=os.path.getmtime)


_SIZES = POINTER(c_int64)

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
    "tle_rt_module_get_kernel": (c_int, [c_void_p, c_char_p, POINTER(c_void_p)]),
    "tle_rt_kernel_name": (c_char_p, [c_void_p]),
    "tle_rt_kernel_num_args": (c_int, [c_void_p]),
    "tle_rt_kernel_block": (None, [c_void_p, POINTER(c_int)]),
    "tle_rt_kernel_shared_memory": (c_int64, [c_void_p]),
    "tle_rt_args_create": (c_int, [POINTER(c_void_p)]),
    "tle_rt_args_free": (None, [c_void_p]),
    "tle_rt_args_add_memref": (c_int, [c_void_p, c_uint64, c_int, _SIZES, _SIZES, c_int64]),
    "tle_rt_args_add_tensor_map": (c_int, [c_void_p, c_uint64, c_int, _SIZES, _SIZES]),
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
}

_lib = None


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
    if code == HANG:
        # The context is stuck with a running kernel: nothing can be freed
        # or synchronized any more, so leave without running finalizers.
        print(f"tle_runtime: {message}", file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(HANG)
    raise (NoDeviceError if code == NO_DEVICE else TleError)(message)


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
        return int(torch.cuda.current_stream(device).cuda_stream)
    if isinstance(stream, bool):
        raise TypeError("a stream is an int (a CUstream) or a torch.cuda.Stream")
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "cuda_stream"):
        return int(stream.cuda_stream)
    raise TypeError(f"a stream is an int (a CUstream) or a torch.cuda.Stream, "
                    f"not {type(stream).__name__}")


class TensorMap:
    """A tensor passed as a `!tle.tensor_map<...>` argument."""

    def __init__(self, tensor):
        self.tensor = tensor


def tensor_map(tensor):
    """Marks `tensor` to be passed as a TMA descriptor (the kernel's
    signature gives the box, element type and swizzle)."""
    return TensorMap(tensor)


def _shape(tensor):
    """Address, sizes and strides (in elements) of a tensor, through the
    calls torch.Tensor has."""
    sizes = [int(s) for s in tensor.shape]
    strides = [int(s) for s in tensor.stride()]
    return int(tensor.data_ptr()), (c_int64 * len(sizes))(*sizes), (c_int64 * len(strides))(*strides)


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
        """A memref descriptor. data_ptr() already points at the first
        element (the storage offset included), so the descriptor's offset
        is 0: right both for identity layouts, whose static offset 0 the
        kernel assumes, and for strided ones. An identity layout also
        assumes contiguous strides: pass contiguous tensors there."""
        address, sizes, strides = _shape(tensor)
        self._keep.append(tensor)
        _check(self._lib.tle_rt_args_add_memref(self._handle, address, len(sizes),
                                                sizes, strides, 0), self._lib)
        return self

    def tensor_map(self, tensor):
        address, sizes, strides = _shape(tensor)
        self._keep.append(tensor)
        _check(self._lib.tle_rt_args_add_tensor_map(self._handle, address, len(sizes),
                                                    sizes, strides), self._lib)
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


# The element types of memrefs, as torch names its dtypes.
_DTYPES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64",
           "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64"}

_MEMREF = re.compile(r"^memref<((?:(?:\?|\d+)x)*)(\w+)(?:,\s*(.*))?>$")
_STRIDED = re.compile(r"^strided<\[([^\]]*)\](?:,\s*offset:\s*([?\d]+))?>$")


@functools.lru_cache(maxsize=None)
def parse_memref_type(type_text):
    """(shape, element type, strides, offset) of a memref type, -1 (None for
    the offset) where dynamic; strides are None for the identity layout:
    "memref<?x?x1x576xbf16>" -> ((-1, -1, 1, 576), "bf16", None, 0)."""
    match = _MEMREF.match(type_text.strip())
    if not match:
        raise ValueError(f"{type_text!r} is not a memref type")
    dims, element, layout = match.groups()
    shape = tuple(-1 if d == "?" else int(d) for d in dims.split("x") if d)
    if not layout:
        return shape, element, None, 0
    strided = _STRIDED.match(layout.strip())
    if not strided:
        raise ValueError(f"{type_text!r}: only identity and strided<[...]> "
                         f"layouts are understood")
    strides = tuple(-1 if x.strip() == "?" else int(x)
                    for x in strided.group(1).split(",") if x.strip())
    offset = strided.group(2)
    if len(strides) != len(shape):
        raise ValueError(f"{type_text!r}: {len(strides)} strides for rank {len(shape)}")
    return shape, element, strides, None if offset == "?" else int(offset or 0)


def _contiguous_strides(sizes):
    strides, step = [], 1
    for size in reversed(sizes):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def check_memref(type_text, tensor, where="the tensor"):
    """Raises ValueError unless `tensor` can be passed as a memref of
    `type_text`: its rank, static sizes, dtype (when it has one) and
    strides. The strides of an identity layout are the contiguous ones, of a
    strided layout its static entries; a dimension of size 1 takes any."""
    shape, element, layout, offset = parse_memref_type(type_text)
    where = f"{where} ({type_text})"
    sizes = tuple(int(s) for s in tensor.shape)
    strides = tuple(int(s) for s in tensor.stride())
    if len(sizes) != len(shape):
        raise ValueError(f"{where}: a tensor of rank {len(sizes)} {list(sizes)}, "
                         f"the kernel takes rank {len(shape)}")
    for d, (want, got) in enumerate(zip(shape, sizes)):
        if want >= 0 and want != got:
            raise ValueError(f"{where}: size {got} in dimension {d}, the kernel "
                             f"takes {want}")
    dtype = getattr(tensor, "dtype", None)
    if dtype is not None and element in _DTYPES:
        if str(dtype).replace("torch.", "") != _DTYPES[element]:
            raise ValueError(f"{where}: a {dtype} tensor, the kernel takes "
                             f"{_DTYPES[element]}")
    if offset != 0:
        # data_ptr() is the first element; a static offset would move it.
        raise ValueError(f"{where}: a layout with a non-zero or dynamic offset "
                         f"is not supported")
    needed = layout if layout is not None else _contiguous_strides(sizes)
    for d, (want, got) in enumerate(zip(needed, strides)):
        if want >= 0 and sizes[d] > 1 and want != got:
            kind = "contiguous" if layout is None else "layout"
            raise ValueError(f"{where}: stride {got} in dimension {d}, the "
                             f"{kind} stride is {want} (strides {list(strides)}); "
                             f"pass a tensor with that layout (e.g. .contiguous())")


def default_metadata_path(image_path):
    """Where tle-translate's metadata is by convention: k.ptx -> k.json."""
    return os.path.splitext(image_path)[0] + ".json"


def read_kernel_metadata(path):
    """The metadata's kernels by name (dicts with block, params, signature,
    ...), read here because the C interface does not expose signatures."""
    with open(path) as f:
        return {k["name"]: k for k in json.load(f)["kernels"]}


def signature_args(signature, values, name="the kernel", lib=None):
    """An Args of `values` for a kernel of `signature`, each tensor passed
    to a memref first checked against its type (check_memref). The tensors'
    real strides go to the kernel, which reads a strided layout's dynamic
    strides from them and assumes an identity layout's."""
    values = list(values)
    if signature and len(values) != len(signature):
        raise ValueError(f"{name} takes {len(signature)} arguments "
                         f"({', '.join(signature)}), {len(values)} were given")
    for i, (type_text, value) in enumerate(zip(signature, values)):
        if type_text.startswith("memref<") and hasattr(value, "data_ptr"):
            check_memref(type_text, value, f"{name}: argument {i}")
    return Args(values, lib=lib)


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
        self.metadata = read_kernel_metadata(metadata_path)

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
    def __init__(self, module, handle):
        self.module = module
        self._lib = module._lib
        self._handle = handle
        self.name = self._lib.tle_rt_kernel_name(handle).decode()
        block = (c_int * 3)()
        self._lib.tle_rt_kernel_block(handle, block)
        self.block = tuple(block)
        self.shared_memory = self._lib.tle_rt_kernel_shared_memory(handle)
        # Argument types as written ("memref<?x?xbf16>", ...); [] if the
        # metadata has none.
        self.signature = module.metadata[self.name].get("signature", [])

    def args(self, values):
        """signature_args for this kernel."""
        return signature_args(self.signature, values, f"kernel '{self.name}'",
                              self._lib)

    def check(self, args):
        """Checks `args` against the kernel's metadata, as launches do."""
        _check(self._lib.tle_rt_args_check(_as_args(args)._handle, self._handle))

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
        handle = stream_handle(stream, self.module.device.ordinal)
        _check(self._lib.tle_rt_launch_on_stream(self._handle, *_grid(grid),
                                                 args._handle, handle), self._lib)

    def time(self, grid, args, warmup=10, reps=100):
        """(median, min, max) milliseconds of `reps` launches, each timed
        with CUDA events on the runtime's stream, after `warmup` untimed
        ones. The launches run one after the other, so the caches are as
        the previous launch left them."""
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
        (the runtime polls its stream, sleeping 20 us to 1 ms between polls),
        and do_bench's events sit on PyTorch's stream, not the runtime's, so
        what they measure is the host's round trip. Time kernels with
        time(), or give do_bench a function that calls launch_async()."""
        args = _as_args(args)
        dims = _grid(grid)
        lib, handle = self._lib, self._handle

        def launch():
            _check(lib.tle_rt_launch(handle, *dims, args._handle), lib)

        return launch
