# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The FP8 KV cache formats (tle.sparse_mla.kv_cache) on the CPU: the bytes
of a hand-made token, round trips, the block padding, refusals. Needs torch
>= 2.7 (the operator tests' torch, test/python/torch-ops.txt)."""

import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch, "float8_e8m0fnu"):
    pytest.skip("needs torch >= 2.7", allow_module_level=True)

from tle.sparse_mla import kv_cache as K  # noqa: E402


def test_a_v32_token_has_the_documented_bytes():
    kv = torch.zeros(1, 64, 1, 576, dtype=torch.bfloat16)
    kv[0, 0, 0, 0] = 896.0       # amax 896 in tile 0: scale 2, stored 448
    kv[0, 0, 0, 1] = -3.0        # stored -1.5
    kv[0, 0, 0, 130] = 0.25      # tile 1: amax 0.25 -> scale 2^-10 (>= 1e-4 floor)
    kv[0, 0, 0, 512] = 1.5       # the first RoPE value, kept as bf16
    cache = K.quantize(kv, "v32")
    row = cache[0, 0, 0]
    fp8 = row[:512].view(torch.float8_e4m3fn).float()
    assert fp8[0] == 448.0 and fp8[1] == -1.5 and fp8[130] == 256.0
    scales = row[512:528].view(torch.float32)
    assert scales.tolist() == [2.0, 2.0 ** -10, 2.0 ** -13, 2.0 ** -13]
    assert row[528:530].view(torch.bfloat16).item() == 1.5
    # A block of 65 rows behind a block of 64, as FlashMLA allocates it.
    assert cache.stride()[:2] == (65 * 656, 656)


@pytest.mark.parametrize("name", ["v32", "model1"])
def test_round_trip_is_within_e4m3_rounding(name):
    fmt = K.layout(name)
    torch.manual_seed(0)
    kv = (torch.randn(4, 64, 1, fmt.d_qk) *
          torch.logspace(-3, 3, fmt.d_qk)).to(torch.bfloat16)
    back = K.dequantize(K.quantize(kv, name), name)
    assert back.shape == (4 * 64, 1, fmt.d_qk)
    rows = kv.reshape(-1, fmt.d_qk).float()
    got = back[:, 0].float()
    assert torch.equal(got[:, fmt.d_nope:], rows[:, fmt.d_nope:])
    # e4m3 keeps 3 mantissa bits: half an ulp is 1/16 of a value, and values
    # under the tile's amax / 2^9 fall below e4m3's normal range.
    tiles = rows[:, :fmt.d_nope].unflatten(-1, (fmt.tiles, fmt.tile))
    bound = tiles.abs() / 16 + tiles.abs().amax(-1, keepdim=True) / 448 * 2.0 ** -9 * 2
    err = (got[:, :fmt.d_nope].unflatten(-1, (fmt.tiles, fmt.tile)) - tiles).abs()
    assert bool((err <= bound * 1.01).all())


def test_model1_blocks_are_padded_to_576_bytes_and_hold_their_scales_behind():
    torch.manual_seed(1)
    kv = torch.randn(3, 64, 1, 512).to(torch.bfloat16)
    cache = K.quantize(kv, "model1")
    assert cache.shape == (3, 64, 1, 584) and cache.stride(0) == 65 * 576
    raw = cache.reshape(3, -1) if cache.is_contiguous() else \
        cache.as_strided((3, 64 * 584), (cache.stride(0), 1))
    scales = raw[:, 64 * 576:].reshape(3, 64, 8)[..., :7].view(torch.float8_e8m0fnu)
    log2 = scales.float().log2()
    assert torch.equal(log2, log2.round())


@pytest.mark.parametrize("name", ["v32", "model1"])
def test_rows_are_e4m3_times_their_tile_scale_bit_for_bit(name):
    """dequantize_rows against the format read byte by byte here: each
    e4m3 value times its tile's scale, rounded once to bf16, and the RoPE
    bytes as bf16, over scales from 2^-14 to 2^3."""
    fmt = K.layout(name)
    torch.manual_seed(4)
    kv = (torch.randn(5, 64, 1, fmt.d_qk) *
          torch.logspace(-4, 3, fmt.d_qk)).to(torch.bfloat16)
    cache = K.quantize(kv, name)
    ids = torch.randint(0, 5 * 64, (99,))
    flat = cache.as_strided((5, 65 * (656 if name == "v32" else 576)),
                            (cache.stride(0), 1))
    want = []
    for i in ids.tolist():
        block, token = divmod(i, 64)
        if name == "v32":
            row = flat[block, token * 656:(token + 1) * 656]
            values, rope = row[:512], row[528:]
            scales = row[512:528].view(torch.float32)
        else:
            row = flat[block, token * 576:(token + 1) * 576]
            values, rope = row[:448], row[448:]
            tail = flat[block, 64 * 576 + token * 8:64 * 576 + token * 8 + 7]
            scales = tail.view(torch.float8_e8m0fnu).float()
        nope = values.view(torch.float8_e4m3fn).float().view(fmt.tiles, fmt.tile)
        want.append(torch.cat([(nope * scales[:, None]).flatten().to(torch.bfloat16),
                               rope.view(torch.bfloat16)]))
    got = K.dequantize_rows(cache, ids, name)
    assert torch.equal(got.view(torch.int16), torch.stack(want).view(torch.int16))


def test_refusals_name_the_rule():
    with pytest.raises(ValueError, match="unknown FP8 KV cache layout 'v4'"):
        K.layout("v4")
    with pytest.raises(ValueError, match=r"\[num_blocks, 64, 1, 576\]"):
        K.quantize(torch.zeros(1, 32, 1, 576, dtype=torch.bfloat16))
    with pytest.raises(TypeError, match="bfloat16"):
        K.quantize(torch.zeros(1, 64, 1, 576))
    with pytest.raises(ValueError, match="656"):
        K.dequantize(torch.zeros(1, 64, 1, 584, dtype=torch.uint8), "v32")
    with pytest.raises(TypeError, match="one-byte"):
        K.dequantize(torch.zeros(1, 64, 1, 656, dtype=torch.int16), "v32")
