"""Wrong answers a learner would plausibly write for chapter 8's exercises."""
WRONG = [
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
    (2, "the transpose: the sin terms with the wrong signs", '''
def shift_matrix(k, E):
    b = k * 10000.0 ** (-np.arange(0, E, 2) / E)
    M = np.zeros((E, E))
    for i in range(E // 2):
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(b[i]), -np.sin(b[i])],
                                               [np.sin(b[i]), np.cos(b[i])]]
    return M
'''),
    (2, "angle k for every block, forgetting the frequencies", '''
def shift_matrix(k, E):
    M = np.zeros((E, E))
    for i in range(E // 2):
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(k), np.sin(k)],
                                               [-np.sin(k), np.cos(k)]]
    return M
'''),
    (2, "cos and sin swapped inside the block", '''
def shift_matrix(k, E):
    b = k * 10000.0 ** (-np.arange(0, E, 2) / E)
    M = np.zeros((E, E))
    for i in range(E // 2):
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.sin(b[i]), np.cos(b[i])],
                                               [-np.cos(b[i]), np.sin(b[i])]]
    return M
'''),
    (2, "the shift taken as adding PE(k): a diagonal of PE(k) values", '''
def shift_matrix(k, E):
    return np.diag(sinusoidal_pe_np(k + 1, E)[k])
'''),
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
    (4, "one permutation over all E columns, ignoring the heads", '''
def port_qk(W, H):
    W = np.asarray(W)
    return W[:, interleaved_to_half_perm(W.shape[1])]
'''),
    (4, "rows permuted instead of columns", '''
def port_qk(W, H):
    W = np.asarray(W)
    D = W.shape[1] // H
    cols = np.concatenate([h * D + interleaved_to_half_perm(D) for h in range(H)])
    return W[cols, :]
'''),
    (4, "the inverse permutation (half -> interleaved)", '''
def port_qk(W, H):
    W = np.asarray(W)
    D = W.shape[1] // H
    inv = np.argsort(interleaved_to_half_perm(D))
    return W[:, np.concatenate([h * D + inv for h in range(H)])]
'''),
    (4, "weights left as they are", '''
def port_qk(W, H):
    return np.asarray(W).copy()
'''),
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
    (4, "odd columns first, then even: rotates the other way", '''
def port_qk(W, H):
    W = np.asarray(W)
    D = W.shape[1] // H
    within = np.concatenate([np.arange(1, D, 2), np.arange(0, D, 2)])
    return W[:, (np.arange(H)[:, None] * D + within).ravel()]
'''),
    (5, "the next power of 2 above H, cut to H slopes", '''
def slopes(H):
    n = 2 ** int(np.ceil(np.log2(H)))
    return (2.0 ** (-8.0 * np.arange(1, n + 1) / n))[:H]
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
    (2, "vectorised with index arrays", '''
def shift_matrix(k, E):
    b = k * 10000.0 ** (-np.arange(0, E, 2) / E)
    M = np.zeros((E, E))
    ev, od = np.arange(0, E, 2), np.arange(1, E, 2)
    M[ev, ev], M[ev, od], M[od, ev], M[od, od] = np.cos(b), np.sin(b), -np.sin(b), np.cos(b)
    return M
'''),
    (3, "via the interleaved form and the column permutation", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    p = interleaved_to_half_perm(x.shape[-1])
    inv = np.argsort(p)
    return rope_interleaved_np(x[..., inv], positions)[..., p]
'''),
    (4, "reshape per head into (D/2, 2) pairs and swap the last two axes", '''
def port_qk(W, H):
    W = np.asarray(W)
    E_in, E = W.shape
    D = E // H
    return W.reshape(E_in, H, D // 2, 2).transpose(0, 1, 3, 2).reshape(E_in, E)
'''),
    (3, "positions used as an array (positions[:, None])", '''
def rope_half(x, positions):
    x = np.asarray(x, dtype=np.float64)
    D = x.shape[-1]
    ang = positions[:, None] * 10000.0 ** (-np.arange(0, D, 2) / D)
    cos, sin = np.concatenate([np.cos(ang)] * 2, -1), np.concatenate([np.sin(ang)] * 2, -1)
    return x * cos + np.concatenate([-x[..., D // 2:], x[..., :D // 2]], -1) * sin
'''),
    (5, "float32 slopes from Python lists", '''
def slopes(H):
    n = 2 ** int(np.floor(np.log2(H)))
    base = [2 ** (-8 * h / n) for h in range(1, n + 1)]
    extra = [2 ** (-8 * h / (2 * n)) for h in range(1, 2 * n + 1)][0::2][:H - n]
    return np.array(base + extra, dtype=np.float32)
'''),
]
