"""Wrong answers a learner would plausibly write for chapter 6's exercises."""

_SA = '''
def self_attention_seq_first(x, W_q, W_k, W_v):
    x = np.moveaxis(np.asarray(x, dtype=np.float64), 0, -2)
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
{softmax}
    return np.moveaxis(weights @ v, -2, 0), weights
'''


def _sa(softmax):
    return _SA.format(softmax=softmax)


_CA = '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_keep):
    x_q, x_kv = np.asarray(x_q, dtype=np.float64), np.asarray(x_kv, dtype=np.float64)
    q, k, v = x_q @ W_q, x_kv @ W_k, x_kv @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
{body}
    return weights @ v, weights
'''
_SOFTMAX = '''    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)'''


def _ca(mask):
    return _CA.format(body=mask + "\n" + _SOFTMAX)


_LOAD = '''
def load_into_mha(mha, W_q, W_k, W_v):
    dt = mha.out_proj.weight.dtype
    t = lambda W: torch.as_tensor(np.asarray(W).T, dtype=dt)
    with torch.no_grad():
{body}
    return mha
'''
_COPY_BOTH = '''        if mha.in_proj_weight is not None:
            mha.in_proj_weight.copy_(torch.cat([t(W_q), t(W_k), t(W_v)]))
        else:
            mha.q_proj_weight.copy_(t(W_q))
            mha.k_proj_weight.copy_(t(W_k))
            mha.v_proj_weight.copy_(t(W_v))'''
_EYE = '''        mha.out_proj.weight.copy_(torch.eye(mha.embed_dim, dtype=dt))'''
_ZERO_BIASES = '''        for b in (mha.in_proj_bias, mha.out_proj.bias):
            if b is not None:
                b.zero_()'''


def _load(*parts):
    return _LOAD.format(body="\n".join(parts))


_PREDICTION = {"no mask": 6, "positions": 0, "causal, last two swapped": 4,
               "causal, first two swapped": 4, "causal, rotated": 0}


def _predict(**changes):
    said = dict(_PREDICTION)
    said.update({k.replace("_", " ").replace("causal ", "causal, "): v
                 for k, v in changes.items()})
    return f'''
def prediction():
    return {said!r}
'''


_MEASURE = '''
def rows_that_follow(layer, x, perm):
{body}
'''

WRONG = [
    (1, "no scaling", _sa(_SOFTMAX).replace(" / np.sqrt(q.shape[-1])", "")),
    (1, "scaled by sqrt(E), the model width", _sa(_SOFTMAX).replace(
        "np.sqrt(q.shape[-1])", "np.sqrt(x.shape[-1])")),
    (1, "scaled by sqrt(Dv)", _sa(_SOFTMAX).replace(
        "np.sqrt(q.shape[-1])", "np.sqrt(v.shape[-1])")),
    (1, "softmax over the queries (axis -2)", _sa(_SOFTMAX.replace("axis=-1", "axis=-2"))),
    (1, "exp without subtracting the row maximum (overflows on large scores)", _sa('''
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)''')),
    (1, "subtracts the maximum of the whole array, not of each row", _sa('''
    e = np.exp(scores - scores.max())
    weights = e / e.sum(axis=-1, keepdims=True)''')),
    (1, "returns (weights, out)", _sa(_SOFTMAX).replace(
        "return np.moveaxis(weights @ v, -2, 0), weights",
        "return weights, np.moveaxis(weights @ v, -2, 0)")),
    (1, "returns only out", _sa(_SOFTMAX).replace(
        "return np.moveaxis(weights @ v, -2, 0), weights", "return np.moveaxis(weights @ v, -2, 0)")),
    (1, "imports the chapter's self_attention_np", '''
from attnlab.self_and_cross_attention import self_attention_np


def self_attention_seq_first(x, W_q, W_k, W_v):
    out, weights = self_attention_np(np.moveaxis(np.asarray(x), 0, -2), W_q, W_k, W_v)
    return np.moveaxis(out, -2, 0), weights
'''),
    (1, "the batch-first code unchanged: the sequence read from axis -2", '''
