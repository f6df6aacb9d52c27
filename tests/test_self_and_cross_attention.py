"""attnlab.self_and_cross_attention against independent references.

References: F.scaled_dot_product_attention applied to q, k, v projected here in float64,
and nn.MultiheadAttention(num_heads=1) with copied weights. Tolerances: 1e-12 when
everything is float64, 2e-6 when the module runs in float32.
"""
import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from attnlab.self_and_cross_attention import (CrossAttention, SelfAttention, cross_attention_np,
                                              load_weights_np, self_attention_np)

SIZES = [  # (B, L, S, E_q, E_kv, D, Dv): L != S, odd dims, Dv != D, single query / key
    (1, 1, 1, 1, 1, 1, 1),
    (2, 5, 7, 3, 11, 4, 9),
    (3, 17, 4, 8, 5, 7, 2),
    (2, 1, 33, 16, 6, 5, 5),
]


def projections(rng, E_q, E_kv, D, Dv):
    return (rng.normal(size=(E_q, D)) / np.sqrt(E_q), rng.normal(size=(E_kv, D)) / np.sqrt(E_kv),
            rng.normal(size=(E_kv, Dv)) / np.sqrt(E_kv))


def builtin(x_q, x_kv, W_q, W_k, W_v, allowed=None, is_causal=False):
    """Float64 reference: project here, then PyTorch's fused attention."""
    t = lambda a: torch.as_tensor(np.asarray(a, dtype=np.float64))  # noqa: E731
    mask = None if allowed is None else torch.as_tensor(allowed)
    return F.scaled_dot_product_attention(t(x_q) @ t(W_q), t(x_kv) @ t(W_k), t(x_kv) @ t(W_v),
                                          attn_mask=mask, is_causal=is_causal).numpy()


def padding(lengths, S):
    return np.arange(S)[None, None, :] < np.asarray(lengths)[:, None, None]   # (B, 1, S)


@pytest.mark.parametrize("size", SIZES, ids=str)
def test_cross_attention_np_matches_builtin(size):
    B, L, S, E_q, E_kv, D, Dv = size
    rng = np.random.default_rng(sum(size))
    x_q, x_kv = rng.normal(size=(B, L, E_q)), rng.normal(size=(B, S, E_kv))
    W = projections(rng, E_q, E_kv, D, Dv)
    allowed = padding(rng.integers(1, S + 1, size=B), S)
    out, weights = cross_attention_np(x_q, x_kv, *W, allowed=allowed)
    assert out.shape == (B, L, Dv) and weights.shape == (B, L, S)
    np.testing.assert_allclose(out, builtin(x_q, x_kv, *W, allowed=allowed), rtol=0, atol=1e-12)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-12)
    assert (weights[~np.broadcast_to(allowed, weights.shape)] == 0).all()


@pytest.mark.parametrize("size", SIZES, ids=str)
def test_self_attention_np_matches_builtin_causal(size):
    B, L, _, E, _, D, Dv = size
    rng = np.random.default_rng(100 + sum(size))
    x = rng.normal(size=(B, L, E))
    W = projections(rng, E, E, D, Dv)
    causal = np.tril(np.ones((L, L), dtype=bool))
    out, weights = self_attention_np(x, *W, allowed=causal)
    assert out.shape == (B, L, Dv) and weights.shape == (B, L, L)
    np.testing.assert_allclose(out, builtin(x, x, *W, is_causal=True), rtol=0, atol=1e-12)
    np.testing.assert_allclose(self_attention_np(x, *W)[0], builtin(x, x, *W), rtol=0, atol=1e-12)


@pytest.mark.parametrize("size", SIZES, ids=str)
def test_modules_float32_match_float64_reference(size):
    B, L, S, E_q, E_kv, D, Dv = size
    rng = np.random.default_rng(200 + sum(size))
    x_q, x_kv = rng.normal(size=(B, L, E_q)), rng.normal(size=(B, S, E_kv))
    W = projections(rng, E_q, E_kv, D, Dv)
    allowed = padding(rng.integers(1, S + 1, size=B), S)
    layer = load_weights_np(CrossAttention(E_q, E_kv, D, Dv), *W)
    with torch.no_grad():
        out, weights = layer(torch.tensor(x_q, dtype=torch.float32),
                             torch.tensor(x_kv, dtype=torch.float32), torch.from_numpy(allowed))
    assert tuple(out.shape) == (B, L, Dv) and tuple(weights.shape) == (B, L, S)
    np.testing.assert_allclose(out.double().numpy(), builtin(x_q, x_kv, *W, allowed=allowed),
                               rtol=0, atol=2e-6)

    Ws = projections(rng, E_q, E_q, D, Dv)
    sa = load_weights_np(SelfAttention(E_q, D, Dv), *Ws)
    with torch.no_grad():
        out_sa, w_sa = sa(torch.tensor(x_q, dtype=torch.float32))
    assert tuple(w_sa.shape) == (B, L, L)
    np.testing.assert_allclose(out_sa.double().numpy(), builtin(x_q, x_q, *Ws), rtol=0, atol=2e-6)


