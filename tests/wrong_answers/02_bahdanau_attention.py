"""Wrong answers a learner would plausibly write for chapter 2's exercises."""
WRONG = [
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
    return {"untrained": 2.3, "trained": 0.0}
'''),
    (8, "prediction: the untrained model already sharp", '''
def prediction():
    return {"untrained": 0.5, "trained": 0.4}
'''),
    (8, "prediction: the untrained entropy in bits", '''
def prediction():
    return {"untrained": 3.32, "trained": 0.4}
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
    # ---- exercise 1: the additive scores from a module's weights
    (1, "the stored weights used as they are, not transposed", '''
def additive_scores(query, keys, state):
    hidden = np.tanh((query @ state["W_q.weight"])[:, :, None] + (keys @ state["W_k.weight"])[:, None])
    return hidden @ state["v_a.weight"][0]
'''),
    (1, "the weights (a softmax of the scores) instead of the scores", '''
def additive_scores(query, keys, state):
    hidden = np.tanh((query @ state["W_q.weight"].T)[:, :, None] + (keys @ state["W_k.weight"].T)[:, None])
    s = hidden @ state["v_a.weight"][0]
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)
'''),
    (1, "the tanh applied after v_a", '''
def additive_scores(query, keys, state):
    hidden = (query @ state["W_q.weight"].T)[:, :, None] + (keys @ state["W_k.weight"].T)[:, None]
    return np.tanh(hidden @ state["v_a.weight"][0])
'''),
    (1, "v_a's stored weight kept as a (1, Da) matrix: a trailing axis of 1", '''
def additive_scores(query, keys, state):
    hidden = np.tanh((query @ state["W_q.weight"].T)[:, :, None] + (keys @ state["W_k.weight"].T)[:, None])
    return hidden @ state["v_a.weight"].T
'''),
    (1, "step i paired with key i only: no pairing axis", '''
def additive_scores(query, keys, state):
    hidden = np.tanh(query @ state["W_q.weight"].T + keys @ state["W_k.weight"].T)
    return hidden @ state["v_a.weight"][0]
'''),
    (1, "W_q and W_k swapped", '''
def additive_scores(query, keys, state):
    hidden = np.tanh((query @ state["W_k.weight"].T)[:, :, None] + (keys @ state["W_q.weight"].T)[:, None])
    return hidden @ state["v_a.weight"][0]
'''),
    (1, "computed in float32", '''
def additive_scores(query, keys, state):
    f = lambda a: np.asarray(a, dtype=np.float32)
    hidden = np.tanh((f(query) @ f(state["W_q.weight"]).T)[:, :, None]
                     + (f(keys) @ f(state["W_k.weight"]).T)[:, None])
    return hidden @ f(state["v_a.weight"][0])
'''),
    (1, "the chapter's module loaded with the state, its layers called", '''
def additive_scores(query, keys, state):
    from attnlab.bahdanau_attention import AdditiveAttention
    Da, Eq = state["W_q.weight"].shape
    attn = AdditiveAttention(Eq, state["W_k.weight"].shape[1], Da).double()
    attn.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    with torch.no_grad():
        q, k = attn.W_q(torch.from_numpy(query)), attn.project_keys(torch.from_numpy(keys))
        return attn.v_a(torch.tanh(q[:, :, None] + k[:, None])).squeeze(-1).numpy()
'''),
    # ---- exercise 2: masked weights, fully padded rows included
    (2, "padding filled with 0 instead of -inf", '''
def masked_weights(scores, allowed):
    filled = np.where(allowed, scores, 0.0)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (2, "softmax first, then the padded weights zeroed, not renormalised", '''
def masked_weights(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return np.where(allowed, e / e.sum(axis=-1, keepdims=True), 0.0)
'''),
    (2, "softmax over everything, then masked and renormalised (the padding decides the max)", '''
def masked_weights(scores, allowed):
    scores = np.asarray(scores, dtype=np.float64)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True)) * allowed
    total = e.sum(axis=-1, keepdims=True)
    return e / np.where(total > 0, total, 1.0)
'''),
    (2, "no max subtracted: overflows on large scores", '''
def masked_weights(scores, allowed):
    e = np.where(allowed, np.exp(np.asarray(scores, dtype=np.float64)), 0.0)
    total = e.sum(axis=-1, keepdims=True)
    return e / np.where(total > 0, total, 1.0)
'''),
    (2, "an empty row refused with ValueError, as section 3's function does", '''
def masked_weights(scores, allowed):
    if not np.asarray(allowed).any(axis=-1).all():
        raise ValueError("a row with no allowed position")
    filled = np.where(allowed, scores, -np.inf)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (2, "an empty row left as NaN (-inf minus -inf)", '''
def masked_weights(scores, allowed):
    filled = np.where(allowed, scores, -np.inf)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (2, "the smallest float as the fill: an empty row becomes uniform", '''
def masked_weights(scores, allowed):
    filled = np.where(allowed, scores, np.finfo(np.float64).min)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (2, "a fill of -1e9: real scores far below it", '''
def masked_weights(scores, allowed):
    filled = np.where(allowed, scores, -1e9)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    e = e * np.asarray(allowed).any(axis=-1, keepdims=True)
    return e / np.maximum(e.sum(axis=-1, keepdims=True), 1e-300)
'''),
    (2, "a fill of -1e4 written into the caller's scores", '''
def masked_weights(scores, allowed):
    scores[~allowed] = -1e4
    e = np.exp(scores - scores.max(axis=-1, keepdims=True)) * allowed
    total = e.sum(axis=-1, keepdims=True)
    return e / np.where(total > 0, total, 1.0)
'''),
    (2, "softmax over the batch axis", '''
def masked_weights(scores, allowed):
    filled = np.where(allowed, scores, -np.inf)
    top = filled.max(axis=0, keepdims=True)
    e = np.exp(filled - np.where(np.isfinite(top), top, 0.0))
    total = e.sum(axis=0, keepdims=True)
    return e / np.where(total > 0, total, 1.0)
'''),
    (2, "right padding assumed: the mask rebuilt from the number of real tokens", '''
def masked_weights(scores, allowed):
    n = np.asarray(allowed).sum(axis=-1, keepdims=True)
    rebuilt = np.arange(np.shape(scores)[-1]) < n
    filled = np.where(rebuilt, scores, -np.inf)
    top = filled.max(axis=-1, keepdims=True)
    e = np.exp(filled - np.where(np.isfinite(top), top, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    return e / np.where(total > 0, total, 1.0)
'''),
    (2, "an empty row attends to every position instead", '''
def masked_weights(scores, allowed):
    allowed = np.asarray(allowed)
    allowed = allowed | ~allowed.any(axis=-1, keepdims=True)
    filled = np.where(allowed, scores, -np.inf)
    e = np.exp(filled - filled.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''),
    # ---- exercise 3: the context vectors from time-major values
    (3, "the values reshaped to (B, S, E) instead of transposed", '''
def context_vectors(weights, values):
    S, B, E = values.shape
    return np.asarray(weights, dtype=np.float64) @ values.reshape(B, S, E)
'''),
    (3, "the time-major values used as they are", '''
def context_vectors(weights, values):
    return np.asarray(weights, dtype=np.float64) @ np.asarray(values, dtype=np.float64)
'''),
    (3, "every axis reversed with .T", '''
def context_vectors(weights, values):
    return weights @ values.T
'''),
    (3, "the mean over the source instead of the weighted sum", '''
def context_vectors(weights, values):
    B, L, S = weights.shape
    return np.repeat(values.mean(axis=0)[:, None, :], L, axis=1)
'''),
    (3, "returns a torch tensor", '''
def context_vectors(weights, values):
    return torch.einsum("bls,sbe->ble", torch.from_numpy(weights), torch.from_numpy(values))
'''),
    (3, "computed in float32", '''
def context_vectors(weights, values):
    return weights.astype(np.float32) @ values.astype(np.float32).transpose(1, 0, 2)
'''),
    (3, "transposed in place into the caller's buffer", '''
def context_vectors(weights, values):
    S, B, E = values.shape
    moved = values.transpose(1, 0, 2).copy()
    values.shape = (B, S, E)
    values[...] = moved
    return weights @ values
'''),
    # ---- exercise 4: the alignment over a whole batch
    (4, "the arg-max over the real columns only", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    hits = total = 0
    for b, n in enumerate(np.asarray(src_len).tolist()):
        hits += (weights[b, :n, :n].argmax(-1) == n - 1 - np.arange(n)).sum()
        total += n
    return float(hits / total)
'''),
    (4, "the mean of the sentences' fractions", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    fractions = [(weights[b, :n].argmax(-1) == n - 1 - np.arange(n)).mean()
                 for b, n in enumerate(np.asarray(src_len).tolist())]
    return float(np.mean(fractions))
'''),
    (4, "the EOS step scored too", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    n = np.asarray(src_len).reshape(-1, 1)
    steps = np.arange(weights.shape[1])[None, :]
    scored = steps <= n
    agree = (weights.argmax(-1) == n - 1 - steps) & scored
    return float(agree.sum() / scored.sum())
'''),
    (4, "every step scored, the padding steps too", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    n = np.asarray(src_len).reshape(-1, 1)
    steps = np.arange(weights.shape[1])[None, :]
    return float((weights.argmax(-1) == n - 1 - steps).mean())
'''),
    (4, "the expected position from the padded width S", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    B, T, S = weights.shape
    n = np.asarray(src_len).reshape(-1, 1)
    steps = np.arange(T)[None, :]
    scored = steps < n
    return float(((weights.argmax(-1) == S - 1 - steps) & scored).sum() / scored.sum())
'''),
    (4, "off by one: position n - i", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    n = np.asarray(src_len).reshape(-1, 1)
    steps = np.arange(weights.shape[1])[None, :]
    scored = steps < n
    return float(((weights.argmax(-1) == n - steps) & scored).sum() / scored.sum())
'''),
    (4, "the diagonal as the expected rule", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    n = np.asarray(src_len).reshape(-1, 1)
    steps = np.arange(weights.shape[1])[None, :]
    scored = steps < n
    return float(((weights.argmax(-1) == steps) & scored).sum() / scored.sum())
'''),
    (4, "a count instead of a fraction", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    n = np.asarray(src_len).reshape(-1, 1)
    steps = np.arange(weights.shape[1])[None, :]
    return float(((weights.argmax(-1) == n - 1 - steps) & (steps < n)).sum())
'''),
    (4, "a NumPy array instead of a float", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    n = np.asarray(src_len).reshape(-1, 1)
    steps = np.arange(weights.shape[1])[None, :]
    scored = steps < n
    return np.array([((weights.argmax(-1) == n - 1 - steps) & scored).sum() / scored.sum()])
'''),
    # ---- exercises 5, 6, 8: third round
    (5, "split in float32", '''
def split_concat_weight(weight, Eq):
    W = np.asarray(weight, dtype=np.float32).T
    return W[:Eq], W[Eq:]
'''),
    (6, "the axis fixed, computed in float32", '''
def attend_time_major(s_prev, enc_states, allowed, W_q, W_k, v_a):
    f = lambda a: np.asarray(a, dtype=np.float32)
    hidden = np.tanh(f(s_prev) @ f(W_q) + f(enc_states) @ f(W_k))
    scores = np.where(allowed, hidden @ f(v_a), -np.inf)
    weights = softmax_np(scores, axis=0)
    context = (weights[..., None] * f(enc_states)).sum(axis=0)
    return context, weights.T
'''),
    (8, "prediction: the measurement run inside prediction()", '''
def prediction():
    return {"untrained": mean_entropy(untrained), "trained": mean_entropy(trained)}
'''),
    # ---- exercises 1, 2, 5, 8, 9: the outside reader's slips (fourth round)
    (1, "computed in float32, returned as float64", '''
def additive_scores(query, keys, state):
    f = lambda a: np.asarray(a, dtype=np.float32)
    hidden = np.tanh((f(query) @ f(state["W_q.weight"]).T)[:, :, None]
                     + (f(keys) @ f(state["W_k.weight"]).T)[:, None])
    return (hidden @ f(state["v_a.weight"][0])).astype(np.float64)
'''),
    (2, "computed in float32, returned as float64", '''
def masked_weights(scores, allowed):
    allowed = np.asarray(allowed, dtype=bool)
    filled = np.where(allowed, np.asarray(scores, dtype=np.float64), -np.inf)
    top = filled.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.exp(filled - top).astype(np.float32)
    total = e.sum(axis=-1, keepdims=True)
    return (e / np.where(total > 0, total, 1.0)).astype(np.float64)
'''),
    (5, "a round trip through float32", '''
def split_concat_weight(weight, Eq):
    W = np.asarray(weight).astype(np.float32).astype(np.float64).T
    return W[:Eq], W[Eq:]
'''),
    (5, "reshaped to (Eq + Ek, Da) instead of transposed", '''
def split_concat_weight(weight, Eq):
    weight = np.asarray(weight, dtype=np.float64)
    W = weight.reshape(weight.shape[1], weight.shape[0])
    return W[:Eq], W[Eq:]
'''),
    (8, "prediction: the measurement computed into a default argument", '''
def prediction(d={"untrained": mean_entropy(untrained), "trained": mean_entropy(trained)}):
    return d
'''),
    (8, "prediction: the measurement in a keyword-only default", '''
def prediction(*, d={"untrained": mean_entropy(untrained), "trained": mean_entropy(trained)}):
    return d
'''),
    (8, "generate asked for length steps: the EOS step never decoded", '''
def mean_entropy(model, length=10, n=200, seed=5):
    src, src_len, _, _ = encode_batch(make_pairs(n, length, length, np.random.default_rng(seed)))
    _, weights = model.generate(src, src_len, length)
    terms = torch.where(weights > 0, -weights * torch.log(weights), torch.zeros_like(weights))
    return terms.sum(-1).mean().item()
'''),
    (9, "packing through the C functions under torch and torch._VF", '''
def bidirectional_states(fw, bw, x, lengths):
    order = torch.argsort(lengths, descending=True)
    data, sizes = torch._pack_padded_sequence(x[order], lengths[order], True)
    params = list(fw._flat_weights) + list(bw._flat_weights)
    h0 = torch.zeros(2, len(lengths), fw.hidden_size, dtype=x.dtype)
    out, _ = torch._VF.gru(data, sizes, h0, params, True, 1, 0.0, False, True)
    padded, _ = torch._pad_packed_sequence(out, sizes, True, 0.0, x.shape[1])
    return padded[torch.argsort(order)]
'''),
]

RIGHT = [
    (5, "np.split of the transposed weight", '''
def split_concat_weight(weight, Eq):
    W_q, W_k = np.split(np.asarray(weight).T, [Eq])
    return W_q, W_k
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
    (1, "np.einsum for the projections, the hidden layer and the weighting", '''
def additive_scores(query, keys, state):
    q = np.einsum("ble,ae->bla", np.asarray(query, dtype=np.float64), state["W_q.weight"])
    k = np.einsum("bse,ae->bsa", np.asarray(keys, dtype=np.float64), state["W_k.weight"])
    return np.einsum("blsa,a->bls", np.tanh(q[:, :, None] + k[:, None]), state["v_a.weight"][0])
'''),
    (1, "a loop over the decoder steps", '''
def additive_scores(query, keys, state):
    B, L, _ = query.shape
    k = keys @ state["W_k.weight"].T                             # (B, S, Da)
    out = np.zeros((B, L, keys.shape[1]))
    for i in range(L):
        q = query[:, i] @ state["W_q.weight"].T                  # (B, Da)
        out[:, i] = np.tanh(q[:, None] + k) @ state["v_a.weight"][0]
    return out
'''),
    (1, "in PyTorch, converted back to float64 NumPy", '''
def additive_scores(query, keys, state):
    t = {k: torch.from_numpy(v) for k, v in state.items()}
    q = torch.from_numpy(np.asarray(query)) @ t["W_q.weight"].T
    k = torch.from_numpy(np.asarray(keys)) @ t["W_k.weight"].T
    return (torch.tanh(q.unsqueeze(2) + k.unsqueeze(1)) @ t["v_a.weight"][0]).numpy()
'''),
    (2, "NaN on the empty rows replaced after the fact", '''
def masked_weights(scores, allowed):
    filled = np.where(allowed, scores, -np.inf)
    with np.errstate(invalid="ignore"):
        e = np.exp(filled - filled.max(axis=-1, keepdims=True))
        w = e / e.sum(axis=-1, keepdims=True)
    return np.nan_to_num(w, nan=0.0)
'''),
    (2, "np.ma masked arrays, filled with 0", '''
def masked_weights(scores, allowed):
    scores, allowed = np.asarray(scores, dtype=np.float64), np.asarray(allowed, dtype=bool)
    m = np.ma.masked_array(scores, mask=~allowed)
    e = np.ma.exp(m - m.max(axis=-1, keepdims=True))
    return np.ma.filled(e / e.sum(axis=-1, keepdims=True), 0.0)
'''),
    (2, "the package's softmax_np on the rows that have a real position", '''
from attnlab.scaled_dot_product import softmax_np

def masked_weights(scores, allowed):
    scores, allowed = np.asarray(scores, dtype=np.float64), np.asarray(allowed, dtype=bool)
    out = np.zeros(scores.shape)
    some = allowed.any(axis=-1)
    out[some] = softmax_np(np.where(allowed, scores, -np.inf)[some], axis=-1)
    return out
'''),
    (3, "np.einsum", '''
def context_vectors(weights, values):
    return np.einsum("bls,sbe->ble", weights, values)
'''),
    (3, "np.swapaxes, then a product", '''
def context_vectors(weights, values):
    return np.matmul(weights, np.swapaxes(values, 0, 1))
'''),
    (3, "a loop over sentences", '''
def context_vectors(weights, values):
    return np.stack([weights[b] @ values[:, b] for b in range(weights.shape[0])])
'''),
    (4, "a loop over sentences and steps, np.float64 returned (a float subclass)", '''
def alignment_agreement(weights, src_len):
    weights = np.asarray(weights, dtype=np.float64)
    hits = []
    for b, n in enumerate(np.asarray(src_len).tolist()):
        for i in range(n):
            hits.append(np.argmax(weights[b, i]) == n - 1 - i)
    return np.mean(hits)
'''),
    (4, "in PyTorch", '''
def alignment_agreement(weights, src_len):
    w = torch.as_tensor(np.asarray(weights, dtype=np.float64))
    n = torch.as_tensor(np.asarray(src_len))[:, None]
    steps = torch.arange(w.shape[1])[None, :]
    scored = steps < n
    return ((w.argmax(-1) == n - 1 - steps) & scored).sum().item() / scored.sum().item()
'''),
]
