"""Wrong answers a learner would plausibly write for chapter 15's exercises."""
WRONG = [
    # ---- exercise 1: tokens and score memory for any image
    (1, "the class token forgotten", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4):
    tokens = (H // P) * (W // P)
    return tokens, C * P * P, tokens * tokens * bytes_per_element
'''),
    (1, "patches per side not squared: H/P + W/P", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4):
    tokens = H // P + W // P + int(cls_token)
    return tokens, C * P * P, tokens * tokens * bytes_per_element
'''),
    (1, "a square image assumed: (H/P)^2", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4):
    tokens = (H // P) ** 2 + int(cls_token)
    return tokens, C * P * P, tokens * tokens * bytes_per_element
'''),
    (1, "P^2 for the patch vector: the channels forgotten", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4):
    tokens = (H // P) * (W // P) + int(cls_token)
    return tokens, P * P, tokens * tokens * bytes_per_element
'''),
    (1, "C * P for the patch vector", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4):
    tokens = (H // P) * (W // P) + int(cls_token)
    return tokens, C * P, tokens * tokens * bytes_per_element
'''),
    (1, "the class token always added", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4):
    tokens = (H // P) * (W // P) + 1
    return tokens, C * P * P, tokens * tokens * bytes_per_element
'''),
    (1, "the score bytes counted for the patches only", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4):
    n = (H // P) * (W // P)
    return n + int(cls_token), C * P * P, n * n * bytes_per_element
'''),
    (1, "the score matrix as tokens, not tokens squared", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4):
    tokens = (H // P) * (W // P) + int(cls_token)
    return tokens, C * P * P, tokens * bytes_per_element
'''),
    (1, "bytes_per_element ignored", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4):
    tokens = (H // P) * (W // P) + int(cls_token)
    return tokens, C * P * P, tokens * tokens
'''),
    (1, "a true division: the counts come out as floats", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4):
    tokens = (H / P) * (W / P) + int(cls_token)
    return tokens, C * P * P, tokens * tokens * bytes_per_element
'''),
    (1, "the chapter's vit_tokens borrowed", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4):
    tokens = bt.vit_tokens(H, W, P, cls_token)
    return tokens, C * P * P, tokens * tokens * bytes_per_element
'''),
    (1, "a list instead of a tuple", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4):
    tokens = (H // P) * (W // P) + int(cls_token)
    return [tokens, C * P * P, tokens * tokens * bytes_per_element]
'''),
    (1, "bytes_per_element ignored: 4 bytes hard-coded", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4):
    tokens = (H // P) * (W // P) + int(cls_token)
    return tokens, C * P * P, tokens * tokens * 4
'''),
    # ---- exercise 2: the patches that were not patches
    (2, "the given function unchanged: no permute", '''
def patchify_fixed(images, P):
    return patchify_quick(np.asarray(images, dtype=np.float64), P)
'''),
    (2, "channel last: each patch flattened in (P, P, C) order", '''
def patchify_fixed(images, P):
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P).transpose(0, 2, 4, 3, 5, 1)
    return x.reshape(B, (H // P) * (W // P), C * P * P)
'''),
    (2, "the patch indices swapped: column-major patch order", '''
def patchify_fixed(images, P):
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P).transpose(0, 4, 2, 1, 3, 5)
    return x.reshape(B, (H // P) * (W // P), C * P * P)
'''),
    (2, "the two offsets swapped: every patch transposed", '''
def patchify_fixed(images, P):
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P).transpose(0, 2, 4, 1, 5, 3)
    return x.reshape(B, (H // P) * (W // P), C * P * P)
'''),
    (2, "a square image assumed: H // P for both sides", '''
def patchify_fixed(images, P):
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, H // P, P).transpose(0, 2, 4, 1, 3, 5)
    return x.reshape(B, (H // P) ** 2, C * P * P)
'''),
    (2, "split in the wrong order: (offset, patch index) instead of (patch index, offset)", '''
def patchify_fixed(images, P):
    B, C, H, W = images.shape
    x = images.reshape(B, C, P, H // P, P, W // P).transpose(0, 3, 5, 1, 2, 4)
    return x.reshape(B, (H // P) * (W // P), C * P * P)
'''),
    (2, "sorted in place: the input is changed", '''
def patchify_fixed(images, P):
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P).transpose(0, 2, 4, 1, 3, 5)
    out = x.reshape(B, (H // P) * (W // P), C * P * P).copy()
    images *= 0.5
    return out
'''),
    (2, "the chapter's patchify_np borrowed", '''
def patchify_fixed(images, P):
    return bt.patchify_np(images, P)
'''),
    (2, "no float64 conversion: integer images come back as integers", '''
def patchify_fixed(images, P):
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P).transpose(0, 2, 4, 1, 3, 5)
    return x.reshape(B, (H // P) * (W // P), C * P * P)
'''),
    (2, "a float32 copy: every pixel rounded", '''
def patchify_fixed(images, P):
    images = np.asarray(images, dtype=np.float32)
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P).transpose(0, 2, 4, 1, 3, 5)
    return x.reshape(B, (H // P) * (W // P), C * P * P)
'''),
    (2, "the caller's array reshaped in place: images.shape = ...", '''
def patchify_fixed(images, P):
    B, C, H, W = images.shape
    images.shape = (B, C, H // P, P, W // P, P)
    x = images.astype(np.float64).transpose(0, 2, 4, 1, 3, 5)
    return x.reshape(B, (H // P) * (W // P), C * P * P)
'''),
    # ---- exercise 3: CBAM's spatial gate
    (3, "mean and max maps in the wrong order", '''
def cbam_spatial_gate(x, kernel, bias):
    B, C, H, W = x.shape
    k = kernel.shape[-1]
    maps = np.stack([x.max(axis=1), x.mean(axis=1)], axis=1)
    padded = np.pad(maps, ((0, 0), (0, 0), (k // 2, k // 2), (k // 2, k // 2)))
    out = np.full((B, H, W), float(bias))
    for u in range(k):
        for v in range(k):
            out += np.einsum("bmhw,m->bhw", padded[:, :, u:u + H, v:v + W], kernel[:, u, v])
    return 1 / (1 + np.exp(-out))
'''),
    (3, "a true convolution: the kernel flipped", '''
def cbam_spatial_gate(x, kernel, bias):
    B, C, H, W = x.shape
    k = kernel.shape[-1]
    kernel = kernel[:, ::-1, ::-1]
    maps = np.stack([x.mean(axis=1), x.max(axis=1)], axis=1)
    padded = np.pad(maps, ((0, 0), (0, 0), (k // 2, k // 2), (k // 2, k // 2)))
    out = np.full((B, H, W), float(bias))
    for u in range(k):
        for v in range(k):
            out += np.einsum("bmhw,m->bhw", padded[:, :, u:u + H, v:v + W], kernel[:, u, v])
    return 1 / (1 + np.exp(-out))
'''),
    (3, "no sigmoid", '''
def cbam_spatial_gate(x, kernel, bias):
    B, C, H, W = x.shape
    k = kernel.shape[-1]
    maps = np.stack([x.mean(axis=1), x.max(axis=1)], axis=1)
    padded = np.pad(maps, ((0, 0), (0, 0), (k // 2, k // 2), (k // 2, k // 2)))
    out = np.full((B, H, W), float(bias))
    for u in range(k):
        for v in range(k):
            out += np.einsum("bmhw,m->bhw", padded[:, :, u:u + H, v:v + W], kernel[:, u, v])
    return out
'''),
    (3, "the bias forgotten", '''
def cbam_spatial_gate(x, kernel, bias):
    B, C, H, W = x.shape
    k = kernel.shape[-1]
    maps = np.stack([x.mean(axis=1), x.max(axis=1)], axis=1)
    padded = np.pad(maps, ((0, 0), (0, 0), (k // 2, k // 2), (k // 2, k // 2)))
    out = np.zeros((B, H, W))
    for u in range(k):
        for v in range(k):
            out += np.einsum("bmhw,m->bhw", padded[:, :, u:u + H, v:v + W], kernel[:, u, v])
    return 1 / (1 + np.exp(-out))
'''),
    (3, "the sum over channels instead of the mean", '''
def cbam_spatial_gate(x, kernel, bias):
    B, C, H, W = x.shape
    k = kernel.shape[-1]
    maps = np.stack([x.sum(axis=1), x.max(axis=1)], axis=1)
    padded = np.pad(maps, ((0, 0), (0, 0), (k // 2, k // 2), (k // 2, k // 2)))
    out = np.full((B, H, W), float(bias))
    for u in range(k):
        for v in range(k):
            out += np.einsum("bmhw,m->bhw", padded[:, :, u:u + H, v:v + W], kernel[:, u, v])
    return 1 / (1 + np.exp(-out))
'''),
    (3, "no padding: a smaller map", '''
def cbam_spatial_gate(x, kernel, bias):
    B, C, H, W = x.shape
    k = kernel.shape[-1]
    maps = np.stack([x.mean(axis=1), x.max(axis=1)], axis=1)
    Ho, Wo = H - k + 1, W - k + 1
    out = np.full((B, max(Ho, 0), max(Wo, 0)), float(bias))
    for u in range(k):
        for v in range(k):
            out += np.einsum("bmhw,m->bhw", maps[:, :, u:u + Ho, v:v + Wo], kernel[:, u, v])
    return 1 / (1 + np.exp(-out))
'''),
    (3, "the padding at one side only (k - 1 at the end)", '''
def cbam_spatial_gate(x, kernel, bias):
    B, C, H, W = x.shape
    k = kernel.shape[-1]
    maps = np.stack([x.mean(axis=1), x.max(axis=1)], axis=1)
    padded = np.pad(maps, ((0, 0), (0, 0), (0, k - 1), (0, k - 1)))
    out = np.full((B, H, W), float(bias))
    for u in range(k):
        for v in range(k):
            out += np.einsum("bmhw,m->bhw", padded[:, :, u:u + H, v:v + W], kernel[:, u, v])
    return 1 / (1 + np.exp(-out))
'''),
    (3, "pooled over the pixels instead of the channels", '''
def cbam_spatial_gate(x, kernel, bias):
    B, C, H, W = x.shape
    z = x.mean(axis=(2, 3)) + x.max(axis=(2, 3))
    return 1 / (1 + np.exp(-(z * kernel[0].mean() + bias)))
'''),
    (3, "the chapter's conv2d_same_np borrowed", '''
def cbam_spatial_gate(x, kernel, bias):
    maps = np.stack([x.mean(axis=1), x.max(axis=1)], axis=1)
    return bt.sigmoid_np(bt.conv2d_same_np(maps, kernel, bias))
'''),
    (3, "the kernel transposed: kernel[:, v, u] for offset (u, v)", '''
def cbam_spatial_gate(x, kernel, bias):
    B, C, H, W = x.shape
    k = kernel.shape[-1]
    maps = np.stack([x.mean(axis=1), x.max(axis=1)], axis=1)
    padded = np.pad(maps, ((0, 0), (0, 0), (k // 2, k // 2), (k // 2, k // 2)))
    out = np.full((B, H, W), float(bias))
    for u in range(k):
        for v in range(k):
            out += np.einsum("bmhw,m->bhw", padded[:, :, u:u + H, v:v + W], kernel[:, v, u])
    return 1 / (1 + np.exp(-out))
'''),
    (3, "edge padding instead of zeros", '''
def cbam_spatial_gate(x, kernel, bias):
    B, C, H, W = x.shape
    k = kernel.shape[-1]
    maps = np.stack([x.mean(axis=1), x.max(axis=1)], axis=1)
    padded = np.pad(maps, ((0, 0), (0, 0), (k // 2, k // 2), (k // 2, k // 2)), mode="edge")
    out = np.full((B, H, W), float(bias))
    for u in range(k):
        for v in range(k):
            out += np.einsum("bmhw,m->bhw", padded[:, :, u:u + H, v:v + W], kernel[:, u, v])
    return 1 / (1 + np.exp(-out))
'''),
    (3, "float32 maps and kernel", '''
def cbam_spatial_gate(x, kernel, bias):
    x, kernel = x.astype(np.float32), kernel.astype(np.float32)
    B, C, H, W = x.shape
    k = kernel.shape[-1]
    maps = np.stack([x.mean(axis=1), x.max(axis=1)], axis=1)
    padded = np.pad(maps, ((0, 0), (0, 0), (k // 2, k // 2), (k // 2, k // 2)))
    out = np.full((B, H, W), bias, dtype=np.float32)
    for u in range(k):
        for v in range(k):
            out += np.einsum("bmhw,m->bhw", padded[:, :, u:u + H, v:v + W], kernel[:, u, v])
    return (1 / (1 + np.exp(-out))).astype(np.float64)
'''),
    # ---- exercise 4: how much can a gate recover?
    (4, "one gate per channel for all images (the best fixed re-weighting)", '''
def best_gate_error(x, y):
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    g = (x * y).sum(axis=(0, 2, 3)) / (x * x).sum(axis=(0, 2, 3))
    return float(((y - g[None, :, None, None] * x) ** 2).sum() / (y ** 2).sum())
'''),
    (4, "the gate clipped to (0, 1) as a sigmoid would be: not the bound for any real g", '''
def best_gate_error(x, y):
    x = np.asarray(x, dtype=np.float64).reshape(*np.shape(x)[:2], -1)
    y = np.asarray(y, dtype=np.float64).reshape(*np.shape(y)[:2], -1)
    g = np.clip((x * y).sum(-1) / (x * x).sum(-1), 0, 1)
    return float(((y - g[..., None] * x) ** 2).sum() / (y ** 2).sum())
'''),
    (4, "relative to ||x||^2 instead of ||y||^2", '''
def best_gate_error(x, y):
    x = np.asarray(x, dtype=np.float64).reshape(*np.shape(x)[:2], -1)
    y = np.asarray(y, dtype=np.float64).reshape(*np.shape(y)[:2], -1)
    g = (x * y).sum(-1) / (x * x).sum(-1)
    return float(((y - g[..., None] * x) ** 2).sum() / (x ** 2).sum())
'''),
    (4, "the gate from the wrong normal equation: divided by ||y||^2", '''
def best_gate_error(x, y):
    x = np.asarray(x, dtype=np.float64).reshape(*np.shape(x)[:2], -1)
    y = np.asarray(y, dtype=np.float64).reshape(*np.shape(y)[:2], -1)
    g = (x * y).sum(-1) / (y * y).sum(-1)
    return float(((y - g[..., None] * x) ** 2).sum() / (y ** 2).sum())
'''),
    (4, "the captured fraction returned: 1 - error", '''
def best_gate_error(x, y):
    x = np.asarray(x, dtype=np.float64).reshape(*np.shape(x)[:2], -1)
    y = np.asarray(y, dtype=np.float64).reshape(*np.shape(y)[:2], -1)
    g = (x * y).sum(-1) / (x * x).sum(-1)
    return float(1 - ((y - g[..., None] * x) ** 2).sum() / (y ** 2).sum())
'''),
    (4, "the mean of per-image, per-channel relative errors", '''
def best_gate_error(x, y):
    x = np.asarray(x, dtype=np.float64).reshape(*np.shape(x)[:2], -1)
    y = np.asarray(y, dtype=np.float64).reshape(*np.shape(y)[:2], -1)
    g = (x * y).sum(-1) / (x * x).sum(-1)
    return float((((y - g[..., None] * x) ** 2).sum(-1) / (y ** 2).sum(-1)).mean())
'''),
    (4, "float32 arithmetic, the result cast to float", '''
def best_gate_error(x, y):
    x = np.asarray(x, dtype=np.float32).reshape(*np.shape(x)[:2], -1)
    y = np.asarray(y, dtype=np.float32).reshape(*np.shape(y)[:2], -1)
    g = (x * y).sum(-1) / (x * x).sum(-1)
    return float(((y - g[..., None] * x) ** 2).sum() / (y ** 2).sum())
'''),
    (4, "the chapter's bound borrowed", '''
def best_gate_error(x, y):
    return bt.best_gate_error_np(x, y)
'''),
    (4, "predicted that a gate recovers nothing (error 1)", '''
def prediction():
    return 1.0
'''),
    (4, "predicted that a gate network could learn the permutation (error 0)", '''
def prediction():
    return 0.0
'''),
    (4, "predicted 1/N instead of 1 - 1/N", '''
def prediction():
    return 1 / 16
'''),
]

RIGHT = [
    (1, "with an explicit if for the class token and math.prod", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4):
    import math
    n = math.prod((H // P, W // P))
    if cls_token:
        n += 1
    return n, C * P ** 2, bytes_per_element * n ** 2
'''),
    (2, "with np.einsum-free moveaxis calls", '''
def patchify_fixed(images, P):
    images = np.asarray(images, dtype=np.float64)
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P)
    x = np.moveaxis(x, (2, 4), (1, 2))
    return x.reshape(B, -1, C * P * P)
'''),
    (2, "crop by crop in loops", '''
def patchify_fixed(images, P):
    images = np.asarray(images, dtype=np.float64)
    B, C, H, W = images.shape
    out = np.empty((B, (H // P) * (W // P), C * P * P))
    for r in range(H // P):
        for c in range(W // P):
            out[:, r * (W // P) + c] = images[:, :, r * P:(r + 1) * P, c * P:(c + 1) * P].reshape(B, -1)
    return out
'''),
    (3, "loops over every output pixel", '''
def cbam_spatial_gate(x, kernel, bias):
    B, C, H, W = x.shape
    k = kernel.shape[-1]
    maps = np.stack([x.mean(axis=1), x.max(axis=1)], axis=1)
    padded = np.pad(maps, ((0, 0), (0, 0), (k // 2, k // 2), (k // 2, k // 2)))
    out = np.empty((B, H, W))
    for b in range(B):
        for i in range(H):
            for j in range(W):
                out[b, i, j] = (padded[b, :, i:i + k, j:j + k] * kernel).sum() + bias
    return 1 / (1 + np.exp(-out))
'''),
    (4, "a rougher prediction within the allowed 0.05", '''
def prediction():
    return 0.9
'''),
    (4, "with np.linalg.lstsq per image and channel", '''
def best_gate_error(x, y):
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    B, C = x.shape[:2]
    res = 0.0
    for b in range(B):
        for c in range(C):
            a, t = x[b, c].reshape(-1, 1), y[b, c].ravel()
            g = np.linalg.lstsq(a, t, rcond=None)[0]
            res += float(((t - a @ g) ** 2).sum())
    return res / float((y ** 2).sum())
'''),
    (2, "sliding_window_view at stride P", '''
def patchify_fixed(images, P):
    from numpy.lib.stride_tricks import sliding_window_view
    images = np.asarray(images, dtype=np.float64)
    B, C = images.shape[:2]
    w = sliding_window_view(images, (P, P), axis=(2, 3))[:, :, ::P, ::P]   # (B, C, Hp, Wp, P, P)
    return np.ascontiguousarray(w.transpose(0, 2, 3, 1, 4, 5)).reshape(B, -1, C * P * P)
'''),
    (3, "sliding_window_view and one einsum", '''
def cbam_spatial_gate(x, kernel, bias):
    from numpy.lib.stride_tricks import sliding_window_view
    k = kernel.shape[-1]
    p = k // 2
    maps = np.stack([x.mean(1), x.max(1)], 1)
    win = sliding_window_view(np.pad(maps, ((0, 0), (0, 0), (p, p), (p, p))), (k, k), axis=(2, 3))
    return 1 / (1 + np.exp(-(np.einsum("bmhwuv,muv->bhw", win, kernel) + bias)))
'''),
    (4, "the residual as ||y||^2 - <x, y>^2 / ||x||^2, returned as np.float64", '''
def best_gate_error(x, y):
    xy = np.einsum("bchw,bchw->bc", x, y)
    xx = np.einsum("bchw,bchw->bc", x, x)
    yy = (y * y).sum()
    return np.float64((yy - (xy ** 2 / xx).sum()) / yy)
'''),
    (4, "mean over mean instead of sum over sum (the same ratio)", '''
def best_gate_error(x, y):
    B, C = x.shape[:2]
    xf, yf = x.reshape(B, C, -1), y.reshape(B, C, -1)
    g = (xf * yf).sum(-1) / (xf * xf).sum(-1)
    return float(((yf - g[..., None] * xf) ** 2).mean() / (yf ** 2).mean())
'''),
]
