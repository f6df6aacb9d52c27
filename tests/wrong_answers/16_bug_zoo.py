"""Wrong answers a learner would plausibly write for chapter 16's exercises (partial fixes of
each planted bug), and right answers that differ from the solution."""
WRONG = [
    (5, 'measurement inverted: the detectors that pass', '''
def measure(fn):
    return {d.__name__ for d in DETECTORS if verdict(d, fn) == "pass"}
'''),
    (5, 'a list instead of a set', '''
def measure(fn):
    return [d.__name__ for d in DETECTORS if verdict(d, fn) != "pass"]
'''),
    (5, "a raising detector not counted: verdict == 'FAIL' only", '''
def measure(fn):
    return {d.__name__ for d in DETECTORS if verdict(d, fn) == "FAIL"}
'''),
    (5, "no try: a detector's exception escapes measure", '''
def measure(fn):
    return {d.__name__ for d in DETECTORS if not d(fn)}
'''),
    (5, 'try/except that counts a raise as a pass', '''
def measure(fn):
    caught = set()
    for d in DETECTORS:
        try:
            if not d(fn):
                caught.add(d.__name__)
        except Exception:
            pass
    return caught
'''),
    (5, "every detector run in float64, not with its own defaults", '''
def measure(fn):
    found = set()
    for d in DETECTORS:
        try:
            ok = d(fn, dtype=torch.float64) if d is fully_masked_rows_zero else d(fn)
        except Exception:
            ok = False
        if not ok:
            found.add(d.__name__)
    return found
'''),
    (5, 'a set of the detector functions, not their names', '''
def measure(fn):
    return {d for d in DETECTORS if verdict(d, fn) != "pass"}
'''),
]

RIGHT = [
    (5, 'a loop with try/except, raising counted as caught', '''
def measure(fn):
    found = set()
    for d in DETECTORS:
        try:
            ok = d(fn)
        except Exception:
            ok = False
        if not ok:
            found.add(d.__name__)
    return found
'''),
    (5, 'the verdicts collected, then FAIL and raises counted', '''
def measure(fn):
    verdicts = {d.__name__: verdict(d, fn) for d in DETECTORS}
    return {name for name, v in verdicts.items() if v in ("FAIL", "raises")}
'''),
]

# ---- exercise 1: the sliding-window cache step
_E1 = '''
def step_attention(q_new, k_all, v_all, window):
    L, S = q_new.shape[-2], k_all.shape[-2]
    ones = torch.ones(L, S, dtype=torch.bool)
    offset = {offset}
    allowed = ones.tril(diagonal={upper}) & ~ones.tril(diagonal={lower})
    return masked_sdpa_pt(q_new, k_all, v_all, allowed)[0]
'''


def _e1(offset="S - L", upper="offset", lower="offset - window"):
    return _E1.format(offset=offset, upper=upper, lower=lower)


