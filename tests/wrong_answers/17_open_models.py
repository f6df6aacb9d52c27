"""Wrong and right answers for chapter 17's exercises (assembled from its pieces)."""

# ---- qknorm
"""Wrong answers a learner would plausibly write for chapter 17's exercise 4 (OLMo 2's
QK-norm), and other right answers."""
_WRONG_qknorm = [
    (4, "norms each head's D entries (the chapter's Qwen3 layout), the weight reshaped to (H, D)", '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    def rms(t, w):
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + eps) * w

    q = (x @ weights["q_proj.weight"].T).view(B, L, H, D)
    k = (x @ weights["k_proj.weight"].T).view(B, L, Hkv, D)
    v = x @ weights["v_proj.weight"].T
    q = rms(q, weights["q_norm.weight"].view(H, D)).transpose(1, 2)
    k = rms(k, weights["k_norm.weight"].view(Hkv, D)).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(P, P + L)
    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) / D ** 0.5
    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)
    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, (k, v)
'''),
    (4, 'norms the whole projection, but after RoPE', '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    def rms(t, w):
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + eps) * w

    q = x @ weights["q_proj.weight"].T
    k = x @ weights["k_proj.weight"].T
    v = x @ weights["v_proj.weight"].T
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(P, P + L)
    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
    q = rms(q.transpose(1, 2).reshape(B, L, H * D), weights["q_norm.weight"])
    k = rms(k.transpose(1, 2).reshape(B, L, Hkv * D), weights["k_norm.weight"])
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) / D ** 0.5
    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)
    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, (k, v)
'''),
    (4, 'ignores the eps argument: always 1e-6', '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    def rms(t, w):
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + 1e-6) * w

    q = rms(x @ weights["q_proj.weight"].T, weights["q_norm.weight"])
    k = rms(x @ weights["k_proj.weight"].T, weights["k_norm.weight"])
    v = x @ weights["v_proj.weight"].T
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(P, P + L)
    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) / D ** 0.5
    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)
    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, (k, v)
'''),
    (4, 'adds eps outside the square root', '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    def rms(t, w):
        return t / (t.pow(2).mean(-1, keepdim=True).sqrt() + eps) * w

    q = rms(x @ weights["q_proj.weight"].T, weights["q_norm.weight"])
    k = rms(x @ weights["k_proj.weight"].T, weights["k_norm.weight"])
    v = x @ weights["v_proj.weight"].T
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(P, P + L)
    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) / D ** 0.5
    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)
    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, (k, v)
'''),
    (4, "divides the key's sum of squares by H*D instead of Hkv*D", '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    def rms(t, w):
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + eps) * w

    q = rms(x @ weights["q_proj.weight"].T, weights["q_norm.weight"])
    kp = x @ weights["k_proj.weight"].T
    k = kp * torch.rsqrt(kp.pow(2).sum(-1, keepdim=True) / (H * D) + eps) * weights["k_norm.weight"]
    v = x @ weights["v_proj.weight"].T
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(P, P + L)
    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) / D ** 0.5
    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)
    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, (k, v)
'''),
    (4, 'normalises the values too', '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    def rms(t, w):
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + eps) * w

    q = rms(x @ weights["q_proj.weight"].T, weights["q_norm.weight"])
    k = rms(x @ weights["k_proj.weight"].T, weights["k_norm.weight"])
    v = rms(x @ weights["v_proj.weight"].T, 1.0)
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(P, P + L)
    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) / D ** 0.5
    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)
    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, (k, v)
'''),
    (4, 'leaves out the learned norm weights', '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    def rms(t, w):
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + eps) * w

    q = rms(x @ weights["q_proj.weight"].T, 1.0)
    k = rms(x @ weights["k_proj.weight"].T, 1.0)
    v = x @ weights["v_proj.weight"].T
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(P, P + L)
    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) / D ** 0.5
    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)
    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, (k, v)
'''),
    (4, 'divides by the mean square instead of its square root', '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    def rms(t, w):
        return t * 1.0 / (t.pow(2).mean(-1, keepdim=True) + eps) * w

    q = rms(x @ weights["q_proj.weight"].T, weights["q_norm.weight"])
    k = rms(x @ weights["k_proj.weight"].T, weights["k_norm.weight"])
    v = x @ weights["v_proj.weight"].T
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(P, P + L)
    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) / D ** 0.5
    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)
    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, (k, v)
'''),
    (4, 'a top-left causal mask: wrong once a cache makes L != S', '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    def rms(t, w):
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + eps) * w

    q = rms(x @ weights["q_proj.weight"].T, weights["q_norm.weight"])
    k = rms(x @ weights["k_proj.weight"].T, weights["k_norm.weight"])
    v = x @ weights["v_proj.weight"].T
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(P, P + L)
    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) / D ** 0.5
    allowed = torch.ones(L, S, dtype=torch.bool).tril()
    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, (k, v)
'''),
    (4, 'caches keys before RoPE and rotates every key again at each step', '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    def rms(t, w):
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + eps) * w

    q = rms(x @ weights["q_proj.weight"].T, weights["q_norm.weight"])
    k = rms(x @ weights["k_proj.weight"].T, weights["k_norm.weight"])
    v = x @ weights["v_proj.weight"].T
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(P, P + L)
    q = rope_rotate_half_pt(q, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    new_cache = (k, v)
    k = rope_rotate_half_pt(k, torch.arange(S))
    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) / D ** 0.5
    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)
    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, new_cache
'''),
    (4, 'new tokens take positions 0..L-1 instead of P..P+L-1', '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    def rms(t, w):
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + eps) * w

    q = rms(x @ weights["q_proj.weight"].T, weights["q_norm.weight"])
    k = rms(x @ weights["k_proj.weight"].T, weights["k_norm.weight"])
    v = x @ weights["v_proj.weight"].T
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(L)
    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) / D ** 0.5
    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)
    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, (k, v)
'''),
    (4, 'scales scores by 1/sqrt(H*D), the width the norm ran over, not 1/sqrt(D)', '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    def rms(t, w):
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + eps) * w

    q = rms(x @ weights["q_proj.weight"].T, weights["q_norm.weight"])
    k = rms(x @ weights["k_proj.weight"].T, weights["k_norm.weight"])
    v = x @ weights["v_proj.weight"].T
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(P, P + L)
    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) / (H * D) ** 0.5
    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)
    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, (k, v)
'''),
    (4, 'computes in float32', '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    x = x.float()
    weights = {n: w.float() for n, w in weights.items()}
    if cache is not None:
        cache = tuple(c.float() for c in cache)

    def rms(t, w):
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + eps) * w

    q = rms(x @ weights["q_proj.weight"].T, weights["q_norm.weight"])
    k = rms(x @ weights["k_proj.weight"].T, weights["k_norm.weight"])
    v = x @ weights["v_proj.weight"].T
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(P, P + L)
    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) / D ** 0.5
    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)
    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, (k, v)
