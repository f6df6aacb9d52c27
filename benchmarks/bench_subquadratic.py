"""Chapter 14 at large N: time and peak memory of exact and sub-quadratic attention.

One head, D = Dv = 64, float32, one thread, non-causal; N from 1024 to 16384 (the notebook
stops at 4096 to stay within its 60 s). Methods: exact (naive: scores, softmax, product),
exact (F.scaled_dot_product_attention), sliding window (w = 128, both sides), linear
attention (elu + 1) and Performer (M = 256 orthogonal random features). Time is the best
of a few runs; peak memory is the largest total of live allocations the PyTorch profiler
records during one call. Targets are ratios against exact naive attention in the same run,
at the largest N, plus the measured crossover N of linear attention, plus the window's
growth with L (w = 64, causal, as in the chapter's section 10): 4x the L in under 10x the
time, where a quadratic method takes 16x.

    OMP_NUM_THREADS=1 python benchmarks/bench_subquadratic.py           # full, about 1 min
    OMP_NUM_THREADS=1 python benchmarks/bench_subquadratic.py --quick   # N up to 4096
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from attnlab.subquadratic_attention import (best_time, gaussian_directions_np,
                                            linear_attention_pt, peak_bytes,
                                            performer_attention_pt, sliding_window_attention_pt)

D, W, M = 64, 128, 256
RESULTS = Path(__file__).resolve().parent / "results" / "subquadratic.md"


def methods():
    omega = torch.from_numpy(gaussian_directions_np(M, D, np.random.default_rng(7))).float()

    def naive(q, k, v):
        scores = q @ k.transpose(-2, -1) / D**0.5   # (B, H, L, D) @ (B, H, D, S) -> (B, H, L, S)
        return torch.softmax(scores, -1) @ v        # (B, H, L, S) @ (B, H, S, Dv) -> (B, H, L, Dv)

    return {
        "exact (naive)": naive,
        "exact (SDPA)": F.scaled_dot_product_attention,
        f"window w={W}": lambda q, k, v: sliding_window_attention_pt(q, k, v, W, False)[0],
        "linear (elu+1)": lambda q, k, v: linear_attention_pt(q, k, v)[0],
        f"Performer M={M}": lambda q, k, v: performer_attention_pt(q, k, v, omega)[0],
    }


def main(argv: list[str]) -> int:
    torch.set_num_threads(1)
    Ns = [1024, 2048, 4096] if "--quick" in argv else [1024, 2048, 4096, 8192, 16384]
    fns = methods()
    table = {}
    torch.manual_seed(0)
    for N in Ns:
        q, k, v = torch.randn(3, 1, 1, N, D)
        for name, fn in fns.items():
            repeats = 1 if N >= 8192 and name.startswith("exact (naive)") else 3
            table[name, N] = (best_time(fn, q, k, v, repeats=repeats), peak_bytes(fn, q, k, v))
    crossover = None
    for N in [32, 64, 128, 256, 512, 1024, 2048]:
        q, k, v = torch.randn(3, 1, 1, N, D)
        t_naive = best_time(fns["exact (naive)"], q, k, v, repeats=7)
        t_lin = best_time(fns["linear (elu+1)"], q, k, v, repeats=7)
        if t_lin < t_naive:
            crossover = N
            break

    window_64 = {}                                    # the chapter's claim: linear in L
    for L in (2048, 8192):
        q, k, v = torch.randn(3, 1, 1, L, D)
        window_64[L] = best_time(lambda q, k, v: sliding_window_attention_pt(q, k, v, 64)[0],
                                 q, k, v)

    top = Ns[-1]
    naive_t, naive_m = table["exact (naive)", top]
    targets = [  # (what, measured, target, passed)
        (f"SDPA peak / naive peak at N={top}", table["exact (SDPA)", top][1] / naive_m, 0.02),
        (f"window time / naive at N={top}", table[f"window w={W}", top][0] / naive_t, 0.5),
        (f"window peak / naive at N={top}", table[f"window w={W}", top][1] / naive_m, 0.3),
        (f"linear time / naive at N={top}", table["linear (elu+1)", top][0] / naive_t, 0.1),
        (f"linear peak / naive at N={top}", table["linear (elu+1)", top][1] / naive_m, 0.05),
        (f"Performer time / naive at N={top}", table[f"Performer M={M}", top][0] / naive_t, 0.5),
        (f"Performer peak / naive at N={top}", table[f"Performer M={M}", top][1] / naive_m, 0.2),
        ("linear faster than naive from N (measured)", float(crossover or 10**9), 1024.0),
        ("window w=64 (causal) time, L=8192 / L=2048 (quadratic: 16)",
         window_64[8192] / window_64[2048], 10.0),
    ]
    lines = ["# Chapter 14: sub-quadratic attention, measured", "",
             f"One head, D = Dv = {D}, float32, one thread, torch {torch.__version__}.", "",
             "| method | " + " | ".join(f"N = {N}" for N in Ns) + " |",
             "|---|" + "---|" * len(Ns)]
    for name in fns:
        cells = [f"{table[name, N][0] * 1e3:.1f} ms, {table[name, N][1] / 2**20:.1f} MiB"
                 for N in Ns]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "| target | measured | at most | pass |", "|---|---|---|---|"]
    failed = 0
    for what, measured, limit in targets:
        ok = measured <= limit
        failed += not ok
        lines.append(f"| {what} | {measured:.3g} | {limit:g} | {'pass' if ok else 'FAIL'} |")
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text, encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
