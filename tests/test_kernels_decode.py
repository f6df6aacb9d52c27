"""Chapter 18, decode: the split-K decode kernel and its merge equal float64 SDPA and chapter 13's
split_k_attention_np on awkward sizes (MQA with empty splits, GQA, causal speculative queries,
fp16, bf16), the bad-input errors name the argument and the fix, and bench_gpu.py skips cleanly
without CUDA."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from nbcommon import missing_requirement  # noqa: E402

if missing_requirement("18_kernels.ipynb"):   # no Triton on this platform
    pytest.skip(missing_requirement("18_kernels.ipynb"), allow_module_level=True)

from attnlab.flash_attention import merge_partials_np, split_k_attention_np  # noqa: E402
from attnlab.kernels import decode_split_edges, flash_decode_triton           # noqa: E402
from attnlab.masks import causal_mask_np                                      # noqa: E402

torch.set_num_threads(1)
TOL = {torch.float32: 2e-5, torch.float16: 3e-3, torch.bfloat16: 2e-2}   # see section 5.5


def _inputs(B, H, Hkv, L, S, D, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(B, H, L, D, generator=g).to(dtype)
    k, v = (torch.randn(B, Hkv, S, D, generator=g).to(dtype) for _ in range(2))
    return q, k, v


def _sdpa64(q, k, v, causal):
    L, S = q.shape[-2], k.shape[-2]
    ok = torch.from_numpy(causal_mask_np(L, S, "bottom-right")) if causal else None
    return F.scaled_dot_product_attention(q.double(), k.double(), v.double(), attn_mask=ok,
                                          enable_gqa=True)


@pytest.mark.parametrize("B,H,Hkv,L,S,D,n,causal,dtype", [
    (1, 4, 1, 1, 100, 16, 8, False, torch.float32),     # MQA, last split empty
    (1, 2, 1, 1, 33, 16, 4, False, torch.float32),      # chunk 16: splits 3 and 4 empty
    (1, 8, 2, 1, 77, 64, 3, False, torch.float32),      # GQA 4, S prime, D = 64
    (1, 6, 3, 3, 50, 16, 4, True, torch.float32),       # causal speculative queries
    (1, 2, 2, 5, 5, 16, 1, True, torch.float32),        # L == S causal: the lower triangle
    (1, 4, 4, 1, 41, 64, 3, False, torch.float16),
    (1, 4, 2, 2, 29, 16, 2, True, torch.bfloat16),
])
def test_decode_matches_sdpa64_and_split_k_np(B, H, Hkv, L, S, D, n, causal, dtype):
    q, k, v = _inputs(B, H, Hkv, L, S, D, dtype, seed=S + n)
    out, lse, po, pl = flash_decode_triton(q, k, v, n, causal=causal, return_partials=True)
    assert out.dtype == dtype and out.shape == (B, H, L, D) and lse.shape == (B, H, L)
    assert (out.double() - _sdpa64(q, k, v, causal)).abs().max().item() <= TOL[dtype]
    ok = causal_mask_np(L, S, "bottom-right") if causal else None
    kn, vn = (np.repeat(t.double().numpy(), H // Hkv, 1) for t in (k, v))
    so, sl = split_k_attention_np(q.double().numpy(), kn, vn, n, ok)
    assert np.abs(lse.numpy() - sl).max() <= (2e-5 if dtype == torch.float32 else 1e-4)
    _, edges = decode_split_edges(S, n, 16)
    for c, (a, b) in enumerate(edges):                  # empty splits: lse -inf, output 0
        assert np.isneginf(pl[:, :, c].numpy()).all() == (a == b)
    mo, ml = merge_partials_np(np.moveaxis(po.numpy(), 2, 0), np.moveaxis(pl.numpy(), 2, 0))
    assert np.abs(out.double().numpy() - mo).max() <= TOL[dtype]
    assert np.abs(lse.numpy() - ml).max() <= 1e-5


def test_split_edges_cover_the_keys_once():
    for S, n, bn in [(100, 8, 16), (1, 1, 16), (77, 3, 16), (1000, 7, 64), (33, 33, 16)]:
        chunk, edges = decode_split_edges(S, n, bn)
        assert chunk % bn == 0 and len(edges) == n and edges[0][0] == 0 and edges[-1][1] == S
        assert all(a <= b and b == edges[c + 1][0] for c, (a, b) in enumerate(edges[:-1]))


@pytest.mark.parametrize("call,kind,words", [
    (lambda q, k: flash_decode_triton(q.double(), k.double(), k.double(), 2), TypeError,
     ["q", ".float()"]),
    (lambda q, k: flash_decode_triton(q, k.half(), k, 2), TypeError, ["share a dtype", "cast"]),
    (lambda q, k: flash_decode_triton(q, k.transpose(-1, -2).contiguous().transpose(-1, -2),
                                      k, 2), ValueError, ["k", "contiguous()"]),
    (lambda q, k: flash_decode_triton(torch.randn(1, 4, 1, 24), torch.randn(1, 2, 9, 24),
                                      torch.randn(1, 2, 9, 24), 2), ValueError,
     ["head size", "zero-pad", "32"]),
    (lambda q, k: flash_decode_triton(torch.randn(1, 3, 1, 16), k, k, 2), ValueError,
     ["H = 3", "Hkv = 2"]),
    (lambda q, k: flash_decode_triton(q, k, k, 10), ValueError, ["n_splits", "S = 9"]),
    (lambda q, k: flash_decode_triton(torch.randn(1, 4, 17, 16), k, k, 2), ValueError,
     ["L = 17", "forward kernel"]),
    (lambda q, k: flash_decode_triton(torch.randn(1, 4, 12, 16), k, k, 2, causal=True),
     ValueError, ["L <= S", "append"]),
    (lambda q, k: flash_decode_triton(q, k[:, :, :0], k[:, :, :0], 1), ValueError,
     ["lengths", "S = 0"]),
])
def test_bad_inputs_name_the_argument_and_the_fix(call, kind, words):
    q, k = torch.randn(1, 4, 1, 16), torch.randn(1, 2, 9, 16)
    with pytest.raises(kind) as e:
        call(q, k)
    assert all(w in str(e.value) for w in words), str(e.value)


def test_bench_gpu_skips_without_cuda():
    here = Path(__file__).resolve()
    script = next(p for p in (here.parents[1] / "benchmarks" / "bench_gpu.py",
                              here.with_name("bench_gpu.py")) if p.exists())
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}           # no GPU, even on a GPU machine
    run = subprocess.run([sys.executable, str(script), "--out", os.devnull], env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "skipped: no CUDA device"
