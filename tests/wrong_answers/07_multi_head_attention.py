"""Wrong answers a learner would plausibly write for chapter 7's exercises."""

_SOFTMAX = '''
def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''

WRONG = [
    (1, "direct reshape to (B, H, L, D): right shape, round trip passes", '''
def split_heads(x, H):
    B, L, E = x.shape
    return x.reshape(B, H, L, E // H)


def merge_heads(x):
    B, H, L, D = x.shape
    return x.reshape(B, L, H * D)
'''),
    (1, "interleaved columns: view as (B, L, D, H)", '''
def split_heads(x, H):
    B, L, E = x.shape
    return x.reshape(B, L, E // H, H).transpose(0, 3, 1, 2)


def merge_heads(x):
    B, H, L, D = x.shape
    return x.transpose(0, 2, 3, 1).reshape(B, L, H * D)
'''),
    (1, "split right, merge forgets the transpose", '''
def split_heads(x, H):
    B, L, E = x.shape
    return x.reshape(B, L, H, E // H).transpose(0, 2, 1, 3)


def merge_heads(x):
    B, H, L, D = x.shape
    return x.reshape(B, L, H * D)
'''),
    (1, "transpose with the wrong axis order (B, H, D, L)", '''
def split_heads(x, H):
    B, L, E = x.shape
    return x.reshape(B, L, H, E // H).transpose(0, 2, 3, 1)


def merge_heads(x):
    B, H, D, L = x.shape
    return x.transpose(0, 3, 1, 2).reshape(B, L, H * D)
'''),
    (1, "returns torch tensors instead of NumPy arrays", '''
def split_heads(x, H):
    B, L, E = x.shape
    return torch.as_tensor(x).view(B, L, H, E // H).transpose(1, 2)


def merge_heads(x):
    B, H, L, D = x.shape
    return torch.as_tensor(x).transpose(1, 2).reshape(B, L, H * D)
'''),
    (1, "imports the chapter's own functions", '''
from attnlab.multi_head_attention import split_heads_np, merge_heads_np


def split_heads(x, H):
    return split_heads_np(x, H)


def merge_heads(x):
    return merge_heads_np(x)
'''),
    (2, "scales by sqrt(E) instead of sqrt(D)", _SOFTMAX + '''
def mha_forward(x_q, x_kv, params, H):
    p = params
    q = split_heads(x_q @ p["W_q"] + p["b_q"], H)
    k = split_heads(x_kv @ p["W_k"] + p["b_k"], H)
    v = split_heads(x_kv @ p["W_v"] + p["b_v"], H)
    E = x_q.shape[-1]
    weights = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(E))
    return merge_heads(weights @ v) @ p["W_o"] + p["b_o"], weights
'''),
    (2, "forgets W_O", _SOFTMAX + '''
def mha_forward(x_q, x_kv, params, H):
    p = params
    q = split_heads(x_q @ p["W_q"] + p["b_q"], H)
    k = split_heads(x_kv @ p["W_k"] + p["b_k"], H)
    v = split_heads(x_kv @ p["W_v"] + p["b_v"], H)
    weights = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]))
    return merge_heads(weights @ v), weights
'''),
    (2, "forgets the output bias b_o", _SOFTMAX + '''
def mha_forward(x_q, x_kv, params, H):
    p = params
    q = split_heads(x_q @ p["W_q"] + p["b_q"], H)
    k = split_heads(x_kv @ p["W_k"] + p["b_k"], H)
    v = split_heads(x_kv @ p["W_v"] + p["b_v"], H)
    weights = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]))
    return merge_heads(weights @ v) @ p["W_o"], weights
'''),
    (2, "returns the weights averaged over heads (B, L, S)", _SOFTMAX + '''
def mha_forward(x_q, x_kv, params, H):
    p = params
    q = split_heads(x_q @ p["W_q"] + p["b_q"], H)
    k = split_heads(x_kv @ p["W_k"] + p["b_k"], H)
    v = split_heads(x_kv @ p["W_v"] + p["b_v"], H)
    weights = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]))
    return merge_heads(weights @ v) @ p["W_o"] + p["b_o"], weights.mean(axis=1)
'''),
    (2, "softmax over the queries (axis -2)", '''
def softmax(s):
    e = np.exp(s - s.max(axis=-2, keepdims=True))
    return e / e.sum(axis=-2, keepdims=True)


def mha_forward(x_q, x_kv, params, H):
    p = params
    q = split_heads(x_q @ p["W_q"] + p["b_q"], H)
    k = split_heads(x_kv @ p["W_k"] + p["b_k"], H)
    v = split_heads(x_kv @ p["W_v"] + p["b_v"], H)
    weights = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]))
    return merge_heads(weights @ v) @ p["W_o"] + p["b_o"], weights
