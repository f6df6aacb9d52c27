"""Wrong answers a learner would plausibly write for chapter 9's exercises, and right ones
that differ from the solution in an allowed way."""
WRONG = [
    # --- exercise 1: debug the LayerNorm (every partial fix is wrong)
    (1, "the given function, unchanged", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    return layer_norm_given(x, gamma, beta, eps)
'''),
    (1, "partial fix: the variance from the deviations, but x -= mean and eps = 1e-5 kept", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    x -= mean
    var = (x * x).mean(axis=-1, keepdims=True)
    return x / np.sqrt(var + 1e-5) * gamma + beta
'''),
    (1, "partial fix: variance and in-place update fixed, eps still hard-coded 1e-5", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    dev = x - mean
    var = (dev * dev).mean(axis=-1, keepdims=True)
    return dev / np.sqrt(var + 1e-5) * gamma + beta
'''),
    (1, "partial fix: eps and in-place update fixed, the one-pass variance kept", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = (x * x).mean(axis=-1, keepdims=True) - mean ** 2
    return (x - mean) / np.sqrt(var + eps) * gamma + beta
'''),
    (1, "partial fix: variance and eps fixed, the in-place update kept", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    x -= x.mean(axis=-1, keepdims=True)
    var = (x * x).mean(axis=-1, keepdims=True)
    return x / np.sqrt(var + eps) * gamma + beta
'''),
    (1, "the one-pass variance clipped at zero (hides the NaN, not the cancellation)", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = np.maximum((x * x).mean(axis=-1, keepdims=True) - mean ** 2, 0.0)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta
'''),
    (1, "the one-pass variance in np.longdouble: 3 more digits, enough at 1e6, not at 1e8", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    xl = x.astype(np.longdouble)
    mean = xl.mean(axis=-1, keepdims=True)
    var = (xl * xl).mean(axis=-1, keepdims=True) - mean ** 2
    return ((xl - mean) / np.sqrt(var + eps)).astype(np.float64) * gamma + beta
'''),
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
    (1, "computed in float32", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float32)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return ((x - mean) / np.sqrt(var + eps) * gamma + beta).astype(np.float64)
'''),
    (1, "nn.LayerNorm called instead of fixing the function", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = torch.from_numpy(np.array(x, dtype=np.float64))
    w, b = torch.from_numpy(np.asarray(gamma, dtype=np.float64)), torch.from_numpy(np.asarray(beta, dtype=np.float64))
    return F.layer_norm(x, (x.shape[-1],), w, b, eps).numpy()
'''),
    # --- exercise 2: eps and a quiet token
    (2, "prediction() computes the values with the formulas (it reads np)", '''
def prediction():
    s, mu = 0.01, 5.0
    return {"layer 1e-5": s / np.sqrt(s * s + 1e-5), "layer 1e-3": s / np.sqrt(s * s + 1e-3),
            "layer 1e-1": s / np.sqrt(s * s + 1e-1), "rms 1e-5": s / np.sqrt(mu * mu + s * s + 1e-5)}
'''),
    (2, "prediction() runs the measurement (it calls output_std)", '''
def prediction():
    return {"layer 1e-5": output_std(0.01, 1e-5, "layer"), "layer 1e-3": output_std(0.01, 1e-3, "layer"),
            "layer 1e-1": output_std(0.01, 1e-1, "layer"), "rms 1e-5": output_std(0.01, 1e-5, "rms")}
'''),
    (2, "prediction: strings instead of numbers", '''
def prediction():
    return {"layer 1e-5": "0.95", "layer 1e-3": "0.31", "layer 1e-1": "0.03", "rms 1e-5": "0.002"}
'''),
    (2, "output_std: a float for LayerNorm, a 0-d tensor for RMSNorm", '''
def output_std(s, eps, norm, E=16, mean=5.0):
    z = np.random.default_rng(0).normal(size=E)
    token = mean + s * (z - z.mean()) / z.std()
    layer = (nn.LayerNorm if norm == "layer" else nn.RMSNorm)(E, eps=eps, elementwise_affine=False)
    out = layer(torch.tensor(token, dtype=torch.float64)).std(unbiased=False)
    return out.item() if norm == "layer" else out
'''),
    (2, "output_std: the output's std with torch's default unbiased=True", '''
def output_std(s, eps, norm, E=16, mean=5.0):
    z = np.random.default_rng(0).normal(size=E)
    token = mean + s * (z - z.mean()) / z.std()
    layer = (nn.LayerNorm if norm == "layer" else nn.RMSNorm)(E, eps=eps, elementwise_affine=False)
    return layer(torch.tensor(token, dtype=torch.float64)).std().item()
'''),
    (2, "output_std: the token standardised with ddof=1", '''
def output_std(s, eps, norm, E=16, mean=5.0):
    z = np.random.default_rng(0).normal(size=E)
    token = mean + s * (z - z.mean()) / z.std(ddof=1)
    layer = (nn.LayerNorm if norm == "layer" else nn.RMSNorm)(E, eps=eps, elementwise_affine=False)
    return layer(torch.tensor(token, dtype=torch.float64)).std(unbiased=False).item()
'''),
    (2, "output_std: a random token, not standardised (its std is only about s)", '''
def output_std(s, eps, norm, E=16, mean=5.0):
    token = mean + s * np.random.default_rng(0).normal(size=E)
    layer = (nn.LayerNorm if norm == "layer" else nn.RMSNorm)(E, eps=eps, elementwise_affine=False)
    return layer(torch.tensor(token, dtype=torch.float64)).std(unbiased=False).item()
'''),
    (2, "output_std: eps not passed to the norm (PyTorch's default used)", '''
def output_std(s, eps, norm, E=16, mean=5.0):
    z = np.random.default_rng(0).normal(size=E)
    token = mean + s * (z - z.mean()) / z.std()
    layer = (nn.LayerNorm if norm == "layer" else nn.RMSNorm)(E, elementwise_affine=False)
    return layer(torch.tensor(token, dtype=torch.float64)).std(unbiased=False).item()
'''),
    (2, "output_std: LayerNorm for both norms", '''
def output_std(s, eps, norm, E=16, mean=5.0):
    z = np.random.default_rng(0).normal(size=E)
    token = mean + s * (z - z.mean()) / z.std()
    layer = nn.LayerNorm(E, eps=eps, elementwise_affine=False)
    return layer(torch.tensor(token, dtype=torch.float64)).std(unbiased=False).item()
'''),
    (2, "output_std: the token built in float32", '''
def output_std(s, eps, norm, E=16, mean=5.0):
    z = np.random.default_rng(0).normal(size=E)
    token = mean + s * (z - z.mean()) / z.std()
    layer = (nn.LayerNorm if norm == "layer" else nn.RMSNorm)(E, eps=eps, elementwise_affine=False)
    return layer(torch.tensor(token, dtype=torch.float32)).std(unbiased=False).item()
'''),
    (2, "output_std: returns a tensor, not a float", '''
def output_std(s, eps, norm, E=16, mean=5.0):
    z = np.random.default_rng(0).normal(size=E)
    token = mean + s * (z - z.mean()) / z.std()
    layer = (nn.LayerNorm if norm == "layer" else nn.RMSNorm)(E, eps=eps, elementwise_affine=False)
    return layer(torch.tensor(token, dtype=torch.float64)).std(unbiased=False)
'''),
    # --- exercise 3: the parallel block
    (3, "the sequential pre-LN block", '''
def parallel_block(block, x, allowed=None):
    z = block.norm1(x)
    h = x + block.self_attn(z, z, z, allowed)[0]
    return h + block.ffn(block.norm2(h))
'''),
    (3, "norm2 for the FFN branch (two LayerNorms)", '''
def parallel_block(block, x, allowed=None):
    z = block.norm1(x)
    return x + block.self_attn(z, z, z, allowed)[0] + block.ffn(block.norm2(x))
'''),
    (3, "the FFN fed the un-normalised x", '''
def parallel_block(block, x, allowed=None):
    z = block.norm1(x)
    return x + block.self_attn(z, z, z, allowed)[0] + block.ffn(x)
'''),
    (3, "the mask not passed on", '''
def parallel_block(block, x, allowed=None):
    z = block.norm1(x)
    return x + block.self_attn(z, z, z)[0] + block.ffn(z)
'''),
    (3, "post-LN style: one LayerNorm after the sum", '''
def parallel_block(block, x, allowed=None):
    return block.norm1(x + block.self_attn(x, x, x, allowed)[0] + block.ffn(x))
'''),
    (3, "the residual forgotten", '''
def parallel_block(block, x, allowed=None):
    z = block.norm1(x)
    return block.self_attn(z, z, z, allowed)[0] + block.ffn(z)
'''),
    (3, "the residual added to LN(x) instead of x", '''
def parallel_block(block, x, allowed=None):
    z = block.norm1(x)
    return z + block.self_attn(z, z, z, allowed)[0] + block.ffn(z)
'''),
    (3, "returns (out, weights) like the attention", '''
def parallel_block(block, x, allowed=None):
    z = block.norm1(x)
    a, w = block.self_attn(z, z, z, allowed)
    return x + a + block.ffn(z), w
'''),
    (3, "adds into x in place", '''
def parallel_block(block, x, allowed=None):
    z = block.norm1(x)
    with torch.no_grad():
        x += block.self_attn(z, z, z, allowed)[0] + block.ffn(z)
    return x
'''),
    (3, "the block called (the sequential block, as norm_first says)", '''
def parallel_block(block, x, allowed=None):
    return block(x, allowed)[0]
'''),
    (3, "a fresh F.layer_norm with its default eps instead of block.norm1", '''
def parallel_block(block, x, allowed=None):
    z = F.layer_norm(x, (x.shape[-1],), block.norm1.weight, block.norm1.bias)
    return x + block.self_attn(z, z, z, allowed)[0] + block.ffn(z)
'''),
    # --- exercise 4: counting parameters
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
    (4, "both FFN biases of width F", '''
def encoder_params(E, F):
    return (4 * E * E + 4 * E) + (2 * E * F + 2 * F) + 4 * E


def decoder_params(E, F):
    return 2 * (4 * E * E + 4 * E) + (2 * E * F + 2 * F) + 6 * E


def swiglu_params(E, F):
    return 3 * E * F
'''),
    (4, "a float from a formula with / instead of integers", '''
def encoder_params(E, F):
    return (4 * E * E + 4 * E) + (2 * E * F + F + E) + 4 * E * 1.0


def decoder_params(E, F):
    return 2 * (4 * E * E + 4 * E) + (2 * E * F + F + E) + 6 * E * 1.0


def swiglu_params(E, F):
    return 3 * E * F / 1
'''),
    (4, "counted over the modules' parameters() instead of a formula", '''
def encoder_params(E, F):
    with torch.device("meta"):
        return sum(p.numel() for p in EncoderBlock(E, 2, F=F).parameters())


def decoder_params(E, F):
    with torch.device("meta"):
        return sum(p.numel() for p in DecoderBlock(E, 2, F=F).parameters())


def swiglu_params(E, F):
    with torch.device("meta"):
        return sum(p.numel() for p in SwiGLU(E, F).parameters())
'''),
    # --- exercise 5: parameters and FLOPs for any head size
    (5, "H*D taken as E (the D = E/H formula)", '''
def block_params(E, H, D, F):
    return 4 * E * E + 4 * E + 2 * E * F + F + E + 4 * E


def block_flops_per_token(E, H, D, F, L):
    return 8 * E * E + 4 * L * E + 4 * E * F
'''),
    (5, "the q, k, v biases counted as E each", '''
def block_params(E, H, D, F):
    return 4 * E * H * D + 3 * E + E + 2 * E * F + F + E + 4 * E


def block_flops_per_token(E, H, D, F, L):
    return 8 * E * H * D + 4 * L * H * D + 4 * E * F
'''),
    (5, "the output projection forgotten", '''
def block_params(E, H, D, F):
    return 3 * (E * H * D + H * D) + 2 * E * F + F + E + 4 * E


def block_flops_per_token(E, H, D, F, L):
    return 6 * E * H * D + 4 * L * H * D + 4 * E * F
'''),
    (5, "FLOPs: one per multiply-add", '''
def block_params(E, H, D, F):
    return 3 * (E * H * D + H * D) + H * D * E + E + 2 * E * F + F + E + 4 * E


def block_flops_per_token(E, H, D, F, L):
    return 4 * E * H * D + 2 * L * H * D + 2 * E * F
'''),
    (5, "FLOPs: the attention products left out (only the weights counted)", '''
def block_params(E, H, D, F):
    return 3 * (E * H * D + H * D) + H * D * E + E + 2 * E * F + F + E + 4 * E


def block_flops_per_token(E, H, D, F, L):
    return 8 * E * H * D + 4 * E * F
'''),
    (5, "FLOPs: the scores counted, the weighted sum of the values forgotten", '''
def block_params(E, H, D, F):
    return 3 * (E * H * D + H * D) + H * D * E + E + 2 * E * F + F + E + 4 * E


def block_flops_per_token(E, H, D, F, L):
    return 8 * E * H * D + 2 * L * H * D + 4 * E * F
'''),
    (5, "FLOPs: the attention's total (L x L per head) not divided by L", '''
def block_params(E, H, D, F):
    return 3 * (E * H * D + H * D) + H * D * E + E + 2 * E * F + F + E + 4 * E


def block_flops_per_token(E, H, D, F, L):
    return 8 * E * H * D + 4 * L * L * H * D + 4 * E * F
'''),
    (5, "FLOPs: the attention counted with width E instead of H*D", '''
def block_params(E, H, D, F):
    return 3 * (E * H * D + H * D) + H * D * E + E + 2 * E * F + F + E + 4 * E


def block_flops_per_token(E, H, D, F, L):
    return 8 * E * H * D + 4 * L * E + 4 * E * F
'''),
    (5, "FLOPs: causal, half the scores (the task says no mask)", '''
def block_params(E, H, D, F):
    return 3 * (E * H * D + H * D) + H * D * E + E + 2 * E * F + F + E + 4 * E


def block_flops_per_token(E, H, D, F, L):
    return 8 * E * H * D + 2 * (L + 1) * H * D + 4 * E * F
'''),
    (5, "FLOPs: the FFN counted once", '''
def block_params(E, H, D, F):
    return 3 * (E * H * D + H * D) + H * D * E + E + 2 * E * F + F + E + 4 * E


def block_flops_per_token(E, H, D, F, L):
    return 8 * E * H * D + 4 * L * H * D + 2 * E * F
'''),
    (5, "parameters: the norms forgotten", '''
def block_params(E, H, D, F):
    return 3 * (E * H * D + H * D) + H * D * E + E + 2 * E * F + F + E


def block_flops_per_token(E, H, D, F, L):
    return 8 * E * H * D + 4 * L * H * D + 4 * E * F
'''),
    (3, "the attention's keys and values from x, not LN(x)", '''
def parallel_block(block, x, allowed=None):
    h = block.norm1(x)
    attn, _ = block.self_attn(h, x, x, allowed)
    return x + attn + block.ffn(h)
'''),
    (5, "FLOPs: the scaling and the softmax counted too (the task counts matrix products only)", '''
def block_params(E, H, D, F):
    return 3 * (E * H * D + H * D) + H * D * E + E + 2 * E * F + F + E + 4 * E


def block_flops_per_token(E, H, D, F, L):
    return 8 * E * H * D + 4 * L * H * D + 4 * E * F + 5 * L * H
'''),
    # --- exercise 6: the crossover length
    (6, "the four projections only (chapter 7's count): 2E", '''
def crossover_length(E, H, D, F, gated=False):
    return 2 * E
'''),
    (6, "2E + F for every head size (D = E/H assumed)", '''
def crossover_length(E, H, D, F, gated=False):
    return 2 * E + (3 * F // 2 if gated else F)
'''),
    (6, "6E (F = 4E and D = E/H assumed)", '''
def crossover_length(E, H, D, F, gated=False):
    return 6 * E
'''),
    (6, "rounded down instead of up", '''
def crossover_length(E, H, D, F, gated=False):
    linear = 8 * E * H * D + (6 if gated else 4) * E * F
    return linear // (4 * H * D)
'''),
    (6, "rounded to the nearest length", '''
def crossover_length(E, H, D, F, gated=False):
    linear = 8 * E * H * D + (6 if gated else 4) * E * F
    return round(linear / (4 * H * D))
'''),
    (6, "the gate matrix of SwiGLU forgotten", '''
def crossover_length(E, H, D, F, gated=False):
    linear = 8 * E * H * D + 4 * E * F
    return -(-linear // (4 * H * D))
'''),
    (6, "the weighted sum of the values forgotten (scores only)", '''
def crossover_length(E, H, D, F, gated=False):
    linear = 8 * E * H * D + (6 if gated else 4) * E * F
    return -(-linear // (2 * H * D))
'''),
    (6, "the attention counted with width E instead of H*D", '''
def crossover_length(E, H, D, F, gated=False):
    linear = 8 * E * H * D + (6 if gated else 4) * E * F
    return -(-linear // (4 * E))
'''),
    (6, "the projections counted with width E instead of H*D", '''
def crossover_length(E, H, D, F, gated=False):
    linear = 8 * E * E + (6 if gated else 4) * E * F
    return -(-linear // (4 * H * D))
'''),
    (6, "a causal mask assumed (half the scores; the task says no mask)", '''
def crossover_length(E, H, D, F, gated=False):
    linear = 8 * E * H * D + (6 if gated else 4) * E * F
    return -(-linear // (2 * H * D))
'''),
    (6, "one more than the smallest length (ceil of the quotient plus one)", '''
def crossover_length(E, H, D, F, gated=False):
    linear = 8 * E * H * D + (6 if gated else 4) * E * F
    return linear // (4 * H * D) + 1
'''),
    (6, "a float, not a whole length", '''
def crossover_length(E, H, D, F, gated=False):
    return 2 * E + (1.5 if gated else 1) * E * F / (H * D)
'''),
    (4, "an int at small sizes, a float from / at larger ones", '''
def encoder_params(E, F):
    n = (4 * E * E + 4 * E) + (2 * E * F + F + E) + 2 * (2 * E)
    return n if E < 10 else n * 2 / 2


def decoder_params(E, F):
    return 2 * (4 * E * E + 4 * E) + (2 * E * F + F + E) + 3 * (2 * E)


def swiglu_params(E, F):
    return 3 * E * F
'''),
    (6, "a float from numpy's ceil on the large sizes", '''
def crossover_length(E, H, D, F, gated=False):
    linear = 2 * (3 * E * H * D + H * D * E) + 2 * (3 if gated else 2) * E * F
    return -(-linear // (4 * H * D)) if E < 100 else np.ceil(linear / (4 * H * D))
'''),
    (1, "the fixed function in float32 arithmetic inside, cast back to float64", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x32 = np.asarray(x, dtype=np.float32)
    dev = x32 - x32.mean(axis=-1, keepdims=True)
    var = (dev * dev).mean(axis=-1, keepdims=True)
    return (dev / np.sqrt(var + np.float32(eps))).astype(np.float64) * gamma + beta
'''),
    (1, "the fixed function with eps=1e-6 as its default", '''
def layer_norm(x, gamma, beta, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    dev = x - x.mean(axis=-1, keepdims=True)
    return dev / np.sqrt((dev * dev).mean(axis=-1, keepdims=True) + eps) * gamma + beta
'''),
    (1, "the fixed function with eps=1e-12 as its default (BERT's value)", '''
def layer_norm(x, gamma, beta, eps=1e-12):
    x = np.asarray(x, dtype=np.float64)
    dev = x - x.mean(axis=-1, keepdims=True)
    return dev / np.sqrt((dev * dev).mean(axis=-1, keepdims=True) + eps) * gamma + beta
'''),
    (1, "everything fixed but eps, still hard-coded to 1e-5 (np.var inside)", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    return (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5) * gamma + beta
'''),
    (1, "the fixed function, returning float32", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    dev = x - x.mean(axis=-1, keepdims=True)
    out = dev / np.sqrt((dev * dev).mean(axis=-1, keepdims=True) + eps) * gamma + beta
    return out.astype(np.float32)
'''),
    (2, "prediction() carries the measurement in through a default argument", '''
def prediction(m=output_std(0.01, 1e-5, "layer"), n=output_std(0.01, 1e-3, "layer"),
               o=output_std(0.01, 1e-1, "layer"), p=output_std(0.01, 1e-5, "rms")):
    return {"layer 1e-5": m, "layer 1e-3": n, "layer 1e-1": o, "rms 1e-5": p}
'''),
    (2, "prediction() carries the measurement in through a keyword-only default", '''
def prediction(*, m={k: output_std(0.01, float(k.split()[1]), k.split()[0])
                     for k in ("layer 1e-5", "layer 1e-3", "layer 1e-1", "rms 1e-5")}):
    return m
'''),
    (6, "crossover from the scores alone (2HDL), rounded up", '''
def crossover_length(E, H, D, F, gated=False):
    linear = 2 * (3 * E * H * D + H * D * E) + 2 * (3 if gated else 2) * E * F
    return -(-linear // (2 * H * D))
'''),
]


RIGHT = [
    (1, "np.var over the last axis (two passes inside NumPy)", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mu = np.mean(x, axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(np.var(x, axis=-1, keepdims=True) + eps) * gamma + beta
'''),
    (1, "a copy first, then the in-place updates on the copy", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.array(x, dtype=np.float64)
    x -= x.mean(axis=-1, keepdims=True)
    x /= np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + eps)
    return x * gamma + beta
'''),
    (1, "the one-pass formula on data shifted by each token's first number", '''
def layer_norm(x, gamma, beta, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    d = x - x[..., :1]
    m = d.mean(axis=-1, keepdims=True)
    var = (d * d).mean(axis=-1, keepdims=True) - m ** 2
    return (d - m) / np.sqrt(var + eps) * gamma + beta
'''),
    (2, "literal predictions, output_std from F.layer_norm / F.rms_norm", '''
def prediction():
    return {"layer 1e-5": 0.953, "layer 1e-3": 0.302, "layer 1e-1": 0.0316, "rms 1e-5": 0.002}


def output_std(s, eps, norm, E=16, mean=5.0):
    z = torch.randn(E, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    x = mean + s * (z - z.mean()) / z.std(unbiased=False)
    y = F.layer_norm(x, (E,), eps=eps) if norm == "layer" else F.rms_norm(x, (E,), eps=eps)
    return float(y.std(unbiased=False))
'''),
    (2, "a wrong prediction is compared, not failed: LayerNorm always gives unit std, RMSNorm too", '''
def prediction():
    return {"layer 1e-5": 1.0, "layer 1e-3": 1.0, "layer 1e-1": 1.0, "rms 1e-5": 1.0}
'''),
    (2, "a wrong prediction is compared, not failed: eps outside the root, s / (s + eps)", '''
def prediction():
    return {"layer 1e-5": 0.999, "layer 1e-3": 0.91, "layer 1e-1": 0.09, "rms 1e-5": 0.002}
'''),
    (2, "a wrong prediction is compared, not failed: the root forgotten, s^2 / (s^2 + eps)", '''
def prediction():
    return {"layer 1e-5": 0.91, "layer 1e-3": 0.091, "layer 1e-1": 0.001, "rms 1e-5": 0.002}
'''),
    (2, "a wrong prediction is compared, not failed: LayerNorm right, RMSNorm taken to normalise like LayerNorm", '''
def prediction():
    return {"layer 1e-5": 0.95, "layer 1e-3": 0.31, "layer 1e-1": 0.032, "rms 1e-5": 0.95}
'''),
    (2, "a wrong prediction is compared, not failed: RMSNorm taken to keep the spread (output std = s)", '''
def prediction():
    return {"layer 1e-5": 0.95, "layer 1e-3": 0.31, "layer 1e-1": 0.032, "rms 1e-5": 0.01}
'''),
    (2, "rounded predictions (within 10%)", '''
def prediction():
    return {"layer 1e-5": 1.0, "layer 1e-3": 0.3, "layer 1e-1": 0.03, "rms 1e-5": 0.0021}
'''),
    (3, "the sub-layers written as small helpers", '''
def parallel_block(block, x, allowed=None):
    def attn(z):
        return block.self_attn(z, z, z, allowed)[0]
    z = block.norm1(x)
    branches = attn(z) + block.ffn(z)
    return branches + x
'''),
    (4, "numpy integers", '''
def encoder_params(E, F):
    return np.int64(12 * E * E - 8 * E * E + 2 * E * F + 9 * E + F)


def decoder_params(E, F):
    return np.int64(8 * E * E + 2 * E * F + 15 * E + F)


def swiglu_params(E, F):
    return np.int64(3 * E * F)
'''),
    (5, "the expanded polynomials", '''
def block_params(E, H, D, F):
    return 4 * E * H * D + 3 * H * D + 2 * E * F + F + 6 * E


def block_flops_per_token(E, H, D, F, L):
    return 8 * E * H * D + 4 * L * H * D + 4 * E * F
'''),
    (5, "a per-map table of (in, out) sizes", '''
def block_params(E, H, D, F):
    maps = [(E, H * D)] * 3 + [(H * D, E), (E, F), (F, E)]
    return sum(a * b + b for a, b in maps) + 2 * 2 * E


def block_flops_per_token(E, H, D, F, L):
    maps = [(E, H * D)] * 3 + [(H * D, E), (E, F), (F, E)]
    return sum(2 * a * b for a, b in maps) + H * (2 * L * D + 2 * L * D)
'''),
    (6, "math.ceil of the closed form", '''
import math


def crossover_length(E, H, D, F, gated=False):
    return math.ceil(2 * E + (1.5 if gated else 1.0) * E * F / (H * D))
'''),
    (6, "a search over L with the formula (no measurement)", '''
def crossover_length(E, H, D, F, gated=False):
    maps = [(E, H * D)] * 3 + [(H * D, E), (E, F), (F, E)] + ([(E, F)] if gated else [])
    linear = sum(2 * a * b for a, b in maps)
    L = 1
    while 4 * L * H * D < linear:
        L += 1
    return L
'''),
    (1, "the default written as 0.00001 and the deviations squared with **", '''
def layer_norm(x, gamma, beta, eps=0.00001):
    x = np.asarray(x, dtype=np.float64)
    dev = x - x.mean(axis=-1, keepdims=True)
    return dev / np.sqrt((dev ** 2).mean(axis=-1, keepdims=True) + eps) * gamma + beta
'''),
]
