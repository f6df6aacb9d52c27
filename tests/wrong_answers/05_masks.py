"""Wrong answers a learner would plausibly write for chapter 5's exercises, and other right ones."""
WRONG = [
    (1, 'off by one: j <= lengths[b]', '''
def _right(lengths, S):
    lengths = np.asarray(lengths)
    allowed = np.arange(S)[None, :] <= lengths[:, None]
    return allowed[:, None, None, :]


def padding_mask(lengths, S, side="right"):
    m = _right(lengths, S)
    return m if side == "right" else m[..., ::-1]
'''),
    (1, 'polarity inverted: True marks the pads', '''
def _right(lengths, S):
    lengths = np.asarray(lengths)
    blocked = np.arange(S)[None, :] >= lengths[:, None]
    return blocked[:, None, None, :]


def padding_mask(lengths, S, side="right"):
    m = _right(lengths, S)
    return m if side == "right" else m[..., ::-1]
'''),
    (1, 'returns (B, S) without the head and query axes', '''
def _right(lengths, S):
    lengths = np.asarray(lengths)
    return np.arange(S)[None, :] < lengths[:, None]


def padding_mask(lengths, S, side="right"):
    m = _right(lengths, S)
    return m if side == "right" else m[..., ::-1]
'''),
    (1, 'returns 0/1 integers instead of booleans', '''
def _right(lengths, S):
    lengths = np.asarray(lengths)
    allowed = (np.arange(S)[None, :] < lengths[:, None]).astype(int)
    return allowed[:, None, None, :]


def padding_mask(lengths, S, side="right"):
    m = _right(lengths, S)
    return m if side == "right" else m[..., ::-1]
'''),
    (1, 'new axes in the wrong place: (B, S, 1, 1)', '''
def _right(lengths, S):
    lengths = np.asarray(lengths)
    allowed = np.arange(S)[None, :] < lengths[:, None]
    return allowed[:, :, None, None]


def padding_mask(lengths, S, side="right"):
    m = _right(lengths, S)
    return m if side == "right" else m[..., ::-1]
'''),
    (1, "calls the package's padding_mask_np", '''
from attnlab.masks import padding_mask_np

def padding_mask(lengths, S, side="right"):
    m = padding_mask_np(lengths, S)
    return m if side == "right" else m[..., ::-1]
'''),
    (1, 'loops over the batch, but j <= lengths[b] - 1 written as j <= lengths[b]', '''
def _right(lengths, S):
    lengths = np.asarray(lengths)
    rows = [np.arange(S) <= n for n in lengths]
    return np.array(rows, dtype=bool).reshape(len(lengths), 1, 1, S)


def padding_mask(lengths, S, side="right"):
    m = _right(lengths, S)
    return m if side == "right" else m[..., ::-1]
'''),
    (1, 'ignores S: the key axis only as long as the longest sequence', '''
def _right(lengths, S):
    lengths = np.asarray(lengths)
    allowed = np.arange(lengths.max())[None, :] < lengths[:, None]
    return allowed[:, None, None, :]


def padding_mask(lengths, S, side="right"):
    m = _right(lengths, S)
    return m if side == "right" else m[..., ::-1]
'''),
    (1, 'side ignored: the left-padded mask is the right-padded one', '''
def padding_mask(lengths, S, side="right"):
    lengths = np.asarray(lengths)
    allowed = np.arange(S)[None, :] < lengths[:, None]
    return allowed[:, None, None, :]
'''),
    (1, 'left padding as the complement of right padding (j >= n)', '''
def padding_mask(lengths, S, side="right"):
    lengths = np.asarray(lengths)
    right = np.arange(S)[None, :] < lengths[:, None]
    allowed = right if side == "right" else ~right
    return allowed[:, None, None, :]
'''),
    (1, 'left padding off by one: j > S - n', '''
def padding_mask(lengths, S, side="right"):
    lengths = np.asarray(lengths)
    j, n = np.arange(S)[None, :], lengths[:, None]
    allowed = j < n if side == "right" else j > S - n
    return allowed[:, None, None, :]
'''),
    (1, 'left padding counted from the longest sequence, not from S', '''
def padding_mask(lengths, S, side="right"):
    lengths = np.asarray(lengths)
    j, n = np.arange(S)[None, :], lengths[:, None]
    allowed = j < n if side == "right" else j >= lengths.max() - n
    return allowed[:, None, None, :]
'''),
    (1, 'left padding by negative slicing: -0 selects the whole row', '''
def padding_mask(lengths, S, side="right"):
    lengths = np.asarray(lengths)
    allowed = np.zeros((len(lengths), S), dtype=bool)
    for b, n in enumerate(lengths):
        if side == "right":
            allowed[b, :n] = True
        else:
            allowed[b, -n:] = True
    return allowed[:, None, None, :]
'''),
    (1, "sorts the lengths in place (the caller's array changes)", '''
def padding_mask(lengths, S, side="right"):
    lengths = np.asarray(lengths)
    order = np.argsort(lengths)
    lengths.sort()
    j, n = np.arange(S)[None, :], lengths[np.argsort(order)][:, None]
    allowed = j < n if side == "right" else j >= S - n
    return allowed[:, None, None, :]
'''),
    (2, 'anchored top-left: forgets the offset S - L', '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - np.arange(L)[:, None]
    allowed = np.abs(d) <= w
    return allowed & (d <= 0) if causal else allowed
'''),
    (2, 'offset with the wrong sign: L - S', '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + (L - S))
    allowed = np.abs(d) <= w
    return allowed & (d <= 0) if causal else allowed
'''),
    (2, 'window one too narrow: < w instead of <= w', '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + (S - L))
    allowed = np.abs(d) < w
    return allowed & (d <= 0) if causal else allowed
'''),
    (2, 'one-sided band even when causal=False', '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + (S - L))
    return (d <= 0) & (d >= -w)
'''),
    (2, 'causal=True ignores the window: the plain causal mask', '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + (S - L))
    return d <= 0 if causal else np.abs(d) <= w
'''),
    (2, 'causal window without the lower bound, band without abs', '''
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
    (2, 'polarity inverted: True outside the window', '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + (S - L))
    allowed = np.abs(d) <= w
    return ~(allowed & (d <= 0)) if causal else ~allowed
'''),
    (2, 'np.tril/np.triu with the top-left diagonals', '''
def local_mask(L, S, w, causal=False):
    ones = np.ones((L, S), dtype=bool)
    upper = 0 if causal else w
    return np.tril(ones, k=upper) & np.triu(ones, k=-w)
'''),
    (2, '0/1 integers instead of booleans', '''
def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + (S - L))
    allowed = np.abs(d) <= w
    return ((allowed & (d <= 0)) if causal else allowed).astype(int)
'''),
    (2, "right band, but the causal part from causal_mask_np's top-left default", '''
from attnlab.masks import causal_mask_np

def local_mask(L, S, w, causal=False):
    d = np.arange(S)[None, :] - (np.arange(L)[:, None] + S - L)
    band = np.abs(d) <= w
    return band & causal_mask_np(L, S) if causal else band
'''),
    (3, 'lengths from keep.sum(): assumes right padding', '''
def combined_mask(keep, L):
    keep = np.asarray(keep, dtype=bool)
    S = keep.shape[1]
    real = np.arange(S)[None, :] < keep.sum(axis=1)[:, None]
    causal = np.arange(S)[None, :] <= np.arange(L)[:, None] + (S - L)
    return real[:, None, None, :] & causal
'''),
    (3, 'OR instead of AND', '''
def combined_mask(keep, L):
    keep = np.asarray(keep, dtype=bool)
    S = keep.shape[1]
    causal = np.arange(S)[None, :] <= np.arange(L)[:, None] + (S - L)
    return keep[:, None, None, :] | causal
'''),
    (3, 'top-left causal mask', '''
def combined_mask(keep, L):
    keep = np.asarray(keep, dtype=bool)
    S = keep.shape[1]
    return keep[:, None, None, :] & np.tril(np.ones((L, S), dtype=bool))
'''),
    (3, 'no head axis: (B, L, S)', '''
def combined_mask(keep, L):
    keep = np.asarray(keep, dtype=bool)
    S = keep.shape[1]
    causal = np.arange(S)[None, :] <= np.arange(L)[:, None] + (S - L)
    return keep[:, None, :] & causal
'''),
    (3, 'masks the queries instead of the keys', '''
def combined_mask(keep, L):
    keep = np.asarray(keep, dtype=bool)
    S = keep.shape[1]
    causal = np.arange(S)[None, :] <= np.arange(L)[:, None] + (S - L)
    return keep[:, None, -L:, None] & causal
'''),
    (3, 'keep (B, S) without new axes: lines up B with the queries', '''
def combined_mask(keep, L):
    keep = np.asarray(keep, dtype=bool)
    S = keep.shape[1]
    causal = np.arange(S)[None, :] <= np.arange(L)[:, None] + (S - L)
    return (keep & causal)[:, None]
'''),
    (3, 'measurement: counts the blocked entries', '''
def mask_counts(keep, L):
    m = combined_mask(keep, L)[:, 0]
    return (~m).sum(axis=(1, 2)), (~m.any(axis=2)).sum(axis=1)
'''),
    (3, 'measurement: empty rows counted as rows with a blocked key', '''
def mask_counts(keep, L):
    m = combined_mask(keep, L)[:, 0]
    return m.sum(axis=(1, 2)), (~m.all(axis=2)).sum(axis=1)
'''),
    (3, 'measurement: sums over every axis, one number for the batch', '''
def mask_counts(keep, L):
    m = combined_mask(keep, L)
    return np.array(m.sum()), np.array((~m.any(axis=-1)).sum())
'''),
    (3, 'measurement: returns lists', '''
def mask_counts(keep, L):
    m = combined_mask(keep, L)[:, 0]
    return m.sum(axis=(1, 2)).tolist(), (~m.any(axis=2)).sum(axis=1).tolist()
'''),
    (3, 'measurement: empty rows keep the head axis, shape (B, 1)', '''
def mask_counts(keep, L):
    m = combined_mask(keep, L)
    return m.sum(axis=(1, 2, 3)), (~m.any(axis=-1)).sum(axis=-1)
'''),
    (3, 'prediction() computes the counts instead of committing to them', '''
def prediction():
    counts, empty = mask_counts(KEEP3, 6)
    return {name: (int(a), int(e)) for name, a, e in zip(("right", "left", "gaps"), counts, empty)}
'''),
    (3, 'prediction() reads a module-level table (could be measured)', '''
MY_GUESS = {"right": (18, 0), "left": (10, 2), "gaps": (14, 0)}

def prediction():
    return MY_GUESS
'''),
    (3, 'prediction: booleans instead of counts', '''
def prediction():
    return {"right": (True, False), "left": (True, True), "gaps": (True, False)}
'''),
    (3, 'prediction: entries as a fraction of the grid (not integers)', '''
def prediction():
    return {"right": (18 / 36, 0), "left": (10 / 36, 2), "gaps": (14 / 36, 0)}
'''),
    (4, 'log of the masked softmax (log 0 on blocked keys)', '''
def masked_log_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    any_allowed = allowed.any(axis=-1, keepdims=True)
    filled = np.where(any_allowed, np.where(allowed, scores, -np.inf), 0.0)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return np.log(e / e.sum(axis=-1, keepdims=True) * any_allowed)
'''),
    (4, 'log of the weights, with log 0 silenced (underflowed keys become -inf)', '''
def masked_log_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    any_allowed = allowed.any(axis=-1, keepdims=True)
    filled = np.where(any_allowed, np.where(allowed, scores, -np.inf), 0.0)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True) * any_allowed
    return np.where(w > 0, np.log(np.where(w > 0, w, 1.0)), -np.inf)
'''),
    (4, '-1e9 fill: blocked keys come out near -1e9, not -inf', '''
def masked_log_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    filled = np.where(allowed, scores, -1e9)
    top = filled.max(axis=-1, keepdims=True)
    return filled - top - np.log(np.exp(filled - top).sum(axis=-1, keepdims=True))
'''),
    (4, 'no special case for fully masked rows (-inf - (-inf))', '''
def masked_log_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    filled = np.where(allowed, scores, -np.inf)
    top = filled.max(axis=-1, keepdims=True)
    return filled - top - np.log(np.exp(filled - top).sum(axis=-1, keepdims=True))
'''),
    (4, 'the largest score of the whole array, not of each row', '''
def masked_log_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    any_allowed = allowed.any(axis=-1, keepdims=True)
    top = np.where(allowed, scores, -np.inf).max()
    shifted = np.where(allowed, scores - top, -np.inf)
    lse = np.log(np.exp(shifted).sum(axis=-1, keepdims=True) + ~any_allowed)
    return np.where(allowed, shifted - lse, -np.inf)
'''),
    (4, 'row maximum over every key, blocked ones included', '''
def masked_log_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    any_allowed = allowed.any(axis=-1, keepdims=True)
    top = scores.max(axis=-1, keepdims=True)
    shifted = np.where(allowed, scores - top, -np.inf)
    lse = np.log(np.exp(shifted).sum(axis=-1, keepdims=True) + ~any_allowed)
    return np.where(allowed, shifted - lse, -np.inf)
'''),
    (4, 'normalised over every key, blocked keys then set to -inf', '''
def masked_log_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    top = scores.max(axis=-1, keepdims=True)
    out = scores - top - np.log(np.exp(scores - top).sum(axis=-1, keepdims=True))
    return np.where(allowed, out, -np.inf)
'''),
    (4, "fills the blocked scores in place: the caller's scores change", '''
def masked_log_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    any_allowed = allowed.any(axis=-1, keepdims=True)
    scores[~allowed] = -np.inf
    top = np.where(any_allowed, scores, 0.0).max(axis=-1, keepdims=True)
    shifted = scores - top
    lse = np.log(np.exp(shifted).sum(axis=-1, keepdims=True) + ~any_allowed)
    return np.where(allowed, shifted - lse, -np.inf)
'''),
    (4, 'computed in float32', '''
def masked_log_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float32)
    allowed = np.broadcast_to(allowed, scores.shape)
    any_allowed = allowed.any(axis=-1, keepdims=True)
    top = np.where(any_allowed, np.where(allowed, scores, -np.inf), 0.0).max(axis=-1, keepdims=True)
    shifted = np.where(allowed, scores - top, -np.inf)
    lse = np.log(np.exp(shifted).sum(axis=-1, keepdims=True) + ~any_allowed)
    return np.where(allowed, shifted - lse, -np.inf).astype(np.float64)
