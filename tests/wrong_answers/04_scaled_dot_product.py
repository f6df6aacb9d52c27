"""Wrong answers a learner would plausibly write for chapter 4's exercises."""
WRONG = [
    (1, "the log of the chapter's softmax: -inf where a weight underflows", '''
def log_softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    with np.errstate(divide="ignore"):
        return np.log(e / e.sum(axis=axis, keepdims=True))
'''),
    (1, 'no max shift: exp overflows', '''
def log_softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        return x - np.log(np.exp(x).sum(axis=axis, keepdims=True))
'''),
    (1, 'max over the whole array, not per slice', '''
def log_softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    s = x - x.max()
    with np.errstate(divide="ignore"):
        return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))
'''),
    (1, 'always over the last axis, ignoring `axis`', '''
def log_softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    s = x - x.max(axis=-1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))
'''),
    (1, 'subtracts the minimum: overflows when a slice spreads wider than ~709', '''
def log_softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    s = x - x.min(axis=axis, keepdims=True)
    with np.errstate(over="ignore"):
        return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))
'''),
    (1, "subtracts each slice's mean: overflows once the max sits ~709 above the mean", '''
def log_softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    s = x - x.mean(axis=axis, keepdims=True)
    with np.errstate(over="ignore"):
        return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))
'''),
    (1, 'the max subtracted, but not added back: x - log(sum(exp(x - m)))', '''
def log_softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    m = x.max(axis=axis, keepdims=True)
    return x - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))
'''),
    (1, 'max without keepdims: does not broadcast back', '''
def log_softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    s = x - x.max(axis=axis)
    return s - np.log(np.exp(s).sum(axis=axis))
'''),
    (1, 'the softmax itself, not its log', '''
def log_softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
'''),
    (1, "subtracts the max in place: the caller's x changes", '''
def log_softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    x -= x.max(axis=axis, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=axis, keepdims=True))
'''),
    (1, "imports the package's softmax_np and takes its log", '''
from attnlab.scaled_dot_product import softmax_np

def log_softmax(x, axis=-1):
    with np.errstate(divide="ignore"):
        return np.log(softmax_np(x, axis=axis))
'''),
    (1, 'calls torch.log_softmax', '''
def log_softmax(x, axis=-1):
    return torch.log_softmax(torch.as_tensor(np.asarray(x, dtype=np.float64)), dim=axis).numpy()
'''),
    (1, 'float32 and a 1e-30 floor inside the log', '''
def log_softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float32)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return np.log(e / e.sum(axis=axis, keepdims=True) + 1e-30)
'''),
    (2, 'reshape instead of transpose: tokens and heads scrambled', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    B, L, H, D = q.shape
    S, Dv = k.shape[1], v.shape[-1]
    qh, kh, vh = q.reshape(B, H, L, D), k.reshape(B, H, S, D), v.reshape(B, H, S, Dv)
    weights = softmax_np(qh @ kh.swapaxes(-2, -1) / np.sqrt(D), axis=-1)
    return (weights @ vh).reshape(B, L, H, Dv), weights
'''),
    (2, 'out left in the (B, H, L, Dv) layout', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64).transpose(0, 2, 1, 3) for a in (q, k, v))
    weights = softmax_np(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), axis=-1)
    return weights @ v, weights
'''),
    (2, 'out reshaped back instead of transposed', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64).transpose(0, 2, 1, 3) for a in (q, k, v))
    weights = softmax_np(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), axis=-1)
    out = weights @ v
    B, H, L, Dv = out.shape
    return out.reshape(B, L, H, Dv), weights
'''),
    (2, 'the product over the heads axis: the last two axes of the raw layout swapped', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    weights = softmax_np(q.swapaxes(1, 2) @ k.swapaxes(1, 2).swapaxes(-2, -1) / np.sqrt(q.shape[-1]), axis=-2)
    return (weights @ v.swapaxes(1, 2)).swapaxes(1, 2), weights
'''),
    (2, 'scaled by sqrt(H * D), the model width', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64).transpose(0, 2, 1, 3) for a in (q, k, v))
    weights = softmax_np(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[1] * q.shape[-1]), axis=-1)
    return (weights @ v).transpose(0, 2, 1, 3), weights
'''),
    (2, 'no scaling', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64).transpose(0, 2, 1, 3) for a in (q, k, v))
    weights = softmax_np(q @ k.swapaxes(-2, -1), axis=-1)
    return (weights @ v).transpose(0, 2, 1, 3), weights
'''),
    (2, 'softmax over the queries (axis -2)', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64).transpose(0, 2, 1, 3) for a in (q, k, v))
    weights = softmax_np(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), axis=-2)
    return (weights @ v).transpose(0, 2, 1, 3), weights
