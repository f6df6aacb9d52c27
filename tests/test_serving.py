"""attnlab.serving against independent references, on awkward sizes (tolerances per test).

Grouped-query attention's helpers (repeat_kv_pt, mha_to_gqa) against per-head attention and
the built-in, the rolling and paged caches against contiguous attention, the memory
arithmetic against published model configurations, the roofline's intensities counted by
hand, and the int8 cache: NumPy against PyTorch (exact codes), the round-trip bound, the
grouping, the bytes it stores and cached decoding through it. Going further: the sink cache
against an explicit sinks-plus-window mask, and greedy speculative decoding against plain
greedy decoding (identical tokens, for any draft and k), with the experiment's quick run.
Batching: the static, Orca-style and continuous schedulers on a hand-worked trace, the
invariants (never over budget, every block freed, under a block of waste per request), the
batching experiment's quick run and a stored point recomputed, the pool's invariants
(never over budget, every block freed, under a block of waste per request) on random traces,
preemption when blocks run out, copy-on-write and reference counts, and decoding through a
shared prefix bit for bit equal to a contiguous cache.
"""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attnlab.kv_cache import KVCache, TinyLM, generate_cached, generate_uncached, gqa_attention_np
from attnlab.serving import (BlockPool, Int8KVCache, RollingKVCache, SinkKVCache,
                             attention_intensity, early_exit_draft, speculative_generate,
                             truncate_cache, verify_proposal,
                             dequantize_int8_np, kv_bytes_per_token, kv_cache_bytes_of,
                             KV_CONFIGS, kv_waste, matmul_intensity, mha_to_gqa,
                             quantize_int8_np, quantize_int8_pt, repeat_kv_pt, roofline_flops)

TOL64 = 1e-12
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


def test_repeat_kv_pt():
    x = torch.randn(2, 3, 5, 4)
    r = repeat_kv_pt(x, 6)
    assert r.shape == (2, 6, 5, 4)
    for h in range(6):
        assert torch.equal(r[:, h], x[:, h // 2])
    assert torch.equal(repeat_kv_pt(x, 3), x)
    with pytest.raises(ValueError, match="Hkv"):
        repeat_kv_pt(x, 4)


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



def test_rolling_cache_refuses_an_empty_window():
    with pytest.raises(ValueError, match="window"):
        RollingKVCache(2, 0)


# ---------------------------------------------------------------- roofline
def test_intensities_by_hand():
    # (1, 4) @ (4, 4) in fp16: 32 FLOPs over 2 * (4 + 16 + 4) bytes
    assert matmul_intensity(1, 4, 4) == 32 / 48
    assert matmul_intensity(4096, 4096, 4096) == pytest.approx(4096 / 3)
    # decode (L = 1) with G query heads per K/V head: 4 G S D FLOPs over 2 (2 G D + 2 S D) bytes
    assert attention_intensity(1, 10, 8, G=4) == 4 * 4 * 10 * 8 / (2 * (2 * 4 * 8 + 2 * 10 * 8))
    assert roofline_flops(1.0, 100.0, 10.0) == 10.0 and roofline_flops(50.0, 100.0, 10.0) == 100.0


# ---------------------------------------------------------------- int8 cache
@pytest.mark.parametrize("axis", [-1, -2, None])
def test_int8_round_trip_bound_and_numpy_equals_torch(axis):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 37, 10)) * np.linspace(0.1, 9, 10)     # channels of mixed size
    x[0, 1, 5] = 0.0                                                   # a token of zeros
    codes, scale = quantize_int8_np(x, axis)
    assert codes.dtype == np.int8 and np.abs(codes).max() == 127
    x_hat = dequantize_int8_np(codes, scale)
    assert (np.abs(x - x_hat) <= scale / 2 + 1e-15).all()              # half a step at most
    if axis is not None:
        c_pt, s_pt = quantize_int8_pt(torch.tensor(x), axis)
        assert np.array_equal(c_pt.numpy(), codes)
        assert np.array_equal(s_pt.numpy(), scale)


def test_int8_scale_shapes():
    x = np.ones((1, 2, 5, 4))
    assert quantize_int8_np(x, -1)[1].shape == (1, 2, 5, 1)            # per token
    assert quantize_int8_np(x, -2)[1].shape == (1, 2, 1, 4)            # per channel


@pytest.mark.parametrize("key_axis,value_axis", [("token", "token"), ("channel", "token"),
                                                 ("channel", "channel")])
