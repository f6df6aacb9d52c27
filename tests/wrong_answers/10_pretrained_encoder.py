"""Wrong answers a learner would plausibly write for chapter 10's exercises."""
WRONG = [
    (1, "padding averaged in: mean over all S positions", '''
def mean_pool(hidden, keep, normalize=True):
    mean = np.asarray(hidden, dtype=np.float64).mean(axis=1)
    if normalize:
        mean = mean / np.linalg.norm(mean, axis=-1, keepdims=True)
    return mean
'''),
    (1, "padding zeroed but divided by S", '''
def mean_pool(hidden, keep, normalize=True):
    mean = (hidden * keep[..., None]).sum(axis=1) / hidden.shape[1]
    if normalize:
        mean = mean / np.linalg.norm(mean, axis=-1, keepdims=True)
    return mean
'''),
    (1, "normalize ignored", '''
def mean_pool(hidden, keep, normalize=True):
    return (hidden * keep[..., None]).sum(axis=1) / keep.sum(axis=1, keepdims=True)
'''),
    (1, "always normalised (the package function)", '''
from attnlab.pretrained_encoder import mean_pool_np
def mean_pool(hidden, keep, normalize=True):
    return mean_pool_np(hidden, keep)
'''),
    (1, "normalised over the batch axis", '''
def mean_pool(hidden, keep, normalize=True):
    mean = (hidden * keep[..., None]).sum(axis=1) / keep.sum(axis=1, keepdims=True)
    if normalize:
        mean = mean / np.linalg.norm(mean, axis=0, keepdims=True)
    return mean
'''),
    (1, "a torch tensor instead of an array", '''
def mean_pool(hidden, keep, normalize=True):
    h, k = torch.as_tensor(hidden), torch.as_tensor(keep)
    mean = (h * k[..., None]).sum(1) / k.sum(1, keepdim=True)
    return torch.nn.functional.normalize(mean, dim=-1) if normalize else mean
'''),
    (2, "every row counted, even those without a target", '''
def offset_fraction(weights, offset):
    w = np.asarray(weights)
    n = w.shape[-1]
    return (w.argmax(axis=-1) == np.arange(n) + offset).mean(axis=1)
'''),
    (2, "argmax over the queries (axis -2)", '''
def offset_fraction(weights, offset):
    w = np.asarray(weights)
    n = w.shape[-1]
    top = w.argmax(axis=-2)
    rows = np.arange(n)
    valid = (rows + offset >= 0) & (rows + offset < n)
    return (top[:, valid] == (rows + offset)[valid]).mean(axis=1)
'''),
    (2, "offset sign flipped", '''
def offset_fraction(weights, offset):
    w = np.asarray(weights)
    n = w.shape[-1]
    top = w.argmax(axis=-1)
    rows = np.arange(n)
    valid = (rows - offset >= 0) & (rows - offset < n)
    return (top[:, valid] == (rows - offset)[valid]).mean(axis=1)
'''),
    (2, "mean weight on the diagonal instead of the argmax", '''
def offset_fraction(weights, offset):
    w = np.asarray(weights)
    return np.array([np.diagonal(h, offset=offset).mean() for h in w])
'''),
    (2, "the package's previous-token fraction for every offset", '''
from attnlab.pretrained_encoder import pattern_fractions_np
def offset_fraction(weights, offset):
    return pattern_fractions_np(weights, weights.shape[-1])["previous"]
'''),
    (3, "layers multiplied in the wrong order", '''
def rollout(attentions, residual=0.5):
    n = np.asarray(attentions[0]).shape[-1]
    result = np.eye(n)
    for w in attentions:
        a_hat = residual * np.eye(n) + (1 - residual) * np.asarray(w).mean(axis=0)
        result = result @ a_hat
    return result
'''),
    (3, "no identity for the residual path", '''
def rollout(attentions, residual=0.5):
    n = np.asarray(attentions[0]).shape[-1]
    result = np.eye(n)
    for w in attentions:
        result = np.asarray(w).mean(axis=0) @ result
    return result
'''),
    (3, "heads summed, not averaged", '''
def rollout(attentions, residual=0.5):
    n = np.asarray(attentions[0]).shape[-1]
    result = np.eye(n)
    for w in attentions:
        a_hat = residual * np.eye(n) + (1 - residual) * np.asarray(w).sum(axis=0)
        result = a_hat @ result
    return result
'''),
    (3, "element-wise product instead of matrix product", '''
def rollout(attentions, residual=0.5):
    n = np.asarray(attentions[0]).shape[-1]
    result = np.ones((n, n))
    for w in attentions:
        a_hat = residual * np.eye(n) + (1 - residual) * np.asarray(w).mean(axis=0)
        result = a_hat * result
    return result
'''),
    (3, "the package's rollout, residual fixed at 0.5", '''
from attnlab.pretrained_encoder import attention_rollout_np
def rollout(attentions, residual=0.5):
    return attention_rollout_np(attentions)
'''),
    (4, "the two LayerNorms swapped", '''
def load_layer(block, weights, i):
    pre = f"encoder.layer.{i}."
    table = {block.self_attn.q_proj: "attention.self.query",
             block.self_attn.k_proj: "attention.self.key",
             block.self_attn.v_proj: "attention.self.value",
             block.self_attn.out_proj: "attention.output.dense",
             block.norm1: "output.LayerNorm",
             block.ffn.linear1: "intermediate.dense",
             block.ffn.linear2: "output.dense",
             block.norm2: "attention.output.LayerNorm"}
    with torch.no_grad():
        for module, name in table.items():
            module.weight.copy_(torch.from_numpy(weights[pre + name + ".weight"].copy()))
            module.bias.copy_(torch.from_numpy(weights[pre + name + ".bias"].copy()))
    return block
'''),
    (4, "weights transposed as in the NumPy path", '''
def load_layer(block, weights, i):
    pre = f"encoder.layer.{i}."
    table = {block.self_attn.q_proj: "attention.self.query",
             block.self_attn.k_proj: "attention.self.key",
             block.self_attn.v_proj: "attention.self.value",
             block.self_attn.out_proj: "attention.output.dense",
             block.norm1: "attention.output.LayerNorm",
             block.ffn.linear1: "intermediate.dense",
             block.ffn.linear2: "output.dense",
             block.norm2: "output.LayerNorm"}
    with torch.no_grad():
        for module, name in table.items():
            w = torch.from_numpy(weights[pre + name + ".weight"].copy())
            module.weight.copy_(w.T if w.ndim == 2 and w.shape[0] == w.shape[1] else w)
            module.bias.copy_(torch.from_numpy(weights[pre + name + ".bias"].copy()))
    return block
'''),
    (4, "biases left at their random initial values", '''
def load_layer(block, weights, i):
    pre = f"encoder.layer.{i}."
    table = {block.self_attn.q_proj: "attention.self.query",
             block.self_attn.k_proj: "attention.self.key",
             block.self_attn.v_proj: "attention.self.value",
             block.self_attn.out_proj: "attention.output.dense",
             block.norm1: "attention.output.LayerNorm",
             block.ffn.linear1: "intermediate.dense",
             block.ffn.linear2: "output.dense",
             block.norm2: "output.LayerNorm"}
    with torch.no_grad():
        for module, name in table.items():
            module.weight.copy_(torch.from_numpy(weights[pre + name + ".weight"].copy()))
    return block
'''),
    (4, "query and key swapped", '''
def load_layer(block, weights, i):
    pre = f"encoder.layer.{i}."
    table = {block.self_attn.q_proj: "attention.self.key",
             block.self_attn.k_proj: "attention.self.query",
             block.self_attn.v_proj: "attention.self.value",
             block.self_attn.out_proj: "attention.output.dense",
             block.norm1: "attention.output.LayerNorm",
             block.ffn.linear1: "intermediate.dense",
             block.ffn.linear2: "output.dense",
             block.norm2: "output.LayerNorm"}
    with torch.no_grad():
        for module, name in table.items():
            module.weight.copy_(torch.from_numpy(weights[pre + name + ".weight"].copy()))
            module.bias.copy_(torch.from_numpy(weights[pre + name + ".bias"].copy()))
    return block
'''),
    (4, "copied from the real checkpoint, ignoring the argument", '''
from attnlab.pretrained_encoder import load_pretrained_encoder
def load_layer(block, weights, i):
    block.load_state_dict(load_pretrained_encoder().blocks[i].state_dict())
    return block
'''),
    (4, "a copy of the block filled and returned, the given block left untouched", '''
import copy
def load_layer(block, weights, i):
    block = copy.deepcopy(block)
    pre = f"encoder.layer.{i}."
    table = {block.self_attn.q_proj: "attention.self.query",
             block.self_attn.k_proj: "attention.self.key",
             block.self_attn.v_proj: "attention.self.value",
             block.self_attn.out_proj: "attention.output.dense",
             block.norm1: "attention.output.LayerNorm",
             block.ffn.linear1: "intermediate.dense",
             block.ffn.linear2: "output.dense",
             block.norm2: "output.LayerNorm"}
    with torch.no_grad():
        for module, name in table.items():
            module.weight.copy_(torch.from_numpy(weights[pre + name + ".weight"].copy()))
            module.bias.copy_(torch.from_numpy(weights[pre + name + ".bias"].copy()))
    return block
'''),
]