'''),
    (2, "uses the nn.Linear layout: x @ W.T", _SOFTMAX + '''
def mha_forward(x_q, x_kv, params, H):
    p = params
    q = split_heads(x_q @ p["W_q"].T + p["b_q"], H)
    k = split_heads(x_kv @ p["W_k"].T + p["b_k"], H)
    v = split_heads(x_kv @ p["W_v"].T + p["b_v"], H)
    weights = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]))
    return merge_heads(weights @ v) @ p["W_o"].T + p["b_o"], weights
'''),
    (2, "direct reshape instead of split_heads", _SOFTMAX + '''
def mha_forward(x_q, x_kv, params, H):
    p = params
    B, L, E = x_q.shape
    S = x_kv.shape[1]
    q = (x_q @ p["W_q"] + p["b_q"]).reshape(B, H, L, E // H)
    k = (x_kv @ p["W_k"] + p["b_k"]).reshape(B, H, S, E // H)
    v = (x_kv @ p["W_v"] + p["b_v"]).reshape(B, H, S, E // H)
    weights = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(E // H))
    return (weights @ v).reshape(B, L, E) @ p["W_o"] + p["b_o"], weights
'''),
    (2, "returns only out", _SOFTMAX + '''
def mha_forward(x_q, x_kv, params, H):
    p = params
    q = split_heads(x_q @ p["W_q"] + p["b_q"], H)
    k = split_heads(x_kv @ p["W_k"] + p["b_k"], H)
    v = split_heads(x_kv @ p["W_v"] + p["b_v"], H)
    weights = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]))
    return merge_heads(weights @ v) @ p["W_o"] + p["b_o"]
'''),
    (2, "calls the chapter's multi_head_attention_np", _SOFTMAX + '''
from attnlab.multi_head_attention import multi_head_attention_np


def mha_forward(x_q, x_kv, params, H):
    return multi_head_attention_np(x_q, x_kv, params, H)
'''),
    (3, "biases counted once, not per projection", '''
def mha_param_count(E, bias=True):
    return 4 * E * E + (E if bias else 0)
'''),
    (3, "forgets W_O", '''
def mha_param_count(E, bias=True):
    return 3 * E * E + (3 * E if bias else 0)
'''),
    (3, "ignores the bias flag", '''
def mha_param_count(E, bias=True):
    return 4 * E * E + 4 * E
'''),
    (3, "counts one head's D = E / 2 columns per projection", '''
def mha_param_count(E, bias=True):
    return 4 * E * (E // 2) + (4 * E if bias else 0)
'''),
    (3, "returns a float", '''
def mha_param_count(E, bias=True):
    return 4.0 * E ** 2 + (4.0 * E if bias else 0.0)
'''),
    (4, "book polarity (True = may attend) passed unchanged", '''
def to_mha_masks(lengths, L, S, causal):
    key_padding_mask = torch.arange(S)[None, :] < lengths[:, None]
    attn_mask = torch.arange(S)[None, :] <= torch.arange(L)[:, None] if causal else None
    return key_padding_mask, attn_mask
'''),
    (4, "causal mask blocks the diagonal too (j >= i)", '''
def to_mha_masks(lengths, L, S, causal):
    key_padding_mask = torch.arange(S)[None, :] >= lengths[:, None]
    attn_mask = torch.arange(S)[None, :] >= torch.arange(L)[:, None] if causal else None
    return key_padding_mask, attn_mask
'''),
    (4, "padding off by one (j > lengths)", '''
def to_mha_masks(lengths, L, S, causal):
    key_padding_mask = torch.arange(S)[None, :] > lengths[:, None]
    attn_mask = torch.arange(S)[None, :] > torch.arange(L)[:, None] if causal else None
    return key_padding_mask, attn_mask
'''),
    (4, "causal mask inverted only (padding right)", '''
def to_mha_masks(lengths, L, S, causal):
    key_padding_mask = torch.arange(S)[None, :] >= lengths[:, None]
    attn_mask = torch.arange(S)[None, :] <= torch.arange(L)[:, None] if causal else None
    return key_padding_mask, attn_mask
'''),
    (4, "padding mask as float 0 / -inf", '''
def to_mha_masks(lengths, L, S, causal):
    blocked = torch.arange(S)[None, :] >= lengths[:, None]
    key_padding_mask = torch.zeros(blocked.shape).masked_fill(blocked, float("-inf"))
    attn_mask = torch.arange(S)[None, :] > torch.arange(L)[:, None] if causal else None
    return key_padding_mask, attn_mask
'''),
    (4, "causal mask ignored", '''
def to_mha_masks(lengths, L, S, causal):
    key_padding_mask = torch.arange(S)[None, :] >= lengths[:, None]
    return key_padding_mask, None
'''),
    (5, "checks head 0 only", '''
def splits_by_columns(split_fn, B, L, E, H):
    D = E // H
    x = np.arange(B * L * E, dtype=np.float64).reshape(B, L, E)
    heads = np.asarray(split_fn(x, H))
    if heads.shape != (B, H, L, D):
        return False
    return np.array_equal(heads[:, 0], x[:, :, :D])
'''),
    (5, "checks the shape only", '''
def splits_by_columns(split_fn, B, L, E, H):
    x = np.arange(B * L * E, dtype=np.float64).reshape(B, L, E)
    return np.asarray(split_fn(x, H)).shape == (B, H, L, E // H)
'''),
    (5, "test input with equal entries (ones)", '''
def splits_by_columns(split_fn, B, L, E, H):
    D = E // H
    x = np.ones((B, L, E))
    heads = np.asarray(split_fn(x, H))
    if heads.shape != (B, H, L, D):
        return False
    return all(np.array_equal(heads[:, h], x[:, :, h * D:(h + 1) * D]) for h in range(H))
'''),
    (5, "round trip with the matching wrong merge", '''
def splits_by_columns(split_fn, B, L, E, H):
    x = np.arange(B * L * E, dtype=np.float64).reshape(B, L, E)
    heads = np.asarray(split_fn(x, H))
    if heads.shape != (B, H, L, E // H):
        return False
    return np.array_equal(heads.reshape(B, L, E), x)
'''),
    (5, "checks the first token only", '''
def splits_by_columns(split_fn, B, L, E, H):
    D = E // H
    x = np.arange(B * L * E, dtype=np.float64).reshape(B, L, E)
    heads = np.asarray(split_fn(x, H))
    if heads.shape != (B, H, L, D):
        return False
    return all(np.array_equal(heads[:, h, 0], x[:, 0, h * D:(h + 1) * D]) for h in range(H))
'''),
]

RIGHT = [
    (1, "column slabs stacked by hand", '''
def split_heads(x, H):
    B, L, E = x.shape
    D = E // H
    return np.stack([x[:, :, h * D:(h + 1) * D] for h in range(H)], axis=1)


def merge_heads(x):
    return np.concatenate(list(x.swapaxes(0, 1)), axis=-1)
'''),
    (2, "one head at a time, concatenated", _SOFTMAX + '''
def mha_forward(x_q, x_kv, params, H):
    p = params
    E = x_q.shape[-1]
    D = E // H
    heads, weights = [], []
    for h in range(H):
        c = slice(h * D, (h + 1) * D)
        q = x_q @ p["W_q"][:, c] + p["b_q"][c]
        k = x_kv @ p["W_k"][:, c] + p["b_k"][c]
        v = x_kv @ p["W_v"][:, c] + p["b_v"][c]
        w = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(D))
        heads.append(w @ v); weights.append(w)
    out = np.concatenate(heads, axis=-1) @ p["W_o"] + p["b_o"]
    return out, np.stack(weights, axis=1)
'''),
    (3, "counted from the shapes", '''
def mha_param_count(E, bias=True):
    shapes = [(E, E)] * 4 + ([(E,)] * 4 if bias else [])
    return int(sum(np.prod(s) for s in shapes))
'''),
    (4, "an all-False attn_mask when causal is False", '''
def to_mha_masks(lengths, L, S, causal):
    key_padding_mask = torch.arange(S)[None, :] >= lengths[:, None]
    attn_mask = torch.arange(S)[None, :] > torch.arange(L)[:, None]
    if not causal:
        attn_mask = torch.zeros(L, S, dtype=torch.bool)
    return key_padding_mask, attn_mask
'''),
    (4, "chapter 5's masks, inverted", '''
from attnlab.masks import causal_mask_pt, padding_mask_pt


def to_mha_masks(lengths, L, S, causal):
    key_padding_mask = ~padding_mask_pt(lengths, S)[:, 0, 0, :]
    return key_padding_mask, (~causal_mask_pt(L, S) if causal else None)
'''),
    (5, "random distinct entries and torch input", '''
def splits_by_columns(split_fn, B, L, E, H):
    D = E // H
    x = torch.from_numpy(np.random.default_rng(0).permutation(B * L * E).reshape(B, L, E) * 1.0)
    heads = np.asarray(split_fn(x, H))
    if heads.shape != (B, H, L, D):
        return False
    x = x.numpy()
    return bool(all((heads[:, h] == x[:, :, h * D:(h + 1) * D]).all() for h in range(H)))
'''),
]
