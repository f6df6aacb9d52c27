"""Chapter 15 experiment: a tiny Vision Transformer against a small CNN on a task where
position matters, and a word that attends over image patches; float32, one thread.

Relation task (attnlab.beyond_text.relation_images): 16 x 16 RGB images with a red and a blue
3 x 3 square and two green distractors on noise; label: is the red square left of the blue
one. 2,000 training images (seed 1000), 1,000 test images (seed 1001), the same for every
model; the data ablation repeats every run on 8,000 training images (seed 1002), the same
steps and test set. TinyViT (patch 4: 16 + 1 tokens, E = 32, 2 heads, 2 pre-LN blocks,
F = 64, fixed 2-D sinusoidal positions) against SmallCNN (3x3 convolutions of 16, 32, 40 channels, two max
pools, a linear head): the same optimiser (Adam, lr 3e-3), batch 64, 600 steps, the same
batches for both models of a seed. Seeds 0, 1, 2 (initialisation and batch order). Recorded
per seed and model: the parameter count, test accuracy every 100 steps, final training and
test accuracy, and for the ViT the mean attention distance (pixels) per layer and head on
the first 500 test images (attnlab.beyond_text.mean_attention_distance).

Question task (attnlab.beyond_text.vqa_images): three 3 x 3 shapes (square, plus, ring), one
red, one green, one blue, each in its own 4 x 4 cell; the question is a colour, the answer
the shape of that colour's object. PatchVQA (a per-patch MLP without positions, chapter 6's
CrossAttention from the question word to the 16 patches, a linear head); 3,000 training
images (seed 2000), 1,000 test (seed 2001), Adam lr 3e-3, batch 64, 600 steps, seeds 0, 1, 2.
Recorded: test accuracy and the rate at which the most attended patch is the asked object's
cell (chance: 1 / 16).

Seed 0's trained TinyViT and PatchVQA are saved (float32 state dicts) for the notebook.

    OMP_NUM_THREADS=1 python experiments/ch15_vision.py            # ~3-4 min on one core
    OMP_NUM_THREADS=1 python experiments/ch15_vision.py --quick --out /tmp/q.json
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from attnlab.beyond_text import (PatchVQA, SmallCNN, TinyViT, mean_attention_distance,
                                 n_params, relation_images, vqa_images)

RESULTS = Path(__file__).resolve().parent / "results"
RESULT = RESULTS / "ch15_vision.json"
WEIGHTS = RESULTS / "ch15_vision_seed0.pt"
FULL = dict(seeds=[0, 1, 2], n_train=2000, n_large=8000, n_test=1000, steps=600, eval_every=100,
            batch=64,
            lr=3e-3, n_dist=500, vqa_train=3000, vqa_test=1000, vqa_steps=600)
QUICK = dict(seeds=[0], n_train=128, n_large=256, n_test=64, steps=20, eval_every=10, batch=16,
             lr=3e-3, n_dist=16, vqa_train=128, vqa_test=64, vqa_steps=20)
MODELS = {"vit": TinyViT, "cnn": SmallCNN}


@torch.no_grad()
def accuracy(model, images, labels):
    model.eval()
    acc = float((model(images)[0].argmax(1) == labels).double().mean())
    model.train()
    return acc


def train_relation(kind, seed, data, cfg):
    (x, y), (xt, yt) = data                            # the same steps whatever len(x)
    torch.manual_seed(seed)
    model = MODELS[kind]()
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    g = torch.Generator().manual_seed(seed)           # the same batches for both models
    curve = []
    for step in range(1, cfg["steps"] + 1):
        idx = torch.randint(0, len(x), (cfg["batch"],), generator=g)
        loss = F.cross_entropy(model(x[idx])[0], y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % cfg["eval_every"] == 0:
            curve.append(accuracy(model, xt, yt))
    row = dict(model=kind, seed=seed, n_train=len(x), params=n_params(model), test_curve=curve,
               train_acc=accuracy(model, x, y), test_acc=curve[-1])
    if kind == "vit":
        with torch.no_grad():
            model.eval()
            _, weights = model(xt[:cfg["n_dist"]])
        row["attention_distance"] = [mean_attention_distance(w.numpy(), 4, 4, 4).tolist()
                                     for w in weights]        # [layer][head], pixels
    return model, row


def train_vqa(seed, data, cfg):
    (x, q, a, _), (xt, qt, at, ct) = data
    torch.manual_seed(seed)
    model = PatchVQA()
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    g = torch.Generator().manual_seed(seed)
    for _ in range(cfg["vqa_steps"]):
        idx = torch.randint(0, len(x), (cfg["batch"],), generator=g)
        loss = F.cross_entropy(model(x[idx], q[idx])[0], a[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        logits, weights = model(xt, qt)                      # weights (B, 1, N)
    hits = (weights[:, 0].argmax(-1) == ct).double().mean()
    return model, dict(seed=seed, params=n_params(model),
                       test_acc=float((logits.argmax(1) == at).double().mean()),
                       hit_rate=float(hits))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small run, for the unit test")
    parser.add_argument("--out", type=Path, default=None, help="where to write the JSON")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cfg = QUICK if args.quick else FULL
    start = time.perf_counter()
    x, y, _ = relation_images(cfg["n_train"], 1000)
    xt, yt, _ = relation_images(cfg["n_test"], 1001)
    test = (torch.tensor(xt), torch.tensor(yt))
    rel = ((torch.tensor(x), torch.tensor(y)), test)
    xl, yl, _ = relation_images(cfg["n_large"], 1002)              # the data ablation
    rel_large = ((torch.tensor(xl), torch.tensor(yl)), test)
    vqa = tuple(tuple(torch.tensor(a) for a in vqa_images(n, s))
                for n, s in ((cfg["vqa_train"], 2000), (cfg["vqa_test"], 2001)))
    runs, vqa_runs, saved = [], [], {}
    for seed in cfg["seeds"]:
        for kind in MODELS:
            model, row = train_relation(kind, seed, rel, cfg)
            runs.append(row)
            print(f"{kind} seed {seed}: test {row['test_acc']:.3f} train {row['train_acc']:.3f}"
                  f" ({time.perf_counter() - start:.0f} s)", flush=True)
            if seed == 0 and kind == "vit":
                saved["vit"] = model.state_dict()
            _, row = train_relation(kind, seed, rel_large, cfg)
            runs.append(row)
            print(f"{kind} seed {seed}, {cfg['n_large']} images: test {row['test_acc']:.3f}",
                  flush=True)
        model, row = train_vqa(seed, vqa, cfg)
        vqa_runs.append(row)
        print(f"vqa seed {seed}: acc {row['test_acc']:.3f} hit {row['hit_rate']:.3f}", flush=True)
        if seed == 0:
            saved["vqa"] = model.state_dict()
    result = dict(quick=args.quick, config=cfg, relation=runs, vqa=vqa_runs, vqa_chance=1 / 16,
                  wall_s=round(time.perf_counter() - start, 1))
    out = args.out or RESULT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    if not args.quick:
        torch.save(saved, WEIGHTS)
    print(f"wrote {out} in {result['wall_s']} s")
    return result


if __name__ == "__main__":
    main()
