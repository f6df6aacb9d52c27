"""Chapter 8 experiment: stretching RoPE past its training length, on the chapter's own task.

The task and the model are those of experiments/ch08_length_generalisation.py (output the token
K = 2 places back; one causal attention layer with H = 4 heads of width D = 8, rotate-half RoPE,
an MLP), trained on length TRAIN_LEN = 32 and tested on length TEST_LEN = 128, scale s = 4.

1. Train RoPE models with base 10000 (the chapter's) and base 500000 (Llama 3's), 3 seeds each.
2. Apply each context-extension method to the base-10000 models at inference, without
   retraining: none (plain RoPE), position interpolation (PI), NTK-aware base, YaRN (with and
   without its attention temperature), and base 500000 swapped in. Every method changes only
   the rotation frequencies (and, for YaRN, a factor on q and k); the weights stay.
3. A short fine-tune (FINETUNE steps at the test length) of each base-10000 model, with PI,
   with YaRN, and with plain RoPE as the control (the same data, no rescaling).

Accuracy per position on one test batch per seed (the same test tokens for every method).
Seeded, one CPU thread; writes experiments/results/ch08_context_extension.json.

    OMP_NUM_THREADS=1 python experiments/ch08_context_extension.py          # full, ~10 min
    OMP_NUM_THREADS=1 python experiments/ch08_context_extension.py --quick  # seconds
"""
from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from attnlab.positional_encoding import (ntk_inv_freq_np, pi_inv_freq_np, rope_inv_freq_np,
                                         rope_rotate_half_freqs_pt, yarn_inv_freq_np)

RESULT = Path(__file__).resolve().parent / "results" / "ch08_context_extension.json"
FULL = dict(seeds=[0, 1, 2], steps=1000, batch=64, eval_batch=256, finetune=100,
            finetune_batch=16)
QUICK = dict(seeds=[0], steps=30, batch=16, eval_batch=16, finetune=3, finetune_batch=4)
CONFIG = dict(V=16, K=2, E=32, H=4, hidden=64, train_len=32, test_len=128, lr=3e-3,
              finetune_lr=1e-3, buckets=[[2, 32], [32, 48], [48, 64], [64, 96], [96, 128]])
# inference-time methods applied to the base-10000 models (name -> how the frequencies change)
INFERENCE = ["none", "pi", "ntk", "yarn", "yarn_no_temp", "base_500k"]
FINETUNED = ["ft_none", "ft_pi", "ft_yarn"]


def frequencies(method, D, scale, original_len, base=10000.0):
    """(inv_freq (D/2,), attention_factor) of each method, for a model trained with `base`."""
    if method == "none":
        return rope_inv_freq_np(D, base), 1.0
    if method == "pi":
        return pi_inv_freq_np(D, scale, base), 1.0
    if method == "ntk":
        return ntk_inv_freq_np(D, scale, base), 1.0
    if method in ("yarn", "yarn_no_temp"):
        inv_freq, factor = yarn_inv_freq_np(D, scale, original_len, base)
        return inv_freq, (factor if method == "yarn" else 1.0)
    if method == "base_500k":
        return rope_inv_freq_np(D, 500000.0), 1.0
    raise ValueError(method)


class RopeTask(nn.Module):
    """ch08_length_generalisation's PositionTask with method "rope", its frequencies settable.

    Same modules in the same order, so a seed gives the same initial weights.
    """

    def __init__(self, V, E, H, hidden, base):
        super().__init__()
        self.H, self.D = H, E // H
        self.tok = nn.Embedding(V, E)
        self.qkv = nn.Linear(E, 3 * E)
        self.out = nn.Linear(E, E)
        self.mlp = nn.Sequential(nn.LayerNorm(E), nn.Linear(E, hidden), nn.ReLU(),
                                 nn.Linear(hidden, V))
        self.set_rope(rope_inv_freq_np(self.D, base), 1.0)

    def set_rope(self, inv_freq, attention_factor):
        self.inv_freq, self.attention_factor = np.asarray(inv_freq), float(attention_factor)

    def forward(self, tokens):
        B, T = tokens.shape
        x = self.tok(tokens)                                        # (B, T) -> (B, T, E)
        q, k, v = self.qkv(x).chunk(3, dim=-1)                      # (B, T, 3E) -> 3 x (B, T, E)
        q, k, v = (t.view(B, T, self.H, self.D).transpose(1, 2)    # (B, T, E) -> (B, H, T, D)
                   for t in (q, k, v))
        positions = torch.arange(T)
        q = rope_rotate_half_freqs_pt(q, positions, self.inv_freq, self.attention_factor)
        k = rope_rotate_half_freqs_pt(k, positions, self.inv_freq, self.attention_factor)
        att = F.scaled_dot_product_attention(q, k, v, is_causal=True)   # (B, H, T, D)
        att = att.transpose(1, 2).reshape(B, T, -1)                 # (B, H, T, D) -> (B, T, E)
        return self.mlp(x + self.out(att))                          # (B, T, E) -> (B, T, V)