'''),
    (4, 'scales the scores by (E // H) ** -0.5, not by the head size D given', '\ndef olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):\n    from attnlab.positional_encoding import rope_rotate_half_pt\n    from attnlab.serving import repeat_kv_pt\n\n    B, L, _ = x.shape\n    P = 0 if cache is None else cache[0].shape[2]\n\n    def rms(t, w):                                  # over the last axis: all H*D (Hkv*D) entries\n        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + eps) * w\n\n    q = rms(x @ weights["q_proj.weight"].T, weights["q_norm.weight"])   # (B, L, H*D)\n    k = rms(x @ weights["k_proj.weight"].T, weights["k_norm.weight"])   # (B, L, Hkv*D)\n    v = x @ weights["v_proj.weight"].T\n    q = q.view(B, L, H, D).transpose(1, 2)          # (B, L, H*D) -> (B, H, L, D)\n    k = k.view(B, L, Hkv, D).transpose(1, 2)        # (B, L, Hkv*D) -> (B, Hkv, L, D)\n    v = v.view(B, L, Hkv, D).transpose(1, 2)\n    positions = torch.arange(P, P + L)\n    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)\n    if cache is not None:\n        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)\n    S = P + L\n    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) * (x.shape[-1] // H) ** -0.5   # (B, H, L, S)\n    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)\n    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)\n    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)\n    return out @ weights["o_proj.weight"].T, (k, v)\n'),
]
_RIGHT_qknorm = [
    (4, 'F.rms_norm over the last axis', '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    def rms(t, w):
        return F.rms_norm(t, (t.shape[-1],), w, eps)

    q = rms(x @ weights["q_proj.weight"].T, weights["q_norm.weight"])
    k = rms(x @ weights["k_proj.weight"].T, weights["k_norm.weight"])
    v = x @ weights["v_proj.weight"].T
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(P, P + L)
    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) / D ** 0.5
    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)
    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, (k, v)
'''),
    (4, 'F.scaled_dot_product_attention with a bottom-right boolean mask', '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    def rms(t, w):
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + eps) * w

    q = rms(x @ weights["q_proj.weight"].T, weights["q_norm.weight"])
    k = rms(x @ weights["k_proj.weight"].T, weights["k_norm.weight"])
    v = x @ weights["v_proj.weight"].T
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(P, P + L)
    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)
    out = o.transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, (k, v)
'''),
    (4, 'the norm rounded through float32 as transformers does', '''
def olmo2_attention_pt(x, weights, H, Hkv, D, cache=None, eps=1e-6):
    from attnlab.positional_encoding import rope_rotate_half_pt
    from attnlab.serving import repeat_kv_pt

    B, L, _ = x.shape
    P = 0 if cache is None else cache[0].shape[2]

    def rms(t, w):                          # like transformers: the norm in float32
        t32 = t.float()
        return (w * (t32 * torch.rsqrt(t32.pow(2).mean(-1, keepdim=True) + eps))).to(t.dtype)

    q = rms(x @ weights["q_proj.weight"].T, weights["q_norm.weight"])
    k = rms(x @ weights["k_proj.weight"].T, weights["k_norm.weight"])
    v = x @ weights["v_proj.weight"].T
    q = q.view(B, L, H, D).transpose(1, 2)
    k = k.view(B, L, Hkv, D).transpose(1, 2)
    v = v.view(B, L, Hkv, D).transpose(1, 2)
    positions = torch.arange(P, P + L)
    q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
    S = P + L
    scores = q @ repeat_kv_pt(k, H).transpose(-2, -1) / D ** 0.5
    allowed = torch.ones(L, S, dtype=torch.bool).tril(S - L)
    attn = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    out = (attn @ repeat_kv_pt(v, H)).transpose(1, 2).reshape(B, L, H * D)
    return out @ weights["o_proj.weight"].T, (k, v)
'''),
]


# ---- softcap
"""Wrong answers a learner would plausibly write for chapter 17's soft-capping exercises (1, 5)."""
_WRONG_softcap = [
    (1, 'tanh without multiplying back by the cap: scores squashed to (-1, 1)', '''
def capped_entropy(scores, cap):
    z = np.asarray(scores, dtype=np.float64)
    if cap is not None:
        z = np.tanh(z / cap)
    z = z - z.max(-1, keepdims=True)
    logw = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return -(np.exp(logw) * logw).sum(-1)
'''),
    (1, 'a hard clip instead of the smooth cap', '''
def capped_entropy(scores, cap):
    z = np.asarray(scores, dtype=np.float64)
    if cap is not None:
        z = np.clip(z, -cap, cap)
    z = z - z.max(-1, keepdims=True)
    logw = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return -(np.exp(logw) * logw).sum(-1)
'''),
    (1, 'divides by the cap like a temperature, no tanh', '''
def capped_entropy(scores, cap):
    z = np.asarray(scores, dtype=np.float64)
    if cap is not None:
        z = z / cap
    z = z - z.max(-1, keepdims=True)
    logw = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return -(np.exp(logw) * logw).sum(-1)
'''),
    (1, 'softmax without subtracting the max: exp(1e4) overflows when there is no cap', '''
def capped_entropy(scores, cap):
    z = softcap_np(scores, cap)
    w = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
    return -(w * np.log(w)).sum(-1)
'''),
    (1, '-(w log w) with weights of exactly 0: 0 * log 0 = NaN', '''
def capped_entropy(scores, cap):
    z = softcap_np(scores, cap)
    e = np.exp(z - z.max(-1, keepdims=True))
    w = e / e.sum(-1, keepdims=True)
    return -(w * np.log(w)).sum(-1)
'''),
    (1, 'entropy in bits (log2)', '''
def capped_entropy(scores, cap):
    z = softcap_np(scores, cap)
    z = z - z.max(-1, keepdims=True)
    logw = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return -(np.exp(logw) * logw).sum(-1) / np.log(2)
'''),
    (1, 'the mean entropy over all rows instead of one per row', '''
def capped_entropy(scores, cap):
    z = softcap_np(scores, cap)
    z = z - z.max(-1, keepdims=True)
    logw = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return np.asarray(-(np.exp(logw) * logw).sum(-1).mean())
'''),
    (1, 'the softmax over the first axis', '''
def capped_entropy(scores, cap):
    z = softcap_np(scores, cap)
    z = z - z.max(0, keepdims=True)
    logw = z - np.log(np.exp(z).sum(0, keepdims=True))
    return -(np.exp(logw) * logw).sum(-1)
'''),
    (1, 'computed in float32', '''
def capped_entropy(scores, cap):
    z = softcap_np(scores, cap).astype(np.float32)
    z = z - z.max(-1, keepdims=True)
    logw = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return -(np.exp(logw) * logw).sum(-1)
'''),
    (1, 'caps in place: the caller’s scores are overwritten', '''
def capped_entropy(scores, cap):
    z = scores
    if cap is not None:
        z /= cap
        np.tanh(z, out=z)
        z *= cap
    z = z - z.max(-1, keepdims=True)
    logw = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return -(np.exp(logw) * logw).sum(-1)
'''),
    (1, 'a prediction that computes the answer instead of typing it', '''
def prediction():
    import math
    return {c: 0.0 if c == 50 else math.log(1024) for c in (2, 5, 50)}
'''),
    (1, 'a prediction with string keys', '''
def prediction():
    return {"2": 6.8, "5": 0.5, "50": 0.0}
'''),
    (5, 'masks with -inf, then caps: a future key becomes -cap', '''
def capped_attention_chunked(q, chunks, q_pos, cap, scale):
    B, H, L, D = q.shape
    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = 0.0
    for k, v, k_pos in chunks:
        G = H // k.shape[1]
        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)
        s = q @ kr.swapaxes(-1, -2) * scale
        s = np.where(np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None], s, -np.inf)
        s = softcap_np(s, cap)
        m_new = np.maximum(m, s.max(-1))
        p = np.exp(s - m_new[..., None])
        f = np.exp(m - m_new)
        acc = f[..., None] * acc + p @ vr
        den = f * den + p.sum(-1)
        m = m_new
    return acc / den[..., None], m + np.log(den)
'''),
    (5, "adds transformers' most negative float, then caps", '''
def capped_attention_chunked(q, chunks, q_pos, cap, scale):
    B, H, L, D = q.shape
    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = 0.0
    for k, v, k_pos in chunks:
        G = H // k.shape[1]
        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)
        s = q @ kr.swapaxes(-1, -2) * scale
        s = s + np.where(np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None], 0.0,
                         np.finfo(np.float64).min)
        s = softcap_np(s, cap)
        m_new = np.maximum(m, s.max(-1))
        p = np.exp(s - m_new[..., None])
        f = np.exp(m - m_new)
        acc = f[..., None] * acc + p @ vr
        den = f * den + p.sum(-1)
        m = m_new
    return acc / den[..., None], m + np.log(den)
'''),
    (5, 'caps q k^T before scaling it', '''
