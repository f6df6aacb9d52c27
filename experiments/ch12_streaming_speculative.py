"""Chapter 12 experiment: attention sinks (StreamingLLM) and greedy speculative decoding,
measured on chapter 11's trained character model (experiments/ch11_char_lm.py, seeds 0, 1, 2;
its committed weights), every forward pass in float64.

Streaming: 256 positions of the Zen of Python from "Beautiful is" (the training length, so
absolute positions stay in range), a window of W = 16 keys with 0 sinks (a plain sliding
window) or 4 sinks (attnlab.serving.SinkKVCache); the same again with W = 128 (the control:
a window half the training length). Recorded per seed: the largest |logit
error| against the full cache at every position (teacher-forced, one token per step), the
attention weight that full attention puts on the first 4 positions (per layer and head, mean
over queries 64..255) and its uniform share, and greedy decoding of 244 characters after
"Beautiful is" with each cache (where it first differs from the full cache, and its text).

Speculative decoding: target = the trained 2-layer model, draft = its first block only
(attnlab.serving.early_exit_draft), 200 new characters after "Beautiful is", k = 1..6
proposals per round (attnlab.serving.speculative_generate). Recorded per seed and k: whether
the tokens equal plain greedy cached decoding (they must), the target passes (prefill
included; plain decoding takes n_new), the draft's forward passes (counted by a hook), the
accepted count of every round. The same again on five prompts (PROMPTS) with two drafts, the
first block (about 0.51 of a target pass) and the 0-block exit (embedding, final LayerNorm
and head: a bigram, about 0.03 of a pass), to test whether one prompt's verdict holds.

    OMP_NUM_THREADS=1 python experiments/ch12_streaming_speculative.py      # ~1 min of CPU
    OMP_NUM_THREADS=1 python experiments/ch12_streaming_speculative.py --quick --out /tmp/q.json
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import time
from pathlib import Path

import torch

from attnlab.kv_cache import CHAR_LM, TEXT_PATH, CharVocab, KVCache, TinyLM, generate_cached
from attnlab.kv_cache import rope_pt, visible_pt
from attnlab.multi_head_attention import split_heads_pt
from attnlab.serving import SinkKVCache, early_exit_draft, speculative_generate

RESULTS = Path(__file__).resolve().parent / "results"
RESULT = RESULTS / "ch12_streaming_speculative.json"
PROMPT = "Beautiful is"
FULL = dict(seeds=[0, 1, 2], n_pos=256, window=16, n_sink=4, n_new=200, ks=[1, 2, 3, 4, 5, 6],
            control_window=128, prompts=["Beautiful is", "Flat is", "Now is", "Errors should",
                                         "If the implem"], drafts=[1, 0])
QUICK = dict(seeds=[0], n_pos=40, window=8, n_sink=2, n_new=12, ks=[1, 3], control_window=16,
             prompts=["Flat is"], drafts=[1, 0])


def load_char_lm(vocab, seed, dtype=torch.float64):
    c = CHAR_LM
    m = TinyLM(len(vocab), c["E"], c["H"], None, c["n_layers"]).to(dtype)
    m.load_state_dict(torch.load(RESULTS / f"ch11_char_lm_seed{seed}.pt", weights_only=True))
    return m.eval()


@torch.no_grad()
def teacher_forced(model, ids, cache):
    """Feed ids (1, n) one token at a time through `cache`; logits of every step (1, n, V)."""
    return torch.cat([model(ids[:, t:t + 1], cache=cache) for t in range(ids.shape[1])], 1)


@torch.no_grad()
def greedy_one_by_one(model, prompt, n_new, cache):
    """Greedy decoding that feeds the prompt one token at a time (SinkKVCache's rule)."""
    toks = prompt[0].tolist()
    for t in toks[:-1]:
        model(torch.tensor([[t]]), cache=cache)
    for _ in range(n_new):
        toks.append(model(torch.tensor([[toks[-1]]]), cache=cache)[0, -1].argmax().item())
    return toks


def first_difference(a, b):
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


@torch.no_grad()
def first_share(model, ids, n_first, from_q):
    """Mean attention weight on the first n_first positions, per layer and head, over the
    queries from position from_q on, under full causal attention: (n_layers, H) as lists."""
    T = ids.shape[1]
    pos = torch.arange(T)[None]                                        # (1, T)
    x, shares = model.embed(ids), []
    for block in model.blocks:
        a, h = block.attn, block.ln1(x)
        q = rope_pt(split_heads_pt(a.q_proj(h), a.H), pos)             # (1, H, T, D)
        k = rope_pt(split_heads_pt(a.k_proj(h), a.Hkv), pos)
        s = (q @ k.transpose(-1, -2)) / a.D ** 0.5                      # (1, H, T, T)
        p = s.masked_fill(~visible_pt(pos, pos), float("-inf")).softmax(-1)
        shares.append(p[0, :, from_q:, :n_first].sum(-1).mean(-1).tolist())   # (H,)
        x = block(x, pos)
    return shares


def streaming(model, vocab, text, cfg, window=None):
    """Full cache against a window and sinks + window; `window` overrides cfg's."""
    W = window or cfg["window"]
    start = text.index(PROMPT)
    ids = torch.tensor([vocab.encode(text[start:start + cfg["n_pos"]])])      # (1, n_pos)
    prompt = ids[:, :len(PROMPT)]
    n_gen = cfg["n_pos"] - len(PROMPT)
    ref = teacher_forced(model, ids, KVCache(2))
    full = greedy_one_by_one(model, prompt, n_gen, KVCache(2))
    out = dict(text={"full cache": vocab.decode(full)}, error={}, first_difference={})
    for name, n_sink in (("window only", 0), ("sinks + window", cfg["n_sink"])):
        got = teacher_forced(model, ids, SinkKVCache(2, W, n_sink))
        out["error"][name] = [round(float(e), 4) for e in (got - ref).abs().amax(-1)[0]]
        toks = greedy_one_by_one(model, prompt, n_gen, SinkKVCache(2, W, n_sink))
        out["text"][name] = vocab.decode(toks)
        out["first_difference"][name] = first_difference(toks, full)
    from_q = cfg["n_pos"] // 4
    out["first_share"] = first_share(model, ids, cfg["n_sink"], from_q)
    out["uniform_share"] = sum(cfg["n_sink"] / (q + 1) for q in range(from_q, cfg["n_pos"])) / (
        cfg["n_pos"] - from_q)
    return out


def speculative(model, vocab, cfg, prompt_text=PROMPT, n_layers=1):
    prompt = torch.tensor([vocab.encode(prompt_text)])
    ref, _ = generate_cached(model, prompt, cfg["n_new"])
    draft = early_exit_draft(model, n_layers)
    calls = [0]
    draft.register_forward_pre_hook(lambda module, args: calls.__setitem__(0, calls[0] + 1))
    rows = []
    for k in cfg["ks"]:
        calls[0] = 0
        tokens, passes, accepted = speculative_generate(model, draft, prompt, cfg["n_new"], k)
        rows.append(dict(k=k, identical=bool(torch.equal(tokens, ref)), passes=passes,
                         draft_passes=calls[0], accepted=accepted))
    return dict(plain_passes=cfg["n_new"], rows=rows)


def speculative_prompts(model, vocab, cfg):
    """{draft blocks: {prompt: speculative(...)}} over cfg's prompts and drafts."""
    return {str(d): {p: speculative(model, vocab, cfg, p, d) for p in cfg["prompts"]}
            for d in cfg["drafts"]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small run, for the unit test")
    parser.add_argument("--out", type=Path, default=None, help="where to write the JSON")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cfg = QUICK if args.quick else FULL
    text = TEXT_PATH.read_text(encoding="utf-8")
    vocab = CharVocab(text)
    start = time.perf_counter()
    runs = []
    for seed in cfg["seeds"]:
        model = load_char_lm(vocab, seed)
        runs.append(dict(seed=seed, streaming=streaming(model, vocab, text, cfg),
                         streaming_control=streaming(model, vocab, text, cfg,
                                                     cfg["control_window"]),
                         speculative=speculative(model, vocab, cfg),
                         speculative_prompts=speculative_prompts(model, vocab, cfg)))
    result = dict(config=cfg, prompt=PROMPT, quick=args.quick, dtype="float64",
                  torch=torch.__version__, runs=runs,
                  wall_seconds=round(time.perf_counter() - start, 1))
    out = args.out or RESULT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} ({len(runs)} seeds, {result['wall_seconds']} s)")
    return result


if __name__ == "__main__":
    main()
