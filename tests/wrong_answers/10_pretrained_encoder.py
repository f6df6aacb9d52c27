"""Wrong answers a learner would plausibly write for chapter 10's exercises, and right ones
that differ from the solution in an allowed way."""
WRONG = [
    (1, 'weights k / n_b: the ranks divided by the count, so a row does not sum to 1', '''
def weighted_mean_pool(hidden, keep, normalize=True):
    h, k = np.asarray(hidden, dtype=np.float64), np.asarray(keep, dtype=bool)
    rank = np.cumsum(k, axis=1) * k
    out = (h * (rank / k.sum(axis=1, keepdims=True))[..., None]).sum(axis=1)
    return out / np.linalg.norm(out, axis=-1, keepdims=True) if normalize else out
'''),
    (2, 'the target mask from np.roll: row 0 wraps round to the last key', '''
def offset_fraction(weights, keep, offset):
    w, k = np.asarray(weights), np.asarray(keep, dtype=bool)
    S = w.shape[-1]
    j = np.arange(S) + offset
    counted = k & np.roll(k, -offset, axis=1)
    hits = (w.argmax(axis=-1) == j) & counted[:, None, :]
    return hits.sum(axis=(0, 2)) / counted.sum()
'''),
    (1, 'weights by position in the row (s + 1), not by rank among the real tokens', '''
def weighted_mean_pool(hidden, keep, normalize=True):
    h, k = np.asarray(hidden, dtype=np.float64), np.asarray(keep, dtype=bool)
    w = (np.arange(1, k.shape[1] + 1) * k).astype(np.float64)
    w = w / w.sum(axis=1, keepdims=True)
    out = (h * w[..., None]).sum(axis=1)
    return out / np.linalg.norm(out, axis=-1, keepdims=True) if normalize else out
'''),
    (1, 'the ranks from cumsum, padding not zeroed (a pad after a word keeps its rank)', '''
def weighted_mean_pool(hidden, keep, normalize=True):
    h, k = np.asarray(hidden, dtype=np.float64), np.asarray(keep, dtype=bool)
    rank = np.cumsum(k, axis=1).astype(np.float64)
    w = rank / rank.sum(axis=1, keepdims=True)
    out = (h * w[..., None]).sum(axis=1)
    return out / np.linalg.norm(out, axis=-1, keepdims=True) if normalize else out
'''),
    (1, 'the plain mean (uniform weights)', '''
def weighted_mean_pool(hidden, keep, normalize=True):
    h, k = np.asarray(hidden, dtype=np.float64), np.asarray(keep, dtype=bool)
    out = (h * k[..., None]).sum(axis=1) / k.sum(axis=1, keepdims=True)
    return out / np.linalg.norm(out, axis=-1, keepdims=True) if normalize else out
'''),
    (1, "divided by S(S + 1)/2 for every row, not by the row's own n(n + 1)/2", '''
def weighted_mean_pool(hidden, keep, normalize=True):
    h, k = np.asarray(hidden, dtype=np.float64), np.asarray(keep, dtype=bool)
    S = k.shape[1]
    rank = np.cumsum(k, axis=1) * k
    out = (h * (rank / (S * (S + 1) / 2))[..., None]).sum(axis=1)
    return out / np.linalg.norm(out, axis=-1, keepdims=True) if normalize else out
'''),
    (1, 'ranks counted from the right: the first real token weighs the most', '''
def weighted_mean_pool(hidden, keep, normalize=True):
    h, k = np.asarray(hidden, dtype=np.float64), np.asarray(keep, dtype=bool)
    rank = np.cumsum(k[:, ::-1], axis=1)[:, ::-1] * k
    w = rank / rank.sum(axis=1, keepdims=True)
    out = (h * w[..., None]).sum(axis=1)
    return out / np.linalg.norm(out, axis=-1, keepdims=True) if normalize else out
'''),
    (1, 'ranks from 0 (k - 1): the first real token gets no weight', '''
def weighted_mean_pool(hidden, keep, normalize=True):
    h, k = np.asarray(hidden, dtype=np.float64), np.asarray(keep, dtype=bool)
    rank = (np.cumsum(k, axis=1) - 1) * k
    w = rank / np.maximum(rank.sum(axis=1, keepdims=True), 1)
    out = (h * w[..., None]).sum(axis=1)
    return out / np.linalg.norm(out, axis=-1, keepdims=True) if normalize else out
'''),
    (1, 'normalize ignored: always unit length', '''
def weighted_mean_pool(hidden, keep, normalize=True):
    h, k = np.asarray(hidden, dtype=np.float64), np.asarray(keep, dtype=bool)
    rank = np.cumsum(k, axis=1) * k
    out = (h * (rank / rank.sum(axis=1, keepdims=True))[..., None]).sum(axis=1)
    return out / np.linalg.norm(out, axis=-1, keepdims=True)
'''),
    (1, 'normalize ignored: never normalised', '''
def weighted_mean_pool(hidden, keep, normalize=True):
    h, k = np.asarray(hidden, dtype=np.float64), np.asarray(keep, dtype=bool)
    rank = np.cumsum(k, axis=1) * k
    return (h * (rank / rank.sum(axis=1, keepdims=True))[..., None]).sum(axis=1)
'''),
    (1, "zeroes the padding in the caller's array, in place", '''
def weighted_mean_pool(hidden, keep, normalize=True):
    h, k = np.asarray(hidden), np.asarray(keep, dtype=bool)
    h[~k] = 0.0
    rank = np.cumsum(k, axis=1) * k
    out = (h * (rank / rank.sum(axis=1, keepdims=True))[..., None]).sum(axis=1)
    return out / np.linalg.norm(out, axis=-1, keepdims=True) if normalize else out
'''),
    (1, 'computed in float32', '''
def weighted_mean_pool(hidden, keep, normalize=True):
    h, k = np.asarray(hidden, dtype=np.float32), np.asarray(keep, dtype=bool)
    rank = (np.cumsum(k, axis=1) * k).astype(np.float32)
    out = (h * (rank / rank.sum(axis=1, keepdims=True))[..., None]).sum(axis=1)
    out = out / np.linalg.norm(out, axis=-1, keepdims=True) if normalize else out
    return out.astype(np.float64)
'''),
    (1, 'the real tokens assumed to come first (padding on the right only)', '''
def weighted_mean_pool(hidden, keep, normalize=True):
    h, k = np.asarray(hidden, dtype=np.float64), np.asarray(keep, dtype=bool)
    out = []
    for b in range(h.shape[0]):
        n = int(k[b].sum())
        w = np.arange(1, n + 1) / (n * (n + 1) / 2)
        out.append((w[:, None] * h[b, :n]).sum(axis=0))
    out = np.array(out)
    return out / np.linalg.norm(out, axis=-1, keepdims=True) if normalize else out
'''),
    (2, "the mean of the sentences' own fractions", '''
def offset_fraction(weights, keep, offset):
    w, k = np.asarray(weights), np.asarray(keep, dtype=bool)
    fr = []
    for b in range(w.shape[0]):
        real = np.flatnonzero(k[b])
        wb = w[b][:, real][:, :, real]
        n = len(real)
        rows = [i for i in range(n) if 0 <= i + offset < n]
        if rows:
            fr.append(np.mean([[wb[h, i].argmax() == i + offset for i in rows]
                               for h in range(w.shape[1])], axis=1))
    return np.mean(fr, axis=0)
'''),
    (2, 'keep ignored: every row of the padded array counted', '''
def offset_fraction(weights, keep, offset):
    w = np.asarray(weights)
    S = w.shape[-1]
    i = np.arange(S)
    valid = (i + offset >= 0) & (i + offset < S)
    top = w.argmax(axis=-1)
    return (top[:, :, valid] == (i + offset)[valid]).mean(axis=(0, 2))
'''),
    (2, 'padded queries left out, but rows whose target is padding counted as misses', '''
def offset_fraction(weights, keep, offset):
    w, k = np.asarray(weights), np.asarray(keep, dtype=bool)
    S = w.shape[-1]
    i = np.arange(S)
    inside = (i + offset >= 0) & (i + offset < S)
    counted = k & inside
    hits = (w.argmax(axis=-1) == i + offset) & counted[:, None, :]
    return hits.sum(axis=(0, 2)) / counted.sum()
'''),
    (2, 'targets on padding excluded, but padded queries counted', '''
def offset_fraction(weights, keep, offset):
    w, k = np.asarray(weights), np.asarray(keep, dtype=bool)
    B, H, S, _ = w.shape
    i = np.arange(S)
    j = i + offset
    inside = (j >= 0) & (j < S)
    target_real = np.zeros((B, S), dtype=bool)
    target_real[:, inside] = k[:, j[inside]]
    hits = (w.argmax(axis=-1) == j) & target_real[:, None, :]
    return hits.sum(axis=(0, 2)) / target_real.sum()
'''),
    (2, 'argmax over the queries (axis -2)', '''
def offset_fraction(weights, keep, offset):
    w, k = np.asarray(weights), np.asarray(keep, dtype=bool)
    B, H, S, _ = w.shape
    j = np.arange(S) + offset
    inside = (j >= 0) & (j < S)
    target_real = np.zeros((B, S), dtype=bool)
    target_real[:, inside] = k[:, j[inside]]
    counted = k & target_real
    hits = (w.argmax(axis=-2) == j) & counted[:, None, :]
    return hits.sum(axis=(0, 2)) / counted.sum()
'''),
    (2, 'offset sign flipped (target i - offset)', '''
def offset_fraction(weights, keep, offset):
    w, k = np.asarray(weights), np.asarray(keep, dtype=bool)
    B, H, S, _ = w.shape
    j = np.arange(S) - offset
    inside = (j >= 0) & (j < S)
    target_real = np.zeros((B, S), dtype=bool)
    target_real[:, inside] = k[:, j[inside]]
    counted = k & target_real
    hits = (w.argmax(axis=-1) == j) & counted[:, None, :]
    return hits.sum(axis=(0, 2)) / counted.sum()
'''),
    (2, "padded rows zeroed in the caller's weights, in place", '''
def offset_fraction(weights, keep, offset):
    w, k = np.asarray(weights), np.asarray(keep, dtype=bool)
    w *= k[:, None, :, None]
    B, H, S, _ = w.shape
    j = np.arange(S) + offset
    inside = (j >= 0) & (j < S)
    target_real = np.zeros((B, S), dtype=bool)
    target_real[:, inside] = k[:, j[inside]]
    counted = k & target_real
    hits = (w.argmax(axis=-1) == j) & counted[:, None, :]
    return hits.sum(axis=(0, 2)) / counted.sum()
'''),
    (2, "padding assumed on the right: a target counts when it is inside the sentence's length", '''
def offset_fraction(weights, keep, offset):
    w, k = np.asarray(weights), np.asarray(keep, dtype=bool)
    B, H, S, _ = w.shape
    hits, rows = np.zeros(H), 0
    for b in range(B):
        n = int(k[b].sum())
        for i in range(n):
            if 0 <= i + offset < n:
                rows += 1
                hits += w[b, :, i].argmax(axis=-1) == i + offset
    return hits / rows
'''),
    (3, "the diagonal as r^N only: the mixed part's share 1/n forgotten", '''
def uniform_rollout(n, N, r):
    return r ** N, (1 - r ** N) / n
'''),
    (3, 'r and 1 - r swapped: (1 - r)^N survives', '''
def uniform_rollout(n, N, r):
    kept = (1 - r) ** N
    return kept + (1 - kept) / n, (1 - kept) / n
'''),
    (3, 'the off-diagonal divided by n - 1 (the other tokens only)', '''
def uniform_rollout(n, N, r):
    kept = r ** N
    return kept + (1 - kept) / n, (1 - kept) / (n - 1)
'''),
    (3, 'linear in N: r N instead of r^N', '''
def uniform_rollout(n, N, r):
    kept = max(0.0, 1 - N * (1 - r))
    return kept + (1 - kept) / n, (1 - kept) / n
'''),
    (3, "one layer's entries whatever N", '''
def uniform_rollout(n, N, r):
    return r + (1 - r) / n, (1 - r) / n
'''),
    (3, 'the matrices built and multiplied (not a closed form)', '''
def uniform_rollout(n, N, r):
    a = r * np.eye(n) + (1 - r) / n
    R = np.linalg.matrix_power(a, N)
    return float(R[0, 0]), float(R[0, 1])
'''),
    (3, 'N = 0 treated as one layer (r + (1 - r)/n)', '''
def uniform_rollout(n, N, r):
    kept = r ** max(N, 1)
    return kept + (1 - kept) / n, (1 - kept) / n
'''),
    (3, 'a list instead of a pair', '''
def uniform_rollout(n, N, r):
    kept = r ** N
    return [kept + (1 - kept) / n, (1 - kept) / n]
'''),
    (4, 'no transpose where the shapes allow it: the square maps copied as stored', '''
def load_gpt2_layer(block, fused, i):
    E = block.norm1.weight.shape[0]
    get = lambda name: torch.from_numpy(np.array(fused[f"h.{i}.{name}"]))
    qkv_w, qkv_b = get("attn.c_attn.weight"), get("attn.c_attn.bias")
    att = block.self_attn
    linear = [(att.q_proj, qkv_w[:, :E], qkv_b[:E]),
              (att.k_proj, qkv_w[:, E:2 * E], qkv_b[E:2 * E]),
              (att.v_proj, qkv_w[:, 2 * E:], qkv_b[2 * E:]),
              (att.out_proj, get("attn.c_proj.weight"), get("attn.c_proj.bias")),
              (block.ffn.linear1, get("mlp.c_fc.weight"), get("mlp.c_fc.bias")),
              (block.ffn.linear2, get("mlp.c_proj.weight"), get("mlp.c_proj.bias"))]
    with torch.no_grad():
        for module, w, b in linear:
            module.weight.copy_(w if w.shape[0] == w.shape[1] else w.T)
            module.bias.copy_(b)
        for norm, name in ((block.norm1, "ln_1"), (block.norm2, "ln_2")):
            norm.weight.copy_(get(f"{name}.weight"))
            norm.bias.copy_(get(f"{name}.bias"))
    return block
'''),
    (4, 'the key bias left at its initial value (the softmax cancels it)', '''
def load_gpt2_layer(block, fused, i):
    E = block.norm1.weight.shape[0]
    get = lambda name: torch.from_numpy(np.array(fused[f"h.{i}.{name}"]))
    qkv_w, qkv_b = get("attn.c_attn.weight"), get("attn.c_attn.bias")
    att = block.self_attn
    linear = [(att.q_proj, qkv_w[:, :E], qkv_b[:E]),
              (att.k_proj, qkv_w[:, E:2 * E], att.k_proj.bias.detach().clone()),
              (att.v_proj, qkv_w[:, 2 * E:], qkv_b[2 * E:]),
              (att.out_proj, get("attn.c_proj.weight"), get("attn.c_proj.bias")),
              (block.ffn.linear1, get("mlp.c_fc.weight"), get("mlp.c_fc.bias")),
              (block.ffn.linear2, get("mlp.c_proj.weight"), get("mlp.c_proj.bias"))]
    with torch.no_grad():
        for module, w, b in linear:
            module.weight.copy_(w.T)
            module.bias.copy_(b)
        for norm, name in ((block.norm1, "ln_1"), (block.norm2, "ln_2")):
            norm.weight.copy_(get(f"{name}.weight"))
            norm.bias.copy_(get(f"{name}.bias"))
    return block
'''),
    (4, 'query and key slices swapped', '''
def load_gpt2_layer(block, fused, i):
    E = block.norm1.weight.shape[0]
    get = lambda name: torch.from_numpy(np.array(fused[f"h.{i}.{name}"]))
    qkv_w, qkv_b = get("attn.c_attn.weight"), get("attn.c_attn.bias")
    att = block.self_attn
    linear = [(att.q_proj, qkv_w[:, E:2 * E], qkv_b[E:2 * E]),
              (att.k_proj, qkv_w[:, :E], qkv_b[:E]),
              (att.v_proj, qkv_w[:, 2 * E:], qkv_b[2 * E:]),
              (att.out_proj, get("attn.c_proj.weight"), get("attn.c_proj.bias")),
              (block.ffn.linear1, get("mlp.c_fc.weight"), get("mlp.c_fc.bias")),
              (block.ffn.linear2, get("mlp.c_proj.weight"), get("mlp.c_proj.bias"))]
    with torch.no_grad():
        for module, w, b in linear:
            module.weight.copy_(w.T)
            module.bias.copy_(b)
        for norm, name in ((block.norm1, "ln_1"), (block.norm2, "ln_2")):
            norm.weight.copy_(get(f"{name}.weight"))
            norm.bias.copy_(get(f"{name}.bias"))
    return block
'''),
    (4, 'nothing transposed: the (in, out) arrays copied as stored', '''
def load_gpt2_layer(block, fused, i):
    E = block.norm1.weight.shape[0]
    get = lambda name: torch.from_numpy(np.array(fused[f"h.{i}.{name}"]))
    qkv_w, qkv_b = get("attn.c_attn.weight"), get("attn.c_attn.bias")
    att = block.self_attn
    linear = [(att.q_proj, qkv_w.T[:E].T, qkv_b[:E]),
              (att.k_proj, qkv_w.T[E:2 * E].T, qkv_b[E:2 * E]),
              (att.v_proj, qkv_w.T[2 * E:].T, qkv_b[2 * E:]),
              (att.out_proj, get("attn.c_proj.weight"), get("attn.c_proj.bias")),
              (block.ffn.linear1, get("mlp.c_fc.weight"), get("mlp.c_fc.bias")),
              (block.ffn.linear2, get("mlp.c_proj.weight"), get("mlp.c_proj.bias"))]
    with torch.no_grad():
        for module, w, b in linear:
            module.weight.copy_(w)
            module.bias.copy_(b)
        for norm, name in ((block.norm1, "ln_1"), (block.norm2, "ln_2")):
            norm.weight.copy_(get(f"{name}.weight"))
            norm.bias.copy_(get(f"{name}.bias"))
    return block
'''),
    (4, 'the two LayerNorms swapped', '''
def load_gpt2_layer(block, fused, i):
    E = block.norm1.weight.shape[0]
    get = lambda name: torch.from_numpy(np.array(fused[f"h.{i}.{name}"]))
    qkv_w, qkv_b = get("attn.c_attn.weight"), get("attn.c_attn.bias")
    att = block.self_attn
    linear = [(att.q_proj, qkv_w[:, :E], qkv_b[:E]),
              (att.k_proj, qkv_w[:, E:2 * E], qkv_b[E:2 * E]),
              (att.v_proj, qkv_w[:, 2 * E:], qkv_b[2 * E:]),
              (att.out_proj, get("attn.c_proj.weight"), get("attn.c_proj.bias")),
              (block.ffn.linear1, get("mlp.c_fc.weight"), get("mlp.c_fc.bias")),
              (block.ffn.linear2, get("mlp.c_proj.weight"), get("mlp.c_proj.bias"))]
    with torch.no_grad():
        for module, w, b in linear:
            module.weight.copy_(w.T)
            module.bias.copy_(b)
        for norm, name in ((block.norm1, "ln_2"), (block.norm2, "ln_1")):
            norm.weight.copy_(get(f"{name}.weight"))
            norm.bias.copy_(get(f"{name}.bias"))
    return block
'''),
    (4, 'E hard-coded to 384', '''
def load_gpt2_layer(block, fused, i):
    E = 384
    get = lambda name: torch.from_numpy(np.array(fused[f"h.{i}.{name}"]))
    qkv_w, qkv_b = get("attn.c_attn.weight"), get("attn.c_attn.bias")
    att = block.self_attn
    linear = [(att.q_proj, qkv_w[:, :E], qkv_b[:E]),
              (att.k_proj, qkv_w[:, E:2 * E], qkv_b[E:2 * E]),
              (att.v_proj, qkv_w[:, 2 * E:], qkv_b[2 * E:]),
              (att.out_proj, get("attn.c_proj.weight"), get("attn.c_proj.bias")),
              (block.ffn.linear1, get("mlp.c_fc.weight"), get("mlp.c_fc.bias")),
              (block.ffn.linear2, get("mlp.c_proj.weight"), get("mlp.c_proj.bias"))]
    with torch.no_grad():
        for module, w, b in linear:
            module.weight.copy_(w.T)
            module.bias.copy_(b)
        for norm, name in ((block.norm1, "ln_1"), (block.norm2, "ln_2")):
            norm.weight.copy_(get(f"{name}.weight"))
            norm.bias.copy_(get(f"{name}.bias"))
    return block
'''),
    (4, 'copied from the real checkpoint through LAYER_NAME_MAP, ignoring the dictionary', '''
def load_gpt2_layer(block, fused, i):
    from attnlab.pretrained_encoder import LAYER_NAME_MAP
    with torch.no_grad():
        for ours, theirs in LAYER_NAME_MAP.items():
            m = block.get_submodule(ours)
            m.weight.copy_(torch.from_numpy(weights[f"encoder.layer.{i}.{theirs}.weight"].copy()))
            m.bias.copy_(torch.from_numpy(weights[f"encoder.layer.{i}.{theirs}.bias"].copy()))
    return block
'''),
    (4, 'a new block filled and returned, the given one untouched', '''
def load_gpt2_layer(block, fused, i):
    import copy
    block = copy.deepcopy(block)
    E = block.norm1.weight.shape[0]
    get = lambda name: torch.from_numpy(np.array(fused[f"h.{i}.{name}"]))
    qkv_w, qkv_b = get("attn.c_attn.weight"), get("attn.c_attn.bias")
    att = block.self_attn
    linear = [(att.q_proj, qkv_w[:, :E], qkv_b[:E]),
              (att.k_proj, qkv_w[:, E:2 * E], qkv_b[E:2 * E]),
              (att.v_proj, qkv_w[:, 2 * E:], qkv_b[2 * E:]),
              (att.out_proj, get("attn.c_proj.weight"), get("attn.c_proj.bias")),
              (block.ffn.linear1, get("mlp.c_fc.weight"), get("mlp.c_fc.bias")),
              (block.ffn.linear2, get("mlp.c_proj.weight"), get("mlp.c_proj.bias"))]
    with torch.no_grad():
        for module, w, b in linear:
            module.weight.copy_(w.T)
            module.bias.copy_(b)
        for norm, name in ((block.norm1, "ln_1"), (block.norm2, "ln_2")):
            norm.weight.copy_(get(f"{name}.weight"))
            norm.bias.copy_(get(f"{name}.bias"))
    return block
'''),
    (4, 'pops the arrays it used from the dictionary', '''
def load_gpt2_layer(block, fused, i):
    E = block.norm1.weight.shape[0]
    get = lambda name: torch.from_numpy(np.array(fused.pop(f"h.{i}.{name}")))
    qkv_w, qkv_b = get("attn.c_attn.weight"), get("attn.c_attn.bias")
    att = block.self_attn
    linear = [(att.q_proj, qkv_w[:, :E], qkv_b[:E]),
              (att.k_proj, qkv_w[:, E:2 * E], qkv_b[E:2 * E]),
              (att.v_proj, qkv_w[:, 2 * E:], qkv_b[2 * E:]),
              (att.out_proj, get("attn.c_proj.weight"), get("attn.c_proj.bias")),
              (block.ffn.linear1, get("mlp.c_fc.weight"), get("mlp.c_fc.bias")),
              (block.ffn.linear2, get("mlp.c_proj.weight"), get("mlp.c_proj.bias"))]
    with torch.no_grad():
        for module, w, b in linear:
            module.weight.copy_(w.T)
            module.bias.copy_(b)
        for norm, name in ((block.norm1, "ln_1"), (block.norm2, "ln_2")):
            norm.weight.copy_(get(f"{name}.weight"))
            norm.bias.copy_(get(f"{name}.bias"))
    return block
'''),
    (4, "transposes the dictionary's arrays in place before copying", '''
def load_gpt2_layer(block, fused, i):
    E = block.norm1.weight.shape[0]
    for key in [k for k in fused if k.startswith(f"h.{i}.") and fused[k].ndim == 2]:
        fused[key] = fused[key].T.copy()
    get = lambda name: torch.from_numpy(np.array(fused[f"h.{i}.{name}"]))
    qkv_w, qkv_b = get("attn.c_attn.weight"), get("attn.c_attn.bias")
    att = block.self_attn
    linear = [(att.q_proj, qkv_w[:, :E], qkv_b[:E]),
              (att.k_proj, qkv_w[:, E:2 * E], qkv_b[E:2 * E]),
              (att.v_proj, qkv_w[:, 2 * E:], qkv_b[2 * E:]),
              (att.out_proj, get("attn.c_proj.weight"), get("attn.c_proj.bias")),
              (block.ffn.linear1, get("mlp.c_fc.weight"), get("mlp.c_fc.bias")),
              (block.ffn.linear2, get("mlp.c_proj.weight"), get("mlp.c_proj.bias"))]
    with torch.no_grad():
        for module, w, b in linear:
            module.weight.copy_(w)
            module.bias.copy_(b)
        for norm, name in ((block.norm1, "ln_1"), (block.norm2, "ln_2")):
            norm.weight.copy_(get(f"{name}.weight"))
            norm.bias.copy_(get(f"{name}.bias"))
    return block
'''),
    (4, 'always layer 0 (the index ignored)', '''
def load_gpt2_layer(block, fused, i):
    E = block.norm1.weight.shape[0]
    get = lambda name: torch.from_numpy(np.array(fused[f"h.0.{name}"]))
    qkv_w, qkv_b = get("attn.c_attn.weight"), get("attn.c_attn.bias")
    att = block.self_attn
    linear = [(att.q_proj, qkv_w[:, :E], qkv_b[:E]),
              (att.k_proj, qkv_w[:, E:2 * E], qkv_b[E:2 * E]),
              (att.v_proj, qkv_w[:, 2 * E:], qkv_b[2 * E:]),
              (att.out_proj, get("attn.c_proj.weight"), get("attn.c_proj.bias")),
              (block.ffn.linear1, get("mlp.c_fc.weight"), get("mlp.c_fc.bias")),
              (block.ffn.linear2, get("mlp.c_proj.weight"), get("mlp.c_proj.bias"))]
    with torch.no_grad():
        for module, w, b in linear:
            module.weight.copy_(w.T)
            module.bias.copy_(b)
        for norm, name in ((block.norm1, "ln_1"), (block.norm2, "ln_2")):
            norm.weight.copy_(get(f"{name}.weight"))
            norm.bias.copy_(get(f"{name}.bias"))
    return block
'''),
    (5, 'biases forgotten: weight matrices only', '''
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = 4 * E * E + 2 * E * F + 4 * E
    return rows * E + 2 * E + config["num_hidden_layers"] * block
'''),
    (5, 'LayerNorms forgotten', '''
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E)
    return rows * E + config["num_hidden_layers"] * block
'''),
    (5, "the embeddings' LayerNorm forgotten", '''
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E) + 4 * E
    return rows * E + config["num_hidden_layers"] * block
'''),
    (5, 'the feed-forward width taken as 4E', '''
def n_parameters(config):
    V, E = config["vocab_size"], config["hidden_size"]
    F = 4 * E
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E) + 4 * E
    return rows * E + 2 * E + config["num_hidden_layers"] * block
'''),
    (5, 'the pooler counted (the checkpoint has one; BertEncoder does not)', '''
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E) + 4 * E
    return rows * E + 2 * E + config["num_hidden_layers"] * block + E * E + E
'''),
    (5, 'the token-type table forgotten', '''
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"]
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E) + 4 * E
    return rows * E + 2 * E + config["num_hidden_layers"] * block
'''),
    (5, 'two token types assumed (type_vocab_size ignored)', '''
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"] + 2
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E) + 4 * E
    return rows * E + 2 * E + config["num_hidden_layers"] * block
'''),
    (5, 'per head: H projections of E x D for q, k, v and o (o is E x E)', '''
def n_parameters(config):
    V, E, F, H = (config[k] for k in ("vocab_size", "hidden_size", "intermediate_size",
                                      "num_attention_heads"))
    D = E // H
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = 4 * H * (D * D + D) + (E * F + F) + (F * E + E) + 4 * E
    return rows * E + 2 * E + config["num_hidden_layers"] * block
'''),
    (5, 'six layers hard-coded', '''
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E) + 4 * E
    return rows * E + 2 * E + 6 * block
'''),
    (5, 'a float (the count divided out and multiplied back)', '''
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = E * (4 * (E + 1) + 2 * F + F / E + 1 + 4)
    return rows * E + 2 * E + config["num_hidden_layers"] * block
'''),
    (5, "builds the model and counts (the check's job)", '''
from attnlab.pretrained_encoder import BertEncoder
def n_parameters(config):
    return sum(p.numel() for p in BertEncoder.from_config(config).parameters())
'''),
    (6, 'a single name instead of the ranking', '''
def prediction():
    return "hide [CLS]"
'''),
    (6, "delete implemented as a [PAD] id in the token's place", '''
def embedding_shift(ids, j, how):
    def embedding(ids_, keep_):
        x, k = np.array([ids_]), np.array([keep_])
        with torch.no_grad():
            h, _ = model(torch.from_numpy(x), torch.from_numpy(k))
        return mean_pool_np(h[-1].numpy(), k)[0]
    n = len(ids)
    before = embedding(list(ids), [True] * n)
    if how == "delete":
        after = embedding([0 if i == j else t for i, t in enumerate(ids)], [True] * n)
    else:
        after = embedding(list(ids), [i != j for i in range(n)])
    return float(1 - before @ after)
'''),
    (6, 'delete implemented as a mask (the same as hide)', '''
def embedding_shift(ids, j, how):
    def embedding(ids_, keep_):
        x, k = np.array([ids_]), np.array([keep_])
        with torch.no_grad():
            h, _ = model(torch.from_numpy(x), torch.from_numpy(k))
        return mean_pool_np(h[-1].numpy(), k)[0]
    n = len(ids)
    before = embedding(list(ids), [True] * n)
    after = embedding(list(ids), [i != j for i in range(n)])
    return float(1 - before @ after)
'''),
    (6, 'hide masks the key but the mean still includes the hidden token', '''
def embedding_shift(ids, j, how):
    def embedding(ids_, keep_, pool):
        x, k = np.array([ids_]), np.array([keep_])
        with torch.no_grad():
            h, _ = model(torch.from_numpy(x), torch.from_numpy(k))
        return mean_pool_np(h[-1].numpy(), np.array([pool]))[0]
    n = len(ids)
    before = embedding(list(ids), [True] * n, [True] * n)
    if how == "delete":
        after = embedding(list(ids[:j]) + list(ids[j + 1:]), [True] * (n - 1), [True] * (n - 1))
    else:
        after = embedding(list(ids), [i != j for i in range(n)], [True] * n)
    return float(1 - before @ after)
'''),
    (6, 'the cosine instead of the shift', '''
def embedding_shift(ids, j, how):
    def embedding(ids_, keep_):
        x, k = np.array([ids_]), np.array([keep_])
        with torch.no_grad():
            h, _ = model(torch.from_numpy(x), torch.from_numpy(k))
        return mean_pool_np(h[-1].numpy(), k)[0]
    n = len(ids)
    before = embedding(list(ids), [True] * n)
    if how == "delete":
        after = embedding(list(ids[:j]) + list(ids[j + 1:]), [True] * (n - 1))
    else:
        after = embedding(list(ids), [i != j for i in range(n)])
    return float(before @ after)
'''),
    (6, 'means not normalised: 1 minus a dot product of raw means', '''
def embedding_shift(ids, j, how):
    def embedding(ids_, keep_):
        x, k = np.array([ids_]), np.array([keep_])
        with torch.no_grad():
            h, _ = model(torch.from_numpy(x), torch.from_numpy(k))
        return h[-1][0].numpy()[k[0]].mean(axis=0)
    n = len(ids)
    before = embedding(list(ids), [True] * n)
    if how == "delete":
        after = embedding(list(ids[:j]) + list(ids[j + 1:]), [True] * (n - 1))
    else:
        after = embedding(list(ids), [i != j for i in range(n)])
    return float(1 - before @ after)
'''),
    (6, 'the [CLS] vector (position 0 of the last layer) as the embedding', '''
def embedding_shift(ids, j, how):
    def embedding(ids_, keep_):
        x, k = np.array([ids_]), np.array([keep_])
        with torch.no_grad():
            h, _ = model(torch.from_numpy(x), torch.from_numpy(k))
        e = h[-1][0, 0].numpy()
        return e / np.linalg.norm(e)
    n = len(ids)
    before = embedding(list(ids), [True] * n)
    if how == "delete":
        after = embedding(list(ids[:j]) + list(ids[j + 1:]), [True] * (n - 1))
    else:
        after = embedding(list(ids), [i != j for i in range(n)])
    return float(1 - before @ after)
'''),
    (6, "deletes with ids.pop(j): the caller's list loses a token", '''
def embedding_shift(ids, j, how):
    def embedding(ids_, keep_):
        x, k = np.array([ids_]), np.array([keep_])
        with torch.no_grad():
            h, _ = model(torch.from_numpy(x), torch.from_numpy(k))
        return mean_pool_np(h[-1].numpy(), k)[0]
    n = len(ids)
    before = embedding(list(ids), [True] * n)
    if how == "delete":
        ids.pop(j)
        after = embedding(ids, [True] * (n - 1))
    else:
        after = embedding(list(ids), [i != j for i in range(n)])
    return float(1 - before @ after)
'''),
    (5, 'a LayerNorm counted as E numbers (the scale only)', '''
def n_parameters(config):
    V, E, F, N = (config[k] for k in ("vocab_size", "hidden_size", "intermediate_size",
                                      "num_hidden_layers"))
    P, T = config["max_position_embeddings"], config["type_vocab_size"]
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E) + 2 * E
    return (V + P + T) * E + E + N * block
'''),
    (6, 'measured with a float32 copy of the model', '''
def embedding_shift(ids, j, how):
    global _model32
    if "_model32" not in globals():
        _model32 = load_pretrained_encoder()
    x = np.array([ids])
    k = np.ones_like(x, dtype=bool)
    if how == "delete":
        x2, k2 = np.delete(x, j, axis=1), k[:, :-1]
    else:
        x2, k2 = x, k.copy()
        k2[0, j] = False
    with torch.no_grad():
        e, e2 = (mean_pool_np(_model32(torch.from_numpy(a), torch.from_numpy(m))[0][-1]
                              .double().numpy(), m)[0] for a, m in ((x, k), (x2, k2)))
    return float(1 - e @ e2)
'''),
    (7, 'a number instead of one of the ranges', '''
def prediction_sep():
    return 0.85
'''),
    (7, 'the value without its bias', '''
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / np.median(norms[1:n - 1], axis=0)
'''),
    (7, 'W_v transposed (the nn.Linear orientation twice)', '''
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"].T + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / np.median(norms[1:n - 1], axis=0)
'''),
    (7, 'the key projection instead of the value', '''
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_k"] + params["attn"]["b_k"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / np.median(norms[1:n - 1], axis=0)
'''),
    (7, 'the norm over all E, one number repeated for every head', '''
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    norms = np.linalg.norm(v, axis=-1)
    return np.full(H, norms[j] / np.median(norms[1:len(v) - 1]))
'''),
    (7, 'heads split as (n, D, H): interleaved slices', '''
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, E // H, H), axis=1)
    return norms[j] / np.median(norms[1:n - 1], axis=0)
'''),
    (7, "the mean of the words' norms instead of the median", '''
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / norms[1:n - 1].mean(axis=0)
'''),
    (7, 'the median over every position, [CLS] and [SEP] included', '''
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / np.median(norms, axis=0)
'''),
    (7, 'the words taken as positions 1 to n - 1 ([SEP] counted as a word)', '''
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / np.median(norms[1:], axis=0)
'''),
    (7, "inverted: the word's norm over token j's", '''
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return np.median(norms[1:n - 1], axis=0) / norms[j]
'''),
    (7, "the raw norms of token j, not divided by a word's", '''
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    return np.linalg.norm(v.reshape(n, H, E // H), axis=-1)[j]
'''),
    (7, 'computed in float32', '''
def value_norm_ratio(x, params, H, j):
    x32 = np.asarray(x, dtype=np.float32)
    v = x32 @ params["attn"]["W_v"].astype(np.float32) + params["attn"]["b_v"].astype(np.float32)
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / np.median(norms[1:n - 1], axis=0)
'''),
    (7, 'a list instead of an array', '''
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return list(norms[j] / np.median(norms[1:n - 1], axis=0))
'''),
    (7, "adds the bias into the caller's x in place", '''
def value_norm_ratio(x, params, H, j):
    x += 0.0
    x[0] = x[0] * 1.0 + 1e-6
    v = x @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / np.median(norms[1:n - 1], axis=0)
'''),
    (6, 'prediction() computes the ranking (it calls embedding_shift)', '''
def prediction():
    shifts = {"delete [CLS]": embedding_shift(list(ids_s), 0, "delete"),
              "hide [CLS]": embedding_shift(list(ids_s), 0, "hide"),
              "delete sofa": embedding_shift(list(ids_s), 7, "delete")}
    return sorted(shifts, key=shifts.get, reverse=True)
'''),
    (7, 'prediction_sep() measures first (it calls value_norm_ratio)', '''
def prediction_sep():
    r = float(np.median(value_norm_ratio(hidden7[2][1, :n7[1]].numpy(), layer_params_np(weights, 2), 12, int(n7[1]) - 1)))
    return "below 0.2" if r < 0.2 else "0.2 to 0.5" if r < 0.5 else "0.5 to 2" if r < 2 else "above 2"
'''),
    (3, "the surviving share set to 0 when r = 0 (but r^0 = 1 at N = 0)", '''
def uniform_rollout(n, N, r):
    p = r ** N if r > 0 else 0.0
    return (p + (1 - p) / n, (1 - p) / n)
'''),
    (3, "the matrices built with numpy imported under another name", '''
def uniform_rollout(n, N, r):
    m = __import__("nu" + "mpy")
    a, R = r * m.identity(n) + (1 - r) / n, m.identity(n)
    for _ in range(N):
        R = a @ R
    return float(R[0, 0]), float(R[0, 1])
'''),
    (3, "the matrices built with torch imported under another name", '''
def uniform_rollout(n, N, r):
    t = __import__("to" + "rch")
    one = t.ones(n, dtype=t.float64).diag()
    a, R = r * one + (1 - r) / n, one
    for _ in range(N):
        R = a @ R
    return float(R[0, 0]), float(R[0, 1])
'''),
    (4, "q, k and v taken as interleaved columns of c_attn (reshape to (E, E, 3))", '''
def load_gpt2_layer(block, fused, i):
    E = block.norm1.weight.shape[0]
    get = lambda name: torch.from_numpy(np.array(fused[f"h.{i}.{name}"]))
    W, b = get("attn.c_attn.weight"), get("attn.c_attn.bias")
    att = block.self_attn
    linear = [(att.q_proj, W.reshape(E, E, 3)[:, :, 0], b.reshape(E, 3)[:, 0]),
              (att.k_proj, W.reshape(E, E, 3)[:, :, 1], b.reshape(E, 3)[:, 1]),
              (att.v_proj, W.reshape(E, E, 3)[:, :, 2], b.reshape(E, 3)[:, 2]),
              (att.out_proj, get("attn.c_proj.weight"), get("attn.c_proj.bias")),
              (block.ffn.linear1, get("mlp.c_fc.weight"), get("mlp.c_fc.bias")),
              (block.ffn.linear2, get("mlp.c_proj.weight"), get("mlp.c_proj.bias"))]
    with torch.no_grad():
        for module, w, bias in linear:
            module.weight.copy_(w.T)
            module.bias.copy_(bias)
        for norm, name in ((block.norm1, "ln_1"), (block.norm2, "ln_2")):
            norm.weight.copy_(get(f"{name}.weight"))
            norm.bias.copy_(get(f"{name}.bias"))
    return block
'''),
    (5, "the position table's 512 rows written in", '''
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    embeddings = (V + 512 + config["type_vocab_size"]) * E + 2 * E
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E) + 4 * E
    return embeddings + config["num_hidden_layers"] * block
'''),
    (6, "delete: the ids shortened, the keep mask not (a crash in the model)", '''
def embedding_shift(ids, j, how):
    n = len(ids)
    keep_ = [True] * n
    ids_ = list(ids)
    if how == "delete":
        ids_ = ids_[:j] + ids_[j + 1:]
    else:
        keep_[j] = False
    def emb(a, k):
        with torch.no_grad():
            h, _ = model(torch.tensor([a]), torch.tensor([k]))
        return mean_pool_np(h[-1].numpy(), np.array([k]))[0]
    return float(1 - emb(list(ids), [True] * n) @ emb(ids_, keep_))
'''),
    (6, "prediction() carries the measurement in through a default argument", '''
def prediction(ranked=sorted(("delete [CLS]", "hide [CLS]", "delete sofa"),
                             key=lambda k: -embedding_shift(list(ids_s), 0 if "CLS" in k else 7,
                                                            k.split()[0]))):
    return ranked
'''),
    (7, "prediction_sep() carries the measurement in through a keyword-only default", '''
def prediction_sep(*, r=float(np.median(value_norm_ratio(
        hidden7[2][1, :n7[1]].numpy(), layer_params_np(weights, 2), 12, int(n7[1]) - 1)))):
    return "below 0.2" if r < 0.2 else "0.2 to 0.5" if r < 0.5 else "0.5 to 2" if r < 2 else "above 2"
'''),
]