WRONG += [
    (1, "the given function unchanged: the query does not see its own position", '''
def step_attention(q_new, k_all, v_all, window):
    return step_attention_given(q_new, k_all, v_all, window)
'''),
    (1, "only the upper edge fixed: window + 1 keys", _e1(lower="S - L - 1 - window")),
    (1, "only the lower edge fixed: window - 1 keys, the own position missing",
     _e1(upper="S - L - 1")),
    (1, "anchored top-left, as if L == S", _e1(offset="0")),
    (1, "the window dropped: chapter 5's bottom-right causal mask", '''
def step_attention(q_new, k_all, v_all, window):
    L, S = q_new.shape[-2], k_all.shape[-2]
    return masked_sdpa_pt(q_new, k_all, v_all, causal_mask_pt(L, S, align="bottom-right"))[0]
'''),
    (1, "is_causal=True: top-left and no window", '''
def step_attention(q_new, k_all, v_all, window):
    return F.scaled_dot_product_attention(q_new, k_all, v_all, is_causal=True)
'''),
    (1, "off by one the other way: the query sees the next token", _e1(offset="S - L + 1")),
    (1, "the offset with the wrong sign", _e1(offset="L - S")),
    (1, "chapter 14's self-attention window on the first L rows", '''
def step_attention(q_new, k_all, v_all, window):
    from attnlab.subquadratic_attention import sliding_window_mask_np
    L, S = q_new.shape[-2], k_all.shape[-2]
    allowed = torch.from_numpy(sliding_window_mask_np(S, window)[:L])
    return masked_sdpa_pt(q_new, k_all, v_all, allowed)[0]
'''),
    (1, "computed in float32: right mask, wrong dtype", '''
def step_attention(q_new, k_all, v_all, window):
    L, S = q_new.shape[-2], k_all.shape[-2]
    ones = torch.ones(L, S, dtype=torch.bool)
    allowed = ones.tril(diagonal=S - L) & ~ones.tril(diagonal=S - L - window)
    return masked_sdpa_pt(q_new.float(), k_all.float(), v_all.float(), allowed)[0]
'''),
    (1, "right mask, a float32 round trip: float64 out, float32 precision", '''
def step_attention(q_new, k_all, v_all, window):
    L, S = q_new.shape[-2], k_all.shape[-2]
    ones = torch.ones(L, S, dtype=torch.bool)
    allowed = ones.tril(diagonal=S - L) & ~ones.tril(diagonal=S - L - window)
    return masked_sdpa_pt(q_new.float(), k_all.float(), v_all.float(), allowed)[0].double()
'''),
    (1, "own softmax, the mask read as True = blocked: NaN rows", '''
def step_attention(q_new, k_all, v_all, window):
    L, S = q_new.shape[-2], k_all.shape[-2]
    ones = torch.ones(L, S, dtype=torch.bool)
    allowed = ones.tril(diagonal=S - L) & ~ones.tril(diagonal=S - L - window)
    scores = q_new @ k_all.transpose(-2, -1) / math.sqrt(q_new.shape[-1])
    weights = torch.softmax(scores.masked_fill(allowed, float("-inf")), dim=-1)
    return weights @ v_all
'''),
    (1, "q scaled in place: the caller's q_new is changed", '''
def step_attention(q_new, k_all, v_all, window):
    L, S = q_new.shape[-2], k_all.shape[-2]
    ones = torch.ones(L, S, dtype=torch.bool)
    allowed = ones.tril(diagonal=S - L) & ~ones.tril(diagonal=S - L - window)
    q_new *= 1.0
    q_new /= math.sqrt(q_new.shape[-1])
    return masked_sdpa_pt(q_new, k_all, v_all, allowed, scale=1.0)[0]
'''),
]

RIGHT += [
    (1, "positions compared explicitly", '''
def step_attention(q_new, k_all, v_all, window):
    L, S = q_new.shape[-2], k_all.shape[-2]
    p = torch.arange(L)[:, None] + (S - L)
    j = torch.arange(S)[None, :]
    return masked_sdpa_pt(q_new, k_all, v_all, (j <= p) & (j > p - window))[0]
'''),
    (1, "chapter 14's window on the S x S grid, its last L rows", '''
def step_attention(q_new, k_all, v_all, window):
    from attnlab.subquadratic_attention import sliding_window_mask_np
    L, S = q_new.shape[-2], k_all.shape[-2]
    allowed = torch.from_numpy(sliding_window_mask_np(S, window)[S - L:])
    return masked_sdpa_pt(q_new, k_all, v_all, allowed)[0]
'''),
    (1, "chapter 5's bottom-right mask minus the one shifted by the window, via SDPA", '''
def step_attention(q_new, k_all, v_all, window):
    L, S = q_new.shape[-2], k_all.shape[-2]
    near = causal_mask_pt(L, S, align="bottom-right")
    far = torch.ones(L, S, dtype=torch.bool).tril(diagonal=S - L - window)
    return F.scaled_dot_product_attention(q_new, k_all, v_all, attn_mask=near & ~far)
'''),
]

# ---- exercise 4: the left-padded keys
_E4 = '''
def padded_attention(q, k, v, lengths):
    S = k.shape[-2]
    keep = {keep}
    return masked_sdpa_pt(q, k, v, {mask})[0]
'''


def _e4(keep="torch.arange(S) >= S - lengths[:, None]", mask="keep[:, None, None, :]"):
    return _E4.format(keep=keep, mask=mask)


