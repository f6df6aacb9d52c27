import math
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from attnlab.masks import causal_mask_np
from attnlab.positional_encoding import rope_angles_pt, rope_rotate_half_np
from attnlab.transformer_block import FeedForward, LayerNorm, ffn_np, layer_norm_np


# ---------------------------------------------------------------- the text and its characters
class CharVocab:
    """Characters <-> integer ids, id 0 reserved for padding ("<pad>", never in the text)."""

    def __init__(self, text):
        self.chars = ["<pad>"] + sorted(set(text))
        self.index = {c: i for i, c in enumerate(self.chars)}

    def __len__(self):
        return len(self.chars)

    def encode(self, s):
        missing = sorted(set(s) - set(self.index))
        if missing:
            raise ValueError(f"characters not in the vocabulary: {missing}")
        return [self.index[c] for c in s]

    def decode(self, ids):
        return "".join(self.chars[i] for i in ids if i != 0)


# ---------------------------------------------------------------- GQA: shared K/V heads
def check_gqa_heads(H, Hkv):
    if Hkv < 1 or H % Hkv:
        raise ValueError(f"H must be a multiple of Hkv (each K/V head serves H/Hkv query "
                         f"heads); got H={H}, Hkv={Hkv}")


def gqa_attention_np(q, k, v, allowed=None):
    """Grouped-query attention, float64: q (B, H, L, D), k and v (B, Hkv, S, D).

    Query head h reads K/V head h // (H // Hkv). Hkv = H is multi-head attention, Hkv = 1
    multi-query attention. No copy of K or V is made: the H query heads are viewed as Hkv
    groups of G = H // Hkv. allowed: bool, broadcast to (B, H, L, S). Returns (out, weights).
    """
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    B, H, L, D = q.shape
    Hkv, S = k.shape[1], k.shape[2]
    check_gqa_heads(H, Hkv)
    G = H // Hkv
    qg = q.reshape(B, Hkv, G, L, D)                    # (B, H, L, D) -> (B, Hkv, G, L, D)
    scores = qg @ k[:, :, None].swapaxes(-2, -1) / math.sqrt(D)
    # (B, Hkv, G, L, D) @ (B, Hkv, 1, D, S) -> (B, Hkv, G, L, S)
    scores = scores.reshape(B, H, L, S)                # (B, Hkv, G, L, S) -> (B, H, L, S)
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    wg = weights.reshape(B, Hkv, G, L, S)              # (B, H, L, S) -> (B, Hkv, G, L, S)
    out = wg @ v[:, :, None]           # (B, Hkv, G, L, S) @ (B, Hkv, 1, S, D) -> (B, Hkv, G, L, D)
    return out.reshape(B, H, L, D), weights            # (B, Hkv, G, L, D) -> (B, H, L, D)