RIGHT = [
    (1, "float32 input, computed in float32", '''
def mean_pool(hidden, keep, normalize=True):
    h = np.asarray(hidden)
    m = keep[..., None].astype(h.dtype)
    mean = (h * m).sum(axis=1) / m.sum(axis=1)
    return mean / np.linalg.norm(mean, axis=-1, keepdims=True) if normalize else mean
'''),
    (2, "a loop over rows", '''
def offset_fraction(weights, offset):
    w = np.asarray(weights)
    n = w.shape[-1]
    rows = [i for i in range(n) if 0 <= i + offset < n]
    return np.array([np.mean([h[i].argmax() == i + offset for i in rows]) for h in w])
'''),
    (3, "reduce with functools", '''
from functools import reduce
def rollout(attentions, residual=0.5):
    n = np.asarray(attentions[0]).shape[-1]
    mats = [residual * np.eye(n) + (1 - residual) * np.mean(w, axis=0) for w in attentions]
    return reduce(lambda acc, a: a @ acc, mats, np.eye(n))
'''),
    (4, "load_state_dict with a renamed dictionary", '''
def load_layer(block, weights, i):
    pre = f"encoder.layer.{i}."
    names = {"self_attn.q_proj": "attention.self.query", "self_attn.k_proj": "attention.self.key",
             "self_attn.v_proj": "attention.self.value",
             "self_attn.out_proj": "attention.output.dense",
             "norm1": "attention.output.LayerNorm", "ffn.linear1": "intermediate.dense",
             "ffn.linear2": "output.dense", "norm2": "output.LayerNorm"}
    state = {f"{ours}.{kind}": torch.from_numpy(weights[f"{pre}{theirs}.{kind}"].copy())
             for ours, theirs in names.items() for kind in ("weight", "bias")}
    block.load_state_dict(state)
    return block
'''),
    (2, "hits over all rows divided by the number of rows with a target", '''
def offset_fraction(weights, offset):
    n = weights.shape[-1]
    hits = (weights.argmax(axis=-1) == np.arange(n) + offset).sum(axis=-1)
    return hits / (n - abs(offset))
'''),
    (4, "parameters replaced through .data, no copy_", '''
def load_layer(block, weights, i):
    pre = f"encoder.layer.{i}."
    table = {"self_attn.q_proj": "attention.self.query", "self_attn.k_proj": "attention.self.key",
             "self_attn.v_proj": "attention.self.value",
             "self_attn.out_proj": "attention.output.dense",
             "norm1": "attention.output.LayerNorm", "ffn.linear1": "intermediate.dense",
             "ffn.linear2": "output.dense", "norm2": "output.LayerNorm"}
    for ours, theirs in table.items():
        module = block.get_submodule(ours)
        module.weight.data = torch.from_numpy(weights[pre + theirs + ".weight"])
        module.bias.data = torch.from_numpy(weights[pre + theirs + ".bias"])
    return block
'''),
]
