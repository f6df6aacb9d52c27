"""Chapter 4, section 6: does anything but the 1/sqrt(D) scale rescue the unscaled layer?

The chapter trains one attention layer (only W_q learned; each of n = 32 queries must retrieve
the value of one of S = 32 fixed keys, mean squared error) with and without the scale, at
D = 256, 60 SGD steps at learning rate 0.5, and finds the unscaled layer barely learns. The
obvious confounders are the learning rate (the unscaled gradient is 6-21 times smaller, so a
larger step might make up for it), the optimiser (Adam's step does not shrink with the
gradient), the training length and the head size D. This script varies each once:

- D = 256, 600 steps (10x the chapter's budget): SGD at learning rates 0.05, 0.5, 5 and 50,
  and Adam at 1e-4, 1e-3 and 1e-2 (the smallest rates were added after a referee found that
  Adam at 1e-4 takes the unscaled layer lower than any rate first tried);
- D = 16 and 64, SGD at 0.5, 600 steps;

each scaled and unscaled, seeds 0, 1, 2, float64 (the chapter's own recipe, same draws). For
each run it saves the loss curve (4 significant digits) and the time to event: the first step
whose loss is below 0.2 (None when no step of the 600 is).

Writes experiments/results/ch04_scaling_sweep.json (about 2 minutes, one thread).

    OMP_NUM_THREADS=1 python experiments/ch04_scaling_sweep.py
    OMP_NUM_THREADS=1 python experiments/ch04_scaling_sweep.py --quick --out /tmp/q.json
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse                                       # noqa: E402
import json                                           # noqa: E402
import math                                           # noqa: E402
from pathlib import Path                              # noqa: E402

import torch                                          # noqa: E402

RESULT = Path(__file__).resolve().parent / "results" / "ch04_scaling_sweep.json"
EVENT = 0.2                                            # "learned": loss below this
FULL = dict(steps=600, seeds=[0, 1, 2],
            conditions=[(256, "sgd", 0.05), (256, "sgd", 0.5), (256, "sgd", 5.0),
                        (256, "sgd", 50.0), (256, "adam", 1e-4), (256, "adam", 1e-3),
                        (256, "adam", 1e-2), (16, "sgd", 0.5), (64, "sgd", 0.5)])
QUICK = dict(steps=5, seeds=[0], conditions=[(16, "sgd", 0.5), (16, "adam", 1e-2)])


def train(seed, D, scaled, optimiser, lr, steps, S=32, n=32, Dv=8):
    """The chapter's run (section 6): its draws, its loss; returns the loss at every step."""
    f64 = dict(dtype=torch.float64)
    torch.manual_seed(seed)
    xq, xk = torch.randn(n, 1, D, **f64), torch.randn(n, S, D, **f64)
    v = torch.randn(n, S, Dv, **f64)
    y = v[torch.arange(n), torch.randint(S, (n,))][:, None]    # (n, 1, Dv): a target value
    Wq = (torch.randn(D, D, **f64) / math.sqrt(D)).requires_grad_()
    scale = 1 / math.sqrt(D) if scaled else 1.0
    opt = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam}[optimiser]([Wq], lr=lr)
    losses = []
    for _ in range(steps):
        scores = ((xq @ Wq) @ xk.transpose(-2, -1)) * scale   # (n,1,D)@(n,D,S) -> (n,1,S)
        loss = ((torch.softmax(scores, -1) @ v - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULT)
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    torch.set_num_threads(1)
    runs = []
    for D, optimiser, lr in cfg["conditions"]:
        for scaled in (False, True):
            for seed in cfg["seeds"]:
                losses = [float(f"{x:.4g}") for x in train(seed, D, scaled, optimiser, lr,
                                                            cfg["steps"])]   # as stored
                event = next((i + 1 for i, x in enumerate(losses) if x < EVENT), None)
                runs.append(dict(D=D, optimiser=optimiser, lr=lr, scaled=scaled, seed=seed,
                                 losses=losses, steps_to_event=event))
    out = dict(event=EVENT, steps=cfg["steps"], seeds=cfg["seeds"], runs=runs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out) + "\n", encoding="utf-8")
    print(f"wrote {len(runs)} runs to {args.out.name}")


if __name__ == "__main__":
    main()
