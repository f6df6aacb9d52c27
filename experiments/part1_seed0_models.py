"""Part I's two trained seed-0 models, saved so that chapters 1 and 2 load them.

Chapter 1 trains its GRU encoder-decoder without attention (`Seq2SeqNoAttention`) at its
budget; chapter 2 compares it with its Bahdanau model (`Seq2SeqBahdanau`) at the same budget.
A training run's result depends on the CPU's floating-point kernels (600 steps amplify a
last-bit difference), and the two runs together take longer than a notebook's 60 s, so this
script trains them with chapter 2's exported function,
`attnlab.bahdanau_attention.train_with_budget` (seed 0, float64, one CPU thread, BUDGET:
torch.manual_seed(0), then the model, then `train_seq2seq`, exactly chapter 1's own training
cell), and saves, for each model, its weights
(float64: the loaded model is the trained one, bit for bit), its per-step training losses, its
training seconds and its exact-match accuracy per test length (`accuracy_by_length`, 200 inputs
per length, test seed 1). These are the seed-0 runs of `experiments/part1_budget_sweep.py`
("none" and "bahdanau" at 600 steps); the chapters assert that the loaded models reproduce the
stored accuracies and the sweep's seed-0 rows.

Writes experiments/results/part1_seed0_models.pt (about 1 MB; load it with
torch.load(path, weights_only=True)). Jobs are independent, so `--workers` changes the wall
time, not the results.

    OMP_NUM_THREADS=1 python experiments/part1_seed0_models.py --workers 2   # the committed file
    OMP_NUM_THREADS=1 python experiments/part1_seed0_models.py --quick --out /tmp/q.pt
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import multiprocessing
import time
from pathlib import Path

import torch

from attnlab.bahdanau_attention import Seq2SeqBahdanau, train_with_budget
from attnlab.rnn_bottleneck import (BUDGET, TEST_LENGTHS, TRAIN_LENGTHS, Seq2SeqNoAttention,
                                    accuracy_by_length)

RESULT = Path(__file__).resolve().parent / "results" / "part1_seed0_models.pt"
MODELS = {"none": Seq2SeqNoAttention, "bahdanau": Seq2SeqBahdanau}   # the sweep's names
FULL = dict(seed=0, steps=BUDGET["steps"], n_test=200)
QUICK = dict(seed=0, steps=4, n_test=4)


def run(job):
    """Train one model as chapter 2 does; return its weights, losses, seconds and accuracy."""
    name, seed, steps, n_test = job
    model, losses, seconds = train_with_budget(MODELS[name], seed=seed, dtype=torch.float64,
                                               threads=1, steps=steps)
    acc = accuracy_by_length(model, TEST_LENGTHS, n_per_length=n_test, seed=1)
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}   # float64
    return name, dict(state=state, losses=[float(x) for x in losses], seconds=round(seconds, 1),
                      accuracy=[round(float(a), 4) for a in acc],
                      params=sum(p.numel() for p in model.parameters()))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps, for the unit test")
    parser.add_argument("--out", type=Path, default=RESULT, help="where to write the .pt file")
    parser.add_argument("--workers", type=int, default=1, help="parallel processes (1 or 2)")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"--workers must be >= 1; got {args.workers}")
    cfg = QUICK if args.quick else FULL
    jobs = [(name, cfg["seed"], cfg["steps"], cfg["n_test"]) for name in ("bahdanau", "none")]
    start = time.perf_counter()
    if args.workers > 1:
        with multiprocessing.get_context("spawn").Pool(min(args.workers, len(jobs))) as pool:
            runs = dict(pool.map(run, jobs, chunksize=1))
    else:
        runs = dict(run(j) for j in jobs)
    result = dict(script="experiments/part1_seed0_models.py", seed=cfg["seed"],
                  steps=cfg["steps"], budget=dict(BUDGET), train_lengths=list(TRAIN_LENGTHS),
                  test_lengths=list(TEST_LENGTHS), n_test=cfg["n_test"], test_seed=1,
                  dtype="float64", threads=1, torch=str(torch.__version__),
                  models={name: runs[name] for name in MODELS},
                  wall_seconds=round(time.perf_counter() - start, 1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    torch.save(result, tmp)
    tmp.replace(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB): "
          + ", ".join(f"{n} {r['seconds']} s" for n, r in result["models"].items())
          + f", wall {result['wall_seconds']} s")
    return result


if __name__ == "__main__":
    main()
