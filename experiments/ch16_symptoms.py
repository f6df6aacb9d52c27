"""Chapter 16 experiment: "shapes fine, loss plateaus", measured.

Chapter 7's copy task (attnlab.multi_head_attention.copy_task: 8 tokens of [one-hot position,
content], target [content of the previous token, content of token 0]) learned by one
multi-head attention layer, E = 16, H = 2, Adam at learning rate 0.03, 300 batches of 64
fresh sequences, float32, one thread, seeds 0, 1, 2. Four variants, identical but for the
head split and merge (attnlab.bug_zoo.mha_with):

  right      split_heads_pt, merge_heads_pt (chapter 7)
  split      split_heads_no_transpose (x.reshape(B, H, L, D)), merge_heads_pt
  merge      split_heads_pt, merge_heads_wrong_order (x.reshape(B, L, H * D))
  both       both bugs

Recorded per variant and seed: the training loss of every step (rounded to 6 digits), the
mean of the last 10 steps, and the test MSE on 1024 new sequences (copy_test_mse, seed 999).

    OMP_NUM_THREADS=1 python experiments/ch16_symptoms.py            # ~30 s
    OMP_NUM_THREADS=1 python experiments/ch16_symptoms.py --quick --out /tmp/q.json
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import time
from pathlib import Path

import torch

from attnlab.bug_zoo import merge_heads_wrong_order, mha_with, split_heads_no_transpose
from attnlab.multi_head_attention import (MultiHeadAttention, copy_task, copy_test_mse,
                                          merge_heads_pt, split_heads_pt)

RESULT = Path(__file__).resolve().parent / "results" / "ch16_symptoms.json"
FULL = dict(seeds=[0, 1, 2], steps=300)
QUICK = dict(seeds=[0], steps=20)
VARIANTS = {
    "right": MultiHeadAttention,
    "split": mha_with(split_heads_no_transpose, merge_heads_pt),
    "merge": mha_with(split_heads_pt, merge_heads_wrong_order),
    "both": mha_with(split_heads_no_transpose, merge_heads_wrong_order),
}


def train(module_class, seed, steps, E=16, H=2, lr=0.03, batch=64):
    """chapter 7's train_copy with the module class as a parameter: (model, loss per step)."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(100 + seed)
    m = module_class(E, H)
    opt = torch.optim.Adam(m.parameters(), lr=lr)
    curve = []
    for _ in range(steps):
        x, y = copy_task(gen, batch)
        loss = ((m(x, x, x)[0] - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        curve.append(loss.item())
    return m.eval(), curve


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one seed, 20 steps (a smoke test)")
    parser.add_argument("--out", type=Path, default=RESULT)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cfg = QUICK if args.quick else FULL
    t0 = time.time()
    runs = {}
    for name, cls in VARIANTS.items():
        runs[name] = []
        for seed in cfg["seeds"]:
            model, curve = train(cls, seed, cfg["steps"])
            runs[name].append(dict(seed=seed, curve=[round(c, 6) for c in curve],
                                   final_loss=round(sum(curve[-10:]) / 10, 6),
                                   test_mse=round(copy_test_mse(model), 6)))
            print(f"{name:6s} seed {seed}: final loss {runs[name][-1]['final_loss']:.4f}, "
                  f"test MSE {runs[name][-1]['test_mse']:.4f}", flush=True)
    result = dict(quick=args.quick,
                  config=dict(cfg, E=16, H=2, lr=0.03, batch=64, task="chapter 7 copy task"),
                  torch=torch.__version__, seconds=round(time.time() - t0, 1), runs=runs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out} in {result['seconds']} s")


if __name__ == "__main__":
    main()
