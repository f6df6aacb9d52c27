"""Chapter 17, soft-capping: the book's functions equal Gemma 2's eager attention (transformers
5.24) on awkward sizes, the final-logit cap, Gemma 3's unused setting, and the bad-input errors."""
import numpy as np
import pytest
import torch

from attnlab.open_models import (softcap_np, softcap_pt, softcapped_attention_np,
                                 softcapped_attention_pt)

torch.set_num_threads(1)


def _config(H, Hkv, D, E, qpas, cap, window=4, final=30.0):
    from transformers import Gemma2Config
    cfg = Gemma2Config(vocab_size=11, hidden_size=E, intermediate_size=16, num_hidden_layers=2,
                       num_attention_heads=H, num_key_value_heads=Hkv, head_dim=D,
                       query_pre_attn_scalar=qpas, attn_logit_softcapping=cap,
                       final_logit_softcapping=final, sliding_window=window,
                       layer_types=["sliding_attention", "full_attention"],
                       pad_token_id=None, bos_token_id=None, eos_token_id=None)
    cfg._attn_implementation = "eager"
    return cfg


def _allowed(q_pos, k_pos, window=None):
    ok = k_pos[None, :] <= q_pos[:, None]
    if window is not None:
        ok &= q_pos[:, None] - k_pos[None, :] < window
    return ok


def _bias(ok):
    bias = torch.zeros(ok.shape, dtype=torch.float64)
    return bias.masked_fill(torch.from_numpy(~ok), torch.finfo(torch.float64).min)[None, None]


