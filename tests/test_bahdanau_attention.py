"""Unit tests for attnlab.bahdanau_attention (chapter 2), against independent references."""
import math

import numpy as np
import pytest
import torch

from attnlab.bahdanau_attention import AdditiveAttention, additive_attention_np

# (B, L, S, Eq, Ek, Da): L != S, Eq != Ek != Da, single step, single key, Da = 1
SIZES = [(1, 1, 1, 1, 1, 1), (2, 3, 5, 4, 6, 7), (3, 9, 2, 5, 5, 1), (4, 1, 13, 8, 3, 11)]


def loop_reference(query, keys, W_q, W_k, v_a, lengths):
    """Additive attention with explicit Python loops and math.tanh/math.exp, float64."""
    B, L, S = query.shape[0], query.shape[1], keys.shape[1]
    Da = v_a.shape[0]
    context = np.zeros((B, L, keys.shape[2]))
    weights = np.zeros((B, L, S))
    for b in range(B):
        for i in range(L):
            scores = []
            for j in range(lengths[b]):
                e = 0.0
                for a in range(Da):
                    pre = sum(query[b, i, x] * W_q[x, a] for x in range(query.shape[2]))
                    pre += sum(keys[b, j, x] * W_k[x, a] for x in range(keys.shape[2]))
                    e += v_a[a] * math.tanh(pre)
                scores.append(e)
            top = max(scores)
            exps = [math.exp(s - top) for s in scores]
            for j, ex in enumerate(exps):
                weights[b, i, j] = ex / sum(exps)
                context[b, i] += weights[b, i, j] * keys[b, j]
    return context, weights


def random_case(B, L, S, Eq, Ek, Da, seed):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, S + 1, size=B)
    allowed = np.arange(S)[None, :] < lengths[:, None]
    arrays = (rng.normal(size=(B, L, Eq)), rng.normal(size=(B, S, Ek)),
              rng.normal(size=(Eq, Da)), rng.normal(size=(Ek, Da)), rng.normal(size=Da))
    return arrays, lengths, allowed


@pytest.mark.parametrize("size", SIZES)
def test_numpy_matches_loop_reference(size):
    (query, keys, W_q, W_k, v_a), lengths, allowed = random_case(*size, seed=sum(size))
    context, weights = additive_attention_np(query, keys, W_q, W_k, v_a, allowed)
    ref_context, ref_weights = loop_reference(query, keys, W_q, W_k, v_a, lengths)
    assert np.abs(weights - ref_weights).max() <= 1e-12       # float64 vs float64
    assert np.abs(context - ref_context).max() <= 1e-12
    assert np.allclose(weights.sum(-1), 1.0)


def test_no_mask_equals_all_true_mask():
    (query, keys, W_q, W_k, v_a), _, _ = random_case(2, 3, 4, 5, 6, 7, seed=0)
    a = additive_attention_np(query, keys, W_q, W_k, v_a)
    b = additive_attention_np(query, keys, W_q, W_k, v_a, np.ones((2, 4), dtype=bool))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_unbatched_and_broadcast_batch_dims():
    """(L, E) queries against (B, S, E) keys broadcast like a batched call."""
    (query, keys, W_q, W_k, v_a), _, _ = random_case(3, 4, 5, 6, 6, 2, seed=1)
    single = query[0]                                                   # (L, Eq)
    got, _ = additive_attention_np(single, keys, W_q, W_k, v_a)         # -> (B, L, Ek)
    want, _ = additive_attention_np(np.broadcast_to(single, query.shape), keys, W_q, W_k, v_a)
    assert got.shape == (3, 4, 6) and np.abs(got - want).max() <= 1e-15


def test_padding_content_is_ignored():
    (query, keys, W_q, W_k, v_a), lengths, allowed = random_case(4, 3, 9, 4, 4, 5, seed=2)
    context, weights = additive_attention_np(query, keys, W_q, W_k, v_a, allowed)
    noisy = keys.copy()
    noisy[~allowed] = 1e3
    context2, weights2 = additive_attention_np(query, noisy, W_q, W_k, v_a, allowed)
    assert np.array_equal(context, context2) and np.array_equal(weights, weights2)
    assert (weights[np.broadcast_to(~allowed[:, None, :], weights.shape)] == 0).all()


