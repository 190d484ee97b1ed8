# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""tle.sparse_mla_decode: DeepSeek V3.2's sparse MLA decode on the FP8 KV
cache (FlashMLA's flash_mla_with_kvcache with is_fp8_kvcache=True and
indices), and the PyTorch operator torch.ops.tle.sparse_mla_decode behind
it.

    sched = tle.sparse_mla.schedule.make_schedule(b, s_q, h_q, topk, sms)
    out, lse = tle.sparse_mla_decode(q, k_cache, indices, sm_scale=s,
                                     schedule=sched)

A call runs, on PyTorch's current stream:

1. with one chunk a row (schedule.splits == 1), the prefill kernel
   seesaw_fp8, which gathers the rows from the FP8 cache by their global
   ids, dequantizing them into its bf16 tiles (tle.gather_rows_fp8), and
   writes out and lse directly;
2. else the split kernel seesaw_decode_fp8 (the same gather; partials
   o_acc, lse_acc) and the combine kernel combine (out, lse, attn_sink).

SparseMLADecode.kernels runs the bf16 kernels (seesaw, seesaw_decode) on
rows dequantized beforehand by compact_rows, for the benchmark's
kernels-alone comparison.

The schedule depends on shapes only (schedule.py), so nothing in a call
waits for the GPU and a call can be captured in a CUDA graph once it has
run outside one (the first call of a signature loads the kernels).
"""

import math
from typing import Optional, Tuple

from .. import runtime as rt
from . import kv_cache
from .kernel import (_NEUTRAL, SparseMLA, _check_strides, _device, _empty, torch)
from .kernel import _contiguous_strides as _contiguous
from .schedule import BLOCK_H, MAX_SPLITS, make_schedule, split_schedule
from .variants import D_QK, D_V, VARIANTS, Variant

_BF16, _F32, _I32, _U8 = torch.bfloat16, torch.float32, torch.int32, torch.uint8
# The compiled decode kernels (python/tle/sparse_mla/decode_kernels.json).
SPLIT = Variant("seesaw_decode", D_QK, BLOCK_H, 64)
SPLIT_FP8 = Variant("seesaw_decode_fp8", D_QK, BLOCK_H, 64, kv_format="v32")
COMBINE = Variant("combine", D_QK, BLOCK_H, 64)
# Heads a CTA of the combine kernel takes (kernels/sparse_mla/combine.mlir).
COMBINE_H = 16
# The prefill kernel that runs rows of one chunk.
_PREFILL = SparseMLA([v for v in VARIANTS if v.name == "seesaw"])
_PREFILL_FP8 = SparseMLA([v for v in VARIANTS if v.name == "seesaw_fp8"])
_Tensor = torch.Tensor
_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None) or (
    lambda: False)


def _fail(message, error=ValueError):
    raise error(f"tle sparse_mla_decode: {message}")


def check_decode(q, k_cache, indices, topk_length=None, attn_sink=None):
    """(b, s_q, h_q, topk) of a call, or a ValueError (TypeError for a
    dtype) naming the rule; reads no data (fake tensors pass through)."""
    if q.dim() != 4 or indices.dim() != 3 or k_cache.dim() != 4:
        _fail(f"q must be [b, s_q, h_q, 576], k_cache [num_blocks, 64, 1, 656] and "
              f"indices [b, s_q, topk], not {q.dim()}-, {k_cache.dim()}- and "
              f"{indices.dim()}-D")
    b, s_q, h_q, d_qk = q.shape
    if d_qk != D_QK:
        _fail(f"q's head dim must be {D_QK} (DeepSeek V3.2), not {d_qk}")
    if q.dtype != _BF16:
        _fail(f"q must be {_BF16}, not {q.dtype}", TypeError)
    if h_q <= 0 or h_q % BLOCK_H:
        _fail(f"the number of heads ({h_q}) must be a positive multiple of {BLOCK_H} "
              f"(pad fewer heads to 64, as engines do for FlashMLA)")
    fmt = kv_cache.V32
    if tuple(k_cache.shape[1:]) != (kv_cache.BLOCK, 1, fmt.bytes_per_token):
        _fail(f"k_cache must be [num_blocks, {kv_cache.BLOCK}, 1, {fmt.bytes_per_token}] "
              f"(the V3.2 FP8 layout), not {list(k_cache.shape)}")
    if k_cache.dtype not in (_U8, getattr(torch, "float8_e4m3fn", _U8)):
        _fail(f"k_cache must be uint8 or float8_e4m3fn bytes, not {k_cache.dtype}",
              TypeError)
    if k_cache.stride()[1:] != (fmt.bytes_per_token, fmt.bytes_per_token, 1):
        _fail(f"k_cache's tokens must be contiguous within a block (strides "
              f"[*, {fmt.bytes_per_token}, {fmt.bytes_per_token}, 1]), not "
              f"{list(k_cache.stride())}")
    if tuple(indices.shape[:2]) != (b, s_q):
        _fail(f"indices must be [b, s_q, topk] with q's b = {b} and s_q = {s_q}, not "
              f"{list(indices.shape)}")
    if indices.dtype != _I32:
        _fail(f"indices must be {_I32}, not {indices.dtype}", TypeError)
    topk = indices.shape[2]
    if topk % 64:
        _fail(f"topk ({topk}) must be a multiple of 64")
    for name, tensor, shape in (("topk_length", topk_length, (b,)),
                                ("attn_sink", attn_sink, (h_q,))):
        if tensor is None:
            continue
        if tuple(tensor.shape) != shape:
            _fail(f"{name} must be {list(shape)}, not {list(tensor.shape)}")
        dtype = _I32 if name == "topk_length" else _F32
        if tensor.dtype != dtype:
            _fail(f"{name} must be {dtype}, not {tensor.dtype}", TypeError)
    device = q.device
    if device.type != "cuda":
        _fail(f"q is on {device}; the kernels run on CUDA devices")
    for name, tensor in (("k_cache", k_cache), ("indices", indices),
                         ("topk_length", topk_length), ("attn_sink", attn_sink)):
        if tensor is not None and tensor.device != device:
            _fail(f"{name} is on {tensor.device}, q on {device}")
    return b, s_q, h_q, topk


def compact_rows(k_cache, indices, topk_length=None):
    """The bf16 kernels' input: the rows every id touches, dequantized to bf16
    [b, s_q * topk, 1, 576], and the ids as positions in them [b, s_q, 1,
    topk] int32 (-1 where the id is < 0, past the cache or past
    topk_length). PyTorch ops only, no host sync."""
    b, s_q, topk = indices.shape
    tokens = k_cache.shape[0] * kv_cache.BLOCK
    valid = (indices >= 0) & (indices < tokens)
    if topk_length is not None:
        position = torch.arange(topk, device=indices.device, dtype=_I32)
        valid &= position.view(1, 1, topk) < topk_length.view(b, 1, 1)
    safe = torch.where(valid, indices, torch.zeros_like(indices)).view(-1).long()
    local = torch.arange(s_q * topk, device=indices.device, dtype=_I32).view(1, s_q, topk)
    local = torch.where(valid, local, torch.full_like(local, -1))
    return kv_cache.dequantize_rows(k_cache, safe).view(b, s_q * topk, 1, D_QK), local.view(
        b, s_q, 1, topk)


class _SplitCall:
    """The two kernels' plans of one signature (schedule.splits > 1): on
    the FP8 cache and global ids (kv and ids given), or on bf16 rows
    (compact_rows)."""

    def __init__(self, decode, shape, schedule, device, sm_scale, kv=None, ids=None):
        b, s_q, h_q, topk = shape
        splits = schedule.splits
        index = device.index
        self.device, self.index = device, index
        self.o_acc_shape = (b, s_q, splits, h_q, D_V)
        self.lse_acc_shape = (b, s_q, splits, h_q)
        self.out_shape, self.lse_shape = (b, s_q, h_q, D_V), (b, h_q, s_q)
        self.strides = {s: _contiguous(s) for s in (self.o_acc_shape, self.lse_acc_shape,
                                                    self.out_shape, self.lse_shape)}
        sink, length, _ = _NEUTRAL.get(device, h_q, b * s_q)
        self.sink, self.length = sink, length
        self.scale_bits = rt.f32_bits(sm_scale)
        fp8 = kv is not None
        if not fp8:
            kv = _empty((b, s_q * topk, 1, D_QK), _contiguous((b, s_q * topk, 1, D_QK)),
                        dtype=_BF16, device=device)
            ids = _empty((b, s_q, 1, topk), _contiguous((b, s_q, 1, topk)), dtype=_I32,
                         device=device)
        q = _empty((b, s_q, h_q, D_QK), _contiguous((b, s_q, h_q, D_QK)), dtype=_BF16,
                   device=device)
        o_acc, lse_acc, out, lse = self.buffers()
        split = decode.kernel(SPLIT_FP8 if fp8 else SPLIT, index)
        combine = decode.kernel(COMBINE, index)
        self.split_plan = split.plan((schedule.ctas, 1, 1), [
            q, kv, ids, o_acc, lse_acc, float(sm_scale), length[:b * s_q]])
        self.combine_plan = combine.plan((h_q // COMBINE_H, s_q, b), [
            o_acc, lse_acc, sink[:h_q], out, lse])
        self.split_launch = self.split_plan.launcher()
        self.combine_launch = self.combine_plan.launcher()

    def buffers(self):
        return tuple(_empty(s, self.strides[s], dtype=dtype, device=self.device)
                     for s, dtype in ((self.o_acc_shape, _F32), (self.lse_acc_shape, _F32),
                                      (self.out_shape, _BF16), (self.lse_shape, _F32)))

    def __call__(self, q, kv, local, attn_sink, lengths=None):
        o_acc, lse_acc, out, lse = self.buffers()
        if q.data_ptr() % 16:
            _fail("q must start at a 16-byte boundary")
        stream = rt.current_stream(self.index)
        length = self.length if lengths is None else lengths
        code = self.split_launch(stream, (
            q.data_ptr(), kv.data_ptr(), local.data_ptr(), o_acc.data_ptr(),
            lse_acc.data_ptr(), self.scale_bits, length.data_ptr()))
        if code:
            self.split_plan.raise_for(code)
        sink = self.sink if attn_sink is None else attn_sink
        code = self.combine_launch(stream, (
            o_acc.data_ptr(), lse_acc.data_ptr(), sink.data_ptr(), out.data_ptr(),
            lse.data_ptr()))
        if code:
            self.combine_plan.raise_for(code)
        return out, lse


def _load_decode_kernel(variant, index):
    return _device(index).load(variant.kernel_file()).kernel()


class SparseMLADecode:
    """f(q, k_cache, indices, topk_length, attn_sink, sm_scale, splits) ->
    (out, lse): the kernels of a decode call (module doc), with checks and
    plans made once per signature."""

    def __init__(self):
        # Loads and keeps the kernels (SparseMLA.kernel, with our loader).
        self._loaded = SparseMLA(())
        self._calls = {}

    def kernel(self, variant, index):
        return self._loaded.kernel(variant, index, _load_decode_kernel)

    def __call__(self, q, k_cache, indices, topk_length, attn_sink, sm_scale, splits):
        shape = check_decode(q, k_cache, indices, topk_length, attn_sink)
        b, s_q, h_q, topk = shape
        if not 1 <= splits <= MAX_SPLITS:
            _fail(f"splits ({splits}) must be 1 .. {MAX_SPLITS}")
        if b == 0 or s_q == 0:
            return (q.new_empty((b, s_q, h_q, D_V)),
                    q.new_empty((b, h_q, s_q), dtype=_F32))
        ids = indices.unsqueeze(2)                              # [b, s_q, 1, topk]
        if ids.data_ptr() % 16:
            _fail("indices must start at a 16-byte boundary")
        # One length a query row: the prefill kernel's topk_length.
        lengths = None if topk_length is None else \
            topk_length.view(b, 1).expand(b, s_q).contiguous()
        if splits == 1:
            out, _, lse = _PREFILL_FP8(q, k_cache, ids, sm_scale, D_V, attn_sink, lengths,
                                       kv_format="v32")
            return out, lse.transpose(1, 2).contiguous()
        _check_strides("q", q)
        _check_strides("indices", ids)
        key = ("v32", q.shape, q.stride(), q.device.index, topk, splits, sm_scale,
               k_cache.shape, k_cache.stride(), ids.stride())
        call = self._calls.get(key)
        if call is None:
            call = _SplitCall(self, shape, self._schedule(b, s_q, h_q, topk, splits, q),
                              q.device, sm_scale, kv=k_cache, ids=ids)
            self._calls[key] = call
        return call(q, k_cache, ids, attn_sink,
                    None if lengths is None else lengths.view(-1))

    def _schedule(self, b, s_q, h_q, topk, splits, q):
        return split_schedule(b, s_q, h_q, topk,
                              _device(q.device.index).multiprocessors, splits)

    def kernels(self, q, kv, local, attn_sink, sm_scale, splits):
        """The kernels alone, on the rows compact_rows gives (q checked)."""
        b, s_q, h_q, _ = q.shape
        topk = local.shape[-1]
        shape = (b, s_q, h_q, topk)
        if splits == 1:
            out, _, lse = _PREFILL(q, kv, local, sm_scale, D_V, attn_sink)
            return out, lse.transpose(1, 2).contiguous()
        _check_strides("q", q)
        key = (q.shape, q.stride(), q.device.index, topk, splits, sm_scale)
        call = self._calls.get(key)
        if call is None:
            call = _SplitCall(self, shape, self._schedule(b, s_q, h_q, topk, splits, q),
                              q.device, sm_scale)
            self._calls[key] = call
        return call(q, kv, local, attn_sink)


_DECODE = SparseMLADecode()


# The H200's and H100's; a schedule made without a GPU (tracing on fake
# tensors) assumes it.
DEFAULT_MULTIPROCESSORS = 132


def _multiprocessors(device):
    if device.type == "cuda" and torch.cuda.is_available():
        return torch.cuda.get_device_properties(device).multi_processor_count
    return DEFAULT_MULTIPROCESSORS


def schedule_for(q, indices):
    """The schedule of q's and indices' shapes on q's device."""
    b, s_q, h_q, _ = q.shape
    return make_schedule(b, s_q, h_q, indices.shape[-1], _multiprocessors(q.device))


