"""Wrong answers a learner would plausibly write for chapter 11's exercises."""
WRONG = [
    (1, 'attends over the whole buffer: the junk rows are read', '''
def decode_step(q_t, k_t, v_t, K, V, n):
    K[n], V[n] = k_t, v_t
    scores = K @ q_t / np.sqrt(len(q_t))
    w = np.exp(scores - scores.max()); w = w / w.sum()
    return w @ V, w
'''),
    (1, 'masks the junk rows with -inf instead of not reading them: 0 x NaN is NaN', '''
def decode_step(q_t, k_t, v_t, K, V, n):
    K[n], V[n] = k_t, v_t
    scores = K @ q_t / np.sqrt(len(q_t))
    scores = np.where(np.arange(len(K)) <= n, scores, -np.inf)
    w = np.exp(scores - scores[:n + 1].max()); w = w / w.sum()
    return w @ V, w[:n + 1]
'''),
    (1, 'attends over the cached rows only: the new key is written but not read', '''
def decode_step(q_t, k_t, v_t, K, V, n):
    K[n], V[n] = k_t, v_t
    m = max(n, 1)
    scores = K[:m] @ q_t / np.sqrt(len(q_t))
    w = np.exp(scores - scores.max()); w = w / w.sum()
    return w @ V[:m], w
'''),
    (1, 'writes the new key into row n + 1', '''
def decode_step(q_t, k_t, v_t, K, V, n):
    K[n + 1 if n + 1 < len(K) else n], V[n + 1 if n + 1 < len(V) else n] = k_t, v_t
    keys = np.vstack([K[:n], k_t[None]]); values = np.vstack([V[:n], v_t[None]])
    scores = keys @ q_t / np.sqrt(len(q_t))
    w = np.exp(scores - scores.max()); w = w / w.sum()
    return w @ values, w
'''),
    (1, 'concatenates instead of writing: the buffers never receive the new row', '''
def decode_step(q_t, k_t, v_t, K, V, n):
    keys = np.concatenate([K[:n], k_t[None]]); values = np.concatenate([V[:n], v_t[None]])
    scores = keys @ q_t / np.sqrt(len(q_t))
    w = np.exp(scores - scores.max()); w = w / w.sum()
    return w @ values, w
'''),
    (1, 'no 1/sqrt(D) scaling', '''
def decode_step(q_t, k_t, v_t, K, V, n):
    K[n], V[n] = k_t, v_t
    scores = K[:n + 1] @ q_t
    w = np.exp(scores - scores.max()); w = w / w.sum()
    return w @ V[:n + 1], w
'''),
    (1, "scales q_t in place: the caller's query changes", '''
def decode_step(q_t, k_t, v_t, K, V, n):
    q_t /= np.sqrt(len(q_t))
    K[n], V[n] = k_t, v_t
    scores = K[:n + 1] @ q_t
    w = np.exp(scores - scores.max()); w = w / w.sum()
    return w @ V[:n + 1], w
'''),
    (1, 'scales the written key in place: k_t changes', '''
def decode_step(q_t, k_t, v_t, K, V, n):
    k_t /= np.sqrt(len(q_t))
    K[n], V[n] = k_t, v_t
    scores = K[:n + 1] @ q_t
    w = np.exp(scores - scores.max()); w = w / w.sum()
    return w @ V[:n + 1], w
'''),
    (1, 'clears the rest of the buffer while writing (other rows change)', '''
def decode_step(q_t, k_t, v_t, K, V, n):
    K[n:], V[n:] = 0.0, 0.0
    K[n], V[n] = k_t, v_t
    scores = K[:n + 1] @ q_t / np.sqrt(len(q_t))
    w = np.exp(scores - scores.max()); w = w / w.sum()
    return w @ V[:n + 1], w
'''),
    (1, 'computed in float32: the steps drift from float64 attention', '''
def decode_step(q_t, k_t, v_t, K, V, n):
    K[n], V[n] = k_t, v_t
    keys, values, q = (a.astype(np.float32) for a in (K[:n + 1], V[:n + 1], q_t))
    scores = keys @ q / np.float32(np.sqrt(len(q_t)))
    w = np.exp(scores - scores.max()); w = w / w.sum()
    return w @ values, w
'''),
    (1, 'weights as a list of floats, not an array', '''
def decode_step(q_t, k_t, v_t, K, V, n):
    K[n], V[n] = k_t, v_t
    scores = K[:n + 1] @ q_t / np.sqrt(len(q_t))
    w = np.exp(scores - scores.max()); w = w / w.sum()
    return w @ V[:n + 1], w.tolist()
'''),
    (1, "calls the chapter's gqa_attention_np", '''
from attnlab.kv_cache import gqa_attention_np

def decode_step(q_t, k_t, v_t, K, V, n):
    K[n], V[n] = k_t, v_t
    out, w = gqa_attention_np(q_t[None, None, None], K[None, None, :n + 1], V[None, None, :n + 1])
    return out[0, 0, 0], w[0, 0, 0]
'''),
    (2, 'the running count minus one, pads not set to -1: fine on the left only', '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return keep.long().cumsum(1) - 1
'''),
    (2, "column minus the row's number of pads: fine on the left only", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    n_pad = (~keep).sum(1, keepdim=True)
    return torch.where(keep, torch.arange(keep.shape[1]) - n_pad, -1)
'''),
    (2, "counted from the first real token's column: inner pads counted too", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    first = keep.long().argmax(1, keepdim=True)
    return torch.where(keep, torch.arange(keep.shape[1]) - first, -1)
'''),
    (2, 'positions start at 1: the running count without the -1', '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return torch.where(keep, keep.long().cumsum(1), -1)
'''),
    (2, 'padding gets position 0, so it looks like a real first token', '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return torch.where(keep, keep.long().cumsum(1) - 1, 0)
'''),
    (2, 'column index kept on real tokens: counts from the left edge', '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return torch.where(keep, torch.arange(keep.shape[1]), -1)
'''),
    (2, 'counted from the right (as if the newest token were position 0)', '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    rev = keep.flip(1).long().cumsum(1) - 1
    return torch.where(keep, rev.flip(1), -1)
'''),
    (2, 'float positions (cumsum of a float mask)', '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return torch.where(keep, keep.float().cumsum(1) - 1, -1.0)
'''),
    (2, 'int32 positions', '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return torch.where(keep, keep.int().cumsum(1) - 1, -1).int()
'''),
    (2, "from each row's first real token: right, but crashes on a row of pads only", '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    out = torch.full(keep.shape, -1, dtype=torch.long)
    for b in range(keep.shape[0]):
        first = int(keep[b].nonzero()[0])
        out[b, first:] = keep[b, first:].long().cumsum(0) - 1
    return out.masked_fill(~keep, -1)
'''),
    (2, 'returns a NumPy array', '''
def positions_from_keep(keep):
    keep = np.asarray(keep, dtype=bool)
    return np.where(keep, keep.cumsum(1) - 1, -1)
'''),
    (2, 'changes keep in place (marks the pads while counting)', '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    count = keep.long().cumsum(1) - 1
    keep.logical_not_()
    return count.masked_fill(keep, -1)
'''),
    (2, "calls the chapter's left_pad", '''
from attnlab.kv_cache import left_pad

def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return left_pad([[1] * int(n) for n in keep.sum(1)])[1]
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
    (4, 'prediction that runs the measurement', '''
def prediction():
    turn1 = torch.tensor([vocab.encode("Beautiful is")])
    turn2 = torch.tensor([vocab.encode("Flat is")])
    return (two_turns(model, turn1, 30, turn2, 25, False)[1],
            two_turns(model, turn1, 30, turn2, 25, True)[1])
'''),
    (4, 'prediction: bools, not ints', '''
def prediction():
    return (True, True)
'''),
    (1, 'computed in float32 and cast back to float64: the dtype is right, the digits not', '''
def decode_step(q_t, k_t, v_t, K, V, n):
    K[n], V[n] = k_t, v_t
    keys, values, q = (a.astype(np.float32) for a in (K[:n + 1], V[:n + 1], q_t))
    scores = keys @ q / np.float32(np.sqrt(len(q_t)))
    w = np.exp(scores - scores.max()); w = w / w.sum()
    return (w @ values).astype(np.float64), w.astype(np.float64)
'''),
    (3, "the last prompt position reused for the first decoded token (the + 1 missing)", '''
@torch.no_grad()
def decode_batch(model, prompts, n_new):
    tokens, pos = left_pad(prompts)
    cache = KVCache(len(model.blocks))
    logits = model(tokens, pos=pos, cache=cache)[:, -1]
    steps = [logits]
    pos = pos[:, -1:]
    for _ in range(n_new - 1):
        nxt = logits.argmax(-1, keepdim=True)
        logits = model(nxt, pos=pos, cache=cache)[:, -1]
        pos = pos + 1
        steps.append(logits)
    return torch.stack(steps, dim=1)
'''),
    (3, 'right logits, but each row decoded alone with its own cache: not batched', '''
@torch.no_grad()
def decode_batch(model, prompts, n_new):
    tokens, pos = left_pad(prompts)
    rows = []
    for b in range(len(prompts)):
        cache = KVCache(len(model.blocks))
        p = pos[b:b + 1]
        logits = model(tokens[b:b + 1], pos=p, cache=cache)[:, -1]
        steps = [logits]
        p = p[:, -1:]
        for _ in range(n_new - 1):
            p = p + 1
            logits = model(logits.argmax(-1, keepdim=True), pos=p, cache=cache)[:, -1]
            steps.append(logits)
        rows.append(torch.stack(steps, dim=1))
    return torch.cat(rows, dim=0)
'''),
    (4, "never keeps the cache, and the count typed in for the exercise's chat", '''
def two_turns(model, turn1, n1, turn2, n2, keep_cache):
    first, _ = generate_cached(model, turn1, n1)
    tokens, _ = generate_cached(model, torch.cat([first, turn2], dim=1), n2)
    return tokens, (74 if keep_cache else 115)
'''),
    (4, 'never keeps the cache: starts over both ways, the count measured', '''
def two_turns(model, turn1, n1, turn2, n2, keep_cache):
    model.positions_processed = 0
    first, _ = generate_cached(model, turn1, n1)
    tokens, _ = generate_cached(model, torch.cat([first, turn2], dim=1), n2)
    return tokens, model.positions_processed
'''),
    (4, 'prediction: the measurement handed in through a default argument', '''
def prediction(m=measured):
    return m["the exercise's chat", False], m["the exercise's chat", True]
'''),
    (4, 'prediction: the measurement handed in through a keyword-only default', '''
def prediction(*, m=measured):
    return m["the exercise's chat", False], m["the exercise's chat", True]
'''),
    (1, 'the built-in called under another name (bound before the call)', '''
import torch.nn.functional as _F
_attend = _F.scaled_dot_product_attention

def decode_step(q_t, k_t, v_t, K, V, n):
    K[n], V[n] = k_t, v_t
    q, k, v = (torch.from_numpy(np.ascontiguousarray(a)) for a in (q_t[None], K[:n + 1], V[:n + 1]))
    w = torch.softmax(k @ q[0] / len(q_t) ** 0.5, dim=0)
    return _attend(q[None], k[None], v[None])[0, 0].numpy(), w.numpy()
'''),
    (3, 'generate_batch reached through a helper', '''
from attnlab.kv_cache import generate_batch as _gb

def _tokens(model, prompts, n_new):
    return _gb(model, prompts, n_new)

@torch.no_grad()
def decode_batch(model, prompts, n_new):
    toks = _tokens(model, prompts, n_new)
    return torch.zeros(len(prompts), n_new, len(vocab), dtype=torch.float64)
'''),
]
RIGHT = [
    (1, 'PyTorch float64 on views of the buffers, returned as NumPy', '''
def decode_step(q_t, k_t, v_t, K, V, n):
    K[n], V[n] = k_t, v_t
    keys, values = torch.from_numpy(K[:n + 1]), torch.from_numpy(V[:n + 1])
    w = torch.softmax(keys @ torch.from_numpy(q_t) / len(q_t) ** 0.5, dim=0)
    return (w @ values).numpy(), w.numpy()
'''),
    (1, 'np.copyto into the rows, the keys scaled instead of the query, a loop for the sum', '''
def decode_step(q_t, k_t, v_t, K, V, n):
    np.copyto(K[n], k_t); np.copyto(V[n], v_t)
    e = np.exp((K[:n + 1] / np.sqrt(len(q_t))) @ q_t)
    w = e / e.sum()
    out = np.zeros(len(q_t))
    for j in range(n + 1):
        out += w[j] * V[j]
    return out, w
'''),
    (2, 'a loop over rows and columns', '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    out = torch.full(keep.shape, -1, dtype=torch.long)
    for b in range(keep.shape[0]):
        seen = 0
        for c in range(keep.shape[1]):
            if keep[b, c]:
                out[b, c] = seen
                seen += 1
    return out
'''),
    (2, 'int32 cumsum, masked_fill, converted to long', '''
def positions_from_keep(keep):
    keep = torch.as_tensor(keep, dtype=torch.bool)
    return (keep.int().cumsum(1) - 1).masked_fill(~keep, -1).long()
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
    (4, 'prediction worked out as arithmetic on written-down sizes (no name read)', '''
def prediction():
    P1, N1, P2, N2 = 12, 30, 8, 25
    return (2 * (P1 + N1) + P2 + N2 - 2, P1 + N1 + P2 + N2 - 1)
'''),
    (4, 'a wrong prediction written down: the exercise still passes', '''
def prediction():
    return (117, 76)
'''),
    (3, 'positions kept as a per-row counter of real tokens, a loop over the steps', '''
@torch.no_grad()
def decode_batch(model, prompts, n_new):
    tokens, pos = left_pad(prompts)
    cache = KVCache(len(model.blocks))
    logits = model(tokens, pos=pos, cache=cache)[:, -1]
    out = [logits]
    nxt_pos = torch.tensor([[len(p)] for p in prompts])
    for _ in range(n_new - 1):
        logits = model(logits.argmax(-1, keepdim=True), pos=nxt_pos, cache=cache)[:, -1]
        nxt_pos = nxt_pos + 1
        out.append(logits)
    return torch.stack(out, dim=1)
'''),
]