'''),
    (2, 'weights returned as (B, L, H, S)', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64).transpose(0, 2, 1, 3) for a in (q, k, v))
    weights = softmax_np(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), axis=-1)
    return (weights @ v).transpose(0, 2, 1, 3), weights.transpose(0, 2, 1, 3)
'''),
    (2, 'returns (weights, out) in the wrong order', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64).transpose(0, 2, 1, 3) for a in (q, k, v))
    weights = softmax_np(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), axis=-1)
    return weights, (weights @ v).transpose(0, 2, 1, 3)
'''),
    (2, 'naive softmax inline: overflows on large scores', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64).transpose(0, 2, 1, 3) for a in (q, k, v))
    with np.errstate(all="ignore"):
        e = np.exp(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]))
        weights = e / e.sum(-1, keepdims=True)
    return (weights @ v).transpose(0, 2, 1, 3), weights
'''),
    (2, "transposes, then the package's sdpa_np", '''
from attnlab.scaled_dot_product import sdpa_np

def attention_blhd(q, k, v):
    out, weights = sdpa_np(*(np.asarray(a).transpose(0, 2, 1, 3) for a in (q, k, v)))
    return out.transpose(0, 2, 1, 3), weights
'''),
    (2, 'computed in float32 (the statement asks for float64)', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float32).transpose(0, 2, 1, 3) for a in (q, k, v))
    weights = softmax_np(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), axis=-1).astype(np.float32)
    return (weights @ v).transpose(0, 2, 1, 3), weights
