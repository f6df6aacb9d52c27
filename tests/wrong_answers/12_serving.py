"""Wrong answers a learner would plausibly write for chapter 12's exercises."""
WRONG = [
    (1, 'forgets the factor 2: caches keys but not values', '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return int(memory_bytes // (kept * per_token))
'''),
    (1, 'counts the H query heads instead of the Hkv key/value heads', '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = 2 * config["n_layers"] * config["H"] * config["D"] * bytes_per_element
    return int(memory_bytes // (kept * per_token))
'''),
    (1, 'ignores the sliding window: the cache grows with T forever', '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return int(memory_bytes // (T * per_token))
'''),
    (1, 'reserves the whole window even for a shorter sequence', '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else config["window"]
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return int(memory_bytes // (kept * per_token))
'''),
    (1, 'rounds to the nearest integer instead of down', '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return round(memory_bytes / (kept * per_token))
'''),
    (1, 'hard-codes fp16 and ignores bytes_per_element', '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * 2
    return int(memory_bytes // (kept * per_token))
'''),
    (1, 'returns a float, a fraction of a sequence', '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return memory_bytes / (kept * per_token)
'''),
    (1, 'the window keeps W - 1 tokens (the newest counted apart)', '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    # "the rolling buffer holds W - 1 past tokens plus the new one, which is not cached yet"
    kept = T if config["window"] is None else min(T, config["window"] - 1)
    per = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return int(memory_bytes // (kept * per))
'''),
    (1, "calls the chapter's kv_cache_bytes_of", '''
from attnlab.serving import kv_cache_bytes_of

def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    return int(memory_bytes // kv_cache_bytes_of(config, T, bytes_per_element))
'''),
    (1, "head size from E / H instead of the config's D", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    D = config["E"] // config["H"]
    per_token = 2 * config["n_layers"] * config["Hkv"] * D * bytes_per_element
    return int(memory_bytes // (kept * per_token))
'''),
    (1, 'writes the window into the config (window = T when there is none)', '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    if config["window"] is None:
        config["window"] = T
    kept = min(T, config["window"])
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return int(memory_bytes // (kept * per_token))
'''),
    (1, "one layer's bytes only (n_layers left out)", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = 2 * config["Hkv"] * config["D"] * bytes_per_element
    return int(memory_bytes // (kept * per_token))
'''),
    (1, "one sequence's size rounded to 0.01 GiB: right for the big models, 0 for small caches", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    gib_per_seq = round(kept * per_token / 2**30, 2)
    return int(memory_bytes / 2**30 // gib_per_seq)
'''),
    (1, 'a list of windows read as its first entry for every layer', '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    w = config["window"]
    w = w[0] if isinstance(w, list) else w
    kept = T if w is None else min(T, w)
    return int(memory_bytes // (kept * 2 * config["n_layers"] * config["Hkv"] * config["D"]
                                * bytes_per_element))
'''),
    (1, 'the smallest window of the list applied to every layer', '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    w = config["window"]
    if isinstance(w, list):
        w = min((x for x in w if x is not None), default=None)
    kept = T if w is None else min(T, w)
    return int(memory_bytes // (kept * 2 * config["n_layers"] * config["Hkv"] * config["D"]
                                * bytes_per_element))
'''),
    (1, 'a list treated as full attention (windows only as an int)', '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    w = config["window"]
    kept = min(T, w) if isinstance(w, int) else T
    return int(memory_bytes // (kept * 2 * config["n_layers"] * config["Hkv"] * config["D"]
                                * bytes_per_element))
'''),
    (1, "the list's None entries replaced by T in place: the caller's config changes", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    w = config["window"]
    if not isinstance(w, list):
        w = [w] * config["n_layers"]
    for i, x in enumerate(w):
        w[i] = T if x is None else min(T, x)
    return int(memory_bytes // (sum(w) * 2 * config["Hkv"] * config["D"] * bytes_per_element))
'''),
    (1, 'only the global layers counted when the model mixes them', '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    w = config["window"]
    if isinstance(w, list):
        kept = T * sum(x is None for x in w)
    else:
        kept = config["n_layers"] * (T if w is None else min(T, w))
    return int(memory_bytes // (kept * 2 * config["Hkv"] * config["D"] * bytes_per_element))
'''),
    (2, 'repeat tiles the K/V heads: query head h reads head h % Hkv, not h // G (the layout handled right)', '''
def _head_first(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat(1, G, 1, 1), v.repeat(1, G, 1, 1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'no 1/sqrt(D) scaling (the layout handled right)', '''
def _head_first(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'mask polarity inverted: blocks the keys that are allowed (the layout handled right)', '''
def _head_first(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'softmax over the queries (dim -2) instead of the keys (the layout handled right)', '''
def _head_first(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-2)
    return weights @ v, weights


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'repeats each K/V head Hkv times instead of G = H / Hkv times (the layout handled right)', '''
def _head_first(q, k, v, allowed=None):
    Hkv = k.shape[1]
    k, v = k.repeat_interleave(Hkv, dim=1), v.repeat_interleave(Hkv, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'computes in float32 and returns float32 (the layout handled right)', '''
def _head_first(q, k, v, allowed=None):
    q, k, v = q.float(), k.float(), v.float()
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'mask on the grouped (B, Hkv, G, L, S) scores: a (B, 1, L, S) mask hits K/V heads (the layout handled right)', '''
def _head_first(q, k, v, allowed=None):
    B, H, L, D = q.shape
    Hkv, S = k.shape[1], k.shape[2]
    G = H // Hkv
    qg = q.reshape(B, Hkv, G, L, D)
    scores = qg @ k[:, :, None].transpose(-2, -1) / D ** 0.5       # (B, Hkv, G, L, S)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))       # mask on the 5-D scores
    w = scores.softmax(-1)
    out = w @ v[:, :, None]
    return out.reshape(B, H, L, D), w.reshape(B, H, L, S)


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'calls the built-in with enable_gqa=True', '''
def gqa_attention_pt(q, k, v, allowed=None):
    q, k, v = (x.transpose(1, 2) for x in (q, k, v))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)
    s = (q @ k.repeat_interleave(q.shape[1] // k.shape[1], 1).transpose(-2, -1)) / q.shape[-1] ** 0.5
    if allowed is not None:
        s = s.masked_fill(~allowed, float("-inf"))
    return out.transpose(1, 2), s.softmax(-1)
'''),
    (2, "q scaled in place (q /= sqrt(D)): the caller's queries change (the layout handled right)", '''
def _head_first(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    q /= q.shape[-1] ** 0.5
    scores = q @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'the mask argument ignored (the layout handled right)', '''
def _head_first(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'mask applied after the softmax (weights zeroed, not renormalised) (the layout handled right)', '''
def _head_first(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    weights = torch.softmax(scores, dim=-1)
    if allowed is not None:
        weights = weights * allowed
    return weights @ v, weights


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'K grouped with repeat_interleave, V tiled with repeat (the layout handled right)', '''
def _head_first(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat(1, G, 1, 1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'expand and reshape in the wrong order: (B, G, Hkv) tiles the heads like repeat (the layout handled right)', '''
def _head_first(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    B, Hkv, S, D = k.shape
    k = k[:, None].expand(B, G, Hkv, S, D).reshape(B, G * Hkv, S, D)
    v = v[:, None].expand(B, G, Hkv, S, D).reshape(B, G * Hkv, S, D)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'computed in float32 and cast back to float64: the dtype is right, the digits are not (the layout handled right)', '''
def _head_first(q, k, v, allowed=None):
    dtype = q.dtype
    q, k, v = q.float(), k.float(), v.float()
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return (weights @ v).to(dtype), weights.to(dtype)


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'scaled by 1/sqrt(S), the number of keys, instead of 1/sqrt(D) (the layout handled right)', '''
def _head_first(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / k.shape[2] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, "the chapter's head-first layout assumed: (B, H, L, D) in and out", '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(max(G, 1), dim=1)
    v = v.repeat_interleave(max(G, 1), dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (2, 'out returned head-first, (B, H, L, D)', '''
def gqa_attention_pt(q, k, v, allowed=None):
    q, k, v = (x.transpose(1, 2) for x in (q, k, v))
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (2, 'the layout changed with reshape instead of transpose: the numbers are scrambled', '''
def gqa_attention_pt(q, k, v, allowed=None):
    B, L, H, D = q.shape
    S, Hkv = k.shape[1], k.shape[2]
    q, k, v = q.reshape(B, H, L, D), k.reshape(B, Hkv, S, D), v.reshape(B, Hkv, S, D)
    G = H // Hkv
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / D ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return (weights @ v).reshape(B, L, H, D), weights
'''),
    (3, 'rounds down (int) instead of up', '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * (K + N)
    if slope <= 0:
        return None
    return max(1, int(rb * K * N / slope))
'''),
    (3, 'rounds to the nearest integer', '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * (K + N)
    if slope <= 0:
        return None
    return max(1, round(rb * K * N / slope))
'''),
    (3, 'the output term BN left out of the bytes', '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * K
    if slope <= 0:
        return None
    return max(1, math.ceil(rb * K * N / slope))
'''),
    (3, 'bytes_per_element ignored: fp16 hard-coded', '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * 2
    slope = 2 * K * N - rb * (K + N)
    if slope <= 0:
        return None
    return max(1, math.ceil(rb * K * N / slope))
'''),
    (3, 'no None case: the formula applied even when the bracket is negative', '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * (K + N)
    return max(1, math.ceil(rb * K * N / slope)) if slope != 0 else None
'''),
    (3, 'returns a float (a ceiling computed by floor division of floats)', '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * (K + N)
    if slope <= 0:
        return None
    return max(1.0, -(-(rb * K * N) // slope))
'''),
    (3, 'FLOPs counted as BKN (the factor 2 of a multiply-add forgotten)', '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = K * N - rb * (K + N)
    if slope <= 0:
        return None
    return max(1, math.ceil(rb * K * N / slope))
'''),
    (3, "a search with attnlab's matmul_intensity", '''
from attnlab.serving import matmul_intensity


def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    for B in range(1, 100000):
        if matmul_intensity(B, K, N, bytes_per_element) >= ridge:
            return B
    return None
'''),
    (3, 'the limit equal to the ridge treated as reachable (slope < 0 only): divides by zero', '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * (K + N)
    if slope < 0:
        return None
    return max(1, math.ceil(rb * K * N / slope))
'''),
    (3, 'no floor at 1: a batch of 0 when one sequence already reaches the ridge', '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * (K + N)
    if slope <= 0:
        return None
    return math.ceil(rb * K * N / slope) - (1 if rb * K * N < slope else 0)
'''),
    (3, 'int(x) + 1 as a ceiling: one too many when the bound is whole', '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * (K + N)
    if slope <= 0:
        return None
    return max(1, int(rb * K * N / slope) + 1)
'''),
    (3, 'a search capped at 100,000 batches', '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    for B in range(1, 100_001):
        if 2 * B * K * N >= rb * (B * K + K * N + B * N):
            return B
    return None
'''),
    (3, 'np.ceil: a float batch', '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * (K + N)
    if slope <= 0:
        return None
    return max(1, np.ceil(rb * K * N / slope))
'''),
    (4, 'prediction that measures first', '''
def prediction():
    errs = {a: uint8_roundtrip_error(keys, ax) for a, ax in (("token", -1), ("channel", -2))}
    return min(errs, key=errs.get)
'''),
    (4, 'prediction: a phrase, not one of the two words', '''
def prediction():
    return "per token"
'''),
    (4, 'symmetric int8 kept: no offset, scale max |x| / 127', '''
def uint8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x).max(axis=axis, keepdims=True)
    s = np.where(a > 0, a / 127, 1.0)
    return float(np.linalg.norm(x - np.clip(np.round(x / s), -127, 127) * s) / np.linalg.norm(x))
'''),
    (4, 'step (hi - lo) / 256: the largest entry does not come back', '''
def uint8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    lo, hi = x.min(axis=axis, keepdims=True), x.max(axis=axis, keepdims=True)
    s = np.where(hi > lo, (hi - lo) / 256, 1.0)
    x_hat = lo + s * np.clip(np.round((x - lo) / s), 0, 255)
    return float(np.linalg.norm(x - x_hat) / np.linalg.norm(x))
'''),
    (4, 'codes truncated (floor), not rounded', '''
def uint8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    lo, hi = x.min(axis=axis, keepdims=True), x.max(axis=axis, keepdims=True)
    s = np.where(hi > lo, (hi - lo) / 255, 1.0)
    x_hat = lo + s * np.floor((x - lo) / s)
    return float(np.linalg.norm(x - x_hat) / np.linalg.norm(x))
'''),
    (4, 'the offset left out of the round trip (x_hat = s * code)', '''
def uint8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    lo, hi = x.min(axis=axis, keepdims=True), x.max(axis=axis, keepdims=True)
    s = np.where(hi > lo, (hi - lo) / 255, 1.0)
    x_hat = s * np.round((x - lo) / s)
    return float(np.linalg.norm(x - x_hat) / np.linalg.norm(x))
'''),
    (4, 'no guard for a slice of equal entries: 0 / 0 gives NaN', '''
def uint8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    lo, hi = x.min(axis=axis, keepdims=True), x.max(axis=axis, keepdims=True)
    s = (hi - lo) / 255
    with np.errstate(invalid="ignore", divide="ignore"):
        x_hat = lo + s * np.round((x - lo) / s)
    return float(np.linalg.norm(x - x_hat) / np.linalg.norm(x))
'''),
    (4, 'an equal slice given step 1 but the offset dropped: it comes back as 0', '''
def uint8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    lo, hi = x.min(axis=axis, keepdims=True), x.max(axis=axis, keepdims=True)
    s = np.where(hi > lo, (hi - lo) / 255, 1.0)
    x_hat = np.where(hi > lo, lo + s * np.round((x - lo) / s), 0.0)
    return float(np.linalg.norm(x - x_hat) / np.linalg.norm(x))
'''),
    (4, 'absolute error, not relative', '''
def uint8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    lo, hi = x.min(axis=axis, keepdims=True), x.max(axis=axis, keepdims=True)
    s = np.where(hi > lo, (hi - lo) / 255, 1.0)
    return float(np.linalg.norm(x - (lo + s * np.round((x - lo) / s))))
'''),
    (4, 'one offset and scale for the whole array: axis ignored', '''
def uint8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    lo, hi = x.min(), x.max()
    s = (hi - lo) / 255 if hi > lo else 1.0
    return float(np.linalg.norm(x - (lo + s * np.round((x - lo) / s))) / np.linalg.norm(x))
'''),
    (4, 'scales over the other axis (-1 and -2 swapped)', '''
def uint8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    axis = {-1: -2, -2: -1}.get(axis, axis)
    lo, hi = x.min(axis=axis, keepdims=True), x.max(axis=axis, keepdims=True)
    s = np.where(hi > lo, (hi - lo) / 255, 1.0)
    return float(np.linalg.norm(x - (lo + s * np.round((x - lo) / s))) / np.linalg.norm(x))
'''),
    (4, 'x shifted in place by its minimum', '''
def uint8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    lo, hi = x.min(axis=axis, keepdims=True), x.max(axis=axis, keepdims=True)
    s = np.where(hi > lo, (hi - lo) / 255, 1.0)
    norm = np.linalg.norm(x)
    x -= lo
    return float(np.linalg.norm(x - s * np.round(x / s)) / norm)
'''),
    (4, 'returns the error as a 0-d array', '''
def uint8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    lo, hi = x.min(axis=axis, keepdims=True), x.max(axis=axis, keepdims=True)
    s = np.where(hi > lo, (hi - lo) / 255, 1.0)
    return np.array(np.linalg.norm(x - (lo + s * np.round((x - lo) / s))) / np.linalg.norm(x))
'''),
    (4, "calls attnlab's quantize_int8_np on the shifted slice", '''
from attnlab.serving import quantize_int8_np, dequantize_int8_np

def uint8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    lo, hi = x.min(axis=axis, keepdims=True), x.max(axis=axis, keepdims=True)
    mid = (lo + hi) / 2
    x_hat = mid + dequantize_int8_np(*quantize_int8_np(x - mid, axis))
    return float(np.linalg.norm(x - x_hat) / np.linalg.norm(x))
'''),
    (5, "ignores the draft's cost: tokens per target pass", '''
def speculative_speedup(alphas, c):
    tokens, kept = 1.0, 1.0
    for a in alphas:
        kept *= a
        tokens += kept
    return tokens
'''),
    (5, 'charges the draft once per round, not once per proposal', '''
def speculative_speedup(alphas, c):
    tokens, kept = 1.0, 1.0
    for a in alphas:
        kept *= a
        tokens += kept
    return tokens / (1 + c)
'''),
    (5, 'charges k + 1 draft passes a round', '''
def speculative_speedup(alphas, c):
    tokens, kept = 1.0, 1.0
    for a in alphas:
        kept *= a
        tokens += kept
    return tokens / (1 + (len(alphas) + 1) * c)
'''),
    (5, 'each proposal counted with its own rate, not the product of those before it', '''
def speculative_speedup(alphas, c):
    return (1 + sum(alphas)) / (1 + len(alphas) * c)
'''),
    (5, "section 8's formula with the mean rate", '''
def speculative_speedup(alphas, c):
    k, a = len(alphas), sum(alphas) / len(alphas)
    tokens = k + 1 if a == 1 else (1 - a ** (k + 1)) / (1 - a)
    return float(tokens / (1 + k * c))
'''),
    (5, "section 8's formula with the first rate only", '''
def speculative_speedup(alphas, c):
    k, a = len(alphas), alphas[0]
    tokens = k + 1 if a == 1 else (1 - a ** (k + 1)) / (1 - a)
    return float(tokens / (1 + k * c))
'''),
    (5, "forgets the target's own token after the accepted prefix", '''
def speculative_speedup(alphas, c):
    tokens, kept = 0.0, 1.0
    for a in alphas:
        kept *= a
        tokens += kept
    return tokens / (1 + len(alphas) * c)
'''),
    (5, 'one term short: the last proposal never counted', '''
def speculative_speedup(alphas, c):
    tokens, kept = 1.0, 1.0
    for a in alphas[:-1]:
        kept *= a
        tokens += kept
    return tokens / (1 + len(alphas) * c)
'''),
    (5, 'all accepted and a free draft: k + 1 returned as an int', '''
def speculative_speedup(alphas, c):
    if all(a == 1 for a in alphas) and c == 0:
        return len(alphas) + 1
    tokens, kept = 1.0, 1.0
    for a in alphas:
        kept *= a
        tokens += kept
    return tokens / (1 + len(alphas) * c)
'''),
    (5, "the list consumed: rates popped off the caller's list", '''
def speculative_speedup(alphas, c):
    k, tokens, kept = len(alphas), 1.0, 1.0
    while alphas:
        kept *= alphas.pop(0)
        tokens += kept
    return tokens / (1 + k * c)
'''),
    (5, 'counts only the all-accepted case', '''
def speculative_speedup(alphas, c):
    p = 1.0
    for a in alphas:
        p *= a
    return (1 + len(alphas) * p) / (1 + len(alphas) * c)
'''),
    (6, "shares the parent's whole table (fork) and only sets the length", '''
def fork_prefix(pool, parent, child, n):
    pool.fork(parent, child)
    pool.lengths[child] = n
'''),
    (6, 'copies every block of the prefix: nothing shared', '''
def fork_prefix(pool, parent, child, n):
    bs = pool.block_size
    table = []
    for old in pool.tables[parent][:-(-n // bs)]:
        new = pool._take()
        pool.k[new], pool.v[new] = pool.k[old], pool.v[old]
        table.append(new)
    pool.tables[child], pool.lengths[child] = table, n
'''),
    (6, 'shares the blocks but never raises their counts', '''
def fork_prefix(pool, parent, child, n):
    pool.tables[child] = pool.tables[parent][:-(-n // pool.block_size)]
    pool.lengths[child] = n
'''),
    (6, 'the partly filled block left out: only the whole blocks listed', '''
def fork_prefix(pool, parent, child, n):
    table = pool.tables[parent][:n // pool.block_size]
    for blk in table:
        pool.refs[blk] += 1
    pool.tables[child], pool.lengths[child] = table, n
'''),
    (6, 'the copy taken with free.pop(): its count stays 0', '''
def fork_prefix(pool, parent, child, n):
    bs = pool.block_size
    table = pool.tables[parent][:n // bs]
    for blk in table:
        pool.refs[blk] += 1
    if n % bs:
        old, new = pool.tables[parent][n // bs], pool.free.pop()
        pool.k[new], pool.v[new] = pool.k[old], pool.v[old]
        table.append(new)
    pool.tables[child], pool.lengths[child] = table, n
'''),
    (6, 'copies the partly filled block and also raises its count', '''
def fork_prefix(pool, parent, child, n):
    bs = pool.block_size
    table = pool.tables[parent][:n // bs]
    for blk in pool.tables[parent][:-(-n // bs)]:
        pool.refs[blk] += 1
    if n % bs:
        old, new = pool.tables[parent][n // bs], pool._take()
        pool.k[new], pool.v[new] = pool.k[old], pool.v[old]
        table.append(new)
    pool.tables[child], pool.lengths[child] = table, n
'''),
    (6, "the child's table is the parent's own list, not a copy", '''
def fork_prefix(pool, parent, child, n):
    table = pool.tables[parent]
    for blk in table:
        pool.refs[blk] += 1
    pool.tables[child], pool.lengths[child] = table, n
'''),
    (6, 'n // bs + 1 blocks: one too many when n is a multiple of the block size', '''
def fork_prefix(pool, parent, child, n):
    table = pool.tables[parent][:n // pool.block_size + 1]
    for blk in table:
        pool.refs[blk] += 1
    pool.tables[child], pool.lengths[child] = table, n
'''),
    (6, 'copies the partly filled block into a block the parent still holds', '''
def fork_prefix(pool, parent, child, n):
    bs = pool.block_size
    table = pool.tables[parent][:n // bs]
    for blk in table:
        pool.refs[blk] += 1
    if n % bs:
        table.append(pool.tables[parent][-1])
        pool.refs[table[-1]] += 1
    pool.tables[child], pool.lengths[child] = table, n
'''),
    (6, 'takes a fresh block for the partly filled one but copies nothing into it', '''
def fork_prefix(pool, parent, child, n):
    bs = pool.block_size
    table = pool.tables[parent][:n // bs]
    for blk in table:
        pool.refs[blk] += 1
    if n % bs:
        table.append(pool._take())
    pool.tables[child], pool.lengths[child] = table, n
'''),
    (6, "the block size hardcoded to 4, the size the check's messages name", '''
def fork_prefix(pool, parent, child, n):
    table = pool.tables[parent][:-(-n // 4)]
    for blk in table:
        pool.refs[blk] += 1
    pool.tables[child], pool.lengths[child] = table, n
'''),
    (6, "fork, then cut the table to the prefix but keep the dropped blocks' counts", '''
def fork_prefix(pool, parent, child, n):
    pool.fork(parent, child)
    del pool.tables[child][-(-n // pool.block_size):]
    pool.lengths[child] = n
'''),
    (6, 'round(n / bs) blocks instead of ceil: the partly filled block lost below half', '''
def fork_prefix(pool, parent, child, n):
    table = pool.tables[parent][:round(n / pool.block_size)]
    for blk in table:
        pool.refs[blk] += 1
    pool.tables[child], pool.lengths[child] = table, n
'''),
    (3, 'a bisection search capped at 10**7 batches', '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    ok = lambda B: 2 * B * K * N >= rb * (B * K + K * N + B * N)
    lo, hi = 0, 10**7
    if not ok(hi):
        return None
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi
'''),
    (4, 'computed in float32: x cast down before the round trip', '''
def uint8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float32)
    lo, hi = x.min(axis=axis, keepdims=True), x.max(axis=axis, keepdims=True)
    step = np.where(hi > lo, (hi - lo) / 255, 1.0).astype(np.float32)
    x_hat = lo + step * np.clip(np.round((x - lo) / step), 0, 255)
    return float(np.linalg.norm(x - x_hat) / np.linalg.norm(x))
'''),
    (4, 'prediction: the measurement handed in through a default argument', '''
def prediction(m=measured):
    return min(m, key=m.get)
'''),
    (2, "batch row 0's mask used for every row (the layout handled right)", '''
def gqa_attention_pt(q, k, v, allowed=None):
    q, k, v = (x.transpose(1, 2) for x in (q, k, v))
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed.reshape(-1, *allowed.shape[-2:])[0], float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return (weights @ v).transpose(1, 2), weights
'''),
    (2, 'the built-in called under another name, with enable_gqa=True', '''
_sdpa = F.scaled_dot_product_attention

def gqa_attention_pt(q, k, v, allowed=None):
    q, k, v = (x.transpose(1, 2) for x in (q, k, v))
    G = q.shape[1] // k.shape[1]
    out = _sdpa(q, k, v, attn_mask=allowed, enable_gqa=True)
    kk = k.repeat_interleave(G, dim=1)
    scores = q @ kk.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    return out.transpose(1, 2), torch.softmax(scores, dim=-1)
'''),
    (3, "a search with attnlab's matmul_intensity under another name, through a helper", '''
from attnlab.serving import matmul_intensity as _mi

def _reaches(B, K, N, ridge, nb):
    return _mi(B, K, N, nb) >= ridge

def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    if 2 * K * N <= rb * (K + N):
        return None
    hi = 1
    while not _reaches(hi, K, N, ridge, bytes_per_element):
        hi *= 2
    lo = hi // 2
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if _reaches(mid, K, N, ridge, bytes_per_element):
            hi = mid
        else:
            lo = mid
    return hi
'''),
]
RIGHT = [
    (1, "uses the chapter's kv_bytes_per_token, one layer at a time, and math.floor", '''
import math
from attnlab.serving import kv_bytes_per_token

def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    w = config["window"]
    windows = list(w) if isinstance(w, (list, tuple)) else [w] * config["n_layers"]
    per_seq = sum(kv_bytes_per_token(1, config["Hkv"], config["D"], bytes_per_element)
                  * (T if x is None else min(T, x)) for x in windows)
    return math.floor(memory_bytes / per_seq)
'''),
    (1, 'None window replaced by T with `or`, int() of a float division', '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    w = config["window"]
    ws = w if isinstance(w, list) else [w] * config["n_layers"]
    per_seq = sum(min(T, x or T) for x in ws) * 2 * config["Hkv"] * config["D"] * bytes_per_element
    return int(memory_bytes / per_seq)
'''),
    (2, 'views the query heads as (Hkv, G) groups: no copy of K or V (after a transpose to head-first)', '''
def _head_first(q, k, v, allowed=None):
    B, H, L, D = q.shape
    Hkv, S = k.shape[1], k.shape[2]
    qg = q.reshape(B, Hkv, H // Hkv, L, D)
    scores = (qg @ k[:, :, None].transpose(-2, -1)).reshape(B, H, L, S) / D ** 0.5
    if allowed is not None:
        scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=q.dtype))
    weights = scores.softmax(-1)
    out = weights.reshape(B, Hkv, H // Hkv, L, S) @ v[:, :, None]
    return out.reshape(B, H, L, D), weights


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'einsum with an explicit index of the K/V head (after a transpose to head-first)', '''
def _head_first(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    idx = torch.arange(q.shape[1]) // G
    scores = torch.einsum("bhld,bhsd->bhls", q, k[:, idx]) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return torch.einsum("bhls,bhsd->bhld", weights, v[:, idx]), weights


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'an index of the K/V head per query head, gathered with index_select (after a transpose to head-first)', '''
def _head_first(q, k, v, allowed=None):
    idx = torch.arange(q.shape[1]) // (q.shape[1] // k.shape[1])
    k, v = k.index_select(1, idx), v.index_select(1, idx)
    scores = torch.matmul(q, k.transpose(-1, -2)) * q.shape[-1] ** -0.5
    if allowed is not None:
        scores = torch.where(allowed, scores, -torch.inf)
    weights = scores.softmax(dim=-1)
    return weights @ v, weights


def gqa_attention_pt(q, k, v, allowed=None):          # the layout handled right
    out, weights = _head_first(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), allowed)
    return out.transpose(1, 2), weights
'''),
    (2, 'einsum straight on the sequence-first layout', '''
def gqa_attention_pt(q, k, v, allowed=None):
    B, L, H, D = q.shape
    G = H // k.shape[2]
    kk, vv = k.repeat_interleave(G, dim=2), v.repeat_interleave(G, dim=2)   # (B, S, H, D)
    scores = torch.einsum("blhd,bshd->bhls", q, kk) / D ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = scores.softmax(-1)
    return torch.einsum("bhls,bshd->blhd", weights, vv), weights
'''),
    (3, 'exact rational arithmetic with fractions.Fraction', '''
from fractions import Fraction


def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    r = Fraction(ridge) * bytes_per_element
    slope = 2 * K * N - r * (K + N)
    if slope <= 0:
        return None
    return max(1, math.ceil(r * K * N / slope))
'''),
    (3, 'a search by doubling and bisection, with the limit tested first', '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    if 2 * K * N <= rb * (K + N):
        return None
    ok = lambda B: 2 * B * K * N >= rb * (B * K + K * N + B * N)
    hi = 1
    while not ok(hi):
        hi *= 2
    lo = hi // 2
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi
'''),
    (4, 'in PyTorch, codes as uint8, returning a Python float', '''
def uint8_roundtrip_error(x, axis):
    t = torch.tensor(np.asarray(x, dtype=np.float64))
    lo, hi = t.amin(dim=axis, keepdim=True), t.amax(dim=axis, keepdim=True)
    s = torch.where(hi > lo, (hi - lo) / 255, torch.ones_like(lo))
    codes = torch.round((t - lo) / s).clamp(0, 255).to(torch.uint8)
    return float(torch.linalg.norm(t - (lo + s * codes.double())) / torch.linalg.norm(t))
'''),
    (4, 'np.rint, the range guarded with np.maximum, sums of squares', '''
def uint8_roundtrip_error(x, axis):
    x = np.array(x, dtype=np.float64)
    lo, hi = x.min(axis=axis, keepdims=True), x.max(axis=axis, keepdims=True)
    s = np.maximum(hi - lo, 1e-300) / 255
    x_hat = lo + np.rint((x - lo) / s) * s
    return float(np.sqrt(((x - x_hat) ** 2).sum() / (x ** 2).sum()))
'''),
    (4, 'a wrong prediction written down: the exercise still passes', '''
def prediction():
    return "channel"
'''),
    (5, 'numpy cumprod, the cost written as target + draft passes', '''
def speculative_speedup(alphas, c):
    tokens = 1 + np.cumprod(np.asarray(alphas, dtype=float)).sum()
    return float(tokens / (1.0 + c * len(alphas)))
'''),
    (5, 'the distribution of the accepted prefix, summed', '''
def speculative_speedup(alphas, c):
    k, exp, p_all = len(alphas), 0.0, 1.0
    for j in range(k + 1):                     # exactly j accepted
        p_next = p_all * (1 - alphas[j]) if j < k else p_all
        exp += (j + 1) * p_next
        if j < k:
            p_all *= alphas[j]
    return float(exp / (1 + k * c))
'''),
    (6, 'shares the partly filled block too, and lets copy-on-write copy it', '''
def fork_prefix(pool, parent, child, n):
    table = pool.tables[parent][:-(-n // pool.block_size)]
    for blk in table:
        pool.refs[blk] += 1
    pool.tables[child], pool.lengths[child] = table, n
'''),
    (6, 'fork, then drop the blocks beyond the prefix', '''
import math

def fork_prefix(pool, parent, child, n):
    pool.fork(parent, child)
    keep = math.ceil(n / pool.block_size)
    for blk in pool.tables[child][keep:]:
        pool.refs[blk] -= 1
    del pool.tables[child][keep:]
    pool.lengths[child] = n
'''),
    (6, "copies the partial block slot by slot, only the prefix's slots", '''
def fork_prefix(pool, parent, child, n):
    bs, table = pool.block_size, []
    for i, blk in enumerate(pool.tables[parent][:-(-n // bs)]):
        if (i + 1) * bs <= n:
            pool.refs[blk] += 1
            table.append(blk)
        else:
            new = pool._take()
            for s in range(n - i * bs):
                pool.k[new, :, s] = pool.k[blk, :, s]
                pool.v[new, :, s] = pool.v[blk, :, s]
            table.append(new)
    pool.tables[child] = table
    pool.lengths[child] = n
'''),
    (6, "shares the whole blocks, then writes the tail's tokens with the pool's own append", '''
def fork_prefix(pool, parent, child, n):
    full = n // pool.block_size * pool.block_size
    table = list(pool.tables[parent][:full // pool.block_size])
    for blk in table:
        pool.refs[blk] += 1
    pool.tables[child], pool.lengths[child] = table, full
    if n > full:
        k, v = pool.gather(parent)
        pool.append(child, k[:, full:n], v[:, full:n])
'''),
]
