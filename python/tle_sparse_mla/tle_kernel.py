"""The compiled TLE SparseMLA kernel (examples/sparse_mla) as an
implementation of the benchmark, through the TLE runtime (tle_runtime).

    f = load()                      # $TLE_SPARSE_MLA_KERNEL, its .json beside it
    out, max_logits, lse = f(q, kv, indices, sm_scale)

The call has the Triton peer's conventions (FlashMLA's shapes): q [s_q, h,
576] bf16, kv [s_kv, 1, 576] bf16, indices [s_q, 1, topk] int32 give out
[s_q, h, 512] bf16 and max_logits, lse [s_q, h] f32, allocated with
torch.empty at every call as the peer does. attn_sink [h] f32 and
topk_length [s_q] int32 are FlashMLA's optional inputs; left out, the
kernel gets -inf sinks and lengths of topk (made once per shape), which
change nothing. Inputs with a leading batch
dimension ([B, s_q, h, 576], ...) give batched outputs. The kernel's
arguments are 4-D views of these, never copies: q keeps its strides (the
kernel takes any, its rows may be padded), the others must be contiguous.
The launch is enqueued on PyTorch's current stream and not waited for.
"""

import math
import os

import tle_runtime as rt

ENV = "TLE_SPARSE_MLA_KERNEL"
D_QK, D_V = 576, 512
# Heads per CTA and index slots per KV tile.
BLOCK_H, BLOCK_K = 64, 64
# The kinds of the kernel's arguments, in order
# (examples/sparse_mla/naive.mlir): q [B, SQ, H, 576], kv [B, SKV, 1, 576],
# indices [B, SQ, 1, topk], out [B, SQ, H, 512], max_logits and lse
# [B, SQ, H], sm_scale, attn_sink [H], topk_length [B * SQ]. The runtime
# checks each call's tensors against the kernel's types.
ARGUMENTS = ("q", "kv", "indices", "out", "max_logits", "lse", "sm_scale",
             "attn_sink", "topk_length")
KINDS = ("memref",) * 6 + ("f32",) + ("memref",) * 2
INT32_MAX = 2 ** 31 - 1
# cp.async copies 16 bytes at a time.
ALIGN_BYTES = 16


class KernelNotFoundError(FileNotFoundError):
    """No compiled kernel was named, or its files are missing."""


def kernel_path(path=None, environ=os.environ):
    """The kernel file: `path`, else $TLE_SPARSE_MLA_KERNEL; it and its
    metadata (.json beside it) must exist."""
    path = path or environ.get(ENV)
    if not path:
        raise KernelNotFoundError(
            f"the 'tle' implementation needs the compiled SparseMLA kernel: set "
            f"{ENV}=path/to/sparse_mla.ptx (with sparse_mla.json beside it) or "
            f"pass --tle-kernel (examples/sparse_mla/naive.mlir, compiled with "
            f"tle-opt --tle-to-llvm | tle-translate --tle-to-ptx --tle-metadata=...)")
    for needed in (path, rt.default_metadata_path(path)):
        if not os.path.isfile(needed):
            raise KernelNotFoundError(f"{needed}: no such file (the SparseMLA kernel "
                                      f"is a .ptx or .cubin with its .json beside it)")
    return path


def _fail(message):
    raise ValueError(f"tle sparse_mla: {message}")


def _check_shapes(q, kv, indices, d_v):
    """The rules of the kernel's shapes, for 4-D views."""
    b, s_q, h, d_qk = q.shape
    if d_qk != D_QK or d_v != D_V:
        _fail(f"the kernel is specialised for d_qk = {D_QK} and d_v = {D_V}, not "
              f"{d_qk} and {d_v}")
    if kv.shape[0] != b or kv.shape[2] != 1 or kv.shape[3] != D_QK:
        _fail(f"kv must be [s_kv, 1, {D_QK}] (with q's batch), not {list(kv.shape)}")
    if tuple(indices.shape[:3]) != (b, s_q, 1):
        _fail(f"indices must be [s_q, 1, topk] with q's s_q = {s_q}, not "
              f"{list(indices.shape)}")
    if h % BLOCK_H or h == 0:
        _fail(f"the number of heads ({h}) must be a positive multiple of {BLOCK_H}")
    if indices.shape[3] % BLOCK_K:
        _fail(f"topk ({indices.shape[3]}) must be a multiple of {BLOCK_K}")
    if kv.shape[1] > INT32_MAX:
        _fail(f"s_kv ({kv.shape[1]}) must fit an int32")


def _check_alignment(name, tensor):
    element = tensor.element_size()
    if tensor.data_ptr() % ALIGN_BYTES:
        _fail(f"{name} must start at a {ALIGN_BYTES}-byte boundary (the kernel "
              f"copies 16 bytes at a time)")
    for d, (size, stride) in enumerate(zip(tensor.shape, tensor.stride())):
        if size > 1 and stride != 1 and stride * element % ALIGN_BYTES:
            _fail(f"{name}'s stride in dimension {d} ({stride} elements) must be "
                  f"a multiple of {ALIGN_BYTES} bytes")


