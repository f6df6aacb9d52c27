"""Chapter 17, sink logits: equal to transformers' gpt-oss attention on awkward sizes."""
import runpy
from pathlib import Path

import numpy as np
import pytest
import torch

from attnlab.open_models import (SinkAttention, check_sink_logits, sink_attention_np,
                                 sink_attention_pt, sink_softmax_np)
from attnlab.positional_encoding import rope_angles_np, rope_rotate_half_np

EXPERIMENT = Path(__file__).resolve()
from nbcommon import ROOT as REPO               # the repository root


def _allowed(q_pos, S, window):
    q, j = np.asarray(q_pos)[:, None], np.arange(S)[None, :]
    return (j <= q) & ((q - j < window) if window else True)


def _additive(ok, B):
    m = torch.zeros(ok.shape, dtype=torch.float64).masked_fill(~torch.from_numpy(ok),
                                                               torch.finfo(torch.float64).min)
    return m.expand(B, 1, *ok.shape)


@pytest.mark.parametrize("E,H,Hkv,D,window,steps", [
    (40, 6, 2, 12, 5, ((0, 7), (7, 11))),        # GQA 3, D != E/H, sliding, decode L = 4
    (24, 4, 1, 10, None, ((0, 5), (5, 6))),      # MQA, full layer, one-token decode
    (36, 6, 6, 8, 3, ((0, 9),)),                 # MHA, window 3, prefill only
])
def test_layer_equals_gptoss_attention(E, H, Hkv, D, window, steps):
    from transformers import DynamicCache, GptOssConfig
    from transformers.models.gpt_oss.modeling_gpt_oss import GptOssAttention
    base = 150000.0
    kind = "sliding_attention" if window else "full_attention"
    cfg = GptOssConfig(hidden_size=E, num_attention_heads=H, num_key_value_heads=Hkv,
                       head_dim=D, num_hidden_layers=1, layer_types=[kind],
                       sliding_window=window or 128, attention_bias=True,
                       rope_parameters={"rope_type": "default", "rope_theta": base})
    cfg._attn_implementation = "eager"
    torch.manual_seed(H + D)
    attn = GptOssAttention(cfg, 0).double().eval()
    with torch.no_grad():
        attn.sinks.normal_(0.0, 2.0)                       # torch.empty otherwise
    P = {n: p.detach().numpy() for n, p in attn.named_parameters()}
    x = torch.randn(2, steps[-1][1], E, dtype=torch.float64)
    cache, past = DynamicCache(), None
    for lo, hi in steps:
        pos = np.arange(lo, hi)
        ok = _allowed(pos, hi, window)
        ang = torch.from_numpy(rope_angles_np(pos, D, base))[None]
        with torch.no_grad():
            y, w = attn(x[:, lo:hi], (ang.cos(), ang.sin()), _additive(ok, 2), cache=cache)
        xs = x[:, lo:hi].numpy()
        B, L = xs.shape[:2]
        pr = {n: xs @ P[n + "_proj.weight"].T + P[n + "_proj.bias"] for n in "qkv"}
        q = rope_rotate_half_np(pr["q"].reshape(B, L, H, D).transpose(0, 2, 1, 3), pos, base)
        k = rope_rotate_half_np(pr["k"].reshape(B, L, Hkv, D).transpose(0, 2, 1, 3), pos, base)
        v = pr["v"].reshape(B, L, Hkv, D).transpose(0, 2, 1, 3)
        if past is not None:
            k, v = np.concatenate([past[0], k], 2), np.concatenate([past[1], v], 2)
        past = (k, v)
        o, wn = sink_attention_np(q, k, v, P["sinks"], ok)
        o = o.transpose(0, 2, 1, 3).reshape(B, L, H * D) @ P["o_proj.weight"].T + P["o_proj.bias"]
        assert np.abs(o - y.numpy()).max() < 1e-12
        assert np.abs(wn - w.numpy()).max() < 1e-12
        o_pt, w_pt = sink_attention_pt(torch.from_numpy(q), torch.from_numpy(k),
                                       torch.from_numpy(v), attn.sinks.detach(),
                                       torch.from_numpy(ok))
        assert (w_pt - w).abs().max() < 1e-12


