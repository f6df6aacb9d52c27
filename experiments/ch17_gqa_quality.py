"""Chapter 17, section 12: what MQA and GQA cost in quality (issue 28, item 7).

Converts multi-head attention (MHA, Hkv = H = 4) to grouped-query attention (GQA, Hkv = 2)
and multi-query attention (MQA, Hkv = 1) by mean-pooling the key and value heads of each
group (chapter 12's attnlab.serving.mha_to_gqa; Ainslie et al. 2023, section 2.1), then
uptrains with chapter 11's recipe (fresh AdamW, constant lr 3e-3, batch 16, clip 1).

Part 1, memorisation (chapter 11's model as stored): the three seeds of
experiments/results/ch11_char_lm_seed{0,1,2}.pt, trained on all 857 characters of PEP 20.
Loss and next-character accuracy on that same text after 0, 25 and 100 uptraining steps
(5% and 20% of the original 500). Controls: MHA uptrained identically; each Hkv trained from
a random init for the same 100 steps. This measures fit on a memorised text, nothing else.

Part 2, held-out text: the same architecture (TinyLM at CHAR_LM sizes: E 64, H 4, 2 layers)
trained from scratch for N2 steps on the first 90% of experiments/data/cpython_textwrap_difflib.txt
(its 2 header lines skipped), window 128; loss on the last 10% (never trained on). Then
pooled to Hkv 2 and 1 and uptrained 20% of N2 more, evaluated along the way (2.5, 5, 10, 20%).
Controls: MHA uptrained identically; GQA and MQA trained from scratch, evaluated at N2 and at
1.2 N2 (the pooled arms' total). Confounder varied once: first head of each group kept
instead of the mean.

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python experiments/ch17_gqa_quality.py   # ~7 min CPU
    OMP_NUM_THREADS=1 .venv/bin/python experiments/ch17_gqa_quality.py --quick --out /tmp/q.json
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import copy
import functools
import json
import multiprocessing
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from attnlab.kv_cache import CHAR_LM, TEXT_PATH, CharVocab, TinyLM, lm_forward_np, lm_params_np
from attnlab.serving import kv_bytes_per_token, mha_to_gqa

RESULTS = ROOT / "experiments" / "results"
CORPUS = ROOT / "experiments" / "data" / "cpython_textwrap_difflib.txt"
SEEDS = [0, 1, 2]
HKVS = [4, 2, 1]
H = CHAR_LM["H"]
D = CHAR_LM["E"] // CHAR_LM["H"]
BYTES = 4                       # the models run in float32
P1_CHECKS = [0, 25, 100]        # part 1 uptraining steps (5% and 20% of chapter 11's 500)
N2 = 160                        # part 2 pre-training steps
W2 = 128                        # part 2 window
UP_SEED = 100                   # uptraining window stream: 100 + seed (not the original stream)


# ---------------------------------------------------------------- pooling and its checks
def pool_np(params, Hkv):
    """Float64 NumPy mean-pooling of lm_params_np's x @ W layout: Wk (E, H*D) -> (E, Hkv*D)."""
    p = copy.deepcopy(params)
    G = p["H"] // Hkv
    for w in p["layers"]:
        for n in ("Wk", "Wv"):
            E, HD = w[n].shape
            # (E, H*D) -> (E, Hkv, G, D) -> mean over G -> (E, Hkv*D)
            w[n] = w[n].reshape(E, Hkv, G, HD // p["H"]).mean(axis=2).reshape(E, -1)
        for n in ("bk", "bv"):
            w[n] = w[n].reshape(Hkv, G, -1).mean(axis=1).reshape(-1)   # (H*D,) -> (Hkv*D,)
    p["Hkv"] = Hkv
    return p


def keep_first_head(model, Hkv):
    """The confounder: keep the first K/V head of each group instead of their mean."""
    H, D = model.config["H"], model.config["E"] // model.config["H"]
    new = mha_to_gqa(model, Hkv)
    state = new.state_dict()
    for name, t in model.state_dict().items():
        if ".attn.k_proj." in name or ".attn.v_proj." in name:
            rest = t.shape[1:]
            t = t.reshape(Hkv, H // Hkv, D, *rest)[:, 0]       # (H*D, ...) -> (Hkv, D, ...)
            state[name] = t.reshape(Hkv * D, *rest).clone()
    new.load_state_dict(state)
    return new.eval()


def load_ch11(seed):
    text = TEXT_PATH.read_text(encoding="utf-8")
    vocab = CharVocab(text)
    model = TinyLM(len(vocab), CHAR_LM["E"], H, None, CHAR_LM["n_layers"])
    model.load_state_dict(torch.load(RESULTS / f"ch11_char_lm_seed{seed}.pt"))
    return model.eval(), torch.tensor(vocab.encode(text))


def pooling_checks(seed):
    """Hkv = H: the conversion is the identity (weights and logits, exact). Hkv < H: the
    pooled PyTorch model equals the float64 NumPy forward of NumPy-pooled weights."""
    model, ids = load_ch11(seed)
    x = ids[None, :256]
    same = mha_to_gqa(model, H)
    for (n1, t1), (n2, t2) in zip(model.state_dict().items(), same.state_dict().items()):
        assert n1 == n2 and torch.equal(t1, t2), n1
    with torch.no_grad():
        assert torch.equal(same(x), model(x)), "Hkv = H conversion changed the logits"
    p64 = lm_params_np(model)
    errs = {}
    for Hkv in (2, 1):
        with torch.no_grad():
            got32 = mha_to_gqa(model, Hkv)(x).double().numpy()
            got64 = mha_to_gqa(copy.deepcopy(model).double(), Hkv)(x).numpy()
        want = lm_forward_np(pool_np(p64, Hkv), x.numpy())
        e32, e64 = np.abs(got32 - want).max(), np.abs(got64 - want).max()
        # float32 logits of size ~20, eps 1.2e-7, two layers: 1e-3 leaves room for any kernel
        assert e32 < 1e-3 and e64 < 1e-9, (Hkv, e32, e64)
        errs[Hkv] = (float(e32), float(e64))
    print(f"PASS seed {seed}: Hkv = H is the identity; Hkv = 2, 1 pooled torch == NumPy float64")
    return errs


# ---------------------------------------------------------------- training and evaluation
def windows(ids, window, stride):
    """Teacher-forced rows of window + 1 ids every `stride`, plus the last: (n, window + 1)."""
    starts = list(range(0, len(ids) - window - 1, stride)) + [len(ids) - window - 1]
    return torch.stack([ids[s:s + window + 1] for s in starts])


@torch.no_grad()
def evaluate(model, rows):
    model.eval()
    logits = model(rows[:, :-1])                                   # (n, W, V)
    tgt = rows[:, 1:]
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1)).item()
    acc = (logits.argmax(-1) == tgt).double().mean().item()
    return dict(loss=round(loss, 4), acc=round(acc, 4))


