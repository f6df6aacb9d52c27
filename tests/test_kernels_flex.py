"""Chapter 18, FlexAttention (eager, tiny sizes): every mod equals the book's dense reference,
the BlockMask's tiles equal chapter 13's and the classifier's, bad inputs name the fix."""
import pytest

from nbcommon import missing_requirement  # noqa: E402

if missing_requirement("18_kernels.ipynb"):   # no Triton on this platform
    pytest.skip(missing_requirement("18_kernels.ipynb"), allow_module_level=True)

import math

import numpy as np
import torch

from attnlab.kernels import (block_classes_np, document_causal_allowed_np, document_ids_np,
                             flex_alibi_mod, flex_attention_checked, flex_block_counts,
                             flex_block_mask, flex_causal_mod, flex_document_mod,
                             flex_prefix_lm_mod, flex_softcap_mod, flex_t5_bucket_pt,
                             flex_t5_mod, flex_window_mod, prefix_lm_allowed_np)
from attnlab.flash_attention import flash_attention_np
from attnlab.masks import causal_mask_np, masked_softmax_np
from attnlab.open_models import softcap_np
from attnlab.positional_encoding import alibi_bias_np, t5_relative_bucket_np
from attnlab.subquadratic_attention import sliding_window_mask_np


def qkv(B, H, Hkv, L, S, D, seed):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(B, H, L, D, generator=g, dtype=torch.float64)
    k, v = (torch.randn(B, Hkv, S, D, generator=g, dtype=torch.float64) for _ in range(2))
    return q, k, v


def dense(q, k, v, allowed, bias=None, cap=None):
    q, k, v = (t.numpy() for t in (q, k, v))
    idx = np.arange(q.shape[1]) // (q.shape[1] // k.shape[1])
    scores = q @ k[:, idx].swapaxes(-2, -1) / math.sqrt(q.shape[-1])
    scores = softcap_np(scores, cap) if cap is not None else scores
    scores = scores + bias if bias is not None else scores
    return masked_softmax_np(scores, allowed) @ v[:, idx]


def run(q, k, v, mask_mod=None, score_mod=None, block=16, dtype=torch.float64):
    B, H, L, _ = q.shape
    bm = None if mask_mod is None else flex_block_mask(mask_mod, B, H, L, k.shape[2], block)
    out = flex_attention_checked(q.to(dtype), k.to(dtype), v.to(dtype), score_mod, bm,
                                 enable_gqa=k.shape[1] != H)
    return out.double().numpy()


@pytest.mark.parametrize("L, S, align, Hkv", [(21, 13, "top-left", 2), (13, 21, "bottom-right", 1)])
def test_causal(L, S, align, Hkv):
    q, k, v = qkv(2, 4, Hkv, L, S, 16, L + S)
    ref = dense(q, k, v, causal_mask_np(L, S, align))
    assert np.abs(run(q, k, v, flex_causal_mod(L, S, align)) - ref).max() <= 1e-12
    out32 = run(q, k, v, flex_causal_mod(L, S, align), dtype=torch.float32)
    assert np.abs(out32 - ref).max() <= 1e-5       # float32 rounding over <= 21 keys


@pytest.mark.parametrize("L, S, W", [(21, 21, 5), (9, 30, 1)])
def test_window(L, S, W):
    q, k, v = qkv(1, 2, 2, L, S, 16, W)
    ref = dense(q, k, v, sliding_window_mask_np(S, W)[S - L:])
    assert np.abs(run(q, k, v, flex_window_mod(L, S, W)) - ref).max() <= 1e-12


def test_score_mods():
    q, k, v = qkv(1, 6, 2, 13, 21, 16, 1)
    allowed = causal_mask_np(13, 21, "bottom-right")
    out = run(q, k, v, flex_causal_mod(13, 21, "bottom-right"),
              flex_alibi_mod(6, 13, 21, torch.float64))
    assert np.abs(out - dense(q, k, v, allowed, alibi_bias_np(6, 13, 21))).max() <= 1e-12
    out = run(q * 4, k, v, flex_causal_mod(13, 21), flex_softcap_mod(3.0))
    assert np.abs(out - dense(q * 4, k, v, causal_mask_np(13, 21), cap=3.0)).max() <= 1e-12
    table = np.random.default_rng(0).normal(size=(6, 32))
    rel = np.arange(21)[None] - np.arange(13)[:, None]
    out = run(q, k, v, score_mod=flex_t5_mod(table, True, dtype=torch.float64))
    ref = dense(q, k, v, np.ones((13, 21), bool), table[:, t5_relative_bucket_np(rel)])
    assert np.abs(out - ref).max() <= 1e-12
    r = np.arange(-500, 501)
    for bidir in (True, False):
        assert np.array_equal(flex_t5_bucket_pt(torch.as_tensor(r), bidir).numpy(),
                              t5_relative_bucket_np(r, bidir))