@pytest.mark.parametrize("B,H,Hkv,L,S,D,Dv_is_D,qpas,cap,window", [
    (2, 6, 2, 3, 8, 12, True, 20, 5.0, None),      # GQA, cached decode L != S
    (1, 4, 1, 5, 5, 14, True, 64, 2.0, 3),         # MQA, D = 14 != E/H = 8, sliding window
    (2, 4, 4, 1, 9, 16, True, 1, 50.0, None),      # MHA, one decoded token, Gemma's cap
    (1, 8, 2, 4, 11, 6, True, 10, 0.7, 5),         # a tiny cap, window, L != S
])
def test_attention_equals_gemma2_eager(B, H, Hkv, L, S, D, Dv_is_D, qpas, cap, window):
    from transformers.models.gemma2.modeling_gemma2 import Gemma2Attention, eager_attention_forward
    cfg = _config(H, Hkv, D, 8 * H, qpas, cap)
    mod = Gemma2Attention(cfg, layer_idx=1).double().eval()
    g = torch.Generator().manual_seed(H * 100 + S)
    q = torch.randn(B, H, L, D, generator=g, dtype=torch.float64) * 6 * max(1.0, cap / 5)
    k, v = (torch.randn(B, Hkv, S, D, generator=g, dtype=torch.float64) for _ in range(2))
    ok = _allowed(np.arange(S - L, S), np.arange(S), window)
    with torch.no_grad():
        o_hf, w_hf = eager_attention_forward(mod, q, k, v, _bias(ok), scaling=qpas ** -0.5,
                                             softcap=cap)
        o_pt, w_pt = softcapped_attention_pt(q, k, v, torch.from_numpy(ok), qpas ** -0.5, cap,
                                             softmax_dtype=torch.float32)
        o64, _ = softcapped_attention_pt(q, k, v, torch.from_numpy(ok), qpas ** -0.5, cap)
    o_np, w_np = softcapped_attention_np(q.numpy(), k.numpy(), v.numpy(), ok, qpas ** -0.5, cap)
    o_hf = o_hf.transpose(1, 2)                    # the module returns (B, L, H, D)
    raw = (q @ k.repeat_interleave(H // Hkv, 1).transpose(-1, -2)).abs().max() * qpas ** -0.5
    assert raw > cap                               # the cap is active
    # the module's softmax runs in float32: a capped score of size up to `cap` is rounded by
    # about cap * 6e-8, and each weight moves by that much relative; 1e-6 covers cap 5
    assert np.abs(o_np - o_hf.numpy()).max() < 1e-6 * max(1.0, cap / 5)
    assert (o_pt - o_hf).abs().max() < 1e-12                 # the same float32 round trip
    assert np.abs(o64.numpy() - o_np).max() < 1e-12      # float64 both
    assert np.all(w_np[..., ~ok] == 0) and torch.all(w_pt[..., torch.from_numpy(~ok)] == 0)


@pytest.mark.parametrize("layer", [0, 1])
def test_module_with_cache(layer):
    from transformers.cache_utils import DynamicCache
    from transformers.models.gemma2.modeling_gemma2 import Gemma2Attention
    from attnlab.positional_encoding import rope_angles_np, rope_rotate_half_np
    H, Hkv, D, E, qpas, cap, W = 6, 2, 10, 36, 30, 3.0, 4
    cfg = _config(H, Hkv, D, E, qpas, cap, window=W)
    base = cfg.rope_parameters["rope_theta"]
    torch.manual_seed(layer)
    mod = Gemma2Attention(cfg, layer_idx=layer).double().eval()
    window = W if layer == 0 else None
    with torch.no_grad():
        mod.q_proj.weight.mul_(12.0)
    Wq, Wk, Wv, Wo = (m.weight.detach().numpy() for m in
                      (mod.q_proj, mod.k_proj, mod.v_proj, mod.o_proj))
    x = torch.randn(1, 9, E, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    cache, kept = DynamicCache(config=cfg), 0
    for lo, hi in [(0, 6), (6, 7), (7, 9)]:
        n, pos = hi - lo, np.arange(lo, hi)
        xa = x[:, :hi].numpy()
        q = (x[:, lo:hi].numpy() @ Wq.T).reshape(1, n, H, D).transpose(0, 2, 1, 3)
        k = (xa @ Wk.T).reshape(1, hi, Hkv, D).transpose(0, 2, 1, 3)
        v = (xa @ Wv.T).reshape(1, hi, Hkv, D).transpose(0, 2, 1, 3)
        q, k = rope_rotate_half_np(q, pos, base), rope_rotate_half_np(k, np.arange(hi), base)
        o, _ = softcapped_attention_np(q, k, v, _allowed(pos, np.arange(hi), window),
                                       qpas ** -0.5, cap)
        y_np = o.transpose(0, 2, 1, 3).reshape(1, n, -1) @ Wo.T
        ang = rope_angles_np(pos, D, base)
        cs = tuple(torch.from_numpy(np.concatenate([f(ang)] * 2, -1))[None]
                   for f in (np.cos, np.sin))
        k_pos = np.arange(hi - kept - n, hi)
        with torch.no_grad():
            y_hf, w_hf = mod(x[:, lo:hi], cs, _bias(_allowed(pos, k_pos, window)), cache=cache)
        assert w_hf.shape[-1] == len(k_pos)
        assert np.abs(y_np - y_hf.numpy()).max() < 1e-6      # float32 softmax in the module
        kept = min(hi, W - 1) if window else hi


def test_final_logit_cap():
    from transformers.models.gemma2.modeling_gemma2 import Gemma2ForCausalLM
    for final in (30.0, 4.0):
        cfg = _config(4, 2, 6, 20, 16, 50.0, final=final)
        torch.manual_seed(0)
        lm = Gemma2ForCausalLM(cfg).double().eval()
        raw = {}
        lm.lm_head.register_forward_hook(lambda m, i, o: raw.__setitem__("z", o.detach()))
        with torch.no_grad():
            lm.lm_head.weight.mul_(500.0)
            out = lm(input_ids=torch.tensor([[1, 4, 2, 9, 3]])).logits
        assert raw["z"].abs().max() > 2 * final and out.abs().max() <= final
        assert np.abs(softcap_np(raw["z"].numpy(), final) - out.numpy()).max() < 1e-12
        assert (softcap_pt(raw["z"], final) - out).abs().max() < 1e-12


def test_gemma3_never_reads_the_cap():
    from transformers import Gemma3TextConfig
    from transformers.models.gemma3.modeling_gemma3 import Gemma3Attention
    outs = []
    x = torch.randn(1, 5, 24, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    ang = torch.arange(5, dtype=torch.float64)[:, None] * 0.1 * torch.arange(1, 5)
    cs = (torch.cat([ang.cos()] * 2, -1)[None], torch.cat([ang.sin()] * 2, -1)[None])
    for cap in (None, 0.3):
        c = Gemma3TextConfig(hidden_size=24, num_attention_heads=4, num_key_value_heads=2,
                             head_dim=8, attn_logit_softcapping=cap, num_hidden_layers=1)
        c._attn_implementation = "eager"
        torch.manual_seed(0)
        a = Gemma3Attention(c, layer_idx=0).double().eval()
        with torch.no_grad():
            a.q_norm.weight.fill_(4.0)
            outs.append(a(x, cs, None)[0])
    assert torch.equal(outs[0], outs[1])


@pytest.mark.parametrize("bad", [0.0, -1.0, float("inf"), float("-inf"), float("nan")])
def test_bad_cap_is_refused(bad):
    for fn in (lambda: softcap_np(np.ones(2), bad), lambda: softcap_pt(torch.ones(2), bad),
               lambda: softcapped_attention_np(np.ones((1, 1, 1, 2)), np.ones((1, 1, 3, 2)),
                                               np.ones((1, 1, 3, 2)), cap=bad)):
        with pytest.raises(ValueError, match=r"cap must be a finite number > 0.*None for no"):
            fn()
    with pytest.raises(TypeError, match="cap must be a number"):
        softcap_np(np.ones(2), "50")


def test_cap_none_is_plain_attention():
    from attnlab.masks import masked_sdpa_np
    g = np.random.default_rng(0)
    q, k, v = (g.standard_normal(shape) for shape in ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)))
    ok = _allowed(np.arange(2, 5), np.arange(5))
    o, w = softcapped_attention_np(q, k, v, ok, cap=None)
    o2, w2 = masked_sdpa_np(q, k, v, ok)
    assert np.abs(o - o2).max() < 1e-14 and np.abs(w - w2).max() < 1e-14
