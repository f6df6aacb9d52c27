"""Wrong answers a learner would plausibly write for chapter 13's exercises."""
WRONG = [
    # ---- exercise 1: the online softmax of a masked stream
    (1, "the chapter's update copied without a guard: NaN while every score is -inf", '''
def online_max_sum(xs):
    m, s = -math.inf, 0.0
    for x in xs:
        m_new = max(m, float(x))
        s = s * math.exp(m - m_new) + math.exp(float(x) - m_new)
        m = m_new
    return m, s
'''),
    (1, "the same, in NumPy: np.exp(nan) gives NaN, with a warning only", '''
def online_max_sum(xs):
    m, s = -np.inf, 0.0
    with np.errstate(invalid="ignore"):
        for x in xs:
            m_new = np.maximum(m, x)
            s = s * np.exp(m - m_new) + np.exp(x - m_new)
            m = m_new
    return float(m), float(s)
'''),
    (1, "the old sum is not rescaled when the max grows", '''
def online_max_sum(xs):
    m, s = -math.inf, 0.0
    for x in xs:
        x = float(x)
        if x == -math.inf:
            continue
        m_new = max(m, x)
        s = s + math.exp(x - m_new)
        m = m_new
    return m, s
'''),
    (1, "rescaled by exp(m_new - m_old): the sign of the exponent flipped", '''
def online_max_sum(xs):
    m, s = -math.inf, 0.0
    for x in xs:
        x = float(x)
        if x == -math.inf:
            continue
        m_new = max(m, x)
        s = s * math.exp(min(m_new - m, 700.0)) + math.exp(x - m_new)
        m = m_new
    return m, s
'''),
    (1, "running max started at 0 instead of -inf", '''
def online_max_sum(xs):
    m, s = 0.0, 0.0
    for x in xs:
        x = float(x)
        m_new = max(m, x)
        s = s * math.exp(m - m_new) + math.exp(x - m_new)
        m = m_new
    return m, s
'''),
    (1, "masked scores replaced by -1e30: an all-masked stream gives a count, not 0", '''
def online_max_sum(xs):
    m, s = -1e30, 0.0
    for x in xs:
        x = max(float(x), -1e30)
        m_new = max(m, x)
        s = s * math.exp(m - m_new) + math.exp(x - m_new)
        m = m_new
    return m, s
'''),
    (1, "no shift at all: sum of exp(x), overflows near 1000", '''
def online_max_sum(xs):
    m, s = -math.inf, 0.0
    for x in xs:
        x = float(x)
        m = max(m, x)
        s += math.exp(min(x, 709.0))
    return m, s
'''),
    (1, "two passes over an iterator: the second pass sees nothing", '''
def online_max_sum(xs):
    m = -math.inf
    for x in xs:
        m = max(m, float(x))
    if m == -math.inf:
        return m, 0.0
    s = sum(math.exp(float(x) - m) for x in xs)
    return m, float(s)
'''),
    (1, "the stream stored in an array, then the two-pass softmax: memory grows with it", '''
def online_max_sum(xs):
    x = np.array(list(xs), dtype=float)
    if x.size == 0 or np.isneginf(x).all():
        return -math.inf, 0.0
    m = x.max()
    return float(m), float(np.exp(x - m).sum())
'''),
    (1, "calls the chapter's online_softmax_np", '''
from attnlab.flash_attention import online_softmax_np


def online_max_sum(xs):
    x = [float(a) for a in xs]
    finite = [a for a in x if a > -math.inf]
    if not finite:
        return -math.inf, 0.0
    m = max(finite)
    return m, float(1.0 / online_softmax_np(np.array(finite))[finite.index(m)])
'''),
    (1, "a branch on a new max, no guard: a masked score adds exp(-inf + inf) = NaN", '''
def online_max_sum(xs):
    m, s = -math.inf, 0.0
    for x in xs:
        x = float(x)
        if x > m:
            s = s * math.exp(m - x) + 1.0
            m = x
        else:
            s += math.exp(x - m)
    return m, s
'''),
    # ---- exercise 2: two bugs in a tiled forward pass
    (2, "the given code, unchanged", '''
flash_forward = flash_forward_given
'''),
    (2, "only the skip rule fixed: the running max still starts at 0", '''
def flash_forward(q, k, v, causal=False, block_q=16, block_k=16):
    L, S, D = q.shape[0], k.shape[0], q.shape[1]
    out = np.zeros((L, v.shape[1]))
    for i0 in range(0, L, block_q):
        i1 = min(i0 + block_q, L)
        m, l, acc = np.zeros((i1 - i0, 1)), np.zeros((i1 - i0, 1)), np.zeros((i1 - i0, v.shape[1]))
        for j0 in range(0, S, block_k):
            j1 = min(j0 + block_k, S)
            if causal and j0 > i1 - 1:
                continue
            s = q[i0:i1] @ k[j0:j1].T / math.sqrt(D)
            if causal:
                s = np.where(np.arange(j0, j1)[None, :] > np.arange(i0, i1)[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            p, alpha = np.exp(s - m_new), np.exp(m - m_new)
            l = alpha * l + p.sum(axis=1, keepdims=True)
            acc = alpha * acc + p @ v[j0:j1]
            m = m_new
        out[i0:i1] = acc / l
    return out
'''),
    (2, "only the running max fixed: tiles still skipped by their first query", '''
def flash_forward(q, k, v, causal=False, block_q=16, block_k=16):
    L, S, D = q.shape[0], k.shape[0], q.shape[1]
    out = np.zeros((L, v.shape[1]))
    for i0 in range(0, L, block_q):
        i1 = min(i0 + block_q, L)
        m = np.full((i1 - i0, 1), -np.inf)
        l, acc = np.zeros((i1 - i0, 1)), np.zeros((i1 - i0, v.shape[1]))
        for j0 in range(0, S, block_k):
            j1 = min(j0 + block_k, S)
            if causal and j0 > i0:
                continue
            s = q[i0:i1] @ k[j0:j1].T / math.sqrt(D)
            if causal:
                s = np.where(np.arange(j0, j1)[None, :] > np.arange(i0, i1)[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            p, alpha = np.exp(s - m_new), np.exp(m - m_new)
            l = alpha * l + p.sum(axis=1, keepdims=True)
            acc = alpha * acc + p @ v[j0:j1]
            m = m_new
        out[i0:i1] = acc / l
    return out
'''),
    (2, "skip rule over-fixed: j0 >= i1 - 1 skips the tile whose first key is the last query", '''
def flash_forward(q, k, v, causal=False, block_q=16, block_k=16):
    L, S, D = q.shape[0], k.shape[0], q.shape[1]
    out = np.zeros((L, v.shape[1]))
    for i0 in range(0, L, block_q):
        i1 = min(i0 + block_q, L)
        m = np.full((i1 - i0, 1), -np.inf)
        l, acc = np.zeros((i1 - i0, 1)), np.zeros((i1 - i0, v.shape[1]))
        for j0 in range(0, S, block_k):
            j1 = min(j0 + block_k, S)
            if causal and j0 >= i1 - 1 and j0 > 0:
                continue
            s = q[i0:i1] @ k[j0:j1].T / math.sqrt(D)
            if causal:
                s = np.where(np.arange(j0, j1)[None, :] > np.arange(i0, i1)[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            p, alpha = np.exp(s - m_new), np.exp(m - m_new)
            l = alpha * l + p.sum(axis=1, keepdims=True)
            acc = alpha * acc + p @ v[j0:j1]
            m = m_new
        out[i0:i1] = acc / l
    return out
'''),
    (2, "the underflow 'fixed' by each tile's own max, without rescaling what came before", '''
def flash_forward(q, k, v, causal=False, block_q=16, block_k=16):
    L, S, D = q.shape[0], k.shape[0], q.shape[1]
    out = np.zeros((L, v.shape[1]))
    for i0 in range(0, L, block_q):
        i1 = min(i0 + block_q, L)
        l, acc = np.zeros((i1 - i0, 1)), np.zeros((i1 - i0, v.shape[1]))
        for j0 in range(0, S, block_k):
            j1 = min(j0 + block_k, S)
            if causal and j0 > i1 - 1:
                continue
            s = q[i0:i1] @ k[j0:j1].T / math.sqrt(D)
            if causal:
                s = np.where(np.arange(j0, j1)[None, :] > np.arange(i0, i1)[:, None], -np.inf, s)
            top = s.max(axis=1, keepdims=True)
            p = np.exp(s - np.where(np.isneginf(top), 0.0, top))
            l = l + p.sum(axis=1, keepdims=True)
            acc = acc + p @ v[j0:j1]
        out[i0:i1] = acc / l
    return out
'''),
    (2, "right values, but by naive masked attention: an L x S matrix", '''
def flash_forward(q, k, v, causal=False, block_q=16, block_k=16):
    L, S = q.shape[0], k.shape[0]
    return masked_sdpa_np(q, k, v, causal_mask_np(L, S) if causal else None)[0]
'''),
    (2, "tiled, but the causal mask is built once at full size (L x S booleans)", '''
def flash_forward(q, k, v, causal=False, block_q=16, block_k=16):
    L, S, D = q.shape[0], k.shape[0], q.shape[1]
    allowed = np.arange(S)[None, :] <= np.arange(L)[:, None] if causal else np.ones((L, S), bool)
    out = np.zeros((L, v.shape[1]))
    for i0 in range(0, L, block_q):
        i1 = min(i0 + block_q, L)
        m = np.full((i1 - i0, 1), -np.inf)
        l, acc = np.zeros((i1 - i0, 1)), np.zeros((i1 - i0, v.shape[1]))
        for j0 in range(0, S, block_k):
            j1 = min(j0 + block_k, S)
            s = np.where(allowed[i0:i1, j0:j1], q[i0:i1] @ k[j0:j1].T / math.sqrt(D), -np.inf)
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            p, alpha = np.exp(s - m_new), np.exp(m - m_new)
            l = alpha * l + p.sum(axis=1, keepdims=True)
            acc = alpha * acc + p @ v[j0:j1]
            m = m_new
        out[i0:i1] = acc / l
    return out
'''),
    (2, "hands the work to attnlab's flash_attention_np", '''
def flash_forward(q, k, v, causal=False, block_q=16, block_k=16):
    return fa.flash_attention_np(q, k, v, causal=causal, block_q=block_q, block_k=block_k)[0]
'''),
    (2, "running max started at a finite -1000: right at -800, underflows at -5000", '''
def flash_forward(q, k, v, causal=False, block_q=16, block_k=16):
    L, S, D = q.shape[0], k.shape[0], q.shape[1]
    out = np.zeros((L, v.shape[1]))
    for i0 in range(0, L, block_q):
        i1 = min(i0 + block_q, L)
        m = np.full((i1 - i0, 1), -1000.0)
        l, acc = np.zeros((i1 - i0, 1)), np.zeros((i1 - i0, v.shape[1]))
        for j0 in range(0, S, block_k):
            j1 = min(j0 + block_k, S)
            if causal and j0 > i1 - 1:
                continue
            s = q[i0:i1] @ k[j0:j1].T / math.sqrt(D)
            if causal:
                s = np.where(np.arange(j0, j1)[None, :] > np.arange(i0, i1)[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            p, alpha = np.exp(s - m_new), np.exp(m - m_new)
            l = alpha * l + p.sum(axis=1, keepdims=True)
            acc = alpha * acc + p @ v[j0:j1]
            m = m_new
        out[i0:i1] = acc / l
    return out
'''),
    (2, "the in-tile causal mask compares tile-local indices, not positions", '''
def flash_forward(q, k, v, causal=False, block_q=16, block_k=16):
    L, S, D = q.shape[0], k.shape[0], q.shape[1]
    out = np.zeros((L, v.shape[1]))
    for i0 in range(0, L, block_q):
        i1 = min(i0 + block_q, L)
        m = np.full((i1 - i0, 1), -np.inf)
        l, acc = np.zeros((i1 - i0, 1)), np.zeros((i1 - i0, v.shape[1]))
        for j0 in range(0, S, block_k):
            j1 = min(j0 + block_k, S)
            if causal and j0 > i1 - 1:
                continue
            s = q[i0:i1] @ k[j0:j1].T / math.sqrt(D)
            if causal:
                s = np.where(np.arange(j1 - j0)[None, :] > np.arange(i1 - i0)[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            p, alpha = np.exp(s - m_new), np.exp(m - m_new)
            l = alpha * l + p.sum(axis=1, keepdims=True)
            acc = alpha * acc + p @ v[j0:j1]
            m = m_new
        out[i0:i1] = acc / l
    return out
'''),
    (2, "the scores computed in float32", '''
def flash_forward(q, k, v, causal=False, block_q=16, block_k=16):
    L, S, D = q.shape[0], k.shape[0], q.shape[1]
    out = np.zeros((L, v.shape[1]))
    for i0 in range(0, L, block_q):
        i1 = min(i0 + block_q, L)
        m = np.full((i1 - i0, 1), -np.inf)
        l, acc = np.zeros((i1 - i0, 1)), np.zeros((i1 - i0, v.shape[1]))
        for j0 in range(0, S, block_k):
            j1 = min(j0 + block_k, S)
            if causal and j0 > i1 - 1:
                continue
            s = (q[i0:i1].astype(np.float32) @ k[j0:j1].T.astype(np.float32)) / math.sqrt(D)
            if causal:
                s = np.where(np.arange(j0, j1)[None, :] > np.arange(i0, i1)[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            p, alpha = np.exp(s - m_new), np.exp(m - m_new)
            l = alpha * l + p.sum(axis=1, keepdims=True)
            acc = alpha * acc + p @ v[j0:j1]
            m = m_new
        out[i0:i1] = acc / l
    return out
'''),
    # ---- exercise 3: a tile step that carries the logsumexp
    (3, "exp(lse) taken directly: overflows once the scores reach +800", '''
def tile_step(o, lse, s, v_tile):
    with np.errstate(over="ignore", invalid="ignore"):
        old, e = np.exp(lse), np.exp(s)
        total = old + e.sum(axis=-1)
        safe = np.where(total > 0, total, 1.0)
        o_new = (old[:, None] * o + e @ v_tile) / safe[:, None]
        with np.errstate(divide="ignore"):
            return o_new, np.log(total)
'''),
    (3, "the old output is not rescaled: o + exp(s - lse_new) @ v", '''
def tile_step(o, lse, s, v_tile):
    top = s.max(axis=-1)
    top_safe = np.where(np.isneginf(top), 0.0, top)
    with np.errstate(divide="ignore"):
        lse_tile = top_safe + np.log(np.exp(s - top_safe[:, None]).sum(axis=-1))
    lse_new = np.logaddexp(lse, lse_tile)
    new_safe = np.where(np.isneginf(lse_new), 0.0, lse_new)
    return o + np.exp(s - new_safe[:, None]) @ v_tile, lse_new
'''),
    (3, "o treated as an unnormalised accumulator (section 3's acc)", '''
def tile_step(o, lse, s, v_tile):
    top = s.max(axis=-1)
    m_new = np.maximum(np.where(np.isneginf(lse), -np.inf, lse), top)
    safe = np.where(np.isneginf(m_new), 0.0, m_new)
    p = np.exp(s - safe[:, None])
    with np.errstate(divide="ignore"):
        lse_new = np.logaddexp(lse, safe + np.log(p.sum(axis=-1)))
    return np.exp(lse - safe)[:, None] * o + p @ v_tile, lse_new
'''),
    (3, "the tile's max used as its logsumexp", '''
def tile_step(o, lse, s, v_tile):
    lse_tile = s.max(axis=-1)
    lse_new = np.logaddexp(lse, lse_tile)
    new_safe = np.where(np.isneginf(lse_new), 0.0, lse_new)
    keep = np.exp(lse - new_safe)[:, None]
    return keep * o + np.exp(s - new_safe[:, None]) @ v_tile, lse_new
'''),
    (3, "lse merged with a max instead of a logsumexp", '''
def tile_step(o, lse, s, v_tile):
    top = s.max(axis=-1)
    top_safe = np.where(np.isneginf(top), 0.0, top)
    with np.errstate(divide="ignore"):
        lse_tile = top_safe + np.log(np.exp(s - top_safe[:, None]).sum(axis=-1))
    lse_new = np.maximum(lse, lse_tile)
    new_safe = np.where(np.isneginf(lse_new), 0.0, lse_new)
    keep = np.exp(lse - new_safe)[:, None]
    return keep * o + np.exp(s - new_safe[:, None]) @ v_tile, lse_new
'''),
    (3, "no guard for rows that have seen nothing: exp(-inf - (-inf)) is NaN", '''
def tile_step(o, lse, s, v_tile):
    with np.errstate(invalid="ignore", divide="ignore"):
        top = s.max(axis=-1)
        lse_tile = top + np.log(np.exp(s - top[:, None]).sum(axis=-1))
        lse_new = np.logaddexp(lse, lse_tile)
        keep = np.exp(lse - lse_new)[:, None]
        return keep * o + np.exp(s - lse_new[:, None]) @ v_tile, lse_new
'''),
    (3, "the two parts averaged instead of weighed by their share", '''
def tile_step(o, lse, s, v_tile):
    top = s.max(axis=-1)
    top_safe = np.where(np.isneginf(top), 0.0, top)
    p = np.exp(s - top_safe[:, None])
    l = p.sum(axis=-1)
    with np.errstate(divide="ignore"):
        lse_tile = top_safe + np.log(l)
    o_tile = p @ v_tile / np.where(l > 0, l, 1.0)[:, None]
    both = (np.isfinite(lse) & np.isfinite(lse_tile))[:, None]
    o_new = np.where(both, (o + o_tile) / 2, o + o_tile)
    return o_new, np.logaddexp(lse, lse_tile)
'''),
    (3, "updated in place: the caller's o and lse change", '''
def tile_step(o, lse, s, v_tile):
    top = s.max(axis=-1)
    top_safe = np.where(np.isneginf(top), 0.0, top)
    with np.errstate(divide="ignore"):
        lse_tile = top_safe + np.log(np.exp(s - top_safe[:, None]).sum(axis=-1))
    lse_new = np.logaddexp(lse, lse_tile)
    new_safe = np.where(np.isneginf(lse_new), 0.0, lse_new)
    o *= np.exp(lse - new_safe)[:, None]
    o += np.exp(s - new_safe[:, None]) @ v_tile
    lse[:] = lse_new
    return o, lse
'''),
    (3, "lse kept as a column (Br, 1) instead of (Br,)", '''
def tile_step(o, lse, s, v_tile):
    lse = lse.reshape(-1, 1)
    top = s.max(axis=-1, keepdims=True)
    top_safe = np.where(np.isneginf(top), 0.0, top)
    with np.errstate(divide="ignore"):
        lse_tile = top_safe + np.log(np.exp(s - top_safe).sum(axis=-1, keepdims=True))
    lse_new = np.logaddexp(lse, lse_tile)
    new_safe = np.where(np.isneginf(lse_new), 0.0, lse_new)
    return np.exp(lse - new_safe) * o + np.exp(s - new_safe) @ v_tile, lse_new
'''),
    (3, "merged with attnlab's merge_partials_np", '''
def tile_step(o, lse, s, v_tile):
    o_t, lse_t = fa.flash_attention_np(np.eye(s.shape[0]), np.zeros((s.shape[1], s.shape[0])),
                                       v_tile, np.isfinite(s), scale=1.0)
    return fa.merge_partials_np(np.stack([o, o_t]), np.stack([lse, lse_t]))
'''),
    (3, "the tile's logsumexp taken as log(sum(exp(s))): +inf once the scores reach +800", '''
def tile_step(o, lse, s, v_tile):
    with np.errstate(over="ignore", divide="ignore"):
        lse_tile = np.log(np.exp(s).sum(axis=-1))
    lse_new = np.logaddexp(lse, lse_tile)
    seen = np.isfinite(lse_new)
    ref = np.where(seen, lse_new, 0.0)
    o_new = np.exp(lse - ref)[:, None] * o + np.exp(s - ref[:, None]) @ v_tile
    return np.where(seen[:, None], o_new, 0.0), lse_new
'''),
    (3, "the scores shifted in place by their max: the caller's s changes", '''
def tile_step(o, lse, s, v_tile):
    top = s.max(axis=-1)
    top_safe = np.where(np.isneginf(top), 0.0, top)
    s -= top_safe[:, None]
    with np.errstate(divide="ignore"):
        lse_tile = top_safe + np.log(np.exp(s).sum(axis=-1))
    lse_new = np.logaddexp(lse, lse_tile)
    new_safe = np.where(np.isneginf(lse_new), 0.0, lse_new)
    keep = np.exp(lse - new_safe)[:, None]
    return keep * o + np.exp(s + (top_safe - new_safe)[:, None]) @ v_tile, lse_new
'''),
    # ---- exercise 4: how many tiles does a causal mask skip?
    # ---- exercise 4: see WRONG4 below
    (5, "floor division: the shorter last blocks are forgotten", '''
def flash_traffic(N, d, M):
    Bc = M // (6 * d)
    Br = min(Bc, d)
    n_c, n_r = N // Bc, N // Br
    return n_c * n_r, 2 * N * d + n_c * (3 * N * d + 4 * N)
'''),
    (5, "true division: block counts are not rounded up", '''
def flash_traffic(N, d, M):
    Bc = M // (6 * d)
    Br = min(Bc, d)
    n_c, n_r = N / Bc, N / Br
    return round(n_c * n_r), round(2 * N * d + n_c * (3 * N * d + 4 * N))
'''),
    (5, "l and m forgotten: only the matrices counted", '''
def flash_traffic(N, d, M):
    Bc = M // (6 * d)
    Br = min(Bc, d)
    n_c, n_r = -(-N // Bc), -(-N // Br)
    return n_c * n_r, 2 * N * d + n_c * 3 * N * d
'''),
    (5, "O read but never written back", '''
def flash_traffic(N, d, M):
    Bc = M // (6 * d)
    Br = min(Bc, d)
    n_c, n_r = -(-N // Bc), -(-N // Br)
    return n_c * n_r, 2 * N * d + n_c * (2 * N * d + 4 * N)
'''),
    (5, "K and V counted once per tile instead of once per key block", '''
def flash_traffic(N, d, M):
    Bc = M // (6 * d)
    Br = min(Bc, d)
    n_c, n_r = -(-N // Bc), -(-N // Br)
    return n_c * n_r, 2 * N * d * n_r + n_c * (3 * N * d + 4 * N)
'''),
    (5, "Br = Bc: the min with d ignored (wrong tile count when d < Bc)", '''
def flash_traffic(N, d, M):
    Bc = M // (6 * d)
    n_c = -(-N // Bc)
    return n_c * n_c, 2 * N * d + n_c * (3 * N * d + 4 * N)
'''),
    (5, "the paper's Bc = M / 4d instead of the simulator's M / 6d", '''
def flash_traffic(N, d, M):
    Bc = M // (4 * d)
    Br = min(Bc, d)
    n_c, n_r = -(-N // Bc), -(-N // Br)
    return n_c * n_r, 2 * N * d + n_c * (3 * N * d + 4 * N)
'''),
    (5, "the traffic of standard attention's three passes instead", '''
def flash_traffic(N, d, M):
    Bc = M // (6 * d)
    Br = min(Bc, d)
    n_c, n_r = -(-N // Bc), -(-N // Br)
    return n_c * n_r, 4 * N * d + 4 * N * N
'''),
    (5, "the simulation copied, not derived: a loop over blocks fails on an array of N", '''
def flash_traffic(N, d, M):
    Bc = M // (6 * d)
    Br = min(Bc, d)
    tiles = accesses = 0
    for j0 in range(0, N, Bc):
        bc = min(Bc, N - j0)
        accesses += 2 * bc * d
        for i0 in range(0, N, Br):
            br = min(Br, N - i0)
            tiles += 1
            accesses += 2 * br * d + 2 * br + br * d + 2 * br
    return tiles, accesses
'''),
    (5, "math.ceil: right for one N, but it refuses an array of sizes", '''
def flash_traffic(N, d, M):
    Bc = M // (6 * d)
    Br = min(Bc, d)
    n_c, n_r = math.ceil(N / Bc), math.ceil(N / Br)
    return n_c * n_r, 2 * N * d + n_c * (3 * N * d + 4 * N)
'''),
    (5, "np.ceil without a cast: float arrays, and floats for a single N", '''
def flash_traffic(N, d, M):
    Bc = M // (6 * d)
    Br = min(Bc, d)
    n_c, n_r = np.ceil(N / Bc), np.ceil(N / Br)
    return n_c * n_r, 2 * N * d + n_c * (3 * N * d + 4 * N)
'''),
]
RIGHT = [
    (1, "NumPy floats and np.exp, masked scores skipped", '''
def online_max_sum(xs):
    m, s = np.float64(-np.inf), np.float64(0.0)
    for x in xs:
        if np.isneginf(x):
            continue
        m_new = np.maximum(m, x)
        s = s * np.exp(m - m_new) + np.exp(x - m_new)
        m = m_new
    return m, s
'''),
    (1, "a guard on the running max instead of on the score", '''
def online_max_sum(xs):
    m, s = -math.inf, 0.0
    for x in xs:
        m_new = max(m, float(x))
        if m_new > -math.inf:
            s = s * math.exp(m - m_new) + math.exp(float(x) - m_new)
        m = m_new
    return m, s
'''),
    (1, "a branch on a new max, masked scores skipped", '''
def online_max_sum(xs):
    m, s = -math.inf, 0.0
    for x in xs:
        x = float(x)
        if x == -math.inf:
            continue
        if x > m:
            s = s * math.exp(m - x) + 1.0
            m = x
        else:
            s += math.exp(x - m)
    return m, s
'''),
    (3, "the old lse used like a running max: a shift, a sum, a division", '''
def tile_step(o, lse, s, v_tile):
    m_new = np.maximum(lse, s.max(axis=-1))
    m_safe = np.where(np.isneginf(m_new), 0.0, m_new)
    old = np.exp(lse - m_safe)
    p = np.exp(s - m_safe[:, None])
    total = old + p.sum(axis=-1)
    seen = total > 0
    o_new = (old[:, None] * o + p @ v_tile) / np.where(seen, total, 1.0)[:, None]
    lse_new = np.where(seen, m_safe + np.log(np.where(seen, total, 1.0)), -np.inf)
    return o_new, lse_new
'''),
    (2, "both bugs fixed, and the skip dropped: every tile computed", '''
def flash_forward(q, k, v, causal=False, block_q=16, block_k=16):
    L, S, D = q.shape[0], k.shape[0], q.shape[1]
    out = np.zeros((L, v.shape[1]))
    for i0 in range(0, L, block_q):
        i1 = min(i0 + block_q, L)
        m = np.full((i1 - i0, 1), -np.inf)
        l, acc = np.zeros((i1 - i0, 1)), np.zeros((i1 - i0, v.shape[1]))
        for j0 in range(0, S, block_k):
            j1 = min(j0 + block_k, S)
            s = q[i0:i1] @ k[j0:j1].T / math.sqrt(D)
            if causal:
                s = np.where(np.arange(j0, j1)[None, :] > np.arange(i0, i1)[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            p, alpha = np.exp(s - m_new), np.exp(m - m_new)
            l = alpha * l + p.sum(axis=1, keepdims=True)
            acc = alpha * acc + p @ v[j0:j1]
            m = m_new
        out[i0:i1] = acc / l
    return out
'''),
    (2, "skip by the unclipped i0 + block_q (computes a few empty tiles: harmless)", '''
def flash_forward(q, k, v, causal=False, block_q=16, block_k=16):
    L, S, D = q.shape[0], k.shape[0], q.shape[1]
    out = np.zeros((L, v.shape[1]))
    for i0 in range(0, L, block_q):
        i1 = min(i0 + block_q, L)
        m = np.full((i1 - i0, 1), -np.inf)
        l, acc = np.zeros((i1 - i0, 1)), np.zeros((i1 - i0, v.shape[1]))
        for j0 in range(0, S, block_k):
            j1 = min(j0 + block_k, S)
            if causal and j0 >= i0 + block_q:
                continue
            s = q[i0:i1] @ k[j0:j1].T / math.sqrt(D)
            if causal:
                s = np.where(np.arange(j0, j1)[None, :] > np.arange(i0, i1)[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            p, alpha = np.exp(s - m_new), np.exp(m - m_new)
            l = alpha * l + p.sum(axis=1, keepdims=True)
            acc = alpha * acc + p @ v[j0:j1]
            m = m_new
        out[i0:i1] = acc / l
    return out
'''),
    (3, "the tile as a part: its own (o, lse), merged with the max-shifted weights", '''
def tile_step(o, lse, s, v_tile):
    top = s.max(axis=-1)
    top_safe = np.where(np.isneginf(top), 0.0, top)
    p = np.exp(s - top_safe[:, None])
    l = p.sum(axis=-1)
    o_tile = (p @ v_tile) / np.where(l > 0, l, 1.0)[:, None]
    with np.errstate(divide="ignore"):
        lse_tile = np.where(l > 0, top_safe + np.log(np.where(l > 0, l, 1.0)), -np.inf)
    big = np.maximum(lse, lse_tile)
    empty = np.isneginf(big)
    big_safe = np.where(empty, 0.0, big)
    w1, w2 = np.exp(lse - big_safe), np.exp(lse_tile - big_safe)
    total = np.where(empty, 1.0, w1 + w2)
    o_new = (w1[:, None] * o + w2[:, None] * o_tile) / total[:, None]
    return o_new, np.where(empty, -np.inf, big_safe + np.log(total))
'''),
    (3, "np.where evaluating both branches, warnings silenced", '''
def tile_step(o, lse, s, v_tile):
    with np.errstate(invalid="ignore", divide="ignore"):
        top = s.max(axis=-1)
        lse_tile = np.where(np.isneginf(top), -np.inf,
                            top + np.log(np.exp(s - top[:, None]).sum(axis=-1)))
        lse_new = np.logaddexp(lse, lse_tile)
        empty = np.isneginf(lse_new)
        keep = np.where(empty, 0.0, np.exp(lse - lse_new))[:, None]
        p = np.where(empty[:, None], 0.0, np.exp(s - lse_new[:, None]))
    return keep * o + p @ v_tile, lse_new
'''),
    (3, "a fresh attempt: logsumexp of the tile, then shares of the new total", '''
def tile_step(o, lse, s, v_tile):
    with np.errstate(divide="ignore", invalid="ignore"):
        m = s.max(axis=1)
        m0 = np.where(np.isfinite(m), m, 0.0)
        tile_lse = np.log(np.exp(s - m0[:, None]).sum(1)) + m0
    new = np.logaddexp(lse, tile_lse)
    ref = np.where(np.isfinite(new), new, 0.0)
    return np.exp(lse - ref)[:, None] * o + np.exp(s - ref[:, None]) @ v_tile, new
'''),
    (5, "np.ceil, cast to integers", '''
def flash_traffic(N, d, M):
    Bc = M // (6 * d)
    Br = min(Bc, d)
    N = np.asarray(N)
    n_c = np.ceil(N / Bc).astype(np.int64)
    n_r = np.ceil(N / Br).astype(np.int64)
    return n_c * n_r, N * (2 * d + n_c * (3 * d + 4))
'''),
    (5, "reads and writes written out per matrix", '''
def flash_traffic(N, d, M):
    Bc = M // (6 * d)
    Br = min(Bc, d)
    n_c = (N + Bc - 1) // Bc
    n_r = (N + Br - 1) // Br
    k_v = 2 * N * d
    q_o_read, stats_read = 2 * N * d * n_c, 2 * N * n_c
    o_written, stats_written = N * d * n_c, 2 * N * n_c
    return n_c * n_r, k_v + q_o_read + stats_read + o_written + stats_written
'''),
]
BASE6 = '''
def zigzag_ring_attention(q, k, v, P):
    N = q.shape[0]
    chunks = [(int(c[0]), int(c[-1]) + 1) for c in np.array_split(np.arange(N), 2 * P)]
    mine = [HOLD for p in range(P)]
    out, work = np.zeros((N, v.shape[1])), [0] * P
    for p in range(P):
        state = {qc: (np.zeros((qc[1] - qc[0], v.shape[1])), np.full(qc[1] - qc[0], -np.inf))
                 for qc in mine[p]}
        for t in range(P):
            for (c, d) in mine[(p - t) % P]:
                for (a, b) in mine[p]:
                    if SKIP:
                        continue
                    work[p] += 1
                    ok = MASK
                    o_t, lse_t = fa.flash_attention_np(q[a:b], k[c:d], v[c:d], ok)
                    o, lse = state[(a, b)]
                    state[(a, b)] = MERGE
        for (a, b), (o, _) in state.items():
            out[a:b] = o
    return out, work
'''
ZZ = "(chunks[p], chunks[2 * P - 1 - p])"
GLOBAL = "np.arange(c, d)[None, :] <= np.arange(a, b)[:, None]"
LSE = "fa.merge_partials_np(np.stack([o, o_t]), np.stack([lse, lse_t]))"


