# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""DeepSeek's SparseMLA prefill (V3.2 and V4) on TLE's compiled kernels,
with what checks and times them (FlashMLA's sparse prefill call: q [s_q,
h_q, d_qk], kv [s_kv, 1, d_qk], indices [s_q, 1, topk], d_qk 576 or 512;
docs/Python.md).

- variants (re-exported here): the shipped kernels, fastest first, and the
  shapes each takes;
- kernel: calls of a compiled kernel (checks once per signature, launch
  plans), SparseMLA;
- op: tle.sparse_mla_fwd and the operator torch.ops.tle.sparse_mla_fwd;
- kv_cache: the FP8 KV cache formats of V3.2 and V4 (quantize, dequantize);
- reference, inputs, triton_peer: the fp32 PyTorch reference, the input
  generators and the Triton peer kernel.

This module needs no torch; the others import it.
"""

from .variants import (D_QK, D_QK_V4, D_V, VARIANTS, KernelNotFoundError, Variant,
                       choose, variant)

__all__ = ["D_QK", "D_QK_V4", "D_V", "VARIANTS", "KernelNotFoundError", "Variant",
           "choose", "variant"]
