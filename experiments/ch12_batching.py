"""Chapter 12 experiment: static, Orca-style and paged continuous batching over a range of
loads, in the chapter's integer simulator (attnlab.serving).

Three schedulers on the same budget of 192 blocks of 16 KV slots (3,072 slots):
  static      a batch of B = 3,072 // 384 = 8 starts together and holds its max-length
              reservations until its longest request finishes (simulate_static);
  orca        per-iteration scheduling (a request joins or leaves after any step), each
              request still reserving max_len = 384 slots, so at most 8 run at once
              (simulate_orca: iteration-level scheduling alone);
  paged       per-iteration scheduling on the block pool, blocks taken on demand, a free
              block kept per running request, recompute preemption (simulate_continuous:
              scheduling and paging together).
Traces (attnlab.serving.request_trace): 200 requests, prompts of 8..128 tokens, outputs of
1..256, gaps between arrivals uniform in 0..2 mean_gap, seeds 0, 1, 2. The load is varied
through mean_gap: the offered load is the mean output over the mean gap, in tokens per step
(mean_gap = 0: every request at step 0, which measures each scheduler's capacity).

Break attempts, each changing one setting, at every request waiting (mean_gap = 0, the
capacity), the chapter's load (mean_gap = 4), half of it (8) and a light one (32): twice and
half the memory (384 or 96 blocks), blocks of 32 slots (96 of them, the same memory),
prompts of 8..32 or 8..512 tokens, outputs of 1..64 tokens (max_len 192), and long-tailed
outputs (geometric with mean 64, capped at 256; seeded by 1000 + seed). Everything is
integers: the results are the same on every CPU.

    OMP_NUM_THREADS=1 python experiments/ch12_batching.py            # ~50 s of CPU
    OMP_NUM_THREADS=1 python experiments/ch12_batching.py --quick --out /tmp/q.json
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import time
from pathlib import Path

import numpy as np

from attnlab.serving import (request_trace, serving_metrics, simulate_continuous, simulate_orca,
                             simulate_static)

RESULT = Path(__file__).resolve().parent / "results" / "ch12_batching.json"
BASE = dict(n=200, prompt=[8, 128], output=[1, 256], n_blocks=192, block_size=16)
FULL = dict(seeds=[0, 1, 2], mean_gaps=[0, 2, 4, 8, 12, 16, 24, 32, 64],
            breaks={"memory x2": dict(n_blocks=384), "memory /2": dict(n_blocks=96),
                    "blocks of 32": dict(n_blocks=96, block_size=32),
                    "prompts 8..32": dict(prompt=[8, 32]), "prompts 8..512": dict(prompt=[8, 512]),
                    "outputs 1..64": dict(output=[1, 64]),
                    "outputs long-tailed": dict(output_dist="geometric")},
            break_gaps=[0, 4, 8, 32], **BASE)
QUICK = dict(seeds=[0], mean_gaps=[0, 32], breaks={"memory x2": dict(n_blocks=384)},
             break_gaps=[4], **dict(BASE, n=30))
POLICIES = ("static", "orca", "paged")


def run_point(cfg, seed, mean_gap):
    """The three schedulers on one trace: {policy: metrics}, plus the trace's offered load."""
    trace = request_trace(cfg["n"], seed=seed, mean_gap=mean_gap, prompt=tuple(cfg["prompt"]),
                          output=tuple(cfg["output"]))
    if cfg.get("output_dist") == "geometric":      # long-tailed: mean output[1] / 4, capped
        rng = np.random.default_rng(1000 + seed)
        out_len = np.minimum(rng.geometric(4 / cfg["output"][1], cfg["n"]), cfg["output"][1])
        trace = [(a, p, int(o)) for (a, p, _), o in zip(trace, out_len)]
    max_len = cfg["prompt"][1] + cfg["output"][1]
    nb, bs = cfg["n_blocks"], cfg["block_size"]
    out = {}
    for name in POLICIES:
        run = (simulate_static(trace, nb, bs, max_len) if name == "static" else
               simulate_orca(trace, nb, bs, max_len) if name == "orca" else
               simulate_continuous(trace, nb, bs))
        m = serving_metrics(trace, run, nb * bs)
        out[name] = {k: float(v) for k, v in m.items()}
        if name == "paged":
            out[name]["preempted"] = int(run["preempted"])
    span = trace[-1][0] + 1                               # steps over which requests arrive
    out["offered"] = sum(o for _, _, o in trace) / span if mean_gap else None
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small run, for the unit test")
    parser.add_argument("--out", type=Path, default=None, help="where to write the JSON")
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    start = time.perf_counter()
    sweep = {str(g): {str(s): run_point(cfg, s, g) for s in cfg["seeds"]}
             for g in cfg["mean_gaps"]}
    breaks = {name: {str(g): {str(s): run_point(dict(cfg, **change), s, g) for s in cfg["seeds"]}
                     for g in cfg["break_gaps"]}
              for name, change in cfg["breaks"].items()}
    result = dict(config=cfg, quick=args.quick, sweep=sweep, breaks=breaks,
                  wall_seconds=round(time.perf_counter() - start, 1))
    out = args.out or RESULT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    paged = [np.mean([sweep[str(g)][str(s)]["paged"]["throughput"] for s in cfg["seeds"]])
             for g in cfg["mean_gaps"]]
    print(f"wrote {out} ({len(cfg['mean_gaps'])} loads x {len(cfg['seeds'])} seeds, "
          f"{result['wall_seconds']} s); paged tokens/step by load: "
          + ", ".join(f"{p:.1f}" for p in paged))
    return result


if __name__ == "__main__":
    main()
