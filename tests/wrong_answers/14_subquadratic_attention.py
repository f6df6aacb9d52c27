"""Wrong answers a learner would plausibly write for chapter 14's exercises."""
WRONG = [
    # ---- exercise 1: how many pairs does a window allow?
    (1, "every row counted as full: L W, the short rows at the start forgotten", '''
def window_pairs(L, W, causal=True):
    return L * W if causal else L * (2 * W - 1)
'''),
    (1, "W + 1 keys per row (i - W .. i, the inclusive reading): the off-by-one of section 15", '''
def window_pairs(L, W, causal=True):
    W = min(W + 1, L)
    one_sided = L * W - W * (W - 1) // 2
    return one_sided if causal else 2 * one_sided - L
'''),
    (1, "the closed form without clipping W: wrong once the window is longer than the sequence", '''
def window_pairs(L, W, causal=True):
    one_sided = L * W - W * (W - 1) // 2
    return one_sided if causal else 2 * one_sided - L
'''),
    (1, "two-sided as twice the causal count: the diagonal counted twice", '''
def window_pairs(L, W, causal=True):
    W = min(W, L)
    one_sided = L * W - W * (W - 1) // 2
    return one_sided if causal else 2 * one_sided
'''),
    (1, "two-sided count without the diagonal", '''
def window_pairs(L, W, causal=True):
    W = min(W, L)
    one_sided = L * W - W * (W - 1) // 2
    return one_sided if causal else 2 * one_sided - 2 * L
'''),
    (1, "causal ignored: always the one-sided count", '''
def window_pairs(L, W, causal=True):
    W = min(W, L)
    return L * W - W * (W - 1) // 2
'''),
    (1, "a true division: the count comes out as a float", '''
def window_pairs(L, W, causal=True):
    W = min(W, L)
    one_sided = L * W - W * (W - 1) / 2
    return one_sided if causal else 2 * one_sided - L
'''),
    (1, "counted on an L x L mask built by broadcasting", '''
def window_pairs(L, W, causal=True):
    back = np.arange(L)[:, None] - np.arange(L)[None, :]
    allowed = (back >= 0) & (back < W) if causal else np.abs(back) < W
    return int(allowed.sum())
'''),
    (1, "counted on the chapter's mask", '''
def window_pairs(L, W, causal=True):
    return int(sq.sliding_window_mask_np(L, W, causal).sum())
'''),
    (1, "row by row, the two-sided rows clipped at L instead of L - 1", '''
def window_pairs(L, W, causal=True):
    total = 0
    for i in range(L):
        hi = i if causal else min(L, i + W - 1)
        total += hi - max(0, i - W + 1) + 1
    return total
'''),
    (1, "the clip at L - 1 kept from a look-back convention: one key short when W >= L", '''
def window_pairs(L, W, causal=True):
    W = min(W, L - 1)
    one_sided = L * W - W * (W - 1) // 2
    return one_sided if causal else 2 * one_sided - L
'''),
    # ---- exercise 2: attention on a lopsided band
    (2, "ahead ignored: the causal band of section 3", '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] - back + np.arange(back + ahead + 1)[None, :]
    exists = (idx >= 0) & (idx <= np.arange(L)[:, None])
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D), exists)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, "back and ahead swapped: slot t holds key i - ahead + t", '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] - ahead + np.arange(back + ahead + 1)[None, :]
    exists = (idx >= 0) & (idx < L)
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D), exists)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, "only the slots before the start masked: past the end, key L - 1 counted again", '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] - back + np.arange(back + ahead + 1)[None, :]
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D), idx >= 0)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, "band of back + ahead slots: one key short (an off-by-one on W)", '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] - back + np.arange(back + ahead)[None, :]
    exists = (idx >= 0) & (idx < L)
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D), exists)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, "the symmetric band of width max(back, ahead)", '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    w = max(back, ahead)
    idx = np.arange(L)[:, None] - w + np.arange(2 * w + 1)[None, :]
    exists = (idx >= 0) & (idx < L)
    safe = np.clip(idx, 0, L - 1)
    weights = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D), exists)
    out = np.einsum("lw,lwv->lv", weights, v[safe])
    return out, weights[:, w - back:w + ahead + 1]