def self_attention_seq_first(x, W_q, W_k, W_v):
    x = np.asarray(x, dtype=np.float64)
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (1, "only (L, B, E): swaps axes 0 and 1 (a 2-D or 4-D input breaks)", '''
def self_attention_seq_first(x, W_q, W_k, W_v):
    x = np.asarray(x, dtype=np.float64).swapaxes(0, 1)
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return (weights @ v).swapaxes(0, 1), weights
'''),
    (1, "reshape on the way back instead of moveaxis: rows scrambled", '''
def self_attention_seq_first(x, W_q, W_k, W_v):
    x = np.asarray(x, dtype=np.float64)
    xb = np.moveaxis(x, 0, -2)
    q, k, v = xb @ W_q, xb @ W_k, xb @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    out = weights @ v
    return out.reshape((out.shape[-2],) + out.shape[:-2] + out.shape[-1:]), weights
'''),
    (1, "out left batch first", _sa(_SOFTMAX).replace(
        "return np.moveaxis(weights @ v, -2, 0), weights", "return weights @ v, weights")),
    (1, "moves the weights' query axis to the front too", _sa(_SOFTMAX).replace(
        "return np.moveaxis(weights @ v, -2, 0), weights",
        "return np.moveaxis(weights @ v, -2, 0), np.moveaxis(weights, -2, 0)")),
    (1, "reshape instead of moveaxis: the numbers land in the wrong rows", '''
def self_attention_seq_first(x, W_q, W_k, W_v):
    x = np.asarray(x, dtype=np.float64)
    xb = x.reshape(x.shape[1:-1] + (x.shape[0], x.shape[-1]))
    q, k, v = xb @ W_q, xb @ W_k, xb @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    out = weights @ v
    return np.moveaxis(out, -2, 0), weights
'''),
    (1, "computed in float32", _sa(_SOFTMAX).replace(
        "np.asarray(x, dtype=np.float64)", "np.asarray(x, dtype=np.float32)").replace(
        "q, k, v = x @ W_q, x @ W_k, x @ W_v",
        "q, k, v = (x @ W.astype(np.float32) for W in (W_q, W_k, W_v))").replace(
        "return np.moveaxis(weights @ v, -2, 0), weights",
        "return np.moveaxis(weights @ v, -2, 0).astype(np.float64), weights.astype(np.float64)")),
    (2, "mask built from the lengths (right padding only)", _ca('''
    keep = np.asarray(src_keep).astype(bool)
    lengths = keep.sum(axis=-1)
    allowed = np.arange(keep.shape[-1])[None, None, :] < lengths[:, None, None]
    scores = np.where(allowed, scores, -np.inf)''')),
    (2, "padding scores set to 0 instead of -inf", _ca('''
    keep = np.asarray(src_keep).astype(bool)[:, None, :]
    scores = np.where(keep, scores, 0.0)''')),
    (2, "mask broadcast along the queries: (B, S, 1)", _ca('''
    keep = np.asarray(src_keep).astype(bool)[:, :, None]
    scores = np.where(keep, scores, -np.inf)''')),
    (2, "~ applied to an integer mask (~1 = -2, ~0 = -1: all blocked)", _ca('''
    blocked = ~np.asarray(src_keep)
    scores = np.where(blocked[:, None, :], -np.inf, scores)''')),
    (2, "mask polarity inverted (True = blocked)", _ca('''
    keep = np.asarray(src_keep).astype(bool)[:, None, :]
    scores = np.where(keep, -np.inf, scores)''')),
    (2, "the first sentence's mask used for the whole batch", _ca('''
    keep = np.asarray(src_keep).astype(bool)[0]
    scores = np.where(keep, scores, -np.inf)''')),
    (2, "an additive fill of -1e4 (a pad holding 1e100 outweighs it)", _ca('''
    keep = np.asarray(src_keep).astype(bool)
    scores = scores + np.where(keep[:, None, :], 0.0, -1e4)''')),
    (2, "an additive fill of -1e9", _ca('''
    keep = np.asarray(src_keep).astype(bool)
    scores = scores - 1e9 * (~keep[:, None, :])''')),
    (2, "padded keys zeroed instead of masked", '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_keep):
    x_q, x_kv = np.asarray(x_q, dtype=np.float64), np.asarray(x_kv, dtype=np.float64)
    keep = np.asarray(src_keep).astype(bool)
    q, k, v = x_q @ W_q, (x_kv @ W_k) * keep[..., None], x_kv @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (2, "mask applied after the softmax, rows not renormalised", '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_keep):
    x_q, x_kv = np.asarray(x_q, dtype=np.float64), np.asarray(x_kv, dtype=np.float64)
    q, k, v = x_q @ W_q, x_kv @ W_k, x_kv @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True) * np.asarray(src_keep).astype(bool)[:, None, :]
    return weights @ v, weights
'''),
    (2, "right, but zeroes the padded inputs in place first", '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_keep):
    x_q, x_kv = np.asarray(x_q, dtype=np.float64), np.asarray(x_kv, dtype=np.float64)
    keep = np.asarray(src_keep).astype(bool)
    x_kv[~keep] = 0.0
    q, k, v = x_q @ W_q, x_kv @ W_k, x_kv @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    scores = np.where(keep[:, None, :], scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (2, "computed in float32 (passes a 1e-12 check only through np.allclose's rtol)", '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_keep):
    f = np.float32
    keep = np.asarray(src_keep).astype(bool)[:, None, :]
    q, k, v = (np.asarray(a, dtype=f) @ np.asarray(W, dtype=f)
               for a, W in ((x_q, W_q), (x_kv, W_k), (x_kv, W_v)))
    scores = np.where(keep, q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (2, "row maximum subtracted before masking (a huge pad score underflows the real keys)", '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_keep):
    x_q, x_kv = np.asarray(x_q, dtype=np.float64), np.asarray(x_kv, dtype=np.float64)
    keep = np.asarray(src_keep).astype(bool)[:, None, :]
    q, k, v = x_q @ W_q, x_kv @ W_k, x_kv @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    scores = np.where(keep, scores - scores.max(axis=-1, keepdims=True), -np.inf)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (2, "softmax over every key, then padding zeroed and rows renormalised (0/0 on a huge pad)",
     '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_keep):
    x_q, x_kv = np.asarray(x_q, dtype=np.float64), np.asarray(x_kv, dtype=np.float64)
    keep = np.asarray(src_keep).astype(bool)[:, None, :]
    q, k, v = x_q @ W_q, x_kv @ W_k, x_kv @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True) * keep
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (2, "exp of the unmasked scores times the mask (a huge pad: inf * 0 = NaN)", '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_keep):
    x_q, x_kv = np.asarray(x_q, dtype=np.float64), np.asarray(x_kv, dtype=np.float64)
    keep = np.asarray(src_keep).astype(bool)[:, None, :]
    q, k, v = x_q @ W_q, x_kv @ W_k, x_kv @ W_v
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - np.where(keep, scores, -np.inf).max(axis=-1, keepdims=True)) * keep
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (2, "keys and values taken from the decoder", '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_keep):
    x_q = np.asarray(x_q, dtype=np.float64)
    q, k, v = x_q @ W_q, x_q @ W_q, x_q @ W_q     # widths differ: K, V via W_q to run at all
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (2, "imports the chapter's cross_attention_np", '''
from attnlab.self_and_cross_attention import cross_attention_np


def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_keep):
    allowed = np.asarray(src_keep).astype(bool)[:, None, :]
    return cross_attention_np(x_q, x_kv, W_q, W_k, W_v, allowed=allowed)
