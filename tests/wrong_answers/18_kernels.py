"""Wrong and right answers for chapter 18's exercises (assembled from its pieces)."""

# ---- fwd
"""Wrong and right answers for chapter 18's exercise 1 (fwd piece): a kernel whose
running max starts at 0. Every partial fix, the original included."""

_WRONG_fwd = [
    (1, 'the original: the running max starts at 0', '@triton.jit\ndef fixed_fwd_kernel(Q, K, V, O, LSE, L, S, OFFSET, scale, CAUSAL: tl.constexpr,\n                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):\n    bh = tl.program_id(0).to(tl.int64)\n    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)\n    cols = tl.arange(0, D)\n    q = tl.load(Q + bh * L * D + rows[:, None] * D + cols[None, :], mask=(rows < L)[:, None],\n                other=0.0)\n    m_i = tl.zeros((BLOCK_M,), tl.float32)\n    l_i = tl.zeros((BLOCK_M,), tl.float32)\n    acc = tl.zeros((BLOCK_M, D), tl.float32)\n    hi = S\n    if CAUSAL:\n        last = tl.minimum(tl.program_id(1) * BLOCK_M + BLOCK_M, L) - 1\n        hi = tl.maximum(tl.minimum(S, last + OFFSET + 1), 0)\n    for start_n in range(0, hi, BLOCK_N):\n        keys = start_n + tl.arange(0, BLOCK_N)\n        kv = bh * S * D + keys[:, None] * D + cols[None, :]\n        k = tl.load(K + kv, mask=(keys < S)[:, None], other=0.0)\n        v = tl.load(V + kv, mask=(keys < S)[:, None], other=0.0)\n        ok = (keys < S)[None, :]\n        if CAUSAL:\n            ok = ok & (keys[None, :] <= rows[:, None] + OFFSET)\n        s = tl.where(ok, tl.dot(q, tl.trans(k), input_precision="ieee") * scale, float("-inf"))\n        m_new = tl.maximum(m_i, tl.max(s, 1))\n        alpha = tl.exp(m_i - m_new)\n        p = tl.exp(s - m_new[:, None])\n        l_i = alpha * l_i + tl.sum(p, 1)\n        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")\n        m_i = m_new\n    seen = l_i > 0\n    l_safe = tl.where(seen, l_i, 1.0)\n    tl.store(O + bh * L * D + rows[:, None] * D + cols[None, :], acc / l_safe[:, None],\n             mask=(rows < L)[:, None])\n    tl.store(LSE + bh * L + rows, tl.where(seen, m_i + tl.log(l_safe), float("-inf")),\n             mask=rows < L)\n'),
    (1, '-inf start, but no m_safe: NaN on rows with no key yet', '@triton.jit\ndef fixed_fwd_kernel(Q, K, V, O, LSE, L, S, OFFSET, scale, CAUSAL: tl.constexpr,\n                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):\n    bh = tl.program_id(0).to(tl.int64)\n    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)\n    cols = tl.arange(0, D)\n    q = tl.load(Q + bh * L * D + rows[:, None] * D + cols[None, :], mask=(rows < L)[:, None],\n                other=0.0)\n    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)      # the max of nothing\n    l_i = tl.zeros((BLOCK_M,), tl.float32)\n    acc = tl.zeros((BLOCK_M, D), tl.float32)\n    hi = S\n    if CAUSAL:\n        last = tl.minimum(tl.program_id(1) * BLOCK_M + BLOCK_M, L) - 1\n        hi = tl.maximum(tl.minimum(S, last + OFFSET + 1), 0)\n    for start_n in range(0, hi, BLOCK_N):\n        keys = start_n + tl.arange(0, BLOCK_N)\n        kv = bh * S * D + keys[:, None] * D + cols[None, :]\n        k = tl.load(K + kv, mask=(keys < S)[:, None], other=0.0)\n        v = tl.load(V + kv, mask=(keys < S)[:, None], other=0.0)\n        ok = (keys < S)[None, :]\n        if CAUSAL:\n            ok = ok & (keys[None, :] <= rows[:, None] + OFFSET)\n        s = tl.where(ok, tl.dot(q, tl.trans(k), input_precision="ieee") * scale, float("-inf"))\n        m_new = tl.maximum(m_i, tl.max(s, 1))\n        alpha = tl.exp(m_i - m_new)\n        p = tl.exp(s - m_new[:, None])\n        l_i = alpha * l_i + tl.sum(p, 1)\n        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")\n        m_i = m_new\n    seen = l_i > 0\n    l_safe = tl.where(seen, l_i, 1.0)\n    tl.store(O + bh * L * D + rows[:, None] * D + cols[None, :], acc / l_safe[:, None],\n             mask=(rows < L)[:, None])\n    tl.store(LSE + bh * L + rows, tl.where(seen, m_i + tl.log(l_safe), float("-inf")),\n             mask=rows < L)\n'),
    (1, '-inf start, m_safe in exp(s - m) only: the rescale is NaN on empty rows', '@triton.jit\ndef fixed_fwd_kernel(Q, K, V, O, LSE, L, S, OFFSET, scale, CAUSAL: tl.constexpr,\n                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):\n    bh = tl.program_id(0).to(tl.int64)\n    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)\n    cols = tl.arange(0, D)\n    q = tl.load(Q + bh * L * D + rows[:, None] * D + cols[None, :], mask=(rows < L)[:, None],\n                other=0.0)\n    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)      # the max of nothing\n    l_i = tl.zeros((BLOCK_M,), tl.float32)\n    acc = tl.zeros((BLOCK_M, D), tl.float32)\n    hi = S\n    if CAUSAL:\n        last = tl.minimum(tl.program_id(1) * BLOCK_M + BLOCK_M, L) - 1\n        hi = tl.maximum(tl.minimum(S, last + OFFSET + 1), 0)\n    for start_n in range(0, hi, BLOCK_N):\n        keys = start_n + tl.arange(0, BLOCK_N)\n        kv = bh * S * D + keys[:, None] * D + cols[None, :]\n        k = tl.load(K + kv, mask=(keys < S)[:, None], other=0.0)\n        v = tl.load(V + kv, mask=(keys < S)[:, None], other=0.0)\n        ok = (keys < S)[None, :]\n        if CAUSAL:\n            ok = ok & (keys[None, :] <= rows[:, None] + OFFSET)\n        s = tl.where(ok, tl.dot(q, tl.trans(k), input_precision="ieee") * scale, float("-inf"))\n        m_new = tl.maximum(m_i, tl.max(s, 1))\n        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # no key yet: no NaN\n        alpha = tl.exp(m_i - m_new)\n        p = tl.exp(s - m_safe[:, None])\n        l_i = alpha * l_i + tl.sum(p, 1)\n        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")\n        m_i = m_new\n    seen = l_i > 0\n    l_safe = tl.where(seen, l_i, 1.0)\n    tl.store(O + bh * L * D + rows[:, None] * D + cols[None, :], acc / l_safe[:, None],\n             mask=(rows < L)[:, None])\n    tl.store(LSE + bh * L + rows, tl.where(seen, m_i + tl.log(l_safe), float("-inf")),\n             mask=rows < L)\n'),
    (1, '-inf start and m_safe, but acc is not rescaled', '@triton.jit\ndef fixed_fwd_kernel(Q, K, V, O, LSE, L, S, OFFSET, scale, CAUSAL: tl.constexpr,\n                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):\n    bh = tl.program_id(0).to(tl.int64)\n    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)\n    cols = tl.arange(0, D)\n    q = tl.load(Q + bh * L * D + rows[:, None] * D + cols[None, :], mask=(rows < L)[:, None],\n                other=0.0)\n    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)      # the max of nothing\n    l_i = tl.zeros((BLOCK_M,), tl.float32)\n    acc = tl.zeros((BLOCK_M, D), tl.float32)\n    hi = S\n    if CAUSAL:\n        last = tl.minimum(tl.program_id(1) * BLOCK_M + BLOCK_M, L) - 1\n        hi = tl.maximum(tl.minimum(S, last + OFFSET + 1), 0)\n    for start_n in range(0, hi, BLOCK_N):\n        keys = start_n + tl.arange(0, BLOCK_N)\n        kv = bh * S * D + keys[:, None] * D + cols[None, :]\n        k = tl.load(K + kv, mask=(keys < S)[:, None], other=0.0)\n        v = tl.load(V + kv, mask=(keys < S)[:, None], other=0.0)\n        ok = (keys < S)[None, :]\n        if CAUSAL:\n            ok = ok & (keys[None, :] <= rows[:, None] + OFFSET)\n        s = tl.where(ok, tl.dot(q, tl.trans(k), input_precision="ieee") * scale, float("-inf"))\n        m_new = tl.maximum(m_i, tl.max(s, 1))\n        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # no key yet: no NaN\n        alpha = tl.exp(m_i - m_safe)\n        p = tl.exp(s - m_safe[:, None])\n        l_i = alpha * l_i + tl.sum(p, 1)\n        acc = acc + tl.dot(p, v, input_precision="ieee")\n        m_i = m_new\n    seen = l_i > 0\n    l_safe = tl.where(seen, l_i, 1.0)\n    tl.store(O + bh * L * D + rows[:, None] * D + cols[None, :], acc / l_safe[:, None],\n             mask=(rows < L)[:, None])\n    tl.store(LSE + bh * L + rows, tl.where(seen, m_i + tl.log(l_safe), float("-inf")),\n             mask=rows < L)\n'),
    (1, '-inf start and m_safe, but l is not rescaled', '@triton.jit\ndef fixed_fwd_kernel(Q, K, V, O, LSE, L, S, OFFSET, scale, CAUSAL: tl.constexpr,\n                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):\n    bh = tl.program_id(0).to(tl.int64)\n    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)\n    cols = tl.arange(0, D)\n    q = tl.load(Q + bh * L * D + rows[:, None] * D + cols[None, :], mask=(rows < L)[:, None],\n                other=0.0)\n    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)      # the max of nothing\n    l_i = tl.zeros((BLOCK_M,), tl.float32)\n    acc = tl.zeros((BLOCK_M, D), tl.float32)\n    hi = S\n    if CAUSAL:\n        last = tl.minimum(tl.program_id(1) * BLOCK_M + BLOCK_M, L) - 1\n        hi = tl.maximum(tl.minimum(S, last + OFFSET + 1), 0)\n    for start_n in range(0, hi, BLOCK_N):\n        keys = start_n + tl.arange(0, BLOCK_N)\n        kv = bh * S * D + keys[:, None] * D + cols[None, :]\n        k = tl.load(K + kv, mask=(keys < S)[:, None], other=0.0)\n        v = tl.load(V + kv, mask=(keys < S)[:, None], other=0.0)\n        ok = (keys < S)[None, :]\n        if CAUSAL:\n            ok = ok & (keys[None, :] <= rows[:, None] + OFFSET)\n        s = tl.where(ok, tl.dot(q, tl.trans(k), input_precision="ieee") * scale, float("-inf"))\n        m_new = tl.maximum(m_i, tl.max(s, 1))\n        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # no key yet: no NaN\n        alpha = tl.exp(m_i - m_safe)\n        p = tl.exp(s - m_safe[:, None])\n        l_i = l_i + tl.sum(p, 1)\n        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")\n        m_i = m_new\n    seen = l_i > 0\n    l_safe = tl.where(seen, l_i, 1.0)\n    tl.store(O + bh * L * D + rows[:, None] * D + cols[None, :], acc / l_safe[:, None],\n             mask=(rows < L)[:, None])\n    tl.store(LSE + bh * L + rows, tl.where(seen, m_i + tl.log(l_safe), float("-inf")),\n             mask=rows < L)\n'),
    (1, '-inf start, lse written without m', '@triton.jit\ndef fixed_fwd_kernel(Q, K, V, O, LSE, L, S, OFFSET, scale, CAUSAL: tl.constexpr,\n                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):\n    bh = tl.program_id(0).to(tl.int64)\n    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)\n    cols = tl.arange(0, D)\n    q = tl.load(Q + bh * L * D + rows[:, None] * D + cols[None, :], mask=(rows < L)[:, None],\n                other=0.0)\n    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)      # the max of nothing\n    l_i = tl.zeros((BLOCK_M,), tl.float32)\n    acc = tl.zeros((BLOCK_M, D), tl.float32)\n    hi = S\n    if CAUSAL:\n        last = tl.minimum(tl.program_id(1) * BLOCK_M + BLOCK_M, L) - 1\n        hi = tl.maximum(tl.minimum(S, last + OFFSET + 1), 0)\n    for start_n in range(0, hi, BLOCK_N):\n        keys = start_n + tl.arange(0, BLOCK_N)\n        kv = bh * S * D + keys[:, None] * D + cols[None, :]\n        k = tl.load(K + kv, mask=(keys < S)[:, None], other=0.0)\n        v = tl.load(V + kv, mask=(keys < S)[:, None], other=0.0)\n        ok = (keys < S)[None, :]\n        if CAUSAL:\n            ok = ok & (keys[None, :] <= rows[:, None] + OFFSET)\n        s = tl.where(ok, tl.dot(q, tl.trans(k), input_precision="ieee") * scale, float("-inf"))\n        m_new = tl.maximum(m_i, tl.max(s, 1))\n        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # no key yet: no NaN\n        alpha = tl.exp(m_i - m_safe)\n        p = tl.exp(s - m_safe[:, None])\n        l_i = alpha * l_i + tl.sum(p, 1)\n        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")\n        m_i = m_new\n    seen = l_i > 0\n    l_safe = tl.where(seen, l_i, 1.0)\n    tl.store(O + bh * L * D + rows[:, None] * D + cols[None, :], acc / l_safe[:, None],\n             mask=(rows < L)[:, None])\n    tl.store(LSE + bh * L + rows, tl.where(seen, tl.log(l_safe), float("-inf")),\n             mask=rows < L)\n'),
    (1, 'a finite start of -100: right near -120, wrong near -300', '@triton.jit\ndef fixed_fwd_kernel(Q, K, V, O, LSE, L, S, OFFSET, scale, CAUSAL: tl.constexpr,\n                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):\n    bh = tl.program_id(0).to(tl.int64)\n    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)\n    cols = tl.arange(0, D)\n    q = tl.load(Q + bh * L * D + rows[:, None] * D + cols[None, :], mask=(rows < L)[:, None],\n                other=0.0)\n    m_i = tl.full((BLOCK_M,), -100.0, tl.float32)\n    l_i = tl.zeros((BLOCK_M,), tl.float32)\n    acc = tl.zeros((BLOCK_M, D), tl.float32)\n    hi = S\n    if CAUSAL:\n        last = tl.minimum(tl.program_id(1) * BLOCK_M + BLOCK_M, L) - 1\n        hi = tl.maximum(tl.minimum(S, last + OFFSET + 1), 0)\n    for start_n in range(0, hi, BLOCK_N):\n        keys = start_n + tl.arange(0, BLOCK_N)\n        kv = bh * S * D + keys[:, None] * D + cols[None, :]\n        k = tl.load(K + kv, mask=(keys < S)[:, None], other=0.0)\n        v = tl.load(V + kv, mask=(keys < S)[:, None], other=0.0)\n        ok = (keys < S)[None, :]\n        if CAUSAL:\n            ok = ok & (keys[None, :] <= rows[:, None] + OFFSET)\n        s = tl.where(ok, tl.dot(q, tl.trans(k), input_precision="ieee") * scale, float("-inf"))\n        m_new = tl.maximum(m_i, tl.max(s, 1))\n        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # no key yet: no NaN\n        alpha = tl.exp(m_i - m_safe)\n        p = tl.exp(s - m_safe[:, None])\n        l_i = alpha * l_i + tl.sum(p, 1)\n        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")\n        m_i = m_new\n    seen = l_i > 0\n    l_safe = tl.where(seen, l_i, 1.0)\n    tl.store(O + bh * L * D + rows[:, None] * D + cols[None, :], acc / l_safe[:, None],\n             mask=(rows < L)[:, None])\n    tl.store(LSE + bh * L + rows, tl.where(seen, m_i + tl.log(l_safe), float("-inf")),\n             mask=rows < L)\n'),
    (1, '-inf start, but the new max clamped at 0: the original bug moved', '@triton.jit\ndef fixed_fwd_kernel(Q, K, V, O, LSE, L, S, OFFSET, scale, CAUSAL: tl.constexpr,\n                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):\n    bh = tl.program_id(0).to(tl.int64)\n    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)\n    cols = tl.arange(0, D)\n    q = tl.load(Q + bh * L * D + rows[:, None] * D + cols[None, :], mask=(rows < L)[:, None],\n                other=0.0)\n    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)      # the max of nothing\n    l_i = tl.zeros((BLOCK_M,), tl.float32)\n    acc = tl.zeros((BLOCK_M, D), tl.float32)\n    hi = S\n    if CAUSAL:\n        last = tl.minimum(tl.program_id(1) * BLOCK_M + BLOCK_M, L) - 1\n        hi = tl.maximum(tl.minimum(S, last + OFFSET + 1), 0)\n    for start_n in range(0, hi, BLOCK_N):\n        keys = start_n + tl.arange(0, BLOCK_N)\n        kv = bh * S * D + keys[:, None] * D + cols[None, :]\n        k = tl.load(K + kv, mask=(keys < S)[:, None], other=0.0)\n        v = tl.load(V + kv, mask=(keys < S)[:, None], other=0.0)\n        ok = (keys < S)[None, :]\n        if CAUSAL:\n            ok = ok & (keys[None, :] <= rows[:, None] + OFFSET)\n        s = tl.where(ok, tl.dot(q, tl.trans(k), input_precision="ieee") * scale, float("-inf"))\n        m_new = tl.maximum(tl.maximum(m_i, tl.max(s, 1)), 0.0)\n        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # no key yet: no NaN\n        alpha = tl.exp(m_i - m_safe)\n        p = tl.exp(s - m_safe[:, None])\n        l_i = alpha * l_i + tl.sum(p, 1)\n        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")\n        m_i = m_new\n    seen = l_i > 0\n    l_safe = tl.where(seen, l_i, 1.0)\n    tl.store(O + bh * L * D + rows[:, None] * D + cols[None, :], acc / l_safe[:, None],\n             mask=(rows < L)[:, None])\n    tl.store(LSE + bh * L + rows, tl.where(seen, m_i + tl.log(l_safe), float("-inf")),\n             mask=rows < L)\n'),
    (1, '-inf start, but the seen guard dropped: 0 / 0 on rows with no key', '@triton.jit\ndef fixed_fwd_kernel(Q, K, V, O, LSE, L, S, OFFSET, scale, CAUSAL: tl.constexpr,\n                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):\n    bh = tl.program_id(0).to(tl.int64)\n    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)\n    cols = tl.arange(0, D)\n    q = tl.load(Q + bh * L * D + rows[:, None] * D + cols[None, :], mask=(rows < L)[:, None],\n                other=0.0)\n    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)      # the max of nothing\n    l_i = tl.zeros((BLOCK_M,), tl.float32)\n    acc = tl.zeros((BLOCK_M, D), tl.float32)\n    hi = S\n    if CAUSAL:\n        last = tl.minimum(tl.program_id(1) * BLOCK_M + BLOCK_M, L) - 1\n        hi = tl.maximum(tl.minimum(S, last + OFFSET + 1), 0)\n    for start_n in range(0, hi, BLOCK_N):\n        keys = start_n + tl.arange(0, BLOCK_N)\n        kv = bh * S * D + keys[:, None] * D + cols[None, :]\n        k = tl.load(K + kv, mask=(keys < S)[:, None], other=0.0)\n        v = tl.load(V + kv, mask=(keys < S)[:, None], other=0.0)\n        ok = (keys < S)[None, :]\n        if CAUSAL:\n            ok = ok & (keys[None, :] <= rows[:, None] + OFFSET)\n        s = tl.where(ok, tl.dot(q, tl.trans(k), input_precision="ieee") * scale, float("-inf"))\n        m_new = tl.maximum(m_i, tl.max(s, 1))\n        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # no key yet: no NaN\n        alpha = tl.exp(m_i - m_safe)\n        p = tl.exp(s - m_safe[:, None])\n        l_i = alpha * l_i + tl.sum(p, 1)\n        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")\n        m_i = m_new\n    seen = l_i > 0\n    l_safe = tl.where(seen, l_i, 1.0)\n    tl.store(O + bh * L * D + rows[:, None] * D + cols[None, :], acc / l_i[:, None],\n             mask=(rows < L)[:, None])\n    tl.store(LSE + bh * L + rows, tl.where(seen, m_i + tl.log(l_safe), float("-inf")),\n             mask=rows < L)\n'),
]

