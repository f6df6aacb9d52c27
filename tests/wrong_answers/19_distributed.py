"""Wrong and right answers for chapter 19's exercises (assembled from its pieces)."""

# ---- tp
"""Wrong answers a learner would plausibly write for chapter 19's exercise 1 (the K/V heads a
tensor-parallel rank holds, for any H, Hkv, P), and other right answers."""

_WRONG_tp = [
    (1, "h % Hkv: K/V heads assigned round-robin instead of by group", '''
def kv_heads_held(r, P, H, Hkv):
    return sorted({h % Hkv for h in range(r * H // P, (r + 1) * H // P)})
'''),
    (1, "no replication: the K/V heads split like the query heads, empty when Hkv < P", '''
def kv_heads_held(r, P, H, Hkv):
    return list(range(r * Hkv // P, (r + 1) * Hkv // P))
'''),
    (1, "the replicated formula used everywhere: one K/V head per rank, even when Hkv > P", '''
def kv_heads_held(r, P, H, Hkv):
    return [r * Hkv // P]
'''),
    (1, "uneven Hkv (3 at P = 4) mishandled: one head when Hkv < P, the split otherwise", '''
def kv_heads_held(r, P, H, Hkv):
    if Hkv < P:
        return [r * Hkv // P]
    return list(range(r * Hkv // P, (r + 1) * Hkv // P))
'''),
    (1, "last K/V head dropped: the range ends at the group of the first head past the rank", '''
def kv_heads_held(r, P, H, Hkv):
    G = H // Hkv
    return list(range((r * H // P) // G, ((r + 1) * H // P) // G))
'''),
    (1, "every rank holds every K/V head: right output, the cache not split at all", '''
def kv_heads_held(r, P, H, Hkv):
    return list(range(Hkv))
'''),
    (1, "K/V heads numbered per rank (0, 1, ...) instead of in the whole model", '''
def kv_heads_held(r, P, H, Hkv):
    G = H // Hkv
    need = sorted({h // G for h in range(r * H // P, (r + 1) * H // P)})
    return list(range(len(need)))
'''),
    (1, "max(Hkv // P, 1) heads per rank from r * n: wrong start when neither divides", '''
def kv_heads_held(r, P, H, Hkv):
    n = max(Hkv // P, 1)
    return [g % Hkv for g in range(r * n, (r + 1) * n)]
'''),
    (1, "only the group of the rank's first query head", '''
def kv_heads_held(r, P, H, Hkv):
    return [(r * H // P) // (H // Hkv)]
'''),
    (1, "the chapter's even layout: refuses Hkv = 3 at P = 4", '''
def kv_heads_held(r, P, H, Hkv):
    from attnlab.distributed import tp_heads_of_rank
    return tp_heads_of_rank(r, P, H, Hkv)[1]
'''),
    (1, "a set returned: unordered, not a list", '''
def kv_heads_held(r, P, H, Hkv):
    return {h // (H // Hkv) for h in range(r * H // P, (r + 1) * H // P)}
'''),
    (1, "query heads shifted by one: range(r * hp + 1, (r + 1) * hp + 1)", '''
def kv_heads_held(r, P, H, Hkv):
    G = H // Hkv
    hp = H // P
    return sorted({h // G for h in range(r * hp + 1, (r + 1) * hp + 1) if h < H})
'''),
]

_RIGHT_tp = [
    (1, "first and last K/V group of the rank's query heads", '''
def kv_heads_held(r, P, H, Hkv):
    G = H // Hkv
    return list(range((r * H // P) // G, ((r + 1) * H // P - 1) // G + 1))
'''),
    (1, "NumPy unique over the query heads' groups", '''
def kv_heads_held(r, P, H, Hkv):
    import numpy as np
    return np.unique(np.arange(r * H // P, (r + 1) * H // P) // (H // Hkv)).tolist()
'''),
    (1, "the chapter's layout where it applies, the general rule otherwise", '''
def kv_heads_held(r, P, H, Hkv):
    from attnlab.distributed import tp_heads_of_rank, tp_layout_is_even
    if tp_layout_is_even(P, Hkv):
        return tp_heads_of_rank(r, P, H, Hkv)[1]
    q = range(r * H // P, (r + 1) * H // P)
    return sorted({h * Hkv // H for h in q})
'''),
]


# ---- ring
"""Wrong and right answers for chapter 19's exercises 2 and 3 (piece ring)."""

