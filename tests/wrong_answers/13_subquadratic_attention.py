"""Wrong answers a learner would plausibly write for chapter 13's exercises."""
WRONG = [
    (1, "a window of w keys (i - w < j), not w + 1: the off-by-one of section 11", '''
def sliding_window_mask(L, w, causal=True):
    back = np.arange(L)[:, None] - np.arange(L)[None, :]
    if causal:
        return (back >= 0) & (back < w)
    return np.abs(back) < w
'''),
    (1, "looks ahead instead of back (j - i instead of i - j)", '''
def sliding_window_mask(L, w, causal=True):
    ahead = np.arange(L)[None, :] - np.arange(L)[:, None]
    if causal:
        return (ahead >= 0) & (ahead <= w)
    return np.abs(ahead) <= w
'''),
    (1, "ignores causal: always the two-sided band", '''
def sliding_window_mask(L, w, causal=True):
    back = np.arange(L)[:, None] - np.arange(L)[None, :]
    return np.abs(back) <= w
'''),
    (1, "0/1 integers instead of booleans", '''
def sliding_window_mask(L, w, causal=True):
    back = np.arange(L)[:, None] - np.arange(L)[None, :]
    if causal:
        return ((back >= 0) & (back <= w)).astype(int)
    return (np.abs(back) <= w).astype(int)
'''),
    (1, "forgets the lower edge in the causal case: plain causal mask", '''
def sliding_window_mask(L, w, causal=True):
    back = np.arange(L)[:, None] - np.arange(L)[None, :]
    if causal:
        return back >= 0
    return np.abs(back) <= w
'''),
    (2, "off-the-end slots not masked: the clipped key 0 is counted several times", '''
def band_attention(q, k, v, w):
    L, D = q.shape
    idx = np.clip(np.arange(L)[:, None] - w + np.arange(w + 1)[None, :], 0, L - 1)
    scores = np.einsum("ld,lwd->lw", q, k[idx]) / np.sqrt(D)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    band = e / e.sum(-1, keepdims=True)
    return np.einsum("lw,lwv->lv", band, v[idx]), band
'''),
    (2, "dense masked attention: right values, but an L x L array", '''
def band_attention(q, k, v, w):
    L, D = q.shape
    back = np.arange(L)[:, None] - np.arange(L)[None, :]
    allowed = (back >= 0) & (back <= w)
    weights = masked_softmax_np(q @ k.T / np.sqrt(D), allowed)
    idx = np.arange(L)[:, None] - w + np.arange(w + 1)[None, :]
    band = np.where(idx >= 0, np.take_along_axis(weights, np.clip(idx, 0, L - 1), 1), 0.0)
    return weights @ v, band
'''),
    (2, "scores not scaled by 1/sqrt(D)", '''
def band_attention(q, k, v, w):
    L, D = q.shape
    idx = np.arange(L)[:, None] - w + np.arange(w + 1)[None, :]
    safe = np.clip(idx, 0, L - 1)
    scores = np.einsum("ld,lwd->lw", q, k[safe])
    band = masked_softmax_np(scores, idx >= 0)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, "band of w slots (keys i-w+1 .. i): one key short", '''
def band_attention(q, k, v, w):
    L, D = q.shape
    idx = np.arange(L)[:, None] - w + 1 + np.arange(w)[None, :]
    safe = np.clip(idx, 0, L - 1)
    scores = np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D)
    band = masked_softmax_np(scores, idx >= 0)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (3, "no denominator: phi(Q) (phi(K)^T V) without normalising", '''
def linear_attention(q, k, v):
    phi = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    return phi(q) @ (phi(k).swapaxes(-2, -1) @ v), None
'''),
    (3, "elu(x) without the + 1: negative features", '''
def linear_attention(q, k, v):
    phi = lambda x: np.where(x > 0, x, np.exp(np.minimum(x, 0.0)) - 1.0)
    phi_q, phi_k = phi(q), phi(k)
    kv = phi_k.swapaxes(-2, -1) @ v
    return (phi_q @ kv) / (phi_q @ phi_k.sum(-2)[..., None]), None
'''),
    (3, "relu features instead of elu + 1", '''
def linear_attention(q, k, v):
    phi = lambda x: np.maximum(x, 0.0) + 1e-6
    phi_q, phi_k = phi(q), phi(k)
    kv = phi_k.swapaxes(-2, -1) @ v
    return (phi_q @ kv) / (phi_q @ phi_k.sum(-2)[..., None]), None
'''),
    (3, "the softmax's 1/sqrt(D) applied to q before the feature map", '''
def linear_attention(q, k, v):
    phi = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    phi_q, phi_k = phi(q / np.sqrt(q.shape[-1])), phi(k)
    kv = phi_k.swapaxes(-2, -1) @ v
    return (phi_q @ kv) / (phi_q @ phi_k.sum(-2)[..., None]), None
'''),
    (3, "right values, wrong order: forms the L x S matrix first", '''
def linear_attention(q, k, v):
    phi = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    sim = phi(q) @ phi(k).swapaxes(-2, -1)
    return (sim / sim.sum(-1, keepdims=True)) @ v, None
'''),
    (3, "returns out alone instead of (out, None)", '''
def linear_attention(q, k, v):
    phi = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    phi_q, phi_k = phi(q), phi(k)
    kv = phi_k.swapaxes(-2, -1) @ v
    return (phi_q @ kv) / (phi_q @ phi_k.sum(-2)[..., None])
'''),
    (4, "output computed before the state update: token i cannot see itself", '''
def linear_attention_rnn(q, k, v):
    phi = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    phi_q, phi_k = phi(q), phi(k)
    state, z = np.zeros((q.shape[1], v.shape[1])), np.zeros(q.shape[1])
    out = np.zeros((q.shape[0], v.shape[1]))
    for i in range(q.shape[0]):
        out[i] = phi_q[i] @ state / max(phi_q[i] @ z, 1e-12)
        state += np.outer(phi_k[i], v[i])
        z += phi_k[i]
    return out, None
'''),
    (4, "the non-causal sums: every output sees the whole sequence", '''
def linear_attention_rnn(q, k, v):
    phi = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    phi_q, phi_k = phi(q), phi(k)
    state, z = phi_k.T @ v, phi_k.sum(0)
    return (phi_q @ state) / (phi_q @ z)[:, None], None
'''),
    (4, "no normaliser z: the running sum of values is not an average", '''
def linear_attention_rnn(q, k, v):
    phi = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    phi_q, phi_k = phi(q), phi(k)
    state = np.zeros((q.shape[1], v.shape[1]))
    out = np.zeros((q.shape[0], v.shape[1]))
    for i in range(q.shape[0]):
        state += np.outer(phi_k[i], v[i])
        out[i] = phi_q[i] @ state
    return out, None
'''),
    (4, "raw q in the readout instead of phi(q)", '''
def linear_attention_rnn(q, k, v):
    phi = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    phi_k = phi(k)
    state, z = np.zeros((q.shape[1], v.shape[1])), np.zeros(q.shape[1])
    out = np.zeros((q.shape[0], v.shape[1]))
    for i in range(q.shape[0]):
        state += np.outer(phi_k[i], v[i])
        z += phi_k[i]
        out[i] = q[i] @ state / (q[i] @ z)
    return out, None
'''),
    (5, "missing the -|x|^2/2 term: estimates exp(q.k + |q|^2/2 + |k|^2/2)", '''
def positive_features(x, omega):
    return np.exp(x @ omega.T) / np.sqrt(len(omega))
'''),
    (5, "missing 1/sqrt(M): the kernel comes out M times too large", '''
def positive_features(x, omega):
    return np.exp(x @ omega.T - 0.5 * (x**2).sum(-1, keepdims=True))
'''),
    (5, "-|x|^2 without the 1/2", '''
def positive_features(x, omega):
    return np.exp(x @ omega.T - (x**2).sum(-1, keepdims=True)) / np.sqrt(len(omega))
'''),
    (5, "trigonometric features (not positive, and a different scaling)", '''
def positive_features(x, omega):
    return np.cos(x @ omega.T) / np.sqrt(len(omega))
'''),
    (5, "features as (M, N): omega @ x.T instead of x @ omega.T", '''
def positive_features(x, omega):
    return np.exp(omega @ x.T - 0.5 * (x**2).sum(-1)) / np.sqrt(len(omega))
'''),
    (2, "softmax without subtracting the row max: overflows for large scores", '''
def band_attention(q, k, v, w):
    L, D = q.shape
    idx = np.arange(L)[:, None] - w + np.arange(w + 1)[None, :]
    safe = np.clip(idx, 0, L - 1)
    e = np.where(idx >= 0, np.exp(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D)), 0.0)
    band = e / e.sum(-1, keepdims=True)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, "band slots in reverse order (slot t holds key i - t)", '''
def band_attention(q, k, v, w):
    L, D = q.shape
    idx = np.arange(L)[:, None] - np.arange(w + 1)[None, :]
    safe = np.clip(idx, 0, L - 1)
    band = masked_softmax_np(np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(D), idx >= 0)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (2, "scores scaled by 1/sqrt(Dv) instead of 1/sqrt(D)", '''
def band_attention(q, k, v, w):
    L, D = q.shape
    idx = np.arange(L)[:, None] - w + np.arange(w + 1)[None, :]
    safe = np.clip(idx, 0, L - 1)
    scores = np.einsum("ld,lwd->lw", q, k[safe]) / np.sqrt(v.shape[1])
    band = masked_softmax_np(scores, idx >= 0)
    return np.einsum("lw,lwv->lv", band, v[safe]), band
'''),
    (3, "an eps of 1e-6 added to the denominator", '''
def linear_attention(q, k, v):
    phi = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    phi_q, phi_k = phi(q), phi(k)
    den = phi_q @ phi_k.sum(-2)[..., None] + 1e-6
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / den, None
'''),
    (3, "normaliser summed over axis 0: right only without batch axes", '''
def linear_attention(q, k, v):
    phi = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    phi_q, phi_k = phi(q), phi(k)
    den = (phi_q @ phi_k.sum(axis=0))[..., None]
    return (phi_q @ (phi_k.swapaxes(-2, -1) @ v)) / den, None
'''),
    (5, "the squared norm of the whole array, not of each row", '''
def positive_features(x, omega):
    return np.exp(x @ omega.T - 0.5 * np.sum(x ** 2)) / np.sqrt(len(omega))
'''),
]

RIGHT = [
    (1, "built from chapter 5's causal mask and np.tril", '''
from attnlab.masks import causal_mask_np


def sliding_window_mask(L, w, causal=True):
    far_back = np.tril(np.ones((L, L), dtype=bool), -w - 1)
    if causal:
        return causal_mask_np(L) & ~far_back
    return ~far_back & ~far_back.T
'''),
    (2, "a loop over queries, each scoring its own w + 1 keys", '''
def band_attention(q, k, v, w):
    L, D = q.shape
    out, band = np.zeros((L, v.shape[1])), np.zeros((L, w + 1))
    for i in range(L):
        lo = max(0, i - w)
        s = q[i] @ k[lo:i + 1].T / np.sqrt(D)
        p = np.exp(s - s.max())
        p /= p.sum()
        out[i] = p @ v[lo:i + 1]
        band[i, w + 1 - len(p):] = p
    return out, band
'''),
    (3, "einsum, and elu written with np.expm1", '''
def linear_attention(q, k, v):
    phi = lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0.0))) + 1.0
    phi_q, phi_k = phi(q), phi(k)
    kv = np.einsum("...sm,...sv->...mv", phi_k, v)
    num = np.einsum("...lm,...mv->...lv", phi_q, kv)
    den = np.einsum("...lm,...m->...l", phi_q, phi_k.sum(-2))
    return num / den[..., None], None
'''),
    (4, "state as (Dv, M), transposed", '''
def linear_attention_rnn(q, k, v):
    phi = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    phi_q, phi_k = phi(q), phi(k)
    state, z = np.zeros((v.shape[1], q.shape[1])), np.zeros(q.shape[1])
    out = []
    for i in range(q.shape[0]):
        state = state + v[i][:, None] * phi_k[i][None, :]
        z = z + phi_k[i]
        out.append(state @ phi_q[i] / (z @ phi_q[i]))
    return np.array(out), None
'''),
    (5, "the norm via einsum and the square root as a power", '''
def positive_features(x, omega):
    sq = np.einsum("nd,nd->n", x, x)[:, None] / 2
    return np.exp(np.einsum("nd,md->nm", x, omega) - sq) * len(omega) ** -0.5
'''),
    (3, "computed in PyTorch, returned as NumPy", '''
def linear_attention(q, k, v):
    q, k, v = (torch.from_numpy(np.asarray(a, dtype=np.float64)) for a in (q, k, v))
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    out = (phi_q @ (phi_k.transpose(-2, -1) @ v)) / (phi_q @ phi_k.sum(-2).unsqueeze(-1))
    return out.numpy(), None
'''),
    (4, "prefix sums (cumsum) instead of a Python loop", '''
def linear_attention_rnn(q, k, v):
    phi = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    phi_q, phi_k = phi(q), phi(k)
    state = np.cumsum(phi_k[:, :, None] * v[:, None, :], axis=0)
    z = np.cumsum(phi_k, axis=0)
    num = np.einsum("lm,lmv->lv", phi_q, state)
    return num / np.einsum("lm,lm->l", phi_q, z)[:, None], None
'''),
]
