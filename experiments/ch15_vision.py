"""Chapter 15 experiment: a tiny Vision Transformer against a small CNN on a task where
position matters, with the patch size, the compute, the data and the training length varied,
and a word that attends over image patches; float32, one thread.

Relation task (attnlab.beyond_text.relation_images): 16 x 16 RGB images with a red and a blue
3 x 3 square and two green distractors on noise; label: is the red square left of the blue
one. 2,000 training images (seed 1000), 1,000 test images (seed 1001), the same for every
model; the data ablation uses 8,000 training images (seed 1002) and the same test set.
Models: TinyViT with 4-pixel patches ("vit": 16 + 1 tokens) and with 2-pixel patches ("vit2":
64 + 1 tokens), both E = 32, 2 heads, 2 pre-LN blocks with a GELU FFN of 64, fixed 2-D
sinusoidal positions; SmallCNN (3x3 convolutions of 16, 32, 40 channels, two max pools, a
linear head; "cnn") and the same CNN widened to 28, 55, 69 channels ("cnn_wide": the FLOPs
of vit2). The same optimiser (Adam), batch 64 and, within a seed, the same batches for every
model. Seeds 0, 1, 2 (initialisation and batch order).

Runs (each a curve of test accuracy every 100 steps, and at each checkpoint the training and
test accuracy, the test errors by column gap |col(red) - col(blue)|, and for a ViT the mean
attention distance and entropy per layer and head on the first 500 test images):
  base:  2,000 images, lr 3e-3: vit and cnn 2,400 steps, checkpoints at 600 (19.2 epochs)
         and 2,400; vit2 and cnn_wide 600 steps;
  large: 8,000 images, lr 3e-3, vit and cnn, 2,400 steps, checkpoints at 600 (equal steps
         with base at 600) and 2,400 (equal epochs with base at 600, equal steps with base
         at 2,400); vit2 and cnn_wide are not run on 8,000 images;
  lr:    2,000 images, lr 1e-3, 600 steps: vit and cnn.
A checkpoint at 600 steps is the first 600 steps of the longer run of the same seed (no
schedule), the same numbers as a run stopped there.

Question task (attnlab.beyond_text.vqa_images): three 3 x 3 shapes (square, plus, ring), one
red, one green, one blue, each in its own 4 x 4 cell; the question is a colour, the answer
the shape of that colour's object. PatchVQA (a per-patch MLP without positions, chapter 6's
CrossAttention from the question word to the 16 patches, a linear head); 3,000 training
images (seed 2000), 1,000 test (seed 2001), Adam lr 3e-3, batch 64, 600 steps, seeds 0, 1, 2.
Recorded: test accuracy and the rate at which the most attended patch is the asked object's
cell (chance: 1 / 16).

Saved for the notebook (float32 state dicts): seed 0's vit and vit2 at step 600 of the base
run, and seed 0's PatchVQA.

    OMP_NUM_THREADS=1 python experiments/ch15_vision.py            # ~6 min on an idle core
    OMP_NUM_THREADS=1 python experiments/ch15_vision.py --quick --out /tmp/q.json
The seeds (and, with --runs, single runs) can run as separate one-thread processes that
keep each finished run in a cache folder, then be merged (the same numbers):
    python experiments/ch15_vision.py --seeds 1 --cache /tmp/c --runs base:vit   # optional
    python experiments/ch15_vision.py --seeds 1 --cache /tmp/c --out /tmp/s1.json  # and 0, 2
    python experiments/ch15_vision.py --merge /tmp/s0.json /tmp/s1.json /tmp/s2.json
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

from attnlab.beyond_text import (PatchVQA, SmallCNN, TinyViT, attention_entropy, cnn_flops,
                                 errors_by_gap, mean_attention_distance, n_params,
                                 relation_images, vit_flops, vqa_images)

RESULTS = Path(__file__).resolve().parent / "results"
RESULT = RESULTS / "ch15_vision.json"
WEIGHTS = RESULTS / "ch15_vision_seed0.pt"
WIDE = (28, 55, 69)                                      # cnn_wide: about vit2's FLOPs
MODELS = {"vit": lambda: TinyViT(P=4), "vit2": lambda: TinyViT(P=2), "cnn": SmallCNN,
          "cnn_wide": lambda: SmallCNN(widths=WIDE)}
FLOPS = {"vit": vit_flops(16, 16, 4), "vit2": vit_flops(16, 16, 2), "cnn": cnn_flops(16, 16),
         "cnn_wide": cnn_flops(16, 16, widths=WIDE)}
PATCH = {"vit": 4, "vit2": 2}
FULL = dict(seeds=[0, 1, 2], n_train=2000, n_large=8000, n_test=1000, eval_every=100, batch=64,
            n_dist=500, vqa_train=3000, vqa_test=1000, vqa_steps=600, vqa_lr=3e-3,
            conditions={                   # model: (steps, checkpoints)
                "base": dict(n="n_train", lr=3e-3, models={
                    "vit": (2400, [600, 2400]), "cnn": (2400, [600, 2400]),
                    "vit2": (600, [600]), "cnn_wide": (600, [600])}),
                "large": dict(n="n_large", lr=3e-3, models={
                    "vit": (2400, [600, 2400]), "cnn": (2400, [600, 2400])}),
                "lr": dict(n="n_train", lr=1e-3, models={
                    "vit": (600, [600]), "cnn": (600, [600])})})
QUICK = dict(seeds=[0], n_train=128, n_large=256, n_test=64, eval_every=10, batch=16,
             n_dist=16, vqa_train=128, vqa_test=64, vqa_steps=20, vqa_lr=3e-3,
             conditions={
                 "base": dict(n="n_train", lr=3e-3, models={
                     "vit": (40, [20, 40]), "cnn": (40, [20, 40]), "vit2": (20, [20]),
                     "cnn_wide": (20, [20])}),
                 "large": dict(n="n_large", lr=3e-3, models={"vit": (40, [20, 40]),
                                                            "cnn": (40, [20, 40])}),
                 "lr": dict(n="n_train", lr=1e-3, models={"vit": (20, [20])})})


@torch.no_grad()
def predict(model, images, chunk=500):
    model.eval()
    out = torch.cat([model(images[i:i + chunk])[0].argmax(1) for i in range(0, len(images), chunk)])
    model.train()
    return out


def checkpoint(kind, model, train, test, corners_test, cfg):
    (x, y), (xt, yt) = train, test
    pred = predict(model, xt)
    gap_err, _ = errors_by_gap(pred.numpy(), yt.numpy(), corners_test)
    row = dict(train_acc=float((predict(model, x) == y).double().mean()),
               test_acc=float((pred == yt).double().mean()), gap_errors=gap_err.tolist())
    if kind in PATCH:
        g, P = 16 // PATCH[kind], PATCH[kind]
        with torch.no_grad():
            model.eval()
            _, weights = model(xt[:cfg["n_dist"]])
            model.train()
        row["attention_distance"] = [mean_attention_distance(w.numpy(), g, g, P).tolist()
                                     for w in weights]        # [layer][head], pixels
        row["attention_entropy"] = [attention_entropy(w.numpy()).tolist()
                                    for w in weights]         # [layer][head], nats
    return row


def train_relation(kind, seed, train, test, corners_test, cond, cfg):
    x, y = train
    steps, checkpoints = cond["models"][kind]
    torch.manual_seed(seed)
    model = MODELS[kind]()
    opt = torch.optim.Adam(model.parameters(), lr=cond["lr"])
    g = torch.Generator().manual_seed(seed)           # the same batches for every model
    curve, points, saved = [], {}, {}
    for step in range(1, steps + 1):
        idx = torch.randint(0, len(x), (cfg["batch"],), generator=g)
        loss = F.cross_entropy(model(x[idx])[0], y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % cfg["eval_every"] == 0:
            curve.append(float((predict(model, test[0]) == test[1]).double().mean()))
        if step in checkpoints:
            points[str(step)] = checkpoint(kind, model, train, test, corners_test, cfg)
            if step == checkpoints[0]:
                saved = {k: v.clone() for k, v in model.state_dict().items()}
    return dict(model=kind, seed=seed, n_train=len(x), lr=cond["lr"], steps=steps,
                params=n_params(model), flops=FLOPS[kind], test_curve=curve,
                checkpoints=points), saved


def train_vqa(seed, data, cfg):
    (x, q, a, _), (xt, qt, at, ct) = data
    torch.manual_seed(seed)
    model = PatchVQA()
    opt = torch.optim.Adam(model.parameters(), lr=cfg["vqa_lr"])
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


def merge(parts):
    """Join per-seed results (each written with --seeds and --out) into RESULT and WEIGHTS."""
    loaded = [json.loads(p.read_text()) for p in parts]
    seeds = sorted(s for r in loaded for s in r["config"]["seeds"])
    assert seeds == FULL["seeds"] and not any(r["quick"] for r in loaded), seeds
    result = dict(loaded[0], relation=[row for r in loaded for row in r["relation"]],
                  vqa=sorted((row for r in loaded for row in r["vqa"]), key=lambda r: r["seed"]),
                  wall_s=None, cpu_s=None)             # parts may have resumed from a cache
    result["config"] = dict(loaded[0]["config"], seeds=seeds)
    RESULT.write_text(json.dumps(result, indent=1) + "\n")
    zero = [p for p, r in zip(parts, loaded) if 0 in r["config"]["seeds"]][0]
    torch.save(torch.load(zero.with_suffix(".pt"), weights_only=True), WEIGHTS)
    print(f"merged {len(parts)} parts into {RESULT}")
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small run, for the unit test")
    parser.add_argument("--out", type=Path, default=None, help="where to write the JSON")
    parser.add_argument("--seeds", type=str, default=None, help="a subset, e.g. 0,2")
    parser.add_argument("--cache", type=Path, default=None,
                        help="a folder keeping each finished run, so a stopped job resumes")
    parser.add_argument("--runs", type=str, default=None,
                        help="only these runs, e.g. base:vit,lr:cnn, into the cache (no JSON)")
    parser.add_argument("--merge", type=Path, nargs="+", default=None,
                        help="merge per-seed JSONs (and their .pt) into the results")
    args = parser.parse_args(argv)
    if args.merge:
        return merge(args.merge)
    torch.set_num_threads(1)
    cfg = dict(QUICK if args.quick else FULL)
    if args.seeds is not None:
        cfg["seeds"] = [int(s) for s in args.seeds.split(",")]
    start, cpu_start = time.perf_counter(), time.process_time()
    xt, yt, corners_test = relation_images(cfg["n_test"], 1001)
    test = (torch.tensor(xt), torch.tensor(yt))
    data = {}
    for key, seed in (("n_train", 1000), ("n_large", 1002)):
        x, y, _ = relation_images(cfg[key], seed)
        data[key] = (torch.tensor(x), torch.tensor(y))
    vqa = tuple(tuple(torch.tensor(a) for a in vqa_images(n, s))
                for n, s in ((cfg["vqa_train"], 2000), (cfg["vqa_test"], 2001)))
    runs, vqa_runs, saved = [], [], {}
    for seed in cfg["seeds"]:
        for name, cond in cfg["conditions"].items():
            for kind, (steps, points) in cond["models"].items():
                if args.runs is not None and f"{name}:{kind}" not in args.runs.split(","):
                    continue
                cached = args.cache / f"{name}_{kind}_{seed}.pt" if args.cache else None
                if cached is not None and cached.exists():        # a finished run, resumed
                    row, state = torch.load(cached, weights_only=False)
                else:
                    row, state = train_relation(kind, seed, data[cond["n"]], test,
                                                corners_test, cond, cfg)
                    row["condition"] = name
                    if cached is not None:
                        torch.save((row, state), cached)
                runs.append(row)
                last, first = row["checkpoints"][str(steps)], row["checkpoints"][str(points[0])]
                print(f"{name} {kind} seed {seed}: test {first['test_acc']:.3f} at "
                      f"{points[0]}, {last['test_acc']:.3f} at {steps} "
                      f"({time.perf_counter() - start:.0f} s)", flush=True)
                if seed == 0 and name == "base" and kind in PATCH:
                    saved[kind] = state
        if args.runs is not None:
            continue
        model, row = train_vqa(seed, vqa, cfg)
        vqa_runs.append(row)
        print(f"vqa seed {seed}: acc {row['test_acc']:.3f} hit {row['hit_rate']:.3f}", flush=True)
        if seed == 0:
            saved["vqa"] = model.state_dict()
    if args.runs is not None:
        print("runs cached; no results written")
        return None
    result = dict(quick=args.quick, config=cfg, wide_widths=list(WIDE), relation=runs,
                  vqa=vqa_runs, vqa_chance=1 / 16, wall_s=round(time.perf_counter() - start, 1),
                  cpu_s=round(time.process_time() - cpu_start, 1))
    out = args.out or RESULT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    if not args.quick:
        torch.save(saved, WEIGHTS if args.out is None else out.with_suffix(".pt"))
    print(f"wrote {out} in {result['wall_s']} s")
    return result


if __name__ == "__main__":
    main()
