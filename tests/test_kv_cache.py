"""attnlab.kv_cache against independent references, on awkward sizes (tolerances per test).

Cached decoding against decoding without a cache, NumPy against PyTorch, grouped-query
attention against F.scaled_dot_product_attention(enable_gqa=True) and per-head attention,
the rolling and paged caches against contiguous attention, batched against one-by-one
decoding, the memory arithmetic against published model configurations, and the chapter's
trained model and experiment script.
"""
import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attnlab.kv_cache import (TEXT_PATH, BlockPool, CausalSelfAttention, CharVocab, KVCache,
                              RollingKVCache, TinyLM, check_gqa_heads, generate_batch,
                              generate_cached, generate_np, generate_uncached,
                              gqa_attention_np, kv_bytes_per_token, kv_waste, left_pad,
                              lm_forward_np, lm_params_np, mha_to_gqa, repeat_kv_pt,
                              visible_pt)
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


def test_repeat_kv_pt():
    x = torch.randn(2, 3, 5, 4)
    r = repeat_kv_pt(x, 6)
    assert r.shape == (2, 6, 5, 4)
    for h in range(6):
        assert torch.equal(r[:, h], x[:, h // 2])
    assert torch.equal(repeat_kv_pt(x, 3), x)
    with pytest.raises(ValueError, match="Hkv"):
        repeat_kv_pt(x, 4)


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
    with pytest.raises(ValueError, match="window"):
        RollingKVCache(2, 0)
    with pytest.raises(ValueError, match="characters not in the vocabulary"):
        CharVocab("abc").encode("abd")


# ---------------------------------------------------------------- sliding window
@pytest.mark.parametrize("W,P_", [(3, 7), (1, 5), (4, 2), (16, 5)])
def test_rolling_cache_equals_sliding_window(W, P_):
    model, prompt = make_lm(2), prompt_of(P=P_)
    tok_u, log_u = generate_uncached(model, prompt, 8, window=W)
    tok_c, log_c = generate_cached(model, prompt, 8, cache=RollingKVCache(LAYERS, W), window=W)
    assert torch.equal(tok_c, tok_u)
    assert (log_c - log_u).abs().max().item() <= TOL64
    if W < P_ + 8:                                         # the window changes the result
        _, log_full = generate_uncached(model, prompt, 8)
        assert (log_full - log_u).abs().max().item() > 1e-3


def test_rolling_cache_memory_is_flat():
    W, D = 4, E // H
    model, prompt = make_lm(2), prompt_of(P=2)
    rolling, plain = RollingKVCache(LAYERS, W), KVCache(LAYERS)
    sizes_rolling, sizes_plain = [], []
    tok = prompt
    with torch.no_grad():
        model(prompt, cache=rolling, window=W)
        model(prompt, cache=plain)
        for _ in range(10):
            model(tok[:, -1:], cache=rolling, window=W)
            model(tok[:, -1:], cache=plain)
            sizes_rolling.append(rolling.nbytes())
            sizes_plain.append(plain.nbytes())
    assert len(rolling) == len(plain) == 12
    assert set(sizes_rolling) == {2 * LAYERS * B * 2 * W * D * 8}   # K, V: (B, Hkv, W, D) f64
    assert sizes_plain == [2 * LAYERS * B * 2 * n * D * 8 for n in range(3, 13)]


# ---------------------------------------------------------------- paged
def test_block_pool_gather_equals_contiguous():
    Hkv, D, bs = 2, 3, 4
    pool = BlockPool(n_blocks=12, Hkv=Hkv, D=D, block_size=bs, dtype=torch.float64)
    torch.manual_seed(0)
    want = {s: [] for s in "abc"}
    # interleaved appends; final lengths 8 and 4 (multiples of 4) and 11 (not)
    for seq, L in [("a", 3), ("b", 4), ("a", 5), ("c", 1), ("c", 6), ("a", 0), ("c", 4)]:
        k, v = torch.randn(Hkv, L, D, dtype=torch.float64), torch.randn(Hkv, L, D,
                                                                          dtype=torch.float64)
        pool.append(seq, k, v)
        want[seq].append((k, v))
    for seq, n in [("a", 8), ("b", 4), ("c", 11)]:
        k, v = pool.gather(seq)
        assert k.shape == (Hkv, n, D) and pool.lengths[seq] == n
        assert torch.equal(k, torch.cat([kv[0] for kv in want[seq]], dim=1))
        assert torch.equal(v, torch.cat([kv[1] for kv in want[seq]], dim=1))
        assert len(pool.tables[seq]) == math.ceil(n / bs)
    tables = pool.tables["a"] + pool.tables["b"] + pool.tables["c"]
    assert len(set(tables)) == len(tables) == 2 + 1 + 3          # no block shared
    assert len(pool.free) == 12 - 6
    # paged attention = contiguous attention
    q = torch.randn(1, 4, 1, D, dtype=torch.float64)
    k, v = pool.gather("c")
    out, _ = gqa_attention_np(q.numpy(), k[None].numpy(), v[None].numpy())
    kc = torch.cat([kv[0] for kv in want["c"]], dim=1)[None]
    vc = torch.cat([kv[1] for kv in want["c"]], dim=1)[None]
    ref = F.scaled_dot_product_attention(q, kc, vc, enable_gqa=True)
    assert np.abs(out - ref.numpy()).max() <= TOL64


def test_block_pool_release_and_out_of_blocks():
    pool = BlockPool(n_blocks=3, Hkv=1, D=2, block_size=4)
    pool.append("a", torch.ones(1, 5, 2), torch.ones(1, 5, 2))      # 2 blocks
    pool.append("b", torch.ones(1, 4, 2), torch.ones(1, 4, 2))      # 1 block
    assert pool.free == []
    with pytest.raises(MemoryError):
        pool.append("b", torch.ones(1, 1, 2), torch.ones(1, 1, 2))
    blocks_a = list(pool.tables["a"])
    pool.release("a")
    assert sorted(pool.free) == sorted(blocks_a) and "a" not in pool.tables
    k = torch.arange(14.0).reshape(1, 7, 2)
    pool.append("c", k, -k)                                          # reuses a's blocks
    assert torch.equal(pool.gather("c")[0], k) and torch.equal(pool.gather("c")[1], -k)
    assert torch.equal(pool.gather("b")[0], torch.ones(1, 4, 2))


def test_kv_waste_by_hand():
    # lengths 1, 16, 17, 40: 74 tokens; 4 * 64 = 256 slots preallocated;
    # paged in blocks of 16: 16 + 16 + 32 + 48 = 112 slots
    prealloc, paged = kv_waste([1, 16, 17, 40], max_len=64, block_size=16)
    assert prealloc == pytest.approx(1 - 74 / 256, abs=1e-15)
    assert paged == pytest.approx(1 - 74 / 112, abs=1e-15)
    assert kv_waste([32, 64], 64) == pytest.approx((0.25, 0.0), abs=1e-15)


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


# ---------------------------------------------------------------- memory arithmetic
MiB, GiB = 2 ** 20, 2 ** 30


def test_kv_bytes_per_token_published_models():
    # Llama-2-7B: 32 layers, 32 heads of 128 (Touvron et al. 2023), fp16
    assert kv_bytes_per_token(32, 32, 128) == 2 * 32 * 32 * 128 * 2 == 524288 == MiB // 2
    assert 4096 * kv_bytes_per_token(32, 32, 128) == 2 * GiB
    # Llama-2-70B: 80 layers, 8 KV heads (GQA), D = 128
    assert kv_bytes_per_token(80, 8, 128) == 327680                     # 320 KiB
    # Llama-3-8B: 32 layers, 8 KV heads, D = 128
    assert kv_bytes_per_token(32, 8, 128) == 131072 == MiB // 8
    # GPT-2 small: 12 layers, 12 heads of 64; fp16 and fp32
    assert kv_bytes_per_token(12, 12, 64) == 36864
    assert kv_bytes_per_token(12, 12, 64, bytes_per_element=4) == 73728
    # Mistral-7B: 32 layers, 8 KV heads, D = 128, a 4096-token window caps the cache
    assert kv_bytes_per_token(32, 8, 128) * 4096 == 512 * MiB
    # the chapter's model in float32: GQA divides the bytes by H / Hkv
    assert kv_bytes_per_token(2, 4, 16, 4) == 4 * kv_bytes_per_token(2, 1, 16, 4) == 1024


def test_kv_bytes_match_a_real_cache():
    model, prompt = make_lm(2), prompt_of()
    cache = KVCache(LAYERS)
    generate_cached(model, prompt, 4, cache=cache)
    per_token = kv_bytes_per_token(LAYERS, 2, E // H, bytes_per_element=8)
    assert cache.nbytes() == B * len(cache) * per_token and len(cache) == P + 3


# ---------------------------------------------------------------- MHA -> GQA
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_mha_to_gqa_with_hkv_equal_h_is_identity(dtype):
    model, tokens = make_lm(dtype=dtype), prompt_of(P=6)
    same = mha_to_gqa(model, H).eval()
    assert same.config == model.config
    assert torch.equal(same(tokens), model(tokens))


def test_mha_to_gqa_mean_pools_heads_and_refuses_gqa():
    model = make_lm(dtype=torch.float32)
    mqa = mha_to_gqa(model, 1)
    assert mqa.config["Hkv"] == 1
    D = E // H
    w = model.blocks[0].attn.k_proj.weight.detach()         # (H*D, E)
    want = w.reshape(H, D, E).mean(0)                       # (H, D, E) -> (D, E)
    assert (mqa.blocks[0].attn.k_proj.weight.detach() - want).abs().max().item() <= 1e-6
    tokens = prompt_of()
    assert mqa(tokens).shape == model(tokens).shape
    assert (mqa(tokens) - model(tokens)).abs().max().item() > 1e-3   # a real change
    with pytest.raises(ValueError, match="Hkv=2"):
        mha_to_gqa(make_lm(2), 1)
    with pytest.raises(ValueError, match="Hkv=3"):
        mha_to_gqa(model, 3)


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