'''),
    (2, "band slots in reverse order (slot t holds key i + ahead - t)", '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] + ahead - np.arange(back + ahead + 1)[None, :]
    exists = (idx >= 0) & (idx < L)
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D), exists)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, "scores not scaled by 1/sqrt(D)", '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] - back + np.arange(back + ahead + 1)[None, :]
    exists = (idx >= 0) & (idx < L)
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]), exists)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, "scores scaled by 1/sqrt(Dv) instead of 1/sqrt(D)", '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] - back + np.arange(back + ahead + 1)[None, :]
    exists = (idx >= 0) & (idx < L)
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(v.shape[1]), exists)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, "softmax without subtracting the row max: overflows for large scores", '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] - back + np.arange(back + ahead + 1)[None, :]
    exists = (idx >= 0) & (idx < L)
    safe = np.clip(idx, 0, L - 1)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.where(exists, np.exp(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D)), 0.0)
        band = e / e.sum(-1, keepdims=True)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, "dense masked attention, then the band read off: right values, an L x L array", '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    i, j = np.arange(L)[:, None], np.arange(L)[None, :]
    weights = masked_softmax_np(q @ k.T / np.sqrt(D), (j >= i - back) & (j <= i + ahead))
    idx = i - back + np.arange(back + ahead + 1)[None, :]
    band = np.where((idx >= 0) & (idx < L),
                    np.take_along_axis(weights, np.clip(idx, 0, L - 1), 1), 0.0)
    return weights @ v, band
'''),
    (2, "the band gathered right, but masked with a full L x L boolean mask", '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    i, j = np.arange(L)[:, None], np.arange(L)[None, :]
    allowed = (j >= i - back) & (j <= i + ahead)
    idx = i - back + np.arange(back + ahead + 1)[None, :]
    safe = np.clip(idx, 0, L - 1)
    exists = np.take_along_axis(allowed, safe, 1) & (idx >= 0) & (idx < L)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D), exists)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    # ---- exercise 3: a shift that does not cancel
    (2, "keys read with mode='wrap', masked after exp, the row max taken over every slot", '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    W = back + ahead + 1
    index = np.arange(L)[:, None] - back + np.arange(W)[None, :]
    valid = (index >= 0) & (index < L)
    kb, vb = np.take(k, index, axis=0, mode="wrap"), np.take(v, index, axis=0, mode="wrap")
    scores = np.einsum("ld,lwd->lw", q, kb) / np.sqrt(D)
    band = np.exp(scores - scores.max(1, keepdims=True)) * valid
    band = band / band.sum(1, keepdims=True)
    return np.einsum("lw,lwv->lv", band, vb), band
'''),
    (3, "the given code, unchanged: a shift per key row", '''
performer_attention = performer_given
'''),
    (3, "the key shift removed: right for small inputs, 0/0 once every exponent underflows", '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    q, k = q / D**0.25, k / D**0.25
    log_q = q @ omega.T - 0.5 * (q**2).sum(-1, keepdims=True)
    log_k = k @ omega.T - 0.5 * (k**2).sum(-1, keepdims=True)
    phi_q = np.exp(log_q - log_q.max(axis=-1, keepdims=True))
    phi_k = np.exp(log_k)
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / (phi_q @ phi_k.sum(axis=-2)[..., None])
'''),
    (3, "one shift for the whole batch: an element at a smaller scale underflows", '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    q, k = q / D**0.25, k / D**0.25
    log_q = q @ omega.T - 0.5 * (q**2).sum(-1, keepdims=True)
    log_k = k @ omega.T - 0.5 * (k**2).sum(-1, keepdims=True)
    phi_q = np.exp(log_q - log_q.max(axis=-1, keepdims=True))
    phi_k = np.exp(log_k - log_k.max())
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / (phi_q @ phi_k.sum(axis=-2)[..., None])
'''),
    (3, "both shifts global: every element but the largest underflows", '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    q, k = q / D**0.25, k / D**0.25
    log_q = q @ omega.T - 0.5 * (q**2).sum(-1, keepdims=True)
    log_k = k @ omega.T - 0.5 * (k**2).sum(-1, keepdims=True)
    phi_q, phi_k = np.exp(log_q - log_q.max()), np.exp(log_k - log_k.max())
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / (phi_q @ phi_k.sum(axis=-2)[..., None])
'''),
    (3, "the keys shifted per feature (axis -2): a constant per m does not cancel either", '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    q, k = q / D**0.25, k / D**0.25
    log_q = q @ omega.T - 0.5 * (q**2).sum(-1, keepdims=True)
    log_k = k @ omega.T - 0.5 * (k**2).sum(-1, keepdims=True)
    phi_q = np.exp(log_q - log_q.max(axis=-1, keepdims=True))
    phi_k = np.exp(log_k - log_k.max(axis=-2, keepdims=True))
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / (phi_q @ phi_k.sum(axis=-2)[..., None])
'''),
    (3, "the per-key shift undone by multiplying back: the unshifted features again", '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    q, k = q / D**0.25, k / D**0.25
    log_q = q @ omega.T - 0.5 * (q**2).sum(-1, keepdims=True)
    log_k = k @ omega.T - 0.5 * (k**2).sum(-1, keepdims=True)
    top = log_k.max(axis=-1, keepdims=True)
    phi_q = np.exp(log_q - log_q.max(axis=-1, keepdims=True))
    phi_k = np.exp(log_k - top) * np.exp(top)
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / (phi_q @ phi_k.sum(axis=-2)[..., None])
'''),
    (3, "fixed, but q and k scaled in place: the caller's arrays change", '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    q /= D**0.25
    k /= D**0.25
    log_q = q @ omega.T - 0.5 * (q**2).sum(-1, keepdims=True)
    log_k = k @ omega.T - 0.5 * (k**2).sum(-1, keepdims=True)
    phi_q = np.exp(log_q - log_q.max(axis=-1, keepdims=True))
    phi_k = np.exp(log_k - log_k.max(axis=(-2, -1), keepdims=True))
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / (phi_q @ phi_k.sum(axis=-2)[..., None])
'''),
    (3, "fixed, but the 1/D^(1/4) scaling dropped: it estimates exp(q.k), not the softmax's", '''
def performer_attention(q, k, v, omega):
    log_q = q @ omega.T - 0.5 * (q**2).sum(-1, keepdims=True)
    log_k = k @ omega.T - 0.5 * (k**2).sum(-1, keepdims=True)
    phi_q = np.exp(log_q - log_q.max(axis=-1, keepdims=True))
    phi_k = np.exp(log_k - log_k.max(axis=(-2, -1), keepdims=True))
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / (phi_q @ phi_k.sum(axis=-2)[..., None])
'''),
    (3, "fixed, but the normaliser summed over axis 0: right only without batch axes", '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    q, k = q / D**0.25, k / D**0.25
    log_q = q @ omega.T - 0.5 * (q**2).sum(-1, keepdims=True)
    log_k = k @ omega.T - 0.5 * (k**2).sum(-1, keepdims=True)
    phi_q = np.exp(log_q - log_q.max(axis=-1, keepdims=True))
    phi_k = np.exp(log_k - log_k.max(axis=(-2, -1), keepdims=True))
    z = phi_k.sum(axis=0)
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / (phi_q @ z[..., None])
'''),
    (3, "hands the work to the chapter's performer_attention_np", '''
def performer_attention(q, k, v, omega):
    return sq.performer_attention_np(q, k, v, omega)[0]
'''),
    # ---- exercise 4: one decoding step of causal linear attention
    (3, "the query shift per sequence, not per row: rows far below the maximum underflow", '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    q, k = q / D**0.25, k / D**0.25
    log_q = q @ omega.T - 0.5 * (q**2).sum(-1, keepdims=True)
    log_k = k @ omega.T - 0.5 * (k**2).sum(-1, keepdims=True)
    phi_q = np.exp(log_q - log_q.max(axis=(-2, -1), keepdims=True))
    phi_k = np.exp(log_k - log_k.max(axis=(-2, -1), keepdims=True))
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / (phi_q @ phi_k.sum(axis=-2)[..., None])
'''),
    (4, "updated in place (state += ...): the caller's state changes under its feet", '''
def linear_decode_step(state, z, q_t, k_t, v_t):
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state += phi_k[..., :, None] * v_t[..., None, :]
    z += phi_k
    num = np.einsum("...m,...mv->...v", phi_q, state)
    return num / np.einsum("...m,...m->...", phi_q, z)[..., None], state, z
'''),
    (4, "read out before the update: the new token cannot see itself", '''
def linear_decode_step(state, z, q_t, k_t, v_t):
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    with np.errstate(invalid="ignore"):
        out = (np.einsum("...m,...mv->...v", phi_q, state)
               / np.maximum(np.einsum("...m,...m->...", phi_q, z), 1e-300)[..., None])
    return out, state + phi_k[..., :, None] * v_t[..., None, :], z + phi_k
'''),
    (4, "np.outer for the update: it flattens the batch axes", '''
def linear_decode_step(state, z, q_t, k_t, v_t):
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state = state + np.outer(phi_k, v_t)
    z = z + phi_k
    return (phi_q @ state) / (phi_q @ z), state, z
'''),
    (4, "the state laid out as (..., Dv, D)", '''
def linear_decode_step(state, z, q_t, k_t, v_t):
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state = np.swapaxes(state, -2, -1) + v_t[..., :, None] * phi_k[..., None, :]
    z = z + phi_k
    num = np.einsum("...m,...vm->...v", phi_q, state)
    return num / np.einsum("...m,...m->...", phi_q, z)[..., None], state, z
'''),
    (4, "raw q in the readout instead of phi(q)", '''
def linear_decode_step(state, z, q_t, k_t, v_t):
    phi_k = sq.elu_feature_map_np(k_t)
    state = state + phi_k[..., :, None] * v_t[..., None, :]
    z = z + phi_k
    num = np.einsum("...m,...mv->...v", q_t, state)
    return num / np.einsum("...m,...m->...", q_t, z)[..., None], state, z
'''),
    (4, "no normaliser: the running sum of values is not an average", '''
def linear_decode_step(state, z, q_t, k_t, v_t):
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state = state + phi_k[..., :, None] * v_t[..., None, :]
    return np.einsum("...m,...mv->...v", phi_q, state), state, z + phi_k
'''),
    (4, "z accumulates the raw keys, not their features", '''
def linear_decode_step(state, z, q_t, k_t, v_t):
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state = state + phi_k[..., :, None] * v_t[..., None, :]
    z = z + k_t
    num = np.einsum("...m,...mv->...v", phi_q, state)
    return num / np.einsum("...m,...m->...", phi_q, z)[..., None], state, z
'''),
    (4, "the softmax's 1/sqrt(D) put into the features", '''
def linear_decode_step(state, z, q_t, k_t, v_t):
    D = q_t.shape[-1]
    phi_q, phi_k = sq.elu_feature_map_np(q_t / D**0.5), sq.elu_feature_map_np(k_t)
    state = state + phi_k[..., :, None] * v_t[..., None, :]
    z = z + phi_k
    num = np.einsum("...m,...mv->...v", phi_q, state)
    return num / np.einsum("...m,...m->...", phi_q, z)[..., None], state, z
'''),
    (4, "the chapter's recurrent function run on the one token", '''
def linear_decode_step(state, z, q_t, k_t, v_t):
    out, _ = sq.linear_attention_recurrent_np(q_t[..., None, :], k_t[..., None, :],
                                              v_t[..., None, :])
    phi_k = sq.elu_feature_map_np(k_t)
    return out[..., 0, :], state + phi_k[..., :, None] * v_t[..., None, :], z + phi_k
'''),
    (4, "the readout keeps a singleton axis: (..., 1, Dv)", '''
def linear_decode_step(state, z, q_t, k_t, v_t):
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state = state + phi_k[..., :, None] * v_t[..., None, :]
    z = z + phi_k
    num = phi_q[..., None, :] @ state
    return num / (phi_q * z).sum(-1)[..., None, None], state, z
'''),
    # ---- exercise 5: the decoding state of linear attention against a KV cache
    (5, "the KV cache counted over all query heads, not the key/value heads", '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    return (T * (d_head + d_v) * n_layers * n_heads * itemsize,
            (d_head * d_v + d_head) * n_layers * n_kv_heads * itemsize)


def crossover_tokens(d_head, d_v):
    return d_head * (d_v + 1) // (d_head + d_v) + 1
'''),
    (5, "the KV cache without the values", '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    scale = n_layers * n_kv_heads * itemsize
    return T * d_head * scale, (d_head * d_v + d_head) * scale


def crossover_tokens(d_head, d_v):
    return d_head * (d_v + 1) // (d_head + d_v) + 1
'''),
    (5, "values sized d_head: the D != Dv case missed", '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    scale = n_layers * n_kv_heads * itemsize
    return 2 * T * d_head * scale, (d_head * d_v + d_head) * scale


def crossover_tokens(d_head, d_v):
    return d_head * (d_v + 1) // (d_head + d_v) + 1
'''),
    (5, "a linear state per query head", '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    return (T * (d_head + d_v) * n_layers * n_kv_heads * itemsize,
            (d_head * d_v + d_head) * n_layers * n_heads * itemsize)


