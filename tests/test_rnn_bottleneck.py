"""Unit tests for attnlab.rnn_bottleneck (chapter 1), against independent references.

References: torch's nn.GRU / nn.GRUCell / nn.RNN with copied weights, each padded sequence run
alone, hand-written loops, and oracle models whose outputs are known exactly.
Tolerances: 1e-12 in float64, 1e-5 for float32 GRU states (|values| <= max(1, |h0|), <= 13
steps).
"""
import warnings

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from attnlab.rnn_bottleneck import (
    BOS, BUDGET, EOS, PAD, TEST_LENGTHS, TRAIN_LENGTHS, V, Encoder, GRUFromScratch,
    Seq2SeqNoAttention, accuracy_by_length, check_src, elman_cell_np, encode_batch,
    gradient_by_position, gru_cell_np, gru_cell_pt, make_pairs, rnn_np, sequence_loss,
    sigmoid_np, to_digits, train_seq2seq,
)

NAMES = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")
SIZES = [(1, 1, 1, 1), (3, 7, 5, 11), (2, 13, 9, 4), (4, 2, 16, 3)]   # (B, T, E_in, E)


def np_weights(module, names=NAMES):
    return [getattr(module, n).detach().double().numpy() for n in names]


# ---------------------------------------------------------------- the task and its batches

def test_constants():
    assert (PAD, BOS, EOS, V) == (0, 1, 2, 13)
    assert set(BUDGET) == {"steps", "batch_size", "lr", "E"}
    assert TRAIN_LENGTHS[0] <= min(TEST_LENGTHS) and max(TEST_LENGTHS) <= TRAIN_LENGTHS[1]


def test_make_pairs_is_seeded_reversal():
    a = make_pairs(50, 3, 9, np.random.default_rng(0))
    b = make_pairs(50, 3, 9, np.random.default_rng(0))
    assert a == b
    assert make_pairs(50, 3, 9, np.random.default_rng(1)) != a
    lengths = {len(s) for s, _ in a}
    assert min(lengths) >= 3 and max(lengths) <= 9 and len(lengths) > 3
    for src, tgt in a:
        assert tgt == src[::-1] and all(0 <= d <= 9 for d in src)


def test_encode_batch_hand_case():
    src, src_len, tgt_in, tgt_out = encode_batch([([1, 2, 3], [3, 2, 1]), ([7], [7])])
    assert src.tolist() == [[4, 5, 6], [10, 0, 0]]
    assert src_len.tolist() == [3, 1]
    assert tgt_in.tolist() == [[1, 6, 5, 4], [1, 10, 0, 0]]
    assert tgt_out.tolist() == [[6, 5, 4, 2], [10, 2, 0, 0]]
    assert all(t.dtype == torch.long for t in (src, src_len, tgt_in, tgt_out))


def test_to_digits_stops_at_eos():
    assert to_digits(torch.tensor([6, 5, 4, EOS, 7])) == [3, 2, 1]
    assert to_digits([3, 12]) == [0, 9]


# ---------------------------------------------------------------- the cells

