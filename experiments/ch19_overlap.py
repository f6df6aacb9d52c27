"""Chapter 19, section 8: do the ring's sends hide behind its computation? (P = 2, gloo, CPU)

One ring step at P = 2: each rank computes one (n x n) attention block for H heads, and
exchanges one K/V block (H, n, 2D) with the other rank. Timed three ways, in a rotating order
after a warm-up (gloo opens its connections lazily): compute alone, communication alone
(isend + irecv, then wait), and both (post the exchange, compute, then wait). float32, one
thread per process. Writes experiments/results/ch19_overlap.json (medians and ranges, ms).

    OMP_NUM_THREADS=1 python experiments/ch19_overlap.py
"""
import json
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist

from attnlab.distributed import launch          # the chapter's launcher (section 4.1)

SIZES = (64, 256, 512, 1024)           # block rows n; message = H * n * 2D * 4 bytes
H, D, REPS, LAUNCHES = 4, 64, 15, 3
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "ch19_overlap.json")


def _step_times(rank, n):
    g = torch.Generator().manual_seed(n)
    q = torch.randn(H, n, D, generator=g)
    kv = torch.randn(H, n, 2 * D, generator=g)
    buf = torch.empty_like(kv)
    other = 1 - rank

    def compute():
        s = q @ kv[..., :D].transpose(-1, -2)                 # (H, n, D) @ (H, D, n)
        return torch.softmax(s, dim=-1) @ kv[..., D:]         # (H, n, n) @ (H, n, D)

    def post():
        return [dist.isend(kv, dst=other), dist.irecv(buf, src=other)]

    times = {"compute": [], "comm": [], "both": []}
    order = list(times)
    for i in range(REPS + 1):                                 # i = 0 is the warm-up
        for name in order[i % 3:] + order[:i % 3]:
            dist.barrier()
            t0 = time.perf_counter()
            if name == "compute":
                compute()
            elif name == "comm":
                for r in post():
                    r.wait()
            else:
                reqs = post()
                compute()
                for r in reqs:
                    r.wait()
            if i:
                times[name].append((time.perf_counter() - t0) * 1e3)
    return times


def _rank_times(rank, world):
    """In each of the 2 ranks (launch gives one thread and a gloo group): every size's times."""
    return {n: _step_times(rank, n) for n in SIZES}


def main():
    torch.set_num_threads(1)
    runs = {n: {"compute": [], "comm": [], "both": []} for n in SIZES}
    for _ in range(LAUNCHES):
        got = launch(_rank_times, 2, timeout_s=300, group_timeout_s=60)
        for n in SIZES:
            for name in runs[n]:
                runs[n][name] += got[0][n][name] + got[1][n][name]     # both ranks
    rows = []
    for n in SIZES:
        r = runs[n]
        row = {"n": n, "MB": H * n * 2 * D * 4 / 2**20, "samples": len(r["both"])}
        for name, xs in r.items():
            row[name] = {"median": statistics.median(xs), "min": min(xs), "max": max(xs),
                         "q1": statistics.quantiles(xs, n=4)[0],
                         "q3": statistics.quantiles(xs, n=4)[2]}
        rows.append(row)
    meta = {"H": H, "D": D, "dtype": "float32", "P": 2, "reps_per_launch": REPS,
            "launches": LAUNCHES, "backend": "gloo", "cpus": os.cpu_count(),
            "threads_per_process": 1, "torch": torch.__version__,
            "measured": time.strftime("%Y-%m-%d")}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT if len(sys.argv) < 2 else sys.argv[1], "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    for row in rows:
        print(f"n={row['n']:>5} {row['MB']:.2f} MB: " + "  ".join(
            f"{k} {row[k]['median']:.2f} [{row[k]['min']:.2f}, {row[k]['max']:.2f}]"
            for k in ("compute", "comm", "both")))


if __name__ == "__main__":
    main()