'''),
    (3, "copied without transposing (square: no error)", _load('''
        if mha.in_proj_weight is not None:
            mha.in_proj_weight.copy_(torch.cat([torch.as_tensor(W, dtype=dt)
                                                for W in (W_q, W_k, W_v)]))
        else:
            mha.q_proj_weight.copy_(torch.as_tensor(W_q, dtype=dt))
            mha.k_proj_weight.copy_(torch.as_tensor(W_k, dtype=dt))
            mha.v_proj_weight.copy_(torch.as_tensor(W_v, dtype=dt))''', _EYE, _ZERO_BIASES)),
    (3, "stacked in the wrong order (K, Q, V)", _load('''
        if mha.in_proj_weight is not None:
            mha.in_proj_weight.copy_(torch.cat([t(W_k), t(W_q), t(W_v)]))
        else:
            mha.q_proj_weight.copy_(t(W_q))
            mha.k_proj_weight.copy_(t(W_k))
            mha.v_proj_weight.copy_(t(W_v))''', _EYE, _ZERO_BIASES)),
    (3, "out_proj left at its random values", _load(_COPY_BOTH, _ZERO_BIASES)),
    (3, "out_proj zeroed instead of set to the identity", _load(
        _COPY_BOTH, "        mha.out_proj.weight.zero_()", _ZERO_BIASES)),
    (3, "biases left at their random values", _load(_COPY_BOTH, _EYE)),
    (3, "only in_proj_bias zeroed (out_proj.bias left)", _load(_COPY_BOTH, _EYE, '''
        if mha.in_proj_bias is not None:
            mha.in_proj_bias.zero_()''')),
    (3, "only the stacked layout (fails when kdim != embed_dim)", _load(
        "        mha.in_proj_weight.copy_(torch.cat([t(W_q), t(W_k), t(W_v)]))",
        _EYE, _ZERO_BIASES)),
    (3, "copied through a float32 tensor", _load(
        _COPY_BOTH.replace("dtype=dt", "dtype=torch.float32"), _EYE, _ZERO_BIASES).replace(
        "t = lambda W: torch.as_tensor(np.asarray(W).T, dtype=dt)",
        "t = lambda W: torch.as_tensor(np.asarray(W).T, dtype=torch.float32)")),
    (3, "returns nothing", _load(_COPY_BOTH, _EYE, _ZERO_BIASES).replace(
        "    return mha\n", "")),
    (3, "the author's function unchanged", '''
