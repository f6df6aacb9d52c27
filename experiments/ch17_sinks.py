"""Chapter 17, section 8: can a trained attention head output nothing, with and without sinks?

Task. Each example is a set of S = 8 tokens with distinct classes drawn from K = 16; a token
is [one-hot class (16), payload u (8, standard normal), BOS flag (1)]. The query is the
one-hot of a class drawn from all 16, so half the queries find their class among the tokens
(target: that token's payload) and half find nothing (target: 0). The model is one
attention layer, attnlab.open_models.SinkAttention (H = Hkv = 1, D = 16, no biases), with
the query and the tokens as separate inputs. Arms:

  plain     softmax attention over the 8 tokens
  sink      the same with a learned sink logit (gpt-oss)
  bos       plain attention, with a 9th token prepended: the BOS flag alone, never relevant
            (a sink TOKEN, like chapter 12's StreamingLLM sinks and chapter 10's [CLS])

Adam lr 1e-2, batches of 128 fresh examples, float32, one thread, seeds 0, 1, 2, and two
training lengths (400 and 1600 steps: the confounder varied once). Recorded per arm, length
and seed, on 4096 test examples (seed 999): the relative error on "nothing relevant" queries
E|out|^2 / E|u|^2, the relative error on relevant queries E|out - u|^2 / E|u|^2, and the
mean weight on the 8 real tokens for the nothing-relevant queries.

    OMP_NUM_THREADS=1 python experiments/ch17_sinks.py            # about 1 min
    OMP_NUM_THREADS=1 python experiments/ch17_sinks.py --quick --out /tmp/q.json
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import time
from pathlib import Path

import torch

from attnlab.open_models import SinkAttention

RESULT = Path(__file__).parent / "results" / "ch17_sinks.json"
K, S, P, D = 16, 8, 8, 16
ARMS = ("plain", "sink", "bos")
STEPS = (400, 1600)
SEEDS = (0, 1, 2)


def make_batch(n, gen, bos):
    """(query (n, 1, K), tokens (n, S [+1], K + P + 1), target (n, P), relevant (n,) bool)."""
    classes = torch.rand(n, K, generator=gen).argsort(dim=1)[:, :S]          # distinct
    u = torch.randn(n, S, P, generator=gen)
    tokens = torch.cat([torch.nn.functional.one_hot(classes, K).float(), u,
                        torch.zeros(n, S, 1)], dim=-1)
    want = torch.randint(0, K, (n,), generator=gen)
    hit = classes == want[:, None]                                           # (n, S)
    relevant = hit.any(dim=1)
    target = (hit[..., None].float() * u).sum(dim=1)                         # 0 if no hit
    if bos:
        first = torch.zeros(n, 1, K + P + 1)
        first[..., -1] = 1.0
        tokens = torch.cat([first, tokens], dim=1)
    query = torch.nn.functional.one_hot(want, K).float()[:, None]
    return query, tokens, target, relevant


def run(arm, steps, seed, test):
    torch.manual_seed(seed)
    model = SinkAttention(K, K + P + 1, P, H=1, Hkv=1, D=D, sinks=arm == "sink")
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    gen = torch.Generator().manual_seed(1000 + seed)
    for _ in range(steps):
        q, x, y, _ = make_batch(128, gen, arm == "bos")
        loss = ((model(q, x)[0][:, 0] - y) ** 2).sum(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    q, x, y, rel = test[arm == "bos"]
    with torch.no_grad():
        out, w = model(q, x)
    out, w = out[:, 0], w[:, 0, 0]                                           # (n, P), (n, S')
    real = w[:, 1:] if arm == "bos" else w                                   # the 8 real tokens
    return {"null_error": float((out[~rel] ** 2).sum(-1).mean() / P),
            "relevant_error": float(((out[rel] - y[rel]) ** 2).sum(-1).mean() / P),
            "null_mass_on_real": float(real[~rel].sum(-1).mean()),
            "relevant_mass_on_real": float(real[rel].sum(-1).mean()),
            "sink_logit": None if model.sinks is None else float(model.sinks.detach()[0])}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one seed, 30 steps (smoke test)")
    parser.add_argument("--out", type=Path, default=RESULT)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    t0 = time.time()
    steps_list, seeds = ((30,), (0,)) if args.quick else (STEPS, SEEDS)
    n_test = 512 if args.quick else 4096
    test = {b: make_batch(n_test, torch.Generator().manual_seed(999), b) for b in (False, True)}
    runs = []
    for steps in steps_list:
        for arm in ARMS:
            for seed in seeds:
                runs.append({"arm": arm, "steps": steps, "seed": seed,
                             **run(arm, steps, seed, test)})
                print({k: round(v, 4) if isinstance(v, float) else v for k, v in runs[-1].items()})
    result = {"config": {"K": K, "S": S, "P": P, "D": D, "lr": 1e-2, "batch": 128,
                         "steps": list(steps_list), "seeds": list(seeds), "n_test": n_test,
                         "quick": args.quick},
              "runs": runs, "seconds": round(time.time() - t0, 1)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out} in {result['seconds']} s")
    return result


if __name__ == "__main__":
    main()
