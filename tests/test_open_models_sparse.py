"""Chapter 17, sparse selection (MoBA, NSA): loops and gathers equal the dense masked reference.

No transformers module computes MoBA or NSA (5.24), so the reference is dense masked
attention with unchosen blocks at -inf, the blocks picked by a separately written ranking."""
import numpy as np
import pytest
import torch

from attnlab.open_models import (check_sparse_args, moba_np, moba_pt, moba_reference_np, nsa_np,
                                 nsa_pt, nsa_reference_np, sparse_n_blocks)

CONFIGS = [  # H, Hkv, D, S, L, block_size, top_k, window, n_local
    (6, 2, 5, 45, 17, 8, 4, 6, 2),      # GQA, partial last block, cached prefix of 28
    (4, 4, 3, 30, 30, 4, 3, 5, 2),      # MHA, L = S, last block of 2
    (3, 1, 7, 33, 1, 5, 5, 9, 3),       # MQA, one decoded query, n_local = 3
    (2, 1, 4, 16, 16, 16, 1, 3, 1),     # a single block
    (2, 2, 2, 11, 6, 1, 4, 2, 2),       # blocks of one token
]


def _data(H, Hkv, D, S, L, bs, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((H, L, D)) * 1.5
    k, v = rng.standard_normal((2, Hkv, S, D))
    wk, wv = rng.standard_normal((2, Hkv, bs))
    gl = rng.standard_normal((H, L, 3))
    return q, k, v, wk, wv, gl


@pytest.mark.parametrize("cfg", CONFIGS)
def test_moba_equals_dense_masked(cfg):
    H, Hkv, D, S, L, bs, top_k, _, _ = cfg
    q, k, v, *_ = _data(H, Hkv, D, S, L, bs)
    ref, sel = moba_reference_np(q, k, v, bs, top_k)
    out, sel_np, read = moba_np(q, k, v, bs, top_k)
    out_t, sel_t = moba_pt(*map(torch.tensor, (q, k, v)), bs, top_k)
    assert (sel_np == sel).all() and (sel_t.numpy() == sel).all()
    assert np.abs(out - ref).max() <= 1e-12 and np.abs(out_t.numpy() - ref).max() <= 1e-12
    t = np.arange(S - L, S)
    assert (read["blocks"] == np.minimum(top_k, t // bs + 1)).all()
    assert (read["blocks"] == sel.sum(-1)).all()


@pytest.mark.parametrize("cfg", CONFIGS)
def test_nsa_equals_dense_masked_with_gradients(cfg):
    H, Hkv, D, S, L, bs, top_k, window, n_local = cfg
    top_k = max(top_k, min(1 + n_local, sparse_n_blocks(S, bs)))
    args = _data(H, Hkv, D, S, L, bs, seed=1)
    ref, masks = nsa_reference_np(*args, bs, top_k, window, n_local)
    out, sel, read = nsa_np(*args, bs, top_k, window, n_local)
    targs = [torch.tensor(a, requires_grad=True) for a in args]
    out_t, sel_t = nsa_pt(*targs, bs, top_k, window, n_local)
    assert (sel == masks["sel"]).all() and (sel_t.numpy() == masks["sel"]).all()
    assert np.abs(out - ref).max() <= 1e-12
    assert np.abs(out_t.detach().numpy() - ref).max() <= 1e-12
    assert (read["win"] == masks["m_win"][None].sum(-1)).all()
    # gradients of the gather == gradients of the dense masked form (same blocks chosen)
    from attnlab.masks import masked_sdpa_pt
    R = torch.tensor(np.random.default_rng(2).standard_normal(out.shape))
    g_gather = torch.autograd.grad((out_t * R).sum(), targs)
    a2 = [torch.tensor(a, requires_grad=True) for a in args]
    rep = H // Hkv
    ncb = S // bs
    comp = [torch.einsum("gjid,gi->gjd", x[:, :ncb * bs].reshape(Hkv, ncb, bs, D), w)
            for x, w in ((a2[1], a2[3]), (a2[2], a2[4]))]
    M = {n: torch.tensor(np.ascontiguousarray(np.broadcast_to(m, m.shape)))
         for n, m in masks.items() if n != "sel"}
    dense = sum(torch.sigmoid(a2[5][..., i:i + 1]) * masked_sdpa_pt(
        a2[0], kk.repeat_interleave(rep, 0), vv.repeat_interleave(rep, 0), M[m])[0]
        for i, (kk, vv, m) in enumerate(((*comp, "m_cmp"), (a2[1], a2[2], "m_slc"),
                                         (a2[1], a2[2], "m_win"))))
    for x, y in zip(g_gather, torch.autograd.grad((dense * R).sum(), a2)):
        assert (x - y).abs().max() <= 1e-12


def test_all_blocks_is_full_causal_attention():
    from attnlab.masks import causal_mask_np, masked_sdpa_np
    q, k, v, wk, wv, _ = _data(6, 2, 5, 45, 17, 8)
    full = masked_sdpa_np(q, np.repeat(k, 3, 0), np.repeat(v, 3, 0),
                          causal_mask_np(17, 45, "bottom-right"))[0]
    gates = np.tile([-60.0, 60.0, -60.0], (6, 17, 1))
    assert np.abs(nsa_np(q, k, v, wk, wv, gates, 8, 6, 4)[0] - full).max() <= 1e-12
    assert np.abs(moba_np(q, k, v, 8, 6)[0] - full).max() <= 1e-12


@pytest.mark.parametrize("fn", [moba_np, moba_pt, moba_reference_np])
def test_bad_top_k_and_block_size(fn):
    conv = torch.tensor if fn is moba_pt else np.asarray
    q, k, v, *_ = map(conv, _data(2, 1, 3, 20, 5, 8))
    with pytest.raises(ValueError, match=r"top_k=4 is larger .* = 3; use top_k <= 3"):
        fn(q, k, v, 8, 4)
    with pytest.raises(ValueError, match=r"block_size=0 must be an integer >= 1"):
        fn(q, k, v, 0, 1)


def test_nsa_top_k_below_forced_blocks():
    args = _data(2, 1, 3, 40, 5, 8)
    for fn, a in ((nsa_np, args), (nsa_pt, [torch.tensor(x) for x in args]),
                  (nsa_reference_np, args)):
        with pytest.raises(ValueError, match=r"top_k=2 is smaller than the 3 blocks.*"
                                             r"raise top_k to >= 3 or lower n_local"):
            fn(*a, 8, 2, 4)


def test_shapes_checked():
    with pytest.raises(ValueError, match="H a multiple of Hkv"):
        check_sparse_args(np.zeros((3, 2, 4)), np.zeros((2, 5, 4)), 2, 1)