def load_into_mha(mha, W_q, W_k, W_v):
    return load_into_mha_v0(mha, W_q, W_k, W_v)
'''),
    (3, "the author's function with the biases zeroed (still float32, still one layout)", '''
def load_into_mha(mha, W_q, W_k, W_v):
    load_into_mha_v0(mha, W_q, W_k, W_v)
    with torch.no_grad():
        for b in (mha.in_proj_bias, mha.out_proj.bias):
            if b is not None:
                b.zero_()
    return mha
'''),
    (4, "the score computed in float32", '''
def alignment_projections(alignment, S, p):
    L = len(alignment)
    alpha = np.float32(np.log(np.float32(p) * (S - 1) / (1 - np.float32(p)))) * np.float32(np.sqrt(S))
    W_q = np.zeros((L, S), dtype=np.float32)
    W_q[np.arange(L), alignment] = alpha
    return W_q, np.eye(S, dtype=np.float32)
'''),
    (3, "the right port, but the caller's W_q transposed in place first (square only)", _load(
        '''        W_q[...] = np.asarray(W_q).T.copy()
        W_q = np.asarray(W_q).T''', _COPY_BOTH, _EYE, _ZERO_BIASES)),
    (4, "forgets the 1/sqrt(D) scale", '''
def alignment_projections(alignment, S, p):
    L = len(alignment)
    W_q = np.zeros((L, S))
    W_q[np.arange(L), alignment] = np.log(p * (S - 1) / (1 - p))
    return W_q, np.eye(S)
'''),
    (4, "solves exp(a) / (exp(a) + 1) = p (ignores the S - 1 other keys)", '''
def alignment_projections(alignment, S, p):
    L = len(alignment)
    W_q = np.zeros((L, S))
    W_q[np.arange(L), alignment] = np.log(p / (1 - p)) * np.sqrt(S)
    return W_q, np.eye(S)
'''),
    (4, "counts S other keys instead of S - 1", '''
def alignment_projections(alignment, S, p):
    L = len(alignment)
    W_q = np.zeros((L, S))
    W_q[np.arange(L), alignment] = np.log(p * S / (1 - p)) * np.sqrt(S)
    return W_q, np.eye(S)
'''),
    (4, "divides by sqrt(D) instead of multiplying", '''
def alignment_projections(alignment, S, p):
    L = len(alignment)
    W_q = np.zeros((L, S))
    W_q[np.arange(L), alignment] = np.log(p * (S - 1) / (1 - p)) / np.sqrt(S)
    return W_q, np.eye(S)
'''),
    (4, "undoes the scale with sqrt(L), the number of target words", '''
def alignment_projections(alignment, S, p):
    L = len(alignment)
    W_q = np.zeros((L, S))
    W_q[np.arange(L), alignment] = np.log(p * (S - 1) / (1 - p)) * np.sqrt(L)
    return W_q, np.eye(S)
'''),
    (4, "one large score: sharp, but not exactly p", '''
def alignment_projections(alignment, S, p):
    L = len(alignment)
    W_q = np.zeros((L, S))
    W_q[np.arange(L), alignment] = 15.0
    return W_q, np.eye(S)
