"""Wrong answers a learner would plausibly write for chapter 15's exercises, and right answers
that differ from the solution."""

# ---- exercise 1: tokens and score memory, overlapping strides included
_E1 = '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4, stride=None):
    s = P if stride is None else stride
    windows = {windows}
    tokens = windows + {cls}
    return {ret}
'''


def _e1(windows="((H - P) // s + 1) * ((W - P) // s + 1)", cls="(1 if cls_token else 0)",
        ret="tokens, C * P * P, tokens * tokens * bytes_per_element"):
    return _E1.format(windows=windows, cls=cls, ret=ret)


WRONG = [
    (1, "the class token forgotten", _e1(cls="0")),
    (1, "the class token always added", _e1(cls="1")),
    (1, "patches per side added, not multiplied", _e1(windows="(H - P) // s + 1 + (W - P) // s + 1")),
    (1, "a square image assumed", _e1(windows="((H - P) // s + 1) ** 2")),
    (1, "P^2 for the patch vector: the channels forgotten",
     _e1(ret="tokens, P * P, tokens * tokens * bytes_per_element")),
    (1, "C * P for the patch vector", _e1(ret="tokens, C * P, tokens * tokens * bytes_per_element")),
    (1, "the score bytes counted for the patches only",
     _e1(ret="tokens, C * P * P, windows * windows * bytes_per_element")),
    (1, "the score matrix as tokens, not tokens squared",
     _e1(ret="tokens, C * P * P, tokens * bytes_per_element")),
    (1, "bytes_per_element ignored", _e1(ret="tokens, C * P * P, tokens * tokens")),
    (1, "bytes_per_element ignored: 4 bytes hard-coded",
     _e1(ret="tokens, C * P * P, tokens * tokens * 4")),
    (1, "a list instead of a tuple", _e1(ret="[tokens, C * P * P, tokens * tokens * bytes_per_element]")),
    (1, "a true division: the counts come out as floats",
     _e1(windows="((H - P) / s + 1) * ((W - P) / s + 1)")),
    (1, "the stride ignored: (H/P)(W/P) always", _e1(windows="(H // P) * (W // P)")),
    (1, "H / s windows per side: counts windows that stick out", _e1(windows="(H // s) * (W // s)")),
    (1, "a ceiling: the partial last window kept",
     _e1(windows="(-(-(H - P) // s) + 1) * (-(-(W - P) // s) + 1)")),
    (1, "(H - P) / s without the first window", _e1(windows="max((H - P) // s, 1) * max((W - P) // s, 1)")),
    (1, "the chapter's vit_tokens borrowed", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4, stride=None):
    tokens = bt.vit_tokens(H, W, P, cls_token)
    return tokens, C * P * P, tokens * tokens * bytes_per_element
'''),
    (1, "(H - P) // s without the + 1 at every stride: a window short per side",
     _e1(windows="((H - P) // s) * ((W - P) // s)")),
    (1, "the score bytes as a float", _e1(ret="tokens, C * P * P, float(tokens * tokens * bytes_per_element)")),
]

