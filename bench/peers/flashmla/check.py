# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A quick check of the FlashMLA peer build on the GPU: every sm90 entry
point (sparse prefill d_qk 576/512, sparse FP8 decode in both KV-cache
formats, dense bf16 decode) on small random cases against dense PyTorch
references, and the sm100 stubs' error.

build.py copies this file into the build output as tle_flashmla_check.py
and runs it there after building:

    python3 .device/flashmla-build/tle_flashmla_check.py

Prints one line per case and exits non-zero when any case fails.
"""

import os
import sys
import traceback

import torch

HERE = os.path.dirname(os.path.abspath(__file__))

# Elementwise |ans - ref| <= ATOL + RTOL*|ref| and a cosine-like similarity
# (1 - 2<a,r>/(<a,a>+<r,r>)) for the bf16 output; fp32 statistics tighter.
OUT_ATOL, OUT_RTOL, OUT_COS = 1e-3, 2.01 / 128, 1e-5
STAT_ATOL, STAT_RTOL = 1e-4, 1e-4


def _sync(t):
    if t.is_cuda:
        torch.cuda.synchronize()


def _compare(name, ans, ref, atol, rtol, cos_tol=None):
    ans, ref = ans.float(), ref.float()
    if ans.shape != ref.shape:
        return [f"{name}: shape {tuple(ans.shape)} != reference {tuple(ref.shape)}"]
    problems = []
    finite = torch.isfinite(ref)
    if not torch.equal(finite, torch.isfinite(ans)) or not torch.equal(ans[~finite], ref[~finite]):
        problems.append(f"{name}: non-finite values differ from the reference")
    a, r = ans[finite], ref[finite]
    err = (a - r).abs()
    bad = err > atol + rtol * r.abs()
    if bad.any():
        problems.append(f"{name}: {int(bad.sum())}/{r.numel()} beyond tolerance, "
                        f"max abs err {err.max().item():.3g}")
    if cos_tol is not None:
        a, r = a.double(), r.double()
        den = (a * a + r * r).sum().item()
        cos = 1 - 2 * (a * r).sum().item() / den if den > 0 else 0.0
        if cos > cos_tol:
            problems.append(f"{name}: cos diff {cos:.3g} > {cos_tol:g}")
    return problems


def _attend(q, k, valid, sm_scale, d_v, attn_sink=None):
    """q [n,h,d], k [n,t,d] (fp32), valid [n,t] -> out [n,h,d_v], lse [n,h],
    max_logits [n,h]; a row with no valid key gives out 0, lse +inf."""
    p = torch.einsum("nhd,ntd->nht", q, k) * sm_scale
    p = p.masked_fill(~valid[:, None, :], float("-inf"))
    lse = torch.logsumexp(p, dim=-1)
    max_logits = p.max(dim=-1).values
    safe = torch.where(torch.isinf(lse), torch.full_like(lse, float("inf")), lse)
    out = torch.einsum("nht,ntd->nhd", torch.exp(p - safe[..., None]), k[..., :d_v])
    if attn_sink is not None:
        out = out * torch.sigmoid(lse - attn_sink[None, :])[..., None]
    lse = torch.where(torch.isinf(lse), torch.full_like(lse, float("inf")), lse)
    return out, lse, max_logits


def _random_indices(g, rows, topk, n, invalid_frac, device):
    """[rows, topk] int32 distinct indices below n, invalid_frac of them -1
    (at least one valid index per row)."""
    idx = torch.stack([torch.randperm(n, generator=g, device="cpu")[:topk] for _ in range(rows)])
    drop = torch.rand(rows, topk, generator=g) < invalid_frac
    drop[:, 0] = False
    idx[drop] = -1
    return idx.to(torch.int32).to(device)


# ---- sparse prefill ---------------------------------------------------------

def check_sparse_prefill(peer, d_qk, h_q, topk_length, attn_sink, s_q=96, s_kv=700,
                         topk=256, device="cuda"):
    g = torch.Generator().manual_seed(d_qk + h_q)
    q = (torch.randn(s_q, h_q, d_qk, generator=g) / 4).to(device, torch.bfloat16)
    kv = (torch.randn(s_kv, 1, d_qk, generator=g) / 4).to(device, torch.bfloat16)
    indices = _random_indices(g, s_q, topk, s_kv, 0.1, device).view(s_q, 1, topk)
    lengths = sink = None
    if topk_length:
        lengths = torch.randint(1, topk + 1, (s_q,), generator=g).to(device, torch.int32)
    if attn_sink:
        sink = torch.randn(h_q, generator=g).to(device, torch.float32)
    sm_scale = d_qk ** -0.5

    out, max_logits, lse = peer.sparse_fwd(q, kv, indices, sm_scale, 512, sink, lengths)
    _sync(q)

    idx = indices[:, 0, :].long()
    valid = idx >= 0
    if lengths is not None:
        valid &= torch.arange(topk, device=device)[None, :] < lengths[:, None]
    k = kv[:, 0, :].float()[idx.clamp_min(0)]
    ref_out, ref_lse, ref_max = _attend(q.float(), k, valid, sm_scale, 512, sink)
    return (_compare("out", out, ref_out, OUT_ATOL, OUT_RTOL, OUT_COS)
            + _compare("lse", lse, ref_lse, STAT_ATOL, STAT_RTOL)
            + _compare("max_logits", max_logits, ref_max, STAT_ATOL, STAT_RTOL))


# ---- sparse FP8 decode ------------------------------------------------------

def _pow2_scale(amax):
    """Per-tile power-of-two scale so that amax/scale fits e4m3 (448)."""
    return torch.exp2(torch.ceil(torch.log2(torch.clamp_min(amax / 448.0, 1e-4))))


def quantize_v32(k):
    """k [nb, bs, 576] bf16 -> (cache [nb, bs, 1, 656] fp8, dequantized
    [nb, bs, 576] fp32). Per token: 512 e4m3 (4 tiles of 128), 4 fp32
    scales, 64 bf16 RoPE values."""
    nb, bs, _ = k.shape
    nope = k[..., :512].float().view(nb, bs, 4, 128)
    scale = _pow2_scale(nope.abs().amax(dim=-1))                  # [nb, bs, 4]
    q8 = (nope / scale[..., None]).to(torch.float8_e4m3fn)
    buf = torch.empty(nb, bs, 656, dtype=torch.uint8, device=k.device)
    buf[..., :512] = q8.view(nb, bs, 512).view(torch.uint8)
    buf[..., 512:528] = scale.contiguous().view(torch.uint8)
    buf[..., 528:] = k[..., 512:].contiguous().view(torch.uint8)
    deq = torch.cat([(q8.float() * scale[..., None]).view(nb, bs, 512), k[..., 512:].float()], -1)
    return buf.view(torch.float8_e4m3fn).view(nb, bs, 1, 656), deq


def quantize_model1(k):
    """k [nb, bs, 512] bf16 -> (cache [nb, bs, 1, 584] fp8 over a block of
    bs*584 bytes padded to a multiple of 576, dequantized [nb, bs, 512]
    fp32). A block holds bs records of 448 e4m3 (7 tiles of 64) and 64 bf16
    RoPE values, then bs records of 7 e8m0 scales and a pad byte."""
    nb, bs, _ = k.shape
    nope = k[..., :448].float().view(nb, bs, 7, 64)
    scale = _pow2_scale(nope.abs().amax(dim=-1))                  # [nb, bs, 7]
    q8 = (nope / scale[..., None]).to(torch.float8_e4m3fn)
    stride = (bs * 584 + 575) // 576 * 576
    buf = torch.zeros(nb, stride, dtype=torch.uint8, device=k.device)
    rec = buf[:, :bs * 576].view(nb, bs, 576)
    rec[..., :448] = q8.view(nb, bs, 448).view(torch.uint8)
    rec[..., 448:] = k[..., 448:].contiguous().view(torch.uint8)
    scales = buf[:, bs * 576:bs * 584].view(nb, bs, 8)
    scales[..., :7] = scale.to(torch.float8_e8m0fnu).view(torch.uint8)
    deq = torch.cat([(q8.float() * scale[..., None]).view(nb, bs, 448), k[..., 448:].float()], -1)
    cache = buf[:, :bs * 584].view(torch.float8_e4m3fn).view(nb, bs, 1, 584)
    return cache, deq


def check_sparse_decode(peer, d_qk, h_q, attn_sink, b=3, s_q=2, num_blocks=24, bs=64,
                        topk=128, device="cuda"):
    g = torch.Generator().manual_seed(10 * d_qk + h_q)
    k = (torch.randn(num_blocks, bs, d_qk, generator=g) / 4).to(device, torch.bfloat16)
    cache, deq = (quantize_v32 if d_qk == 576 else quantize_model1)(k)
    q = (torch.randn(b, s_q, h_q, d_qk, generator=g) / 4).to(device, torch.bfloat16)
    indices = _random_indices(g, b * s_q, topk, num_blocks * bs, 0.1, device).view(b, s_q, topk)
    sink = torch.randn(h_q, generator=g).to(device, torch.float32) if attn_sink else None
    sm_scale = d_qk ** -0.5

    meta, _ = peer.get_mla_metadata()
    out, lse = peer.flash_mla_with_kvcache(q, cache, None, None, head_dim_v=512,
                                           tile_scheduler_metadata=meta, softmax_scale=sm_scale,
                                           is_fp8_kvcache=True, indices=indices, attn_sink=sink)
    _sync(q)

    idx = indices.view(b * s_q, topk).long()
    kk = deq.view(-1, d_qk)[idx.clamp_min(0)]
    ref_out, ref_lse, _ = _attend(q.float().view(b * s_q, h_q, d_qk), kk, idx >= 0,
                                  sm_scale, 512, sink)
    ref_out = ref_out.view(b, s_q, h_q, 512)
    ref_lse = ref_lse.view(b, s_q, h_q).transpose(1, 2)
    return (_compare("out", out, ref_out, OUT_ATOL, OUT_RTOL, OUT_COS)
            + _compare("lse", lse, ref_lse, STAT_ATOL, STAT_RTOL))


# ---- dense bf16 decode ------------------------------------------------------

def check_dense_decode(peer, h_q=128, seqlens=(200, 777, 64), s_q=1, bs=64, device="cuda"):
    g = torch.Generator().manual_seed(7)
    b, d_qk = len(seqlens), 576
    blocks = [(n + bs - 1) // bs for n in seqlens]
    width = max(blocks)
    perm = torch.randperm(sum(blocks), generator=g)
    table = torch.zeros(b, width, dtype=torch.int32)
    at = 0
    for i, n in enumerate(blocks):
        table[i, :n] = perm[at:at + n]
        at += n
    k = (torch.randn(sum(blocks), bs, 1, d_qk, generator=g) / 4).to(device, torch.bfloat16)
    q = (torch.randn(b, s_q, h_q, d_qk, generator=g) / 4).to(device, torch.bfloat16)
    table = table.to(device)
    lens = torch.tensor(seqlens, dtype=torch.int32, device=device)

    meta, _ = peer.get_mla_metadata()
    out, lse = peer.flash_mla_with_kvcache(q, k, table, lens, head_dim_v=512,
                                           tile_scheduler_metadata=meta, causal=False)
    _sync(q)

    problems = []
    for i, n in enumerate(seqlens):
        keys = k[table[i, :blocks[i]].long(), :, 0, :].reshape(-1, d_qk)[:n].float()
        ro, rl, _ = _attend(q[i].float(), keys[None].expand(s_q, n, d_qk),
                            torch.ones(s_q, n, dtype=torch.bool, device=device),
                            d_qk ** -0.5, 512)
        problems += _compare(f"out[{i}]", out[i], ro, OUT_ATOL, OUT_RTOL, OUT_COS)
        problems += _compare(f"lse[{i}]", lse[i], rl.transpose(0, 1), STAT_ATOL, STAT_RTOL)
    return problems


def check_sm100_stub(peer, device="cuda"):
    t = torch.empty(1, device=device)
    try:
        peer.flash_mla_cuda.dense_prefill_fwd(t, t, t, t, t, t, t, t, 0, 1.0, 1, 1, True)
    except RuntimeError as e:
        return [] if "not built" in str(e) else [f"unexpected error: {e}"]
    return ["dense_prefill_fwd did not raise"]


CASES = [
    ("sparse prefill d_qk=576 h_q=128", check_sparse_prefill, dict(d_qk=576, h_q=128, topk_length=False, attn_sink=False)),
    ("sparse prefill d_qk=576 h_q=64 topk_length", check_sparse_prefill, dict(d_qk=576, h_q=64, topk_length=True, attn_sink=False)),
    ("sparse prefill d_qk=512 h_q=128 attn_sink", check_sparse_prefill, dict(d_qk=512, h_q=128, topk_length=False, attn_sink=True)),
    ("sparse prefill d_qk=512 h_q=64 topk_length attn_sink", check_sparse_prefill, dict(d_qk=512, h_q=64, topk_length=True, attn_sink=True)),
    ("sparse fp8 decode V32 (d_qk=576) h_q=128", check_sparse_decode, dict(d_qk=576, h_q=128, attn_sink=False)),
    ("sparse fp8 decode V32 (d_qk=576) h_q=64 attn_sink", check_sparse_decode, dict(d_qk=576, h_q=64, attn_sink=True)),
    ("sparse fp8 decode MODEL1 (d_qk=512) h_q=128", check_sparse_decode, dict(d_qk=512, h_q=128, attn_sink=True)),
    ("sparse fp8 decode MODEL1 (d_qk=512) h_q=64", check_sparse_decode, dict(d_qk=512, h_q=64, attn_sink=False)),
    ("dense bf16 decode h_q=128", check_dense_decode, dict()),
    ("sm100 entry point raises 'not built'", check_sm100_stub, dict()),
]


def main():
    sys.path.insert(0, HERE)
    import tle_flashmla_peer as peer
    print(f"FlashMLA peer from {os.path.dirname(peer.flash_mla.__file__)} "
          f"(FlashMLA {peer.BUILD_INFO.get('flashmla_commit', '?')[:12]}), "
          f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    failed = 0
    for name, fn, kwargs in CASES:
        try:
            problems = fn(peer, **kwargs)
        except Exception:
            problems = ["raised:\n" + traceback.format_exc()]
        failed += bool(problems)
        print(f"{'PASS' if not problems else 'FAIL'}  {name}")
        for p in problems:
            print(f"        {p}")
    print(f"{len(CASES) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