def kernel_views(q, kv, indices, d_v=D_V):
    """(q, kv, indices) as the kernel's 4-D [B, ...] views, without copying,
    and whether the inputs were batched; ValueError for what the kernel
    cannot take."""
    if not q.dim() == kv.dim() == indices.dim() or q.dim() not in (3, 4):
        _fail(f"q, kv and indices must all be 3-D (FlashMLA's shapes) or all 4-D "
              f"(batched), not {q.dim()}-, {kv.dim()}- and {indices.dim()}-D")
    batched = q.dim() == 4
    if not batched:
        q, kv, indices = q.unsqueeze(0), kv.unsqueeze(0), indices.unsqueeze(0)
    _check_shapes(q, kv, indices, d_v)
    for name, tensor in (("q", q), ("kv", kv), ("indices", indices)):
        _check_alignment(name, tensor)
    return q, kv, indices, batched


def grid(q4):
    """(H / 64 * SQ, B): one CTA per query token and 64 heads, the head
    groups of a token adjacent (they gather the same KV rows)."""
    b, s_q, h, _ = q4.shape
    return (s_q * (h // BLOCK_H), b, 1)


def empty_outputs(q4, batched):
    """out, max_logits, lse as the caller sees them, allocated like the
    peer's."""
    import torch
    b, s_q, h, _ = q4.shape
    lead = (b, s_q, h) if batched else (s_q, h)
    out = torch.empty(*lead, D_V, dtype=torch.bfloat16, device=q4.device)
    lse = torch.empty(*lead, dtype=torch.float32, device=q4.device)
    max_logits = torch.empty_like(lse)
    return out, max_logits, lse


def optional_inputs(q4, idx4, attn_sink=None, topk_length=None, neutral=None):
    """attn_sink [H] f32 and topk_length [B * SQ] int32 as the kernel takes
    them; the ones left out are neutral (-inf sinks, lengths of topk), taken
    from the dict `neutral` when it has them for this shape."""
    import torch
    b, s_q, h, _ = q4.shape
    topk = idx4.shape[-1]
    key = (h, b * s_q, topk, q4.device)
    cacheable = neutral is not None and attn_sink is None and topk_length is None
    if cacheable and key in neutral:
        return neutral[key]
    if attn_sink is None:
        attn_sink = torch.full((h,), float("-inf"), dtype=torch.float32, device=q4.device)
    if topk_length is None:
        topk_length = torch.full((b * s_q,), topk, dtype=torch.int32, device=q4.device)
    topk_length = topk_length.reshape(-1)
    if attn_sink.shape != (h,) or attn_sink.dtype != torch.float32:
        _fail(f"attn_sink must be [{h}] float32, not {list(attn_sink.shape)} {attn_sink.dtype}")
    if topk_length.shape != (b * s_q,) or topk_length.dtype != torch.int32:
        _fail(f"topk_length must hold {b * s_q} int32 (one per query row), not "
              f"{list(topk_length.shape)} {topk_length.dtype}")
    values = (attn_sink.contiguous(), topk_length.contiguous())
    if cacheable:
        neutral[key] = values
    return values


def launch_values(q, kv, indices, sm_scale=None, d_v=D_V, out=None,
                  attn_sink=None, topk_length=None, neutral=None):
    """The kernel's argument values and grid for one call, with the
    outputs (out, max_logits, lse): `out` if given, else new ones."""
    q4, kv4, idx4, batched = kernel_views(q, kv, indices, d_v)
    outputs = out if out is not None else empty_outputs(q4, batched)
    views = [t if batched else t.unsqueeze(0) for t in outputs]
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(D_QK)
    sink, length = optional_inputs(q4, idx4, attn_sink, topk_length, neutral)
    return ([q4, kv4, idx4, *views, float(sm_scale), sink, length], grid(q4),
            tuple(outputs))


class SparseMLA:
    """f(q, kv, indices, sm_scale=None, d_v=512, out=None) -> (out,
    max_logits, lse), launched on PyTorch's current stream. `out`, a tuple
    of the three outputs, lets a check poison them first."""

    takes_outputs = True

    def __init__(self, kernel):
        if tuple(arg.kind for arg in kernel.signature) != KINDS:
            types = ", ".join(arg.type for arg in kernel.signature)
            raise ValueError(f"kernel '{kernel.name}' takes ({types}); the SparseMLA "
                             f"kernel takes the memrefs and scalar "
                             f"({', '.join(ARGUMENTS)})")
        self.kernel = kernel
        # Neutral attn_sink / topk_length per shape, made once.
        self.neutral = {}

    def __call__(self, q, kv, indices, sm_scale=None, d_v=D_V, out=None,
                 attn_sink=None, topk_length=None):
        ordinal = self.kernel.module.device.ordinal
        for name, tensor in (("q", q), ("kv", kv), ("indices", indices)):
            if tensor.device.type != "cuda" or tensor.device.index != ordinal:
                _fail(f"{name} is on {tensor.device}; the kernel runs on cuda:{ordinal}")
        values, cta_grid, outputs = launch_values(q, kv, indices, sm_scale, d_v, out,
                                                  attn_sink, topk_length, self.neutral)
        # launch_async has the runtime check the arguments first.
        self.kernel.launch_async(cta_grid, values)
        return outputs


def load(path=None, device=None):
    """The SparseMLA callable of the kernel at `path` (default
    $TLE_SPARSE_MLA_KERNEL) on `device` (default PyTorch's current one)."""
    path = kernel_path(path)
    if device is None:
        import torch
        device = torch.cuda.current_device()
    return SparseMLA(rt.Device(device).load(path).kernel())