_RIGHT_fwd = [
    (1, 'a finite sentinel -1e30 instead of -inf, no m_safe needed', '@triton.jit\ndef fixed_fwd_kernel(Q, K, V, O, LSE, L, S, OFFSET, scale, CAUSAL: tl.constexpr,\n                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):\n    bh = tl.program_id(0).to(tl.int64)\n    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)\n    cols = tl.arange(0, D)\n    q = tl.load(Q + bh * L * D + rows[:, None] * D + cols[None, :], mask=(rows < L)[:, None],\n                other=0.0)\n    m_i = tl.full((BLOCK_M,), -1.0e30, tl.float32)\n    l_i = tl.zeros((BLOCK_M,), tl.float32)\n    acc = tl.zeros((BLOCK_M, D), tl.float32)\n    hi = S\n    if CAUSAL:\n        last = tl.minimum(tl.program_id(1) * BLOCK_M + BLOCK_M, L) - 1\n        hi = tl.maximum(tl.minimum(S, last + OFFSET + 1), 0)\n    for start_n in range(0, hi, BLOCK_N):\n        keys = start_n + tl.arange(0, BLOCK_N)\n        kv = bh * S * D + keys[:, None] * D + cols[None, :]\n        k = tl.load(K + kv, mask=(keys < S)[:, None], other=0.0)\n        v = tl.load(V + kv, mask=(keys < S)[:, None], other=0.0)\n        ok = (keys < S)[None, :]\n        if CAUSAL:\n            ok = ok & (keys[None, :] <= rows[:, None] + OFFSET)\n        s = tl.where(ok, tl.dot(q, tl.trans(k), input_precision="ieee") * scale, float("-inf"))\n        m_new = tl.maximum(m_i, tl.max(s, 1))\n        alpha = tl.exp(m_i - m_new)\n        p = tl.exp(s - m_new[:, None])\n        l_i = alpha * l_i + tl.sum(p, 1)\n        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")\n        m_i = m_new\n    seen = l_i > 0\n    l_safe = tl.where(seen, l_i, 1.0)\n    tl.store(O + bh * L * D + rows[:, None] * D + cols[None, :], acc / l_safe[:, None],\n             mask=(rows < L)[:, None])\n    tl.store(LSE + bh * L + rows, tl.where(seen, m_i + tl.log(l_safe), float("-inf")),\n             mask=rows < L)\n'),
    (1, 'alpha guarded by tl.where instead of m_safe', '@triton.jit\ndef fixed_fwd_kernel(Q, K, V, O, LSE, L, S, OFFSET, scale, CAUSAL: tl.constexpr,\n                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):\n    bh = tl.program_id(0).to(tl.int64)\n    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)\n    cols = tl.arange(0, D)\n    q = tl.load(Q + bh * L * D + rows[:, None] * D + cols[None, :], mask=(rows < L)[:, None],\n                other=0.0)\n    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)      # the max of nothing\n    l_i = tl.zeros((BLOCK_M,), tl.float32)\n    acc = tl.zeros((BLOCK_M, D), tl.float32)\n    hi = S\n    if CAUSAL:\n        last = tl.minimum(tl.program_id(1) * BLOCK_M + BLOCK_M, L) - 1\n        hi = tl.maximum(tl.minimum(S, last + OFFSET + 1), 0)\n    for start_n in range(0, hi, BLOCK_N):\n        keys = start_n + tl.arange(0, BLOCK_N)\n        kv = bh * S * D + keys[:, None] * D + cols[None, :]\n        k = tl.load(K + kv, mask=(keys < S)[:, None], other=0.0)\n        v = tl.load(V + kv, mask=(keys < S)[:, None], other=0.0)\n        ok = (keys < S)[None, :]\n        if CAUSAL:\n            ok = ok & (keys[None, :] <= rows[:, None] + OFFSET)\n        s = tl.where(ok, tl.dot(q, tl.trans(k), input_precision="ieee") * scale, float("-inf"))\n        m_new = tl.maximum(m_i, tl.max(s, 1))\n        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # no key yet: no NaN\n        alpha = tl.where(m_i == float("-inf"), 0.0, tl.exp(m_i - m_safe))\n        p = tl.exp(s - m_safe[:, None])\n        l_i = alpha * l_i + tl.sum(p, 1)\n        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")\n        m_i = m_new\n    seen = l_i > 0\n    l_safe = tl.where(seen, l_i, 1.0)\n    tl.store(O + bh * L * D + rows[:, None] * D + cols[None, :], acc / l_safe[:, None],\n             mask=(rows < L)[:, None])\n    tl.store(LSE + bh * L + rows, tl.where(seen, m_i + tl.log(l_safe), float("-inf")),\n             mask=rows < L)\n'),
    (1, 'normalised by a reciprocal', '@triton.jit\ndef fixed_fwd_kernel(Q, K, V, O, LSE, L, S, OFFSET, scale, CAUSAL: tl.constexpr,\n                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):\n    bh = tl.program_id(0).to(tl.int64)\n    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)\n    cols = tl.arange(0, D)\n    q = tl.load(Q + bh * L * D + rows[:, None] * D + cols[None, :], mask=(rows < L)[:, None],\n                other=0.0)\n    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)      # the max of nothing\n    l_i = tl.zeros((BLOCK_M,), tl.float32)\n    acc = tl.zeros((BLOCK_M, D), tl.float32)\n    hi = S\n    if CAUSAL:\n        last = tl.minimum(tl.program_id(1) * BLOCK_M + BLOCK_M, L) - 1\n        hi = tl.maximum(tl.minimum(S, last + OFFSET + 1), 0)\n    for start_n in range(0, hi, BLOCK_N):\n        keys = start_n + tl.arange(0, BLOCK_N)\n        kv = bh * S * D + keys[:, None] * D + cols[None, :]\n        k = tl.load(K + kv, mask=(keys < S)[:, None], other=0.0)\n        v = tl.load(V + kv, mask=(keys < S)[:, None], other=0.0)\n        ok = (keys < S)[None, :]\n        if CAUSAL:\n            ok = ok & (keys[None, :] <= rows[:, None] + OFFSET)\n        s = tl.where(ok, tl.dot(q, tl.trans(k), input_precision="ieee") * scale, float("-inf"))\n        m_new = tl.maximum(m_i, tl.max(s, 1))\n        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # no key yet: no NaN\n        alpha = tl.exp(m_i - m_safe)\n        p = tl.exp(s - m_safe[:, None])\n        l_i = alpha * l_i + tl.sum(p, 1)\n        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")\n        m_i = m_new\n    seen = l_i > 0\n    l_safe = tl.where(seen, l_i, 1.0)\n    tl.store(O + bh * L * D + rows[:, None] * D + cols[None, :], acc * (1.0 / l_safe)[:, None],\n             mask=(rows < L)[:, None])\n    tl.store(LSE + bh * L + rows, tl.where(seen, m_i + tl.log(l_safe), float("-inf")),\n             mask=rows < L)\n'),
    (1, 'lse without the seen guard: m = -inf on an empty row already gives -inf', '@triton.jit\ndef fixed_fwd_kernel(Q, K, V, O, LSE, L, S, OFFSET, scale, CAUSAL: tl.constexpr,\n                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):\n    bh = tl.program_id(0).to(tl.int64)\n    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)\n    cols = tl.arange(0, D)\n    q = tl.load(Q + bh * L * D + rows[:, None] * D + cols[None, :], mask=(rows < L)[:, None],\n                other=0.0)\n    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)      # the max of nothing\n    l_i = tl.zeros((BLOCK_M,), tl.float32)\n    acc = tl.zeros((BLOCK_M, D), tl.float32)\n    hi = S\n    if CAUSAL:\n        last = tl.minimum(tl.program_id(1) * BLOCK_M + BLOCK_M, L) - 1\n        hi = tl.maximum(tl.minimum(S, last + OFFSET + 1), 0)\n    for start_n in range(0, hi, BLOCK_N):\n        keys = start_n + tl.arange(0, BLOCK_N)\n        kv = bh * S * D + keys[:, None] * D + cols[None, :]\n        k = tl.load(K + kv, mask=(keys < S)[:, None], other=0.0)\n        v = tl.load(V + kv, mask=(keys < S)[:, None], other=0.0)\n        ok = (keys < S)[None, :]\n        if CAUSAL:\n            ok = ok & (keys[None, :] <= rows[:, None] + OFFSET)\n        s = tl.where(ok, tl.dot(q, tl.trans(k), input_precision="ieee") * scale, float("-inf"))\n        m_new = tl.maximum(m_i, tl.max(s, 1))\n        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # no key yet: no NaN\n        alpha = tl.exp(m_i - m_safe)\n        p = tl.exp(s - m_safe[:, None])\n        l_i = alpha * l_i + tl.sum(p, 1)\n        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")\n        m_i = m_new\n    seen = l_i > 0\n    l_safe = tl.where(seen, l_i, 1.0)\n    tl.store(O + bh * L * D + rows[:, None] * D + cols[None, :], acc / l_safe[:, None],\n             mask=(rows < L)[:, None])\n    tl.store(LSE + bh * L + rows, m_i + tl.log(l_safe),\n             mask=rows < L)\n'),
]

