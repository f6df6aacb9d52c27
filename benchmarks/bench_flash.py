"""Chapter 13 targets: memory and time of tiled attention and of PyTorch's fused SDPA.

Every target is a ratio against naive attention measured in the same run, or a scaling
exponent (see README.md). Times are medians of calls interleaved with the baseline's
(benchlib.interleaved); the table gives the range of each ratio beside its median.

- tiled (attnlab.flash_attention.flash_attention_np) peak memory <= 2% of naive
  (attnlab.scaled_dot_product.sdpa_np) at N = 4096 and <= 1% at N = 8192
  (tracemalloc, one BLAS thread, float64, one head, D = 64, blocks of 128);
- tiled time <= 0.45x naive at N = 4096 and <= 0.35x at N = 8192 (measured on a quiet machine:
  0.26x and 0.20x, so a 2x slowdown of the tiled loop fails both);
- tiled time grows as N**p with p <= 2.3 over N = 2048..8192 (quadratic work; measured 1.92);
- F.scaled_dot_product_attention time <= 0.35x naive attnlab sdpa_pt at N = 1024, <= 0.3x at
  2048 and <= 0.25x at 4096 (float32, one thread; measured 0.20x, 0.17x, 0.14x);
- SDPA's time grows as N**p with 1.7 <= p <= 2.3 over N = 1024..4096 (measured 2.09);
- SDPA's extra peak memory <= 1% of naive sdpa_pt's at N = 8192. Naive: growth of the
  peak resident memory of a fresh process (VmHWM). SDPA: all bytes its operators allocate
  (torch profiler), an upper bound on its extra peak.

Prints a table, writes benchmarks/results/flash.md (not while the load average exceeds the
core count), exits 1 if a target is missed.

    OMP_NUM_THREADS=1 python benchmarks/bench_flash.py
"""
from benchlib import (ROOT, interleaved, machine_line, ratio,  # first: sets one BLAS thread
                      report, scaling_exponent)

import os                                             # noqa: E402
import subprocess                                     # noqa: E402
import sys                                            # noqa: E402
import tracemalloc                                    # noqa: E402

import numpy as np                                    # noqa: E402
import torch                                          # noqa: E402
import torch.nn.functional as F                       # noqa: E402

from attnlab.flash_attention import flash_attention_np  # noqa: E402
from attnlab.scaled_dot_product import sdpa_np, sdpa_pt  # noqa: E402

D, BLOCK = 64, 128


def peak_bytes(fn, *args, **kwargs):
    tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    fn(*args, **kwargs)
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    return peak


# VmHWM (peak resident memory of this process's address space) rather than ru_maxrss, which
# Linux carries over from the parent across exec.
RSS_CHILD = """
import sys, torch, torch.nn.functional as F
sys.path.insert(0, {root!r})
from attnlab.scaled_dot_product import sdpa_pt
torch.set_num_threads(1)
N, which = {N}, {which!r}
small = [torch.randn(1, 1, 64, 64) for _ in range(3)]
sdpa_pt(*small); F.scaled_dot_product_attention(*small)   # load every code path first
q, k, v = (torch.randn(1, 1, N, 64) for _ in range(3))
def hwm():
    line = [l for l in open("/proc/self/status") if l.startswith("VmHWM")][0]
    return 1024 * int(line.split()[1])
before = hwm()
out = sdpa_pt(q, k, v)[0] if which == "naive" else F.scaled_dot_product_attention(q, k, v)
print(hwm() - before)
"""


def rss_growth(N, which):
    code = RSS_CHILD.format(root=str(ROOT), N=N, which=which)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return int(done.stdout.strip().splitlines()[-1])


def profiled_bytes(fn):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    return sum(max(e.self_cpu_memory_usage, 0) for e in prof.key_averages())