def sparse_mla_decode(q, k_cache, indices, topk_length=None, attn_sink=None,
                      sm_scale=None, schedule=None):
    """Sparse MLA decode on the V3.2 FP8 KV cache, FlashMLA's contract.

    q [b, s_q, h_q, 576] bf16 (h_q a multiple of 64), k_cache [num_blocks,
    64, 1, 656] uint8 (FlashMLA's V3.2 FP8 layout, blocks of any stride),
    indices [b, s_q, topk] int32 global token ids (block * 64 + offset;
    ids < 0 or >= num_blocks * 64 are skipped), topk_length [b] int32
    (only a row's first topk_length ids count) and attn_sink [h_q] f32
    optional, sm_scale (default 1 / sqrt(576)), schedule from
    schedule.make_schedule for these shapes (default: made here, from the
    device's multiprocessors). Returns out [b, s_q, h_q, 512] bf16 and lse
    [b, h_q, s_q] f32 (natural log); a row without a valid id gives out 0
    and lse +inf; attn_sink scales out by e^lse / (e^lse + e^sink) and
    leaves lse.
    """
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(D_QK)
    if schedule is None:
        check_decode(q, k_cache, indices, topk_length, attn_sink)
        schedule = schedule_for(q, indices)
    elif not schedule.matches(q.shape[0], q.shape[1], q.shape[2], indices.shape[-1]):
        check_decode(q, k_cache, indices, topk_length, attn_sink)
        _fail(f"the schedule was made for b, s_q, h_q, topk = {schedule[:4]}, not "
              f"{tuple(q.shape[:3]) + (indices.shape[-1],)}")
    if _compiling() or type(q) is not _Tensor:
        if _OPERATOR is None:
            _fail(f"under torch.compile or on tensor subclasses it needs torch >= 2.4 "
                  f"(torch.library.custom_op); this is torch {torch.__version__}",
                  RuntimeError)
        return _OPERATOR(q, k_cache, indices, topk_length, attn_sink, float(sm_scale),
                         schedule.splits)
    return _DECODE(q, k_cache, indices, topk_length, attn_sink, float(sm_scale),
                   schedule.splits)


def _fake(q, k_cache, indices, topk_length, attn_sink, sm_scale, splits):
    b, s_q, h_q, _ = check_decode(q, k_cache, indices, topk_length, attn_sink)
    return (q.new_empty((b, s_q, h_q, D_V), dtype=_BF16),
            q.new_empty((b, h_q, s_q), dtype=_F32))


# torch.ops.tle.sparse_mla_decode.default where this torch can define it.
_OPERATOR = None
if hasattr(torch.library, "custom_op"):
    @torch.library.custom_op("tle::sparse_mla_decode", mutates_args=(),
                             device_types="cuda")
    def _sparse_mla_decode(q: torch.Tensor, k_cache: torch.Tensor, indices: torch.Tensor,
                           topk_length: Optional[torch.Tensor],
                           attn_sink: Optional[torch.Tensor], sm_scale: float,
                           splits: int) -> Tuple[torch.Tensor, torch.Tensor]:
        return _DECODE(q, k_cache, indices, topk_length, attn_sink, sm_scale, splits)

    _sparse_mla_decode.register_fake(_fake)
    _OPERATOR = torch.ops.tle.sparse_mla_decode.default
