"""Chapter 9 experiment: post-LN against pre-LN, with and without warm-up, and GPT-2's
residual-scaled initialisation, trained on a generated task over three seeds.

The task: reverse a string of L = 12 random symbols (V = 10) with an encoder-only stack,
target position i = source position L - 1 - i, so every output needs attention to a
position. The model: token embedding plus chapter 8's sinusoidal positions, a stack of
n_layers = 6 of chapter 9's EncoderBlock (E = 32, H = 4, F = 4E, no dropout), a final
LayerNorm for pre-LN, a linear head. Matrices start from xavier_uniform_ (as nn.Transformer
and section 9's gradient measurement). Adam (betas 0.9, 0.98, as Vaswani et al. and Xiong
et al.), no gradient clipping (it would hide what the learning rate does), batch 32, a
fresh seeded batch per step, float32, one thread. Warm-up: the learning rate rises linearly
from lr / W to lr over the first W steps, then stays constant.

Runs (3 seeds each):
- post-LN and pre-LN, lr 1e-3, warm-up 0 and 75 steps (of 300);
- the same at lr 3e-4 (how the verdict depends on the learning rate);
- pre-LN, lr 1e-3, no warm-up, with the residual branches' output matrices (attention
  out_proj, FFN linear2) scaled by 1 / sqrt(2 n_layers) at initialisation (GPT-2).

Per run: the loss curve (mean of every 10 steps), the mean loss of the last 50 steps,
per-token accuracy on 500 test strings (test seed 99), seconds. Writes
experiments/results/ch09_warmup_and_init.json (or --out).

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
FULL = dict(seeds=[0, 1, 2], steps=300, warmup=75)
QUICK = dict(seeds=[0], steps=3, warmup=1)
CURVE_EVERY = 10


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
                for block in self.blocks:
                    block.self_attn.out_proj.weight.mul_(1 / math.sqrt(2 * n_layers))
                    block.ffn.linear2.weight.mul_(1 / math.sqrt(2 * n_layers))
        self.final = LayerNorm(E) if norm_first else nn.Identity()
        self.head = nn.Linear(E, V)

    def forward(self, tokens):                   # (B, L) -> logits (B, L, V)
        x = self.embedding(tokens) + self.pe
        for block in self.blocks:
            x, _ = block(x)
        return self.head(self.final(x))


def reverse_batch(generator, B):
    x = torch.randint(0, TASK["V"], (B, TASK["L"]), generator=generator)
    return x, x.flip(1)


def run(job):
    """Train one configuration for one seed; return its results."""
    name, norm_first, lr, warmup, scaled, seed, steps = job
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    model = ReverseStack(TASK["V"], TASK["L"], norm_first=norm_first, residual_scaled=scaled,
                         **MODEL)
    opt = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.98))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda t: min(1.0, (t + 1) / warmup) if warmup else 1.0)
    data = torch.Generator().manual_seed(1000 + seed)
    losses = []
    start = time.perf_counter()
    for _ in range(steps):
        x, y = reverse_batch(data, TASK["batch_size"])
        loss = F.cross_entropy(model(x).reshape(-1, TASK["V"]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    seconds = time.perf_counter() - start
    with torch.no_grad():
        x, y = reverse_batch(torch.Generator().manual_seed(TASK["test_seed"]), TASK["n_test"])
        accuracy = (model(x).argmax(-1) == y).float().mean().item()
    curve = [float(np.mean(losses[i:i + CURVE_EVERY])) for i in range(0, steps, CURVE_EVERY)]
    return dict(name=name, norm_first=norm_first, lr=lr, warmup=warmup, residual_scaled=scaled,
                seed=seed, final_loss=round(float(np.mean(losses[-50:])), 4),
                accuracy=round(accuracy, 4), loss_curve=[round(c, 4) for c in curve],
                finite=bool(np.isfinite(losses).all()), seconds=round(seconds, 1))


def jobs_for(cfg):
    jobs = []
    for lr in (1e-3, 3e-4):
        for norm_first in (False, True):
            for warmup in (0, cfg["warmup"]):
                arrangement = "pre-LN" if norm_first else "post-LN"
                name = f"{arrangement}, lr {lr:g}, warm-up {warmup}"
                jobs += [(name, norm_first, lr, warmup, False, s, cfg["steps"])
                         for s in cfg["seeds"]]
    jobs += [("pre-LN, lr 0.001, warm-up 0, residual-scaled", True, 1e-3, 0, True, s,
              cfg["steps"]) for s in cfg["seeds"]]
    return jobs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps, for the unit test")
    parser.add_argument("--out", type=Path, default=None, help="where to write the JSON")
    parser.add_argument("--workers", type=int, default=1, help="parallel processes")
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    out = args.out or RESULT
    jobs = jobs_for(cfg)
    start = time.perf_counter()
    if args.workers > 1:
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            runs = pool.map(run, jobs, chunksize=1)
    else:
        runs = [run(j) for j in jobs]
    result = dict(task=TASK, model=MODEL, optimiser="Adam, betas (0.9, 0.98), no clipping",
                  init="xavier_uniform_", seeds=cfg["seeds"], steps=cfg["steps"],
                  warmup=cfg["warmup"], curve_every=CURVE_EVERY, dtype="float32",
                  torch=torch.__version__, runs=runs,
                  wall_seconds=round(time.perf_counter() - start, 1))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} ({len(runs)} runs, {result['wall_seconds']} s)")
    return result


if __name__ == "__main__":
    main()
