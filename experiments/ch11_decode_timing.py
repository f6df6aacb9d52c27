"""Chapter 11 experiment: what the KV cache buys in time on this CPU, over repeated runs.

Greedy decoding of N = 16, 32, 64, 128 new tokens from the prompt "Beautiful is" (P = 12),
with and without the cache (attnlab.kv_cache.generate_cached / generate_uncached), one thread,
float32, batch 1. Each repetition times every (N, engine) pair once, cached and uncached
interleaved (their order alternates between repetitions), so a burst of load from other
processes hits both engines alike; REPS repetitions give a range per N, not one draw.

Conditions varied, one at a time:
- load: the machine as it is (shared) and with BUSY extra processes spinning on the CPUs;
- model width: the chapter's trained TinyLM (2 blocks, E = 64, H = 4, seed 0's weights) and a
  wider random one (4 blocks, E = 256, H = 4, the size `make bench` times);
- batch and prompt length (unloaded, trained model only): a batch of BATCH copies of the
  prompt, and the first LONG_PROMPT characters of PEP 20 as the prompt;
- depth, for the mask (unloaded only): a random E = 64 model with DEEP blocks;
- the mask: built once per forward (TinyLM.share_mask = True) or in every layer (False), for
  cached decoding only, with a cProfile of the share of the time spent in visible_pt.
Not varied: dtype (float32), thread count (1), the machine.

Every run records wall-clock seconds (time.perf_counter) and the process's CPU seconds
(time.process_time), which other jobs on a shared machine disturb far less.

Writes experiments/results/ch11_decode_timing.json (or --out): per condition, per N and
engine, every repetition's seconds (wall; CPU under `<engine>_cpu`), the ratios uncached /
cached and mask per layer / mask once per repetition (wall; CPU under `<ratio>_cpu`), the
load average before and after, and the profile shares. Timings are volatile: the notebook
plots them as stored and asserts only ranges of the stored data and counts.

    OMP_NUM_THREADS=1 python experiments/ch11_decode_timing.py            # full run, ~3 CPU-min
    OMP_NUM_THREADS=1 python experiments/ch11_decode_timing.py --quick --out /tmp/t.json
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import cProfile
import json
import multiprocessing
import platform
import pstats
import time
from pathlib import Path

import torch

from attnlab.kv_cache import (CHAR_LM, TEXT_PATH, CharVocab, TinyLM, generate_cached,
                              generate_uncached)

RESULTS = Path(__file__).resolve().parent / "results"
RESULT = RESULTS / "ch11_decode_timing.json"
WEIGHTS = RESULTS / "ch11_char_lm_seed0.pt"
PROMPT = "Beautiful is"
FULL = dict(Ns=[16, 32, 64, 128], reps=5, busy=2, profile_reps=5, batch=8, long_prompt=128,
            deep=16)
QUICK = dict(Ns=[8, 16], reps=2, busy=1, profile_reps=2, batch=2, long_prompt=24, deep=3)


def spin(stop):
    """A busy loop: one extra process competing for a CPU until `stop` is set."""
    x = 0
    while not stop.is_set():
        for _ in range(10_000):
            x += 1


def models(vocab):
    """The chapter's trained model and a wider random one, both eval, float32."""
    c = CHAR_LM
    trained = TinyLM(len(vocab), c["E"], c["H"], None, c["n_layers"])
    trained.load_state_dict(torch.load(WEIGHTS, weights_only=True))
    torch.manual_seed(0)
    wide = TinyLM(len(vocab), 256, 4, None, 4)
    return {"trained E=64, 2 blocks": trained.eval(), "random E=256, 4 blocks": wide.eval()}


def deep_model(vocab, n_layers):
    """A random model as narrow as the trained one (E = 64, H = 4) but n_layers deep."""
    torch.manual_seed(0)
    return TinyLM(len(vocab), CHAR_LM["E"], CHAR_LM["H"], None, n_layers).eval()