def test_int8_cache_reads_back_its_round_trip(key_axis, value_axis):
    torch.manual_seed(0)
    cache = Int8KVCache(1, key_axis, value_axis, group=4)
    k, v = torch.randn(2, 3, 11, 6, dtype=torch.float64), torch.randn(2, 3, 11, 6,
                                                                       dtype=torch.float64)
    for a, b in [(0, 3), (3, 4), (4, 9), (9, 11)]:                     # chunks of 3, 1, 5, 2
        k_back, v_back, pos = cache.update(0, k[:, :, a:b], v[:, :, a:b],
                                           torch.arange(a, b).expand(2, b - a))
    assert len(cache) == 11 and pos[0].tolist() == list(range(11))
    for x, back, axis in ((k, k_back, key_axis), (v, v_back, value_axis)):
        if axis == "token":
            want = dequantize_int8_np(*quantize_int8_np(x.numpy(), -1))
        else:                                                           # 2 groups of 4, 3 fresh
            g = x.numpy()[:, :, :8].reshape(2, 3, 2, 4, 6)
            want = np.concatenate([dequantize_int8_np(*quantize_int8_np(g, -2)).reshape(2, 3, 8, 6),
                                   x.numpy()[:, :, 8:]], axis=2)
        assert np.abs(back.numpy() - want).max() <= 1e-15


def test_int8_cache_bytes_and_decoding():
    torch.manual_seed(1)
    model = TinyLM(V, E, H, 2, LAYERS).eval()                           # float32, Hkv = 2, D = 6
    prompt = torch.randint(1, V, (1, 8))
    cache = Int8KVCache(LAYERS, "token", "token")
    tok_q, log_q = generate_cached(model, prompt, 5, cache=cache)
    T = len(cache)
    assert T == 12
    # codes: K and V, layers, Hkv, T, D int8; scales: one float32 per token and head
    assert cache.nbytes() == 2 * LAYERS * 2 * T * 6 + 2 * LAYERS * 2 * T * 4
    tok_f, log_f = generate_cached(model, prompt, 5)
    assert (log_q - log_f).abs().max().item() < 0.5                    # close, not equal
    with pytest.raises(ValueError, match="axis"):
        Int8KVCache(2, "tensor")


# ------------------------------------------------------------ going further: sinks, speculation
def sink_window_reference(model, tokens, W, n_sink):
    """Logits of every position under an explicit sinks + window mask, one full pass."""
    L = tokens.shape[1]
    i, j = torch.arange(L)[:, None], torch.arange(L)[None]
    allowed = (j <= i) & ((j < n_sink) | (j > i - W))                  # (L, L)
    out = []
    for t in range(L):                  # position t sees exactly allowed[t]
        keep = allowed[t, :t + 1].nonzero()[:, 0]
        logits = model(tokens[:, keep], pos=keep[None].expand(tokens.shape[0], -1))
        out.append(logits[:, -1])
    return torch.stack(out, dim=1)