_MINUS_100 = next(code for _, why, code in _WRONG_fwd if why.startswith("a finite start of -100"))
_WRONG_fwd.append((1, "a finite start of -1e4: right near -300 and -3000, wrong far below it",
              _MINUS_100.replace("-100.0", "-1.0e4")))
_WRONG_fwd.append((1, "NumPy inside the kernel: the interpreter runs it, a GPU compiler cannot",
              "import numpy as np\n" + _RIGHT_fwd[2][2].replace(
                  "alpha = tl.exp(m_i - m_safe)", "alpha = np.exp(m_i - m_safe)")))


# ---- bias
"""Wrong and right answers for chapter 18's exercise 2 (a sliding window that skips whole
blocks), piece bias. Each case redefines window_fwd_kernel from the solution's source with one
change."""

_BASE = '''
@triton.jit
def window_fwd_kernel(Q, K, V, O, T, L, W, scale, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr, D: tl.constexpr):
    start_m = tl.program_id(0)
    bh = tl.program_id(1)
    i = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    d = tl.arange(0, D)
    q = tl.load(Q + bh * L * D + i[:, None] * D + d[None, :], mask=i[:, None] < L, other=0.0)
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D], tl.float32)
    visits = 0
    first = tl.maximum(start_m * BLOCK_M - W + 1, 0)    # the oldest key the FIRST row sees
    lo = (first // BLOCK_N) * BLOCK_N                   # from the start of its block
    hi = tl.minimum(L, (start_m + 1) * BLOCK_M)         # the newest key the LAST row sees
    for start in range(lo, hi, BLOCK_N):
        visits += 1
        j = start + tl.arange(0, BLOCK_N)
        kv = (j[:, None] < L) & (j[:, None] >= 0)
        k = tl.load(K + bh * L * D + j[:, None] * D + d[None, :], mask=kv, other=0.0)
        s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
        ok = (i[:, None] < L) & (j[None, :] < L) & (j[None, :] <= i[:, None])
        ok = ok & (j[None, :] > i[:, None] - W)         # W keys, the newest included
        s = tl.where(ok, s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, 1))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        p = tl.exp(s - m_safe[:, None])
        alpha = tl.exp(m - m_safe)
        l = l * alpha + tl.sum(p, 1)
        vt = tl.load(V + bh * L * D + j[:, None] * D + d[None, :], mask=kv, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p, vt, input_precision="ieee")
        m = m_new
    out = acc / tl.where(l > 0, l, 1.0)[:, None]
    tl.store(O + bh * L * D + i[:, None] * D + d[None, :], out, mask=i[:, None] < L)
    tl.store(T + bh * tl.num_programs(0) + start_m, visits)
'''


