"""Chapter 9 experiment: post-LN against pre-LN, with and without warm-up, at three learning
rates, and GPT-2's residual-scaled initialisation against a relative-step control, trained on a
generated task over three seeds for 1500 steps.

The task: reverse a string of L = 12 random symbols (V = 10) with an encoder-only stack,
target position i = source position L - 1 - i, so every output needs attention to a
position. The model: token embedding plus chapter 8's sinusoidal positions, a stack of
n_layers = 6 of chapter 9's EncoderBlock (E = 32, H = 4, F = 4E, no dropout), a final
LayerNorm for pre-LN, a linear head. Matrices start from xavier_uniform_ (as nn.Transformer
and section 7's gradient measurement). Adam (betas 0.9, 0.98, as Vaswani et al. and Xiong
et al.), no gradient clipping (it would hide what the learning rate does), batch 32, a
fresh seeded batch per step, float32, one thread. Warm-up: the learning rate rises linearly
from lr / W to lr over the first W = 150 steps, then stays constant.

Runs (3 seeds each, 1500 steps):
- post-LN and pre-LN, warm-up 0 and 150, at lr 1e-3, 3e-3 and 1e-2 (36 runs);
- pre-LN, no warm-up, lr 1e-3 and 3e-3, with the residual branches' output matrices
  (attention out_proj, FFN linear2) scaled by 1 / sqrt(2 n_layers) at initialisation
  (GPT-2), and the same with those matrices' learning rate also divided by sqrt(2 n_layers):
  Adam's step is about lr per weight whatever the weight's size, so scaling a matrix down
  multiplies its relative update by sqrt(2 n_layers); the control keeps the relative update
  of the unscaled baseline (12 runs).

Every batch is fresh, so each step's per-token accuracy on its batch, measured in the
forward pass before the update, is an accuracy on unseen strings. The event: the first
10-step window whose mean accuracy reaches 0.9 (event_step = steps taken then; None if it
never happens, a run censored at 1500). A run that reaches it stops 300 steps later, but not
before step 600 (the CPU this was written on is shared); a run that never reaches it runs all
1500 steps. Per run: the loss and that accuracy, each as the mean of every 10 steps (the
curves, as long as the run), event_step, steps_run, per-token accuracy on 500 test strings
(test seed 99) at the end, seconds. Finished runs are appended to a .partial.jsonl file beside
the output while the sweep runs. Writes experiments/results/ch09_warmup_and_init.json
(or --out).

    OMP_NUM_THREADS=1 python experiments/ch09_warmup_and_init.py --workers 2   # full run
    OMP_NUM_THREADS=1 python experiments/ch09_warmup_and_init.py --quick --out /tmp/q.json
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import math
import multiprocessing
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from attnlab.positional_encoding import sinusoidal_pe_pt
from attnlab.transformer_block import EncoderBlock, LayerNorm

RESULT = Path(__file__).resolve().parent / "results" / "ch09_warmup_and_init.json"
TASK = dict(V=10, L=12, batch_size=32, n_test=500, test_seed=99)
MODEL = dict(E=32, H=4, n_layers=6)
FULL = dict(seeds=[0, 1, 2], steps=1500, warmup=150, lrs=[1e-3, 3e-3, 1e-2],
            scaled_lrs=[1e-3, 3e-3])
QUICK = dict(seeds=[0], steps=3, warmup=1, lrs=[1e-3, 3e-3, 1e-2], scaled_lrs=[1e-3, 3e-3])
CURVE_EVERY = 10
EVENT = 0.9          # the event: a 10-step window of fresh batches at this per-token accuracy
AFTER_EVENT = 300    # a run that reached the event stops this many steps later ...
MIN_STEPS = 600      # ... but not before this step; a run without the event runs all its steps


class ReverseStack(nn.Module):
    """Embedding + sinusoidal positions, n_layers EncoderBlocks, (final LayerNorm), head."""

    def __init__(self, V, L, E, H, n_layers, norm_first, residual_scaled=False):
        super().__init__()
        self.embedding = nn.Embedding(V, E)
        self.register_buffer("pe", sinusoidal_pe_pt(L, E).float(), persistent=False)
        self.blocks = nn.ModuleList(EncoderBlock(E, H, norm_first=norm_first)
                                    for _ in range(n_layers))
        for p in self.blocks.parameters():
            if p.ndim == 2:
                nn.init.xavier_uniform_(p)
        if residual_scaled:                      # GPT-2: the matrices that write the stream
            with torch.no_grad():
                for w in self.residual_writers():
                    w.mul_(1 / math.sqrt(2 * n_layers))
        self.final = LayerNorm(E) if norm_first else nn.Identity()
        self.head = nn.Linear(E, V)

    def residual_writers(self):
        """The two matrices per block that write into the residual stream."""
        return [m for b in self.blocks for m in (b.self_attn.out_proj.weight,
                                                 b.ffn.linear2.weight)]

    def forward(self, tokens):                   # (B, L) -> logits (B, L, V)
        x = self.embedding(tokens) + self.pe
        for block in self.blocks:
            x, _ = block(x)
        return self.head(self.final(x))


def reverse_batch(generator, B):
    x = torch.randint(0, TASK["V"], (B, TASK["L"]), generator=generator)
    return x, x.flip(1)


def param_groups(model, lr, relative_lr):
    """One group at lr; with relative_lr, the residual writers get lr / sqrt(2 n_layers)."""
    if not relative_lr:
        return [dict(params=list(model.parameters()), lr=lr)]
    writers = {id(w) for w in model.residual_writers()}
    rest = [p for p in model.parameters() if id(p) not in writers]
    scale = 1 / math.sqrt(2 * MODEL["n_layers"])
    return [dict(params=rest, lr=lr), dict(params=model.residual_writers(), lr=lr * scale)]


def run(job):
    """Train one configuration for one seed; return its results."""
    name, norm_first, lr, warmup, scaled, relative_lr, seed, steps = job
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    model = ReverseStack(TASK["V"], TASK["L"], norm_first=norm_first, residual_scaled=scaled,
                         **MODEL)
    opt = torch.optim.Adam(param_groups(model, lr, relative_lr), lr=lr, betas=(0.9, 0.98))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda t: min(1.0, (t + 1) / warmup) if warmup else 1.0)
    data = torch.Generator().manual_seed(1000 + seed)
    losses, accs = [], []
    start = time.perf_counter()
    event = None
    for t in range(steps):
        if event is not None and t >= max(event + AFTER_EVENT, MIN_STEPS):
            break
        x, y = reverse_batch(data, TASK["batch_size"])
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, TASK["V"]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
        accs.append((logits.detach().argmax(-1) == y).float().mean().item())  # before update
        window = accs[-CURVE_EVERY:]
        if event is None and (t + 1) % CURVE_EVERY == 0 and np.mean(window) >= EVENT:
            event = t + 1                        # steps taken when the window first reaches it
    seconds = time.perf_counter() - start
    with torch.no_grad():
        x, y = reverse_batch(torch.Generator().manual_seed(TASK["test_seed"]), TASK["n_test"])
        accuracy = (model(x).argmax(-1) == y).float().mean().item()
    every = lambda v: [round(float(np.mean(v[i:i + CURVE_EVERY])), 4)   # noqa: E731
                       for i in range(0, len(v), CURVE_EVERY)]
    return dict(name=name, norm_first=norm_first, lr=lr, warmup=warmup, residual_scaled=scaled,
                relative_lr=relative_lr, seed=seed, event_step=event, steps_run=len(losses),
                final_loss=round(float(np.mean(losses[-50:])), 4),
                accuracy=round(accuracy, 4), loss_curve=every(losses), acc_curve=every(accs),
                finite=bool(np.isfinite(losses).all()), seconds=round(seconds, 1))


def jobs_for(cfg):
    jobs = []
    for lr in cfg["lrs"]:
        for norm_first in (False, True):
            for warmup in (0, cfg["warmup"]):
                arrangement = "pre-LN" if norm_first else "post-LN"
                name = f"{arrangement}, lr {lr:g}, warm-up {warmup}"
                jobs += [(name, norm_first, lr, warmup, False, False, s, cfg["steps"])
                         for s in cfg["seeds"]]
    for lr in cfg["scaled_lrs"]:
        for relative_lr, suffix in ((False, "residual-scaled"),
                                    (True, "residual-scaled, writers' lr / sqrt(2N)")):
            jobs += [(f"pre-LN, lr {lr:g}, warm-up 0, {suffix}", True, lr, 0, True, relative_lr,
                      s, cfg["steps"]) for s in cfg["seeds"]]
    return jobs


def PRIORITY(job):
    """Run order: lr 1e-3 and 1e-2 first, then the scaled initialisation at 1e-3, then 3e-3."""
    name, lr, scaled = job[0], job[2], job[4]
    return (0 if lr in (1e-3, 1e-2) and not scaled else 1 if lr == 1e-3 else 2, scaled)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps, for the unit test")
    parser.add_argument("--out", type=Path, default=None, help="where to write the JSON")
    parser.add_argument("--workers", type=int, default=1, help="parallel processes")
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    out = args.out or RESULT
    jobs = sorted(jobs_for(cfg), key=lambda j: PRIORITY(j))
    partial = out.with_suffix(".partial.jsonl")               # one line per finished run
    partial.unlink(missing_ok=True)
    start = time.perf_counter()
    runs = []

    def collect(done):                           # in job order; progress on stderr
        for r in done:
            runs.append(r)
            with partial.open("a", encoding="utf-8") as f:
                f.write(json.dumps(r) + "\n")
            print(f"{len(runs)}/{len(jobs)} {r['name']} seed {r['seed']}: "
                  f"{r['seconds']} s", file=sys.stderr, flush=True)

    if args.workers > 1:
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            collect(pool.imap(run, jobs, chunksize=1))
    else:
        collect(map(run, jobs))
    partial.unlink(missing_ok=True)
    order = {j[0]: i for i, j in enumerate(jobs_for(cfg))}
    runs.sort(key=lambda r: (order[r["name"]], r["seed"]))
    result = dict(task=TASK, model=MODEL, event=EVENT, after_event=AFTER_EVENT,
                  min_steps=MIN_STEPS, optimiser="Adam, betas (0.9, 0.98), no clipping",
                  init="xavier_uniform_", seeds=cfg["seeds"], steps=cfg["steps"],
                  warmup=cfg["warmup"], lrs=cfg["lrs"], scaled_lrs=cfg["scaled_lrs"],
                  curve_every=CURVE_EVERY, dtype="float32", torch=torch.__version__, runs=runs,
                  wall_seconds=round(time.perf_counter() - start, 1))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} ({len(runs)} runs, {result['wall_seconds']} s)")
    return result


if __name__ == "__main__":
    main()