@pytest.mark.parametrize("size", SIZES)
def test_module_matches_numpy(size):
    B, L, S, Eq, Ek, Da = size
    torch.manual_seed(sum(size))
    attn = AdditiveAttention(Eq, Ek, Da)
    query, keys = torch.randn(B, L, Eq), torch.randn(B, S, Ek)
    lengths = torch.randint(1, S + 1, (B,))
    allowed = torch.arange(S)[None, :] < lengths[:, None]
    W_q = attn.W_q.weight.detach().T.double().numpy()     # nn.Linear stores (out, in)
    W_k = attn.W_k.weight.detach().T.double().numpy()
    v_a = attn.v_a.weight.detach()[0].double().numpy()
    ctx, w = attn(query, keys, allowed)
    ctx_np, w_np = additive_attention_np(query.numpy(), keys.numpy(), W_q, W_k, v_a, allowed.numpy())
    assert ctx.dtype == torch.float32 and ctx.shape == (B, L, Ek) and w.shape == (B, L, S)
    assert np.abs(ctx.detach().double().numpy() - ctx_np).max() <= 2e-6   # float32 vs float64
    assert np.abs(w.detach().double().numpy() - w_np).max() <= 2e-6
    # precomputed key projections give the same result
    ctx2, w2 = attn(query, keys, allowed, keys_proj=attn.project_keys(keys))
    assert torch.equal(ctx, ctx2) and torch.equal(w, w2)


def test_module_gradcheck_and_no_gradient_to_padding():
    torch.manual_seed(0)
    attn = AdditiveAttention(3, 4, 5).double()
    query = torch.randn(2, 3, 3, dtype=torch.float64, requires_grad=True)
    keys = torch.randn(2, 6, 4, dtype=torch.float64, requires_grad=True)
    allowed = torch.tensor([[True] * 6, [True] * 2 + [False] * 4])
    assert torch.autograd.gradcheck(lambda q, k: attn(q, k, allowed)[0], (query, keys))
    attn(query, keys, allowed)[0].sum().backward()
    assert (keys.grad[1, 2:] == 0).all() and (keys.grad[1, :2] != 0).any()


BAD = [  # (description, query, keys, W_q, W_k, v_a, allowed, message fragment)
    ("Eq mismatch", (2, 3, 4), (2, 5, 6), (5, 7), (6, 7), (7,), None, r"query \(2, 3, 4\)"),
    ("Ek mismatch", (2, 3, 4), (2, 5, 6), (4, 7), (5, 7), (7,), None, r"W_k \(5, 7\)"),
    ("Da mismatch", (2, 3, 4), (2, 5, 6), (4, 7), (6, 7), (8,), None, r"v_a \(8,\)"),
    ("1-D query", (4,), (2, 5, 4), (4, 7), (4, 7), (7,), None, r"query \(4,\)"),
    ("batch dims", (2, 3, 4), (3, 5, 4), (4, 7), (4, 7), (7,), None, r"keys \(3, 5, 4\)"),
    ("mask length", (2, 3, 4), (2, 5, 4), (4, 7), (4, 7), (7,), (2, 4), r"allowed \(2, 4\)"),
    ("mask batch", (2, 3, 4), (2, 5, 4), (4, 7), (4, 7), (7,), (3, 5), r"allowed \(3, 5\)"),
]


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_bad_shapes_raise_naming_the_shapes(case):
    _, q, k, wq, wk, va, allowed, message = case
    mask = None if allowed is None else np.ones(allowed, dtype=bool)
    with pytest.raises(ValueError, match=message):
        additive_attention_np(np.zeros(q), np.zeros(k), np.zeros(wq), np.zeros(wk), np.zeros(va), mask)


def test_module_rejects_bad_shapes():
    attn = AdditiveAttention(4, 6, 7)
    with pytest.raises(ValueError, match=r"query \(2, 3, 5\)"):
        attn(torch.zeros(2, 3, 5), torch.zeros(2, 5, 6))
    with pytest.raises(ValueError, match=r"allowed \(2, 4\)"):
        attn(torch.zeros(2, 3, 4), torch.zeros(2, 5, 6), torch.ones(2, 4, dtype=torch.bool))


