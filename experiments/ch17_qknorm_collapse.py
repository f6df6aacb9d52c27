"""Chapter 17 experiment: attention-logit growth and entropy collapse at a high learning rate,
with and without QK-norm, on a small character language model, over three seeds.

The text: experiments/data/cpython_textwrap_difflib.txt (CPython's textwrap.py and difflib.py,
PSF licence) without its 2 header lines; the first 90% is training text, the last 10% is
held out. The model: a pre-LN causal character LM, E = 64, H = 4 heads of D = 16, 2 layers,
RoPE (rotate-half, base 10000), GELU feed-forward of width 4E, a final LayerNorm and a linear
head; context T = 64. QK-norm on: an RMSNorm (eps 1e-6) with a learned weight of length D,
initialised to 1, over each head's query and each head's key, before RoPE (as Qwen3); the
scale stays 1/sqrt(D). Training: AdamW (betas 0.9, 0.999, no weight decay unless said), batch
16 random windows of the training text, gradient clipping at norm 1.0, the learning rate rising
linearly over the first W steps (W = 20), then constant; float32, one thread.

Every 10 steps, on a fixed held-out batch (16 windows of 64 characters from the held-out
text), per layer: the largest |attention logit| q.k/sqrt(D) over allowed (causal) positions,
and the mean attention entropy (nats) over heads and queries; and the held-out loss.

Runs (3 seeds each; 300 steps unless said):
- QK-norm off and on, at lr 3e-3, 3e-2 and 1e-1, warm-up 20 (18 runs);
- the confounders, each varied once: warm-up 150 instead of 20, QK-norm off, lr 3e-2 and 1e-1
  (6 runs): is the collapse only a too-short warm-up?; and 600 steps instead of 300, QK-norm
  off and on, lr 3e-2 (6 runs): does the loss comparison hold over a longer run?;
- the optimiser, varied once each (added after refereeing): AdamW weight decay 0.1 (on every
  parameter), QK-norm off and on, lr 3e-2 and 1e-1 (12 runs): does weight decay alone stop the
  growth?; and Adam beta2 0.95 instead of 0.999, QK-norm off, lr 3e-2 (3 runs).
Every run records its weight_decay and beta2. Writes experiments/results/ch17_qknorm_collapse.json
(or --out). About 12 minutes at one thread.
--resume keeps the runs already in the output file and trains only the missing ones.

    OMP_NUM_THREADS=1 nice -n 10 python experiments/ch17_qknorm_collapse.py            # full run
    OMP_NUM_THREADS=1 python experiments/ch17_qknorm_collapse.py --quick --out /tmp/q.json
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
import torch.nn.functional as F

torch.set_num_threads(1)
HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "cpython_textwrap_difflib.txt"
RESULT = HERE / "results" / "ch17_qknorm_collapse.json"

FULL = dict(steps=300, every=10, seeds=[0, 1, 2], lrs=[3e-3, 3e-2, 1e-1], warmup=20,
            confounder=dict(warmup=150, lrs=[3e-2, 1e-1], qk_norm=[False]),
            longer=dict(steps=600, lrs=[3e-2], qk_norm=[False, True]),
            optimiser=[dict(weight_decay=0.1, beta2=0.999, lrs=[3e-2, 1e-1], qk_norm=[False, True]),
                       dict(weight_decay=0.0, beta2=0.95, lrs=[3e-2], qk_norm=[False])])
QUICK = dict(steps=6, every=3, seeds=[0], lrs=[3e-2], warmup=2,
             confounder=dict(warmup=4, lrs=[3e-2], qk_norm=[False]),
             longer=dict(steps=9, lrs=[3e-2], qk_norm=[True]), optimiser=[])
E, H, LAYERS, T, BATCH, HELD = 64, 4, 2, 64, 16, 16


def load_text():
    """The corpus as integer ids, without its 2 header lines; (ids, vocabulary size)."""
    lines = DATA.read_text(encoding="utf-8").splitlines(keepends=True)
    text = "".join(lines[2:])
    chars = sorted(set(text))
    idx = {c: i for i, c in enumerate(chars)}
    return torch.tensor([idx[c] for c in text]), len(chars)


class Block(nn.Module):
    """Pre-LN block; QK-norm (per head, learned weight, before RoPE) when qk_norm is True."""

    def __init__(self, qk_norm):
        super().__init__()
        self.D = E // H
        self.ln1, self.ln2 = nn.LayerNorm(E), nn.LayerNorm(E)
        self.qkv = nn.Linear(E, 3 * E, bias=False)
        self.o = nn.Linear(E, E, bias=False)
        self.ff = nn.Sequential(nn.Linear(E, 4 * E), nn.GELU(), nn.Linear(4 * E, E))
        self.qk_norm = qk_norm
        if qk_norm:
            self.wq = nn.Parameter(torch.ones(self.D))
            self.wk = nn.Parameter(torch.ones(self.D))

    @staticmethod
    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w

    def forward(self, x, cos, sin, stats=None):
        B, L, _ = x.shape
        # (B, L, 3E) -> (3, B, H, L, D)
        q, k, v = self.qkv(self.ln1(x)).view(B, L, 3, H, self.D).permute(2, 0, 3, 1, 4)
        if self.qk_norm:
            q, k = self.rms(q, self.wq), self.rms(k, self.wk)
        half = self.D // 2
        rot = lambda t: torch.cat([-t[..., half:], t[..., :half]], -1)   # noqa: E731
        q, k = q * cos + rot(q) * sin, k * cos + rot(k) * sin
        s = q @ k.transpose(-1, -2) / math.sqrt(self.D)      # (B, H, L, D) @ (B, H, D, L)
        allowed = torch.ones(L, L, dtype=torch.bool).tril()
        a = s.masked_fill(~allowed, float("-inf")).softmax(-1)
        if stats is not None:
            ent = -(a * a.clamp_min(1e-30).log()).sum(-1)        # (B, H, L)
            stats.append((s.masked_fill(~allowed, 0.0).abs().amax().item(), ent.mean().item()))
        x = x + self.o((a @ v).transpose(1, 2).reshape(B, L, E))
        return x + self.ff(self.ln2(x))


class CharLM(nn.Module):
    def __init__(self, V, qk_norm):
        super().__init__()
        self.emb = nn.Embedding(V, E)
        self.blocks = nn.ModuleList(Block(qk_norm) for _ in range(LAYERS))
        self.lnf, self.head = nn.LayerNorm(E), nn.Linear(E, V, bias=False)
        D = E // H
        ang = torch.arange(T)[:, None] * (10000.0 ** (-torch.arange(0, D, 2) / D))[None]
        ang = torch.cat([ang, ang], -1)
        self.register_buffer("cos", ang.cos())
        self.register_buffer("sin", ang.sin())

    def forward(self, ids, stats=None):
        x = self.emb(ids)
        L = ids.shape[1]
        for b in self.blocks:
            x = b(x, self.cos[:L], self.sin[:L], stats)
        return self.head(self.lnf(x))


def run(lr, qk_norm, seed, steps, every, warmup, data, V, weight_decay=0.0, beta2=0.999):
    torch.manual_seed(seed)
    model = CharLM(V, qk_norm)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, beta2),
                            weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: min(1.0, (t + 1) / warmup))
    g = torch.Generator().manual_seed(1000 + seed)
    n_train = int(0.9 * len(data))
    span = (len(data) - n_train - T - 1) // HELD
    held = torch.stack([data[n_train + i * span: n_train + i * span + T + 1] for i in range(HELD)])
    log = dict(step=[], held_loss=[], max_logit=[], entropy=[])
    t0 = time.time()
    for step in range(steps + 1):
        if step % every == 0 or step == steps:
            with torch.no_grad():
                st = []
                out = model(held[:, :-1], st)
                hl = F.cross_entropy(out.reshape(-1, V), held[:, 1:].reshape(-1)).item()
            log["step"].append(step)
            log["held_loss"].append(hl if math.isfinite(hl) else None)
            log["max_logit"].append([m for m, _ in st])
            log["entropy"].append([e for _, e in st])
        if step == steps:
            break
        starts = torch.randint(0, n_train - T - 1, (BATCH,), generator=g)
        batch = torch.stack([data[s: s + T + 1] for s in starts])
        loss = F.cross_entropy(model(batch[:, :-1]).reshape(-1, V), batch[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
    wq = [b.wq.abs().max().item() * b.wk.abs().max().item() if qk_norm else None
          for b in model.blocks]
    return dict(lr=lr, qk_norm=qk_norm, seed=seed, warmup=warmup, steps=steps,
                weight_decay=weight_decay, beta2=beta2, max_wq_times_max_wk=wq,
                seconds=round(time.time() - t0, 2), log=log)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="a few steps, for the unit test")
    ap.add_argument("--out", default=str(RESULT))
    ap.add_argument("--resume", action="store_true", help="train only runs not in --out")
    args = ap.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    data, V = load_text()
    n = cfg["steps"]
    base = (0.0, 0.999)                                  # (weight decay, beta2) unless said
    jobs = [(lr, qk, s, cfg["warmup"], n, *base) for lr in cfg["lrs"] for qk in (False, True)
            for s in cfg["seeds"]]
    c = cfg["confounder"]
    jobs += [(lr, qk, s, c["warmup"], n, *base) for lr in c["lrs"] for qk in c["qk_norm"]
             for s in cfg["seeds"]]
    c = cfg["longer"]
    jobs += [(lr, qk, s, cfg["warmup"], c["steps"], *base) for lr in c["lrs"]
             for qk in c["qk_norm"] for s in cfg["seeds"]]
    for c in cfg["optimiser"]:
        jobs += [(lr, qk, s, cfg["warmup"], n, c["weight_decay"], c["beta2"]) for lr in c["lrs"]
                 for qk in c["qk_norm"] for s in cfg["seeds"]]
    old = {}
    if args.resume and Path(args.out).exists():
        for r in json.loads(Path(args.out).read_text())["runs"]:
            r.setdefault("weight_decay", 0.0)            # runs stored before these fields
            r.setdefault("beta2", 0.999)
            old[r["lr"], r["qk_norm"], r["seed"], r["warmup"], r["steps"], r["weight_decay"],
                r["beta2"]] = r
    runs = []
    t0 = time.time()
    for job in jobs:
        if job in old:
            runs.append(old[job])
            continue
        lr, qk, seed, w, steps, wd, b2 = job
        r = run(lr, qk, seed, steps, cfg["every"], w, data, V, wd, b2)
        runs.append(r)
        print(f"lr {lr:g} qk_norm {qk!s:5} warm-up {w:3d} steps {steps} wd {wd:g} beta2 {b2:g} "
              f"seed {seed}: {r['seconds']:.1f} s, "
              f"held loss {r['log']['held_loss'][-1]}, max logit "
              f"{[round(m, 1) for m in r['log']['max_logit'][-1]]}, entropy "
              f"{[round(e, 3) for e in r['log']['entropy'][-1]]}", flush=True)
    result = dict(config=dict(E=E, H=H, D=E // H, layers=LAYERS, T=T, batch=BATCH,
                              held_windows=HELD, corpus_chars=len(data), vocab=V,
                              **{k: v for k, v in cfg.items()}),
                  seconds=round(time.time() - t0
                                + sum(r["seconds"] for r in runs if r in old.values()), 1),
                  runs=runs)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(runs)} runs in {result['seconds']} s")


if __name__ == "__main__":
    main()