'''),
    (4, 'fully masked rows come out as 0, not -inf', '''
def masked_log_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    any_allowed = allowed.any(axis=-1, keepdims=True)
    top = np.where(any_allowed, np.where(allowed, scores, -np.inf), 0.0).max(axis=-1, keepdims=True)
    shifted = np.where(allowed, scores - top, -np.inf)
    lse = np.log(np.exp(shifted).sum(axis=-1, keepdims=True) + ~any_allowed)
    return np.where(allowed, shifted - lse, np.where(any_allowed, -np.inf, 0.0))
'''),
    (4, "calls the package's masked_softmax_np, then the log", '''
from attnlab.masks import masked_softmax_np

def masked_log_softmax(scores, allowed):
    with np.errstate(divide="ignore"):
        return np.log(masked_softmax_np(np.asarray(scores, dtype=np.float64), allowed))
'''),
    (5, 'keeps the polarity: True = blocked returned as True = may attend', '''
def allowed_from_mha(key_padding_mask, attn_mask, num_heads):
    allowed = None
    if key_padding_mask is not None:
        allowed = key_padding_mask[:, None, None, :]
    if attn_mask is not None:
        if attn_mask.dim() == 3:
            attn_mask = attn_mask.view(-1, num_heads, *attn_mask.shape[1:])
        allowed = attn_mask if allowed is None else allowed | attn_mask
    return allowed
