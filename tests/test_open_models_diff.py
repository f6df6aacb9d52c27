"""Differential attention (chapter 17, section 2.4): NumPy == PyTorch == DiffLlamaAttention."""
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from attnlab.masks import causal_mask_np
from attnlab.open_models import (DiffAttention, check_lambda_init, diff_attention_np,
                                 diff_attention_pt, diff_lambda_init, diff_lambda_np,
                                 diff_llama_attention_np, diff_paper_layout_np,
                                 diff_released_to_paper)
from attnlab.positional_encoding import rope_angles_np

from nbcommon import ROOT                       # the repository root


def _module(E, H, Hkv, D, layer_idx, impl, seed):
    from transformers import DiffLlamaConfig
    from transformers.models.diffllama.modeling_diffllama import DiffLlamaAttention
    cfg = DiffLlamaConfig(hidden_size=E, num_attention_heads=H, num_key_value_heads=Hkv,
                          head_dim=D, num_hidden_layers=max(2, layer_idx + 1))
    cfg._attn_implementation = impl
    torch.manual_seed(seed)
    m = DiffLlamaAttention(cfg, layer_idx).double().eval()
    with torch.no_grad():
        for n in ("lambda_q1", "lambda_k1", "lambda_q2", "lambda_k2"):
            getattr(m, n).normal_(0, 0.4)
    return m


def _inputs(pos, S, D, B):
    ang = rope_angles_np(pos, D, 10000.0)
    cos, sin = (torch.from_numpy(np.concatenate([f(ang)] * 2, -1))[None] for f in (np.cos, np.sin))
    allowed = torch.from_numpy(causal_mask_np(len(pos), S, align="bottom-right"))
    mask = torch.zeros(allowed.shape, dtype=torch.float64).masked_fill(
        ~allowed, torch.finfo(torch.float64).min)
    return (cos, sin), mask[None, None].expand(B, 1, *allowed.shape)


# E, H, Hkv, D, layer, prefill, new: GQA, D != E/H, no GQA, Hkv = 2, cached decode L != S
CONFIGS = [(44, 12, 4, 10, 0, 6, 3), (30, 4, 2, 6, 3, 5, 1), (36, 8, 8, 4, 1, 4, 2),
           (40, 8, 2, 12, 7, 3, 4)]


@pytest.mark.parametrize("impl,tol", [("eager", 2e-6), ("sdpa", 5e-7)])
@pytest.mark.parametrize("cfg", CONFIGS)
def test_equal_to_diffllama_attention(cfg, impl, tol):
    # float32 pieces in the module: eager softmax (dtype=float32) and lambda's dot + exp
    from transformers import DynamicCache
    E, H, Hkv, D, layer, P, L = cfg
    m = _module(E, H, Hkv, D, layer, impl, seed=layer)
    w = {"q": m.q_proj.weight, "k": m.k_proj.weight, "v": m.v_proj.weight, "o": m.o_proj.weight,
         "lq1": m.lambda_q1, "lk1": m.lambda_k1, "lq2": m.lambda_q2, "lk2": m.lambda_k2}
    w = {n: p.detach().numpy().copy() for n, p in w.items()}
    mine = DiffAttention(E, H, Hkv, D, layer).double()
    mine.load_state_dict(m.state_dict())
    assert abs(mine.lambda_init - m.lambda_init) < 1e-15
    cache, past, past_t, B = DynamicCache(), None, None, 2
    for x, p0 in ((torch.randn(B, P, E, dtype=torch.float64), 0),
                  (torch.randn(B, L, E, dtype=torch.float64), P)):
        pos = np.arange(p0, p0 + x.shape[1])
        pe, mask = _inputs(pos, p0 + x.shape[1], D, B)
        with torch.no_grad():
            y_tf = m(x, pe, mask, cache=cache)[0].numpy()
            y_pt, past_t = mine(x, torch.from_numpy(pos), past_t)
        y_np, past = diff_llama_attention_np(x.numpy(), w, pos, m.lambda_init, H, Hkv, D,
                                             past=past, eps=m.config.rms_norm_eps)
        assert np.abs(y_pt.detach().numpy() - y_np).max() < 1e-12
        assert np.abs(y_tf - y_np).max() < tol


def test_kernel_pt_equals_np_and_head_rms():
    rng = np.random.default_rng(1)
    q = rng.normal(size=(2, 12, 3, 10))
    k, v = rng.normal(size=(2, 4, 9, 10)), rng.normal(size=(2, 4, 9, 10))
    ok = causal_mask_np(3, 9, align="bottom-right")
    o = diff_attention_np(q, k, v, ok, -0.4, 0.3, 1e-5)
    o_t = diff_attention_pt(*(torch.from_numpy(t) for t in (q, k, v)), torch.from_numpy(ok),
                            -0.4, 0.3)
    assert np.abs(o_t.numpy() - o).max() < 1e-12
    rms = np.sqrt((o.reshape(2, 3, 6, 20) ** 2).mean(-1))
    assert np.abs(rms - 0.7).max() < 1e-4


