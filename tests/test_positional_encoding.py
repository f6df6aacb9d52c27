"""attnlab.positional_encoding against independent references (tolerances stated per test)."""
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn as nn

from attnlab.positional_encoding import (LearnedPositionalEmbedding, alibi_bias_np, alibi_bias_pt,
                                         alibi_slopes, interleaved_to_half_perm,
                                         relative_position_index_np, rope_decay_bound_np,
                                         rope_interleaved_np, rope_interleaved_pt,
                                         rope_rotate_half_np, rope_rotate_half_pt,
                                         sinusoidal_pe_np, sinusoidal_pe_pt,
                                         sinusoidal_shift_matrix_np)

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
