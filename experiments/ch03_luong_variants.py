"""Chapter 3's six Luong variants at 150 steps, seeds 0, 1 and 2, saved so that the notebook loads them.

Chapter 3's section 6 compares chapter 1's model without attention and five Luong variants
(`attnlab.luong_attention.VARIANTS`) under one reduced budget (`COMPARE`, 150 steps); section 7
reads where the trained models look. Training six models takes longer than a notebook's 60 s, so
this script trains them with the chapter's own exported function,
`attnlab.luong_attention.train_variant` (float32, one CPU thread), on seeds 0, 1 and 2, and
saves, for each run, its per-step training losses, its training seconds, its exact-match
accuracy per test length (`accuracy_by_length`, 200 inputs per length, test seed 1) and, for
the attention variants, section 7's alignment counts (`mirror_offsets` on 200 strings of length
12, numpy seed 7: how many output steps put their largest weight one position before, on, or
one after the mirrored digit). For seed 0 it also saves the weights (float32, as trained: the
loaded model is the trained one, bit for bit). These runs follow the recipe of the "luong" part of
`experiments/part1_budget_sweep.py`; tests/test_luong_attention.py checks that the two files
agree.

Writes experiments/results/ch03_luong_variants.pt (about 1.6 MB; load it with
torch.load(path, weights_only=True)). Jobs are independent, so `--workers` changes the wall
time, not the results.

    OMP_NUM_THREADS=1 python experiments/ch03_luong_variants.py              # the committed file
    OMP_NUM_THREADS=1 python experiments/ch03_luong_variants.py --quick --out /tmp/q.pt
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import multiprocessing
import time
from pathlib import Path

import torch

from attnlab.luong_attention import (COMPARE, VARIANTS, mirror_offsets, offset_counts,
                                     train_variant)
from attnlab.rnn_bottleneck import TEST_LENGTHS, TRAIN_LENGTHS, accuracy_by_length

RESULT = Path(__file__).resolve().parent / "results" / "ch03_luong_variants.pt"
BASELINE = "no attention (ch. 1)"            # no attention weights: no alignment counts
FULL = dict(seeds=[0, 1, 2], steps=COMPARE["steps"], n_test=200, align=dict(n=200, length=12, seed=7))
QUICK = dict(seeds=[0, 1], steps=3, n_test=4, align=dict(n=4, length=5, seed=7))


def run(job):
    """Train one variant on one seed as chapter 3 does; return what the chapter shows."""
    name, seed, cfg = job
    model, losses, seconds = train_variant(name, seed=seed, threads=1, steps=cfg["steps"])
    acc = accuracy_by_length(model, TEST_LENGTHS, n_per_length=cfg["n_test"], seed=1)
    out = dict(seed=seed, losses=[float(x) for x in losses], seconds=round(seconds, 1),
               accuracy=[round(float(a), 4) for a in acc])   # k / n_test: exact in 4 decimals
    if name != BASELINE:
        out["offsets"] = offset_counts(mirror_offsets(model, **cfg["align"]))
    if seed == 0:
        out["state"] = {k: v.detach().clone() for k, v in model.state_dict().items()}  # float32
        out["params"] = sum(p.numel() for p in model.parameters())
    return name, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps, for the unit test")
    parser.add_argument("--out", type=Path, default=RESULT, help="where to write the .pt file")
    parser.add_argument("--workers", type=int, default=1, help="parallel processes")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"--workers must be >= 1; got {args.workers}")
    cfg = QUICK if args.quick else FULL
    jobs = [(name, seed, cfg) for seed in cfg["seeds"] for name in VARIANTS]
    start = time.perf_counter()
    if args.workers > 1:
        with multiprocessing.get_context("spawn").Pool(min(args.workers, len(jobs))) as pool:
            done = pool.map(run, jobs, chunksize=1)
    else:
        done = [run(j) for j in jobs]
    runs = {name: sorted((out for n, out in done if n == name), key=lambda r: r["seed"])
            for name in VARIANTS}
    models = {name: dict(rs[0]) for name, rs in runs.items()}   # seed 0, with its weights
    for rs in runs.values():
        del rs[0]["state"], rs[0]["params"]                       # runs: every seed, no weights
    result = dict(script="experiments/ch03_luong_variants.py", seeds=cfg["seeds"],
                  steps=cfg["steps"], budget=dict(COMPARE, steps=cfg["steps"]),
                  train_lengths=list(TRAIN_LENGTHS), test_lengths=list(TEST_LENGTHS),
                  n_test=cfg["n_test"], test_seed=1, align=dict(cfg["align"]),
                  dtype="float32", threads=1, torch=str(torch.__version__),
                  models=models, runs=runs, wall_seconds=round(time.perf_counter() - start, 1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    torch.save(result, tmp)
    tmp.replace(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB): seed-0 training "
          f"{sum(m['seconds'] for m in models.values()):.1f} s, wall {result['wall_seconds']} s")
    return result


if __name__ == "__main__":
    main()
