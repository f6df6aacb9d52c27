"""Wrong answers a learner would plausibly write for chapter 8's exercises, and right ones
that differ from the solution in an allowed way."""
WRONG = [
    # --- exercise 1: the sinusoidal table
    (1, "sin and cos swapped (cos in the even columns)", '''
def sinusoidal_table(n_positions, E):
    omega = 10000.0 ** (-np.arange(0, E, 2) / E)
    angles = np.arange(n_positions)[:, None] * omega
    pe = np.zeros((n_positions, E))
    pe[:, 0::2], pe[:, 1::2] = np.cos(angles), np.sin(angles)
    return pe
'''),
    (1, "exponent j/E with the column index j, so odd columns get their own frequency", '''
def sinusoidal_table(n_positions, E):
    j = np.arange(E)
    angles = np.arange(n_positions)[:, None] / 10000.0 ** (j / E)
    return np.where(j % 2 == 0, np.sin(angles), np.cos(angles))
'''),
    (1, "positions counted from 1", '''
def sinusoidal_table(n_positions, E):
    omega = 10000.0 ** (-np.arange(0, E, 2) / E)
    angles = np.arange(1, n_positions + 1)[:, None] * omega
    pe = np.zeros((n_positions, E))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles)
    return pe
'''),
    (1, "all sines then all cosines (the concatenated layout, not the paper's)", '''
def sinusoidal_table(n_positions, E):
    omega = 10000.0 ** (-np.arange(0, E, 2) / E)
    angles = np.arange(n_positions)[:, None] * omega
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
'''),
    (1, "frequencies base**(+2i/E) instead of base**(-2i/E)", '''
def sinusoidal_table(n_positions, E):
    omega = 10000.0 ** (np.arange(0, E, 2) / E)
    angles = np.arange(n_positions)[:, None] * omega
    pe = np.zeros((n_positions, E))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles)
    return pe
'''),
    (1, "frequencies over E/2 instead of E (exponent -i/(E/2) with i = 0, 2, 4, ...)", '''
def sinusoidal_table(n_positions, E):
    omega = 10000.0 ** (-np.arange(0, E, 2) / (E // 2))
    angles = np.arange(n_positions)[:, None] * omega
    pe = np.zeros((n_positions, E))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles)
    return pe
'''),
    (1, "the chapter's function called", '''
def sinusoidal_table(n_positions, E):
    return sinusoidal_pe_np(n_positions, E)
'''),
    (1, "the cosines forgotten: the odd columns left at zero", '''
def sinusoidal_table(n_positions, E):
    omega = 10000.0 ** (-np.arange(0, E, 2) / E)
    angles = np.arange(n_positions)[:, None] * omega
    pe = np.zeros((n_positions, E))
    pe[:, 0::2] = np.sin(angles)
    return pe
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
    # --- exercise 3: rotate-half RoPE with positions
    (3, "the interleaved layout instead of rotate-half", '''
def rope_half(x, positions):
    return rope_interleaved_np(x, positions)
'''),
    (3, "rotate_half with the sign on the wrong half", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = np.asarray(positions)[:, None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    cos, sin = np.tile(np.cos(ang), 2), np.tile(np.sin(ang), 2)
    rotated = np.concatenate([x[..., D // 2:], -x[..., :D // 2]], axis=-1)
    return x * cos + rotated * sin
'''),
    (3, "positions ignored: always 0 .. T-1 (wrong in a cached step)", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D, T = x.shape[-1], x.shape[-2]
    ang = np.arange(T)[:, None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    cos, sin = np.tile(np.cos(ang), 2), np.tile(np.sin(ang), 2)
    rotated = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)
    return x * cos + rotated * sin
'''),
    (3, "frequencies 10000**(-i/D) (the factor 2 dropped)", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = np.asarray(positions)[:, None] * 10000.0 ** (-np.arange(D // 2) / D)
    cos, sin = np.tile(np.cos(ang), 2), np.tile(np.sin(ang), 2)
    rotated = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)
    return x * cos + rotated * sin
'''),
    (3, "cos/sin tables interleaved (repeat) instead of tiled", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = np.asarray(positions)[:, None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    cos, sin = np.repeat(np.cos(ang), 2, axis=-1), np.repeat(np.sin(ang), 2, axis=-1)
    rotated = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)
    return x * cos + rotated * sin
'''),
    (3, "positions taken as start + arange(T): right only for a contiguous range", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D, T = x.shape[-1], x.shape[-2]
    theta = 10000.0 ** (-np.arange(0, D, 2) / D)
    ang = (positions[0] + np.arange(T))[:, None] * theta
    cos, sin = np.concatenate([np.cos(ang)] * 2, -1), np.concatenate([np.sin(ang)] * 2, -1)
    return x * cos + np.concatenate([-x[..., D // 2:], x[..., :D // 2]], -1) * sin
'''),
    (3, "rotates the caller's array in place (np.asarray does not copy float64)", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    h = x.shape[-1] // 2
    ang = np.asarray(positions, dtype=np.float64)[:, None] * 10000.0 ** (-np.arange(h) / h)
    c, s = np.cos(ang), np.sin(ang)
    x1, x2 = x[..., :h].copy(), x[..., h:].copy()
    x[..., :h], x[..., h:] = x1 * c - x2 * s, x1 * s + x2 * c
    return x
'''),
    (3, "in place with +=: the first half already rotated when the second half is computed", '''
def rope_half(x, positions):
    out = np.array(x, dtype=np.float64)
    h = out.shape[-1] // 2
    ang = np.asarray(positions)[:, None] * 10000.0 ** (-np.arange(h) / h)
    c, s = np.cos(ang), np.sin(ang)
    out[..., :h] = out[..., :h] * c - out[..., h:] * s
    out[..., h:] = out[..., :h] * s + out[..., h:] * c
    return out
'''),
    (3, "angles computed in float32: fine near 0, off by up to 0.06 rad at a million", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    theta = (10000.0 ** (-np.arange(0, D, 2) / D)).astype(np.float32)
    ang = (np.asarray(positions).astype(np.float32)[:, None] * theta).astype(np.float64)
    cos, sin = np.tile(np.cos(ang), 2), np.tile(np.sin(ang), 2)
    return x * cos + np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1) * sin
'''),
    (3, "the chapter's function called", '''
def rope_half(x, positions):
    return rope_rotate_half_np(x, positions)
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
    # --- exercise 5: ALiBi slopes
    (5, "2**(-8h/H) for every H, also when H is not a power of 2", '''
def slopes(H):
    return 2.0 ** (-8.0 * np.arange(1, H + 1) / H)
'''),
    (5, "1/2**h: right for H = 8 only", '''
def slopes(H):
    return 1.0 / 2.0 ** np.arange(1, H + 1)
'''),
    (5, "h counted from 0, so the first slope is 1", '''
def slopes(H):
    return 2.0 ** (-8.0 * np.arange(H) / H)
'''),
    (5, "the paper's recipe, but sorted from large to small", '''
def slopes(H):
    def power_of_2(n):
        return 2.0 ** (-8.0 * np.arange(1, n + 1) / n)
    n = 2 ** int(np.floor(np.log2(H)))
    s = power_of_2(H)
    if n != H:
        s = np.concatenate([power_of_2(n), power_of_2(2 * n)[0::2][:H - n]])
    return np.sort(s)[::-1]
'''),
    (5, "the next power of 2 above H, cut to H slopes", '''
def slopes(H):
    n = 2 ** int(np.ceil(np.log2(H)))
    return (2.0 ** (-8.0 * np.arange(1, n + 1) / n))[:H]
'''),
    (5, "the extra slopes taken from positions 1, 3, 5, ... of the 2n sequence", '''
def slopes(H):
    def power_of_2(n):
        return 2.0 ** (-8.0 * np.arange(1, n + 1) / n)
    n = 2 ** int(np.floor(np.log2(H)))
    if n == H:
        return power_of_2(H)
    return np.concatenate([power_of_2(n), power_of_2(2 * n)[1::2][:H - n]])
'''),
    (5, "the extra slopes first, then the power-of-2 ones", '''
def slopes(H):
    def power_of_2(n):
        return 2.0 ** (-8.0 * np.arange(1, n + 1) / n)
    n = 2 ** int(np.floor(np.log2(H)))
    if n == H:
        return power_of_2(H)
    return np.concatenate([power_of_2(2 * n)[0::2][:H - n], power_of_2(n)])
'''),
    (5, "the chapter's function called", '''
def slopes(H):
    return alibi_slopes(H)
'''),
    # --- exercise 6: RoPE wavelengths
    (6, "1 / theta: positions per radian, not per turn", '''
def wavelengths(D, base):
    return base ** (np.arange(0, D, 2) / D)


def slow_pairs(D, base, L):
    return int((2 * np.pi * base ** (np.arange(0, D, 2) / D) > L).sum())
'''),
    (6, "the factor 2 of the exponent dropped: base**(i/D)", '''
def wavelengths(D, base):
    return 2 * np.pi * base ** (np.arange(D // 2) / D)


def slow_pairs(D, base, L):
    return int((wavelengths(D, base) > L).sum())
'''),
    (6, "theta taken as the wavelength", '''
def wavelengths(D, base):
    return 2 * np.pi * base ** (-np.arange(0, D, 2) / D)


def slow_pairs(D, base, L):
    return int((2 * np.pi * base ** (np.arange(0, D, 2) / D) > L).sum())
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
    (6, "wavelengths measured with rope_rotate_half_np instead of derived", '''
def wavelengths(D, base):
    x = np.zeros((2, D))
    x[:, :D // 2] = 1.0
    out = rope_rotate_half_np(x, np.arange(2), base=base)
    step = np.arctan2(out[1, D // 2:], out[1, :D // 2])
    return 2 * np.pi / step


def slow_pairs(D, base, L):
    return int((wavelengths(D, base) > L).sum())
'''),
    # --- exercise 7: what a causal layer without positions can tell
    (7, "prediction: no positions, so no position information anywhere (b = 2)", '''
def prediction():
    return {"a": 1, "b": 2, "c": 2}
'''),
    (7, "prediction: every position has its own output in every input", '''
def prediction():
    return {"a": 10, "b": 10, "c": 10}
'''),
    (7, "prediction: the mask makes no difference (c = 10)", '''
def prediction():
    return {"a": 1, "b": 10, "c": 10}
'''),
    (7, "prediction: the causal mask alone tells positions apart (a = 10)", '''
def prediction():
    return {"a": 10, "b": 10, "c": 2}
'''),
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
    (3, "the two output halves in the wrong order", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]; h = D // 2
    ang = np.asarray(positions)[:, None] * 10000.0 ** (-2 * np.arange(h) / D)
    a, b = x[..., :h], x[..., h:]
    return np.concatenate([a * np.sin(ang) + b * np.cos(ang), a * np.cos(ang) - b * np.sin(ang)], -1)
'''),
    (6, "one wavelength per dimension (D of them) instead of per pair", '''
def wavelengths(D, base):
    return 2 * np.pi * base ** (np.arange(D) / D)


def slow_pairs(D, base, L):
    return int(np.sum(wavelengths(D, base) > L))
'''),
    # --- added by the outside-reader pass (slipped through, or caught with a wrong message)
    (1, "float32 throughout: off by about 5e-6 at position 129", '''
def sinusoidal_table(n_positions, E):
    omega = np.float32(10000.0) ** (-np.arange(0, E, 2, dtype=np.float32) / np.float32(E))
    angles = np.arange(n_positions, dtype=np.float32)[:, None] * omega
    pe = np.zeros((n_positions, E), dtype=np.float32)
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles)
    return pe
'''),
    (1, "the table allocated with the integer dtype of the positions", '''
def sinusoidal_table(n_positions, E):
    pos = np.arange(n_positions)[:, None]
    angles = pos * 10000.0 ** (-np.arange(0, E, 2) / E)
    pe = np.zeros_like(np.broadcast_to(pos, (n_positions, E)))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles)
    return pe
'''),
    (3, "the exponent's denominator hard-coded to 8, the check's head size", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]; h = D // 2
    ang = np.asarray(positions, dtype=np.float64)[:, None] * 10000.0 ** (-np.arange(0, D, 2) / 8)
    a, b = x[..., :h], x[..., h:]
    return np.concatenate([a * np.cos(ang) - b * np.sin(ang), a * np.sin(ang) + b * np.cos(ang)], -1)
'''),
    (3, "a float32 result (the statement asks for float64)", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]; h = D // 2
    ang = np.asarray(positions, dtype=np.float64)[:, None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    a, b = x[..., :h], x[..., h:]
    out = np.concatenate([a * np.cos(ang) - b * np.sin(ang), a * np.sin(ang) + b * np.cos(ang)], -1)
    return out.astype(np.float32)
'''),
    (4, "the reordered columns written back into the caller's W", '''
def port_to_interleaved(W, H):
    W = np.asarray(W)
    D = W.shape[1] // H
    back = np.argsort(interleaved_to_half_perm(D))
    W[:] = W[:, np.concatenate([h * D + back for h in range(H)])]
    return W
'''),
    (6, "float32 wavelengths (the statement asks for float64)", '''
def wavelengths(D, base):
    return (2 * np.pi * base ** (np.arange(0, D, 2) / D)).astype(np.float32)


def slow_pairs(D, base, L):
    return int((2 * np.pi * base ** (np.arange(0, D, 2) / D) > L).sum())
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
    # --- exercise 8: the NTK-aware base
    (8, "base * s: the slowest pair is slowed by s^((D-2)/D) only", '''
def ntk_aware_base(D, base, s):
    return float(base * s)
'''),
    (8, "exponent upside down: base * s^((D-2)/D)", '''
def ntk_aware_base(D, base, s):
    return float(base * s ** ((D - 2) / D))
'''),
    (8, "base * s^(D/2)", '''
def ntk_aware_base(D, base, s):
    return float(base * s ** (D / 2))
'''),
    (8, "base / s: the pairs are sped up", '''
def ntk_aware_base(D, base, s):
    return float(base / s)
'''),
    (8, "the base rounded to an integer", '''
def ntk_aware_base(D, base, s):
    return round(base * s ** (D / (D - 2)))
'''),
    (8, "the chapter's ntk_base called", '''
from attnlab.positional_encoding import ntk_base


def ntk_aware_base(D, base, s):
    return float(ntk_base(D, s, base))
'''),
    (8, "slowdown with the exponent of base * s: s^(2i/D)", '''
def slowdown(D, s):
    return s ** (np.arange(0, D, 2) / D)
'''),
    (8, "slowdown inverted: theta_i' / theta_i", '''
def slowdown(D, s):
    return s ** (-2 * np.arange(D // 2) / (D - 2))
'''),
    (8, "slowdown linear in the pair index", '''
def slowdown(D, s):
    return 1 + (s - 1) * np.arange(D // 2) / (D // 2 - 1)
'''),
    (8, "slowdown counted from pair 1, not pair 0", '''
def slowdown(D, s):
    return s ** (2 * np.arange(1, D // 2 + 1) / (D - 2))
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
]

RIGHT = [
    (1, "float32 result (within the stated 1e-6)", '''
def sinusoidal_table(n_positions, E):
    omega = 10000.0 ** (-np.arange(0, E, 2) / E)
    angles = np.arange(n_positions)[:, None] * omega
    pe = np.zeros((n_positions, E), dtype=np.float32)
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles)
    return pe
'''),
    (1, "the column-index form with 2 * (j // 2)", '''
def sinusoidal_table(n_positions, E):
    j = np.arange(E)
    angles = np.arange(n_positions)[:, None] / 10000.0 ** (2 * (j // 2) / E)
    return np.where(j % 2 == 0, np.sin(angles), np.cos(angles))
'''),
    (1, "stacked (sin, cos) pairs reshaped, with exp/log frequencies", '''
def sinusoidal_table(n_positions, E):
    omega = np.exp(-np.log(10000.0) * np.arange(E // 2) * 2 / E)
    angles = np.outer(np.arange(n_positions), omega)
    return np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(n_positions, E)
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
    (3, "via the interleaved form and the column permutation", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    p = interleaved_to_half_perm(x.shape[-1])
    inv = np.argsort(p)
    return rope_interleaved_np(x[..., inv], positions)[..., p]
'''),
    (3, "positions used as an array (positions[:, None])", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = positions[:, None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    cos, sin = np.concatenate([np.cos(ang)] * 2, -1), np.concatenate([np.sin(ang)] * 2, -1)
    return x * cos + np.concatenate([-x[..., D // 2:], x[..., :D // 2]], -1) * sin
'''),
    (3, "the two halves written into a fresh array", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    h = x.shape[-1] // 2
    ang = np.asarray(positions, dtype=np.float64)[:, None] * np.exp(
        -np.log(10000.0) * 2 * np.arange(h) / (2 * h))
    c, s = np.cos(ang), np.sin(ang)
    out = np.empty_like(x)
    out[..., :h] = x[..., :h] * c - x[..., h:] * s
    out[..., h:] = x[..., :h] * s + x[..., h:] * c
    return out
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
    (5, "float32 slopes from Python lists", '''
def slopes(H):
    n = 2 ** int(np.floor(np.log2(H)))
    base = [2 ** (-8 * h / n) for h in range(1, n + 1)]
    extra = [2 ** (-8 * h / (2 * n)) for h in range(1, 2 * n + 1)][0::2][:H - n]
    return np.array(base + extra, dtype=np.float32)
'''),
    (5, "the power of 2 found with bit_length", '''
def slopes(H):
    n = 1 << (H.bit_length() - 1)
    first = 2.0 ** (-8.0 * np.arange(1, n + 1) / n)
    extra = 2.0 ** (-8.0 * np.arange(1, 2 * (H - n), 2) / (2 * n))
    return np.concatenate([first, extra])
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
    (3, "complex numbers: (x_i + 1j x_{i+D/2}) * exp(1j p theta_i)", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]; h = D // 2
    ang = np.outer(np.asarray(positions, dtype=np.float64), 10000.0 ** (-np.arange(0, D, 2) / D))
    z = (x[..., :h] + 1j * x[..., h:]) * np.exp(1j * ang)
    return np.concatenate([z.real, z.imag], axis=-1)
'''),
    (6, "slow_pairs with ceil(wavelength) > L (the same for an integer L)", '''
def wavelengths(D, base):
    return 2 * np.pi * base ** (np.arange(0, D, 2) / D)


def slow_pairs(D, base, L):
    return int((np.ceil(wavelengths(D, base)) > L).sum())
'''),
    (8, "the base through exp and log, as a NumPy float", '''
def ntk_aware_base(D, base, s):
    return np.exp(np.log(base) + D / (D - 2) * np.log(s))
'''),
    (8, "slowdown as the ratio of two frequency tables", '''
def slowdown(D, s):
    theta = 10000.0 ** (-np.arange(0, D, 2) / D)
    new = (10000.0 * s ** (D / (D - 2))) ** (-np.arange(0, D, 2) / D)
    return theta / new
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
]
