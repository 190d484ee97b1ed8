# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""tle.sparse_mla_fwd: FlashMLA's flash_mla_sparse_fwd on TLE's compiled
kernels, and the PyTorch operator torch.ops.tle.sparse_mla_fwd behind it.

Called on plain CUDA tensors outside torch.compile, sparse_mla_fwd goes
straight to the kernels (SparseMLA: checks once per signature, then a
launch plan), which keeps a call within tens of microseconds of CPU time.
Traced by torch.compile, or given tensor subclasses such as fake tensors,
it calls the operator instead: a torch.library custom op (torch >= 2.4)
whose fake implementation gives the outputs' shapes from the same checks,
so that torch.compile and CUDA graphs (torch.cuda.graph, mode=
"reduce-overhead") capture it like any PyTorch op. With `out=` it is the
operator torch.ops.tle.sparse_mla_fwd_out, which writes the given
outputs (a custom op may not return its inputs).
"""

from typing import Optional, Tuple

from .kernel import SparseMLA, check_call, check_outputs, check_three, torch
from .variants import D_V, choose

# Every shipped variant, the fastest that takes a shape.
_FORWARD = SparseMLA()
_Tensor = torch.Tensor
_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None) or (
    lambda: False)


def sparse_mla_fwd(q, kv, indices, sm_scale, d_v=D_V, attn_sink=None, topk_length=None,
                   out=None, kv_format="bf16"):
    """Sparse MLA prefill, as FlashMLA's flash_mla_sparse_fwd.

    q [s_q, h_q, d_qk] bf16, kv [s_kv, 1, d_qk] bf16 (d_qk 576, DeepSeek
    V3.2, or 512, V4), indices [s_q, 1, topk] int32 (ids < 0 or >= s_kv
    are skipped), sm_scale a float; attn_sink [h_q] f32 and topk_length
    [s_q] int32 (only a row's first topk_length ids count) are optional.
    Returns out [s_q, h_q, d_v] bf16, max_logits and lse [s_q, h_q] f32 in
    natural-log units; a row without a valid id gives out 0, lse +inf,
    max_logits -inf. A leading batch dimension on q, kv and indices
    (topk_length [B, s_q]) gives batched outputs. `out`, a tuple (out,
    max_logits, lse) of contiguous tensors of those shapes and dtypes on
    q's device, is written and returned instead of new tensors.

    kv_format="v32" takes kv as DeepSeek V3.2's FP8 KV cache
    (tle.sparse_mla.kv_cache; FlashMLA's tests/quant.py defines the
    layout): [num_blocks, 64, 1, 656] of one-byte elements, any block
    stride, one cache for every batch, with indices global token ids
    (block * 64 + offset; ids < 0 or >= 64 * num_blocks are skipped). The
    kernel dequantizes the rows it gathers and computes as with bf16 kv
    (d_qk 576).

    q, kv and indices may be views (rows of a larger buffer): the last
    dimension contiguous, every other stride a multiple of 16 bytes.
    Runs on the tensors' device and PyTorch's current stream there, on the
    fastest shipped kernel that takes the shape (tle.sparse_mla.VARIANTS:
    h_q and topk multiples of 64, d_v 512); ValueError or TypeError for
    what no kernel takes. The first call of a shape on a device loads the
    kernel: make it before capturing a CUDA graph.
    """
    if _compiling() or type(q) is not _Tensor:
        if _OPERATOR is None:
            raise RuntimeError(
                f"tle.sparse_mla_fwd under torch.compile or on tensor subclasses "
                f"needs torch >= 2.4 (torch.library.custom_op); this is torch "
                f"{torch.__version__}")
        if out is None:
            return _OPERATOR(q, kv, indices, sm_scale, d_v, attn_sink, topk_length,
                             kv_format)
        check_three(out)
        _OUT_OPERATOR(q, kv, indices, sm_scale, d_v, attn_sink, topk_length, *out,
                      kv_format)
        return tuple(out)
    return _FORWARD(q, kv, indices, sm_scale, d_v, attn_sink, topk_length, out, kv_format)


# The benchmark's checks may hand it outputs to poison (tle.bench.sparse_mla).
sparse_mla_fwd.takes_outputs = True


def _output_shapes(q, kv, indices, d_v, attn_sink, topk_length, kv_format):
    shape = check_call(q, kv, indices, d_v, attn_sink, topk_length, kv_format)
    choose(shape.heads, shape.topk, shape.d_qk, kv_format=kv_format)
    return shape.outputs()


def _fake(q, kv, indices, sm_scale, d_v, attn_sink, topk_length, kv_format="bf16"):
    out, stats = _output_shapes(q, kv, indices, d_v, attn_sink, topk_length, kv_format)
    return (q.new_empty(out, dtype=torch.bfloat16),
            q.new_empty(stats, dtype=torch.float32),
            q.new_empty(stats, dtype=torch.float32))


def _fake_out(q, kv, indices, sm_scale, d_v, attn_sink, topk_length, out, max_logits,
              lse, kv_format="bf16"):
    shapes = _output_shapes(q, kv, indices, d_v, attn_sink, topk_length, kv_format)
    check_outputs((out, max_logits, lse), *shapes, q.device)


# torch.ops.tle.sparse_mla_fwd.default and sparse_mla_fwd_out.default,
# where this torch can define them.
_OPERATOR = _OUT_OPERATOR = None
if hasattr(torch.library, "custom_op"):
    @torch.library.custom_op("tle::sparse_mla_fwd", mutates_args=(), device_types="cuda")
    def _sparse_mla_fwd(q: torch.Tensor, kv: torch.Tensor, indices: torch.Tensor,
                        sm_scale: float, d_v: int, attn_sink: Optional[torch.Tensor],
                        topk_length: Optional[torch.Tensor], kv_format: str = "bf16"
                        ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return _FORWARD(q, kv, indices, sm_scale, d_v, attn_sink, topk_length,
                        kv_format=kv_format)

    _sparse_mla_fwd.register_fake(_fake)
    _OPERATOR = torch.ops.tle.sparse_mla_fwd.default

    @torch.library.custom_op("tle::sparse_mla_fwd_out",
                             mutates_args=("out", "max_logits", "lse"),
                             device_types="cuda")
    def _sparse_mla_fwd_out(q: torch.Tensor, kv: torch.Tensor, indices: torch.Tensor,
                            sm_scale: float, d_v: int, attn_sink: Optional[torch.Tensor],
                            topk_length: Optional[torch.Tensor], out: torch.Tensor,
                            max_logits: torch.Tensor, lse: torch.Tensor,
                            kv_format: str = "bf16") -> None:
        _FORWARD(q, kv, indices, sm_scale, d_v, attn_sink, topk_length,
                 (out, max_logits, lse), kv_format)

    _sparse_mla_fwd_out.register_fake(_fake_out)
    _OUT_OPERATOR = torch.ops.tle.sparse_mla_fwd_out.default
