"""Wrong answers a learner would plausibly write for chapter 6's exercises."""

WRONG = [
    (1, "no scaling", '''
def self_attention(x, W_q, W_k, W_v):
    x = np.asarray(x, dtype=np.float64)
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = q @ k.swapaxes(-2, -1)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (1, "scaled by sqrt(E), the model width", '''
def self_attention(x, W_q, W_k, W_v):
    x = np.asarray(x, dtype=np.float64)
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(x.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (1, "scaled by sqrt(Dv)", '''
def self_attention(x, W_q, W_k, W_v):
    x = np.asarray(x, dtype=np.float64)
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(v.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (1, "softmax over the queries (axis -2)", '''
def self_attention(x, W_q, W_k, W_v):
    x = np.asarray(x, dtype=np.float64)
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-2, keepdims=True))
    weights = e / e.sum(axis=-2, keepdims=True)
    return weights @ v, weights
'''),
    (1, "returns (weights, out)", '''
def self_attention(x, W_q, W_k, W_v):
    x = np.asarray(x, dtype=np.float64)
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights, weights @ v
'''),
    (1, "returns only out", '''
def self_attention(x, W_q, W_k, W_v):
    x = np.asarray(x, dtype=np.float64)
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ v
'''),
    (1, "imports the chapter's self_attention_np", '''
from attnlab.self_and_cross_attention import self_attention_np


def self_attention(x, W_q, W_k, W_v):
    return self_attention_np(x, W_q, W_k, W_v)
'''),
    (2, "padding scores set to 0 instead of -inf", '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_lengths):
    x_q, x_kv = np.asarray(x_q, dtype=np.float64), np.asarray(x_kv, dtype=np.float64)
    S = x_kv.shape[-2]
    q, k, v = x_q @ W_q, x_kv @ W_k, x_kv @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    allowed = np.arange(S)[None, None, :] < np.asarray(src_lengths)[:, None, None]
    scores = np.where(allowed, scores, 0.0)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (2, "mask off by one: j <= length", '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_lengths):
    x_q, x_kv = np.asarray(x_q, dtype=np.float64), np.asarray(x_kv, dtype=np.float64)
    S = x_kv.shape[-2]
    q, k, v = x_q @ W_q, x_kv @ W_k, x_kv @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    allowed = np.arange(S)[None, None, :] <= np.asarray(src_lengths)[:, None, None]
    scores = np.where(allowed, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (2, "keys and values taken from the decoder", '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_lengths):
    x_q = np.asarray(x_q, dtype=np.float64)
    q, k, v = x_q @ W_q, x_q @ W_q, x_q @ W_q     # widths differ: K, V via W_q to run at all
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (2, "mask polarity inverted (True = blocked)", '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_lengths):
    x_q, x_kv = np.asarray(x_q, dtype=np.float64), np.asarray(x_kv, dtype=np.float64)
    S = x_kv.shape[-2]
    q, k, v = x_q @ W_q, x_kv @ W_k, x_kv @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    blocked = np.arange(S)[None, None, :] < np.asarray(src_lengths)[:, None, None]
    scores = np.where(blocked, -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (2, "mask applied after the softmax, rows not renormalised", '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_lengths):
    x_q, x_kv = np.asarray(x_q, dtype=np.float64), np.asarray(x_kv, dtype=np.float64)
    S = x_kv.shape[-2]
    q, k, v = x_q @ W_q, x_kv @ W_k, x_kv @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    allowed = np.arange(S)[None, None, :] < np.asarray(src_lengths)[:, None, None]
    weights = e / e.sum(axis=-1, keepdims=True) * allowed
    return weights @ v, weights
'''),
    (2, "imports the chapter's cross_attention_np", '''
from attnlab.self_and_cross_attention import cross_attention_np
from attnlab.masks import padding_mask_np


def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_lengths):
    allowed = padding_mask_np(np.asarray(src_lengths), np.shape(x_kv)[-2])[:, 0]
    return cross_attention_np(x_q, x_kv, W_q, W_k, W_v, allowed=allowed)
'''),
    (3, "copied without transposing (square: no error)", '''
def load_into_mha(mha, W_q, W_k, W_v):
    with torch.no_grad():
        stacked = np.concatenate([W_q, W_k, W_v], axis=0)
        mha.in_proj_weight.copy_(torch.as_tensor(stacked, dtype=mha.in_proj_weight.dtype))
        mha.out_proj.weight.copy_(torch.eye(mha.embed_dim, dtype=mha.out_proj.weight.dtype))
    return mha
'''),
    (3, "stacked in the wrong order (K, Q, V)", '''
def load_into_mha(mha, W_q, W_k, W_v):
    with torch.no_grad():
        stacked = np.concatenate([W_k.T, W_q.T, W_v.T], axis=0)
        mha.in_proj_weight.copy_(torch.as_tensor(stacked, dtype=mha.in_proj_weight.dtype))
        mha.out_proj.weight.copy_(torch.eye(mha.embed_dim, dtype=mha.out_proj.weight.dtype))
    return mha
'''),
    (3, "out_proj left at its random initialisation", '''
def load_into_mha(mha, W_q, W_k, W_v):
    with torch.no_grad():
        stacked = np.concatenate([W_q.T, W_k.T, W_v.T], axis=0)
        mha.in_proj_weight.copy_(torch.as_tensor(stacked, dtype=mha.in_proj_weight.dtype))
    return mha
'''),
    (3, "copied through a float32 tensor", '''
def load_into_mha(mha, W_q, W_k, W_v):
    with torch.no_grad():
        stacked = np.concatenate([W_q.T, W_k.T, W_v.T], axis=0)
        mha.in_proj_weight.copy_(torch.tensor(stacked, dtype=torch.float32))
        mha.out_proj.weight.copy_(torch.eye(mha.embed_dim))
    return mha
'''),
    (3, "returns nothing", '''
def load_into_mha(mha, W_q, W_k, W_v):
    with torch.no_grad():
        stacked = np.concatenate([W_q.T, W_k.T, W_v.T], axis=0)
        mha.in_proj_weight.copy_(torch.as_tensor(stacked, dtype=mha.in_proj_weight.dtype))
        mha.out_proj.weight.copy_(torch.eye(mha.embed_dim, dtype=mha.out_proj.weight.dtype))
'''),
    (4, "forgets the 1/sqrt(D) scale", '''
def alignment_projections(alignment, S, p):
    L = len(alignment)
    W_q = np.zeros((L, S))
    W_q[np.arange(L), alignment] = np.log(p * (S - 1) / (1 - p))
    return W_q, np.eye(S)
'''),
    (4, "solves exp(a) / (exp(a) + 1) = p (ignores the S - 1 other keys)", '''
def alignment_projections(alignment, S, p):
    L = len(alignment)
    W_q = np.zeros((L, S))
    W_q[np.arange(L), alignment] = np.log(p / (1 - p)) * np.sqrt(S)
    return W_q, np.eye(S)
'''),
    (4, "divides by sqrt(D) instead of multiplying", '''
def alignment_projections(alignment, S, p):
    L = len(alignment)
    W_q = np.zeros((L, S))
    W_q[np.arange(L), alignment] = np.log(p * (S - 1) / (1 - p)) / np.sqrt(S)
    return W_q, np.eye(S)
'''),
    (4, "one large score: sharp, but not exactly p", '''
def alignment_projections(alignment, S, p):
    L = len(alignment)
    W_q = np.zeros((L, S))
    W_q[np.arange(L), alignment] = 15.0
    return W_q, np.eye(S)
'''),
    (5, "perturbs x_q instead of x_kv", '''
def depends_on_source(layer, x_q, x_kv, seed=0):
    rng = np.random.default_rng(seed)
    other = rng.normal(size=np.shape(x_q))
    return bool(np.abs(layer(x_q, x_kv) - layer(other, x_kv)).max() > 1e-9)
'''),
    (5, "compares shapes only", '''
def depends_on_source(layer, x_q, x_kv, seed=0):
    rng = np.random.default_rng(seed)
    other = rng.normal(size=np.shape(x_kv))
    return layer(x_q, x_kv).shape != layer(x_q, other).shape
'''),
    (5, "calls the layer twice on the same source", '''
def depends_on_source(layer, x_q, x_kv, seed=0):
    rng = np.random.default_rng(seed)
    return bool(np.abs(layer(x_q, x_kv) - layer(x_q, np.array(x_kv))).max() > 1e-9)
'''),
    (5, "always True", '''
def depends_on_source(layer, x_q, x_kv, seed=0):
    return True
'''),
    (5, "returns the size of the change, not a bool", '''
def depends_on_source(layer, x_q, x_kv, seed=0):
    rng = np.random.default_rng(seed)
    other = rng.normal(size=np.shape(x_kv))
    return float(np.abs(layer(x_q, x_kv) - layer(x_q, other)).max())
'''),
]