RIGHT = [
    (1, "with an explicit if for the class token and math.prod", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4, stride=None):
    import math
    s = stride or P
    n = math.prod(len(range(0, side - P + 1, s)) for side in (H, W))
    if cls_token:
        n += 1
    return n, C * P ** 2, bytes_per_element * n ** 2
'''),
    (1, "counting window starts in a loop", '''
def vit_cost(H, W, P, C, cls_token=True, bytes_per_element=4, stride=None):
    s = P if stride is None else stride
    def fits(side):
        n, start = 0, 0
        while start + P <= side:
            n, start = n + 1, start + s
        return n
    t = fits(H) * fits(W) + int(cls_token)
    return t, C * P * P, t * t * bytes_per_element
'''),
]

# ---- exercise 2: channels-last patches in (P, P, C) order
_E2 = '''
def patchify_fixed(images, P):
    images = np.asarray(images, dtype=np.float64)
    B, H, W, C = images.shape
    x = images.reshape(B, H // P, P, W // P, P, C).transpose({order})
    return x.reshape(B, (H // P) * (W // P), P * P * C)
'''
WRONG += [
    (2, "the given function unchanged: no transpose", '''
def patchify_fixed(images, P):
    return patchify_quick(np.asarray(images, dtype=np.float64), P)
'''),
    (2, "the chapter's transpose copied: (0, 2, 4, 1, 3, 5)", _E2.format(order="0, 2, 4, 1, 3, 5")),
    (2, "the patch indices swapped: column-major patch order", _E2.format(order="0, 3, 1, 2, 4, 5")),
    (2, "the two offsets swapped: every patch transposed", _E2.format(order="0, 1, 3, 4, 2, 5")),
    (2, "channel first inside a patch: (C, P, P) order", _E2.format(order="0, 1, 3, 5, 2, 4")),
    (2, "the chapter's patchify_np on the transposed image: (C, P, P) order", '''
def patchify_fixed(images, P):
    return bt.patchify_np(np.asarray(images).transpose(0, 3, 1, 2), P)
'''),
    (2, "a square image assumed: H // P for both sides", '''
def patchify_fixed(images, P):
    images = np.asarray(images, dtype=np.float64)
    B, H, W, C = images.shape
    x = images.reshape(B, H // P, P, H // P, P, C).transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(B, (H // P) ** 2, P * P * C)
'''),
    (2, "split in the wrong order: (offset, patch index)", '''
def patchify_fixed(images, P):
    images = np.asarray(images, dtype=np.float64)
    B, H, W, C = images.shape
    x = images.reshape(B, P, H // P, P, W // P, C).transpose(0, 2, 4, 1, 3, 5)
    return x.reshape(B, (H // P) * (W // P), P * P * C)
'''),
    (2, "read as (B, C, H, W): the channel axis taken for the width", '''
def patchify_fixed(images, P):
    images = np.asarray(images, dtype=np.float64)
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P).transpose(0, 2, 4, 3, 5, 1)
    return x.reshape(B, (H // P) * (W // P), C * P * P)
'''),
    (2, "scaled in place: the input is changed", '''
def patchify_fixed(images, P):
    B, H, W, C = images.shape
    x = images.reshape(B, H // P, P, W // P, P, C).transpose(0, 1, 3, 2, 4, 5)
    out = x.reshape(B, (H // P) * (W // P), P * P * C).astype(np.float64)
    images *= 0.5
    return out
'''),
    (2, "no float64 conversion: integer images come back as integers", '''
def patchify_fixed(images, P):
    B, H, W, C = images.shape
    x = images.reshape(B, H // P, P, W // P, P, C).transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(B, (H // P) * (W // P), P * P * C)
'''),
    (2, "a float32 copy: every pixel rounded", '''
def patchify_fixed(images, P):
    images = np.asarray(images, dtype=np.float32)
    B, H, W, C = images.shape
    x = images.reshape(B, H // P, P, W // P, P, C).transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(B, (H // P) * (W // P), P * P * C)
'''),
    (2, "rounded through float32, returned as float64", '''
def patchify_fixed(images, P):
    images = np.asarray(images, dtype=np.float32).astype(np.float64)
    B, H, W, C = images.shape
    x = images.reshape(B, H // P, P, W // P, P, C).transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(B, (H // P) * (W // P), P * P * C)
'''),
    (2, "the caller's array reshaped in place: images.shape = ...", '''
def patchify_fixed(images, P):
    B, H, W, C = images.shape
    images.shape = (B, H // P, P, W // P, P, C)
    x = images.astype(np.float64).transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(B, (H // P) * (W // P), P * P * C)
'''),
]

RIGHT += [
    (2, "with moveaxis", '''
def patchify_fixed(images, P):
    images = np.asarray(images, dtype=np.float64)
    B, H, W, C = images.shape
    x = np.moveaxis(images.reshape(B, H // P, P, W // P, P, C), 3, 2)
    return x.reshape(B, -1, P * P * C)
'''),
    (2, "crop by crop in loops", '''
def patchify_fixed(images, P):
    images = np.asarray(images, dtype=np.float64)
    B, H, W, C = images.shape
    out = np.empty((B, (H // P) * (W // P), P * P * C))
    for r in range(H // P):
        for c in range(W // P):
            out[:, r * (W // P) + c] = images[:, r * P:(r + 1) * P, c * P:(c + 1) * P].reshape(B, -1)
    return out
'''),
    (2, "the chapter's patchify_np, then each patch reordered to (P, P, C)", '''
def patchify_fixed(images, P):
    images = np.asarray(images, dtype=np.float64)
    B, H, W, C = images.shape
    cpp = bt.patchify_np(images.transpose(0, 3, 1, 2), P)              # (B, N, C P P)
    return cpp.reshape(B, -1, C, P, P).transpose(0, 1, 3, 4, 2).reshape(B, -1, P * P * C)
'''),
]

# ---- exercise 3: the dilated spatial gate
_E3 = '''
def cbam_spatial_gate(x, kernel, bias, dilation=1):
    x = np.asarray(x, dtype=np.float64)
    B, C, H, W = x.shape
    k, d = kernel.shape[-1], dilation
    r = {reach}
    maps = np.stack([{m0}, {m1}], axis=1)
    padded = np.pad(maps, ((0, 0), (0, 0), (r, r), (r, r)){mode})
    out = np.full((B, H, W), {start})
    for u in range(k):
        for v in range(k):
            window = padded[:, :, {rows}, {cols}]
            out += np.einsum("bmhw,m->bhw", window, kernel[:, {tap}])
    return {ret}
'''


def _e3(reach="d * (k // 2)", m0="x.mean(axis=1)", m1="x.max(axis=1)", mode="",
        start="float(bias)", rows="u * d:u * d + H", cols="v * d:v * d + W", tap="u, v",
        ret="1.0 / (1.0 + np.exp(-out))"):
    return _E3.format(reach=reach, m0=m0, m1=m1, mode=mode, start=start, rows=rows, cols=cols,
                      tap=tap, ret=ret)


WRONG += [
    (3, "mean and max maps in the wrong order", _e3(m0="x.max(axis=1)", m1="x.mean(axis=1)")),
    (3, "a true convolution: the kernel flipped", _e3(tap="k - 1 - u, k - 1 - v")),
    (3, "no sigmoid", _e3(ret="out")),
    (3, "the bias added after the sigmoid", _e3(start="0.0", ret="1.0 / (1.0 + np.exp(-out)) + bias")),
    (3, "the bias forgotten", _e3(start="0.0")),
    (3, "the sum over channels instead of the mean", _e3(m0="x.sum(axis=1)")),
    (3, "the kernel transposed", _e3(tap="v, u")),
    (3, "edge padding instead of zeros", _e3(mode=', mode="edge"')),
    (3, "the dilation ignored: taps next to each other", _e3(reach="k // 2", rows="u:u + H",
                                                              cols="v:v + W")),
    (3, "taps dilated, padding of k // 2 only: the window shifted", _e3(
        reach="k // 2", rows="u * d:u * d + H", cols="v * d:v * d + W").replace(
        "padded = np.pad(maps, ((0, 0), (0, 0), (r, r), (r, r)))",
        "padded = np.pad(maps, ((0, 0), (0, 0), (r, r + d * k), (r, r + d * k)))")),
    (3, "taps dilated, padding of k // 2 only: the windows run off the padded map (a crash)",
     _e3(reach="k // 2")),
    (3, "padding of d * k // 2: too much when d > 1 and k = 3", _e3(reach="d * k // 2")),
    (3, "pooled over the pixels instead of the channels", '''
def cbam_spatial_gate(x, kernel, bias, dilation=1):
    B, C, H, W = x.shape
    z = x.mean(axis=(2, 3)) + x.max(axis=(2, 3))
    gate = 1 / (1 + np.exp(-(z * kernel[0].mean() + bias)))
    return np.broadcast_to(gate[:, :1, None], (B, H, W)).copy()
'''),
    (3, "float32 maps and kernel", '''
def cbam_spatial_gate(x, kernel, bias, dilation=1):
    x, kernel = x.astype(np.float32), kernel.astype(np.float32)
    B, C, H, W = x.shape
    k, d = kernel.shape[-1], dilation
    r = d * (k // 2)
    maps = np.stack([x.mean(axis=1), x.max(axis=1)], axis=1)
    padded = np.pad(maps, ((0, 0), (0, 0), (r, r), (r, r)))
    out = np.full((B, H, W), bias, dtype=np.float32)
    for u in range(k):
        for v in range(k):
            out += np.einsum("bmhw,m->bhw", padded[:, :, u * d:u * d + H, v * d:v * d + W],
                             kernel[:, u, v])
    return (1 / (1 + np.exp(-out))).astype(np.float64)
'''),
    (3, "the chapter's conv2d_same_np with the undilated kernel", '''
def cbam_spatial_gate(x, kernel, bias, dilation=1):
    maps = np.stack([x.mean(axis=1), x.max(axis=1)], axis=1)
    return bt.sigmoid_np(bt.conv2d_same_np(maps, kernel, bias))
'''),
]

RIGHT += [
    (3, "loops over every output pixel, padding for the widest window", '''
def cbam_spatial_gate(x, kernel, bias, dilation=1):
    B, C, H, W = x.shape
    k, d = kernel.shape[-1], dilation
    r = d * (k // 2)
    maps = np.stack([x.mean(axis=1), x.max(axis=1)], axis=1)
    padded = np.pad(maps, ((0, 0), (0, 0), (r, r), (r, r)))
    out = np.empty((B, H, W))
    for b in range(B):
        for i in range(H):
            for j in range(W):
                out[b, i, j] = (padded[b, :, i:i + 2 * r + 1:d, j:j + 2 * r + 1:d] * kernel).sum() + bias
    return 1 / (1 + np.exp(-out))
'''),
    (3, "the chapter's conv2d_same_np with zeros inserted between the taps", '''
def cbam_spatial_gate(x, kernel, bias, dilation=1):
    k, d = kernel.shape[-1], dilation
    wide = np.zeros((2, d * (k - 1) + 1, d * (k - 1) + 1))
    wide[:, ::d, ::d] = kernel
    maps = np.stack([x.mean(axis=1), x.max(axis=1)], axis=1)
    return bt.sigmoid_np(bt.conv2d_same_np(maps, wide, bias))
'''),
]

# ---- exercise 4: the per-pixel gate
_E4 = '''
def best_pixel_gate_error(x, y):
    x = np.asarray(x, dtype={dt})
    y = np.asarray(y, dtype={dt})
    g = {gate}
    return float({ret})
'''


_SAFE = "np.divide((x * y).sum(1), (x * x).sum(1), out=np.zeros(x.shape[:1] + x.shape[2:]), where=(x * x).sum(1) > 0)"


def _e4(dt="np.float64", gate=_SAFE,
        ret="((y - g[:, None] * x) ** 2).sum() / (y ** 2).sum()"):
    return _E4.format(dt=dt, gate=gate, ret=ret)


WRONG += [
    (4, "one gate per image and channel (section 8's form)", '''
def best_pixel_gate_error(x, y):
    return bt.best_gate_error_np(x, y)
'''),
    (4, "one gate per pixel shared by all images", _e4(
        gate="(x * y).sum(axis=(0, 1)) / (x * x).sum(axis=(0, 1))",
        ret="((y - g[None, None] * x) ** 2).sum() / (y ** 2).sum()")),
    (4, "0 / 0 at a pixel where x is 0: NaN", _e4(gate="(x * y).sum(axis=1) / (x * x).sum(axis=1)")),
    (4, "one gate per image, shared by its pixels and channels", _e4(
        gate="(x * y).sum(axis=(1, 2, 3)) / (x * x).sum(axis=(1, 2, 3))",
        ret="((y - g[:, None, None, None] * x) ** 2).sum() / (y ** 2).sum()")),
    (4, "the gate clipped to (0, 1) as a sigmoid would be", _e4(
        gate="np.clip((x * y).sum(axis=1) / (x * x).sum(axis=1), 0, 1)")),
    (4, "relative to ||x||^2 instead of ||y||^2", _e4(
        ret="((y - g[:, None] * x) ** 2).sum() / (x ** 2).sum()")),
    (4, "the gate from the wrong normal equation: divided by ||y||^2", _e4(
        gate="(x * y).sum(axis=1) / (y * y).sum(axis=1)")),
    (4, "the captured fraction returned: 1 - error", _e4(
        ret="1 - ((y - g[:, None] * x) ** 2).sum() / (y ** 2).sum()")),
    (4, "the mean of per-pixel relative errors", _e4(
        ret="(((y - g[:, None] * x) ** 2).sum(1) / (y ** 2).sum(1)).mean()")),
    (4, "a square root: the norm, not its square", _e4(
        ret="np.sqrt(((y - g[:, None] * x) ** 2).sum() / (y ** 2).sum())")),
    (4, "float32 arithmetic, the result cast to float", _e4(dt="np.float32")),
    (4, "returns a NumPy scalar array, not a float", '''
def best_pixel_gate_error(x, y):
    g = (x * y).sum(axis=1) / (x * x).sum(axis=1)
    return np.array(((y - g[:, None] * x) ** 2).sum() / (y ** 2).sum())
'''),
    (4, "the prediction measured instead of predicted", '''
def prediction():
    x = np.random.default_rng(5).standard_normal((400, 6, 4, 4))
    return best_pixel_gate_error(x, x[:, [1, 0, 3, 2, 5, 4]])
'''),
    (4, "the prediction computed with NumPy, not written down", '''
def prediction():
    return float(np.sqrt(0.5))
'''),
    (4, "the measurement carried in by a default argument", '''
def prediction(value=measured):
    return value
'''),
    (4, "the measurement carried in by a keyword-only default", '''
def prediction(*, value=measured):
    return value
'''),
    (4, "the measurement carried in by a closure", '''
def _freeze(value):
    def prediction():
        return value
    return prediction


prediction = _freeze(measured)
'''),
    (4, "a prediction outside [0, 1]", '''
def prediction():
    return 1.5
'''),
    (4, "a prediction as a string", '''
def prediction():
    return "0.75"
'''),
]

RIGHT += [
    (4, "a wrong guess is still a prediction: the check compares, it does not fail", '''
def prediction():
    return 0.2
'''),
    (4, "a literal fraction", '''
def prediction():
    return 3 / 4
'''),
    (4, "with np.linalg.lstsq per image and pixel", '''
def best_pixel_gate_error(x, y):
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    res = 0.0
    for b in range(x.shape[0]):
        for i in range(x.shape[2]):
            for j in range(x.shape[3]):
                a, t = x[b, :, i, j][:, None], y[b, :, i, j]
                res += float(((t - a @ np.linalg.lstsq(a, t, rcond=None)[0]) ** 2).sum())
    return res / float((y ** 2).sum())
'''),
    (4, "the residual as ||y||^2 - <x, y>^2 / ||x||^2, by einsum", '''
def best_pixel_gate_error(x, y):
    xy = np.einsum("bchw,bchw->bhw", x, y)
    xx = np.einsum("bchw,bchw->bhw", x, x)
    yy = (y * y).sum()
    return float((yy - (xy[xx > 0] ** 2 / xx[xx > 0]).sum()) / yy)
'''),
    (4, "moveaxis to (B, H, W, C), then the last axis", '''
def best_pixel_gate_error(x, y):
    xf, yf = np.moveaxis(x, 1, -1), np.moveaxis(y, 1, -1)
    xx = (xf * xf).sum(-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        g = np.where(xx > 0, (xf * yf).sum(-1, keepdims=True) / xx, 0.0)
    return float(((yf - g * xf) ** 2).sum() / (yf ** 2).sum())
'''),
    (4, "the zero pixels skipped by a boolean index", '''
def best_pixel_gate_error(x, y):
    xx, xy = (x * x).sum(1), (x * y).sum(1)
    g = np.zeros_like(xx)
    g[xx > 0] = xy[xx > 0] / xx[xx > 0]
    return float(((y - g[:, None] * x) ** 2).sum() / (y ** 2).sum())
'''),
]
