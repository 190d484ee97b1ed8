# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The schedule of sparse MLA decode: how many chunks each query row's
topk is split into, and the persistent grid of the split kernel
(kernels/sparse_mla/seesaw_decode.mlir), as FlashMLA's get_mla_metadata
gives its kernels theirs.

It depends on the shapes alone (batch, s_q, heads, topk and the device's
multiprocessors), never on tensor values, so it is made on the host
without reading the GPU: once per shape set, reusable across calls and
inside CUDA graphs. topk_length does not change it: positions past a
row's length are masked, and their chunks cost what full ones do (a
length-aware schedule would need the lengths on the host, or a device
kernel; not done). Nothing here needs torch.
"""

from typing import NamedTuple

# Query heads per work item, KV rows per pair of tiles (the seesaw kernels').
BLOCK_H, PAIR = 64, 128
# The split kernel takes at most this many chunks a row (its protocol
# check bounds them; seesaw.mlir.in).
MAX_SPLITS = 32
# The cost model, in pairs of tiles: what an item costs beyond its pairs
# (Q, the first fill, the epilogue) and what the combine kernel adds.
# Chosen from the dataflow, not tuned on the GPU.
ITEM_PAIRS = 1.5
COMBINE_PAIRS = 2.0


class Schedule(NamedTuple):
    """A decode schedule: `splits` chunks a row (1: no combine, the prefill
    kernel writes out directly), `ctas` CTAs of the split kernel's grid."""
    b: int
    s_q: int
    h_q: int
    topk: int
    multiprocessors: int
    splits: int
    ctas: int

    @property
    def items(self):
        """The split kernel's work items: rows x head groups x chunks."""
        return self.b * self.s_q * (self.h_q // BLOCK_H) * self.splits

    def matches(self, b, s_q, h_q, topk):
        """Whether this schedule was made for these shapes."""
        return (self.b, self.s_q, self.h_q, self.topk) == (b, s_q, h_q, topk)


def _waves(items, multiprocessors):
    return -(-items // multiprocessors)


def split_schedule(b, s_q, h_q, topk, multiprocessors, splits):
    """The schedule of `splits` chunks a row: one CTA per work item, at most
    one per multiprocessor (the split kernel is persistent)."""
    items = b * s_q * (h_q // BLOCK_H) * splits
    return Schedule(b, s_q, h_q, topk, multiprocessors, splits,
                    max(1, min(items, max(multiprocessors, 1))))


def cost(b, s_q, h_q, topk, multiprocessors, splits):
    """The modelled time of `splits` chunks a row, in pairs of tiles."""
    pairs = -(-topk // PAIR)
    items = split_schedule(b, s_q, h_q, topk, multiprocessors, splits).items
    chunk = -(-pairs // splits)
    combine = COMBINE_PAIRS if splits > 1 else 0.0
    return _waves(items, multiprocessors) * (chunk + ITEM_PAIRS) + combine


def make_schedule(b, s_q, h_q, topk, multiprocessors):
    """The schedule of these shapes on a device of `multiprocessors` SMs:
    the number of chunks of least modelled cost (the fewest among equals),
    at most one pair of tiles a chunk and MAX_SPLITS."""
    for name, value in (("b", b), ("s_q", s_q), ("h_q", h_q), ("topk", topk),
                        ("multiprocessors", multiprocessors)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"tle sparse_mla_decode: {name} must be an int >= 0, "
                             f"not {value!r}")
    if h_q % BLOCK_H:
        raise ValueError(f"tle sparse_mla_decode: h_q ({h_q}) must be a multiple of "
                         f"{BLOCK_H} (engines pad fewer heads to 64)")
    pairs = -(-topk // PAIR)
    best = 1
    if b and s_q and h_q and pairs and multiprocessors:
        candidates = range(1, min(pairs, MAX_SPLITS) + 1)
        best = min(candidates, key=lambda s: (cost(b, s_q, h_q, topk, multiprocessors, s), s))
    return split_schedule(b, s_q, h_q, topk, multiprocessors, best)