def _variant(*pairs):
    code = _BASE
    for old, new in pairs:
        assert old in code, old
        code = code.replace(old, new)
    return code


_LO = "    lo = (first // BLOCK_N) * BLOCK_N                   # from the start of its block\n"
_FIRST = ("    first = tl.maximum(start_m * BLOCK_M - W + 1, 0)"
          "    # the oldest key the FIRST row sees\n")
_HI = "    hi = tl.minimum(L, (start_m + 1) * BLOCK_M)         # the newest key the LAST row sees\n"
_WIN = "        ok = ok & (j[None, :] > i[:, None] - W)         # W keys, the newest included\n"

_WRONG_bias = [
    (2, "only the upper bound: the loop starts at key 0 (output right, too many blocks)",
     _variant((_LO, "    lo = 0\n"))),
    (2, "a window of W + 1 keys (j >= i - W)",
     _variant((_WIN, "        ok = ok & (j[None, :] >= i[:, None] - W)\n"))),
    (2, "a window of W - 1 keys (j > i - W + 1): W = 1 sees nothing",
     _variant((_WIN, "        ok = ok & (j[None, :] > i[:, None] - W + 1)\n"))),
    (2, "lower bound one block early",
     _variant((_LO, "    lo = tl.maximum((first // BLOCK_N) * BLOCK_N - BLOCK_N, 0)\n"))),
    (2, "lower bound rounded up to the next block: keys of the first block skipped",
     _variant((_LO, "    lo = ((first + BLOCK_N - 1) // BLOCK_N) * BLOCK_N\n"))),
    (2, "no in-tile window mask: only whole blocks are skipped",
     _variant((_WIN, ""))),
    (2, "bounds from the query block's start only: the upper bound stops at its first row",
     _variant((_HI, "    hi = tl.minimum(L, start_m * BLOCK_M + 1)\n"))),
    (2, "lower bound from the block's last row: the first rows lose their oldest keys",
     _variant((_FIRST, "    first = tl.maximum(start_m * BLOCK_M + BLOCK_M - W, 0)\n"))),
    (2, "upper bound S (no causal skip): blocks above the diagonal visited",
     _variant((_HI, "    hi = L\n"))),
    (2, "visits counted once per program, not per block",
     _variant(("        visits += 1\n", ""), ("    visits = 0\n", "    visits = 1\n"))),
    (2, "the window measured from the block's first row, not each row",
     _variant((_WIN, "        ok = ok & (j[None, :] > start_m * BLOCK_M - W)\n"))),
]

