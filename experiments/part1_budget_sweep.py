"""Part I sweep: exact match against training budget, width and seed (chapters 1-3).

Chapters 1-3 each use one budget (600 steps, E = 64) on one seed: chapters 1 and 2 load their
seed-0 models from experiments/part1_seed0_models.py, chapter 3 trains inside its 60 s.
This script trains the same models, with the same data, loop and metric
(`attnlab.rnn_bottleneck.train_seq2seq` and `accuracy_by_length`), over a grid:

- budget: no attention (GRU), no attention (plain tanh RNN: the ablation of chapter 1's
  section 8) and Bahdanau attention, E = 64, evaluated at several step counts of one run per
  seed (the loop has a constant learning rate and a fresh seeded batch per step, so the
  checkpoint at step k of a longer run IS the k-step run); for the no-attention models also the
  gradient reaching each source position (chapter 1's section 8), at initialisation and at
  every checkpoint. At every checkpoint, for every model, also chapter 1's section 7 ("which
  digits get lost": teacher-forced digits right per source position, `by_source`, counts of
  `probe_n` inputs of length `probe_length`) and the greedy outputs' digits right per length
  (`decode`); for Bahdanau, chapter 2's section 8 on the same outputs (`decode`: the arg-max
  alignment rules, the mean largest weight and the first-error counts), also at step 0;
- width: no attention and Bahdanau at 600 steps with other state widths E;
- luong: chapter 3's six variants at its reduced budget of 150 steps.

Every run is seeded (torch.manual_seed(seed) before the model is built, the batches from
numpy's default_rng(seed)) and runs on one CPU thread; chapters 1 and 2 train in float64,
chapter 3 in float32, and so does this script. Seed 0 reproduces the notebooks' runs exactly.
Jobs are independent, so `--workers` changes the wall time, not the results. The analyses only
evaluate the model (no gradient step, no random draw from the training generators), so adding
them changed no accuracy or gradient of a run.

Full run (the committed results: 65 minutes of wall time with 2 workers on a busy 2-core machine):
    OMP_NUM_THREADS=1 python experiments/part1_budget_sweep.py --workers 2
Reduced size (what tests/test_rnn_bottleneck.py runs, a few seconds):
    OMP_NUM_THREADS=1 python experiments/part1_budget_sweep.py --quick --out /tmp/quick.json
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
from attnlab.luong_attention import LuongSeq2Seq
from attnlab.rnn_bottleneck import (BUDGET, TEST_LENGTHS, TRAIN_LENGTHS, V, Seq2SeqNoAttention,
                                    accuracy_by_length, encode_batch, gradient_by_position,
                                    make_pairs, train_seq2seq)

RESULTS = Path(__file__).resolve().parent / "results" / "part1_budget_sweep.json"

# checkpoints: model -> the step counts evaluated (one run per seed, to the largest);
# widths: model -> the widths E trained for width_steps (E = 64 is the budget part's run)
FULL = dict(seeds=[0, 1, 2],
            checkpoints={"none": [200, 600, 1000, 2000], "none_rnn": [600, 2000],
                         "bahdanau": [200, 600, 1000, 2000]},
            widths={"none": [32, 128], "bahdanau": [32, 128]}, width_steps=600,
            luong_steps=150, n_per_length=200, grad_lengths=[14, 30], grad_n=256,
            probe_length=14, probe_n=500)
QUICK = dict(seeds=[0, 1],
             checkpoints={"none": [2, 4], "none_rnn": [2, 4], "bahdanau": [2, 4]},
             widths={"none": [16], "bahdanau": [16]}, width_steps=2,
             luong_steps=2, n_per_length=5, grad_lengths=[6], grad_n=4,
             probe_length=6, probe_n=4)

MODELS = {
    "none": lambda E: Seq2SeqNoAttention(V, E),
    "none_rnn": lambda E: Seq2SeqNoAttention(V, E, cell="rnn"),
    "bahdanau": lambda E: Seq2SeqBahdanau(V, E),
}
LUONG = {                       # chapter 3's section 6, in its order
    "no attention (ch. 1)": lambda E: Seq2SeqNoAttention(V, E),
    "dot": lambda E: LuongSeq2Seq(E, "dot", input_feeding=False),
    "general": lambda E: LuongSeq2Seq(E, "general", input_feeding=False),
    "concat": lambda E: LuongSeq2Seq(E, "concat", input_feeding=False),
    "local-p (general)": lambda E: LuongSeq2Seq(E, "general", local=True, input_feeding=False),
    "general + input feeding": lambda E: LuongSeq2Seq(E, "general", input_feeding=True),
}


def gradient_profiles(model, grid):
    """Chapter 1's section 8: mean ||d loss / d x_j|| per source position, for each length."""
    out = {}
    for S in grid["grad_lengths"]:
        batch = encode_batch(make_pairs(grid["grad_n"], S, S, np.random.default_rng([3, S])))
        model.zero_grad()
        out[str(S)] = [float(g) for g in gradient_by_position(model, *batch)]
        model.zero_grad()
    return out