@pytest.mark.parametrize("W, n_sink", [(3, 0), (3, 2), (1, 1), (5, 3)])
def test_sink_cache_matches_explicit_mask(W, n_sink):
    model = make_lm(n_layers=1)         # one layer: every key it attends to is a real token's
    tokens = prompt_of(2, B=1, P=14)
    cache = SinkKVCache(1, W, n_sink)
    with torch.no_grad():
        got = torch.cat([model(tokens[:, t:t + 1], cache=cache) for t in range(14)], dim=1)
        want = sink_window_reference(model, tokens, W, n_sink)
    assert (got - want).abs().max().item() < TOL64
    assert cache.k[0].shape[2] == min(14, n_sink + W)                   # bounded memory
    assert cache.nbytes() == 2 * H * min(14, n_sink + W) * (E // H) * 8


def test_sink_cache_zero_sinks_is_the_window_mask_and_rejects_late_chunks():
    model = make_lm()
    tokens = prompt_of(3, B=2, P=12)
    cache = SinkKVCache(LAYERS, 4, 0)
    with torch.no_grad():
        got = torch.cat([model(tokens[:, t:t + 1], cache=cache) for t in range(12)], dim=1)
        want = model(tokens, window=4)
    assert (got - want).abs().max().item() < TOL64
    with pytest.raises(ValueError):
        model(tokens[:, :2], cache=cache)
    with pytest.raises(ValueError):
        SinkKVCache(2, 0)


def test_truncate_cache():
    model = make_lm()
    tokens = prompt_of(4, B=1, P=9)
    cache = KVCache(LAYERS)
    with torch.no_grad():
        model(tokens, cache=cache)
        truncate_cache(cache, 5)
        assert len(cache) == 5 and all(p.shape[1] == 5 for p in cache.pos)
        got = model(tokens[:, 5:], cache=cache)
        want = model(tokens)[:, 5:]
    assert (got - want).abs().max().item() < TOL64


def test_early_exit_draft_is_the_first_blocks():
    model = make_lm(n_layers=3)
    draft = early_exit_draft(model, 1)
    tokens = prompt_of(5, B=2, P=6)
    with torch.no_grad():
        x = model.embed(tokens)
        pos = torch.arange(6).expand(2, 6)
        want = model.head(model.ln_f(model.blocks[0](x, pos)))
        got = draft(tokens)
    assert len(draft.blocks) == 1 and (got - want).abs().max().item() < TOL64
    assert draft.head.weight.dtype == torch.float64


def test_verify_proposal_accepts_the_agreeing_prefix():
    model = make_lm()
    prompt = prompt_of(6, B=1, P=5)
    plain, _ = generate_cached(model, prompt, 6)
    target_next = plain[0, 5:].tolist()                    # the target's greedy tokens
    for a_true in range(4):
        cache = KVCache(LAYERS)
        with torch.no_grad():
            model(prompt[:, :-1], cache=cache)
            proposal = target_next[:a_true] + [(target_next[a_true] + 1) % V or 1] + [1, 2]
            proposal = proposal[:3]
            a, fix = verify_proposal(model, cache, prompt[0, -1].item(), proposal)
        want_a = min(a_true, 3)
        assert a == want_a and fix == target_next[a]


def test_zero_block_draft_is_embed_ln_f_head():
    model = make_lm(n_layers=2)
    draft = early_exit_draft(model, 0)
    tokens = prompt_of(5, B=2, P=6)
    with torch.no_grad():
        want = model.head(model.ln_f(model.embed(tokens)))
        got = draft(tokens)
        model.head.weight.add_(1.0)                    # a copy: the target's edit does not leak
        assert (draft(tokens) - got).abs().max().item() == 0
    assert len(draft.blocks) == 0 and (got - want).abs().max().item() < TOL64
    assert (got[:, 3] - draft(tokens[:, 3:4])[:, 0]).abs().max().item() < TOL64   # a bigram


@pytest.mark.parametrize("k", [1, 2, 5])
@pytest.mark.parametrize("draft_layers", [0, 1, 2])
def test_speculative_equals_greedy(k, draft_layers):
    target = make_lm(n_layers=2)
    draft = early_exit_draft(target, draft_layers) if draft_layers < 2 else make_lm(seed=9)
    for P_ in (1, 4):
        prompt = prompt_of(7, B=1, P=P_)
        plain, _ = generate_cached(target, prompt, 13)
        spec, passes, accepted = speculative_generate(target, draft, prompt, 13, k)
        assert torch.equal(spec, plain)
        assert passes == int(P_ > 1) + len(accepted) and all(0 <= a <= k for a in accepted)
        assert sum(a + 1 for a in accepted) >= 13


def test_speculative_with_the_target_as_draft_accepts_everything():
    target = make_lm()
    prompt = prompt_of(8, B=1, P=3)
    spec, passes, accepted = speculative_generate(target, target, prompt, 12, 3)
    assert torch.equal(spec, generate_cached(target, prompt, 12)[0])
    assert accepted == [3, 3, 3] and passes == 1 + 3


def load_ch12_experiment():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "experiments" / "ch12_streaming_speculative.py"
    spec = importlib.util.spec_from_file_location("ch12_experiment", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ch12_experiment_quick_and_stored(tmp_path):
    import json
    module = load_ch12_experiment()
    out = tmp_path / "quick.json"
    module.main(["--quick", "--out", str(out)])
    quick = json.loads(out.read_text())
    assert quick["quick"] and all(r["identical"] for r in quick["runs"][0]["speculative"]["rows"])
    stored = json.loads(module.RESULT.read_text())
    assert not stored["quick"] and [r["seed"] for r in stored["runs"]] == [0, 1, 2]
    assert all(row["identical"] for r in stored["runs"] for row in r["speculative"]["rows"])
    for r in quick["runs"] + stored["runs"]:                # the draft runs k times per round
        assert all(row["draft_passes"] == row["k"] * len(row["accepted"])
                   and row["passes"] == len(row["accepted"]) + 1
                   for row in r["speculative"]["rows"])
    assert stored["config"]["control_window"] == 128 and all("streaming_control" in r
                                                              for r in stored["runs"])
    for r in quick["runs"] + stored["runs"]:               # every prompt and draft exact
        by_draft = r["speculative_prompts"]
        assert sorted(by_draft) == ["0", "1"] and all(
            row["identical"] and row["draft_passes"] == row["k"] * len(row["accepted"])
            for by_prompt in by_draft.values() for run in by_prompt.values()
            for row in run["rows"])
    assert len(stored["config"]["prompts"]) >= 5



# ---------------------------------------------------------------- batching and prefix caching
from attnlab.serving import (PagedKVCache, SharedBlockPool, request_trace, serving_metrics,
                             simulate_continuous, simulate_orca, simulate_static)


def test_request_trace_is_seeded_and_in_range():
    a, b = request_trace(50, seed=3), request_trace(50, seed=3)
    assert a == b and a != request_trace(50, seed=4)
    assert all(isinstance(x, int) for r in a for x in r)
    arrival = [r[0] for r in a]
    assert arrival == sorted(arrival) and all(0 <= g <= 8 for g in np.diff([0] + arrival))
    assert all(8 <= p <= 128 and 1 <= o <= 256 for _, p, o in a)


HAND_TRACE = [(0, 3, 2), (0, 2, 5), (1, 4, 1)]           # (arrival, prompt, output)


def test_continuous_batching_on_a_hand_worked_trace():
    # 4 blocks of 4 slots. Step 0: requests 0 and 1 join (1 block each). Step 1: request 2
    # arrives but waits (the watermark keeps a block per running request); request 0 ends.
    # Step 2: request 2 joins, prefills and ends. Step 3: request 1 takes its second block.
    run = simulate_continuous(HAND_TRACE, n_blocks=4, block_size=4)
    assert run["finish"] == [1, 4, 2] and run["preempted"] == 0
    assert run["live"].tolist() == [5, 7, 8, 5, 6]          # P + made - 1 per running request
    assert run["held"].tolist() == [8, 8, 8, 8, 8]
    assert run["batch"].tolist() == [2, 2, 2, 1, 1]
    m = serving_metrics(HAND_TRACE, run, 16)
    assert m["throughput"] == 8 / 5 and m["max_latency"] == 5
    assert m["mean_latency"] == (2 + 5 + 2) / 3


def test_static_batching_on_a_hand_worked_trace():
    # max_len = 7 slots each, so B = 16 // 7 = 2; request 2 waits for the whole first batch.
    run = simulate_static(HAND_TRACE, n_blocks=4, block_size=4)
    assert run["B"] == 2 and run["finish"] == [1, 4, 5]
    assert run["live"].tolist() == [5, 7, 4, 5, 6, 4]
    assert run["held"].tolist() == [14] * 5 + [7]
    m = serving_metrics(HAND_TRACE, run, 16)
    assert m["throughput"] == 8 / 6 and m["mean_latency"] == (2 + 5 + 5) / 3


def test_orca_batching_on_a_hand_worked_trace():
    # max_len = 7 slots each, so B = 2 reservations of 7. Step 1: request 2 arrives but both
    # reservations are held; request 0 ends. Step 2: request 2 takes request 0's place at
    # once (static waits for the whole batch), prefills and ends.
    run = simulate_orca(HAND_TRACE, n_blocks=4, block_size=4)
    assert run["B"] == 2 and run["finish"] == [1, 4, 2]
    assert run["live"].tolist() == [5, 7, 8, 5, 6]
    assert run["held"].tolist() == [14, 14, 14, 7, 7]
    assert run["batch"].tolist() == [2, 2, 2, 1, 1]


def load_ch12_batching():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "experiments" / "ch12_batching.py"
    spec = importlib.util.spec_from_file_location("ch12_batching", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ch12_batching_quick_and_a_stored_point_recomputed(tmp_path):
    import json
    module = load_ch12_batching()
    out = tmp_path / "quick.json"
    module.main(["--quick", "--out", str(out)])
    quick = json.loads(out.read_text())
    light = quick["sweep"]["32"]["0"]
    assert quick["quick"] and light["orca"]["throughput"] == light["paged"]["throughput"]
    stored = json.loads(module.RESULT.read_text())
    assert not stored["quick"] and stored["config"]["seeds"] == [0, 1, 2]
    assert stored["sweep"]["4"]["1"] == module.run_point(stored["config"], 1, 4)   # integers


@pytest.mark.parametrize("seed,n_blocks", [(0, 24), (1, 40), (2, 64), (3, 200)])
def test_scheduler_invariants_on_random_traces(seed, n_blocks):
    trace = request_trace(40, seed=seed, mean_gap=2, prompt=(1, 60), output=(1, 90))
    budget = n_blocks * 16
    cont = simulate_continuous(trace, n_blocks)      # asserts the pool's invariants per step
    static = simulate_static(trace, n_blocks, max_len=150)
    orca = simulate_orca(trace, n_blocks, max_len=150)
    assert (orca["batch"] <= orca["B"]).all() and (orca["held"] == 150 * orca["batch"]).all()
    for run in (cont, static, orca):
        assert None not in run["finish"]
        assert (run["live"] <= run["held"]).all() and (run["held"] <= budget).all()
        for (a, _, o), f in zip(trace, run["finish"]):
            assert f - a + 1 >= o                    # one token per step at most
    # paging: at most one partly filled block per running request
    assert ((cont["held"] - cont["live"]) < 16 * np.maximum(cont["batch"], 1)).all()
    assert sum(o for _, _, o in trace) == len(cont["live"]) * serving_metrics(
        trace, cont, budget)["throughput"]


def test_continuous_batching_preempts_when_blocks_run_out_and_still_finishes():
    trace = [(0, 4, 12), (0, 4, 12), (0, 4, 12)]      # 3 x 4 blocks of 4 at the end; 9 exist
    run = simulate_continuous(trace, n_blocks=9, block_size=4)
    assert run["preempted"] > 0 and None not in run["finish"]
    assert max(run["held"]) <= 9 * 4


def test_shared_block_pool_copy_on_write_and_release():
    g = torch.Generator().manual_seed(0)
    pool = SharedBlockPool(8, Hkv=2, D=3, block_size=4, dtype=torch.float64)
    k, v = torch.randn(2, 6, 3, generator=g), torch.randn(2, 6, 3, generator=g)
    pool.append("p", k, v)                            # blocks: 4 full + 2 in the second
    pool.fork("p", "a")
    pool.fork("p", "b")
    assert pool.blocks_in_use() == 2 and pool.refs[pool.tables["p"][0]] == 3
    ka, va = torch.randn(2, 3, 3, generator=g), torch.randn(2, 3, 3, generator=g)
    pool.append("a", ka, va)                          # copies the shared partial block first
    assert pool.copies == 1 and pool.tables["a"][0] == pool.tables["p"][0]
    assert pool.tables["a"][1] != pool.tables["p"][1]
    assert torch.equal(pool.gather("a")[0], torch.cat([k, ka], 1))
    assert torch.equal(pool.gather("p")[0], k) and torch.equal(pool.gather("b")[1], v)
    pool.release("p")                                 # the parent may leave first
    assert torch.equal(pool.gather("b")[0], k) and pool.blocks_in_use() == 4
    pool.release("a")
    pool.release("b")
    assert pool.blocks_in_use() == 0 and sorted(pool.free) == list(range(8))
    assert all(r == 0 for r in pool.refs)


@pytest.mark.parametrize("Hkv", [None, 2])
def test_paged_cache_with_a_shared_prefix_equals_the_contiguous_cache(Hkv):
    model = make_lm(Hkv)
    Hkv_, D = model.config["Hkv"] or H, E // H
    prefix, asks = prompt_of(3, B=1, P=7), [prompt_of(s, B=1, P=p) for s, p in ((4, 2), (5, 5))]
    pools = [SharedBlockPool(16, Hkv_, D, block_size=4, dtype=torch.float64)
             for _ in range(LAYERS)]
    with torch.no_grad():
        model(prefix, cache=PagedKVCache(pools, "prefix"))
        for r, ask in enumerate(asks):
            for pool in pools:
                pool.fork("prefix", r)
            want_cache = KVCache(LAYERS)
            model(prefix, cache=want_cache)
            want = generate_cached(model, ask, 6, want_cache)
            got = generate_cached(model, ask, 6, PagedKVCache(pools, r))
            assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])
    assert pools[0].copies == len(asks)                  # 7 = 4 + 3: the partial block copied
    assert pools[0].blocks_in_use() == 2 + sum(-(-(7 + a.shape[1] + 5) // 4) - 1 for a in asks)
