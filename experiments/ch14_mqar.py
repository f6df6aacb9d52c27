"""Chapter 14 experiment: how many key-value pairs a fixed-size state can recall.

A training-free version of multi-query associative recall (MQAR, Arora et al. 2023,
"Zoology"): write N key-value pairs, then query every one of the N keys and ask which stored
value the read-out is closest to (largest dot product among the N stored values; chance is
1/N). Keys and values are chosen, not learned, so this measures the memory, not a model.
A second, fixed-fidelity criterion is recorded too: the fraction of queries whose read-out
points near its own value (cosine above 0.7), whatever the other stored values are.

  softmax     softmax attention over the N cached pairs, scores tau * q.k (the KV cache keeps
              2 N d numbers, growing with N), tau = 32, 8 and 4 (q.k <= 1 for unit keys, so
              tau bounds how sharp the weights can be);
  linear      linear attention with identity features: S = sum_j k_j v_j^T, a d x d state,
              read out as S^T q;
  elu+1       the chapter's linear attention, phi = elu(x) + 1 (keys of norm sqrt(d), unit-
              variance entries), a d x d state and its normaliser; the normaliser divides a
              read-out by a positive number, so it cannot change which value is closest;
              two ablations: keys three times longer ("elu+1 x3"), and elu(x) without the
              + 1 ("elu");
  delta       the delta rule with beta = 1 (attnlab.subquadratic_attention
              .delta_rule_recurrent_np), a d x d state written in order; and with the
              smaller steps beta = 0.5 and 0.25 ("delta beta=0.5", "delta beta=0.25").

Values are random unit vectors in R^d (so every state is d x d); keys are unit vectors drawn
two ways: "random" (independent Gaussian directions) and "spread" (orthonormal while
N <= d; beyond that the rows of an N x d matrix with orthonormal columns, normalised: as far
apart as N directions in R^d can be). Grid: d in (16, 32, 64), N from 4 to 1024 in steps of
sqrt(2), seeds 0, 1, 2 (each draws its own keys and values). Recorded per configuration: the
recall accuracy, the fixed-fidelity fraction, and for the delta rule at N = 4d the accuracy
of the oldest and the newest quarter of the pairs.

    OMP_NUM_THREADS=1 python experiments/ch14_mqar.py            # well under a minute
    OMP_NUM_THREADS=1 python experiments/ch14_mqar.py --quick --out /tmp/q.json
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import time
from pathlib import Path

import numpy as np

from attnlab.subquadratic_attention import delta_rule_recurrent_np, elu_feature_map_np

RESULT = Path(__file__).resolve().parent / "results" / "ch14_mqar.json"
FULL = dict(dims=[16, 32, 64], n_pairs=[int(round(2 ** (e / 2))) for e in range(4, 21)],
            seeds=[0, 1, 2], taus=[32, 8, 4])
QUICK = dict(dims=[8, 16], n_pairs=[4, 8, 16, 32, 64], seeds=[0], taus=[32, 8, 4])
METHODS = ["softmax tau=32", "softmax tau=8", "softmax tau=4", "linear", "elu+1", "elu+1 x3",
           "elu", "delta", "delta beta=0.5", "delta beta=0.25"]


def unit(x):
    """Rows scaled to length 1."""
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def draw_keys(n, d, geometry, rng):
    """(n, d) unit keys: independent Gaussian directions, or as spread out as n allows."""
    if geometry == "random":
        return unit(rng.standard_normal((n, d)))
    if n <= d:
        return np.linalg.qr(rng.standard_normal((d, n)))[0].T   # n orthonormal rows
    return unit(np.linalg.qr(rng.standard_normal((n, d)))[0])  # orthonormal columns: a frame


def recall(readout, values):
    """Fraction of queries whose read-out is closest (dot product) to its own stored value."""
    closest = (readout @ values.T).argmax(axis=1)               # (n, d) @ (d, n) -> (n, n)
    return closest == np.arange(len(values))                    # (n,) bool


def faithful(readout, values, threshold=0.7):
    """Fraction of queries whose read-out has cosine > threshold with its own value."""
    norm = np.linalg.norm(readout, axis=1) * np.linalg.norm(values, axis=1)
    cosine = (readout * values).sum(axis=1) / np.maximum(norm, 1e-300)
    return cosine > threshold                                   # (n,) bool


def readouts(keys, values, taus):
    """Read-out of every key (queries = keys) from each memory: {method: (n, d)}."""
    d = keys.shape[1]
    out = {}
    for t in taus:
        s = t * keys @ keys.T                                   # (n, d) @ (d, n) -> (n, n)
        w = np.exp(s - s.max(axis=1, keepdims=True))
        out[f"softmax tau={t}"] = (w / w.sum(axis=1, keepdims=True)) @ values
    state = keys.T @ values                                     # (d, n) @ (n, d) -> (d, d)
    out["linear"] = keys @ state                                # row i: S^T k_i
    for name, scale, offset in [("elu+1", 1, 0), ("elu+1 x3", 3, 0), ("elu", 1, 1)]:
        phi = elu_feature_map_np(keys * scale * d**0.5) - offset   # entries of variance scale^2
        out[name] = phi @ (phi.T @ values)                      # normaliser left out: see above
    for name, beta in [("delta", 1.0), ("delta beta=0.5", 0.5), ("delta beta=0.25", 0.25)]:
        _, delta_state = delta_rule_recurrent_np(keys, keys, values, beta)
        out[name] = keys @ delta_state                          # (n, d) @ (d, d)
    return out


def run(config):
    acc = {}        # "geometry|d|method" -> list over n_pairs of lists over seeds
    fid = {}        # the same layout: fraction of read-outs with cosine > 0.7 to their value
    age = {}        # "geometry|d" -> {"oldest": [...], "newest": [...]} over seeds, at N = 4d
    for geometry in ["random", "spread"]:
        for d in config["dims"]:
            for m in METHODS:
                acc[f"{geometry}|{d}|{m}"] = [[] for _ in config["n_pairs"]]
                fid[f"{geometry}|{d}|{m}"] = [[] for _ in config["n_pairs"]]
            age[f"{geometry}|{d}"] = {"oldest": [], "newest": []}
            for seed in config["seeds"]:
                rng = np.random.default_rng([seed, d, 0 if geometry == "random" else 1])
                for i, n in enumerate(config["n_pairs"]):
                    keys = draw_keys(n, d, geometry, rng)
                    values = unit(rng.standard_normal((n, d)))
                    for m, r in readouts(keys, values, config["taus"]).items():
                        acc[f"{geometry}|{d}|{m}"][i].append(float(recall(r, values).mean()))
                        fid[f"{geometry}|{d}|{m}"][i].append(float(faithful(r, values).mean()))
                n4 = 4 * d
                keys, values = draw_keys(n4, d, geometry, rng), unit(rng.standard_normal((n4, d)))
                _, delta_state = delta_rule_recurrent_np(keys, keys, values, 1.0)
                hit = recall(keys @ delta_state, values)
                age[f"{geometry}|{d}"]["oldest"].append(float(hit[: n4 // 4].mean()))
                age[f"{geometry}|{d}"]["newest"].append(float(hit[-n4 // 4:].mean()))
    return acc, fid, age


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="reduced size (unit test)")
    parser.add_argument("--out", type=Path, default=RESULT)
    args = parser.parse_args(argv)
    config = QUICK if args.quick else FULL
    start = time.time()
    acc, fid, age = run(config)
    result = dict(quick=args.quick, config=config, methods=METHODS, accuracy=acc,
                  fidelity=fid, delta_by_age=age, seconds=round(time.time() - start, 1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out.name} in {result['seconds']} s")


if __name__ == "__main__":
    main()