WRONG += [
    (4, "the given function unchanged: the mask on the queries", '''
def padded_attention(q, k, v, lengths):
    return padded_attention_given(q, k, v, lengths)
'''),
    (4, "chapter 5's padding_mask_pt: right padding", '''
def padded_attention(q, k, v, lengths):
    return masked_sdpa_pt(q, k, v, padding_mask_pt(lengths, k.shape[-2]))[0]
'''),
    (4, "a (B, 1, S) mask: broadcasts only when B == H", _e4(mask="keep[:, None, :]")),
    (4, "a (B, S) mask: broadcasts only when B == L", _e4(mask="keep")),
    (4, "polarity inverted while moving the axes", _e4(keep="torch.arange(S) < S - lengths[:, None]")),
    (4, "off by one: one pad key kept", _e4(keep="torch.arange(S) >= S - lengths[:, None] - 1")),
    (4, "off by one: the first real key dropped", _e4(keep="torch.arange(S) > S - lengths[:, None]")),
    (4, "the mask on the key axis AND the query axis", _e4(
        mask="keep[:, None, None, :] & keep[:, None, :, None]" if False else
        "keep[:, None, None, :] & (torch.arange(q.shape[-2]) >= q.shape[-2] - lengths[:, None])"
        "[:, None, :, None]")),
    (4, "a finite fill of -1e4 instead of -inf", '''
def padded_attention(q, k, v, lengths):
    S = k.shape[-2]
    keep = (torch.arange(S) >= S - lengths[:, None])[:, None, None, :]
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(~keep, -1e4)
    return torch.softmax(scores, dim=-1) @ v
'''),
    (4, "a float32 round trip: float64 out, float32 precision", '''
def padded_attention(q, k, v, lengths):
    S = k.shape[-2]
    keep = torch.arange(S) >= S - lengths[:, None]
    return masked_sdpa_pt(q.float(), k.float(), v.float(), keep[:, None, None, :])[0].double()
'''),
    (4, "lengths counted from the left end: lengths[b] pads, not real keys",
     _e4(keep="torch.arange(S) >= lengths[:, None]")),
]

RIGHT += [
    (4, "own softmax with a fill of finfo.min", '''
def padded_attention(q, k, v, lengths):
    S = k.shape[-2]
    keep = (torch.arange(S) >= S - lengths[:, None])[:, None, None, :]
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]))
    scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    return torch.softmax(scores, dim=-1) @ v
'''),
    (4, "SDPA with the (B, 1, 1, S) mask", '''
def padded_attention(q, k, v, lengths):
    S = k.shape[-2]
    keep = torch.arange(S)[None, :] >= S - lengths[:, None]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=keep[:, None, None, :])
'''),
    (4, "chapter 5's right-padding mask flipped along the keys", '''
def padded_attention(q, k, v, lengths):
    return masked_sdpa_pt(q, k, v, padding_mask_pt(lengths, k.shape[-2]).flip(-1))[0]
'''),
    (4, "the given (B, 1, S, 1) mask with its last two axes swapped", '''
def padded_attention(q, k, v, lengths):
    S = k.shape[-2]
    keep = torch.arange(S) >= S - lengths[:, None]
    return masked_sdpa_pt(q, k, v, keep[:, None, :, None].transpose(-1, -2))[0]
'''),
]

# ---- exercise 5: committed predictions
WRONG += [
    (5, "the prediction measured instead of predicted", '''
def prediction():
    return {name: sorted(measure(fn)) for name, fn in VARIANTS.items()}
'''),
    (5, "the detector functions instead of their names", '''
def prediction():
    return {"fill_zero": [rows_sum_to_one, padding_invariant, causal_no_leak,
                          fully_masked_rows_zero],
            "renormalised": [fully_masked_rows_zero],
            "scale_by_D": [scores_unit_scale, fully_masked_rows_zero]}
'''),
    (5, "the measurement carried in by a default argument", '''
def prediction(found={name: sorted(measure(fn)) for name, fn in VARIANTS.items()}):
    return found
'''),
    (5, "the measurement carried in by a keyword-only default", '''
def prediction(*, found={name: sorted(measure(fn)) for name, fn in VARIANTS.items()}):
    return found
'''),
    (5, "a misspelt detector name", '''
def prediction():
    return {"fill_zero": ["rows_sum_to_1"], "renormalised": [], "scale_by_D": []}
'''),
    (5, "a variant left out", '''
def prediction():
    return {"fill_zero": ["rows_sum_to_one"], "scale_by_D": ["scores_unit_scale"]}
'''),
    (5, "one string instead of a list of names", '''
def prediction():
    return {"fill_zero": "rows_sum_to_one", "renormalised": [], "scale_by_D": []}
'''),
]

