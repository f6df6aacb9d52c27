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
    (1, "the mean of the first n positions: assumes the padding is on the right", """
def mean_pool(hidden, keep, normalize=True):
    hidden, keep = np.asarray(hidden, dtype=np.float64), np.asarray(keep, dtype=bool)
    n = keep.sum(axis=1)
    mean = np.stack([hidden[b, :n[b]].mean(axis=0) for b in range(len(n))])
    if normalize:
        mean = mean / np.linalg.norm(mean, axis=-1, keepdims=True)
    return mean
"""),
    (1, "zeroes the padding in the caller's array (in place)", """
def mean_pool(hidden, keep, normalize=True):
    hidden, keep = np.asarray(hidden, dtype=np.float64), np.asarray(keep, dtype=bool)
    hidden[~keep] = 0.0
    mean = hidden.sum(axis=1) / keep.sum(axis=1, keepdims=True)
    if normalize:
        mean = mean / np.linalg.norm(mean, axis=-1, keepdims=True)
    return mean
"""),
    (1, "divides by the number of real tokens in the whole batch", """
def mean_pool(hidden, keep, normalize=True):
    summed = (hidden * keep[..., None]).sum(axis=1)
    mean = summed / keep.sum()
    if normalize:
        mean = mean / np.linalg.norm(mean, axis=-1, keepdims=True)
    return mean
"""),
    (1, "keep used without an axis for E: broadcasting error on (B, S, E) * (B, S)", """
def mean_pool(hidden, keep, normalize=True):
    mean = (hidden * keep).sum(axis=1) / keep.sum(axis=1, keepdims=True)
    if normalize:
        mean = mean / np.linalg.norm(mean, axis=-1, keepdims=True)
    return mean
"""),
    (3, "the residual weight swapped: (1 - r) I + r A", """
def rollout(attentions, residual=0.5):
    n = np.asarray(attentions[0]).shape[-1]
    result = np.eye(n)
    for w in attentions:
        a_hat = (1 - residual) * np.eye(n) + residual * np.asarray(w).mean(axis=0)
        result = a_hat @ result
    return result
"""),
    (3, "the last layer's mixing only", """
def rollout(attentions, residual=0.5):
    n = np.asarray(attentions[0]).shape[-1]
    return residual * np.eye(n) + (1 - residual) * np.asarray(attentions[-1]).mean(axis=0)
"""),
    (4, "pops the tensors it used from the dictionary (to see that all were used)", """
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
            module.weight.copy_(torch.from_numpy(weights.pop(pre + name + ".weight").copy()))
            module.bias.copy_(torch.from_numpy(weights.pop(pre + name + ".bias").copy()))
    return block
"""),
    (4, "the attention output projection loaded from the FFN's output.dense", """
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
    table[block.self_attn.out_proj] = "output.dense"
    with torch.no_grad():
        for module, name in table.items():
            w = torch.from_numpy(weights[pre + name + ".weight"].copy())
            if w.shape != module.weight.shape:
                continue                          # "skip what does not fit"
            module.weight.copy_(w)
            module.bias.copy_(torch.from_numpy(weights[pre + name + ".bias"].copy()))
    return block
"""),
    (4, "always layer 0 (the index ignored)", """
def load_layer(block, weights, i):
    pre = "encoder.layer.0."
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
"""),
    (4, "the chapter's LAYER_NAME_MAP imported instead of the table written out", """
from attnlab.pretrained_encoder import LAYER_NAME_MAP
def load_layer(block, weights, i):
    with torch.no_grad():
        for ours, theirs in LAYER_NAME_MAP.items():
            module = block.get_submodule(ours)
            module.weight.copy_(torch.from_numpy(weights[f"encoder.layer.{i}.{theirs}.weight"].copy()))
            module.bias.copy_(torch.from_numpy(weights[f"encoder.layer.{i}.{theirs}.bias"].copy()))
    return block
"""),
    (5, "biases forgotten: weight matrices only", """
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = 4 * E * E + 2 * E * F + 4 * E
    return rows * E + 2 * E + config["num_hidden_layers"] * block
"""),
    (5, "LayerNorms forgotten", """
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E)
    return rows * E + config["num_hidden_layers"] * block
"""),
    (5, "the embeddings' LayerNorm forgotten", """
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E) + 4 * E
    return rows * E + config["num_hidden_layers"] * block
"""),
    (5, "the feed-forward width taken as 4E", """
def n_parameters(config):
    V, E = config["vocab_size"], config["hidden_size"]
    F = 4 * E
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E) + 4 * E
    return rows * E + 2 * E + config["num_hidden_layers"] * block
"""),
    (5, "the pooler counted (the checkpoint has one; BertEncoder does not)", """
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E) + 4 * E
    return rows * E + 2 * E + config["num_hidden_layers"] * block + E * E + E
"""),
    (5, "the token-type table forgotten", """
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"]
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E) + 4 * E
    return rows * E + 2 * E + config["num_hidden_layers"] * block
"""),
    (5, "two token types assumed (type_vocab_size ignored)", """
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"] + 2
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E) + 4 * E
    return rows * E + 2 * E + config["num_hidden_layers"] * block
"""),
    (5, "per head: H projections of E x D for q, k, v and o (o is E x E)", """
def n_parameters(config):
    V, E, F, H = (config[k] for k in ("vocab_size", "hidden_size", "intermediate_size",
                                      "num_attention_heads"))
    D = E // H
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = 4 * H * (D * D + D) + (E * F + F) + (F * E + E) + 4 * E
    return rows * E + 2 * E + config["num_hidden_layers"] * block
"""),
    (5, "six layers hard-coded", """
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E) + 4 * E
    return rows * E + 2 * E + 6 * block
"""),
    (5, "a float (the count divided out and multiplied back)", """
def n_parameters(config):
    V, E, F = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    rows = V + config["max_position_embeddings"] + config["type_vocab_size"]
    block = E * (4 * (E + 1) + 2 * F + F / E + 1 + 4)
    return rows * E + 2 * E + config["num_hidden_layers"] * block
"""),
    (5, "builds the model and counts (the check's job)", """
from attnlab.pretrained_encoder import BertEncoder
def n_parameters(config):
    return sum(p.numel() for p in BertEncoder.from_config(config).parameters())
"""),
    (6, "trusts attention: [CLS] matters most, and hiding it is like deleting it", """
def prediction():
    return ["delete [CLS]", "hide [CLS]", "delete sofa"]
"""),
    (6, "trusts the gradient: sofa first, [CLS] hardly matters either way", """
def prediction():
    return ["delete sofa", "delete [CLS]", "hide [CLS]"]
"""),
    (6, "sofa first, then hiding [CLS], then deleting it", """
def prediction():
    return ["delete sofa", "hide [CLS]", "delete [CLS]"]
"""),
    (6, "a single name instead of the ranking", """
def prediction():
    return "hide [CLS]"
"""),
    (6, "delete implemented as a [PAD] id in the token's place", """
def embedding_shift(ids, j, how):
    def embedding(ids_, keep_):
        x, k = np.array([ids_]), np.array([keep_])
        with torch.no_grad():
            h, _ = model(torch.from_numpy(x), torch.from_numpy(k))
        return mean_pool_np(h[-1].numpy(), k)[0]
    n = len(ids)
    before = embedding(list(ids), [True] * n)
    if how == "delete":
        after = embedding([0 if i == j else t for i, t in enumerate(ids)], [True] * n)
    else:
        after = embedding(list(ids), [i != j for i in range(n)])
    return float(1 - before @ after)
"""),
    (6, "delete implemented as a mask (the same as hide)", """
def embedding_shift(ids, j, how):
    def embedding(ids_, keep_):
        x, k = np.array([ids_]), np.array([keep_])
        with torch.no_grad():
            h, _ = model(torch.from_numpy(x), torch.from_numpy(k))
        return mean_pool_np(h[-1].numpy(), k)[0]
    n = len(ids)
    before = embedding(list(ids), [True] * n)
    after = embedding(list(ids), [i != j for i in range(n)])
    return float(1 - before @ after)
"""),
    (6, "hide masks the key but the mean still includes the hidden token", """
def embedding_shift(ids, j, how):
    def embedding(ids_, keep_, pool):
        x, k = np.array([ids_]), np.array([keep_])
        with torch.no_grad():
            h, _ = model(torch.from_numpy(x), torch.from_numpy(k))
        return mean_pool_np(h[-1].numpy(), np.array([pool]))[0]
    n = len(ids)
    before = embedding(list(ids), [True] * n, [True] * n)
    if how == "delete":
        after = embedding(list(ids[:j]) + list(ids[j + 1:]), [True] * (n - 1), [True] * (n - 1))
    else:
        after = embedding(list(ids), [i != j for i in range(n)], [True] * n)
    return float(1 - before @ after)
"""),
    (6, "the cosine instead of the shift", """
def embedding_shift(ids, j, how):
    def embedding(ids_, keep_):
        x, k = np.array([ids_]), np.array([keep_])
        with torch.no_grad():
            h, _ = model(torch.from_numpy(x), torch.from_numpy(k))
        return mean_pool_np(h[-1].numpy(), k)[0]
    n = len(ids)
    before = embedding(list(ids), [True] * n)
    if how == "delete":
        after = embedding(list(ids[:j]) + list(ids[j + 1:]), [True] * (n - 1))
    else:
        after = embedding(list(ids), [i != j for i in range(n)])
    return float(before @ after)
"""),
    (6, "means not normalised: 1 minus a dot product of raw means", """
def embedding_shift(ids, j, how):
    def embedding(ids_, keep_):
        x, k = np.array([ids_]), np.array([keep_])
        with torch.no_grad():
            h, _ = model(torch.from_numpy(x), torch.from_numpy(k))
        return h[-1][0].numpy()[k[0]].mean(axis=0)
    n = len(ids)
    before = embedding(list(ids), [True] * n)
    if how == "delete":
        after = embedding(list(ids[:j]) + list(ids[j + 1:]), [True] * (n - 1))
    else:
        after = embedding(list(ids), [i != j for i in range(n)])
    return float(1 - before @ after)
"""),
    (6, "the [CLS] vector (position 0 of the last layer) as the embedding", """
def embedding_shift(ids, j, how):
    def embedding(ids_, keep_):
        x, k = np.array([ids_]), np.array([keep_])
        with torch.no_grad():
            h, _ = model(torch.from_numpy(x), torch.from_numpy(k))
        e = h[-1][0, 0].numpy()
        return e / np.linalg.norm(e)
    n = len(ids)
    before = embedding(list(ids), [True] * n)
    if how == "delete":
        after = embedding(list(ids[:j]) + list(ids[j + 1:]), [True] * (n - 1))
    else:
        after = embedding(list(ids), [i != j for i in range(n)])
    return float(1 - before @ after)
"""),
    (6, "deletes with ids.pop(j): the caller's list loses a token", """
def embedding_shift(ids, j, how):
    def embedding(ids_, keep_):
        x, k = np.array([ids_]), np.array([keep_])
        with torch.no_grad():
            h, _ = model(torch.from_numpy(x), torch.from_numpy(k))
        return mean_pool_np(h[-1].numpy(), k)[0]
    n = len(ids)
    before = embedding(list(ids), [True] * n)
    if how == "delete":
        ids.pop(j)
        after = embedding(ids, [True] * (n - 1))
    else:
        after = embedding(list(ids), [i != j for i in range(n)])
    return float(1 - before @ after)
"""),
    (1, "float64 in, computed and returned in float32", '''
def mean_pool(hidden, keep, normalize=True):
    h = np.asarray(hidden, dtype=np.float32)
    m = keep[..., None].astype(np.float32)
    mean = (h * m).sum(axis=1) / m.sum(axis=1)
    return mean / np.linalg.norm(mean, axis=-1, keepdims=True) if normalize else mean
'''),
    (1, "the sum in float32, divided by an integer count: a float64 result, float32 digits", '''
def mean_pool(hidden, keep, normalize=True):
    h = np.asarray(hidden, dtype=np.float32)
    mean = (h * keep[..., None]).sum(axis=1) / keep.sum(axis=1, keepdims=True)
    return mean / np.linalg.norm(mean, axis=-1, keepdims=True) if normalize else mean
'''),
    (3, "reverses the caller's list in place to multiply last layer first", '''
def rollout(attentions, residual=0.5):
    n = attentions[0].shape[-1]
    result = np.eye(n)
    attentions.reverse()
    for w in attentions:
        result = result @ (residual * np.eye(n) + (1 - residual) * w.mean(axis=0))
    return result
'''),
    (4, "every 2-D weight transposed, as x @ W.T in the NumPy path: the block cannot run", '''
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
    for module, name in table.items():
        w = torch.from_numpy(weights[pre + name + ".weight"].copy())
        module.weight.data = w.T.contiguous() if w.ndim == 2 else w
        module.bias.data = torch.from_numpy(weights[pre + name + ".bias"].copy())
    return block
'''),
    (5, "a LayerNorm counted as E numbers (the scale only)", """
def n_parameters(config):
    V, E, F, N = (config[k] for k in ("vocab_size", "hidden_size", "intermediate_size",
                                      "num_hidden_layers"))
    P, T = config["max_position_embeddings"], config["type_vocab_size"]
    block = 4 * (E * E + E) + (E * F + F) + (F * E + E) + 2 * E
    return (V + P + T) * E + E + N * block
"""),
    (6, "measured with a float32 copy of the model", """
def embedding_shift(ids, j, how):
    global _model32
    if "_model32" not in globals():
        _model32 = load_pretrained_encoder()
    x = np.array([ids])
    k = np.ones_like(x, dtype=bool)
    if how == "delete":
        x2, k2 = np.delete(x, j, axis=1), k[:, :-1]
    else:
        x2, k2 = x, k.copy()
        k2[0, j] = False
    with torch.no_grad():
        e, e2 = (mean_pool_np(_model32(torch.from_numpy(a), torch.from_numpy(m))[0][-1]
                              .double().numpy(), m)[0] for a, m in ((x, k), (x2, k2)))
    return float(1 - e @ e2)
"""),
    (7, "trusts the attention pattern: [SEP] is a special token, so a sink", """
def prediction_sep():
    return "below 0.2"
"""),
    (7, "hedges between sink and word", """
def prediction_sep():
    return "0.2 to 0.5"
"""),
    (7, "a number instead of one of the ranges", """
def prediction_sep():
    return 0.85
"""),
    (7, "the value without its bias", """
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / np.median(norms[1:n - 1], axis=0)
"""),
    (7, "W_v transposed (the nn.Linear orientation twice)", """
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"].T + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / np.median(norms[1:n - 1], axis=0)
"""),
    (7, "the key projection instead of the value", """
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_k"] + params["attn"]["b_k"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / np.median(norms[1:n - 1], axis=0)
"""),
    (7, "the norm over all E, one number repeated for every head", """
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    norms = np.linalg.norm(v, axis=-1)
    return np.full(H, norms[j] / np.median(norms[1:len(v) - 1]))
"""),
    (7, "heads split as (n, D, H): interleaved slices", """
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, E // H, H), axis=1)
    return norms[j] / np.median(norms[1:n - 1], axis=0)
"""),
    (7, "the mean of the words' norms instead of the median", """
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / norms[1:n - 1].mean(axis=0)
"""),
    (7, "the median over every position, [CLS] and [SEP] included", """
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / np.median(norms, axis=0)
"""),
    (7, "the words taken as positions 1 to n - 1 ([SEP] counted as a word)", """
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / np.median(norms[1:], axis=0)
"""),
    (7, "inverted: the word's norm over token j's", """
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return np.median(norms[1:n - 1], axis=0) / norms[j]
"""),
    (7, "the raw norms of token j, not divided by a word's", """
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    return np.linalg.norm(v.reshape(n, H, E // H), axis=-1)[j]
"""),
    (7, "computed in float32", """
def value_norm_ratio(x, params, H, j):
    x32 = np.asarray(x, dtype=np.float32)
    v = x32 @ params["attn"]["W_v"].astype(np.float32) + params["attn"]["b_v"].astype(np.float32)
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / np.median(norms[1:n - 1], axis=0)
"""),
    (7, "a list instead of an array", """
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return list(norms[j] / np.median(norms[1:n - 1], axis=0))
"""),
    (7, "adds the bias into the caller's x in place", """
def value_norm_ratio(x, params, H, j):
    x += 0.0
    x[0] = x[0] * 1.0 + 1e-6
    v = x @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    norms = np.linalg.norm(v.reshape(n, H, E // H), axis=-1)
    return norms[j] / np.median(norms[1:n - 1], axis=0)
"""),
]