_RIGHT_bias = [
    (2, "loop over block indices instead of key offsets",
     _variant(("    for start in range(lo, hi, BLOCK_N):\n",
               "    for nb in range(lo // BLOCK_N, tl.cdiv(hi, BLOCK_N)):\n"
               "        start = nb * BLOCK_N\n"))),
    (2, "the window written as i - j < W, the lower bound with the max outside",
     _variant((_WIN, "        ok = ok & (i[:, None] - j[None, :] < W)\n"),
              (_FIRST, "    first = start_m * BLOCK_M - W + 1\n"),
              (_LO, "    lo = tl.maximum(first, 0) // BLOCK_N * BLOCK_N\n"))),
    (2, "the window mask folded into one expression",
     _variant(("        ok = (i[:, None] < L) & (j[None, :] < L) & (j[None, :] <= i[:, None])\n"
               + _WIN,
               "        back = i[:, None] - j[None, :]\n"
               "        ok = (i[:, None] < L) & (j[None, :] < L) & (back >= 0) & (back < W)\n"))),
]


# ---- flex
"""Wrong and right answers for chapter 18 flex's exercise 3 (a sliding window inside each
packed document)."""
_WRONG_flex = [
    (3, 'a window of W + 1 keys: back <= W', '''
def document_window_mod(doc_ids, W):
    doc = torch.as_tensor(doc_ids)

    def doc_window(b, h, q_idx, kv_idx):
        back = q_idx - kv_idx
        same = (doc[b, q_idx] == doc[b, kv_idx]) & (doc[b, q_idx] >= 0)
        return same & (back >= 0) & (back <= W)
    return doc_window
'''),
    (3, 'a window of W - 1 keys: back < W - 1', '''
def document_window_mod(doc_ids, W):
    doc = torch.as_tensor(doc_ids)

    def doc_window(b, h, q_idx, kv_idx):
        back = q_idx - kv_idx
        same = (doc[b, q_idx] == doc[b, kv_idx]) & (doc[b, q_idx] >= 0)
        return same & (back >= 0) & (back < W - 1)
    return doc_window
'''),
    (3, 'the query excluded: W keys before it, not itself', '''
def document_window_mod(doc_ids, W):
    doc = torch.as_tensor(doc_ids)

    def doc_window(b, h, q_idx, kv_idx):
        back = q_idx - kv_idx
        same = (doc[b, q_idx] == doc[b, kv_idx]) & (doc[b, q_idx] >= 0)
        return same & (back > 0) & (back <= W)
    return doc_window
'''),
    (3, 'cross-document leak: the window alone', '''
def document_window_mod(doc_ids, W):
    doc = torch.as_tensor(doc_ids)

    def doc_window(b, h, q_idx, kv_idx):
        back = q_idx - kv_idx
        return (back >= 0) & (back < W)
    return doc_window
'''),
    (3, 'no causality inside a document: |i - j| < W', '''
def document_window_mod(doc_ids, W):
    doc = torch.as_tensor(doc_ids)

    def doc_window(b, h, q_idx, kv_idx):
        back = q_idx - kv_idx
        same = (doc[b, q_idx] == doc[b, kv_idx]) & (doc[b, q_idx] >= 0)
        return same & (back < W) & (back > -W)
    return doc_window
'''),
    (3, 'padding treated as a document: id -1 attends to id -1', '''
def document_window_mod(doc_ids, W):
    doc = torch.as_tensor(doc_ids)

    def doc_window(b, h, q_idx, kv_idx):
        back = q_idx - kv_idx
        same = doc[b, q_idx] == doc[b, kv_idx]
        return same & (back >= 0) & (back < W)
    return doc_window
'''),
    (3, "every row reads row 0's documents", '''
def document_window_mod(doc_ids, W):
    doc = torch.as_tensor(doc_ids)

    def doc_window(b, h, q_idx, kv_idx):
        back = q_idx - kv_idx
        same = (doc[0, q_idx] == doc[0, kv_idx]) & (doc[0, q_idx] >= 0)
        return same & (back >= 0) & (back < W)
    return doc_window
'''),
    (3, 'returns ints, not booleans', '''
def document_window_mod(doc_ids, W):
    doc = torch.as_tensor(doc_ids)

    def doc_window(b, h, q_idx, kv_idx):
        back = q_idx - kv_idx
        same = (doc[b, q_idx] == doc[b, kv_idx]) & (doc[b, q_idx] >= 0)
        return (same & (back >= 0) & (back < W)).int()
    return doc_window
'''),
    (3, 'the padding test written > 0 drops document 0', '''
def document_window_mod(doc_ids, W):
    doc = torch.as_tensor(doc_ids)

    def doc_window(b, h, q_idx, kv_idx):
        back = q_idx - kv_idx
        same = (doc[b, q_idx] == doc[b, kv_idx]) & (doc[b, kv_idx] > 0)
        return same & (back >= 0) & (back < W)
    return doc_window
'''),
]