def crossover_tokens(d_head, d_v):
    return d_head * (d_v + 1) // (d_head + d_v) + 1
'''),
    (5, "the normaliser z forgotten", '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    scale = n_layers * n_kv_heads * itemsize
    return T * (d_head + d_v) * scale, d_head * d_v * scale


def crossover_tokens(d_head, d_v):
    return d_head * d_v // (d_head + d_v) + 1
'''),
    (5, "the linear state counted once per token, as if it were cached", '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    scale = n_layers * n_kv_heads * itemsize
    return T * (d_head + d_v) * scale, T * (d_head * d_v + d_head) * scale


def crossover_tokens(d_head, d_v):
    return d_head * (d_v + 1) // (d_head + d_v) + 1
'''),
    (5, "the item size ignored: float32 assumed", '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    scale = n_layers * n_kv_heads * 4
    return T * (d_head + d_v) * scale, (d_head * d_v + d_head) * scale


def crossover_tokens(d_head, d_v):
    return d_head * (d_v + 1) // (d_head + d_v) + 1
'''),
    (5, "crossover at 'as large as' instead of 'larger than': one token early on a tie", '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    scale = n_layers * n_kv_heads * itemsize
    return T * (d_head + d_v) * scale, (d_head * d_v + d_head) * scale


def crossover_tokens(d_head, d_v):
    return -(-d_head * (d_v + 1) // (d_head + d_v))
'''),
    (5, "crossover from a rounded ratio", '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    scale = n_layers * n_kv_heads * itemsize
    return T * (d_head + d_v) * scale, (d_head * d_v + d_head) * scale


def crossover_tokens(d_head, d_v):
    return round(d_head * (d_v + 1) / (d_head + d_v))
'''),
    # ---- exercise 6: the chunkwise form with a decay
    (6, "no decay at all: the plain chunkwise form of section 11, unnormalised", '''
def decayed_chunkwise(q, k, v, log_gamma, C):
    *batch, L, D = q.shape
    state = np.zeros(tuple(batch) + (D, v.shape[-1]))
    out = np.empty(tuple(batch) + (L, v.shape[-1]))
    for a in range(0, L, C):
        qc, kc, vc = q[..., a:a + C, :], k[..., a:a + C, :], v[..., a:a + C, :]
        n = qc.shape[-2]
        scores = (qc @ kc.swapaxes(-2, -1)) * np.tril(np.ones((n, n)))
        out[..., a:a + C, :] = qc @ state + scores @ vc
        state = state + kc.swapaxes(-2, -1) @ vc
    return out
'''),
    (6, "the previous chunks' state read without decaying it to the query's step", '''
def decayed_chunkwise(q, k, v, log_gamma, C):
    *batch, L, D = q.shape
    state = np.zeros(tuple(batch) + (D, v.shape[-1]))
    out = np.empty(tuple(batch) + (L, v.shape[-1]))
    for a in range(0, L, C):
        qc, kc, vc = q[..., a:a + C, :], k[..., a:a + C, :], v[..., a:a + C, :]
        c = np.cumsum(log_gamma[..., a:a + C], axis=-1)
        n = c.shape[-1]
        diff = c[..., :, None] - c[..., None, :]
        decay = np.exp(np.where(np.tril(np.ones((n, n), bool)), diff, -np.inf))
        out[..., a:a + C, :] = qc @ state + ((qc @ kc.swapaxes(-2, -1)) * decay) @ vc
        to_end = np.exp(c[..., -1:] - c)[..., None]
        state = np.exp(c[..., -1])[..., None, None] * state + (kc * to_end).swapaxes(-2, -1) @ vc
    return out
'''),
    (6, "the chunk's keys added to the state without decaying them to the chunk's end", '''
def decayed_chunkwise(q, k, v, log_gamma, C):
    *batch, L, D = q.shape
    state = np.zeros(tuple(batch) + (D, v.shape[-1]))
    out = np.empty(tuple(batch) + (L, v.shape[-1]))
    for a in range(0, L, C):
        qc, kc, vc = q[..., a:a + C, :], k[..., a:a + C, :], v[..., a:a + C, :]
        c = np.cumsum(log_gamma[..., a:a + C], axis=-1)
        n = c.shape[-1]
        diff = c[..., :, None] - c[..., None, :]
        decay = np.exp(np.where(np.tril(np.ones((n, n), bool)), diff, -np.inf))
        out[..., a:a + C, :] = (np.exp(c)[..., None] * (qc @ state)
                                + ((qc @ kc.swapaxes(-2, -1)) * decay) @ vc)
        state = np.exp(c[..., -1])[..., None, None] * state + kc.swapaxes(-2, -1) @ vc
    return out
'''),
    (6, "the old state carried to the next chunk without the chunk's total decay", '''
def decayed_chunkwise(q, k, v, log_gamma, C):
    *batch, L, D = q.shape
    state = np.zeros(tuple(batch) + (D, v.shape[-1]))
    out = np.empty(tuple(batch) + (L, v.shape[-1]))
    for a in range(0, L, C):
        qc, kc, vc = q[..., a:a + C, :], k[..., a:a + C, :], v[..., a:a + C, :]
        c = np.cumsum(log_gamma[..., a:a + C], axis=-1)
        n = c.shape[-1]
        diff = c[..., :, None] - c[..., None, :]
        decay = np.exp(np.where(np.tril(np.ones((n, n), bool)), diff, -np.inf))
        out[..., a:a + C, :] = (np.exp(c)[..., None] * (qc @ state)
                                + ((qc @ kc.swapaxes(-2, -1)) * decay) @ vc)
        to_end = np.exp(c[..., -1:] - c)[..., None]
        state = state + (kc * to_end).swapaxes(-2, -1) @ vc
    return out
'''),
    (6, "the decay applied after the update: each step's own key decayed once too often", '''
def decayed_chunkwise(q, k, v, log_gamma, C):
    *batch, L, D = q.shape
    state = np.zeros(tuple(batch) + (D, v.shape[-1]))
    out = np.empty(tuple(batch) + (L, v.shape[-1]))
    for a in range(0, L, C):
        qc, kc, vc = q[..., a:a + C, :], k[..., a:a + C, :], v[..., a:a + C, :]
        c = np.cumsum(log_gamma[..., a:a + C], axis=-1)
        n = c.shape[-1]
        diff = c[..., :, None] - c[..., None, :] + log_gamma[..., a:a + C][..., None, :]
        decay = np.exp(np.where(np.tril(np.ones((n, n), bool)), np.minimum(diff, 0), -np.inf))
        out[..., a:a + C, :] = (np.exp(c)[..., None] * (qc @ state)
                                + ((qc @ kc.swapaxes(-2, -1)) * decay) @ vc)
        to_end = np.exp(c[..., -1:] - c + log_gamma[..., a:a + C])[..., None]
        state = np.exp(c[..., -1])[..., None, None] * state + (kc * to_end).swapaxes(-2, -1) @ vc
    return out
'''),
    (6, "cumulative products of the decays, divided: right for mild decays, NaN for strong ones", '''
def decayed_chunkwise(q, k, v, log_gamma, C):
    *batch, L, D = q.shape
    state = np.zeros(tuple(batch) + (D, v.shape[-1]))
    out = np.empty(tuple(batch) + (L, v.shape[-1]))
    for a in range(0, L, C):
        qc, kc, vc = q[..., a:a + C, :], k[..., a:a + C, :], v[..., a:a + C, :]
        p = np.cumprod(np.exp(log_gamma[..., a:a + C]), axis=-1)
        n = p.shape[-1]
        decay = (p[..., :, None] / p[..., None, :]) * np.tril(np.ones((n, n)))
        out[..., a:a + C, :] = p[..., None] * (qc @ state) + ((qc @ kc.swapaxes(-2, -1)) * decay) @ vc
        to_end = (p[..., -1:] / p)[..., None]
        state = p[..., -1][..., None, None] * state + (kc * to_end).swapaxes(-2, -1) @ vc
    return out
'''),
    (6, "exp taken before masking: exp(c_i - c_j) overflows above the diagonal, inf x 0 = NaN", '''
def decayed_chunkwise(q, k, v, log_gamma, C):
    *batch, L, D = q.shape
    state = np.zeros(tuple(batch) + (D, v.shape[-1]))
    out = np.empty(tuple(batch) + (L, v.shape[-1]))
    for a in range(0, L, C):
        qc, kc, vc = q[..., a:a + C, :], k[..., a:a + C, :], v[..., a:a + C, :]
        c = np.cumsum(log_gamma[..., a:a + C], axis=-1)
        n = c.shape[-1]
        decay = np.exp(c[..., :, None] - c[..., None, :]) * np.tril(np.ones((n, n)))
        out[..., a:a + C, :] = (np.exp(c)[..., None] * (qc @ state)
                                + ((qc @ kc.swapaxes(-2, -1)) * decay) @ vc)
        to_end = np.exp(c[..., -1:] - c)[..., None]
        state = np.exp(c[..., -1])[..., None, None] * state + (kc * to_end).swapaxes(-2, -1) @ vc
    return out
'''),
    (6, "the last, shorter chunk skipped: its rows stay zero", '''
def decayed_chunkwise(q, k, v, log_gamma, C):
    *batch, L, D = q.shape
    state = np.zeros(tuple(batch) + (D, v.shape[-1]))
    out = np.zeros(tuple(batch) + (L, v.shape[-1]))
    for a in range(0, L - C + 1, C):
        qc, kc, vc = q[..., a:a + C, :], k[..., a:a + C, :], v[..., a:a + C, :]
        c = np.cumsum(log_gamma[..., a:a + C], axis=-1)
        diff = c[..., :, None] - c[..., None, :]
        decay = np.exp(np.where(np.tril(np.ones((C, C), bool)), diff, -np.inf))
        out[..., a:a + C, :] = (np.exp(c)[..., None] * (qc @ state)
                                + ((qc @ kc.swapaxes(-2, -1)) * decay) @ vc)
        to_end = np.exp(c[..., -1:] - c)[..., None]
        state = np.exp(c[..., -1])[..., None, None] * state + (kc * to_end).swapaxes(-2, -1) @ vc
    return out
'''),
    (6, "the whole L x L decay mask at once (section 14's parallel form): right, not chunked", '''
def decayed_chunkwise(q, k, v, log_gamma, C):
    c = np.cumsum(log_gamma, axis=-1)
    L = c.shape[-1]
    diff = c[..., :, None] - c[..., None, :]
    decay = np.exp(np.where(np.tril(np.ones((L, L), bool)), diff, -np.inf))
    return ((q @ k.swapaxes(-2, -1)) * decay) @ v
'''),
    (6, "hands the work to the chapter's gated_chunkwise_np", '''
def decayed_chunkwise(q, k, v, log_gamma, C):
    return sq.gated_chunkwise_np(q, k, v, C, log_gamma[..., None])[0]
'''),
    # ---- exercise 7: the KV bytes of an interleaved stack
    (7, "only the keys counted", '''
def stack_kv_bytes(T, n_layers, local_per_global, W, n_kv_heads, d_head, itemsize):
    g = n_layers if local_per_global == 0 else n_layers // (local_per_global + 1)
    return n_kv_heads * d_head * itemsize * (g * T + (n_layers - g) * min(T, W))


def global_share(n_layers, local_per_global):
    g = n_layers if local_per_global == 0 else n_layers // (local_per_global + 1)
    return g / n_layers
'''),
    (7, "a window of W keeps W + 1 tokens", '''
def stack_kv_bytes(T, n_layers, local_per_global, W, n_kv_heads, d_head, itemsize):
    g = n_layers if local_per_global == 0 else n_layers // (local_per_global + 1)
    return 2 * n_kv_heads * d_head * itemsize * (g * T + (n_layers - g) * min(T, W + 1))


def global_share(n_layers, local_per_global):
    g = n_layers if local_per_global == 0 else n_layers // (local_per_global + 1)
    return g / n_layers
'''),
    (7, "the groups rounded up: the partial last group given a global layer", '''
def stack_kv_bytes(T, n_layers, local_per_global, W, n_kv_heads, d_head, itemsize):
    g = n_layers if local_per_global == 0 else -(-n_layers // (local_per_global + 1))
    return 2 * n_kv_heads * d_head * itemsize * (g * T + (n_layers - g) * min(T, W))


def global_share(n_layers, local_per_global):
    g = n_layers if local_per_global == 0 else -(-n_layers // (local_per_global + 1))
    return g / n_layers
'''),
    (7, "the global layers capped at W too", '''
def stack_kv_bytes(T, n_layers, local_per_global, W, n_kv_heads, d_head, itemsize):
    return 2 * n_kv_heads * d_head * itemsize * n_layers * min(T, W)


def global_share(n_layers, local_per_global):
    g = n_layers if local_per_global == 0 else n_layers // (local_per_global + 1)
    return g / n_layers
'''),
    (7, "one global layer per local_per_global layers (n / r), not per group of r + 1", '''
def stack_kv_bytes(T, n_layers, local_per_global, W, n_kv_heads, d_head, itemsize):
    g = n_layers if local_per_global == 0 else n_layers // local_per_global
    return 2 * n_kv_heads * d_head * itemsize * (g * T + (n_layers - g) * min(T, W))


def global_share(n_layers, local_per_global):
    g = n_layers if local_per_global == 0 else n_layers // local_per_global
    return g / n_layers
'''),
    (7, "the share as a ratio 1 / (r + 1), ignoring the partial group", '''
def stack_kv_bytes(T, n_layers, local_per_global, W, n_kv_heads, d_head, itemsize):
    g = n_layers if local_per_global == 0 else n_layers // (local_per_global + 1)
    return 2 * n_kv_heads * d_head * itemsize * (g * T + (n_layers - g) * min(T, W))


def global_share(n_layers, local_per_global):
    return 1 / (local_per_global + 1)
'''),
    (7, "local_per_global = 0 read as 'no global layer'", '''
def stack_kv_bytes(T, n_layers, local_per_global, W, n_kv_heads, d_head, itemsize):
    g = 0 if local_per_global == 0 else n_layers // (local_per_global + 1)
    return 2 * n_kv_heads * d_head * itemsize * (g * T + (n_layers - g) * min(T, W))


def global_share(n_layers, local_per_global):
    g = 0 if local_per_global == 0 else n_layers // (local_per_global + 1)
    return g / n_layers
'''),
]