def lost_digits(model, grid):
    """Chapter 1's section 7: per source position 1..S, how many of probe_n digits are right.

    Teacher forcing (the gold prefix), so each output position t measures only whether the model
    still holds source digit S-1-t; inputs from default_rng([2, S]), as in the chapter.
    """
    S = grid["probe_length"]
    src, src_len, tgt_in, tgt_out = encode_batch(
        make_pairs(grid["probe_n"], S, S, np.random.default_rng([2, S])))
    with torch.no_grad():
        predicted = model(src, src_len, tgt_in).argmax(-1)            # (B, L)
    by_output = (predicted == tgt_out)[:, :S].sum(0)                  # output t = 0..S-1
    return [int(c) for c in by_output.flip(0)]                        # output t <-> source S-1-t


def decode_analyses(model, grid):
    """Greedy outputs on accuracy_by_length's test sets (seed 1): counts per length n.

    digits: digits right (of n_per_length * n). For a model that returns attention weights
    (chapter 2's section 8), with argmax = the arg-max of a step's weights: textbook = steps
    i < n with argmax = n-1-i (of n_per_length * n); previous = steps i <= n with
    argmax = min(n-i, n-1) (of n_per_length * (n+1)); peak = the mean largest weight;
    first_errors = wrong outputs, off_at_first_error = those off the previous-digit rule at
    their first wrong token; right_steps = the steps before the first error (all n+1 for a right
    output), off_while_right = those off the rule.
    """
    out = {k: [] for k in ("digits", "textbook", "previous", "peak", "first_errors",
                           "off_at_first_error", "right_steps", "off_while_right")}
    for n in TEST_LENGTHS:
        rng = np.random.default_rng([1, n])                 # accuracy_by_length's inputs, seed 1
        src, src_len, _, tgt_out = encode_batch(make_pairs(grid["n_per_length"], n, n, rng))
        tokens, w = model.generate(src, src_len, n + 1)     # (B, n + 1), (B, n + 1, n) or None
        out["digits"].append(int((tokens[:, :n] == tgt_out[:, :n]).sum()))
        if w is None:
            continue
        steps = torch.arange(n + 1)
        argmax = w.argmax(-1)                                           # (B, n + 1)
        on_rule = argmax == torch.clamp(n - steps, max=n - 1)           # previous-digit rule
        out["textbook"].append(int((argmax[:, :n] == n - 1 - steps[:n]).sum()))
        out["previous"].append(int(on_rule.sum()))
        out["peak"].append(round(float(w.max(-1).values.mean()), 6))
        wrong = tokens != tgt_out
        has_error = wrong.any(1)
        first = wrong.float().argmax(1)                                 # the first wrong token
        stop = torch.where(has_error, first, torch.full_like(first, n + 1))
        before = steps[None, :] < stop[:, None]                         # steps still right
        out["right_steps"].append(int(before.sum()))
        out["off_while_right"].append(int((before & ~on_rule).sum()))
        out["first_errors"].append(int(has_error.sum()))
        rows = torch.nonzero(has_error)[:, 0]
        out["off_at_first_error"].append(int((~on_rule[rows, first[rows]]).sum()))
    return {k: v for k, v in out.items() if v}