def test_rejects_float_mask_empty_rows_and_nan():
    (query, keys, W_q, W_k, v_a), _, allowed = random_case(2, 3, 4, 5, 5, 2, seed=3)
    with pytest.raises(ValueError, match="boolean"):
        additive_attention_np(query, keys, W_q, W_k, v_a, allowed.astype(float))
    empty = allowed.copy()
    empty[1] = False
    with pytest.raises(ValueError, match="no True entry"):
        additive_attention_np(query, keys, W_q, W_k, v_a, empty)
    with pytest.raises(ValueError, match="no True entry"):
        AdditiveAttention(5, 5, 2)(torch.zeros(2, 3, 5), torch.zeros(2, 4, 5), torch.from_numpy(empty))
    keys[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        additive_attention_np(query, keys, W_q, W_k, v_a, allowed)


# ---- the Bahdanau seq2seq model (untrained: shapes, masks, consistency) ----

from attnlab.bahdanau_attention import Seq2SeqBahdanau, source_allowed  # noqa: E402
from attnlab.rnn_bottleneck import BOS, V, encode_batch, make_pairs  # noqa: E402


def test_source_allowed():
    got = source_allowed(torch.tensor([3, 1, 4]), 4)
    want = torch.tensor([[1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 1, 1]], dtype=torch.bool)
    assert torch.equal(got, want)


def small_batch(seed=0, n=5, lo=2, hi=9):
    return encode_batch(make_pairs(n, lo, hi, np.random.default_rng(seed)))


def test_model_shapes_and_masked_weights():
    torch.manual_seed(0)
    model = Seq2SeqBahdanau(V, 8)
    src, src_len, tgt_in, _ = small_batch()
    B, S = src.shape
    L = tgt_in.shape[1]
    logits = model(src, src_len, tgt_in)
    tokens, weights = model.generate(src, src_len, L + 2)
    assert logits.shape == (B, L, V) and tokens.shape == (B, L + 2) and weights.shape == (B, L + 2, S)
    assert torch.allclose(weights.sum(-1), torch.ones(B, L + 2))
    padding = ~source_allowed(src_len, S)[:, None, :].expand_as(weights)
    assert (weights[padding] == 0).all()


def test_teacher_forcing_and_generation_agree():
    torch.manual_seed(1)
    model = Seq2SeqBahdanau(V, 16)
    src, src_len, _, _ = small_batch(seed=1)
    tokens, w_gen = model.generate(src, src_len, 7)
    fed_back = torch.cat([torch.full((src.shape[0], 1), BOS), tokens[:, :-1]], dim=1)
    logits, w_tf = model.teacher_forced(src, src_len, fed_back)
    assert (w_tf - w_gen).abs().max() <= 1e-6
    assert torch.equal(logits.argmax(-1), tokens)


def test_output_does_not_depend_on_the_batch():
    """A sentence decoded alone and next to a much longer one: the padding mask at work."""
    torch.manual_seed(2)
    model = Seq2SeqBahdanau(V, 16)
    pairs = make_pairs(3, 3, 4, np.random.default_rng(2))
    long_pair = make_pairs(1, 30, 30, np.random.default_rng(3))
    src, src_len, tgt_in, _ = encode_batch(pairs)
    src2, src_len2, tgt_in2, _ = encode_batch(pairs + long_pair)
    alone = model(src, src_len, tgt_in)
    batched = model(src2, src_len2, tgt_in2)[:3, :tgt_in.shape[1]]
    assert (alone - batched).abs().max() <= 1e-5
    _, w_alone = model.generate(src, src_len, 5)
    _, w_batched = model.generate(src2, src_len2, 5)
    assert (w_alone - w_batched[:3, :, :src.shape[1]]).abs().max() <= 1e-6
    assert (w_batched[:3, :, src.shape[1]:] == 0).all()


def test_model_rejects_bad_source_shapes():
    model = Seq2SeqBahdanau(V, 8)
    with pytest.raises(ValueError, match=r"src \(2, 5\), src_len \(3,\)"):
        model(torch.zeros(2, 5, dtype=torch.long), torch.tensor([5, 5, 5]), torch.zeros(2, 3, dtype=torch.long))


def test_train_with_budget_is_chapter_1s_recipe(monkeypatch):
    import attnlab.bahdanau_attention as ch2
    from attnlab.rnn_bottleneck import Seq2SeqNoAttention, train_seq2seq

    threads = torch.get_num_threads()
    small = dict(steps=3, batch_size=4, lr=1e-2, E=8)
    monkeypatch.setattr(ch2, "BUDGET", small)
    try:
        model, losses, seconds = ch2.train_with_budget(Seq2SeqNoAttention, seed=5)
        again, losses_again, _ = ch2.train_with_budget(Seq2SeqNoAttention, seed=5)
        torch.manual_seed(5)
        manual = Seq2SeqNoAttention(V, 8).double()       # float64, as train_with_budget
        want = train_seq2seq(manual, 3, seed=5, batch_size=4, lr=1e-2, min_len=ch2.TRAIN_LENGTHS[0],
                             max_len=ch2.TRAIN_LENGTHS[1])
    finally:
        torch.set_num_threads(threads)
    assert len(losses) == 3 and seconds >= 0
    assert losses == losses_again == want
    for p, q in zip(model.parameters(), manual.parameters()):
        assert torch.equal(p, q)


def test_module_and_helpers_reject_wrong_types_naming_the_fix():
    from attnlab.bahdanau_attention import Seq2SeqBahdanau, source_allowed, train_with_budget
    attn = AdditiveAttention(3, 4, 5)                                  # float32
    with pytest.raises(ValueError, match=r"query must be a torch tensor.*torch.as_tensor"):
        attn(np.zeros((1, 2, 3), dtype=np.float32), torch.zeros(1, 4, 4))
    with pytest.raises(ValueError, match=r"keys is torch.float64 but the module's weights"):
        attn(torch.zeros(1, 2, 3), torch.zeros(1, 4, 4, dtype=torch.float64))
    with pytest.raises(ValueError, match="src_len must be a 1-D integer tensor"):
        source_allowed(np.array([2, 3]), 4)
    with pytest.raises(ValueError, match=r"src_len must lie in 1..S=4"):
        source_allowed(torch.tensor([2, 5]), 4)
    with pytest.raises(ValueError, match="model_class must be a class"):
        train_with_budget("Seq2SeqBahdanau")
    model = Seq2SeqBahdanau(13, 8)
    with pytest.raises(ValueError, match="src must be a torch.long tensor"):
        model(torch.zeros(2, 3), torch.tensor([3, 3]), torch.zeros(2, 4, dtype=torch.long))


# --- experiments/part1_seed0_models.py: the models chapters 1 and 2 load -------------------------

import importlib.util  # noqa: E402
import json  # noqa: E402
from pathlib import Path  # noqa: E402

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"


def load_seed0_script():
    spec = importlib.util.spec_from_file_location(
        "part1_seed0_models", EXPERIMENTS / "part1_seed0_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_seed0_script_quick(tmp_path):
    """The script behind experiments/results/part1_seed0_models.pt, at a reduced size."""
    from attnlab.rnn_bottleneck import (BUDGET, TEST_LENGTHS, TRAIN_LENGTHS, Seq2SeqNoAttention,
                                        train_seq2seq)
    script = load_seed0_script()
    threads = torch.get_num_threads()
    try:
        result = script.main(["--quick", "--out", str(tmp_path / "quick.pt")])
        saved = torch.load(tmp_path / "quick.pt", weights_only=True)   # plain data and tensors
        torch.manual_seed(0)                      # the quick run equals chapter 1's recipe
        manual = Seq2SeqNoAttention(V, BUDGET["E"]).double()
        want = train_seq2seq(manual, script.QUICK["steps"], seed=0, batch_size=BUDGET["batch_size"],
                             lr=BUDGET["lr"], min_len=TRAIN_LENGTHS[0], max_len=TRAIN_LENGTHS[1])
    finally:
        torch.set_num_threads(threads)
    assert saved["steps"] == script.QUICK["steps"] and set(saved["models"]) == {"none", "bahdanau"}
    assert saved["models"]["none"]["losses"] == want
    for name, cls in script.MODELS.items():
        run = saved["models"][name]
        assert all(t.dtype == torch.float64 for t in run["state"].values())
        assert len(run["accuracy"]) == len(TEST_LENGTHS) and run["seconds"] >= 0
        model = cls(V, BUDGET["E"]).double()
        model.load_state_dict(run["state"])       # the saved state fits the chapter's model
        assert run["losses"] == result["models"][name]["losses"]
    for p, q in zip(manual.state_dict().values(), saved["models"]["none"]["state"].values()):
        assert torch.equal(p, q)


def test_committed_seed0_models_match_the_sweep():
    """The committed file: chapter 1's budget, small, and the sweep's seed-0 accuracies."""
    from attnlab.rnn_bottleneck import BUDGET
    path = EXPERIMENTS / "results" / "part1_seed0_models.pt"
    assert path.stat().st_size < 2_000_000
    saved = torch.load(path, weights_only=True)
    assert saved["steps"] == BUDGET["steps"] and saved["budget"] == BUDGET and saved["seed"] == 0
    sweep = json.loads((EXPERIMENTS / "results" / "part1_budget_sweep.json").read_text())
    for name in ("none", "bahdanau"):
        row = [r for r in sweep["rows"] if (r["part"], r["model"], r["E"], r["seed"], r["steps"])
               == ("budget", name, BUDGET["E"], 0, BUDGET["steps"])]
        assert len(row) == 1 and saved["models"][name]["accuracy"] == row[0]["acc"]
        assert len(saved["models"][name]["losses"]) == BUDGET["steps"]