_RIGHT_flex = [
    (3, "composed with and_masks from the chapter's mods", '''
def document_window_mod(doc_ids, W):
    from torch.nn.attention.flex_attention import and_masks
    from attnlab.kernels import flex_window_mod
    doc = torch.as_tensor(doc_ids)
    L = doc.shape[1]

    def same_doc(b, h, q_idx, kv_idx):
        return (doc[b, q_idx] == doc[b, kv_idx]) & (doc[b, kv_idx] != -1)
    return and_masks(same_doc, flex_window_mod(L, L, W))
'''),
    (3, "through each document's first position", '''
def document_window_mod(doc_ids, W):
    import numpy as np
    ids = np.asarray(doc_ids)
    start = np.zeros_like(ids)
    for r in range(ids.shape[0]):
        for t in range(1, ids.shape[1]):
            start[r, t] = start[r, t - 1] if ids[r, t] == ids[r, t - 1] else t
    start = torch.as_tensor(start)
    real = torch.as_tensor(ids >= 0)

    def doc_window(b, h, q_idx, kv_idx):
        lo = torch.maximum(start[b, q_idx], q_idx - W + 1)
        return real[b, q_idx] & (kv_idx >= lo) & (kv_idx <= q_idx)
    return doc_window
'''),
]


# ---- packed
"""Wrong answers for chapter 18's exercises 4 and 5 (packed piece), and other right answers."""