def capped_attention_chunked(q, chunks, q_pos, cap, scale):
    B, H, L, D = q.shape
    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = 0.0
    for k, v, k_pos in chunks:
        G = H // k.shape[1]
        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)
        s = softcap_np(q @ kr.swapaxes(-1, -2), cap) * scale
        s = np.where(np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None], s, -np.inf)
        m_new = np.maximum(m, s.max(-1))
        safe = np.where(np.isfinite(m_new), m_new, 0.0)
        p = np.exp(s - safe[..., None])
        f = np.exp(m - safe)
        acc = f[..., None] * acc + p @ vr
        den = f * den + p.sum(-1)
        m = m_new
    return acc / den[..., None], m + np.log(den)
'''),
    (5, 'merges uncapped chunks, then caps the merged logsumexp', '''
def capped_attention_chunked(q, chunks, q_pos, cap, scale):
    B, H, L, D = q.shape
    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = 0.0
    for k, v, k_pos in chunks:
        G = H // k.shape[1]
        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)
        s = q @ kr.swapaxes(-1, -2) * scale
        s = np.where(np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None], s, -np.inf)
        m_new = np.maximum(m, s.max(-1))
        safe = np.where(np.isfinite(m_new), m_new, 0.0)
        p = np.exp(s - safe[..., None])
        f = np.exp(m - safe)
        acc = f[..., None] * acc + p @ vr
        den = f * den + p.sum(-1)
        m = m_new
    return acc / den[..., None], softcap_np(m + np.log(den), cap)
'''),
    (5, 'the merge forgets that a chunk may be all future: exp(-inf - -inf) is NaN', '''
def capped_attention_chunked(q, chunks, q_pos, cap, scale):
    B, H, L, D = q.shape
    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = 0.0
    for k, v, k_pos in chunks:
        G = H // k.shape[1]
        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)
        s = softcap_np(q @ kr.swapaxes(-1, -2) * scale, cap)
        s = np.where(np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None], s, -np.inf)
        m_new = np.maximum(m, s.max(-1))
        p = np.exp(s - m_new[..., None])
        f = np.exp(m - m_new)
        acc = f[..., None] * acc + p @ vr
        den = f * den + p.sum(-1)
        m = m_new
    return acc / den[..., None], m + np.log(den)
'''),
    (5, 'query head h reads K/V head h % Hkv (tiled) instead of h // G', '''
def capped_attention_chunked(q, chunks, q_pos, cap, scale):
    B, H, L, D = q.shape
    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = 0.0
    for k, v, k_pos in chunks:
        G = H // k.shape[1]
        kr, vr = np.tile(k, (1, G, 1, 1)), np.tile(v, (1, G, 1, 1))
        s = softcap_np(q @ kr.swapaxes(-1, -2) * scale, cap)
        s = np.where(np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None], s, -np.inf)
        m_new = np.maximum(m, s.max(-1))
        safe = np.where(np.isfinite(m_new), m_new, 0.0)
        p = np.exp(s - safe[..., None])
        f = np.exp(m - safe)
        acc = f[..., None] * acc + p @ vr
        den = f * den + p.sum(-1)
        m = m_new
    return acc / den[..., None], m + np.log(den)
'''),
    (5, 'masks by the index inside the chunk, not by position', '''
def capped_attention_chunked(q, chunks, q_pos, cap, scale):
    B, H, L, D = q.shape
    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = 0.0
    for k, v, k_pos in chunks:
        G = H // k.shape[1]
        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)
        s = softcap_np(q @ kr.swapaxes(-1, -2) * scale, cap)
        idx = np.arange(k.shape[2])
        s = np.where(idx[None, :] <= np.asarray(q_pos)[:, None], s, -np.inf)
        m_new = np.maximum(m, s.max(-1))
        safe = np.where(np.isfinite(m_new), m_new, 0.0)
        p = np.exp(s - safe[..., None])
        f = np.exp(m - safe)
        acc = f[..., None] * acc + p @ vr
        den = f * den + p.sum(-1)
        m = m_new
    return acc / den[..., None], m + np.log(den)
'''),
    (5, 'averages the chunks’ softmax outputs with equal weights', '''
def capped_attention_chunked(q, chunks, q_pos, cap, scale):
    outs, lses = [], []
    H = q.shape[1]
    for k, v, k_pos in chunks:
        G = H // k.shape[1]
        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)
        s = softcap_np(q @ kr.swapaxes(-1, -2) * scale, cap)
        ok = np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None]
        s = np.where(ok, s, -np.inf)
        top = np.where(np.isfinite(s.max(-1)), s.max(-1), 0.0)
        e = np.exp(s - top[..., None])
        tot = e.sum(-1)
        outs.append((e @ vr) / np.where(tot > 0, tot, 1.0)[..., None])
        lses.append(np.where(tot > 0, top + np.log(np.where(tot > 0, tot, 1.0)), -np.inf))
    lse = np.logaddexp.reduce(np.stack(lses), axis=0)
    return np.mean(outs, axis=0), lse
'''),
    (5, "calls attnlab's merge_partials_np", '''
from attnlab.flash_attention import merge_partials_np

def capped_attention_chunked(q, chunks, q_pos, cap, scale):
    outs, lses = [], []
    H = q.shape[1]
    for k, v, k_pos in chunks:
        G = H // k.shape[1]
        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)
        s = softcap_np(q @ kr.swapaxes(-1, -2) * scale, cap)
        ok = np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None]
        s = np.where(ok, s, -np.inf)
        top = np.where(np.isfinite(s.max(-1)), s.max(-1), 0.0)
        e = np.exp(s - top[..., None])
        tot = e.sum(-1)
        outs.append((e @ vr) / np.where(tot > 0, tot, 1.0)[..., None])
        lses.append(np.where(tot > 0, top + np.log(np.where(tot > 0, tot, 1.0)), -np.inf))
    return merge_partials_np(np.stack(outs), np.stack(lses))
'''),
    (5, 'gathers every chunk into one cache, then attends densely', '''
def capped_attention_chunked(q, chunks, q_pos, cap, scale):
    ks, vs, ps = zip(*chunks)
    k, v, k_pos = np.concatenate(ks, 2), np.concatenate(vs, 2), np.concatenate(ps)
    G = q.shape[1] // k.shape[1]
    s = softcap_np(q @ np.repeat(k, G, 1).swapaxes(-1, -2) * scale, cap)
    s = np.where(k_pos[None, :] <= np.asarray(q_pos)[:, None], s, -np.inf)
    top = s.max(-1, keepdims=True)
    e = np.exp(s - top)
    return (e @ np.repeat(v, G, 1)) / e.sum(-1, keepdims=True), top[..., 0] + np.log(e.sum(-1))
'''),
    (5, 'reads the chunks twice (a first pass for the global max)', '''
def capped_attention_chunked(q, chunks, q_pos, cap, scale):
    H = q.shape[1]
    def scores(k, k_pos):
        G = H // k.shape[1]
        s = softcap_np(q @ np.repeat(k, G, 1).swapaxes(-1, -2) * scale, cap)
        return np.where(np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None], s, -np.inf)
    top = np.max([scores(k, p).max(-1) for k, v, p in chunks], axis=0)
    acc, den = 0.0, 0.0
    for k, v, k_pos in chunks:
        e = np.exp(scores(k, k_pos) - top[..., None])
        acc = acc + e @ np.repeat(v, H // k.shape[1], 1)
        den = den + e.sum(-1)
    return acc / den[..., None], top + np.log(den)
'''),
    (5, 'caps in place: q is scaled in place before the loop', '''
def capped_attention_chunked(q, chunks, q_pos, cap, scale):
    B, H, L, D = q.shape
    q *= scale
    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = 0.0
    for k, v, k_pos in chunks:
        G = H // k.shape[1]
        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)
        s = softcap_np(q @ kr.swapaxes(-1, -2), cap)
        s = np.where(np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None], s, -np.inf)
        m_new = np.maximum(m, s.max(-1))
        safe = np.where(np.isfinite(m_new), m_new, 0.0)
        p = np.exp(s - safe[..., None])
        f = np.exp(m - safe)
        acc = f[..., None] * acc + p @ vr
        den = f * den + p.sum(-1)
        m = m_new
    return acc / den[..., None], m + np.log(den)
'''),
    (5, 'returns the running max instead of the logsumexp', '''
