"""attnlab.beyond_text against independent references (tolerances stated per test), with the
quick run of experiments/ch15_vision.py."""
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attnlab.beyond_text import (CBAM, PatchEmbed, SmallCNN, SqueezeExcite, TinyViT,
                                 attention_entropy, axial_allowed_np, best_gate_error_np,
                                 cbam_np, channel_attention_np, cnn_flops, conv_patch_embed_np,
                                 errors_by_gap, gat_layer_np, gate_costs, gatv2_layer_np,
                                 mean_attention_distance, vit_flops,
                                 patch_embed_np, patchify_np, pos_2d_sincos_np,
                                 relation_images, row_attention_np, se_np,
                                 unfold_patch_embed_pt, vit_tokens, vqa_images)
from attnlab.masks import masked_sdpa_np

# (B, C, H, W, P): awkward on purpose: non-square both ways, one channel, one patch
SHAPES = [(1, 3, 12, 20, 4), (2, 1, 15, 10, 5), (3, 2, 4, 4, 4), (1, 3, 6, 9, 3)]


@pytest.mark.parametrize("B,C,H,W,P", SHAPES)
def test_patch_embedding_three_ways_float64(B, C, H, W, P):
    """Conv2d, Unfold @ W and patchify @ W_e equal the loop convolution to 1e-12."""
    rng = np.random.default_rng(B * 100 + H)
    x = rng.standard_normal((B, C, H, W))
    pe = PatchEmbed(C, 7, P).double()
    k, b = pe.proj.weight.detach().numpy(), pe.proj.bias.detach().numpy()
    ref = conv_patch_embed_np(x, k, b, P)
    xt = torch.tensor(x)
    assert np.abs(pe(xt).detach().numpy() - ref).max() < 1e-12
    assert np.abs(unfold_patch_embed_pt(xt, pe.proj).detach().numpy() - ref).max() < 1e-12
    assert np.abs(patch_embed_np(x, k.reshape(7, -1).T, b, P) - ref).max() < 1e-12