'''),
    (5, '(B*H, L, S) read head-major: view(H, B, ...) then transposed', '''
def allowed_from_mha(key_padding_mask, attn_mask, num_heads):
    allowed = None
    if key_padding_mask is not None:
        allowed = ~key_padding_mask[:, None, None, :]
    if attn_mask is not None:
        if attn_mask.dim() == 3:
            attn_mask = attn_mask.view(num_heads, -1, *attn_mask.shape[1:]).transpose(0, 1)
        allowed = ~attn_mask if allowed is None else allowed & ~attn_mask
    return allowed
'''),
    (5, 'OR of the allowed masks: a key allowed by either mask', '''
def allowed_from_mha(key_padding_mask, attn_mask, num_heads):
    allowed = None
    if key_padding_mask is not None:
        allowed = ~key_padding_mask[:, None, None, :]
    if attn_mask is not None:
        if attn_mask.dim() == 3:
            attn_mask = attn_mask.view(-1, num_heads, *attn_mask.shape[1:])
        allowed = ~attn_mask if allowed is None else allowed | ~attn_mask
    return allowed
'''),
    (5, 'the padding mask as (B, 1, S): lines B up with the heads', '''
def allowed_from_mha(key_padding_mask, attn_mask, num_heads):
    allowed = None
    if key_padding_mask is not None:
        allowed = ~key_padding_mask[:, None, :]
    if attn_mask is not None:
        if attn_mask.dim() == 3:
            attn_mask = attn_mask.view(-1, num_heads, *attn_mask.shape[1:])
        allowed = ~attn_mask if allowed is None else allowed & ~attn_mask
    return allowed