def _zz(hold=ZZ, skip="c > b - 1", mask=GLOBAL, merge=LSE):
    return (BASE6.replace("HOLD", hold).replace("SKIP", skip).replace("MASK", mask)
            .replace("MERGE", merge))


WRONG6 = [
    (6, "the mask built from positions inside each chunk (local rows and columns)",
     _zz(mask="np.arange(d - c)[None, :] <= np.arange(b - a)[:, None]")),
    (6, "no causal mask inside a pair: the diagonal chunk sees its future",
     _zz(mask="None")),
    (6, "the diagonal pair skipped too: a chunk never sees itself",
     _zz(skip="c >= a")),
    (6, "nothing skipped: every pair computed, the work is 4P per device",
     _zz(skip="False")),
    (6, "contiguous shards (chunks 2p and 2p + 1): right output, unbalanced work",
     _zz(hold="(chunks[2 * p], chunks[2 * p + 1])")),
    (6, "partial results averaged instead of merged by their logsumexp",
     _zz(merge="((o + o_t) / 2 if np.isfinite(lse).any() else o_t, np.logaddexp(lse, lse_t))")),
]
RIGHT6 = [
    (6, "chunks cut by np.linspace instead of np.array_split", _zz().replace(
        "chunks = [(int(c[0]), int(c[-1]) + 1) for c in np.array_split(np.arange(N), 2 * P)]",
        "e = np.linspace(0, N, 2 * P + 1).astype(int)\n"
        "    chunks = [(int(e[i]), int(e[i + 1])) for i in range(2 * P)]")),
    (6, "a hand-written logsumexp merge instead of merge_partials_np", _zz(
        merge="(lambda n: (np.exp(lse - np.where(np.isneginf(n), 0, n))[:, None] * o"
              " + np.exp(lse_t - np.where(np.isneginf(n), 0, n))[:, None] * o_t, n))"
              "(np.logaddexp(lse, lse_t))")),
    (6, "the devices' steps taken in the other direction round the ring",
     _zz().replace("mine[(p - t) % P]", "mine[(p + t) % P]")),
]
WRONG += WRONG6
RIGHT += RIGHT6