RIGHT = [
    (1, "einsum and scipy-free softmax", '''
def self_attention(x, W_q, W_k, W_v):
    x = np.asarray(x, dtype=np.float64)
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = np.einsum("...ld,...sd->...ls", q, k) / np.sqrt(W_q.shape[1])
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("...ls,...sv->...lv", weights, v), weights
'''),
    (2, "a large negative number instead of -inf", '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_lengths):
    x_q, x_kv = np.asarray(x_q, dtype=np.float64), np.asarray(x_kv, dtype=np.float64)
    S = x_kv.shape[-2]
    q, k, v = x_q @ W_q, x_kv @ W_k, x_kv @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    allowed = np.arange(S)[None, None, :] < np.asarray(src_lengths)[:, None, None]
    scores = np.where(allowed, scores, -1e30)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (2, "chapter 5's padding mask", '''
from attnlab.masks import padding_mask_np


def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_lengths):
    x_q, x_kv = np.asarray(x_q, dtype=np.float64), np.asarray(x_kv, dtype=np.float64)
    allowed = padding_mask_np(np.asarray(src_lengths), x_kv.shape[-2])[:, 0]   # (B, 1, S)
    q, k, v = x_q @ W_q, x_kv @ W_k, x_kv @ W_v
    scores = np.where(allowed, q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (3, "torch tensors in the module's dtype", '''
def load_into_mha(mha, W_q, W_k, W_v):
    dt = mha.in_proj_weight.dtype
    with torch.no_grad():
        blocks = [torch.from_numpy(W).to(dt).T for W in (W_q, W_k, W_v)]
        mha.in_proj_weight.copy_(torch.cat(blocks))
        mha.out_proj.weight.copy_(torch.eye(mha.embed_dim, dtype=dt))
    return mha
'''),
    (4, "two extra zero columns (D = S + 2), scale adjusted", '''
def alignment_projections(alignment, S, p):
    L, D = len(alignment), S + 2
    W_q = np.zeros((L, D))
    W_q[np.arange(L), alignment] = np.log(p * (S - 1) / (1 - p)) * np.sqrt(D)
    return W_q, np.eye(S, D)
'''),
    (5, "shifts the source by 1 instead of redrawing it", '''
def depends_on_source(layer, x_q, x_kv, seed=0):
    change = np.abs(layer(x_q, x_kv) - layer(x_q, np.asarray(x_kv) + 1.0)).max()
    return bool(change > 1e-9)
'''),
]