'''),
    (5, 'the (B*H, L, S) mask kept 3-D: lines B*H up with the heads', '''
def allowed_from_mha(key_padding_mask, attn_mask, num_heads):
    allowed = None
    if key_padding_mask is not None:
        allowed = ~key_padding_mask[:, None, None, :]
    if attn_mask is not None:
        allowed = ~attn_mask if allowed is None else allowed & ~attn_mask
    return allowed
'''),
    (5, 'the attention mask ignored when a padding mask is given', '''
def allowed_from_mha(key_padding_mask, attn_mask, num_heads):
    if key_padding_mask is not None:
        return ~key_padding_mask[:, None, None, :]
    if attn_mask.dim() == 3:
        attn_mask = attn_mask.view(-1, num_heads, *attn_mask.shape[1:])
    return ~attn_mask
'''),
    (5, "negates the caller's masks in place (logical_not_)", '''
def allowed_from_mha(key_padding_mask, attn_mask, num_heads):
    allowed = None
    if key_padding_mask is not None:
        allowed = key_padding_mask.logical_not_()[:, None, None, :]
    if attn_mask is not None:
        if attn_mask.dim() == 3:
            attn_mask = attn_mask.view(-1, num_heads, *attn_mask.shape[1:])
        a = attn_mask.logical_not_()
        allowed = a if allowed is None else allowed & a
    return allowed