def test_prefix_and_documents():
    q, k, v = qkv(2, 2, 2, 24, 24, 16, 3)
    prefix = np.array([7, 0])
    ref = dense(q, k, v, prefix_lm_allowed_np(24, prefix)[:, None])
    assert np.abs(run(q, k, v, flex_prefix_lm_mod(prefix)) - ref).max() <= 1e-12
    ids = document_ids_np([[5, 9, 1, 6], [17]], 24)
    ref = dense(q, k, v, document_causal_allowed_np(ids)[:, None])
    out = run(q, k, v, flex_document_mod(ids))
    assert np.abs(out - ref).max() <= 1e-12
    assert (out[1, :, 17:] == 0).all()                 # padding queries: zero output


@pytest.mark.parametrize("L, S, bq, bk", [(37, 23, 16, 16), (23, 37, 16, 8), (40, 40, 8, 16)])
def test_block_counts(L, S, bq, bk):
    rng = np.random.default_rng(0)
    q1, k1 = rng.normal(size=(L, 4)), rng.normal(size=(S, 4))
    for align in ("top-left", "bottom-right"):
        c13 = {}
        flash_attention_np(q1, k1, k1, causal=True, align=align, block_q=bq, block_k=bk,
                           counts=c13)
        c = flex_block_counts(flex_block_mask(flex_causal_mod(L, S, align), 1, 1, L, S, (bq, bk)))
        cls = block_classes_np(causal_mask_np(L, S, align), bq, bk)
        assert (c["computed"], c["skipped"]) == (c13["computed"], c13["skipped"])
        assert (c["computed"], c["full"]) == ((cls > 0).sum(), (cls == 2).sum())
    ids = document_ids_np([[9, 14, 3], [30]], L)[:, :L] if L >= 30 else None
    if ids is not None:
        c = flex_block_counts(flex_block_mask(flex_document_mod(ids), 2, None, L, L, (bq, bq)))
        cls = block_classes_np(document_causal_allowed_np(ids), bq, bq)
        assert (c["computed"], c["full"], c["total"]) == ((cls > 0).sum(), (cls == 2).sum(),
                                                          cls.size)


def test_classifier_ragged():
    cls = block_classes_np(np.ones((5, 5), bool), 2, 2)
    assert cls.tolist() == [[2, 2, 1], [2, 2, 1], [1, 1, 1]]


@pytest.mark.parametrize("what, call, words", [
    ("gqa", lambda q, k: flex_attention_checked(q, k, k), "enable_gqa=True"),
    ("3-D", lambda q, k: flex_attention_checked(q[0], k, k), "q[None, None]"),
    ("dtype", lambda q, k: flex_attention_checked(q.float(), k, k, enable_gqa=True), "q.dtype"),
    ("lengths", lambda q, k: flex_attention_checked(
        q, k, k, block_mask=flex_block_mask(flex_causal_mod(9, 9), 1, 1, 9, 9, 16),
        enable_gqa=True), "rebuild"),
    ("device", lambda q, k: flex_attention_checked(
        q, k, k, block_mask=flex_block_mask(flex_causal_mod(8, 8), 1, 1, 8, 8, 16).to("meta"),
        enable_gqa=True), "device='cpu'"),
    ("int mask", lambda q, k: flex_block_mask(lambda b, h, i, j: (j <= i).int(), 1, 1, 8, 8),
     "bool tensor"),
    ("window", lambda q, k: flex_window_mod(8, 8, 0), "positive integer"),
    ("cap", lambda q, k: flex_softcap_mod(0.0), "cap"),
    ("doc lengths", lambda q, k: document_ids_np([[5, 5]], 8), "raise L"),
    ("classifier", lambda q, k: block_classes_np(np.zeros((4, 4)), 2, 2), "bool array"),
])
def test_bad_inputs(what, call, words):
    q, k, _ = qkv(1, 4, 2, 8, 8, 16, 0)
    with pytest.raises((TypeError, ValueError), match=None) as e:
        call(q, k)
    assert words in str(e.value), (what, str(e.value))
