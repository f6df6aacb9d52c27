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
UNITS = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


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
}
TOLERANCE = {"std-qk": 0.02}     # a sample: relative tolerance


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
    number, unit = re.fullmatch(r"([\d.]+)\s*(\w*)", rounded_text).groups()
    shown = float(number)
    places = len(number.split(".")[1]) if "." in number else 0
    assert abs(value / UNITS[unit] - shown) <= 0.5 * 10 ** -places + 1e-12, (ident, rounded_text)
    other = INDEPENDENT[ident](sizes)
    assert math.isclose(other, value, rel_tol=TOLERANCE.get(ident, 1e-9)), (ident, other, value)
