"""Wrong answers a learner would plausibly write for chapter 11's exercises."""
WRONG = [
    (1, "attends over the old cache only, appending the new key afterwards", '''
def decode_step(q_t, k_t, v_t, K, V):
    q_t, k_t, v_t = (np.asarray(a, dtype=np.float64) for a in (q_t, k_t, v_t))
    K, V = np.asarray(K, dtype=np.float64), np.asarray(V, dtype=np.float64)
    scores = K @ q_t / np.sqrt(q_t.shape[0])
    weights = np.exp(scores - scores.max()) if len(scores) else scores
    weights = weights / weights.sum() if len(scores) else weights
    out = weights @ V if len(scores) else np.zeros_like(q_t)
    return out, weights, np.concatenate([K, k_t[None]]), np.concatenate([V, v_t[None]])
'''),
    (1, "no 1/sqrt(D) scaling", '''
def decode_step(q_t, k_t, v_t, K, V):
    q_t, k_t, v_t = (np.asarray(a, dtype=np.float64) for a in (q_t, k_t, v_t))
    K, V = np.asarray(K, dtype=np.float64), np.asarray(V, dtype=np.float64)
    K = np.concatenate([K, k_t[None]], axis=0)
    V = np.concatenate([V, v_t[None]], axis=0)
    scores = K @ q_t
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ V, weights, K, V
'''),
    (1, "is_causal=True for the single new query: top-left, it sees key 0 only", '''
def decode_step(q_t, k_t, v_t, K, V):
    K = np.concatenate([np.asarray(K, dtype=np.float64), np.asarray(k_t)[None]], axis=0)
    V = np.concatenate([np.asarray(V, dtype=np.float64), np.asarray(v_t)[None]], axis=0)
    q = torch.as_tensor(np.asarray(q_t, dtype=np.float64))[None, None]
    kk, vv = torch.as_tensor(K)[None], torch.as_tensor(V)[None]
    scores = (q @ kk.transpose(-2, -1) / np.sqrt(K.shape[1]))
    mask = torch.ones(1, K.shape[0], dtype=torch.bool).tril()        # top-left
    weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), -1)
    out = weights @ vv
    return out[0, 0].numpy(), weights[0, 0].numpy(), K, V
'''),
    (1, "new key prepended: the cache is out of order", '''
def decode_step(q_t, k_t, v_t, K, V):
    q_t, k_t, v_t = (np.asarray(a, dtype=np.float64) for a in (q_t, k_t, v_t))
    K, V = np.asarray(K, dtype=np.float64), np.asarray(V, dtype=np.float64)
    K = np.concatenate([k_t[None], K], axis=0)
    V = np.concatenate([v_t[None], V], axis=0)
    scores = K @ q_t / np.sqrt(q_t.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ V, weights, K, V
'''),
    (1, "the new key is not attended to (the query sees the past only)", '''
def decode_step(q_t, k_t, v_t, K, V):
    q_t, k_t, v_t = (np.asarray(a, dtype=np.float64) for a in (q_t, k_t, v_t))
    K, V = np.asarray(K, dtype=np.float64), np.asarray(V, dtype=np.float64)
    K = np.concatenate([K, k_t[None]], axis=0)
    V = np.concatenate([V, v_t[None]], axis=0)
    scores = K @ q_t / np.sqrt(q_t.shape[0])
    scores[-1] = -np.inf if len(scores) > 1 else scores[-1]
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ V, weights, K, V
'''),
    (1, "the cache is not returned grown (returns the old K, V)", '''
def decode_step(q_t, k_t, v_t, K, V):
    q_t, k_t, v_t = (np.asarray(a, dtype=np.float64) for a in (q_t, k_t, v_t))
    K0, V0 = np.asarray(K, dtype=np.float64), np.asarray(V, dtype=np.float64)
    K = np.concatenate([K0, k_t[None]], axis=0)
    V = np.concatenate([V0, v_t[None]], axis=0)
    scores = K @ q_t / np.sqrt(q_t.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ V, weights, K0, V0
'''),
    (1, "calls the chapter's gqa_attention_np", '''
from attnlab.kv_cache import gqa_attention_np

def decode_step(q_t, k_t, v_t, K, V):
    K = np.concatenate([np.asarray(K, dtype=np.float64), np.asarray(k_t)[None]], axis=0)
    V = np.concatenate([np.asarray(V, dtype=np.float64), np.asarray(v_t)[None]], axis=0)
    out, w = gqa_attention_np(np.asarray(q_t)[None, None, None], K[None, None], V[None, None])
    return out[0, 0, 0], w[0, 0, 0], K, V
'''),
    (2, "arange(P) for every row: the padding is counted", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return torch.arange(keep.shape[1]).expand(keep.shape).clone()
'''),
    (2, "positions start at 1: the running count without the -1", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return torch.where(keep, keep.long().cumsum(1), -1)
'''),
    (2, "padding gets position 0, so it looks like a real first token", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return (keep.long().cumsum(1) - 1).clamp(min=0)
'''),
    (2, "column index kept on real tokens: counts from the left edge, not the first token", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return torch.where(keep, torch.arange(keep.shape[1]), -1)
'''),
    (2, "counted from the right (as if the newest token were position 0)", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    rev = keep.flip(1).long().cumsum(1) - 1
    return torch.where(keep, rev.flip(1), -1)
'''),
    (2, "float positions (cumsum of a float mask)", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return keep.float().cumsum(1) - 1
'''),
    (2, "returns a NumPy array", '''
def positions_from_keep(keep):
    keep = np.asarray(keep, dtype=bool)
    return keep.cumsum(1) - 1
'''),
    (2, "calls the chapter's left_pad", '''
from attnlab.kv_cache import left_pad

def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return left_pad([[1] * int(n) for n in keep.sum(1)])[1]
'''),
    (3, "forgets the factor 2: caches keys but not values", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return int(memory_bytes // (kept * per_token))
'''),
    (3, "counts the H query heads instead of the Hkv key/value heads", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = 2 * config["n_layers"] * config["H"] * config["D"] * bytes_per_element
    return int(memory_bytes // (kept * per_token))
'''),
    (3, "ignores the sliding window: the cache grows with T forever", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return int(memory_bytes // (T * per_token))
'''),
    (3, "reserves the whole window even for a shorter sequence", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else config["window"]
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return int(memory_bytes // (kept * per_token))
'''),
    (3, "rounds to the nearest integer instead of down", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return round(memory_bytes / (kept * per_token))
'''),
    (3, "hard-codes fp16 and ignores bytes_per_element", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * 2
    return int(memory_bytes // (kept * per_token))
'''),
    (3, "returns a float, a fraction of a sequence", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return memory_bytes / (kept * per_token)
'''),
    (3, "the window keeps W - 1 tokens (the newest counted apart)", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    # "the rolling buffer holds W - 1 past tokens plus the new one, which is not cached yet"
    kept = T if config["window"] is None else min(T, config["window"] - 1)
    per = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return int(memory_bytes // (kept * per))
'''),
    (3, "calls the chapter's kv_cache_bytes_of", '''
from attnlab.kv_cache import kv_cache_bytes_of

def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    return int(memory_bytes // kv_cache_bytes_of(config, T, bytes_per_element))
'''),
    (4, "repeat tiles the K/V heads: query head h reads head h % Hkv, not h // G", '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat(1, G, 1, 1), v.repeat(1, G, 1, 1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (4, "no 1/sqrt(D) scaling", '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (4, "mask polarity inverted: blocks the keys that are allowed", '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (4, "softmax over the queries (dim -2) instead of the keys", '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-2)
    return weights @ v, weights
'''),
    (4, "repeats each K/V head Hkv times instead of G = H / Hkv times", '''
def gqa_attention_pt(q, k, v, allowed=None):
    Hkv = k.shape[1]
    k, v = k.repeat_interleave(Hkv, dim=1), v.repeat_interleave(Hkv, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (4, "computes in float32 and returns float32", '''
def gqa_attention_pt(q, k, v, allowed=None):
    q, k, v = q.float(), k.float(), v.float()
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (4, "mask on the grouped (B, Hkv, G, L, S) scores: a (B, 1, L, S) mask hits K/V heads", '''
def gqa_attention_pt(q, k, v, allowed=None):
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
'''),
    (4, "calls the built-in with enable_gqa=True", '''
def gqa_attention_pt(q, k, v, allowed=None):
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)
    return out, None
'''),
]
RIGHT = [
    (1, "computed in PyTorch float64, returned as NumPy", '''
def decode_step(q_t, k_t, v_t, K, V):
    K = np.concatenate([np.asarray(K, dtype=np.float64), np.asarray(k_t)[None]], axis=0)
    V = np.concatenate([np.asarray(V, dtype=np.float64), np.asarray(v_t)[None]], axis=0)
    q = torch.as_tensor(np.asarray(q_t, dtype=np.float64))
    w = torch.softmax(torch.as_tensor(K) @ q / K.shape[1] ** 0.5, dim=0)
    return (w @ torch.as_tensor(V)).numpy(), w.numpy(), K, V
'''),
    (1, "np.vstack and a softmax without the max shift", '''
def decode_step(q_t, k_t, v_t, K, V):
    K = np.vstack([np.asarray(K, dtype=np.float64).reshape(-1, len(k_t)), k_t])
    V = np.vstack([np.asarray(V, dtype=np.float64).reshape(-1, len(v_t)), v_t])
    e = np.exp(K @ np.asarray(q_t, dtype=np.float64) / np.sqrt(len(q_t)))
    w = e / e.sum()
    return w @ V, w, K, V
'''),
    (2, "arange minus the number of pads, -1 on the pads", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    n_pad = (~keep).sum(1, keepdim=True)
    return torch.where(keep, torch.arange(keep.shape[1]) - n_pad, -1)
'''),
    (2, "cumsum in int32, converted to long", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return (keep.int().cumsum(1) - 1).long()
'''),
    (3, "uses the chapter's kv_bytes_per_token and math.floor", '''
import math
from attnlab.kv_cache import kv_bytes_per_token

def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    if config["window"] is not None:
        T = min(T, config["window"])
    per_token = kv_bytes_per_token(config["n_layers"], config["Hkv"], config["D"],
                                   bytes_per_element)
    return math.floor(memory_bytes / (T * per_token))
'''),
    (4, "views the query heads as (Hkv, G) groups: no copy of K or V", '''
def gqa_attention_pt(q, k, v, allowed=None):
    B, H, L, D = q.shape
    Hkv, S = k.shape[1], k.shape[2]
    qg = q.reshape(B, Hkv, H // Hkv, L, D)
    scores = (qg @ k[:, :, None].transpose(-2, -1)).reshape(B, H, L, S) / D ** 0.5
    if allowed is not None:
        scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=q.dtype))
    weights = scores.softmax(-1)
    out = weights.reshape(B, Hkv, H // Hkv, L, S) @ v[:, :, None]
    return out.reshape(B, H, L, D), weights
'''),
    (4, "einsum with an explicit index of the K/V head", '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    idx = torch.arange(q.shape[1]) // G
    scores = torch.einsum("bhld,bhsd->bhls", q, k[:, idx]) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return torch.einsum("bhls,bhsd->bhld", weights, v[:, idx]), weights
'''),
]
