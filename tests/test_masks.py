"""attnlab.masks against independent references (tolerances stated per test)."""
import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention.bias import causal_lower_right

from attnlab.masks import (causal_mask_np, causal_mask_pt, masked_sdpa_np, masked_sdpa_pt,
                           masked_softmax_np, masked_softmax_pt, padding_mask_np, padding_mask_pt)

# (B, H, L, S, D, Dv): awkward on purpose: L != S both ways, odd D, Dv != D, single query/key
SHAPES = [(1, 1, 1, 1, 1, 1), (2, 3, 5, 7, 11, 13), (3, 2, 9, 4, 3, 6), (1, 4, 33, 65, 17, 8)]


def reference_masked_attention(q, k, v, allowed, scale):
    """Independent float64 reference: explicit loops over batch, head and query rows.

    Each row keeps only its allowed keys, with an ordinary softmax over them; a row with
    none gives a zero output (the book's convention)."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    allowed = np.broadcast_to(allowed, q.shape[:-1] + (k.shape[-2],))
    out = np.zeros(q.shape[:-1] + (v.shape[-1],))
    for idx in np.ndindex(*q.shape[:-1]):                 # (..., i): one query row
        keys = np.flatnonzero(allowed[idx])
        if keys.size == 0:
            continue
        s = np.array([q[idx] @ k[idx[:-1]][j] * scale for j in keys])
        w = np.exp(s - s.max())
        out[idx] = (w / w.sum()) @ v[idx[:-1]][keys]
    return out


def random_mask(rng, B, L, S, empty_rows=False):
    """Padding & causal (random alignment) & holes; key 0 kept unless empty rows are wanted."""
    lengths = rng.integers(0 if empty_rows else 1, S + 1, size=B)
    align = "bottom-right" if (L <= S and rng.random() < 0.5) or empty_rows else "top-left"
    holes = rng.random((B, 1, L, S)) < 0.7
    if not empty_rows:
        holes[..., 0] = True
    return padding_mask_np(lengths, S) & causal_mask_np(L, S, align) & holes


def test_padding_mask_by_hand_and_torch_twin():
    want = np.array([[1, 1, 1, 0], [0, 0, 0, 0], [1, 1, 1, 1]], dtype=bool)
    got = padding_mask_np([3, 0, 4], 4)
    assert got.shape == (3, 1, 1, 4) and got.dtype == bool
    assert (got[:, 0, 0] == want).all()
    got_pt = padding_mask_pt(torch.tensor([3, 0, 4]), 4)
    assert got_pt.dtype == torch.bool and (got_pt.numpy() == got).all()


@pytest.mark.parametrize("L,S", [(1, 1), (4, 4), (3, 7), (7, 3), (1, 9)])
def test_causal_masks_match_torch_formulas(L, S):
    top_left = torch.ones(L, S).tril().bool().numpy()
    bottom_right = torch.ones(L, S).tril(diagonal=S - L).bool().numpy()
    assert (causal_mask_np(L, S) == top_left).all()
    assert (causal_mask_np(L, S, "bottom-right") == bottom_right).all()
    assert (causal_mask_pt(L, S).numpy() == top_left).all()
    assert (causal_mask_pt(L, S, "bottom-right").numpy() == bottom_right).all()


# torch warns that causal_lower_right "will produce NaNs" when L > S; the 2.13 CPU build returns
# zeros for those empty rows (asserted below), so the warning is expected and silenced here.
@pytest.mark.filterwarnings("ignore:Lower right causal bias will produce NaNs")
@pytest.mark.parametrize("L,S", [(3, 7), (7, 3), (5, 5), (1, 9)])
def test_top_left_is_sdpa_is_causal_and_bottom_right_is_causal_lower_right(L, S):
    """float32 outputs against the fused built-ins: within 2e-6."""
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 3, L, 8), torch.randn(2, 3, S, 8), torch.randn(2, 3, S, 5)
    torch.testing.assert_close(masked_sdpa_pt(q, k, v, causal_mask_pt(L, S))[0],
                               F.scaled_dot_product_attention(q, k, v, is_causal=True), atol=2e-6, rtol=0)
    torch.testing.assert_close(masked_sdpa_pt(q, k, v, causal_mask_pt(L, S, "bottom-right"))[0],
                               F.scaled_dot_product_attention(q, k, v, attn_mask=causal_lower_right(L, S)),
                               atol=2e-6, rtol=0)
    if L > S:   # the first L - S queries have no key: zeros from both, not NaN
        assert (F.scaled_dot_product_attention(q, k, v, attn_mask=causal_lower_right(L, S))[..., :L - S, :] == 0).all()


@pytest.mark.parametrize("shape", SHAPES)
def test_numpy_matches_loop_reference_with_empty_rows(shape):
    B, H, L, S, D, Dv = shape
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(B, H, L, D)), rng.normal(size=(B, H, S, D)), rng.normal(size=(B, H, S, Dv))
    m = random_mask(rng, B, L, S, empty_rows=True)
    out, w = masked_sdpa_np(q, k, v, m)
    np.testing.assert_allclose(out, reference_masked_attention(q, k, v, m, D ** -0.5), atol=1e-12)
    mb = np.broadcast_to(m, w.shape)
    assert (w[~mb] == 0).all()
    rows = mb.any(-1)
    np.testing.assert_allclose(w.sum(-1)[rows], 1.0, atol=1e-12)
    assert (w.sum(-1)[~rows] == 0).all() and (out[~rows] == 0).all()


@pytest.mark.parametrize("shape", SHAPES)
def test_float32_torch_and_builtin_match_float64(shape):
    """Rows that are not fully masked; float32 against the float64 reference: within 2e-6."""
    B, H, L, S, D, Dv = shape
    rng = np.random.default_rng(2)
    torch.manual_seed(2)
    q, k, v = torch.randn(B, H, L, D), torch.randn(B, H, S, D), torch.randn(B, H, S, Dv)
    m = random_mask(rng, B, L, S)
    assert m.any(-1).all()
    ref = reference_masked_attention(q.numpy(), k.numpy(), v.numpy(), m, D ** -0.5)
    mt = torch.from_numpy(m)
    np.testing.assert_allclose(masked_sdpa_pt(q, k, v, mt)[0].numpy(), ref, atol=2e-6)
    np.testing.assert_allclose(F.scaled_dot_product_attention(q, k, v, attn_mask=mt).numpy(), ref, atol=2e-6)
    np.testing.assert_allclose(masked_sdpa_np(q.numpy(), k.numpy(), v.numpy(), m)[0], ref, atol=1e-12)


def test_fully_masked_rows_give_zeros_like_sdpa_and_finite_gradients():
    torch.manual_seed(3)
    args = [torch.randn(3, 2, 4, 5, dtype=torch.float64, requires_grad=True),
            torch.randn(3, 2, 6, 5, dtype=torch.float64, requires_grad=True),
            torch.randn(3, 2, 6, 3, dtype=torch.float64, requires_grad=True)]
    m = padding_mask_pt([6, 2, 0], 6) & causal_mask_pt(4, 6, "bottom-right")
    out, w = masked_sdpa_pt(*args, m)
    assert (out[2] == 0).all() and (w[2] == 0).all()
    torch.testing.assert_close(out, F.scaled_dot_product_attention(*args, attn_mask=m), atol=1e-12, rtol=0)
    g = torch.randn_like(out)
    mine = torch.autograd.grad((out * g).sum(), args)
    theirs = torch.autograd.grad((F.scaled_dot_product_attention(*args, attn_mask=m) * g).sum(), args)
    for a, b in zip(mine, theirs):
        assert torch.isfinite(a).all()
        torch.testing.assert_close(a, b, atol=1e-12, rtol=0)
    assert torch.autograd.gradcheck(lambda *a: masked_sdpa_pt(*a, m)[0], tuple(args))


def test_masked_softmax_twins_agree_with_torch_softmax_nan_to_zero():
    rng = np.random.default_rng(4)
    scores = rng.normal(size=(2, 3, 5, 6)) * 40
    allowed = rng.random((2, 1, 5, 6)) < 0.4
    allowed[0, 0, 1] = False
    ref = torch.softmax(torch.from_numpy(scores).masked_fill(~torch.from_numpy(allowed), float("-inf")), -1)
    ref = ref.nan_to_num(0.0).numpy()
    with np.errstate(all="raise"):
        np.testing.assert_allclose(masked_softmax_np(scores, allowed), ref, atol=1e-12)
    np.testing.assert_allclose(masked_softmax_pt(torch.from_numpy(scores), torch.from_numpy(allowed)).numpy(),
                               ref, atol=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_property_future_tokens_never_change_earlier_outputs(seed):
    rng = np.random.default_rng(seed)
    T, E = 9, 5
    W = [rng.normal(size=(E, E)) for _ in range(3)]
    x = rng.normal(size=(T, E))
    base = masked_sdpa_np(*(x @ w for w in W), causal_mask_np(T))[0]
    for t in range(1, T):
        x2 = x.copy()
        x2[t:] = rng.normal(size=(T - t, E)) * 10
        new = masked_sdpa_np(*(x2 @ w for w in W), causal_mask_np(T))[0]
        assert np.array_equal(new[:t], base[:t]) and not np.array_equal(new[t:], base[t:])


@pytest.mark.parametrize("seed", range(5))
def test_property_padding_never_changes_real_outputs(seed):
    rng = np.random.default_rng(seed)
    B, S, E = 4, 7, 5
    W = [torch.from_numpy(rng.normal(size=(E, E))) for _ in range(3)]
    lengths = rng.integers(0, S + 1, size=B)
    m = padding_mask_pt(torch.from_numpy(lengths), S)[:, 0]         # (B, 1, S)
    real = m[:, 0]                                                  # (B, S)
    x = torch.from_numpy(rng.normal(size=(B, S, E)))
    x2 = x.clone()
    x2[~real] = torch.from_numpy(rng.normal(size=(int((~real).sum()), E)) * 100)
    base = masked_sdpa_pt(*(x @ w for w in W), m)[0]
    new = masked_sdpa_pt(*(x2 @ w for w in W), m)[0]
    assert torch.equal(new[real], base[real])
    assert (new[torch.from_numpy(lengths == 0)] == 0).all()


def test_key_padding_mask_of_multihead_attention_is_the_inverse():
    torch.manual_seed(5)
    E, L, S = 4, 3, 5
    mha = nn.MultiheadAttention(E, num_heads=1, batch_first=True)
    xq, xkv = torch.randn(2, L, E), torch.randn(2, S, E)
    kpm = ~padding_mask_pt([5, 2], S)[:, 0, 0]                      # (B, S), True = pad
    want, w_want = mha(xq, xkv, xkv, key_padding_mask=kpm)
    Wq, Wk, Wv = mha.in_proj_weight.chunk(3)
    bq, bk, bv = mha.in_proj_bias.chunk(3)
    o, w = masked_sdpa_pt(xq @ Wq.T + bq, xkv @ Wk.T + bk, xkv @ Wv.T + bv, ~kpm[:, None, :])
    torch.testing.assert_close(mha.out_proj(o), want, atol=1e-6, rtol=0)
    torch.testing.assert_close(w, w_want, atol=1e-6, rtol=0)


@pytest.mark.parametrize("fn", [masked_sdpa_np, masked_sdpa_pt])
@pytest.mark.parametrize("mask_shape,dtype,match", [
    ((2, 5, 6), bool, r"mask of shape \(2, 5, 6\) does not broadcast to the scores' shape \(2, 3, 5, 7\)"),
    ((4, 5, 7), bool, r"mask of shape \(4, 5, 7\) does not broadcast"),
    ((1, 1, 2, 3, 5, 7), bool, r"mask of shape \(1, 1, 2, 3, 5, 7\) does not broadcast"),  # would grow the output
    ((5, 7), float, r"mask must be boolean .* got dtype"),
    ((5, 7), int, r"mask must be boolean .* got dtype"),
])
def test_bad_masks_are_named(fn, mask_shape, dtype, match):
    make = np.zeros if fn is masked_sdpa_np else torch.zeros
    q, k, v = make((2, 3, 5, 4)), make((2, 3, 7, 4)), make((2, 3, 7, 2))
    mask = np.ones(mask_shape, dtype=dtype)
    if fn is masked_sdpa_pt:
        mask = torch.from_numpy(mask)
    with pytest.raises(ValueError, match=match):
        fn(q, k, v, mask)


@pytest.mark.parametrize("call,match", [
    (lambda: padding_mask_np([[1, 2]], 4), r"1-D integer array .* got shape \(1, 2\)"),
    (lambda: padding_mask_np([1.0, 2.0], 4), r"1-D integer array"),
    (lambda: padding_mask_np([5, 2], 4), r"lengths must lie in \[0, S=4\]; got \[5, 2\]"),
    (lambda: padding_mask_pt(torch.tensor([-1, 2]), 4), r"lengths must lie in \[0, S=4\]"),
    (lambda: padding_mask_pt(torch.tensor([1.0]), 4), r"1-D integer tensor"),
    (lambda: causal_mask_np(3, 4, align="bottom"), r'align must be "top-left" or "bottom-right"'),
    (lambda: causal_mask_pt(3, 4, align="right"), r'align must be'),
])
def test_bad_mask_builder_input_is_rejected(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("fn", [masked_sdpa_np, masked_sdpa_pt])
def test_non_finite_input_is_rejected(fn):
    make = np.zeros if fn is masked_sdpa_np else torch.zeros
    q = make((2, 3))
    q[0, 0] = float("inf")
    with pytest.raises(ValueError, match="finite"):
        fn(q, make((4, 3)), make((4, 2)), np.ones((2, 4), bool) if fn is masked_sdpa_np else torch.ones(2, 4, dtype=torch.bool))


# ---- bad input: every public function names the argument and the fix ----------------------

@pytest.mark.parametrize("call,error,match", [
    (lambda: causal_mask_np(-3), ValueError, r"L must be a non-negative int \(a length\); got -3"),
    (lambda: causal_mask_np(3, -1), ValueError, r"S must be a non-negative int"),
    (lambda: causal_mask_np(2.5), TypeError, r"L must be a non-negative int; got float"),
    (lambda: causal_mask_pt(-1), ValueError, r"L must be a non-negative int"),
    (lambda: causal_mask_pt(3, 4.0), TypeError, r"S must be a non-negative int; got float"),
    (lambda: padding_mask_np([1, 2], -4), ValueError, r"S must be a non-negative int"),
    (lambda: padding_mask_pt([1, 2], 4.0), TypeError, r"S must be a non-negative int"),
])
def test_bad_lengths_are_named(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("fn", [masked_softmax_np, masked_softmax_pt])
def test_masked_softmax_rejects_float_and_integer_masks(fn):
    """An additive float mask or a 0/1 mask would silently give another answer: refused."""
    scores = np.zeros((2, 3))
    additive = np.where(np.eye(2, 3, dtype=bool), 0.0, -np.inf)
    ones = np.eye(2, 3, dtype=np.int64)
    wrap = (lambda a: a) if fn is masked_softmax_np else torch.from_numpy
    with pytest.raises(ValueError, match=r"got dtype .*float64.*`mask == 0`.*`~mask`"):
        fn(wrap(scores), wrap(additive))
    with pytest.raises(ValueError, match=r"got dtype .*int64.*`mask == 1`"):
        fn(wrap(scores), wrap(ones))


@pytest.mark.parametrize("fn", [masked_softmax_np, masked_softmax_pt])
def test_masked_softmax_rejects_bad_shapes_and_scores(fn):
    wrap = (lambda a: a) if fn is masked_softmax_np else torch.from_numpy
    with pytest.raises(ValueError, match=r"mask of shape \(2, 4\) does not broadcast"):
        fn(wrap(np.zeros((2, 3))), wrap(np.ones((2, 4), dtype=bool)))
    bad = np.zeros((2, 3))
    bad[0, 1] = np.nan
    with pytest.raises(ValueError, match=r"scores contains inf or NaN"):
        fn(wrap(bad), wrap(np.ones((2, 3), dtype=bool)))


def test_masked_softmax_np_rejects_a_tensor_naming_it():
    with pytest.raises(TypeError, match=r"scores is a torch tensor"):
        masked_softmax_np(torch.zeros(2, 3), np.ones((2, 3), dtype=bool))


@pytest.mark.parametrize("fn", [masked_sdpa_np, masked_sdpa_pt])
def test_a_batch_by_key_padding_mask_gets_the_fix(fn):
    """A (B, S) mask where (B, 1, 1, S) is needed: the message says how to reshape it."""
    make = np.zeros if fn is masked_sdpa_np else torch.zeros
    q, k, v = make((4, 2, 5, 3)), make((4, 2, 6, 3)), make((4, 2, 6, 2))
    mask = np.ones((4, 6), dtype=bool)
    if fn is masked_sdpa_pt:
        mask = torch.from_numpy(mask)
    with pytest.raises(ValueError, match=r"pass mask\[:, None, None, :\], of shape \(4, 1, 1, 6\)"):
        fn(q, k, v, mask)


def test_masked_sdpa_pt_names_numpy_and_mixed_dtype_arguments():
    with pytest.raises(TypeError, match=r"v must be a torch.Tensor; got ndarray"):
        masked_sdpa_pt(torch.zeros(2, 3), torch.zeros(4, 3), np.zeros((4, 2)))
    with pytest.raises(TypeError, match=r"v is torch.float64 but q is torch.float32"):
        masked_sdpa_pt(torch.zeros(2, 3), torch.zeros(4, 3), torch.zeros(4, 2, dtype=torch.float64))