# ---- exercise 4: full, masked and skipped tiles
T4 = """
def causal_tiles(L, S, block_q, block_k, align="top-left"):
    offset = OFFSET
    full = masked = skipped = 0
    for i0 in range(0, L, block_q):
        first_q, last_q = i0, LASTQ
        for j0 in range(0, S, block_k):
            first_k, last_k = j0, LASTK
            if SKIP:
                skipped += 1
            elif FULL:
                full += 1
            else:
                masked += 1
    return RESULT
"""
D4 = {'OFFSET': '0 if align == "top-left" else S - L', 'LASTQ': 'min(i0 + block_q, L) - 1', 'LASTK': 'min(j0 + block_k, S) - 1', 'SKIP': 'first_k > last_q + offset', 'FULL': 'last_k <= first_q + offset', 'RESULT': 'full, masked, skipped'}


def _t4(**kw):
    code = T4
    for key, val in {**D4, **kw}.items():
        code = code.replace(key, val)
    return code


WRONG4 = [
    (4, "skipped by the tile's FIRST query instead of its last", _t4(SKIP="first_k > first_q + offset")),
    (4, "full tested with the tile's FIRST key instead of its last", _t4(FULL="first_k <= first_q + offset")),
    (4, "full tested with the LAST query instead of the first", _t4(FULL="last_k <= last_q + offset")),
    (4, "the alignment offset ignored", _t4(OFFSET="0")),
    (4, "offset L - S instead of S - L", _t4(OFFSET='0 if align == "top-left" else L - S')),
    (4, "the last key block taken as full: its last key is j0 + block_k - 1 > S - 1",
     _t4(LASTK="j0 + block_k - 1")),
    (4, "the last query block taken as full: its last query is i0 + block_q - 1 > L - 1",
     _t4(LASTQ="i0 + block_q - 1")),
    (4, "off by one: a tile touching the diagonal is skipped", _t4(SKIP="first_k >= last_q + offset")),
    (4, "off by one: a tile whose last key is on the diagonal counted as masked",
     _t4(FULL="last_k < first_q + offset")),
    (4, "the two-way count of the chapter: (computed, skipped)", _t4(RESULT="full + masked, skipped")),
    (4, "the order of the tuple swapped: (skipped, masked, full)", _t4(RESULT="skipped, masked, full")),
    (4, "closed form for the top-left square case: n(n+1)/2 - n full, n masked, n(n-1)/2 skipped",
     """
def causal_tiles(L, S, block_q, block_k, align="top-left"):
    n = -(-L // block_q)
    return n * (n - 1) // 2, n, n * (n - 1) // 2
"""),
    (4, "counted on the causal mask, as section 3's figure does: an L x S array", """
def causal_tiles(L, S, block_q, block_k, align="top-left"):
    mask = causal_mask_np(L, S, align)
    tiles = [mask[i:i + block_q, j:j + block_k] for i in range(0, L, block_q)
             for j in range(0, S, block_k)]
    return (sum(bool(t.all()) for t in tiles), sum(bool(t.any() and not t.all()) for t in tiles),
            sum(not t.any() for t in tiles))
"""),
    (4, "the mask built by broadcasting instead of causal_mask_np: still L x S", """
def causal_tiles(L, S, block_q, block_k, align="top-left"):
    offset = 0 if align == "top-left" else S - L
    mask = np.arange(S)[None, :] <= np.arange(L)[:, None] + offset
    tiles = [mask[i:i + block_q, j:j + block_k] for i in range(0, L, block_q)
             for j in range(0, S, block_k)]
    return (sum(bool(t.all()) for t in tiles), sum(bool(t.any() and not t.all()) for t in tiles),
            sum(not t.any() for t in tiles))
"""),
    (4, "returns floats (counts computed with true divisions)", """
def causal_tiles(L, S, block_q, block_k, align="top-left"):
    full, masked, skipped = 0.0, 0.0, 0.0
    offset = 0 if align == "top-left" else S - L
    for i0 in range(0, L, block_q):
        last_q = min(i0 + block_q, L) - 1
        for j0 in range(0, S, block_k):
            last_k = min(j0 + block_k, S) - 1
            if j0 > last_q + offset:
                skipped += 1
            elif last_k <= i0 + offset:
                full += 1
            else:
                masked += 1
    return full, masked, skipped
"""),
]
RIGHT4 = [
    (4, "per query block: how many key blocks start in range, and how many end in range", """
def causal_tiles(L, S, block_q, block_k, align="top-left"):
    offset = 0 if align == "top-left" else S - L
    nk = -(-S // block_k)
    ends = [min(j0 + block_k, S) - 1 for j0 in range(0, S, block_k)]
    full = computed = 0
    for i0 in range(0, L, block_q):
        limit = min(i0 + block_q, L) - 1 + offset
        computed += 0 if limit < 0 else min(nk, limit // block_k + 1)
        full += sum(e <= i0 + offset for e in ends)
    return full, computed - full, -(-L // block_q) * nk - computed
"""),
    (4, "vectorised over the tile grid (nq x nk, not L x S)", """
def causal_tiles(L, S, block_q, block_k, align="top-left"):
    offset = 0 if align == "top-left" else S - L
    first_q = np.arange(0, L, block_q)
    last_q = np.minimum(first_q + block_q, L) - 1
    first_k = np.arange(0, S, block_k)
    last_k = np.minimum(first_k + block_k, S) - 1
    any_ok = first_k[None, :] <= last_q[:, None] + offset
    all_ok = last_k[None, :] <= first_q[:, None] + offset
    return int(all_ok.sum()), int((any_ok & ~all_ok).sum()), int((~any_ok).sum())
"""),
]
WRONG += WRONG4
RIGHT += RIGHT4