def capped_attention_chunked(q, chunks, q_pos, cap, scale):
    B, H, L, D = q.shape
    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = 0.0
    for k, v, k_pos in chunks:
        G = H // k.shape[1]
        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)
        s = softcap_np(q @ kr.swapaxes(-1, -2) * scale, cap)
        s = np.where(np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None], s, -np.inf)
        m_new = np.maximum(m, s.max(-1))
        safe = np.where(np.isfinite(m_new), m_new, 0.0)
        p = np.exp(s - safe[..., None])
        f = np.exp(m - safe)
        acc = f[..., None] * acc + p @ vr
        den = f * den + p.sum(-1)
        m = m_new
    return acc / den[..., None], m
'''),
    (1, 'computed in float32, cast back to float64 at the end', '\ndef capped_entropy(scores, cap):\n    z = softcap_np(scores, cap).astype(np.float32)\n    z = z - z.max(-1, keepdims=True)\n    logw = z - np.log(np.exp(z).sum(-1, keepdims=True))\n    return (-(np.exp(logw) * logw).sum(-1)).astype(np.float64)\n'),
    (5, 'the running max frozen at the first chunk with a visible key', '\ndef capped_attention_chunked(q, chunks, q_pos, cap, scale):\n    B, H, L, D = q.shape\n    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = 0.0\n    for k, v, k_pos in chunks:\n        G = H // k.shape[1]\n        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)\n        s = softcap_np(q @ kr.swapaxes(-1, -2) * scale, cap)\n        s = np.where(np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None], s, -np.inf)\n        m_new = np.where(np.isfinite(m), m, s.max(-1))\n        safe = np.where(np.isfinite(m_new), m_new, 0.0)\n        p = np.exp(s - safe[..., None])\n        f = np.exp(m - safe)\n        acc = f[..., None] * acc + p @ vr\n        den = f * den + p.sum(-1)\n        m = m_new\n    return acc / den[..., None], m + np.log(den)\n'),
    (5, 'no max shift at all: exp of the raw capped scores', '\ndef capped_attention_chunked(q, chunks, q_pos, cap, scale):\n    acc, den = 0.0, 0.0\n    H = q.shape[1]\n    for k, v, k_pos in chunks:\n        G = H // k.shape[1]\n        s = softcap_np(q @ np.repeat(k, G, 1).swapaxes(-1, -2) * scale, cap)\n        vis = np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None]\n        e = np.where(vis, np.exp(s), 0.0)\n        acc = acc + e @ np.repeat(v, G, 1)\n        den = den + e.sum(-1)\n    return acc / den[..., None], np.log(den)\n'),
    (5, 'a query does not see its own position (< instead of <=)', '\ndef capped_attention_chunked(q, chunks, q_pos, cap, scale):\n    B, H, L, D = q.shape\n    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = 0.0\n    for k, v, k_pos in chunks:\n        G = H // k.shape[1]\n        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)\n        s = softcap_np(q @ kr.swapaxes(-1, -2) * scale, cap)\n        s = np.where(np.asarray(k_pos)[None, :] < np.asarray(q_pos)[:, None], s, -np.inf)\n        m_new = np.maximum(m, s.max(-1))\n        safe = np.where(np.isfinite(m_new), m_new, 0.0)\n        p = np.exp(s - safe[..., None])\n        f = np.exp(m - safe)\n        acc = f[..., None] * acc + p @ vr\n        den = f * den + p.sum(-1)\n        m = m_new\n    return acc / den[..., None], m + np.log(den)\n'),
    (5, 'masks by the order in which keys were read, not by k_pos', '\ndef capped_attention_chunked(q, chunks, q_pos, cap, scale):\n    B, H, L, D = q.shape\n    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = 0.0\n    seen = 0\n    for k, v, k_pos in chunks:\n        G = H // k.shape[1]\n        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)\n        s = softcap_np(q @ kr.swapaxes(-1, -2) * scale, cap)\n        s = np.where((np.arange(k.shape[2]) + seen)[None, :] <= np.asarray(q_pos)[:, None], s, -np.inf)\n        m_new = np.maximum(m, s.max(-1))\n        safe = np.where(np.isfinite(m_new), m_new, 0.0)\n        p = np.exp(s - safe[..., None])\n        f = np.exp(m - safe)\n        acc = f[..., None] * acc + p @ vr\n        den = f * den + p.sum(-1)\n        m = m_new\n        seen += k.shape[2]\n    return acc / den[..., None], m + np.log(den)\n'),
    (5, 'computed in float32 inside, cast back to float64', '\ndef capped_attention_chunked(q, chunks, q_pos, cap, scale):\n    B, H, L, D = q.shape\n    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = 0.0\n    for k, v, k_pos in chunks:\n        G = H // k.shape[1]\n        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)\n        s = softcap_np((q.astype(np.float32) @ kr.astype(np.float32).swapaxes(-1, -2)) * np.float32(scale), cap).astype(np.float64)\n        s = np.where(np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None], s, -np.inf)\n        m_new = np.maximum(m, s.max(-1))\n        safe = np.where(np.isfinite(m_new), m_new, 0.0)\n        p = np.exp(s - safe[..., None])\n        f = np.exp(m - safe)\n        acc = f[..., None] * acc + p @ vr\n        den = f * den + p.sum(-1)\n        m = m_new\n    return acc / den[..., None], m + np.log(den)\n'),
    (5, 'returns float32 arrays', '\ndef capped_attention_chunked(q, chunks, q_pos, cap, scale):\n    B, H, L, D = q.shape\n    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = 0.0\n    for k, v, k_pos in chunks:\n        G = H // k.shape[1]\n        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)\n        s = softcap_np(q @ kr.swapaxes(-1, -2) * scale, cap)\n        s = np.where(np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None], s, -np.inf)\n        m_new = np.maximum(m, s.max(-1))\n        safe = np.where(np.isfinite(m_new), m_new, 0.0)\n        p = np.exp(s - safe[..., None])\n        f = np.exp(m - safe)\n        acc = f[..., None] * acc + p @ vr\n        den = f * den + p.sum(-1)\n        m = m_new\n    return (acc / den[..., None]).astype(np.float32), (m + np.log(den)).astype(np.float32)\n'),
    (5, "caps at Gemma 2's 50 when cap=None", '\ndef capped_attention_chunked(q, chunks, q_pos, cap, scale):\n    B, H, L, D = q.shape\n    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = 0.0\n    for k, v, k_pos in chunks:\n        G = H // k.shape[1]\n        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)\n        s = softcap_np(q @ kr.swapaxes(-1, -2) * scale, 50.0 if cap is None else cap)\n        s = np.where(np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None], s, -np.inf)\n        m_new = np.maximum(m, s.max(-1))\n        safe = np.where(np.isfinite(m_new), m_new, 0.0)\n        p = np.exp(s - safe[..., None])\n        f = np.exp(m - safe)\n        acc = f[..., None] * acc + p @ vr\n        den = f * den + p.sum(-1)\n        m = m_new\n    return acc / den[..., None], m + np.log(den)\n'),
]

_RIGHT_softcap = [
    (1, 'the logsumexp form: H = lse(z) - sum(p z)', '''
def capped_entropy(scores, cap):
    s = np.array(scores, dtype=np.float64)
    z = s if cap is None else cap * np.tanh(s / cap)
    top = z.max(-1, keepdims=True)
    e = np.exp(z - top)
    tot = e.sum(-1, keepdims=True)
    p = e / tot
    lse = top + np.log(tot)
    return (lse - (p * z).sum(-1, keepdims=True))[..., 0]
'''),
    (1, 'PyTorch log_softmax, zero weights masked out', '''
def capped_entropy(scores, cap):
    s = torch.as_tensor(np.array(scores), dtype=torch.float64)
    z = s if cap is None else cap * torch.tanh(s / cap)
    logp = torch.log_softmax(z, -1)
    p = logp.exp()
    return -(torch.where(p > 0, p * logp, torch.zeros_like(p))).sum(-1).numpy()
'''),
    (1, 'a prediction from a rough hand estimate (reported, not failed)', '''
def prediction():
    return {2: 6.9, 5: 0.3, 50: 0.0}
