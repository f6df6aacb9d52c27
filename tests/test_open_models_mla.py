"""Chapter 17, MLA: our NumPy and PyTorch MLA equal transformers' DeepseekV3Attention."""
import numpy as np
import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode
from transformers import DeepseekV3Config
from transformers.cache_utils import DynamicCache
from transformers.models.deepseek_v3.modeling_deepseek_v3 import (
    DeepseekV3Attention, DeepseekV3RotaryEmbedding)

from attnlab.masks import causal_mask_pt
from attnlab.open_models import (LatentAttention, MLALatentCache, check_mla_sizes,
                                 mla_cache_elements, mla_decode_flops, mla_sizes_of, mla_step_np)

TOL_HF = 2e-6      # the module's float32 RoPE tables, float32 RMSNorm, float32 softmax
TOL_64 = 1e-12     # our float64 versions against each other

CONFIGS = [dict(E=40, H=3, dc=12, dn=10, dr=6, dv=7, dq=20, bias=True),
           dict(E=36, H=4, dc=16, dn=6, dr=4, dv=9, dq=None, bias=False),
           dict(E=24, H=1, dc=8, dn=3, dr=10, dv=5, dq=12, bias=False)]   # d_R > d_nope, H = 1


def make(c, seed=0):
    cfg = DeepseekV3Config(hidden_size=c["E"], num_attention_heads=c["H"],
                           num_key_value_heads=c["H"], kv_lora_rank=c["dc"],
                           q_lora_rank=c["dq"], qk_nope_head_dim=c["dn"],
                           qk_rope_head_dim=c["dr"], v_head_dim=c["dv"],
                           attention_bias=c["bias"], num_hidden_layers=1,
                           max_position_embeddings=64)
    cfg._attn_implementation = "eager"
    torch.manual_seed(seed)
    hf = DeepseekV3Attention(cfg, layer_idx=0).double().eval()
    with torch.no_grad():
        for n, p in hf.named_parameters():
            if n.endswith("layernorm.weight") or n.endswith("bias"):
                p.copy_(n.endswith("weight") + 0.3 * torch.randn_like(p))
    ours = LatentAttention(c["E"], c["H"], c["dc"], c["dn"], c["dr"], c["dv"],
                           q_lora_rank=c["dq"], bias=c["bias"]).double()
    ours.load_state_dict(hf.state_dict())
    return cfg, hf, DeepseekV3RotaryEmbedding(cfg), ours


def hf_step(hf, rot, x, cache, start):
    L = x.shape[1]
    cos, sin = rot(x, torch.arange(start, start + L)[None])
    mask = torch.zeros(1, 1, L, start + L, dtype=x.dtype).masked_fill(
        ~causal_mask_pt(L, start + L, "bottom-right"), torch.finfo(x.dtype).min)
    with torch.no_grad():
        return hf(x, (cos, sin), mask, cache=cache)[0]


@pytest.mark.parametrize("c", CONFIGS)
def test_equal_to_transformers_with_cache(c):
    cfg, hf, rot, ours = make(c)
    s = mla_sizes_of(cfg)
    w = {k: v.detach().numpy() for k, v in hf.state_dict().items()}
    hc, tc, ac, nc, nac, start = DynamicCache(), MLALatentCache(), MLALatentCache(), None, None, 0
    for L in (5, 3, 1, 1):                       # prefill, chunk L=3 with S=8, decodes
        x = torch.randn(2, L, c["E"], dtype=torch.float64)
        ref = hf_step(hf, rot, x, hc, start)
        n, nc = mla_step_np(x.numpy(), w, s, nc)
        na, nac = mla_step_np(x.numpy(), w, s, nac, absorb=True)
        with torch.no_grad():
            tn, ta = ours(x, tc), ours(x, ac, absorb=True)
        assert np.abs(n - ref.numpy()).max() < TOL_HF
        for other in (na, tn.numpy(), ta.numpy()):
            assert np.abs(n - other).max() < TOL_64
        start += L
    layer = hc.layers[0]
    assert layer.keys.shape == (2, 1, start, c["dc"])             # (B, 1 "head", S, d_c)
    assert layer.values.shape == (2, 1, start, c["dr"])           # (B, 1 "head", S, d_R)
    assert (layer.keys[:, 0] - tc.c).abs().max() < 1e-6            # float32 norm
    assert (layer.values[:, 0] - tc.k_rope).abs().max() < 1e-6     # float32 tables


@pytest.mark.parametrize("c", CONFIGS[:2])
def test_flops_formula_equals_flop_counter(c):
    cfg, hf, rot, ours = make(c, seed=1)
    sz = {k: c[k] for k in ("E", "H", "dq", "dc", "dr", "dn", "dv")}
    pre, x1 = (torch.randn(1, L, c["E"], dtype=torch.float64) for L in (6, 1))
    hc = DynamicCache()
    hf_step(hf, rot, pre, hc, 0)
    for method, absorb in (("naive", False), ("absorbed", True)):
        cache = MLALatentCache()
        with torch.no_grad():
            ours(pre, cache)
            with FlopCounterMode(display=False) as fc:
                ours(x1, cache, absorb=absorb)
        assert fc.get_total_flops() == mla_decode_flops(S=7, method=method, **sz)
        assert cache.c.numel() + cache.k_rope.numel() == 7 * mla_cache_elements(
            c["H"], c["dc"], c["dr"], c["dn"], c["dv"], method)
    with FlopCounterMode(display=False) as fc:
        hf_step(hf, rot, x1, hc, 6)
    assert fc.get_total_flops() == mla_decode_flops(S=7, method="naive", **sz)


def test_bad_input():
    with pytest.raises(ValueError, match=r"kv_lora_rank=64.*Fix: choose kv_lora_rank <= hidden"):
        check_mla_sizes(hidden_size=40, kv_lora_rank=64, qk_rope_head_dim=6)
    with pytest.raises(ValueError, match=r"qk_rope_head_dim=5.*Fix"):
        LatentAttention(40, 3, 12, 10, 5, 7)
    with pytest.raises(ValueError, match=r"q_lora_rank=50.*Fix"):
        check_mla_sizes(40, 12, 6, q_lora_rank=50)
    with pytest.raises(ValueError, match="method"):
        mla_decode_flops(40, 3, None, 12, 6, 10, 7, 9, "merged")
