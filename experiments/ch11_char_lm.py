"""Chapter 11 experiment: the small character-level language model the KV-cache chapter decodes.

Text: PEP 20, "The Zen of Python" (Tim Peters; PEP 20 is placed in the public domain), kept in
experiments/data/pep20_zen_of_python.txt (857 characters). Model: attnlab.kv_cache.TinyLM,
2 pre-LN blocks, E = 64, H = 4 (multi-head: Hkv = H), RoPE, GELU FFN 4E, float32. Training
(`attnlab.kv_cache.CHAR_LM`): 500 AdamW steps at lr 3e-3, 16 random windows of 256 characters
per step, gradient clipping at 1, one CPU thread, seeds 0, 1, 2. After training, greedy decoding
of 300 characters from the prompt "Beautiful is" is compared with the text; the number of
characters that match before the first difference is recorded.

Every seed's weights are saved (float32, about 0.4 MB each: ch11_char_lm_seed{0,1,2}.pt):
chapter 11 cross-checks its cache on all three, chapter 12 measures its int8 cache on all
three. Writes
experiments/results/ch11_char_lm.json (or --out): per seed the loss curve (mean of every 25
steps), the final loss, the matched characters and seconds.

    OMP_NUM_THREADS=1 python experiments/ch11_char_lm.py --workers 2   # full run, ~3 min
    OMP_NUM_THREADS=1 python experiments/ch11_char_lm.py --quick --out /tmp/q.json
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import multiprocessing
import time
from pathlib import Path

import numpy as np
import torch

from attnlab.kv_cache import CHAR_LM, TEXT_PATH, CharVocab, TinyLM, generate_cached, train_char_lm

RESULTS = Path(__file__).resolve().parent / "results"
RESULT = RESULTS / "ch11_char_lm.json"
WEIGHTS = RESULTS / "ch11_char_lm_seed0.pt"


def weights_path(seed):
    """Where seed `seed`'s trained weights are saved."""
    return RESULTS / f"ch11_char_lm_seed{seed}.pt"


PROMPT = "Beautiful is"
N_NEW = 300
FULL = dict(seeds=[0, 1, 2], steps=CHAR_LM["steps"], n_new=N_NEW)
QUICK = dict(seeds=[0], steps=3, n_new=8)
CURVE_EVERY = 25


def matched_prefix(generated, reference):
    """How many leading characters of `generated` equal those of `reference`."""
    n = 0
    for a, b in zip(generated, reference):
        if a != b:
            break
        n += 1
    return n


def run(job):
    """Train one seed; return its results (and save its weights when asked)."""
    seed, steps, n_new, save = job
    torch.set_num_threads(1)
    text = TEXT_PATH.read_text(encoding="utf-8")
    vocab = CharVocab(text)
    ids = torch.tensor(vocab.encode(text))
    torch.manual_seed(seed)
    c = CHAR_LM
    model = TinyLM(len(vocab), c["E"], c["H"], None, c["n_layers"])
    start = time.perf_counter()
    losses = train_char_lm(model, ids, steps, seed, c["window"], c["batch_size"], c["lr"])
    seconds = time.perf_counter() - start
    prompt = torch.tensor([vocab.encode(PROMPT)])
    tokens, _ = generate_cached(model, prompt, n_new)
    generated = vocab.decode(tokens[0].tolist())
    reference = text[text.index(PROMPT):]
    curve = [float(np.mean(losses[i:i + CURVE_EVERY])) for i in range(0, steps, CURVE_EVERY)]
    if save:
        torch.save(model.state_dict(), save)
    return dict(seed=seed, final_loss=round(float(np.mean(losses[-CURVE_EVERY:])), 4),
                loss_curve=[round(x, 4) for x in curve],
                matched=matched_prefix(generated, reference), generated=generated,
                params=sum(p.numel() for p in model.parameters()), seconds=round(seconds, 1))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps, for the unit test")
    parser.add_argument("--out", type=Path, default=None, help="where to write the JSON")
    parser.add_argument("--workers", type=int, default=1, help="parallel processes")
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    out = args.out or RESULT
    jobs = [(seed, cfg["steps"], cfg["n_new"],
             str(weights_path(seed)) if not args.quick else None) for seed in cfg["seeds"]]
    start = time.perf_counter()
    if args.workers > 1:
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            runs = pool.map(run, jobs, chunksize=1)
    else:
        runs = [run(j) for j in jobs]
    result = dict(text=TEXT_PATH.name, prompt=PROMPT, n_new=cfg["n_new"], config=CHAR_LM,
                  seeds=cfg["seeds"], steps=cfg["steps"], quick=args.quick,
                  curve_every=CURVE_EVERY, torch=torch.__version__, runs=runs,
                  wall_seconds=round(time.perf_counter() - start, 1))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} ({len(runs)} runs, {result['wall_seconds']} s)")
    return result


if __name__ == "__main__":
    main()