def seconds(fn):
    """(wall-clock, CPU) seconds of fn()."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def time_engines(model, prompt, Ns, reps):
    """Every repetition times each (N, engine) once, cached and uncached interleaved."""
    engines = ["cached", "uncached", "cached_mask_per_layer"]
    out = {str(N): {e + kind: [] for e in engines for kind in ("", "_cpu")} for N in Ns}
    for r in range(reps):
        for N in Ns:
            order = engines if r % 2 == 0 else engines[::-1]
            for name in order:
                model.share_mask = name != "cached_mask_per_layer"
                gen = generate_uncached if name == "uncached" else generate_cached
                wall, cpu = seconds(lambda: gen(model, prompt, N))
                out[str(N)][name].append(wall)
                out[str(N)][name + "_cpu"].append(cpu)
        model.share_mask = True
    for N in Ns:
        d = out[str(N)]
        for kind in ("", "_cpu"):
            d["ratio" + kind] = [u / c for u, c in zip(d["uncached" + kind], d["cached" + kind])]
            d["mask_per_layer_over_once" + kind] = [
                m / c for m, c in zip(d["cached_mask_per_layer" + kind], d["cached" + kind])]
    return out


def profile_share(model, prompt, N, reps):
    """cProfile of cached decoding: visible_pt's calls, and the share of the profiled time
    spent getting the mask (shared_mask: building it, or comparing positions to reuse it)."""
    rows = {}
    for share in (False, True):
        model.share_mask = share
        calls, shares = [], []
        for _ in range(reps):
            prof = cProfile.Profile()
            prof.enable()
            generate_cached(model, prompt, N)
            prof.disable()
            st = pstats.Stats(prof)
            total = st.total_tt
            vis = [v for k, v in st.stats.items() if k[2] == "visible_pt"]
            mask = [v for k, v in st.stats.items() if k[2] == "shared_mask"]
            calls.append(sum(v[1] for v in vis))                  # primitive calls
            shares.append(sum(v[3] for v in mask) / total)        # cumulative time
        rows["once" if share else "per_layer"] = {"calls": calls, "share": shares}
    model.share_mask = True
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a seconds-long smoke run")
    ap.add_argument("--out", type=Path, default=RESULT)
    args = ap.parse_args()
    cfg = QUICK if args.quick else FULL
    torch.set_num_threads(1)
    text = TEXT_PATH.read_text(encoding="utf-8")
    vocab = CharVocab(text)
    prompt = torch.tensor([vocab.encode(PROMPT)])
    result = dict(config=cfg, prompt=PROMPT, machine=dict(
        cpus=os.cpu_count(), python=platform.python_version(), torch=torch.__version__),
        conditions=[])

    def run(name, model, busy, prompt, batch=1):
        for N in cfg["Ns"][:1]:                            # warm-up, not recorded
            generate_cached(model, prompt, N), generate_uncached(model, prompt, N)
        load_before = os.getloadavg()[0]
        timing = time_engines(model, prompt, cfg["Ns"], cfg["reps"])
        prof = profile_share(model, prompt, cfg["Ns"][-1], cfg["profile_reps"])
        result["conditions"].append(dict(
            model=name, busy=busy, layers=len(model.blocks), batch=batch,
            prompt_len=prompt.shape[1], timing=timing, profile=prof,
            load_before=load_before, load_after=os.getloadavg()[0]))
        d = timing[str(cfg["Ns"][-1])]
        print(f"busy {busy}, {name}, batch {batch}, P = {prompt.shape[1]}: N = "
              f"{cfg['Ns'][-1]} uncached / cached {min(d['ratio']):.1f} .. "
              f"{max(d['ratio']):.1f}; mask per layer / once, CPU "
              f"{min(d['mask_per_layer_over_once_cpu']):.3f} .. "
              f"{max(d['mask_per_layer_over_once_cpu']):.3f}", flush=True)

    for busy in (0, cfg["busy"]):
        stop = multiprocessing.Event()
        procs = [multiprocessing.Process(target=spin, args=(stop,), daemon=True)
                 for _ in range(busy)]
        for p in procs:
            p.start()
        try:
            for name, model in models(vocab).items():
                run(name, model, busy, prompt)
        finally:
            stop.set()
            for p in procs:
                p.join()
    trained = models(vocab)["trained E=64, 2 blocks"]             # one setting at a time
    run("trained E=64, 2 blocks", trained, 0, prompt.expand(cfg["batch"], -1).contiguous(),
        batch=cfg["batch"])
    run("trained E=64, 2 blocks", trained, 0,
        torch.tensor([vocab.encode(text[:cfg["long_prompt"]])]))
    run(f"random E=64, {cfg['deep']} blocks", deep_model(vocab, cfg["deep"]), 0, prompt)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