RIGHT = [
    (1, "row by row, min(i + 1, W) keys each (and the mirror for two-sided)", '''
def window_pairs(L, W, causal=True):
    back = sum(min(i + 1, W) for i in range(L))
    if causal:
        return back
    ahead = sum(min(L - 1 - i, W - 1) for i in range(L))
    return back + ahead
'''),
    (1, "cases on W against L", '''
def window_pairs(L, W, causal=True):
    if W >= L:
        one_sided = L * (L + 1) // 2
    else:
        one_sided = W * (W + 1) // 2 - W + (L - W + 1) * W
    return one_sided if causal else 2 * one_sided - L
'''),
    (1, "a fresh attempt: per row, the first and the last key it sees", '''
def window_pairs(L, W, causal=True):
    total = 0
    for i in range(L):
        lo = max(0, i - W + 1)
        hi = i if causal else min(L - 1, i + W - 1)
        total += hi - lo + 1
    return total
'''),
    (4, "a fresh attempt: einsum for the outer product and both sums", '''
def linear_decode_step(state, z, q_t, k_t, v_t):
    fq, fk = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    new_state = state + np.einsum("...d,...e->...de", fk, v_t)
    new_z = z + fk
    out = (np.einsum("...d,...de->...e", fq, new_state)
           / np.einsum("...d,...d->...", fq, new_z)[..., None])
    return out, new_state, new_z
'''),
    (2, "a loop over queries, each scoring its own band", '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    W = back + ahead + 1
    out, band = np.zeros((L, v.shape[1])), np.zeros((L, W))
    for i in range(L):
        lo, hi = max(0, i - back), min(L, i + ahead + 1)
        s = q[i] @ k[lo:hi].T / np.sqrt(D)
        p = np.exp(s - s.max())
        p /= p.sum()
        out[i] = p @ v[lo:hi]
        band[i, lo - (i - back):hi - (i - back)] = p
    return out, band
'''),
    (2, "the stable softmax written out, -inf in the missing slots", '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] + np.arange(-back, ahead + 1)[None, :]
    exists = (idx >= 0) & (idx < L)
    safe = np.where(exists, idx, 0)
    s = np.where(exists, (q[:, None, :] * k[safe]).sum(-1) / np.sqrt(D), -np.inf)
    e = np.exp(s - s.max(-1, keepdims=True))
    band = e / e.sum(-1, keepdims=True)
    return (band[:, :, None] * v[safe]).sum(1), band
'''),
    (3, "the key shift per sequence, the query shift per row, both sums by einsum", '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    qs, ks = q / D**0.25, k / D**0.25
    log_q = qs @ omega.T - 0.5 * (qs**2).sum(-1, keepdims=True)
    log_k = ks @ omega.T - 0.5 * (ks**2).sum(-1, keepdims=True)
    phi_q = np.exp(log_q - log_q.max(axis=-1, keepdims=True))
    phi_k = np.exp(log_k - log_k.max(axis=(-2, -1), keepdims=True))
    num = np.einsum("...lm,...sm,...sv->...lv", phi_q, phi_k, v)
    den = np.einsum("...lm,...sm->...l", phi_q, phi_k)[..., None]
    return num / den
'''),
    (3, "in log space: exact weights from a logsumexp over the features", '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    qs, ks = q / D**0.25, k / D**0.25
    log_q = qs @ omega.T - 0.5 * (qs**2).sum(-1, keepdims=True)
    log_k = ks @ omega.T - 0.5 * (ks**2).sum(-1, keepdims=True)
    pair = log_q[..., :, None, :] + log_k[..., None, :, :]
    top = pair.max(axis=-1, keepdims=True)
    log_w = np.log(np.exp(pair - top).sum(-1)) + top[..., 0]
    w = np.exp(log_w - log_w.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ v
'''),
    (4, "einsum for the outer product, copies for the new state", '''
def linear_decode_step(state, z, q_t, k_t, v_t):
    phi = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    phi_q, phi_k = phi(q_t), phi(k_t)
    state = state.copy()
    state += np.einsum("...m,...v->...mv", phi_k, v_t)
    z = z + phi_k
    out = (phi_q[..., None, :] @ state)[..., 0, :] / (phi_q * z).sum(-1, keepdims=True)
    return out, state, z
'''),
    (5, "per-layer totals, and the crossover by scanning T", '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    cache_per_layer = n_kv_heads * T * d_head + n_kv_heads * T * d_v
    state_per_layer = n_kv_heads * (d_head * d_v + d_head)
    return n_layers * cache_per_layer * itemsize, n_layers * state_per_layer * itemsize


def crossover_tokens(d_head, d_v):
    T = 1
    while T * (d_head + d_v) <= d_head * d_v + d_head:
        T += 1
    return T
'''),
    (6, "decays inside the chunk as one einsum over log-space differences", '''
def decayed_chunkwise(q, k, v, log_gamma, C):
    L, Dv = q.shape[-2], v.shape[-1]
    S = np.zeros(q.shape[:-2] + (q.shape[-1], Dv))
    out = []
    for a in range(0, L, C):
        sl = slice(a, a + C)
        c = np.cumsum(log_gamma[..., sl], -1)
        n = c.shape[-1]
        low = np.tril(np.ones((n, n), bool))
        M = np.where(low, np.exp(np.where(low, c[..., :, None] - c[..., None, :], 0.0)), 0.0)
        A = np.einsum("...id,...jd->...ij", q[..., sl, :], k[..., sl, :]) * M
        out.append(np.exp(c)[..., None] * np.einsum("...id,...dv->...iv", q[..., sl, :], S)
                   + A @ v[..., sl, :])
        w = np.exp(c[..., -1:] - c)
        S = np.exp(c[..., -1])[..., None, None] * S + np.einsum(
            "...j,...jd,...jv->...dv", w, k[..., sl, :], v[..., sl, :])
    return np.concatenate(out, axis=-2)
'''),
    (7, "layer by layer", '''
def stack_kv_bytes(T, n_layers, local_per_global, W, n_kv_heads, d_head, itemsize):
    tokens = 0
    for layer in range(n_layers):
        is_global = local_per_global == 0 or (layer + 1) % (local_per_global + 1) == 0
        tokens += T if is_global else min(T, W)
    return tokens * 2 * n_kv_heads * d_head * itemsize


def global_share(n_layers, local_per_global):
    if local_per_global == 0:
        return 1.0
    return (n_layers // (local_per_global + 1)) / n_layers
'''),
]
