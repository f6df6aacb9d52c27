"""attnlab.luong_attention (chapter 3) against independent references, on awkward sizes.

Tolerances: float64 NumPy against float64 references 1e-12; float32 PyTorch against the
float64 references 2e-6 (inputs scaled so the scores are of order 1).
"""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attnlab.luong_attention import (
    LuongAttention, LuongScore, LuongSeq2Seq, gaussian_window_np, gaussian_window_pt,
    local_p_centre_np, local_p_centre_pt, local_p_weights_np, local_p_weights_pt,
    local_m_inside, local_m_weights_np, local_m_weights_pt, location_weights_np,
    location_weights_pt, luong_attention_np, luong_attention_pt, luong_scores_np,
    luong_scores_pt)

SIZES = [(1, 1, 1, 1, 1, 1), (2, 3, 7, 5, 6, 9), (3, 9, 4, 11, 7, 3)]   # (B, L, S, Dq, Dk, A)


def bilinear_reference(q, k, W):
    B, L, S = q.shape[0], q.shape[1], k.shape[1]
    x1 = q[:, :, None, :].expand(B, L, S, q.shape[-1]).contiguous()
    x2 = k[:, None, :, :].expand(B, L, S, k.shape[-1]).contiguous()
    return F.bilinear(x1, x2, W[None]).squeeze(-1)


def concat_reference(q, k, W, v):
    B, L, S = q.shape[0], q.shape[1], k.shape[1]
    out = torch.zeros(B, L, S, dtype=torch.float64)
    for b in range(B):
        for i in range(L):
            for j in range(S):
                out[b, i, j] = torch.tanh(torch.cat([q[b, i], k[b, j]]) @ W) @ v
    return out


@pytest.mark.parametrize("B,L,S,Dq,Dk,A", SIZES)
def test_general_matches_bilinear(B, L, S, Dq, Dk, A):
    g = torch.Generator().manual_seed(0)
    q, k, W = (torch.randn(*s, generator=g, dtype=torch.float64) for s in [(B, L, Dq), (B, S, Dk), (Dq, Dk)])
    want = bilinear_reference(q, k, W)
    np.testing.assert_allclose(luong_scores_np(q.numpy(), k.numpy(), "general", W.numpy()), want.numpy(), atol=1e-12)
    got32 = luong_scores_pt(q.float() / math.sqrt(Dq), k.float(), "general", W.float() / math.sqrt(Dk))
    np.testing.assert_allclose(got32.double().numpy(), want.numpy() / math.sqrt(Dq * Dk), atol=2e-6)


@pytest.mark.parametrize("B,L,S,Dq,Dk,A", SIZES)
def test_concat_matches_literal_concatenation(B, L, S, Dq, Dk, A):
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(B, L, Dq, generator=g, dtype=torch.float64), torch.randn(B, S, Dk, generator=g, dtype=torch.float64)
    W, v = torch.randn(Dq + Dk, A, generator=g, dtype=torch.float64), torch.randn(A, generator=g, dtype=torch.float64)
    want = concat_reference(q, k, W, v)
    np.testing.assert_allclose(luong_scores_np(q.numpy(), k.numpy(), "concat", W.numpy(), v.numpy()), want.numpy(), atol=1e-12)
    got32 = luong_scores_pt(q.float(), k.float(), "concat", W.float(), v.float() / math.sqrt(A))
    np.testing.assert_allclose(got32.double().numpy(), want.numpy() / math.sqrt(A), atol=2e-6)


@pytest.mark.parametrize("B,L,S,D", [(1, 1, 1, 1), (2, 5, 9, 7), (3, 1, 13, 4)])
def test_masked_dot_attention_matches_builtin(B, L, S, D):
    g = torch.Generator().manual_seed(2)
    q, k = torch.randn(B, L, D, generator=g) / math.sqrt(D), torch.randn(B, S, D, generator=g)
    lens = torch.randint(1, S + 1, (B,), generator=g)
    allowed = torch.arange(S)[None, :] < lens[:, None]
    want = F.scaled_dot_product_attention(q.double(), k.double(), k.double(),
                                          attn_mask=allowed[:, None, :], scale=1.0)
    ctx_np, w_np = luong_attention_np(q.numpy(), k.numpy(), "dot", allowed=allowed.numpy())
    ctx_pt, w_pt = luong_attention_pt(q, k, "dot", allowed=allowed)
    np.testing.assert_allclose(ctx_np, want.numpy(), atol=1e-12)
    np.testing.assert_allclose(ctx_pt.double().numpy(), want.numpy(), atol=2e-6)
    assert (w_np[~np.broadcast_to(allowed.numpy()[:, None, :], w_np.shape)] == 0).all()
    np.testing.assert_allclose(w_np.sum(-1), 1.0, atol=1e-12)