'''),
    (2, "q scaled in place: the caller's queries change", '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    q /= np.sqrt(q.shape[-1])
    qh, kh, vh = (a.transpose(0, 2, 1, 3) for a in (q, k, v))
    weights = softmax_np(qh @ kh.swapaxes(-2, -1), axis=-1)
    return (weights @ vh).transpose(0, 2, 1, 3), weights
'''),
    (3, "prediction computed with np.sqrt: the check refuses it", '''
def prediction():
    return {(D, s): (s ** 2 * np.sqrt(D), s ** 2) for D in (16, 64, 256) for s in (1.0, 2.0)}
'''),
    (3, "prediction computed with np.sqrt (dividing the std by D): refused", '''
def prediction():
    return {(D, s): (s * np.sqrt(D), s / np.sqrt(D)) for D in (16, 64, 256) for s in (1.0, 2.0)}
'''),
    (3, 'prediction: only sigma_k = 1 (three keys missing)', '''
def prediction():
    return {(16, 1): (4, 1), (64, 1): (8, 1), (256, 1): (16, 1)}
'''),
    (3, "prediction: a list of pairs, not a dict", '''
def prediction():
    return [(s * np.sqrt(D), s) for D in (16, 64, 256) for s in (1.0, 2.0)]
'''),
    (3, "measurement: ignores the seed (NumPy's global generator)", '''
def score_std(D, sigma_k, n_pairs, seed):
    q = np.random.normal(size=(n_pairs, D))
    k = np.random.normal(scale=sigma_k, size=(n_pairs, D))
    dots = (q * k).sum(axis=1)
    return float(dots.std()), float((dots / np.sqrt(D)).std())
'''),
    (3, "measurement: a fresh unseeded generator", '''
def score_std(D, sigma_k, n_pairs, seed):
    rng = np.random.default_rng()
    q = rng.normal(size=(n_pairs, D))
    k = rng.normal(scale=sigma_k, size=(n_pairs, D))
    dots = (q * k).sum(axis=1)
    return float(dots.std()), float((dots / np.sqrt(D)).std())
'''),
    (3, "measurement: returns the formula, not a measurement", '''
def score_std(D, sigma_k, n_pairs, seed):
    return float(sigma_k * np.sqrt(D)), float(sigma_k)
'''),
    (3, "measurement: the variance, not the standard deviation", '''
def score_std(D, sigma_k, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_pairs, D))
    k = rng.normal(scale=sigma_k, size=(n_pairs, D))
    dots = (q * k).sum(axis=1)
    return float(dots.var()), float((dots / np.sqrt(D)).var())
'''),
    (3, "measurement: std of the elementwise products, not of the dot products", '''
def score_std(D, sigma_k, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_pairs, D))
    k = rng.normal(scale=sigma_k, size=(n_pairs, D))
    return float((q * k).std()), float((q * k / np.sqrt(D)).std())
'''),
    (3, "measurement: sigma_k passed as a variance (scale = sigma_k ** 2)", '''
def score_std(D, sigma_k, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_pairs, D))
    k = rng.normal(scale=sigma_k ** 2, size=(n_pairs, D))
    dots = (q * k).sum(axis=1)
    return float(dots.std()), float((dots / np.sqrt(D)).std())
'''),
    (3, "measurement: ignores sigma_k (standard normal keys)", '''
def score_std(D, sigma_k, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_pairs, D))
    k = rng.normal(size=(n_pairs, D))
    dots = (q * k).sum(axis=1)
    return float(dots.std()), float((dots / np.sqrt(D)).std())
'''),
    (3, "measurement: uniform entries instead of normal", '''
def score_std(D, sigma_k, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.random((n_pairs, D))
    k = sigma_k * rng.random((n_pairs, D))
    dots = (q * k).sum(axis=1)
    return float(dots.std()), float((dots / np.sqrt(D)).std())
'''),
    (3, "measurement: scaled by D instead of sqrt(D)", '''
def score_std(D, sigma_k, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_pairs, D))
    k = rng.normal(scale=sigma_k, size=(n_pairs, D))
    dots = (q * k).sum(axis=1)
    return float(dots.std()), float((dots / D).std())
'''),
    (3, "measurement: returns NumPy scalars in arrays, not floats", '''
def score_std(D, sigma_k, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_pairs, D))
    k = rng.normal(scale=sigma_k, size=(n_pairs, D))
    dots = (q * k).sum(axis=1)
    return dots.std(keepdims=True), (dots / np.sqrt(D)).std(keepdims=True)
'''),
    (3, "measured first, then 'predicted' the wrong measurement (sigma_k ignored in both)", '''
def prediction():
    return {(D, s): (np.sqrt(D), 1.0) for D in (16, 64, 256) for s in (1.0, 2.0)}


def score_std(D, sigma_k, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_pairs, D))
    k = rng.normal(size=(n_pairs, D))
    dots = (q * k).sum(axis=1)
    return float(dots.std()), float((dots / np.sqrt(D)).std())
'''),
    (3, 'measurement: n_pairs ignored (always 20,000 pairs)', '''
def score_std(D, sigma_k, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(20_000, D))
    k = rng.normal(scale=sigma_k, size=(20_000, D))
    dots = (q * k).sum(axis=1)
    return float(dots.std()), float((dots / np.sqrt(D)).std())
'''),
    (3, 'measurement: n_pairs ignored (1,000 pairs)', '''
def score_std(D, sigma_k, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(1000, D))
    k = rng.normal(scale=sigma_k, size=(1000, D))
    dots = (q * k).sum(axis=1)
    return float(dots.std()), float((dots / np.sqrt(D)).std())
'''),
    (3, 'prediction() runs the measurement', '''
def score_std(D, sigma_k, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_pairs, D))
    k = rng.normal(scale=sigma_k, size=(n_pairs, D))
    dots = (q * k).sum(axis=1)
    return float(dots.std()), float((dots / np.sqrt(D)).std())

def prediction():
    return {(D, s): score_std(D, float(s), 20_000, 0) for D in (16, 64, 256) for s in (1, 2)}
'''),
    (3, 'prediction() computes the theory with math.sqrt', '''
def prediction():
    import math
    return {(D, s): (s * math.sqrt(D), s) for D in (16, 64, 256) for s in (1, 2)}
'''),
    (4, "multiplies by tau instead of dividing", '''
def softmax_temperature(x, tau):
    return softmax_np(np.asarray(x, dtype=np.float64) * tau, axis=-1)
'''),
    (4, "divides the weights, after the softmax", '''
def softmax_temperature(x, tau):
    return softmax_np(np.asarray(x, dtype=np.float64), axis=-1) / tau
'''),
    (4, "softmax over the first axis", '''
def softmax_temperature(x, tau):
    return softmax_np(np.asarray(x, dtype=np.float64) / tau, axis=0)
'''),
    (4, "subtracts tau", '''
def softmax_temperature(x, tau):
    return softmax_np(np.asarray(x, dtype=np.float64) - tau, axis=-1)
'''),
    (4, "naive exp: overflows for small tau", '''
def softmax_temperature(x, tau):
    e = np.exp(np.asarray(x, dtype=np.float64) / tau)
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (4, "raises the weights to 1/tau without renormalising", '''
def softmax_temperature(x, tau):
    return softmax_np(np.asarray(x, dtype=np.float64), axis=-1) ** (1 / tau)
'''),
    (4, "per-row tau without a trailing axis: lines up with the keys (silent when L == S)", '''
def softmax_temperature(x, tau):
    x = np.asarray(x, dtype=np.float64)
    return softmax_np(x / np.asarray(tau, dtype=np.float64), axis=-1)
'''),
    (4, "tau[:, None]: right for a matrix, wrong for batch axes (and a plain number)", '''
def softmax_temperature(x, tau):
    x = np.asarray(x, dtype=np.float64)
    tau = np.asarray(tau, dtype=np.float64)
    if tau.ndim:
        tau = tau[:, None]
    return softmax_np(x / tau, axis=-1)
'''),
    (4, "tau.reshape(-1, 1): flattens the batch axes of tau", '''
def softmax_temperature(x, tau):
    x = np.asarray(x, dtype=np.float64)
    tau = np.asarray(tau, dtype=np.float64)
    return softmax_np(x / tau.reshape(-1, 1), axis=-1)
'''),
    (4, "tau[..., None] on a plain number: crashes for a Python float", '''
def softmax_temperature(x, tau):
    x = np.asarray(x, dtype=np.float64)
    return softmax_np(x / tau[..., None], axis=-1)
'''),
    (4, "one temperature for every row: the mean of tau", '''
def softmax_temperature(x, tau):
    x = np.asarray(x, dtype=np.float64)
    return softmax_np(x / np.mean(tau), axis=-1)
'''),
    (4, "divides x in place: the caller's scores change", '''
def softmax_temperature(x, tau):
    x = np.asarray(x, dtype=np.float64)
    x /= np.asarray(tau, dtype=np.float64)[..., None]
    return softmax_np(x, axis=-1)
'''),
    (4, "np.atleast_1d(tau)[..., None]: a scalar tau adds an axis to the result", '''
def softmax_temperature(x, tau):
    x = np.asarray(x, dtype=np.float64)
    return softmax_np(x / np.atleast_1d(tau)[..., None], axis=-1)
'''),
    (4, "a floor on tau 'for safety': changes the answer for tau below 0.01", '''
def softmax_temperature(x, tau):
    x = np.asarray(x, dtype=np.float64)
    tau = np.maximum(np.asarray(tau, dtype=np.float64), 1e-2)
    return softmax_np(x / tau[..., None], axis=-1)
'''),
    (5, "a multiply-add counted as 1 FLOP", '''
def score_cost(B, H, L, S, D, dtype):
    size = torch.empty((), dtype=dtype).element_size()
    flops = B * H * L * S * D
    return flops, B * H * L * S * size, flops / (B * H * (L * D + S * D + L * S) * size)
'''),
    (5, "4 bytes per number whatever the dtype", '''
def score_cost(B, H, L, S, D, dtype):
    flops = 2 * B * H * L * S * D
    return flops, B * H * L * S * 4, flops / (B * H * (L * D + S * D + L * S) * 4)
'''),
    (5, "self-attention assumed: L x L scores", '''
def score_cost(B, H, L, S, D, dtype):
    size = torch.empty((), dtype=dtype).element_size()
    flops = 2 * B * H * L * L * D
    return flops, B * H * L * L * size, flops / (B * H * (2 * L * D + L * L) * size)
'''),
    (5, "bytes moved forget k", '''
def score_cost(B, H, L, S, D, dtype):
    size = torch.empty((), dtype=dtype).element_size()
    flops = 2 * B * H * L * S * D
    return flops, B * H * L * S * size, flops / (B * H * (L * D + L * S) * size)
'''),
    (5, "bytes moved forget the scores written", '''
def score_cost(B, H, L, S, D, dtype):
    size = torch.empty((), dtype=dtype).element_size()
    flops = 2 * B * H * L * S * D
    return flops, B * H * L * S * size, flops / (B * H * (L * D + S * D) * size)
'''),
    (5, "bytes moved count v too", '''
def score_cost(B, H, L, S, D, dtype):
    size = torch.empty((), dtype=dtype).element_size()
    flops = 2 * B * H * L * S * D
    return flops, B * H * L * S * size, flops / (B * H * (L * D + 2 * S * D + L * S) * size)
'''),
    (5, "score bytes include the head size D", '''
def score_cost(B, H, L, S, D, dtype):
    size = torch.empty((), dtype=dtype).element_size()
    flops = 2 * B * H * L * S * D
    return flops, B * H * L * S * D * size, flops / (B * H * (L * D + S * D + L * S) * size)
'''),
    (5, "forgets the heads", '''
def score_cost(B, H, L, S, D, dtype):
    size = torch.empty((), dtype=dtype).element_size()
    flops = 2 * B * L * S * D
    return flops, B * L * S * size, flops / (B * (L * D + S * D + L * S) * size)
'''),
    (5, "integer division for the intensity", '''
def score_cost(B, H, L, S, D, dtype):
    size = torch.empty((), dtype=dtype).element_size()
    flops = 2 * B * H * L * S * D
    return flops, B * H * L * S * size, flops // (B * H * (L * D + S * D + L * S) * size)
'''),
    (5, "NumPy's itemsize on a torch dtype: crashes", '''
def score_cost(B, H, L, S, D, dtype):
    size = np.dtype(dtype).itemsize
    flops = 2 * B * H * L * S * D
    return flops, B * H * L * S * size, flops / (B * H * (L * D + S * D + L * S) * size)
'''),
    (5, "counts QK^T and AV (section 8's attention_cost)", '''
def score_cost(B, H, L, S, D, dtype):
    size = torch.empty((), dtype=dtype).element_size()
    flops = B * H * (2 * L * S * D + 2 * L * S * D)
    return flops, B * H * L * S * size, flops / (B * H * (L * D + S * D + L * S) * size)
'''),
    (5, "2D - 1 FLOPs per score (multiplies plus additions)", '''
def score_cost(B, H, L, S, D, dtype):
    size = torch.empty((), dtype=dtype).element_size()
    flops = B * H * L * S * (2 * D - 1)
    return flops, B * H * L * S * size, flops / (B * H * (L * D + S * D + L * S) * size)
'''),
    (6, "the colleague's function unchanged", '''
def attention_fixed(q, k, v):
    return attention_v0(q, k, v)
'''),
    (6, "fixes the scale only: the global max stays", '''
def attention_fixed(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max())
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (6, "fixes the max only: still divides by D", '''
def attention_fixed(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    scores = q @ k.swapaxes(-2, -1) / q.shape[-1]
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (6, "max per matrix (last two axes), not per row", '''
def attention_fixed(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=(-2, -1), keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (6, "max per key column (axis -2)", '''
def attention_fixed(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-2, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (6, "row max without keepdims: crashes or lines up with the keys", '''
def attention_fixed(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (6, "scales by sqrt of the number of keys S", '''
def attention_fixed(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(k.shape[-2])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (6, "scales by sqrt of the value width Dv", '''
def attention_fixed(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(v.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (6, "keeps the global max and patches the NaN rows to 0", '''
def attention_fixed(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max())
    with np.errstate(invalid="ignore"):
        weights = np.nan_to_num(e / e.sum(axis=-1, keepdims=True))
    return weights @ v, weights
'''),
    (6, "clips the scores to +-700 instead of shifting per row", '''
def attention_fixed(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    scores = np.clip(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), -700, 700)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (6, "no shift at all: overflows on large scores", '''
def attention_fixed(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    e = np.exp(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (6, "calls exercise 2's attention_blhd on transposed inputs instead of fixing", '''
def attention_fixed(q, k, v):
    t = lambda a: np.asarray(a, dtype=np.float64).reshape((-1,) + np.shape(a)[-2:]).swapaxes(0, 1)[None]
    out, w = attention_blhd(t(q), t(k), t(v))
    return out[0].swapaxes(0, 1).reshape(np.shape(q)[:-1] + (np.shape(v)[-1],)), w[0].reshape(np.shape(q)[:-1] + (np.shape(k)[-2],))
'''),
    (6, "calls the package's sdpa_np", '''
from attnlab.scaled_dot_product import sdpa_np

def attention_fixed(q, k, v):
    return sdpa_np(q, k, v)
'''),
    (6, "subtracts each row's minimum: no underflow, but overflow on a widely spread row", '''
def attention_fixed(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.min(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (6, "long double instead of the row max: the global max underflows later, not never", '''
def attention_fixed(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.longdouble) for a in (q, k, v))
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max())
    weights = e / e.sum(axis=-1, keepdims=True)
    return (weights @ v).astype(np.float64), weights.astype(np.float64)
'''),
    (7, "ignores prescaled: the unscaled edge for both orders", '''
def largest_safe_entry(D, dtype, prescaled):
    return math.sqrt(torch.finfo(dtype).max / D)
'''),
    (7, "the typical size of a random product (sqrt(D) a^2), not the worst case, for both orders", '''
def largest_safe_entry(D, dtype, prescaled):
    return math.sqrt(torch.finfo(dtype).max / math.sqrt(D))
'''),
    (7, "forgets the square root: M / D", '''
def largest_safe_entry(D, dtype, prescaled):
    return torch.finfo(dtype).max / (math.sqrt(D) if prescaled else D)
'''),
    (7, "65,504 for every dtype", '''
def largest_safe_entry(D, dtype, prescaled):
    return math.sqrt(65504.0 / (math.sqrt(D) if prescaled else D))
'''),
    (7, "the exp edge log(M) instead of M", '''
def largest_safe_entry(D, dtype, prescaled):
    return math.sqrt(math.log(torch.finfo(dtype).max) / (math.sqrt(D) if prescaled else D))
'''),
    (7, "scaling first treated as dividing the product by D", '''
def largest_safe_entry(D, dtype, prescaled):
    return math.sqrt(torch.finfo(dtype).max / (1 if prescaled else D))
'''),
    (7, "scaling first with the fourth root in the wrong place", '''
def largest_safe_entry(D, dtype, prescaled):
    return math.sqrt(torch.finfo(dtype).max / (D ** 0.25 if prescaled else D))
'''),
    (7, "float32's largest number for every dtype", '''
def largest_safe_entry(D, dtype, prescaled):
    return math.sqrt(torch.finfo(torch.float32).max / (math.sqrt(D) if prescaled else D))
'''),
    (7, "returns a tensor, not a float", '''
def largest_safe_entry(D, dtype, prescaled):
    return torch.tensor(torch.finfo(dtype).max / (math.sqrt(D) if prescaled else D)).sqrt()
'''),
    (7, "integer entries: math.isqrt rounds the edge down", '''
def largest_safe_entry(D, dtype, prescaled):
    return float(math.isqrt(int(torch.finfo(dtype).max / (math.sqrt(D) if prescaled else D))))
'''),
    (7, "the largest score instead of the largest entry", '''
def largest_safe_entry(D, dtype, prescaled):
    return torch.finfo(dtype).max / math.sqrt(D)
'''),
    # --- added after the outside reader's report
    (1, 'float32 throughout: a float64 x answered at float32 precision', '''
def log_softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float32)
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))
'''),
    (1, 'the right formula on x.astype(np.float32)', '''
def log_softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    x = x.astype(np.float32)
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
'''),
    (1, "SciPy's logsumexp under another name", '''
from scipy.special import logsumexp as lse

def log_softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    return x - lse(x, axis=axis, keepdims=True)
'''),
    (1, 'torch.log_softmax bound to another name', '''
_ls = torch.log_softmax

def log_softmax(x, axis=-1):
    return _ls(torch.from_numpy(np.asarray(x, dtype=np.float64)), dim=axis).numpy()
'''),
    (1, 'a helper that calls torch.log_softmax', '''
def _helper(t, axis):
    return torch.log_softmax(t, dim=axis)

def log_softmax(x, axis=-1):
    return _helper(torch.from_numpy(np.asarray(x, dtype=np.float64)), axis).numpy()
'''),
    (2, "the package's sdpa_np under another name", '''
_f = chapter4.sdpa_np

def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64).transpose(0, 2, 1, 3) for a in (q, k, v))
    out, weights = _f(q, k, v)
    return out.transpose(0, 2, 1, 3), weights
'''),
    (2, 'scaled by 1/D instead of 1/sqrt(D)', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64).transpose(0, 2, 1, 3) for a in (q, k, v))
    weights = softmax_np(q @ k.swapaxes(-2, -1) / q.shape[-1], axis=-1)
    return (weights @ v).transpose(0, 2, 1, 3), weights
'''),
    (2, 'scaled by 1/sqrt(Dv), the value width', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64).transpose(0, 2, 1, 3) for a in (q, k, v))
    weights = softmax_np(q @ k.swapaxes(-2, -1) / np.sqrt(v.shape[-1]), axis=-1)
    return (weights @ v).transpose(0, 2, 1, 3), weights
'''),
    (2, 'float32 weights, returned as float64', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float32).transpose(0, 2, 1, 3) for a in (q, k, v))
    weights = softmax_np(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), axis=-1)
    out = weights @ v
    return out.transpose(0, 2, 1, 3).astype(np.float64), weights.astype(np.float64)
'''),
    (3, 'prediction() handed the measurement through a default argument', '''
def prediction(p={(D, s): score_std(D, float(s), 20_000, 0) for D in (16, 64, 256)
                  for s in (1, 2)}):
    return p
'''),
    (3, 'measurement: the spread of the elementwise products, scaled up by theory', '''
def score_std(D, sigma_k, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_pairs, D))
    k = rng.normal(scale=sigma_k, size=(n_pairs, D))
    p = q * k
    return float(p.std() * np.sqrt(D)), float(p.std())
'''),
    (4, 'one tau per row, computed in float32 and returned as float64', '''
def softmax_temperature(x, tau):
    x = np.asarray(x, dtype=np.float32)
    tau = np.asarray(tau, dtype=np.float32)[..., None]
    return softmax_np(x / tau, axis=-1).astype(np.float64)
'''),
    (5, 'the FLOPs passed through float32', '''
def score_cost(B, H, L, S, D, dtype):
    size = torch.empty((), dtype=dtype).element_size()
    flops = float(np.float32(2 * B * H * L * S * D))
    moved = B * H * (L * D + S * D + L * S) * size
    return flops, B * H * L * S * size, flops / moved
'''),
    (6, "the package's sdpa_np under another name", '''
_f = chapter4.sdpa_np

def attention_fixed(q, k, v):
    return _f(*(np.asarray(a, dtype=np.float64) for a in (q, k, v)))
'''),
    (6, 'both bugs fixed, in float32', '''
def attention_fixed(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return (weights @ v).astype(np.float64), weights.astype(np.float64)
'''),
    (7, 'a 1% safety margin below the edge', '''
def largest_safe_entry(D, dtype, prescaled):
    return 0.99 * math.sqrt(torch.finfo(dtype).max / (math.sqrt(D) if prescaled else D))
'''),
    (7, 'sqrt(M) / D: the square root taken before dividing', '''
def largest_safe_entry(D, dtype, prescaled):
    return math.sqrt(torch.finfo(dtype).max) / (math.sqrt(D) if prescaled else D)
'''),
    (7, "bfloat16 given float32's largest number (0.4% larger)", '''
def largest_safe_entry(D, dtype, prescaled):
    M = torch.finfo(torch.float32 if dtype == torch.bfloat16 else dtype).max
    return math.sqrt(M / (math.sqrt(D) if prescaled else D))
'''),
    (7, "exp's edge: the scaled score kept below 11.09", '''
def largest_safe_entry(D, dtype, prescaled):
    return math.sqrt(11.09 * math.sqrt(D) / D)
'''),
]

RIGHT = [
    (1, 'keeps a float32 x in float32, float64 otherwise (checked at the input\'s tolerance)', '''
def log_softmax(x, axis=-1):
    x = np.asarray(x)
    x = x if x.dtype == np.float32 else x.astype(np.float64)
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))
'''),
    (1, 'np.logaddexp.reduce along the axis', '''
def log_softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    return x - np.expand_dims(np.logaddexp.reduce(x, axis=axis), axis)
'''),
    (1, 'in place on its own copy, m + log-sum-exp subtracted', '''
def log_softmax(x, axis=-1):
    x = np.array(x, dtype=np.float64)
    m = x.max(axis=axis, keepdims=True)
    lse = m + np.log(np.exp(x - m).sum(axis=axis, keepdims=True))
    x -= lse
    return x
'''),
    (2, 'np.einsum straight on the (B, L, H, D) layout', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    scores = np.einsum("blhd,bshd->bhls", q, k) / np.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(-1, keepdims=True))
    weights = e / e.sum(-1, keepdims=True)
    return np.einsum("bhls,bshv->blhv", weights, v), weights
'''),
    (2, 'a loop over the heads, swapaxes(1, 2)', '''
def attention_blhd(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    outs, ws = [], []
    for h in range(q.shape[2]):
        s = q[:, :, h] @ k[:, :, h].swapaxes(-2, -1) / np.sqrt(q.shape[-1])
        w = softmax_np(s, axis=-1)
        outs.append(w @ v[:, :, h])
        ws.append(w)
    return np.stack(outs, axis=2), np.stack(ws, axis=1)
'''),
    (3, "measurement: one draw of shape (2, n_pairs, D), k rescaled, einsum", '''
def score_std(D, sigma_k, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, n_pairs, D))
    dots = np.einsum("nd,nd->n", q, sigma_k * k)
    return float(dots.std(ddof=1)), float(dots.std(ddof=1) / np.sqrt(D))
'''),
    (3, 'a wrong prediction is not a failure: the variance D instead of the standard deviation', '''
def prediction():
    return {(16, 1): (16, 1), (16, 2): (64, 4), (64, 1): (64, 1), (64, 2): (256, 4), (256, 1): (256, 1), (256, 2): (1024, 4)}
'''),
    (3, 'a wrong prediction is not a failure: forgets sigma_k', '''
def prediction():
    return {(16, 1): (4, 1), (16, 2): (4, 1), (64, 1): (8, 1), (64, 2): (8, 1), (256, 1): (16, 1), (256, 2): (16, 1)}
'''),
    (3, "a wrong prediction is not a failure: the scaled score's std is 1 whatever sigma_k", '''
def prediction():
    return {(16, 1): (4, 1), (16, 2): (8, 1), (64, 1): (8, 1), (64, 2): (16, 1), (256, 1): (16, 1), (256, 2): (32, 1)}
'''),
    (3, 'a wrong prediction is not a failure: sigma_k under the square root with D', '''
def prediction():
    return {(16, 1): (4, 1), (16, 2): (32 ** 0.5, 2 ** 0.5), (64, 1): (8, 1), (64, 2): (128 ** 0.5, 2 ** 0.5), (256, 1): (16, 1), (256, 2): (512 ** 0.5, 2 ** 0.5)}
'''),
    (3, 'prediction with floats and arithmetic on numbers', '''
def prediction():
    return {(16, 1.0): (4.0, 1.0), (16, 2.0): (2 * 4.0, 2.0), (64, 1.0): (8.0, 1.0),
            (64, 2.0): (16.0, 2.0), (256, 1.0): (16.0, 1.0), (256, 2.0): (32.0, 2.0)}
'''),
    (4, "the package's softmax_np (allowed) and np.expand_dims", '''
from attnlab.scaled_dot_product import softmax_np

def softmax_temperature(x, tau):
    return softmax_np(np.asarray(x) / np.expand_dims(np.asarray(tau), -1))
'''),
    (4, "reshape tau to x.shape[:-1] + (1,)", '''
def softmax_temperature(x, tau):
    x = np.asarray(x, dtype=np.float64)
    tau = np.broadcast_to(np.asarray(tau, dtype=np.float64), x.shape[:-1])
    return softmax_np(x / tau.reshape(x.shape[:-1] + (1,)), axis=-1)
'''),
    (4, "the transpose trick: reversing every axis lines tau up with the rows", '''
def softmax_temperature(x, tau):
    x = np.asarray(x, dtype=np.float64)
    return softmax_np((x.T / np.asarray(tau, dtype=np.float64).T).T, axis=-1)
'''),
    (5, "itemsize from torch.finfo bits", '''
def score_cost(B, H, L, S, D, dtype):
    size = torch.finfo(dtype).bits // 8
    numbers = B * H * (L * D + S * D + L * S)
    flops = 2 * D * (B * H * L * S)
    return flops, B * H * L * S * size, flops / (numbers * size)
'''),
    (5, "dtype.itemsize, and the intensity from the formula without B and H", '''
def score_cost(B, H, L, S, D, dtype):
    b = dtype.itemsize
    return 2 * B * H * L * S * D, B * H * L * S * b, 2 * L * S * D / ((L * D + S * D + L * S) * b)
'''),
    (6, "with softmax_np and the scale as a multiplication", '''
from attnlab.scaled_dot_product import softmax_np

def attention_fixed(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    weights = softmax_np((q @ k.swapaxes(-2, -1)) * q.shape[-1] ** -0.5, axis=-1)
    return weights @ v, weights
'''),
    (6, "through the log-sum-exp per row", '''
def attention_fixed(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    scores = q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1])
    m = scores.max(axis=-1, keepdims=True)
    lse = m + np.log(np.exp(scores - m).sum(axis=-1, keepdims=True))
    weights = np.exp(scores - lse)
    return weights @ v, weights
'''),
    (7, "in log space", '''
def largest_safe_entry(D, dtype, prescaled):
    log_m = math.log(torch.finfo(dtype).max)
    return math.exp(0.5 * (log_m - (0.5 if prescaled else 1.0) * math.log(D)))
'''),
    (7, "the rounding edge M + half a spacing (65,520 in float16), NumPy's float64", '''
def largest_safe_entry(D, dtype, prescaled):
    fi = torch.finfo(dtype)
    edge = fi.max * (1 + fi.eps / 4)
    return np.sqrt(np.float64(edge) / (np.sqrt(D) if prescaled else D))
'''),
    (7, "measured by bisection", '''
def largest_safe_entry(D, dtype, prescaled):
    def finite(a):
        q = torch.full((1, D), a, dtype=torch.float64).to(dtype)
        s = (q / math.sqrt(D)) @ q.T if prescaled else (q @ q.T) / math.sqrt(D)
        return bool(torch.isfinite(s).all())
    lo, hi = 0.0, 1.0
    while finite(hi):
        lo, hi = hi, 2 * hi
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if finite(mid) else (lo, mid)
    return lo
'''),
]