_GIVEN = '''
def fixed_ring_merge(out, lse, o_t, lse_t):
    total = torch.logaddexp(lse, lse_t)
    safe = torch.where(torch.isfinite(total), total, torch.zeros_like(total))
    w, w_t = torch.exp(lse - safe), torch.exp(lse_t - safe)
    return out * w[..., None] + o_t * w_t[..., None], torch.maximum(lse, lse_t)
'''

_RING_RIGHT_COUNT = '''
def measure_causal_work(N, P, layout):
    {cut}
    work, skipped = np.zeros(P), 0
    for p in range(P):
        for t in range(P):
            for qa, qb in chunks[p]:
                for ka, kb in chunks[{held}]:
                    if {skip}:
                        skipped += 1
                    else:
                        work[p] += {area}
    return {{"skipped": skipped, "max_over_mean": float({ratio})}}
'''


_CUT = 'chunks = [[s] for s in shards_of(N, P)] if layout == "plain" else zigzag_chunks(N, P)'


def _count(skip="ka > qb - 1", area="(qb - qa) * (kb - ka)", ratio="work.max() / work.mean()",
           cut=_CUT, held="(p - t) % P"):
    return _RING_RIGHT_COUNT.format(skip=skip, area=area, ratio=ratio, cut=cut, held=held)