def test_dot_over_sqrt_d_is_sdpa():
    g = torch.Generator().manual_seed(3)
    q, k = torch.randn(2, 4, 6, generator=g, dtype=torch.float64), torch.randn(2, 9, 6, generator=g, dtype=torch.float64)
    scores = luong_scores_np(q.numpy(), k.numpy(), "dot") / math.sqrt(6)
    w = np.exp(scores - scores.max(-1, keepdims=True)); w /= w.sum(-1, keepdims=True)
    want = F.scaled_dot_product_attention(q, k, k).numpy()
    np.testing.assert_allclose(w @ k.numpy(), want, atol=1e-12)


def test_gaussian_window_by_hand_and_against_normal_density():
    got = gaussian_window_np(np.array([[2.0]]), 5, 2)[0, 0]
    np.testing.assert_allclose(got, [math.exp(-2), math.exp(-0.5), 1, math.exp(-0.5), math.exp(-2)], atol=1e-15)
    centre = torch.tensor([[0.3, 4.6], [2.5, 7.0]], dtype=torch.float64)
    sigma = 1.5
    want = torch.distributions.Normal(centre[..., None], sigma).log_prob(torch.arange(9.0, dtype=torch.float64)).exp()
    want = want * sigma * math.sqrt(2 * math.pi)
    np.testing.assert_allclose(gaussian_window_np(centre.numpy(), 9, 3), want.numpy(), atol=1e-12)
    np.testing.assert_allclose(gaussian_window_pt(centre, 9, 3).numpy(), want.numpy(), atol=1e-12)


def test_local_p_centre_formula_and_bounds():
    g = torch.Generator().manual_seed(4)
    h, W_p, v_p = (torch.randn(*s, generator=g, dtype=torch.float64) for s in [(3, 5, 7), (7, 4), (4,)])
    src_len = torch.tensor([11, 6, 1])
    want = (src_len[:, None] - 1).double() * torch.sigmoid(torch.tanh(h @ W_p) @ v_p)
    got_np = local_p_centre_np(h.numpy(), W_p.numpy(), v_p.numpy(), src_len.numpy())
    np.testing.assert_allclose(got_np, want.numpy(), atol=1e-12)
    np.testing.assert_allclose(local_p_centre_pt(h, W_p, v_p, src_len).numpy(), want.numpy(), atol=1e-12)
    assert (got_np >= 0).all() and (got_np <= (src_len.numpy() - 1)[:, None]).all()


def test_local_p_weights_reference_and_properties():
    rng = np.random.default_rng(5)
    B, L, S, D_window = 2, 3, 10, 2
    scores = rng.normal(size=(B, L, S))
    centre = np.array([[1.2, 4.5, 6.9], [0.0, 2.4, 3.0]])
    allowed = np.arange(S)[None, :] < np.array([10, 4])[:, None]
    got = local_p_weights_np(scores, centre, D_window, allowed)
    # reference: explicit loops over rows, softmax over the positions in the window and real
    want = np.zeros_like(scores)
    for b in range(B):
        for i in range(L):
            idx = [s for s in range(S) if abs(s - centre[b, i]) <= D_window and allowed[b, s]]
            e = np.exp(scores[b, i, idx] - scores[b, i, idx].max())
            for s, a in zip(idx, e / e.sum()):
                want[b, i, s] = a * math.exp(-(s - centre[b, i]) ** 2 / (2 * (D_window / 2) ** 2))
    np.testing.assert_allclose(got, want, atol=1e-12)
    got_pt = local_p_weights_pt(torch.tensor(scores, dtype=torch.float32), torch.tensor(centre, dtype=torch.float32),
                                D_window, torch.from_numpy(allowed))
    np.testing.assert_allclose(got_pt.double().numpy(), want, atol=2e-6)
    assert (got.sum(-1) <= 1 + 1e-12).all() and (got[1, :, 4:] == 0).all()