def train_eval(model, ids, checkpoints, stream_seed, rows, window, snapshot=None):
    """train_char_lm's loop (chapter 11: AdamW, clip 1, seeded windows), written out so that
    the model is evaluated on `rows` at every step count in `checkpoints` (0 included).
    snapshot: a step count at which a copy of the weights is kept in out["state"]."""
    lr = CHAR_LM["lr"]
    gen = torch.Generator().manual_seed(stream_seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    out, done = {}, 0
    for target in checkpoints:
        model.train()
        while done < target:
            starts = torch.randint(0, len(ids) - window, (CHAR_LM["batch_size"],), generator=gen)
            b = torch.stack([ids[s:s + window + 1] for s in starts])     # (B, window + 1)
            logits = model(b[:, :-1])                                    # (B, window, V)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), b[:, 1:].reshape(-1))
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            done += 1
        out[str(target)] = evaluate(model, rows)
        if target == snapshot:
            out["state"] = {k: v.clone() for k, v in model.state_dict().items()}
    return out


@functools.lru_cache(maxsize=1)
def corpus():
    lines = CORPUS.read_text(encoding="utf-8").split("\n")
    text = "\n".join(lines[2:])                          # skip the 2 header lines
    vocab = CharVocab(text)
    ids = torch.tensor(vocab.encode(text))
    n = int(0.9 * len(ids))
    return len(vocab), ids[:n], ids[n:]


def job(spec):
    """One run. spec: dict(part, arm, seed, Hkv, ...); returns its checkpoints."""
    torch.set_num_threads(1)
    t0 = time.process_time()
    s, Hkv, arm = spec["seed"], spec["Hkv"], spec["arm"]
    res = dict(part=spec["part"], arm=arm, seed=s, Hkv=Hkv)
    if spec["part"] == 1:
        model, ids = load_ch11(s)
        rows = windows(ids, CHAR_LM["window"], 64)[:2 if spec.get("quick") else None]
        if arm == "scratch":
            torch.manual_seed(s)
            m = TinyLM(model.config["V"], CHAR_LM["E"], H, Hkv, CHAR_LM["n_layers"])
            stream = s
        else:
            m = mha_to_gqa(model, Hkv)
            stream = UP_SEED + s
            if Hkv < H:
                res["first_head"] = {"0": evaluate(keep_first_head(model, Hkv), rows)}
        res["steps"] = train_eval(m, ids, spec["checks"], stream, rows, CHAR_LM["window"])
    else:
        V, train_ids, held_ids = corpus()
        rows = windows(held_ids, W2, W2)[:4 if spec.get("quick") else None]
        if arm in ("pretrain", "scratch"):
            torch.manual_seed(s)
            m = TinyLM(V, CHAR_LM["E"], H, Hkv, CHAR_LM["n_layers"])
            res["steps"] = train_eval(m, train_ids, spec["checks"], s, rows, W2,
                                      snapshot=spec.get("snapshot"))
            if "state" in res["steps"]:
                res["state"] = res["steps"].pop("state")
        else:                                      # pooled (mean or first head) from pretrain
            base = TinyLM(V, CHAR_LM["E"], H, None, CHAR_LM["n_layers"])
            base.load_state_dict(spec["state"])
            m = keep_first_head(base, Hkv) if arm == "first" else mha_to_gqa(base, Hkv)
            res["steps"] = train_eval(m, train_ids, spec["checks"], UP_SEED + s, rows, W2)
    res["cpu_s"] = round(time.process_time() - t0, 1)
    return res


def stats(values):
    return dict(mean=round(float(np.mean(values)), 4), min=min(values), max=max(values))


def summarise(runs, part, arm):
    table = []
    for Hkv in HKVS:
        rs = [r for r in runs if r["part"] == part and r["arm"] == arm and r["Hkv"] == Hkv]
        if not rs:
            continue
        row = dict(part=part, arm=arm, Hkv=Hkv, n_seeds=len(rs),
                   kv_bytes_per_token=kv_bytes_per_token(CHAR_LM["n_layers"], Hkv, D, BYTES))
        for k in rs[0]["steps"]:
            row[k] = {m: stats([r["steps"][k][m] for r in rs]) for m in ("loss", "acc")}
        if "first_head" in rs[0]:
            row["first_head_0"] = {m: stats([r["first_head"]["0"][m] for r in rs])
                                   for m in ("loss", "acc")}
        table.append(row)
    return table


def run_all(specs, workers):
    specs = sorted(specs, key=lambda sp: -sp["checks"][-1] * (2 if sp["part"] == 1 else 1))
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            return pool.map(job, specs, chunksize=1)
    return [job(sp) for sp in specs]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="seed 0, a few steps, no stored file")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=None, help="JSON path (default: the results folder)")
    args = ap.parse_args(argv)
    seeds = [0] if args.quick else SEEDS
    n2 = 2 if args.quick else N2
    p1 = [0, 1] if args.quick else P1_CHECKS
    up = [0, 1] if args.quick else [0, n2 // 40, n2 // 20, n2 // 10, n2 // 5]
    sc = [1, 2] if args.quick else [n2 // 2, n2, n2 + n2 // 5]
    if args.quick:
        p1 = [0, 1]
    t0 = time.perf_counter()
    errs = {s: pooling_checks(s) for s in seeds}
    # stage 1: part 1 (all arms) and part 2's from-scratch runs (the MHA ones are pre-training)
    specs = [dict(part=1, arm=a, seed=s, Hkv=h, checks=p1)
             for a in ("pooled", "scratch") for s in seeds for h in HKVS]
    specs += [dict(part=2, arm="pretrain" if h == H else "scratch", seed=s, Hkv=h, checks=sc,
                   snapshot=n2 if h == H else None) for s in seeds for h in HKVS]
    if args.quick:              # a smoke test: one arm of each kind, 1-2 steps, few rows
        keep = {(1, "pooled", 2), (2, "pretrain", 4), (2, "scratch", 1)}
        specs = [dict(sp, quick=True) for sp in specs if (sp["part"], sp["arm"], sp["Hkv"]) in keep]
    runs = run_all(specs, 1 if args.quick else args.workers)
    state = {r["seed"]: r.pop("state") for r in runs if r.get("arm") == "pretrain"}
    # stage 2: part 2's conversions of each seed's MHA model at step n2
    specs2 = []
    for s in seeds:
        specs2 += [dict(part=2, arm="pooled", seed=s, Hkv=h, checks=up) for h in HKVS]
        specs2 += [dict(part=2, arm="first", seed=s, Hkv=h, checks=up) for h in (2, 1)]
    if args.quick:
        specs2 = [dict(sp, quick=True) for sp in specs2 if sp["Hkv"] == 1 and sp["arm"] != "pooled"
                  or sp["Hkv"] == 2 and sp["arm"] == "pooled"]
    runs2 = run_all([dict(sp, state=state[sp["seed"]]) for sp in specs2],
                    1 if args.quick else args.workers)
    runs += runs2
    for r in runs:
        r.pop("state", None)
    table1 = summarise(runs, 1, "pooled") + summarise(runs, 1, "scratch")
    table2 = sum((summarise(runs, 2, a) for a in ("pretrain", "scratch", "pooled", "first")), [])
    for row in table1 + table2:
        last = [k for k in row if k.isdigit()][-1]
        print(f"part {row['part']} {row['arm']:>8} Hkv {row['Hkv']} {row['kv_bytes_per_token']:>5} B"
              f" step {last:>4}: loss {row[last]['loss']['mean']:.3f} "
              f"[{row[last]['loss']['min']:.3f}, {row[last]['loss']['max']:.3f}]")
    cpu = round(sum(r["cpu_s"] for r in runs), 1)
    wall = round(time.perf_counter() - t0, 1)
    print(f"CPU {cpu} s in runs; wall {wall} s")
    out = dict(quick=args.quick, seeds=seeds, Hkv=HKVS, H=H, D=D, bytes_per_element=BYTES,
               part1=dict(text="PEP 20, 857 characters, all of it trained on (memorisation)",
                          eval="teacher-forced windows of 256 every 64, the whole text",
                          checkpoints=p1, table=table1),
               part2=dict(corpus=CORPUS.name, split="first 90% train, last 10% held out",
                          window=W2, pretrain_steps=n2, uptrain_checkpoints=up,
                          scratch_checkpoints=sc, table=table2),
               pooling_check_max_err={str(s): {str(h): e for h, e in v.items()}
                                      for s, v in errs.items()},
               recipe=dict(CHAR_LM, steps=None, schedule="constant lr", uptrain_stream="100 + seed"),
               runs=runs, cpu_s=cpu, wall_s=wall, torch=torch.__version__)
    path = Path(args.out) if args.out else (None if args.quick else RESULTS / "ch17_gqa_quality.json")
    if path is not None:
        path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        print("wrote", path.name)
    return out


if __name__ == "__main__":
    main()
