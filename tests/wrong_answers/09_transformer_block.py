"""Wrong answers a learner would plausibly write for chapter 9's exercises."""
WRONG = [
    (1, "unbiased variance (divide by E - 1), torch.var's default", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, ddof=1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta
'''),
    (1, "statistics over the batch axis (BatchNorm), not over each token", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=0, keepdims=True)
    var = x.var(axis=0, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta
'''),
    (1, "eps added outside the square root", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    std = x.std(axis=-1, keepdims=True)
    return (x - mean) / (std + eps) * gamma + beta
'''),
    (1, "gamma and beta forgotten", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)
'''),
    (1, "mean and variance over the whole array", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    return (x - x.mean()) / np.sqrt(x.var() + eps) * gamma + beta
'''),
    (2, "the mean subtracted, as in LayerNorm", '''
def rms_norm(x, weight, eps):
    x = x - x.mean(dim=-1, keepdim=True)
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * weight
'''),
    (2, "divided by the standard deviation instead of the root mean square", '''
def rms_norm(x, weight, eps):
    return x / torch.sqrt(x.var(dim=-1, keepdim=True, unbiased=False) + eps) * weight
'''),
    (2, "eps outside the square root", '''
def rms_norm(x, weight, eps):
    return x / (x.pow(2).mean(dim=-1, keepdim=True).sqrt() + eps) * weight
'''),
    (2, "sum of squares instead of the mean (no division by E)", '''
def rms_norm(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).sum(dim=-1, keepdim=True) + eps) * weight
'''),
    (2, "computed in NumPy: the result leaves autograd's graph", '''
def rms_norm(x, weight, eps):
    xn, wn = x.detach().numpy(), weight.detach().numpy()
    out = xn / np.sqrt((xn ** 2).mean(axis=-1, keepdims=True) + eps) * wn
    return torch.from_numpy(out)
'''),
    (3, "post-LN order whatever norm_first says", '''
def block_forward(block, x, allowed=None):
    x = block.norm1(x + block.self_attn(x, x, x, allowed)[0])
    return block.norm2(x + block.ffn(x))
'''),
    (3, "pre-LN that normalises the residual stream itself", '''
def block_forward(block, x, allowed=None):
    if block.norm_first:
        x = block.norm1(x)
        x = x + block.self_attn(x, x, x, allowed)[0]
        x = block.norm2(x)
        return x + block.ffn(x)
    x = block.norm1(x + block.self_attn(x, x, x, allowed)[0])
    return block.norm2(x + block.ffn(x))
'''),
    (3, "residual connections forgotten", '''
def block_forward(block, x, allowed=None):
    if block.norm_first:
        z = block.norm1(x)
        x = block.self_attn(z, z, z, allowed)[0]
        return block.ffn(block.norm2(x))
    x = block.norm1(block.self_attn(x, x, x, allowed)[0])
    return block.norm2(block.ffn(x))
'''),
    (3, "the mask not passed on to the attention", '''
def block_forward(block, x, allowed=None):
    if block.norm_first:
        z = block.norm1(x)
        x = x + block.self_attn(z, z, z)[0]
        return x + block.ffn(block.norm2(x))
    x = block.norm1(x + block.self_attn(x, x, x)[0])
    return block.norm2(x + block.ffn(x))
'''),
    (3, "norm1 used for both sub-layers", '''
def block_forward(block, x, allowed=None):
    if block.norm_first:
        z = block.norm1(x)
        x = x + block.self_attn(z, z, z, allowed)[0]
        return x + block.ffn(block.norm1(x))
    x = block.norm1(x + block.self_attn(x, x, x, allowed)[0])
    return block.norm1(x + block.ffn(x))
'''),
    (3, "returns (out, weights) like the attention", '''
def block_forward(block, x, allowed=None):
    if block.norm_first:
        z = block.norm1(x)
        a, w = block.self_attn(z, z, z, allowed)
        x = x + a
        return x + block.ffn(block.norm2(x)), w
    a, w = block.self_attn(x, x, x, allowed)
    x = block.norm1(x + a)
    return block.norm2(x + block.ffn(x)), w
'''),
    (3, "calls the block itself", '''
def block_forward(block, x, allowed=None):
    return block(x, allowed)[0]
'''),
    (4, "12E^2 + 13E whatever F is", '''
def encoder_params(E, F):
    return 12 * E * E + 13 * E


def decoder_params(E, F):
    return 16 * E * E + 19 * E


def swiglu_params(E, F):
    return 3 * E * F
'''),
    (4, "biases forgotten", '''
def encoder_params(E, F):
    return 4 * E * E + 2 * E * F + 4 * E


def decoder_params(E, F):
    return 8 * E * E + 2 * E * F + 6 * E


def swiglu_params(E, F):
    return 3 * E * F
'''),
    (4, "LayerNorm counted as E parameters (no bias)", '''
def encoder_params(E, F):
    return (4 * E * E + 4 * E) + (2 * E * F + F + E) + 2 * E


def decoder_params(E, F):
    return 2 * (4 * E * E + 4 * E) + (2 * E * F + F + E) + 3 * E


def swiglu_params(E, F):
    return 3 * E * F
'''),
    (4, "decoder with two LayerNorms, SwiGLU with two matrices", '''
def encoder_params(E, F):
    return (4 * E * E + 4 * E) + (2 * E * F + F + E) + 4 * E


def decoder_params(E, F):
    return 2 * (4 * E * E + 4 * E) + (2 * E * F + F + E) + 4 * E


def swiglu_params(E, F):
    return 2 * E * F
'''),
    (4, "a float from a formula with / instead of integers", '''
def encoder_params(E, F):
    return (4 * E * E + 4 * E) + (2 * E * F + F + E) + 4 * E * 1.0


def decoder_params(E, F):
    return 2 * (4 * E * E + 4 * E) + (2 * E * F + F + E) + 6 * E * 1.0


def swiglu_params(E, F):
    return 3 * E * F / 1
'''),
]

RIGHT = [
    (1, "np.var over the last axis and float32 arithmetic avoided", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mu = np.mean(x, axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(np.var(x, axis=-1, keepdims=True) + eps) * gamma + beta
'''),
    (2, "a division by sqrt instead of rsqrt", '''
def rms_norm(x, weight, eps):
    return weight * x / torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + eps)
'''),
    (3, "the sub-layers written as small helpers", '''
def block_forward(block, x, allowed=None):
    def attn(z):
        return block.self_attn(z, z, z, allowed)[0]
    if not block.norm_first:
        h = block.norm1(x + attn(x))
        return block.norm2(h + block.ffn(h))
    h = x + attn(block.norm1(x))
    return h + block.ffn(block.norm2(h))
'''),
    (4, "numpy integers", '''
def encoder_params(E, F):
    return np.int64(12 * E * E - 8 * E * E + 2 * E * F + 9 * E + F)


def decoder_params(E, F):
    return np.int64(8 * E * E + 2 * E * F + 15 * E + F)


def swiglu_params(E, F):
    return np.int64(3 * E * F)
'''),
]
