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
    (2, "top-left instead of bottom-right", '''
def causal_mask_bottom_right(L, S):
    return np.arange(S)[None, :] <= np.arange(L)[:, None]
'''),
    (2, "diagonal off by one: j < i + S - L", '''
def causal_mask_bottom_right(L, S):
    return np.arange(S)[None, :] < np.arange(L)[:, None] + (S - L)
'''),
    (2, "offset with the wrong sign: L - S", '''
def causal_mask_bottom_right(L, S):
    return np.arange(S)[None, :] <= np.arange(L)[:, None] + (L - S)
'''),
    (2, "polarity inverted: True above the diagonal", '''
def causal_mask_bottom_right(L, S):
    return np.triu(np.ones((L, S), dtype=bool), k=S - L + 1)
'''),
    (2, "calls the package's causal_mask_np", '''
from attnlab.masks import causal_mask_np

def causal_mask_bottom_right(L, S):
    return causal_mask_np(L, S, align="bottom-right")
'''),
    (3, "OR instead of AND", '''
def combined_mask(lengths, L, S):
    return padding_mask(lengths, S) | causal_mask_bottom_right(L, S)
'''),
    (3, "top-left causal mask", '''
def combined_mask(lengths, L, S):
    return padding_mask(lengths, S) & np.tril(np.ones((L, S), dtype=bool))
'''),
    (3, "no head axis: (B, L, S)", '''
def combined_mask(lengths, L, S):
    return padding_mask(lengths, S)[:, 0] & causal_mask_bottom_right(L, S)
'''),
    (3, "pads the queries instead of the keys", '''
def combined_mask(lengths, L, S):
    pad = np.arange(L)[None, :] < np.asarray(lengths)[:, None]     # (B, L)
    return pad[:, None, :, None] & causal_mask_bottom_right(L, S)
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
]

RIGHT = [
    (2, "with np.tril and the diagonal offset", '''
def causal_mask_bottom_right(L, S):
    return np.tril(np.ones((L, S), dtype=bool), k=S - L)
'''),
    (3, "with the package's masks (allowed)", '''
from attnlab.masks import causal_mask_np, padding_mask_np

def combined_mask(lengths, L, S):
    return padding_mask_np(np.asarray(lengths), S) & causal_mask_np(L, S, "bottom-right")
'''),
    (4, "fills with -1e9 and zeroes empty rows (underflow is allowed)", '''
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
]
