# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""FlashMLA (9241ae3, sm90a kernels) as a peer of TLE's kernels.

build.py copies this module into the build output, beside the package
flash_mla/ (FlashMLA's own Python interface, unchanged, and the extension
flash_mla/cuda.so built from FlashMLA's csrc with our sm100 stubs). Put that
folder on sys.path (the benchmark does: --flashmla-peer DIR or
$TLE_FLASHMLA_PEER) and import tle_flashmla_peer; it imports the flash_mla
package from its own folder, never another one installed elsewhere.

  sparse_fwd(q, kv, indices, sm_scale, d_v=512, attn_sink=None, topk_length=None)
      -> (out, max_logits, lse): flash_mla_sparse_fwd, sparse prefill
         (q [s_q,h_q,d_qk] bf16, kv [s_kv,1,d_qk] bf16, indices [s_q,1,topk]
         int32; d_qk 576 or 512, h_q 64 or 128).
  flash_mla_with_kvcache, get_mla_metadata: FlashMLA's decode entry points
      (sparse FP8 decode when indices are given, dense bf16 decode else).
  BUILD_INFO: what build.py recorded (commits, flags, versions, times).
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _import_flash_mla():
    def ours(module):
        where = os.path.abspath(getattr(module, "__file__", "") or "")
        return where.startswith(os.path.join(HERE, "flash_mla") + os.sep)

    loaded = sys.modules.get("flash_mla")
    if loaded is not None:
        if not ours(loaded):
            raise ImportError(f"another flash_mla is already imported ({loaded.__file__}); "
                              f"the peer build is in {HERE}")
        return loaded
    sys.path.insert(0, HERE)
    try:
        import flash_mla
    finally:
        sys.path.remove(HERE)
    if not ours(flash_mla) or not ours(flash_mla.flash_mla_interface.flash_mla_cuda):
        raise ImportError(f"flash_mla was not imported from the peer build in {HERE}")
    return flash_mla


flash_mla = _import_flash_mla()
flash_mla_sparse_fwd = flash_mla.flash_mla_sparse_fwd
flash_mla_with_kvcache = flash_mla.flash_mla_with_kvcache
get_mla_metadata = flash_mla.get_mla_metadata
# The raw binding (sparse_prefill_fwd, sparse_decode_fwd, dense_decode_fwd, ...).
flash_mla_cuda = flash_mla.flash_mla_interface.flash_mla_cuda

try:
    with open(os.path.join(HERE, "BUILD_INFO.json")) as f:
        BUILD_INFO = json.load(f)
except OSError:
    BUILD_INFO = {}


def sparse_fwd(q, kv, indices, sm_scale, d_v=512, attn_sink=None, topk_length=None):
    """FlashMLA's sparse prefill: (out [s_q,h_q,d_v] bf16, max_logits
    [s_q,h_q] fp32, lse [s_q,h_q] fp32, natural log)."""
    out, max_logits, lse = flash_mla_sparse_fwd(q, kv, indices, sm_scale, d_v,
                                                attn_sink, topk_length)
    return out, max_logits, lse


__all__ = ["sparse_fwd", "flash_mla_sparse_fwd", "flash_mla_with_kvcache",
           "get_mla_metadata", "flash_mla_cuda", "BUILD_INFO"]
