"""Chapter 8 experiment: length generalisation of five ways to give attention positions.

Task: a stream of random tokens; at every position i >= K the model must output the token
K places back, x[i - K]. Content cannot tell which key is K places back, so a model without
position information cannot solve it. One causal attention layer (H heads) plus an MLP,
trained on sequences of TRAIN_LEN tokens, then tested on sequences of TEST_LEN tokens:
because the attention is causal, the prediction at position p of a long sequence is exactly
the prediction for a sequence of length p + 1, so one long test batch measures every length.

Methods: none, sinusoidal (added), learned (a table of TRAIN_LEN rows: positions past it do
not exist), learned_x4 (a table of TEST_LEN rows, of which training reaches only the first
TRAIN_LEN), rope (rotate-half), alibi. Seeded, one CPU thread; writes
experiments/results/ch08_length_generalisation.json (the full run) or the path given by --out.

    OMP_NUM_THREADS=1 python experiments/ch08_length_generalisation.py          # full, ~20 min
    OMP_NUM_THREADS=1 python experiments/ch08_length_generalisation.py --quick  # seconds
"""
from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from attnlab.positional_encoding import (LearnedPositionalEmbedding, alibi_bias_pt,
                                         rope_rotate_half_pt, sinusoidal_pe_pt)

METHODS = ["none", "sinusoidal", "learned", "learned_x4", "rope", "alibi"]
RESULT = Path(__file__).resolve().parent / "results" / "ch08_length_generalisation.json"
FULL = dict(seeds=[0, 1, 2], steps=1000, batch=64, eval_batch=256)
QUICK = dict(seeds=[0], steps=40, batch=32, eval_batch=32)
CONFIG = dict(V=16, K=2, E=32, H=4, hidden=64, train_len=32, test_len=128, lr=3e-3,
              buckets=[[2, 32], [32, 48], [48, 64], [64, 96], [96, 128]])


class PositionTask(nn.Module):
    """Token embedding, one causal multi-head attention layer with a position method, an MLP."""

    def __init__(self, method, V, E, H, hidden, train_len, test_len):
        super().__init__()
        self.method, self.H, self.D = method, H, E // H
        self.tok = nn.Embedding(V, E)
        if method == "learned":
            self.pos = LearnedPositionalEmbedding(train_len, E)
        elif method == "learned_x4":
            self.pos = LearnedPositionalEmbedding(test_len, E)
        self.qkv = nn.Linear(E, 3 * E)
        self.out = nn.Linear(E, E)
        self.mlp = nn.Sequential(nn.LayerNorm(E), nn.Linear(E, hidden), nn.ReLU(),
                                 nn.Linear(hidden, V))

    def forward(self, tokens):
        B, T = tokens.shape
        x = self.tok(tokens)                                        # (B, T) -> (B, T, E)
        if self.method == "sinusoidal":
            x = x + sinusoidal_pe_pt(T, x.shape[-1])                # (B, T, E) + (T, E)
        elif self.method.startswith("learned"):
            x = self.pos(x)
        q, k, v = self.qkv(x).chunk(3, dim=-1)                      # (B, T, 3E) -> 3 x (B, T, E)
        q, k, v = (t.view(B, T, self.H, self.D).transpose(1, 2)    # (B, T, E) -> (B, H, T, D)
                   for t in (q, k, v))
        if self.method == "rope":
            positions = torch.arange(T)
            q, k = rope_rotate_half_pt(q, positions), rope_rotate_half_pt(k, positions)
        if self.method == "alibi":
            causal = torch.ones(T, T, dtype=torch.bool).tril()
            bias = alibi_bias_pt(self.H, T).masked_fill(~causal, float("-inf"))   # (H, T, T)
            att = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        else:
            att = F.scaled_dot_product_attention(q, k, v, is_causal=True)   # (B, H, T, D)
        att = att.transpose(1, 2).reshape(B, T, -1)                 # (B, H, T, D) -> (B, T, E)
        return self.mlp(x + self.out(att))                          # (B, T, E) -> (B, T, V)


def batch(gen, n, T, V, K):
    tokens = torch.randint(0, V, (n, T), generator=gen)
    return tokens, tokens[:, :-K]                                   # target at i >= K: x[i - K]


def train_and_test(method, seed, cfg, run):
    torch.manual_seed(seed)
    model = PositionTask(method, cfg["V"], cfg["E"], cfg["H"], cfg["hidden"],
                         cfg["train_len"], cfg["test_len"])
    gen = torch.Generator().manual_seed(1000 + seed)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    K, V = cfg["K"], cfg["V"]
    for _ in range(run["steps"]):
        tokens, target = batch(gen, run["batch"], cfg["train_len"], V, K)
        logits = model(tokens)[:, K:]                               # (B, T - K, V)
        loss = F.cross_entropy(logits.reshape(-1, V), target.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    test_gen = torch.Generator().manual_seed(10_000 + seed)
    tokens, target = batch(test_gen, run["eval_batch"], cfg["test_len"], V, K)
    model.eval()
    error = None
    with torch.no_grad():
        try:
            pred = model(tokens)[:, K:].argmax(-1)                  # (B, T - K)
        except ValueError as err:                                   # no row past max_len
            error = f"{type(err).__name__}: {err}"
            pred = model(tokens[:, :cfg["train_len"]])[:, K:].argmax(-1)
    correct = (pred == target[:, :pred.shape[1]]).double().mean(0).numpy()   # per position
    per_position = [None] * K + correct.tolist()                   # index = position
    per_position += [None] * (cfg["test_len"] - len(per_position))
    by_bucket = []
    for lo, hi in cfg["buckets"]:
        vals = [a for a in per_position[lo:hi] if a is not None]
        by_bucket.append(float(np.mean(vals)) if len(vals) == hi - lo else None)
    return dict(final_loss=float(loss.detach()), per_position=per_position, by_bucket=by_bucket,
                error=error)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny run for the unit test")
    parser.add_argument("--out", type=Path, default=None, help="where to write the JSON")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    run = QUICK if args.quick else FULL
    out = args.out or (RESULT.with_name(RESULT.stem + "_quick.json") if args.quick else RESULT)
    results, start = {}, time.time()
    for method in METHODS:
        results[method] = {}
        for seed in run["seeds"]:
            results[method][str(seed)] = train_and_test(method, seed, CONFIG, run)
            r = results[method][str(seed)]
            print(f"{method:>11} seed {seed}: loss {r['final_loss']:.3f} by bucket "
                  f"{[None if a is None else round(a, 3) for a in r['by_bucket']]} "
                  f"({time.time() - start:.0f} s)", flush=True)
    payload = dict(config=CONFIG, run=run, quick=args.quick, methods=METHODS,
                   torch_version=torch.__version__, results=results)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    print("wrote", out.name)
    return payload


if __name__ == "__main__":
    main()
