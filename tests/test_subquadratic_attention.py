"""attnlab.subquadratic_attention against independent references (tolerances per test).

Windows and blocks: equal to chapter 5's masked dense attention and to
F.scaled_dot_product_attention under the same mask. Linear attention: recurrent form equal
to the scan form (prefix sums) and to the parallel form (the written-out L x L weights). Random features: error
against exact softmax attention falls with the number of features. Receptive field: k
window layers of W keys reach exactly k (W - 1) + 1 positions. Chunkwise, decayed and gated
forms: equal to their recurrences. Delta rule: the recurrence equal to the parallel form (a
triangular solve) and to a hand-checked case. The recall sweep (experiments/ch14_mqar.py) at a
reduced size, its fixed-fidelity criterion, and its stored result. Bad inputs: errors that name the argument.
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attnlab.masks import masked_sdpa_np
from attnlab.scaled_dot_product import sdpa_np
from attnlab.subquadratic_attention import (
    band_keys_np, band_to_dense_np, bigbird_block_mask_np, block_sparse_attention_np,
    decay_mask_np, decayed_attention_np, delta_rule_parallel_pt, delta_rule_recurrent_np,
    gated_chunkwise_np, gated_linear_attention_recurrent_np,
    interleaved_kv_bytes, linear_attention_chunkwise_np, elu_feature_map_np, expand_block_mask_np, gaussian_directions_np, kernel_attention_np,
    kernel_attention_pt, kernel_weights_np, linear_attention_np, linear_attention_pt,
    linear_attention_recurrent_np, performer_attention_np, performer_attention_pt,
    sliding_window_attention_np, sliding_window_attention_pt, sliding_window_mask_np,
    softmax_kernel_features_np)

# (B, H, L, D, Dv, W, causal): L not a multiple of W, odd D, Dv != D, W = 1, W >= L
WINDOW_CASES = [(1, 1, 1, 1, 1, 1, True), (2, 3, 11, 5, 7, 4, True), (1, 2, 37, 9, 4, 6, False),
                (2, 1, 16, 8, 3, 5, True), (1, 1, 13, 3, 6, 21, False), (1, 2, 9, 4, 4, 1, False),
                (1, 1, 97, 17, 5, 9, True), (2, 2, 33, 6, 6, 2, False)]


def loop_window_mask(L, W, causal):
    """W keys, the newest included: i - W + 1 <= j <= i (causal), |i - j| < W (both)."""
    return np.array([[(i - W + 1 <= j <= i) if causal else abs(i - j) < W for j in range(L)]
                     for i in range(L)])


@pytest.mark.parametrize("L,W", [(1, 1), (6, 3), (10, 1), (7, 31), (50, 8)])
def test_window_mask_matches_loops_and_count(L, W):
    for causal in (True, False):
        m = sliding_window_mask_np(L, W, causal)
        assert m.dtype == bool and (m == loop_window_mask(L, W, causal)).all()
    if W <= L:
        assert sliding_window_mask_np(L, W).sum() == L * W - W * (W - 1) // 2
    assert sliding_window_mask_np(L, W).sum(1).max() == min(W, L)   # W keys, not W + 1


@pytest.mark.parametrize("B,H,L,D,Dv,W,causal", WINDOW_CASES)
def test_window_attention_equals_masked_dense(B, H, L, D, Dv, W, causal):
    w = W
    rng = np.random.default_rng(L * 7 + w)
    q, k = rng.normal(size=(2, B, H, L, D))
    v = rng.normal(size=(B, H, L, Dv))
    allowed = sliding_window_mask_np(L, w, causal)
    ref, ref_w = masked_sdpa_np(q, k, v, allowed)                  # float64 reference
    out, band = sliding_window_attention_np(q, k, v, w, causal)
    assert np.abs(out - ref).max() < 1e-12
    assert np.abs(band_to_dense_np(band, w, causal) - ref_w).max() < 1e-12
    q64, k64, v64 = (torch.from_numpy(a) for a in (q, k, v))
    out_pt, band_pt = sliding_window_attention_pt(q64, k64, v64, w, causal)   # float64 blocks
    assert np.abs(out_pt.numpy() - ref).max() < 1e-12
    assert np.abs(band_pt.numpy() - band).max() < 1e-12
    sdpa = F.scaled_dot_product_attention(q64, k64, v64, attn_mask=torch.from_numpy(allowed))
    assert np.abs(sdpa.numpy() - ref).max() < 1e-12
    out32, _ = sliding_window_attention_pt(q64.float(), k64.float(), v64.float(), w, causal)
    assert np.abs(out32.double().numpy() - ref).max() < 2e-6            # float32 vs float64


def test_window_scores_grow_as_L_times_w():
    """The band holds L * W slots: linear in L for a fixed window."""
    for L in (64, 128, 256):
        index, valid = band_keys_np(L, 9)
        assert index.shape == (L, 9) and valid.sum() == L * 9 - 8 * 9 // 2


def test_window_gradients_flow_like_masked_dense():
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 19, 5, dtype=torch.float64, requires_grad=True) for _ in range(3))
    allowed = torch.from_numpy(sliding_window_mask_np(19, 5))
    g_win = torch.autograd.grad(sliding_window_attention_pt(q, k, v, 5)[0].sum(), (q, k, v))
    g_ref = torch.autograd.grad(
        F.scaled_dot_product_attention(q, k, v, attn_mask=allowed).sum(), (q, k, v))
    for a, b in zip(g_win, g_ref):
        assert (a - b).abs().max() < 1e-12


def reach(n_layers, w, L=48, E=6, causal=True, seed=0):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(L, E, generator=gen, dtype=torch.float64, requires_grad=True)
    h = x
    for _ in range(n_layers):
        Wq, Wk, Wv = (torch.randn(E, E, generator=gen, dtype=torch.float64) / E**0.5
                      for _ in range(3))
        h = h + sliding_window_attention_pt(h @ Wq, h @ Wk, h @ Wv, w, causal)[0]
    i = L - 1 if causal else L // 2
    h[i].sum().backward()
    return i, np.flatnonzero(x.grad.abs().sum(-1).numpy() > 0)


@pytest.mark.parametrize("n_layers,W", [(1, 4), (2, 4), (3, 5), (4, 3), (5, 2), (2, 1)])
def test_receptive_field_is_k_times_W_minus_1_plus_1(n_layers, W):
    i, seen = reach(n_layers, W)
    assert (seen == np.arange(i - n_layers * (W - 1), i + 1)).all()
    assert len(seen) == n_layers * (W - 1) + 1
    i, seen = reach(n_layers, W, causal=False)
    assert (seen == np.arange(i - n_layers * (W - 1), i + n_layers * (W - 1) + 1)).all()


@pytest.mark.parametrize("nb,block,window,n_global,n_random", [
    (1, 3, 1, 1, 1), (5, 4, 1, 1, 2), (9, 2, 0, 2, 3), (16, 3, 2, 1, 1), (7, 5, 1, 0, 0)])
def test_block_sparse_equals_masked_dense(nb, block, window, n_global, n_random):
    rng = np.random.default_rng(nb * 10 + block)
    bm = bigbird_block_mask_np(nb, window, n_global, n_random, rng)
    q, k = rng.normal(size=(2, 2, nb * block, 7))
    v = rng.normal(size=(2, nb * block, 3))
    out, n_scores = block_sparse_attention_np(q, k, v, bm, block)
    dense = expand_block_mask_np(bm, block)
    ref, _ = masked_sdpa_np(q, k, v, dense)
    assert np.abs(out - ref).max() < 1e-12
    assert n_scores == dense.sum()
    sdpa = F.scaled_dot_product_attention(*(torch.from_numpy(a) for a in (q, k, v)),
                                          attn_mask=torch.from_numpy(dense))
    assert np.abs(sdpa.numpy() - ref).max() < 1e-12


def test_bigbird_pattern_counts_and_density():
    densities = []
    for n in (1024, 2048, 4096, 8192):
        nb = n // 64
        bm = bigbird_block_mask_np(nb, window=1, n_global=2, n_random=3,
                                   rng=np.random.default_rng(n))
        assert (bm[:2] == True).all() and (bm[:, :2] == True).all()      # noqa: E712 global
        assert (np.diag(bm)).all() and bm.sum() == 10 * nb - 18
        densities.append(bm.sum() / nb**2)
    assert all(a > b for a, b in zip(densities, densities[1:]))          # falls with N


def test_block_sparse_empty_row_gives_zeros():
    bm = np.array([[True, False], [False, False]])
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(3, 6, 4))
    out, _ = block_sparse_attention_np(q, k, v, bm, 3)
    assert (out[3:] == 0).all()
    ref, _ = masked_sdpa_np(q, k, v, expand_block_mask_np(bm, 3))
    assert np.abs(out - ref).max() < 1e-12


@pytest.mark.parametrize("B,H,L,D,Dv", [(1, 1, 1, 1, 1), (2, 3, 17, 5, 2), (1, 2, 64, 8, 8)])
def test_recurrent_equals_scan_and_parallel_causal(B, H, L, D, Dv):
    rng = np.random.default_rng(L)
    q, k = rng.normal(size=(2, B, H, L, D))
    v = rng.normal(size=(B, H, L, Dv))
    rec, _ = linear_attention_recurrent_np(q, k, v)
    scan, _ = linear_attention_np(q, k, v, causal=True)
    quad = kernel_weights_np(elu_feature_map_np(q), elu_feature_map_np(k), causal=True) @ v
    scan_pt, _ = linear_attention_pt(*(torch.from_numpy(a) for a in (q, k, v)), causal=True)
    assert np.abs(rec - scan).max() < 1e-12
    assert np.abs(scan - quad).max() < 1e-12
    assert np.abs(scan_pt.numpy() - scan).max() < 1e-12


@pytest.mark.parametrize("L,S,causal", [(1, 1, False), (6, 11, False), (9, 4, False),
                                        (13, 13, True)])
def test_linear_attention_matches_definition(L, S, causal):
    rng = np.random.default_rng(S)
    q, k, v = rng.normal(size=(2, L, 5)), rng.normal(size=(2, S, 5)), rng.normal(size=(2, S, 3))
    pq, pk = (F.elu(torch.from_numpy(a)) + 1 for a in (q, k))      # independent phi
    sim = pq @ pk.transpose(-2, -1)
    if causal:
        sim = sim.tril()
    ref = (sim / sim.sum(-1, keepdim=True) @ torch.from_numpy(v)).numpy()
    out, weights = linear_attention_np(q, k, v, causal)
    assert weights is None and np.abs(out - ref).max() < 1e-12


def test_linear_attention_is_not_softmax_attention():
    rng = np.random.default_rng(5)
    q, k, v = rng.normal(size=(3, 24, 16))
    gap = np.abs(linear_attention_np(q, k, v)[0] - sdpa_np(q, k, v)[0]).max()
    assert gap > 0.3


def test_causal_linear_attention_does_not_see_the_future():
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(3, 12, 4))
    k2, v2 = k.copy(), v.copy()
    k2[7:], v2[7:] = rng.normal(size=(2, 5, 4))
    for fn in (lambda *a: linear_attention_np(*a, causal=True), linear_attention_recurrent_np):
        assert (fn(q, k2, v2)[0][:7] == fn(q, k, v)[0][:7]).all()


def test_performer_matches_explicit_weights_and_pytorch():
    rng = np.random.default_rng(2)
    omega = gaussian_directions_np(40, 6, rng)
    q, k, v = rng.normal(size=(2, 9, 6)), rng.normal(size=(2, 9, 6)), rng.normal(size=(2, 9, 4))
    for causal in (False, True):
        pq = softmax_kernel_features_np(q / 6**0.25, omega)
        pk = softmax_kernel_features_np(k / 6**0.25, omega)
        ref = kernel_weights_np(pq, pk, causal) @ v
        out, _ = performer_attention_np(q, k, v, omega, causal)
        out_pt, _ = performer_attention_pt(*(torch.from_numpy(a) for a in (q, k, v)),
                                           torch.from_numpy(omega), causal)
        assert np.abs(out - ref).max() < 1e-12 and np.abs(out_pt.numpy() - ref).max() < 1e-12


def test_orthogonal_directions_are_orthogonal_in_blocks():
    omega = gaussian_directions_np(10, 4, np.random.default_rng(0))
    for start in (0, 4):
        block = omega[start:start + 4]
        gram = block @ block.T
        assert np.abs(gram - np.diag(np.diag(gram))).max() < 1e-10
    assert omega.shape == (10, 4)


def test_random_feature_error_falls_with_M_over_seeds():
    """Mean error over 4 seeds falls at every step of M; slope about -1/2 in log-log."""
    rng = np.random.default_rng(6)
    q, k, v = rng.normal(size=(3, 128, 8))
    q, k = 0.5 * q, 0.5 * k
    exact = sdpa_np(q, k, v)[0]
    Ms = [8, 32, 128, 512]
    err = np.array([[np.abs(performer_attention_np(
        q, k, v, gaussian_directions_np(M, 8, np.random.default_rng(s)))[0] - exact).mean()
        for s in range(4)] for M in Ms])
    assert (np.diff(err.mean(1)) < 0).all()
    slope = np.polyfit(np.log(Ms), np.log(err.mean(1)), 1)[0]
    assert -0.7 < slope < -0.25


def test_kernel_attention_pt_noncausal_matches_numpy():
    rng = np.random.default_rng(3)
    pq, pk = rng.random((2, 5, 7, 3)) + 0.1
    v = rng.normal(size=(5, 7, 2))
    got = kernel_attention_pt(*(torch.from_numpy(a) for a in (pq, pk, v)))[0].numpy()
    assert np.abs(got - kernel_attention_np(pq, pk, v)[0]).max() < 1e-12


@pytest.mark.parametrize("call,words", [
    (lambda: sliding_window_mask_np(5, 0), "window W"),
    (lambda: sliding_window_mask_np(5, 2.5), "window W"),
    (lambda: gated_chunkwise_np(np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 2)), 0), "chunk"),
    (lambda: gated_chunkwise_np(np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 2)), 2,
                                np.ones((4, 1))), "log_gate"),
    (lambda: sliding_window_attention_np(np.ones((4, 3)), np.ones((5, 3)), np.ones((5, 2)), 1),
     "L == S"),
    (lambda: sliding_window_attention_pt(torch.ones(4, 3), torch.ones(4, 2), torch.ones(4, 2), 1),
     "last dim D"),
    (lambda: band_to_dense_np(np.ones((4, 3)), 1), "slots"),
    (lambda: bigbird_block_mask_np(4, n_global=5), "n_global"),
    (lambda: bigbird_block_mask_np(4, window=-1), "window"),
    (lambda: block_sparse_attention_np(np.ones((6, 2)), np.ones((6, 2)), np.ones((6, 2)),
                                       np.ones((2, 2), dtype=bool), 4), r"n_blocks \* block"),
    (lambda: block_sparse_attention_np(np.ones((6, 2)), np.ones((6, 2)), np.ones((6, 2)),
                                       np.ones((2, 2)), 3), "bool"),
    (lambda: kernel_attention_np(-np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2))),
     "non-negative"),
    (lambda: linear_attention_np(np.ones((3, 2)), np.ones((4, 2)), np.ones((4, 2)), causal=True),
     "L == S"),
    (lambda: performer_attention_np(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2)),
                                    np.ones((5, 3))), "omega"),
    (lambda: gaussian_directions_np(0, 3, np.random.default_rng(0)), "M and D"),
])
def test_bad_inputs_raise_with_a_message(call, words):
    with pytest.raises(ValueError, match=words):
        call()


def test_orthogonal_directions_are_isotropic():
    """Haar blocks: the mean direction is 0 (unsigned QR is biased towards R's signs)."""
    om = np.concatenate([gaussian_directions_np(8, 8, np.random.default_rng(s)) for s in range(3000)])
    assert np.abs(om.mean(0)).max() < 4 * om.std(0).max() / np.sqrt(len(om))


@pytest.mark.parametrize("shape,L,D,Dv,C", [((), 1, 1, 1, 1), ((2, 3), 50, 7, 3, 8),
                                            ((1,), 17, 4, 5, 17), ((2,), 9, 3, 2, 64)])
def test_chunkwise_equals_recurrent_and_scan(shape, L, D, Dv, C):
    rng = np.random.default_rng(L + C)
    q, k = rng.normal(size=(2,) + shape + (L, D))
    v = rng.normal(size=shape + (L, Dv))
    scan, _ = linear_attention_np(q, k, v, causal=True)
    assert np.abs(linear_attention_chunkwise_np(q, k, v, C)[0] - scan).max() < 1e-12
    assert np.abs(linear_attention_recurrent_np(q, k, v)[0] - scan).max() < 1e-12


def test_gated_forms_agree_and_decay_mask_is_semiseparable():
    rng = np.random.default_rng(7)
    q, k = rng.normal(size=(2, 2, 23, 4))
    v = rng.normal(size=(2, 23, 3))
    log_scalar = -rng.random((2, 23, 1))
    log_vec = -rng.random((2, 23, 4))
    for log_g in (log_scalar, log_vec):
        rec, _ = gated_linear_attention_recurrent_np(q, k, v, log_g)
        explicit = np.zeros_like(rec)                     # o_i = sum_j prod gates (q_i . k_j) v_j
        for i in range(23):
            for j in range(i + 1):
                decay = np.exp(log_g[:, j + 1:i + 1].sum(1))          # (2, D or 1)
                explicit[:, i] += ((q[:, i] * decay * k[:, j]).sum(-1))[:, None] * v[:, j]
        assert np.abs(rec - explicit).max() < 1e-12
        for C in (1, 5, 23, 30):
            assert np.abs(gated_chunkwise_np(q, k, v, C, log_g)[0] - rec).max() < 1e-12
    par, _ = decayed_attention_np(q, k, v, log_scalar[..., 0])
    assert np.abs(par - gated_linear_attention_recurrent_np(q, k, v, log_scalar)[0]).max() < 1e-12
    mask = decay_mask_np(log_scalar[0, :, 0])
    assert (np.triu(mask, 1) == 0).all() and np.allclose(np.diag(mask), 1)
    for r in range(1, 23):
        assert np.linalg.matrix_rank(mask[r:, :r], tol=1e-12) == 1


def test_interleaved_kv_bytes_counts_every_layer():
    def by_layer(T, n_layers, r, W, h, d, item):
        total = 0
        for layer in range(n_layers):
            is_global = r == 0 or (layer + 1) % (r + 1) == 0
            total += 2 * h * d * item * (T if is_global else min(T, W))
        return total
    for args in [(10, 7, 5, 4, 2, 3, 2), (100, 42, 1, 64, 8, 16, 2), (3, 5, 0, 1, 1, 1, 4),
                 (5000, 62, 5, 1024, 16, 128, 2), (1, 1, 3, 8, 2, 2, 1)]:
        T, n, r, W, h, d, item = args
        assert interleaved_kv_bytes(T, n, r, W, h, d, item) == by_layer(*args)


def delta_rule_by_hand(q, k, v, beta):
    """The delta rule written out for one sequence: S <- S + beta k (v - S^T k)^T, o = S^T q."""
    S, out = np.zeros((k.shape[1], v.shape[1])), []
    for t in range(len(k)):
        S = S + beta[t] * np.outer(k[t], v[t] - S.T @ k[t])
        out.append(S.T @ q[t])
    return np.array(out), S


@pytest.mark.parametrize("shape,L,D,Dv", [((), 1, 1, 1), ((2, 3), 29, 6, 4), ((1,), 9, 5, 11),
                                          ((3,), 64, 8, 8)])
def test_delta_rule_recurrent_parallel_and_loop_agree(shape, L, D, Dv):
    rng = np.random.default_rng(L + D)
    q, k = rng.normal(size=(2,) + shape + (L, D))
    k = k / np.linalg.norm(k, axis=-1, keepdims=True)
    v, beta = rng.normal(size=shape + (L, Dv)), rng.uniform(size=shape + (L,))
    rec, state = delta_rule_recurrent_np(q, k, v, beta)
    par, _ = delta_rule_parallel_pt(*(torch.from_numpy(a) for a in (q, k, v, beta)))
    assert state.shape == shape + (D, Dv)
    assert np.abs(rec - par.numpy()).max() < 1e-12
    flat = [a.reshape((-1,) + a.shape[len(shape):]) for a in (q, k, v, beta, rec, state)]
    for b in range(flat[0].shape[0]):
        by_hand, S = delta_rule_by_hand(*(a[b] for a in flat[:4]))
        assert np.abs(by_hand - flat[4][b]).max() < 1e-12
        assert np.abs(S - flat[5][b]).max() < 1e-12


def test_delta_rule_hand_case_scalar_beta_and_float32():
    e1 = np.array([[1.0, 0.0]] * 3)                      # one key written three times
    vals = np.array([[3.0], [5.0], [-1.0]])
    assert (delta_rule_recurrent_np(e1, e1, vals, 1.0)[0][:, 0] == [3, 5, -1]).all()
    assert (delta_rule_recurrent_np(e1, e1, vals, 0.5)[0][:, 0] == [1.5, 3.25, 1.125]).all()
    assert (gated_linear_attention_recurrent_np(e1, e1, vals, 0.0)[0][:, 0] == [3, 8, 7]).all()
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(3, 2, 17, 6))
    k = k / np.linalg.norm(k, axis=-1, keepdims=True)
    ref, _ = delta_rule_recurrent_np(q, k, v, 0.8)
    got, _ = delta_rule_parallel_pt(*(torch.from_numpy(a).float() for a in (q, k, v)), 0.8)
    assert got.dtype == torch.float32 and np.abs(got.numpy() - ref).max() < 1e-4


