# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The FP8 KV cache of DeepSeek V3.2 and V4 as FlashMLA's sparse kernels read
it (FlashMLA 9241ae3, tests/quant.py is the definition of the format; this is
our own implementation of it), and the conversions to and from bf16 rows.

A cache is [num_blocks, 64, 1, bytes_per_token] of one-byte elements
(float8_e4m3fn or uint8; its bytes are what count) whose block stride may be
larger than 64 rows (FlashMLA allocates blocks of 65); a token's global id is
block * 64 + offset.

- "v32" (V3.2, d_qk 576), 656 bytes a token: 512 e4m3 NoPE values in 4 tiles
  of 128, 4 float32 scales (one per tile), 64 bf16 RoPE values.
- "model1" (V4, d_qk 512), 584 bytes a token in the block's first 64 * 576
  bytes: 448 e4m3 NoPE values in 7 tiles of 64 and 64 bf16 RoPE values; the
  block's 64 x 8 scale bytes (7 float8_e8m0 scales and a pad a token) follow
  the values, and the block is padded to a multiple of 576 bytes.

Every scale is a power of two, 2^ceil(log2(max(amax / 448, 1e-4))) for the
tile's largest |x|; the stored value is x / scale in e4m3, and the value read
back is e4m3 * scale. Needs torch >= 2.7 (float8_e8m0fnu).
"""

import dataclasses

import torch

BLOCK = 64
FP8_MAX = 448.0


@dataclasses.dataclass(frozen=True)
class Layout:
    """One cache format: its columns, tiles and bytes."""
    name: str
    d_qk: int
    d_nope: int
    tile: int
    bytes_per_token: int

    @property
    def d_rope(self):
        return self.d_qk - self.d_nope

    @property
    def tiles(self):
        return self.d_nope // self.tile


V32 = Layout("v32", d_qk=576, d_nope=512, tile=128, bytes_per_token=656)
MODEL1 = Layout("model1", d_qk=512, d_nope=448, tile=64, bytes_per_token=584)
LAYOUTS = {layout.name: layout for layout in (V32, MODEL1)}


def layout(name):
    """The Layout called `name` ("v32" or "model1"), or a ValueError."""
    if isinstance(name, Layout):
        return name
    try:
        return LAYOUTS[name]
    except KeyError:
        raise ValueError(f"unknown FP8 KV cache layout {name!r}: expected one of "
                         f"{sorted(LAYOUTS)}") from None


def _model1_block_bytes():
    # 64 * (448 + 128) value bytes, then 64 * 8 scale bytes, padded to 576.
    values = BLOCK * (MODEL1.d_nope + 2 * MODEL1.d_rope) + BLOCK * 8
    return -(-values // 576) * 576


def _scales(x):
    """Per-tile power-of-two scales of x [..., tile] (f32)."""
    amax = x.abs().amax(dim=-1).float()
    return torch.exp2(torch.clamp_min(amax / FP8_MAX, 1e-4).log2().ceil())


def quantize(kv, name="v32"):
    """The FP8 cache of bf16 rows kv [num_blocks, 64, 1, d_qk]: a uint8 tensor
    [num_blocks, 64, 1, bytes_per_token], with FlashMLA's block padding (65
    rows for v32, 576-byte multiples for model1) behind its block stride."""
    fmt = layout(name)
    if kv.dim() != 4 or kv.shape[1] != BLOCK or kv.shape[2] != 1 or kv.shape[3] != fmt.d_qk:
        raise ValueError(f"quantize: kv must be [num_blocks, {BLOCK}, 1, {fmt.d_qk}], "
                         f"not {list(kv.shape)}")
    if kv.dtype != torch.bfloat16:
        raise TypeError(f"quantize: kv must be bfloat16, not {kv.dtype}")
    blocks = kv.shape[0]
    rows = kv[:, :, 0]
    nope = rows[..., :fmt.d_nope].float().unflatten(-1, (fmt.tiles, fmt.tile))
    scale = _scales(nope)                                     # [blocks, 64, tiles]
    values = (nope / scale.unsqueeze(-1)).to(torch.float8_e4m3fn).view(torch.uint8)
    values = values.flatten(-2)
    rope = rows[..., fmt.d_nope:].contiguous().view(torch.uint8)
    if fmt is V32:
        full = torch.zeros(blocks, BLOCK + 1, fmt.bytes_per_token, dtype=torch.uint8,
                           device=kv.device)
        cache = full[:, :BLOCK]
        cache[..., :fmt.d_nope] = values
        cache[..., fmt.d_nope:fmt.d_nope + 16] = scale.contiguous().view(torch.uint8)
        cache[..., fmt.d_nope + 16:] = rope
        return cache.unsqueeze(2)
    full = torch.zeros(blocks, _model1_block_bytes(), dtype=torch.uint8, device=kv.device)
    width = fmt.d_nope + 2 * fmt.d_rope
    body = full[:, :BLOCK * width].view(blocks, BLOCK, width)
    body[..., :fmt.d_nope] = values
    body[..., fmt.d_nope:] = rope
    tail = full[:, BLOCK * width:BLOCK * width + BLOCK * 8].view(blocks, BLOCK, 8)
    tail[..., :fmt.tiles] = scale.to(torch.float8_e8m0fnu).view(torch.uint8)
    return full[:, :BLOCK * fmt.bytes_per_token].view(blocks, BLOCK, 1, fmt.bytes_per_token)


def _bytes(cache, fmt):
    if cache.dim() != 4 or cache.shape[1] != BLOCK or cache.shape[2] != 1 \
            or cache.shape[3] != fmt.bytes_per_token:
        raise ValueError(f"{fmt.name} FP8 cache must be [num_blocks, {BLOCK}, 1, "
                         f"{fmt.bytes_per_token}], not {list(cache.shape)}")
    if cache.element_size() != 1:
        raise TypeError(f"an FP8 cache has one-byte elements, not {cache.dtype}")
    return cache.view(torch.uint8)


def _model1_scales(cache):
    """model1's scales [num_blocks, 64, 7] f32: the bytes behind each block's
    values, reached through the block stride."""
    blocks = cache.shape[0]
    width = MODEL1.d_nope + 2 * MODEL1.d_rope
    start = cache.storage_offset() + BLOCK * width
    tail = cache.as_strided((blocks, BLOCK, 8), (cache.stride(0), 8, 1), start)
    return tail[..., :MODEL1.tiles].view(torch.float8_e8m0fnu).float()


def dequantize_rows(cache, ids, name="v32"):
    """The bf16 rows [*ids.shape, d_qk] of the tokens `ids` (global ids, all
    valid) of an FP8 cache. An e4m3 value times its power-of-two scale is
    exact in bf16, so the product is taken in bf16, into the output: the
    rows gathered once, e4m3 to bf16, the multiply, the RoPE copy."""
    fmt = layout(name)
    raw = _bytes(cache, fmt)
    ids = ids.long()
    block, offset = ids // BLOCK, ids % BLOCK
    if fmt is V32:
        row = raw[block, offset, 0]                           # [..., 656]
        values = row[..., :fmt.d_nope]
        scale = row[..., fmt.d_nope:fmt.d_nope + 16].view(torch.float32)
        rope = row[..., fmt.d_nope + 16:]
    else:
        width = fmt.d_nope + 2 * fmt.d_rope
        body = raw.as_strided((raw.shape[0], BLOCK, width), (raw.stride(0), width, 1))
        row = body[block, offset]
        values, rope = row[..., :fmt.d_nope], row[..., fmt.d_nope:]
        scale = _model1_scales(raw)[block, offset]
    out = torch.empty(*ids.shape, fmt.d_qk, dtype=torch.bfloat16, device=cache.device)
    tiles = (fmt.tiles, fmt.tile)
    torch.mul(values.view(torch.float8_e4m3fn).to(torch.bfloat16).unflatten(-1, tiles),
              scale.to(torch.bfloat16).unsqueeze(-1),
              out=out[..., :fmt.d_nope].unflatten(-1, tiles))
    out[..., fmt.d_nope:].copy_(rope.view(torch.bfloat16))
    return out


def dequantize(cache, name="v32"):
    """The whole cache as bf16 rows [num_blocks * 64, 1, d_qk] (row i is token
    i): what an engine's bf16 path, and the references, read."""
    fmt = layout(name)
    ids = torch.arange(cache.shape[0] * BLOCK, device=cache.device)
    return dequantize_rows(cache, ids, fmt).unsqueeze(1)