'''),
    (5, '0/1 integers instead of booleans', '''
def allowed_from_mha(key_padding_mask, attn_mask, num_heads):
    allowed = None
    if key_padding_mask is not None:
        allowed = ~key_padding_mask[:, None, None, :]
    if attn_mask is not None:
        if attn_mask.dim() == 3:
            attn_mask = attn_mask.view(-1, num_heads, *attn_mask.shape[1:])
        allowed = ~attn_mask if allowed is None else allowed & ~attn_mask
    return allowed.int()
'''),
    (5, 'squeeze() to drop the size-1 axes of a single head: B = 1 goes too', '''
def allowed_from_mha(key_padding_mask, attn_mask, num_heads):
    allowed = None
    if key_padding_mask is not None:
        allowed = ~key_padding_mask[:, None, None, :]
    if attn_mask is not None:
        if attn_mask.dim() == 3:
            attn_mask = attn_mask.view(-1, num_heads, *attn_mask.shape[1:]).squeeze()
        allowed = ~attn_mask if allowed is None else allowed & ~attn_mask
    return allowed
'''),
    (6, 'perturbs every suffix (finds that, not where)', '''
def leak_pairs(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    pairs = np.zeros((T, T), dtype=bool)
    for j in range(1, T):
        x2 = x.clone()
        x2[j:] = torch.randn(T - j, E, dtype=torch.float64, generator=gen)
        moved = (attn(x2) != base).any(dim=-1).numpy()
        pairs[:j, j] = moved[:j]
    return pairs
'''),
    (6, 'range(1, T - 1): the last token is never changed', '''
def leak_pairs(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    pairs = np.zeros((T, T), dtype=bool)
    for j in range(1, T - 1):
        x2 = x.clone()
        x2[j] = torch.randn(E, dtype=torch.float64, generator=gen)
        moved = (attn(x2) != base).any(dim=-1).numpy()
        pairs[:j, j] = moved[:j]
    return pairs
'''),
    (6, 'compares with torch.allclose: a faint leak passes as none', '''
def leak_pairs(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    pairs = np.zeros((T, T), dtype=bool)
    for j in range(1, T):
        x2 = x.clone()
        x2[j] = torch.randn(E, dtype=torch.float64, generator=gen)
        out = attn(x2)
        for i in range(j):
            pairs[i, j] = not torch.allclose(out[i], base[i])
    return pairs
'''),
    (6, 'a tolerance of 1e-12 instead of bit for bit', '''
def leak_pairs(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    pairs = np.zeros((T, T), dtype=bool)
    for j in range(1, T):
        x2 = x.clone()
        x2[j] = torch.randn(E, dtype=torch.float64, generator=gen)
        moved = ((attn(x2) - base).abs() > 1e-12).any(dim=-1).numpy()
        pairs[:j, j] = moved[:j]
    return pairs
'''),
    (6, 'every row that moves, the diagonal and the rows after j included', '''
def leak_pairs(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    pairs = np.zeros((T, T), dtype=bool)
    for j in range(T):
        x2 = x.clone()
        x2[j] = torch.randn(E, dtype=torch.float64, generator=gen)
        pairs[:, j] = (attn(x2) != base).any(dim=-1).numpy()
    return pairs
'''),
    (6, 'indexed [j, i]: the transpose', '''
def leak_pairs(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    pairs = np.zeros((T, T), dtype=bool)
    for j in range(1, T):
        x2 = x.clone()
        x2[j] = torch.randn(E, dtype=torch.float64, generator=gen)
        moved = (attn(x2) != base).any(dim=-1).numpy()
        pairs[j, :j] = moved[:j]
    return pairs
'''),
    (6, 'returns a torch tensor', '''
def leak_pairs(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    pairs = torch.zeros(T, T, dtype=torch.bool)
    for j in range(1, T):
        x2 = x.clone()
        x2[j] = torch.randn(E, dtype=torch.float64, generator=gen)
        moved = (attn(x2) != base).any(dim=-1)
        pairs[:j, j] = moved[:j]
    return pairs
'''),
    (6, 'a row counts as moved only if every column moved (all, not any)', '''
def leak_pairs(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    pairs = np.zeros((T, T), dtype=bool)
    for j in range(1, T):
        x2 = x.clone()
        x2[j] = torch.randn(E, dtype=torch.float64, generator=gen)
        moved = (attn(x2) != base).all(dim=-1).numpy()
        pairs[:j, j] = moved[:j]
    return pairs
'''),
    (7, "the author's function unchanged", '''
def padded_attention(q, k, v, lengths):
    return padded_attention_v0(q, k, v, lengths)
'''),
    (7, 'half-fix (B, 1, T): lines up B with the heads (silent when B == H)', '''
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
    (7, 'fixes the shape but flips the polarity', '''
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
    (7, 'masks the padded queries instead of the padded keys', '''
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
    (7, 'off by one: the last real token counted as padding', '''
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
    (7, 'masks after the softmax, without renormalising', '''
def padded_attention(q, k, v, lengths):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T = k.shape[-2]
    real = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True) * real[:, None, None, :]
    return weights @ v, weights
'''),
    (7, 'fills the padded keys with 0, not -inf', '''
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
    (2, "returns nested lists instead of an array", '''
def local_mask(L, S, w, causal=False):
    out = []
    for i in range(L):
        p = i + S - L
        out.append([(p - w <= j <= p) if causal else abs(j - p) <= w for j in range(S)])
    return out
'''),
    (7, "the fix, computed in float32 (passes 1e-12 only through a relative tolerance)", '''
def padded_attention(q, k, v, lengths):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    T = k.shape[-2]
    is_pad = (np.arange(T)[None, :] >= np.asarray(lengths)[:, None])[:, None, None, :]
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    scores = np.where(is_pad, -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return (weights @ v).astype(np.float64), weights.astype(np.float64)
'''),
    (7, "the fix, but the padded keys of q, k, v zeroed in place first", '''
def padded_attention(q, k, v, lengths):
    T = k.shape[-2]
    is_pad = np.arange(T)[None, :] >= np.asarray(lengths)[:, None]
    for b in range(len(lengths)):
        k[b][:, is_pad[b]] = 0.0
    is_pad = is_pad[:, None, None, :]
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    scores = np.where(is_pad, -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (3, 'prediction() runs the check\'s own count through a default argument', '''
def prediction(_g=globals()):
    a, e = _g["counts_by_loops"](_g["KEEP3"], 6)
    return {"right": (a[0], e[0]), "left": (a[1], e[1]), "gaps": (a[2], e[2])}
'''),
    (3, 'prediction(): the whole dict measured with numpy inside a default argument', '''
def prediction(_p=dict(zip(("right", "left", "gaps"), zip(*(c.tolist() for c in mask_counts(
        np.array([[1, 1, 1, 1, 0, 0], [0, 0, 1, 1, 1, 1], [1, 0, 1, 1, 0, 1]], dtype=bool), 6)))))):
    return _p
'''),
    (6, 'changes each token in x itself: the changes add up from one j to the next', '''
def leak_pairs(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    pairs = np.zeros((T, T), dtype=bool)
    for j in range(1, T):
        x[j] = torch.randn(E, dtype=torch.float64, generator=gen)   # never restored
        moved = (attn(x) != base).any(dim=-1).numpy()
        pairs[:j, j] = moved[:j]
    return pairs
'''),
    (7, 'the fix, but T taken from the longest sequence, not from the keys', '''
def padded_attention(q, k, v, lengths):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T = int(np.max(lengths))
    is_pad = (np.arange(T)[None, :] >= np.asarray(lengths)[:, None])[:, None, None, :]
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    scores = np.where(is_pad, -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (4, 'a log-sum-exp shifted by the largest score of each row, blocked keys included', '''
def masked_log_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    top = scores.max(axis=-1, keepdims=True)
    e = np.where(allowed, np.exp(scores - top), 0.0)
    lse = np.log(e.sum(axis=-1, keepdims=True) + ~allowed.any(-1, keepdims=True))
    return np.where(allowed, scores - top - lse, -np.inf)
'''),
]

RIGHT = [
    (1, 'rows of a lower-triangular table, indexed by the lengths', '''
def _right(lengths, S):
    lengths = np.asarray(lengths)
    table = np.tril(np.ones((S + 1, S), dtype=bool), -1)     # row n: the first n keys
    return table[lengths][:, None, None, :]


def padding_mask(lengths, S, side="right"):
    m = _right(lengths, S)
    return m if side == "right" else m[..., ::-1]
'''),
    (1, 'left padding as the right-padded row reversed', '''
def padding_mask(lengths, S, side="right"):
    lengths = np.asarray(lengths)
    right = np.arange(S)[None, :] < lengths[:, None]
    allowed = right if side == "right" else right[:, ::-1]
    return allowed[:, None, None, :]
'''),
    (1, 'a loop with slices from S - n', '''
def padding_mask(lengths, S, side="right"):
    allowed = np.zeros((len(lengths), 1, 1, S), dtype=bool)
    for b, n in enumerate(lengths):
        if side == "right":
            allowed[b, 0, 0, :n] = True
        else:
            allowed[b, 0, 0, S - n:] = True
    return allowed
'''),
    (2, 'with np.tril and np.triu on the bottom-right diagonals', '''
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
    (3, "a wrong prediction: padding also removes the padded queries' rows (typed in: compared, not failed)", '''
def prediction():
    return {"right": (10, 0), "left": (10, 2), "gaps": (10, 0)}
'''),
    (3, 'a wrong prediction: left padding treated like right padding (typed in: compared, not failed)', '''
def prediction():
    return {"right": (18, 0), "left": (18, 0), "gaps": (14, 0)}
'''),
    (3, 'a wrong prediction: no row can be empty while the sequence has a real token (typed in: compared, not failed)', '''
def prediction():
    return {"right": (18, 0), "left": (10, 0), "gaps": (14, 0)}
'''),
    (3, 'a wrong prediction: the causal triangle without the padding (21 each) (typed in: compared, not failed)', '''
def prediction():
    return {"right": (21, 0), "left": (21, 0), "gaps": (21, 0)}
'''),
    (3, 'counts with loops over b', '''
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
    (3, 'a wrong prediction, typed in: the exercise compares, it does not fail', '''
def prediction():
    return {"right": (21, 0), "left": (21, 0), "gaps": (21, 0)}
'''),
    (3, 'a prediction held in a local variable first', '''
def prediction():
    right = (18, 0)
    return {"right": right, "left": (10, 2), "gaps": (14, 0)}
'''),
    (4, 'a loop over the rows with a stable logsumexp', '''
def masked_log_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    out = np.full(scores.shape, -np.inf)
    for idx in np.ndindex(scores.shape[:-1]):
        a = allowed[idx]
        if a.any():
            s = scores[idx][a]
            m = s.max()
            out[idx + (a,)] = s - m - np.log(np.exp(s - m).sum())
    return out
'''),
    (4, 'torch.log_softmax on the filled scores, empty rows set to -inf', '''
def masked_log_softmax(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    allowed = np.broadcast_to(allowed, scores.shape)
    any_allowed = allowed.any(axis=-1, keepdims=True)
    filled = np.where(allowed, scores, -np.inf)
    safe = np.where(any_allowed, filled, 0.0)
    out = torch.log_softmax(torch.from_numpy(safe), -1).numpy()
    return np.where(allowed, out, -np.inf)
'''),
    (5, '~(kpm | attn_mask), by De Morgan, with unflatten', '''
def allowed_from_mha(key_padding_mask, attn_mask, num_heads):
    blocked = None
    if key_padding_mask is not None:
        blocked = key_padding_mask.unsqueeze(1).unsqueeze(2)
    if attn_mask is not None:
        if attn_mask.dim() == 3:
            attn_mask = attn_mask.unflatten(0, (-1, num_heads))
        blocked = attn_mask if blocked is None else blocked | attn_mask
    return ~blocked
'''),
    (5, 'a full (B, H, L, S) mask built by loops', '''
def allowed_from_mha(key_padding_mask, attn_mask, num_heads):
    B = (key_padding_mask.shape[0] if key_padding_mask is not None
         else attn_mask.shape[0] // num_heads if attn_mask.dim() == 3 else 1)
    L, S = (attn_mask.shape[-2:] if attn_mask is not None else (1, key_padding_mask.shape[1]))
    allowed = torch.ones(B, num_heads, L, S, dtype=torch.bool)
    for b in range(B):
        for h in range(num_heads):
            if key_padding_mask is not None:
                allowed[b, h] &= ~key_padding_mask[b][None, :]
            if attn_mask is not None:
                allowed[b, h] &= ~(attn_mask if attn_mask.dim() == 2 else attn_mask[b * num_heads + h])
    return allowed
'''),
    (6, 'one column at a time, with a loop over the earlier rows', '''
def leak_pairs(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x).numpy()
    pairs = np.zeros((T, T), dtype=bool)
    for j in range(T):
        x2 = x.clone()
        x2[j] = torch.randn(E, dtype=torch.float64, generator=gen)
        out = attn(x2).numpy()
        for i in range(j):
            pairs[i, j] = not np.array_equal(out[i], base[i])
    return pairs
'''),
    (6, 'changes token j by adding 1 (any change will do)', '''
def leak_pairs(attn, T, E, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(T, E, dtype=torch.float64, generator=gen)
    base = attn(x)
    pairs = np.zeros((T, T), dtype=bool)
    for j in range(1, T):
        x2 = x.clone()
        x2[j] += 1.0
        pairs[:j, j] = (attn(x2)[:j] != base[:j]).any(dim=-1).numpy()
    return pairs
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
    (7, 'masks padded queries too, with zero rows there (they are not read)', '''
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
    (7, 'masks padded queries too, leaving NaN in those unread rows', '''
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
    (7, 'fix with (B, 1, 1, T) and a -1e9 fill (every sequence has a real key)', '''
def padded_attention(q, k, v, lengths):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    T = k.shape[-2]
    is_pad = np.arange(T)[None, :] >= np.asarray(lengths)[:, None]
    scores = np.where(is_pad[:, None, None, :], -1e9, q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]))
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
]
