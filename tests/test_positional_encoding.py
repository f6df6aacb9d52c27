"""attnlab.positional_encoding against independent references (tolerances stated per test)."""
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn as nn

from attnlab.positional_encoding import (LearnedPositionalEmbedding, alibi_bias_np, alibi_bias_pt,
                                         alibi_slopes, interleaved_to_half_perm, ntk_base,
                                         ntk_inv_freq_np, pi_inv_freq_np,
                                         relative_position_index_np, rope_decay_bound_np,
                                         rope_interleaved_np, rope_interleaved_pt,
                                         rope_inv_freq_np, rope_rotate_half_freqs_np,
                                         rope_rotate_half_freqs_pt, rope_rotate_half_np,
                                         rope_rotate_half_pt, rope_wavelengths_np,
                                         sinusoidal_pe_np, sinusoidal_pe_pt,
                                         sinusoidal_shift_matrix_np, t5_relative_bucket_np,
                                         yarn_inv_freq_np, llama3_inv_freq_np, rope_partial_np)

ROOT = Path(__file__).resolve().parents[1]


def reference_sinusoidal(P, E, base=10000.0):
    """Element by element, straight from Vaswani et al. (2017), section 3.5."""
    pe = np.zeros((P, E))
    for pos in range(P):
        for i in range(E // 2):
            pe[pos, 2 * i] = np.sin(pos / base ** (2 * i / E))
            pe[pos, 2 * i + 1] = np.cos(pos / base ** (2 * i / E))
    return pe


def reference_rope_complex(x, positions, base=10000.0):
    """RoFormer's complex view, independent of the real-valued code: z * exp(i m theta)."""
    D = x.shape[-1]
    theta = base ** (-np.arange(0, D, 2) / D)
    z = x[..., 0::2] + 1j * x[..., 1::2]
    z = z * np.exp(1j * np.asarray(positions)[:, None] * theta)
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = z.real, z.imag
    return out


@pytest.mark.parametrize("P,E", [(1, 2), (7, 6), (50, 64), (129, 18)])
def test_sinusoidal_matches_formula_and_torch(P, E):
    ref = reference_sinusoidal(P, E)
    pe = sinusoidal_pe_np(P, E)
    assert pe.dtype == np.float64 and pe.shape == (P, E)
    assert np.abs(pe - ref).max() <= 1e-12
    pt64 = sinusoidal_pe_pt(P, E, dtype=torch.float64)
    assert np.abs(pt64.numpy() - ref).max() <= 1e-12
    pt32 = sinusoidal_pe_pt(P, E)
    assert pt32.dtype == torch.float32 and np.abs(pt32.numpy() - ref).max() <= 1e-6


def test_sinusoidal_shift_is_a_rotation_independent_of_pos():
    E = 32
    pe = sinusoidal_pe_np(1500, E)
    worst = 0.0
    for k in [0, 1, 2, 7, 100, 499]:
        M = sinusoidal_shift_matrix_np(k, E)
        assert np.abs(M @ M.T - np.eye(E)).max() <= 1e-14          # orthogonal
        off_block = M.copy()
        for i in range(0, E, 2):
            off_block[i:i + 2, i:i + 2] = 0
        assert (off_block == 0).all()                               # block-diagonal 2x2
        worst = max(worst, np.abs(pe[k:1000 + k] - pe[:1000] @ M.T).max())
    assert worst <= 1e-12


def test_sinusoidal_dot_product_depends_only_on_offset():
    pe = sinusoidal_pe_np(400, 48)
    gram = pe @ pe.T                                                # (P, E) @ (E, P) -> (P, P)
    for d in [-37, -1, 0, 5, 120]:
        diag = np.diagonal(gram, offset=d)
        assert np.ptp(diag) <= 1e-11


def test_rope_forms_against_complex_view_and_torch():
    rng = np.random.default_rng(0)
    for shape, start in [((1, 2), 0), ((3, 5, 6), 11), ((2, 3, 17, 64), 1000)]:
        x = rng.normal(size=shape)
        pos = np.arange(start, start + shape[-2])
        ref = reference_rope_complex(x, pos)
        assert np.abs(rope_interleaved_np(x, pos) - ref).max() <= 1e-12
        pt = rope_interleaved_pt(torch.tensor(x), torch.tensor(pos)).numpy()
        assert np.abs(pt - ref).max() <= 1e-12
        perm = interleaved_to_half_perm(shape[-1])
        half = rope_rotate_half_np(x[..., perm], pos)
        assert np.abs(half - ref[..., perm]).max() <= 1e-12
        half_pt = rope_rotate_half_pt(torch.tensor(x[..., perm]), pos).numpy()
        assert np.abs(half_pt - half).max() <= 1e-12
        x32 = torch.tensor(x, dtype=torch.float32)
        assert rope_rotate_half_pt(x32, pos).dtype == torch.float32
        assert np.abs(rope_rotate_half_pt(x32, pos).numpy()
                      - rope_rotate_half_np(x, pos)).max() <= 1e-4


def test_rope_forms_differ_without_the_permutation():
    x = np.random.default_rng(1).normal(size=(5, 8))
    pos = np.arange(5)
    assert np.abs(rope_interleaved_np(x, pos) - rope_rotate_half_np(x, pos)).max() > 0.1


@pytest.mark.parametrize("rope", [rope_interleaved_np, rope_rotate_half_np])
def test_rope_scores_depend_only_on_offset(rope):
    rng = np.random.default_rng(2)
    q, k = rng.normal(size=(1, 16)), rng.normal(size=(1, 16))
    worst = 0.0
    for m, n in [(0, 3), (5, 8), (100, 103), (997, 1000)]:          # the same offset m - n = -3
        s = (rope(q, [m]) @ rope(k, [n]).T).item()
        s0 = (rope(q, [0]) @ rope(k, [3]).T).item()
        worst = max(worst, abs(s - s0))
    assert worst <= 1e-12
    assert abs((rope(q, [0]) @ rope(k, [0]).T).item() - (q @ k.T).item()) <= 1e-12


def test_rope_decay_bound_against_loops_and_decaying_on_average():
    D = 128
    r = np.arange(0, 20001)
    bound = rope_decay_bound_np(r, D)
    assert bound[0] == pytest.approx(32.5, rel=1e-12)              # mean of 1..64 at r = 0
    for dist in [1, 37, 999]:                                       # written out with loops
        total, partial = 0.0, 0j
        for i in range(D // 2):
            partial += np.exp(1j * dist * 10000.0 ** (-2 * i / D))
            total += abs(partial)
        assert bound[dist] == pytest.approx(total / (D // 2), rel=1e-12)
    means = [bound[a:b].mean() for a, b in [(1, 10), (10, 100), (100, 1000), (1000, 20001)]]
    assert all(x > y for x, y in zip(means, means[1:]))


def test_alibi_slopes_and_bias():
    assert np.array_equal(alibi_slopes(8), 1.0 / 2.0 ** np.arange(1, 9))
    assert np.array_equal(alibi_slopes(1), [2.0 ** -8])
    assert np.allclose(alibi_slopes(16)[1::2], alibi_slopes(8), rtol=0, atol=0)
    s6 = alibi_slopes(6)                                            # 4 slopes of H=4, 2 of H=8
    assert np.allclose(s6, [2**-2, 2**-4, 2**-6, 2**-8, 2**-1, 2**-3])
    bias = alibi_bias_np(8, 4, 6)
    for h in range(8):
        for i in range(4):
            for j in range(6):
                assert bias[h, i, j] == alibi_slopes(8)[h] * (j - (i + 2))
    assert torch.equal(alibi_bias_pt(8, 4, 6, dtype=torch.float64), torch.tensor(bias))


def test_relative_position_index():
    idx = relative_position_index_np(4, 6, max_distance=2)
    for i in range(4):
        for j in range(6):
            assert idx[i, j] == min(max(i - j, -2), 2) + 2


def test_learned_table_past_max_len():
    bare = nn.Embedding(8, 4)
    with pytest.raises(IndexError):
        bare(torch.arange(9))
    torch.manual_seed(0)
    pos = LearnedPositionalEmbedding(8, 4)
    x = torch.zeros(2, 8, 4)
    assert torch.equal(pos(x)[0], pos.table.weight)
    with pytest.raises(ValueError, match="max_len=8"):
        pos(torch.zeros(1, 9, 4))
    pos(torch.zeros(1, 5, 4)).sum().backward()                      # rows 5.. get no gradient
    assert (pos.table.weight.grad[5:] == 0).all() and (pos.table.weight.grad[:5] != 0).all()


def test_bad_inputs():
    for args, word in [((0, 8), "n_positions"), ((4, 7), "E"), ((4, 8, 1.0), "base")]:
        with pytest.raises(ValueError, match=word):
            sinusoidal_pe_np(*args)
        with pytest.raises(ValueError, match=word):
            sinusoidal_pe_pt(*args)
    x = np.zeros((3, 5))
    with pytest.raises(ValueError, match="D even"):
        rope_interleaved_np(x, np.arange(3))
    with pytest.raises(ValueError, match="positions"):
        rope_rotate_half_np(np.zeros((3, 4)), np.arange(4))
    with pytest.raises(ValueError, match="integers"):
        rope_rotate_half_pt(torch.zeros(3, 4), torch.arange(3.0))
    with pytest.raises(ValueError, match="H"):
        alibi_slopes(0)
    with pytest.raises(ValueError, match="S"):
        alibi_bias_np(2, 5, 3)
    with pytest.raises(ValueError, match="even"):
        interleaved_to_half_perm(5)


def test_length_generalisation_script_quick(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "ch08_exp", ROOT / "experiments" / "ch08_length_generalisation.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "quick.json"
    module.main(["--quick", "--out", str(out)])
    data = json.loads(out.read_text())
    assert data["quick"] and set(data["results"]) == set(module.METHODS)
    learned = data["results"]["learned"]["0"]
    assert learned["error"].startswith("ValueError") and learned["by_bucket"][1] is None
    for method in module.METHODS:
        acc = data["results"][method]["0"]["by_bucket"][0]
        assert 0.0 <= acc <= 1.0
    full = json.loads((ROOT / "experiments" / "results" / "ch08_length_generalisation.json")
                      .read_text())
    assert not full["quick"] and len(full["run"]["seeds"]) >= 3



# --- context extension (section 11) and T5 buckets (section 12)

def test_rope_frequency_tables_by_hand():
    assert np.allclose(rope_inv_freq_np(8), [1, 0.1, 0.01, 0.001], rtol=1e-14, atol=0)
    assert np.allclose(rope_wavelengths_np(4, 100.0), [2 * np.pi, 20 * np.pi], rtol=1e-14)
    assert np.allclose(pi_inv_freq_np(8, 4.0), [0.25, 0.025, 0.0025, 0.00025], rtol=1e-14)
    assert ntk_base(8, 4.0) == pytest.approx(10000 * 4 ** (4 / 3), rel=1e-14)
    ntk = ntk_inv_freq_np(8, 4.0)
    assert ntk[0] == 1.0 and ntk[-1] == pytest.approx(0.001 / 4, rel=1e-12)
    yarn, factor = yarn_inv_freq_np(8, 4.0, 32)
    assert np.allclose(yarn, [1, 0.025, 0.0025, 0.00025], rtol=1e-12, atol=0)
    assert factor == pytest.approx(0.1 * np.log(4) + 1, rel=1e-14)
    assert yarn_inv_freq_np(16, 1.0, 100)[1] == 1.0
    with pytest.raises(ValueError):
        pi_inv_freq_np(8, 0.5)
    with pytest.raises(ValueError):
        rope_inv_freq_np(7)


@pytest.mark.parametrize("D,s", [(8, 4.0), (64, 2.5), (128, 8.0)])
def test_pi_and_ntk_against_plain_rope(D, s):
    rng = np.random.default_rng(D)
    x = rng.normal(size=(2, 19, D))
    pos = np.arange(19)
    p = interleaved_to_half_perm(D)
    back = np.argsort(p)
    # PI = RoPE at positions m / s, through the complex reference (interleaved layout)
    ref = reference_rope_complex(x[..., back], pos / s)[..., p]
    assert np.abs(rope_rotate_half_freqs_np(x, pos, pi_inv_freq_np(D, s)) - ref).max() < 1e-12
    # NTK = RoPE with base b * s^(D / (D - 2))
    plain = rope_rotate_half_np(x, pos, base=10000.0 * s ** (D / (D - 2)))
    assert np.abs(rope_rotate_half_freqs_np(x, pos, ntk_inv_freq_np(D, s)) - plain).max() < 1e-12
    # the frequency form with RoPE's own frequencies is plain RoPE
    assert np.abs(rope_rotate_half_freqs_np(x, pos, rope_inv_freq_np(D))
                  - rope_rotate_half_np(x, pos)).max() < 1e-12
    # PyTorch twin, float64 and float32
    xt = torch.tensor(x)
    yf, fac = yarn_inv_freq_np(D, s, 32)
    want = rope_rotate_half_freqs_np(x, pos, yf, fac)
    assert (rope_rotate_half_freqs_pt(xt, pos, yf, fac).numpy() - want).__abs__().max() < 1e-12
    assert (rope_rotate_half_freqs_pt(xt.float(), pos, yf, fac).double().numpy()
            - want).__abs__().max() < 1e-5


def _hf_config(D, L, params):
    transformers = pytest.importorskip("transformers")
    return transformers.LlamaConfig(hidden_size=2 * D, num_attention_heads=2, head_dim=D,
                                    max_position_embeddings=L, rope_parameters=params)


@pytest.mark.parametrize("D,s,L,base", [(8, 4.0, 32, 10000.0), (128, 4.0, 4096, 10000.0),
                                        (64, 8.0, 2048, 500000.0), (16, 2.5, 100, 10000.0)])
def test_frequency_tables_against_transformers(D, s, L, base):
    """transformers' own RoPE scaling code (float32), no weights involved."""
    rope_utils = pytest.importorskip("transformers.modeling_rope_utils")
    cfg = _hf_config(D, L, dict(rope_type="linear", rope_theta=base, factor=s))
    inv, _ = rope_utils._compute_linear_scaling_rope_parameters(cfg, "cpu")
    assert np.allclose(inv.double().numpy(), pi_inv_freq_np(D, s, base), rtol=1e-6, atol=0)
    cfg = _hf_config(D, L, dict(rope_type="dynamic", rope_theta=base, factor=1.0))
    inv, _ = rope_utils._compute_dynamic_ntk_parameters(cfg, "cpu", seq_len=int(L * s))
    assert np.allclose(inv.double().numpy(), ntk_inv_freq_np(D, s, base), rtol=1e-6, atol=0)
    cfg = _hf_config(D, int(L * s), dict(rope_type="yarn", rope_theta=base, factor=s,
                                         original_max_position_embeddings=L))
    inv, factor = rope_utils._compute_yarn_parameters(cfg, "cpu")
    ours, our_factor = yarn_inv_freq_np(D, s, L, base)
    assert np.allclose(inv.double().numpy(), ours, rtol=1e-6, atol=0)
    assert factor == pytest.approx(our_factor, rel=1e-12)


def test_t5_buckets_by_hand():
    d = np.array([0, 1, 7, 8, 11, 12, 15, 16, 22, 23, 32, 45, 46, 64, 90, 91, 127, 128, 1000])
    before = [0, 1, 7, 8, 8, 9, 9, 10, 10, 11, 12, 12, 13, 14, 14, 15, 15, 15, 15]
    causal = [0, 1, 7, 8, 11, 12, 15, 16, 18, 18, 21, 23, 24, 26, 29, 29, 31, 31, 31]
    assert t5_relative_bucket_np(-d).tolist() == before
    assert t5_relative_bucket_np(d).tolist() == [b + 16 * (n > 0) for b, n in zip(before, d)]
    assert t5_relative_bucket_np(-d, bidirectional=False).tolist() == causal
    assert (t5_relative_bucket_np(d[1:], bidirectional=False) == 0).all()
    assert int(t5_relative_bucket_np(-20)) == 10
    with pytest.raises(ValueError):
        t5_relative_bucket_np(np.array([1.5]))


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets,max_distance", [(32, 128), (16, 64), (8, 20), (32, 50)])
def test_t5_buckets_against_transformers(bidirectional, num_buckets, max_distance):
    t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    rel = torch.arange(-300, 301)
    hf = t5.T5Attention._relative_position_bucket(rel, bidirectional=bidirectional,
                                                  num_buckets=num_buckets,
                                                  max_distance=max_distance).numpy()
    ours = t5_relative_bucket_np(rel.numpy(), bidirectional, num_buckets, max_distance)
    assert (hf == ours).all()


def test_context_extension_script_quick(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "ch08_ext", ROOT / "experiments" / "ch08_context_extension.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "quick.json"
    module.main(["--quick", "--out", str(out)])
    data = json.loads(out.read_text())
    assert data["quick"] and set(data["results"]) == set(module.INFERENCE + ["trained_500k"]
                                                         + module.FINETUNED)
    for method in data["methods"]:
        acc = data["results"][method]["0"]["by_bucket"]
        assert len(acc) == 5 and all(0.0 <= a <= 1.0 for a in acc)
    full = json.loads((ROOT / "experiments" / "results" / "ch08_context_extension.json")
                      .read_text())
    assert not full["quick"] and len(full["run"]["seeds"]) >= 3


# --- YaRN's two ramps, Llama 3.1's rule, partial rotary, T5's tables per stack

def test_yarn_paper_ramp_by_hand():
    theta = rope_inv_freq_np(8)
    paper, factor = yarn_inv_freq_np(8, 4.0, 32, ramp="paper")
    turns0 = 32 / (2 * np.pi)                           # pair 0: 5.09 turns, below beta = 32
    rho0 = 1 - (turns0 - 1) / 31
    assert paper[0] == pytest.approx(theta[0] * (1 - rho0) + theta[0] / 4 * rho0, rel=1e-14)
    assert np.allclose(paper[1:], theta[1:] / 4, rtol=1e-14, atol=0)   # < 1 turn: PI
    assert factor == pytest.approx(0.1 * np.log(4) + 1, rel=1e-14)
    # the code's ramp keeps pair 0 whole at this size
    assert yarn_inv_freq_np(8, 4.0, 32, ramp="code")[0][0] == 1.0
    # every pair making >= beta_fast turns is kept by both ramps (D = 128, 4096 positions)
    turns = 4096 * rope_inv_freq_np(128) / (2 * np.pi)
    for ramp in ("paper", "code"):
        f = yarn_inv_freq_np(128, 8.0, 4096, ramp=ramp)[0]
        assert np.array_equal(f[turns >= 32], rope_inv_freq_np(128)[turns >= 32])
    with pytest.raises(ValueError, match="ramp"):
        yarn_inv_freq_np(8, 4.0, 32, ramp="both")


@pytest.mark.parametrize("D,s,L,base,low,high", [(128, 8.0, 8192, 500000.0, 1.0, 4.0),
                                                 (64, 4.0, 2048, 10000.0, 1.0, 4.0),
                                                 (8, 4.0, 32, 10000.0, 1.0, 4.0),
                                                 (96, 16.0, 1000, 10000.0, 2.0, 8.0)])
def test_llama3_against_transformers(D, s, L, base, low, high):
    rope_utils = pytest.importorskip("transformers.modeling_rope_utils")
    cfg = _hf_config(D, int(L * s), dict(rope_type="llama3", rope_theta=base, factor=s,
                                         low_freq_factor=low, high_freq_factor=high,
                                         original_max_position_embeddings=L))
    inv, factor = rope_utils.ROPE_INIT_FUNCTIONS["llama3"](cfg, "cpu")
    ours = llama3_inv_freq_np(D, s, L, base, low, high)
    assert factor == 1.0
    assert np.allclose(inv.double().numpy(), ours, rtol=1e-6, atol=0)
    paper = yarn_inv_freq_np(D, s, L, base, beta_fast=high, beta_slow=low, ramp="paper")[0]
    assert np.allclose(ours, paper, rtol=1e-14, atol=0)


@pytest.mark.parametrize("D,pct", [(40, 0.4), (24, 0.25), (64, 1.0), (32, 0.5)])
def test_partial_rotary_against_gpt_neox(D, pct):
    neox = pytest.importorskip("transformers.models.gpt_neox.modeling_gpt_neox")
    transformers = pytest.importorskip("transformers")
    emb = neox.GPTNeoXRotaryEmbedding(transformers.GPTNeoXConfig(
        hidden_size=2 * D, num_attention_heads=2, rotary_pct=pct))
    rotary_dim = int(D * pct)
    torch.manual_seed(D)
    q, k = torch.randn(2, 1, 2, 17, D)
    cos, sin = emb(q, torch.arange(17)[None])
    hq, hk = neox.apply_rotary_pos_emb(q, k, cos, sin)
    for hf, x in [(hq, q), (hk, k)]:
        ours = rope_partial_np(x.numpy(), np.arange(17), rotary_dim)
        assert np.abs(hf.double().numpy() - ours).max() < 1e-5
    with pytest.raises(ValueError, match="rotary_dim"):
        rope_partial_np(np.zeros((3, 8)), np.arange(3), 5)


def test_t5_one_bias_table_per_stack():
    t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    model = t5.T5Model(transformers.T5Config(vocab_size=16, d_model=16, d_kv=4, d_ff=16,
                                             num_heads=2, num_layers=4,
                                             num_decoder_layers=3)).eval()
    tables = [n for n, _ in model.named_parameters() if "relative_attention_bias" in n]
    assert tables == ["encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
                      "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"]
    added = {}
    hooks = [m.register_forward_hook(lambda mod, a, out, name=name: added.update({name: out[1]}))
             for name, m in model.named_modules() if isinstance(m, t5.T5Attention)]
    with torch.no_grad():
        model(input_ids=torch.arange(9)[None], decoder_input_ids=torch.arange(5)[None])
    for h in hooks:
        h.remove()
    i, j = np.arange(9)[:, None], np.arange(9)[None, :]
    table = model.encoder.block[0].layer[0].SelfAttention.relative_attention_bias.weight.detach()
    want = table[t5_relative_bucket_np(j - i)].permute(2, 0, 1)
    for layer in range(4):
        assert torch.equal(added[f"encoder.block.{layer}.layer.0.SelfAttention"][0], want)
    for layer in range(3):
        assert not added[f"decoder.block.{layer}.layer.1.EncDecAttention"].any()


def test_yarn_ramp_script_quick(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "ch08_ramp", ROOT / "experiments" / "ch08_yarn_ramp.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "quick.json"
    module.main(["--quick", "--out", str(out)])
    data = json.loads(out.read_text())
    assert data["quick"] and set(data["results"]) == {"8", "32"}
    arms = {"none"} | {f"{m}_s{s}" for m in module.METHODS for s in data["config"]["scales"]}
    for D in ("8", "32"):
        assert set(data["results"][D]) == arms
        acc = data["results"][D]["yarn_paper_s4"]["0"]["per_position"]
        assert len(acc) == 256 and all(0.0 <= a <= 1.0 for a in acc[2:])
    for name, L in [("ch08_yarn_ramp.json", 32), ("ch08_yarn_ramp_L64.json", 64)]:
        full = json.loads((ROOT / "experiments" / "results" / name).read_text())
        assert not full["quick"] and len(full["run"]["seeds"]) >= 3
        assert full["config"]["train_len"] == L
        want = {"8": 3, "32": 6 if L == 32 else 3}         # D = 32 gets 6 seeds at length 32
        assert {D: len(full["results"][D]["none"]) for D in ("8", "32")} == want