def test_modules_match_multihead_attention_one_head():
    rng = np.random.default_rng(7)
    B, L, S, E = 3, 4, 6, 5
    x_q, x_kv = rng.normal(size=(B, L, E)), rng.normal(size=(B, S, E))
    lengths = np.array([6, 2, 4])
    torch.manual_seed(0)
    layer = CrossAttention(E, E, E).double()
    mha = nn.MultiheadAttention(E, 1, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([layer.W_q.weight, layer.W_k.weight, layer.W_v.weight]))
        mha.out_proj.weight.copy_(torch.eye(E, dtype=torch.float64))
        xq, xkv = torch.from_numpy(x_q), torch.from_numpy(x_kv)
        allowed = torch.from_numpy(padding(lengths, S))
        ours, w_ours = layer(xq, xkv, allowed)
        theirs, w_theirs = mha(xq, xkv, xkv, key_padding_mask=~allowed[:, 0])
    torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-12)
    torch.testing.assert_close(w_ours, w_theirs, rtol=0, atol=1e-12)


def test_permutation_equivariance_and_source_invariance():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(9, 6))
    W = projections(rng, 6, 6, 4, 3)
    perm = rng.permutation(9)
    np.testing.assert_allclose(self_attention_np(x[perm], *W)[0], self_attention_np(x, *W)[0][perm],
                               rtol=0, atol=1e-12)
    causal = np.tril(np.ones((9, 9), dtype=bool))
    assert np.abs(self_attention_np(x[perm], *W, allowed=causal)[0]
                  - self_attention_np(x, *W, allowed=causal)[0][perm]).max() > 1e-3
    y = rng.normal(size=(4, 5))
    Wc = projections(rng, 5, 6, 4, 3)
    np.testing.assert_allclose(cross_attention_np(y, x[perm], *Wc)[0], cross_attention_np(y, x, *Wc)[0],
                               rtol=0, atol=1e-12)


def test_gradients_flow():
    torch.manual_seed(1)
    layer = CrossAttention(4, 3, 2, 5).double()
    x_q = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
    x_kv = torch.randn(2, 5, 3, dtype=torch.float64, requires_grad=True)
    allowed = torch.from_numpy(padding([5, 2], 5))
    assert torch.autograd.gradcheck(lambda a, b: layer(a, b, allowed)[0], (x_q, x_kv))


# ---- bad input: ValueError naming the shapes -------------------------------------------------

def test_self_attention_rejects_wrong_projection_rows():
    with pytest.raises(ValueError, match=r"x \(2, 5, 8\).*W_q \(6, 3\)"):
        self_attention_np(np.zeros((2, 5, 8)), np.zeros((6, 3)), np.zeros((8, 3)), np.zeros((8, 4)))


def test_self_attention_rejects_mismatched_D():
    with pytest.raises(ValueError, match=r"W_q \(8, 3\), W_k \(8, 4\)"):
        self_attention_np(np.zeros((5, 8)), np.zeros((8, 3)), np.zeros((8, 4)), np.zeros((8, 4)))


def test_cross_attention_rejects_decoder_width_for_keys():
    with pytest.raises(ValueError, match=r"x_q \(2, 4, 8\), x_kv \(2, 5, 6\).*W_k \(8, 3\)"):
        cross_attention_np(np.zeros((2, 4, 8)), np.zeros((2, 5, 6)),
                           np.zeros((8, 3)), np.zeros((8, 3)), np.zeros((8, 7)))


def test_cross_attention_rejects_1d_input_and_3d_projection():
    with pytest.raises(ValueError, match=r"x_q \(8,\)"):
        cross_attention_np(np.zeros(8), np.zeros((5, 6)), np.zeros((8, 3)), np.zeros((6, 3)),
                           np.zeros((6, 2)))
    with pytest.raises(ValueError, match=r"W_v \(1, 6, 2\)"):
        cross_attention_np(np.zeros((4, 8)), np.zeros((5, 6)), np.zeros((8, 3)), np.zeros((6, 3)),
                           np.zeros((1, 6, 2)))


def test_four_dim_padding_mask_on_three_dim_scores_is_rejected():
    mask = np.ones((2, 1, 1, 5), dtype=bool)                  # would broadcast to (2, 2, 4, 5)
    with pytest.raises(ValueError, match=r"\(2, 1, 1, 5\).*\(2, 4, 5\)"):
        cross_attention_np(np.zeros((2, 4, 8)), np.zeros((2, 5, 6)), np.zeros((8, 3)),
                           np.zeros((6, 3)), np.zeros((6, 2)), allowed=mask)


def test_non_finite_input_is_rejected_not_nan():
    x = np.zeros((3, 4)); x[1, 2] = np.nan
    with pytest.raises(ValueError, match="finite"):
        self_attention_np(x, np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 2)))


