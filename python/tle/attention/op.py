# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""tle.attention_fwd: attention forward on TLE's compiled kernels, and the
PyTorch operator torch.ops.tle.attention_fwd behind it.

Called on plain CUDA tensors outside torch.compile, attention_fwd goes
straight to the kernels (Attention: checks once per signature, then a
launch plan). Traced by torch.compile, or given tensor subclasses such as
fake tensors, it calls the operator instead: a torch.library custom op
(torch >= 2.4) whose fake implementation gives the outputs' shapes from
the same checks, so that torch.compile and CUDA graphs capture it like
any PyTorch op.
"""

from typing import Tuple

from .kernel import Attention, check_call, scale_of, torch

_FORWARD = Attention()
_Tensor = torch.Tensor
_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None) or (
    lambda: False)


def attention_fwd(q, k, v, causal=False, sm_scale=None):
    """Attention forward: softmax(q k^T sm_scale) v per head.

    q [B, S_q, H, D], k and v [B, S_k, H_kv, D], bf16, H a multiple of H_kv
    (grouped KV heads: head h reads KV head h // (H / H_kv)); D 64 or 128.
    With causal, query i sees keys j <= i (torch's is_causal, the upper
    left of the score matrix). sm_scale defaults to 1 / sqrt(D) and must
    be positive. Returns out [B, S_q, H, D] bf16 and lse [B, H, S_q] f32,
    the natural-log logsumexp of each row's scaled scores (FlashAttention's
    softmax_lse).

    Runs on the tensors' device and PyTorch's current stream there;
    ValueError or TypeError for what no kernel takes. The first call of a
    shape on a device loads the kernel: make it before capturing a CUDA
    graph.
    """
    if _compiling() or type(q) is not _Tensor:
        if _OPERATOR is None:
            raise RuntimeError(
                f"tle.attention_fwd under torch.compile or on tensor subclasses needs "
                f"torch >= 2.4 (torch.library.custom_op); this is torch "
                f"{torch.__version__}")
        # The operator's schema takes a float: the default is resolved here.
        head_dim = q.shape[-1] if q.dim() == 4 else 1
        return _OPERATOR(q, k, v, causal, scale_of(sm_scale, head_dim))
    return _FORWARD(q, k, v, causal, sm_scale)


def _fake(q, k, v, causal, sm_scale):
    shape, _, _ = check_call(q, k, v, causal, sm_scale)
    out, lse = shape.outputs()
    return (q.new_empty(out, dtype=torch.bfloat16),
            q.new_empty(lse, dtype=torch.float32))


# torch.ops.tle.attention_fwd.default, where this torch can define it.
_OPERATOR = None
if hasattr(torch.library, "custom_op"):
    @torch.library.custom_op("tle::attention_fwd", mutates_args=(), device_types="cuda")
    def _attention_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                       causal: bool, sm_scale: float) -> Tuple[torch.Tensor, torch.Tensor]:
        return _FORWARD(q, k, v, causal, sm_scale)

    _attention_fwd.register_fake(_fake)
    _OPERATOR = torch.ops.tle.attention_fwd.default