RIGHT += [
    (5, "a wrong prediction (renormalising caught by the row sums) is compared, not failed", '''
def prediction():
    return {"fill_zero": ["rows_sum_to_one", "padding_invariant", "causal_no_leak",
                          "fully_masked_rows_zero"],
            "renormalised": ["rows_sum_to_one", "fully_masked_rows_zero"],
            "scale_by_D": ["scores_unit_scale", "fully_masked_rows_zero"]}
'''),
    (5, "a wrong prediction with an empty list", '''
def prediction():
    return {"fill_zero": ["rows_sum_to_one", "padding_invariant", "causal_no_leak"],
            "renormalised": [],
            "scale_by_D": ["scores_unit_scale"]}
'''),
    (5, "sets and tuples of names", '''
def prediction():
    return {"fill_zero": {"rows_sum_to_one", "padding_invariant", "causal_no_leak",
                          "fully_masked_rows_zero"},
            "renormalised": ("fully_masked_rows_zero",),
            "scale_by_D": {"scores_unit_scale", "fully_masked_rows_zero"}}
'''),
]

# ---- exercise 6: the dependence map
_E6 = '''
def dependence(attn, L):
    rng = np.random.default_rng(6)
    q, k, v = rand(rng, 2, 3, L, 4), rand(rng, 2, 3, L, 4), rand(rng, 2, 3, L, 3)
    out = attn(q, k, v)
    depends = np.zeros((L, L), dtype=bool)
    for j in range(L):
        q2, k2, v2 = q.clone(), k.clone(), v.clone()
        for a in {changed}:
            a[..., {where}, :] = rand(rng, *a[..., {where}, :].shape) * 10
        moved = {moved}
        depends[:, j] = (moved > {tol}).numpy()
    return {ret}
'''


def _e6(changed="(q2, k2, v2)", where="j", tol="1e-12", ret="depends",
        moved="(attn(q2, k2, v2) - out).abs().amax(dim=(0, 1, 3))"):
    return _E6.format(changed=changed, where=where, tol=tol, ret=ret, moved=moved)


WRONG += [
    (6, "changes only the values: misses the mask after the softmax", _e6(changed="(v2,)")),
    (6, "changes only the keys: misses values read one position ahead", _e6(changed="(k2,)")),
    (6, "changes only the queries: each output on its own position only", _e6(changed="(q2,)")),
    (6, "changes only the keys and values: misses a leak through the queries",
     _e6(changed="(k2, v2)")),
    (6, "changes position j and everything after it (the chapter's test)", _e6(where="j:")),
    (6, "a loose tolerance: misses a soft mask of -20", _e6(tol="1e-6")),
    (6, "the map transposed: [j, i]", _e6(ret="depends.T.copy()")),
    (6, "a float array of how far each output moved", _e6(ret="depends.astype(float)")),
    (6, "batch and head 0 only, through a float32 copy", _e6(
        moved="(attn(q2, k2, v2).float() - out.float())[0, 0].abs().amax(dim=-1).double()")),
    (6, "compared with a reference, SDPA's causal output", '''
def dependence(attn, L):
    q = torch.randn(1, 1, L, 4, dtype=torch.float64)
    same = torch.equal(attn(q, q, q), F.scaled_dot_product_attention(q, q, q, is_causal=True))
    return np.tril(np.ones((L, L), dtype=bool)) if same else np.ones((L, L), dtype=bool)
'''),
    (6, "the lower triangle returned for anything that passes the chapter's detector", '''
def dependence(attn, L):
    from attnlab.bug_zoo import decoder_no_leak
    full = np.ones((L, L), dtype=bool)
    return np.tril(full) if decoder_no_leak(attn, L=L) else full
'''),
]

