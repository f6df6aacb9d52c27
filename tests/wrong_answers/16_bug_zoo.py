"""Wrong answers a learner would plausibly write for chapter 16's exercises (partial fixes of
each planted bug), and right answers that differ from the solution."""
WRONG = [
    (1, "the given function unchanged: the query does not see its own position", '''
def step_attention(q_new, k_all, v_all):
    return step_attention_given(q_new, k_all, v_all)
'''),
    (1, "fixed only for L == S: the triangle anchored top-left", '''
def step_attention(q_new, k_all, v_all):
    L, S = q_new.shape[-2], k_all.shape[-2]
    allowed = torch.ones(L, S, dtype=torch.bool).tril(diagonal=0)
    return masked_sdpa_pt(q_new, k_all, v_all, allowed)[0]
'''),
    (1, "is_causal=True: top-left as well", '''
def step_attention(q_new, k_all, v_all):
    return F.scaled_dot_product_attention(q_new, k_all, v_all, is_causal=True)
'''),
    (1, "causal_mask_pt with its default alignment (top-left)", '''
def step_attention(q_new, k_all, v_all):
    L, S = q_new.shape[-2], k_all.shape[-2]
    return masked_sdpa_pt(q_new, k_all, v_all, causal_mask_pt(L, S))[0]
'''),
    (1, "off by one the other way: the query sees the next token", '''
def step_attention(q_new, k_all, v_all):
    L, S = q_new.shape[-2], k_all.shape[-2]
    allowed = torch.ones(L, S, dtype=torch.bool).tril(diagonal=S - L + 1)
    return masked_sdpa_pt(q_new, k_all, v_all, allowed)[0]
'''),
    (1, "the offset with the wrong sign", '''
def step_attention(q_new, k_all, v_all):
    L, S = q_new.shape[-2], k_all.shape[-2]
    allowed = torch.ones(L, S, dtype=torch.bool).tril(diagonal=L - S)
    return masked_sdpa_pt(q_new, k_all, v_all, allowed)[0]
'''),
    (2, "the given function unchanged (round-robin heads)", '''
def gqa(q, k, v):
    return gqa_given(q, k, v)
'''),
    (2, "h // Hkv: right only when H == Hkv ** 2", '''
def gqa(q, k, v):
    H, Hkv = q.shape[1], k.shape[1]
    kv_head = torch.arange(H) // Hkv
    return masked_sdpa_pt(q, k[:, kv_head], v[:, kv_head])[0]
'''),
    (2, "repeat instead of repeat_interleave", '''
def gqa(q, k, v):
    G = q.shape[1] // k.shape[1]
    return masked_sdpa_pt(q, k.repeat(1, G, 1, 1), v.repeat(1, G, 1, 1))[0]
'''),
    (2, "repeat_interleave by Hkv instead of G", '''
def gqa(q, k, v):
    Hkv = k.shape[1]
    k2, v2 = k.repeat_interleave(Hkv, dim=1), v.repeat_interleave(Hkv, dim=1)
    H = q.shape[1]
    idx = torch.arange(H) % k2.shape[1]
    return masked_sdpa_pt(q, k2[:, idx], v2[:, idx])[0]
'''),
    (3, "the given function unchanged: a scale by D", '''
def attention(q, k, v, allowed=None):
    return attention_given(q, k, v, allowed)
'''),
    (3, "scaled by sqrt(Dv), the value width", '''
def attention(q, k, v, allowed=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(v.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (3, "scaled by sqrt(S), the number of keys", '''
def attention(q, k, v, allowed=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (3, "the scale removed altogether", '''
def attention(q, k, v, allowed=None):
    scores = q @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (3, "scale fixed but the mask applied after the softmax", '''
def attention(q, k, v, allowed=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores, dim=-1)
    if allowed is not None:
        weights = weights * allowed
    return weights @ v, weights
'''),
    (4, "the given function unchanged: the mask on the queries", '''
def padded_attention(q, k, v, lengths):
    return padded_attention_given(q, k, v, lengths)
'''),
    (4, "a (B, 1, S) mask: broadcasts only when B == H", '''
def padded_attention(q, k, v, lengths):
    S = k.shape[-2]
    keep = torch.arange(S) < lengths[:, None]
    return masked_sdpa_pt(q, k, v, keep[:, None, :])[0]
'''),
    (4, "a (B, S) mask: broadcasts only when B == L", '''
def padded_attention(q, k, v, lengths):
    S = k.shape[-2]
    keep = torch.arange(S) < lengths[:, None]
    return masked_sdpa_pt(q, k, v, keep)[0]
'''),
    (4, "polarity inverted while moving the axes", '''
def padded_attention(q, k, v, lengths):
    S = k.shape[-2]
    keep = torch.arange(S) >= lengths[:, None]
    return masked_sdpa_pt(q, k, v, keep[:, None, None, :])[0]
'''),
    (4, "off by one: j <= lengths[b]", '''
def padded_attention(q, k, v, lengths):
    S = k.shape[-2]
    keep = torch.arange(S) <= lengths[:, None]
    return masked_sdpa_pt(q, k, v, keep[:, None, None, :])[0]
'''),
]

RIGHT = [
    (1, "chapter 5's causal_mask_pt aligned bottom-right", '''
def step_attention(q_new, k_all, v_all):
    L, S = q_new.shape[-2], k_all.shape[-2]
    return masked_sdpa_pt(q_new, k_all, v_all, causal_mask_pt(L, S, align="bottom-right"))[0]
'''),
    (1, "SDPA with causal_lower_right", '''
def step_attention(q_new, k_all, v_all):
    L, S = q_new.shape[-2], k_all.shape[-2]
    return F.scaled_dot_product_attention(q_new, k_all, v_all, attn_mask=causal_lower_right(L, S))
'''),
    (1, "positions compared explicitly", '''
def step_attention(q_new, k_all, v_all):
    L, S = q_new.shape[-2], k_all.shape[-2]
    p = torch.arange(L)[:, None] + (S - L)
    allowed = torch.arange(S)[None, :] <= p
    return masked_sdpa_pt(q_new, k_all, v_all, allowed)[0]
'''),
    (2, "repeat_interleave", '''
def gqa(q, k, v):
    G = q.shape[1] // k.shape[1]
    return masked_sdpa_pt(q, k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1))[0]
'''),
    (2, "chapter 12's repeat_kv_pt", '''
from attnlab.serving import repeat_kv_pt

def gqa(q, k, v):
    H = q.shape[1]
    return masked_sdpa_pt(q, repeat_kv_pt(k, H), repeat_kv_pt(v, H))[0]
'''),
    (2, "SDPA with enable_gqa=True", '''
def gqa(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
'''),
    (2, "a loop over groups", '''
def gqa(q, k, v):
    B, H, L, D = q.shape
    Hkv = k.shape[1]
    G = H // Hkv
    outs = [masked_sdpa_pt(q[:, g * G:(g + 1) * G], k[:, g:g + 1], v[:, g:g + 1])[0]
            for g in range(Hkv)]
    return torch.cat(outs, dim=1)
'''),
    (3, "the book's masked_sdpa_pt", '''
def attention(q, k, v, allowed=None):
    return masked_sdpa_pt(q, k, v, allowed)
'''),
    (3, "q scaled before the product", '''
def attention(q, k, v, allowed=None):
    scores = (q / q.shape[-1] ** 0.5) @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (3, "scaled by sqrt of k's last axis", '''
def attention(q, k, v, allowed=None):
    scores = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
    if allowed is not None:
        scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (4, "chapter 5's padding_mask_pt", '''
def padded_attention(q, k, v, lengths):
    return masked_sdpa_pt(q, k, v, padding_mask_pt(lengths, k.shape[-2]))[0]
'''),
    (4, "SDPA with the (B, 1, 1, S) mask", '''
def padded_attention(q, k, v, lengths):
    S = k.shape[-2]
    keep = torch.arange(S)[None, :] < lengths[:, None]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=keep[:, None, None, :])
'''),
    (4, "unsqueeze twice", '''
def padded_attention(q, k, v, lengths):
    S = k.shape[-2]
    keep = (torch.arange(S) < lengths[:, None]).unsqueeze(1).unsqueeze(1)
    return masked_sdpa_pt(q, k, v, keep)[0]
'''),
]

WRONG += [
    (5, "measurement inverted: the detectors that pass", '''
def measure(fn):
    return {d.__name__ for d in DETECTORS if verdict(d, fn) == "pass"}
'''),
    (5, "a list instead of a set", '''
def measure(fn):
    return [d.__name__ for d in DETECTORS if verdict(d, fn) != "pass"]
'''),
    (5, "predicts that renormalising is caught by the row sums", '''
def prediction():
    return {"fill_zero": {"rows_sum_to_one", "padding_invariant", "causal_no_leak",
                          "fully_masked_rows_zero"},
            "renormalised": {"rows_sum_to_one", "fully_masked_rows_zero"},
            "scale_by_D": {"scores_unit_scale", "fully_masked_rows_zero"}}
'''),
    (5, "predicts that a 0 fill survives an empty row", '''
def prediction():
    return {"fill_zero": {"rows_sum_to_one", "padding_invariant", "causal_no_leak"},
            "renormalised": {"fully_masked_rows_zero"},
            "scale_by_D": {"scores_unit_scale", "fully_masked_rows_zero"}}
'''),
    (5, "predicts that renormalising is exact, caught by nothing", '''
def prediction():
    return {"fill_zero": {"rows_sum_to_one", "padding_invariant", "causal_no_leak",
                          "fully_masked_rows_zero"},
            "renormalised": set(),
            "scale_by_D": {"scores_unit_scale", "fully_masked_rows_zero"}}
'''),
]

RIGHT += [
    (5, "a loop with try/except, raising counted as caught", '''
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
]

# Found by an outside reader doing the exercises from the stubs.
WRONG += [
    (1, "computed in float32: right triangle, wrong dtype", '''
def step_attention(q_new, k_all, v_all):
    L, S = q_new.shape[-2], k_all.shape[-2]
    allowed = torch.ones(L, S, dtype=torch.bool).tril(diagonal=S - L)
    return masked_sdpa_pt(q_new.float(), k_all.float(), v_all.float(), allowed)[0]
'''),
    (3, "scale fixed but the mask polarity flipped", '''
def attention(q, k, v, allowed=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (3, "q scaled in place: the caller's q is changed", '''
def attention(q, k, v, allowed=None):
    q /= math.sqrt(q.shape[-1])
    scores = q @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (3, "the scale hard-coded to 8 = sqrt(64), the detector's D", '''
def attention(q, k, v, allowed=None):
    scores = q @ k.transpose(-2, -1) / 8.0
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''),
    (3, "computed in float32", '''
def attention(q, k, v, allowed=None):
    scores = q.float() @ k.float().transpose(-2, -1) / math.sqrt(q.shape[-1])
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v.float(), weights
'''),
    (4, "the (B, S) mask on the key axis AND the query axis", '''
def padded_attention(q, k, v, lengths):
    S = k.shape[-2]
    keep = torch.arange(S) < lengths[:, None]
    return masked_sdpa_pt(q, k, v, keep[:, None, None, :] & keep[:, None, :, None])[0]
'''),
    (5, "a raising detector not counted: verdict == 'FAIL' only", '''
def measure(fn):
    return {d.__name__ for d in DETECTORS if verdict(d, fn) == "FAIL"}
'''),
    (5, "no try: a detector's exception escapes measure", '''
def measure(fn):
    return {d.__name__ for d in DETECTORS if not d(fn)}
'''),
    (5, "try/except that counts a raise as a pass", '''
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
    (5, "a set of the detector functions, not their names", '''
def measure(fn):
    return {d for d in DETECTORS if verdict(d, fn) != "pass"}
'''),
]

RIGHT += [
    (1, "the last L rows of the S x S triangle", '''
def step_attention(q_new, k_all, v_all):
    S = k_all.shape[-2]
    return masked_sdpa_pt(q_new, k_all, v_all, causal_mask_pt(S)[S - q_new.shape[-2]:])[0]
'''),
    (2, "queries grouped as (B, Hkv, G, L, D), K/V broadcast, no copy", '''
def gqa(q, k, v):
    B, H, L, D = q.shape
    Hkv = k.shape[1]
    out = masked_sdpa_pt(q.reshape(B, Hkv, H // Hkv, L, D), k[:, :, None], v[:, :, None])[0]
    return out.reshape(B, H, L, v.shape[-1])
'''),
    (4, "the given (B, 1, S, 1) mask with its last two axes swapped", '''
def padded_attention(q, k, v, lengths):
    S = k.shape[-2]
    keep = torch.arange(S) < lengths[:, None]
    return masked_sdpa_pt(q, k, v, keep[:, None, :, None].transpose(-1, -2))[0]
'''),
    (5, "the verdicts collected, then FAIL and raises counted", '''
def measure(fn):
    verdicts = {d.__name__: verdict(d, fn) for d in DETECTORS}
    return {name for name, v in verdicts.items() if v in ("FAIL", "raises")}
'''),
]

# NaN outputs: max_abs_diff is NaN and a `> tol` test lets it through.
WRONG += [
    (1, "own softmax, the offset's sign flipped: empty rows give NaN", '''
def step_attention(q_new, k_all, v_all):
    L, S = q_new.shape[-2], k_all.shape[-2]
    allowed = torch.ones(L, S, dtype=torch.bool).tril(diagonal=L - S)
    scores = q_new @ k_all.transpose(-2, -1) / math.sqrt(q_new.shape[-1])
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return weights @ v_all
'''),
    (1, "own softmax, the mask read as True = blocked: the last row gives NaN", '''
def step_attention(q_new, k_all, v_all):
    L, S = q_new.shape[-2], k_all.shape[-2]
    allowed = torch.ones(L, S, dtype=torch.bool).tril(diagonal=S - L)
    scores = q_new @ k_all.transpose(-2, -1) / math.sqrt(q_new.shape[-1])
    weights = torch.softmax(scores.masked_fill(allowed, float("-inf")), dim=-1)
    return weights @ v_all
'''),
]

# Exercise 6: the learner's own causality detector
_E6_HEAD = '''
def no_future_influence(attn):
    rng = np.random.default_rng(6)
    for L in {lengths}:
        q, k, v = rand(rng, 2, 3, L, 4), rand(rng, 2, 3, L, 4), rand(rng, 2, 3, L, 3)
        out = attn(q, k, v)
        for t in range(1, L):
            q2, k2, v2 = q.clone(), k.clone(), v.clone()
            for a in {changed}:
                a[..., t:, :] = rand(rng, *a[..., t:, :].shape) * 10
            if {differs}:
                return False
    return True
'''


def _e6(lengths="(2, 5, 13)", changed="(q2, k2, v2)",
        differs="max_abs_diff(attn(q2, k2, v2)[..., :t, :], out[..., :t, :]) > 1e-12"):
    return _E6_HEAD.format(lengths=lengths, changed=changed, differs=differs)


WRONG += [
    (6, "changes only the values: misses the mask after the softmax", _e6(changed="(v2,)")),
    (6, "changes only the keys: misses values read one position ahead", _e6(changed="(k2,)")),
    (6, "changes only the queries: a later query never moves an earlier output",
     _e6(changed="(q2,)")),
    (6, "short lengths only: misses a mask precomputed for 8 positions", _e6(lengths="(2, 5, 8)")),
    (6, "allclose's default tolerance: misses a soft mask of -20",
     _e6(differs="not torch.allclose(attn(q2, k2, v2)[..., :t, :], out[..., :t, :])")),
    (6, "compares the whole output, the changed positions too: fails every correct function",
     _e6(differs="max_abs_diff(attn(q2, k2, v2), out) > 1e-12")),
    (6, "compares with a reference (SDPA, is_causal): rejects T5's scale and a window", '''
def no_future_influence(attn):
    rng = np.random.default_rng(6)
    q, k, v = rand(rng, 2, 3, 13, 4), rand(rng, 2, 3, 13, 4), rand(rng, 2, 3, 13, 3)
    want = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return max_abs_diff(attn(q, k, v), want) <= 1e-12
'''),
    (6, "no clone: the future is changed in the shared tensors, so later rounds compare "
        "against a stale output and reject correct functions",
     _e6().replace("q2, k2, v2 = q.clone(), k.clone(), v.clone()", "q2, k2, v2 = q, k, v")),
    (6, "checks shapes and finiteness only", '''
def no_future_influence(attn):
    q = torch.randn(2, 3, 13, 4, dtype=torch.float64)
    out = attn(q, q, q)
    return out.shape == q.shape and bool(torch.isfinite(out).all())
'''),
    (6, "returns a tensor, not a bool", _e6().replace("return False", "return torch.tensor(False)")
     .replace("return True", "return torch.tensor(True)")),
    (6, "uses the chapter's detector", '''
from attnlab.bug_zoo import decoder_no_leak

def no_future_influence(attn):
    return decoder_no_leak(attn, L=13)
'''),
]

RIGHT += [
    (6, "one position changed at a time", '''
def no_future_influence(attn):
    rng = np.random.default_rng(7)
    for L in (3, 9, 14):
        q, k, v = rand(rng, 1, 2, L, 5), rand(rng, 1, 2, L, 5), rand(rng, 1, 2, L, 2)
        out = attn(q, k, v)
        for j in range(1, L):
            q2, k2, v2 = q.clone(), k.clone(), v.clone()
            for a in (q2, k2, v2):
                a[..., j, :] += 5.0
            if not torch.equal(attn(q2, k2, v2)[..., :j, :], out[..., :j, :]):
                return False
    return True
'''),
    (6, "autograd: the Jacobian of earlier outputs on later inputs is zero", '''
def no_future_influence(attn):
    rng = np.random.default_rng(8)
    L = 12
    q, k, v = (rand(rng, 1, 2, L, 4).requires_grad_() for _ in range(3))
    out = attn(q, k, v)
    for i in range(L - 1):
        grads = torch.autograd.grad(out[..., i, :].sum(), (q, k, v), retain_graph=True,
                                    allow_unused=True)
        for g in grads:
            if g is not None and g[..., i + 1:, :].abs().max() > 0:
                return False
    return True
'''),
    (6, "returns numpy's bool", _e6().replace("return False", "return np.bool_(False)")
     .replace("return True", "return np.bool_(True)")),
]
