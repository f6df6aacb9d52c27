"""Wrong answers a learner would plausibly write for chapter 12's exercises."""
WRONG = [
    (1, "the old sum is not rescaled when the max grows", '''
def online_max_sum(xs):
    m, s = -math.inf, 0.0
    for x in xs:
        m_new = max(m, float(x))
        s = s + math.exp(float(x) - m_new)
        m = m_new
    return m, s
'''),
    (1, "rescaled by exp(m_new - m_old): the sign of the exponent flipped", '''
def online_max_sum(xs):
    m, s = -math.inf, 0.0
    for x in xs:
        m_new = max(m, float(x))
        s = s * math.exp(min(m_new - m, 700.0)) + math.exp(float(x) - m_new)
        m = m_new
    return m, s
'''),
    (1, "running max started at 0 instead of -inf", '''
def online_max_sum(xs):
    m, s = 0.0, 0.0
    for x in xs:
        m_new = max(m, float(x))
        s = s * math.exp(m - m_new) + math.exp(float(x) - m_new)
        m = m_new
    return m, s
'''),
    (1, "no shift at all: sum of exp(x), overflows near 1000", '''
def online_max_sum(xs):
    xs = np.array(list(xs), dtype=float)
    with np.errstate(over="ignore"):
        return float(xs.max()), float(np.exp(xs).sum())
'''),
    (1, "two passes over an iterator: the second pass sees nothing", '''
def online_max_sum(xs):
    m = -math.inf
    for x in xs:
        m = max(m, float(x))
    s = sum(math.exp(float(x) - m) for x in xs)
    return m, float(s)
'''),
    (2, "plain average of the two parts", '''
def merge_two(o1, lse1, o2, lse2):
    return (o1 + o2) / 2, np.logaddexp(lse1, lse2)
'''),
    (2, "weights proportional to the logsumexps themselves", '''
def merge_two(o1, lse1, o2, lse2):
    w1 = (lse1 / (lse1 + lse2))[:, None]
    return w1 * o1 + (1 - w1) * o2, np.logaddexp(lse1, lse2)
'''),
    (2, "exp(lse) taken directly: overflows for large scores", '''
def merge_two(o1, lse1, o2, lse2):
    with np.errstate(over="ignore", invalid="ignore"):
        e1, e2 = np.exp(lse1), np.exp(lse2)
        total = e1 + e2
        out = (e1[:, None] * o1 + e2[:, None] * o2) / np.where(total > 0, total, 1)[:, None]
        return np.nan_to_num(out), np.log(total)
'''),
    (2, "weights exp(lse_c - max) without dividing by their sum", '''
def merge_two(o1, lse1, o2, lse2):
    top = np.maximum(lse1, lse2)
    safe = np.where(np.isneginf(top), 0.0, top)
    w1, w2 = np.exp(lse1 - safe)[:, None], np.exp(lse2 - safe)[:, None]
    return w1 * o1 + w2 * o2, np.logaddexp(lse1, lse2)
'''),
    (2, "no care for a query with no key in either part: NaN", '''
def merge_two(o1, lse1, o2, lse2):
    with np.errstate(invalid="ignore"):
        lse = np.logaddexp(lse1, lse2)
        w1, w2 = np.exp(lse1 - lse)[:, None], np.exp(lse2 - lse)[:, None]
        return w1 * o1 + w2 * o2, lse
'''),
    (3, "the accumulator is not rescaled", '''
def tile_step(m, l, acc, s, v_tile):
    m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
    m_safe = np.where(np.isneginf(m_new), 0.0, m_new)
    p = np.exp(s - m_safe)
    alpha = np.exp(m - m_safe)
    return m_new, alpha * l + p.sum(axis=-1, keepdims=True), acc + p @ v_tile
'''),
    (3, "the running sum is not rescaled", '''
def tile_step(m, l, acc, s, v_tile):
    m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
    m_safe = np.where(np.isneginf(m_new), 0.0, m_new)
    p = np.exp(s - m_safe)
    alpha = np.exp(m - m_safe)
    return m_new, l + p.sum(axis=-1, keepdims=True), alpha * acc + p @ v_tile
'''),
    (3, "no m_safe: a row with only -inf so far gives NaN", '''
def tile_step(m, l, acc, s, v_tile):
    with np.errstate(invalid="ignore"):
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        p = np.exp(s - m_new)
        alpha = np.exp(m - m_new)
        return m_new, alpha * l + p.sum(axis=-1, keepdims=True), alpha * acc + p @ v_tile
'''),
    (3, "exponent taken against the OLD max", '''
def tile_step(m, l, acc, s, v_tile):
    m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
    m_old = np.where(np.isneginf(m), 0.0, m)
    with np.errstate(over="ignore"):
        p = np.exp(s - m_old)
    return m_new, l + p.sum(axis=-1, keepdims=True), acc + p @ v_tile
'''),
    (3, "normalised at every step (Algorithm 1 style) although acc / l is taken at the end", '''
def tile_step(m, l, acc, s, v_tile):
    m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
    m_safe = np.where(np.isneginf(m_new), 0.0, m_new)
    p = np.exp(s - m_safe)
    alpha = np.exp(m - m_safe)
    l_new = alpha * l + p.sum(axis=-1, keepdims=True)
    acc_new = (alpha * l * acc + p @ v_tile) / np.where(l_new > 0, l_new, 1.0)
    return m_new, l_new, acc_new
'''),
    (4, "skipped by the tile's FIRST query instead of its last", '''
def causal_tiles(L, S, block_q, block_k, align="top-left"):
    offset = 0 if align == "top-left" else S - L
    computed = skipped = 0
    for i0 in range(0, L, block_q):
        for j0 in range(0, S, block_k):
            if j0 <= i0 + offset:
                computed += 1
            else:
                skipped += 1
    return computed, skipped
'''),
    (4, "the alignment offset ignored", '''
def causal_tiles(L, S, block_q, block_k, align="top-left"):
    computed = skipped = 0
    for i0 in range(0, L, block_q):
        i1 = min(i0 + block_q, L)
        for j0 in range(0, S, block_k):
            if j0 <= i1 - 1:
                computed += 1
            else:
                skipped += 1
    return computed, skipped
'''),
    (4, "floor division: the last, shorter blocks are forgotten", '''
def causal_tiles(L, S, block_q, block_k, align="top-left"):
    offset = 0 if align == "top-left" else S - L
    computed = skipped = 0
    for bi in range(L // block_q):
        i1 = (bi + 1) * block_q
        for bj in range(S // block_k):
            if bj * block_k <= i1 - 1 + offset:
                computed += 1
            else:
                skipped += 1
    return computed, skipped
'''),
    (4, "off by one: a tile touching the diagonal is skipped", '''
def causal_tiles(L, S, block_q, block_k, align="top-left"):
    offset = 0 if align == "top-left" else S - L
    computed = skipped = 0
    for i0 in range(0, L, block_q):
        i1 = min(i0 + block_q, L)
        for j0 in range(0, S, block_k):
            if j0 < i1 - 1 + offset:
                computed += 1
            else:
                skipped += 1
    return computed, skipped
'''),
    (4, "tile indices compared (only right for equal square blocks)", '''
def causal_tiles(L, S, block_q, block_k, align="top-left"):
    nq, nk = -(-L // block_q), -(-S // block_k)
    skipped = sum(tj > ti for ti in range(nq) for tj in range(nk))
    return nq * nk - skipped, skipped
'''),
]
RIGHT = [
    (1, "NumPy floats and np.exp", '''
def online_max_sum(xs):
    m, s = np.float64(-np.inf), np.float64(0.0)
    for x in xs:
        m_new = np.maximum(m, x)
        s = s * np.exp(m - m_new) + np.exp(x - m_new)
        m = m_new
    return m, s
'''),
    (2, "max-shifted weights divided by their sum, with np.where guards", '''
def merge_two(o1, lse1, o2, lse2):
    top = np.maximum(lse1, lse2)
    empty = np.isneginf(top)
    safe = np.where(empty, 0.0, top)
    w1, w2 = np.exp(lse1 - safe), np.exp(lse2 - safe)
    total = np.where(empty, 1.0, w1 + w2)
    out = (w1[:, None] * o1 + w2[:, None] * o2) / total[:, None]
    lse = np.where(empty, -np.inf, safe + np.log(total))
    return out, lse
'''),
    (3, "np.where evaluating both branches, warnings silenced", '''
def tile_step(m, l, acc, s, v_tile):
    m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
    with np.errstate(invalid="ignore"):
        p = np.where(np.isneginf(m_new), 0.0, np.exp(s - m_new))
        alpha = np.where(np.isneginf(m_new), 1.0, np.exp(m - m_new))
    return m_new, alpha * l + p.sum(axis=-1, keepdims=True), alpha * acc + p @ v_tile
'''),
    (4, "tile ranges from index arithmetic", '''
def causal_tiles(L, S, block_q, block_k, align="top-left"):
    offset = 0 if align == "top-left" else S - L
    nq, nk = math.ceil(L / block_q), math.ceil(S / block_k)
    computed = 0
    for bi in range(nq):
        last_query = min((bi + 1) * block_q, L) - 1
        computed += sum(bj * block_k <= last_query + offset for bj in range(nk))
    return computed, nq * nk - computed
'''),
]
