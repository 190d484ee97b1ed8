# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Attention forward on TLE's compiled kernels (kernels/attention): q [B,
S_q, H, D], k and v [B, S_k, H_kv, D] bf16 give out [B, S_q, H, D] and lse
[B, H, S_q].

- variants (re-exported here): the shipped kernels, one per head
  dimension and mask;
- kernel: calls of a compiled kernel (checks once per signature, launch
  plans), Attention;
- op: tle.attention_fwd and the operator torch.ops.tle.attention_fwd;
- reference: the fp32 PyTorch reference.

This module needs no torch; the others import it.
"""

from .variants import HEAD_DIMS, VARIANTS, KernelNotFoundError, Variant, choose, variant

__all__ = ["HEAD_DIMS", "VARIANTS", "KernelNotFoundError", "Variant", "choose",
           "variant"]
