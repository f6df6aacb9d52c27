"""Wrong answers a learner would plausibly write for chapter 4's exercises."""
WRONG = [
    (1, "max over the whole array, not per slice", '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max())
    return e / e.sum(axis=axis, keepdims=True)
'''),
    (1, "no max shift: exp overflows", '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)
'''),
    (1, "always over the last axis, ignoring `axis`", '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (1, "subtracts the minimum: overflows when a slice spreads wider than ~709", '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.min(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
'''),
    (1, "max without keepdims: does not broadcast back", '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(axis=axis))
    return e / e.sum(axis=axis)
'''),
    (1, "imports the package's softmax_np", '''
from attnlab.scaled_dot_product import softmax_np

def softmax(x, axis=-1):
    return softmax_np(x, axis=axis)
'''),
    (2, "no scaling", '''
def attention(q, k, v):
    weights = softmax(q @ k.swapaxes(-2, -1), axis=-1)
    return weights @ v, weights
'''),
    (2, "divides by D instead of sqrt(D)", '''
def attention(q, k, v):
    weights = softmax(q @ k.swapaxes(-2, -1) / q.shape[-1], axis=-1)
    return weights @ v, weights
'''),
    (2, "softmax over the queries (axis -2)", '''
def attention(q, k, v):
    weights = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), axis=-2)
    return weights @ v, weights
'''),
    (2, "returns only out", '''
def attention(q, k, v):
    weights = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), axis=-1)
    return weights @ v
'''),
    (2, "returns (weights, out) in the wrong order", '''
def attention(q, k, v):
    weights = softmax(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]), axis=-1)
    return weights, weights @ v
'''),
    (2, "k.T transposes every axis, not the last two", '''
def attention(q, k, v):
    weights = softmax(q @ k.T / np.sqrt(q.shape[-1]), axis=-1)
    return weights @ v, weights
'''),
    (2, "naive softmax inline: overflows on large scores", '''
def attention(q, k, v):
    e = np.exp(q @ k.swapaxes(-2, -1) / np.sqrt(q.shape[-1]))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
'''),
    (2, "calls the package's sdpa_np", '''
from attnlab.scaled_dot_product import sdpa_np

def attention(q, k, v):
    return sdpa_np(q, k, v)
'''),
    (3, "ignores the seed: NumPy's global generator", '''
def dot_variance(D, n_pairs, seed):
    q = np.random.normal(size=(n_pairs, D))
    k = np.random.normal(size=(n_pairs, D))
    return float((q * k).sum(axis=1).var())
'''),
    (3, "ignores the seed: a fresh unseeded generator", '''
def dot_variance(D, n_pairs, seed):
    rng = np.random.default_rng()
    q = rng.normal(size=(n_pairs, D))
    k = rng.normal(size=(n_pairs, D))
    return float((q * k).sum(axis=1).var())
'''),
    (3, "returns the formula, not a measurement", '''
def dot_variance(D, n_pairs, seed):
    return float(D)
'''),
    (3, "variance of the elementwise products, not of the dot products", '''
def dot_variance(D, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_pairs, D))
    k = rng.normal(size=(n_pairs, D))
    return float((q * k).var())
'''),
    (3, "standard deviation instead of variance", '''
def dot_variance(D, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_pairs, D))
    k = rng.normal(size=(n_pairs, D))
    return float((q * k).sum(axis=1).std())
'''),
    (3, "uniform entries instead of standard normal", '''
def dot_variance(D, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.random((n_pairs, D))
    k = rng.random((n_pairs, D))
    return float((q * k).sum(axis=1).var())
'''),
    (3, "returns a one-element array, not a float", '''
def dot_variance(D, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_pairs, D))
    k = rng.normal(size=(n_pairs, D))
    return (q * k).sum(axis=1).var(keepdims=True)
'''),
    (4, "multiplies by tau instead of dividing", '''
def softmax_temperature(x, tau):
    return softmax(np.asarray(x, dtype=np.float64) * tau, axis=-1)
'''),
    (4, "divides the weights, after the softmax", '''
def softmax_temperature(x, tau):
    return softmax(np.asarray(x, dtype=np.float64), axis=-1) / tau
'''),
    (4, "softmax over the first axis", '''
def softmax_temperature(x, tau):
    return softmax(np.asarray(x, dtype=np.float64) / tau, axis=0)
'''),
    (4, "subtracts tau", '''
def softmax_temperature(x, tau):
    return softmax(np.asarray(x, dtype=np.float64) - tau, axis=-1)
'''),
    (4, "naive exp: overflows for small tau", '''
def softmax_temperature(x, tau):
    e = np.exp(np.asarray(x, dtype=np.float64) / tau)
    return e / e.sum(axis=-1, keepdims=True)
'''),
    (4, "raises the weights to 1/tau without renormalising", '''
def softmax_temperature(x, tau):
    return softmax(np.asarray(x, dtype=np.float64), axis=-1) ** (1 / tau)
'''),
]

RIGHT = [
    (1, "float32 throughout (allowed, checked at a float32 tolerance)", '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float32)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
'''),
    (1, "through the log-sum-exp", '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)
    m = x.max(axis=axis, keepdims=True)
    lse = m + np.log(np.exp(x - m).sum(axis=axis, keepdims=True))
    return np.exp(x - lse)
'''),
    (2, "computed in float32 (allowed, float32 tolerance)", '''
def attention(q, k, v):
    q, k, v = (np.asarray(a, dtype=np.float32) for a in (q, k, v))
    scores = q @ k.swapaxes(-2, -1) / np.float32(np.sqrt(q.shape[-1]))
    weights = softmax(scores, axis=-1).astype(np.float32)
    return weights @ v, weights
'''),
    (2, "with einsum and the package's softmax_np", '''
from attnlab.scaled_dot_product import softmax_np

def attention(q, k, v):
    scores = np.einsum("...ld,...sd->...ls", q, k) / np.sqrt(q.shape[-1])
    weights = softmax_np(scores, axis=-1)
    return np.einsum("...ls,...sv->...lv", weights, v), weights
'''),
    (3, "one draw of shape (2, n_pairs, D)", '''
def dot_variance(D, n_pairs, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, n_pairs, D))
    return float(np.einsum("nd,nd->n", q, k).var())
'''),
    (4, "the package's softmax_np (allowed)", '''
from attnlab.scaled_dot_product import softmax_np

def softmax_temperature(x, tau):
    return softmax_np(np.asarray(x) / tau)
'''),
]
