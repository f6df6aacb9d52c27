"""Chapter 14 targets: time and peak memory of exact and sub-quadratic attention, as ratios.

One head, D = Dv = 64, float32, one thread, non-causal; N from 1024 to 16384 (the notebook
stops at 4096 to stay within its budget, and asserts nothing on time). Methods: exact
(naive: scores, softmax, product), exact (F.scaled_dot_product_attention), sliding window
(W = 128 keys, both sides), linear attention (elu + 1) and Performer (M = 256 orthogonal
random features). Time is the best of a few runs (benchlib.best_time); peak memory is the
largest total of live allocations the PyTorch profiler records during one call. Every target
is a ratio measured in the same run:

- each fast method's time and peak memory against exact naive attention at the largest N;
- the smallest N at which linear attention is faster than naive exact attention;
- the window's growth with L (W = 64, causal): 4x the L in under 10x the time (quadratic: 16x);
- the chunkwise form of causal linear attention (chunks of 64, NumPy float64) against the
  token-by-token recurrence at L = 4096: at most 0.5x its time.

Prints a table, writes benchmarks/results/subquadratic.md, exits 1 if a target is missed.

    OMP_NUM_THREADS=1 python benchmarks/bench_subquadratic.py           # full, a few minutes
    OMP_NUM_THREADS=1 python benchmarks/bench_subquadratic.py --quick   # N up to 4096
"""
from benchlib import best_time, machine_line, report  # first: sets one BLAS thread

import sys                                            # noqa: E402

import numpy as np                                    # noqa: E402
import torch                                          # noqa: E402
import torch.nn.functional as F                       # noqa: E402

from attnlab.subquadratic_attention import (gaussian_directions_np,  # noqa: E402
                                            linear_attention_chunkwise_np, linear_attention_pt,
                                            linear_attention_recurrent_np, peak_bytes,
                                            performer_attention_pt, sliding_window_attention_pt)

D, W, M = 64, 128, 256


def methods():
    omega = torch.from_numpy(gaussian_directions_np(M, D, np.random.default_rng(7))).float()

    def naive(q, k, v):
        scores = q @ k.transpose(-2, -1) / D**0.5   # (B, H, L, D) @ (B, H, D, S) -> (B, H, L, S)
        return torch.softmax(scores, -1) @ v        # (B, H, L, S) @ (B, H, S, Dv) -> (B, H, L, Dv)

    return {
        "exact (naive)": naive,
        "exact (SDPA)": F.scaled_dot_product_attention,
        f"window W={W}": lambda q, k, v: sliding_window_attention_pt(q, k, v, W, False)[0],
        "linear (elu+1)": lambda q, k, v: linear_attention_pt(q, k, v)[0],
        f"Performer M={M}": lambda q, k, v: performer_attention_pt(q, k, v, omega)[0],
    }


def timed(fn, *args, repeat=3):
    fn(*args)                                          # warm-up: first-call costs aside
    return best_time(lambda: fn(*args), repeat)[0]


def main(argv: list[str]) -> int:
    torch.set_num_threads(1)
    Ns = [1024, 2048, 4096] if "--quick" in argv else [1024, 2048, 4096, 8192, 16384]
    fns = methods()
    table = {}
    torch.manual_seed(0)
    for N in Ns:
        q, k, v = torch.randn(3, 1, 1, N, D)
        for name, fn in fns.items():
            repeat = 1 if N >= 8192 and name == "exact (naive)" else 3
            table[name, N] = (timed(fn, q, k, v, repeat=repeat), peak_bytes(fn, q, k, v))
    crossover = None
    for N in [32, 64, 128, 256, 512, 1024, 2048]:
        q, k, v = torch.randn(3, 1, 1, N, D)
        if timed(fns["linear (elu+1)"], q, k, v, repeat=7) < \
                timed(fns["exact (naive)"], q, k, v, repeat=7):
            crossover = N
            break
    window_64 = {}                                     # the chapter's claim: linear in L
    for L in (2048, 8192):
        q, k, v = torch.randn(3, 1, 1, L, D)
        window_64[L] = timed(lambda q, k, v: sliding_window_attention_pt(q, k, v, 64)[0],
                             q, k, v)
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(3, 4096, D))
    t_rec = timed(linear_attention_recurrent_np, q, k, v, repeat=1)
    t_chunk = timed(lambda *a: linear_attention_chunkwise_np(*a, 64), q, k, v)

    top = Ns[-1]
    naive_t, naive_m = table["exact (naive)", top]
    rows = []                                          # (what, N, measured, target, ok)

    def ratio_row(what, n, measured, limit):
        rows.append((what, n, f"{measured:.3g}", f"<= {limit:g}", measured <= limit))

    ratio_row("SDPA peak / naive peak", top, table["exact (SDPA)", top][1] / naive_m, 0.02)
    for name, t_lim, m_lim in [(f"window W={W}", 0.5, 0.3), ("linear (elu+1)", 0.1, 0.05),
                               (f"Performer M={M}", 0.5, 0.2)]:
        ratio_row(f"{name} time / naive time", top, table[name, top][0] / naive_t, t_lim)
        ratio_row(f"{name} peak / naive peak", top, table[name, top][1] / naive_m, m_lim)
    ratio_row("smallest N where linear beats naive (measured)", "32..2048",
              float(crossover or 10**9), 1024)
    ratio_row("window W=64 (causal) time, L = 8192 / L = 2048 (quadratic: 16)", "2048, 8192",
              window_64[8192] / window_64[2048], 10)
    ratio_row(f"chunkwise (C = 64) / recurrent time, NumPy (recurrent {t_rec * 1e3:.0f} ms)",
              4096, t_chunk / t_rec, 0.5)

    lines = ["| method | " + " | ".join(f"N = {N}" for N in Ns) + " |",
             "|---|" + "---|" * len(Ns)]
    for name in fns:
        cells = [f"{table[name, N][0] * 1e3:.1f} ms, {table[name, N][1] / 2**20:.1f} MiB"
                 for N in Ns]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    header = "| target | N | measured | target | pass |\n|---|---|---|---|---|\n"
    targets = header + "".join(f"| {w} | {n} | {m} | {t} | {'yes' if ok else 'NO'} |\n"
                               for w, n, m, t, ok in rows)
    text = ("# Sub-quadratic attention benchmark (chapter 14)\n\n"
            f"`benchmarks/bench_subquadratic.py` on {machine_line()}. One head, D = Dv = {D}, "
            "float32, non-causal; best of a few runs after a warm-up. CPU figures: they show "
            "how the costs scale, not GPU speed.\n\n" + "\n".join(lines) + "\n\n" + targets)
    return report("subquadratic", text, rows)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
