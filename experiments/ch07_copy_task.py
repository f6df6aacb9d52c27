"""Chapter 7's copy-task models (one head against two, 3 seeds each), saved for the notebook.

Section 7 of chapter 7 trains `MultiHeadAttention(16, H)` for H = 1 and H = 2 on a task that
needs two attention patterns at once (copy the previous token's content and the first
token's), with the chapter's exported `attnlab.multi_head_attention.train_copy` (Adam,
learning rate 0.03, 150 steps of 64 fresh sequences, float32, one CPU thread), seeds 0, 1
and 2, and measures each model with `copy_test_mse` (1,024 new sequences, test seed 999).
Float32 training ends in slightly different places on different CPUs, so the notebook loads
these models, checks that they reproduce the stored test errors on the reader's CPU, and
prints and asserts the stored numbers.

Saves, per model ("H=1 seed=0", ...), its float32 weights, its loss per step, its test MSE
and its training seconds, into experiments/results/ch07_copy_task.pt (about 50 kB; load it
with torch.load(path, weights_only=True)).

    OMP_NUM_THREADS=1 python experiments/ch07_copy_task.py            # the committed file
    OMP_NUM_THREADS=1 python experiments/ch07_copy_task.py --quick --out /tmp/q.pt
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import time
from pathlib import Path

import torch

from attnlab.multi_head_attention import copy_test_mse, train_copy

RESULT = Path(__file__).resolve().parent / "results" / "ch07_copy_task.pt"
FULL = dict(seeds=[0, 1, 2], steps=150)
QUICK = dict(seeds=[0], steps=3)
HEADS = (1, 2)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps, for the unit test")
    parser.add_argument("--out", type=Path, default=RESULT, help="where to write the .pt file")
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    torch.set_num_threads(1)
    start = time.perf_counter()
    runs = {}
    for H in HEADS:
        for seed in cfg["seeds"]:
            t0 = time.perf_counter()
            model, curve = train_copy(H, seed, steps=cfg["steps"])
            seconds = time.perf_counter() - t0
            runs[f"H={H} seed={seed}"] = dict(
                state={k: v.detach().clone() for k, v in model.state_dict().items()},
                curve=[float(x) for x in curve], test_mse=float(copy_test_mse(model)),
                seconds=round(seconds, 1))
            print(f"H={H} seed={seed}: test MSE {runs[f'H={H} seed={seed}']['test_mse']:.6f} "
                  f"({seconds:.1f} s)")
    result = dict(script="experiments/ch07_copy_task.py", heads=list(HEADS), seeds=cfg["seeds"],
                  steps=cfg["steps"], batch=64, lr=0.03, n_test=1024, test_seed=999,
                  dtype="float32", threads=1, torch=str(torch.__version__), runs=runs,
                  wall_seconds=round(time.perf_counter() - start, 1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    torch.save(result, tmp)
    tmp.replace(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e3:.0f} kB), "
          f"wall {result['wall_seconds']} s")
    return result


if __name__ == "__main__":
    main()