_T4 = '''
def document_tiles(lengths, b):
    T = sum(lengths)
    nb = -(-T // b)
    touched = [0] * nb
    nonempty = full = 0
    s = 0
    for n in lengths:
        e = s + n
        a, c = s // b, (e - 1) // b
        nd = NDOCBLOCKS
        nonempty += nd * (nd + 1) // 2
        for X in range(a, c + 1):
            touched[X] += 1
        inside = [X for X in range(a, c + 1) if X * b >= s and EDGE <= e]
        k = len(inside)
        full += FULLTRI
        full += DIAG
        s = e
    nonempty -= OVERLAP
    return RET
'''
_R = dict(NDOCBLOCKS="c - a + 1", EDGE="min((X + 1) * b, T)", FULLTRI="k * (k - 1) // 2",
          DIAG="sum(min((X + 1) * b, T) - X * b == 1 for X in inside)",
          OVERLAP="sum(m - 1 for m in touched if m > 1)",
          RET="int(full), int(nonempty - full), int(nb * nb - nonempty)")


def _t4(**change):
    src = _T4
    for key, val in {**_R, **change}.items():
        src = src.replace(key, val)
    return src


_T5 = '''
def padding_fraction(lengths, batch_size):
    BODY
'''


def _t5(body):
    return _T5.replace("BODY", body.strip().replace("\n", "\n    "))


_WRONG_packed = [
    (4, "a block shared by two documents counted twice (no overlap correction)",
     _t4(OVERLAP="0")),
    (4, "ceil(n / b) blocks per document, ignoring where the document starts",
     _t4(NDOCBLOCKS="-(-n // b)")),
    (4, "the causal-only count: every tile on or below the diagonal computed", '''
def document_tiles(lengths, b):
    T = sum(lengths)
    nb = -(-T // b)
    full = nb * (nb - 1) // 2
    return full, nb, nb * (nb - 1) // 2
'''),
    (4, "diagonal tiles counted as full", _t4(FULLTRI="k * (k + 1) // 2", DIAG="0")),
    (4, "the one-slot last diagonal tile not counted as full", _t4(DIAG="0")),
    (4, "the ragged last block never wholly inside (padded-to-block convention)",
     _t4(EDGE="(X + 1) * b", DIAG="sum((X + 1) * b - X * b == 1 for X in inside)")),
    (4, "floor(T / b) blocks: the ragged last block dropped", _t4().replace(
        "nb = -(-T // b)", "nb = max(1, T // b)").replace("touched = [0] * nb",
                                                          "touched = [0] * (nb + 2)")),
    (4, "(skipped, partial, full): the order reversed",
     _t4(RET="int(nb * nb - nonempty), int(nonempty - full), int(full)")),
    (4, "returns (computed, skipped) only", _t4(RET="int(nonempty), int(nb * nb - nonempty)")),
    (4, "the brute force: builds the T x T mask (a million tokens do not fit)", '''
def document_tiles(lengths, b):
    doc = np.repeat(np.arange(len(lengths)), lengths)
    if len(doc) > 20000:
        raise MemoryError("the mask does not fit")
    i = np.arange(len(doc))
    allowed = (doc[:, None] == doc[None, :]) & (i[None, :] <= i[:, None])
    nb = -(-len(doc) // b)
    full = part = 0
    for I in range(nb):
        for J in range(nb):
            t = allowed[I * b:(I + 1) * b, J * b:(J + 1) * b]
            full += bool(t.all())
            part += bool(t.any() and not t.all())
    return full, part, nb * nb - full - part
'''),
    (5, "pads every document to the longest of the whole sample", _t5('''
a = [int(n) for n in lengths]
return 1 - sum(a) / (len(a) * max(a))''')),
    (5, "pads the last batch to the full batch size", _t5('''
a = [int(n) for n in lengths]
slots = sum(max(a[i:i + batch_size]) * batch_size for i in range(0, len(a), batch_size))
return 1 - sum(a) / slots''')),
    (5, "pad slots over real tokens, not over all slots", _t5('''
a = [int(n) for n in lengths]
slots = sum(max(a[i:i + batch_size]) * len(a[i:i + batch_size])
            for i in range(0, len(a), batch_size))
return (slots - sum(a)) / sum(a)''')),
    (5, "the fraction of real tokens", _t5('''
a = [int(n) for n in lengths]
slots = sum(max(a[i:i + batch_size]) * len(a[i:i + batch_size])
            for i in range(0, len(a), batch_size))
return sum(a) / slots''')),
    (5, "sorts by length before batching", _t5('''
a = sorted(int(n) for n in lengths)
slots = sum(max(a[i:i + batch_size]) * len(a[i:i + batch_size])
            for i in range(0, len(a), batch_size))
return 1 - sum(a) / slots''')),
    (5, "sorts the caller's lengths in place", _t5('''
lengths.sort()
a = [int(n) for n in lengths]
slots = sum(max(a[i:i + batch_size]) * len(a[i:i + batch_size])
            for i in range(0, len(a), batch_size))
return 1 - sum(a) / slots''')),
    (5, "drops the last, shorter batch", _t5('''
a = [int(n) for n in lengths]
n = max(batch_size, len(a) // batch_size * batch_size)
a = a[:n]
slots = sum(max(a[i:i + batch_size]) * len(a[i:i + batch_size])
            for i in range(0, len(a), batch_size))
return 1 - sum(a) / slots''')),
    (5, "a percentage, not a fraction", _t5('''
a = [int(n) for n in lengths]
slots = sum(max(a[i:i + batch_size]) * len(a[i:i + batch_size])
            for i in range(0, len(a), batch_size))
return 100 * (1 - sum(a) / slots)''')),
    (5, "the pad slot count, not a fraction", _t5('''
a = [int(n) for n in lengths]
slots = sum(max(a[i:i + batch_size]) * len(a[i:i + batch_size])
            for i in range(0, len(a), batch_size))
return float(slots - sum(a))''')),
]

_RIGHT_packed = [
    (4, "row block by row block: key blocks from the start of the first document present", '''
def document_tiles(lengths, b):
    import bisect
    starts = [0]
    for n in lengths:
        starts.append(starts[-1] + n)
    T = starts[-1]
    nb = -(-T // b)
    full = nonempty = 0
    for I in range(nb):
        lo, hi = I * b, min((I + 1) * b, T)
        d_lo = bisect.bisect_right(starts, lo) - 1
        d_hi = bisect.bisect_right(starts, hi - 1) - 1
        nonempty += I - starts[d_lo] // b + 1
        if d_lo == d_hi:
            full += max(0, I - (-(-starts[d_lo] // b))) + (hi - lo == 1)
    return full, nonempty - full, nb * nb - nonempty
'''),
    (4, "counts the distinct non-empty tiles of each document's triangle, minus the shared ones",
     _t4(OVERLAP="sum(max(0, m - 1) for m in touched)")),
    (5, "NumPy, batch by batch", _t5('''
a = np.asarray(lengths, dtype=np.int64)
slots = sum(int(a[i:i + batch_size].max()) * a[i:i + batch_size].size
            for i in range(0, a.size, batch_size))
return float(1 - a.sum() / slots)''')),
    (5, "NumPy, padded to a whole number of batches with zeros", _t5('''
a = np.asarray(lengths, dtype=np.int64)
nb = -(-a.size // batch_size)
full = np.zeros(nb * batch_size, dtype=np.int64)
full[:a.size] = a
sizes = np.minimum(batch_size, a.size - batch_size * np.arange(nb))
slots = (full.reshape(nb, batch_size).max(1) * sizes).sum()
return float(1 - a.sum() / slots)''')),
]