_WRONG_ring = [
    (2, "the author's merge as given: it carries the running max forward as the lse", _GIVEN),
    (2, "returns the logsumexp as log(exp + exp): overflows with scores in the thousands", '''
def fixed_ring_merge(out, lse, o_t, lse_t):
    total = torch.log(torch.exp(lse) + torch.exp(lse_t))
    safe = torch.where(torch.isfinite(total), total, torch.zeros_like(total))
    w, w_t = torch.exp(lse - safe), torch.exp(lse_t - safe)
    return out * w[..., None] + o_t * w_t[..., None], total
'''),
    (2, "shifts by the newest block's lse (the wrong running max): overflow, NaN", '''
def fixed_ring_merge(out, lse, o_t, lse_t):
    w = torch.exp(lse - lse_t)
    return (out * w[..., None] + o_t) / (1 + w)[..., None], lse_t + torch.log1p(w)
'''),
    (2, "the max shift without a guard: -inf - (-inf) is NaN for an empty partial", '''
def fixed_ring_merge(out, lse, o_t, lse_t):
    top = torch.maximum(lse, lse_t)
    w, w_t = torch.exp(lse - top), torch.exp(lse_t - top)
    total = w + w_t
    return (out * w[..., None] + o_t * w_t[..., None]) / total[..., None], top + torch.log(total)
'''),
    (2, "the stable log1p form, unguarded: NaN when both parts are empty", '''
def fixed_ring_merge(out, lse, o_t, lse_t):
    new = torch.maximum(lse, lse_t) + torch.log1p(torch.exp(-(lse - lse_t).abs()))
    w, w_t = torch.exp(lse - new), torch.exp(lse_t - new)
    return out * w[..., None] + o_t * w_t[..., None], new
'''),
    (2, "right lse, but the max-shifted weights are not normalised by their sum", '''
def fixed_ring_merge(out, lse, o_t, lse_t):
    top = torch.maximum(lse, lse_t)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    w, w_t = torch.exp(lse - top), torch.exp(lse_t - top)
    return out * w[..., None] + o_t * w_t[..., None], torch.logaddexp(lse, lse_t)
'''),
    (2, "adds the logsumexps (multiplies the sums) instead of logaddexp", '''
def fixed_ring_merge(out, lse, o_t, lse_t):
    total = torch.logaddexp(lse, lse_t)
    safe = torch.where(torch.isfinite(total), total, torch.zeros_like(total))
    w, w_t = torch.exp(lse - safe), torch.exp(lse_t - safe)
    return out * w[..., None] + o_t * w_t[..., None], lse + lse_t
'''),
    (2, "right values, but it updates the running out in place", '''
def fixed_ring_merge(out, lse, o_t, lse_t):
    total = torch.logaddexp(lse, lse_t)
    safe = torch.where(torch.isfinite(total), total, torch.zeros_like(total))
    w, w_t = torch.exp(lse - safe), torch.exp(lse_t - safe)
    out.mul_(w[..., None]).add_(o_t * w_t[..., None])
    return out, total
'''),
    (2, "right merge, but an empty row's lse comes back as finfo.min, not exactly -inf", '''
def fixed_ring_merge(out, lse, o_t, lse_t):
    top = torch.maximum(lse, lse_t)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    w, w_t = torch.exp(lse - top), torch.exp(lse_t - top)
    total = w + w_t
    seen = total > 0
    share = torch.where(seen, total, torch.ones_like(total))
    new_out = (out * w[..., None] + o_t * w_t[..., None]) / share[..., None]
    low = torch.finfo(top.dtype).min
    return new_out, torch.where(seen, top + torch.log(share), torch.full_like(top, low))
'''),
    (2, "calls the chapter's merge, which the task does not allow", '''
def fixed_ring_merge(out, lse, o_t, lse_t):
    return ring_lse_merge_pt(out, lse, o_t, lse_t)
'''),
    (2, "keeps the max as the lse and rescales the output by it instead", '''
def fixed_ring_merge(out, lse, o_t, lse_t):
    top = torch.maximum(lse, lse_t)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    w, w_t = torch.exp(lse - top), torch.exp(lse_t - top)
    tot = torch.where(w + w_t > 0, w + w_t, torch.ones_like(w))
    return (out * w[..., None] + o_t * w_t[..., None]) / tot[..., None], torch.maximum(lse, lse_t)
'''),
    (3, "counts skipped steps (every pair of the step skipped), not skipped pairs", '''
def measure_causal_work(N, P, layout):
    chunks = [[s] for s in shards_of(N, P)] if layout == "plain" else zigzag_chunks(N, P)
    work, skipped = np.zeros(P), 0
    for p in range(P):
        for t in range(P):
            did = False
            for qa, qb in chunks[p]:
                for ka, kb in chunks[(p - t) % P]:
                    if ka <= qb - 1:
                        work[p] += (qb - qa) * (kb - ka)
                        did = True
            skipped += not did
    return {"skipped": skipped, "max_over_mean": float(work.max() / work.mean())}
'''),
    (3, "chunks of N // k rows with the remainder on the last chunk, not shards_of's cut",
     _count(cut="""\
k = P if layout == "plain" else 2 * P
    sz = [N // k] * (k - 1) + [N - (k - 1) * (N // k)]
    c = [(sum(sz[:i]), sum(sz[:i + 1])) for i in range(k)]
    chunks = [[c[p]] for p in range(P)] if layout == "plain" else \\
        [[c[p], c[2 * P - 1 - p]] for p in range(P)]""")),
    (3, "max over min instead of max over mean", _count(ratio="work.max() / work.min()")),
    (3, "counts only the visible entries (the triangle), not whole blocks",
     _count(area="sum(1 for i in range(qa, qb) for j in range(ka, kb) if j <= i)")),
    (3, "off by one: skips a key chunk that starts at the last query (one-row diagonals lost)",
     _count(skip="ka >= qb - 1")),
    (3, "forgets the rotation: every step uses the rank's own key chunks", _count(held="p")),
    (3, "zigzag pairs chunk p with chunk p + P (a cyclic cut, not a mirrored one)", _count(cut="""\
if layout == "plain":
        chunks = [[s] for s in shards_of(N, P)]
    else:
        c = shards_of(N, 2 * P)
        chunks = [[c[p], c[p + P]] for p in range(P)]""")),
    (3, "plain shards cut by np.linspace (the longer shards last, not first)", _count(cut="""\
if layout == "plain":
        e = np.linspace(0, N, P + 1).astype(int)
        chunks = [[(int(e[p]), int(e[p + 1]))] for p in range(P)]
    else:
        chunks = zigzag_chunks(N, P)""")),
    (3, "calls the chapter's count, which the task does not allow", '''
def measure_causal_work(N, P, layout):
    w = ring_causal_work_np(N, P, layout)
    return {"skipped": w["skipped"], "max_over_mean": w["max_over_mean"]}
'''),
    (3, "a prediction that computes instead of typing the values", '''
def zigzag_prediction():
    return {k: measure_causal_work(40, 5, "plain")["skipped"] for k in
            ("plain_skipped", "zigzag_skipped", "plain_ratio", "zigzag_ratio",
             "zigzag_ratio_N16")}
'''),
]