'''),
    (5, "measures row i against row i (forgets to move the outputs)", _MEASURE.format(body='''
    a, b = layer(np.take(x, perm, axis=-2)), layer(x)
    return int(np.all(np.abs(a - b) <= 1e-9, axis=-1).sum())''')),
    (5, "moves the outputs with the inverse permutation", _MEASURE.format(body='''
    a, b = layer(np.take(x, perm, axis=-2)), np.take(layer(x), np.argsort(perm), axis=-2)
    return int(np.all(np.abs(a - b) <= 1e-9, axis=-1).sum())''')),
    (5, "x[perm]: shuffles the batch axis of a batch", _MEASURE.format(body='''
    a, b = layer(x[perm]), layer(x)[perm]
    return int(np.all(np.abs(a - b) <= 1e-9, axis=-1).sum())''')),
    (5, "counts equal entries, not equal rows", _MEASURE.format(body='''
    a, b = layer(np.take(x, perm, axis=-2)), np.take(layer(x), perm, axis=-2)
    return int((np.abs(a - b) <= 1e-9).sum())''')),
    (5, "a row follows if any column agrees (any, not all)", _MEASURE.format(body='''
    a, b = layer(np.take(x, perm, axis=-2)), np.take(layer(x), perm, axis=-2)
    return int(np.any(np.abs(a - b) <= 1e-9, axis=-1).sum())''')),
    (5, "returns the fraction of rows, a float", _MEASURE.format(body='''
    a, b = layer(np.take(x, perm, axis=-2)), np.take(layer(x), perm, axis=-2)
    return float(np.all(np.abs(a - b) <= 1e-9, axis=-1).mean())''')),
    (5, "prediction() runs the measurement instead of committing", '''
def prediction():
    return {name: rows_that_follow(layer, x, np.array(perm))
            for name, (layer, perm) in EXPERIMENTS.items()}
'''),
    (5, "prediction() reads a table defined elsewhere", '''
GUESS = {"no mask": 6, "positions": 0, "causal, last two swapped": 4,
         "causal, first two swapped": 4, "causal, rotated": 0}

def prediction():
    return dict(GUESS)
'''),
    (5, "prediction: booleans (does the row follow?) instead of counts", _predict(
        no_mask=True, positions=False)),
    (5, "shuffles the caller's x in place, then compares with the shuffled original", _MEASURE.format(body='''
    before = layer(x)
    x[...] = np.take(x, perm, axis=-2)
    a, b = layer(x), np.take(before, perm, axis=-2)
    return int(np.all(np.abs(a - b) <= 1e-9, axis=-1).sum())''')),
    (5, "np.isclose with its default tolerances (1e-5 relative)", _MEASURE.format(body='''
    a, b = layer(np.take(x, perm, axis=-2)), np.take(layer(x), perm, axis=-2)
    return int(np.isclose(a, b).all(axis=-1).sum())''')),
    (5, "np.allclose row by row with its default tolerances", _MEASURE.format(body='''
    a, b = layer(np.take(x, perm, axis=-2)), np.take(layer(x), perm, axis=-2)
    a, b = a.reshape(-1, a.shape[-1]), b.reshape(-1, b.shape[-1])
    return sum(1 for r, t in zip(a, b) if np.allclose(r, t))''')),
    (5, 'prediction() hands back the check\'s measurement through a default argument', '''
def prediction(_g=globals()):
    return _g["measured"]
'''),
    (1, 'k.T for the keys: reverses every axis once there are batch axes', '''
def self_attention_seq_first(x, W_q, W_k, W_v):
    x = np.moveaxis(np.asarray(x, dtype=np.float64), 0, -2)
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = q @ k.T / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return np.moveaxis(weights @ v, -2, 0), weights
'''),
]

RIGHT = [
    (5, "a wrong prediction, typed in (compared, not failed): predicts that swapping the first two tokens changes every later row",
     _predict(causal_first_two_swapped=0)),
    (5, "a wrong prediction, typed in (compared, not failed): predicts that swapping the last two tokens changes only the last row",
     _predict(causal_last_two_swapped=5)),
    (5, "a wrong prediction, typed in (compared, not failed): predicts that the fixed point of perm survives the added positions",
     _predict(positions=1)),
    (5, "a wrong prediction, typed in (compared, not failed): predicts that a rotation keeps the causal rows (relative order kept)",
     _predict(causal_rotated=5)),
    (5, "a wrong prediction, typed in (compared, not failed): predicts that a shuffle changes every row even without a mask", _predict(no_mask=0)),
    (1, "einsum on the sequence-first layout, in place softmax", '''
