# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Calls of TLE's compiled attention kernels (kernels/attention), launched
through the runtime's launch plans.

    f = Attention()                       # the shipped variant per head dim and mask
    f = Attention([variant("fwd_d128")])  # one variant
    out, lse = f(q, k, v, causal=False, sm_scale=None)

q [B, S_q, H, D], k and v [B, S_k, H_kv, D], bf16 on one CUDA device, H a
multiple of H_kv (grouped KV heads), D a head dimension a variant takes;
out [B, S_q, H, D] bf16 and lse [B, H, S_q] f32 (natural log, as
FlashAttention's softmax_lse), allocated at every call. With causal, key j
is seen by query i when j <= i (torch's is_causal). sm_scale defaults to
1 / sqrt(D) and must be positive.

The kernels read q, k and v and write out through TMA descriptors of
their [B, H, S, D] views, never copies: any strides with the last dimension contiguous and
the others multiples of 16 bytes, every tensor starting at a 16-byte
boundary. A call's checks are made once per signature (shapes, strides,
dtypes, device, causal, sm_scale): the first call of a signature checks
everything, loads the variant's kernel on the device (once per device)
and makes a launch plan; every later call allocates the outputs, checks
the alignment and launches the plan on PyTorch's current stream.
"""

import math
import os

from .. import runtime as rt
from .._kernels import Loader
from .variants import VARIANTS, choose

try:
    import torch
except ImportError as error:
    raise ImportError(f"tle's attention call needs PyTorch ({error})") from error

# The kernels' arguments (kernels/attention/generate.py): tensor maps of
# q, k, v and out as [B, H, S, D], lse [B, H, S_q], sm_scale, S_k and H_kv.
KINDS = ("tensor_map",) * 4 + ("memref", "f32", "index", "index")
# TMA's alignment of addresses and strides.
ALIGN_BYTES = 16
INT32_MAX = 2 ** 31 - 1
# A grid's y and z extents.
GRID_YZ_MAX = 65535
# Signatures kept; past that the oldest is dropped.
MAX_SIGNATURES = 4096

_BF16, _F32 = torch.bfloat16, torch.float32
_empty = torch.empty_strided


def _fail(message, error=ValueError):
    raise error(f"tle attention: {message}")


class Shape:
    """The sizes of a call, and the query rows of a work item of the
    variant that takes it."""

    def __init__(self, b, s_q, s_k, heads, kv_heads, head_dim, block_m=128):
        self.b, self.s_q, self.s_k = b, s_q, s_k
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
        self.block_m = block_m

    def outputs(self):
        """The shapes of out and lse."""
        return ((self.b, self.s_q, self.heads, self.head_dim),
                (self.b, self.heads, self.s_q))

    def query_blocks(self):
        return -(-self.s_q // self.block_m)

    def items(self):
        """Work items: block_m query rows of one (batch, head)."""
        return self.b * self.heads * self.query_blocks()


def launch_grid(shape, persistent, multiprocessors):
    """One CTA per item, (ceil(S_q / block_m), H, B), or for a persistent
    kernel min(items, multiprocessors) CTAs."""
    if persistent:
        return (max(1, min(shape.items(), max(multiprocessors, 1))), 1, 1)
    return (shape.query_blocks(), shape.heads, shape.b)


def scale_of(sm_scale, head_dim):
    """sm_scale as the kernels take it: 1 / sqrt(head_dim) for None, else a
    positive finite Python number (the kernels take the row maximum of the
    unscaled scores)."""
    if sm_scale is None:
        return 1.0 / math.sqrt(head_dim)
    if isinstance(sm_scale, bool) or not isinstance(sm_scale, (int, float)):
        _fail(f"sm_scale must be a Python float or None, not "
              f"{type(sm_scale).__name__}", TypeError)
    if not (math.isfinite(sm_scale) and sm_scale > 0):
        _fail(f"sm_scale must be positive and finite, not {sm_scale}")
    return float(sm_scale)


def check_call(q, k, v, causal=False, sm_scale=None, variants=VARIANTS):
    """(Shape, variant, sm_scale) of a call, the variant one of `variants`,
    or a ValueError (TypeError for a dtype or an argument's type) for what
    no kernel takes: ranks, sizes, dtypes, devices. It reads no data and no
    address, so that it checks fake tensors (torch.compile) as it checks
    real ones."""
    if (q.dim(), k.dim(), v.dim()) != (4, 4, 4):
        _fail(f"q, k and v must be 4-D [B, S, H, D], not {q.dim()}-, {k.dim()}- and "
              f"{v.dim()}-D")
    for name, tensor in (("q", q), ("k", k), ("v", v)):
        if tensor.dtype != _BF16:
            _fail(f"{name} must be torch.bfloat16, not {tensor.dtype}", TypeError)
    if not isinstance(causal, bool):
        _fail(f"causal must be a bool, not {type(causal).__name__}", TypeError)
    b, s_q, heads, head_dim = q.shape
    kb, s_k, kv_heads, k_dim = k.shape
    if tuple(v.shape) != tuple(k.shape):
        _fail(f"v must have k's shape {list(k.shape)}, not {list(v.shape)}")
    if kb != b or k_dim != head_dim:
        _fail(f"k and v must be [B, S_k, H_kv, D] with q's B = {b} and D = "
              f"{head_dim}, not {list(k.shape)}")
    if kv_heads == 0 or heads % kv_heads:
        _fail(f"q's heads ({heads}) must be a multiple of k's and v's ({kv_heads})")
    if s_k == 0 and b * s_q * heads:
        _fail("k and v have no keys (S_k = 0): the softmax of an empty row is "
              "undefined")
    variant = choose(head_dim, causal, variants)
    shape = Shape(b, s_q, s_k, heads, kv_heads, head_dim, variant.block_m)
    if max(s_q, s_k, shape.items()) > INT32_MAX:
        _fail(f"S_q ({s_q}), S_k ({s_k}) and the work items must fit an int32")
    if not variant.persistent and max(b, heads) > GRID_YZ_MAX:
        _fail(f"B ({b}) and H ({heads}) must be at most {GRID_YZ_MAX} (the grid)")
    device = q.device
    if device.type != "cuda":
        _fail(f"q is on {device}; the kernels run on CUDA devices")
    for name, tensor in (("k", k), ("v", v)):
        if tensor.device != device:
            _fail(f"{name} is on {tensor.device}, q on {device}")
    return shape, variant, scale_of(sm_scale, head_dim)


def check_strides(name, tensor):
    """The last dimension contiguous, the others 16-byte multiples (TMA),
    for dimensions of more than one element."""
    element = tensor.element_size()
    *outer, last = zip(tensor.shape, tensor.stride())
    if last[0] > 1 and last[1] != 1:
        _fail(f"{name}'s last dimension must be contiguous (stride 1), not stride "
              f"{last[1]}")
    for d, (size, stride) in enumerate(outer):
        if size > 1 and (stride <= 0 or stride * element % ALIGN_BYTES):
            _fail(f"{name}'s stride in dimension {d} ({stride} elements) must be a "
                  f"positive multiple of {ALIGN_BYTES} bytes")


def tma_view(tensor):
    """The [B, H, S, D] view of a [B, S, H, D] tensor that the kernels'
    tensor maps describe. A dimension of one element may have any stride
    in torch (0 after expand); TMA wants a positive multiple of 16 bytes,
    so it gets the one a contiguous tensor would have."""
    view = tensor.permute(0, 2, 1, 3)
    strides = list(view.stride())
    step = ALIGN_BYTES // view.element_size()
    for d in range(3):
        if view.shape[d] == 1:
            inner = max(strides[e] * view.shape[e] for e in range(d + 1, 4))
            strides[d] = -(-max(inner, 1) // step) * step
    if strides != list(view.stride()):
        view = view.as_strided(view.shape, strides)
    return view


def check_kernel(kernel):
    """Raises unless `kernel` takes an attention kernel's arguments."""
    if tuple(arg.kind for arg in kernel.signature) != KINDS:
        types = ", ".join(arg.type for arg in kernel.signature)
        _fail(f"kernel '{kernel.name}' takes ({types}); an attention kernel takes "
              f"tensor maps of q, k, v and out, the memref lse, sm_scale, S_k and "
              f"H_kv")


class _Call:
    """What the calls of one signature share: the outputs' shapes and
    strides, the scalars, and the plan (None when there is nothing to
    compute)."""

    def __init__(self, kernel, shape, device, q, k, v, sm_scale):
        self.device, self.index = device, device.index
        self.out_shape, self.lse_shape = shape.outputs()
        self.out_strides = torch.empty(self.out_shape, device="meta").stride()
        self.lse_strides = torch.empty(self.lse_shape, device="meta").stride()
        self.scalars = (rt.f32_bits(sm_scale), shape.s_k, shape.kv_heads)
        self.plan = self.launch = None
        if shape.items():
            out, lse = self.empty_outputs()
            grid = launch_grid(shape, kernel.persistent,
                               kernel.module.device.multiprocessors
                               if kernel.persistent else 0)
            values = [rt.tensor_map(tma_view(t)) for t in (q, k, v, out)]
            values += [lse, sm_scale, shape.s_k, shape.kv_heads]
            self.plan = kernel.plan(grid, values)
            self.launch = self.plan.launcher()

    def empty_outputs(self):
        return (_empty(self.out_shape, self.out_strides, dtype=_BF16, device=self.device),
                _empty(self.lse_shape, self.lse_strides, dtype=_F32, device=self.device))

    def check_outputs(self, outputs):
        for tensor, shape, dtype in zip(outputs, (self.out_shape, self.lse_shape),
                                        (_BF16, _F32)):
            if (tuple(tensor.shape) != shape or tensor.dtype != dtype
                    or tensor.device != self.device or not tensor.is_contiguous()):
                _fail(f"the outputs must be contiguous {self.out_shape} bf16 and "
                      f"{self.lse_shape} float32 on {self.device}")

    def __call__(self, q, k, v, outputs):
        if outputs is None:
            outputs = self.empty_outputs()
        else:
            self.check_outputs(outputs)
        if self.plan is None:
            return outputs
        addresses = (q.data_ptr(), k.data_ptr(), v.data_ptr())
        if any(a % ALIGN_BYTES for a in addresses):
            name = next(n for n, a in zip("qkv", addresses) if a % ALIGN_BYTES)
            _fail(f"{name} must start at a {ALIGN_BYTES}-byte boundary (TMA)")
        code = self.launch(rt.current_stream(self.index),
                           addresses + (outputs[0].data_ptr(), outputs[1].data_ptr())
                           + self.scalars)
        if code:
            self.plan.raise_for(code)
        return outputs


class Attention:
    """f(q, k, v, causal=False, sm_scale=None, out=None) -> (out, lse) on
    the variant of `variants` for the call's head dimension and mask (see
    the module's doc). `out`, a tuple of both outputs, lets a check poison
    them first."""

    takes_outputs = True

    def __init__(self, variants=VARIANTS):
        self.variants = tuple(variants)
        self._loader = Loader(check_kernel, _fail)
        # signature -> _Call
        self._calls = {}

    def __call__(self, q, k, v, causal=False, sm_scale=None, out=None):
        key = (q.shape, q.stride(), q.dtype, q.get_device(),
               k.shape, k.stride(), k.dtype, k.get_device(),
               v.shape, v.stride(), v.dtype, v.get_device(), causal, sm_scale)
        call = self._calls.get(key)
        if call is None:
            call = self._prepare(key, q, k, v, causal, sm_scale)
        return call(q, k, v, out)

    def variant_for(self, q, k, v, causal=False):
        """The variant a call with these tensors runs on."""
        head_dim = q.shape[-1] if q.dim() == 4 else None
        return choose(head_dim, causal, self.variants)

    def kernel(self, variant, index):
        """`variant`'s kernel on device `index`, loaded at its first use."""
        return self._loader.kernel(variant, index)

    def _prepare(self, key, q, k, v, causal, sm_scale):
        shape, variant, scale = check_call(q, k, v, causal, sm_scale, self.variants)
        for name, tensor in (("q", q), ("k", k), ("v", v)):
            check_strides(name, tensor)
        call = _Call(self.kernel(variant, q.device.index), shape, q.device, q, k, v,
                     scale)
        if len(self._calls) >= MAX_SIGNATURES:
            del self._calls[next(iter(self._calls))]
        self._calls[key] = call
        return call


def load(path, variant):
    """The Attention callable of a compiled kernel at `path` (.ptx or
    .cubin, its .json beside it) with `variant`'s head dim and mask; its
    consumers (a warp group each beside the load warp's) and whether it is
    persistent come from its metadata."""
    meta = rt.Metadata(os.path.splitext(path)[0] + ".json").kernel()
    mine = variant._replace(name=os.path.basename(path), path=path,
                            consumers=meta.block[0] // 128 - 1,
                            persistent=meta.persistent)
    return Attention([mine])