def test_modules_reject_wrong_widths():
    with pytest.raises(ValueError, match=r"x_q \(2, 3, 5\), x_kv \(2, 4, 6\)"):
        CrossAttention(E_q=4, E_kv=6, D=2)(torch.zeros(2, 3, 5), torch.zeros(2, 4, 6))
    with pytest.raises(ValueError, match=r"x_q \(2, 3, 7\)"):
        SelfAttention(E=8, D=2)(torch.zeros(2, 3, 7))


def test_load_weights_rejects_untransposed_matrix():
    with pytest.raises(ValueError, match=r"W_q has shape \(3, 8\).*\(8, 3\)"):
        load_weights_np(SelfAttention(8, 3), np.zeros((3, 8)), np.zeros((8, 3)), np.zeros((8, 3)))


# ---- second edition: every error names the argument and the fix ----------------------------

@pytest.mark.parametrize("bad", ["x", "W_q", "W_k", "W_v"])
def test_self_attention_names_the_non_finite_argument(bad):
    args = {"x": np.ones((3, 4)), "W_q": np.ones((4, 2)), "W_k": np.ones((4, 2)),
            "W_v": np.ones((4, 2))}
    args[bad] = args[bad].copy()
    args[bad].flat[0] = np.inf
    with pytest.raises(ValueError, match=rf"found inf or NaN in {bad}\b"):
        self_attention_np(**args)


@pytest.mark.parametrize("bad", ["x_q", "x_kv"])
def test_cross_attention_names_the_non_finite_input(bad):
    args = {"x_q": np.ones((3, 4)), "x_kv": np.ones((5, 6)), "W_q": np.ones((4, 2)),
            "W_k": np.ones((6, 2)), "W_v": np.ones((6, 2))}
    args[bad] = args[bad].copy()
    args[bad][0, 0] = np.nan
    with pytest.raises(ValueError, match=rf"found inf or NaN in {bad}\b"):
        cross_attention_np(**args)


def test_non_numeric_input_names_the_argument_and_the_fix():
    with pytest.raises(ValueError, match=r"W_k must be an array of numbers.*\.numpy\(\)"):
        self_attention_np(np.ones((3, 4)), np.ones((4, 2)), "W_k", np.ones((4, 2)))


@pytest.mark.parametrize("scale", [0.0, -1.0, np.inf, "0.5"])
def test_bad_scale_is_rejected(scale):
    with pytest.raises(ValueError, match="scale must be a positive finite number"):
        self_attention_np(np.ones((3, 4)), np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 2)),
                          scale=scale)


def test_mask_mistakes_get_the_fix():
    x = np.ones((2, 3, 4))
    W = np.ones((4, 2))
    with pytest.raises(ValueError, match=r"allowed must be boolean.*mask == 0"):
        self_attention_np(x, W, W, W, allowed=np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"pass allowed\[:, 0\]"):
        self_attention_np(x, W, W, W, allowed=np.ones((2, 1, 1, 3), dtype=bool))
    with pytest.raises(ValueError, match=r"pass allowed\[:, 0\]"):
        SelfAttention(4, 2)(torch.ones(2, 3, 4), allowed=torch.ones(2, 1, 1, 3, dtype=torch.bool))


def test_module_input_type_and_dtype_errors():
    layer = CrossAttention(4, 6, 2)
    with pytest.raises(TypeError, match=r"x_q must be a torch.Tensor.*torch.as_tensor"):
        layer(np.ones((1, 3, 4)), torch.ones(1, 5, 6))
    with pytest.raises(TypeError, match=r"x_kv has dtype torch.float64.*torch.float32"):
        layer(torch.ones(1, 3, 4), torch.ones(1, 5, 6, dtype=torch.float64))
    bad = torch.ones(1, 5, 6)
    bad[0, 0, 0] = float("nan")
    with pytest.raises(ValueError, match="found inf or NaN in x_kv"):
        layer(torch.ones(1, 3, 4), bad)


@pytest.mark.parametrize("kwargs", [{"E_q": 0, "E_kv": 4, "D": 2}, {"E_q": 4, "E_kv": 4, "D": 2.0},
                                    {"E_q": 4, "E_kv": 4, "D": 2, "Dv": -1}])
def test_module_rejects_bad_sizes(kwargs):
    with pytest.raises(ValueError, match="must be a positive int"):
        CrossAttention(**kwargs)


def test_load_weights_rejects_a_foreign_module_and_nan():
    with pytest.raises(TypeError, match="module must be a SelfAttention or CrossAttention"):
        load_weights_np(nn.MultiheadAttention(4, 1), np.zeros((4, 4)), np.zeros((4, 4)),
                        np.zeros((4, 4)))
    W = np.zeros((8, 3))
    W_nan = W.copy()
    W_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="found inf or NaN in W_v"):
        load_weights_np(SelfAttention(8, 3), W, W, W_nan)
