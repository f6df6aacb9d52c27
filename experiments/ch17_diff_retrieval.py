"""Chapter 17, section 9: does subtracting two softmax maps (differential attention) cancel noise?

A retrieval task among distractors. A sequence holds N items; an item is one token, the sum of
embeddings of its key (a, b) and its value v. A final query token names (a*, b*) and the model
must output the value of the one item whose key is (a*, b*). Near-misses share a* or b* (not
both): they are the "noise" that a softmax head gives weight to. One attention layer reads at the
query position; a linear head predicts the value.

Arms (same projection sizes, E = 64, 4 query heads of width 16):
  base       softmax heads;
  diff       differential heads as transformers' DiffLlamaAttention computes them (heads
             (i, i + H/2) paired, a value of width 2d, lambda re-parameterised, per-head RMSNorm
             without weight, times (1 - lambda_init), lambda_init = 0.2 as in a first layer);
  base+norm  the confounder: softmax heads plus the same per-head RMSNorm and scale, no
             subtraction.
Settings:
  easy  8 x 8 keys, 16 values, near-misses carry random values (the pilot's setting);
  hard  4 x 4 keys, 16 values, every near-miss carries one shared decoy value, so that the
        weight on near-misses votes for one wrong answer.
Training: N = 32 items, n_near ~ U[0, 31], batch 64, AdamW 3e-3, 1200 steps; evaluated after
300, 600 and 1200 steps (a time-to-accuracy curve) on 256 fixed test sequences per length,
N = 32 to 1024, every distractor a near-miss. Measures: accuracy, the signed weight of the effective
map (A1 - lambda A2 for diff, A for the others) on the target and on near-misses, the absolute
weights on both, and the target's share of the absolute weight, |w_target| / sum_j |w_j| (a
differential head may carry the target with either sign); averaged over heads and sequences.
For diff seed 0 (hard, 1200 steps) one test row's A1, A2 and A1 - lambda A2 are stored.

Writes experiments/results/ch17_diff_retrieval.json; with --lambda-init 0.8 (a deep layer's
lambda_init instead of a first layer's 0.2), the easy setting's diff and base+norm arms again,
into experiments/results/ch17_diff_retrieval_li08.json.

    OMP_NUM_THREADS=1 nice -n 10 python experiments/ch17_diff_retrieval.py          # full (~6 CPU-min)
    OMP_NUM_THREADS=1 nice -n 10 python experiments/ch17_diff_retrieval.py --lambda-init 0.8
    OMP_NUM_THREADS=1 python experiments/ch17_diff_retrieval.py --quick --out /tmp/q.json
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

RESULT = Path(__file__).resolve().parent / "results" / "ch17_diff_retrieval.json"
ARMS = ("base", "diff", "base+norm")
SETTINGS = {"easy": dict(keys=8, decoy=False), "hard": dict(keys=4, decoy=True)}
E, H, D, NV, N_TRAIN = 64, 4, 16, 16, 32
LAMBDA_INIT = 0.8 - 0.6 * math.exp(-0.3 * 0)          # a first layer: 0.2
FULL = dict(seeds=[0, 1, 2, 3, 4], checkpoints=[300, 600, 1200],
            test_n=[32, 64, 128, 256, 512, 1024],
            n_test=256)
QUICK = dict(seeds=[0], checkpoints=[5, 10], test_n=[32, 64], n_test=32)


def make_batch(bs, n_near, gen, n_items, keys, decoy):
    """Items (key (ka, kb), value v), query key (a, b), answer y, target and near-miss masks."""
    a = torch.randint(keys, (bs,), generator=gen)
    b = torch.randint(keys, (bs,), generator=gen)
    ka = torch.randint(keys - 1, (bs, n_items), generator=gen)
    kb = torch.randint(keys - 1, (bs, n_items), generator=gen)
    ka = ka + (ka >= a[:, None]).long()                          # shifted: ka != a
    kb = kb + (kb >= b[:, None]).long()                          # shifted: kb != b
    slot = torch.arange(n_items)[None, :]
    near = slot < n_near[:, None]                                # the first n_near slots
    share_a = near & (slot % 2 == 0)
    ka = torch.where(share_a, a[:, None], ka)
    kb = torch.where(near & ~share_a, b[:, None], kb)
    tgt = n_near.clamp(max=n_items - 1)
    rows = torch.arange(bs)
    ka[rows, tgt], kb[rows, tgt] = a, b
    v = torch.randint(NV, (bs, n_items), generator=gen)
    if decoy:                                      # one shared decoy value != the target's
        vt = torch.randint(NV, (bs,), generator=gen)
        vd = (vt + 1 + torch.randint(NV - 1, (bs,), generator=gen)) % NV
        v = torch.where(near, vd[:, None], v)
        v[rows, tgt] = vt
    perm = torch.argsort(torch.rand(bs, n_items, generator=gen), 1)
    ka, kb, v = (t.gather(1, perm) for t in (ka, kb, v))
    is_tgt = (ka == a[:, None]) & (kb == b[:, None])
    is_near = (ka == a[:, None]) ^ (kb == b[:, None])
    return (a, b, ka, kb, v), (v * is_tgt).sum(1), is_tgt, is_near


class RetrievalModel(torch.nn.Module):
    """One attention layer read at the query position, then a linear read-out of the value."""

    def __init__(self, arm, keys):
        super().__init__()
        self.arm = arm
        self.ea, self.eb = torch.nn.Embedding(keys, E), torch.nn.Embedding(keys, E)
        self.ev, self.eq = torch.nn.Embedding(NV, E), torch.nn.Parameter(torch.randn(E))
        self.q, self.k, self.v, self.o = (torch.nn.Linear(E, H * D, bias=False) for _ in range(4))
        self.lam = torch.nn.Parameter(torch.randn(4, D) * 0.1)  # lambda_q1, k1, q2, k2 (paper init)
        self.out = torch.nn.Linear(E, NV)

    def lam_value(self):
        lq1, lk1, lq2, lk2 = self.lam
        return torch.exp(lq1 @ lk1) - torch.exp(lq2 @ lk2) + LAMBDA_INIT

    def forward(self, a, b, ka, kb, v, maps=False):
        bs, n = ka.shape
        items = self.ea(ka) + self.eb(kb) + self.ev(v)                       # (B, N, E)
        qtok = self.ea(a) + self.eb(b) + self.eq                             # (B, E)
        q = self.q(qtok).view(bs, H, 1, D)                                   # (B, H, 1, D)
        k = self.k(items).view(bs, n, H, D).transpose(1, 2)                  # (B, H, N, D)
        vv = self.v(items).view(bs, n, H, D).transpose(1, 2)                 # (B, H, N, D)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(D), -1)      # (B, H, 1, N)
        if self.arm == "diff":
            a1, a2 = att.chunk(2, 1)                                         # heads i and i + H/2
            w = a1 - self.lam_value() * a2                                   # (B, H/2, 1, N)
            o = w @ torch.cat(vv.chunk(2, 1), -1)                            # (B, H/2, 1, 2D)
        else:
            a1 = a2 = None
            w = att
            o = att @ vv                                                     # (B, H, 1, D)
        if self.arm != "base":
            o = (1 - LAMBDA_INIT) * o * torch.rsqrt(o.pow(2).mean(-1, keepdim=True) + 1e-5)
        logits = self.out(qtok + self.o(o.reshape(bs, H * D)))
        if maps:
            return logits, w[:, :, 0], a1, a2
        return logits, w[:, :, 0]


def evaluate(model, cfg, setting):
    out = {}
    gen = torch.Generator().manual_seed(999)                     # one test set for every run
    with torch.no_grad():
        for n in cfg["test_n"]:
            x, y, is_tgt, is_near = make_batch(cfg["n_test"], torch.full((cfg["n_test"],), n - 1),
                                               gen, n, **SETTINGS[setting])
            logits, w = model(*x)
            out[str(n)] = dict(
                acc=round((logits.argmax(-1) == y).float().mean().item(), 4),
                target=round((w * is_tgt[:, None]).sum(-1).mean().item(), 4),
                near=round((w * is_near[:, None]).sum(-1).mean().item(), 4),
                near_abs=round((w.abs() * is_near[:, None]).sum(-1).mean().item(), 4),
                target_abs=round((w.abs() * is_tgt[:, None]).sum(-1).mean().item(), 4),
                share=round(((w.abs() * is_tgt[:, None]).sum(-1) / w.abs().sum(-1)).mean().item(),
                            4))
    return out


def attention_row(model, setting, n=24):
    """One trained test row: A1, A2 and A1 - lambda A2 of differential head 0."""
    gen = torch.Generator().manual_seed(4242)
    x, y, is_tgt, is_near = make_batch(1, torch.tensor([n - 1]), gen, n, **SETTINGS[setting])
    with torch.no_grad():
        _, w, a1, a2 = model(*x, maps=True)
    return dict(a1=[round(t, 5) for t in a1[0, 0, 0].tolist()],
                a2=[round(t, 5) for t in a2[0, 0, 0].tolist()],
                eff=[round(t, 5) for t in w[0, 0].tolist()],
                lam=round(model.lam_value().item(), 5),
                target=int(is_tgt[0].nonzero()[0, 0]), near=is_near[0].int().tolist())


def run(arm, seed, setting, cfg):
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(1000 + seed)
    model = RetrievalModel(arm, SETTINGS[setting]["keys"])
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
    res, t0, step = {}, time.time(), 0
    for ck in cfg["checkpoints"]:
        while step < ck:
            x, y, _, _ = make_batch(64, torch.randint(0, N_TRAIN, (64,), generator=gen), gen,
                                    N_TRAIN, **SETTINGS[setting])
            loss = torch.nn.functional.cross_entropy(model(*x)[0], y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
        res[str(ck)] = evaluate(model, cfg, setting)
    out = dict(arm=arm, seed=seed, setting=setting, seconds=round(time.time() - t0, 1), eval=res)
    if arm == "diff":
        out["lambda"] = round(model.lam_value().item(), 4)
        if seed == cfg["seeds"][0] and setting == "hard":
            out["row"] = attention_row(model, setting)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--lambda-init", type=float, default=None,
                   help="another lambda_init for diff and base+norm (0.8: a deep layer's); "
                        "runs the easy setting only and writes ch17_diff_retrieval_li<value>.json")
    args = p.parse_args(argv)
    global LAMBDA_INIT
    torch.set_num_threads(1)
    cfg = QUICK if args.quick else FULL
    settings, arms, out = list(SETTINGS), ARMS, args.out or RESULT
    if args.lambda_init is not None:
        if not 0 < args.lambda_init < 1:
            raise ValueError(f"--lambda-init must lie in (0, 1); got {args.lambda_init}")
        LAMBDA_INIT, settings, arms = args.lambda_init, ["easy"], ("diff", "base+norm")
        tag = f"{args.lambda_init:g}".replace(".", "")
        out = args.out or RESULT.with_name(f"ch17_diff_retrieval_li{tag}.json")
    t0, runs = time.time(), []
    for setting in settings:
        for arm in arms:
            for seed in cfg["seeds"]:
                runs.append(run(arm, seed, setting, cfg))
                last = runs[-1]["eval"][str(cfg["checkpoints"][-1])][str(cfg["test_n"][-1])]
                print(f"{setting} {arm:9s} seed {seed} {runs[-1]['seconds']:5.1f}s  "
                      f"acc@{cfg['test_n'][-1]} {last['acc']:.3f} target {last['target']:+.3f}",
                      flush=True)
    result = dict(config={k: v for k, v in cfg.items()}, arms=list(arms),
                  settings=SETTINGS, lambda_init=LAMBDA_INIT, E=E, H=H, D=D, NV=NV,
                  n_train=N_TRAIN, runs=runs, seconds=round(time.time() - t0, 1))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(f"wrote {out.name} in {time.time() - t0:.0f} s")
    return result


if __name__ == "__main__":
    main()