def test_sigmoid_matches_torch_without_warnings():
    x = np.array([-1000.0, -30.0, -1.0, 0.0, 2.5, 40.0, 1000.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = sigmoid_np(x)
    assert np.abs(got - torch.sigmoid(torch.from_numpy(x)).numpy()).max() < 1e-15


@pytest.mark.parametrize("B,E_in,E", [(1, 1, 1), (3, 7, 5), (2, 4, 9), (5, 16, 3)])
def test_gru_cells_match_grucell_float64(B, E_in, E):
    torch.manual_seed(B * 100 + E)
    cell = nn.GRUCell(E_in, E).double()
    nn.init.normal_(cell.bias_ih)                      # non-trivial biases: catch bias placement
    nn.init.normal_(cell.bias_hh)
    x, h = torch.randn(B, E_in, dtype=torch.float64), torch.randn(B, E, dtype=torch.float64)
    weights = (cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)
    want = cell(x, h).detach().numpy()
    got_np = gru_cell_np(x.numpy(), h.numpy(), *(w.detach().numpy() for w in weights))
    got_pt = gru_cell_pt(x, h, *weights).detach().numpy()
    assert np.abs(got_np - want).max() < 1e-12
    assert np.abs(got_pt - want).max() < 1e-12


@pytest.mark.parametrize("B,T,E_in,E", SIZES)
def test_gru_sequence_matches_nn_gru(B, T, E_in, E):
    torch.manual_seed(T * 10 + E)
    builtin = nn.GRU(E_in, E, batch_first=True)
    mine = GRUFromScratch(E_in, E)
    mine.load_state_dict(builtin.state_dict())
    x, h0 = torch.randn(B, T, E_in), torch.randn(B, E)
    want_states, want_h = builtin(x, h0[None])
    got_states, got_h = mine(x, h0)
    np_states, np_h = rnn_np(gru_cell_np, x.double().numpy(), h0.double().numpy(), *np_weights(builtin))
    assert tuple(got_states.shape) == (B, T, E)
    assert (got_states - want_states).abs().max().item() < 1e-5
    assert (got_h - want_h[0]).abs().max().item() < 1e-5
    assert np.abs(np_states - want_states.detach().double().numpy()).max() < 1e-5
    assert np.abs(np_h - want_h[0].detach().double().numpy()).max() < 1e-5


def test_gru_from_scratch_default_h0_is_zero():
    torch.manual_seed(0)
    builtin = nn.GRU(3, 5, batch_first=True)
    mine = GRUFromScratch(3, 5)
    mine.load_state_dict(builtin.state_dict())
    x = torch.randn(2, 4, 3)
    assert (mine(x)[0] - builtin(x)[0]).abs().max().item() < 1e-6


def test_elman_matches_nn_rnn_float64():
    torch.manual_seed(0)
    rnn = nn.RNN(6, 5, batch_first=True).double()
    x = torch.randn(3, 9, 6, dtype=torch.float64)
    h0 = torch.randn(3, 5, dtype=torch.float64)
    want, _ = rnn(x, h0[None])
    got, _ = rnn_np(elman_cell_np, x.numpy(), h0.numpy(), *np_weights(rnn))
    assert np.abs(got - want.detach().numpy()).max() < 1e-12


def test_gru_cell_pt_gradcheck():
    torch.manual_seed(0)
    args = [torch.randn(*s, dtype=torch.float64, requires_grad=True)
            for s in [(2, 3), (2, 4), (12, 3), (12, 4), (12,), (12,)]]
    assert torch.autograd.gradcheck(gru_cell_pt, args)


# ---------------------------------------------------------------- encoder and model

def test_encoder_final_is_last_real_state():
    torch.manual_seed(0)
    enc = Encoder(V, 7)
    src, src_len, _, _ = encode_batch(make_pairs(9, 1, 12, np.random.default_rng(4)))
    assert len(set(src_len.tolist())) > 2
    states, final = enc(src, src_len)
    assert tuple(states.shape) == (*src.shape, 7) and tuple(final.shape) == (9, 7)
    for b, n in enumerate(src_len.tolist()):             # each sequence alone, no padding
        alone_states, alone_h = enc.rnn(enc.embedding(src[b:b + 1, :n]))
        assert (final[b] - alone_h[0, 0]).abs().max().item() < 1e-6
        assert (states[b, :n] - alone_states[0]).abs().max().item() < 1e-6
        assert (states[b, n:] == 0).all()


def test_seq2seq_generate_is_greedy_forward():
    """generate's tokens are the arg-max of forward fed with generate's own prefix."""
    torch.manual_seed(1)
    model = Seq2SeqNoAttention(V, 12)
    src, src_len, _, _ = encode_batch(make_pairs(5, 2, 8, np.random.default_rng(5)))
    tokens, weights = model.generate(src, src_len, max_len=6)
    assert weights is None and tuple(tokens.shape) == (5, 6) and tokens.dtype == torch.long
    prefix = torch.cat([torch.full((5, 1), BOS), tokens[:, :-1]], dim=1)
    with torch.no_grad():
        assert torch.equal(model(src, src_len, prefix).argmax(-1), tokens)


def test_sequence_loss_matches_hand_loop():
    torch.manual_seed(2)
    _, _, _, tgt_out = encode_batch(make_pairs(5, 1, 7, np.random.default_rng(6)))
    logits = torch.randn(*tgt_out.shape, V, dtype=torch.float64)
    terms = [-torch.log_softmax(logits[b, t], 0)[tgt_out[b, t]]
             for b in range(tgt_out.shape[0]) for t in range(tgt_out.shape[1]) if tgt_out[b, t] != PAD]
    assert abs(sequence_loss(logits, tgt_out).item() - torch.stack(terms).mean().item()) < 1e-12


# ---------------------------------------------------------------- training and evaluation

class Oracle(nn.Module):
    """Generates the exact reversal + EOS, then junk; `mode` breaks it on purpose."""

    def __init__(self, mode="right"):
        super().__init__()
        self.mode = mode
        self.dummy = nn.Parameter(torch.zeros(1))

    def generate(self, src, src_len, max_len):
        B = src.shape[0]
        tokens = torch.full((B, max_len), 7, dtype=torch.long)   # junk after EOS is allowed
        for b, n in enumerate(src_len.tolist()):
            out = src[b, :n].flip(0).tolist() + [EOS]
            if self.mode == "no_eos":
                out[-1] = 5
            if self.mode == "one_digit_wrong" and b % 2 == 0:
                out[0] = 3 + (out[0] - 3 + 1) % 10
            tokens[b, :len(out)] = torch.tensor(out[:max_len])
        return tokens, torch.zeros(B, max_len, src.shape[1])


def test_accuracy_by_length_on_oracles():
    lengths = [3, 7, 14]
    assert accuracy_by_length(Oracle("right"), lengths, 20, seed=0).tolist() == [1.0, 1.0, 1.0]
    assert accuracy_by_length(Oracle("no_eos"), lengths, 20, seed=0).tolist() == [0.0, 0.0, 0.0]
    assert accuracy_by_length(Oracle("one_digit_wrong"), lengths, 20, seed=0).tolist() == [0.5] * 3


def test_train_seq2seq_is_deterministic_and_learns():
    def run():
        torch.manual_seed(0)
        model = Seq2SeqNoAttention(V, 16)
        return model, train_seq2seq(model, 60, seed=3, batch_size=16, lr=1e-2, min_len=2, max_len=3)
    model_a, losses_a = run()
    _, losses_b = run()
    assert losses_a == losses_b and len(losses_a) == 60
    assert np.mean(losses_a[-10:]) < 0.8 * np.mean(losses_a[:10])
    assert not model_a.training


def test_train_seq2seq_accepts_tuple_forward():
    class TupleModel(Seq2SeqNoAttention):
        def forward(self, src, src_len, tgt_in):
            logits = super().forward(src, src_len, tgt_in)
            return logits, torch.zeros(logits.shape[0], logits.shape[1], src.shape[1])
    torch.manual_seed(0)
    losses = train_seq2seq(TupleModel(V, 8), 3, seed=0, batch_size=4, lr=1e-3, min_len=2, max_len=4)
    assert len(losses) == 3 and all(np.isfinite(losses))


# ---------------------------------------------------------------- bad input

def test_bad_inputs_name_the_shapes():
    with pytest.raises(ValueError, match=r"W_ih \(12, 4\)"):
        gru_cell_np(np.zeros((2, 5)), np.zeros((2, 4)), np.zeros((12, 4)), np.zeros((12, 4)),
                    np.zeros(12), np.zeros(12))
    with pytest.raises(ValueError, match=r"x \(2, 5\), h \(3, 4\)"):
        gru_cell_pt(torch.zeros(2, 5), torch.zeros(3, 4), torch.zeros(12, 5), torch.zeros(12, 4),
                    torch.zeros(12), torch.zeros(12))
    with pytest.raises(ValueError, match=r"W_ih \(5, 3\)"):
        elman_cell_np(np.zeros((2, 3)), np.zeros((2, 4)), np.zeros((5, 3)), np.zeros((4, 4)),
                      np.zeros(4), np.zeros(4))
    with pytest.raises(ValueError, match=r"src \(2, 5\), src_len \(3,\)"):
        check_src(torch.zeros(2, 5, dtype=torch.long), torch.tensor([1, 2, 3]))
    with pytest.raises(ValueError, match=r"1..S=5"):
        Encoder(V, 4)(torch.ones(2, 5, dtype=torch.long), torch.tensor([6, 2]))
    with pytest.raises(ValueError, match=r"\(7, 3\)"):
        GRUFromScratch(3, 4)(torch.zeros(7, 3))
    with pytest.raises(ValueError, match=r"logits \(2, 3, 13\), tgt_out \(2, 4\)"):
        sequence_loss(torch.zeros(2, 3, 13), torch.zeros(2, 4, dtype=torch.long))
    with pytest.raises(ValueError, match="min_len=5, max_len=3"):
        make_pairs(2, 5, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="digits 0-9"):
        encode_batch([([1, 12], [12, 1])])


# ---------------------------------------------------------------- second edition additions

def test_bad_arguments_name_the_argument_and_the_fix():
    model = Seq2SeqNoAttention(V, 8)
    with pytest.raises(ValueError, match="steps must be a positive int"):
        train_seq2seq(model, 0, seed=0, batch_size=4, lr=1e-3, min_len=3, max_len=5)
    with pytest.raises(ValueError, match="batch_size must be a positive int"):
        train_seq2seq(model, 2, seed=0, batch_size=2.5, lr=1e-3, min_len=3, max_len=5)
    with pytest.raises(ValueError, match=r"lr \(the Adam learning rate\) must be > 0"):
        train_seq2seq(model, 2, seed=0, batch_size=4, lr=0.0, min_len=3, max_len=5)
    with pytest.raises(ValueError, match="needs a generate"):
        accuracy_by_length(nn.Linear(2, 2), [3], 4, seed=0)
    with pytest.raises(ValueError, match="non-empty list of ints"):
        accuracy_by_length(model, [], 4, seed=0)
    with pytest.raises(ValueError, match="n_per_length must be a positive int"):
        accuracy_by_length(model, [3], 0, seed=0)
    with pytest.raises(ValueError, match="ONE row"):
        to_digits(torch.zeros(2, 3, dtype=torch.long))
    with pytest.raises(ValueError, match=r"src must be a torch.long tensor.*torch.as_tensor"):
        check_src(np.zeros((2, 3), dtype=np.int64), torch.tensor([3, 3]))
    with pytest.raises(ValueError, match="src_len must be a torch.long tensor"):
        check_src(torch.zeros(2, 3, dtype=torch.long), torch.tensor([3.0, 3.0]))
    with pytest.raises(ValueError, match="cell must be one of"):
        Seq2SeqNoAttention(V, 8, cell="lstm")
    with pytest.raises(ValueError, match="E .the state width. must be a positive int"):
        Encoder(V, 0)
    with pytest.raises(ValueError, match="encoder.embedding"):
        gradient_by_position(nn.Linear(2, 2), *encode_batch(make_pairs(2, 3, 3,
                                                                       np.random.default_rng(0))))


def test_plain_rnn_option_uses_nn_rnn_and_trains():
    torch.manual_seed(0)
    model = Seq2SeqNoAttention(V, 8, cell="rnn")
    assert isinstance(model.encoder.rnn, nn.RNN) and isinstance(model.rnn, nn.RNN)
    src, src_len, tgt_in, _ = encode_batch(make_pairs(3, 2, 6, np.random.default_rng(1)))
    states, final = model.encoder(src, src_len)
    assert torch.equal(final, states[torch.arange(3), src_len - 1])   # packing works for nn.RNN
    losses = train_seq2seq(model, 30, seed=0, batch_size=16, lr=5e-3, min_len=2, max_len=4)
    assert np.mean(losses[-5:]) < np.mean(losses[:5])


def test_on_step_sees_every_step_and_does_not_change_training():
    def run(callback):
        torch.manual_seed(0)
        m = Seq2SeqNoAttention(V, 8).double()
        return m, train_seq2seq(m, 6, seed=0, batch_size=8, lr=5e-3, min_len=2, max_len=4,
                                on_step=callback)
    seen = []
    def evaluate(step, m):                       # what the sweep does at a checkpoint
        seen.append(step)
        accuracy_by_length(m, [3], 4, seed=1)
        m.train()
    _, plain = run(None)
    _, watched = run(evaluate)
    assert seen == [1, 2, 3, 4, 5, 6] and plain == watched


def test_gradient_by_position_matches_autograd_on_the_embedding():
    torch.manual_seed(0)
    model = Seq2SeqNoAttention(V, 6).double()
    src, src_len, tgt_in, tgt_out = encode_batch(make_pairs(4, 5, 5, np.random.default_rng(2)))
    got = gradient_by_position(model, src, src_len, tgt_in, tgt_out)
    model.zero_grad()
    emb = model.encoder.embedding(src).detach().requires_grad_()      # the same quantity, by hand
    original = model.encoder.embedding.forward
    model.encoder.embedding.forward = lambda _: emb
    try:
        logits = model(src, src_len, tgt_in)
    finally:
        model.encoder.embedding.forward = original
    F.cross_entropy(logits.reshape(-1, V), tgt_out.reshape(-1), ignore_index=PAD,
                    reduction="sum").backward()
    np.testing.assert_allclose(got, emb.grad.norm(dim=-1).mean(0).numpy(), atol=1e-12)


def test_budget_sweep_quick_run(tmp_path):
    """The script behind experiments/results/part1_budget_sweep.json, at a reduced size."""
    import importlib.util
    import json
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "experiments" / "part1_budget_sweep.py"
    spec = importlib.util.spec_from_file_location("part1_budget_sweep", path)
    sweep = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sweep)
    out = sweep.main(["--quick", "--out", str(tmp_path / "quick.json")])
    data = json.loads(out.read_text())
    assert data["complete"] and data["grid"] == sweep.QUICK
    rows = data["rows"]
    assert {r["part"] for r in rows} == {"budget", "width", "luong"}
    assert len({(r["model"], r["seed"]) for r in rows if r["part"] == "luong"}) == 6 * 2
    for r in rows:
        if "acc" in r:
            assert len(r["acc"]) == len(TEST_LENGTHS) and all(0 <= a <= 1 for a in r["acc"])
    grads = [r for r in rows if "grad" in r]
    assert grads and all(len(g["grad"]["6"]) == 6 for g in grads)
    # the both-axes grid: Bahdanau at the same checkpoints and widths as the baseline
    assert data["grid"]["checkpoints"]["bahdanau"] == data["grid"]["checkpoints"]["none"]
    assert data["grid"]["widths"]["bahdanau"] == data["grid"]["widths"]["none"]
    # the seed analyses: every budget checkpoint, and Bahdanau's alignment also at step 0
    trained = [r for r in rows if r["part"] == "budget" and r["steps"] > 0]
    assert trained and all(len(r["by_source"]) == 6 and len(r["decode"]["digits"])
                           == len(TEST_LENGTHS) for r in trained)
    att = [r for r in rows if r["part"] == "budget" and r["model"] == "bahdanau"]
    assert {r["steps"] for r in att} == {0, 2, 4}
    assert all(len(r["decode"]["previous"]) == len(TEST_LENGTHS) for r in att)
    # reproducible: a second run of one job gives the same rows
    job = [j for j in sweep.jobs(sweep.QUICK) if j[0] == "budget" and j[1] == "none"][0]
    again = [r for r in sweep.run_job(job)]
    first = [r for r in rows if (r["part"], r["model"], r["seed"]) == ("budget", "none", job[2])]
    strip = lambda rs: [{k: v for k, v in r.items() if k != "seconds"} for r in rs]
    assert strip(again) == strip(first)


def test_committed_sweep_results_match_the_script_grid():
    import json
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    data = json.loads((root / "experiments" / "results" / "part1_budget_sweep.json").read_text())
    assert data["complete"], "the committed sweep is incomplete: rerun the script"
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "part1_budget_sweep", root / "experiments" / "part1_budget_sweep.py")
    sweep = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sweep)
    assert data["grid"] == json.loads(json.dumps(sweep.FULL))
    # one row per checkpoint, and one more at step 0 for every budget run (initialisation)
    assert len(data["rows"]) == sum(len(j[4]) + (j[0] == "budget") for j in sweep.jobs(sweep.FULL))