@pytest.mark.parametrize("H,Hkv,D", [(12, 4, 10), (8, 2, 6), (4, 4, 8)])
def test_paper_layout_is_a_permutation(H, Hkv, D):
    rng = np.random.default_rng(H + Hkv)
    E, L = 26, 5
    w = {"q": rng.normal(size=(H * D, E)), "k": rng.normal(size=(Hkv * D, E)),
         "v": rng.normal(size=(Hkv * D, E)), "o": rng.normal(size=(E, H * D))}
    w.update({n: rng.normal(0, 0.3, D) for n in ("lq1", "lk1", "lq2", "lk2")})
    x = rng.normal(size=(2, L, E))
    y_rel = diff_llama_attention_np(x, w, np.arange(L), 0.4, H, Hkv, D)[0]
    wp = diff_released_to_paper(w, H, Hkv, D)
    y_pap = diff_paper_layout_np(x, wp, np.arange(L), 0.4, H // 2, Hkv // 2, D)
    assert np.abs(y_pap - y_rel).max() < 1e-12
    sub = rng.normal(1, 0.3, 2 * D)
    y_w = diff_paper_layout_np(x, wp, np.arange(L), 0.4, H // 2, Hkv // 2, D, subln_weight=sub)
    w_fold = dict(w, o=w["o"] * np.tile(sub, H // 2))
    y_f = diff_llama_attention_np(x, w_fold, np.arange(L), 0.4, H, Hkv, D)[0]
    assert np.abs(y_w - y_f).max() < 1e-12
    y_raw = diff_paper_layout_np(x, w, np.arange(L), 0.4, H // 2, Hkv // 2, D)
    assert np.abs(y_raw - y_rel).max() > 1e-3


def test_lambda_schedule_and_float64():
    assert abs(diff_lambda_init(0) - 0.2) < 1e-15
    assert abs(diff_lambda_init(1) - (0.8 - 0.6 * np.exp(-0.3))) < 1e-15
    z = np.zeros(4)
    assert abs(diff_lambda_np(z, z, z, z, 0.2) - 0.2) < 1e-15


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.68, 1.3, float("nan"), "0.5", True])
def test_bad_lambda_init(bad):
    with pytest.raises(ValueError, match="lambda_init.*diff_lambda_init"):
        check_lambda_init(bad)
    with pytest.raises(ValueError, match="lambda_init"):
        diff_attention_np(np.zeros((1, 2, 1, 2)), np.zeros((1, 2, 1, 2)), np.zeros((1, 2, 1, 2)),
                          np.ones((1, 1), bool), 0.1, bad)
    with pytest.raises(ValueError, match="lambda_init"):
        DiffAttention(8, 2, 2, 2, 0, lambda_init=bad)


def test_bad_layer_idx_and_heads():
    with pytest.raises(ValueError, match="layer_idx.*>= 0"):
        diff_lambda_init(-3)
    with pytest.raises(ValueError, match="layer_idx"):
        diff_lambda_init(None)
    with pytest.raises(ValueError, match="Hkv"):
        diff_attention_np(np.zeros((1, 6, 1, 2)), np.zeros((1, 3, 1, 2)), np.zeros((1, 3, 1, 2)),
                          np.ones((1, 1), bool), 0.1, 0.2)
    from transformers import DiffLlamaConfig
    from transformers.models.diffllama.modeling_diffllama import DiffLlamaAttention
    with pytest.raises(TypeError):        # the module's own default layer_idx=None
        DiffLlamaAttention(DiffLlamaConfig(hidden_size=8, num_attention_heads=2,
                                           num_key_value_heads=2, head_dim=4))


def test_experiment_quick(tmp_path):
    path = ROOT / "experiments" / "ch17_diff_retrieval.py"
    spec = importlib.util.spec_from_file_location("ch17_diff_retrieval", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "q.json"
    mod.main(["--quick", "--out", str(out)])
    res = json.loads(out.read_text())
    assert {r["arm"] for r in res["runs"]} == {"base", "diff", "base+norm"}
    assert {r["setting"] for r in res["runs"]} == {"easy", "hard"}
    row = [r for r in res["runs"] if "row" in r][0]["row"]
    assert len(row["a1"]) == len(row["eff"]) and abs(sum(row["a1"]) - 1) < 1e-3
