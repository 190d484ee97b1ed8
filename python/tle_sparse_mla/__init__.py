"""Python side of TLE's SparseMLA work: reference, input generators, the
Triton "naive" peer kernel and the benchmark driver.

Semantics follow docs in /work/shared/SPARSE_MLA.md (FlashMLA's sparse
prefill call: q[s_q,h_q,576], kv[s_kv,1,576], indices[s_q,1,topk]).
Nothing here imports Triton at package import time, so the reference and the
generators work on machines without a GPU.
"""

from .reference import sparse_mla_reference  # noqa: F401

D_QK = 576
D_V = 512
