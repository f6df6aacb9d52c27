"""Wrong answers a learner would plausibly write for chapter 3's exercises."""
WRONG = [
    # --- exercise 1: the general score, keys projected once (debug)
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
    (1, "no bug found: the given function unchanged", '''
general_scores = general_scores_cached
'''),
    (1, "partial fix: W transposed only when the shapes demand it", '''
def general_scores(q, k, W):
    q, k, W = (np.asarray(a, dtype=np.float64) for a in (q, k, W))
    W_k = W if W.shape[0] == W.shape[1] else W.T
    return q @ (k @ W_k).swapaxes(-2, -1)
'''),
    (1, "partial fix: the chapter's pitfall, k W q^T transposed back", '''
def general_scores(q, k, W):
    q, k, W = (np.asarray(a, dtype=np.float64) for a in (q, k, W))
    return (k @ W @ q.swapaxes(-2, -1)).swapaxes(-2, -1)
'''),
    (1, "partial fix: .T on a batch of projected keys (reverses every axis)", '''
def general_scores(q, k, W):
    q, k, W = (np.asarray(a, dtype=np.float64) for a in (q, k, W))
    return q @ (k @ W.T).T
'''),
    (1, "partial fix: k W^T, but the keys' axes not swapped", '''
def general_scores(q, k, W):
    q, k, W = (np.asarray(a, dtype=np.float64) for a in (q, k, W))
    return q @ (k @ W.T)
'''),
    (1, "float32 arithmetic (the statement asks for float64)", '''
def general_scores(q, k, W):
    q, k, W = (np.asarray(a, dtype=np.float32) for a in (q, k, W))
    return (q @ W) @ k.swapaxes(-2, -1)
'''),
    # --- exercise 2: the concat score, split (implement)
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
    (2, "every pair concatenated (right values, the forbidden array)", '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float64) for a in (q, k, W, v))
    B, L, S = q.shape[0], q.shape[1], k.shape[1]
    pairs = np.concatenate([np.broadcast_to(q[:, :, None, :], (B, L, S, q.shape[-1])),
                            np.broadcast_to(k[:, None, :, :], (B, L, S, k.shape[-1]))], axis=-1)
    return np.tanh(pairs @ W) @ v
'''),
    (2, "the chapter's split in one piece: the whole (B, L, S, A) hidden layer", '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float64) for a in (q, k, W, v))
    Dq = q.shape[-1]
    return np.tanh((q @ W[:Dq])[:, :, None, :] + (k @ W[Dq:])[:, None, :, :]) @ v
'''),
    (2, 'one piece with np.einsum (the hidden layer still whole)', '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float64) for a in (q, k, W, v))
    Dq = q.shape[-1]
    hidden = np.tanh(np.einsum("bld,da->bla", q, W[:Dq])[:, :, None]
                     + np.einsum("bsd,da->bsa", k, W[Dq:])[:, None])
    return np.einsum("blsa,a->bls", hidden, v)
'''),
    (2, 'a loop over the queries that stops one short (range(L - 1))', '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float64) for a in (q, k, W, v))
    Dq = q.shape[-1]
    wq, wk = q @ W[:Dq], k @ W[Dq:]
    scores = np.zeros(q.shape[:2] + k.shape[1:2])
    for i in range(q.shape[1] - 1):
        scores[:, i] = np.tanh(wq[:, i, None, :] + wk) @ v
    return scores
'''),
    (2, 'a loop over the queries, the blocks of W swapped', '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float64) for a in (q, k, W, v))
    Dk = k.shape[-1]
    wq, wk = q @ W[Dk:], k @ W[:Dk]
    scores = np.empty(q.shape[:2] + k.shape[1:2])
    for i in range(q.shape[1]):
        scores[:, i] = np.tanh(wq[:, i, None, :] + wk) @ v
    return scores
'''),
    (2, 'pieces in float32 (the statement asks for float64)', '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float32) for a in (q, k, W, v))
    Dq = q.shape[-1]
    wq, wk = q @ W[:Dq], k @ W[Dq:]
    return np.stack([np.tanh(wq[:, i, None, :] + wk) @ v for i in range(q.shape[1])], axis=1)
'''),
    # --- exercise 3: local-p weights with the wrong fall-off (debug)
    (3, "no bug found: sigma = D_window left in", '''
local_p_weights = local_p_weights_given
'''),
    (3, "partial fix: D_window halved everywhere (the window shrinks too)", '''
def local_p_weights(scores, centre, D_window, allowed):
    return local_p_weights_given(scores, centre, D_window / 2, allowed)
'''),
    (3, "partial fix: sigma = D_window // 2 (integer division)", '''
def local_p_weights(scores, centre, D_window, allowed):
    scores, centre = np.asarray(scores, dtype=np.float64), np.asarray(centre, dtype=np.float64)
    dist = np.arange(scores.shape[-1]) - centre[..., None]
    inside = (np.abs(dist) <= D_window) & np.asarray(allowed)[:, None, :]
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True) * np.exp(-dist ** 2 / (2 * (D_window // 2) ** 2))
'''),
    (3, "partial fix: sigma = D_window / 2, the factor 2 forgotten", '''
def local_p_weights(scores, centre, D_window, allowed):
    scores, centre = np.asarray(scores, dtype=np.float64), np.asarray(centre, dtype=np.float64)
    dist = np.arange(scores.shape[-1]) - centre[..., None]
    inside = (np.abs(dist) <= D_window) & np.asarray(allowed)[:, None, :]
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True) * np.exp(-dist ** 2 / (D_window / 2) ** 2)
'''),
    (3, "partial fix: rows renormalised to sum to 1", '''
def local_p_weights(scores, centre, D_window, allowed):
    scores, centre = np.asarray(scores, dtype=np.float64), np.asarray(centre, dtype=np.float64)
    dist = np.arange(scores.shape[-1]) - centre[..., None]
    inside = (np.abs(dist) <= D_window) & np.asarray(allowed)[:, None, :]
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    w = e / e.sum(-1, keepdims=True) * np.exp(-dist ** 2 / (2 * (D_window / 2) ** 2))
    return w / w.sum(-1, keepdims=True)
'''),
    (3, "partial fix: the Gaussian inside the softmax (rows sum to 1)", '''
def local_p_weights(scores, centre, D_window, allowed):
    scores, centre = np.asarray(scores, dtype=np.float64), np.asarray(centre, dtype=np.float64)
    dist = np.arange(scores.shape[-1]) - centre[..., None]
    inside = (np.abs(dist) <= D_window) & np.asarray(allowed)[:, None, :]
    masked = np.where(inside, scores - dist ** 2 / (2 * (D_window / 2) ** 2), -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)
'''),
    (3, "partial fix: sigma^2 written 2 * D_window / 2 ** 2 (precedence)", '''
def local_p_weights(scores, centre, D_window, allowed):
    scores, centre = np.asarray(scores, dtype=np.float64), np.asarray(centre, dtype=np.float64)
    dist = np.arange(scores.shape[-1]) - centre[..., None]
    inside = (np.abs(dist) <= D_window) & np.asarray(allowed)[:, None, :]
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True) * np.exp(-dist ** 2 / (2 * D_window / 2 ** 2))
'''),
    (3, "the centre rounded to a whole position", '''
def local_p_weights(scores, centre, D_window, allowed):
    scores, centre = np.asarray(scores, dtype=np.float64), np.round(np.asarray(centre, dtype=np.float64))
    dist = np.arange(scores.shape[-1]) - centre[..., None]
    inside = (np.abs(dist) <= D_window) & np.asarray(allowed)[:, None, :]
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True) * np.exp(-dist ** 2 / (2 * (D_window / 2) ** 2))
'''),
    (3, "the window's edges left out (|s - p| < D_window)", '''
def local_p_weights(scores, centre, D_window, allowed):
    scores, centre = np.asarray(scores, dtype=np.float64), np.asarray(centre, dtype=np.float64)
    dist = np.arange(scores.shape[-1]) - centre[..., None]
    inside = (np.abs(dist) < D_window) & np.asarray(allowed)[:, None, :]
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True) * np.exp(-dist ** 2 / (2 * (D_window / 2) ** 2))
'''),
    (3, "padding left in the window", '''
def local_p_weights(scores, centre, D_window, allowed):
    scores, centre = np.asarray(scores, dtype=np.float64), np.asarray(centre, dtype=np.float64)
    dist = np.arange(scores.shape[-1]) - centre[..., None]
    masked = np.where(np.abs(dist) <= D_window, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True) * np.exp(-dist ** 2 / (2 * (D_window / 2) ** 2))
'''),
    (3, "the package's function", '''
from attnlab.luong_attention import local_p_weights_np as local_p_weights
'''),
    (3, "the package's Gaussian", '''
def local_p_weights(scores, centre, D_window, allowed):
    scores, centre = np.asarray(scores, dtype=np.float64), np.asarray(centre, dtype=np.float64)
    dist = np.arange(scores.shape[-1]) - centre[..., None]
    inside = (np.abs(dist) <= D_window) & np.asarray(allowed)[:, None, :]
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True) * package.gaussian_window_np(centre, scores.shape[-1], D_window)
'''),
    (3, "float32 arithmetic (the statement asks for float64)", '''
def local_p_weights(scores, centre, D_window, allowed):
    scores, centre = np.asarray(scores, dtype=np.float32), np.asarray(centre, dtype=np.float32)
    dist = np.arange(scores.shape[-1]) - centre[..., None]
    inside = (np.abs(dist) <= D_window) & np.asarray(allowed)[:, None, :]
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True) * np.exp(-dist ** 2 / (2 * (D_window / 2) ** 2))
'''),
    (4, "the chapter's centre: the run assumed to start at 0", '''
def local_p_centre_anywhere(h, W_p, v_p, allowed):
    h, W_p, v_p = (np.asarray(a, dtype=np.float64) for a in (h, W_p, v_p))
    z = np.tanh(h @ W_p) @ v_p
    return (np.asarray(allowed).sum(-1)[:, None] - 1) * np.exp(-np.logaddexp(0.0, -z))
'''),
    (4, 'left padding assumed: the run starts at S - S_b', '''
def local_p_centre_anywhere(h, W_p, v_p, allowed):
    h, W_p, v_p = (np.asarray(a, dtype=np.float64) for a in (h, W_p, v_p))
    allowed = np.asarray(allowed, dtype=bool)
    n = allowed.sum(-1)[:, None]
    z = np.tanh(h @ W_p) @ v_p
    return allowed.shape[1] - n + (n - 1) * np.exp(-np.logaddexp(0.0, -z))
'''),
    (4, "scaled by the padded width S - 1 (the chapter's pitfall)", '''
def local_p_centre_anywhere(h, W_p, v_p, allowed):
    h, W_p, v_p = (np.asarray(a, dtype=np.float64) for a in (h, W_p, v_p))
    allowed = np.asarray(allowed, dtype=bool)
    z = np.tanh(h @ W_p) @ v_p
    return allowed.argmax(-1)[:, None] + (allowed.shape[1] - 1) * np.exp(-np.logaddexp(0.0, -z))
'''),
    (4, 'S_b instead of S_b - 1', '''
def local_p_centre_anywhere(h, W_p, v_p, allowed):
    h, W_p, v_p = (np.asarray(a, dtype=np.float64) for a in (h, W_p, v_p))
    allowed = np.asarray(allowed, dtype=bool)
    z = np.tanh(h @ W_p) @ v_p
    return allowed.argmax(-1)[:, None] + allowed.sum(-1)[:, None] * np.exp(-np.logaddexp(0.0, -z))
'''),
    (4, 'the start found on the flattened mask (np.argmax without an axis)', '''
def local_p_centre_anywhere(h, W_p, v_p, allowed):
    h, W_p, v_p = (np.asarray(a, dtype=np.float64) for a in (h, W_p, v_p))
    allowed = np.asarray(allowed, dtype=bool)
    z = np.tanh(h @ W_p) @ v_p
    return np.argmax(allowed) + (allowed.sum(-1)[:, None] - 1) * np.exp(-np.logaddexp(0.0, -z))
'''),
    (4, 'the start and the length on the wrong axis (fits when B == L)', '''
def local_p_centre_anywhere(h, W_p, v_p, allowed):
    h, W_p, v_p = (np.asarray(a, dtype=np.float64) for a in (h, W_p, v_p))
    allowed = np.asarray(allowed, dtype=bool)
    z = np.tanh(h @ W_p) @ v_p
    return allowed.argmax(-1) + (allowed.sum(-1) - 1) * np.exp(-np.logaddexp(0.0, -z))
'''),
    (4, 'the logistic as exp(z) / (1 + exp(z)): inf / inf for a large z', '''
def local_p_centre_anywhere(h, W_p, v_p, allowed):
    h, W_p, v_p = (np.asarray(a, dtype=np.float64) for a in (h, W_p, v_p))
    allowed = np.asarray(allowed, dtype=bool)
    z = np.tanh(h @ W_p) @ v_p
    return allowed.argmax(-1)[:, None] + (allowed.sum(-1)[:, None] - 1) * np.exp(z) / (1 + np.exp(z))
'''),
    (4, 'tanh forgotten', '''
def local_p_centre_anywhere(h, W_p, v_p, allowed):
    h, W_p, v_p = (np.asarray(a, dtype=np.float64) for a in (h, W_p, v_p))
    allowed = np.asarray(allowed, dtype=bool)
    z = (h @ W_p) @ v_p
    return allowed.argmax(-1)[:, None] + (allowed.sum(-1)[:, None] - 1) * np.exp(-np.logaddexp(0.0, -z))
'''),
    (4, "the run's last position as the start (the logistic spread backwards)", '''
def local_p_centre_anywhere(h, W_p, v_p, allowed):
    h, W_p, v_p = (np.asarray(a, dtype=np.float64) for a in (h, W_p, v_p))
    allowed = np.asarray(allowed, dtype=bool)
    last = allowed.shape[1] - 1 - allowed[:, ::-1].argmax(-1)
    z = np.tanh(h @ W_p) @ v_p
    return last[:, None] - (allowed.sum(-1)[:, None] - 1) * np.exp(-np.logaddexp(0.0, -z))
'''),
    (4, "the package's centre, shifted", '''
def local_p_centre_anywhere(h, W_p, v_p, allowed):
    allowed = np.asarray(allowed, dtype=bool)
    return allowed.argmax(-1)[:, None] + package.local_p_centre_np(h, W_p, v_p, allowed.sum(-1))
'''),
    (4, 'float32 arithmetic (the statement asks for float64)', '''
def local_p_centre_anywhere(h, W_p, v_p, allowed):
    h, W_p, v_p = (np.asarray(a, dtype=np.float32) for a in (h, W_p, v_p))
    allowed = np.asarray(allowed, dtype=bool)
    z = np.tanh(h @ W_p) @ v_p
    return allowed.argmax(-1)[:, None] + (allowed.sum(-1)[:, None] - 1) / (1 + np.exp(-z))
'''),
    (4, "the mask zeroed in place after use (the caller's allowed changes)", '''
def local_p_centre_anywhere(h, W_p, v_p, allowed):
    h, W_p, v_p = (np.asarray(a, dtype=np.float64) for a in (h, W_p, v_p))
    first, n = allowed.argmax(-1), allowed.sum(-1)
    allowed[:] = False
    z = np.tanh(h @ W_p) @ v_p
    return first[:, None] + (n[:, None] - 1) * np.exp(-np.logaddexp(0.0, -z))
'''),
    (5, 'every sequence starts at b * S_max (the packed array read as padded)', '''
def packed_dot_attention(q, keys, src_len):
    q, keys, src_len = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64), np.asarray(src_len)
    B, L, D = q.shape
    S = src_len.max()
    weights, context = np.zeros((B, L, S)), np.zeros((B, L, D))
    for b in range(B):
        k_b = keys[b * S:b * S + src_len[b]]
        s = q[b] @ k_b.T
        e = np.exp(s - s.max(-1, keepdims=True))
        weights[b, :, :len(k_b)] = e / e.sum(-1, keepdims=True)
        context[b] = weights[b, :, :len(k_b)] @ k_b
    return context, weights
'''),
    (5, 'sequence b starts at the cumulative sum, one sequence too late', '''
def packed_dot_attention(q, keys, src_len):
    q, keys, src_len = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64), np.asarray(src_len)
    B, L, D = q.shape
    starts = np.cumsum(src_len)
    weights, context = np.zeros((B, L, src_len.max())), np.zeros((B, L, D))
    for b in range(B):
        k_b = keys[starts[b]:starts[b] + src_len[b]]
        s = q[b] @ k_b.T
        e = np.exp(s - s.max(-1, keepdims=True))
        weights[b, :, :len(k_b)] = e / e.sum(-1, keepdims=True)
        context[b] = weights[b, :, :len(k_b)] @ k_b
    return context, weights
'''),
    (5, 'one softmax over all N packed keys (no sequence boundaries)', '''
def packed_dot_attention(q, keys, src_len):
    q, keys, src_len = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64), np.asarray(src_len)
    B, L, D = q.shape
    ends = np.cumsum(src_len)
    s = q @ keys.T
    e = np.exp(s - s.max(-1, keepdims=True))
    w_all = e / e.sum(-1, keepdims=True)
    weights = np.zeros((B, L, src_len.max()))
    for b in range(B):
        weights[b, :, :src_len[b]] = w_all[b, :, ends[b] - src_len[b]:ends[b]]
    return w_all @ keys, weights
'''),
    (5, "scaled by sqrt(D): chapter 4's score, not Luong's", '''
def packed_dot_attention(q, keys, src_len):
    q, keys, src_len = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64), np.asarray(src_len)
    B, L, D = q.shape
    ends = np.cumsum(src_len)
    weights, context = np.zeros((B, L, src_len.max())), np.zeros((B, L, D))
    for b in range(B):
        k_b = keys[ends[b] - src_len[b]:ends[b]]
        s = q[b] @ k_b.T / np.sqrt(D)
        e = np.exp(s - s.max(-1, keepdims=True))
        weights[b, :, :src_len[b]] = e / e.sum(-1, keepdims=True)
        context[b] = weights[b, :, :src_len[b]] @ k_b
    return context, weights
'''),
    (5, 'weights as (B, L, N), the packed columns kept', '''
def packed_dot_attention(q, keys, src_len):
    q, keys, src_len = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64), np.asarray(src_len)
    B, L, D = q.shape
    ends = np.cumsum(src_len)
    weights, context = np.zeros((B, L, len(keys))), np.zeros((B, L, D))
    for b in range(B):
        sl = slice(ends[b] - src_len[b], ends[b])
        s = q[b] @ keys[sl].T
        e = np.exp(s - s.max(-1, keepdims=True))
        weights[b, :, sl] = e / e.sum(-1, keepdims=True)
        context[b] = weights[b] @ keys
    return context, weights
'''),
    (5, 'padded with zeros, then no mask: padding takes weight', '''
def packed_dot_attention(q, keys, src_len):
    q, keys, src_len = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64), np.asarray(src_len)
    B, S = len(src_len), src_len.max()
    padded = np.zeros((B, S, keys.shape[1]))
    padded[np.arange(S)[None, :] < src_len[:, None]] = keys
    s = q @ padded.swapaxes(-2, -1)
    e = np.exp(s - s.max(-1, keepdims=True))
    weights = e / e.sum(-1, keepdims=True)
    return weights @ padded, weights
'''),
    (5, 'returns (weights, context)', '''
def packed_dot_attention(q, keys, src_len):
    context, weights = packed_dot_attention_right(q, keys, src_len)
    return weights, context

def packed_dot_attention_right(q, keys, src_len):
    q, keys, src_len = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64), np.asarray(src_len)
    B, L, D = q.shape
    ends = np.cumsum(src_len)
    weights, context = np.zeros((B, L, src_len.max())), np.zeros((B, L, D))
    for b in range(B):
        k_b = keys[ends[b] - src_len[b]:ends[b]]
        s = q[b] @ k_b.T
        e = np.exp(s - s.max(-1, keepdims=True))
        weights[b, :, :src_len[b]] = e / e.sum(-1, keepdims=True)
        context[b] = weights[b, :, :src_len[b]] @ k_b
    return context, weights
'''),
    (5, 'softmax without subtracting the max (overflows at large scores)', '''
def packed_dot_attention(q, keys, src_len):
    q, keys, src_len = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64), np.asarray(src_len)
    B, L, D = q.shape
    ends = np.cumsum(src_len)
    weights, context = np.zeros((B, L, src_len.max())), np.zeros((B, L, D))
    for b in range(B):
        k_b = keys[ends[b] - src_len[b]:ends[b]]
        e = np.exp(q[b] @ k_b.T)
        weights[b, :, :src_len[b]] = e / e.sum(-1, keepdims=True)
        context[b] = weights[b, :, :src_len[b]] @ k_b
    return context, weights
'''),
    (5, "re-padded and handed to the chapter's luong_attention_np", '''
def packed_dot_attention(q, keys, src_len):
    src_len = np.asarray(src_len)
    B, S = len(src_len), src_len.max()
    allowed = np.arange(S)[None, :] < src_len[:, None]
    padded = np.zeros((B, S, np.shape(keys)[1]))
    padded[allowed] = keys
    return package.luong_attention_np(q, padded, "dot", allowed=allowed)
'''),
    (5, "the keys normalised in place (the caller's states change)", '''
def packed_dot_attention(q, keys, src_len):
    q, src_len = np.asarray(q, dtype=np.float64), np.asarray(src_len)
    keys -= 0.0 * keys.mean(0)
    keys *= 1.0 + 0.0 * keys
    keys[:] = keys + 1e-3
    B, L, D = q.shape
    ends = np.cumsum(src_len)
    weights, context = np.zeros((B, L, src_len.max())), np.zeros((B, L, D))
    for b in range(B):
        k_b = keys[ends[b] - src_len[b]:ends[b]]
        s = q[b] @ k_b.T
        e = np.exp(s - s.max(-1, keepdims=True))
        weights[b, :, :src_len[b]] = e / e.sum(-1, keepdims=True)
        context[b] = weights[b, :, :src_len[b]] @ k_b
    return context, weights
'''),
    (5, 'float32 arithmetic (the statement asks for float64)', '''
def packed_dot_attention(q, keys, src_len):
    q, keys, src_len = np.asarray(q, dtype=np.float32), np.asarray(keys, dtype=np.float32), np.asarray(src_len)
    B, L, D = q.shape
    ends = np.cumsum(src_len)
    weights, context = np.zeros((B, L, src_len.max()), np.float32), np.zeros((B, L, D), np.float32)
    for b in range(B):
        k_b = keys[ends[b] - src_len[b]:ends[b]]
        s = q[b] @ k_b.T
        e = np.exp(s - s.max(-1, keepdims=True))
        weights[b, :, :src_len[b]] = e / e.sum(-1, keepdims=True)
        context[b] = weights[b, :, :src_len[b]] @ k_b
    return context, weights
'''),
    # --- exercise 6: parameter counts (derive)
    (6, "concat without v", '''
def score_params(kind, Dq, Dk, A=None, S_max=None):
    return {"dot": 0, "general": Dq * Dk, "concat": (Dq + Dk) * A if A else 0,
            "location": Dq * S_max if S_max else 0}[kind]

def input_feeding_params(E_emb, H):
    return 3 * H * H
'''),
    (6, "the chapter's square counts (2E^2 + E for concat, E^2 for general)", '''
def score_params(kind, Dq, Dk, A=None, S_max=None):
    return {"dot": 0, "general": Dq * Dq, "concat": 2 * Dq * Dq + Dq,
            "location": Dq * S_max}[kind]

def input_feeding_params(E_emb, H):
    return 3 * H * H
'''),
    (6, "the location-based score with a bias", '''
def score_params(kind, Dq, Dk, A=None, S_max=None):
    return {"dot": 0, "general": Dq * Dk, "concat": (Dq + Dk) * A + A,
            "location": Dq * S_max + S_max}[kind]

def input_feeding_params(E_emb, H):
    return 3 * H * H
'''),
    (6, "the location-based score counted like the general one (Dq Dk)", '''
def score_params(kind, Dq, Dk, A=None, S_max=None):
    return {"dot": 0, "general": Dq * Dk, "concat": (Dq + Dk) * A + A,
            "location": Dq * Dk}[kind]

def input_feeding_params(E_emb, H):
    return 3 * H * H
'''),
    (6, "input feeding counted as the GRU's whole input matrices, 3H(E_emb + H)", '''
def score_params(kind, Dq, Dk, A=None, S_max=None):
    return {"dot": 0, "general": Dq * Dk, "concat": (Dq + Dk) * A + A,
            "location": Dq * S_max}[kind]

def input_feeding_params(E_emb, H):
    return 3 * H * (E_emb + H)
'''),
    (6, "input feeding with new biases, 3H^2 + 6H", '''
def score_params(kind, Dq, Dk, A=None, S_max=None):
    return {"dot": 0, "general": Dq * Dk, "concat": (Dq + Dk) * A + A,
            "location": Dq * S_max}[kind]

def input_feeding_params(E_emb, H):
    return 3 * H * H + 6 * H
'''),
    (6, "input feeding sized by the embedding, 3 E_emb H", '''
def score_params(kind, Dq, Dk, A=None, S_max=None):
    return {"dot": 0, "general": Dq * Dk, "concat": (Dq + Dk) * A + A,
            "location": Dq * S_max}[kind]

def input_feeding_params(E_emb, H):
    return 3 * E_emb * H
'''),
    (6, "a float, not a count", '''
def score_params(kind, Dq, Dk, A=None, S_max=None):
    return {"dot": 0.0, "general": Dq * Dk / 1, "concat": (Dq + Dk) * A + A / 1,
            "location": Dq * S_max / 1}[kind]

def input_feeding_params(E_emb, H):
    return 3.0 * H * H
'''),
    (6, "measured, not derived: the modules built and counted", '''
def score_params(kind, Dq, Dk, A=None, S_max=None):
    if kind == "location":
        return sum(p.numel() for p in nn.Linear(Dq, S_max, bias=False).parameters())
    return sum(p.numel() for p in package.LuongScore(kind, Dq, Dk, A).parameters())

def input_feeding_params(E_emb, H):
    count = lambda m: sum(p.numel() for p in m.parameters())
    return count(nn.GRUCell(E_emb + H, H)) - count(nn.GRUCell(E_emb, H))
'''),
    (7, "prediction: a list instead of a dict", '''
def prediction():
    return [0, 1, 1]
'''),
    (7, "measurement: the mirrored position off by one (length - t)", '''
def mode_offsets(model, length=12, n=200, seed=7):
    src, src_len, _, _ = encode_batch(make_pairs(n, length, length, np.random.default_rng(seed)))
    _, weights = model.generate(src, src_len, max_len=length + 1)
    off = weights[:, :length].argmax(-1) - torch.arange(length, 0, -1)
    return [int(torch.mode(off[:, t]).values) for t in range(length)]
'''),
    (7, "measurement: the steps shifted by one (the EOS step in, step 0 out)", '''
def mode_offsets(model, length=12, n=200, seed=7):
    src, src_len, _, _ = encode_batch(make_pairs(n, length, length, np.random.default_rng(seed)))
    _, weights = model.generate(src, src_len, max_len=length + 1)
    off = weights[:, 1:].argmax(-1) - torch.arange(length - 1, -1, -1)
    return [int(torch.mode(off[:, t]).values) for t in range(length)]
'''),
    (7, "measurement: the rounded mean offset instead of the mode", '''
def mode_offsets(model, length=12, n=200, seed=7):
    off = mirror_offsets(model, n=n, length=length, seed=seed)
    return [round(float(off[:, t].double().mean())) for t in range(length)]
'''),
    (7, "measurement: ties broken by first seen (collections.Counter)", '''
from collections import Counter

def mode_offsets(model, length=12, n=200, seed=7):
    off = mirror_offsets(model, n=n, length=length, seed=seed)
    return [Counter(off[:, t].tolist()).most_common(1)[0][0] for t in range(length)]
'''),
    (7, "measurement: the arg-max over the steps, not the positions", '''
def mode_offsets(model, length=12, n=200, seed=7):
    src, src_len, _, _ = encode_batch(make_pairs(n, length, length, np.random.default_rng(seed)))
    _, weights = model.generate(src, src_len, max_len=length + 1)
    off = weights[:, :length].argmax(1) - torch.arange(length - 1, -1, -1)
    return [int(torch.mode(off[:, t]).values) for t in range(length)]
'''),
    (7, "measurement: the default seed and size, whatever the arguments", '''
def mode_offsets(model, length=12, n=200, seed=7):
    off = mirror_offsets(model)
    return [int(torch.mode(off[:, t]).values) for t in range(off.shape[1])]
'''),
    (7, "measurement: a NumPy array, not a list", '''
def mode_offsets(model, length=12, n=200, seed=7):
    off = mirror_offsets(model, n=n, length=length, seed=seed).numpy()
    return np.array([np.bincount(off[:, t] + length).argmax() - length for t in range(length)])
'''),
    (7, "measurement: mirror_offsets called with length and n swapped (its order is n, length)", '''
def mode_offsets(model, length=12, n=200, seed=7):
    off = mirror_offsets(model, length, n, seed).numpy()
    return [int(np.bincount(off[:, t] + length).argmax()) - length for t in range(off.shape[1])]
'''),
    (7, "measurement: n and seed ignored (mirror_offsets' defaults), length kept", '''
def mode_offsets(model, length=12, n=200, seed=7):
    off = mirror_offsets(model, length=length)
    return [int(torch.mode(off[:, t]).values) for t in range(length)]
'''),
    (7, 'measurement: seed ignored', '''
def mode_offsets(model, length=12, n=200, seed=7):
    off = mirror_offsets(model, n=n, length=length)
    return [int(torch.mode(off[:, t]).values) for t in range(length)]
'''),
    (7, 'measurement: n ignored (always 200 strings)', '''
def mode_offsets(model, length=12, n=200, seed=7):
    off = mirror_offsets(model, length=length, seed=seed)
    return [int(torch.mode(off[:, t]).values) for t in range(length)]
'''),
    (7, 'prediction computed: it runs the measurement', '''
def mode_offsets(model, length=12, n=200, seed=7):
    off = mirror_offsets(model, n=n, length=length, seed=seed)
    return [int(torch.mode(off[:, t]).values) for t in range(length)]

def prediction():
    modes = mode_offsets(trained["general"], 12, 200, 7)
    return {0: modes[0], 1: modes[1], 11: modes[11]}
'''),
    (7, "prediction computed from the chapter's offsets", '''
def prediction():
    off = mirror_offsets(trained["general"])
    return {t: int(torch.mode(off[:, t]).values) for t in (0, 1, 11)}
'''),
    (7, "prediction: offsets as strings ('+1')", '''
def prediction():
    return {0: "0", 1: "+1", 11: "+1"}
'''),
    # --- exercise 8: local-m clipped at both edges (extend)
    (8, "the centre not clipped: the chapter's local-m", '''
def local_m_clipped_weights(scores, D_window, src_len):
    scores, src_len = np.asarray(scores, dtype=np.float64), np.asarray(src_len)
    allowed = np.arange(scores.shape[-1])[None, :] < src_len[:, None]
    return package.local_m_weights_np(scores, D_window, allowed)
'''),
    (8, "the centre clipped to the padded width S - 1", '''
def local_m_clipped_weights(scores, D_window, src_len):
    scores, src_len = np.asarray(scores, dtype=np.float64), np.asarray(src_len)
    B, L, S = scores.shape
    centre = np.minimum(np.arange(L), S - 1)[None, :].repeat(B, 0)
    s = np.arange(S)
    inside = (np.abs(s - centre[..., None]) <= D_window) & (s < src_len[:, None, None])
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)
'''),
    (8, "the centre clipped to S_b instead of S_b - 1", '''
def local_m_clipped_weights(scores, D_window, src_len):
    scores, src_len = np.asarray(scores, dtype=np.float64), np.asarray(src_len)
    B, L, S = scores.shape
    centre = np.minimum(np.arange(L)[None, :], src_len[:, None])
    s = np.arange(S)
    inside = (np.abs(s - centre[..., None]) <= D_window) & (s < src_len[:, None, None])
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)
'''),
    (8, "the lengths without an axis: (L,) against (B,)", '''
def local_m_clipped_weights(scores, D_window, src_len):
    scores, src_len = np.asarray(scores, dtype=np.float64), np.asarray(src_len)
    B, L, S = scores.shape
    centre = np.minimum(np.arange(L), src_len - 1)
    s = np.arange(S)
    inside = (np.abs(s - centre[..., None]) <= D_window) & (s < src_len[:, None, None])
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)
'''),
    (8, "padding left in the window", '''
def local_m_clipped_weights(scores, D_window, src_len):
    scores, src_len = np.asarray(scores, dtype=np.float64), np.asarray(src_len)
    B, L, S = scores.shape
    centre = np.minimum(np.arange(L)[None, :], src_len[:, None] - 1)
    inside = np.abs(np.arange(S) - centre[..., None]) <= D_window
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)
'''),
    (8, "the window's edges left out (|s - p| < D_window)", '''
def local_m_clipped_weights(scores, D_window, src_len):
    scores, src_len = np.asarray(scores, dtype=np.float64), np.asarray(src_len)
    B, L, S = scores.shape
    centre = np.minimum(np.arange(L)[None, :], src_len[:, None] - 1)
    s = np.arange(S)
    inside = (np.abs(s - centre[..., None]) < max(D_window, 1)) & (s < src_len[:, None, None])
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)
'''),
    (8, "past the end, the centre wraps around (t mod S_b)", '''
def local_m_clipped_weights(scores, D_window, src_len):
    scores, src_len = np.asarray(scores, dtype=np.float64), np.asarray(src_len)
    B, L, S = scores.shape
    centre = np.arange(L)[None, :] % src_len[:, None]
    s = np.arange(S)
    inside = (np.abs(s - centre[..., None]) <= D_window) & (s < src_len[:, None, None])
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)
'''),
    (8, "the window shifted inwards to keep 2D + 1 positions", '''
def local_m_clipped_weights(scores, D_window, src_len):
    scores, src_len = np.asarray(scores, dtype=np.float64), np.asarray(src_len)
    B, L, S = scores.shape
    start = np.clip(np.arange(L)[None, :] - D_window, 0,
                    np.maximum(src_len[:, None] - 1 - 2 * D_window, 0))
    s = np.arange(S)
    inside = ((s >= start[..., None]) & (s <= start[..., None] + 2 * D_window)
              & (s < src_len[:, None, None]))
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)
'''),
    (8, "softmax without subtracting the max", '''
def local_m_clipped_weights(scores, D_window, src_len):
    scores, src_len = np.asarray(scores, dtype=np.float64), np.asarray(src_len)
    B, L, S = scores.shape
    centre = np.minimum(np.arange(L)[None, :], src_len[:, None] - 1)
    s = np.arange(S)
    inside = (np.abs(s - centre[..., None]) <= D_window) & (s < src_len[:, None, None])
    e = np.where(inside, np.exp(scores), 0.0)
    return e / e.sum(-1, keepdims=True)
'''),
    (8, "local-p's Gaussian multiplied in", '''
def local_m_clipped_weights(scores, D_window, src_len):
    scores, src_len = np.asarray(scores, dtype=np.float64), np.asarray(src_len)
    B, L, S = scores.shape
    centre = np.minimum(np.arange(L)[None, :], src_len[:, None] - 1)
    s = np.arange(S)
    inside = (np.abs(s - centre[..., None]) <= D_window) & (s < src_len[:, None, None])
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    gauss = np.exp(-(s - centre[..., None]) ** 2 / (2 * (max(D_window, 1) / 2) ** 2))
    return e / e.sum(-1, keepdims=True) * gauss
'''),
    (8, "float32 arithmetic (the statement asks for a float64 array)", '''
def local_m_clipped_weights(scores, D_window, src_len):
    scores, src_len = np.asarray(scores, dtype=np.float32), np.asarray(src_len)
    B, L, S = scores.shape
    centre = np.minimum(np.arange(L)[None, :], src_len[:, None] - 1)
    s = np.arange(S)
    inside = (np.abs(s - centre[..., None]) <= D_window) & (s < src_len[:, None, None])
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)
'''),
    # --- added after the outside reader's report
    (1, "in place: the queries projected into the caller's q", '''
def general_scores(q, k, W):
    q, k, W = (np.asarray(a, dtype=np.float64) for a in (q, k, W))
    q[...] = q @ W
    return q @ k.swapaxes(-2, -1)
'''),
    (2, "every pair concatenated first, then a loop over the queries (the forbidden array)", '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float64) for a in (q, k, W, v))
    B, L, S = q.shape[0], q.shape[1], k.shape[1]
    pairs = np.concatenate([np.broadcast_to(q[:, :, None, :], (B, L, S, q.shape[-1])),
                            np.broadcast_to(k[:, None, :, :], (B, L, S, k.shape[-1]))], -1)
    out = np.empty((B, L, S))
    for i in range(L):
        out[:, i] = np.tanh(pairs[:, i] @ W) @ v
    return out
'''),
    (2, "the keys centred in place: the caller's k changes", '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float64) for a in (q, k, W, v))
    k -= k.mean()
    Dq = q.shape[-1]
    wq, wk = q @ W[:Dq], k @ W[Dq:]
    return np.stack([np.tanh(wq[:, i, None, :] + wk) @ v for i in range(q.shape[1])], axis=1)
'''),
    (2, "pieces in float32, the scores returned as float64", '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float32) for a in (q, k, W, v))
    Dq = q.shape[-1]
    wq, wk = q @ W[:Dq], k @ W[Dq:]
    out = [np.tanh(wq[:, i, None, :] + wk) @ v for i in range(q.shape[1])]
    return np.stack(out, axis=1).astype(np.float64)
'''),
    (3, "sigma fixed, but the fall-off computed in float32", '''
def local_p_weights(scores, centre, D_window, allowed):
    scores, centre = np.asarray(scores, dtype=np.float64), np.asarray(centre, dtype=np.float64)
    dist = np.arange(scores.shape[-1]) - centre[..., None]
    inside = (np.abs(dist) <= D_window) & np.asarray(allowed)[:, None, :]
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    align = e / e.sum(-1, keepdims=True)
    d32, s32 = dist.astype(np.float32), np.float32(D_window / 2)
    return align * np.exp(-d32 ** 2 / (2 * s32 ** 2)).astype(np.float64)
'''),
    (7, "prediction() handed the measurement through a default argument", '''
def prediction(m=mode_offsets(trained["general"])):
    return {0: m[0], 1: m[1], 11: m[11]}
'''),
    (8, "computed in float32, returned as float64", '''
def local_m_clipped_weights(scores, D_window, src_len):
    scores, src_len = np.asarray(scores, dtype=np.float32), np.asarray(src_len)
    B, L, S = scores.shape
    centre = np.minimum(np.arange(L)[None, :], src_len[:, None] - 1)
    s = np.arange(S)
    inside = (np.abs(s - centre[..., None]) <= D_window) & (s < src_len[:, None, None])
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)).astype(np.float64)
'''),
]

RIGHT = [
    (2, "chunks of 8 keys, (B, L, 8, A) at a time", '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float64) for a in (q, k, W, v))
    Dq, S = q.shape[-1], k.shape[1]
    wq, wk = q @ W[:Dq], k @ W[Dq:]
    out = np.empty(q.shape[:2] + (S,))
    for j in range(0, S, 8):
        out[:, :, j:j + 8] = np.tanh(wq[:, :, None, :] + wk[:, None, j:j + 8, :]) @ v
    return out
'''),
    (1, "W applied to the keys first", '''
def general_scores(q, k, W):
    q, k, W = (np.asarray(a, dtype=np.float64) for a in (q, k, W))
    return q @ (k @ W.T).swapaxes(-2, -1)
'''),
    (1, "np.einsum", '''
def general_scores(q, k, W):
    return np.einsum("bld,de,bse->bls", q, W, k)
'''),
    (1, "q W first (not cached)", '''
def general_scores(q, k, W):
    q, k, W = (np.asarray(a, dtype=np.float64) for a in (q, k, W))
    return (q @ W) @ k.swapaxes(-2, -1)
'''),
    (1, "W times the transposed keys, cached as (B, Dq, S)", '''
def general_scores(q, k, W):
    q, k, W = (np.asarray(a, dtype=np.float64) for a in (q, k, W))
    keys_proj = W @ k.swapaxes(-2, -1)
    return q @ keys_proj
'''),
    (2, "a loop over the keys (allowed: only the concatenation is forbidden)", '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float64) for a in (q, k, W, v))
    Dq = q.shape[-1]
    wq, wk = q @ W[:Dq], k @ W[Dq:]
    return np.stack([np.tanh(wq + wk[:, j:j + 1]) @ v for j in range(k.shape[1])], axis=-1)
'''),
    (2, 'a loop over chunks of 4 keys', '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float64) for a in (q, k, W, v))
    Dq = q.shape[-1]
    wq, wk = q @ W[:Dq], k @ W[Dq:]
    parts = [np.tanh(wq[:, :, None, :] + wk[:, None, j:j + 4, :]) @ v
             for j in range(0, k.shape[1], 4)]
    return np.concatenate(parts, axis=-1)
'''),
    (2, 'a loop over the batch and the queries, einsum for v', '''
def concat_scores(q, k, W, v):
    q, k, W, v = (np.asarray(a, dtype=np.float64) for a in (q, k, W, v))
    Dq = q.shape[-1]
    B, L, S = q.shape[0], q.shape[1], k.shape[1]
    out = np.zeros((B, L, S))
    for b in range(B):
        wk = k[b] @ W[Dq:]
        for i in range(L):
            out[b, i] = np.einsum("sa,a->s", np.tanh(q[b, i] @ W[:Dq] + wk), v)
    return out
'''),
    (3, "the Gaussian written as exp(-2 ((s - p) / D)^2)", '''
def local_p_weights(scores, centre, D_window, allowed):
    scores, centre = np.asarray(scores, dtype=np.float64), np.asarray(centre, dtype=np.float64)
    dist = np.arange(scores.shape[-1]) - np.expand_dims(centre, -1)
    inside = (np.abs(dist) <= D_window) & np.asarray(allowed)[:, None, :]
    masked = np.where(inside, scores, -1e300)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True) * np.exp(-2.0 * (dist / D_window) ** 2)
'''),
    (3, "the given function, its Gaussian divided out and replaced", '''
def local_p_weights(scores, centre, D_window, allowed):
    w = local_p_weights_given(scores, centre, D_window, allowed)
    dist = np.arange(np.shape(scores)[-1]) - np.asarray(centre, dtype=np.float64)[..., None]
    return w * np.exp(-dist ** 2 / (2 * (D_window / 2) ** 2) + dist ** 2 / (2 * D_window ** 2))
'''),
    (3, "2 sigma^2 written as D_window^2 / 2", '''
def local_p_weights(scores, centre, D_window, allowed):
    scores, centre = np.asarray(scores, dtype=np.float64), np.asarray(centre, dtype=np.float64)
    dist = np.arange(scores.shape[-1]) - centre[..., None]
    inside = (np.abs(dist) <= D_window) & np.asarray(allowed)[:, None, :]
    masked = np.where(inside, scores, -np.inf)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True) * np.exp(-dist ** 2 / (D_window ** 2 / 2))
'''),
    (4, 'a loop over the sequences with np.flatnonzero, the logistic via tanh', '''
def local_p_centre_anywhere(h, W_p, v_p, allowed):
    h, W_p, v_p = (np.asarray(a, dtype=np.float64) for a in (h, W_p, v_p))
    z = np.tanh(h @ W_p) @ v_p
    out = np.empty(z.shape)
    for b, row in enumerate(np.asarray(allowed)):
        real = np.flatnonzero(row)
        out[b] = real[0] + (len(real) - 1) * 0.5 * (1 + np.tanh(0.5 * z[b]))
    return out
'''),
    (4, 'the naive logistic 1 / (1 + exp(-z)) (overflows to 0, correctly), first and last', '''
def local_p_centre_anywhere(h, W_p, v_p, allowed):
    h, W_p, v_p = (np.asarray(a, dtype=np.float64) for a in (h, W_p, v_p))
    allowed = np.asarray(allowed, dtype=bool)
    S = allowed.shape[1]
    first = allowed.argmax(-1)[:, None]
    last = (S - 1 - allowed[:, ::-1].argmax(-1))[:, None]
    with np.errstate(over="ignore"):
        return first + (last - first) / (1 + np.exp(-(np.tanh(h @ W_p) @ v_p)))
'''),
    (5, 're-padded with -inf scores, softmax_np from chapter 4', '''
from attnlab.scaled_dot_product import softmax_np

def packed_dot_attention(q, keys, src_len):
    q, keys, src_len = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64), np.asarray(src_len)
    B, S = len(src_len), src_len.max()
    allowed = np.arange(S)[None, :] < src_len[:, None]
    padded = np.zeros((B, S, keys.shape[1]))
    padded[allowed] = keys
    scores = np.where(allowed[:, None, :], q @ padded.swapaxes(-2, -1), -np.inf)
    weights = softmax_np(scores, axis=-1)
    return weights @ padded, weights
'''),
    (5, 'np.split at the cumulative lengths, einsum', '''
def packed_dot_attention(q, keys, src_len):
    q, keys, src_len = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64), np.asarray(src_len)
    parts = np.split(keys, np.cumsum(src_len)[:-1])
    weights = np.zeros(q.shape[:2] + (src_len.max(),))
    context = np.zeros_like(q)
    for b, k_b in enumerate(parts):
        s = np.einsum("ld,sd->ls", q[b], k_b)
        e = np.exp(s - s.max(-1, keepdims=True))
        weights[b, :, :len(k_b)] = e / e.sum(-1, keepdims=True)
        context[b] = np.einsum("ls,sd->ld", weights[b, :, :len(k_b)], k_b)
    return context, weights
'''),
    (6, "shapes listed, then multiplied out with math.prod", '''
def score_params(kind, Dq, Dk, A=None, S_max=None):
    shapes = {"dot": [], "general": [(Dq, Dk)], "concat": [(Dq + Dk, A), (A,)],
              "location": [(Dq, S_max)]}[kind]
    return sum(math.prod(s) for s in shapes)

def input_feeding_params(E_emb, H):
    gru = lambda n: 3 * H * (n + H) + 6 * H
    return gru(E_emb + H) - gru(E_emb)
'''),
    (7, "the mode with np.bincount, from model.generate directly", '''
def prediction():
    return {11: 1, 1: 1, 0: 0}

def mode_offsets(model, length=12, n=200, seed=7):
    src, src_len, _, _ = encode_batch(make_pairs(n, length, length, np.random.default_rng(seed)))
    _, weights = model.generate(src, src_len, max_len=length + 1)
    off = weights[:, :length].argmax(-1).numpy() - np.arange(length - 1, -1, -1)
    return [int(np.argmax(np.bincount(off[:, t] + length))) - length for t in range(length)]
'''),
    (7, "torch.mode (ties: the smallest value)", '''
def mode_offsets(model, length=12, n=200, seed=7):
    off = mirror_offsets(model, n=n, length=length, seed=seed)
    return [int(torch.mode(off[:, t]).values) for t in range(length)]
'''),
    # --- exercise 7: the offset at three output steps (predict, then measure)
    (7, "a wrong prediction is not a failure: +1 at every step (the chapter's table read as a rule)", '''
def prediction():
    return {0: 1, 1: 1, 11: 1}
'''),
    (7, "a wrong prediction is not a failure: exactly on the mirror everywhere", '''
def prediction():
    return {0: 0, 1: 0, 11: 0}
'''),
    (7, "a wrong prediction is not a failure: 0 at both edges", '''
def prediction():
    return {0: 0, 1: 1, 11: 0}
'''),
    (8, "np.clip for the centre, -1e300 for the mask", '''
def local_m_clipped_weights(scores, D_window, src_len):
    scores, src_len = np.asarray(scores, dtype=np.float64), np.asarray(src_len)
    B, L, S = scores.shape
    centre = np.clip(np.arange(L)[None, :], 0, src_len[:, None] - 1)
    s = np.arange(S)[None, None, :]
    inside = (np.abs(s - centre[:, :, None]) <= D_window) & (s < src_len[:, None, None])
    masked = np.where(inside, scores, -1e300)
    e = np.exp(masked - masked.max(-1, keepdims=True)) * inside
    return e / e.sum(-1, keepdims=True)
'''),
    (8, "a loop over the sequences, softmax_np from attnlab", '''
from attnlab.scaled_dot_product import softmax_np

def local_m_clipped_weights(scores, D_window, src_len):
    scores, src_len = np.asarray(scores, dtype=np.float64), np.asarray(src_len)
    out = []
    for b in range(scores.shape[0]):
        p = np.minimum(np.arange(scores.shape[1]), src_len[b] - 1)[:, None]
        s = np.arange(scores.shape[2])[None, :]
        keep = (np.abs(s - p) <= D_window) & (s < src_len[b])
        out.append(softmax_np(np.where(keep, scores[b], -np.inf), axis=-1))
    return np.stack(out)
'''),
]
