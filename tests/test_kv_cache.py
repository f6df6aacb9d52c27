"""attnlab.kv_cache against independent references, on awkward sizes (tolerances per test).

Cached decoding against decoding without a cache, NumPy against PyTorch, grouped-query
attention (the NumPy function chapter 11's decoder uses) against
F.scaled_dot_product_attention(enable_gqa=True) and per-head attention, batched against
one-by-one decoding, and the chapter's trained models (three seeds) and experiment script.
The serving parts (GQA conversion, rolling, paged and int8 caches, memory arithmetic) are in
tests/test_serving.py.
"""
import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attnlab.kv_cache import (TEXT_PATH, CausalSelfAttention, CharVocab, KVCache, TinyLM,
                              check_gqa_heads, generate_batch, generate_cached, generate_np,
                              generate_uncached, gqa_attention_np, left_pad, lm_forward_np,
                              lm_params_np, visible_pt)
from attnlab.masks import causal_mask_np, masked_sdpa_np
from attnlab.positional_encoding import rope_rotate_half_np

ROOT = Path(__file__).resolve().parent.parent
RESULT = ROOT / "experiments" / "results" / "ch11_char_lm.json"
WEIGHTS = ROOT / "experiments" / "results" / "ch11_char_lm_seed0.pt"
TOL64 = 1e-12
TOL32 = 1e-4   # float32 logits, cached vs uncached (seen: 1e-6 here, 1e-5 on the trained model)
# Awkward on purpose: B = 3, prompt P = 5, odd vocabulary V = 11, 2 layers, D = 6.
B, P, V, E, H, LAYERS = 3, 5, 11, 24, 4, 2


def make_lm(Hkv=None, seed=0, dtype=torch.float64, V=V, E=E, H=H, n_layers=LAYERS):
    """A TinyLM with weights perturbed in `dtype` (so float64 weights use all 53 bits) and a
    large embedding, so greedy decoding produces varied tokens."""
    torch.manual_seed(seed)
    model = TinyLM(V, E, H, Hkv, n_layers).to(dtype).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.2 * torch.randn_like(p))
        model.embed.weight.mul_(3)
    return model


def prompt_of(seed=1, B=B, P=P, V=V):
    return torch.randint(1, V, (B, P), generator=torch.Generator().manual_seed(seed))


# ---------------------------------------------------------------- cached = uncached
@pytest.mark.parametrize("Hkv", [H, 2, 1])
def test_cached_equals_uncached_float64(Hkv):
    model, prompt = make_lm(Hkv), prompt_of()
    tok_u, log_u = generate_uncached(model, prompt, 9)
    tok_c, log_c = generate_cached(model, prompt, 9)
    assert tok_u.shape == (B, P + 9) and log_u.shape == (B, 9, V)
    assert torch.equal(tok_c, tok_u)
    assert torch.equal(tok_c[:, :P], prompt)
    assert len(torch.unique(tok_c[:, P:])) > 1            # not a constant output
    assert (log_c - log_u).abs().max().item() <= TOL64


@pytest.mark.parametrize("Hkv", [H, 2, 1])
def test_cached_equals_uncached_float32(Hkv):
    model, prompt = make_lm(Hkv, dtype=torch.float32), prompt_of()
    tok_u, log_u = generate_uncached(model, prompt, 9)
    tok_c, log_c = generate_cached(model, prompt, 9)
    assert torch.equal(tok_c, tok_u)
    assert (log_c - log_u).abs().max().item() <= TOL32


@pytest.mark.parametrize("Hkv", [H, 1])
def test_numpy_generation_equals_pytorch(Hkv):
    model, prompt = make_lm(Hkv), prompt_of()
    params = lm_params_np(model)
    cached = generate_np(params, prompt.numpy(), 7, use_cache=True)
    uncached = generate_np(params, prompt.numpy(), 7, use_cache=False)
    tok_pt, _ = generate_cached(model, prompt, 7)
    assert cached.shape == (B, P + 7)
    assert (cached == uncached).all() and (cached == tok_pt.numpy()).all()
    assert len(np.unique(cached[:, P:])) > 1