def run_job(job):
    """One seeded training run; returns a list of result rows (one per checkpoint)."""
    part, name, seed, E, checkpoints, dtype, grid = job
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    model = (LUONG if part == "luong" else MODELS)[name](E).to(getattr(torch, dtype))
    with_grads = part == "budget" and name.startswith("none")
    with_analyses = part == "budget"
    rows, start = [], time.perf_counter()
    base = dict(part=part, model=name, seed=seed, E=E, dtype=dtype)
    if with_grads:
        rows.append(dict(base, steps=0, grad=gradient_profiles(model, grid)))
    elif with_analyses:                   # Bahdanau at initialisation: chapter 2's untrained model
        rows.append(dict(base, steps=0, decode=decode_analyses(model, grid)))

    def on_step(step, m):
        if step in checkpoints:
            acc = accuracy_by_length(m, TEST_LENGTHS, grid["n_per_length"], seed=1)
            row = dict(base, steps=step, acc=[round(float(a), 4) for a in acc])
            if with_grads:
                row["grad"] = gradient_profiles(m, grid)
            if with_analyses:
                row["by_source"] = lost_digits(m, grid)
                row["decode"] = decode_analyses(m, grid)
            row["seconds"] = round(time.perf_counter() - start, 1)
            rows.append(row)
            m.train()

    train_seq2seq(model, max(checkpoints), seed=seed, batch_size=BUDGET["batch_size"],
                  lr=BUDGET["lr"], min_len=TRAIN_LENGTHS[0], max_len=TRAIN_LENGTHS[1],
                  on_step=on_step)
    return rows


def jobs(grid):
    E = BUDGET["E"]
    out = [("budget", m, s, E, steps, "float64", grid)
           for m, steps in grid["checkpoints"].items() for s in grid["seeds"]]
    out += [("width", m, s, w, [grid["width_steps"]], "float64", grid)
            for m, widths in grid["widths"].items() for w in widths for s in grid["seeds"]]
    out += [("luong", m, s, E, [grid["luong_steps"]], "float32", grid)
            for m in LUONG for s in grid["seeds"]]
    return out


def cost(job):
    """Rough relative cost, to start the longest jobs first."""
    part, name, _, E, checkpoints, _, _ = job
    per_step = {"none": 1.0, "none_rnn": 0.5, "bahdanau": 1.6}.get(name, 1.3) * (E / 64) ** 1.5
    return per_step * max(checkpoints)


def write(path, grid, rows, complete, seconds):
    key = lambda r: (r["part"], r["model"], r["E"], r["seed"], r["steps"])
    data = dict(script="experiments/part1_budget_sweep.py", grid=grid,
                budget=dict(BUDGET), train_lengths=list(TRAIN_LENGTHS),
                test_lengths=list(TEST_LENGTHS), complete=complete,
                job_seconds=round(seconds, 1), rows=sorted(rows, key=key))   # wall time, summed
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="reduced size, for the unit test")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results file (JSON)")
    parser.add_argument("--workers", type=int, default=1, help="parallel processes")
    parser.add_argument("--only", default="", help="comma-separated parts to run "
                        "(budget, width, luong); default all. The file then holds only those.")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"--workers must be >= 1; got {args.workers}")
    grid = QUICK if args.quick else FULL
    parts = {p for p in args.only.split(",") if p}
    if parts - {"budget", "width", "luong"}:
        parser.error(f"--only takes budget, width, luong; got {args.only!r}")
    todo = sorted((j for j in jobs(grid) if not parts or j[0] in parts), key=cost, reverse=True)
    rows, seconds = [], 0.0
    ctx = multiprocessing.get_context("spawn" if args.workers > 1 else None)
    pool = ctx.Pool(args.workers) if args.workers > 1 else None
    results = pool.imap_unordered(run_job, todo) if pool else map(run_job, todo)
    for done, job_rows in enumerate(results, 1):
        rows += job_rows
        seconds += max((r.get("seconds", 0.0) for r in job_rows), default=0.0)
        write(args.out, grid, rows, complete=done == len(todo), seconds=seconds)
        last = job_rows[-1]
        print(f"[{done}/{len(todo)}] {last['part']} {last['model']} E={last['E']} "
              f"seed={last['seed']}: {last['seconds']} s", flush=True)
    if pool:
        pool.close()
        pool.join()
    return args.out


if __name__ == "__main__":
    main()
