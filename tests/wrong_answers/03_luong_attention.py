"""Wrong answers a learner would plausibly write for chapter 3's exercises."""
WRONG = [
    (1, "W on the wrong side (the chapter's pitfall)", '''
def general_scores(q, k, W):
    q, k, W = (np.asarray(a, dtype=np.float64) for a in (q, k, W))
    return (q @ W.T) @ k.swapaxes(-2, -1)
'''),
    (1, "W forgotten: the plain dot score", '''
def general_scores(q, k, W):
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    return q @ k.swapaxes(-2, -1)
'''),
    (1, "the result transposed, (B, S, L)", '''
def general_scores(q, k, W):
    q, k, W = (np.asarray(a, dtype=np.float64) for a in (q, k, W))
    return k @ W.T @ q.swapaxes(-2, -1)
'''),
    (1, "the package's function", '''
def general_scores(q, k, W):
    return package.luong_scores_np(q, k, "general", W=W)
'''),
    (2, "the blocks of W swapped", '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float64) for a in (q, k, W, v))
    Dk = k.shape[-1]
    return np.tanh((q @ W[Dk:])[:, :, None, :] + (k @ W[:Dk])[:, None, :, :]) @ v
'''),
    (2, "tanh forgotten", '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float64) for a in (q, k, W, v))
    Dq = q.shape[-1]
    return ((q @ W[:Dq])[:, :, None, :] + (k @ W[Dq:])[:, None, :, :]) @ v
'''),
    (2, "hidden units summed instead of weighted by v", '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float64) for a in (q, k, W, v))
    Dq = q.shape[-1]
    return np.tanh((q @ W[:Dq])[:, :, None, :] + (k @ W[Dq:])[:, None, :, :]).sum(-1)
'''),
    (2, "the package's function", '''
from attnlab.luong_attention import luong_scores_np

def concat_scores(q, k, W, v):
    return luong_scores_np(q, k, "concat", W=W, v=v)
'''),
    (3, "sigma = D_window instead of D_window / 2", '''
def gaussian_window(centre, S, D_window):
    centre = np.asarray(centre, dtype=np.float64)
    return np.exp(-(np.arange(S) - centre[..., None]) ** 2 / (2 * D_window ** 2))
'''),
    (3, "the factor 2 forgotten", '''
def gaussian_window(centre, S, D_window):
    centre = np.asarray(centre, dtype=np.float64)
    return np.exp(-(np.arange(S) - centre[..., None]) ** 2 / (D_window / 2) ** 2)
'''),
    (3, "normalised to sum to 1 like a density", '''
def gaussian_window(centre, S, D_window):
    centre = np.asarray(centre, dtype=np.float64)
    g = np.exp(-(np.arange(S) - centre[..., None]) ** 2 / (2 * (D_window / 2) ** 2))
    return g / g.sum(-1, keepdims=True)
'''),
    (3, "the centre rounded to a whole position", '''
def gaussian_window(centre, S, D_window):
    centre = np.round(np.asarray(centre, dtype=np.float64))
    return np.exp(-(np.arange(S) - centre[..., None]) ** 2 / (2 * (D_window / 2) ** 2))
'''),
    (3, "the package's function", '''
from attnlab.luong_attention import gaussian_window_np as gaussian_window
'''),
    (4, "scaled by the padded width (the chapter's pitfall)", '''
def local_p_centre(h, W_p, v_p, src_len):
    h, W_p, v_p = (np.asarray(a, dtype=np.float64) for a in (h, W_p, v_p))
    S = np.max(src_len)
    return (S - 1) / (1 + np.exp(-(np.tanh(h @ W_p) @ v_p)))
'''),
    (4, "S_b instead of S_b - 1", '''
def local_p_centre(h, W_p, v_p, src_len):
    h, W_p, v_p = (np.asarray(a, dtype=np.float64) for a in (h, W_p, v_p))
    src_len = np.asarray(src_len, dtype=np.float64)
    return src_len[:, None] / (1 + np.exp(-(np.tanh(h @ W_p) @ v_p)))
'''),
    (4, "tanh forgotten", '''
def local_p_centre(h, W_p, v_p, src_len):
    h, W_p, v_p = (np.asarray(a, dtype=np.float64) for a in (h, W_p, v_p))
    src_len = np.asarray(src_len, dtype=np.float64)
    return (src_len[:, None] - 1) / (1 + np.exp(-((h @ W_p) @ v_p)))
'''),
    (4, "the package's function", '''
def local_p_centre(h, W_p, v_p, src_len):
    return package.local_p_centre_np(h, W_p, v_p, src_len)
'''),
    (5, "scaled by sqrt(D): chapter 4's score, not Luong's", '''
def masked_dot_attention(q, k, allowed):
    q, k, allowed = (np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64),
                     np.asarray(allowed, dtype=bool))
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    scores = np.where(allowed[:, None, :], scores, -np.inf)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    weights = e / e.sum(-1, keepdims=True)
    return weights @ k, weights
'''),
    (5, "padding filled with 0", '''
def masked_dot_attention(q, k, allowed):
    q, k, allowed = (np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64),
                     np.asarray(allowed, dtype=bool))
    scores = np.where(allowed[:, None, :], q @ k.swapaxes(-2, -1), 0.0)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    weights = e / e.sum(-1, keepdims=True)
    return weights @ k, weights
'''),
    (5, "returns (weights, context)", '''
def masked_dot_attention(q, k, allowed):
    q, k, allowed = (np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64),
                     np.asarray(allowed, dtype=bool))
    scores = np.where(allowed[:, None, :], q @ k.swapaxes(-2, -1), -np.inf)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    weights = e / e.sum(-1, keepdims=True)
    return weights, weights @ k
'''),
    (5, "mask applied to the queries' axis", '''
def masked_dot_attention(q, k, allowed):
    q, k, allowed = (np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64),
                     np.asarray(allowed, dtype=bool))
    scores = np.where(allowed[:, :, None], q @ k.swapaxes(-2, -1), -np.inf)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    weights = e / e.sum(-1, keepdims=True)
    return weights @ k, weights
'''),
    (5, "the package's function", '''
def masked_dot_attention(q, k, allowed):
    return package.luong_attention_np(q, k, "dot", allowed=allowed)
'''),
]

RIGHT = [
    (1, "W applied to the keys first", '''
def general_scores(q, k, W):
    q, k, W = (np.asarray(a, dtype=np.float64) for a in (q, k, W))
    return q @ (k @ W.T).swapaxes(-2, -1)
'''),
    (1, "np.einsum", '''
def general_scores(q, k, W):
    return np.einsum("bld,de,bse->bls", q, W, k)
'''),
    (3, "centre with a trailing axis via np.expand_dims", '''
def gaussian_window(centre, S, D_window):
    c = np.expand_dims(np.asarray(centre, dtype=np.float64), -1)
    return np.exp(-2.0 * ((np.arange(S) - c) / D_window) ** 2)
'''),
    (5, "weights @ k via einsum, masked with a huge negative number", '''
def masked_dot_attention(q, k, allowed):
    scores = np.einsum("bld,bsd->bls", q, k)
    scores = np.where(np.asarray(allowed)[:, None, :], scores, -1e300)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    weights = e / e.sum(-1, keepdims=True)
    return np.einsum("bls,bsd->bld", weights, k), weights
'''),
]