RIGHT += [
    (6, "autograd: the Jacobian's nonzero pattern", '''
def dependence(attn, L):
    rng = np.random.default_rng(8)
    q, k, v = (rand(rng, 1, 2, L, 4).requires_grad_() for _ in range(3))
    out = attn(q, k, v)
    depends = np.zeros((L, L), dtype=bool)
    for i in range(L):
        grads = torch.autograd.grad(out[..., i, :].sum() * 1.7 + out[..., i, 0].sum(), (q, k, v),
                                    retain_graph=True)
        depends[i] = (sum(g.abs().sum(dim=(0, 1, 3)) for g in grads) > 0).numpy()
    return depends
'''),
    (6, "a bool tensor, +5 added at position j, torch.equal per output", '''
def dependence(attn, L):
    rng = np.random.default_rng(9)
    q, k, v = rand(rng, 1, 2, L, 5), rand(rng, 1, 2, L, 5), rand(rng, 1, 2, L, 2)
    out = attn(q, k, v)
    depends = torch.zeros(L, L, dtype=torch.bool)
    for j in range(L):
        q2, k2, v2 = q.clone(), k.clone(), v.clone()
        for a in (q2, k2, v2):
            a[..., j, :] += 5.0
        new = attn(q2, k2, v2)
        for i in range(L):
            depends[i, j] = not torch.equal(new[..., i, :], out[..., i, :])
    return depends
'''),
]

# ---- exercise 2: GQA in the (B, L, H, D) layout
_E2 = """
def gqa(q, k, v):
    H, Hkv = q.shape[2], k.shape[2]
    kv_head = {index}
    k, v = k[:, :, kv_head], v[:, :, kv_head]
    out = masked_sdpa_pt(*(a.transpose(1, 2) for a in (q, k, v)))[0]
    return {ret}
"""


def _e2(index="torch.arange(H) // (H // Hkv)", ret="out.transpose(1, 2)"):
    return _E2.format(index=index, ret=ret)


WRONG += [
    (2, "the given function unchanged (round-robin heads)", """
def gqa(q, k, v):
    return gqa_given(q, k, v)
"""),
    (2, "h // Hkv: right only when H == Hkv ** 2", _e2(index="torch.arange(H) // Hkv")),
    (2, "repeat on the head axis: heads tiled 0, 1, 0, 1", """
def gqa(q, k, v):
    G = q.shape[2] // k.shape[2]
    k, v = k.repeat(1, 1, G, 1), v.repeat(1, 1, G, 1)
    return masked_sdpa_pt(*(a.transpose(1, 2) for a in (q, k, v)))[0].transpose(1, 2)
"""),
    (2, "repeat_interleave by Hkv instead of G", """
def gqa(q, k, v):
    Hkv, H = k.shape[2], q.shape[2]
    k2, v2 = k.repeat_interleave(Hkv, dim=2), v.repeat_interleave(Hkv, dim=2)
    idx = torch.arange(H) % k2.shape[2]
    return masked_sdpa_pt(*(a.transpose(1, 2) for a in (q, k2[:, :, idx], v2[:, :, idx])))[0].transpose(1, 2)
"""),
    (2, "repeated in the (B, Hkv, S, D) layout, then reshaped (not transposed) back", """
def gqa(q, k, v):
    B, S, Hkv, D = k.shape
    H = q.shape[2]
    k2 = k.transpose(1, 2).repeat_interleave(H // Hkv, dim=1).reshape(B, S, H, D)
    v2 = v.transpose(1, 2).repeat_interleave(H // Hkv, dim=1).reshape(B, S, H, v.shape[-1])
    return masked_sdpa_pt(q.transpose(1, 2), k2.transpose(1, 2), v2.transpose(1, 2))[0].transpose(1, 2)
"""),
    (2, "the output left in the (B, H, L, Dv) layout", _e2(ret="out")),
    (2, "the output reshaped, not transposed, back", _e2(ret="out.reshape(out.shape[0], out.shape[2], out.shape[1], -1)")),
    (2, "a float32 round trip: float64 out, float32 precision",
     _e2(ret="out.transpose(1, 2).float().double()")),
    (2, "repeat_interleave on the S axis (a crash unless Hkv == H)", """
def gqa(q, k, v):
    G = q.shape[2] // k.shape[2]
    k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
    return masked_sdpa_pt(*(a.transpose(1, 2) for a in (q, k, v)))[0].transpose(1, 2)
"""),
    (2, "chapter 12's repeat_kv_pt on the (B, S, Hkv, D) layout as it is", """
from attnlab.serving import repeat_kv_pt

def gqa(q, k, v):
    H = q.shape[2]
    k, v = repeat_kv_pt(k, H), repeat_kv_pt(v, H)
    return masked_sdpa_pt(*(a.transpose(1, 2) for a in (q, k, v)))[0].transpose(1, 2)
"""),
    (2, "computed in float32: right heads, wrong dtype", _e2(ret="out.transpose(1, 2).float()")),
    (2, "the caller's q scaled in place (and unscaled inside the call)", """
def gqa(q, k, v):
    G = q.shape[2] // k.shape[2]
    q /= math.sqrt(q.shape[-1])
    k, v = k.repeat_interleave(G, 2), v.repeat_interleave(G, 2)
    T = lambda a: a.transpose(1, 2)
    return T(masked_sdpa_pt(T(q), T(k), T(v), scale=1.0)[0])
"""),
]

