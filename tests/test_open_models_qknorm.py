"""Chapter 17, QK-norm: NumPy and PyTorch equal to transformers' Qwen3Attention and
Gemma3Attention on awkward sizes (GQA, D != E/H, a cached decode with L != S), bad input,
and the experiment's --quick run."""
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import Gemma3TextConfig, Qwen3Config
from transformers.cache_utils import DynamicCache
from transformers.models.gemma3.modeling_gemma3 import Gemma3Attention
from transformers.models.qwen3.modeling_qwen3 import Qwen3Attention

from attnlab.open_models import (QKNormAttention, qk_rmsnorm_np, qk_rmsnorm_pt,
                                 qknorm_attention_np)

from nbcommon import ROOT                       # the repository root
torch.set_num_threads(1)


def _module(kind, E, H, Hkv, D, eps):
    common = dict(vocab_size=11, hidden_size=E, intermediate_size=16, num_hidden_layers=1,
                  num_attention_heads=H, num_key_value_heads=Hkv, head_dim=D, rms_norm_eps=eps)
    if kind == "qwen3":
        cfg = Qwen3Config(**common)
        cfg._attn_implementation = "eager"
        return Qwen3Attention(cfg, layer_idx=0).double().eval()
    cfg = Gemma3TextConfig(**common, query_pre_attn_scalar=7, layer_types=["full_attention"])
    cfg._attn_implementation = "eager"
    return Gemma3Attention(cfg, layer_idx=0).double().eval()


def _hf_rope(lo, hi, D):
    ang = torch.arange(lo, hi, dtype=torch.float64)[:, None] * (
        10000.0 ** (-torch.arange(0, D, 2, dtype=torch.float64) / D))
    return torch.cat([ang.cos()] * 2, -1)[None], torch.cat([ang.sin()] * 2, -1)[None]


@pytest.mark.parametrize("kind,E,H,Hkv,D,P,L,eps", [
    ("qwen3", 48, 6, 2, 12, 5, 3, 1e-6),      # GQA G = 3, D != E/H, cached decode L = 3, S = 8
    ("qwen3", 24, 4, 1, 10, 4, 1, 1e-2),      # MQA, one-token decode, large eps
    ("qwen3", 20, 3, 3, 8, 0, 6, 1e-6),       # MHA, no cache
    ("gemma3", 36, 6, 3, 14, 3, 2, 1e-6),     # (1 + w), query_pre_attn_scalar = 7
])
def test_equal_to_transformers(kind, E, H, Hkv, D, P, L, eps):
    g = torch.Generator().manual_seed(E + D)
    hf = _module(kind, E, H, Hkv, D, eps)
    one_plus = kind == "gemma3"
    scale = 7 ** -0.5 if one_plus else None
    with torch.no_grad():
        for p in (hf.q_norm.weight, hf.k_norm.weight):
            p.copy_(0.5 * torch.randn(D, generator=g, dtype=torch.float64) + (0 if one_plus else 1))
    mine = QKNormAttention(E, H, Hkv, D, eps=eps, scale=scale, one_plus=one_plus).double()
    sd = hf.state_dict()
    mine.load_state_dict({n: sd[n + ".weight" if n.endswith("_norm") else n]
                          for n in mine.state_dict()})
    W = [sd[f"{n}.weight"].numpy().T for n in ("q_proj", "k_proj", "v_proj", "o_proj")]
    wq, wk = sd["q_norm.weight"].numpy(), sd["k_norm.weight"].numpy()
    x = torch.randn(2, P + L, E, generator=g, dtype=torch.float64)
    cache = DynamicCache(config=hf.config)
    np_c = pt_c = hc_c = None
    steps = [(0, P), (P, P + L)] if P else [(0, L)]
    for lo, hi in steps:
        xs = x[:, lo:hi]
        bias = torch.zeros(hi - lo, hi, dtype=torch.float64)
        bias[~torch.ones(hi - lo, hi, dtype=torch.bool).tril(lo)] = torch.finfo(torch.float64).min
        with torch.no_grad():
            y_hf, _ = hf(xs, _hf_rope(lo, hi, D), bias[None, None], cache=cache)
            y_pt, pt_c = mine(xs, pt_c)
            y_hc, hc_c = mine(xs, hc_c, hf_casts=True)
        y_np, np_c = qknorm_attention_np(xs.numpy(), *W, wq, wk, H, Hkv, D, np_c, eps, scale,
                                         one_plus)
        assert y_np.shape == (2, hi - lo, E)
        # the module's RMSNorm and softmax run in float32 even for float64 input
        assert np.abs(y_np - y_hf.numpy()).max() < 1e-6
        assert np.abs(y_pt.numpy() - y_np).max() < 1e-12
        assert torch.equal(y_hc, y_hf)
    assert torch.equal(cache.layers[0].keys, hc_c[0])
    assert np.abs(cache.layers[0].keys.numpy() - np_c[0]).max() < 1e-6


