"""Wrong answers a learner would plausibly write for chapter 8's exercises, and right ones
that differ from the solution in an allowed way."""
WRONG = [
    (1, "the mean of the cosines, not their sum", '''
def offset_dot(k, E):
    return float(np.cos(k * 10000.0 ** (-np.arange(0, E, 2) / E)).mean())
'''),
    (3, "the angle table given a leading axis of 1: it lines up with the heads", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = np.asarray(positions, dtype=np.float64)[:, :, None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    cos, sin = np.tile(np.cos(ang), 2)[None], np.tile(np.sin(ang), 2)[None]
    rotated = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)
    return x * cos + rotated * sin
'''),
    (5, "rounded to the nearest whole number instead of up", '''
def alibi_reach(H, share):
    return np.round(-np.log1p(-share) / alibi_slopes(H)).astype(int)
'''),
    # --- exercise 6, the inverse: the base for a wanted wavelength
    (6, "base_for: the factor 2 of the exponent lost, (L / 2 pi)^(D / i)", '''
def base_for(D, i, L):
    return float((L / (2 * np.pi)) ** (D / i))
'''),
    (6, "base_for: 2 pi forgotten, L^(D / 2i)", '''
def base_for(D, i, L):
    return float(L ** (D / (2 * i)))
'''),
    (6, "base_for: the exponent upside down, (L / 2 pi)^(2i / D)", '''
def base_for(D, i, L):
    return float((L / (2 * np.pi)) ** (2 * i / D))
'''),
    (6, "base_for: pairs counted from 1", '''
def base_for(D, i, L):
    return float((L / (2 * np.pi)) ** (D / (2 * (i + 1))))
'''),
    (6, "base_for: the base rounded to a whole number", '''
def base_for(D, i, L):
    return round((L / (2 * np.pi)) ** (D / (2 * i)))
'''),
    (6, "base_for: the wavelength taken as 1 / theta (positions per radian)", '''
def base_for(D, i, L):
    return float(L ** (D / (2 * i)) / (2 * np.pi))
'''),
    # --- exercise 8: an NTK-aware base that tunes any pair
    (8, "section 11's base for every j: the slowest pair tuned, not pair j", '''
def ntk_aware_base(D, base, s, j):
    return float(base * s ** (D / (D - 2)))
'''),
    (8, "the chapter's ntk_base called", '''
from attnlab.positional_encoding import ntk_base


def ntk_aware_base(D, base, s, j):
    return float(ntk_base(D, s, base))
'''),
    (8, "base * s: pair j is slowed by s^(2j/D) only", '''
def ntk_aware_base(D, base, s, j):
    return float(base * s)
'''),
    (8, "exponent upside down: base * s^(2j/D)", '''
def ntk_aware_base(D, base, s, j):
    return float(base * s ** (2 * j / D))
'''),
    (8, "the factor 2 lost: base * s^(D/j)", '''
def ntk_aware_base(D, base, s, j):
    return float(base * s ** (D / j))
'''),
    (8, "base / s: the pairs are sped up", '''
def ntk_aware_base(D, base, s, j):
    return float(base / s)
'''),
    (8, "the base rounded to an integer", '''
def ntk_aware_base(D, base, s, j):
    return round(base * s ** (D / (2 * j)))
'''),
    (8, "slowdown with the exponent of base * s: s^(2i/D)", '''
def slowdown(D, s, j):
    return s ** (np.arange(0, D, 2) / D)
'''),
    (8, "slowdown inverted: theta_i' / theta_i", '''
def slowdown(D, s, j):
    return s ** (-np.arange(D // 2) / j)
'''),
    (8, "slowdown of section 11's base for every j", '''
def slowdown(D, s, j):
    return s ** (2 * np.arange(D // 2) / (D - 2))
'''),
    (8, "slowdown linear in the pair index", '''
def slowdown(D, s, j):
    return 1 + (s - 1) * np.arange(D // 2) / j
'''),
    (8, "slowdown counted from pair 1, not pair 0", '''
def slowdown(D, s, j):
    return s ** (np.arange(1, D // 2 + 1) / j)
'''),
    (8, "slowdown as a list of Python floats", '''
def slowdown(D, s, j):
    return [s ** (i / j) for i in range(D // 2)]
'''),
    # --- exercise 1: the dot product of two positions, in closed form
    (1, "a sum of sines", '''
def offset_dot(k, E):
    return float(np.sin(k * 10000.0 ** (-np.arange(0, E, 2) / E)).sum())
'''),
    (1, "one term per column, with the column index in the exponent", '''
def offset_dot(k, E):
    return float(np.cos(k * 10000.0 ** (-np.arange(E) / E)).sum())
'''),
    (1, "every pair turned by k: E/2 cos(k)", '''
def offset_dot(k, E):
    return float(E / 2 * np.cos(k))
'''),
    (1, "each pair counted twice (the sine and the cosine columns)", '''
def offset_dot(k, E):
    return float(2 * np.cos(k * 10000.0 ** (-np.arange(0, E, 2) / E)).sum())
'''),
    (1, "frequencies 10000^(+2i/E)", '''
def offset_dot(k, E):
    return float(np.cos(k * 10000.0 ** (np.arange(0, E, 2) / E)).sum())
'''),
    (1, "frequencies 10000^(-i/E) with the pair index i: the factor 2 dropped", '''
def offset_dot(k, E):
    return float(np.cos(k * 10000.0 ** (-np.arange(E // 2) / E)).sum())
'''),
    (1, "computed in float32 (within 1e-5, not within the stated 1e-8)", '''
def offset_dot(k, E):
    omega = (10000.0 ** (-np.arange(0, E, 2) / E)).astype(np.float32)
    return float(np.cos(np.float32(k) * omega).sum())
'''),
    (1, "the array of terms, not their sum", '''
def offset_dot(k, E):
    return np.cos(k * 10000.0 ** (-np.arange(0, E, 2) / E))
'''),
    (1, "an int for k = 0 (the type asserted on every case)", '''
def offset_dot(k, E):
    if k == 0:
        return E // 2
    return float(np.cos(k * 10000.0 ** (-np.arange(0, E, 2) / E)).sum())
'''),
    (1, "measured from two rows of the chapter's table", '''
def offset_dot(k, E):
    pe = sinusoidal_pe_np(abs(k) + 1, E)
    return float(pe[0] @ pe[abs(k)])
'''),
    # --- exercise 3: rotate-half RoPE for a batch of positions
    (3, "every sequence turned by the positions of sequence 0", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = np.asarray(positions[0], dtype=np.float64)[:, None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    cos, sin = np.tile(np.cos(ang), 2), np.tile(np.sin(ang), 2)
    rotated = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)
    return x * cos + rotated * sin
'''),
    (3, "the tables (B, T, D) without a head axis: they line up with the heads", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = np.asarray(positions, dtype=np.float64)[..., None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    cos, sin = np.tile(np.cos(ang), 2), np.tile(np.sin(ang), 2)
    rotated = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)
    return x * cos + rotated * sin
'''),
    (3, "the interleaved layout instead of rotate-half", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = (np.asarray(positions, dtype=np.float64)[..., None]
           * 10000.0 ** (-np.arange(0, D, 2) / D))[:, None]
    cos, sin = np.cos(ang), np.sin(ang)
    out = np.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * cos - x[..., 1::2] * sin
    out[..., 1::2] = x[..., 0::2] * sin + x[..., 1::2] * cos
    return out
'''),
    (3, "rotate_half with the sign on the wrong half", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = np.asarray(positions, dtype=np.float64)[..., None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    cos, sin = np.tile(np.cos(ang), 2)[:, None], np.tile(np.sin(ang), 2)[:, None]
    rotated = np.concatenate([x[..., D // 2:], -x[..., :D // 2]], axis=-1)
    return x * cos + rotated * sin
'''),
    (3, "cos/sin tables repeated element by element (np.repeat) instead of tiled", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = np.asarray(positions, dtype=np.float64)[..., None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    cos, sin = np.repeat(np.cos(ang), 2, -1)[:, None], np.repeat(np.sin(ang), 2, -1)[:, None]
    rotated = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)
    return x * cos + rotated * sin
'''),
    (3, "positions ignored: every sequence at 0 .. T-1", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D, T = x.shape[-1], x.shape[-2]
    ang = np.arange(T)[:, None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    cos, sin = np.tile(np.cos(ang), 2), np.tile(np.sin(ang), 2)
    rotated = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)
    return x * cos + rotated * sin
'''),
    (3, "rotates the caller's array in place (np.asarray does not copy float64)", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D, h = x.shape[-1], x.shape[-1] // 2
    ang = (np.asarray(positions, dtype=np.float64)[..., None]
           * 10000.0 ** (-np.arange(0, D, 2) / D))[:, None]
    a, b = x[..., :h].copy(), x[..., h:].copy()
    x[..., :h] = a * np.cos(ang) - b * np.sin(ang)
    x[..., h:] = a * np.sin(ang) + b * np.cos(ang)
    return x
'''),
    (3, "angles computed in float32: off by up to 0.06 rad at a million", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    theta = (10000.0 ** (-np.arange(0, D, 2) / D)).astype(np.float32)
    ang = (np.asarray(positions, dtype=np.float32)[..., None] * theta).astype(np.float64)
    cos, sin = np.tile(np.cos(ang), 2)[:, None], np.tile(np.sin(ang), 2)[:, None]
    rotated = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)
    return x * cos + rotated * sin
'''),
    (3, "the head size hard-coded to 8", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = np.asarray(positions, dtype=np.float64)[..., None] * 10000.0 ** (-np.arange(0, D, 2) / 8)
    cos, sin = np.tile(np.cos(ang), 2)[:, None], np.tile(np.sin(ang), 2)[:, None]
    rotated = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)
    return x * cos + rotated * sin
'''),
    (3, "a loop over the sequences with the chapter's rope_rotate_half_np", '''
def rope_half_batched(x, positions):
    return np.stack([rope_rotate_half_np(x[b], positions[b]) for b in range(len(x))])
'''),
    (3, "a float32 result (the statement asks for float64)", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = np.asarray(positions, dtype=np.float64)[..., None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    cos, sin = np.tile(np.cos(ang), 2)[:, None], np.tile(np.sin(ang), 2)[:, None]
    rotated = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)
    return (x * cos + rotated * sin).astype(np.float32)
'''),
    # --- exercise 5: how far back an ALiBi head looks
    (5, "rounded down: each head one key short of the share", '''
def alibi_reach(H, share):
    return np.floor(-np.log1p(-share) / alibi_slopes(H)).astype(int)
'''),
    (5, "the query's own key not counted: one key too many", '''
def alibi_reach(H, share):
    return np.ceil(-np.log1p(-share) / alibi_slopes(H)).astype(int) + 1
'''),
    (5, "the naive slopes 2^(-8h/H), also when H is not a power of 2", '''
def alibi_reach(H, share):
    m = 2.0 ** (-8.0 * np.arange(1, H + 1) / H)
    return np.ceil(-np.log1p(-share) / m).astype(int)
'''),
    (5, "the share of the weight left outside: log(share) instead of log(1 - share)", '''
def alibi_reach(H, share):
    return np.ceil(-np.log(share) / alibi_slopes(H)).astype(int)
'''),
    (5, "multiplied by the slope instead of divided", '''
def alibi_reach(H, share):
    return np.ceil(-np.log1p(-share) * alibi_slopes(H)).astype(int)
'''),
    (5, "a float array (a number of keys is a whole number)", '''
def alibi_reach(H, share):
    return np.ceil(-np.log1p(-share) / alibi_slopes(H))
'''),
    (5, "the heads in reverse order (slopes sorted from small to large)", '''
def alibi_reach(H, share):
    return np.ceil(-np.log1p(-share) / np.sort(alibi_slopes(H))).astype(int)
'''),
    (5, "keys counted from distance 1: the share of an unlimited past taken as m n", '''
def alibi_reach(H, share):
    return np.ceil(share / alibi_slopes(H)).astype(int)
'''),
    (7, "prediction() that runs the measurement instead of predicting", '''
def prediction():
    bos, word = np.random.default_rng(0).normal(size=(2, E))
    return {"a": distinct_rows(np.tile(word, (10, 1)), W_q, W_k, W_v, True), "b": 10, "c": 2}
'''),
    (7, "prediction() that reads a variable set elsewhere", '''
my_guess = {"a": 1, "b": 10, "c": 2}


def prediction():
    return my_guess
'''),
    (7, "prediction as text, not whole numbers", '''
def prediction():
    return {"a": "1", "b": "10", "c": "2"}
'''),
    # --- exercise 2: the shift matrix of the concatenated table
    (2, "the interleaved table's M_k (sinusoidal_shift_matrix_np) unchanged", '''
def shift_matrix_concat(k, E):
    return sinusoidal_shift_matrix_np(k, E)
'''),
    (2, "the transpose: shifts by -k (the sine entries with the wrong signs)", '''
def shift_matrix_concat(k, E):
    b = k * 10000.0 ** (-np.arange(0, E, 2) / E)
    i, h = np.arange(E // 2), E // 2
    M = np.zeros((E, E))
    M[i, i], M[i, i + h] = np.cos(b), -np.sin(b)
    M[i + h, i], M[i + h, i + h] = np.sin(b), np.cos(b)
    return M
'''),
    (2, "angle k for every pair, forgetting the frequencies", '''
def shift_matrix_concat(k, E):
    i, h = np.arange(E // 2), E // 2
    M = np.zeros((E, E))
    M[i, i], M[i, i + h] = np.cos(k), np.sin(k)
    M[i + h, i], M[i + h, i + h] = -np.sin(k), np.cos(k)
    return M
'''),
    (2, "the interleaved matrix with only its rows reordered", '''
def shift_matrix_concat(k, E):
    order = np.concatenate([np.arange(0, E, 2), np.arange(1, E, 2)])
    return sinusoidal_shift_matrix_np(k, E)[order]
'''),
    (2, "the inverse reordering applied to rows and columns", '''
def shift_matrix_concat(k, E):
    back = np.argsort(np.concatenate([np.arange(0, E, 2), np.arange(1, E, 2)]))
    return sinusoidal_shift_matrix_np(k, E)[np.ix_(back, back)]
'''),
    (2, "cos and sin swapped inside each rotation", '''
def shift_matrix_concat(k, E):
    b = k * 10000.0 ** (-np.arange(0, E, 2) / E)
    i, h = np.arange(E // 2), E // 2
    M = np.zeros((E, E))
    M[i, i], M[i, i + h] = np.sin(b), np.cos(b)
    M[i + h, i], M[i + h, i + h] = -np.cos(b), np.sin(b)
    return M
'''),
    (2, "the blocks placed on the diagonal in 2 x 2 pieces, as in the interleaved layout", '''
def shift_matrix_concat(k, E):
    b = k * 10000.0 ** (-np.arange(0, E, 2) / E)
    M = np.zeros((E, E))
    for i in range(E // 2):
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(b[i]), np.sin(b[i])],
                                               [-np.sin(b[i]), np.cos(b[i])]]
    return M
'''),
    (2, "abs(k): right for k >= 0 only", '''
def shift_matrix_concat(k, E):
    b = abs(k) * 10000.0 ** (-np.arange(0, E, 2) / E)
    i, h = np.arange(E // 2), E // 2
    M = np.zeros((E, E))
    M[i, i], M[i, i + h] = np.cos(b), np.sin(b)
    M[i + h, i], M[i + h, i + h] = -np.sin(b), np.cos(b)
    return M
'''),
    # --- exercise 4: port rotate-half weights to interleaved
    (4, "section 8's direction: the columns in the order interleaved_to_half_perm", '''
def port_to_interleaved(W, H):
    W = np.asarray(W)
    D = W.shape[1] // H
    cols = np.concatenate([h * D + interleaved_to_half_perm(D) for h in range(H)])
    return W[:, cols]
'''),
    (4, "head size taken as E // H (rows), not H*D / H", '''
def port_to_interleaved(W, H):
    W = np.asarray(W)
    D = W.shape[0] // H
    back = np.argsort(interleaved_to_half_perm(D))
    return W[:, np.concatenate([h * D + back for h in range(H)])]
'''),
    (4, "one inverse permutation over all H*D columns, ignoring the heads", '''
def port_to_interleaved(W, H):
    W = np.asarray(W)
    return W[:, np.argsort(interleaved_to_half_perm(W.shape[1]))]
'''),
    (4, "rows permuted instead of columns", '''
def port_to_interleaved(W, H):
    W = np.asarray(W)
    D = W.shape[1] // H
    back = np.argsort(interleaved_to_half_perm(D))
    return W[np.concatenate([h * D + back for h in range(H)]), :]
'''),
    (4, "weights left as they are", '''
def port_to_interleaved(W, H):
    return np.asarray(W).copy()
'''),
    (4, "odd columns first, then even", '''
def port_to_interleaved(W, H):
    W = np.asarray(W)
    D = W.shape[1] // H
    within = np.concatenate([np.arange(1, D, 2), np.arange(0, D, 2)])
    return W[:, (np.arange(H)[:, None] * D + within).ravel()]
'''),
    (4, "the reshape trick that goes interleaved -> rotate-half (pairs swapped the wrong way)", '''
def port_to_interleaved(W, H):
    W = np.asarray(W)
    E_in, HD = W.shape
    D = HD // H
    return W.reshape(E_in, H, D // 2, 2).transpose(0, 1, 3, 2).reshape(E_in, HD)
'''),
    # --- exercise 6: RoPE wavelengths
    (6, "the factor 2 of the exponent dropped: base**(i/D)", '''
def wavelengths(D, base):
    return 2 * np.pi * base ** (np.arange(D // 2) / D)


def slow_pairs(D, base, L):
    return int((wavelengths(D, base) > L).sum())
'''),
    (6, "slow_pairs counts the pairs that do complete a turn", '''
def wavelengths(D, base):
    return 2 * np.pi * base ** (np.arange(0, D, 2) / D)


def slow_pairs(D, base, L):
    return int((wavelengths(D, base) <= L).sum())
'''),
    (6, "slow_pairs with the wavelength compared with L / (2 pi): 2 pi counted twice", '''
def wavelengths(D, base):
    return 2 * np.pi * base ** (np.arange(0, D, 2) / D)


def slow_pairs(D, base, L):
    return int((wavelengths(D, base) > L / (2 * np.pi)).sum())
'''),
    (6, "slow_pairs returns the array of flags, not the count", '''
def wavelengths(D, base):
    return 2 * np.pi * base ** (np.arange(0, D, 2) / D)


def slow_pairs(D, base, L):
    return wavelengths(D, base) > L
'''),
    # --- exercise 7: what a causal layer without positions can tell
    (7, "distinct_rows compares rows with == (exact equality)", '''
def distinct_rows(x, W_q, W_k, W_v, causal):
    L = x.shape[0]
    out, _ = self_attention_np(x, W_q, W_k, W_v, causal_mask_np(L) if causal else None)
    return len({tuple(row) for row in out})
'''),
    (7, "distinct_rows with the mask inverted", '''
def distinct_rows(x, W_q, W_k, W_v, causal):
    L = x.shape[0]
    out, _ = self_attention_np(x, W_q, W_k, W_v, None if causal else causal_mask_np(L))
    kept = []
    for row in out:
        if not any(np.abs(row - r).max() <= 1e-9 for r in kept):
            kept.append(row)
    return len(kept)
'''),
    (7, "distinct_rows always applies the causal mask", '''
def distinct_rows(x, W_q, W_k, W_v, causal):
    out, _ = self_attention_np(x, W_q, W_k, W_v, causal_mask_np(x.shape[0]))
    kept = []
    for row in out:
        if not any(np.abs(row - r).max() <= 1e-9 for r in kept):
            kept.append(row)
    return len(kept)
'''),
    (7, "distinct_rows counts the distinct input rows, not the outputs", '''
def distinct_rows(x, W_q, W_k, W_v, causal):
    kept = []
    for row in x:
        if not any(np.abs(row - r).max() <= 1e-9 for r in kept):
            kept.append(row)
    return len(kept)
'''),
    (2, "the interleaved matrix with only its columns reordered", '''
def shift_matrix_concat(k, E):
    order = np.r_[np.arange(0, E, 2), np.arange(1, E, 2)]
    return sinusoidal_shift_matrix_np(k, E)[:, order]
'''),
    (2, "the angles in float32 (off by about 1e-8)", '''
def shift_matrix_concat(k, E):
    w = (10000 ** (-2 * np.arange(E // 2) / E)).astype(np.float32)
    c, s = np.diag(np.cos(k * w)), np.diag(np.sin(k * w))
    return np.block([[c, s], [-s, c]]).astype(np.float64)
'''),
    (6, "one wavelength per dimension (D of them) instead of per pair", '''
def wavelengths(D, base):
    return 2 * np.pi * base ** (np.arange(D) / D)


def slow_pairs(D, base, L):
    return int(np.sum(wavelengths(D, base) > L))
'''),
    # --- added by the outside-reader pass (slipped through, or caught with a wrong message)
    (4, "the reordered columns written back into the caller's W", '''
def port_to_interleaved(W, H):
    W = np.asarray(W)
    D = W.shape[1] // H
    back = np.argsort(interleaved_to_half_perm(D))
    W[:] = W[:, np.concatenate([h * D + back for h in range(H)])]
    return W
'''),
    (6, "slow_pairs over L - 1 steps (positions 0 .. L-1): wavelength > L - 1", '''
def wavelengths(D, base):
    return 2 * np.pi * base ** (np.arange(0, D, 2) / D)


def slow_pairs(D, base, L):
    return int((wavelengths(D, base) > L - 1).sum())
'''),
    (6, "slow_pairs with the wavelengths cut to integers (int(62.8) = 62)", '''
def wavelengths(D, base):
    return 2 * np.pi * base ** (np.arange(0, D, 2) / D)


def slow_pairs(D, base, L):
    return int((wavelengths(D, base).astype(int) > L).sum())
'''),
    (7, "distinct_rows with np.allclose's default tolerances (atol=1e-8, rtol=1e-5)", '''
def distinct_rows(x, W_q, W_k, W_v, causal):
    L = x.shape[0]
    out, _ = self_attention_np(x, W_q, W_k, W_v, causal_mask_np(L) if causal else None)
    return sum(1 for i in range(L) if not any(np.allclose(out[i], out[j]) for j in range(i)))
'''),
    (7, "distinct_rows by rounding to 3 decimals, then np.unique", '''
def distinct_rows(x, W_q, W_k, W_v, causal):
    L = x.shape[0]
    out, _ = self_attention_np(x, W_q, W_k, W_v, causal_mask_np(L) if causal else None)
    return len(np.unique(out.round(3), axis=0))
'''),
    (7, "distinct_rows counts the distinct rows of the weights, not of the output", '''
def distinct_rows(x, W_q, W_k, W_v, causal):
    L = x.shape[0]
    _, w = self_attention_np(x, W_q, W_k, W_v, causal_mask_np(L) if causal else None)
    kept = []
    for row in w:
        if not any(np.abs(row - r).max() <= 1e-9 for r in kept):
            kept.append(row)
    return len(kept)
'''),
    # --- exercise 9: T5's bias for a cached decoder
    (9, "queries at positions 0 .. L-1 (top-left), not the last L", '''
def t5_bias(table, L, S, bidirectional):
    rel = np.arange(S)[None, :] - np.arange(L)[:, None]
    return table[:, t5_relative_bucket_np(rel, bidirectional, num_buckets=table.shape[1])]
'''),
    (9, "offsets query minus key", '''
def t5_bias(table, L, S, bidirectional):
    rel = (np.arange(L)[:, None] + S - L) - np.arange(S)[None, :]
    return table[:, t5_relative_bucket_np(rel, bidirectional, num_buckets=table.shape[1])]
'''),
    (9, "num_buckets left at its default of 32", '''
def t5_bias(table, L, S, bidirectional):
    rel = np.arange(S)[None, :] - (np.arange(L)[:, None] + S - L)
    return table[:, t5_relative_bucket_np(rel, bidirectional)]
'''),
    (9, "bidirectional ignored (always the encoder's buckets)", '''
def t5_bias(table, L, S, bidirectional):
    rel = np.arange(S)[None, :] - (np.arange(L)[:, None] + S - L)
    return table[:, t5_relative_bucket_np(rel, True, num_buckets=table.shape[1])]
'''),
    (9, "the table indexed by bucket first: (L, S, H)", '''
def t5_bias(table, L, S, bidirectional):
    rel = np.arange(S)[None, :] - (np.arange(L)[:, None] + S - L)
    return table.T[t5_relative_bucket_np(rel, bidirectional, num_buckets=table.shape[1])]
'''),
    (9, "the offset of the cache counted as S - L - 1", '''
def t5_bias(table, L, S, bidirectional):
    rel = np.arange(S)[None, :] - (np.arange(L)[:, None] + S - L - 1)
    return table[:, t5_relative_bucket_np(rel, bidirectional, num_buckets=table.shape[1])]
'''),
    # --- third reader's slips
    (3, "tables (1, B, T, D): lined up with the heads (crashes when B != H)", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = np.asarray(positions, dtype=np.float64)[..., None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    cos, sin = np.tile(np.cos(ang), 2)[None], np.tile(np.sin(ang), 2)[None]
    rotated = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)
    return x * cos + rotated * sin
'''),
    (3, "tables (B, T, 1, D): the time axis lined up with the heads", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = np.asarray(positions, dtype=np.float64)[..., None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    cos, sin = np.tile(np.cos(ang), 2)[:, :, None], np.tile(np.sin(ang), 2)[:, :, None]
    rotated = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)
    return x * cos + rotated * sin
'''),
    (7, "distinct_rows with a tolerance of 1e-12, stricter than the task's 1e-9", '''
def distinct_rows(x, W_q, W_k, W_v, causal):
    L = x.shape[0]
    out, _ = self_attention_np(x, W_q, W_k, W_v, causal_mask_np(L) if causal else None)
    kept = []
    for row in out:
        if not any(np.abs(row - r).max() <= 1e-12 for r in kept):
            kept.append(row)
    return len(kept)
'''),
    (7, "distinct_rows with a tolerance of 1e-15", '''
def distinct_rows(x, W_q, W_k, W_v, causal):
    L = x.shape[0]
    out, _ = self_attention_np(x, W_q, W_k, W_v, causal_mask_np(L) if causal else None)
    kept = []
    for row in out:
        if not any(np.abs(row - r).max() <= 1e-15 for r in kept):
            kept.append(row)
    return len(kept)
'''),
    (7, "prediction() with the measurement carried in through a default argument", '''
def prediction(counts={"a": 1, "b": 10, "c": 2}):
    return counts
'''),
    (7, "prediction() with a keyword-only default", '''
def prediction(*, counts={"a": 1, "b": 10, "c": 2}):
    return counts
'''),
    (9, "queries at S - L + 1 + r: one position too late", '''
def t5_bias(table, L, S, bidirectional):
    rel = np.arange(S)[None, :] - (np.arange(L)[:, None] + S - L + 1)
    return table[:, t5_relative_bucket_np(rel, bidirectional, num_buckets=table.shape[1])]
'''),
    (9, "the table cast to float32, the result back to float64", '''
def t5_bias(table, L, S, bidirectional):
    rel = np.arange(S)[None, :] - (np.arange(L)[:, None] + S - L)
    small = np.asarray(table, dtype=np.float32)
    buckets = t5_relative_bucket_np(rel, bidirectional, num_buckets=table.shape[1])
    return small[:, buckets].astype(np.float64)
'''),
]

RIGHT = [
    (6, "base_for through exp and log, as a NumPy float", '''
def base_for(D, i, L):
    return np.exp(D / (2 * i) * np.log(L / (2 * np.pi)))
'''),
    (6, "slow_pairs through the chapter's rope_wavelengths_np", '''
from attnlab.positional_encoding import rope_wavelengths_np


def slow_pairs(D, base, L):
    return int(np.count_nonzero(rope_wavelengths_np(D, base) > L))
'''),
    (8, "the base through exp and log, as a NumPy float", '''
def ntk_aware_base(D, base, s, j):
    return np.exp(np.log(base) + D / (2 * j) * np.log(s))
'''),
    (8, "slowdown as the ratio of two frequency tables", '''
def slowdown(D, s, j):
    theta = 10000.0 ** (-np.arange(0, D, 2) / D)
    new = (10000.0 * s ** (D / (2 * j))) ** (-np.arange(0, D, 2) / D)
    return theta / new
'''),
    (1, "a loop over the pairs with math.cos", '''
import math


def offset_dot(k, E):
    return sum(math.cos(k * 10000.0 ** (-2 * i / E)) for i in range(E // 2))
'''),
    (1, "the real part of a sum of complex exponentials, through the chapter's frequencies", '''
from attnlab.positional_encoding import sinusoidal_freqs_np


def offset_dot(k, E):
    return float(np.exp(1j * k * sinusoidal_freqs_np(E)).sum().real)
'''),
    (1, "abs(k): the cosine is even", '''
def offset_dot(k, E):
    return float(np.cos(abs(k) * 10000.0 ** (-np.arange(0, E, 2) / E)).sum())
'''),
    (1, "a NumPy float64 scalar", '''
def offset_dot(k, E):
    return np.cos(k * np.exp(-np.log(10000.0) * np.arange(0, E, 2) / E)).sum()
'''),
    (3, "a loop over sequences and heads with one's own 1-D rotation", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    B, H, T, D = x.shape
    out = np.empty_like(x)
    theta = 10000.0 ** (-np.arange(0, D, 2) / D)
    for b in range(B):
        ang = np.asarray(positions[b], dtype=np.float64)[:, None] * theta
        c, s = np.cos(ang), np.sin(ang)
        for h in range(H):
            a, z = x[b, h, :, :D // 2], x[b, h, :, D // 2:]
            out[b, h] = np.concatenate([a * c - z * s, a * s + z * c], axis=-1)
    return out
'''),
    (3, "complex numbers: (x_i + 1j x_{i+D/2}) * exp(1j p theta_i)", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    z = x[..., :D // 2] + 1j * x[..., D // 2:]
    ang = np.asarray(positions, dtype=np.float64)[:, None, :, None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    r = z * np.exp(1j * ang)
    return np.concatenate([r.real, r.imag], axis=-1)
'''),
    (3, "a four-axis angle table built directly", '''
def rope_half_batched(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = np.asarray(positions)[:, None, :, None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    a, b = x[..., :D // 2], x[..., D // 2:]
    return np.concatenate([a * np.cos(ang) - b * np.sin(ang), a * np.sin(ang) + b * np.cos(ang)], -1)
'''),
    (5, "counted by summing the weights, key by key", '''
import math


def alibi_reach(H, share):
    out = []
    for m in alibi_slopes(H):
        total, n = 1.0 / (1.0 - math.exp(-m)), 0
        kept = 0.0
        while kept < share * total:
            kept += math.exp(-m * n)
            n += 1
        out.append(n)
    return np.array(out)
'''),
    (5, "through log2 and the slope exponents", '''
def alibi_reach(H, share):
    return np.ceil(np.log2(1.0 / (1.0 - share)) * np.log(2) / alibi_slopes(H)).astype(np.int64)
'''),
    (2, "the interleaved M_k with rows and columns reordered alike", '''
def shift_matrix_concat(k, E):
    order = np.concatenate([np.arange(0, E, 2), np.arange(1, E, 2)])
    return sinusoidal_shift_matrix_np(k, E)[np.ix_(order, order)]
'''),
    (2, "a Python loop over the pairs", '''
def shift_matrix_concat(k, E):
    h = E // 2
    M = np.zeros((E, E))
    for i in range(h):
        b = k * 10000.0 ** (-2 * i / E)
        M[i, i], M[i, i + h] = np.cos(b), np.sin(b)
        M[i + h, i], M[i + h, i + h] = -np.sin(b), np.cos(b)
    return M
'''),
    (2, "block form from diagonal matrices", '''
def shift_matrix_concat(k, E):
    b = k * 10000.0 ** (-np.arange(0, E, 2) / E)
    c, s = np.diag(np.cos(b)), np.diag(np.sin(b))
    return np.block([[c, s], [-s, c]])
'''),
    (4, "reshape per head into (2, D/2) halves and swap the last two axes", '''
def port_to_interleaved(W, H):
    W = np.asarray(W)
    E_in, HD = W.shape
    D = HD // H
    return W.reshape(E_in, H, 2, D // 2).transpose(0, 1, 3, 2).reshape(E_in, HD)
'''),
    (4, "the inverse built by scattering", '''
def port_to_interleaved(W, H):
    W = np.asarray(W)
    D = W.shape[1] // H
    p = interleaved_to_half_perm(D)
    inv = np.empty_like(p)
    inv[p] = np.arange(D)
    return np.concatenate([W[:, h * D:(h + 1) * D][:, inv] for h in range(H)], axis=1)
'''),
    (6, "theta through exp and log; the count with np.count_nonzero", '''
def wavelengths(D, base):
    return 2 * np.pi * np.exp(np.log(base) * 2 * np.arange(D // 2) / D)


def slow_pairs(D, base, L):
    return np.count_nonzero(L * base ** (-np.arange(0, D, 2) / D) < 2 * np.pi)
'''),
    (6, "a closed form for the count: pairs i with 2 pi base^(2i/D) > L", '''
def wavelengths(D, base):
    return 2 * np.pi * base ** (np.arange(0, D, 2) / D)


def slow_pairs(D, base, L):
    first = np.floor(D / 2 * np.log(L / (2 * np.pi)) / np.log(base)) + 1
    return int(D // 2 - np.clip(first, 0, D // 2))
'''),
    (7, "distinct_rows through the pairwise distance matrix", '''
def distinct_rows(x, W_q, W_k, W_v, causal):
    L = x.shape[0]
    out, _ = self_attention_np(x, W_q, W_k, W_v, causal_mask_np(L) if causal else None)
    close = np.abs(out[:, None, :] - out[None, :, :]).max(-1) <= 1e-9
    return sum(1 for i in range(L) if not close[i, :i].any())
'''),
    # --- added by the outside-reader pass
    (6, "slow_pairs with ceil(wavelength) > L (the same for an integer L)", '''
def wavelengths(D, base):
    return 2 * np.pi * base ** (np.arange(0, D, 2) / D)


def slow_pairs(D, base, L):
    return int((np.ceil(wavelengths(D, base)) > L).sum())
'''),
    (9, "a loop over query rows", '''
def t5_bias(table, L, S, bidirectional):
    H, N = table.shape
    out = np.empty((H, L, S))
    for r in range(L):
        rel = np.arange(S) - (S - L + r)
        out[:, r, :] = table[:, t5_relative_bucket_np(rel, bidirectional, N)]
    return out
'''),
    (9, "np.take along the bucket axis", '''
def t5_bias(table, L, S, bidirectional):
    q = np.arange(S - L, S)
    b = t5_relative_bucket_np(np.arange(S)[None, :] - q[:, None], bidirectional,
                              num_buckets=table.shape[1])
    return np.take(np.asarray(table, dtype=float), b, axis=1)
'''),
    (6, "slow_pairs through rope_inv_freq_np, imported by the setup cell", '''
def slow_pairs(D, base, L):
    return int((2 * np.pi / rope_inv_freq_np(D, base) > L).sum())
'''),
    (6, "slow_pairs through rope_wavelengths_np with no import of its own", '''
def slow_pairs(D, base, L):
    return int((rope_wavelengths_np(D, base) > L).sum())
'''),
    (7, "distinct_rows with a tolerance of exactly 1e-9 via np.allclose(rtol=0)", '''
def distinct_rows(x, W_q, W_k, W_v, causal):
    L = x.shape[0]
    out, _ = self_attention_np(x, W_q, W_k, W_v, causal_mask_np(L) if causal else None)
    return sum(1 for i in range(L)
               if not any(np.allclose(out[i], out[j], rtol=0, atol=1e-9) for j in range(i)))
'''),
]
