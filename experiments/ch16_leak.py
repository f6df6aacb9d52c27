"""Chapter 16 experiment: what a leaking mask does to the training loss.

Next-token prediction on sequences of L = 12 tokens drawn uniformly from V = 16, so that
nothing is predictable from the past: the best causal loss is log 16 = 2.77 nats. The model:
token embedding + learned position embedding, one multi-head attention layer (E = 32,
H = 2) with a residual connection, a linear head to V logits. Adam, batches of 32 fresh
sequences, float32, one thread, seeds 0, 1, 2, learning rates 3e-3 and 1e-2. Four
variants (attnlab.bug_zoo.mha_with):

  right        causal mask, chapter 7's split and merge
  no mask      the causal mask forgotten
  split        causal mask, heads split without the transpose
  merge        causal mask, heads merged in the wrong order

Recorded per variant, learning rate and seed: the training loss of every step (6 digits),
the first step whose 20-step mean falls below 2.0 nats (None if never), and two test losses
on 512 new sequences (seed 999): with the true future in the input (what training sees)
and with every token after the predicting position replaced by fresh random tokens (what
generation sees: the future does not exist yet).

    OMP_NUM_THREADS=1 python experiments/ch16_leak.py            # ~1-2 min
    OMP_NUM_THREADS=1 python experiments/ch16_leak.py --quick --out /tmp/q.json
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import math
import time
from pathlib import Path

import torch
import torch.nn as nn

from attnlab.bug_zoo import merge_heads_wrong_order, mha_with, split_heads_no_transpose
from attnlab.masks import causal_mask_pt
from attnlab.multi_head_attention import merge_heads_pt, split_heads_pt

RESULT = Path(__file__).resolve().parent / "results" / "ch16_leak.json"
FULL = dict(seeds=[0, 1, 2], steps=600, lrs=[3e-3, 1e-2])
QUICK = dict(seeds=[0], steps=20, lrs=[3e-3])
V, L, E, H, BATCH = 16, 12, 32, 2, 32
VARIANTS = {"right": (split_heads_pt, merge_heads_pt, True),             # (split, merge, causal)
            "no mask": (split_heads_pt, merge_heads_pt, False),
            "split": (split_heads_no_transpose, merge_heads_pt, True),
            "merge": (split_heads_pt, merge_heads_wrong_order, True)}


class LM(nn.Module):
    def __init__(self, split, merge, causal):
        super().__init__()
        self.embed, self.pos = nn.Embedding(V, E), nn.Embedding(L, E)
        self.attn, self.head = mha_with(split, merge)(E, H), nn.Linear(E, V)
        self.causal = causal

    def forward(self, tokens):                                   # (B, L) -> (B, L, V)
        x = self.embed(tokens) + self.pos.weight                 # (B, L, E)
        allowed = causal_mask_pt(L) if self.causal else None
        return self.head(x + self.attn(x, x, x, allowed)[0])


def nll(model, tokens):
    """Mean next-token loss over positions 0 .. L-2 (predicting tokens 1 .. L-1)."""
    logits = model(tokens)[:, :-1]
    return nn.functional.cross_entropy(logits.reshape(-1, V), tokens[:, 1:].reshape(-1))


@torch.no_grad()
def test_losses(model, n=512):
    gen = torch.Generator().manual_seed(999)
    tokens = torch.randint(V, (n, L), generator=gen)
    with_future = nll(model, tokens).item()
    losses = []
    for t in range(L - 1):                                       # predict token t + 1 at t
        x = tokens.clone()
        x[:, t + 1:] = torch.randint(V, (n, L - t - 1), generator=gen)   # no future yet
        logits = model(x)[:, t]
        losses.append(nn.functional.cross_entropy(logits, tokens[:, t + 1]).item())
    return with_future, sum(losses) / len(losses)


def train(variant, seed, steps, lr):
    split, merge, causal = VARIANTS[variant]
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(100 + seed)
    model = LM(split, merge, causal)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    curve = []
    for _ in range(steps):
        loss = nll(model, torch.randint(V, (BATCH, L), generator=gen))
        opt.zero_grad()
        loss.backward()
        opt.step()
        curve.append(loss.item())
    return model.eval(), curve


def first_below(curve, level=2.0, window=20):
    for i in range(window, len(curve) + 1):
        if sum(curve[i - window:i]) / window < level:
            return i
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one seed, 20 steps (a smoke test)")
    parser.add_argument("--out", type=Path, default=RESULT)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cfg = QUICK if args.quick else FULL
    t0 = time.time()
    runs = {}
    for name in VARIANTS:
        for lr in cfg["lrs"]:
            key = f"{name} @ {lr:g}"
            runs[key] = []
            for seed in cfg["seeds"]:
                model, curve = train(name, seed, cfg["steps"], lr)
                with_future, no_future = test_losses(model)
                runs[key].append(dict(seed=seed, curve=[round(c, 6) for c in curve],
                                      steps_below_2=first_below(curve),
                                      test_with_future=round(with_future, 6),
                                      test_no_future=round(no_future, 6)))
                print(f"{key:16s} seed {seed}: with future {with_future:.3f}, "
                      f"no future {no_future:.3f}, below 2.0 at {runs[key][-1]['steps_below_2']}",
                      flush=True)
    result = dict(quick=args.quick, config=dict(cfg, V=V, L=L, E=E, H=H, batch=BATCH,
                                                 entropy=round(math.log(V), 6)),
                  torch=torch.__version__, seconds=round(time.time() - t0, 1), runs=runs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out} in {result['seconds']} s")


if __name__ == "__main__":
    main()
