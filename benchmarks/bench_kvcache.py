"""Chapter 11 targets: greedy decoding with a KV cache against decoding without one.

Every target is a ratio measured in the same run (see README.md): time of uncached decoding
(re-run the whole sequence at every step) / time of cached decoding (prefill the prompt, then
one position per step), both greedy, batch 1, a prompt of P = 16 random tokens, N new tokens,
random weights, one thread. N is the number of NEW tokens; issue 8 calls it "T", but the
book's notation keeps T for the tokens seen so far (the cached length), so issue 8's T is
this N.

- PyTorch (attnlab.kv_cache.TinyLM: 4 layers, E = 256, H = Hkv = 4, V = 64, float32, eval,
  torch.no_grad; generate_uncached vs generate_cached): speedup >= 3x at N = 256 and >= 6x at
  N = 512, and larger at N = 512 than at N = 256 (N = 128 is shown, not targeted);
- NumPy (generate_np(use_cache=False) vs generate_np(use_cache=True) on lm_params_np of a
  TinyLM with 4 layers, E = 128, H = Hkv = 4, V = 64, float64): speedup >= 8x at N = 256.
  The model is smaller than PyTorch's so that uncached NumPy at N = 256 takes well under a
  minute (19-34 s in two runs here);
- the noise-free version of the same claim: the positions the blocks process
  (TinyLM.positions_processed, counted by the PyTorch runs) equal P + N - 1 with the cache and
  P*N + N(N-1)/2 without it, and every run's tokens are the same with and without the cache.

Times are the best (minimum) of a few repetitions (fewer for the slow uncached runs).
Prints a table, writes benchmarks/results/kvcache.md, exits 1 if a target is missed.

    OMP_NUM_THREADS=1 python benchmarks/bench_kvcache.py
"""
from benchlib import best_time, machine_line, report  # first: sets one BLAS thread

import sys                                            # noqa: E402

import torch                                          # noqa: E402

from attnlab.kv_cache import (TinyLM, generate_cached, generate_np,  # noqa: E402
                              generate_uncached, lm_params_np)

V, P = 64, 16
PT_MODEL = dict(E=256, H=4, n_layers=4)
NP_MODEL = dict(E=128, H=4, n_layers=4)
# (N, repetitions of the cached run, repetitions of the uncached run)
PT_RUNS = [(128, 5, 3), (256, 5, 2), (512, 3, 1)]
NP_RUNS = [(256, 3, 1)]
PT_TARGETS = {256: 3.0, 512: 6.0}
NP_TARGETS = {256: 8.0}


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rows = []                                    # (what, N, measured, target, ok)
    details = []                                 # (engine, N, cached s, uncached s, ratio)

    model = TinyLM(V, PT_MODEL["E"], PT_MODEL["H"], None, PT_MODEL["n_layers"]).eval()
    prompt = torch.randint(1, V, (1, P), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        generate_cached(model, prompt, 8)        # warm-up: load every code path once
        generate_uncached(model, prompt, 8)
        ratios = {}
        for N, rep_c, rep_u in PT_RUNS:
            model.positions_processed = 0
            t_c, (tok_c, _) = best_time(lambda: generate_cached(model, prompt, N), rep_c)
            n_c = model.positions_processed / rep_c          # per run
            model.positions_processed = 0
            t_u, (tok_u, _) = best_time(lambda: generate_uncached(model, prompt, N), rep_u)
            n_u = model.positions_processed / rep_u
            want_c, want_u = P + N - 1, P * N + N * (N - 1) // 2
            rows.append((f"positions processed, cached (P + N - 1 = {want_c}) and uncached "
                         f"(P*N + N(N-1)/2 = {want_u})", N, f"{n_c:g} and {n_u:g}",
                         "equal", (n_c, n_u) == (want_c, want_u)))
            rows.append(("PyTorch tokens identical, cached and uncached", N,
                         "yes" if torch.equal(tok_c, tok_u) else "no", "yes",
                         torch.equal(tok_c, tok_u)))
            ratios[N] = t_u / t_c
            details.append(("PyTorch", N, t_c, t_u, ratios[N]))
            if N in PT_TARGETS:
                rows.append((f"PyTorch uncached / cached time (cached {t_c:.2f} s, "
                             f"uncached {t_u:.2f} s)", N, f"{ratios[N]:.1f}x",
                             f">= {PT_TARGETS[N]:g}x", ratios[N] >= PT_TARGETS[N]))
    rows.append(("PyTorch speedup grows with N (N = 512 vs N = 256)", "256, 512",
                 f"{ratios[256]:.1f}x -> {ratios[512]:.1f}x", "larger",
                 ratios[512] > ratios[256]))

    torch.manual_seed(0)
    small = TinyLM(V, NP_MODEL["E"], NP_MODEL["H"], None, NP_MODEL["n_layers"]).eval()
    params = lm_params_np(small)
    prompt_np = prompt.numpy()
    generate_np(params, prompt_np, 4, use_cache=True)          # warm-up
    generate_np(params, prompt_np, 4, use_cache=False)
    for N, rep_c, rep_u in NP_RUNS:
        t_c, tok_c = best_time(lambda: generate_np(params, prompt_np, N, use_cache=True), rep_c)
        t_u, tok_u = best_time(lambda: generate_np(params, prompt_np, N, use_cache=False),
                               rep_u)
        ratio = t_u / t_c
        details.append(("NumPy", N, t_c, t_u, ratio))
        same = bool((tok_c == tok_u).all())
        rows.append(("NumPy tokens identical, cached and uncached", N, "yes" if same else "no",
                     "yes", same))
        rows.append((f"NumPy uncached / cached time (cached {t_c:.2f} s, uncached {t_u:.2f} s)",
                     N, f"{ratio:.1f}x", f">= {NP_TARGETS[N]:g}x", ratio >= NP_TARGETS[N]))

    header = "| measurement | N (new tokens) | measured | target | pass |\n|---|---|---|---|---|\n"
    table = header + "".join(f"| {w} | {t} | {m} | {g} | {'yes' if ok else 'NO'} |\n"
                             for w, t, m, g, ok in rows)
    timing = ("| engine | N (new tokens) | cached (s) | uncached (s) | uncached / cached |\n"
              "|---|---|---|---|---|\n" +
              "".join(f"| {e} | {t} | {c:.3f} | {u:.2f} | {r:.1f}x |\n"
                      for e, t, c, u, r in details))
    machine = machine_line()
    text = ("# KV-cache benchmark (chapter 11)\n\n"
            f"`benchmarks/bench_kvcache.py` on {machine}. Greedy decoding of N new tokens from a "
            f"prompt of P = {P} random tokens, batch 1, random weights, V = {V}. PyTorch: "
            f"TinyLM with {PT_MODEL['n_layers']} layers, E = {PT_MODEL['E']}, "
            f"H = Hkv = {PT_MODEL['H']}, float32, eval, no_grad. NumPy: generate_np on a TinyLM "
            f"with {NP_MODEL['n_layers']} layers, E = {NP_MODEL['E']}, H = Hkv = {NP_MODEL['H']}, "
            "float64. Times: best of a few repetitions (one for the slowest uncached runs); the "
            "machine is shared, so only ratios are targets.\n\n" + table + "\n" + timing)
    return report("kvcache", text, rows)


if __name__ == "__main__":
    sys.exit(main())