# ---- exercises 1 and 2: types on every case, the inputs after the call
WRONG += [
    (1, "an early way out for a stream with no finite score: (-inf, 0), an int 0", """
def online_max_sum(xs):
    m, s = -math.inf, 0.0
    for x in xs:
        x = float(x)
        if x == -math.inf:
            continue
        m_new = max(m, x)
        s = s * math.exp(m - m_new) + math.exp(x - m_new)
        m = m_new
    if m == -math.inf:
        return m, 0
    return m, s
"""),
    (1, "int scores kept as ints: the max of [3, 1, 2] comes back as the int 3", """
def online_max_sum(xs):
    m, s = -math.inf, 0.0
    for x in xs:
        if x == -math.inf:
            continue
        m_new = max(m, x)
        s = s * math.exp(m - m_new) + math.exp(x - m_new)
        m = m_new
    return m, s
"""),
    (2, "both bugs fixed, but q scaled once, in place: the caller's q changes", """
def flash_forward(q, k, v, causal=False, block_q=16, block_k=16):
    L, S, D = q.shape[0], k.shape[0], q.shape[1]
    q *= 1 / math.sqrt(D)
    out = np.zeros((L, v.shape[1]))
    for i0 in range(0, L, block_q):
        i1 = min(i0 + block_q, L)
        m = np.full((i1 - i0, 1), -np.inf)
        l, acc = np.zeros((i1 - i0, 1)), np.zeros((i1 - i0, v.shape[1]))
        for j0 in range(0, S, block_k):
            j1 = min(j0 + block_k, S)
            if causal and j0 > i1 - 1:
                continue
            s = q[i0:i1] @ k[j0:j1].T
            if causal:
                s = np.where(np.arange(j0, j1)[None, :] > np.arange(i0, i1)[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1, keepdims=True))
            p, alpha = np.exp(s - m_new), np.exp(m - m_new)
            l = alpha * l + p.sum(axis=1, keepdims=True)
            acc = alpha * acc + p @ v[j0:j1]
            m = m_new
        out[i0:i1] = acc / l
    return out
"""),
]
RIGHT += [
    (1, "a branch on a new max, float() on the way in and out", """
def online_max_sum(xs):
    m, s = float("-inf"), 0.0
    for x in map(float, xs):
        if x > m:
            s, m = s * math.exp(m - x) + 1.0, x
        elif x > float("-inf"):
            s += math.exp(x - m)
    return float(m), float(s)
"""),
]