RIGHT += [
    (2, "repeat_interleave on the head axis", """
def gqa(q, k, v):
    G = q.shape[2] // k.shape[2]
    k, v = k.repeat_interleave(G, dim=2), v.repeat_interleave(G, dim=2)
    return masked_sdpa_pt(*(a.transpose(1, 2) for a in (q, k, v)))[0].transpose(1, 2)
"""),
    (2, "to (B, H, L, D), chapter 12's repeat_kv_pt, and back", """
from attnlab.serving import repeat_kv_pt

def gqa(q, k, v):
    T = lambda a: a.transpose(1, 2)
    H = q.shape[2]
    return T(masked_sdpa_pt(T(q), repeat_kv_pt(T(k), H), repeat_kv_pt(T(v), H))[0])
"""),
    (2, "SDPA with enable_gqa=True, transposed in and out", """
def gqa(q, k, v):
    T = lambda a: a.transpose(1, 2)
    return T(F.scaled_dot_product_attention(T(q), T(k), T(v), enable_gqa=True))
"""),
    (2, "queries grouped as (B, Hkv, G, L, D), K/V broadcast, no copy", """
def gqa(q, k, v):
    B, L, H, D = q.shape
    Hkv = k.shape[2]
    qg = q.permute(0, 2, 1, 3).reshape(B, Hkv, H // Hkv, L, D)
    kg, vg = (a.permute(0, 2, 1, 3)[:, :, None] for a in (k, v))
    out = masked_sdpa_pt(qg, kg, vg)[0].reshape(B, H, L, v.shape[-1])
    return out.permute(0, 2, 1, 3)
"""),
    (2, "a loop over groups", """
def gqa(q, k, v):
    H, Hkv = q.shape[2], k.shape[2]
    G = H // Hkv
    T = lambda a: a.transpose(1, 2)
    outs = [masked_sdpa_pt(T(q[:, :, g * G:(g + 1) * G]), T(k[:, :, g:g + 1]), T(v[:, :, g:g + 1]))[0]
            for g in range(Hkv)]
    return T(torch.cat(outs, dim=1))
"""),
]

# ---- exercise 3: the scale in the (B, L, H, D) layout
_E3 = """
def attention(q, k, v, allowed=None):
    q, k, v = (a.transpose(1, 2) for a in (q, k, v))
    scores = {scores}
    if allowed is not None:
        scores = scores.masked_fill({blocked}, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return {ret}
"""


def _e3(scores="q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])", blocked="~allowed",
        ret="(weights @ v).transpose(1, 2), weights"):
    return _E3.format(scores=scores, blocked=blocked, ret=ret)


