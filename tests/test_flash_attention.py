"""attnlab.flash_attention against independent references (tolerances stated per test)."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attnlab.flash_attention import (FastMemory, flash_attention_backward_np,
                                     flash_attention_np, flash_attention_pt,
                                     flash_attention_v1_np, flash_backward_pt, flash_forward_pt,
                                     hbm_accesses_flash, hbm_accesses_standard,
                                     merge_partials_np, online_softmax_np, ring_attention_np,
                                     shards_of, split_k_attention_np)
from attnlab.masks import causal_mask_np, masked_sdpa_np, masked_sdpa_pt, padding_mask_np
from attnlab.scaled_dot_product import softmax_np

# (B, H, L, S, D, Dv, block_q, block_k): L, S not multiples of the blocks, L != S both ways,
# D not a power of two, blocks larger than the sequence, blocks of 1
CASES = [(1, 1, 1, 1, 1, 1, 4, 4), (2, 3, 97, 75, 13, 7, 16, 32), (1, 2, 33, 65, 17, 8, 10, 7),
         (2, 1, 50, 30, 6, 5, 64, 64), (1, 1, 9, 11, 3, 2, 1, 1)]
ALIGNS = ["top-left", "bottom-right"]


def qkv(rng, B, H, L, S, D, Dv):
    return (rng.normal(size=(B, H, L, D)), rng.normal(size=(B, H, S, D)),
            rng.normal(size=(B, H, S, Dv)))


def reference(q, k, v, allowed):
    """Independent float64 reference: explicit loops over query rows, zeros for empty rows."""
    allowed = np.broadcast_to(allowed, q.shape[:-1] + (k.shape[-2],))
    out = np.zeros(q.shape[:-1] + (v.shape[-1],))
    for idx in np.ndindex(*q.shape[:-1]):
        keys = np.flatnonzero(allowed[idx])
        if keys.size:
            s = k[idx[:-1]][keys] @ q[idx] / math.sqrt(q.shape[-1])
            w = np.exp(s - s.max())
            out[idx] = (w / w.sum()) @ v[idx[:-1]][keys]
    return out


def test_online_softmax_equals_two_pass():
    rng = np.random.default_rng(0)
    for x in [rng.normal(size=1), rng.normal(size=500) * 400, -rng.random(20) - 1000]:
        got = online_softmax_np(x)
        assert np.abs(got - softmax_np(x)).max() < 1e-15          # float64: 1e-15
        assert np.isfinite(got).all()


@pytest.mark.parametrize("case", CASES)
def test_tiled_forward_equals_naive_no_mask(case):
    B, H, L, S, D, Dv, bq, bk = case
    q, k, v = qkv(np.random.default_rng(1), B, H, L, S, D, Dv)
    out, lse = flash_attention_np(q, k, v, block_q=bq, block_k=bk)
    want = reference(q, k, v, np.ones((L, S), bool))
    assert np.abs(out - want).max() < 1e-12                        # float64: 1e-12
    s = q @ k.swapaxes(-2, -1) / math.sqrt(D)
    lse_ref = s.max(-1) + np.log(np.exp(s - s.max(-1, keepdims=True)).sum(-1))
    assert np.abs(lse - lse_ref).max() < 1e-12


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("align", ALIGNS)
def test_tiled_forward_padding_and_causal(case, align):
    B, H, L, S, D, Dv, bq, bk = case
    rng = np.random.default_rng(2)
    q, k, v = qkv(rng, B, H, L, S, D, Dv)
    pad = padding_mask_np(rng.integers(0, S + 1, size=B), S)
    counts = {}
    out, lse = flash_attention_np(q, k, v, pad, causal=True, align=align, block_q=bq,
                                  block_k=bk, counts=counts)
    allowed = pad & causal_mask_np(L, S, align)
    assert np.abs(out - reference(q, k, v, allowed)).max() < 1e-12
    assert np.abs(out - masked_sdpa_np(q, k, v, allowed)[0]).max() < 1e-12
    empty_rows = ~allowed.any(-1)                                   # (B, 1, L)
    assert (out[np.broadcast_to(empty_rows, out.shape[:-1])] == 0).all()
    assert np.isneginf(lse[np.broadcast_to(empty_rows, lse.shape)]).all()
    assert not np.isnan(out).any()
    causal = causal_mask_np(L, S, align)                            # skipped = tiles with no entry
    empty = sum(not causal[i:i + bq, j:j + bk].any()
                for i in range(0, L, bq) for j in range(0, S, bk))
    assert counts["skipped"] == empty
    assert counts["computed"] + counts["skipped"] == math.ceil(L / bq) * math.ceil(S / bk)


def test_causal_skips_about_half_the_tiles():
    counts = {}
    x = np.zeros((256, 4))
    flash_attention_np(x, x, x, causal=True, block_q=16, block_k=16, counts=counts)
    assert counts["skipped"] == 16 * 15 // 2 and counts["computed"] == 16 * 17 // 2


def test_fully_masked_rows_are_zero_not_nan():
    rng = np.random.default_rng(3)
    q, k, v = qkv(rng, 2, 1, 6, 5, 4, 3)
    allowed = np.ones((2, 1, 6, 5), bool)
    allowed[0] = False
    allowed[1, 0, 2] = False
    out, lse = flash_attention_np(q, k, v, allowed, block_q=4, block_k=2)
    assert (out[0] == 0).all() and (out[1, 0, 2] == 0).all() and np.isneginf(lse[0]).all()
    assert not np.isnan(out).any()


def test_algorithm_1_equals_naive():
    rng = np.random.default_rng(4)
    q, k, v = rng.normal(size=(37, 9)), rng.normal(size=(23, 9)), rng.normal(size=(23, 5))
    out, lse = flash_attention_v1_np(q, k, v, block_q=8, block_k=5)
    assert np.abs(out - reference(q, k, v, np.ones((37, 23), bool))).max() < 1e-12
    assert np.abs(lse - flash_attention_np(q, k, v)[1]).max() < 1e-12


@pytest.mark.parametrize("case", CASES[1:4])
@pytest.mark.parametrize("align", ALIGNS)
def test_backward_equals_autograd(case, align):
    B, H, L, S, D, Dv, bq, bk = case
    rng = np.random.default_rng(5)
    q, k, v = qkv(rng, B, H, L, S, D, Dv)
    pad = padding_mask_np(np.r_[S, rng.integers(0, S + 1, size=B - 1)], S)
    out, lse = flash_attention_np(q, k, v, pad, True, align, block_q=bq, block_k=bk)
    dout = rng.normal(size=out.shape)
    grads = flash_attention_backward_np(q, k, v, out, dout, lse, pad, True, align,
                                        block_q=bq, block_k=bk)
    ts = [torch.tensor(a, requires_grad=True) for a in (q, k, v)]
    allowed = torch.from_numpy(pad & causal_mask_np(L, S, align))
    masked_sdpa_pt(*ts, allowed)[0].backward(torch.from_numpy(dout))
    for mine, t in zip(grads, ts):
        assert np.abs(mine - t.grad.numpy()).max() < 1e-12           # float64: 1e-12


def test_backward_broadcast_kv_heads():
    rng = np.random.default_rng(6)
    q, k, v = (rng.normal(size=(2, 4, 9, 5)), rng.normal(size=(2, 1, 7, 5)),
               rng.normal(size=(2, 1, 7, 3)))
    out, lse = flash_attention_np(q, k, v, block_q=4, block_k=3)
    dout = rng.normal(size=out.shape)
    grads = flash_attention_backward_np(q, k, v, out, dout, lse, block_q=4, block_k=3)
    ts = [torch.tensor(a, requires_grad=True) for a in (q, k, v)]
    masked_sdpa_pt(*ts)[0].backward(torch.from_numpy(dout))
    for mine, t in zip(grads, ts):
        assert mine.shape == t.shape and np.abs(mine - t.grad.numpy()).max() < 1e-12


def test_pytorch_twins_match_numpy():
    rng = np.random.default_rng(7)
    q, k, v = qkv(rng, 2, 2, 21, 17, 5, 4)
    pad = padding_mask_np(np.array([17, 0]), 17)
    out, lse = flash_attention_np(q, k, v, pad, True, "bottom-right", 8, 5)
    t = [torch.from_numpy(a) for a in (q, k, v)]
    out_t, lse_t = flash_forward_pt(*t, torch.from_numpy(pad), True, "bottom-right", 8, 5)
    assert np.abs(out_t.numpy() - out).max() < 1e-12
    assert np.array_equal(np.isneginf(lse_t.numpy()), np.isneginf(lse))
    dout = rng.normal(size=out.shape)
    g_np = flash_attention_backward_np(q, k, v, out, dout, lse, pad, True, "bottom-right", 8, 5)
    g_pt = flash_backward_pt(*t, out_t, torch.from_numpy(dout), lse_t, torch.from_numpy(pad),
                             True, "bottom-right", 8, 5)
    for a, b in zip(g_np, g_pt):
        assert np.abs(a - b.numpy()).max() < 1e-12


@pytest.mark.parametrize("align", ALIGNS)
def test_autograd_function_gradcheck(align):
    torch.manual_seed(0)
    q = torch.randn(2, 2, 7, 4, dtype=torch.float64, requires_grad=True)
    k = torch.randn(2, 1, 6, 4, dtype=torch.float64, requires_grad=True)
    v = torch.randn(2, 1, 6, 3, dtype=torch.float64, requires_grad=True)
    pad = torch.from_numpy(padding_mask_np(np.array([6, 3]), 6))
    f = lambda a, b, c: flash_attention_pt(a, b, c, pad, True, align, 3, 4)[0]  # noqa: E731
    assert torch.autograd.gradcheck(f, (q, k, v))


def test_float32_matches_builtin():
    torch.manual_seed(1)
    q, k, v = torch.randn(2, 3, 97, 13), torch.randn(2, 3, 75, 13), torch.randn(2, 3, 75, 7)
    out, _ = flash_attention_pt(q, k, v, causal=True, block_q=24, block_k=10)
    want = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert (out - want).abs().max() < 2e-6                          # float32: 2e-6


@pytest.mark.parametrize("chunks", [1, 3, 8, 100])
def test_split_k_equals_naive(chunks):
    rng = np.random.default_rng(8)
    q, k, v = rng.normal(size=(2, 3, 1, 16)), rng.normal(size=(2, 3, 1000, 16)), \
        rng.normal(size=(2, 3, 1000, 5))
    out, lse = split_k_attention_np(q, k, v, chunks)
    assert np.abs(out - masked_sdpa_np(q, k, v)[0]).max() < 1e-12
    assert np.abs(lse - flash_attention_np(q, k, v)[1]).max() < 1e-12


def test_merge_handles_empty_parts():
    outs = np.array([[[1.0, 2.0]], [[0.0, 0.0]]])                    # (C=2, L=1, Dv=2)
    out, lse = merge_partials_np(outs, np.array([[0.5], [-np.inf]]))
    assert np.allclose(out, [[1.0, 2.0]]) and np.allclose(lse, [0.5])
    out, lse = merge_partials_np(np.zeros((2, 1, 2)), np.full((2, 1), -np.inf))
    assert (out == 0).all() and np.isneginf(lse).all()


def test_access_count_exponents():
    """Theorem 2 of Dao et al. 2022: standard Θ(Nd + N²), tiled Θ(N² d² / M); margin 0.15."""
    slope = lambda xs, ys: np.polyfit(np.log(xs), np.log(ys), 1)[0]  # noqa: E731
    Ns, ds, Ms = [1024, 2048, 4096, 8192], [32, 64, 128, 256], [2**13, 2**14, 2**15, 2**16]
    assert abs(slope(Ns, [hbm_accesses_standard(n, 64, 2**14) for n in Ns]) - 2) < 0.15
    assert abs(slope(Ns, [hbm_accesses_flash(n, 64, 2**14) for n in Ns]) - 2) < 0.15
    assert abs(slope(ds, [hbm_accesses_flash(4096, d, 2**16) for d in ds]) - 2) < 0.15
    assert abs(slope(Ms, [hbm_accesses_flash(4096, 64, m) for m in Ms]) + 1) < 0.15
    assert -0.25 < slope(Ms, [hbm_accesses_standard(4096, 64, m) for m in Ms]) <= 0


def test_fast_memory_refuses_overflow():
    fast = FastMemory(10)
    fast.load(6)
    with pytest.raises(MemoryError):
        fast.compute(5)
    with pytest.raises(ValueError, match="M"):
        FastMemory(0)
    with pytest.raises(ValueError, match="too small"):
        hbm_accesses_flash(1024, 64, 100)


def test_input_validation_names_the_argument():
    x = np.zeros((4, 3))
    with pytest.raises(ValueError, match="block_q"):
        flash_attention_np(x, x, x, block_q=0)
    with pytest.raises(ValueError, match="align"):
        flash_attention_np(x, x, x, causal=True, align="top")
    with pytest.raises(ValueError, match="boolean"):
        flash_attention_np(x, x, x, allowed=np.ones((4, 4)))
    with pytest.raises(ValueError, match="share the last dim"):
        flash_attention_np(x, np.zeros((4, 2)), x)
    with pytest.raises(ValueError, match="n_chunks"):
        split_k_attention_np(x[:1], x, x, 0)
    with pytest.raises(ValueError, match="finite"):
        flash_attention_pt(torch.full((2, 3), float("nan")), torch.zeros(2, 3), torch.zeros(2, 3))


@pytest.mark.parametrize("N, P", [(1, 1), (50, 4), (37, 5), (12, 12), (64, 8), (10, 3)])
@pytest.mark.parametrize("causal", [False, True])
def test_ring_attention_equals_full(N, P, causal):
    """Ring attention over P shards (P need not divide N) equals full attention; 1e-12."""
    rng = np.random.default_rng(10)
    q, k, v = qkv(rng, 2, 3, N, N, 7, 4)
    counts = {}
    out, lse = ring_attention_np(q, k, v, P, causal, counts=counts)
    allowed = causal_mask_np(N) if causal else np.ones((N, N), bool)
    assert np.abs(out - reference(q, k, v, allowed)).max() < 1e-12
    assert np.abs(lse - flash_attention_np(q, k, v, causal=causal)[1]).max() < 1e-12
    assert counts["computed"] == (P * (P + 1) // 2 if causal else P * P)
    assert counts["computed"] + counts["skipped"] == P * P


def test_shards_partition_the_sequence():
    for N, P in [(50, 4), (7, 7), (100, 3), (5, 1)]:
        shards = shards_of(N, P)
        assert shards[0][0] == 0 and shards[-1][1] == N and len(shards) == P
        assert all(a[1] == b[0] for a, b in zip(shards, shards[1:]))
        assert [b - a for a, b in shards] == [len(c) for c in np.array_split(np.arange(N), P)]
    with pytest.raises(ValueError, match="P"):
        shards_of(5, 6)
    with pytest.raises(ValueError, match="L = S"):
        ring_attention_np(np.zeros((4, 2)), np.zeros((5, 2)), np.zeros((5, 2)), 2)


# ---------------------------------------------------------------- memory-efficient attention
from attnlab.flash_attention import memory_efficient_attention_pt, saved_bytes


@pytest.mark.parametrize("L,S,D,Dv,qc,kc", [(97, 130, 13, 11, 32, 48), (1, 70, 5, 3, 1, 16),
                                           (40, 1, 6, 6, 8, 8), (33, 33, 8, 8, 1024, 4096)])
def test_memory_efficient_attention_forward_and_gradients(L, S, D, Dv, qc, kc):
    g = torch.Generator().manual_seed(L + S)
    q = torch.randn(2, 3, L, D, generator=g, dtype=torch.float64, requires_grad=True)
    k = torch.randn(2, 3, S, D, generator=g, dtype=torch.float64, requires_grad=True)
    v = torch.randn(2, 3, S, Dv, generator=g, dtype=torch.float64, requires_grad=True)
    k_big = (3 * k).detach().requires_grad_()          # large scores: the max must matter
    for kk in (k, k_big):
        out = memory_efficient_attention_pt(q, kk, v, query_chunk=qc, key_chunk=kc)
        ref = torch.softmax(q @ kk.transpose(-2, -1) / math.sqrt(D), dim=-1) @ v
        assert (out - F.scaled_dot_product_attention(q, kk, v)).abs().max() < 1e-12
        d_out = torch.randn(out.shape, generator=g, dtype=torch.float64)
        want = torch.autograd.grad(ref, (q, kk, v), d_out)
        for t in (q, kk, v):
            t.grad = None
        out.backward(d_out)
        for t, w in zip((q, kk, v), want):
            assert (t.grad - w).abs().max() < 1e-12


def test_memory_efficient_attention_saves_linear_bytes_and_the_checkpoint_is_why():
    counts = {}
    for N in (128, 256, 512):
        q, k, v = (torch.randn(1, 2, N, 16, requires_grad=True) for _ in range(3))
        counts["me", N] = saved_bytes(memory_efficient_attention_pt, q, k, v)[0]
        counts["plain", N] = saved_bytes(memory_efficient_attention_pt, q, k, v,
                                         checkpointed=False)[0]
        with torch.no_grad():                              # nothing is saved without grad
            assert saved_bytes(memory_efficient_attention_pt, q, k, v)[0] == 0
    assert counts["me", 512] == 2 * counts["me", 256] == 4 * counts["me", 128]
    assert counts["me", 128] >= 3 * 4 * 2 * 128 * 16          # at least q, k, v
    assert counts["plain", 512] > 3.5 * counts["plain", 256]   # without it: N^2 saved