RIGHT = [    (1, "float32 input, computed in float32", '''
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
    (1, "boolean indexing, row by row", """
def mean_pool(hidden, keep, normalize=True):
    h, k = np.asarray(hidden, dtype=np.float64), np.asarray(keep, dtype=bool)
    mean = np.stack([h[b][k[b]].mean(axis=0) for b in range(h.shape[0])])
    return mean / np.linalg.norm(mean, axis=-1, keepdims=True) if normalize else mean
"""),
    (1, "np.where on a copy, then a masked mean", """
def mean_pool(hidden, keep, normalize=True):
    m = np.asarray(keep)[..., None]
    mean = np.where(m, hidden, 0.0).sum(axis=1) / m.sum(axis=1)
    if normalize:
        mean /= np.linalg.norm(mean, axis=1, keepdims=True)
    return mean
"""),
    (3, "matrix_power-free recursion from the last layer down", """
def rollout(attentions, residual=0.5):
    n = np.asarray(attentions[0]).shape[-1]
    if not attentions:
        return np.eye(n)
    *earlier, w = attentions
    a_hat = residual * np.eye(n) + (1 - residual) * np.mean(w, axis=0)
    return a_hat @ (rollout(earlier, residual) if earlier else np.eye(n))
"""),
    (5, "attention counted per head: H (E D + D) for q, k, v, plus the output projection", """
def n_parameters(config):
    V, E, F, H = (config[k] for k in ("vocab_size", "hidden_size", "intermediate_size",
                                      "num_attention_heads"))
    D = E // H
    emb = (V + config["max_position_embeddings"] + config["type_vocab_size"] + 2) * E
    block = 3 * H * (E * D + D) + (E * E + E) + 2 * E * F + F + E + 4 * E
    return emb + config["num_hidden_layers"] * block
"""),
    (5, "a NumPy integer from a table of module shapes", """
def n_parameters(config):
    E, F = config["hidden_size"], config["intermediate_size"]
    tables = [(config["vocab_size"], E), (config["max_position_embeddings"], E),
              (config["type_vocab_size"], E), (E,), (E,)]
    block = [(E, E), (E,)] * 4 + [(E,), (E,)] * 2 + [(F, E), (F,), (E, F), (E,)]
    shapes = tables + block * config["num_hidden_layers"]
    return np.sum([np.prod(s) for s in shapes], dtype=np.int64)
"""),
    (6, "measured with torch: F.normalize and a dot product, deletion by slicing a tensor", """
import torch.nn.functional as F

def embedding_shift(ids, j, how):
    x = torch.tensor([ids])
    k = torch.ones_like(x, dtype=torch.bool)
    if how == "delete":
        x2, k2 = torch.cat([x[:, :j], x[:, j + 1:]], 1), k[:, 1:]
    else:
        x2, k2 = x, k.clone()
        k2[0, j] = False

    def emb(a, m):
        with torch.no_grad():
            h = model(a, m)[0][-1][0]
        return F.normalize(h[m[0]].mean(0), dim=0)

    return (1 - emb(x, k) @ emb(x2, k2)).item()
"""),
    (3, "reversed() and multiplied on the right: the same product, the list left alone", """
def rollout(attentions, residual=0.5):
    n = attentions[0].shape[-1]
    result = np.eye(n)
    for w in reversed(attentions):
        result = result @ (residual * np.eye(n) + (1 - residual) * w.mean(axis=0))
    return result
"""),
    (5, "a closed form: E (V + P + T + 2) + N (4E^2 + 2EF + 9E + F)", """
def n_parameters(config):
    V, E, F, N = (config[k] for k in ("vocab_size", "hidden_size", "intermediate_size",
                                      "num_hidden_layers"))
    P, T = config["max_position_embeddings"], config["type_vocab_size"]
    return int(E * (V + P + T + 2) + N * (4 * E * E + 2 * E * F + 9 * E + F))
"""),
    (7, "torch: a matmul, a view into heads, then the median in NumPy", """
def value_norm_ratio(x, params, H, j):
    xt = torch.as_tensor(np.asarray(x, dtype=np.float64))
    v = xt @ torch.as_tensor(params["attn"]["W_v"]) + torch.as_tensor(params["attn"]["b_v"])
    n, E = v.shape
    norms = v.view(n, H, E // H).norm(dim=-1).numpy()
    return norms[j] / np.median(norms[1:n - 1], axis=0)
"""),
    (7, "explicit per-head loops and np.percentile at 50", """
def value_norm_ratio(x, params, H, j):
    v = np.asarray(x, dtype=np.float64) @ params["attn"]["W_v"] + params["attn"]["b_v"]
    n, E = v.shape
    D = E // H
    out = np.empty(H)
    for h in range(H):
        norms = np.sqrt((v[:, h * D:(h + 1) * D] ** 2).sum(axis=1))
        out[h] = norms[j] / np.percentile(norms[1:n - 1], 50)
    return out
"""),
]