_RIGHT_ring = [
    (2, "logaddexp with a guard (the chapter's form, typed out)", '''
def fixed_ring_merge(out, lse, o_t, lse_t):
    new = torch.logaddexp(lse, lse_t)
    safe = torch.where(torch.isfinite(new), new, torch.zeros_like(new))
    w, w_t = torch.exp(lse - safe), torch.exp(lse_t - safe)
    return out * w[..., None] + o_t * w_t[..., None], new
'''),
    (2, "stack the two parts and take torch.logsumexp over them", '''
def fixed_ring_merge(out, lse, o_t, lse_t):
    ls = torch.stack([lse, lse_t])
    new = torch.logsumexp(ls, dim=0)
    safe = torch.where(torch.isfinite(new), new, torch.zeros_like(new))
    w = torch.exp(ls - safe)
    return (w[..., None] * torch.stack([out, o_t])).sum(0), new
'''),
    (2, "through chapter 13's merge_partials_np, in NumPy and back", '''
def fixed_ring_merge(out, lse, o_t, lse_t):
    from attnlab.flash_attention import merge_partials_np
    o, l = merge_partials_np(np.stack([out.numpy(), o_t.numpy()]),
                             np.stack([lse.numpy(), lse_t.numpy()]))
    return torch.from_numpy(o), torch.from_numpy(l)
'''),
    (3, "a count from position sets (visible keys)", '''
def measure_causal_work(N, P, layout):
    chunks = [[s] for s in shards_of(N, P)] if layout == "plain" else zigzag_chunks(N, P)
    work, skipped = [0] * P, 0
    for p in range(P):
        for t in range(P):
            for qa, qb in chunks[p]:
                for ka, kb in chunks[(p - t) % P]:
                    if any(j <= i for i in range(qa, qb) for j in range(ka, kb)):
                        work[p] += (qb - qa) * (kb - ka)
                    else:
                        skipped += 1
    return {"skipped": skipped, "max_over_mean": max(work) * P / sum(work)}
'''),
    (3, "per query chunk: its area is |chunk| x its stop, pairs counted apart", '''
def measure_causal_work(N, P, layout):
    chunks = [[s] for s in shards_of(N, P)] if layout == "plain" else zigzag_chunks(N, P)
    starts = sorted(a for ch in chunks for a, _ in ch)
    work = [sum((b - a) * b for a, b in ch) for ch in chunks]
    computed = sum(sum(1 for s in starts if s <= b - 1) for ch in chunks for a, b in ch)
    return {"skipped": len(starts) ** 2 - computed,
            "max_over_mean": float(max(work) * P / sum(work))}
'''),
    (3, "another typed prediction", '''
def zigzag_prediction():
    return {"plain_skipped": 12, "zigzag_skipped": 20, "plain_ratio": 2.0,
            "zigzag_ratio": 1.2, "zigzag_ratio_N16": 1.0}
'''),
]


# ---- ulysses
"""Wrong and right answers for chapter 19's exercise 4 (bytes per rank, ring and Ulysses)."""