# ---- third reader's pass
WRONG += [
    (1, "no shift at all: a plain sum of exp(x), OverflowError near 1000", """
def online_max_sum(xs):
    m, s = -math.inf, 0.0
    for x in xs:
        x = float(x)
        if x == -math.inf:
            continue
        m = max(m, x)
        s += math.exp(x)
    return m, (s / math.exp(m) if m > -math.inf else 0.0)
"""),
    (3, "the tile's lse right, but the merge exponentiates the running lse: w0 = exp(lse)", """
def tile_step(o, lse, s, v_tile):
    top = s.max(axis=-1)
    top_safe = np.where(np.isneginf(top), 0.0, top)
    e = np.exp(s - top_safe[:, None])
    tot = e.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lse_tile = top_safe + np.log(tot)
        o_tile = np.where(tot[:, None] > 0, (e @ v_tile) / tot[:, None], 0.0)
        w0, w1 = np.exp(lse), np.exp(lse_tile)
        lse_new = np.log(w0 + w1)
        o_new = np.where((w0 + w1)[:, None] > 0, (w0[:, None] * o + w1[:, None] * o_tile)
                         / (w0 + w1)[:, None], 0.0)
    return o_new, lse_new
"""),
    (3, "the state and the tile's own output averaged where both are non-empty", """
def tile_step(o, lse, s, v_tile):
    top = s.max(axis=-1)
    top_safe = np.where(np.isneginf(top), 0.0, top)
    e = np.exp(s - top_safe[:, None])
    tot = e.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lse_tile = top_safe + np.log(tot)
        o_tile = np.where(tot[:, None] > 0, (e @ v_tile) / tot[:, None], 0.0)
    old, new = np.isfinite(lse)[:, None], np.isfinite(lse_tile)[:, None]
    o_new = np.where(old & new, (o + o_tile) / 2, np.where(new, o_tile, o))
    return o_new, np.logaddexp(lse, lse_tile)
"""),
    (6, "the diagonal pairs skipped too, by the chunks' ends: d - 1 > a", _zz(skip="d - 1 > a")),
]
RIGHT += [
    (1, "a running logsumexp (np.logaddexp), s = exp(lse - m) at the end", """
def online_max_sum(xs):
    m, lse = -math.inf, -math.inf
    for x in xs:
        x = float(x)
        if x == -math.inf:
            continue
        m, lse = max(m, x), float(np.logaddexp(lse, x))
    return m, (math.exp(lse - m) if m > -math.inf else 0.0)
"""),
]
