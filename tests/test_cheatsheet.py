"""Every number on book/cheat_sheet.md, recomputed twice: from the formula in its row, and from
an independent measurement (a PyTorch module's parameter count, a tensor's bytes, numpy.finfo,
a sample). A row the test does not know fails, so no number can be added unchecked."""
import math
import re

import numpy as np
import pytest
import torch

from nbcommon import ROOT

PAGE = ROOT / "book" / "cheat_sheet.md"
UNITS = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30,
         "%": 1e-2}


def rows():
    """(id, formula, sizes, exact, rounded) of the back-of-envelope table."""
    text = PAGE.read_text(encoding="utf-8").split("## Back-of-envelope numbers", 1)[1]
    found = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 6 or cells[0] in ("id", "") or set(cells[0]) <= set("-"):
            continue
        ident, _, formula, sizes, exact, rounded = cells
        found.append((ident, formula.strip("`"), sizes.strip("`"), exact, rounded))
    return found


def sizes_of(text):
    out = {}
    for part in text.split(","):
        key, value = (s.strip() for s in part.split("="))
        out[key] = value if key == "dtype" else int(value)
    return out


def formula_value(formula, sizes):
    env = {k: v for k, v in sizes.items() if k != "dtype"}
    if "dtype" in sizes:
        env["finfo_max"] = float(np.finfo(sizes["dtype"]).max)
    return eval(formula, {"__builtins__": {}, "log": math.log}, env)   # noqa: S307 (the page)


def _meta_bytes(*shape, dtype):
    t = torch.empty(shape, dtype=dtype, device="meta")
    return t.numel() * t.element_size()


def _mha_params(E, H, bias):
    layer = torch.nn.MultiheadAttention(E, H, bias=bias, device="meta")
    return sum(p.numel() for p in layer.parameters())


def _matmul_flops(*shapes):
    """2 m k n for each (m, k) @ (k, n)."""
    return sum(2 * m * k * n for m, k, n in shapes)


def _std_qk(D, n=200_000, seed=0):
    rng = np.random.default_rng(seed)
    return float((rng.standard_normal((n, D)) * rng.standard_normal((n, D))).sum(-1).std())


def _f16_grid():
    """Every finite float16 from 1 to 65,504, in increasing order."""
    return torch.arange(0x3C00, 0x7C00, dtype=torch.int32).to(torch.int16).view(torch.float16)


def _largest_finite_entry(D, scale_q_first):
    """Largest float16 a for which q . k with q = k = a (D entries) is finite when computed in
    float16, by bisection over the float16 grid (the score only grows with a)."""
    grid = _f16_grid()

    def finite(a):
        q = torch.full((1, D), a, dtype=torch.float16)
        qs = q * D**-0.5 if scale_q_first else q
        return bool(torch.isfinite(qs @ q.T).all())

    lo, hi = 0, len(grid) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if finite(grid[mid].item()) else (lo, mid - 1)
    return grid[lo].item()


def _sum_stall(dtype):
    """Add ones in dtype until the running sum stops changing."""
    s, one = torch.tensor(0.0, dtype=dtype), torch.tensor(1.0, dtype=dtype)
    while s + one != s:
        s = s + one
    return float(s)


def _ntk_base(b, s, D):
    """The base whose slowest RoPE frequency is the original's divided by s (bisection on the
    frequencies themselves, not the closed form)."""
    slowest = lambda base: (base ** -(np.arange(0, D, 2) / D))[-1]          # noqa: E731
    target, lo, hi = slowest(b) / s, float(b), float(b) * s**2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if slowest(mid) > target else (lo, mid)
    return (lo + hi) / 2


def _train_flops_per_param():
    """FLOPs of one token's forward and backward through a bias-free linear layer whose input
    needs a gradient (as inside a network), per parameter, counted by PyTorch."""
    from torch.utils.flop_counter import FlopCounterMode
    layer = torch.nn.Linear(48, 32, bias=False, device="meta")
    x = torch.empty(1, 48, device="meta", requires_grad=True)
    with FlopCounterMode(display=False) as counter:
        layer(x).sum().backward()
    return counter.get_total_flops() / layer.weight.numel()


