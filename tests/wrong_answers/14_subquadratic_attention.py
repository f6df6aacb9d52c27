"""Wrong answers a learner would plausibly write for chapter 14's exercises."""
WRONG = [
    # ---- exercise 1: how many pairs does a window allow?
    (1, 'every row counted as full: L W, the short rows at the start forgotten', '''
def window_pairs(L, W, causal=True):
    return L * W if causal else L * (2 * W - 1)
'''),
    (1, 'W + 1 keys per row (i - W .. i, the inclusive reading): the off-by-one of section 15', '''
def window_pairs(L, W, causal=True):
    W = min(W + 1, L)
    one_sided = L * W - W * (W - 1) // 2
    return one_sided if causal else 2 * one_sided - L
'''),
    (1, 'the closed form without clipping W: wrong once the window is longer than the sequence', '''
def window_pairs(L, W, causal=True):
    one_sided = L * W - W * (W - 1) // 2
    return one_sided if causal else 2 * one_sided - L
'''),
    (1, 'two-sided as twice the causal count: the diagonal counted twice', '''
def window_pairs(L, W, causal=True):
    W = min(W, L)
    one_sided = L * W - W * (W - 1) // 2
    return one_sided if causal else 2 * one_sided
'''),
    (1, 'two-sided count without the diagonal', '''
def window_pairs(L, W, causal=True):
    W = min(W, L)
    one_sided = L * W - W * (W - 1) // 2
    return one_sided if causal else 2 * one_sided - 2 * L
'''),
    (1, 'causal ignored: always the one-sided count', '''
def window_pairs(L, W, causal=True):
    W = min(W, L)
    return L * W - W * (W - 1) // 2
'''),
    (1, 'a true division: the count comes out as a float', '''
def window_pairs(L, W, causal=True):
    W = min(W, L)
    one_sided = L * W - W * (W - 1) / 2
    return one_sided if causal else 2 * one_sided - L
'''),
    (1, 'counted on an L x L mask built by broadcasting', '''
def window_pairs(L, W, causal=True):
    back = np.arange(L)[:, None] - np.arange(L)[None, :]
    allowed = (back >= 0) & (back < W) if causal else np.abs(back) < W
    return int(allowed.sum())
'''),
    (1, "counted on the chapter's mask", '''
def window_pairs(L, W, causal=True):
    return int(sq.sliding_window_mask_np(L, W, causal).sum())
'''),
    (1, 'row by row, the two-sided rows clipped at L instead of L - 1', '''
def window_pairs(L, W, causal=True):
    total = 0
    for i in range(L):
        hi = i if causal else min(L, i + W - 1)
        total += hi - max(0, i - W + 1) + 1
    return total
'''),
    (1, 'the clip at L - 1 kept from a look-back convention: one key short when W >= L', '''
def window_pairs(L, W, causal=True):
    W = min(W, L - 1)
    one_sided = L * W - W * (W - 1) // 2
    return one_sided if causal else 2 * one_sided - L
'''),
    # ---- exercise 2: attention on a lopsided band
    (2, 'ahead ignored: the causal band of section 3', '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] - back + np.arange(back + ahead + 1)[None, :]
    exists = (idx >= 0) & (idx <= np.arange(L)[:, None])
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D), exists)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, 'back and ahead swapped: slot t holds key i - ahead + t', '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] - ahead + np.arange(back + ahead + 1)[None, :]
    exists = (idx >= 0) & (idx < L)
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D), exists)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, 'only the slots before the start masked: past the end, key L - 1 counted again', '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] - back + np.arange(back + ahead + 1)[None, :]
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D), idx >= 0)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, 'band of back + ahead slots: one key short (an off-by-one on W)', '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] - back + np.arange(back + ahead)[None, :]
    exists = (idx >= 0) & (idx < L)
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D), exists)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, 'the symmetric band of width max(back, ahead)', '''
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
    (2, 'band slots in reverse order (slot t holds key i + ahead - t)', '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] + ahead - np.arange(back + ahead + 1)[None, :]
    exists = (idx >= 0) & (idx < L)
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D), exists)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, 'scores not scaled by 1/sqrt(D)', '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] - back + np.arange(back + ahead + 1)[None, :]
    exists = (idx >= 0) & (idx < L)
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]), exists)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, 'scores scaled by 1/sqrt(Dv) instead of 1/sqrt(D)', '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    idx = np.arange(L)[:, None] - back + np.arange(back + ahead + 1)[None, :]
    exists = (idx >= 0) & (idx < L)
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(v.shape[1]), exists)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, 'softmax without subtracting the row max: overflows for large scores', '''
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
    (2, 'dense masked attention, then the band read off: right values, an L x L array', '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    i, j = np.arange(L)[:, None], np.arange(L)[None, :]
    weights = masked_softmax_np(q @ k.T / np.sqrt(D), (j >= i - back) & (j <= i + ahead))
    idx = i - back + np.arange(back + ahead + 1)[None, :]
    band = np.where((idx >= 0) & (idx < L),
                    np.take_along_axis(weights, np.clip(idx, 0, L - 1), 1), 0.0)
    return weights @ v, band
'''),
    (2, 'the band gathered right, but masked with a full L x L boolean mask', '''
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
    (2, 'the missing slots filled with 0 before the max: NaN once the real scores are all far below 0', '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    W = back + ahead + 1
    idx = np.arange(L)[:, None] - back + np.arange(W)[None, :]
    exists = (idx >= 0) & (idx < L)
    safe = np.clip(idx, 0, L - 1)
    scores = np.where(exists, np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D), 0.0)
    p = np.exp(scores - scores.max(-1, keepdims=True)) * exists
    band = p / p.sum(-1, keepdims=True)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, "right, but q scaled in place by 1/sqrt(D): the caller's q changes", '''
def band_attention(q, k, v, back, ahead):
    L, D = q.shape
    q /= np.sqrt(D)
    W = back + ahead + 1
    idx = np.arange(L)[:, None] - back + np.arange(W)[None, :]
    exists = (idx >= 0) & (idx < L)
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]), exists)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    # ---- exercise 3: a shift that does not cancel
    (3, 'the given code, unchanged: a shift per key row', '''
performer_attention = performer_given
'''),
    (3, 'the key shift removed: right for small inputs, 0/0 once every exponent underflows', '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    q, k = q / D**0.25, k / D**0.25
    log_q = q @ omega.T - 0.5 * (q**2).sum(-1, keepdims=True)
    log_k = k @ omega.T - 0.5 * (k**2).sum(-1, keepdims=True)
    phi_q = np.exp(log_q - log_q.max(axis=-1, keepdims=True))
    phi_k = np.exp(log_k)
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / (phi_q @ phi_k.sum(axis=-2)[..., None])
'''),
    (3, 'one shift for the whole batch: an element at a smaller scale underflows', '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    q, k = q / D**0.25, k / D**0.25
    log_q = q @ omega.T - 0.5 * (q**2).sum(-1, keepdims=True)
    log_k = k @ omega.T - 0.5 * (k**2).sum(-1, keepdims=True)
    phi_q = np.exp(log_q - log_q.max(axis=-1, keepdims=True))
    phi_k = np.exp(log_k - log_k.max())
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / (phi_q @ phi_k.sum(axis=-2)[..., None])
'''),
    (3, 'both shifts global: every element but the largest underflows', '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    q, k = q / D**0.25, k / D**0.25
    log_q = q @ omega.T - 0.5 * (q**2).sum(-1, keepdims=True)
    log_k = k @ omega.T - 0.5 * (k**2).sum(-1, keepdims=True)
    phi_q, phi_k = np.exp(log_q - log_q.max()), np.exp(log_k - log_k.max())
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / (phi_q @ phi_k.sum(axis=-2)[..., None])
'''),
    (3, 'the keys shifted per feature (axis -2): a constant per m does not cancel either', '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    q, k = q / D**0.25, k / D**0.25
    log_q = q @ omega.T - 0.5 * (q**2).sum(-1, keepdims=True)
    log_k = k @ omega.T - 0.5 * (k**2).sum(-1, keepdims=True)
    phi_q = np.exp(log_q - log_q.max(axis=-1, keepdims=True))
    phi_k = np.exp(log_k - log_k.max(axis=-2, keepdims=True))
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / (phi_q @ phi_k.sum(axis=-2)[..., None])
'''),
    (3, 'the per-key shift undone by multiplying back: the unshifted features again', '''
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
    (3, 'fixed, but the normaliser summed over axis 0: right only without batch axes', '''
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
    (3, 'the query shift per sequence, not per row: rows far below the maximum underflow', '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    q, k = q / D**0.25, k / D**0.25
    log_q = q @ omega.T - 0.5 * (q**2).sum(-1, keepdims=True)
    log_k = k @ omega.T - 0.5 * (k**2).sum(-1, keepdims=True)
    phi_q = np.exp(log_q - log_q.max(axis=(-2, -1), keepdims=True))
    phi_k = np.exp(log_k - log_k.max(axis=(-2, -1), keepdims=True))
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / (phi_q @ phi_k.sum(axis=-2)[..., None])
'''),
    # ---- exercise 4: a decoding step in a batch where some sequences wait
    (4, "updated in place (state += ...): the caller's state changes under its feet (waiting ones right)", '''
def _step_all(state, z, q_t, k_t, v_t):
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state += phi_k[..., :, None] * v_t[..., None, :]
    z += phi_k
    num = np.einsum("...m,...mv->...v", phi_q, state)
    return num / np.einsum("...m,...m->...", phi_q, z)[..., None], state, z


def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    state_in, z_in = state.copy(), z.copy()
    out, s_new, z_new = _step_all(state, z, q_t, k_t, v_t)
    out, s_new, z_new = (np.asarray(x) for x in (out, s_new, z_new))
    s_new = np.where(on[..., None, None], s_new, state_in)
    z_new = np.where(on[..., None], z_new, z_in)
    return np.where(on[..., None], np.nan_to_num(out), 0.0), s_new, z_new
'''),
    (4, 'read out before the update: the new token cannot see itself (waiting ones right)', '''
def _step_all(state, z, q_t, k_t, v_t):
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    with np.errstate(invalid="ignore"):
        out = (np.einsum("...m,...mv->...v", phi_q, state)
               / np.maximum(np.einsum("...m,...m->...", phi_q, z), 1e-300)[..., None])
    return out, state + phi_k[..., :, None] * v_t[..., None, :], z + phi_k


def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    state_in, z_in = state.copy(), z.copy()
    out, s_new, z_new = _step_all(state, z, q_t, k_t, v_t)
    out, s_new, z_new = (np.asarray(x) for x in (out, s_new, z_new))
    s_new = np.where(on[..., None, None], s_new, state_in)
    z_new = np.where(on[..., None], z_new, z_in)
    return np.where(on[..., None], np.nan_to_num(out), 0.0), s_new, z_new
'''),
    (4, 'np.outer for the update: it flattens the batch axes (waiting ones right)', '''
def _step_all(state, z, q_t, k_t, v_t):
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state = state + np.outer(phi_k, v_t)
    z = z + phi_k
    return (phi_q @ state) / (phi_q @ z), state, z


def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    state_in, z_in = state.copy(), z.copy()
    out, s_new, z_new = _step_all(state, z, q_t, k_t, v_t)
    out, s_new, z_new = (np.asarray(x) for x in (out, s_new, z_new))
    s_new = np.where(on[..., None, None], s_new, state_in)
    z_new = np.where(on[..., None], z_new, z_in)
    return np.where(on[..., None], np.nan_to_num(out), 0.0), s_new, z_new
'''),
    (4, 'the state laid out as (..., Dv, D) (waiting ones right)', '''
def _step_all(state, z, q_t, k_t, v_t):
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state = np.swapaxes(state, -2, -1) + v_t[..., :, None] * phi_k[..., None, :]
    z = z + phi_k
    num = np.einsum("...m,...vm->...v", phi_q, state)
    return num / np.einsum("...m,...m->...", phi_q, z)[..., None], state, z


def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    state_in, z_in = state.copy(), z.copy()
    out, s_new, z_new = _step_all(state, z, q_t, k_t, v_t)
    out, s_new, z_new = (np.asarray(x) for x in (out, s_new, z_new))
    s_new = np.where(on[..., None, None], s_new, state_in)
    z_new = np.where(on[..., None], z_new, z_in)
    return np.where(on[..., None], np.nan_to_num(out), 0.0), s_new, z_new
'''),
    (4, 'raw q in the readout instead of phi(q) (waiting ones right)', '''
def _step_all(state, z, q_t, k_t, v_t):
    phi_k = sq.elu_feature_map_np(k_t)
    state = state + phi_k[..., :, None] * v_t[..., None, :]
    z = z + phi_k
    num = np.einsum("...m,...mv->...v", q_t, state)
    return num / np.einsum("...m,...m->...", q_t, z)[..., None], state, z


def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    state_in, z_in = state.copy(), z.copy()
    out, s_new, z_new = _step_all(state, z, q_t, k_t, v_t)
    out, s_new, z_new = (np.asarray(x) for x in (out, s_new, z_new))
    s_new = np.where(on[..., None, None], s_new, state_in)
    z_new = np.where(on[..., None], z_new, z_in)
    return np.where(on[..., None], np.nan_to_num(out), 0.0), s_new, z_new
'''),
    (4, 'no normaliser: the running sum of values is not an average (waiting ones right)', '''
def _step_all(state, z, q_t, k_t, v_t):
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state = state + phi_k[..., :, None] * v_t[..., None, :]
    return np.einsum("...m,...mv->...v", phi_q, state), state, z + phi_k


def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    state_in, z_in = state.copy(), z.copy()
    out, s_new, z_new = _step_all(state, z, q_t, k_t, v_t)
    out, s_new, z_new = (np.asarray(x) for x in (out, s_new, z_new))
    s_new = np.where(on[..., None, None], s_new, state_in)
    z_new = np.where(on[..., None], z_new, z_in)
    return np.where(on[..., None], np.nan_to_num(out), 0.0), s_new, z_new
'''),
    (4, 'z accumulates the raw keys, not their features (waiting ones right)', '''
def _step_all(state, z, q_t, k_t, v_t):
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state = state + phi_k[..., :, None] * v_t[..., None, :]
    z = z + k_t
    num = np.einsum("...m,...mv->...v", phi_q, state)
    return num / np.einsum("...m,...m->...", phi_q, z)[..., None], state, z


def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    state_in, z_in = state.copy(), z.copy()
    out, s_new, z_new = _step_all(state, z, q_t, k_t, v_t)
    out, s_new, z_new = (np.asarray(x) for x in (out, s_new, z_new))
    s_new = np.where(on[..., None, None], s_new, state_in)
    z_new = np.where(on[..., None], z_new, z_in)
    return np.where(on[..., None], np.nan_to_num(out), 0.0), s_new, z_new
'''),
    (4, "the softmax's 1/sqrt(D) put into the features (waiting ones right)", '''
def _step_all(state, z, q_t, k_t, v_t):
    D = q_t.shape[-1]
    phi_q, phi_k = sq.elu_feature_map_np(q_t / D**0.5), sq.elu_feature_map_np(k_t)
    state = state + phi_k[..., :, None] * v_t[..., None, :]
    z = z + phi_k
    num = np.einsum("...m,...mv->...v", phi_q, state)
    return num / np.einsum("...m,...m->...", phi_q, z)[..., None], state, z


def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    state_in, z_in = state.copy(), z.copy()
    out, s_new, z_new = _step_all(state, z, q_t, k_t, v_t)
    out, s_new, z_new = (np.asarray(x) for x in (out, s_new, z_new))
    s_new = np.where(on[..., None, None], s_new, state_in)
    z_new = np.where(on[..., None], z_new, z_in)
    return np.where(on[..., None], np.nan_to_num(out), 0.0), s_new, z_new
'''),
    (4, "the chapter's recurrent function run on the one token (waiting ones right)", '''
def _step_all(state, z, q_t, k_t, v_t):
    out, _ = sq.linear_attention_recurrent_np(q_t[..., None, :], k_t[..., None, :],
                                              v_t[..., None, :])
    phi_k = sq.elu_feature_map_np(k_t)
    return out[..., 0, :], state + phi_k[..., :, None] * v_t[..., None, :], z + phi_k


def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    state_in, z_in = state.copy(), z.copy()
    out, s_new, z_new = _step_all(state, z, q_t, k_t, v_t)
    out, s_new, z_new = (np.asarray(x) for x in (out, s_new, z_new))
    s_new = np.where(on[..., None, None], s_new, state_in)
    z_new = np.where(on[..., None], z_new, z_in)
    return np.where(on[..., None], np.nan_to_num(out), 0.0), s_new, z_new
'''),
    (4, 'the readout keeps a singleton axis: (..., 1, Dv) (waiting ones right)', '''
def _step_all(state, z, q_t, k_t, v_t):
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state = state + phi_k[..., :, None] * v_t[..., None, :]
    z = z + phi_k
    num = phi_q[..., None, :] @ state
    return num / (phi_q * z).sum(-1)[..., None, None], state, z


def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    state_in, z_in = state.copy(), z.copy()
    out, s_new, z_new = _step_all(state, z, q_t, k_t, v_t)
    out, s_new, z_new = (np.asarray(x) for x in (out, s_new, z_new))
    s_new = np.where(on[..., None, None], s_new, state_in)
    z_new = np.where(on[..., None], z_new, z_in)
    return np.where(on[..., None], np.nan_to_num(out), 0.0), s_new, z_new
'''),
    (4, 'active ignored: every sequence takes the token', '''
def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state = state + phi_k[..., :, None] * v_t[..., None, :]
    z = z + phi_k
    num = np.einsum("...m,...mv->...v", phi_q, state)
    den = np.einsum("...m,...m->...", phi_q, z)[..., None]
    return num / den, state, z
'''),
    (4, "the waiting sequences' state kept, but their output read out anyway", '''
def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    phi_k = np.where(on[..., None], phi_k, 0.0)
    state = state + phi_k[..., :, None] * v_t[..., None, :]
    z = z + phi_k
    num = np.einsum("...m,...mv->...v", phi_q, state)
    den = np.einsum("...m,...m->...", phi_q, z)[..., None]
    with np.errstate(invalid='ignore'):
        out = num / den
    return np.where(den > 0, out, 0.0), state, z
'''),
    (4, 'the output masked by multiplying: 0 * (0/0) is NaN for a sequence never active', '''
def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    phi_k = np.where(on[..., None], phi_k, 0.0)
    state = state + phi_k[..., :, None] * v_t[..., None, :]
    z = z + phi_k
    num = np.einsum("...m,...mv->...v", phi_q, state)
    den = np.einsum("...m,...m->...", phi_q, z)[..., None]
    with np.errstate(invalid='ignore'):
        return on[..., None] * (num / den), state, z
'''),
    (4, 'the state frozen for waiting sequences, but z still updated', '''
def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state = state + np.where(on[..., None], phi_k, 0.0)[..., :, None] * v_t[..., None, :]
    z = z + phi_k
    num = np.einsum("...m,...mv->...v", phi_q, state)
    den = np.einsum("...m,...m->...", phi_q, z)[..., None]
    read = on[..., None] & (den > 0)
    return np.where(read, num / np.where(read, den, 1.0), 0.0), state, z
'''),
    (4, 'the active sequences updated in place with a boolean index', '''
def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state[on] += phi_k[on][..., :, None] * v_t[on][..., None, :]
    z[on] += phi_k[on]
    num = np.einsum("...m,...mv->...v", phi_q, state)
    den = np.einsum("...m,...m->...", phi_q, z)[..., None]
    read = on[..., None] & (den > 0)
    return np.where(read, num / np.where(read, den, 1.0), 0.0), state, z
'''),
    (4, 'a waiting sequence gets the previous output, recomputed, instead of 0', '''
def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    phi_k = np.where(on[..., None], phi_k, 0.0)
    state = state + phi_k[..., :, None] * v_t[..., None, :]
    z = z + phi_k
    num = np.einsum("...m,...mv->...v", phi_q, state)
    den = np.einsum("...m,...m->...", phi_q, z)[..., None]
    with np.errstate(invalid='ignore'):
        out = np.nan_to_num(num / den)
    return out, state, z
'''),
    # ---- exercise 5: the decoding state of linear attention against a KV cache
    (5, 'the KV cache counted over all query heads, not the key/value heads', '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    return (T * (d_head + d_v) * n_layers * n_heads * itemsize,
            (d_head * d_v + d_head) * n_layers * n_kv_heads * itemsize)


def crossover_tokens(d_head, d_v):
    return d_head * (d_v + 1) // (d_head + d_v) + 1
'''),
    (5, 'the KV cache without the values', '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    scale = n_layers * n_kv_heads * itemsize
    return T * d_head * scale, (d_head * d_v + d_head) * scale


def crossover_tokens(d_head, d_v):
    return d_head * (d_v + 1) // (d_head + d_v) + 1
'''),
    (5, 'values sized d_head: the D != Dv case missed', '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    scale = n_layers * n_kv_heads * itemsize
    return 2 * T * d_head * scale, (d_head * d_v + d_head) * scale


def crossover_tokens(d_head, d_v):
    return d_head * (d_v + 1) // (d_head + d_v) + 1
'''),
    (5, 'a linear state per query head', '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    return (T * (d_head + d_v) * n_layers * n_kv_heads * itemsize,
            (d_head * d_v + d_head) * n_layers * n_heads * itemsize)


def crossover_tokens(d_head, d_v):
    return d_head * (d_v + 1) // (d_head + d_v) + 1
'''),
    (5, 'the normaliser z forgotten', '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    scale = n_layers * n_kv_heads * itemsize
    return T * (d_head + d_v) * scale, d_head * d_v * scale


def crossover_tokens(d_head, d_v):
    return d_head * d_v // (d_head + d_v) + 1
'''),
    (5, 'the linear state counted once per token, as if it were cached', '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    scale = n_layers * n_kv_heads * itemsize
    return T * (d_head + d_v) * scale, T * (d_head * d_v + d_head) * scale


def crossover_tokens(d_head, d_v):
    return d_head * (d_v + 1) // (d_head + d_v) + 1
'''),
    (5, 'the item size ignored: float32 assumed', '''
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
    (5, 'crossover from a rounded ratio', '''
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    scale = n_layers * n_kv_heads * itemsize
    return T * (d_head + d_v) * scale, (d_head * d_v + d_head) * scale


def crossover_tokens(d_head, d_v):
    return round(d_head * (d_v + 1) / (d_head + d_v))
'''),
    # ---- exercise 6: a decay in both directions
    (6, 'the causal part only: the keys after i forgotten', '''
def bidirectional_decayed(q, k, v, log_gamma, C):
    return sq.gated_chunkwise_np(q, k, v, C, log_gamma[..., None])[0]
'''),
    (6, 'the diagonal counted twice, once in each direction', '''
def bidirectional_decayed(q, k, v, log_gamma, C):
    fwd, _ = sq.gated_chunkwise_np(q, k, v, C, log_gamma[..., None])
    back = np.zeros(log_gamma.shape)
    back[..., 1:] = log_gamma[..., :0:-1]
    rev = lambda x: x[..., ::-1, :]
    bwd, _ = sq.gated_chunkwise_np(rev(q), rev(k), rev(v), C, back[..., None])
    diag = (q * k).sum(-1, keepdims=True) * v
    return fwd + rev(bwd)
'''),
    (6, 'the gates reversed without the shift: gamma_i .. gamma_{j-1} backwards', '''
def bidirectional_decayed(q, k, v, log_gamma, C):
    fwd, _ = sq.gated_chunkwise_np(q, k, v, C, log_gamma[..., None])
    back = log_gamma[..., ::-1]
    rev = lambda x: x[..., ::-1, :]
    bwd, _ = sq.gated_chunkwise_np(rev(q), rev(k), rev(v), C, back[..., None])
    diag = (q * k).sum(-1, keepdims=True) * v
    return fwd + rev(bwd) - diag
'''),
    (6, 'the gates shifted the wrong way before reversing', '''
def bidirectional_decayed(q, k, v, log_gamma, C):
    fwd, _ = sq.gated_chunkwise_np(q, k, v, C, log_gamma[..., None])
    back = np.zeros(log_gamma.shape)
    back[..., :-1] = log_gamma[..., :0:-1]
    rev = lambda x: x[..., ::-1, :]
    bwd, _ = sq.gated_chunkwise_np(rev(q), rev(k), rev(v), C, back[..., None])
    diag = (q * k).sum(-1, keepdims=True) * v
    return fwd + rev(bwd) - diag
'''),
    (6, 'the backward part not reversed back: output rows in the wrong order', '''
def bidirectional_decayed(q, k, v, log_gamma, C):
    fwd, _ = sq.gated_chunkwise_np(q, k, v, C, log_gamma[..., None])
    back = np.zeros(log_gamma.shape)
    back[..., 1:] = log_gamma[..., :0:-1]
    rev = lambda x: x[..., ::-1, :]
    bwd, _ = sq.gated_chunkwise_np(rev(q), rev(k), rev(v), C, back[..., None])
    diag = (q * k).sum(-1, keepdims=True) * v
    return fwd + bwd - diag
'''),
    (6, 'the backward part run on the original order with the same gates', '''
def bidirectional_decayed(q, k, v, log_gamma, C):
    fwd, _ = sq.gated_chunkwise_np(q, k, v, C, log_gamma[..., None])
    back = log_gamma
    rev = lambda x: x[..., ::-1, :]
    bwd, _ = sq.gated_chunkwise_np(q, k, v, C, back[..., None])
    diag = (q * k).sum(-1, keepdims=True) * v
    return fwd + bwd - diag
'''),
    (6, "gamma_0 set to 1 in place (it is never used): the caller's log_gamma changes", '''
def bidirectional_decayed(q, k, v, log_gamma, C):
    fwd, _ = sq.gated_chunkwise_np(q, k, v, C, log_gamma[..., None])
    log_gamma[..., 0] = 0.0
    back = np.zeros(log_gamma.shape)
    back[..., 1:] = log_gamma[..., :0:-1]
    rev = lambda x: x[..., ::-1, :]
    bwd, _ = sq.gated_chunkwise_np(rev(q), rev(k), rev(v), C, back[..., None])
    diag = (q * k).sum(-1, keepdims=True) * v
    return fwd + rev(bwd) - diag
'''),
    (6, 'the two-sided weights written out: an L x L array', '''
def bidirectional_decayed(q, k, v, log_gamma, C):
    c = np.cumsum(log_gamma, axis=-1)
    w = np.exp(-np.abs(c[..., :, None] - c[..., None, :]))
    return (w * (q @ k.swapaxes(-2, -1))) @ v
'''),
    (6, "the chapter's L x L decayed form, once each way", '''
def bidirectional_decayed(q, k, v, log_gamma, C):
    fwd, _ = sq.decayed_attention_np(q, k, v, log_gamma)
    back = np.zeros(log_gamma.shape)
    back[..., 1:] = log_gamma[..., :0:-1]
    bwd, _ = sq.decayed_attention_np(q[..., ::-1, :], k[..., ::-1, :], v[..., ::-1, :], back)
    return fwd + bwd[..., ::-1, :] - (q * k).sum(-1, keepdims=True) * v
'''),
    (6, 'cumulative products of the decays, divided: NaN once they underflow', '''
def bidirectional_decayed(q, k, v, log_gamma, C):
    L = q.shape[-2]
    g = np.cumprod(np.exp(log_gamma), axis=-1)
    out = np.zeros(q.shape[:-1] + (v.shape[-1],))
    for a in range(0, L, C):
        qa = q[..., a:a + C, :]
        ga = g[..., a:a + C]
        for b in range(0, L, C):
            gb = g[..., b:b + C]
            ratio = np.where(np.arange(a, a + qa.shape[-2])[:, None]
                             >= np.arange(b, b + gb.shape[-1])[None, :],
                             ga[..., :, None] / gb[..., None, :],
                             gb[..., None, :] / ga[..., :, None])
            kb, vb = k[..., b:b + C, :], v[..., b:b + C, :]
            out[..., a:a + C, :] += (ratio * (qa @ kb.swapaxes(-2, -1))) @ vb
    return out
'''),
    # ---- exercise 7: from how many tokens does an interleaved stack pay?
    (7, 'int(x) + 1 as the ceiling: one token late when x is whole', '''
def tokens_for_share(n_layers, local_per_global, W, percent):
    n_global = n_layers if local_per_global == 0 else n_layers // (local_per_global + 1)
    n_local = n_layers - n_global
    if percent >= 100:
        return 1
    room = percent * n_layers - 100 * n_global
    if room <= 0:
        return None
    return int(100 * n_local * W / room) + 1
'''),
    (7, 'a floor division where the ceiling was needed', '''
def tokens_for_share(n_layers, local_per_global, W, percent):
    n_global = n_layers if local_per_global == 0 else n_layers // (local_per_global + 1)
    n_local = n_layers - n_global
    if percent >= 100:
        return 1
    room = percent * n_layers - 100 * n_global
    if room <= 0:
        return None
    return 100 * n_local * W // room
'''),
    (7, 'a true division: a float number of tokens', '''
def tokens_for_share(n_layers, local_per_global, W, percent):
    n_global = n_layers if local_per_global == 0 else n_layers // (local_per_global + 1)
    n_local = n_layers - n_global
    if percent >= 100:
        return 1
    room = percent * n_layers - 100 * n_global
    if room <= 0:
        return None
    return 100 * n_local * W / room
'''),
    (7, 'the floor itself taken as reachable: room < 0 instead of room <= 0', '''
def tokens_for_share(n_layers, local_per_global, W, percent):
    n_global = n_layers if local_per_global == 0 else n_layers // (local_per_global + 1)
    n_local = n_layers - n_global
    if percent >= 100:
        return 1
    room = percent * n_layers - 100 * n_global
    if room < 0:
        return None
    return -(-100 * n_local * W // room)
'''),
    (7, 'the groups rounded up: the partial last group given a global layer', '''
def tokens_for_share(n_layers, local_per_global, W, percent):
    n_global = n_layers if local_per_global == 0 else -(-n_layers // (local_per_global + 1))
    n_local = n_layers - n_global
    if percent >= 100:
        return 1
    room = percent * n_layers - 100 * n_global
    if room <= 0:
        return None
    return -(-100 * n_local * W // room)
'''),
    (7, "local_per_global = 0 read as 'no global layer'", '''
def tokens_for_share(n_layers, local_per_global, W, percent):
    n_global = 0 if local_per_global == 0 else n_layers // (local_per_global + 1)
    n_local = n_layers - n_global
    if percent >= 100:
        return 1
    room = percent * n_layers - 100 * n_global
    if room <= 0:
        return None
    return -(-100 * n_local * W // room)
'''),
    (7, 'one global layer per local_per_global layers (n / r), not per group of r + 1', '''
def tokens_for_share(n_layers, local_per_global, W, percent):
    n_global = n_layers if local_per_global == 0 else n_layers // local_per_global
    n_local = n_layers - n_global
    if percent >= 100:
        return 1
    room = percent * n_layers - 100 * n_global
    if room <= 0:
        return None
    return -(-100 * n_local * W // room)
'''),
    (7, 'a window of W keeps W + 1 tokens', '''
def tokens_for_share(n_layers, local_per_global, W, percent):
    n_global = n_layers if local_per_global == 0 else n_layers // (local_per_global + 1)
    n_local = n_layers - n_global
    if percent >= 100:
        return 1
    room = percent * n_layers - 100 * n_global
    if room <= 0:
        return None
    return -(-100 * n_local * (W + 1) // room)
'''),
    (7, '100% not special: the formula gives W, but a single token already qualifies', '''
def tokens_for_share(n_layers, local_per_global, W, percent):
    n_global = n_layers if local_per_global == 0 else n_layers // (local_per_global + 1)
    room = percent * n_layers - 100 * n_global
    if room <= 0:
        return None
    return -(-100 * (n_layers - n_global) * W // room)
'''),
    (7, 'a search one token at a time, capped at 100,000 tokens', '''
def tokens_for_share(n_layers, local_per_global, W, percent):
    for T in range(1, 10**5):
        mine = sq.interleaved_kv_bytes(T, n_layers, local_per_global, W, 1, 1, 1)
        if 100 * mine <= percent * sq.interleaved_kv_bytes(T, n_layers, 0, W, 1, 1, 1):
            return T
    return None
'''),
]
RIGHT = [
    # ---- exercise 1: how many pairs does a window allow?
    (1, 'row by row, min(i + 1, W) keys each (and the mirror for two-sided)', '''
def window_pairs(L, W, causal=True):
    back = sum(min(i + 1, W) for i in range(L))
    if causal:
        return back
    ahead = sum(min(L - 1 - i, W - 1) for i in range(L))
    return back + ahead
'''),
    (1, 'cases on W against L', '''
def window_pairs(L, W, causal=True):
    if W >= L:
        one_sided = L * (L + 1) // 2
    else:
        one_sided = W * (W + 1) // 2 - W + (L - W + 1) * W
    return one_sided if causal else 2 * one_sided - L
'''),
    (1, 'a fresh attempt: per row, the first and the last key it sees', '''
def window_pairs(L, W, causal=True):
    total = 0
    for i in range(L):
        lo = max(0, i - W + 1)
        hi = i if causal else min(L - 1, i + W - 1)
        total += hi - lo + 1
    return total
'''),
    # ---- exercise 2: attention on a lopsided band
    (2, 'a loop over queries, each scoring its own band', '''
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
    (2, 'the stable softmax written out, -inf in the missing slots', '''
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
    # ---- exercise 3: a shift that does not cancel
    (3, 'the key shift per sequence, the query shift per row, both sums by einsum', '''
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
    (3, 'in log space: exact weights from a logsumexp over the features', '''
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
    # ---- exercise 4: a decoding step in a batch where some sequences wait
    (4, 'a fresh attempt: einsum for the outer product and both sums', '''
def _step_all(state, z, q_t, k_t, v_t):
    fq, fk = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    new_state = state + np.einsum("...d,...e->...de", fk, v_t)
    new_z = z + fk
    out = (np.einsum("...d,...de->...e", fq, new_state)
           / np.einsum("...d,...d->...", fq, new_z)[..., None])
    return out, new_state, new_z


def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    state_in, z_in = state.copy(), z.copy()
    out, s_new, z_new = _step_all(state, z, q_t, k_t, v_t)
    out, s_new, z_new = (np.asarray(x) for x in (out, s_new, z_new))
    s_new = np.where(on[..., None, None], s_new, state_in)
    z_new = np.where(on[..., None], z_new, z_in)
    return np.where(on[..., None], np.nan_to_num(out), 0.0), s_new, z_new
'''),
    (4, 'einsum for the outer product, copies for the new state', '''
def _step_all(state, z, q_t, k_t, v_t):
    phi = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    phi_q, phi_k = phi(q_t), phi(k_t)
    state = state.copy()
    state += np.einsum("...m,...v->...mv", phi_k, v_t)
    z = z + phi_k
    out = (phi_q[..., None, :] @ state)[..., 0, :] / (phi_q * z).sum(-1, keepdims=True)
    return out, state, z


def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    state_in, z_in = state.copy(), z.copy()
    out, s_new, z_new = _step_all(state, z, q_t, k_t, v_t)
    out, s_new, z_new = (np.asarray(x) for x in (out, s_new, z_new))
    s_new = np.where(on[..., None, None], s_new, state_in)
    z_new = np.where(on[..., None], z_new, z_in)
    return np.where(on[..., None], np.nan_to_num(out), 0.0), s_new, z_new
'''),
    (4, 'copies, then the active sequences updated with a boolean index', '''
def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.broadcast_to(np.asarray(active, bool), state.shape[:-2])
    state, z = state.copy(), z.copy()
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state[on] += phi_k[on][..., :, None] * v_t[on][..., None, :]
    z[on] += phi_k[on]
    out = np.zeros(v_t.shape)
    num = np.einsum("...m,...mv->...v", phi_q[on], state[on])
    out[on] = num / np.einsum("...m,...m->...", phi_q[on], z[on])[..., None]
    return out, state, z
'''),
    # ---- exercise 5: the decoding state of linear attention against a KV cache
    (5, 'per-layer totals, and the crossover by scanning T', '''
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
    # ---- exercise 6: a decay in both directions
    (6, 'both directions as step-by-step recurrences: O(D Dv) memory', '''
def bidirectional_decayed(q, k, v, log_gamma, C):
    L = q.shape[-2]
    g = np.exp(log_gamma)
    out = np.zeros(q.shape[:-1] + (v.shape[-1],))
    S = np.zeros(q.shape[:-2] + (q.shape[-1], v.shape[-1]))
    for t in range(L):
        S = g[..., t, None, None] * S + k[..., t, :, None] * v[..., t, None, :]
        out[..., t, :] += np.einsum("...d,...dv->...v", q[..., t, :], S)
    S = np.zeros_like(S)
    for t in range(L - 1, -1, -1):
        if t < L - 1:
            S = g[..., t + 1, None, None] * S
        S = S + k[..., t, :, None] * v[..., t, None, :]
        out[..., t, :] += np.einsum("...d,...dv->...v", q[..., t, :], S)
    return out - (q * k).sum(-1, keepdims=True) * v
'''),
    (6, 'np.flip and np.roll for the backward gates', '''
def bidirectional_decayed(q, k, v, log_gamma, C):
    fwd, _ = sq.gated_chunkwise_np(q, k, v, C, log_gamma[..., None])
    back = np.roll(np.flip(log_gamma, -1), 1, axis=-1)
    back[..., 0] = 0.0
    rev = lambda x: x[..., ::-1, :]
    bwd, _ = sq.gated_chunkwise_np(rev(q), rev(k), rev(v), C, back[..., None])
    diag = (q * k).sum(-1, keepdims=True) * v
    return fwd + rev(bwd) - diag
'''),
    (6, "the backward part's diagonal left out instead of subtracted", '''
def bidirectional_decayed(q, k, v, log_gamma, C):
    fwd, _ = sq.gated_chunkwise_np(q, k, v, C, log_gamma[..., None])
    back = np.concatenate([np.zeros(log_gamma.shape[:-1] + (1,)), log_gamma[..., :0:-1]], -1)
    qr, kr, vr = q[..., ::-1, :], k[..., ::-1, :], v[..., ::-1, :]
    full, _ = sq.gated_chunkwise_np(qr, kr, vr, C, back[..., None])
    return fwd + full[..., ::-1, :] - np.einsum("...d,...d->...", q, k)[..., None] * v
'''),
    # ---- exercise 7: from how many tokens does an interleaved stack pay?
    (7, 'math.ceil of a true division (exact enough below 2**53)', '''
import math


def tokens_for_share(n_layers, local_per_global, W, percent):
    n_global = n_layers if local_per_global == 0 else n_layers // (local_per_global + 1)
    if percent >= 100:
        return 1
    room = percent * n_layers - 100 * n_global
    return None if room <= 0 else math.ceil(100 * (n_layers - n_global) * W / room)
'''),
    (7, 'a bisection on interleaved_kv_bytes, after the floor test', '''
def tokens_for_share(n_layers, local_per_global, W, percent):
    ok = lambda T: 100 * sq.interleaved_kv_bytes(T, n_layers, local_per_global, W, 1, 1, 1) \
        <= percent * sq.interleaved_kv_bytes(T, n_layers, 0, W, 1, 1, 1)
    if not ok(10**40):
        return None
    lo, hi = 0, 10**40
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi
'''),
    (7, 'exact fractions and math.ceil, the layers counted one by one', '''
from fractions import Fraction
import math


def tokens_for_share(n_layers, local_per_global, W, percent):
    g = sum(local_per_global == 0 or (i + 1) % (local_per_global + 1) == 0
            for i in range(n_layers))
    if percent >= 100:
        return 1
    p = Fraction(percent, 100)
    if p <= Fraction(g, n_layers):
        return None
    return math.ceil(Fraction((n_layers - g) * W) / (p * n_layers - g))
'''),
]

# ---- third reader's pass
_PERF = '''
def performer_attention(q, k, v, omega):
    D = q.shape[-1]
    q, k = q * SCALE, k * SCALE
    log_q = q @ omega.T - 0.5 * (q**2).sum(-1, keepdims=True)
    log_k = k @ omega.T - 0.5 * (k**2).sum(-1, keepdims=True)
    phi_q = np.exp(log_q - log_q.max(axis=-1, keepdims=True))DTYPE
    phi_k = np.exp(log_k - log_k.max(axis=(-2, -1), keepdims=True))DTYPE
    kv = phi_k.swapaxes(-2, -1) @ v
    z = phi_k.sum(axis=-2)[..., None]
    return (phi_q @ kv) / (phi_q @ z)
'''
_STEP = '''
def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    a = on.astype(float)
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    state = STATE
    z = ZED
    num = np.einsum("...m,...mv->...v", phi_q, state)
    den = np.einsum("...m,...m->...", phi_q, z)[..., None]
    read = on[..., None] & (den > 0)
    return np.where(read, num / np.where(read, den, 1.0), 0.0), state, z
'''
_BI = '''
def bidirectional_decayed(q, k, v, log_gamma, C):
    fwd, _ = sq.gated_chunkwise_np(q, k, v, C, log_gamma[..., None])
    back = np.zeros(log_gamma.shape)
    back[..., 1:] = log_gamma[..., :0:-1]
    rev = lambda x: x[..., ::-1, :]
    bwd, _ = sq.gated_chunkwise_np(rev(q), rev(k), VB, C, back[..., None])
    diag = DIAG
    return fwd + rev(bwd) - diag
'''
WRONG += [
    (3, "q and k each scaled by D^(-1/2): the kernel becomes exp(q.k / D)",
     _PERF.replace("SCALE", "D**-0.5").replace("DTYPE", "")),
    (3, "the features kept in float32: a gap of about 1e-7",
     _PERF.replace("SCALE", "D**-0.25").replace("DTYPE", ".astype(np.float32)")),
    (4, "waiting sequences masked by multiplying by 0: a NaN or inf token makes the state NaN",
     _STEP.replace("STATE", "state + a[..., None, None] * (phi_k[..., :, None] * v_t[..., None, :])")
     .replace("ZED", "z + a[..., None] * phi_k")),
    (4, "the state and z kept in float32",
     _STEP.replace("STATE", "(state + np.where(on[..., None, None], phi_k[..., :, None] * "
                   "v_t[..., None, :], 0.0)).astype(np.float32)")
     .replace("ZED", "(z + np.where(on[..., None], phi_k, 0.0)).astype(np.float32)")),
    (6, "the values not read backwards with their keys",
     _BI.replace("VB", "v").replace("DIAG", "(q * k).sum(-1, keepdims=True) * v")),
    (6, "the diagonal term subtracted without its value: (q_i . k_i) alone",
     _BI.replace("VB", "rev(v)").replace("DIAG", "(q * k).sum(-1, keepdims=True)")),
]
WRONG += [
    (4, 'the update multiplied by a 0/1 mask: a NaN token of a waiting sequence spoils its state', '''
def linear_decode_step(state, z, q_t, k_t, v_t, active):
    on = np.asarray(active, bool)
    phi_q, phi_k = sq.elu_feature_map_np(q_t), sq.elu_feature_map_np(k_t)
    w = on[..., None].astype(float)
    state = state + (w * phi_k)[..., :, None] * v_t[..., None, :]
    z = z + w * phi_k
    num = np.einsum("...m,...mv->...v", phi_q, state)
    den = np.einsum("...m,...m->...", phi_q, z)[..., None]
    out = np.zeros(num.shape)
    np.divide(num, den, out=out, where=on[..., None] & (den > 0))
    return out, state, z
'''),
]
WRONG += [
    (5, "the state right, but crossover_tokens leaves z out: T (dh + dv) > dh dv", """
def decode_state_bytes(T, n_layers, n_heads, n_kv_heads, d_head, d_v, itemsize):
    scale = n_layers * n_kv_heads * itemsize
    return T * (d_head + d_v) * scale, (d_head * d_v + d_head) * scale


def crossover_tokens(d_head, d_v):
    return d_head * d_v // (d_head + d_v) + 1
"""),
    (6, "q, k, v read backwards, but the decays left in their forward order",
     _BI.replace("VB", "rev(v)").replace("DIAG", "(q * k).sum(-1, keepdims=True) * v")
     .replace("back[..., 1:] = log_gamma[..., :0:-1]", "back = log_gamma")),
]