def repeat_kv_pt(x, H):
    """(B, Hkv, S, D) -> (B, H, S, D): each K/V head repeated for its H // Hkv query heads."""
    check_gqa_heads(H, x.shape[1])
    return x.repeat_interleave(H // x.shape[1], dim=1)


# ---------------------------------------------------------------- the mask, from positions
def visible_pt(q_pos, k_pos, window=None):
    """Which keys each query may see, from absolute positions: (B, L), (B, S) -> (B, 1, L, S).

    A key is visible when it is real (position >= 0; left padding has -1), not in the future
    (k <= q) and, with a sliding window W, among the last W positions (k > q - W). A padding
    query (position -1) sees the padding keys, so its row is never empty; nothing reads it.
    """
    q = q_pos[:, :, None]                               # (B, L) -> (B, L, 1)
    k = k_pos[:, None, :]                               # (B, S) -> (B, 1, S)
    ok = (k <= q) & ((k >= 0) | (q < 0))                # (B, L, S)
    if window is not None:
        ok = ok & (k > q - window)
    return ok[:, None]                                  # (B, L, S) -> (B, 1, L, S)


def rope_pt(x, positions, base=10000.0):
    """Rotate-half RoPE with a position per batch row: x (B, H, L, D), positions (B, L)."""
    B, _, L, D = x.shape
    ang = rope_angles_pt(positions.reshape(-1).clamp(min=0), D, base, x.device)
    ang = ang.reshape(B, 1, L, D // 2)                  # (B*L, D/2) -> (B, 1, L, D/2)
    cos = torch.cat([ang.cos()] * 2, -1).to(x.dtype)    # (B, 1, L, D)
    sin = torch.cat([ang.sin()] * 2, -1).to(x.dtype)
    x1, x2 = x.chunk(2, dim=-1)                         # (B, H, L, D/2) each
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


# ---------------------------------------------------------------- caches
class KVCache:
    """The plain cache: per layer, K and V of shape (B, Hkv, T, D), grown by one step's
    keys at a time; also the absolute position of every cached key, (B, T)."""

    def __init__(self, n_layers):
        self.k = [None] * n_layers
        self.v = [None] * n_layers
        self.pos = [None] * n_layers

    def __len__(self):
        return 0 if self.k[0] is None else self.k[0].shape[2]

    def update(self, layer, k, v, pos):
        """Append k, v (B, Hkv, L, D) at positions pos (B, L); return everything cached."""
        if self.k[layer] is None:
            self.k[layer], self.v[layer], self.pos[layer] = k, v, pos
        else:
            self.k[layer] = torch.cat([self.k[layer], k], dim=2)   # (B, Hkv, T+L, D)
            self.v[layer] = torch.cat([self.v[layer], v], dim=2)
            self.pos[layer] = torch.cat([self.pos[layer], pos], dim=1)   # (B, T+L)
        return self.k[layer], self.v[layer], self.pos[layer]

    def nbytes(self):
        return sum(t.numel() * t.element_size() for t in self.k + self.v if t is not None)


class RollingKVCache:
    """Sliding-window cache (Mistral's rolling buffer): W slots per layer; the key of
    position p lives in slot p % W and overwrites the one W positions older."""

    def __init__(self, n_layers, window):
        if window < 1:
            raise ValueError(f"window must be >= 1; got {window}")
        self.W = window
        self.k = [None] * n_layers
        self.v = [None] * n_layers
        self.pos = [None] * n_layers
        self.seen = 0

    def __len__(self):
        return self.seen

    def update(self, layer, k, v, pos):
        """Write k, v (B, Hkv, L, D) of positions pos (B, L) into their slots; return the
        old slots and the new keys together (B, Hkv, W + L, D) with their positions."""
        B, Hkv, L, D = k.shape
        if self.k[layer] is None:
            self.k[layer] = k.new_zeros(B, Hkv, self.W, D)
            self.v[layer] = v.new_zeros(B, Hkv, self.W, D)
            self.pos[layer] = torch.full((B, self.W), -1, dtype=torch.long)
        keep = min(L, self.W)                                  # only the last W survive
        slots = torch.arange(self.seen + L - keep, self.seen + L) % self.W
        # Attend over the old slots plus the new keys, then overwrite: a query of this chunk
        # may need a key that one of its own chunk's keys replaces.
        k_all = torch.cat([self.k[layer], k], dim=2)           # (B, Hkv, W + L, D)
        v_all = torch.cat([self.v[layer], v], dim=2)
        pos_all = torch.cat([self.pos[layer], pos], dim=1)     # (B, W + L)
        self.k[layer][:, :, slots] = k[:, :, L - keep:]
        self.v[layer][:, :, slots] = v[:, :, L - keep:]
        self.pos[layer][:, slots] = pos[:, L - keep:]
        if layer == len(self.k) - 1:
            self.seen += L
        return k_all, v_all, pos_all

    def nbytes(self):
        return sum(t.numel() * t.element_size() for t in self.k + self.v if t is not None)


# ---------------------------------------------------------------- the model
class CausalSelfAttention(nn.Module):
    """Self-attention with RoPE on q and k, H query heads and Hkv key/value heads (GQA)."""

    def __init__(self, E, H, Hkv=None, base=10000.0):
        super().__init__()
        Hkv = H if Hkv is None else Hkv
        if E % H:
            raise ValueError(f"E must be divisible by H; got E={E}, H={H}")
        check_gqa_heads(H, Hkv)
        self.E, self.H, self.Hkv, self.D, self.base = E, H, Hkv, E // H, base
        self.q_proj = nn.Linear(E, H * self.D)
        self.k_proj = nn.Linear(E, Hkv * self.D)
        self.v_proj = nn.Linear(E, Hkv * self.D)
        self.out_proj = nn.Linear(E, E)

    def heads(self, x, n):
        B, L, _ = x.shape
        return x.view(B, L, n, self.D).transpose(1, 2)  # (B, L, n*D) -> (B, n, L, D)

    def forward(self, x, pos, cache=None, layer=0, window=None):
        """x (B, L, E), pos (B, L) absolute positions -> (B, L, E)."""
        q = rope_pt(self.heads(self.q_proj(x), self.H), pos, self.base)     # (B, H, L, D)
        k = rope_pt(self.heads(self.k_proj(x), self.Hkv), pos, self.base)   # (B, Hkv, L, D)
        v = self.heads(self.v_proj(x), self.Hkv)                            # (B, Hkv, L, D)
        k_pos = pos
        if cache is not None:
            k, v, k_pos = cache.update(layer, k, v, pos)                    # (B, Hkv, S, D)
        allowed = visible_pt(pos, k_pos, window)                            # (B, 1, L, S)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed,
                                             enable_gqa=self.Hkv != self.H)  # (B, H, L, D)
        B, _, L, _ = out.shape
        return self.out_proj(out.transpose(1, 2).reshape(B, L, self.E))  # -> (B, L, E)


class DecoderOnlyBlock(nn.Module):
    """Pre-LN block: x + attn(LN(x)), then x + FFN(LN(x))."""

    def __init__(self, E, H, Hkv=None, F=None):
        super().__init__()
        self.ln1, self.ln2 = LayerNorm(E), LayerNorm(E)
        self.attn = CausalSelfAttention(E, H, Hkv)
        self.ffn = FeedForward(E, F, activation="gelu")

    def forward(self, x, pos, cache=None, layer=0, window=None):
        x = x + self.attn(self.ln1(x), pos, cache, layer, window)
        return x + self.ffn(self.ln2(x))


class TinyLM(nn.Module):
    """A decoder-only language model: token embedding, n_layers pre-LN blocks with RoPE,
    final LayerNorm, a linear head to V logits. `calls` counts the positions the blocks
    have processed (B * L per forward), for the chapter's noise-free cost count."""

    def __init__(self, V, E=64, H=4, Hkv=None, n_layers=2, F=None):
        super().__init__()
        self.config = dict(V=V, E=E, H=H, Hkv=H if Hkv is None else Hkv, n_layers=n_layers,
                           F=4 * E if F is None else F)
        self.embed = nn.Embedding(V, E)
        self.blocks = nn.ModuleList(DecoderOnlyBlock(E, H, Hkv, F) for _ in range(n_layers))
        self.ln_f = LayerNorm(E)
        self.head = nn.Linear(E, V)
        self.positions_processed = 0

    def forward(self, tokens, pos=None, cache=None, window=None):
        """tokens (B, L) -> logits (B, L, V).

        pos (B, L): absolute positions; default len(cache) + arange(L) (0..L-1 without a cache).
        cache: a KVCache (or RollingKVCache) that receives this call's keys and values.
        window: sliding-window width W (None: full causal attention).
        """
        B, L = tokens.shape
        if pos is None:
            start = 0 if cache is None else len(cache)
            pos = torch.arange(start, start + L).expand(B, L)
        self.positions_processed += B * L
        x = self.embed(tokens)                                       # (B, L) -> (B, L, E)
        for i, block in enumerate(self.blocks):
            x = block(x, pos, cache, i, window)
        return self.head(self.ln_f(x))                               # (B, L, E) -> (B, L, V)


# ---------------------------------------------------------------- greedy decoding
@torch.no_grad()
def generate_uncached(model, prompt, n_new, window=None):
    """Greedy decoding that re-runs the whole sequence at every step.

    prompt (B, P) -> (tokens (B, P + n_new), logits (B, n_new, V) of every step)."""
    tokens, steps = prompt, []
    for _ in range(n_new):
        logits = model(tokens, window=window)[:, -1]                 # (B, L, V) -> (B, V)
        steps.append(logits)
        tokens = torch.cat([tokens, logits.argmax(-1, keepdim=True)], dim=1)
    return tokens, torch.stack(steps, dim=1)


@torch.no_grad()
def generate_cached(model, prompt, n_new, cache=None, window=None):
    """Greedy decoding with a KV cache: prefill the prompt in one pass, then feed one token
    per step. Same returns as generate_uncached."""
    cache = KVCache(len(model.blocks)) if cache is None else cache
    logits = model(prompt, cache=cache, window=window)[:, -1]        # prefill: (B, V)
    tokens, steps = prompt, [logits]
    for _ in range(n_new - 1):
        nxt = logits.argmax(-1, keepdim=True)                        # (B, 1)
        tokens = torch.cat([tokens, nxt], dim=1)
        logits = model(nxt, cache=cache, window=window)[:, -1]       # one position: (B, V)
        steps.append(logits)
    tokens = torch.cat([tokens, logits.argmax(-1, keepdim=True)], dim=1)
    return tokens, torch.stack(steps, dim=1)


def left_pad(prompts, pad_id=0):
    """Lists of token ids of different lengths -> tokens (B, P) padded on the left and
    positions (B, P): 0, 1, ... from each prompt's first real token, -1 on padding."""
    P = max(len(p) for p in prompts)
    tokens = torch.full((len(prompts), P), pad_id, dtype=torch.long)
    pos = torch.full((len(prompts), P), -1, dtype=torch.long)
    for b, p in enumerate(prompts):
        tokens[b, P - len(p):] = torch.as_tensor(p)
        pos[b, P - len(p):] = torch.arange(len(p))
    return tokens, pos


@torch.no_grad()
def generate_batch(model, prompts, n_new, pad_id=0):
    """Greedy cached decoding of prompts of different lengths in one batch: left padding,
    per-row positions, padding keys masked. Returns the n_new new tokens, (B, n_new)."""
    tokens, pos = left_pad(prompts, pad_id)
    cache = KVCache(len(model.blocks))
    logits = model(tokens, pos=pos, cache=cache)[:, -1]             # (B, V)
    new = []
    for _ in range(n_new):
        nxt = logits.argmax(-1, keepdim=True)                       # (B, 1)
        new.append(nxt)
        pos = pos[:, -1:] + 1                                        # (B, 1): next position
        logits = model(nxt, pos=pos, cache=cache)[:, -1]
    return torch.cat(new, dim=1)


# ---------------------------------------------------------------- the same model in NumPy
def lm_params_np(model):
    """The TinyLM's weights as float64 NumPy arrays, in x @ W layout."""
    a = lambda t: t.detach().double().numpy()
    layers = []
    for blk in model.blocks:
        at = blk.attn
        layers.append(dict(
            ln1_g=a(blk.ln1.weight), ln1_b=a(blk.ln1.bias),
            ln2_g=a(blk.ln2.weight), ln2_b=a(blk.ln2.bias),
            Wq=a(at.q_proj.weight).T, bq=a(at.q_proj.bias),
            Wk=a(at.k_proj.weight).T, bk=a(at.k_proj.bias),
            Wv=a(at.v_proj.weight).T, bv=a(at.v_proj.bias),
            Wo=a(at.out_proj.weight).T, bo=a(at.out_proj.bias),
            W1=a(blk.ffn.linear1.weight).T, b1=a(blk.ffn.linear1.bias),
            W2=a(blk.ffn.linear2.weight).T, b2=a(blk.ffn.linear2.bias)))
    c = model.config
    return dict(embed=a(model.embed.weight), layers=layers, lnf_g=a(model.ln_f.weight),
                lnf_b=a(model.ln_f.bias), Wh=a(model.head.weight).T, bh=a(model.head.bias),
                H=c["H"], Hkv=c["Hkv"])


def lm_forward_np(params, tokens, cache=None):
    """NumPy float64 forward of a TinyLM for B sequences of equal length: tokens (B, L)
    -> logits (B, L, V). cache: a list with one dict per layer ({} when empty) that
    receives K and V (B, Hkv, T, D); the new tokens take positions T .. T+L-1."""
    p = params
    tokens = np.asarray(tokens)
    B, L = tokens.shape
    H, Hkv = p["H"], p["Hkv"]
    T = 0 if not cache or not cache[0] else cache[0]["k"].shape[2]
    pos = np.arange(T, T + L)
    x = p["embed"][tokens]                                  # (B, L) -> (B, L, E)
    E = x.shape[-1]
    D = E // H
    for i, w in enumerate(p["layers"]):
        h = layer_norm_np(x, w["ln1_g"], w["ln1_b"])
        q = (h @ w["Wq"] + w["bq"]).reshape(B, L, H, D).transpose(0, 2, 1, 3)
        # (B, L, E) @ (E, H*D) -> (B, L, H*D) -> (B, L, H, D) -> (B, H, L, D)
        k = (h @ w["Wk"] + w["bk"]).reshape(B, L, Hkv, D).transpose(0, 2, 1, 3)
        v = (h @ w["Wv"] + w["bv"]).reshape(B, L, Hkv, D).transpose(0, 2, 1, 3)
        q, k = rope_rotate_half_np(q, pos), rope_rotate_half_np(k, pos)
        if cache is not None:
            if cache[i]:
                k = np.concatenate([cache[i]["k"], k], axis=2)   # (B, Hkv, T+L, D)
                v = np.concatenate([cache[i]["v"], v], axis=2)
            cache[i]["k"], cache[i]["v"] = k, v
        allowed = causal_mask_np(L, k.shape[2], align="bottom-right")   # (L, S)
        out, _ = gqa_attention_np(q, k, v, allowed)                    # (B, H, L, D)
        out = out.transpose(0, 2, 1, 3).reshape(B, L, E)   # (B, H, L, D) -> (B, L, E)
        x = x + out @ w["Wo"] + w["bo"]
        h = layer_norm_np(x, w["ln2_g"], w["ln2_b"])
        x = x + ffn_np(h, w["W1"], w["b1"], w["W2"], w["b2"], activation="gelu")
    x = layer_norm_np(x, p["lnf_g"], p["lnf_b"])
    return x @ p["Wh"] + p["bh"]                            # (B, L, E) @ (E, V) -> (B, L, V)


def generate_np(params, prompt, n_new, use_cache=True):
    """Greedy decoding in NumPy, with or without a cache: prompt (B, P) -> (B, P + n_new)."""
    tokens = np.asarray(prompt)
    cache = [{} for _ in params["layers"]] if use_cache else None
    feed = tokens
    for _ in range(n_new):
        logits = lm_forward_np(params, feed if use_cache else tokens, cache)[:, -1]
        nxt = logits.argmax(-1)[:, None]                   # (B, 1)
        tokens = np.concatenate([tokens, nxt], axis=1)
        feed = nxt
    return tokens


# ---------------------------------------------------------------- memory and serving
def kv_bytes_per_token(n_layers, Hkv, D, bytes_per_element=2):
    """2 (K and V) * layers * K/V heads * head dim * bytes per element."""
    return 2 * n_layers * Hkv * D * bytes_per_element


def mha_to_gqa(model, Hkv):
    """A copy of `model` whose K and V projections are mean-pooled from H heads to Hkv
    groups of H // Hkv consecutive heads (Ainslie et al. 2023, section 2.1)."""
    c = dict(model.config)
    H, D = c["H"], c["E"] // c["H"]
    check_gqa_heads(H, Hkv)
    if c["Hkv"] != H:
        raise ValueError(f"mha_to_gqa converts a multi-head model (Hkv = H = {H}); this one "
                         f"already has Hkv={c['Hkv']}")
    new = TinyLM(c["V"], c["E"], H, Hkv, c["n_layers"], c["F"])
    state = {k: v.clone() for k, v in model.state_dict().items()}
    for name in list(state):
        if ".attn.k_proj." in name or ".attn.v_proj." in name:
            t = state[name]
            t = t.reshape(Hkv, H // Hkv, D, *t.shape[1:])   # (H*D, ...) -> (Hkv, G, D, ...)
            state[name] = t.mean(dim=1).reshape(Hkv * D, *t.shape[3:])   # -> (Hkv*D, ...)
    new.load_state_dict(state)
    return new.to(next(model.parameters()).dtype)


class BlockPool:
    """Paged KV memory (vLLM): n_blocks blocks of block_size token slots for K and V,
    (n_blocks, Hkv, block_size, D) each; sequences own lists of blocks (block tables)."""

    def __init__(self, n_blocks, Hkv, D, block_size=16, dtype=torch.float32):
        self.k = torch.zeros(n_blocks, Hkv, block_size, D, dtype=dtype)
        self.v = torch.zeros_like(self.k)
        self.block_size = block_size
        self.free = list(range(n_blocks))[::-1]
        self.tables, self.lengths = {}, {}

    def append(self, seq, k, v):
        """Append one sequence's k, v (Hkv, L, D) token by token, taking a free block when
        the last one is full."""
        table = self.tables.setdefault(seq, [])
        n = self.lengths.get(seq, 0)
        for t in range(k.shape[1]):
            if n % self.block_size == 0:
                if not self.free:
                    raise MemoryError("no free KV blocks: preempt or evict a sequence")
                table.append(self.free.pop())
            blk, slot = table[-1], n % self.block_size
            self.k[blk, :, slot], self.v[blk, :, slot] = k[:, t], v[:, t]
            n += 1
        self.lengths[seq] = n

    def gather(self, seq):
        """The sequence's K and V as contiguous (Hkv, T, D) tensors, read through its table."""
        idx = torch.as_tensor(self.tables[seq])
        T = self.lengths[seq]
        k = self.k[idx].transpose(0, 1).flatten(1, 2)[:, :T]  # (n, Hkv, bs, D) -> (Hkv, T, D)
        v = self.v[idx].transpose(0, 1).flatten(1, 2)[:, :T]
        return k, v

    def release(self, seq):
        self.free.extend(self.tables.pop(seq))
        self.lengths.pop(seq)


def kv_waste(lengths, max_len, block_size=16):
    """Fraction of reserved KV slots holding no token: (preallocated to max_len, paged)."""
    lengths = np.asarray(lengths)
    used = lengths.sum()
    prealloc = len(lengths) * max_len
    paged = (np.ceil(lengths / block_size) * block_size).sum()
    return 1 - used / prealloc, 1 - used / paged


# ---------------------------------------------------------------- the trained model of the chapter
TEXT_PATH = Path(__file__).resolve().parents[1] / "experiments" / "data" / "pep20_zen_of_python.txt"
CHAR_LM = dict(E=64, H=4, n_layers=2, window=256, batch_size=16, lr=3e-3, steps=500)


def train_char_lm(model, ids, steps, seed, window=256, batch_size=16, lr=3e-3):
    """Next-character training on random windows of `ids` (1-D LongTensor): AdamW, gradient
    clipping at 1, a seeded generator for the windows. Returns the loss of every step."""
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    losses = []
    model.train()
    for _ in range(steps):
        starts = torch.randint(0, len(ids) - window, (batch_size,), generator=gen)
        rows = torch.stack([ids[s:s + window + 1] for s in starts])   # (B, window + 1)
        logits = model(rows[:, :-1])                                  # (B, window, V)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), rows[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    model.eval()
    return losses
