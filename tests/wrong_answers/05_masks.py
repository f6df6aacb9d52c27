"""Wrong answers a learner would plausibly write for chapter 5's exercises."""
WRONG = [
    (1, "off by one: j <= lengths[b]", '''
def padding_mask(lengths, S):
    lengths = np.asarray(lengths)
    allowed = np.arange(S)[None, :] <= lengths[:, None]
    return allowed[:, None, None, :]
'''),
    (1, "polarity inverted: True marks the pads", '''
def padding_mask(lengths, S):
    lengths = np.asarray(lengths)
    blocked = np.arange(S)[None, :] >= lengths[:, None]
    return blocked[:, None, None, :]
'''),
    (1, "returns (B, S) without the head and query axes", '''
def padding_mask(lengths, S):
    lengths = np.asarray(lengths)
    return np.arange(S)[None, :] < lengths[:, None]
'''),
    (1, "returns 0/1 integers instead of booleans", '''
def padding_mask(lengths, S):
    lengths = np.asarray(lengths)
    allowed = (np.arange(S)[None, :] < lengths[:, None]).astype(int)
    return allowed[:, None, None, :]
'''),
    (1, "new axes in the wrong place: (B, S, 1, 1)", '''
def padding_mask(lengths, S):
    lengths = np.asarray(lengths)
    allowed = np.arange(S)[None, :] < lengths[:, None]
    return allowed[:, :, None, None]
'''),
    (1, "calls the package's padding_mask_np", '''
from attnlab.masks import padding_mask_np

def padding_mask(lengths, S):
    return padding_mask_np(lengths, S)
'''),
    (4, "blocked scores filled with 0, not -inf", '''
def masked_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    any_allowed = allowed.any(axis=-1, keepdims=True)
    filled = np.where(allowed, scores, 0.0)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) * any_allowed
'''),
    (4, "masks after the softmax", '''
def masked_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) * allowed
'''),
    (4, "masks after the softmax, then renormalises", '''
def masked_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True)) * allowed
    total = e.sum(axis=-1, keepdims=True)
    return np.where(total > 0, e / np.where(total > 0, total, 1.0), 0.0)
'''),
    (4, "mask polarity inverted", '''
def masked_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    any_allowed = (~allowed).any(axis=-1, keepdims=True)
    filled = np.where(allowed, -np.inf, scores)
    filled = np.where(any_allowed, filled, 0.0)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) * any_allowed
'''),
    (4, "no special case for fully masked rows: NaN", '''
def masked_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    filled = np.where(allowed, scores, -np.inf)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (4, "-1e9 fill and no special case: fully masked rows come out uniform", '''
def masked_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    filled = np.where(allowed, scores, -1e9)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (4, "max over the whole array, not per row", '''
def masked_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    any_allowed = allowed.any(axis=-1, keepdims=True)
    filled = np.where(allowed, scores, -np.inf)
    filled = np.where(any_allowed, filled, 0.0)
    e = np.exp(filled - filled.max())
    return e / e.sum(axis=-1, keepdims=True) * any_allowed
'''),
    (4, "calls the package's masked_softmax_np", '''
from attnlab.masks import masked_softmax_np

def masked_softmax(scores, allowed):
    return masked_softmax_np(scores, allowed)
'''),
    (5, "keeps the polarity: True = pad passed as True = may attend", '''
def allowed_from_key_padding(kpm):
    return kpm[:, None, None, :]


def key_padding_from_allowed(allowed):
    return allowed[:, 0, 0, :]
'''),
    (5, "flips the polarity but returns (B, 1, S)", '''
def allowed_from_key_padding(kpm):
    return ~kpm[:, None, :]


def key_padding_from_allowed(allowed):
    return ~allowed[:, 0, :]
'''),
    (5, "forgets to flip the polarity on the way back", '''
def allowed_from_key_padding(kpm):
    return ~kpm[:, None, None, :]


def key_padding_from_allowed(allowed):
    return allowed[:, 0, 0, :]
'''),
    (5, "0/1 integers instead of booleans", '''
def allowed_from_key_padding(kpm):
    return (1 - kpm.int())[:, None, None, :]


def key_padding_from_allowed(allowed):
    return (1 - allowed[:, 0, 0, :]).bool()
'''),
    (5, "new axes in the wrong place: (B, S, 1, 1)", '''
def allowed_from_key_padding(kpm):
    return ~kpm[:, :, None, None]


def key_padding_from_allowed(allowed):
    return ~allowed[:, :, 0, 0]
'''),
    (6, "checks only t = T - 1", '''
def leaks_future(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    x2 = x.clone()
    x2[T - 1:] = torch.randn(1, E, dtype=torch.float64, generator=gen)
    return not torch.equal(attn(x2)[:T - 1], base[:T - 1])
'''),
    (6, "checks only t = 1", '''
def leaks_future(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    x2 = x.clone()
    x2[1:] = torch.randn(T - 1, E, dtype=torch.float64, generator=gen)
    return not torch.equal(attn(x2)[:1], base[:1])
'''),
    (6, "compares with torch.allclose: a tiny leak passes as no leak", '''
def leaks_future(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    for t in range(1, T):
        x2 = x.clone()
        x2[t:] = torch.randn(T - t, E, dtype=torch.float64, generator=gen)
        if not torch.allclose(attn(x2)[:t], base[:t]):
            return True
    return False
'''),
    (6, "compares the rows from t on, not the rows before t", '''
def leaks_future(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    for t in range(1, T):
        x2 = x.clone()
        x2[t:] = torch.randn(T - t, E, dtype=torch.float64, generator=gen)
        if not torch.equal(attn(x2)[t:], base[t:]):
            return True
    return False
'''),
    (6, "perturbs the past instead of the future", '''
def leaks_future(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    for t in range(1, T):
        x2 = x.clone()
        x2[:t] = torch.randn(t, E, dtype=torch.float64, generator=gen)
        if not torch.equal(attn(x2)[:t], base[:t]):
            return True
    return False
'''),
    (1, "loops over the batch, but j <= lengths[b] - 1 written as j <= lengths[b]", '''
def padding_mask(lengths, S):
    lengths = np.asarray(lengths)
    rows = [np.arange(S) <= n for n in lengths]
    return np.array(rows, dtype=bool).reshape(len(lengths), 1, 1, S)
'''),
    (2, "anchored top-left: forgets the offset S - L", '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - np.arange(L)[:, None]
    allowed = np.abs(d) <= w
    return allowed & (d <= 0) if causal else allowed
'''),
    (2, "offset with the wrong sign: L - S", '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + (L - S))
    allowed = np.abs(d) <= w
    return allowed & (d <= 0) if causal else allowed
'''),
    (2, "window one too narrow: < w instead of <= w", '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + (S - L))
    allowed = np.abs(d) < w
    return allowed & (d <= 0) if causal else allowed
'''),
    (2, "one-sided band even when causal=False", '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + (S - L))
    return (d <= 0) & (d >= -w)
'''),
    (2, "causal=True ignores the window: the plain causal mask", '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + (S - L))
    return d <= 0 if causal else np.abs(d) <= w
'''),
    (2, "causal window without the lower bound, band without abs", '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + (S - L))
    return d <= 0 if causal else d <= w
'''),
    (2, "causal=True blocks the query's own position", '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + (S - L))
    allowed = np.abs(d) <= w
    return allowed & (d < 0) if causal else allowed
'''),
    (2, "polarity inverted: True outside the window", '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + (S - L))
    allowed = np.abs(d) <= w
    return ~(allowed & (d <= 0)) if causal else ~allowed
'''),
    (2, "np.tril/np.triu with the top-left diagonals", '''
def local_mask(L, S, w, causal=False):
    ones = np.ones((L, S), dtype=bool)
    upper = 0 if causal else w
    return np.tril(ones, k=upper) & np.triu(ones, k=-w)
'''),
    (2, "0/1 integers instead of booleans", '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + (S - L))
    allowed = np.abs(d) <= w
    return ((allowed & (d <= 0)) if causal else allowed).astype(int)
'''),
    (3, "prediction: padding also removes the padded queries' rows", '''
def prediction():
    return {"right": (10, 0), "left": (10, 2), "gaps": (10, 0)}
'''),
    (3, "prediction: left padding treated like right padding", '''
def prediction():
    return {"right": (18, 0), "left": (18, 0), "gaps": (14, 0)}
'''),
    (3, "prediction: no row can be empty while the sequence has a real token", '''
def prediction():
    return {"right": (18, 0), "left": (10, 0), "gaps": (14, 0)}
'''),
    (3, "prediction: the causal triangle without the padding (21 each)", '''
def prediction():
    return {"right": (21, 0), "left": (21, 0), "gaps": (21, 0)}
'''),
    (3, "prediction: entries as a fraction of the grid", '''
def prediction():
    return {"right": (18 / 36, 0), "left": (10 / 36, 2), "gaps": (14 / 36, 0)}
'''),
    (3, "lengths from keep.sum(): assumes right padding", '''
def combined_mask(keep, L):
    keep = np.asarray(keep, dtype=bool)
    S = keep.shape[1]
    real = np.arange(S)[None, :] < keep.sum(axis=1)[:, None]
    causal = np.arange(S)[None, :] <= np.arange(L)[:, None] + (S - L)
    return real[:, None, None, :] & causal
'''),
    (3, "OR instead of AND", '''
def combined_mask(keep, L):
    keep = np.asarray(keep, dtype=bool)
    S = keep.shape[1]
    causal = np.arange(S)[None, :] <= np.arange(L)[:, None] + (S - L)
    return keep[:, None, None, :] | causal
'''),
    (3, "top-left causal mask", '''
def combined_mask(keep, L):
    keep = np.asarray(keep, dtype=bool)
    S = keep.shape[1]
    return keep[:, None, None, :] & np.tril(np.ones((L, S), dtype=bool))
'''),
    (3, "no head axis: (B, L, S)", '''
def combined_mask(keep, L):
    keep = np.asarray(keep, dtype=bool)
    S = keep.shape[1]
    causal = np.arange(S)[None, :] <= np.arange(L)[:, None] + (S - L)
    return keep[:, None, :] & causal
'''),
    (3, "masks the queries instead of the keys", '''
def combined_mask(keep, L):
    keep = np.asarray(keep, dtype=bool)
    S = keep.shape[1]
    causal = np.arange(S)[None, :] <= np.arange(L)[:, None] + (S - L)
    return keep[:, None, -L:, None] & causal
'''),
    (3, "keep (B, S) without new axes: lines up B with the queries", '''
def combined_mask(keep, L):
    keep = np.asarray(keep, dtype=bool)
    S = keep.shape[1]
    causal = np.arange(S)[None, :] <= np.arange(L)[:, None] + (S - L)
    return (keep & causal)[:, None]
'''),
    (3, "measurement: counts the blocked entries", '''
def mask_counts(keep, L):
    m = combined_mask(keep, L)[:, 0]
    return (~m).sum(axis=(1, 2)), (~m.any(axis=2)).sum(axis=1)
'''),
    (3, "measurement: empty rows counted as rows with a blocked key", '''
def mask_counts(keep, L):
    m = combined_mask(keep, L)[:, 0]
    return m.sum(axis=(1, 2)), (~m.all(axis=2)).sum(axis=1)
'''),
    (3, "measurement: sums over every axis, one number for the batch", '''
def mask_counts(keep, L):
    m = combined_mask(keep, L)
    return np.array(m.sum()), np.array((~m.any(axis=-1)).sum())
'''),
    (3, "measurement: returns lists", '''
def mask_counts(keep, L):
    m = combined_mask(keep, L)[:, 0]
    return m.sum(axis=(1, 2)).tolist(), (~m.any(axis=2)).sum(axis=1).tolist()
'''),
    (4, "fills the blocked scores in place: the caller's scores change", '''
def masked_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    any_allowed = allowed.any(axis=-1, keepdims=True)
    scores[~allowed] = -np.inf
    filled = np.where(any_allowed, scores, 0.0)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) * any_allowed
'''),
    (4, "zeroes the empty rows after a NaN (0/0 computed, then replaced)", '''
def masked_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    filled = np.where(allowed, scores, -np.inf)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return np.nan_to_num(e / e.sum(axis=-1, keepdims=True))
'''),
    (7, "the author's function unchanged", '''
def padded_attention(q, k, v, lengths):
    return padded_attention_v0(q, k, v, lengths)
'''),
    (7, "half-fix (B, 1, T): lines up B with the heads (silent when B == H)", '''
def padded_attention(q, k, v, lengths):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T = k.shape[-2]
    is_pad = np.arange(T)[None, :] >= np.asarray(lengths)[:, None]
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    scores = np.where(is_pad[:, None, :], -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (7, "fixes the shape but flips the polarity", '''
def padded_attention(q, k, v, lengths):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T = k.shape[-2]
    real = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    scores = np.where(real[:, None, None, :], -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (7, "masks the padded queries instead of the padded keys", '''
def padded_attention(q, k, v, lengths):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T = k.shape[-2]
    is_pad = np.arange(T)[None, :] >= np.asarray(lengths)[:, None]
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    scores = np.where(is_pad[:, None, :, None], -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (7, "transposes the mask: (T, B) meets the scores' last two axes", '''
def padded_attention(q, k, v, lengths):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T = k.shape[-2]
    is_pad = np.arange(T)[None, :] >= np.asarray(lengths)[:, None]
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    scores = np.where(is_pad.T, -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (7, "off by one: the last real token counted as padding", '''
def padded_attention(q, k, v, lengths):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T = k.shape[-2]
    is_pad = np.arange(T)[None, :] >= np.asarray(lengths)[:, None] - 1
    is_pad[:, 0] = False
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    scores = np.where(is_pad[:, None, None, :], -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (7, "masks after the softmax, without renormalising", '''
def padded_attention(q, k, v, lengths):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T = k.shape[-2]
    real = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True) * real[:, None, None, :]
    return weights @ v, weights
'''),
    (7, "fills the padded keys with 0, not -inf", '''
def padded_attention(q, k, v, lengths):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T = k.shape[-2]
    is_pad = np.arange(T)[None, :] >= np.asarray(lengths)[:, None]
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    scores = np.where(is_pad[:, None, None, :], 0.0, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (7, "calls the chapter's masked_sdpa_np", '''
from attnlab.masks import masked_sdpa_np, padding_mask_np

def padded_attention(q, k, v, lengths):
    return masked_sdpa_np(q, k, v, padding_mask_np(np.asarray(lengths), k.shape[-2]))
'''),
    (3, "measurement: empty rows keep the head axis, shape (B, 1)", '''
def mask_counts(keep, L):
    m = combined_mask(keep, L)
    return m.sum(axis=(1, 2, 3)), (~m.any(axis=-1)).sum(axis=-1)
'''),
    (1, "ignores S: the key axis only as long as the longest sequence", '''
def padding_mask(lengths, S):
    lengths = np.asarray(lengths)
    allowed = np.arange(lengths.max())[None, :] < lengths[:, None]
    return allowed[:, None, None, :]
'''),
    (2, "right band, but the causal part from causal_mask_np's top-left default", '''
from attnlab.masks import causal_mask_np

def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + S - L)
    band = np.abs(d) <= w
    return band & causal_mask_np(L, S) if causal else band
'''),
    (5, "squeeze() on the way back: drops B = 1 (and S = 1) too", '''
def allowed_from_key_padding(kpm):
    return ~kpm[:, None, None, :]


def key_padding_from_allowed(allowed):
    return ~allowed.squeeze()
'''),
    (5, "squeeze() on the way in: a batch of one loses its batch axis", '''
def allowed_from_key_padding(kpm):
    return (~kpm).squeeze()[:, None, None, :]


def key_padding_from_allowed(allowed):
    return ~allowed[:, 0, 0, :]
'''),
    (5, "negates the caller's kpm in place (logical_not_)", '''
def allowed_from_key_padding(kpm):
    return kpm.logical_not_()[:, None, None, :]


def key_padding_from_allowed(allowed):
    return ~allowed[:, 0, 0, :]
'''),
    (6, "a tolerance of 1e-12 instead of bit-for-bit equality", '''
def leaks_future(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    for t in range(1, T):
        x2 = x.clone()
        x2[t:] = torch.randn(T - t, E, dtype=torch.float64, generator=gen)
        if (attn(x2)[:t] - base[:t]).abs().max() > 1e-12:
            return True
    return False
'''),
]

RIGHT = [    (4, "fills with -1e9 and zeroes empty rows (underflow is allowed)", '''
def masked_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    any_allowed = allowed.any(axis=-1, keepdims=True)
    filled = np.where(allowed, scores, -1e9)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) * any_allowed
'''),
    (5, "with unsqueeze and logical_not", '''
def allowed_from_key_padding(kpm):
    return torch.logical_not(kpm).unsqueeze(1).unsqueeze(1)


def key_padding_from_allowed(allowed):
    return torch.logical_not(allowed.squeeze(2).squeeze(1))
'''),
    (6, "perturbs one suffix at a time with its own generator", '''
def leaks_future(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    leaked = False
    for t in range(T - 1, 0, -1):
        x2 = x.clone()
        x2[t:] = x2[t:] + 1.0 + torch.rand(T - t, E, dtype=torch.float64, generator=gen)
        leaked = leaked or not torch.equal(attn(x2)[:t], base[:t])
    return leaked
'''),
    (2, "with np.tril and np.triu on the bottom-right diagonals", '''
def local_mask(L, S, w, causal=False):
    ones = np.ones((L, S), dtype=bool)
    upper = S - L if causal else S - L + w
    return np.tril(ones, k=upper) & np.triu(ones, k=S - L - w)
'''),
    (2, "with the package's causal_mask_np for the causal part (allowed)", '''
from attnlab.masks import causal_mask_np

def local_mask(L, S, w, causal=False):
    p = np.arange(L)[:, None] + S - L
    band = np.abs(np.arange(S)[None, :] - p) <= w
    return band & causal_mask_np(L, S, "bottom-right") if causal else band
'''),
    (3, "prediction with numpy integers; counts with einsum-free loops over b", '''
def prediction():
    return {"gaps": (np.int64(14), 0), "left": (10, np.int64(2)), "right": (18, 0)}


def mask_counts(keep, L):
    m = combined_mask(keep, L)
    allowed = np.array([int(m[b].sum()) for b in range(len(m))])
    empty = np.array([int((~m[b, 0].any(axis=-1)).sum()) for b in range(len(m))])
    return allowed, empty
'''),
    (3, "combined mask with the package's causal_mask_np (allowed)", '''
from attnlab.masks import causal_mask_np

def combined_mask(keep, L):
    keep = np.asarray(keep, dtype=bool)
    return keep[:, None, None, :] & causal_mask_np(L, keep.shape[1], "bottom-right")
'''),
    (7, "with the chapter's padding_mask_np (allowed)", '''
from attnlab.masks import padding_mask_np

def padded_attention(q, k, v, lengths):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    allowed = padding_mask_np(np.asarray(lengths), k.shape[-2])
    scores = np.where(allowed, q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (7, "masks padded queries too, with zero rows there (they are not read)", '''
def padded_attention(q, k, v, lengths):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T = k.shape[-2]
    real = np.arange(T)[None, :] < np.asarray(lengths)[:, None]          # (B, T)
    allowed = real[:, None, :, None] & real[:, None, None, :]            # (B, 1, T, T)
    any_allowed = allowed.any(axis=-1, keepdims=True)
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    scores = np.where(any_allowed, np.where(allowed, scores, -np.inf), 0.0)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True) * any_allowed
    return weights @ v, weights
'''),
    (7, "masks padded queries too, leaving NaN in those unread rows", '''
def padded_attention(q, k, v, lengths):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T = k.shape[-2]
    real = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
    allowed = real[:, None, :, None] & real[:, None, None, :]
    scores = np.where(allowed, q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (7, "fix with (B, 1, 1, T) and a -1e9 fill (every sequence has a real key)", '''
def padded_attention(q, k, v, lengths):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T = k.shape[-2]
    is_pad = np.arange(T)[None, :] >= np.asarray(lengths)[:, None]
    scores = np.where(is_pad[:, None, None, :], -1e9, q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]))
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (1, "rows of a lower-triangular table, indexed by the lengths", '''
def padding_mask(lengths, S):
    lengths = np.asarray(lengths)
    table = np.tril(np.ones((S + 1, S), dtype=bool), -1)     # row n: the first n keys
    return table[lengths][:, None, None, :]
'''),
    (5, "flatten(1) on the way back", '''
def allowed_from_key_padding(kpm):
    return ~kpm.view(kpm.shape[0], 1, 1, kpm.shape[1])


def key_padding_from_allowed(allowed):
    return ~allowed.flatten(1)
'''),
    (6, "perturbs one position at a time (as complete as a suffix)", '''
def leaks_future(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    leaked = False
    for t in range(T):
        x2 = x.clone()
        x2[t] = 2 * x2[t] + 1
        leaked |= not torch.equal(attn(x2)[:t], base[:t])
    return leaked
'''),
]
