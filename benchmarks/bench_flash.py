"""Chapter 13 targets: memory and time of tiled attention and of PyTorch's fused SDPA.

Every target is a ratio against naive attention measured in the same run (see README.md):

- tiled (attnlab.flash_attention.flash_attention_np) peak memory <= 2% of naive
  (attnlab.scaled_dot_product.sdpa_np) at N = 4096 and <= 1% at N = 8192
  (tracemalloc, one BLAS thread, float64, one head, D = 64, blocks of 128);
- tiled time <= 1.5x naive at both sizes;
- F.scaled_dot_product_attention time <= 0.6x naive attnlab sdpa_pt for N >= 1024 (float32,
  one thread);
- SDPA's extra peak memory <= 1% of naive sdpa_pt's at N = 8192. Naive: growth of the
  peak resident memory of a fresh process (VmHWM). SDPA: all bytes its operators allocate
  (torch profiler), an upper bound on its extra peak.

Prints a table, writes benchmarks/results/flash.md, exits 1 if a target is missed.

    OMP_NUM_THREADS=1 python benchmarks/bench_flash.py
"""
from benchlib import ROOT, best_time, machine_line, report  # first: sets one BLAS thread

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

    for N, mem_target in [(4096, 0.02), (8192, 0.01)]:
        q, k, v = (rng.normal(size=(N, D)) for _ in range(3))
        naive_peak = peak_bytes(sdpa_np, q, k, v)
        tiled_peak = peak_bytes(flash_attention_np, q, k, v, block_q=BLOCK, block_k=BLOCK)
        ratio = tiled_peak / naive_peak
        rows.append((f"tiled / naive peak memory (naive {naive_peak / 2**20:.0f} MB, "
                     f"tiled {tiled_peak / 2**20:.1f} MB)", N, f"{ratio:.2%}",
                     f"<= {mem_target:.0%}", ratio <= mem_target))
        repeat = 3 if N <= 4096 else 1
        t_naive = best_time(lambda: sdpa_np(q, k, v), repeat)[0]
        t_tiled = best_time(lambda: flash_attention_np(q, k, v, block_q=BLOCK, block_k=BLOCK),
                            repeat)[0]
        rows.append((f"tiled / naive time (naive {t_naive:.2f} s)", N,
                     f"{t_tiled / t_naive:.2f}x", "<= 1.5x", t_tiled / t_naive <= 1.5))

    for N in [1024, 2048, 4096]:
        q, k, v = (torch.randn(1, 1, N, D) for _ in range(3))
        sdpa_pt(q, k, v)
        F.scaled_dot_product_attention(q, k, v)
        t_naive = best_time(lambda: sdpa_pt(q, k, v), 3)[0]
        t_sdpa = best_time(lambda: F.scaled_dot_product_attention(q, k, v), 3)[0]
        rows.append((f"SDPA / naive sdpa_pt time (naive {1e3 * t_naive:.0f} ms)", N,
                     f"{t_sdpa / t_naive:.2f}x", "<= 0.6x", t_sdpa / t_naive <= 0.6))

    N = 8192
    naive_extra = rss_growth(N, "naive")
    q, k, v = (torch.randn(1, 1, N, D) for _ in range(3))
    F.scaled_dot_product_attention(q, k, v)
    sdpa_extra = profiled_bytes(lambda: F.scaled_dot_product_attention(q, k, v))
    sdpa_rss = rss_growth(N, "sdpa")
    ratio = sdpa_extra / naive_extra
    rows.append((f"SDPA / naive extra peak memory (naive {naive_extra / 2**20:.0f} MB, SDPA "
                 f"<= {sdpa_extra / 2**20:.1f} MB; SDPA RSS growth {sdpa_rss / 2**20:.1f} MB)",
                 N, f"{ratio:.2%}", "<= 1%", ratio <= 0.01))

    header = "| measurement | N | measured | target | pass |\n|---|---|---|---|---|\n"
    table = header + "".join(f"| {w} | {n} | {m} | {t} | {'yes' if ok else 'NO'} |\n"
                             for w, n, m, t, ok in rows)
    machine = machine_line()
    text = ("# FlashAttention benchmark (chapter 13)\n\n"
            f"`benchmarks/bench_flash.py` on {machine}. One head, D = {D}, tiled blocks "
            f"{BLOCK} x {BLOCK}; NumPy in float64, PyTorch in float32. These are CPU figures: "
            "they show memory and exactness, not GPU speed.\n\n" + table)
    return report("flash", text, rows)


if __name__ == "__main__":
    sys.exit(main())
