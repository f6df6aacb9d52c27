"""Wrong answers a learner would plausibly write for chapter 11's exercises."""
WRONG = [
    (1, "attends over the old cache only, appending the new key afterwards", '''
def decode_step(q_t, k_t, v_t, K, V):
    q_t, k_t, v_t = (np.asarray(a, dtype=np.float64) for a in (q_t, k_t, v_t))
    K, V = np.asarray(K, dtype=np.float64), np.asarray(V, dtype=np.float64)
    scores = K @ q_t / np.sqrt(q_t.shape[0])
    weights = np.exp(scores - scores.max()) if len(scores) else scores
    weights = weights / weights.sum() if len(scores) else weights
    out = weights @ V if len(scores) else np.zeros_like(q_t)
    return out, weights, np.concatenate([K, k_t[None]]), np.concatenate([V, v_t[None]])
'''),
    (1, "no 1/sqrt(D) scaling", '''
def decode_step(q_t, k_t, v_t, K, V):
    q_t, k_t, v_t = (np.asarray(a, dtype=np.float64) for a in (q_t, k_t, v_t))
    K, V = np.asarray(K, dtype=np.float64), np.asarray(V, dtype=np.float64)
    K = np.concatenate([K, k_t[None]], axis=0)
    V = np.concatenate([V, v_t[None]], axis=0)
    scores = K @ q_t
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ V, weights, K, V
'''),
    (1, "is_causal=True for the single new query: top-left, it sees key 0 only", '''
def decode_step(q_t, k_t, v_t, K, V):
    K = np.concatenate([np.asarray(K, dtype=np.float64), np.asarray(k_t)[None]], axis=0)
    V = np.concatenate([np.asarray(V, dtype=np.float64), np.asarray(v_t)[None]], axis=0)
    q = torch.as_tensor(np.asarray(q_t, dtype=np.float64))[None, None]
    kk, vv = torch.as_tensor(K)[None], torch.as_tensor(V)[None]
    scores = (q @ kk.transpose(-2, -1) / np.sqrt(K.shape[1]))
    mask = torch.ones(1, K.shape[0], dtype=torch.bool).tril()        # top-left
    weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), -1)
    out = weights @ vv
    return out[0, 0].numpy(), weights[0, 0].numpy(), K, V
'''),
    (1, "new key prepended: the cache is out of order", '''
def decode_step(q_t, k_t, v_t, K, V):
    q_t, k_t, v_t = (np.asarray(a, dtype=np.float64) for a in (q_t, k_t, v_t))
    K, V = np.asarray(K, dtype=np.float64), np.asarray(V, dtype=np.float64)
    K = np.concatenate([k_t[None], K], axis=0)
    V = np.concatenate([v_t[None], V], axis=0)
    scores = K @ q_t / np.sqrt(q_t.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ V, weights, K, V
'''),
    (1, "the new key is not attended to (the query sees the past only)", '''
def decode_step(q_t, k_t, v_t, K, V):
    q_t, k_t, v_t = (np.asarray(a, dtype=np.float64) for a in (q_t, k_t, v_t))
    K, V = np.asarray(K, dtype=np.float64), np.asarray(V, dtype=np.float64)
    K = np.concatenate([K, k_t[None]], axis=0)
    V = np.concatenate([V, v_t[None]], axis=0)
    scores = K @ q_t / np.sqrt(q_t.shape[0])
    scores[-1] = -np.inf if len(scores) > 1 else scores[-1]
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ V, weights, K, V
'''),
    (1, "the cache is not returned grown (returns the old K, V)", '''
def decode_step(q_t, k_t, v_t, K, V):
    q_t, k_t, v_t = (np.asarray(a, dtype=np.float64) for a in (q_t, k_t, v_t))
    K0, V0 = np.asarray(K, dtype=np.float64), np.asarray(V, dtype=np.float64)
    K = np.concatenate([K0, k_t[None]], axis=0)
    V = np.concatenate([V0, v_t[None]], axis=0)
    scores = K @ q_t / np.sqrt(q_t.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ V, weights, K0, V0
'''),
    (1, "calls the chapter's gqa_attention_np", '''
from attnlab.kv_cache import gqa_attention_np

def decode_step(q_t, k_t, v_t, K, V):
    K = np.concatenate([np.asarray(K, dtype=np.float64), np.asarray(k_t)[None]], axis=0)
    V = np.concatenate([np.asarray(V, dtype=np.float64), np.asarray(v_t)[None]], axis=0)
    out, w = gqa_attention_np(np.asarray(q_t)[None, None, None], K[None, None], V[None, None])
    return out[0, 0, 0], w[0, 0, 0], K, V
'''),
    (2, "arange(P) for every row: the padding is counted", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return torch.arange(keep.shape[1]).expand(keep.shape).clone()
'''),
    (2, "positions start at 1: the running count without the -1", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return torch.where(keep, keep.long().cumsum(1), -1)
'''),
    (2, "padding gets position 0, so it looks like a real first token", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return (keep.long().cumsum(1) - 1).clamp(min=0)
'''),
    (2, "column index kept on real tokens: counts from the left edge, not the first token", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return torch.where(keep, torch.arange(keep.shape[1]), -1)
'''),
    (2, "counted from the right (as if the newest token were position 0)", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    rev = keep.flip(1).long().cumsum(1) - 1
    return torch.where(keep, rev.flip(1), -1)
'''),
    (2, "float positions (cumsum of a float mask)", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return keep.float().cumsum(1) - 1
'''),
    (2, "returns a NumPy array", '''
def positions_from_keep(keep):
    keep = np.asarray(keep, dtype=bool)
    return keep.cumsum(1) - 1
'''),
    (2, "calls the chapter's left_pad", '''
from attnlab.kv_cache import left_pad

def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return left_pad([[1] * int(n) for n in keep.sum(1)])[1]
'''),
    (1, "scales q_t in place: the caller's query changes", '''
def decode_step(q_t, k_t, v_t, K, V):
    q_t, k_t, v_t = (np.asarray(a, dtype=np.float64) for a in (q_t, k_t, v_t))
    K, V = np.asarray(K, dtype=np.float64), np.asarray(V, dtype=np.float64)
    q_t /= np.sqrt(q_t.shape[0])
    K = np.concatenate([K, k_t[None]], axis=0)
    V = np.concatenate([V, v_t[None]], axis=0)
    scores = K @ q_t
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ V, weights, K, V
'''),
    (3, 'the buggy decoder unchanged', '''
def decode_batch(model, prompts, n_new):
    return decode_batch_buggy(model, prompts, n_new)
'''),
    (3, 'positions fixed once after the prefill: every decoded token at the same position', '''
@torch.no_grad()
def decode_batch(model, prompts, n_new):
    tokens, pos = left_pad(prompts)
    cache = KVCache(len(model.blocks))
    logits = model(tokens, pos=pos, cache=cache)[:, -1]
    steps = [logits]
    pos = pos[:, -1:] + 1
    for _ in range(n_new - 1):
        nxt = logits.argmax(-1, keepdim=True)
        logits = model(nxt, pos=pos, cache=cache)[:, -1]
        steps.append(logits)
    return torch.stack(steps, dim=1)
'''),
    (3, 'len(cache) minus the padding of row 0 for every row', '''
@torch.no_grad()
def decode_batch(model, prompts, n_new):
    tokens, pos = left_pad(prompts)
    cache = KVCache(len(model.blocks))
    logits = model(tokens, pos=pos, cache=cache)[:, -1]
    steps = [logits]
    for _ in range(n_new - 1):
        nxt = logits.argmax(-1, keepdim=True)
        pos = torch.full((len(prompts), 1), len(cache) - (tokens.shape[1] - len(prompts[0])))
        logits = model(nxt, pos=pos, cache=cache)[:, -1]
        steps.append(logits)
    return torch.stack(steps, dim=1)
'''),
    (3, 'len(cache) minus the largest padding of the batch', '''
@torch.no_grad()
def decode_batch(model, prompts, n_new):
    tokens, pos = left_pad(prompts)
    cache = KVCache(len(model.blocks))
    logits = model(tokens, pos=pos, cache=cache)[:, -1]
    steps = [logits]
    for _ in range(n_new - 1):
        nxt = logits.argmax(-1, keepdim=True)
        n_pad = tokens.shape[1] - min(len(p) for p in prompts)
        pos = torch.full((len(prompts), 1), len(cache) - n_pad)
        logits = model(nxt, pos=pos, cache=cache)[:, -1]
        steps.append(logits)
    return torch.stack(steps, dim=1)
'''),
    (3, "each row's real tokens plus the step, off by one (the new token counted too)", '''
@torch.no_grad()
def decode_batch(model, prompts, n_new):
    tokens, pos = left_pad(prompts)
    cache = KVCache(len(model.blocks))
    logits = model(tokens, pos=pos, cache=cache)[:, -1]
    steps = [logits]
    n_real = (pos >= 0).sum(1, keepdim=True)
    for t in range(n_new - 1):
        nxt = logits.argmax(-1, keepdim=True)
        pos = n_real + t + 1
        logits = model(nxt, pos=pos, cache=cache)[:, -1]
        steps.append(logits)
    return torch.stack(steps, dim=1)
'''),
    (3, 'positions restarted at 0 for every decoded token', '''
@torch.no_grad()
def decode_batch(model, prompts, n_new):
    tokens, pos = left_pad(prompts)
    cache = KVCache(len(model.blocks))
    logits = model(tokens, pos=pos, cache=cache)[:, -1]
    steps = [logits]
    for _ in range(n_new - 1):
        nxt = logits.argmax(-1, keepdim=True)
        pos = torch.zeros(len(prompts), 1, dtype=torch.long)
        logits = model(nxt, pos=pos, cache=cache)[:, -1]
        steps.append(logits)
    return torch.stack(steps, dim=1)
'''),
    (3, 'right logits by re-running the whole batch each step: the cache is not used', '''
@torch.no_grad()
def decode_batch(model, prompts, n_new):
    seqs = [list(p) for p in prompts]
    steps = []
    for _ in range(n_new):
        tokens, pos = left_pad(seqs)
        logits = model(tokens, pos=pos)[:, -1]
        steps.append(logits)
        for s, t in zip(seqs, logits.argmax(-1).tolist()):
            s.append(t)
    return torch.stack(steps, dim=1)
'''),
    (3, "fixed, but the new tokens appended to the caller's prompt lists", '''
@torch.no_grad()
def decode_batch(model, prompts, n_new):
    tokens, pos = left_pad(prompts)
    cache = KVCache(len(model.blocks))
    logits = model(tokens, pos=pos, cache=cache)[:, -1]
    steps = [logits]
    for _ in range(n_new - 1):
        nxt = logits.argmax(-1, keepdim=True)
        for p, t in zip(prompts, nxt[:, 0].tolist()):
            p.append(t)
        pos = pos[:, -1:] + 1
        logits = model(nxt, pos=pos, cache=cache)[:, -1]
        steps.append(logits)
    return torch.stack(steps, dim=1)
'''),
    (3, 'padding given position 0 so that len(cache) fits (the pads become visible keys)', '''
@torch.no_grad()
def decode_batch(model, prompts, n_new):
    tokens, pos = left_pad(prompts)
    pos = torch.where(pos >= 0, pos, 0)
    cache = KVCache(len(model.blocks))
    logits = model(tokens, pos=pos, cache=cache)[:, -1]
    steps = [logits]
    for _ in range(n_new - 1):
        nxt = logits.argmax(-1, keepdim=True)
        pos = pos[:, -1:] + 1
        logits = model(nxt, pos=pos, cache=cache)[:, -1]
        steps.append(logits)
    return torch.stack(steps, dim=1)
'''),
    (4, "prediction: keeping the cache, turn 1's last token forgotten", '''
def prediction():
    return (115, 73)
'''),
    (4, 'prediction: P + N per turn (as if the last token were fed too)', '''
def prediction():
    return (117, 76)
'''),
    (4, 'prediction: turn 2 only', '''
def prediction():
    return (74, 33)
'''),
    (4, 'prediction: a list, not a tuple of two ints', '''
def prediction():
    return [115, 74]
'''),
    (4, "keeping the cache, only turn 2's text fed (turn 1's last token never enters the cache)", '''
def two_turns(model, turn1, n1, turn2, n2, keep_cache):
    model.positions_processed = 0
    cache = KVCache(len(model.blocks))
    first, _ = generate_cached(model, turn1, n1, cache=cache)
    if keep_cache:
        second, _ = generate_cached(model, turn2, n2, cache=cache)
        tokens = torch.cat([first, second], dim=1)
    else:
        tokens, _ = generate_cached(model, torch.cat([first, turn2], dim=1), n2)
    return tokens, model.positions_processed
'''),
    (4, 'the count not reset: positions left over from earlier calls included', '''
def two_turns(model, turn1, n1, turn2, n2, keep_cache):
    cache = KVCache(len(model.blocks))
    first, _ = generate_cached(model, turn1, n1, cache=cache)
    if keep_cache:
        feed = torch.cat([first[:, -1:], turn2], dim=1)
        second, _ = generate_cached(model, feed, n2, cache=cache)
        tokens = torch.cat([first, second[:, 1:]], dim=1)
    else:
        tokens, _ = generate_cached(model, torch.cat([first, turn2], dim=1), n2)
    return tokens, model.positions_processed
'''),
    (4, 'starting over with generate_uncached', '''
def two_turns(model, turn1, n1, turn2, n2, keep_cache):
    model.positions_processed = 0
    cache = KVCache(len(model.blocks))
    first, _ = generate_cached(model, turn1, n1, cache=cache)
    if keep_cache:
        feed = torch.cat([first[:, -1:], turn2], dim=1)
        second, _ = generate_cached(model, feed, n2, cache=cache)
        tokens = torch.cat([first, second[:, 1:]], dim=1)
    else:
        tokens, _ = generate_uncached(model, torch.cat([first, turn2], dim=1), n2)
    return tokens, model.positions_processed
'''),
    (4, 'keeping the cache, the whole of turn 1 fed again into it', '''
def two_turns(model, turn1, n1, turn2, n2, keep_cache):
    model.positions_processed = 0
    cache = KVCache(len(model.blocks))
    first, _ = generate_cached(model, turn1, n1, cache=cache)
    if keep_cache:
        feed = torch.cat([first, turn2], dim=1)
        tokens, _ = generate_cached(model, feed, n2, cache=cache)
    else:
        tokens, _ = generate_cached(model, torch.cat([first, turn2], dim=1), n2)
    return tokens, model.positions_processed
'''),
    (4, 'the new tokens of turn 2 only, not the whole conversation', '''
def two_turns(model, turn1, n1, turn2, n2, keep_cache):
    model.positions_processed = 0
    cache = KVCache(len(model.blocks))
    first, _ = generate_cached(model, turn1, n1, cache=cache)
    if keep_cache:
        feed = torch.cat([first[:, -1:], turn2], dim=1)
        second, _ = generate_cached(model, feed, n2, cache=cache)
        tokens = second[:, 1 + turn2.shape[1]:]
    else:
        tokens, _ = generate_cached(model, torch.cat([first, turn2], dim=1), n2)
    return tokens, model.positions_processed
'''),
    (4, "keeping the cache, turn 1's last token doubled in the conversation", '''
def two_turns(model, turn1, n1, turn2, n2, keep_cache):
    model.positions_processed = 0
    cache = KVCache(len(model.blocks))
    first, _ = generate_cached(model, turn1, n1, cache=cache)
    if keep_cache:
        feed = torch.cat([first[:, -1:], turn2], dim=1)
        second, _ = generate_cached(model, feed, n2, cache=cache)
        tokens = torch.cat([first, second], dim=1)
    else:
        tokens, _ = generate_cached(model, torch.cat([first, turn2], dim=1), n2)
    return tokens, model.positions_processed
'''),
    (1, "computed in float32: the steps drift from float64 attention", '''
def decode_step(q_t, k_t, v_t, K, V):
    q_t, k_t, v_t = (np.asarray(a, dtype=np.float32) for a in (q_t, k_t, v_t))
    K, V = np.asarray(K, dtype=np.float32), np.asarray(V, dtype=np.float32)
    K = np.concatenate([K, k_t[None]], axis=0)
    V = np.concatenate([V, v_t[None]], axis=0)
    scores = K @ q_t / np.sqrt(q_t.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ V, weights, K, V
'''),
    (4, "keeping the cache, turn 1's new tokens fed into it again (the prompt not)", '''
def two_turns(model, turn1, n1, turn2, n2, keep_cache):
    model.positions_processed = 0
    cache = KVCache(len(model.blocks))
    first, _ = generate_cached(model, turn1, n1, cache=cache)
    if keep_cache:
        feed = torch.cat([first[:, turn1.shape[1]:], turn2], dim=1)
        second, _ = generate_cached(model, feed, n2, cache=cache)
        tokens = torch.cat([first, second[:, n1:]], dim=1)
    else:
        tokens, _ = generate_cached(model, torch.cat([first, turn2], dim=1), n2)
    return tokens, model.positions_processed
'''),
]
RIGHT = [
    (1, "computed in PyTorch float64, returned as NumPy", '''
def decode_step(q_t, k_t, v_t, K, V):
    K = np.concatenate([np.asarray(K, dtype=np.float64), np.asarray(k_t)[None]], axis=0)
    V = np.concatenate([np.asarray(V, dtype=np.float64), np.asarray(v_t)[None]], axis=0)
    q = torch.as_tensor(np.asarray(q_t, dtype=np.float64))
    w = torch.softmax(torch.as_tensor(K) @ q / K.shape[1] ** 0.5, dim=0)
    return (w @ torch.as_tensor(V)).numpy(), w.numpy(), K, V
'''),
    (1, "np.vstack and a softmax without the max shift", '''
def decode_step(q_t, k_t, v_t, K, V):
    K = np.vstack([np.asarray(K, dtype=np.float64).reshape(-1, len(k_t)), k_t])
    V = np.vstack([np.asarray(V, dtype=np.float64).reshape(-1, len(v_t)), v_t])
    e = np.exp(K @ np.asarray(q_t, dtype=np.float64) / np.sqrt(len(q_t)))
    w = e / e.sum()
    return w @ V, w, K, V
'''),
    (2, "arange minus the number of pads, -1 on the pads", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    n_pad = (~keep).sum(1, keepdim=True)
    return torch.where(keep, torch.arange(keep.shape[1]) - n_pad, -1)
'''),
    (2, "cumsum in int32, converted to long", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return (keep.int().cumsum(1) - 1).long()
'''),
    (3, "each row's real tokens plus the step", '''
@torch.no_grad()
def decode_batch(model, prompts, n_new):
    tokens, pos = left_pad(prompts)
    cache = KVCache(len(model.blocks))
    logits = model(tokens, pos=pos, cache=cache)[:, -1]
    steps = [logits]
    n_real = (pos >= 0).sum(1, keepdim=True)
    for t in range(n_new - 1):
        nxt = logits.argmax(-1, keepdim=True)
        pos = n_real + t
        logits = model(nxt, pos=pos, cache=cache)[:, -1]
        steps.append(logits)
    return torch.stack(steps, dim=1)
'''),
    (3, "len(cache) minus each row's own padding", '''
@torch.no_grad()
def decode_batch(model, prompts, n_new):
    tokens, pos = left_pad(prompts)
    cache = KVCache(len(model.blocks))
    logits = model(tokens, pos=pos, cache=cache)[:, -1]
    steps = [logits]
    for _ in range(n_new - 1):
        nxt = logits.argmax(-1, keepdim=True)
        n_pad = (tokens == 0).sum(1, keepdim=True)
        pos = len(cache) - n_pad
        logits = model(nxt, pos=pos, cache=cache)[:, -1]
        steps.append(logits)
    return torch.stack(steps, dim=1)
'''),
    (3, 'prompt positions counted from the left edge (RoPE sees only differences), len(cache) kept', '''
@torch.no_grad()
def decode_batch(model, prompts, n_new):
    tokens, pos = left_pad(prompts)
    pos = torch.where(pos >= 0, torch.arange(tokens.shape[1]), -1)
    cache = KVCache(len(model.blocks))
    logits = model(tokens, pos=pos, cache=cache)[:, -1]
    steps = [logits]
    for _ in range(n_new - 1):
        nxt = logits.argmax(-1, keepdim=True)
        pos = torch.full((len(prompts), 1), len(cache))
        logits = model(nxt, pos=pos, cache=cache)[:, -1]
        steps.append(logits)
    return torch.stack(steps, dim=1)
'''),
    (4, 'prediction worked out and written as numbers', '''
def prediction():
    return (41 + 74, 41 + 33)
'''),
    (4, 'the two turns by hand: model calls with the cache, argmax in a loop', '''
@torch.no_grad()
def two_turns(model, turn1, n1, turn2, n2, keep_cache):
    def decode(prompt, n, cache):
        out = [prompt]
        logits = model(prompt, cache=cache)[:, -1]
        for i in range(n):
            nxt = logits.argmax(-1, keepdim=True)
            out.append(nxt)
            if i < n - 1:
                logits = model(nxt, cache=cache)[:, -1]
        return torch.cat(out, dim=1)

    model.positions_processed = 0
    cache = KVCache(len(model.blocks))
    first = decode(turn1, n1, cache)
    if keep_cache:
        rest = decode(torch.cat([first[:, -1:], turn2], dim=1), n2, cache)
        return torch.cat([first, rest[:, 1:]], dim=1), model.positions_processed
    full = decode(torch.cat([first, turn2], dim=1), n2, KVCache(len(model.blocks)))
    return full, model.positions_processed
'''),
    (4, "keeping the cache: turn 1's last token fed by a model call, then turn 2 as the prompt", '''
def two_turns(model, turn1, n1, turn2, n2, keep_cache):
    start = model.positions_processed
    cache = KVCache(len(model.blocks))
    first, _ = generate_cached(model, turn1, n1, cache=cache)
    if keep_cache:
        with torch.no_grad():
            model(first[:, -1:], cache=cache)
        second, _ = generate_cached(model, turn2, n2, cache=cache)
        tokens = torch.cat([first, second], dim=1)
    else:
        tokens, _ = generate_cached(model, torch.cat([first, turn2], dim=1), n2)
    return tokens, int(model.positions_processed - start)
'''),
]