def test_norm_np_pt_agree_and_bound():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4, 5, 16)) * 100
    w = rng.uniform(0.5, 2, 16)
    y = qk_rmsnorm_np(x, w)
    yt = qk_rmsnorm_pt(torch.from_numpy(x), torch.from_numpy(w))
    assert np.abs(yt.numpy() - y).max() < 1e-12
    assert np.abs(qk_rmsnorm_np(x, w - 1, one_plus=True) - y).max() < 1e-12
    assert np.allclose((qk_rmsnorm_np(x, np.ones(16)) ** 2).sum(-1), 16, rtol=0, atol=1e-6)


@pytest.mark.parametrize("weight_len", [8 * 16, 15, 1])
def test_bad_weight_length(weight_len):
    x = np.ones((2, 8, 3, 16))
    for fn, arr in ((qk_rmsnorm_np, np.ones), (qk_rmsnorm_pt, torch.ones)):
        xx = x if fn is qk_rmsnorm_np else torch.from_numpy(x)
        with pytest.raises(ValueError, match="weight") as e:
            fn(xx, arr(weight_len))
        assert "head_dim = 16" in str(e.value) and "OLMo 2" in str(e.value)


@pytest.mark.parametrize("eps", [0.0, -1e-6, float("nan"), float("inf")])
def test_bad_eps(eps):
    with pytest.raises(ValueError, match="eps") as e:
        qk_rmsnorm_np(np.ones((2, 4)), np.ones(4), eps=eps)
    assert "> 0" in str(e.value)
    with pytest.raises(ValueError, match="eps"):
        qk_rmsnorm_pt(torch.ones(2, 4), torch.ones(4), eps=eps)
    with pytest.raises(ValueError, match="eps"):
        QKNormAttention(8, 2, 1, 4, eps=eps)


def test_bad_heads():
    with pytest.raises(ValueError, match="multiple of Hkv"):
        QKNormAttention(8, 3, 2, 4)


def test_experiment_quick(tmp_path):
    out = tmp_path / "q.json"
    path = ROOT / "experiments" / "ch17_qknorm_collapse.py"
    spec = importlib.util.spec_from_file_location("ch17_qknorm_collapse", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    script.main(["--quick", "--out", str(out)])
    res = json.loads(out.read_text())
    assert len(res["runs"]) == 4
    for r in res["runs"]:
        log = r["log"]
        assert log["step"] == list(range(0, r["steps"] + 1, 3)) and r["steps"] in (6, 9)
        assert all(len(m) == 2 and min(m) >= 0 for m in log["max_logit"])
        assert all(0 <= e <= np.log(64) + 1e-6 for es in log["entropy"] for e in es)
        assert all(np.isfinite(h) for h in log["held_loss"])
    on = [r for r in res["runs"] if r["qk_norm"]][0]
    assert on["max_wq_times_max_wk"][0] > 0