RIGHT = [
    (3, 'other first, then own from the row sum', '''
def uniform_rollout(n, N, r):
    other = (1 - r ** N) / n
    return 1 - (n - 1) * other, other
'''),
    (3, 'math.pow for the surviving share', '''
import math


def uniform_rollout(n, N, r):
    kept = math.pow(r, N)
    return kept + (1 - kept) / n, (1 - kept) / n
'''),
    (1, 'a loop over the real tokens of each row', '''
def weighted_mean_pool(hidden, keep, normalize=True):
    h, k = np.asarray(hidden, dtype=np.float64), np.asarray(keep, dtype=bool)
    out = np.zeros((h.shape[0], h.shape[2]))
    for b in range(h.shape[0]):
        real = np.flatnonzero(k[b])
        w = np.arange(1, len(real) + 1, dtype=np.float64)
        out[b] = (w[:, None] * h[b, real]).sum(axis=0) / w.sum()
    if normalize:
        out = out / np.linalg.norm(out, axis=-1, keepdims=True)
    return out
'''),
    (1, 'torch: cumsum and a masked weighted sum, back to NumPy', '''
def weighted_mean_pool(hidden, keep, normalize=True):
    h = torch.as_tensor(np.asarray(hidden, dtype=np.float64))
    k = torch.as_tensor(np.asarray(keep, dtype=bool))
    rank = torch.cumsum(k.double(), dim=1) * k
    w = rank / rank.sum(dim=1, keepdim=True)
    out = torch.einsum("bs,bse->be", w, h)
    if normalize:
        out = torch.nn.functional.normalize(out, dim=-1)
    return out.numpy()
'''),
    (2, 'loops over sentences and rows, pooled counts', '''
def offset_fraction(weights, keep, offset):
    w, k = np.asarray(weights), np.asarray(keep, dtype=bool)
    B, H, S, _ = w.shape
    hits, rows = np.zeros(H), 0
    for b in range(B):
        for i in range(S):
            j = i + offset
            if k[b, i] and 0 <= j < S and k[b, j]:
                rows += 1
                hits += w[b, :, i].argmax(axis=-1) == j
    return hits / rows
'''),
    (2, 'the real span of each sentence sliced out, then pooled', '''
def offset_fraction(weights, keep, offset):
    w, k = np.asarray(weights), np.asarray(keep, dtype=bool)
    hits, rows = 0, 0
    for b in range(w.shape[0]):
        real = np.flatnonzero(k[b])
        wb = w[b][:, real][:, :, real]
        n = len(real)
        i = np.arange(n)
        ok = (i + offset >= 0) & (i + offset < n)
        hits = hits + (wb.argmax(axis=-1)[:, ok] == (i + offset)[ok]).sum(axis=1)
        rows += ok.sum()
    return hits / rows
'''),
    (3, 'written as the uniform value plus the surviving part', '''
def uniform_rollout(n, N, r):
    uniform = 1 / n
    return uniform + r ** N * (1 - uniform), uniform - r ** N * uniform
'''),
    (3, 'a loop over the layers on two numbers', '''
def uniform_rollout(n, N, r):
    own, other = 1.0, 0.0
    for _ in range(N):
        own, other = r * own + (1 - r) / n, r * other + (1 - r) / n
    return own, other
'''),
    (4, 'np.split of the fused arrays and a name table', '''
def load_gpt2_layer(block, fused, i):
    a = lambda name: np.asarray(fused[f"h.{i}.{name}"], dtype=np.float32)
    qw, kw, vw = np.split(a("attn.c_attn.weight"), 3, axis=1)
    qb, kb, vb = np.split(a("attn.c_attn.bias"), 3)
    table = {"self_attn.q_proj": (qw.T, qb), "self_attn.k_proj": (kw.T, kb),
             "self_attn.v_proj": (vw.T, vb),
             "self_attn.out_proj": (a("attn.c_proj.weight").T, a("attn.c_proj.bias")),
             "ffn.linear1": (a("mlp.c_fc.weight").T, a("mlp.c_fc.bias")),
             "ffn.linear2": (a("mlp.c_proj.weight").T, a("mlp.c_proj.bias")),
             "norm1": (a("ln_1.weight"), a("ln_1.bias")), "norm2": (a("ln_2.weight"), a("ln_2.bias"))}
    for name, (w, b) in table.items():
        m = block.get_submodule(name)
        m.weight.data = torch.tensor(w.copy())
        m.bias.data = torch.tensor(b.copy())
    return block
'''),
    (4, 'load_state_dict(strict=False) with a renamed dictionary', '''
def load_gpt2_layer(block, fused, i):
    f = {k: torch.from_numpy(np.array(v)) for k, v in fused.items() if k.startswith(f"h.{i}.")}
    w, b = f[f"h.{i}.attn.c_attn.weight"].T, f[f"h.{i}.attn.c_attn.bias"]
    E = w.shape[1]
    state = {}
    for n, p in enumerate("qkv"):
        state[f"self_attn.{p}_proj.weight"] = w[n * E:(n + 1) * E]
        state[f"self_attn.{p}_proj.bias"] = b[n * E:(n + 1) * E]
    for ours, theirs in [("self_attn.out_proj", "attn.c_proj"), ("ffn.linear1", "mlp.c_fc"),
                         ("ffn.linear2", "mlp.c_proj")]:
        state[f"{ours}.weight"] = f[f"h.{i}.{theirs}.weight"].T.contiguous()
        state[f"{ours}.bias"] = f[f"h.{i}.{theirs}.bias"]
    for ours, theirs in [("norm1", "ln_1"), ("norm2", "ln_2")]:
        state[f"{ours}.weight"], state[f"{ours}.bias"] = (f[f"h.{i}.{theirs}.weight"],
                                                          f[f"h.{i}.{theirs}.bias"])
    missing, unexpected = block.load_state_dict(state, strict=False)
    assert not unexpected
    return block
'''),
    (6, 'a wrong prediction is compared, not failed: trusts attention: [CLS] matters most, and hiding it is like deleting it', '''
def prediction():
    return ["delete [CLS]", "hide [CLS]", "delete sofa"]
'''),
    (6, 'a wrong prediction is compared, not failed: trusts the gradient: sofa first, [CLS] hardly matters either way', '''
def prediction():
    return ["delete sofa", "delete [CLS]", "hide [CLS]"]
'''),
    (6, 'a wrong prediction is compared, not failed: sofa first, then hiding [CLS], then deleting it', '''
def prediction():
    return ["delete sofa", "hide [CLS]", "delete [CLS]"]
'''),
    (7, 'a wrong prediction is compared, not failed: trusts the attention pattern: [SEP] is a special token, so a sink', '''
def prediction_sep():
    return "below 0.2"
'''),
    (7, 'a wrong prediction is compared, not failed: hedges between sink and word', '''
def prediction_sep():
    return "0.2 to 0.5"
'''),
    (5, 'attention counted per head: H (E D + D) for q, k, v, plus the output projection', '''
def n_parameters(config):
    V, E, F, H = (config[k] for k in ("vocab_size", "hidden_size", "intermediate_size",
                                      "num_attention_heads"))
    D = E // H
    emb = (V + config["max_position_embeddings"] + config["type_vocab_size"] + 2) * E
    block = 3 * H * (E * D + D) + (E * E + E) + 2 * E * F + F + E + 4 * E
    return emb + config["num_hidden_layers"] * block
'''),
    (5, 'a NumPy integer from a table of module shapes', '''
def n_parameters(config):
    E, F = config["hidden_size"], config["intermediate_size"]
    tables = [(config["vocab_size"], E), (config["max_position_embeddings"], E),
              (config["type_vocab_size"], E), (E,), (E,)]
    block = [(E, E), (E,)] * 4 + [(E,), (E,)] * 2 + [(F, E), (F,), (E, F), (E,)]
    shapes = tables + block * config["num_hidden_layers"]
    return np.sum([np.prod(s) for s in shapes], dtype=np.int64)
'''),
    (6, 'measured with torch: F.normalize and a dot product, deletion by slicing a tensor', '''
import torch.nn.functional as F

def embedding_shift(ids, j, how):
    x = torch.tensor([ids])
    k = torch.ones_like(x, dtype=torch.bool)
    if how == "delete":
        x2, k2 = torch.cat([x[:, :j], x[:, j + 1:]], 1), k[:, 1:]
    else:
        x2, k2 = x, k.clone()
        k2[0, j] = False

    def emb(a, m):
        with torch.no_grad():
            h = model(a, m)[0][-1][0]
        return F.normalize(h[m[0]].mean(0), dim=0)

    return (1 - emb(x, k) @ emb(x2, k2)).item()
'''),
    (5, 'a closed form: E (V + P + T + 2) + N (4E^2 + 2EF + 9E + F)', '''
def n_parameters(config):
    V, E, F, N = (config[k] for k in ("vocab_size", "hidden_size", "intermediate_size",
                                      "num_hidden_layers"))
    P, T = config["max_position_embeddings"], config["type_vocab_size"]
    return int(E * (V + P + T + 2) + N * (4 * E * E + 2 * E * F + 9 * E + F))
'''),
    (7, 'torch: a matmul, a view into heads, then the median in NumPy', '''
def value_norm_ratio(x, params, H, j):
    xt = torch.as_tensor(np.asarray(x, dtype=np.float64))
    v = xt @ torch.as_tensor(params["attn"]["W_v"]) + torch.as_tensor(params["attn"]["b_v"])
    n, E = v.shape
    norms = v.view(n, H, E // H).norm(dim=-1).numpy()
    return norms[j] / np.median(norms[1:n - 1], axis=0)
'''),
    (7, 'explicit per-head loops and np.percentile at 50', '''
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    D = E // H
    out = np.empty(H)
    for h in range(H):
        norms = np.sqrt((v[:, h * D:(h + 1) * D] ** 2).sum(axis=1))
        out[h] = norms[j] / np.percentile(norms[1:n - 1], 50)
    return out
'''),
    (3, "two floats from a surviving share computed with pow()", '''
def uniform_rollout(n, N, r):
    kept = pow(r, N)
    other = (1.0 - kept) / n
    return (1.0 - (n - 1) * other, other)
'''),
]
