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
    # ---- added with the exercises that teach (issue 16)
    (1, "the weights (a softmax of the scores) instead of the scores", '''
def additive_scores(q, keys, W_q, W_k, v_a):
    q, keys = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64)
    return softmax_np(np.tanh(q @ W_q + keys @ W_k) @ v_a)
'''),
    (2, "the padding filled with -1e9 applied to the caller's array in place", '''
def masked_weights(scores, allowed):
    scores, allowed = np.asarray(scores, dtype=np.float64), np.asarray(allowed, dtype=bool)
    if not allowed.any(axis=-1).all():
        raise ValueError("a row with no allowed position")
    scores[~allowed] = -np.inf
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (2, "right padding assumed: the mask rebuilt from the number of real tokens", '''
def masked_weights(scores, allowed):
    scores, allowed = np.asarray(scores, dtype=np.float64), np.asarray(allowed, dtype=bool)
    if not allowed.any(axis=-1).all():
        raise ValueError("a row with no allowed position")
    lengths = allowed.sum(axis=-1, keepdims=True)
    prefix = np.arange(scores.shape[-1]) < lengths
    filled = np.where(prefix, scores, -np.inf)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (2, "an empty row raises another error", '''
def masked_weights(scores, allowed):
    scores, allowed = np.asarray(scores, dtype=np.float64), np.asarray(allowed, dtype=bool)
    if not allowed.any(axis=-1).all():
        raise RuntimeError("a row with no allowed position")
    filled = np.where(allowed, scores, -np.inf)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (3, "the keys transposed to make a product", '''
def context_vectors(weights, keys):
    return np.asarray(weights) @ np.asarray(keys).swapaxes(-2, -1)
'''),
    (3, "the sum over the steps L instead of the source S", '''
def context_vectors(weights, keys):
    w, k = np.asarray(weights, dtype=np.float64), np.asarray(keys, dtype=np.float64)
    return np.einsum("bls,bse->ble", w / w.sum(axis=1, keepdims=True), k)
'''),
    (4, "argmax over the padded columns too, then compared with n - 1 - i over S", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    S = weights.shape[1]
    return float((weights[:src_len].argmax(axis=1) == S - 1 - np.arange(src_len)).mean())
'''),
    (5, "split at Ek instead of Eq", '''
def split_concat_weight(weight, Eq):
    W = np.asarray(weight, dtype=np.float64).T
    Ek = W.shape[0] - Eq
    return W[:Ek], W[Ek:]
'''),
    # ---- exercise 6: a decoder step on time-major states (debug)
    (6, "the colleague's function, unchanged", '''
def attend_time_major(s_prev, enc_states, allowed, W_q, W_k, v_a):
    return attend_time_major_given(s_prev, enc_states, allowed, W_q, W_k, v_a)
'''),
    (6, "partial fix: the softmax over the right axis, the weights returned time-major", '''
def attend_time_major(s_prev, enc_states, allowed, W_q, W_k, v_a):
    hidden = np.tanh(s_prev @ W_q + enc_states @ W_k)
    scores = np.where(allowed, hidden @ v_a, -np.inf)
    weights = softmax_np(scores, axis=0)
    context = (weights[..., None] * enc_states).sum(axis=0)
    return context, weights
'''),
    (6, "partial fix: the scores transposed for the softmax, the context from the batch-first weights", '''
def attend_time_major(s_prev, enc_states, allowed, W_q, W_k, v_a):
    hidden = np.tanh(s_prev @ W_q + enc_states @ W_k)
    scores = np.where(allowed, hidden @ v_a, -np.inf)
    weights = softmax_np(scores.T, axis=-1)                  # (B, S)
    context = (weights[..., None] * enc_states).sum(axis=0)
    return context, weights
'''),
    (6, "partial fix: the axis fixed, the context summed over the batch", '''
def attend_time_major(s_prev, enc_states, allowed, W_q, W_k, v_a):
    hidden = np.tanh(s_prev @ W_q + enc_states @ W_k)
    scores = np.where(allowed, hidden @ v_a, -np.inf)
    weights = softmax_np(scores, axis=0)
    context = (weights[..., None] * enc_states).sum(axis=1)
    return context, weights.T
'''),
    (6, "converted to batch-first with .T, which reverses every axis", '''
def attend_time_major(s_prev, enc_states, allowed, W_q, W_k, v_a):
    from attnlab.bahdanau_attention import additive_attention_np
    context, weights = additive_attention_np(s_prev[:, None, :], enc_states.T, W_q, W_k, v_a, allowed.T)
    return context[:, 0], weights[:, 0]
'''),
    (6, "converted to batch-first, the mask left time-major", '''
def attend_time_major(s_prev, enc_states, allowed, W_q, W_k, v_a):
    k = enc_states.swapaxes(0, 1)
    scores = np.tanh((s_prev @ W_q)[:, None, :] + k @ W_k) @ v_a        # (B, S)
    scores = np.where(allowed.reshape(scores.shape), scores, -np.inf)
    weights = softmax_np(scores, axis=-1)
    return (weights[..., None] * k).sum(1), weights
'''),
    (6, "the axis fixed, padding filled with 0 instead of -inf", '''
def attend_time_major(s_prev, enc_states, allowed, W_q, W_k, v_a):
    hidden = np.tanh(s_prev @ W_q + enc_states @ W_k)
    scores = np.where(allowed, hidden @ v_a, 0.0)
    weights = softmax_np(scores, axis=0)
    context = (weights[..., None] * enc_states).sum(axis=0)
    return context, weights.T
'''),
    (6, "the axis fixed, the mask written into the caller's encoder states", '''
def attend_time_major(s_prev, enc_states, allowed, W_q, W_k, v_a):
    enc_states[~allowed] = 0.0
    hidden = np.tanh(s_prev @ W_q + enc_states @ W_k)
    scores = np.where(allowed, hidden @ v_a, -np.inf)
    weights = softmax_np(scores, axis=0)
    return (weights[..., None] * enc_states).sum(axis=0), weights.T
'''),
    # ---- exercise 7: the cost of one decoder step (derive)
    (7, "a multiply-add counted as 1", '''
def additive_step_flops(S, Eq, Ek, A, keys_cached=True):
    return Eq * A + S * A + S * Ek + (0 if keys_cached else S * Ek * A)

def dot_step_flops(S, E):
    return 2 * S * E
'''),
    (7, "the query projected once per key", '''
def additive_step_flops(S, Eq, Ek, A, keys_cached=True):
    return 2 * S * Eq * A + 2 * S * A + 2 * S * Ek + (0 if keys_cached else 2 * S * Ek * A)

def dot_step_flops(S, E):
    return 4 * S * E
'''),
    (7, "the cached keys counted anyway", '''
def additive_step_flops(S, Eq, Ek, A, keys_cached=True):
    return 2 * Eq * A + 2 * S * A + 2 * S * Ek + 2 * S * Ek * A

def dot_step_flops(S, E):
    return 4 * S * E
'''),
    (7, "the context forgotten", '''
def additive_step_flops(S, Eq, Ek, A, keys_cached=True):
    return 2 * Eq * A + 2 * S * A + (0 if keys_cached else 2 * S * Ek * A)

def dot_step_flops(S, E):
    return 2 * S * E
'''),
    (7, "the hidden layer counted as a product with v_a of width Ek", '''
def additive_step_flops(S, Eq, Ek, A, keys_cached=True):
    return 2 * Eq * A + 2 * S * Ek + 2 * S * Ek + (0 if keys_cached else 2 * S * Ek * A)

def dot_step_flops(S, E):
    return 4 * S * E
'''),
    (7, "the dot step's context forgotten", '''
def additive_step_flops(S, Eq, Ek, A, keys_cached=True):
    return 2 * Eq * A + 2 * S * A + 2 * S * Ek + (0 if keys_cached else 2 * S * Ek * A)

def dot_step_flops(S, E):
    return 2 * S * E
'''),
    (7, "measured instead of derived: the counter run inside", '''
def additive_step_flops(S, Eq, Ek, A, keys_cached=True):
    attn = AdditiveAttention(Eq, Ek, A)
    q, k = torch.zeros(1, Eq), torch.zeros(S, Ek)
    with torch.no_grad(), FlopCounterMode(display=False) as c:
        attn(q, k, None, attn.project_keys(k)) if keys_cached else attn(q, k)
    return c.get_total_flops()

def dot_step_flops(S, E):
    return 4 * S * E
'''),
    (7, "a float", '''
def additive_step_flops(S, Eq, Ek, A, keys_cached=True):
    return 2.0 * (Eq * A + S * A + S * Ek) + (0 if keys_cached else 2 * S * Ek * A)

def dot_step_flops(S, E):
    return 4 * S * E
'''),
    # ---- exercise 8: how sharp is the attention (predict, then measure)
    (8, "0 log 0 evaluated: NaN where a weight is exactly 0", '''
def mean_entropy(model, length=10, n=200, seed=5):
    src, src_len, _, _ = encode_batch(make_pairs(n, length, length, np.random.default_rng(seed)))
    _, w = model.generate(src, src_len, length + 1)
    return (-(w * torch.log(w)).sum(-1)).mean().item()
'''),
    (8, "in bits (log2)", '''
def mean_entropy(model, length=10, n=200, seed=5):
    src, src_len, _, _ = encode_batch(make_pairs(n, length, length, np.random.default_rng(seed)))
    _, w = model.generate(src, src_len, length + 1)
    return torch.where(w > 0, -w * torch.log2(w), torch.zeros_like(w)).sum(-1).mean().item()
'''),
    (8, "the entropy of the mean weights, not the mean of the entropies", '''
def mean_entropy(model, length=10, n=200, seed=5):
    src, src_len, _, _ = encode_batch(make_pairs(n, length, length, np.random.default_rng(seed)))
    _, w = model.generate(src, src_len, length + 1)
    m = w.mean(0)
    return torch.where(m > 0, -m * torch.log(m), torch.zeros_like(m)).sum(-1).mean().item()
'''),
    (8, "the EOS step left out", '''
def mean_entropy(model, length=10, n=200, seed=5):
    src, src_len, _, _ = encode_batch(make_pairs(n, length, length, np.random.default_rng(seed)))
    _, w = model.generate(src, src_len, length + 1)
    w = w[:, :length]
    return torch.where(w > 0, -w * torch.log(w), torch.zeros_like(w)).sum(-1).mean().item()
'''),
    (8, "the sum over steps, the mean over strings", '''
def mean_entropy(model, length=10, n=200, seed=5):
    src, src_len, _, _ = encode_batch(make_pairs(n, length, length, np.random.default_rng(seed)))
    _, w = model.generate(src, src_len, length + 1)
    return torch.where(w > 0, -w * torch.log(w), torch.zeros_like(w)).sum((-1, -2)).mean().item()
'''),
    (8, "a tensor instead of a float", '''
def mean_entropy(model, length=10, n=200, seed=5):
    src, src_len, _, _ = encode_batch(make_pairs(n, length, length, np.random.default_rng(seed)))
    _, w = model.generate(src, src_len, length + 1)
    return torch.where(w > 0, -w * torch.log(w), torch.zeros_like(w)).sum(-1).mean()
'''),
    (8, "log(w + eps): a biased entropy", '''
def mean_entropy(model, length=10, n=200, seed=5):
    src, src_len, _, _ = encode_batch(make_pairs(n, length, length, np.random.default_rng(seed)))
    _, w = model.generate(src, src_len, length + 1)
    return (-(w * torch.log(w + 1e-3)).sum(-1)).mean().item()
'''),
    (8, "prediction: the trained rows exactly one-hot", '''
def prediction():
    return {"untrained": math.log(10), "trained": 0.0}
'''),
    (8, "prediction: the untrained model already sharp", '''
def prediction():
    return {"untrained": 0.5, "trained": 0.4}
'''),
    (8, "prediction: the untrained entropy in bits", '''
def prediction():
    return {"untrained": math.log2(10), "trained": 0.4}
'''),
    (8, "prediction: a string", '''
def prediction():
    return {"untrained": "high", "trained": "low"}
'''),
    # ---- exercise 9: bidirectional annotations (extend)
    (9, "the whole padded row reversed: the backward GRU reads the padding first", '''
def bidirectional_states(fw, bw, x, lengths):
    forward, _ = fw(x)
    backward = bw(x.flip(1))[0].flip(1)
    out = torch.cat([forward, backward], dim=-1)
    real = torch.arange(x.shape[1])[None, :] < lengths[:, None]
    return out * real[..., None]
'''),
    (9, "reversed within each length, never put back", '''
def bidirectional_states(fw, bw, x, lengths):
    B, S, _ = x.shape
    j = torch.arange(S)
    real = j[None, :] < lengths[:, None]
    rev = torch.where(real, lengths[:, None] - 1 - j[None, :], j[None, :])
    rows = torch.arange(B)[:, None]
    out = torch.cat([fw(x)[0], bw(x[rows, rev])[0]], dim=-1)
    return out * real[..., None]
'''),
    (9, "the padding not zeroed", '''
def bidirectional_states(fw, bw, x, lengths):
    B, S, _ = x.shape
    j = torch.arange(S)
    real = j[None, :] < lengths[:, None]
    rev = torch.where(real, lengths[:, None] - 1 - j[None, :], j[None, :])
    rows = torch.arange(B)[:, None]
    return torch.cat([fw(x)[0], bw(x[rows, rev])[0][rows, rev]], dim=-1)
'''),
    (9, "the halves in the order backward, forward", '''
def bidirectional_states(fw, bw, x, lengths):
    B, S, _ = x.shape
    j = torch.arange(S)
    real = j[None, :] < lengths[:, None]
    rev = torch.where(real, lengths[:, None] - 1 - j[None, :], j[None, :])
    rows = torch.arange(B)[:, None]
    out = torch.cat([bw(x[rows, rev])[0][rows, rev], fw(x)[0]], dim=-1)
    return out * real[..., None]
'''),
    (9, "the backward GRU run forwards", '''
def bidirectional_states(fw, bw, x, lengths):
    real = torch.arange(x.shape[1])[None, :] < lengths[:, None]
    return torch.cat([fw(x)[0], bw(x)[0]], dim=-1) * real[..., None]
'''),
    (9, "off by one: reversed with n - j", '''
def bidirectional_states(fw, bw, x, lengths):
    B, S, _ = x.shape
    j = torch.arange(S)
    real = j[None, :] < lengths[:, None]
    rev = torch.where(real, (lengths[:, None] - j[None, :]).clamp(max=S - 1), j[None, :])
    rows = torch.arange(B)[:, None]
    out = torch.cat([fw(x)[0], bw(x[rows, rev])[0][rows, rev]], dim=-1)
    return out * real[..., None]
'''),
    (9, "packing, which the exercise excludes", '''
def bidirectional_states(fw, bw, x, lengths):
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    both = nn.GRU(fw.input_size, fw.hidden_size, batch_first=True, bidirectional=True).double()
    for name, p in fw.named_parameters():
        getattr(both, name).data.copy_(p)
        getattr(both, name + "_reverse").data.copy_(getattr(bw, name))
    out, _ = both(pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False))
    return pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])[0]
'''),
    (9, "nn.GRU(bidirectional=True) on the padded batch, unpacked", '''
def bidirectional_states(fw, bw, x, lengths):
    both = nn.GRU(fw.input_size, fw.hidden_size, batch_first=True, bidirectional=True).double()
    for name, p in fw.named_parameters():
        getattr(both, name).data.copy_(p)
        getattr(both, name + "_reverse").data.copy_(getattr(bw, name))
    real = torch.arange(x.shape[1])[None, :] < lengths[:, None]
    return both(x)[0] * real[..., None]
'''),
    (9, "the padding zeroed in the caller's x first", '''
def bidirectional_states(fw, bw, x, lengths):
    B, S, _ = x.shape
    j = torch.arange(S)
    real = j[None, :] < lengths[:, None]
    x[~real] = 0.0
    rev = torch.where(real, lengths[:, None] - 1 - j[None, :], j[None, :])
    rows = torch.arange(B)[:, None]
    out = torch.cat([fw(x)[0], bw(x[rows, rev])[0][rows, rev]], dim=-1)
    return out * real[..., None]
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

    (1, "np.einsum for the hidden layer and the weighting", '''
def additive_scores(q, keys, W_q, W_k, v_a):
    q, keys = np.asarray(q, dtype=np.float64), np.asarray(keys, dtype=np.float64)
    return np.einsum("sa,a->s", np.tanh(np.einsum("e,ea->a", q, W_q) + np.einsum("se,ea->sa", keys, W_k)), v_a)
'''),
    (2, "np.ma masked arrays, filled with 0", '''
def masked_weights(scores, allowed):
    scores, allowed = np.asarray(scores, dtype=np.float64), np.asarray(allowed, dtype=bool)
    if not allowed.any(axis=-1).all():
        raise ValueError("a row with no allowed position")
    m = np.ma.masked_array(scores, mask=~allowed)
    e = np.ma.exp(m - m.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).filled(0.0)
'''),
    (6, "converted to batch-first and the chapter's additive_attention_np", '''
def attend_time_major(s_prev, enc_states, allowed, W_q, W_k, v_a):
    from attnlab.bahdanau_attention import additive_attention_np
    keys = enc_states.transpose(1, 0, 2)                      # (B, S, Ek)
    context, weights = additive_attention_np(s_prev[:, None, :], keys, W_q, W_k, v_a, allowed.T)
    return context[:, 0], weights[:, 0]
'''),
    (6, "np.einsum, the softmax by hand over axis 0", '''
def attend_time_major(s_prev, enc_states, allowed, W_q, W_k, v_a):
    scores = np.einsum("sba,a->sb", np.tanh(s_prev @ W_q + enc_states @ W_k), v_a)
    scores = np.where(allowed, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=0, keepdims=True))
    w = e / e.sum(axis=0, keepdims=True)                      # (S, B)
    return np.einsum("sb,sbe->be", w, enc_states), w.T.copy()
'''),
    (7, "the closed forms in one line each", '''
def additive_step_flops(S, Eq, Ek, A, keys_cached=True):
    return 2 * (Eq * A + S * (A + Ek)) + (not keys_cached) * 2 * S * Ek * A

def dot_step_flops(S, E):
    return 4 * S * E
'''),
    (8, "NumPy, with scipy-style xlogy by hand", '''
def mean_entropy(model, length=10, n=200, seed=5):
    src, src_len, _, _ = encode_batch(make_pairs(n, length, length, np.random.default_rng(seed)))
    _, w = model.generate(src, src_len, length + 1)
    w = w.numpy()
    logw = np.log(np.where(w > 0, w, 1.0))                    # log 1 = 0 where w = 0
    return float(-(w * logw).sum(-1).mean())
'''),
    (8, "torch.special.entr", '''
def mean_entropy(model, length=10, n=200, seed=5):
    src, src_len, _, _ = encode_batch(make_pairs(n, length, length, np.random.default_rng(seed)))
    _, w = model.generate(src, src_len, length + 1)
    return float(torch.special.entr(w).sum(-1).mean())
'''),
    (8, "prediction from log 10 and a one-large-weight estimate", '''
def prediction():
    return {"untrained": 2.3, "trained": 0.55}
'''),
    (9, "a loop over sequences, each run alone", '''
def bidirectional_states(fw, bw, x, lengths):
    B, S, _ = x.shape
    out = x.new_zeros(B, S, 2 * fw.hidden_size)
    for b, n in enumerate(lengths.tolist()):
        real = x[b:b + 1, :n]
        out[b, :n] = torch.cat([fw(real)[0][0], bw(real.flip(1))[0][0].flip(0)], dim=-1)
    return out
'''),
    (9, "torch.gather for the reversal", '''
def bidirectional_states(fw, bw, x, lengths):
    B, S, E_in = x.shape
    j = torch.arange(S).expand(B, S)
    real = j < lengths[:, None]
    rev = torch.where(real, lengths[:, None] - 1 - j, j)
    x_rev = x.gather(1, rev[..., None].expand(B, S, E_in))
    back = bw(x_rev)[0]
    back = back.gather(1, rev[..., None].expand(B, S, back.shape[-1]))
    out = torch.cat([fw(x)[0], back], dim=-1)
    return out.masked_fill(~real[..., None], 0.0)
'''),
]