def batch(gen, n, T, V, K):
    tokens = torch.randint(0, V, (n, T), generator=gen)
    return tokens, tokens[:, :-K]                                   # target at i >= K: x[i - K]


def fit(model, gen, steps, n, T, cfg, lr):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    K, V = cfg["K"], cfg["V"]
    loss = torch.tensor(float("nan"))
    for _ in range(steps):
        tokens, target = batch(gen, n, T, V, K)
        logits = model(tokens)[:, K:]                               # (B, T - K, V)
        loss = F.cross_entropy(logits.reshape(-1, V), target.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return float(loss.detach())


def evaluate(model, tokens, target, cfg):
    K = cfg["K"]
    model.eval()
    with torch.no_grad():
        pred = model(tokens)[:, K:].argmax(-1)                      # (B, T - K)
    model.train()
    correct = (pred == target).double().mean(0).numpy()             # per position
    per_position = [None] * K + correct.tolist()                    # index = position
    by_bucket = [float(np.mean(per_position[lo:hi])) for lo, hi in cfg["buckets"]]
    return dict(per_position=per_position, by_bucket=by_bucket)


def run_seed(seed, cfg, run):
    D, scale, L = cfg["E"] // cfg["H"], cfg["test_len"] / cfg["train_len"], cfg["train_len"]
    test_gen = torch.Generator().manual_seed(10_000 + seed)         # as in the chapter's script
    tokens, target = batch(test_gen, run["eval_batch"], cfg["test_len"], cfg["V"], cfg["K"])
    out = {}
    models = {}
    for base in (10000.0, 500000.0):
        torch.manual_seed(seed)
        model = RopeTask(cfg["V"], cfg["E"], cfg["H"], cfg["hidden"], base)
        gen = torch.Generator().manual_seed(1000 + seed)
        loss = fit(model, gen, run["steps"], run["batch"], cfg["train_len"], cfg, cfg["lr"])
        models[base] = model
        if base == 500000.0:
            out["trained_500k"] = dict(evaluate(model, tokens, target, cfg), final_loss=loss)
        else:
            for method in INFERENCE:
                model.set_rope(*frequencies(method, D, scale, L))
                out[method] = dict(evaluate(model, tokens, target, cfg), final_loss=loss)
    for name in FINETUNED:
        model = copy.deepcopy(models[10000.0])
        model.set_rope(*frequencies(name[3:], D, scale, L))
        gen = torch.Generator().manual_seed(2000 + seed)
        loss = fit(model, gen, run["finetune"], run["finetune_batch"], cfg["test_len"], cfg,
                   cfg["finetune_lr"])
        out[name] = dict(evaluate(model, tokens, target, cfg), final_loss=loss)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny run for the unit test")
    parser.add_argument("--out", type=Path, default=None, help="where to write the JSON")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    run = QUICK if args.quick else FULL
    out = args.out or (RESULT.with_name(RESULT.stem + "_quick.json") if args.quick else RESULT)
    methods = INFERENCE + ["trained_500k"] + FINETUNED
    results, start = {m: {} for m in methods}, time.time()
    for seed in run["seeds"]:
        for method, r in run_seed(seed, CONFIG, run).items():
            results[method][str(seed)] = r
            print(f"{method:>13} seed {seed}: loss {r['final_loss']:.3f} by bucket "
                  f"{[round(a, 3) for a in r['by_bucket']]} ({time.time() - start:.0f} s)",
                  flush=True)
    payload = dict(config=CONFIG, run=run, quick=args.quick, methods=methods,
                   torch_version=torch.__version__, results=results)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    print("wrote", out.name)
    return payload


if __name__ == "__main__":
    main()