@pytest.mark.parametrize("Hkv", [H, 2, 1])
def test_lm_forward_np_matches_module(Hkv):
    model, tokens = make_lm(Hkv), prompt_of(P=8)
    params = lm_params_np(model)
    want = model(tokens).detach().numpy()                  # (B, 8, V)
    assert np.abs(lm_forward_np(params, tokens.numpy()) - want).max() <= TOL64
    # with a cache: 5 positions, then 2, then 1 -> the same logits, row by row
    cache = [{} for _ in range(LAYERS)]
    parts = [lm_forward_np(params, tokens[:, a:b].numpy(), cache)
             for a, b in [(0, 5), (5, 7), (7, 8)]]
    assert cache[0]["k"].shape == (B, Hkv, 8, E // H)
    assert np.abs(np.concatenate(parts, axis=1) - want).max() <= TOL64


def test_positions_processed_counts():
    model, prompt = make_lm(), prompt_of()
    N = 6                                    # new tokens (T is the cached length)
    model.positions_processed = 0
    generate_cached(model, prompt, N)
    assert model.positions_processed == B * (P + N - 1)
    model.positions_processed = 0
    generate_uncached(model, prompt, N)
    assert model.positions_processed == B * (P * N + N * (N - 1) // 2)


# ---------------------------------------------------------------- GQA
def random_qkv(Hkv, B=2, H=6, L=5, S=7, D=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(B, H, L, D)), rng.normal(size=(B, Hkv, S, D)), \
        rng.normal(size=(B, Hkv, S, D))


@pytest.mark.parametrize("Hkv", [6, 3, 2, 1])
@pytest.mark.parametrize("masked", [False, True])
def test_gqa_np_matches_torch_enable_gqa(Hkv, masked):
    q, k, v = random_qkv(Hkv)
    allowed = causal_mask_np(5, 7, align="bottom-right") if masked else None
    out, w = gqa_attention_np(q, k, v, allowed)
    assert out.shape == (2, 6, 5, 3) and w.shape == (2, 6, 5, 7)
    qt, kt, vt = (torch.from_numpy(a) for a in (q, k, v))
    mask = None if allowed is None else torch.from_numpy(allowed)
    ref = F.scaled_dot_product_attention(qt, kt, vt, attn_mask=mask, enable_gqa=True)
    assert np.abs(out - ref.numpy()).max() <= TOL64
    assert np.abs(w.sum(-1) - 1).max() <= TOL64
    if masked:
        assert (w[..., ~allowed] == 0).all()


def test_gqa_with_hkv_equal_h_is_multi_head():
    q, k, v = random_qkv(6)
    allowed = causal_mask_np(5, 7, align="bottom-right")
    out, w = gqa_attention_np(q, k, v, allowed)
    for h in range(6):
        ref_out, ref_w = masked_sdpa_np(q[:, h], k[:, h], v[:, h], allowed)
        assert np.abs(out[:, h] - ref_out).max() <= TOL64
        assert np.abs(w[:, h] - ref_w).max() <= TOL64


def test_gqa_with_one_kv_head_is_multi_query():
    q, k, v = random_qkv(1)
    out, _ = gqa_attention_np(q, k, v)
    for h in range(6):                         # every query head reads the one K/V head
        ref_out, _ = masked_sdpa_np(q[:, h], k[:, 0], v[:, 0])
        assert np.abs(out[:, h] - ref_out).max() <= TOL64


@pytest.mark.parametrize("Hkv", [6, 3, 2, 1])
def test_gqa_groups_are_consecutive_query_heads(Hkv):
    q, k, v = random_qkv(Hkv)
    out, _ = gqa_attention_np(q, k, v)
    G = 6 // Hkv
    for h in range(6):
        ref_out, _ = masked_sdpa_np(q[:, h], k[:, h // G], v[:, h // G])
        assert np.abs(out[:, h] - ref_out).max() <= TOL64


@pytest.mark.parametrize("Hkv", [4, 2, 1])
def test_attention_module_matches_numpy_reference(Hkv):
    """CausalSelfAttention (RoPE, GQA, causal) against a NumPy float64 reference built from
    its weights: rotate-half RoPE, gqa_attention_np, a bottom-right causal mask."""
    torch.manual_seed(Hkv)
    attn = CausalSelfAttention(E, H, Hkv).double()
    Bx, L, D = 2, 7, E // H
    x = torch.randn(Bx, L, E, dtype=torch.float64)
    pos = torch.arange(3, 3 + L).expand(Bx, L)              # not starting at 0
    got = attn(x, pos).detach().numpy()
    w = {n: p.detach().numpy() for n, p in attn.named_parameters()}
    xn = x.numpy()

    def heads(name, n):
        y = xn @ w[name + ".weight"].T + w[name + ".bias"]  # (B, L, E) @ (E, n*D) -> (B, L, n*D)
        return y.reshape(Bx, L, n, D).transpose(0, 2, 1, 3)  # -> (B, n, L, D)

    positions = np.arange(3, 3 + L)
    q = rope_rotate_half_np(heads("q_proj", H), positions)
    k = rope_rotate_half_np(heads("k_proj", Hkv), positions)
    out, _ = gqa_attention_np(q, k, heads("v_proj", Hkv), causal_mask_np(L))
    out = out.transpose(0, 2, 1, 3).reshape(Bx, L, E)       # (B, H, L, D) -> (B, L, E)
    want = out @ w["out_proj.weight"].T + w["out_proj.bias"]
    assert np.abs(got - want).max() <= TOL64


@pytest.mark.parametrize("Hkv", [2, 1])
def test_gqa_module_equals_mha_with_repeated_kv_heads(Hkv):
    """The module's GQA path (F.scaled_dot_product_attention(enable_gqa=True)) equals a
    multi-head module (plain SDPA) whose K/V projections repeat each K/V head for its group."""
    torch.manual_seed(Hkv)
    gqa = CausalSelfAttention(E, H, Hkv).double()
    mha = CausalSelfAttention(E, H).double()
    D, G = E // H, H // Hkv
    state = dict(gqa.state_dict())
    for name in ["k_proj.weight", "k_proj.bias", "v_proj.weight", "v_proj.bias"]:
        t = state[name].reshape(Hkv, D, -1)               # (Hkv*D, ...) -> (Hkv, D, ...)
        state[name] = t.repeat_interleave(G, dim=0).reshape(H * D, *state[name].shape[1:])
    mha.load_state_dict(state)
    x = torch.randn(3, 6, E, dtype=torch.float64)
    pos = torch.arange(6).expand(3, 6)
    assert (gqa(x, pos) - mha(x, pos)).abs().max().item() <= TOL64


def test_check_gqa_heads_names_the_arguments():
    check_gqa_heads(8, 8)
    check_gqa_heads(8, 1)
    for bad in [3, 0, 16]:
        with pytest.raises(ValueError, match=f"Hkv={bad}"):
            check_gqa_heads(8, bad)
    with pytest.raises(ValueError, match="Hkv=3"):
        TinyLM(V, E, H, 3)
    with pytest.raises(ValueError, match="E="):
        CausalSelfAttention(10, 4)
    with pytest.raises(ValueError, match="characters not in the vocabulary"):
        CharVocab("abc").encode("abd")


# ---------------------------------------------------------------- batches of different lengths
@pytest.mark.parametrize("Hkv", [H, 2])
def test_batched_equals_one_by_one(Hkv):
    model = make_lm(Hkv)
    rng = np.random.default_rng(3)
    prompts = [rng.integers(1, V, size=n).tolist() for n in (5, 1, 8, 3)]
    new = generate_batch(model, prompts, 6)
    assert new.shape == (4, 6)
    for b, p in enumerate(prompts):
        alone, _ = generate_cached(model, torch.tensor([p]), 6)
        assert torch.equal(new[b], alone[0, len(p):]), f"prompt {b} (length {len(p)})"


def test_left_pad():
    tokens, pos = left_pad([[4, 5, 6], [7]], pad_id=0)
    assert tokens.tolist() == [[4, 5, 6], [0, 0, 7]]
    assert pos.tolist() == [[0, 1, 2], [-1, -1, 0]]


@pytest.mark.parametrize("L,S", [(1, 1), (1, 6), (4, 6), (6, 6)])
def test_visible_equals_bottom_right_causal_mask(L, S):
    q_pos = torch.arange(S - L, S).expand(2, L)
    k_pos = torch.arange(S).expand(2, S)
    got = visible_pt(q_pos, k_pos)
    assert got.shape == (2, 1, L, S) and got.dtype == torch.bool
    assert (got.numpy() == causal_mask_np(L, S, align="bottom-right")).all()


def test_visible_masks_padding_and_window():
    _, pos = left_pad([[1, 2, 3, 4, 5], [1, 2]])
    got = visible_pt(pos, pos)[:, 0].numpy()                # (B, L, S)
    assert (got[0] == np.tril(np.ones((5, 5), bool))).all()
    real = got[1, 3:]                                       # the two real queries of row 1
    assert (real == np.array([[0, 0, 0, 1, 0], [0, 0, 0, 1, 1]], bool)).all()
    assert got[1, :3].any(-1).all()                         # padding rows are never empty
    q, k = torch.arange(6)[None], torch.arange(6)[None]
    for W in (1, 2, 6):
        i, j = np.arange(6)[:, None], np.arange(6)[None]
        want = (j <= i) & (j > i - W)
        assert (visible_pt(q, k, window=W)[0, 0].numpy() == want).all()


# ---------------------------------------------------------------- the chapter's experiment
def load_experiment():
    spec = importlib.util.spec_from_file_location(
        "ch11_experiment", ROOT / "experiments" / "ch11_char_lm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_experiment_script_quick(tmp_path):
    out = tmp_path / "quick.json"
    load_experiment().main(["--quick", "--out", str(out)])
    result = json.loads(out.read_text())
    assert result["quick"] and result["seeds"] == [0]
    run = result["runs"][0]
    assert len(run["loss_curve"]) == 1 and run["generated"].startswith(result["prompt"])
    assert not (tmp_path / "ch11_char_lm_seed0.pt").exists()


def test_stored_experiment_result():
    result = json.loads(RESULT.read_text())
    assert result["seeds"] == [0, 1, 2] and not result["quick"]
    assert [r["seed"] for r in result["runs"]] == [0, 1, 2]
    assert all(len(r["loss_curve"]) == result["steps"] // result["curve_every"]
               for r in result["runs"])
    assert WEIGHTS.exists()
    for seed in (0, 1, 2):                     # every seed's weights are kept (chapters 11, 12)
        assert (WEIGHTS.parent / f"ch11_char_lm_seed{seed}.pt").exists()


def trained_model():
    if not WEIGHTS.exists():
        pytest.skip(f"{WEIGHTS.name} not found: run experiments/ch11_char_lm.py")
    text = TEXT_PATH.read_text(encoding="utf-8")
    vocab = CharVocab(text)
    from attnlab.kv_cache import CHAR_LM
    model = TinyLM(len(vocab), CHAR_LM["E"], CHAR_LM["H"], None, CHAR_LM["n_layers"])
    model.load_state_dict(torch.load(WEIGHTS, weights_only=True))
    return model.eval(), vocab


def test_trained_model_cached_equals_uncached():
    model, vocab = trained_model()
    prompt = torch.tensor([vocab.encode("Beautiful is")])
    tok_c, log_c = generate_cached(model, prompt, 120)
    tok_u, log_u = generate_uncached(model, prompt, 120)
    text = vocab.decode(tok_c[0].tolist())
    assert len(set(text[12:])) > 1                         # not a constant output
    assert torch.equal(tok_c, tok_u)
    assert (log_c - log_u).abs().max().item() <= TOL32
    if RESULT.exists():                                    # the run the JSON recorded
        stored = json.loads(RESULT.read_text())["runs"][0]["generated"]
        assert stored.startswith(text)
    model64 = model.double()
    tok_c64, log_c64 = generate_cached(model64, prompt, 40)
    tok_u64, log_u64 = generate_uncached(model64, prompt, 40)
    assert torch.equal(tok_c64, tok_u64)
    assert (log_c64 - log_u64).abs().max().item() <= TOL64


# ---------------------------------------------------------------- the mask once per forward
def test_shared_mask_equals_mask_per_layer(monkeypatch):
    """Building the mask once per forward changes no logit: a left-padded batch, a sliding
    window and a chunked prefill, with share_mask True and False; and it is built once."""
    import attnlab.kv_cache as kv
    builds = []
    real = kv.visible_pt
    monkeypatch.setattr(kv, "visible_pt", lambda *a, **k: builds.append(1) or real(*a, **k))
    model = make_lm(2, n_layers=3)
    tokens, pos = left_pad([[3, 4, 5, 6, 7], [8, 9], [1, 2, 3]])
    out = {}
    for share in (False, True):
        model.share_mask = share
        builds.clear()
        cache = KVCache(3)
        with torch.no_grad():
            first = model(tokens[:, :3], pos=pos[:, :3], cache=cache, window=3)
            rest = model(tokens[:, 3:], pos=pos[:, 3:], cache=cache, window=3)
            step = model(tokens[:, -1:], pos=pos[:, -1:] + 1, cache=cache, window=3)
        out[share] = torch.cat([first, rest, step], dim=1)
        assert len(builds) == (3 * 3 if not share else 3)
    model.share_mask = True
    assert torch.equal(out[False], out[True])


def test_shared_mask_rebuilds_for_other_positions():
    masks = {}
    q = torch.tensor([[2, 3]])
    a = kv_shared_mask(masks, q, torch.tensor([[0, 1, 2, 3]]))
    assert a is kv_shared_mask(masks, q, torch.tensor([[0, 1, 2, 3]]))     # equal: reused
    b = kv_shared_mask(masks, q, torch.tensor([[-1, 1, 2, 3]]))             # a pad: rebuilt
    assert torch.equal(b, visible_pt(q, torch.tensor([[-1, 1, 2, 3]]))) and not torch.equal(a, b)
    c = kv_shared_mask(masks, q, torch.tensor([[1, 2, 3]]))                  # other shape
    assert c.shape == (1, 1, 2, 3)


def kv_shared_mask(*args):
    from attnlab.kv_cache import shared_mask
    return shared_mask(*args)


# ---------------------------------------------------------------- the preallocated cache
@pytest.mark.parametrize("Hkv", [H, 1])
def test_preallocated_cache_equals_cat_cache(Hkv):
    from attnlab.kv_cache import PreallocatedKVCache
    model = make_lm(Hkv)
    tokens, pos = left_pad([[3, 4, 5, 6, 7, 8, 9], [8, 9], [1, 2, 3, 4]])
    logits = {}
    for name, cache in (("cat", KVCache(LAYERS)), ("pre", PreallocatedKVCache(LAYERS, 12))):
        with torch.no_grad():
            chunks = [model(tokens[:, :4], pos=pos[:, :4], cache=cache),
                      model(tokens[:, 4:], pos=pos[:, 4:], cache=cache)]
            p = pos[:, -1:]
            for t in range(5):
                p = p + 1
                chunks.append(model(chunks[-1][:, -1:].argmax(-1), pos=p, cache=cache))
        logits[name] = torch.cat(chunks, dim=1)
        assert len(cache) == 12 and cache.k[1].shape == (3, Hkv, 12, E // H)
    assert (logits["cat"] - logits["pre"]).abs().max().item() <= TOL64
    with pytest.raises(ValueError, match="max_len=12"):
        cache.update(0, *[torch.zeros(3, Hkv, 1, E // H, dtype=torch.float64)] * 2,
                     torch.zeros(3, 1, dtype=torch.long))


def test_copy_counter_counts_cache_copies():
    """Bytes written per update: the whole past for torch.cat, one slice preallocated."""
    from attnlab.kv_cache import CopyCounter, PreallocatedKVCache
    Bc, Hkv, D, n_layers = 3, 2, 6, 2
    per_slot = 2 * Bc * Hkv * D * 4 + Bc * 8               # K and V float32, int64 positions
    for cache in (KVCache(n_layers), PreallocatedKVCache(n_layers, 30)):
        T = 0
        for L in (5, 1, 1, 3, 1):
            k = torch.randn(Bc, Hkv, L, D)
            with CopyCounter() as counter:
                for layer in range(n_layers):
                    cache.update(layer, k, k, torch.arange(T, T + L).expand(Bc, L))
            if isinstance(cache, PreallocatedKVCache):
                assert counter.by_op == {"copy_": n_layers * per_slot * L}
            else:
                assert counter.bytes == (0 if T == 0 else n_layers * per_slot * (T + L))
            T += L


# ---------------------------------------------------------------- transformers' own caches
def test_book_cache_matches_transformers_llama():
    """The book's cache logic on a random Llama (GQA, D = 6, batch 2) against the model's
    own full pass, DynamicCache decoding and DynamicCache's key/value tensors."""
    transformers = pytest.importorskip("transformers")
    from attnlab.kv_cache import PreallocatedKVCache, llama_forward_cached
    torch.manual_seed(3)
    cfg = transformers.LlamaConfig(vocab_size=29, hidden_size=18, intermediate_size=20,
                                   num_hidden_layers=2, num_attention_heads=3,
                                   num_key_value_heads=1, max_position_embeddings=32,
                                   attn_implementation="sdpa")
    hf = transformers.LlamaForCausalLM(cfg).double().eval()
    ids = torch.randint(0, 29, (2, 11))
    with torch.no_grad():
        full = hf(ids, use_cache=False).logits
        for cache in (KVCache(2), PreallocatedKVCache(2, 16)):
            dyn = transformers.DynamicCache(config=cfg)
            ours, theirs = [], []
            for a, b in ((0, 5), (5, 8), (8, 9), (9, 10), (10, 11)):      # chunks, then steps
                ours.append(llama_forward_cached(hf, ids[:, a:b], cache))
                theirs.append(hf(ids[:, a:b], cache=dyn).logits)
            assert (torch.cat(ours, 1) - full).abs().max().item() <= TOL64
            assert (torch.cat(theirs, 1) - full).abs().max().item() <= TOL64
            for i in range(2):
                assert cache.k[i].shape == dyn.layers[i].keys.shape == (2, 1, 11, 6)
                assert (cache.k[i] - dyn.layers[i].keys).abs().max().item() <= TOL64
                assert (cache.v[i] - dyn.layers[i].values).abs().max().item() <= TOL64


# ---------------------------------------------------------------- the timing experiment
def load_timing():
    spec = importlib.util.spec_from_file_location(
        "ch11_timing", ROOT / "experiments" / "ch11_decode_timing.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_timing_script_functions_on_a_tiny_model():
    module = load_timing()
    model, prompt = make_lm(dtype=torch.float32), prompt_of(B=1)
    timing = module.time_engines(model, prompt, [2, 3], reps=2)
    assert set(timing) == {"2", "3"} and all(len(timing["3"][k]) == 2 for k in timing["3"])
    d = timing["3"]                                  # wall and CPU seconds, paired per run
    assert all(c > 0 for c in d["cached_cpu"]) and len(d["ratio_cpu"]) == 2
    assert d["ratio_cpu"] == [u / c for u, c in zip(d["uncached_cpu"], d["cached_cpu"])]
    assert model.share_mask
    prof = module.profile_share(model, prompt, 3, reps=1)
    assert prof["per_layer"]["calls"] == [3 * LAYERS] and prof["once"]["calls"] == [3]


def test_stored_timing_result():
    path = ROOT / "experiments" / "results" / "ch11_decode_timing.json"
    result = json.loads(path.read_text())
    cfg = result["config"]
    assert cfg["Ns"] == [16, 32, 64, 128] and cfg["reps"] == 5
    base = [c for c in result["conditions"] if c["batch"] == 1 and c["prompt_len"] == 12
            and c["layers"] <= 4]                    # the load x width grid
    assert sorted((c["busy"], c["model"]) for c in base) == sorted(
        (b, m) for b in (0, cfg["busy"]) for m in {c["model"] for c in base})
    others = sorted((c["batch"], c["prompt_len"], c["layers"], c["busy"])
                    for c in result["conditions"] if c not in base)   # one setting changed
    assert others == [(1, 12, cfg["deep"], 0), (1, cfg["long_prompt"], 2, 0),
                      (cfg["batch"], 12, 2, 0)]
    for c in result["conditions"]:
        for N in cfg["Ns"]:
            d = c["timing"][str(N)]
            assert len(d["cached"]) == len(d["uncached"]) == len(d["ratio"]) == cfg["reps"]
            assert len(d["cached_cpu"]) == len(d["mask_per_layer_over_once_cpu"]) == cfg["reps"]
        assert c["profile"]["once"]["calls"] == [cfg["Ns"][-1]] * cfg["profile_reps"]