'''),
    (5, 'keeps every chunk’s (out, lse) and merges them at the end with its own code', '''
def capped_attention_chunked(q, chunks, q_pos, cap, scale):
    outs, lses = [], []
    H = q.shape[1]
    for k, v, k_pos in chunks:
        G = H // k.shape[1]
        kr, vr = np.repeat(k, G, 1), np.repeat(v, G, 1)
        s = softcap_np(q @ kr.swapaxes(-1, -2) * scale, cap)
        ok = np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None]
        s = np.where(ok, s, -np.inf)
        top = s.max(-1)
        safe = np.where(np.isfinite(top), top, 0.0)
        e = np.exp(s - safe[..., None])
        tot = e.sum(-1)
        outs.append((e @ vr) / np.where(tot > 0, tot, 1.0)[..., None])
        lses.append(np.where(tot > 0, safe + np.log(np.where(tot > 0, tot, 1.0)), -np.inf))
    lse = np.logaddexp.reduce(np.stack(lses), axis=0)
    share = np.exp(np.stack(lses) - lse)
    return (share[..., None] * np.stack(outs)).sum(0), lse
'''),
    (5, 'grouped heads without copying K and V, masked by boolean weights', '''
def capped_attention_chunked(q, chunks, q_pos, cap, scale):
    B, H, L, D = q.shape
    m = np.full((B, H, L), -np.inf); den = np.zeros((B, H, L)); acc = None
    for k, v, k_pos in chunks:
        Hkv = k.shape[1]; G = H // Hkv
        qg = q.reshape(B, Hkv, G, L, D)
        s = (qg @ k[:, :, None].swapaxes(-1, -2) * scale).reshape(B, H, L, -1)
        if cap is not None:
            s = cap * np.tanh(s / cap)
        ok = np.asarray(k_pos)[None, :] <= np.asarray(q_pos)[:, None]
        m_new = np.maximum(m, np.where(ok, s, -np.inf).max(-1))
        safe = np.where(np.isfinite(m_new), m_new, 0.0)
        p = np.exp(np.minimum(s - safe[..., None], 0.0)) * ok
        f = np.exp(m - safe)
        pv = (p.reshape(B, Hkv, G, L, -1) @ v[:, :, None]).reshape(B, H, L, -1)
        acc = pv if acc is None else f[..., None] * acc + pv
        den = f * den + p.sum(-1)
        m = m_new
    return acc / den[..., None], m + np.log(den)
'''),
    (1, 'lse by np.logaddexp.reduce, then lse - sum(p z)', '\ndef capped_entropy(scores, cap):\n    z = softcap_np(np.array(scores, dtype=np.float64), cap)\n    lse = np.logaddexp.reduce(z, axis=-1)\n    p = np.exp(z - lse[..., None])\n    return lse - (p * z).sum(-1)\n'),
]


# ---- sinks
"""Wrong answers (every partial fix) and other right answers for chapter 17's exercise 2."""
_WRONG_sinks = [
    (2, "the given function unchanged: the sink is added to an already normalised row", '''
def sink_weights(scores, sinks, allowed):
    w = masked_softmax_np(scores, allowed)
    room = np.exp(sinks)[None, :, None, None]
    return w / (w.sum(axis=-1, keepdims=True) + room)
'''),
    (2, "shifts the keys by the row maximum but not the sink", '''
