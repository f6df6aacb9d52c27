"""Wrong answers a learner would plausibly write for chapter 7's exercises."""

_SPLIT = '''
def split_heads(x, H):
    B, L, F = x.shape
    return x.reshape(B, L, H, F // H).transpose(0, 2, 1, 3)


def merge_heads(x):
    B, H, L, D = x.shape
    return x.transpose(0, 2, 1, 3).reshape(B, L, H * D)
'''

_SOFTMAX = _SPLIT + '''
def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''

_FIXED = '''
def mha_fixed(x_q, x_kv, params, H):
    p = params
    B, L, E = x_q.shape
    S, D = x_kv.shape[1], E // H
    q = (x_q @ p["W_q"] + p["b_q"]).reshape(B, L, H, D).transpose(0, 2, 1, 3)
    k = (x_kv @ p["W_k"] + p["b_k"]).reshape(B, S, H, D).transpose(0, 2, 1, 3)
    v = {v}
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(D)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    heads = weights @ v
    return {merge} @ p["W_o"] + p["b_o"], weights
'''
_V_BUGGY = '(x_kv @ p["W_v"] + p["b_v"]).reshape(B, H, S, D)'
_V_RIGHT = '(x_kv @ p["W_v"] + p["b_v"]).reshape(B, S, H, D).transpose(0, 2, 1, 3)'
_MERGE_BUGGY = "heads.reshape(B, L, E)"
_MERGE_RIGHT = "heads.transpose(0, 2, 1, 3).reshape(B, L, E)"


def _fixed(v, merge):
    return _FIXED.format(v=v, merge=merge)


WRONG = [
    (1, "3H rows, but the roles read as consecutive blocks of H (GPT-2's order)", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    t = qkv.reshape(B, L, 3 * H, F // (3 * H)).transpose(0, 2, 1, 3)
    return t[:, :H], t[:, H:2 * H], t[:, 2 * H:]
'''),
    (1, "GPT-2's layout: all queries, then all keys, then all values", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    E = F // 3
    return tuple(qkv[:, :, r * E:(r + 1) * E].reshape(B, L, H, E // H).transpose(0, 2, 1, 3)
                 for r in range(3))
'''),
    (1, "view (B, L, 3, H, D): the role as the slowest axis", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    t = qkv.reshape(B, L, 3, H, F // (3 * H)).transpose(2, 0, 3, 1, 4)
    return t[0], t[1], t[2]
'''),
    (1, "view (B, L, H, D, 3): the role as the fastest axis", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    t = qkv.reshape(B, L, H, F // (3 * H), 3)
    return tuple(t[..., r].transpose(0, 2, 1, 3) for r in range(3))
'''),
    (1, "right view, but the head axis never moved before the tokens", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    t = qkv.reshape(B, L, H, 3, F // (3 * H))
    return t[:, :, :, 0], t[:, :, :, 1], t[:, :, :, 2]
'''),
    (1, "right view, heads and tokens swapped with reshape instead of transpose", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    D = F // (3 * H)
    t = qkv.reshape(B, L, H, 3, D)
    return tuple(t[:, :, :, r].reshape(B, H, L, D) for r in range(3))
'''),
    (1, "a direct reshape to (B, H, L, 3D), then the last axis cut in three", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    D = F // (3 * H)
    t = qkv.reshape(B, H, L, 3 * D)
    return t[..., :D], t[..., D:2 * D], t[..., 2 * D:]
'''),
    (1, "roles read as query, value, key", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    t = qkv.reshape(B, L, H, 3, F // (3 * H)).transpose(3, 0, 2, 1, 4)
    return t[0], t[2], t[1]
'''),
    (1, "the head width taken as 3E / H: the three roles left in one tensor", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    t = qkv.reshape(B, L, H, F // H).transpose(0, 2, 1, 3)
    return t, t, t
'''),
    (1, "returns a list, not a tuple", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    t = qkv.reshape(B, L, H, 3, F // (3 * H)).transpose(3, 0, 2, 1, 4)
    return [t[0], t[1], t[2]]
'''),
    (1, "returns torch tensors instead of NumPy arrays", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    t = torch.as_tensor(qkv).view(B, L, H, 3, F // (3 * H)).permute(3, 0, 2, 1, 4)
    return t[0], t[1], t[2]
'''),
    (1, "reshapes the caller's array in place (qkv.shape = ...)", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    qkv.shape = (B, L, H, 3, F // (3 * H))
    t = qkv.transpose(3, 0, 2, 1, 4)
    return t[0], t[1], t[2]
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
    (2, "computed in float32", _SOFTMAX + '''
def mha_forward(x_q, x_kv, params, H):
    p = {n: np.asarray(a, dtype=np.float32) for n, a in params.items()}
    x_q, x_kv = np.float32(x_q), np.float32(x_kv)
    q = split_heads(x_q @ p["W_q"] + p["b_q"], H)
    k = split_heads(x_kv @ p["W_k"] + p["b_k"], H)
    v = split_heads(x_kv @ p["W_v"] + p["b_v"], H)
    weights = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]))
    return merge_heads(weights @ v) @ p["W_o"] + p["b_o"], weights
'''),
    (2, "calls the chapter's multi_head_attention_np", _SOFTMAX + '''
from attnlab.multi_head_attention import multi_head_attention_np


def mha_forward(x_q, x_kv, params, H):
    return multi_head_attention_np(x_q, x_kv, params, H)
'''),
    (2, "head width taken from the model width: D = E // H", _SOFTMAX + '''
def mha_forward(x_q, x_kv, params, H):
    p = params
    q = split_heads(x_q @ p["W_q"] + p["b_q"], H)
    k = split_heads(x_kv @ p["W_k"] + p["b_k"], H)
    v = split_heads(x_kv @ p["W_v"] + p["b_v"], H)
    D = x_q.shape[-1] // H
    weights = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(D))
    return merge_heads(weights @ v) @ p["W_o"] + p["b_o"], weights
'''),
    (2, "folds the scale into W_q and b_q, in place", _SOFTMAX + '''
def mha_forward(x_q, x_kv, params, H):
    p = params
    D = p["W_q"].shape[1] // H
    p["W_q"] /= np.sqrt(D)
    p["b_q"] /= np.sqrt(D)
    q = split_heads(x_q @ p["W_q"] + p["b_q"], H)
    k = split_heads(x_kv @ p["W_k"] + p["b_k"], H)
    v = split_heads(x_kv @ p["W_v"] + p["b_v"], H)
    weights = softmax(q @ k.swapaxes(-2, -1))
    return merge_heads(weights @ v) @ p["W_o"] + p["b_o"], weights
'''),
    (3, "section 10's count: 4E^2 + 4E, as if H D = E", '''
def mha_param_count(E, H, D, bias=True):
    return 4 * E * E + (4 * E if bias else 0)
'''),
    (3, "one head's columns only: 4 E D", '''
def mha_param_count(E, H, D, bias=True):
    return 4 * E * D + ((3 * D + E) if bias else 0)
'''),
    (3, "W_O counted as E x E", '''
def mha_param_count(E, H, D, bias=True):
    return 3 * E * H * D + E * E + ((3 * H * D + E) if bias else 0)
'''),
    (3, "biases counted as 4E, as if every projection were E wide", '''
def mha_param_count(E, H, D, bias=True):
    return 4 * E * H * D + (4 * E if bias else 0)
'''),
    (3, "biases counted as 4HD: the output bias as wide as the heads", '''
def mha_param_count(E, H, D, bias=True):
    return 4 * E * H * D + (4 * H * D if bias else 0)
'''),
    (3, "biases counted once, not per projection", '''
def mha_param_count(E, H, D, bias=True):
    return 4 * E * H * D + (E if bias else 0)
'''),
    (3, "ignores the bias flag", '''
def mha_param_count(E, H, D, bias=True):
    return 4 * E * H * D + 3 * H * D + E
'''),
    (3, "forgets W_O", '''
def mha_param_count(E, H, D, bias=True):
    return 3 * E * H * D + (3 * H * D if bias else 0)
'''),
    (3, "parameter count as a float", '''
def mha_param_count(E, H, D, bias=True):
    return 4.0 * E * H * D + ((3.0 * H * D + E) if bias else 0.0)
'''),
    (3, "section 10's FLOPs: 4BE^2(L + S) + 4BLSE, as if H D = E", '''
def mha_flops(B, L, S, E, H, D):
    return 4 * B * E * E * (L + S) + 4 * B * L * S * E
'''),
    (3, "a multiply-add counted once", '''
def mha_flops(B, L, S, E, H, D):
    return 2 * B * (L + S) * E * H * D + 2 * B * H * L * S * D
'''),
    (3, "attention counted with E / H instead of the head width", '''
def mha_flops(B, L, S, E, H, D):
    return 4 * B * (L + S) * E * H * D + 4 * B * L * S * E
'''),
    (3, "the attention core counted once (Q K^T only)", '''
def mha_flops(B, L, S, E, H, D):
    return 4 * B * (L + S) * E * H * D + 2 * B * H * L * S * D
'''),
    (3, "every projection counted on the L query rows", '''
def mha_flops(B, L, S, E, H, D):
    return 8 * B * L * E * H * D + 4 * B * H * L * S * D
'''),
    (3, "W_O counted on the S key rows", '''
def mha_flops(B, L, S, E, H, D):
    return 2 * B * L * E * H * D + 6 * B * S * E * H * D + 4 * B * H * L * S * D
'''),
    (3, "forgets the batch", '''
def mha_flops(B, L, S, E, H, D):
    return 4 * (L + S) * E * H * D + 4 * H * L * S * D
'''),
    (3, "FLOPs as a float", '''
def mha_flops(B, L, S, E, H, D):
    return 4.0 * B * (L + S) * E * H * D + 4.0 * B * H * L * S * D
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
    (4, "float padding mask with a boolean causal mask (mixed kinds)", '''
def to_mha_masks(lengths, L, S, causal):
    blocked = torch.arange(S)[None, :] >= lengths[:, None]
    key_padding_mask = torch.zeros(blocked.shape).masked_fill(blocked, float("-inf"))
    attn_mask = torch.arange(S)[None, :] > torch.arange(L)[:, None] if causal else None
    return key_padding_mask, attn_mask
'''),
    (4, "causal mask aligned bottom-right (j > i + S - L) when L != S", '''
def to_mha_masks(lengths, L, S, causal):
    key_padding_mask = torch.arange(S)[None, :] >= lengths[:, None]
    attn_mask = torch.ones(L, S, dtype=torch.bool).triu(1 + S - L) if causal else None
    return key_padding_mask, attn_mask
'''),
    (4, "causal mask ignored", '''
def to_mha_masks(lengths, L, S, causal):
    key_padding_mask = torch.arange(S)[None, :] >= lengths[:, None]
    return key_padding_mask, None
'''),
    (4, "bool masks turned into float with .float(): +1 on blocked scores", '''
def to_mha_masks(lengths, L, S, causal):
    key_padding_mask = (torch.arange(S)[None, :] >= lengths[:, None]).float()
    attn_mask = (torch.arange(S)[None, :] > torch.arange(L)[:, None]).float() if causal else None
    return key_padding_mask, attn_mask
'''),
    (4, "additive float masks in float64 (the inputs are float32)", '''
def to_mha_masks(lengths, L, S, causal):
    inf = float("-inf")
    blocked = torch.arange(S)[None, :] >= lengths[:, None]
    key_padding_mask = torch.zeros(blocked.shape, dtype=torch.float64).masked_fill(blocked, inf)
    attn_mask = torch.zeros(L, S, dtype=torch.float64)
    if causal:
        attn_mask = attn_mask.masked_fill(torch.ones(L, S, dtype=torch.bool).triu(1), inf)
    return key_padding_mask, attn_mask
'''),
    (4, "causal=False: an all-True (everything blocked) attn_mask", '''
def to_mha_masks(lengths, L, S, causal):
    key_padding_mask = torch.arange(S)[None, :] >= lengths[:, None]
    attn_mask = torch.arange(S)[None, :] > torch.arange(L)[:, None]
    if not causal:
        attn_mask = torch.ones(L, S, dtype=torch.bool)
    return key_padding_mask, attn_mask
'''),
    (4, "key padding mask of shape (B, 1, S)", '''
def to_mha_masks(lengths, L, S, causal):
    key_padding_mask = (torch.arange(S)[None, :] >= lengths[:, None])[:, None, :]
    attn_mask = torch.arange(S)[None, :] > torch.arange(L)[:, None] if causal else None
    return key_padding_mask, attn_mask
'''),
    (4, "float masks with -1e9 for blocked entries: the task asks for -inf itself", '''
def to_mha_masks(lengths, L, S, causal):
    key_padding_mask = (torch.arange(S)[None, :] >= lengths[:, None]).float() * -1e9
    attn_mask = (torch.arange(S)[None, :] > torch.arange(L)[:, None]).float() * -1e9
    return key_padding_mask, (attn_mask if causal else None)
'''),
    (4, "float masks with -1e4 (exp underflows to 0 in float32, but a large score gets in)", '''
def to_mha_masks(lengths, L, S, causal):
    B = len(lengths)
    blocked = torch.arange(S)[None, :] >= lengths[:, None]
    key_padding_mask = torch.zeros(B, S).masked_fill(blocked, -1e4)
    attn_mask = torch.zeros(L, S).masked_fill(torch.ones(L, S, dtype=torch.bool).triu(1), -1e4)
    return key_padding_mask, (attn_mask if causal else None)
'''),
    (4, "float padding mask right, causal float mask with -1e4", '''
def to_mha_masks(lengths, L, S, causal):
    blocked = torch.arange(S)[None, :] >= lengths[:, None]
    key_padding_mask = torch.zeros(len(lengths), S).masked_fill(blocked, float("-inf"))
    attn_mask = torch.zeros(L, S).masked_fill(torch.ones(L, S, dtype=torch.bool).triu(1), -1e4)
    return key_padding_mask, (attn_mask if causal else None)
'''),
    (5, "only V fixed (merge still without the transpose)", _fixed(v=_V_RIGHT, merge=_MERGE_BUGGY)),
    (5, "only the merge fixed (V still reshaped straight to (B, H, S, D))",
     _fixed(v=_V_BUGGY, merge=_MERGE_RIGHT)),
    (5, "merge fixed with the wrong axis order (B, L, D, H): interleaved columns",
     _fixed(v=_V_RIGHT, merge="heads.transpose(0, 2, 3, 1).reshape(B, L, E)")),
    (5, "V fixed as interleaved columns (B, S, D, H)",
     _fixed(v="(x_kv @ p[\"W_v\"] + p[\"b_v\"]).reshape(B, S, D, H).transpose(0, 3, 1, 2)",
            merge=_MERGE_RIGHT)),
    (5, "made consistent the wrong way: Q and K reshaped straight too",
     _fixed(v=_V_BUGGY, merge=_MERGE_BUGGY).replace(
         ".reshape(B, L, H, D).transpose(0, 2, 1, 3)", ".reshape(B, H, L, D)").replace(
         ".reshape(B, S, H, D).transpose(0, 2, 1, 3)", ".reshape(B, H, S, D)")),
    (5, "both fixed, and the scale 'fixed' to sqrt(E)",
     _fixed(v=_V_RIGHT, merge=_MERGE_RIGHT).replace("np.sqrt(D)", "np.sqrt(E)")),
    (5, "both fixed, but computed in float32 (a 1e-10 check passed only through rtol)",
     _fixed(v=_V_RIGHT, merge=_MERGE_RIGHT).replace(
         "    p = params\n",
         "    p = {n: np.asarray(a, dtype=np.float32) for n, a in params.items()}\n"
         "    x_q, x_kv = np.float32(x_q), np.float32(x_kv)\n")),
    (5, "both fixed, merge by swapaxes(1, 3): wrong even for H = 1",
     _fixed(v=_V_RIGHT, merge="heads.swapaxes(1, 3).reshape(B, L, E)")),
    (5, "the buggy layer unchanged", _fixed(v=_V_BUGGY, merge=_MERGE_BUGGY)),
    (5, "calls the chapter's multi_head_attention_np", '''
from attnlab.multi_head_attention import multi_head_attention_np


def mha_fixed(x_q, x_kv, params, H):
    return multi_head_attention_np(x_q, x_kv, params, H)
'''),
    (4, "lengths unsqueezed in place (unsqueeze_): the caller's tensor changes shape", '''
def to_mha_masks(lengths, L, S, causal):
    lengths.unsqueeze_(1)
    key_padding_mask = torch.arange(S)[None, :] >= lengths
    attn_mask = torch.arange(S)[None, :] > torch.arange(L)[:, None] if causal else None
    return key_padding_mask, attn_mask
'''),
]

RIGHT = [
    (1, "heads and roles as one axis of 3H rows, read with a stride of 3", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    t = qkv.reshape(B, L, 3 * H, F // (3 * H)).transpose(0, 2, 1, 3)
    return t[:, 0::3], t[:, 1::3], t[:, 2::3]
'''),
    (1, "each head's 3D columns cut in three with np.split", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    parts = np.split(qkv.reshape(B, L, H, F // H), 3, axis=-1)
    return tuple(p.transpose(0, 2, 1, 3) for p in parts)
'''),
    (1, "column slabs stacked by hand", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    D = F // (3 * H)
    return tuple(np.stack([qkv[:, :, (3 * h + r) * D:(3 * h + r + 1) * D] for h in range(H)], 1)
                 for r in range(3))
'''),
    (1, "columns gathered per role, then the chapter's split_heads_np", '''
from attnlab.multi_head_attention import split_heads_np


def split_fused_qkv(qkv, H):
    D = qkv.shape[-1] // (3 * H)
    cols = np.arange(qkv.shape[-1]).reshape(H, 3, D)
    return tuple(split_heads_np(qkv[..., cols[:, r].ravel()], H) for r in range(3))
'''),
    (1, "one transpose of the five-axis view, unpacked", '''
def split_fused_qkv(qkv, H):
    B, L, F = qkv.shape
    q, k, v = qkv.reshape(B, L, H, 3, F // (3 * H)).transpose(3, 0, 2, 1, 4)
    return q, k, v
'''),
    (2, "one head at a time, concatenated", _SOFTMAX + '''
def mha_forward(x_q, x_kv, params, H):
    p = params
    D = p["W_q"].shape[1] // H
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
    (2, "einsum over named axes", _SOFTMAX + '''
def mha_forward(x_q, x_kv, params, H):
    p = params
    q, k, v = (split_heads(x @ p[w] + p[b], H) for x, w, b in
               ((x_q, "W_q", "b_q"), (x_kv, "W_k", "b_k"), (x_kv, "W_v", "b_v")))
    weights = softmax(np.einsum("bhld,bhsd->bhls", q, k) / np.sqrt(q.shape[-1]))
    heads = np.einsum("bhls,bhsd->bhld", weights, v)
    return merge_heads(heads) @ p["W_o"] + p["b_o"], weights
'''),
    (2, "b_k left out: q . b_k is the same for every key, so the softmax ignores it", _SOFTMAX + '''
def mha_forward(x_q, x_kv, params, H):
    p = params
    q = split_heads(x_q @ p["W_q"] + p["b_q"], H)
    k = split_heads(x_kv @ p["W_k"], H)
    v = split_heads(x_kv @ p["W_v"] + p["b_v"], H)
    weights = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]))
    return merge_heads(weights @ v) @ p["W_o"] + p["b_o"], weights
'''),
    (3, "counted from the shapes", '''
def mha_param_count(E, H, D, bias=True):
    shapes = [(E, H * D)] * 3 + [(H * D, E)] + ([(H * D,)] * 3 + [(E,)] if bias else [])
    return int(sum(np.prod(s) for s in shapes))


def mha_flops(B, L, S, E, H, D):
    products = [(B * L, E, H * D), (B * S, E, H * D), (B * S, E, H * D),    # Q, K, V
                (B * H * L, D, S), (B * H * L, S, D),                       # Q K^T, A V
                (B * L, H * D, E)]                                          # W_O
    return sum(2 * m * n * k for m, n, k in products)
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
    (4, "additive float masks (0 and -inf), a zero attn_mask when causal is False", '''
def to_mha_masks(lengths, L, S, causal):
    inf = float("-inf")
    key_padding_mask = torch.zeros(len(lengths), S).masked_fill(
        torch.arange(S)[None, :] >= lengths[:, None], inf)
    attn_mask = torch.zeros(L, S)
    if causal:
        attn_mask = attn_mask.masked_fill(torch.ones(L, S, dtype=torch.bool).triu(1), inf)
    return key_padding_mask, attn_mask
'''),
    (5, "the fix through split and merge helpers of one's own", _SPLIT + '''
def mha_fixed(x_q, x_kv, params, H):
    p = params
    q = split_heads(x_q @ p["W_q"] + p["b_q"], H)
    k = split_heads(x_kv @ p["W_k"] + p["b_k"], H)
    v = split_heads(x_kv @ p["W_v"] + p["b_v"], H)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return merge_heads(weights @ v) @ p["W_o"] + p["b_o"], weights
'''),
    (5, "swapaxes instead of transpose", _fixed(
        v="(x_kv @ p[\"W_v\"] + p[\"b_v\"]).reshape(B, S, H, D).swapaxes(1, 2)",
        merge="heads.swapaxes(1, 2).reshape(B, L, H * D)")),
]
