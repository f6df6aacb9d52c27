"""Wrong answers a learner would plausibly write for chapter 2's exercises."""
WRONG = [
    (1, "a dot product instead of the additive score", '''
def additive_scores(q, keys, W_q, W_k, v_a):
    return (np.asarray(keys) @ W_k) @ (np.asarray(q) @ W_q)
'''),
    (1, "hidden units summed instead of weighted by v_a", '''
def additive_scores(q, keys, W_q, W_k, v_a):
    q, keys = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64)
    return np.tanh(q @ W_q + keys @ W_k).sum(axis=-1)
'''),
    (1, "tanh forgotten", '''
def additive_scores(q, keys, W_q, W_k, v_a):
    q, keys = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64)
    return (q @ W_q + keys @ W_k) @ v_a
'''),
    (1, "v_a applied before the tanh", '''
def additive_scores(q, keys, W_q, W_k, v_a):
    q, keys = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64)
    return np.tanh((q @ W_q + keys @ W_k) @ v_a)
'''),
    (1, "W_q and W_k swapped", '''
def additive_scores(q, keys, W_q, W_k, v_a):
    q, keys = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64)
    return np.tanh(q @ W_k + keys @ W_q) @ v_a
'''),
    (2, "padding filled with 0 instead of -inf", '''
def masked_weights(scores, allowed):
    scores, allowed = np.asarray(scores, dtype=np.float64), np.asarray(allowed, dtype=bool)
    if not allowed.any(axis=-1).all():
        raise ValueError("a row with no allowed position")
    filled = np.where(allowed, scores, 0.0)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (2, "softmax first, then the padded weights zeroed, not renormalised", '''
def masked_weights(scores, allowed):
    scores, allowed = np.asarray(scores, dtype=np.float64), np.asarray(allowed, dtype=bool)
    if not allowed.any(axis=-1).all():
        raise ValueError("a row with no allowed position")
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) * allowed
'''),
    (2, "softmax over everything, then masked and renormalised (padding garbage decides the max)", '''
def masked_weights(scores, allowed):
    scores, allowed = np.asarray(scores, dtype=np.float64), np.asarray(allowed, dtype=bool)
    if not allowed.any(axis=-1).all():
        raise ValueError("a row with no allowed position")
    e = np.exp(scores - scores.max(axis=-1, keepdims=True)) * allowed
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (2, "no max subtracted: overflows on large scores", '''
def masked_weights(scores, allowed):
    scores, allowed = np.asarray(scores, dtype=np.float64), np.asarray(allowed, dtype=bool)
    if not allowed.any(axis=-1).all():
        raise ValueError("a row with no allowed position")
    e = np.exp(np.where(allowed, scores, -np.inf))
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (2, "an empty row returns NaN instead of raising", '''
def masked_weights(scores, allowed):
    scores, allowed = np.asarray(scores, dtype=np.float64), np.asarray(allowed, dtype=bool)
    filled = np.where(allowed, scores, -np.inf)
    with np.errstate(all="ignore"):
        e = np.exp(filled - filled.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
'''),
    (2, "softmax over the batch axis", '''
def masked_weights(scores, allowed):
    scores, allowed = np.asarray(scores, dtype=np.float64), np.asarray(allowed, dtype=bool)
    if not allowed.any(axis=-1).all():
        raise ValueError("a row with no allowed position")
    filled = np.where(allowed, scores, -np.inf)
    e = np.exp(filled - filled.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)
'''),
    (3, "mean over the keys instead of the weighted sum", '''
def context_vectors(weights, keys):
    return (np.asarray(weights)[..., None] * np.asarray(keys)[:, None]).mean(axis=2)
'''),
    (3, "weights transposed", '''
def context_vectors(weights, keys):
    return np.asarray(weights).swapaxes(-2, -1) @ np.asarray(keys)
'''),
    (3, "the unweighted sum of the keys", '''
def context_vectors(weights, keys):
    weights, keys = np.asarray(weights), np.asarray(keys)
    return np.broadcast_to(keys.sum(axis=1, keepdims=True), (keys.shape[0], weights.shape[1],
                                                             keys.shape[2])).copy()
'''),
    (3, "returns a torch tensor", '''
def context_vectors(weights, keys):
    return torch.from_numpy(np.asarray(weights)) @ torch.from_numpy(np.asarray(keys))
'''),
    (4, "the diagonal as the expected rule", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    return float((weights[:src_len].argmax(axis=1) == np.arange(src_len)).mean())
'''),
    (4, "off by one: position n - i", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    return float((weights[:src_len].argmax(axis=1) == src_len - np.arange(src_len)).mean())
'''),
    (4, "argmax over the wrong axis", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    expected = src_len - 1 - np.arange(src_len)
    return float((weights[:, :src_len].argmax(axis=0) == expected).mean())
'''),
    (4, "a count instead of a fraction", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    expected = src_len - 1 - np.arange(src_len)
    return float((weights[:src_len].argmax(axis=1) == expected).sum())
'''),
    (4, "a NumPy array instead of a float", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    expected = src_len - 1 - np.arange(src_len)
    return (weights[:src_len].argmax(axis=1) == expected).mean(keepdims=True)
'''),
    (5, "split without transposing", '''
def split_concat_weight(weight, Eq):
    weight = np.asarray(weight, dtype=np.float64)
    return weight[:, :Eq], weight[:, Eq:]
'''),
    (5, "the two halves swapped", '''
def split_concat_weight(weight, Eq):
    W = np.asarray(weight, dtype=np.float64).T
    Ek = W.shape[0] - Eq
    return W[Ek:], W[:Ek]
'''),
    (5, "split at the wrong row", '''
def split_concat_weight(weight, Eq):
    W = np.asarray(weight, dtype=np.float64).T
    return W[:W.shape[1]], W[W.shape[1]:]
'''),
    (5, "a list instead of a tuple", '''
def split_concat_weight(weight, Eq):
    W = np.asarray(weight, dtype=np.float64).T
    return [W[:Eq], W[Eq:]]
'''),
]

RIGHT = [
    (2, "a huge negative fill instead of -inf", '''
def masked_weights(scores, allowed):
    scores, allowed = np.asarray(scores, dtype=np.float64), np.asarray(allowed, dtype=bool)
    if not allowed.any(axis=-1).all():
        raise ValueError("a row with no allowed position")
    filled = np.where(allowed, scores, -1e300)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (2, "the package's softmax_np on -inf scores", '''
from attnlab.scaled_dot_product import softmax_np

def masked_weights(scores, allowed):
    scores, allowed = np.asarray(scores, dtype=np.float64), np.asarray(allowed, dtype=bool)
    if not allowed.any(axis=-1).all():
        raise ValueError("a row with no allowed position")
    return softmax_np(np.where(allowed, scores, -np.inf), axis=-1)
'''),
    (3, "np.einsum", '''
def context_vectors(weights, keys):
    return np.einsum("bls,bse->ble", weights, keys)
'''),
    (4, "np.mean returned as a NumPy float64 (a float subclass)", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    return np.mean(np.argmax(weights[:src_len], axis=1) == src_len - 1 - np.arange(src_len))
'''),
    (5, "np.split of the transposed weight", '''
def split_concat_weight(weight, Eq):
    W_q, W_k = np.split(np.asarray(weight).T, [Eq])
    return W_q, W_k
'''),
]
