"""Chapter 9 experiment: a small Transformer on Part I's task, beside the RNN and Bahdanau.

Task, data, training loop and metric are chapter 1's (`attnlab.rnn_bottleneck`): reverse a
string of 3-14 digits, Adam with gradient clipping at 1, a fresh seeded batch per step,
exact-match accuracy per source length with greedy decoding (`accuracy_by_length`, 200 test
strings per length, test seed 1). Every model gets chapter 1's budget: 600 steps of batch 64,
width E = 64, float64, one CPU thread, and the same seeds:

- rnn: chapter 1's GRU encoder-decoder without attention (lr 5e-3, chapter 1's choice);
- bahdanau: chapter 2's GRU encoder-decoder with additive attention (lr 5e-3);
- transformer: chapter 9's Seq2SeqTransformer (2 pre-LN encoder blocks, 2 decoder blocks,
  H = 4, FFN 4E, sinusoidal positions, no dropout), lr from TRANSFORMER (constant, no warm-up).

For seed 0 the transformer's weights are also saved (float32, small) so that the chapter can
show its cross-attention maps without retraining. Writes
experiments/results/ch09_transformer_vs_rnn.json (or --out) with per-seed accuracies, the
loss curves (mean of every 25 steps), parameter counts and seconds.

    OMP_NUM_THREADS=1 python experiments/ch09_transformer_vs_rnn.py --workers 2   # full run
    OMP_NUM_THREADS=1 python experiments/ch09_transformer_vs_rnn.py --quick --out /tmp/q.json
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import multiprocessing
import time
from pathlib import Path

import numpy as np
import torch

from attnlab.bahdanau_attention import Seq2SeqBahdanau
from attnlab.rnn_bottleneck import (BUDGET, TEST_LENGTHS, TRAIN_LENGTHS, V, Seq2SeqNoAttention,
                                    accuracy_by_length, train_seq2seq)
from attnlab.transformer_block import TRANSFORMER, Seq2SeqTransformer

RESULTS = Path(__file__).resolve().parent / "results"
RESULT = RESULTS / "ch09_transformer_vs_rnn.json"
WEIGHTS = RESULTS / "ch09_transformer_seed0.pt"
MODELS = ("rnn", "bahdanau", "transformer")
FULL = dict(seeds=[0, 1, 2], steps=BUDGET["steps"], n_test=200)
QUICK = dict(seeds=[0], steps=4, n_test=4)
CURVE_EVERY = 25


def build(name):
    """A fresh model of the named kind, float64, created right after torch.manual_seed."""
    if name == "rnn":
        return Seq2SeqNoAttention(V, BUDGET["E"]).double(), BUDGET["lr"]
    if name == "bahdanau":
        return Seq2SeqBahdanau(V, BUDGET["E"]).double(), BUDGET["lr"]
    t = TRANSFORMER
    model = Seq2SeqTransformer(V, BUDGET["E"], H=t["H"], n_layers=t["n_layers"],
                               norm_first=t["norm_first"])
    return model.double(), t["lr"]


def run(job):
    """Train one (model, seed) at chapter 1's budget; return its results."""
    name, seed, steps, n_test, save = job
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    model, lr = build(name)
    start = time.perf_counter()
    losses = train_seq2seq(model, steps, seed=seed, batch_size=BUDGET["batch_size"], lr=lr,
                           min_len=TRAIN_LENGTHS[0], max_len=TRAIN_LENGTHS[1])
    seconds = time.perf_counter() - start
    acc = accuracy_by_length(model, TEST_LENGTHS, n_per_length=n_test, seed=1)
    curve = [float(np.mean(losses[i:i + CURVE_EVERY])) for i in range(0, steps, CURVE_EVERY)]
    if save:
        state = {k: v.float() for k, v in model.state_dict().items()}
        torch.save(state, save)
    return dict(model=name, seed=seed, lr=lr, accuracy=[round(float(a), 4) for a in acc],
                loss_curve=[round(c, 4) for c in curve],
                params=sum(p.numel() for p in model.parameters()), seconds=round(seconds, 1))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps, for the unit test")
    parser.add_argument("--out", type=Path, default=None, help="where to write the JSON")
    parser.add_argument("--workers", type=int, default=1, help="parallel processes")
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    out = args.out or RESULT
    weights = None if args.quick else WEIGHTS
    jobs = [(name, seed, cfg["steps"], cfg["n_test"],
             str(weights) if (weights and name == "transformer" and seed == 0) else None)
            for name in MODELS for seed in cfg["seeds"]]
    jobs.sort(key=lambda j: j[0] != "transformer")        # the longest jobs first
    start = time.perf_counter()
    if args.workers > 1:
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            runs = pool.map(run, jobs, chunksize=1)
    else:
        runs = [run(j) for j in jobs]
    runs.sort(key=lambda r: (MODELS.index(r["model"]), r["seed"]))
    result = dict(task="reverse a digit string (chapter 1)", budget=BUDGET,
                  train_lengths=list(TRAIN_LENGTHS), test_lengths=list(TEST_LENGTHS),
                  transformer=TRANSFORMER, seeds=cfg["seeds"], steps=cfg["steps"],
                  n_test=cfg["n_test"], test_seed=1, curve_every=CURVE_EVERY,
                  torch=torch.__version__, runs=runs,
                  wall_seconds=round(time.perf_counter() - start, 1))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} ({len(runs)} runs, {result['wall_seconds']} s)")
    return result


if __name__ == "__main__":
    main()