def test_fully_masked_row_and_plain_limit():
    from transformers import GptOssConfig
    from transformers.models.gpt_oss.modeling_gpt_oss import (GptOssAttention,
                                                              eager_attention_forward)
    cfg = GptOssConfig(hidden_size=20, num_attention_heads=4, num_key_value_heads=2,
                       head_dim=6, num_hidden_layers=1, layer_types=["full_attention"])
    attn = GptOssAttention(cfg, 0).double()
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(2, h, n, 6, generator=g, dtype=torch.float64)
               for h, n in ((4, 3), (2, 8), (2, 8)))
    ok = _allowed(np.arange(5, 8), 8, None)
    ok[0] = False
    with torch.no_grad():
        attn.sinks.copy_(torch.tensor([1.0, -3.0, 0.0, 6.0]))
        ref, _ = eager_attention_forward(attn, q, k, v, _additive(ok, 2), scaling=6 ** -0.5)
    out, w = sink_attention_pt(q, k, v, attn.sinks.detach(), torch.from_numpy(ok))
    assert (out.transpose(1, 2) - ref).abs().max() < 1e-12
    assert out[:, :, 0].abs().max() == 0 and torch.isfinite(out).all()
    w_np, p_sink = sink_softmax_np(np.zeros((1, 4, 2, 3)), np.array([0.0, 1, 2, 3]))
    assert np.abs(w_np.sum(-1) - 3 / (3 + np.exp([0.0, 1, 2, 3]))[None, :, None]).max() < 1e-15
    assert np.abs(w_np.sum(-1) + p_sink - 1).max() < 1e-15
    far, _ = sink_softmax_np(np.ones((1, 1, 1, 4)), np.array([-1e4]))
    assert np.abs(far - 0.25).max() < 1e-15


@pytest.mark.parametrize("bad", [np.zeros(2), np.zeros((6, 1)), np.zeros(7)])
def test_bad_sinks_named(bad):
    q, k, v = np.zeros((1, 6, 2, 4)), np.zeros((1, 2, 3, 4)), np.zeros((1, 2, 3, 4))
    with pytest.raises(ValueError, match=r"sinks has shape .*one sink logit per query head"):
        sink_attention_np(q, k, v, bad)
    with pytest.raises(ValueError, match="sinks"):
        sink_attention_pt(*(torch.from_numpy(a) for a in (q, k, v)), torch.from_numpy(bad))


def test_bad_sinks_infinite():
    with pytest.raises(ValueError, match="sinks must be finite"):
        check_sink_logits(np.array([0.0, -np.inf]), 2)


def test_module_gradient_and_no_sink():
    torch.manual_seed(0)
    m = SinkAttention(5, 7, 3, H=4, Hkv=2, D=6)
    out, w = m(torch.randn(2, 3, 5), torch.randn(2, 4, 7))
    assert out.shape == (2, 3, 3) and w.shape == (2, 4, 3, 4)
    out.sum().backward()
    assert m.sinks.grad is not None and torch.isfinite(m.sinks.grad).all()
    _, w0 = SinkAttention(5, 7, 3, H=4, Hkv=2, D=6, sinks=False)(torch.randn(2, 3, 5),
                                                                  torch.randn(2, 4, 7))
    assert torch.allclose(w0.sum(-1), torch.ones(2, 4, 3))


def test_experiment_quick(tmp_path):
    res = runpy.run_path(str(REPO / "experiments" / "ch17_sinks.py"))["main"](
        ["--quick", "--out", str(tmp_path / "q.json")])
    assert {r["arm"] for r in res["runs"]} == {"plain", "sink", "bos"}
    assert all(abs(r["null_mass_on_real"] - 1) < 1e-5 for r in res["runs"] if r["arm"] == "plain")
