"""Wrong answers a learner would plausibly write for chapter 12's exercises."""
WRONG = [
    (1, "forgets the factor 2: caches keys but not values", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return int(memory_bytes // (kept * per_token))
'''),
    (1, "counts the H query heads instead of the Hkv key/value heads", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = 2 * config["n_layers"] * config["H"] * config["D"] * bytes_per_element
    return int(memory_bytes // (kept * per_token))
'''),
    (1, "ignores the sliding window: the cache grows with T forever", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return int(memory_bytes // (T * per_token))
'''),
    (1, "reserves the whole window even for a shorter sequence", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else config["window"]
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return int(memory_bytes // (kept * per_token))
'''),
    (1, "rounds to the nearest integer instead of down", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return round(memory_bytes / (kept * per_token))
'''),
    (1, "hard-codes fp16 and ignores bytes_per_element", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * 2
    return int(memory_bytes // (kept * per_token))
'''),
    (1, "returns a float, a fraction of a sequence", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return memory_bytes / (kept * per_token)
'''),
    (1, "the window keeps W - 1 tokens (the newest counted apart)", '''
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
    (2, "repeat tiles the K/V heads: query head h reads head h % Hkv, not h // G", '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat(1, G, 1, 1), v.repeat(1, G, 1, 1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (2, "no 1/sqrt(D) scaling", '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (2, "mask polarity inverted: blocks the keys that are allowed", '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (2, "softmax over the queries (dim -2) instead of the keys", '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-2)
    return weights @ v, weights
'''),
    (2, "repeats each K/V head Hkv times instead of G = H / Hkv times", '''
def gqa_attention_pt(q, k, v, allowed=None):
    Hkv = k.shape[1]
    k, v = k.repeat_interleave(Hkv, dim=1), v.repeat_interleave(Hkv, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (2, "computes in float32 and returns float32", '''
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
    (2, "mask on the grouped (B, Hkv, G, L, S) scores: a (B, 1, L, S) mask hits K/V heads", '''
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
    (2, "calls the built-in with enable_gqa=True", '''
def gqa_attention_pt(q, k, v, allowed=None):
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)
    return out, None
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
    (2, "q scaled in place (q /= sqrt(D)): the caller's queries change", '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    q /= q.shape[-1] ** 0.5
    scores = q @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (2, 'the mask argument ignored', '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (2, 'mask applied after the softmax (weights zeroed, not renormalised)', '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    weights = torch.softmax(scores, dim=-1)
    if allowed is not None:
        weights = weights * allowed
    return weights @ v, weights
'''),
    (2, 'K grouped with repeat_interleave, V tiled with repeat', '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat(1, G, 1, 1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (2, 'expand and reshape in the wrong order: (B, G, Hkv) tiles the heads like repeat', '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    B, Hkv, S, D = k.shape
    k = k[:, None].expand(B, G, Hkv, S, D).reshape(B, G * Hkv, S, D)
    v = v[:, None].expand(B, G, Hkv, S, D).reshape(B, G * Hkv, S, D)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (1, "one sequence's size rounded to 0.01 GiB: right for the big models, 0 for small caches", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    kept = T if config["window"] is None else min(T, config["window"])
    per_token = 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    gib_per_seq = round(kept * per_token / 2**30, 2)
    return int(memory_bytes / 2**30 // gib_per_seq)
'''),
    (2, "computed in float32 and cast back to float64: the dtype is right, the digits are not", '''
def gqa_attention_pt(q, k, v, allowed=None):
    dtype = q.dtype
    q, k, v = q.float(), k.float(), v.float()
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return (weights @ v).to(dtype), weights.to(dtype)
'''),
    (2, "scaled by 1/sqrt(S), the number of keys, instead of 1/sqrt(D)", '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    scores = q @ k.transpose(-2, -1) / k.shape[2] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (3, "rounds down (int) instead of up", '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * (K + N)
    if slope <= 0:
        return None
    return max(1, int(rb * K * N / slope))
'''),
    (3, "rounds to the nearest integer", '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * (K + N)
    if slope <= 0:
        return None
    return max(1, round(rb * K * N / slope))
'''),
    (3, "the output term BN left out of the bytes", '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * K
    if slope <= 0:
        return None
    return max(1, math.ceil(rb * K * N / slope))
'''),
    (3, "bytes_per_element ignored: fp16 hard-coded", '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * 2
    slope = 2 * K * N - rb * (K + N)
    if slope <= 0:
        return None
    return max(1, math.ceil(rb * K * N / slope))
'''),
    (3, "no None case: the formula applied even when the bracket is negative", '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * (K + N)
    return max(1, math.ceil(rb * K * N / slope)) if slope != 0 else None
'''),
    (3, "returns a float (a ceiling computed by floor division of floats)", '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * (K + N)
    if slope <= 0:
        return None
    return max(1.0, -(-(rb * K * N) // slope))
'''),
    (3, "FLOPs counted as BKN (the factor 2 of a multiply-add forgotten)", '''
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
    (3, "the limit equal to the ridge treated as reachable (slope < 0 only): divides by zero", '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * (K + N)
    if slope < 0:
        return None
    return max(1, math.ceil(rb * K * N / slope))
'''),
    (3, "no floor at 1: a batch of 0 when one sequence already reaches the ridge", '''
def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    rb = ridge * bytes_per_element
    slope = 2 * K * N - rb * (K + N)
    if slope <= 0:
        return None
    return math.ceil(rb * K * N / slope) - (1 if rb * K * N < slope else 0)
'''),
    (4, "prediction: the other grouping", '''
def prediction():
    return "channel"
'''),
    (4, "prediction: a phrase, not one of the two words", '''
def prediction():
    return "per channel"
'''),
    (4, "no round: astype(int8) truncates toward zero", '''
def int8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    amax = np.abs(x).max(axis=axis, keepdims=True)
    scale = np.where(amax > 0, amax / 127, 1.0)
    x_hat = (x / scale).astype(np.int8) * scale
    return float(np.linalg.norm(x - x_hat) / np.linalg.norm(x))
'''),
    (4, "scale max / 128 and no clip: the largest entry wraps around to -128", '''
def int8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    amax = np.abs(x).max(axis=axis, keepdims=True)
    scale = np.where(amax > 0, amax / 128, 1.0)
    x_hat = np.round(x / scale).astype(np.int8) * scale
    return float(np.linalg.norm(x - x_hat) / np.linalg.norm(x))
'''),
    (4, "absolute error, not relative", '''
def int8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    amax = np.abs(x).max(axis=axis, keepdims=True)
    scale = np.where(amax > 0, amax / 127, 1.0)
    x_hat = np.clip(np.round(x / scale), -127, 127) * scale
    return float(np.linalg.norm(x - x_hat))
'''),
    (4, "max instead of max |x|: negative entries get a wrong scale", '''
def int8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    amax = x.max(axis=axis, keepdims=True)
    scale = np.where(amax > 0, amax / 127, 1.0)
    x_hat = np.clip(np.round(x / scale), -127, 127) * scale
    return float(np.linalg.norm(x - x_hat) / np.linalg.norm(x))
'''),
    (4, "axis ignored: one scale for the whole array", '''
def int8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    scale = np.abs(x).max() / 127
    x_hat = np.clip(np.round(x / scale), -127, 127) * scale
    return float(np.linalg.norm(x - x_hat) / np.linalg.norm(x))
'''),
    (4, "no guard for a slice of zeros: 0 / 0 gives NaN", '''
def int8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    scale = np.abs(x).max(axis=axis, keepdims=True) / 127
    with np.errstate(invalid="ignore", divide="ignore"):
        x_hat = np.clip(np.round(x / scale), -127, 127) * scale
    return float(np.linalg.norm(x - x_hat) / np.linalg.norm(x))
'''),
    (4, "the array scaled in place", '''
def int8_roundtrip_error(x, axis):
    orig = np.array(x, dtype=np.float64)
    amax = np.abs(x).max(axis=axis, keepdims=True)
    scale = np.where(amax > 0, amax / 127, 1.0)
    x /= scale
    x_hat = np.clip(np.round(x), -127, 127) * scale
    return float(np.linalg.norm(orig - x_hat) / np.linalg.norm(orig))
'''),
    (4, "calls attnlab's quantize_int8_np", '''
from attnlab.serving import dequantize_int8_np, quantize_int8_np


def int8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    return float(np.linalg.norm(x - dequantize_int8_np(*quantize_int8_np(x, axis)))
                 / np.linalg.norm(x))
'''),
    (4, "scales over the other axis (-1 and -2 swapped)", '''
def int8_roundtrip_error(x, axis):
    x = np.asarray(x, dtype=np.float64)
    axis = {-1: -2, -2: -1}.get(axis, axis)
    amax = np.abs(x).max(axis=axis, keepdims=True)
    scale = np.where(amax > 0, amax / 127, 1.0)
    x_hat = np.clip(np.round(x / scale), -127, 127) * scale
    return float(np.linalg.norm(x - x_hat) / np.linalg.norm(x))
'''),
    (5, "ignores the draft's cost: tokens per target pass", '''
def speculative_speedup(alpha, k, c):
    if alpha == 1:
        return float(k + 1)
    return float((1 - alpha ** (k + 1)) / (1 - alpha))
'''),
    (5, "charges the draft once per round, not once per proposal", '''
def speculative_speedup(alpha, k, c):
    tokens = k + 1 if alpha == 1 else (1 - alpha ** (k + 1)) / (1 - alpha)
    return float(tokens / (1 + c))
'''),
    (5, "charges k + 1 draft passes a round", '''
def speculative_speedup(alpha, k, c):
    tokens = k + 1 if alpha == 1 else (1 - alpha ** (k + 1)) / (1 - alpha)
    return float(tokens / (1 + (k + 1) * c))
'''),
    (5, "charges only the draft's passes, not the target's own", '''
def speculative_speedup(alpha, k, c):
    tokens = k + 1 if alpha == 1 else (1 - alpha ** (k + 1)) / (1 - alpha)
    return float(tokens / (k * c)) if c else float(tokens)
'''),
    (5, "charges only the accepted proposals' draft passes", '''
def speculative_speedup(alpha, k, c):
    tokens = k + 1 if alpha == 1 else (1 - alpha ** (k + 1)) / (1 - alpha)
    return float(tokens / (1 + (tokens - 1) * c))
'''),
    (5, "linear: every proposal counted with probability alpha, not alpha ** i", '''
def speculative_speedup(alpha, k, c):
    return float((1 + alpha * k) / (1 + k * c))
'''),
    (5, "forgets the target's own token after the accepted prefix", '''
def speculative_speedup(alpha, k, c):
    return float(sum(alpha ** i for i in range(1, k + 1)) / (1 + k * c))
'''),
    (5, "one term short: the sum stops at alpha ** (k - 1)", '''
def speculative_speedup(alpha, k, c):
    tokens = k if alpha == 1 else (1 - alpha ** k) / (1 - alpha)
    return float(tokens / (1 + k * c))
'''),
    (5, "divides by zero at alpha = 1", '''
def speculative_speedup(alpha, k, c):
    return float((1 - alpha ** (k + 1)) / (1 - alpha) / (1 + k * c))
'''),
    (5, "counts only the all-accepted case", '''
def speculative_speedup(alpha, k, c):
    return float((1 + k * alpha ** k) / (1 + k * c))
'''),
    (6, "shares the parent's whole table (fork) and only sets the length", """
def fork_prefix(pool, parent, child, n):
    pool.fork(parent, child)
    pool.lengths[child] = n
"""),
    (6, "copies every block of the prefix: nothing shared", """
def fork_prefix(pool, parent, child, n):
    bs = pool.block_size
    table = []
    for old in pool.tables[parent][:-(-n // bs)]:
        new = pool._take()
        pool.k[new], pool.v[new] = pool.k[old], pool.v[old]
        table.append(new)
    pool.tables[child], pool.lengths[child] = table, n
"""),
    (6, "shares the blocks but never raises their counts", """
def fork_prefix(pool, parent, child, n):
    pool.tables[child] = pool.tables[parent][:-(-n // pool.block_size)]
    pool.lengths[child] = n
"""),
    (6, "the partly filled block left out: only the whole blocks listed", """
def fork_prefix(pool, parent, child, n):
    table = pool.tables[parent][:n // pool.block_size]
    for blk in table:
        pool.refs[blk] += 1
    pool.tables[child], pool.lengths[child] = table, n
"""),
    (6, "the copy taken with free.pop(): its count stays 0", """
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
"""),
    (6, "copies the partly filled block and also raises its count", """
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
"""),
    (6, "the child's table is the parent's own list, not a copy", """
def fork_prefix(pool, parent, child, n):
    table = pool.tables[parent]
    for blk in table:
        pool.refs[blk] += 1
    pool.tables[child], pool.lengths[child] = table, n
"""),
    (6, "n // bs + 1 blocks: one too many when n is a multiple of the block size", """
def fork_prefix(pool, parent, child, n):
    table = pool.tables[parent][:n // pool.block_size + 1]
    for blk in table:
        pool.refs[blk] += 1
    pool.tables[child], pool.lengths[child] = table, n
"""),
    (6, "copies the partly filled block into a block the parent still holds", """
def fork_prefix(pool, parent, child, n):
    bs = pool.block_size
    table = pool.tables[parent][:n // bs]
    for blk in table:
        pool.refs[blk] += 1
    if n % bs:
        table.append(pool.tables[parent][-1])
        pool.refs[table[-1]] += 1
    pool.tables[child], pool.lengths[child] = table, n
"""),
    (6, "takes a fresh block for the partly filled one but copies nothing into it", """
def fork_prefix(pool, parent, child, n):
    bs = pool.block_size
    table = pool.tables[parent][:n // bs]
    for blk in table:
        pool.refs[blk] += 1
    if n % bs:
        table.append(pool._take())
    pool.tables[child], pool.lengths[child] = table, n
"""),
    (6, "the block size hardcoded to 4, the size the check's messages name", """
def fork_prefix(pool, parent, child, n):
    table = pool.tables[parent][:-(-n // 4)]
    for blk in table:
        pool.refs[blk] += 1
    pool.tables[child], pool.lengths[child] = table, n
"""),
    (6, "fork, then cut the table to the prefix but keep the dropped blocks' counts", """
def fork_prefix(pool, parent, child, n):
    pool.fork(parent, child)
    del pool.tables[child][-(-n // pool.block_size):]
    pool.lengths[child] = n
"""),
    (6, "round(n / bs) blocks instead of ceil: the partly filled block lost below half", """
def fork_prefix(pool, parent, child, n):
    table = pool.tables[parent][:round(n / pool.block_size)]
    for blk in table:
        pool.refs[blk] += 1
    pool.tables[child], pool.lengths[child] = table, n
"""),
]

RIGHT = [
    (1, "uses the chapter's kv_bytes_per_token and math.floor", '''
import math
from attnlab.serving import kv_bytes_per_token

def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    if config["window"] is not None:
        T = min(T, config["window"])
    per_token = kv_bytes_per_token(config["n_layers"], config["Hkv"], config["D"],
                                   bytes_per_element)
    return math.floor(memory_bytes / (T * per_token))
'''),
    (2, "views the query heads as (Hkv, G) groups: no copy of K or V", '''
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
    (2, "einsum with an explicit index of the K/V head", '''
def gqa_attention_pt(q, k, v, allowed=None):
    G = q.shape[1] // k.shape[1]
    idx = torch.arange(q.shape[1]) // G
    scores = torch.einsum("bhld,bhsd->bhls", q, k[:, idx]) / q.shape[-1] ** 0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return torch.einsum("bhls,bhsd->bhld", weights, v[:, idx]), weights
'''),
    (2, 'an index of the K/V head per query head, gathered with index_select', '''
def gqa_attention_pt(q, k, v, allowed=None):
    idx = torch.arange(q.shape[1]) // (q.shape[1] // k.shape[1])
    k, v = k.index_select(1, idx), v.index_select(1, idx)
    scores = torch.matmul(q, k.transpose(-1, -2)) * q.shape[-1] ** -0.5
    if allowed is not None:
        scores = torch.where(allowed, scores, -torch.inf)
    weights = scores.softmax(dim=-1)
    return weights @ v, weights
'''),
    (1, "None window replaced by T with `or`, int() of a float division", '''
def max_sequences(config, T, memory_bytes, bytes_per_element=2):
    W = config["window"] or T
    per_seq = min(T, W) * 2 * config["n_layers"] * config["Hkv"] * config["D"] * bytes_per_element
    return int(memory_bytes / per_seq)
'''),
    (3, "exact rational arithmetic with fractions.Fraction", '''
from fractions import Fraction


def compute_bound_batch(K, N, ridge, bytes_per_element=2):
    r = Fraction(ridge) * bytes_per_element
    slope = 2 * K * N - r * (K + N)
    if slope <= 0:
        return None
    return max(1, math.ceil(r * K * N / slope))
'''),
    (3, "a search by doubling and bisection, with the limit tested first", '''
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
    (4, "in PyTorch, returning a Python float", '''
def int8_roundtrip_error(x, axis):
    t = torch.tensor(np.asarray(x, dtype=np.float64))
    s = t.abs().amax(dim=axis, keepdim=True) / 127
    s = torch.where(s > 0, s, torch.ones_like(s))
    t_hat = torch.clamp(torch.round(t / s), -127, 127) * s
    return float(torch.linalg.norm(t - t_hat) / torch.linalg.norm(t))
'''),
    (4, "np.rint, np.maximum as the zero guard, sums of squares", '''
def int8_roundtrip_error(x, axis):
    x = np.array(x, dtype=np.float64)
    scale = np.maximum(np.abs(x).max(axis=axis, keepdims=True), 1e-300) / 127
    codes = np.clip(np.rint(x / scale), -127, 127)
    return float(np.sqrt(((x - codes * scale) ** 2).sum() / (x ** 2).sum()))
'''),
    (5, "sums the series term by term", '''
def speculative_speedup(alpha, k, c):
    total, p = 0.0, 1.0
    for _ in range(k + 1):
        total += p
        p *= alpha
    return total / (1 + k * c)
'''),
    (5, "numpy geometric series, the cost written as target + draft passes", '''
import numpy as np

def speculative_speedup(alpha, k, c):
    tokens = np.sum(np.power(float(alpha), np.arange(k + 1)))
    return float(tokens / (1.0 + c * k))
'''),
    (6, "shares the partly filled block too, and lets copy-on-write copy it", """
def fork_prefix(pool, parent, child, n):
    table = pool.tables[parent][:-(-n // pool.block_size)]
    for blk in table:
        pool.refs[blk] += 1
    pool.tables[child], pool.lengths[child] = table, n
"""),
    (6, "fork, then drop the blocks beyond the prefix", """
import math

def fork_prefix(pool, parent, child, n):
    pool.fork(parent, child)
    keep = math.ceil(n / pool.block_size)
    for blk in pool.tables[child][keep:]:
        pool.refs[blk] -= 1
    del pool.tables[child][keep:]
    pool.lengths[child] = n
"""),
    (6, "copies the partial block slot by slot, only the prefix's slots", """
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
"""),
    (6, "shares the whole blocks, then writes the tail's tokens with the pool's own append", """
def fork_prefix(pool, parent, child, n):
    full = n // pool.block_size * pool.block_size
    table = list(pool.tables[parent][:full // pool.block_size])
    for blk in table:
        pool.refs[blk] += 1
    pool.tables[child], pool.lengths[child] = table, full
    if n > full:
        k, v = pool.gather(parent)
        pool.append(child, k[:, full:n], v[:, full:n])
"""),
]