def test_delta_rule_bad_inputs():
    q = np.ones((4, 3))
    with pytest.raises(ValueError, match="beta"):
        delta_rule_recurrent_np(q, q, q, 1.5)
    with pytest.raises(ValueError, match="beta"):
        delta_rule_parallel_pt(*(torch.ones(4, 3),) * 3, -0.1)
    with pytest.raises(ValueError, match="L == S"):
        delta_rule_recurrent_np(q, np.ones((5, 3)), np.ones((5, 3)), 1.0)


def load_ch14_experiment():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "experiments" / "ch14_mqar.py"
    spec = importlib.util.spec_from_file_location("ch14_experiment", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ch14_recall_sweep_quick_and_stored(tmp_path):
    import json
    module = load_ch14_experiment()
    out = tmp_path / "quick.json"
    module.main(["--quick", "--out", str(out)])
    quick = json.loads(out.read_text())
    assert quick["quick"] and quick["methods"] == module.METHODS
    n = len(module.QUICK["n_pairs"])
    assert all(len(a) == n and len(a[0]) == 1 for a in quick["accuracy"].values())
    assert quick["fidelity"].keys() == quick["accuracy"].keys()
    # orthonormal ("spread") keys, N <= d: the linear and delta states recall every pair,
    # each read-out equal to its own value (cosine 1, above the fidelity threshold)
    for d in module.QUICK["dims"]:
        for m in ("linear", "delta", "softmax tau=32"):
            for record in ("accuracy", "fidelity"):
                acc = np.array(quick[record][f"spread|{d}|{m}"])[:, 0]
                assert (acc[np.array(module.QUICK["n_pairs"]) <= d] == 1).all(), (d, m, record)
    # fidelity is the stricter criterion once linear attention's crosstalk grows (N = d, 2d)
    lin = [np.array(quick[r]["random|16|linear"])[2:4, 0] for r in ("accuracy", "fidelity")]
    assert (lin[1] < lin[0]).all()
    stored = json.loads(module.RESULT.read_text())
    assert not stored["quick"] and stored["config"] == module.FULL
    acc = {key: np.array(a) for key, a in stored["accuracy"].items()}
    assert all(a.shape == (len(module.FULL["n_pairs"]), 3) for a in acc.values())
    assert all(np.array(a).shape == (len(module.FULL["n_pairs"]), 3)
               for a in stored["fidelity"].values())
    assert all((acc[f"{g}|{d}|softmax tau=32"] == 1).all()
               for g in ("random", "spread") for d in module.FULL["dims"])
    assert all(acc[f"random|{d}|linear"][-1].max() < 0.15 for d in module.FULL["dims"])


def test_recall_construction_is_what_it_claims():
    module = load_ch14_experiment()
    rng = np.random.default_rng(0)
    for n, d in [(5, 8), (8, 8), (20, 8)]:
        keys = module.draw_keys(n, d, "spread", rng)
        assert np.allclose(np.linalg.norm(keys, axis=1), 1)
        if n <= d:
            assert np.allclose(keys @ keys.T, np.eye(n))
    keys, values = module.unit(rng.normal(size=(6, 4))), module.unit(rng.normal(size=(6, 4)))
    r = module.readouts(keys, values, [32])
    assert np.allclose(r["linear"], keys @ keys.T @ values)            # S = K^T V, read S^T k
    hit = module.recall(values, values)                               # a perfect read-out
    assert hit.all() and hit.shape == (6,)
    assert module.faithful(2.0 * values, values).all()                # length does not matter
    assert not module.faithful(-values, values).any()
    tilted = values + 1.1 * module.unit(rng.normal(size=(6, 4)))      # cosine below 0.7 ...
    assert module.faithful(tilted, values).mean() < 1                 # ... for some rows