def load_sweep_script():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "experiments" / "part1_budget_sweep.py"
    spec = importlib.util.spec_from_file_location("part1_budget_sweep", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sweep_lost_digits_matches_chapter_1s_computation():
    """The sweep's by_source counts = chapter 1's section 7 (teacher forced, flipped) x probe_n."""
    sweep = load_sweep_script()
    grid = dict(probe_length=7, probe_n=9)
    torch.manual_seed(3)
    model = Seq2SeqNoAttention(V, 8).double().eval()
    got = sweep.lost_digits(model, grid)
    src, src_len, tgt_in, tgt_out = encode_batch(make_pairs(9, 7, 7, np.random.default_rng([2, 7])))
    with torch.no_grad():
        predicted = model(src, src_len, tgt_in).argmax(-1)
    want = (predicted == tgt_out).float().mean(0)[:7].flip(0).numpy()
    np.testing.assert_allclose(np.array(got) / 9, want, atol=1e-6)


def test_sweep_alignment_counts_match_chapter_2s_loops():
    """decode_analyses counts = chapter 2's section 8, written as its per-input loops."""
    from attnlab.bahdanau_attention import Seq2SeqBahdanau
    sweep = load_sweep_script()
    grid = dict(n_per_length=6)
    torch.manual_seed(4)
    model = Seq2SeqBahdanau(V, 8).double().eval()
    got = sweep.decode_analyses(model, grid)
    for k, n in enumerate(TEST_LENGTHS):
        src, src_len, _, tgt = encode_batch(make_pairs(6, n, n, np.random.default_rng([1, n])))
        tokens, w = model.generate(src, src_len, n + 1)
        digits = textbook = previous = first_errors = off_first = right = off_right = 0
        for b in range(6):
            for i in range(n + 1):
                a = int(w[b, i].argmax())
                if i < n:
                    digits += int(tokens[b, i] == tgt[b, i])
                    textbook += a == n - 1 - i
                previous += a == min(n - i, n - 1)
            wrong = [i for i in range(n + 1) if tokens[b, i] != tgt[b, i]]
            stop = wrong[0] if wrong else n + 1
            right += stop
            off_right += sum(int(w[b, i].argmax()) != min(n - i, n - 1) for i in range(stop))
            if wrong:
                first_errors += 1
                off_first += int(w[b, stop].argmax()) != min(n - stop, n - 1)
        assert (got["digits"][k], got["textbook"][k], got["previous"][k]) == (digits, textbook,
                                                                              previous)
        assert (got["first_errors"][k], got["off_at_first_error"][k], got["right_steps"][k],
                got["off_while_right"][k]) == (first_errors, off_first, right, off_right)
        assert got["peak"][k] == pytest.approx(w.max(-1).values.mean().item(), abs=1e-6)
    none = sweep.decode_analyses(Seq2SeqNoAttention(V, 8).double().eval(), grid)
    assert set(none) == {"digits"}                  # no weights: only the digits right
