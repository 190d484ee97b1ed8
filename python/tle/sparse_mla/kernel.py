# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Calls of TLE's compiled SparseMLA kernels (kernels/sparse_mla) with
FlashMLA's shapes, launched through the runtime's launch plans.

    f = SparseMLA()                        # the fastest shipped variant per shape
    f = SparseMLA([variant("naive")])      # one variant
    out, max_logits, lse = f(q, kv, indices, sm_scale)

q [s_q, h, d_qk] bf16, kv [s_kv, 1, d_qk] bf16 and indices [s_q, 1, topk]
int32 (d_qk 576 or 512) give out [s_q, h, 512] bf16 and max_logits, lse
[s_q, h] f32 (natural-log units), allocated at every call unless `out`
gives them; attn_sink [h] f32 and topk_length [s_q] int32 are FlashMLA's
optional inputs. A leading batch dimension on q, kv and indices ([B, s_q,
h, d_qk], ...; topk_length [B, s_q]) gives batched outputs. The kernels
take 4-D views of these, never copies: q, kv and indices keep their
strides (rows of a larger buffer, a view of a paged cache), the last
dimension of each is contiguous, every other stride and every address
is a multiple of 16 bytes; the outputs, attn_sink and topk_length are
contiguous.

A call's checks are made once per signature: the shapes, strides, dtypes
and devices of its tensors, sm_scale, d_v and which optional inputs it
has. The first call of a signature checks everything, picks the variant,
loads its kernel on the tensors' device (once per device) and makes a
launch plan (tle.runtime.LaunchPlan); every later call only allocates the
outputs, checks that the addresses are aligned and launches the plan with
the tensors' addresses, on PyTorch's current stream of the tensors' device,
without waiting. Left out, attn_sink and topk_length are neutral: -inf
sinks, and lengths past topk (every kernel clamps a row's length to topk),
from buffers made once per device.

With kv_format="v32", kv is DeepSeek V3.2's FP8 KV cache instead
(tle.sparse_mla.kv_cache): [num_blocks, 64, 1, 656] of one-byte elements
(uint8, int8 or float8_e4m3fn: its bytes count), any block stride (a
multiple of 16 bytes), shared by every batch, and the indices are global
token ids, block * 64 + offset (invalid outside [0, 64 * num_blocks)).
The kernel dequantizes the rows it gathers; the math is the bf16 path's.
"""

import os

from .. import runtime as rt
from .variants import D_QK, D_V, KV_FORMATS, VARIANTS, Variant, choose

try:
    import torch
except ImportError as error:
    raise ImportError(f"tle's SparseMLA call needs PyTorch ({error})") from error

from .kv_cache import BLOCK as KV_BLOCK, V32  # noqa: E402

INT32_MAX = 2 ** 31 - 1
# cp.async copies 16 bytes at a time.
ALIGN_BYTES = 16
# The kernels' arguments, in order (kernels/sparse_mla/naive.mlir): q [B,
# SQ, H, d_qk], kv [B, SKV, 1, d_qk], indices [B, SQ, 1, topk] (each with
# free strides but the last), out [B, SQ, H, 512], max_logits and lse [B,
# SQ, H], sm_scale, attn_sink [H],
# topk_length [B * SQ], and optionally out_map, a TMA descriptor of out
# as [B * SQ * H, 512] for a kernel that writes its output with TMA
# stores. The runtime checks the tensors of a plan against the kernel's
# types.
ARGUMENTS = ("q", "kv", "indices", "out", "max_logits", "lse", "sm_scale",
             "attn_sink", "topk_length")
KINDS = ("memref",) * 6 + ("f32",) + ("memref",) * 2
OUT_MAP_KINDS = KINDS + ("tensor_map",)
# Heads per CTA.
BLOCK_H = 64
# Signatures kept; past that the oldest is dropped.
MAX_SIGNATURES = 4096

_BF16, _F32, _I32 = torch.bfloat16, torch.float32, torch.int32
_E4M3 = getattr(torch, "float8_e4m3fn", None)
_empty = torch.empty_strided


def _fail(message, error=ValueError):
    raise error(f"tle sparse_mla: {message}")


def _batched(tensor, batched):
    return tensor if batched else tensor.unsqueeze(0)


class Shape:
    """The sizes of a call: batch (1 when not batched), s_q, heads, s_kv,
    topk, d_qk, and whether the inputs carry the batch dimension."""

    def __init__(self, batched, b, s_q, heads, s_kv, topk, d_qk=D_QK, kv_format="bf16"):
        self.batched, self.b, self.s_q = batched, b, s_q
        self.heads, self.s_kv, self.topk, self.d_qk = heads, s_kv, topk, d_qk
        self.kv_format = kv_format

    def outputs(self):
        """The shapes of out and of max_logits and lse."""
        lead = (self.b, self.s_q, self.heads) if self.batched else (self.s_q, self.heads)
        return lead + (D_V,), lead


def launch_grid(shape, persistent, multiprocessors):
    """The grid of a call: one CTA per work item (a query token and 64
    heads), (s_q * heads / 64, b), or, for a persistent kernel (it loops
    over the items of its CTA's linear id), min(items, multiprocessors)
    CTAs; lib/Problems' getSparseMLAGrid for tle-run."""
    groups = shape.heads // BLOCK_H
    if persistent:
        items = shape.b * shape.s_q * groups
        return (max(1, min(items, max(multiprocessors, 1))), 1, 1)
    return (shape.s_q * groups, shape.b, 1)


# The tensors whose addresses a launch passes, in the kernels' order.
_ADDRESSED = ("q", "kv", "indices", "out", "max_logits", "lse")


def _check_tensor(name, tensor, shape, dtype, expected, device=None):
    """A tensor the kernels take contiguous: its shape (ValueError), dtype
    (TypeError), device (with `device`, ValueError) and strides."""
    if tuple(tensor.shape) != tuple(shape):
        _fail(f"{name} must be {expected}, not {list(tensor.shape)}")
    if tensor.dtype != dtype:
        _fail(f"{name} must be {dtype}, not {tensor.dtype}", TypeError)
    if device is not None and tensor.device != device:
        _fail(f"{name} is on {tensor.device}, q on {device}")
    if not tensor.is_contiguous():
        _fail(f"{name} must be contiguous, not of strides {list(tensor.stride())}")


def _check_optional(name, tensor, shape, dtype, expected):
    if tensor is not None:
        _check_tensor(name, tensor, shape, dtype, f"{expected} {dtype}")


def _check_fp8_cache(kv, d_qk):
    """s_kv of a V3.2 FP8 cache kv [num_blocks, 64, 1, 656] (every token
    of every block), or the error."""
    if kv.dim() != 4 or tuple(kv.shape[1:]) != (KV_BLOCK, 1, V32.bytes_per_token):
        _fail(f"kv with kv_format 'v32' must be the FP8 cache [num_blocks, {KV_BLOCK}, "
              f"1, {V32.bytes_per_token}], not {list(kv.shape)}")
    if kv.element_size() != 1 or kv.is_floating_point() and kv.dtype != _E4M3:
        _fail(f"kv with kv_format 'v32' must have one-byte elements (uint8, int8 or "
              f"float8_e4m3fn), not {kv.dtype}", TypeError)
    if d_qk != V32.d_qk:
        _fail(f"q must have d_qk {V32.d_qk} with kv_format 'v32', not {d_qk}")
    return kv.shape[0] * KV_BLOCK


def check_call(q, kv, indices, d_v=D_V, attn_sink=None, topk_length=None,
               kv_format="bf16"):
    """The Shape of a call, or a ValueError (TypeError for a dtype) for what
    no kernel takes: ranks, sizes, dtypes, devices. It reads no data and no
    address, so that it checks fake tensors (torch.compile) as it checks
    real ones; which d_qk, heads and topk a kernel takes is the variants'
    rule (choose)."""
    if kv_format not in KV_FORMATS:
        _fail(f"kv_format must be one of {', '.join(map(repr, KV_FORMATS))}, not "
              f"{kv_format!r}")
    fp8 = kv_format != "bf16"
    ranks = (q.dim(), q.dim() if fp8 else kv.dim(), indices.dim())
    if not ranks[0] == ranks[1] == ranks[2] or ranks[0] not in (3, 4):
        if fp8:
            _fail(f"q and indices must both be 3-D (FlashMLA's shapes) or both 4-D "
                  f"(batched), not {ranks[0]}- and {ranks[2]}-D")
        _fail(f"q, kv and indices must all be 3-D (FlashMLA's shapes) or all 4-D "
              f"(batched), not {ranks[0]}-, {ranks[1]}- and {ranks[2]}-D")
    batched = ranks[0] == 4
    b, s_q, heads, d_qk = _batched(q, batched).shape
    if d_v != D_V:
        _fail(f"the kernels take d_v = {D_V}, not {d_v}")
    if fp8:
        s_kv = _check_fp8_cache(kv, d_qk)
    else:
        kv_b, s_kv, kv_heads, kv_d = _batched(kv, batched).shape
        if kv_b != b or kv_heads != 1 or kv_d != d_qk:
            _fail(f"kv must be [s_kv, 1, {d_qk}] (q's d_qk, with q's batch), not "
                  f"{list(kv.shape)}")
    i_b, i_s_q, i_heads, topk = _batched(indices, batched).shape
    if (i_b, i_s_q, i_heads) != (b, s_q, 1):
        _fail(f"indices must be [s_q, 1, topk] with q's s_q = {s_q}, not "
              f"{list(indices.shape)}")
    if s_kv > INT32_MAX:
        _fail(f"s_kv ({s_kv}) must fit an int32")
    for name, tensor, dtype in (("q", q, _BF16), ("kv", kv, kv.dtype if fp8 else _BF16),
                                ("indices", indices, _I32)):
        if tensor.dtype != dtype:
            _fail(f"{name} must be {dtype}, not {tensor.dtype}", TypeError)
    _check_optional("attn_sink", attn_sink, (heads,), _F32, f"[{heads}]")
    rows = (b, s_q) if batched else (s_q,)
    _check_optional("topk_length", topk_length, rows, _I32,
                    f"{list(rows)} (one length per query row)")
    device = q.device
    if device.type != "cuda":
        _fail(f"q is on {device}; the kernels run on CUDA devices")
    for name, tensor in (("kv", kv), ("indices", indices), ("attn_sink", attn_sink),
                         ("topk_length", topk_length)):
        if tensor is not None and tensor.device != device:
            _fail(f"{name} is on {tensor.device}, q on {device}")
    return Shape(batched, b, s_q, heads, s_kv, topk, d_qk, kv_format)


def check_three(out):
    """That `out` holds the three outputs, as a tuple or list."""
    if not isinstance(out, (tuple, list)) or len(out) != 3:
        _fail("out must be a tuple of the three outputs (out, max_logits, lse)",
              TypeError)


def check_outputs(out, out_shape, stat_shape, device):
    """Given outputs, checked like the inputs: a tuple of three tensors,
    out, max_logits and lse, of the shapes (from Shape.outputs), dtypes and
    device a call writes, and contiguous (the kernels' layout)."""
    check_three(out)
    for name, tensor, shape, dtype in zip(_ADDRESSED[3:], out,
                                          (out_shape, stat_shape, stat_shape),
                                          (_BF16, _F32, _F32)):
        if not isinstance(tensor, torch.Tensor):
            _fail(f"{name} must be a tensor, not {type(tensor).__name__}", TypeError)
        rule = "q's s_q and h_q, and d_v" if name == "out" else "q's s_q and h_q"
        _check_tensor(name, tensor, shape, dtype, f"{list(shape)} ({rule})", device)


def _check_strides(name, tensor):
    """The strides the kernels take: the last dimension contiguous, every
    other stride (of a dimension longer than 1) a multiple of 16 bytes."""
    element = tensor.element_size()
    last = tensor.dim() - 1
    for d, (size, stride) in enumerate(zip(tensor.shape, tensor.stride())):
        if size <= 1:
            continue
        if d == last and stride != 1:
            _fail(f"{name}'s last dimension must be contiguous (stride 1), not of "
                  f"stride {stride}")
        if d != last and stride * element % ALIGN_BYTES:
            _fail(f"{name}'s stride in dimension {d} ({stride} elements) must be a "
                  f"multiple of {ALIGN_BYTES} bytes")


def _misaligned(tensors):
    for name, tensor in zip(_ADDRESSED, tensors):
        if tensor.data_ptr() % ALIGN_BYTES:
            _fail(f"{name} must start at a {ALIGN_BYTES}-byte boundary (the kernels "
                  f"copy 16 bytes at a time)")


class _Neutral:
    """-inf sinks and lengths past any topk for the calls without attn_sink
    or topk_length: one pair of buffers per device, grown when a call needs
    more and never freed, since plans keep their addresses."""

    def __init__(self):
        self._buffers = {}
        self._kept = []

    def get(self, device, heads, rows):
        """(sink, length) covering `heads` and `rows` on `device`, and
        whether they may be kept: buffers made while a CUDA graph is being
        captured are filled only when it replays, so they serve that call
        alone."""
        sink, length = self._buffers.get(device.index, (None, None))
        if sink is not None and sink.numel() >= heads and length.numel() >= rows:
            return sink, length, True
        old = (0, 0) if sink is None else (sink.numel(), length.numel())
        sink = torch.full((max(heads, 2 * old[0], 256),), float("-inf"), dtype=_F32,
                          device=device)
        length = torch.full((max(rows, 2 * old[1], 4096),), INT32_MAX, dtype=_I32,
                            device=device)
        if torch.cuda.is_current_stream_capturing():
            return sink, length, False
        # Calls on other streams use them next: they must be filled by then.
        torch.cuda.current_stream(device).synchronize()
        self._buffers[device.index] = (sink, length)
        self._kept.append((sink, length))
        return sink, length, True


_NEUTRAL = _Neutral()
# rt.Device per ordinal, shared by every SparseMLA.
_DEVICES = {}


def _device(index):
    if index not in _DEVICES:
        device = rt.Device(index)
        if device.compute_capability != 90:
            _fail(f"the kernels are for sm_90a (Hopper); cuda:{index} ({device.name}) "
                  f"has compute capability {device.compute_capability / 10:.1f}",
                  RuntimeError)
        _DEVICES[index] = device
    return _DEVICES[index]


def load_kernel(variant, index):
    """The kernel of `variant`, loaded on device `index`, with the
    SparseMLA arguments."""
    kernel = _device(index).load(variant.kernel_file()).kernel()
    if tuple(arg.kind for arg in kernel.signature) not in (KINDS, OUT_MAP_KINDS):
        types = ", ".join(arg.type for arg in kernel.signature)
        _fail(f"kernel '{kernel.name}' takes ({types}); a SparseMLA kernel takes the "
              f"memrefs and scalar ({', '.join(ARGUMENTS)}) and optionally a "
              f"tensor map of out")
    return kernel


class _Call:
    """What the calls of one signature share: the outputs' shapes, the
    values that do not change (sm_scale's bits, the neutral inputs'
    addresses) and the plan, None when there is nothing to compute.
    SparseMLA.prepare returns it; calling it runs the kernel on tensors of
    that signature (no checks but the outputs' and the alignment)."""

    def __init__(self, kernel, shape, device, plan_values):
        self.device, self.index = device, device.index
        self.out_shape, self.stat_shape = shape.outputs()
        q, kv, indices, sm_scale, sink, length = plan_values
        self.scale_bits = rt.f32_bits(sm_scale)
        self.sink, self.length = sink.data_ptr(), length.data_ptr()
        self.plan = self.launch = None
        self.out_map = len(kernel.signature) == len(OUT_MAP_KINDS)
        # torch.empty_strided costs a third less CPU time than torch.empty.
        self.out_strides = _contiguous_strides(self.out_shape)
        self.stat_strides = _contiguous_strides(self.stat_shape)
        # What given outputs look like when nothing more need be checked.
        where = -1 if device.type == "cpu" else device.index
        self.out_signatures = (
            (self.out_shape, self.out_strides, _BF16, where),
            (self.stat_shape, self.stat_strides, _F32, where),
            (self.stat_shape, self.stat_strides, _F32, where))
        if shape.b and shape.s_q:
            outputs = [_batched(t, shape.batched) for t in self.empty_outputs()]
            # The FP8 cache is one for every batch; its bytes are what count.
            fp8 = shape.kv_format != "bf16"
            views = [_batched(q, shape.batched),
                     kv.view(torch.uint8) if fp8 else _batched(kv, shape.batched),
                     _batched(indices, shape.batched)]
            grid = launch_grid(shape, kernel.persistent,
                               kernel.module.device.multiprocessors
                               if kernel.persistent else 0)
            values = views + outputs + [sm_scale, sink, length.reshape(-1)]
            if self.out_map:
                values.append(rt.tensor_map(outputs[0].reshape(-1, outputs[0].shape[-1])))
            self.plan = kernel.plan(grid, values)
            self.launch = self.plan.launcher()

    def empty_outputs(self):
        return (_empty(self.out_shape, self.out_strides, dtype=_BF16, device=self.device),
                _empty(self.stat_shape, self.stat_strides, dtype=_F32, device=self.device),
                _empty(self.stat_shape, self.stat_strides, dtype=_F32, device=self.device))

    def check_outputs(self, out):
        """check_outputs for this signature, quick where the outputs look
        as those it allocates would."""
        if (isinstance(out, (tuple, list)) and len(out) == 3
                and all(isinstance(t, torch.Tensor) and _signature(t) == want
                        for t, want in zip(out, self.out_signatures))):
            return
        check_outputs(out, self.out_shape, self.stat_shape, self.device)

    def __call__(self, q, kv, indices, attn_sink, topk_length, out):
        if out is None:
            out = self.empty_outputs()
        else:
            self.check_outputs(out)
        if self.plan is None:
            return out
        q_at, kv_at, indices_at = q.data_ptr(), kv.data_ptr(), indices.data_ptr()
        out_at, max_at, lse_at = out[0].data_ptr(), out[1].data_ptr(), out[2].data_ptr()
        if (q_at | kv_at | indices_at | out_at | max_at | lse_at) % ALIGN_BYTES:
            _misaligned((q, kv, indices) + tuple(out))
        values = (q_at, kv_at, indices_at, out_at, max_at, lse_at, self.scale_bits,
                  self.sink if attn_sink is None else attn_sink.data_ptr(),
                  self.length if topk_length is None else topk_length.data_ptr())
        code = self.launch(rt.current_stream(self.index),
                           values + (out_at,) if self.out_map else values)
        if code:
            self.plan.raise_for(code)
        return out


def _contiguous_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def _signature(t):
    return (t.shape, t.stride(), t.dtype, t.get_device())


def _key(q, kv, indices, sm_scale, d_v, attn_sink, topk_length, kv_format):
    """What a prepared call depends on: the tensors' signatures and the
    scalars."""
    return (kv_format, q.shape, q.stride(), q.dtype, q.get_device(),
            kv.shape, kv.stride(), kv.dtype, kv.get_device(),
            indices.shape, indices.stride(), indices.dtype, indices.get_device(),
            sm_scale, d_v,
            None if attn_sink is None else _signature(attn_sink),
            None if topk_length is None else _signature(topk_length))


class SparseMLA:
    """f(q, kv, indices, sm_scale, d_v=512, attn_sink=None,
    topk_length=None, out=None, kv_format="bf16") -> (out, max_logits,
    lse) on the first of `variants` that takes the shape (see the module's
    doc). `out`, a tuple of the three outputs, is written and returned
    instead of new ones."""

    takes_outputs = True

    def __init__(self, variants=VARIANTS):
        self.variants = tuple(variants)
        # (variant name, device ordinal) -> rt.Kernel
        self._kernels = {}
        # signature -> _Call
        self._calls = {}

    def __call__(self, q, kv, indices, sm_scale, d_v=D_V, attn_sink=None,
                 topk_length=None, out=None, kv_format="bf16"):
        key = _key(q, kv, indices, sm_scale, d_v, attn_sink, topk_length, kv_format)
        call = self._calls.get(key)
        if call is None:
            call = self._prepare(key, q, kv, indices, sm_scale, d_v, attn_sink,
                                 topk_length, kv_format)
        return call(q, kv, indices, attn_sink, topk_length, out)

    def prepare(self, q, kv, indices, sm_scale, d_v=D_V, attn_sink=None,
                topk_length=None, kv_format="bf16"):
        """The prepared call of these tensors' signature, the one a call of
        this object makes (and keeps): its `plan` (rt.LaunchPlan, None for
        an empty problem), `launch`, `device`, the outputs' shapes
        (`out_shape`, `stat_shape`) and `empty_outputs()`. For probes and
        benchmarks that time the parts of a call; a call with `out=` is the
        way to reuse outputs."""
        key = _key(q, kv, indices, sm_scale, d_v, attn_sink, topk_length, kv_format)
        call = self._calls.get(key)
        if call is None:
            call = self._prepare(key, q, kv, indices, sm_scale, d_v, attn_sink,
                                 topk_length, kv_format)
        return call

    def variant_for(self, q, kv, indices, d_v=D_V, attn_sink=None, topk_length=None,
                    kv_format="bf16"):
        """The variant a call with these tensors runs on."""
        shape = check_call(q, kv, indices, d_v, attn_sink, topk_length, kv_format)
        return choose(shape.heads, shape.topk, shape.d_qk, self.variants, kv_format)

    def kernel(self, variant, index, load=load_kernel):
        """`variant`'s kernel on device `index`, loaded at its first use (by
        `load(variant, index)`: a SparseMLA kernel, checked, by default)."""
        key = (variant.name, index)
        if key not in self._kernels:
            if torch.cuda.is_current_stream_capturing():
                _fail(f"the first call on cuda:{index} loads the kernel, which cannot "
                      f"happen while a CUDA graph is captured: call it once before "
                      f"capturing", RuntimeError)
            self._kernels[key] = load(variant, index)
        return self._kernels[key]

    def _prepare(self, key, q, kv, indices, sm_scale, d_v, attn_sink, topk_length,
                 kv_format):
        shape = check_call(q, kv, indices, d_v, attn_sink, topk_length, kv_format)
        variant = choose(shape.heads, shape.topk, shape.d_qk, self.variants, kv_format)
        if isinstance(sm_scale, bool) or not isinstance(sm_scale, (int, float)):
            _fail(f"sm_scale must be a Python float, not {type(sm_scale).__name__}",
                  TypeError)
        for name, tensor in (("q", q), ("kv", kv), ("indices", indices)):
            _check_strides(name, tensor)
        device = q.device
        kernel = self.kernel(variant, device.index)
        rows = shape.b * shape.s_q
        keep = True
        if attn_sink is None or topk_length is None:
            sink, length, keep = _NEUTRAL.get(device, shape.heads, rows)
            attn_sink = sink[:shape.heads] if attn_sink is None else attn_sink
            topk_length = length[:rows] if topk_length is None else topk_length
        call = _Call(kernel, shape, device,
                     (q, kv, indices, float(sm_scale), attn_sink, topk_length))
        if keep:
            if len(self._calls) >= MAX_SIGNATURES:
                del self._calls[next(iter(self._calls))]
            self._calls[key] = call
        return call


def load(path):
    """The SparseMLA callable of the compiled kernel at `path` (.ptx or
    .cubin, its .json beside it), loaded on each device at its first call
    there; it takes q and kv of the columns its first argument has (its
    metadata says) and the heads and topk every shipped variant takes
    (multiples of 64)."""
    named = Variant(os.path.basename(path), D_QK, BLOCK_H, 64, path)
    metadata = rt.Metadata(rt.default_metadata_path(named.kernel_file()))
    d_qk = metadata.kernel().signature[0].sizes[-1]
    return SparseMLA([named._replace(d_qk=d_qk)])
