"""Chapter 14 targets: time and peak memory of exact and sub-quadratic attention, as ratios.

One head, D = Dv = 64, float32, one thread, non-causal; N from 1024 to 16384 (the notebook
stops at 4096 to stay within its budget, and asserts nothing on time). Methods: exact
(naive: scores, softmax, product), exact (F.scaled_dot_product_attention), sliding window
(W = 128 keys, both sides), linear attention (elu + 1) and Performer (M = 256 orthogonal
random features). At each N every method is timed interleaved with the others
(benchlib.interleaved: one call of each in turn, rotated every round) and summarised by its
median; peak memory is the largest total of live allocations the PyTorch profiler records
during one call. Every target is a ratio measured in the same run, or a scaling exponent p
(time ~ N**p, the least-squares slope of log time against log N over every N measured):

- each fast method's time against exact naive attention at N = 4096 (measured in both modes):
  window <= 0.45, linear <= 0.03, Performer <= 0.2 (measured on a quiet machine in two runs:
  0.31-0.35, 0.013-0.018, 0.083-0.14: the naive baseline at N = 4096 is the noisy part); their
  peak memory at the largest N;
- exponents: naive exact p >= 1.7 (quadratic; measured 2.15-2.24), window and Performer
  p <= 1.45, linear p <= 1.3 (measured over three quiet runs: 1.09-1.24, 1.12-1.33, 1.06-1.16:
  overheads at small N and memory traffic at large N keep them above 1);
- the smallest N at which linear attention is faster than naive exact attention;
- the window's growth with L (W = 64, causal, L = 2048, 4096, 8192): p <= 1.5 (measured 1.34; a
  2x slowdown at the largest L adds 0.5);
- the chunkwise form of causal linear attention (chunks of 64, NumPy float64) against the
  token-by-token recurrence at L = 4096: at most 0.3x its time (measured 0.17x-0.25x).

Prints a table, writes benchmarks/results/subquadratic.md (not while the load average exceeds
the core count), exits 1 if a target is missed.

    OMP_NUM_THREADS=1 python benchmarks/bench_subquadratic.py           # full, a few minutes
    OMP_NUM_THREADS=1 python benchmarks/bench_subquadratic.py --quick   # N up to 4096
"""
from benchlib import (interleaved, machine_line, report,  # first: sets one BLAS thread
                      scaling_exponent)

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


def medians(fns, args, repeat):
    """{name: median seconds}, every function timed interleaved with the others."""
    timings = interleaved({name: (lambda fn=fn: fn(*args)) for name, fn in fns.items()},
                          repeat)
    return {name: t.median for name, t in timings.items()}


def main(argv: list[str]) -> int:
    torch.set_num_threads(1)
    Ns = [1024, 2048, 4096] if "--quick" in argv else [1024, 2048, 4096, 8192, 16384]
    fns = methods()
    table = {}
    torch.manual_seed(0)
    for N in Ns:
        q, k, v = torch.randn(3, 1, 1, N, D)
        times = medians(fns, (q, k, v), repeat=3 if N <= 4096 else 2)
        for name, fn in fns.items():
            table[name, N] = (times[name], peak_bytes(fn, q, k, v))
    crossover = None
    for N in [32, 64, 128, 256, 512, 1024, 2048]:
        q, k, v = torch.randn(3, 1, 1, N, D)
        pair = {"linear": fns["linear (elu+1)"], "naive": fns["exact (naive)"]}
        times = medians(pair, (q, k, v), repeat=7)
        if times["linear"] < times["naive"]:
            crossover = N
            break
    window_64 = {}                                     # the chapter's claim: linear in L
    for L in (2048, 4096, 8192):
        q, k, v = torch.randn(3, 1, 1, L, D)
        window = {"w64": lambda q, k, v: sliding_window_attention_pt(q, k, v, 64)[0]}
        window_64[L] = medians(window, (q, k, v), repeat=3)["w64"]
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(3, 4096, D))
    forms = {"recurrent": linear_attention_recurrent_np,
            "chunkwise": lambda *a: linear_attention_chunkwise_np(*a, 64)}
    times = medians(forms, (q, k, v), repeat=2)
    t_rec, t_chunk = times["recurrent"], times["chunkwise"]

    top = Ns[-1]
    naive_m = table["exact (naive)", top][1]
    naive_4096 = table["exact (naive)", 4096][0]
    rows = []                                          # (what, N, measured, target, ok)

    def ratio_row(what, n, measured, limit, at_least=False):
        ok = measured >= limit if at_least else measured <= limit
        rows.append((what, n, f"{measured:.3g}", f"{'>=' if at_least else '<='} {limit:g}", ok))

    ratio_row("SDPA peak / naive peak", top, table["exact (SDPA)", top][1] / naive_m, 0.02)
    for name, t_lim, m_lim in [(f"window W={W}", 0.45, 0.3), ("linear (elu+1)", 0.03, 0.05),
                               (f"Performer M={M}", 0.2, 0.2)]:
        ratio_row(f"{name} time / naive time", 4096, table[name, 4096][0] / naive_4096, t_lim)
        ratio_row(f"{name} peak / naive peak", top, table[name, top][1] / naive_m, m_lim)
    span = f"{Ns[0]}..{top}"
    for name, limit, at_least in [("exact (naive)", 1.7, True), (f"window W={W}", 1.45, False),
                                  ("linear (elu+1)", 1.3, False),
                                  (f"Performer M={M}", 1.45, False)]:
        p = scaling_exponent(Ns, [table[name, N][0] for N in Ns])
        ratio_row(f"{name} time exponent p", span, p, limit, at_least)
    ratio_row("smallest N where linear beats naive (measured)", "32..2048",
              float(crossover or 10**9), 1024)
    p = scaling_exponent(list(window_64), list(window_64.values()))
    ratio_row("window W=64 (causal) time exponent p (quadratic: 2)", "2048..8192", p, 1.5)
    ratio_row(f"chunkwise (C = 64) / recurrent time, NumPy (recurrent {t_rec * 1e3:.0f} ms)",
              4096, t_chunk / t_rec, 0.3)

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
            "float32, non-causal; medians of interleaved runs after a warm-up. CPU figures: "
            "they show how the costs scale, not GPU speed.\n\n" + "\n".join(lines) + "\n\n"
            + targets)
    return report("subquadratic", text, rows)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