def _block_crossover(E, F, ffn_matrices):
    """Smallest L at which the L x L products (4 L^2 E) cost at least as much as a forward
    pass of L tokens through the block's matrices (2 FLOPs per parameter per token), the
    parameters counted on PyTorch modules."""
    attn = _mha_params(E, E // 64, bias=False)
    ffn = sum(sum(p.numel() for p in torch.nn.Linear(*shape, bias=False, device="meta").parameters())
              for shape in [(E, F), (F, E), (E, F)][:ffn_matrices])
    return next(L for L in range(1, 10 * E) if 4 * L * L * E >= 2 * L * (attn + ffn))


def _bert_params(layers, E, V, P, types, pooler):
    """BERT's parameters counted on PyTorch modules: nn.TransformerEncoderLayer has BERT's
    block (attention with biases, FFN 4E with biases, two LayerNorms)."""
    n = lambda m: sum(p.numel() for p in m.parameters())                   # noqa: E731
    block = torch.nn.TransformerEncoderLayer(E, E // 64, 4 * E, device="meta")
    embeddings = (n(torch.nn.Embedding(V, E, device="meta")) + n(torch.nn.Embedding(P, E, device="meta"))
                  + n(torch.nn.Embedding(types, E, device="meta")) + n(torch.nn.LayerNorm(E, device="meta")))
    return layers * n(block) + embeddings + (n(torch.nn.Linear(E, E, device="meta")) if pooler else 0)


def _roofline_ridge(peak, bw):
    """The intensity at which min(peak, bw * I) reaches the peak, by bisection."""
    lo, hi = 0.0, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if min(peak, bw * mid) < peak else (lo, mid)
    return hi


def _ridge_batch(E, peak, bw):
    """Smallest batch B whose (B, E) @ (E, E) float16 product (read x and W, write y) has an
    intensity of at least peak / bw."""
    def intensity(B):
        moved = 2 * _meta_bytes(B, E, dtype=torch.float16) + _meta_bytes(E, E, dtype=torch.float16)
        return _matmul_flops((B, E, E)) / moved
    return next(B for B in range(1, 100_000) if intensity(B) >= peak / bw)


def _window_reach(layers, W):
    """Positions from which the last position receives information through `layers` causal
    window layers (query i sees keys i - W + 1 .. i), by propagating a boolean array."""
    n = layers * W + 2
    reach = np.zeros(n, bool)
    reach[-1] = True
    for _ in range(layers):
        c = np.concatenate([[0], np.cumsum(reach)])          # c[j] = reach[:j].sum()
        j = np.arange(n)
        reach = (c[np.minimum(j + W, n)] - c[j]) > 0          # some query in j .. j + W - 1
    return int(reach.sum())


def _interleaved_share(g, l, T, W):
    """Gemma 2's stack, window and global layers alternating: bytes of each layer's cache
    against an all-global stack."""
    kinds = ["window", "global"] * ((g + l) // 2)
    assert kinds.count("window") == l and kinds.count("global") == g
    per = [_meta_bytes(2, 8, min(T, W) if k == "window" else T, 128, dtype=torch.float16)
           for k in kinds]
    return sum(per) / ((g + l) * _meta_bytes(2, 8, T, 128, dtype=torch.float16))


def _patch_grid(height, width, P):
    """Patches a stride-P, P x P convolution produces on a (height, width) image."""
    conv = torch.nn.Conv2d(3, 8, P, stride=P, device="meta")
    out = conv(torch.empty(1, 3, height, width, device="meta"))
    return out.shape[-2] * out.shape[-1]


# id -> the same quantity computed another way (sizes as on the page)
INDEPENDENT = {
    "params-mha-gpt2": lambda s: _mha_params(s["E"], 12, bias=True),
    "params-mha-nobias": lambda s: _mha_params(s["E"], 32, bias=False),
    "kv-gpt2": lambda s: _meta_bytes(2, s["layers"], s["Hkv"], s["D"], dtype=torch.float16),
    "kv-7b": lambda s: _meta_bytes(2, s["layers"], s["Hkv"], s["D"], dtype=torch.float16),
    "kv-7b-4k": lambda s: _meta_bytes(2, s["layers"], s["Hkv"], s["T"], s["D"],
                                      dtype=torch.float16),
    "kv-gqa": lambda s: _meta_bytes(2, s["layers"], s["Hkv"], s["D"], dtype=torch.float16),
    "kv-70b": lambda s: _meta_bytes(2, s["layers"], s["Hkv"], s["D"], dtype=torch.float16),
    "kv-window": lambda s: _meta_bytes(2, s["layers"], s["Hkv"], s["W"], s["D"],
                                       dtype=torch.float16),
    # one forward pass per new token, over the whole sequence so far
    "positions-uncached": lambda s: sum(s["P"] + t for t in range(s["N"])),
    "scores-mem": lambda s: _meta_bytes(s["B"], s["H"], s["L"], s["S"], dtype=torch.float32),
    # H heads of D = E / H: scores (L, D) @ (D, S), weighted sum (L, S) @ (S, D), per head
    "flops-attn": lambda s: 12 * _matmul_flops((s["L"], s["E"] // 12, s["S"]),
                                               (s["L"], s["S"], s["E"] // 12)),
    "flops-proj": lambda s: 4 * _matmul_flops((s["L"], s["E"], s["E"])),
    "flops-decode": lambda s: 4 * _matmul_flops((1, s["E"], s["E"]))
    + _matmul_flops((1, s["E"], s["T"]), (1, s["T"], s["E"])),
    # smallest L at which 4 L^2 E (scores) reaches 8 L E^2 (projections)
    "crossover": lambda s: next(L for L in range(1, 10 * s["E"])
                                if 4 * L * L * s["E"] >= 8 * L * s["E"] ** 2),
    "std-qk": lambda s: _std_qk(s["D"]),
    "exp-f32": lambda s: float(np.log(np.float64(np.finfo(np.float32).max))),
    "exp-f16": lambda s: float(np.log(np.float64(np.finfo(np.float16).max))),
    "f16-max": lambda s: float(torch.finfo(torch.float16).max),
    "f16-safe": lambda s: _largest_finite_entry(s["D"], scale_q_first=False),
    "f16-safe-qfirst": lambda s: _largest_finite_entry(s["D"], scale_q_first=True),
    "f16-sum-stall": lambda s: _sum_stall(torch.float16),
    "bf16-sum-stall": lambda s: _sum_stall(torch.bfloat16),
    "rope-ntk-base": lambda s: _ntk_base(s["b"], s["s"], s["D"]),
    "flops-train": lambda s: _train_flops_per_param() * s["N"],
    "crossover-block": lambda s: _block_crossover(s["E"], s["F"], ffn_matrices=2),
    "crossover-swiglu": lambda s: _block_crossover(s["E"], s["F"], ffn_matrices=3),
    "params-bert-block": lambda s: sum(p.numel() for p in torch.nn.TransformerEncoderLayer(
        s["E"], 12, 4 * s["E"], device="meta").parameters()),
    "params-minilm-l6": lambda s: _bert_params(s["layers"], s["E"], s["V"], s["P"], s["types"],
                                               pooler=False),
    "params-bert-base": lambda s: _bert_params(s["layers"], s["E"], s["V"], s["P"], s["types"],
                                               pooler=True),
    "params-bert-large": lambda s: _bert_params(s["layers"], s["E"], s["V"], s["P"], s["types"],
                                                pooler=True),
    "ridge-h100": lambda s: _roofline_ridge(s["peak"], s["bw"]),
    "ridge-batch": lambda s: _ridge_batch(s["E"], s["peak"], s["bw"]),
    # the latent and the decoupled RoPE key, two tensors per layer
    "kv-mla": lambda s: _meta_bytes(s["layers"], s["d_c"], dtype=torch.float16)
    + _meta_bytes(s["layers"], s["d_hR"], dtype=torch.float16),
    # the state S (D x D) and the normaliser z (D) per layer and key/value head
    "linear-state": lambda s: _meta_bytes(s["layers"], s["Hkv"], s["D"], s["D"], dtype=torch.float16)
    + _meta_bytes(s["layers"], s["Hkv"], s["D"], dtype=torch.float16),
    "linear-crossover": lambda s: next(
        T for T in range(1, 10 * s["D"])
        if _meta_bytes(2, T, s["D"], dtype=torch.float16)
        > _meta_bytes(s["D"], s["D"], dtype=torch.float16) + _meta_bytes(s["D"], dtype=torch.float16)),
    "learned-bias-4096": lambda s: _meta_bytes(s["H"], s["L"], s["S"], dtype=torch.float16),
    # the first split count whose programs (B * Hkv * C) reach the SM count, by search
    "decode-splits-h100": lambda s: next(C for C in range(1, 10 * s["sms"])
                                         if s["B"] * s["Hkv"] * C >= s["sms"]),
    # the ring: P - 1 sends of one shard's K and V (2, Hkv, N/P, D)
    "ring-bytes": lambda s: (s["P"] - 1) * _meta_bytes(2, s["Hkv"], s["N"] // s["P"], s["D"],
                                                       dtype=torch.bfloat16),
    # Ulysses: to each other rank, q|k|v of its heads for my rows, then my heads' output rows
    "ulysses-bytes": lambda s: (s["P"] - 1) * (
        _meta_bytes(s["H"] // s["P"] + 2 * (s["Hkv"] // s["P"]), s["N"] // s["P"], s["D"],
                    dtype=torch.bfloat16)
        + _meta_bytes(s["H"] // s["P"], s["N"] // s["P"], s["D"], dtype=torch.bfloat16)),
    "kv-mla-v3": lambda s: _meta_bytes(s["layers"], s["d_c"], dtype=torch.bfloat16)
    + _meta_bytes(s["layers"], s["d_hR"], dtype=torch.bfloat16),
    "mistral-reach": lambda s: _window_reach(s["layers"], s["W"]),
    "gemma2-kv-1to1": lambda s: _interleaved_share(s["g"], s["l"], s["T"], s["W"]),
    # the patch embedding's output grid, counted by PyTorch, plus the class token
    "vit-tokens": lambda s: _patch_grid(s["Hpx"], s["Wpx"], s["P"]) + 1,
    "vit-tokens-384": lambda s: _patch_grid(s["Hpx"], s["Wpx"], s["P"]) + 1,
    "params-patch-embed": lambda s: sum(p.numel() for p in torch.nn.Conv2d(
        s["C"], s["E"], s["P"], stride=s["P"], device="meta").parameters()),
    "spatial-scores": lambda s: torch.empty(s["Hpx"] * s["Wpx"], s["Hpx"] * s["Wpx"],
                                            device="meta").numel(),
    "params-se": lambda s: sum(p.numel() for p in torch.nn.Sequential(
        torch.nn.Linear(s["C"], s["C"] // s["r"]), torch.nn.ReLU(),
        torch.nn.Linear(s["C"] // s["r"], s["C"])).parameters()),
}
# a sample, and float16's grid (spacing 2**-6 near 22, 2**-4 near 76): relative tolerances
TOLERANCE = {"std-qk": 0.02, "f16-safe": 1e-3, "f16-safe-qfirst": 1e-3}


def test_the_table_has_every_known_row():
    assert sorted(r[0] for r in rows()) == sorted(INDEPENDENT), "rows and checks differ"


@pytest.mark.parametrize("row", rows(), ids=lambda r: r[0])
def test_number(row):
    ident, formula, sizes_text, exact_text, rounded_text = row
    sizes = sizes_of(sizes_text)
    value = formula_value(formula, sizes)
    exact = float(exact_text.replace(",", ""))
    decimals = len(exact_text.split(".")[1]) if "." in exact_text else 0
    assert abs(value - exact) <= 0.5 * 10 ** -decimals, (ident, value, exact_text)
    number, unit = re.fullmatch(r"([\d.]+)\s*(\w*|%)", rounded_text).groups()
    shown = float(number)
    places = len(number.split(".")[1]) if "." in number else 0
    assert abs(value / UNITS[unit] - shown) <= 0.5 * 10 ** -places + 1e-12, (ident, rounded_text)
    other = INDEPENDENT[ident](sizes)
    assert math.isclose(other, value, rel_tol=TOLERANCE.get(ident, 1e-9)), (ident, other, value)