_WRONG_ulysses = [
    (4, "the ring forwards its last block too (P sends instead of P - 1)", '''
def ring_bytes(P, N, H, Hkv, D, itemsize):
    return [N * 2 * Hkv * D * itemsize if P > 1 else 0 for p in range(P)]
'''),
    (4, "the ring's count uses the rank's own shard, not the one of rank p + 1", '''
def ring_bytes(P, N, H, Hkv, D, itemsize):
    n = [b - a for a, b in shards_of(N, P)]
    return [(N - n[p]) * 2 * Hkv * D * itemsize for p in range(P)]
'''),
    (4, "the ring with equal shards N/P, as a float", '''
def ring_bytes(P, N, H, Hkv, D, itemsize):
    return [(P - 1) / P * N * 2 * Hkv * D * itemsize for p in range(P)]
'''),
    (4, "the ring with equal shards N // P, rounded to ints", '''
def ring_bytes(P, N, H, Hkv, D, itemsize):
    return [(P - 1) * (N // P) * 2 * Hkv * D * itemsize for p in range(P)]
'''),
    (4, "the ring counts keys only, not values", '''
def ring_bytes(P, N, H, Hkv, D, itemsize):
    n = [b - a for a, b in shards_of(N, P)]
    return [(N - n[(p + 1) % P]) * Hkv * D * itemsize for p in range(P)]
'''),
    (4, "the ring counts elements: itemsize forgotten", '''
def ring_bytes(P, N, H, Hkv, D, itemsize):
    n = [b - a for a, b in shards_of(N, P)]
    return [(N - n[(p + 1) % P]) * 2 * Hkv * D for p in range(P)]
'''),
    (4, "the ring counts query heads H instead of K/V heads Hkv", '''
def ring_bytes(P, N, H, Hkv, D, itemsize):
    n = [b - a for a, b in shards_of(N, P)]
    return [(N - n[(p + 1) % P]) * 2 * H * D * itemsize for p in range(P)]
'''),
    (4, "Ulysses counts the local shard: the whole send buffers", '''
def ulysses_bytes(P, N, H, Hkv, D, itemsize):
    n = [b - a for a, b in shards_of(N, P)]
    return [itemsize * D * (n[p] * (H + 2 * Hkv) + N * (H // P)) for p in range(P)]
'''),
    (4, "Ulysses forgets the return all-to-all", '''
def ulysses_bytes(P, N, H, Hkv, D, itemsize):
    n = [b - a for a, b in shards_of(N, P)]
    return [itemsize * D * n[p] * ((H - H // P) + 2 * (Hkv - Hkv // P)) for p in range(P)]
'''),
    (4, "Ulysses with N // P rows instead of the owner's shard", '''
def ulysses_bytes(P, N, H, Hkv, D, itemsize):
    n = N // P
    return [itemsize * D * (n * ((H - H // P) + 2 * (Hkv - Hkv // P)) + (N - n) * (H // P))
            for p in range(P)]
'''),
    (4, "Ulysses assumes MHA: K/V with H heads", '''
def ulysses_bytes(P, N, H, Hkv, D, itemsize):
    n = [b - a for a, b in shards_of(N, P)]
    return [itemsize * D * (n[p] * 3 * (H - H // P) + (N - n[p]) * (H // P)) for p in range(P)]
'''),
    (4, "Ulysses forgets the queries in the first all-to-all", '''
def ulysses_bytes(P, N, H, Hkv, D, itemsize):
    n = [b - a for a, b in shards_of(N, P)]
    return [itemsize * D * (n[p] * 2 * (Hkv - Hkv // P) + (N - n[p]) * (H // P))
            for p in range(P)]
'''),
    (4, "Ulysses returns all H heads of the other rows, not its H/P", '''
def ulysses_bytes(P, N, H, Hkv, D, itemsize):
    n = [b - a for a, b in shards_of(N, P)]
    return [itemsize * D * (n[p] * ((H - H // P) + 2 * (Hkv - Hkv // P)) + (N - n[p]) * H)
            for p in range(P)]
'''),
    (4, "Ulysses counts elements: itemsize forgotten", '''
def ulysses_bytes(P, N, H, Hkv, D, itemsize):
    n = [b - a for a, b in shards_of(N, P)]
    return [D * (n[p] * ((H - H // P) + 2 * (Hkv - Hkv // P)) + (N - n[p]) * (H // P))
            for p in range(P)]
'''),
    (4, "Ulysses's closed form for equal shards, as floats", '''
def ulysses_bytes(P, N, H, Hkv, D, itemsize):
    return [itemsize * D * (P - 1) / P * (N / P) * (2 * H + 2 * Hkv) for p in range(P)]
'''),
    (4, "borrows the chapter's formulas", '''
def ulysses_bytes(P, N, H, Hkv, D, itemsize):
    from attnlab.distributed import ulysses_bytes_per_rank
    return ulysses_bytes_per_rank(P, N, H, Hkv, D, itemsize)
'''),
    (4, "returns a NumPy array, not a list", '''
def ring_bytes(P, N, H, Hkv, D, itemsize):
    import numpy as np
    n = np.array([b - a for a, b in shards_of(N, P)])
    return (N - np.roll(n, -1)) * 2 * Hkv * D * itemsize
'''),
]

_RIGHT_ulysses = [
    (4, "the ring as a loop over steps: the block held at step t is rank (p - t)'s", '''
def ring_bytes(P, N, H, Hkv, D, itemsize):
    n = [b - a for a, b in shards_of(N, P)]
    return [sum(n[(p - t) % P] for t in range(P - 1)) * 2 * Hkv * D * itemsize
            for p in range(P)]
'''),
    (4, "Ulysses destination by destination, in numpy ints", '''
def ulysses_bytes(P, N, H, Hkv, D, itemsize):
    import numpy as np
    sh = shards_of(N, P)
    out = []
    for p, (a, b) in enumerate(sh):
        first = sum((b - a) * (H // P + 2 * (Hkv // P)) * D for j in range(P) if j != p)
        back = sum((d - c) * (H // P) * D for j, (c, d) in enumerate(sh) if j != p)
        out.append(np.int64((first + back) * itemsize))
    return out
'''),
    (4, "both as tuples, the ring written with the other ranks' shards", '''
def ring_bytes(P, N, H, Hkv, D, itemsize):
    n = [b - a for a, b in shards_of(N, P)]
    return tuple(sum(n[j] for j in range(P) if j != (p + 1) % P) * 2 * Hkv * D * itemsize
                 for p in range(P))
'''),
]


WRONG = _WRONG_tp + _WRONG_ring + _WRONG_ulysses

RIGHT = _RIGHT_tp + _RIGHT_ring + _RIGHT_ulysses