WRONG += [
    (3, "the given function unchanged: a scale by D", """
def attention(q, k, v, allowed=None):
    return attention_given(q, k, v, allowed)
"""),
    (3, "scaled by sqrt(Dv), the value width", _e3(scores="q @ k.transpose(-2, -1) / math.sqrt(v.shape[-1])")),
    (3, "scaled by sqrt(S), the number of keys", _e3(scores="q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])")),
    (3, "scaled by sqrt(H), axis 2 of the input layout", _e3(scores="q @ k.transpose(-2, -1) / math.sqrt(q.shape[1])")),
    (3, "the scale removed altogether", _e3(scores="q @ k.transpose(-2, -1)")),
    (3, "the scale hard-coded to 8 = sqrt(64), the detector's D", _e3(scores="q @ k.transpose(-2, -1) / 8.0")),
    (3, "scale fixed but the mask polarity flipped", _e3(blocked="allowed")),
    (3, "scale fixed but the mask applied after the softmax", """
def attention(q, k, v, allowed=None):
    q, k, v = (a.transpose(1, 2) for a in (q, k, v))
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    if allowed is not None:
        weights = weights * allowed
    return (weights @ v).transpose(1, 2), weights
"""),
    (3, "the output left in the (B, H, L, Dv) layout", _e3(ret="weights @ v, weights")),
    (3, "the output reshaped, not transposed, to (B, L, H, Dv)", _e3(
        ret="(weights @ v).reshape(q.shape[0], q.shape[2], q.shape[1], -1), weights")),
    (3, "the mask applied after the softmax, then every row renormalised", """
def attention(q, k, v, allowed=None):
    q, k, v = (a.transpose(1, 2) for a in (q, k, v))
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    if allowed is not None:
        weights = weights * allowed
        weights = weights / weights.sum(-1, keepdim=True)
    return (weights @ v).transpose(1, 2), weights
"""),
    (3, "a float32 round trip: float64 out, float32 precision", """
def attention(q, k, v, allowed=None):
    q, k, v = (a.transpose(1, 2).float() for a in (q, k, v))
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return (weights @ v).transpose(1, 2).double(), weights.double()
"""),
    (3, "the weights transposed back too", _e3(ret="(weights @ v).transpose(1, 2), weights.transpose(1, 2)")),
    (3, "q scaled in place: the caller's q is changed", """
def attention(q, k, v, allowed=None):
    q /= math.sqrt(q.shape[-1])
    q, k, v = (a.transpose(1, 2) for a in (q, k, v))
    scores = q @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return (weights @ v).transpose(1, 2), weights
"""),
    (3, "computed in float32", """
def attention(q, k, v, allowed=None):
    q, k, v = (a.transpose(1, 2).float() for a in (q, k, v))
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return (weights @ v).transpose(1, 2), weights
"""),
    (3, "the inputs read as (B, H, L, D): no transpose at all", """
def attention(q, k, v, allowed=None):
    return masked_sdpa_pt(q, k, v, allowed)
"""),
]

RIGHT += [
    (3, "the book's masked_sdpa_pt, transposed in and out", """
def attention(q, k, v, allowed=None):
    T = lambda a: a.transpose(1, 2)
    out, weights = masked_sdpa_pt(T(q), T(k), T(v), allowed)
    return T(out), weights
"""),
    (3, "q scaled before the transpose and the product", """
def attention(q, k, v, allowed=None):
    q = q / q.shape[-1] ** 0.5
    q, k, v = (a.transpose(1, 2) for a in (q, k, v))
    scores = q @ k.transpose(-2, -1)
    if allowed is not None:
        scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
    weights = torch.softmax(scores, dim=-1)
    return (weights @ v).transpose(1, 2), weights
"""),
    (3, "a fill of finfo.min instead of -inf", """
def attention(q, k, v, allowed=None):
    q, k, v = (a.transpose(1, 2) for a in (q, k, v))
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    weights = torch.softmax(scores, dim=-1)
    return (weights @ v).transpose(1, 2), weights
"""),
    (3, "einsum straight from the (B, L, H, D) layout", """
def attention(q, k, v, allowed=None):
    scores = torch.einsum("blhd,bshd->bhls", q, k) * q.shape[-1] ** -0.5
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return torch.einsum("bhls,bshe->blhe", weights, v), weights
"""),
]