def test_modules_shapes_masks_and_parameter_counts():
    torch.manual_seed(0)
    states = torch.randn(2, 6, 8)
    allowed = torch.arange(6)[None, :] < torch.tensor([3, 6])[:, None]
    for kind in ("dot", "general", "concat"):
        for local in (False, True):
            ctx, w = LuongAttention(8, kind, local=local)(torch.randn(2, 4, 8), states, allowed)
            assert ctx.shape == (2, 4, 8) and w.shape == (2, 4, 6)
            assert (w[0, :, 3:] == 0).all()
    counts = {kind: sum(p.numel() for p in LuongScore(kind, 8, 5, 3).parameters())
              for kind in ("dot", "general", "concat")}
    assert counts == {"dot": 0, "general": 40, "concat": 13 * 3 + 3}


def test_seq2seq_forward_and_generate_shapes():
    from attnlab.rnn_bottleneck import V, encode_batch, make_pairs
    torch.manual_seed(0)
    pairs = make_pairs(3, 2, 6, np.random.default_rng(0))
    src, src_len, tgt_in, tgt_out = encode_batch(pairs)
    for kwargs in [dict(score="dot"), dict(score="concat", local=True), dict(score="general", input_feeding=False)]:
        model = LuongSeq2Seq(E=16, **kwargs)
        logits = model(src, src_len, tgt_in)
        assert logits.shape == (*tgt_in.shape, V)
        tokens, weights = model.generate(src, src_len, max_len=5)
        assert tokens.shape == (3, 5) and weights.shape == (3, 5, src.shape[1])
        pad = torch.arange(src.shape[1])[None, :] >= torch.as_tensor(src_len)[:, None]
        assert (weights.masked_select(pad[:, None, :].expand_as(weights)) == 0).all()


