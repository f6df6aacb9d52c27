"""Chapter 18's section 13: what compiling FlexAttention costs and buys, on this CPU.

For one packed, document-causal batch (B=1, H=4, D=64, three documents, float32, one thread,
blocks of 128) at two lengths, L=S=256 (documents of 90, 100 and 66 tokens) and L=S=1024
(341, 341 and 342), each of 3 FRESH processes per length measures:
- the eager call: the first call (dynamo traces the mods) and the median of 5 repeats;
- `torch.compile(flex_attention)`: the first call (which compiles) and the median of 5 repeats;
- the compiled output against the book's dense float64 reference (chapter 5's masked_sdpa_np
  with the same document-causal mask): max |diff|, asserted <= 1e-5 (float32 scores).
A fresh process per run, so that no run reuses another's in-memory compile cache (the on-disk
inductor cache is pointed at a fresh temporary folder for each run, too).

Writes experiments/results/ch18_flex_compile.json. These are CPU timings; a GPU compiles the
same graph into a Triton kernel and its timings are not these.

    OMP_NUM_THREADS=1 python experiments/ch18_flex_compile.py
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "experiments" / "results" / "ch18_flex_compile.json"
RUNS = 3
SIZES = [{"B": 1, "H": 4, "L": 256, "D": 64, "docs": [90, 100, 66], "block": 128},
         {"B": 1, "H": 4, "L": 1024, "D": 64, "docs": [341, 341, 342], "block": 128}]
TOL = 1e-5


def one_run(SIZE: dict) -> dict:
    """One measurement in this process (call it in a fresh one)."""
    import warnings

    import numpy as np
    import torch
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    sys.path.insert(0, str(ROOT))
    from attnlab.masks import masked_sdpa_np

    warnings.filterwarnings("ignore", message=".*flex_attention called without torch.compile.*")
    torch.set_num_threads(1)
    B, H, L, D = SIZE["B"], SIZE["H"], SIZE["L"], SIZE["D"]
    ids = np.repeat(np.arange(len(SIZE["docs"])), SIZE["docs"])             # (L,)
    doc = torch.as_tensor(ids)

    def doc_causal(b, h, q_idx, kv_idx):
        return (doc[q_idx] == doc[kv_idx]) & (kv_idx <= q_idx)

    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(B, H, L, D, generator=g) for _ in range(3))
    bm = create_block_mask(doc_causal, B, None, L, L, device="cpu", BLOCK_SIZE=SIZE["block"])

    def timed(fn, repeats=5):
        t0 = time.perf_counter()
        out = fn()
        first = time.perf_counter() - t0
        reps = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn()
            reps.append(time.perf_counter() - t0)
        return out, first, statistics.median(reps)

    out_e, eager_first, eager_call = timed(lambda: flex_attention(q, k, v, block_mask=bm))
    compiled = torch.compile(flex_attention)
    out_c, compile_s, compiled_call = timed(lambda: compiled(q, k, v, block_mask=bm))
    allowed = (ids[:, None] == ids[None, :]) & np.tri(L, dtype=bool)        # (L, S)
    ref = masked_sdpa_np(q.double().numpy(), k.double().numpy(), v.double().numpy(), allowed)[0]
    err = float(np.abs(out_c.double().numpy() - ref).max())
    err_eager = float(np.abs(out_e.double().numpy() - ref).max())
    return {"eager_first_s": eager_first, "eager_call_s": eager_call, "compile_s": compile_s,
            "compiled_call_s": compiled_call, "compiled_max_abs_diff": err,
            "eager_max_abs_diff": err_eager, "compiled_agrees": err <= TOL,
            "torch": torch.__version__, "L": L}


def main() -> int:
    if "--one" in sys.argv:
        print(json.dumps(one_run(SIZES[int(sys.argv[-1])])))
        return 0
    runs = []
    for s, size in enumerate(SIZES):
        for i in range(RUNS):
            with tempfile.TemporaryDirectory() as cache:
                env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache, OMP_NUM_THREADS="1")
                res = subprocess.run([sys.executable, __file__, "--one", str(s)], env=env,
                                     check=True, capture_output=True, text=True)
            runs.append(json.loads(res.stdout.strip().splitlines()[-1]))
            print(f"L={size['L']} run {i}: compile {runs[-1]['compile_s']:.1f} s, compiled call "
                  f"{runs[-1]['compiled_call_s'] * 1e3:.2f} ms, eager call "
                  f"{runs[-1]['eager_call_s'] * 1e3:.2f} ms, "
                  f"diff {runs[-1]['compiled_max_abs_diff']:.1e}")
    result = {"what": "compile time and per-call time of torch.compile(flex_attention) vs eager, "
                      "CPU, one thread, float32, document-causal mask, "
                      "3 fresh processes per length",
              "device": "cpu", "sizes": SIZES, "tolerance": TOL, "runs": runs}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