def self_attention_seq_first(x, W_q, W_k, W_v):
    x = np.asarray(x, dtype=np.float64)
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = np.einsum("l...d,s...d->...ls", q, k) / np.sqrt(W_q.shape[1])
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("...ls,s...v->l...v", weights, v), weights
'''),
    (1, "scipy's softmax (stable), transposes by an axis list", '''
from scipy.special import softmax as scipy_softmax


def self_attention_seq_first(x, W_q, W_k, W_v):
    x = np.asarray(x, dtype=np.float64)
    n = x.ndim
    xb = x.transpose(tuple(range(1, n - 1)) + (0, n - 1))
    q, k, v = xb @ W_q, xb @ W_k, xb @ W_v
    weights = scipy_softmax(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), axis=-1)
    out = weights @ v
    return out.transpose((n - 2,) + tuple(range(n - 2)) + (n - 1,)), weights
'''),
    (2, "a large negative number instead of -inf", _ca('''
    keep = np.asarray(src_keep) != 0
    scores = np.where(keep[:, None, :], scores, -1e30)''')),
    (2, "one sentence at a time over its real keys, weights scattered back", '''
def cross_attention(x_q, x_kv, W_q, W_k, W_v, src_keep):
    x_q, x_kv = np.asarray(x_q, dtype=np.float64), np.asarray(x_kv, dtype=np.float64)
    keep = np.asarray(src_keep).astype(bool)
    B, L, S = x_q.shape[0], x_q.shape[1], x_kv.shape[1]
    out, weights = np.zeros((B, L, W_v.shape[1])), np.zeros((B, L, S))
    for b in range(B):
        q, k, v = x_q[b] @ W_q, x_kv[b][keep[b]] @ W_k, x_kv[b][keep[b]] @ W_v
        s = q @ k.T / np.sqrt(q.shape[-1])
        w = np.exp(s - s.max(axis=-1, keepdims=True))
        w /= w.sum(axis=-1, keepdims=True)
        out[b], weights[b][:, keep[b]] = w @ v, w
    return out, weights
'''),
    (3, "torch.cat of transposed torch tensors, biases through named_parameters", '''
def load_into_mha(mha, W_q, W_k, W_v):
    dt = mha.out_proj.weight.dtype
    with torch.no_grad():
        Ws = [torch.from_numpy(np.ascontiguousarray(W)).to(dt).T for W in (W_q, W_k, W_v)]
        if mha._qkv_same_embed_dim:
            mha.in_proj_weight.copy_(torch.cat(Ws))
        else:
            for param, W in zip((mha.q_proj_weight, mha.k_proj_weight, mha.v_proj_weight), Ws):
                param.copy_(W)
        mha.out_proj.weight.copy_(torch.eye(mha.embed_dim, dtype=dt))
        for name, param in mha.named_parameters():
            if name.endswith("bias"):
                param.zero_()
    return mha
'''),
    (4, "two extra zero columns (D = S + 2), scale adjusted", '''
def alignment_projections(alignment, S, p):
    L, D = len(alignment), S + 2
    W_q = np.zeros((L, D))
    W_q[np.arange(L), alignment] = np.log(p * (S - 1) / (1 - p)) * np.sqrt(D)
    return W_q, np.eye(S, D)
'''),
    (4, "the odds of the aligned key against one other key", '''
def alignment_projections(alignment, S, p):
    L = len(alignment)
    a = np.log(p / ((1 - p) / (S - 1)))      # odds: aligned weight over one other key's
    W_q = np.zeros((L, S))
    W_q[np.arange(L), alignment] = a * np.sqrt(S)
    return W_q, np.eye(S)
'''),
    (5, "a row-by-row loop with np.allclose", _MEASURE.format(body='''
    a, b = layer(x[..., perm, :]), layer(x)[..., perm, :]
    a, b = a.reshape(-1, a.shape[-1]), b.reshape(-1, b.shape[-1])
    return sum(1 for r, s in zip(a, b) if np.allclose(r, s, rtol=0, atol=1e-9))''')),
]