def sink_weights(scores, sinks, allowed):
    s = np.where(allowed, scores, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(s - m)
    return e / (e.sum(axis=-1, keepdims=True) + np.exp(sinks)[None, :, None, None])
'''),
    (2, "right formula without any shift: exp overflows for large scores or sinks", '''
def sink_weights(scores, sinks, allowed):
    e = np.where(allowed, np.exp(scores), 0.0)
    return e / (e.sum(axis=-1, keepdims=True) + np.exp(sinks)[None, :, None, None])
'''),
    (2, "shifts by the maximum of the real keys only: a fully masked row gives NaN", '''
def sink_weights(scores, sinks, allowed):
    s = np.where(allowed, scores, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    e = np.exp(s - m)
    z = np.exp(sinks[None, :, None, None] - m)
    return e / (e.sum(axis=-1, keepdims=True) + z)
'''),
    (2, "masks the sink column together with the keys", '''
def sink_weights(scores, sinks, allowed):
    al = np.broadcast_to(allowed, scores.shape)
    z = np.broadcast_to(sinks[None, :, None, None], scores.shape[:-1] + (1,))
    full = np.concatenate([scores, z], axis=-1)
    ok = np.concatenate([al, al[..., -1:]], axis=-1)
    full = np.where(ok, full, -np.inf)
    e = np.exp(full - full.max(axis=-1, keepdims=True))
    return np.nan_to_num(e / e.sum(axis=-1, keepdims=True))[..., :-1]
'''),
    (2, "appends the sink but zeroes masked keys after the softmax", '''
def sink_weights(scores, sinks, allowed):
    z = np.broadcast_to(sinks[None, :, None, None], scores.shape[:-1] + (1,))
    full = np.concatenate([scores, z], axis=-1)
    e = np.exp(full - full.max(axis=-1, keepdims=True))
    p = (e / e.sum(axis=-1, keepdims=True))[..., :-1]
    return p * allowed
'''),
    (2, "rescales the softmax by sigmoid(lse - sink) with lse over all keys, masked ones too", '''
def sink_weights(scores, sinks, allowed):
    w = masked_softmax_np(scores, allowed)
    m = scores.max(axis=-1, keepdims=True)
    lse = m + np.log(np.exp(scores - m).sum(axis=-1, keepdims=True))
    return w / (1 + np.exp(sinks[None, :, None, None] - lse))
'''),
    (2, "keeps the sink column: returns S + 1 weights", '''
def sink_weights(scores, sinks, allowed):
    s = np.where(allowed, scores, -np.inf)
    z = np.broadcast_to(sinks[None, :, None, None], s.shape[:-1] + (1,))
    full = np.concatenate([s, z], axis=-1)
    e = np.exp(full - full.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (2, "computes in float32", '''
def sink_weights(scores, sinks, allowed):
    s = np.where(allowed, scores, -np.inf).astype(np.float32)
    z = np.broadcast_to(sinks.astype(np.float32)[None, :, None, None], s.shape[:-1] + (1,))
    full = np.concatenate([s, z], axis=-1)
    e = np.exp(full - full.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True))[..., :-1].astype(np.float64)
'''),
    (2, "sinks broadcast along the query axis instead of the head axis", '''
def sink_weights(scores, sinks, allowed):
    s = np.where(allowed, scores, -np.inf)
    z = np.broadcast_to(sinks[None, None, :, None], s.shape[:-1] + (1,))
    full = np.concatenate([s, z], axis=-1)
    e = np.exp(full - full.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True))[..., :-1]
'''),
    (2, "fills the masked scores in place", '''
def sink_weights(scores, sinks, allowed):
    scores[~np.broadcast_to(allowed, scores.shape)] = -np.inf
    z = np.broadcast_to(sinks[None, :, None, None], scores.shape[:-1] + (1,))
    full = np.concatenate([scores, z], axis=-1)
    e = np.exp(full - full.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True))[..., :-1]
'''),
    (2, "calls the chapter's sink_softmax_np", '''
from attnlab.open_models import sink_softmax_np

def sink_weights(scores, sinks, allowed):
    return sink_softmax_np(scores, sinks, allowed)[0]
'''),
]
_RIGHT_sinks = [
    (2, "log-sum-exp form: exp(s - logaddexp(lse, z)) on allowed keys", '''
def sink_weights(scores, sinks, allowed):
    s = np.where(allowed, scores, -np.inf)
    z = np.asarray(sinks, dtype=np.float64)[None, :, None, None]
    m = np.maximum(s.max(axis=-1, keepdims=True), z)
    lse = m + np.log(np.exp(s - m).sum(axis=-1, keepdims=True))
    return np.where(allowed, np.exp(s - np.logaddexp(lse, z)), 0.0)
'''),
    (2, "sink first, -1e300 instead of -inf for masked keys", '''
def sink_weights(scores, sinks, allowed):
    s = np.where(allowed, scores, -1e300)
    z = np.broadcast_to(np.asarray(sinks, float)[None, :, None, None], s.shape[:-1] + (1,))
    full = np.concatenate([z, s], axis=-1)
    e = np.exp(full - full.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True))[..., 1:]
'''),
    (2, "keeps the colleague's softmax, rescales by sigmoid(lse - z) with the masked lse", '''
def sink_weights(scores, sinks, allowed):
    w = masked_softmax_np(scores, allowed)
    s = np.where(allowed, scores, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    mf = np.where(np.isfinite(m), m, 0.0)
    lse = mf + np.log(np.exp(s - mf).sum(axis=-1, keepdims=True))
    gap = np.clip(sinks[None, :, None, None] - lse, -745.0, 745.0)
    return w / (1 + np.exp(gap))
'''),
]


# ---- diff
"""Wrong answers for chapter 17, exercise 6 (differential attention, debug).

The given function has three bugs: (K) the second map reads KV heads j instead of j + Hkv/2,
(V) the value halves in the order [V_{j+Hkv/2} | V_j], (E) eps outside the square root.
Every partial fix (one or two of the three) is a WRONG case, built from one template."""

_TEMPLATE = '''
def diff_heads(q, k, v, allowed, lam, lambda_init, eps=1e-5):
    B, H, L, D = q.shape
    Hkv = k.shape[1]
    g, h, hk = H // Hkv, H // 2, Hkv // 2
    k1 = {REP}(k[:, :hk]{REPARGS})
    k2 = {REP}(k[:, {K2}]{REPARGS})
    a1 = masked_softmax_np(q[:, :h] @ k1.swapaxes(-1, -2) / math.sqrt(D), {MASK})
    a2 = masked_softmax_np(q[:, h:] @ k2.swapaxes(-1, -2) / math.sqrt(D), {MASK})
    v2 = np.repeat(np.concatenate({VCAT}, axis=-1), g, axis=1)
    o = ({COMB}) @ v2
    {PRE}o = {NORM}
    {POST}
    return {FLAT}
'''
_FIX = dict(REP="np.repeat", REPARGS=", g, axis=1", K2="hk:", MASK="allowed",
            VCAT="[v[:, :hk], v[:, hk:]]", COMB="a1 - lam * a2", PRE="",
            NORM="o / np.sqrt((o * o).mean(-1, keepdims=True) + eps)",
            POST="o = (1 - lambda_init) * o",
            FLAT="o.transpose(0, 2, 1, 3).reshape(B, L, H * D)")
_BUGS = {"K": dict(K2=":hk"), "V": dict(VCAT="[v[:, hk:], v[:, :hk]]"),
         "E": dict(NORM="o / (np.sqrt((o * o).mean(-1, keepdims=True)) + eps)")}
_NAMES = {"K": "the second map reading KV heads j", "V": "the value halves swapped",
          "E": "eps outside the square root"}


def _code(*changes):
    parts = dict(_FIX)
    for c in changes:
        parts.update(_BUGS[c] if isinstance(c, str) else c)
    return _TEMPLATE.format(**parts)


_WRONG_diff = []
for _fixed in ("K", "V", "E", "KV", "KE", "VE"):                 # every partial fix
    _left = [b for b in "KVE" if b not in _fixed]
    _WRONG_diff.append((6, f"fixes {', '.join(_NAMES[b] for b in _fixed)} only; still "
                  + " and ".join(_NAMES[b] for b in _left), _code(*_left)))
_WRONG_diff += [
    (6, "the given function unchanged", _code("K", "V", "E")),
    (6, "fixes all three but moves the scale before the norm, which erases it",
     _code(dict(PRE="o = (1 - lambda_init) * o\n    ", POST="pass"))),
    (6, "drops the scale 1 - lambda_init altogether", _code(dict(POST="pass"))),
    (6, "scales by lambda_init instead of 1 - lambda_init",
     _code(dict(POST="o = lambda_init * o"))),
    (6, "fixes eps by leaving it out of the norm", _code("K", "V", dict(
        NORM="o / np.sqrt((o * o).mean(-1, keepdims=True))"))),
    (6, "all fixed but eps left out of the norm", _code(dict(
        NORM="o / np.sqrt((o * o).mean(-1, keepdims=True))"))),
    (6, "lambda on the first map: lam A1 - A2", _code(dict(COMB="lam * a1 - a2"))),
    (6, "subtracts the maps the other way round, A2 - lambda A1", _code(dict(COMB="a2 - lam * a1"))),
    (6, "fixes the keys by tiling (KV head j -> query heads j, j + Hkv, ...) instead of groups",
     _code(dict(REP="np.tile", REPARGS=", (1, g, 1, 1)"))),
    (6, "builds its own causal mask instead of using allowed", _code(dict(
        MASK='causal_mask_np(L, k.shape[2], align="bottom-right")'))),
    (6, "a top-left causal mask of its own", _code(dict(MASK="causal_mask_np(L, k.shape[2])"))),
    (6, "reshapes (B, H/2, L, 2D) straight to (B, L, H*D) without the transpose",
     _code(dict(FLAT="o.reshape(B, L, H * D)"))),
    (6, "returns (B, H/2, L, 2D), before the transpose to (B, L, H*D)", _code(dict(FLAT="o"))),
    (6, "normalises over the head axis instead of each head's 2D features", _code(dict(
        NORM="o / np.sqrt((o * o).mean(1, keepdims=True) + eps)"))),
    (6, "the chapter's pairing pitfall: adjacent heads (2i, 2i+1), otherwise fixed", '''
def diff_heads(q, k, v, allowed, lam, lambda_init, eps=1e-5):
    B, H, L, D = q.shape
    g = H // k.shape[1]
    a = masked_softmax_np(q @ np.repeat(k, g, 1).swapaxes(-1, -2) / math.sqrt(D), allowed)
    v2 = np.repeat(np.concatenate([v[:, 0::2], v[:, 1::2]], -1), g, 1)
    o = (a[:, 0::2] - lam * a[:, 1::2]) @ v2
    o = (1 - lambda_init) * o / np.sqrt((o * o).mean(-1, keepdims=True) + eps)
    return o.transpose(0, 2, 1, 3).reshape(B, L, H * D)
'''),
    (6, "calls the chapter's diff_attention_np", '''
from attnlab.open_models import diff_attention_np

def diff_heads(q, k, v, allowed, lam, lambda_init, eps=1e-5):
    return diff_attention_np(q, k, v, allowed, lam, lambda_init, eps)
'''),
    (6, "scales the input q in place (changes the caller's array)", '''
def diff_heads(q, k, v, allowed, lam, lambda_init, eps=1e-5):
    B, H, L, D = q.shape
    Hkv = k.shape[1]
    g = H // Hkv
    q /= math.sqrt(D)
    a = masked_softmax_np(q @ np.repeat(k, g, axis=1).swapaxes(-1, -2), allowed)
    v2 = np.repeat(np.concatenate([v[:, : Hkv // 2], v[:, Hkv // 2:]], axis=-1), g, axis=1)
    o = (a[:, : H // 2] - lam * a[:, H // 2:]) @ v2
    o = (1 - lambda_init) * o / np.sqrt((o * o).mean(-1, keepdims=True) + eps)
    return o.transpose(0, 2, 1, 3).reshape(B, L, H * D)
'''),
]

_RIGHT_diff = [
    (6, "the given function's three lines fixed", _code()),
    (6, 'the reference fix written as a loop over differential heads', '''
def diff_heads(q, k, v, allowed, lam, lambda_init, eps=1e-5):
    B, H, L, D = q.shape
    Hkv, S = k.shape[1], k.shape[2]
    g, h2, kv2 = H // Hkv, H // 2, Hkv // 2
    out = np.empty((B, L, h2, 2 * D))
    for i in range(h2):
        j = i // g
        a1 = masked_softmax_np(q[:, i] @ k[:, j].swapaxes(-1, -2) / math.sqrt(D), allowed)
        a2 = masked_softmax_np(q[:, i + h2] @ k[:, j + kv2].swapaxes(-1, -2) / math.sqrt(D),
                               allowed)
        val = np.concatenate([v[:, j], v[:, j + kv2]], axis=-1)
        o = (a1 - lam * a2) @ val
        out[:, :, i] = (1 - lambda_init) * o / np.sqrt((o ** 2).mean(-1, keepdims=True) + eps)
    return out.reshape(B, L, H * D)
'''),
    (6, 'two plain attention calls on the two value halves, as transformers does, then the '
        'combination', '''
def diff_heads(q, k, v, allowed, lam, lambda_init, eps=1e-5):
    B, H, L, D = q.shape
    Hkv = k.shape[1]
    g = H // Hkv
    kr = np.repeat(k, g, axis=1)
    a = masked_softmax_np(q @ kr.swapaxes(-1, -2) / math.sqrt(D), allowed)   # (B, H, L, S)
    half = Hkv // 2
    v_lo = np.repeat(np.concatenate([v[:, :half]] * 2, axis=1), g, axis=1)  # V_j for every head
    v_hi = np.repeat(np.concatenate([v[:, half:]] * 2, axis=1), g, axis=1)
    o = np.concatenate([a @ v_lo, a @ v_hi], axis=-1)                        # (B, H, L, 2D)
    o = o[:, : H // 2] - lam * o[:, H // 2:]
    rms = np.sqrt(np.mean(o ** 2, axis=-1, keepdims=True) + eps)
    return np.moveaxis((1 - lambda_init) * (o / rms), 1, 2).reshape(B, L, H * D)
'''),
]


# ---- mla
"""Wrong and right answers for chapter 17, exercise 3 (MLA, piece mla)."""
_WRONG_mla = [
    (3, 'caches the RoPE key once per head', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = n_layers * (d_c + H * d_rope)
    flops = n_layers * (2 * H * d_nope * d_c + 2 * H * S * (d_c + d_rope) + 2 * H * S * d_c + 2 * H * d_c * d_v)
    return cached, flops
'''),
    (3, 'counts the latent twice, once as K and once as V', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = n_layers * (2 * d_c + d_rope)
    flops = n_layers * (2 * H * d_nope * d_c + 2 * H * S * (d_c + d_rope) + 2 * H * S * d_c + 2 * H * d_c * d_v)
    return cached, flops
'''),
    (3, 'forgets the layers in the cache', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = d_c + d_rope
    flops = n_layers * (2 * H * d_nope * d_c + 2 * H * S * (d_c + d_rope) + 2 * H * S * d_c + 2 * H * d_c * d_v)
    return cached, flops
'''),
    (3, 'counts the expanded per-head K and V cache', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = n_layers * H * (d_nope + d_rope + d_v)
    flops = n_layers * (2 * H * d_nope * d_c + 2 * H * S * (d_c + d_rope) + 2 * H * S * d_c + 2 * H * d_c * d_v)
    return cached, flops
'''),
    (3, 'forgets the RoPE key in the cache', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = n_layers * d_c
    flops = n_layers * (2 * H * d_nope * d_c + 2 * H * S * (d_c + d_rope) + 2 * H * S * d_c + 2 * H * d_c * d_v)
    return cached, flops
'''),
    (3, 'counts both K and V of the RoPE key', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = n_layers * (d_c + 2 * d_rope)
    flops = n_layers * (2 * H * d_nope * d_c + 2 * H * S * (d_c + d_rope) + 2 * H * S * d_c + 2 * H * d_c * d_v)
    return cached, flops
'''),
    (3, 'counts multiply-adds, not FLOPs (no factor 2)', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = n_layers * (d_c + d_rope)
    flops = n_layers * (H * d_nope * d_c + H * S * (d_c + d_rope) + H * S * d_c + H * d_c * d_v)
    return cached, flops
'''),
    (3, 'forgets the two absorption products (W_UK on q, W_UV on o)', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = n_layers * (d_c + d_rope)
    flops = n_layers * (2 * H * S * (d_c + d_rope) + 2 * H * S * d_c)
    return cached, flops
'''),
    (3, 'forgets the RoPE part of the scores', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = n_layers * (d_c + d_rope)
    flops = n_layers * (2 * H * d_nope * d_c + 2 * H * S * d_c + 2 * H * S * d_c + 2 * H * d_c * d_v)
    return cached, flops
'''),
    (3, 'forgets the layers in the FLOPs', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = n_layers * (d_c + d_rope)
    flops = 2 * H * d_nope * d_c + 2 * H * S * (d_c + d_rope) + 2 * H * S * d_c + 2 * H * d_c * d_v
    return cached, flops
'''),
    (3, "uses d_nope for W_UV's output size", '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = n_layers * (d_c + d_rope)
    flops = n_layers * (2 * H * d_nope * d_c + 2 * H * S * (d_c + d_rope) + 2 * H * S * d_c + 2 * H * d_c * d_nope)
    return cached, flops
'''),
    (3, 'counts S - 1 keys (leaves out the new token)', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = n_layers * (d_c + d_rope)
    flops = n_layers * (2 * H * d_nope * d_c + 2 * H * (S - 1) * (d_c + d_rope) + 2 * H * (S - 1) * d_c + 2 * H * d_c * d_v)
    return cached, flops
'''),
    (3, 'weighted sum over the latent and the RoPE key', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = n_layers * (d_c + d_rope)
    flops = n_layers * (2 * H * d_nope * d_c + 2 * H * S * (d_c + d_rope) + 2 * H * S * (d_c + d_rope) + 2 * H * d_c * d_v)
    return cached, flops
'''),
    (3, 'counts the naive core (re-expanding S latents, per-head K and V)', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = n_layers * (d_c + d_rope)
    flops = n_layers * (2 * S * d_c * H * (d_nope + d_v) + 2 * H * S * (d_nope + d_rope) + 2 * H * S * d_v)
    return cached, flops
'''),
    (3, 'counts the absorption products once per key', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = n_layers * (d_c + d_rope)
    flops = n_layers * S * (2 * H * d_nope * d_c + 2 * H * (d_c + d_rope) + 2 * H * d_c + 2 * H * d_c * d_v)
    return cached, flops
'''),
    (3, 'shares W_UK across heads (counts it once, not per head)', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    cached = n_layers * (d_c + d_rope)
    flops = n_layers * (2 * d_nope * d_c + 2 * H * S * (d_c + d_rope) + 2 * H * S * d_c + 2 * d_c * d_v)
    return cached, flops
'''),
    (3, 'returns floats (divides, or uses 2.0)', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    per_layer = 2.0 * H * (d_c * (d_nope + d_v) + S * (2 * d_c + d_rope))
    return float(n_layers * (d_c + d_rope)), n_layers * per_layer
'''),
    (3, 'returns a list, not a tuple', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    return [n_layers * (d_c + d_rope), 2 * H * n_layers * (d_c * (d_nope + d_v) + S * (2 * d_c + d_rope))]
'''),
    (3, "calls the chapter's mla_decode_flops with E = 0 to drop the projections", '''
from attnlab.open_models import mla_decode_flops

def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    per = mla_decode_flops(0, H, None, d_c, d_rope, d_nope, d_v, S, "absorbed")
    return n_layers * (d_c + d_rope), n_layers * per
'''),
    (3, 'returns numpy integers', '''
import numpy as np

def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    per = np.int64(2) * H * (d_c * (d_nope + d_v) + S * (2 * d_c + d_rope))
    return np.int64(n_layers) * (d_c + d_rope), n_layers * per
'''),
    (3, "FLOPs multiplied out in float32, then int()", '''
import numpy as np

def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    flops = np.float32(2 * n_layers * H) * np.float32(d_nope * d_c + S * (2 * d_c + d_rope)
                                                      + d_c * d_v)
    return n_layers * (d_c + d_rope), int(flops)
'''),
]
_RIGHT_mla = [
    (3, 'factored form', '''
def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    return n_layers * (d_c + d_rope), 2 * H * n_layers * (d_c * (d_nope + d_v) + S * (2 * d_c + d_rope))
'''),
    (3, 'sum over a list of products, shapes written out', '''
import math

def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    products = [(H, d_nope, d_c), (H, S, d_c), (H, S, d_rope), (H, S, d_c), (H, d_c, d_v)]
    flops = sum(2 * math.prod(p) for p in products)
    return sum(d_c + d_rope for _ in range(n_layers)), n_layers * flops
'''),
    (3, 'numpy ints converted to int at the end', '''
import numpy as np

def mla_decode_counts(H, d_c, d_rope, d_nope, d_v, S, n_layers):
    per = np.int64(2) * H * (d_c * (d_nope + d_v) + S * (2 * d_c + d_rope))
    return int(n_layers * (d_c + d_rope)), int(n_layers * per)
'''),
]


# ---- sparse
"""Wrong answers a learner would plausibly write for chapter 17's exercise 7 (sparse reads)."""
_WRONG_sparse = [
    (7, "counts the own block on top of the top_k past blocks", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    own = t // block_size
    blocks = min(top_k, own) + 1
    keys = (blocks - 1) * block_size + t % block_size + 1
    return blocks, keys, (t + 1) // block_size, min(window, t + 1), keys
'''),
    (7, "ignores causality in the newest block: counts it whole", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    blocks = min(top_k, t // block_size + 1)
    keys = blocks * block_size
    return blocks, keys, (t + 1) // block_size, min(window, t + 1), keys
'''),
    (7, "counts whole blocks, clipped only at the end of the cache (S), not at t", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    own = t // block_size
    blocks = min(top_k, own + 1)
    keys = sum(min(block_size, S - j * block_size) for j in range(own - blocks + 1, own + 1))
    return blocks, keys, (t + 1) // block_size, min(window, t + 1), keys
'''),
    (7, "early positions: assumes top_k blocks always exist", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    blocks = top_k
    keys = (blocks - 1) * block_size + t % block_size + 1
    return blocks, keys, (t + 1) // block_size, min(window, t + 1), keys
'''),
    (7, "caps the blocks by the blocks of the whole cache, ceil(S / b), not those up to t", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    blocks = min(top_k, -(-S // block_size))
    keys = (blocks - 1) * block_size + t % block_size + 1
    return blocks, keys, (t + 1) // block_size, min(window, t + 1), keys
'''),
    (7, "forgets the query's own key (off by one in the newest block)", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    blocks = min(top_k, t // block_size + 1)
    keys = (blocks - 1) * block_size + t % block_size
    return blocks, keys, (t + 1) // block_size, min(window, t + 1), keys
'''),
    (7, "compresses the partial newest block too", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    blocks = min(top_k, t // block_size + 1)
    keys = (blocks - 1) * block_size + t % block_size + 1
    return blocks, keys, -(-(t + 1) // block_size), min(window, t + 1), keys
'''),
    (7, "compressed blocks = blocks before the own one (misses a just-completed block)", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    blocks = min(top_k, t // block_size + 1)
    keys = (blocks - 1) * block_size + t % block_size + 1
    return blocks, keys, t // block_size, min(window, t + 1), keys
'''),
    (7, "the window always holds window keys, even before position window - 1", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    blocks = min(top_k, t // block_size + 1)
    keys = (blocks - 1) * block_size + t % block_size + 1
    return blocks, keys, (t + 1) // block_size, window, keys
'''),
    (7, "adds the window to the selection: its keys counted twice", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    blocks = min(top_k, t // block_size + 1)
    keys = (blocks - 1) * block_size + t % block_size + 1
    win = min(window, t + 1)
    return blocks, keys, (t + 1) // block_size, win, keys + win
'''),
    (7, "removes only the window's overlap with the own block, not with the block before", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    blocks = min(top_k, t // block_size + 1)
    keys = (blocks - 1) * block_size + t % block_size + 1
    win = min(window, t + 1)
    return blocks, keys, (t + 1) // block_size, win, keys + win - min(win, t % block_size + 1)
'''),
    (7, "returns a list, not a tuple", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    blocks = min(top_k, t // block_size + 1)
    keys = (blocks - 1) * block_size + t % block_size + 1
    return [blocks, keys, (t + 1) // block_size, min(window, t + 1), keys]
'''),
    (7, "returns floats (true division)", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    blocks = min(top_k, t // block_size + 1)
    keys = (blocks - 1) * block_size + t % block_size + 1.0
    return blocks, keys, (t + 1) / block_size, min(window, t + 1), keys
'''),
    (7, "runs the chapter's nsa_np to count", '''
import numpy as np
from attnlab.open_models import nsa_np

def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    rng = np.random.default_rng(0)
    k = rng.standard_normal((1, t + 1, 2))
    w = np.ones((1, block_size))
    _, _, r = nsa_np(k[:, -1:], k, k, w, w, np.zeros((1, 1, 3)), block_size, top_k, window,
                     n_local)
    return tuple(int(r[x][0, 0]) for x in ("blocks", "sel", "cmp", "win", "union"))
'''),
    (7, "distinct = keys: a window past the forced newest blocks adds keys", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    own = t // block_size
    blocks = min(top_k, own + 1)
    keys = sum(min((j + 1) * block_size, t + 1) - j * block_size
               for j in range(own - blocks + 1, own + 1))
    return blocks, keys, (t + 1) // block_size, min(window, t + 1), keys
'''),
    (7, "the union assumes n_local = 2 whatever n_local is", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    own = t // block_size
    blocks = min(top_k, own + 1)
    keys = (blocks - 1) * block_size + t % block_size + 1
    lo, hi = max(t - window + 1, block_size), min(t + 1, (own - 1) * block_size)
    return blocks, keys, (t + 1) // block_size, min(window, t + 1), keys + max(0, hi - lo)
'''),
    (7, "the union forgets that block 0 is always chosen", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    own = t // block_size
    blocks = min(top_k, own + 1)
    keys = (blocks - 1) * block_size + t % block_size + 1
    lo, hi = max(t - window + 1, 0), min(t + 1, (own - n_local + 1) * block_size)
    return blocks, keys, (t + 1) // block_size, min(window, t + 1), keys + max(0, hi - lo)
'''),
    (7, "the union: window keys before the newest blocks, off by one block", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    own = t // block_size
    blocks = min(top_k, own + 1)
    keys = (blocks - 1) * block_size + t % block_size + 1
    lo, hi = max(t - window + 1, block_size), min(t + 1, (own - n_local) * block_size)
    return blocks, keys, (t + 1) // block_size, min(window, t + 1), keys + max(0, hi - lo)
'''),
]

_RIGHT_sparse = [
    (7, "block by block over the newest blocks, the window's keys outside them by a set", '''
def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    own = t // block_size
    blocks = min(top_k, own + 1)
    keys = sum(min((j + 1) * block_size, t + 1) - j * block_size
               for j in range(own - blocks + 1, own + 1))
    chosen = {0} | set(range(max(0, own - n_local + 1), own + 1))
    extra = sum(1 for s in range(max(0, t - window + 1), t + 1)
                if s // block_size not in chosen)
    return blocks, keys, (t + 1) // block_size, min(window, t + 1), keys + extra
'''),
    (7, "sets of positions for one valid choice, the window united with them", '''
import numpy as np

def sparse_reads(S, block_size, top_k, window, t, n_local=2):
    own = t // block_size
    forced = {0} | set(range(max(0, own - n_local + 1), own + 1))
    others = [j for j in range(own + 1) if j not in forced]
    chosen = sorted(forced)[:top_k] + others[:max(0, top_k - len(forced))]
    sel = {s for j in chosen for s in range(j * block_size, min((j + 1) * block_size, t + 1))}
    win = set(range(max(0, t - window + 1), t + 1))
    return (np.int64(len(chosen)), len(sel), int(np.floor((t + 1) / block_size)), len(win),
            len(sel | win))
'''),
]


WRONG = _WRONG_qknorm + _WRONG_softcap + _WRONG_sinks + _WRONG_diff + _WRONG_mla + _WRONG_sparse

RIGHT = _RIGHT_qknorm + _RIGHT_softcap + _RIGHT_sinks + _RIGHT_diff + _RIGHT_mla + _RIGHT_sparse