def main():
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    rows = []                                          # (what, N, measured, target, ok)

    def time_row(what, N, timings, method, base, limit):
        med, lo, hi = ratio(timings[method], timings[base])
        rows.append((f"{what} (naive median {timings[base].median:.3g} s)", N,
                     f"{med:.2f}x ({lo:.2f}-{hi:.2f})", f"<= {limit:g}x", med <= limit))

    tiled_median = {}
    for N, mem_target, time_target, repeat in [(2048, None, None, 5), (4096, 0.02, 0.45, 3),
                                               (8192, 0.01, 0.35, 2)]:
        q, k, v = (rng.normal(size=(N, D)) for _ in range(3))
        if mem_target is not None:
            naive_peak = peak_bytes(sdpa_np, q, k, v)
            tiled_peak = peak_bytes(flash_attention_np, q, k, v, block_q=BLOCK, block_k=BLOCK)
            share = tiled_peak / naive_peak
            rows.append((f"tiled / naive peak memory (naive {naive_peak / 2**20:.0f} MB, "
                         f"tiled {tiled_peak / 2**20:.1f} MB)", N, f"{share:.2%}",
                         f"<= {mem_target:.0%}", share <= mem_target))
        fns = {"tiled": lambda: flash_attention_np(q, k, v, block_q=BLOCK, block_k=BLOCK)}
        if time_target is not None:
            fns["naive"] = lambda: sdpa_np(q, k, v)
        t = interleaved(fns, repeat, warmup=0 if N >= 8192 else 1)
        tiled_median[N] = t["tiled"].median
        if time_target is not None:
            time_row("tiled / naive time", N, t, "tiled", "naive", time_target)
    p = scaling_exponent(list(tiled_median), list(tiled_median.values()))
    rows.append(("tiled time exponent p (time ~ N**p, quadratic work: 2)", "2048..8192",
                 f"{p:.2f}", "<= 2.3", p <= 2.3))

    sdpa_median = {}
    for N, limit in [(1024, 0.35), (2048, 0.3), (4096, 0.25)]:
        q, k, v = (torch.randn(1, 1, N, D) for _ in range(3))
        t = interleaved({"sdpa": lambda: F.scaled_dot_product_attention(q, k, v),
                         "naive": lambda: sdpa_pt(q, k, v)}, 5)
        sdpa_median[N] = t["sdpa"].median
        time_row("SDPA / naive sdpa_pt time", N, t, "sdpa", "naive", limit)
    p = scaling_exponent(list(sdpa_median), list(sdpa_median.values()))
    rows.append(("SDPA time exponent p (time ~ N**p, quadratic work: 2)", "1024..4096",
                 f"{p:.2f}", "1.7 to 2.3", 1.7 <= p <= 2.3))

    N = 8192
    naive_extra = rss_growth(N, "naive")
    q, k, v = (torch.randn(1, 1, N, D) for _ in range(3))
    F.scaled_dot_product_attention(q, k, v)
    sdpa_extra = profiled_bytes(lambda: F.scaled_dot_product_attention(q, k, v))
    sdpa_rss = rss_growth(N, "sdpa")
    share = sdpa_extra / naive_extra
    rows.append((f"SDPA / naive extra peak memory (naive {naive_extra / 2**20:.0f} MB, SDPA "
                 f"<= {sdpa_extra / 2**20:.1f} MB; SDPA RSS growth {sdpa_rss / 2**20:.1f} MB)",
                 N, f"{share:.2%}", "<= 1%", share <= 0.01))

    header = "| measurement | N | measured | target | pass |\n|---|---|---|---|---|\n"
    table = header + "".join(f"| {w} | {n} | {m} | {t} | {'yes' if ok else 'NO'} |\n"
                             for w, n, m, t, ok in rows)
    machine = machine_line()
    text = ("# FlashAttention benchmark (chapter 13)\n\n"
            f"`benchmarks/bench_flash.py` on {machine}. One head, D = {D}, tiled blocks "
            f"{BLOCK} x {BLOCK}; NumPy in float64, PyTorch in float32. Times: medians of calls "
            "interleaved with the baseline's, each ratio's range in brackets. These are CPU "
            "figures: they show memory and scaling, not GPU speed.\n\n" + table)
    return report("flash", text, rows)


if __name__ == "__main__":
    sys.exit(main())