@pytest.mark.parametrize("call, match", [
    (lambda: luong_scores_np(np.zeros((2, 3, 5)), np.zeros((2, 7, 4)), "dot"), r"query \(2, 3, 5\), keys \(2, 7, 4\)"),
    (lambda: luong_scores_np(np.zeros((2, 3, 5)), np.zeros((2, 7, 4)), "general", W=np.zeros((4, 5))), r"got W \(4, 5\)"),
    (lambda: luong_scores_np(np.zeros((2, 3, 5)), np.zeros((2, 7, 4)), "concat", W=np.zeros((8, 3)), v=np.zeros(3)),
     r"got W \(8, 3\), v \(3,\)"),
    (lambda: luong_scores_np(np.zeros((2, 3, 4)), np.zeros((3, 7, 4)), "dot"), r"do not broadcast"),
    (lambda: luong_scores_np(np.zeros((2, 3, 4)), np.zeros((2, 7, 4)), "cosine"), r"kind must be one of"),
    (lambda: luong_scores_pt(torch.zeros(2, 3, 4), torch.zeros(2, 7, 4), "general", W=torch.zeros(4, 5)), r"got W \(4, 5\)"),
    (lambda: luong_attention_np(np.zeros((2, 3, 4)), np.zeros((2, 7, 4)), "dot", allowed=np.ones((2, 6), bool)),
     r"allowed \(2, 6\)"),
    (lambda: luong_attention_np(np.zeros((1, 3, 4)), np.zeros((1, 7, 4)), "dot", allowed=np.zeros((1, 7), bool)),
     r"at least one True"),
    (lambda: luong_attention_np(np.zeros((1, 3, 4)), np.zeros((1, 7, 4)), "dot", allowed=np.zeros((1, 7))),
     r"boolean"),
    (lambda: luong_attention_pt(torch.zeros(1, 3, 4), torch.zeros(1, 7, 4), "dot", allowed=torch.ones(1, 7)),
     r"boolean"),
    (lambda: gaussian_window_np(np.zeros((1, 2)), 5, 0), r"D_window must be positive"),
    (lambda: local_p_centre_np(np.zeros((2, 3, 4)), np.zeros((5, 6)), np.zeros(6), np.array([3, 3])), r"W_p \(5, 6\)"),
    (lambda: local_p_weights_np(np.zeros((2, 3, 7)), np.zeros((2, 4)), 2), r"centre \(2, 4\)"),
    (lambda: local_p_weights_np(np.zeros((1, 1, 20)), np.array([[15.0]]), 2, np.arange(20)[None] < 5),
     r"window holds no real token"),
    (lambda: luong_scores_np(np.full((1, 2, 3), np.nan), np.zeros((1, 4, 3)), "dot"), r"finite"),
])
def test_bad_input_raises_with_shapes(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("B, L, S, S_max, E", [(1, 1, 1, 1, 1), (2, 5, 7, 9, 3), (3, 2, 4, 4, 6)])
def test_location_weights_against_torch_softmax(B, L, S, S_max, E):
    rng = np.random.default_rng(B + L)
    h, W_a = rng.normal(size=(B, L, E)), rng.normal(size=(E, S_max))
    lens = rng.integers(1, S + 1, size=B)
    allowed = np.arange(S)[None, :] < lens[:, None]
    got = location_weights_np(h, W_a, allowed)
    ref = torch.softmax((torch.from_numpy(h) @ torch.from_numpy(W_a[:, :S])).masked_fill(
        ~torch.from_numpy(allowed)[:, None, :], float("-inf")), dim=-1)
    np.testing.assert_allclose(got, ref.numpy(), atol=1e-12)
    pt = location_weights_pt(torch.from_numpy(h).float(), torch.from_numpy(W_a).float(),
                             torch.from_numpy(allowed))
    np.testing.assert_allclose(pt.numpy(), ref.numpy(), atol=2e-6)
    full = location_weights_np(h, W_a)                           # no mask: all S_max positions
    assert full.shape == (B, L, S_max) and np.allclose(full.sum(-1), 1)


@pytest.mark.parametrize("B, L, S, D", [(1, 1, 1, 0), (2, 6, 5, 2), (3, 4, 9, 1)])
def test_local_m_weights_against_a_loop(B, L, S, D):
    rng = np.random.default_rng(S + D)
    scores = rng.normal(size=(B, L, S))
    lens = np.full(B, S)
    allowed = np.arange(S)[None, :] < lens[:, None]
    got = local_m_weights_np(scores, D, allowed)
    for b in range(B):
        for t in range(L):
            keep = [s for s in range(S) if abs(s - t) <= D]
            want = np.zeros(S)
            e = np.array([math.exp(scores[b, t, s]) for s in keep])
            want[keep] = e / e.sum()
            np.testing.assert_allclose(got[b, t], want, atol=1e-12)
    pt = local_m_weights_pt(torch.from_numpy(scores), D, torch.from_numpy(allowed))
    np.testing.assert_allclose(pt.numpy(), got, atol=1e-12)
    wide = local_m_weights_np(scores, max(L, S), allowed)          # window covers everything
    np.testing.assert_allclose(wide, torch.softmax(torch.from_numpy(scores), -1).numpy(),
                               atol=1e-12)


@pytest.mark.parametrize("call, match", [
    (lambda: location_weights_np(np.zeros((1, 2, 3)), np.zeros((4, 5))), r"W_a must be \(E, S_max\) with E = 3"),
    (lambda: location_weights_np(np.zeros((1, 2, 3)), np.zeros((3, 5)), np.ones((1, 6), bool)),
     r"S_max = 5 columns"),
    (lambda: location_weights_np(np.zeros((1, 2, 3)), np.zeros((3, 5)), np.ones((1, 5))), r"boolean"),
    (lambda: location_weights_pt(torch.zeros(3), torch.zeros(3, 5)), r"query must be \(\.\.\., L, E\)"),
    (lambda: local_m_weights_np(np.zeros((1, 2, 3)), -1), r"D_window must be an int >= 0"),
    (lambda: local_m_weights_np(np.zeros((1, 2, 3)), 1.5), r"D_window must be an int >= 0"),
    (lambda: local_m_weights_np(np.zeros((2, 3)), 1), r"scores must be \(B, L, S\)"),
    (lambda: local_m_weights_np(np.zeros((1, 9, 3)), 1), r"holds no real token"),
    (lambda: local_m_weights_pt(torch.zeros(1, 2, 5), 1, torch.ones(1, 4, dtype=torch.bool)),
     r"allowed must have shape \(1, 5\)"),
    (lambda: LuongAttention(8, "general", local=True, D_window=0), r"D_window .* must be > 0"),
])
def test_new_functions_reject_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_local_m_inside_is_the_band():
    inside = local_m_inside(4, 6, 1)
    assert inside.shape == (4, 6) and inside.sum() == 4 * 3 - 1       # t = 0 has no s = -1
    assert all(inside[t, t] for t in range(4))


# --- experiments/ch03_luong_variants.py: the trained models and results the chapter loads -------

import importlib.util  # noqa: E402
import json  # noqa: E402
from pathlib import Path  # noqa: E402

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"
ATTENDING = ["dot", "general", "concat", "local-p (general)", "general + input feeding"]
GLOBAL = ["dot", "general", "concat"]       # global attention, no input feeding
BASELINE = "no attention (ch. 1)"


def load_variants_script():
    spec = importlib.util.spec_from_file_location(
        "ch03_luong_variants", EXPERIMENTS / "ch03_luong_variants.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_train_variant_is_chapter_1s_recipe():
    from attnlab.luong_attention import COMPARE, VARIANTS, train_variant
    from attnlab.rnn_bottleneck import TRAIN_LENGTHS, train_seq2seq
    threads = torch.get_num_threads()
    try:
        model, losses, seconds = train_variant("dot", seed=3, steps=2)
        torch.manual_seed(3)
        manual = VARIANTS["dot"](COMPARE["E"])
        want = train_seq2seq(manual, 2, seed=3, batch_size=COMPARE["batch_size"], lr=COMPARE["lr"],
                             min_len=TRAIN_LENGTHS[0], max_len=TRAIN_LENGTHS[1])
    finally:
        torch.set_num_threads(threads)
    assert losses == want and seconds >= 0 and not model.training
    for p, q in zip(model.parameters(), manual.parameters()):
        assert p.dtype == torch.float32 and torch.equal(p, q)
    with pytest.raises(ValueError, match="name must be one of"):
        train_variant("cosine")


def test_mirror_offsets_on_a_perfect_reader():
    """A model whose weights sit exactly on the mirrored position has offset 0 everywhere."""
    from attnlab.luong_attention import mirror_offsets, offset_counts

    class Mirror:
        def generate(self, src, src_len, max_len):
            B, S = src.shape
            w = torch.zeros(B, max_len, S)
            for t in range(min(max_len, S)):
                w[:, t, S - 1 - t] = 1
            w[:, S:, 0] = 1
            return None, w

    offsets = mirror_offsets(Mirror(), n=3, length=6)
    assert offsets.shape == (3, 6) and (offsets == 0).all()
    assert offset_counts(offsets) == {-1: 0, 0: 18, 1: 0}
    assert offset_counts(offsets + 1) == {-1: 0, 0: 0, 1: 18}


def test_variants_script_quick(tmp_path):
    """The script behind experiments/results/ch03_luong_variants.pt, at a reduced size."""
    from attnlab.luong_attention import COMPARE, VARIANTS
    from attnlab.rnn_bottleneck import TEST_LENGTHS, TRAIN_LENGTHS, train_seq2seq
    script = load_variants_script()
    threads = torch.get_num_threads()
    try:
        result = script.main(["--quick", "--out", str(tmp_path / "quick.pt")])
        saved = torch.load(tmp_path / "quick.pt", weights_only=True)   # plain data and tensors
        torch.manual_seed(0)                      # the quick run equals chapter 1's recipe
        manual = VARIANTS["general"](COMPARE["E"])
        want = train_seq2seq(manual, script.QUICK["steps"], seed=0,
                             batch_size=COMPARE["batch_size"], lr=COMPARE["lr"],
                             min_len=TRAIN_LENGTHS[0], max_len=TRAIN_LENGTHS[1])
    finally:
        torch.set_num_threads(threads)
    assert saved["steps"] == script.QUICK["steps"] and saved["seeds"] == script.QUICK["seeds"]
    assert list(saved["models"]) == list(saved["runs"]) == list(VARIANTS)
    assert saved["models"]["general"]["losses"] == want
    for name, make in VARIANTS.items():
        runs = saved["runs"][name]
        assert [r["seed"] for r in runs] == script.QUICK["seeds"]
        assert all(len(r["accuracy"]) == len(TEST_LENGTHS) and len(r["losses"]) ==
                   script.QUICK["steps"] and "state" not in r for r in runs)
        total = script.QUICK["align"]["n"] * script.QUICK["align"]["length"]
        assert all(("offsets" in r) == (name != BASELINE) for r in runs)
        assert all(sum(r["offsets"].values()) <= total for r in runs if "offsets" in r)
        model = make(COMPARE["E"])
        state = saved["models"][name]["state"]
        assert all(t.dtype == torch.float32 for t in state.values())
        model.load_state_dict(state)              # the saved state fits the chapter's model
        assert saved["models"][name]["params"] == sum(p.numel() for p in model.parameters())
        assert saved["models"][name]["losses"] == runs[0]["losses"] == \
            result["runs"][name][0]["losses"]
    for p, q in zip(manual.state_dict().values(), saved["models"]["general"]["state"].values()):
        assert torch.equal(p, q)


def test_committed_variants_file_holds_what_the_chapter_states():
    """The committed file: chapter 3's budget, small, the sweep's accuracies on every seed, and
    the claims of sections 6 and 7 (the notebook asserts them on the same numbers)."""
    from attnlab.luong_attention import COMPARE, VARIANTS
    from attnlab.rnn_bottleneck import TEST_LENGTHS
    path = EXPERIMENTS / "results" / "ch03_luong_variants.pt"
    assert path.stat().st_size < 2_000_000
    saved = torch.load(path, weights_only=True)
    assert saved["steps"] == COMPARE["steps"] == 150 and saved["budget"] == COMPARE
    assert saved["seeds"] == [0, 1, 2] and saved["dtype"] == "float32"
    assert saved["align"] == dict(n=200, length=12, seed=7) and saved["n_test"] == 200
    sweep = json.loads((EXPERIMENTS / "results" / "part1_budget_sweep.json").read_text())
    for name in VARIANTS:
        model = saved["models"][name]
        assert len(model["losses"]) == COMPARE["steps"] and model["accuracy"] == \
            saved["runs"][name][0]["accuracy"]
        for run in saved["runs"][name]:
            row = [r for r in sweep["rows"] if (r["part"], r["model"], r["seed"], r["steps"])
                   == ("luong", name, run["seed"], COMPARE["steps"])]
            assert len(row) == 1 and run["accuracy"] == row[0]["acc"], (name, run["seed"])
    long = [TEST_LENGTHS.index(n) for n in (12, 13, 14)]
    mean_long = {name: np.array([np.mean(np.array(r["accuracy"])[long])
                                 for r in saved["runs"][name]]) for name in VARIANTS}
    assert mean_long[BASELINE][0] < 0.05 and saved["models"][BASELINE]["accuracy"][0] > 0.7
    for name in ATTENDING:                         # section 6: every variant, every seed
        assert mean_long[name].min() > mean_long[BASELINE].max() + 0.05, name
    total = saved["align"]["n"] * saved["align"]["length"]
    for name in ATTENDING:                         # section 7: within one position, every seed
        for run in saved["runs"][name]:
            assert sum(run["offsets"].values()) / total > 0.6, (name, run["seed"])


def test_committed_general_model_reproduces_its_accuracies():
    """The saved weights are the trained ones: evaluated again, they give the stored accuracies
    (float32 greedy decoding; 2 strings of 200 allowed for a near-tie another CPU rounds apart)."""
    from attnlab.luong_attention import COMPARE, VARIANTS
    from attnlab.rnn_bottleneck import TEST_LENGTHS, accuracy_by_length
    saved = torch.load(EXPERIMENTS / "results" / "ch03_luong_variants.pt", weights_only=True)
    model = VARIANTS["general"](COMPARE["E"])
    model.load_state_dict(saved["models"]["general"]["state"])
    long = [12, 13, 14]
    acc = accuracy_by_length(model, long, n_per_length=saved["n_test"], seed=saved["test_seed"])
    stored = np.array(saved["models"]["general"]["accuracy"])[[TEST_LENGTHS.index(n) for n in long]]
    assert np.abs(acc - stored).max() <= 0.01