@pytest.mark.parametrize("B,C,H,W,P", SHAPES)
def test_patchify_equals_crops_exactly(B, C, H, W, P):
    x = np.arange(B * C * H * W, dtype=np.float64).reshape(B, C, H, W)
    got = patchify_np(x, P)
    for n in range((H // P) * (W // P)):
        r, c = divmod(n, W // P)
        assert np.array_equal(got[:, n], x[:, :, r * P:(r + 1) * P, c * P:(c + 1) * P].reshape(B, -1))


def test_patchify_refuses_sizes_that_do_not_divide():
    with pytest.raises(ValueError, match="multiples of P"):
        patchify_np(np.zeros((1, 3, 10, 12)), 4)


def test_token_counts():
    assert vit_tokens(224, 224, 16) == 197 and vit_tokens(384, 384, 16) == 577
    assert vit_tokens(12, 20, 4) == 16 and vit_tokens(12, 20, 4, cls_token=False) == 15


def test_2d_positions_split_rows_and_columns():
    from attnlab.positional_encoding import sinusoidal_pe_np
    pos = pos_2d_sincos_np(3, 5, 12)
    for n in range(15):
        r, c = divmod(n, 5)
        assert np.array_equal(pos[n, :6], sinusoidal_pe_np(3, 6)[r])
        assert np.array_equal(pos[n, 6:], sinusoidal_pe_np(5, 6)[c])
    with pytest.raises(ValueError):
        pos_2d_sincos_np(3, 5, 10)


def test_tiny_vit_shapes_and_class_token_position():
    torch.manual_seed(0)
    m = TinyViT(image_hw=(12, 20), P=4, E=16, H=2, depth=1, F_hidden=8, n_classes=3)
    logits, w = m(torch.randn(2, 3, 12, 20))
    assert logits.shape == (2, 3) and w[0].shape == (2, 2, 16, 16)
    assert torch.equal(m.pos[0, 0], torch.zeros(16))                   # no position for cls


def reference_se(x, W1, b1, W2, b2):
    """Loops over images and channels, float64."""
    out, gate = np.empty_like(x), np.empty(x.shape[:2])
    for b in range(x.shape[0]):
        z = np.array([x[b, c].mean() for c in range(x.shape[1])])
        h = np.maximum(z @ W1 + b1, 0)
        gate[b] = 1 / (1 + np.exp(-(h @ W2 + b2)))
        for c in range(x.shape[1]):
            out[b, c] = gate[b, c] * x[b, c]
    return out, gate


def test_se_numpy_reference_and_module_float64():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 16, 5, 7))
    m = SqueezeExcite(16, r=4).double()
    p = {n: t.detach().numpy() for n, t in m.named_parameters()}
    args = (p["fc1.weight"].T, p["fc1.bias"], p["fc2.weight"].T, p["fc2.bias"])
    out, gate = se_np(x, *args)
    ref_out, ref_gate = reference_se(x, *args)
    assert np.abs(out - ref_out).max() < 1e-12 and np.abs(gate - ref_gate).max() < 1e-12
    assert np.abs(m(torch.tensor(x))[0].detach().numpy() - out).max() < 1e-12


@pytest.mark.parametrize("k", [3, 7])
def test_cbam_against_torch_conv_float64(k):
    rng = np.random.default_rng(k)
    x = rng.standard_normal((2, 8, 6, 9))
    m = CBAM(8, r=2, k=k).double()
    p = {n: t.detach().numpy() for n, t in m.named_parameters()}
    out, gc, gs = cbam_np(x, p["fc1.weight"].T, p["fc1.bias"], p["fc2.weight"].T, p["fc2.bias"],
                          p["conv.weight"][0], p["conv.bias"][0])
    xt = torch.tensor(x)
    mlp = lambda z: F.linear(F.relu(F.linear(z, m.fc1.weight, m.fc1.bias)), m.fc2.weight, m.fc2.bias)
    gc_ref = torch.sigmoid(mlp(xt.mean((2, 3))) + mlp(xt.amax((2, 3))))
    x1 = gc_ref[:, :, None, None] * xt
    gs_ref = torch.sigmoid(F.conv2d(torch.stack([x1.mean(1), x1.amax(1)], 1), m.conv.weight,
                                    m.conv.bias, padding=k // 2))[:, 0]
    assert np.abs(gc - gc_ref.detach().numpy()).max() < 1e-12
    assert np.abs(gs - gs_ref.detach().numpy()).max() < 1e-12
    assert np.abs(out - (gs_ref[:, None] * x1).detach().numpy()).max() < 1e-12


def test_channel_attention_rows_are_distributions_and_mix_channels():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 5, 3, 3))
    bias = np.zeros((5, 5)); bias[np.arange(5), np.roll(np.arange(5), 1)] = 60.0
    out, w = channel_attention_np(x, pair_bias=bias)
    assert np.allclose(w.sum(-1), 1.0, rtol=0, atol=1e-12)
    assert np.abs(out - x[:, np.roll(np.arange(5), 1)]).max() < 1e-6      # a permutation


def test_best_gate_bound_is_zero_for_a_gate_and_large_for_a_permutation():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((200, 4, 4, 4))
    assert best_gate_error_np(x, 0.3 * x) < 1e-25
    assert 0.85 < best_gate_error_np(x, x[:, [1, 0, 3, 2]]) < 1.0            # about 1 - 1/16


def test_gate_costs_at_56x56():
    c = gate_costs(256, 56, 56)
    assert c["self_attention"]["score_entries"] == 3136 ** 2
    assert c["se"]["params"] == 8464 and c["cbam"]["params"] == 8464 + 99


@pytest.mark.parametrize("R,Cc", [(3, 4), (1, 5), (4, 1), (2, 7)])
def test_axial_attention_is_masked_full_attention(R, Cc):
    rng = np.random.default_rng(R * 10 + Cc)
    q, k, v = rng.standard_normal((R, Cc, 3)), rng.standard_normal((R, Cc, 3)), rng.standard_normal((R, Cc, 2))
    out, _ = row_attention_np(q, k, v)
    full, _ = masked_sdpa_np(q.reshape(R * Cc, 3), k.reshape(R * Cc, 3), v.reshape(R * Cc, 2),
                             axial_allowed_np(R, Cc, "row"))
    assert np.abs(out.reshape(R * Cc, 2) - full).max() < 1e-12
    assert axial_allowed_np(R, Cc, "column").sum() == R * R * Cc


def test_mean_attention_distance_of_uniform_and_self_attention():
    N = 16
    uniform = np.full((1, 1, N + 1, N + 1), 1 / (N + 1))
    eye = np.zeros((1, 1, N + 1, N + 1)); eye[0, 0, np.arange(N + 1), np.arange(N + 1)] = 1
    assert mean_attention_distance(eye, 4, 4, 4)[0] == 0.0
    assert 8.0 < mean_attention_distance(uniform, 4, 4, 4)[0] < 8.1


def test_generated_tasks_are_deterministic_and_labelled():
    x1, y1, c1 = relation_images(20, 5)
    x2, y2, c2 = relation_images(20, 5)
    assert np.array_equal(x1, x2) and np.array_equal(y1, (c1[:, 0, 1] < c1[:, 1, 1]))
    xq, q, a, cell = vqa_images(20, 6)
    assert xq.shape == (20, 3, 16, 16) and set(q) <= {0, 1, 2} and cell.max() < 16


def load_ch15_experiment():
    path = Path(__file__).resolve().parents[1] / "experiments" / "ch15_vision.py"
    spec = importlib.util.spec_from_file_location("ch15_experiment", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ch15_experiment_quick_and_stored(tmp_path):
    module = load_ch15_experiment()
    out = tmp_path / "quick.json"
    module.main(["--quick", "--out", str(out)])
    quick = json.loads(out.read_text())
    assert quick["quick"] and {r["model"] for r in quick["relation"]} == {"vit", "vit2", "cnn",
                                                                           "cnn_wide"}
    assert {r["condition"] for r in quick["relation"]} == {"base", "large", "lr"}
    stored = json.loads(module.RESULT.read_text())
    assert not stored["quick"] and sorted({r["seed"] for r in stored["relation"]}) == [0, 1, 2]
    assert module.WEIGHTS.exists() and module.WEIGHTS.stat().st_size < 2_000_000


@pytest.mark.parametrize("hw,P,E,H,depth,F_hidden,n_classes", [((16, 16), 4, 32, 2, 2, 64, 2),
                                                               ((16, 16), 2, 32, 2, 2, 64, 2),
                                                               ((12, 20), 4, 24, 3, 3, 40, 5)])
def test_vit_flops_formula_equals_torch_flop_counter(hw, P, E, H, depth, F_hidden, n_classes):
    """The counted formula against torch's own FlopCounterMode (matmuls and convolutions)."""
    from torch.utils.flop_counter import FlopCounterMode
    m = TinyViT(hw, P, E=E, H=H, depth=depth, F_hidden=F_hidden, n_classes=n_classes)
    with FlopCounterMode(display=False) as counter:
        m(torch.zeros(1, 3, *hw))
    assert counter.get_total_flops() == vit_flops(*hw, P, E=E, heads=H, depth=depth,
                                                  F_hidden=F_hidden, n_classes=n_classes)


@pytest.mark.parametrize("hw,widths", [((16, 16), (16, 32, 40)), ((16, 16), (28, 55, 69)),
                                       ((12, 20), (5, 7, 9))])
def test_cnn_flops_formula_equals_torch_flop_counter(hw, widths):
    from torch.utils.flop_counter import FlopCounterMode
    m = SmallCNN(hw, widths=widths)
    with FlopCounterMode(display=False) as counter:
        m(torch.zeros(1, 3, *hw))
    assert counter.get_total_flops() == cnn_flops(*hw, widths=widths)


def test_attention_entropy_of_uniform_and_one_hot():
    N = 16
    uniform = np.full((2, 1, N + 1, N + 1), 1 / (N + 1))
    eye = np.zeros((1, 1, N + 1, N + 1)); eye[0, 0, np.arange(N + 1), np.arange(N + 1)] = 1
    assert abs(attention_entropy(uniform)[0] - np.log(N)) < 1e-12
    assert attention_entropy(eye)[0] == 0.0


def test_errors_by_gap_by_hand():
    corners = np.array([[[0, 1], [5, 2]], [[0, 9], [0, 4]], [[3, 3], [1, 4]]])   # gaps 1, 5, 1
    errors, counts = errors_by_gap([1, 0, 0], [1, 1, 1], corners)
    assert counts[0] == 2 and counts[4] == 1 and counts.sum() == 3
    assert errors[0] == 1 and errors[4] == 1 and errors.sum() == 2


def test_gat_ranks_keys_the_same_for_every_query_and_gatv2_does_not():
    rng = np.random.default_rng(4)
    n = 7
    h = rng.standard_normal((n, 5))
    full = np.ones((n, n), dtype=bool)
    for trial in range(5):
        _, w = gat_layer_np(h, full, rng.standard_normal((5, 3)), rng.standard_normal(6))
        assert len({tuple(np.argsort(-row)) for row in w}) == 1
    _, w2 = gatv2_layer_np(h, full, *(rng.standard_normal(s) for s in ((5, 3), (5, 3), (3,))))
    assert len({tuple(np.argsort(-row)) for row in w2}) > 1
    assert np.allclose(w2.sum(-1), 1.0, rtol=0, atol=1e-12)


def test_gatv2_against_loops_on_a_sparse_graph_float64():
    rng = np.random.default_rng(5)
    n = 6
    adj = rng.random((n, n)) < 0.4
    h, Wl, Wr, a = (rng.standard_normal(s) for s in ((n, 4), (4, 3), (4, 3), (3,)))
    out, w = gatv2_layer_np(h, adj, Wl, Wr, a)
    for i in range(n):
        nb = [j for j in range(n) if adj[i, j] or i == j]
        z = np.array([a @ np.where(t > 0, t, 0.2 * t) for t in (h[i] @ Wl + h[j] @ Wr for j in nb)])
        p = np.exp(z - z.max()); p /= p.sum()
        assert np.abs(out[i] - sum(pj * (h[j] @ Wr) for pj, j in zip(p, nb))).max() < 1e-12
        assert np.abs(np.delete(w[i], nb)).max(initial=0) == 0