# ---- decode
"""Wrong and right answers for chapter 18's exercise 6 (a merge that overflows): every partial
fix of the given merge, and other correct merges."""

_WRONG_decode = [
    (6, "the given merge, unchanged: exp(lse) overflows and underflows", '''
def merge_split_partials(outs, lses):
    return merge_split_partials_given(outs, lses)
'''),
    (6, "shifted by the max, but a row with no key gives -inf - (-inf) = NaN", '''
def merge_split_partials(outs, lses):
    top = lses.max(axis=0)
    w = np.exp(lses - top)
    total = w.sum(axis=0)
    return (w[..., None] * outs).sum(axis=0) / total[..., None], top + np.log(total)
'''),
    (6, "shifted and guarded, but the shift is not added back to the lse", '''
def merge_split_partials(outs, lses):
    top = lses.max(axis=0)
    top = np.where(np.isneginf(top), 0.0, top)
    w = np.exp(lses - top)
    total = w.sum(axis=0)
    safe = np.where(total > 0, total, 1.0)
    lse = np.where(total > 0, np.log(safe), -np.inf)
    return (w[..., None] * outs).sum(axis=0) / safe[..., None], lse
'''),
    (6, "one shift for the whole call (the global max): far rows underflow to 0 / 0", '''
def merge_split_partials(outs, lses):
    top = lses[np.isfinite(lses)].max()
    w = np.exp(lses - top)
    total = w.sum(axis=0)
    safe = np.where(total > 0, total, 1.0)
    lse = np.where(total > 0, top + np.log(safe), -np.inf)
    return (w[..., None] * outs).sum(axis=0) / safe[..., None], lse
'''),
    (6, "shifted by the mean of the finite lse: a wide row still overflows", '''
def merge_split_partials(outs, lses):
    fin = np.where(np.isfinite(lses), lses, np.nan)
    top = np.nan_to_num(np.nanmean(fin, axis=0))
    w = np.exp(lses - top)
    total = w.sum(axis=0)
    safe = np.where(total > 0, total, 1.0)
    lse = np.where(total > 0, top + np.log(safe), -np.inf)
    return (w[..., None] * outs).sum(axis=0) / safe[..., None], lse
'''),
    (6, "the mean of the partials, with a right lse", '''
def merge_split_partials(outs, lses):
    top = lses.max(axis=0)
    top = np.where(np.isneginf(top), 0.0, top)
    total = np.exp(lses - top).sum(axis=0)
    lse = np.where(total > 0, top + np.log(np.where(total > 0, total, 1.0)), -np.inf)
    return outs.mean(axis=0), lse
'''),
    (6, "the given merge with its NaN replaced by 0", '''
def merge_split_partials(outs, lses):
    with np.errstate(all="ignore"):
        out, lse = merge_split_partials_given(outs, lses)
    return np.nan_to_num(out, nan=0.0), np.nan_to_num(lse, nan=-np.inf)
'''),
    (6, "lse clipped to [-700, 700] before exp: large lse collapse to equal weights", '''
def merge_split_partials(outs, lses):
    w = np.exp(np.clip(lses, -700.0, 700.0))
    total = w.sum(axis=0)
    safe = np.where(total > 0, total, 1.0)
    lse = np.where(total > 0, np.log(safe), -np.inf)
    return (w[..., None] * outs).sum(axis=0) / safe[..., None], lse
'''),
    (6, "the shift taken per split over the queries (axis -1), not per row over the splits", '''
def merge_split_partials(outs, lses):
    fin = np.where(np.isfinite(lses), lses, -1e300)
    top = fin.max(axis=-1, keepdims=True)
    w = np.exp(lses - top)
    total = w.sum(axis=0)
    safe = np.where(total > 0, total, 1.0)
    lse = np.where(total > 0, np.log(safe), -np.inf)
    return (w[..., None] * outs).sum(axis=0) / safe[..., None], lse
'''),
    (6, "the right algorithm in float32: rounding of 1e-7, not 1e-10", '''
def merge_split_partials(outs, lses):
    outs, lses = outs.astype(np.float32), lses.astype(np.float32)
    top = lses.max(axis=0)
    top = np.where(np.isneginf(top), np.float32(0), top)
    w = np.exp(lses - top)
    total = w.sum(axis=0)
    safe = np.where(total > 0, total, np.float32(1))
    lse = np.where(total > 0, top + np.log(safe), -np.inf)
    return ((w[..., None] * outs).sum(axis=0) / safe[..., None]).astype(np.float64), \\
        lse.astype(np.float64)
'''),
    (6, "the right merge, but it shifts lses in place (the caller's partials change)", '''
def merge_split_partials(outs, lses):
    top = lses.max(axis=0)
    top = np.where(np.isneginf(top), 0.0, top)
    lses -= top
    w = np.exp(lses)
    total = w.sum(axis=0)
    safe = np.where(total > 0, total, 1.0)
    lse = np.where(total > 0, top + np.log(safe), -np.inf)
    return (w[..., None] * outs).sum(axis=0) / safe[..., None], lse
'''),
    (6, "calls merge_partials_np (not allowed)", '''
def merge_split_partials(outs, lses):
    return merge_partials_np(outs, lses)
'''),
]

_RIGHT_decode = [
    (6, "lse first with np.logaddexp.reduce, then the weights exp(lse_c - lse)", '''
def merge_split_partials(outs, lses):
    lse = np.logaddexp.reduce(lses, axis=0)
    shift = np.where(np.isneginf(lse), 0.0, lse)
    w = np.exp(lses - shift)
    return (w[..., None] * outs).sum(axis=0), lse
'''),
    (6, "PyTorch: torch.logsumexp and softmax over the splits", '''
def merge_split_partials(outs, lses):
    o = torch.as_tensor(outs, dtype=torch.float64)
    l = torch.as_tensor(lses, dtype=torch.float64)
    lse = torch.logsumexp(l, 0)
    empty = torch.isneginf(lse)
    share = torch.softmax(l.masked_fill(empty, 0.0), 0)
    out = (share[..., None] * o).sum(0).masked_fill(empty[..., None], 0.0)
    return out.numpy(), lse.numpy()
'''),
    (6, "merging one split at a time, keeping a running (out, lse)", '''
def merge_split_partials(outs, lses):
    out = np.zeros(outs.shape[1:])
    lse = np.full(lses.shape[1:], -np.inf)
    for o_c, l_c in zip(outs, lses):
        new = np.logaddexp(lse, l_c)
        ref = np.where(np.isneginf(new), 0.0, new)
        out = np.exp(lse - ref)[..., None] * out + np.exp(l_c - ref)[..., None] * o_c
        lse = new
    return out, lse
'''),
]


WRONG = _WRONG_fwd + _WRONG_bias + _WRONG_flex + _WRONG_packed + _WRONG_decode

RIGHT = _RIGHT_fwd + _RIGHT_bias + _RIGHT_flex + _RIGHT_packed + _RIGHT_decode
