"""Wrong answers a learner would plausibly write for chapter 1's exercises."""
WRONG = [
    # ---- exercise 2: the final state of a sorted batch (debug)
    (2, "the colleague's function, unchanged", '''
def final_state(rnn, x, lengths):
    return final_state_sorted(rnn, x, lengths)
'''),
    (2, "partial fix: the sort applied a second time instead of undone", '''
def final_state(rnn, x, lengths):
    order = torch.argsort(lengths, descending=True)
    packed = pack_padded_sequence(x[order], lengths[order], batch_first=True)
    _, h_n = rnn(packed)
    return h_n[0][order]
'''),
    (2, "partial fix: rows put back by the ascending sort of the lengths", '''
def final_state(rnn, x, lengths):
    order = torch.argsort(lengths, descending=True)
    packed = pack_padded_sequence(x[order], lengths[order], batch_first=True)
    _, h_n = rnn(packed)
    return h_n[0][torch.argsort(lengths)]
'''),
    (2, "partial fix: the sort dropped, packing still told the batch is sorted", '''
def final_state(rnn, x, lengths):
    _, h_n = rnn(pack_padded_sequence(x, lengths, batch_first=True))
    return h_n[0]
'''),
    (2, "partial fix: enforce_sorted=False, on the sorted batch, never unsorted", '''
def final_state(rnn, x, lengths):
    order = torch.argsort(lengths, descending=True)
    packed = pack_padded_sequence(x[order], lengths[order], batch_first=True, enforce_sorted=False)
    return rnn(packed)[1][0]
'''),
    (2, "no packing: the GRU reads the padding", '''
def final_state(rnn, x, lengths):
    return rnn(x)[1][0]
'''),
    (2, "no packing: the last position of the padded batch", '''
def final_state(rnn, x, lengths):
    return rnn(x)[0][:, -1]
'''),
    (2, "gathered at position lengths instead of lengths - 1", '''
def final_state(rnn, x, lengths):
    states = rnn(x)[0]
    return states[torch.arange(len(lengths)), lengths.clamp(max=states.shape[1] - 1)]
'''),
    (2, "one index only: every row gets every length", '''
def final_state(rnn, x, lengths):
    return rnn(x)[0][:, lengths - 1]
'''),
    (2, "the state after the first token", '''
def final_state(rnn, x, lengths):
    return rnn(x)[0][:, 0]
'''),
    (2, "the padding zeroed in the caller's x, then run unpacked", '''
def final_state(rnn, x, lengths):
    x[torch.arange(x.shape[1])[None, :] >= lengths[:, None]] = 0.0
    return rnn(x)[0][torch.arange(len(lengths)), lengths - 1]
'''),
    # ---- exercise 3: the padding-aware loss
    (3, "PAD counted in the mean", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logp = torch.log_softmax(logits, dim=-1)
    return -logp.gather(-1, tgt_out[..., None]).squeeze(-1).mean()
'''),
    (3, "PAD zeroed but divided by all positions", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logp = torch.log_softmax(logits, dim=-1)
    picked = logp.gather(-1, tgt_out[..., None]).squeeze(-1)
    mask = tgt_out != pad
    return -(picked * mask).sum() / mask.numel()
'''),
    (3, "mean per sequence, then over sequences", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logp = torch.log_softmax(logits, dim=-1)
    picked = logp.gather(-1, tgt_out[..., None]).squeeze(-1)
    mask = tgt_out != pad
    return (-(picked * mask).sum(1) / mask.sum(1)).mean()
'''),
    (3, "mean per sequence, skipping empty rows", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logp = torch.log_softmax(logits, dim=-1)
    picked = logp.gather(-1, tgt_out[..., None]).squeeze(-1)
    mask = tgt_out != pad
    rows = mask.any(1)
    return (-(picked * mask).sum(1)[rows] / mask.sum(1)[rows]).mean()
'''),
    (3, "the book's PAD hard-coded instead of the pad argument", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logp = torch.log_softmax(logits, dim=-1)
    picked = logp.gather(-1, tgt_out[..., None]).squeeze(-1)
    mask = tgt_out != PAD
    return -(picked * mask).sum() / mask.sum()
'''),
    (3, "log_softmax over the wrong axis", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logp = torch.log_softmax(logits, dim=1)
    picked = logp.gather(-1, tgt_out[..., None]).squeeze(-1)
    mask = tgt_out != pad
    return -(picked * mask).sum() / mask.sum()
'''),
    (3, "softmax, then log, of the raw logits mutated in place", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logits -= logits.max(-1, keepdim=True).values          # stabilise, in place
    logp = logits - logits.exp().sum(-1, keepdim=True).log()
    picked = logp.gather(-1, tgt_out[..., None]).squeeze(-1)
    mask = tgt_out != pad
    return -(picked * mask).sum() / mask.sum()
'''),
    (3, "the built-in loss, which the exercise excludes", '''
def masked_cross_entropy(logits, tgt_out, pad):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1),
                           ignore_index=pad)
'''),
    (3, "nll_loss on log_softmax, also excluded", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logp = torch.log_softmax(logits, dim=-1)
    return F.nll_loss(logp.reshape(-1, logp.shape[-1]), tgt_out.reshape(-1), ignore_index=pad)
'''),
    (3, "the package's loss, which wraps the built-in one", '''
from attnlab.rnn_bottleneck import sequence_loss

def masked_cross_entropy(logits, tgt_out, pad):
    return sequence_loss(logits, tgt_out)
'''),
    # ---- exercise 4: the gradient that reaches each position
    (4, "norm of the batch-mean gradient instead of mean of the norms", '''
def gradient_norm_by_position(rnn, x):
    x = x.detach().clone().requires_grad_()
    rnn(x)[1].sum().backward()
    return x.grad.mean(dim=0).norm(dim=-1).numpy()
'''),
    (4, "summed over the batch instead of averaged", '''
def gradient_norm_by_position(rnn, x):
    x = x.detach().clone().requires_grad_()
    rnn(x)[1].sum().backward()
    return x.grad.norm(dim=-1).sum(dim=0).numpy()
'''),
    (4, "the sum of all states instead of the final state", '''
def gradient_norm_by_position(rnn, x):
    x = x.detach().clone().requires_grad_()
    rnn(x)[0].sum().backward()
    return x.grad.norm(dim=-1).mean(dim=0).numpy()
'''),
    (4, "the caller's x made a leaf: gradients accumulate from one call to the next", '''
def gradient_norm_by_position(rnn, x):
    x.requires_grad_()
    rnn(x)[1].sum().backward()
    return x.grad.norm(dim=-1).mean(dim=0).numpy()
'''),
    (4, "the norm over the batch, the mean over the features", '''
def gradient_norm_by_position(rnn, x):
    x = x.detach().clone().requires_grad_()
    rnn(x)[1].sum().backward()
    return x.grad.norm(dim=0).mean(dim=-1).numpy()
'''),
    (4, "returns a torch tensor", '''
def gradient_norm_by_position(rnn, x):
    x = x.detach().clone().requires_grad_()
    rnn(x)[1].sum().backward()
    return x.grad.norm(dim=-1).mean(dim=0)
'''),
    # ---- exercise 5: the parameters, for any sizes (derive)
    (5, "one bias per block", '''
def recurrent_params(E_in, E, cell="gru"):
    g = 3 if cell == "gru" else 1
    return g * E * (E_in + E) + g * E

def seq2seq_params(V, E, cell="gru"):
    return 2 * V * E + 2 * recurrent_params(E, E, cell) + E * V + V
'''),
    (5, "the recurrent matrix counted as (gE, E_in)", '''
def recurrent_params(E_in, E, cell="gru"):
    g = 3 if cell == "gru" else 1
    return 2 * g * E * E_in + 2 * g * E

def seq2seq_params(V, E, cell="gru"):
    return 2 * V * E + 2 * recurrent_params(E, E, cell) + E * V + V
'''),
    (5, "three blocks for the plain RNN too", '''
def recurrent_params(E_in, E, cell="gru"):
    return 3 * E * (E_in + E) + 6 * E

def seq2seq_params(V, E, cell="gru"):
    return 2 * V * E + 2 * recurrent_params(E, E, cell) + E * V + V
'''),
    (5, "one shared embedding", '''
def recurrent_params(E_in, E, cell="gru"):
    g = 3 if cell == "gru" else 1
    return g * E * (E_in + E) + 2 * g * E

def seq2seq_params(V, E, cell="gru"):
    return V * E + 2 * recurrent_params(E, E, cell) + E * V + V
'''),
    (5, "the output layer's bias forgotten", '''
def recurrent_params(E_in, E, cell="gru"):
    g = 3 if cell == "gru" else 1
    return g * E * (E_in + E) + 2 * g * E

def seq2seq_params(V, E, cell="gru"):
    return 2 * V * E + 2 * recurrent_params(E, E, cell) + E * V
'''),
    (5, "the padding row left out of each embedding", '''
def recurrent_params(E_in, E, cell="gru"):
    g = 3 if cell == "gru" else 1
    return g * E * (E_in + E) + 2 * g * E

def seq2seq_params(V, E, cell="gru"):
    return 2 * (V - 1) * E + 2 * recurrent_params(E, E, cell) + E * V + V
'''),
    (5, "measured instead of derived: counting a built module", '''
def recurrent_params(E_in, E, cell="gru"):
    layer = (nn.GRU if cell == "gru" else nn.RNN)(E_in, E)
    return sum(p.numel() for p in layer.parameters())

def seq2seq_params(V, E, cell="gru"):
    return sum(p.numel() for p in Seq2SeqNoAttention(V, E, cell).parameters())
'''),
    (5, "a float from a formula with a division", '''
def recurrent_params(E_in, E, cell="gru"):
    g = 3 if cell == "gru" else 1
    return g * E * (E_in + E) + 2 * g * E

def seq2seq_params(V, E, cell="gru"):
    return 2 * V * E + 2 * recurrent_params(E, E, cell) + E * V + V * E / E
'''),
    # ---- exercise 6: which digits get lost (predict, then measure)
    (6, "the digits by output step, not by source position (not flipped)", '''
def digit_accuracy_by_position(model, length=10, n=500, seed=2, teacher_forcing=True):
    src, src_len, tgt_in, tgt_out = encode_batch(make_pairs(n, length, length,
                                                            np.random.default_rng(seed)))
    with torch.no_grad():
        out = (model(src, src_len, tgt_in).argmax(-1) if teacher_forcing
               else model.generate(src, src_len, length + 1)[0])
    return (out[:, :length] == tgt_out[:, :length]).double().mean(0).numpy()
'''),
    (6, "the EOS step included and the flip taken over all length + 1 steps", '''
def digit_accuracy_by_position(model, length=10, n=500, seed=2, teacher_forcing=True):
    src, src_len, tgt_in, tgt_out = encode_batch(make_pairs(n, length, length,
                                                            np.random.default_rng(seed)))
    with torch.no_grad():
        out = (model(src, src_len, tgt_in).argmax(-1) if teacher_forcing
               else model.generate(src, src_len, length + 1)[0])
    return (out == tgt_out).double().mean(0).flip(0).numpy()[:length]
'''),
    (6, "teacher forcing and greedy decoding swapped", '''
def digit_accuracy_by_position(model, length=10, n=500, seed=2, teacher_forcing=True):
    src, src_len, tgt_in, tgt_out = encode_batch(make_pairs(n, length, length,
                                                            np.random.default_rng(seed)))
    with torch.no_grad():
        out = (model.generate(src, src_len, length + 1)[0] if teacher_forcing
               else model(src, src_len, tgt_in).argmax(-1))
    return (out[:, :length] == tgt_out[:, :length]).double().mean(0).flip(0).numpy()
'''),
    (6, "greedy decoding for both", '''
def digit_accuracy_by_position(model, length=10, n=500, seed=2, teacher_forcing=True):
    src, src_len, tgt_in, tgt_out = encode_batch(make_pairs(n, length, length,
                                                            np.random.default_rng(seed)))
    out = model.generate(src, src_len, length + 1)[0]
    return (out[:, :length] == tgt_out[:, :length]).double().mean(0).flip(0).numpy()
'''),
    (6, "exact match of every digit up to the position, not the digit alone", '''
def digit_accuracy_by_position(model, length=10, n=500, seed=2, teacher_forcing=True):
    src, src_len, tgt_in, tgt_out = encode_batch(make_pairs(n, length, length,
                                                            np.random.default_rng(seed)))
    with torch.no_grad():
        out = (model(src, src_len, tgt_in).argmax(-1) if teacher_forcing
               else model.generate(src, src_len, length + 1)[0])
    prefix_right = (out[:, :length] == tgt_out[:, :length]).cumprod(dim=1)
    return prefix_right.double().mean(0).flip(0).numpy()
'''),
    (6, "the seed ignored: a fresh generator", '''
def digit_accuracy_by_position(model, length=10, n=500, seed=2, teacher_forcing=True):
    src, src_len, tgt_in, tgt_out = encode_batch(make_pairs(n, length, length,
                                                            np.random.default_rng()))
    with torch.no_grad():
        out = (model(src, src_len, tgt_in).argmax(-1) if teacher_forcing
               else model.generate(src, src_len, length + 1)[0])
    return (out[:, :length] == tgt_out[:, :length]).double().mean(0).flip(0).numpy()
'''),
    (6, "prediction: the first digit read is the worst (section 7's first guess)", '''
def prediction():
    return {"first is worst": True, "largest gap": 1}
'''),
    (6, "prediction: the largest gap at the digit read last", '''
def prediction():
    return {"first is worst": False, "largest gap": 10}
'''),
    (6, "prediction: 0-based position", '''
def prediction():
    return {"first is worst": False, "largest gap": 0}
'''),
    (6, "prediction: other keys", '''
def prediction():
    return {"worst": 4, "gap": 1}
'''),
    # ---- exercise 7: GRU weights from Keras's layout (extend)
    (7, "transposed, blocks left in Keras's order z, r, h", '''
def keras_to_torch_gru(kernel, recurrent_kernel, bias):
    return kernel.T.copy(), recurrent_kernel.T.copy(), bias[0].copy(), bias[1].copy()
'''),
    (7, "blocks reordered, not transposed (reshaped instead)", '''
def keras_to_torch_gru(kernel, recurrent_kernel, bias):
    def to_rzn(a):
        z, r, h = np.split(a, 3, axis=-1)
        return np.concatenate([r, z, h], axis=-1)
    E_in, E = kernel.shape[0], recurrent_kernel.shape[0]
    return (to_rzn(kernel).reshape(3 * E, E_in), to_rzn(recurrent_kernel).reshape(3 * E, E),
            to_rzn(bias)[0], to_rzn(bias)[1])
'''),
    (7, "blocks reordered after transposing, along the wrong axis", '''
def keras_to_torch_gru(kernel, recurrent_kernel, bias):
    def to_rzn(a):
        z, r, h = np.split(a, 3, axis=-1)
        return np.concatenate([r, z, h], axis=-1)
    return to_rzn(kernel.T), to_rzn(recurrent_kernel.T), to_rzn(bias)[0], to_rzn(bias)[1]
'''),
    (7, "kernels reordered, biases left in Keras's order", '''
def keras_to_torch_gru(kernel, recurrent_kernel, bias):
    def to_rzn(a):
        z, r, h = np.split(a, 3, axis=-1)
        return np.concatenate([r, z, h], axis=-1)
    return to_rzn(kernel).T, to_rzn(recurrent_kernel).T, bias[0].copy(), bias[1].copy()
'''),
    (7, "the two bias rows merged into the input bias", '''
def keras_to_torch_gru(kernel, recurrent_kernel, bias):
    def to_rzn(a):
        z, r, h = np.split(a, 3, axis=-1)
        return np.concatenate([r, z, h], axis=-1)
    b = to_rzn(bias)
    return to_rzn(kernel).T, to_rzn(recurrent_kernel).T, b[0] + b[1], np.zeros_like(b[1])
'''),
    (7, "the two bias rows swapped", '''
def keras_to_torch_gru(kernel, recurrent_kernel, bias):
    def to_rzn(a):
        z, r, h = np.split(a, 3, axis=-1)
        return np.concatenate([r, z, h], axis=-1)
    b = to_rzn(bias)
    return to_rzn(kernel).T, to_rzn(recurrent_kernel).T, b[1], b[0]
'''),
    (7, "z and r swapped in the kernel only", '''
def keras_to_torch_gru(kernel, recurrent_kernel, bias):
    def to_rzn(a):
        z, r, h = np.split(a, 3, axis=-1)
        return np.concatenate([r, z, h], axis=-1)
    b = to_rzn(bias)
    return to_rzn(kernel).T, recurrent_kernel.T, b[0], b[1]
'''),
    (7, "reordered in place in the caller's arrays", '''
def keras_to_torch_gru(kernel, recurrent_kernel, bias):
    E = recurrent_kernel.shape[0]
    for a in (kernel, recurrent_kernel, bias):
        z = a[..., :E].copy()
        a[..., :E] = a[..., E:2 * E]
        a[..., E:2 * E] = z
    return kernel.T, recurrent_kernel.T, bias[0], bias[1]
'''),
    (7, "a list instead of a tuple, of torch tensors", '''
def keras_to_torch_gru(kernel, recurrent_kernel, bias):
    def to_rzn(a):
        z, r, h = np.split(a, 3, axis=-1)
        return np.concatenate([r, z, h], axis=-1)
    b = to_rzn(bias)
    return [torch.from_numpy(to_rzn(kernel).T.copy()), torch.from_numpy(to_rzn(recurrent_kernel).T.copy()),
            torch.from_numpy(b[0]), torch.from_numpy(b[1])]
'''),
    # ---- exercise 1: one GRU step, the reset gate before the product
    (1, "the reset gate after the product: nn.GRUCell's variant, the chapter's cell", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    gi, gh = x @ W_ih.T + b_ih, h @ W_hh.T + b_hh
    i_r, i_z, i_n = np.split(gi, 3, axis=-1)
    h_r, h_z, h_n = np.split(gh, 3, axis=-1)
    sig = lambda a: 1 / (1 + np.exp(-a))
    r, z = sig(i_r + h_r), sig(i_z + h_z)
    return (1 - z) * np.tanh(i_n + r * h_n) + z * h
'''),
    (1, "gates read in the order z, r, n (Keras's order)", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    E = h.shape[1]
    i_z, i_r, i_n = np.split(x @ W_ih.T + b_ih, 3, axis=-1)
    h_z, h_r = np.split(h @ W_hh[:2 * E].T + b_hh[:2 * E], 2, axis=-1)
    sig = lambda a: 1 / (1 + np.exp(-a))
    r, z = sig(i_r + h_r), sig(i_z + h_z)
    n = np.tanh(i_n + (r * h) @ W_hh[2 * E:].T + b_hh[2 * E:])
    return (1 - z) * n + z * h
'''),
    (1, "update gate mixed the other way round", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    E = h.shape[1]
    i_r, i_z, i_n = np.split(x @ W_ih.T + b_ih, 3, axis=-1)
    h_r, h_z = np.split(h @ W_hh[:2 * E].T + b_hh[:2 * E], 2, axis=-1)
    sig = lambda a: 1 / (1 + np.exp(-a))
    r, z = sig(i_r + h_r), sig(i_z + h_z)
    n = np.tanh(i_n + (r * h) @ W_hh[2 * E:].T + b_hh[2 * E:])
    return z * n + (1 - z) * h
'''),
    (1, "the candidate's recurrent bias b_hn left out", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    E = h.shape[1]
    i_r, i_z, i_n = np.split(x @ W_ih.T + b_ih, 3, axis=-1)
    h_r, h_z = np.split(h @ W_hh[:2 * E].T + b_hh[:2 * E], 2, axis=-1)
    sig = lambda a: 1 / (1 + np.exp(-a))
    r, z = sig(i_r + h_r), sig(i_z + h_z)
    n = np.tanh(i_n + (r * h) @ W_hh[2 * E:].T)
    return (1 - z) * n + z * h
'''),
    (1, "the reset gate also scales the candidate's recurrent bias", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    E = h.shape[1]
    i_r, i_z, i_n = np.split(x @ W_ih.T + b_ih, 3, axis=-1)
    h_r, h_z = np.split(h @ W_hh[:2 * E].T + b_hh[:2 * E], 2, axis=-1)
    sig = lambda a: 1 / (1 + np.exp(-a))
    r, z = sig(i_r + h_r), sig(i_z + h_z)
    n = np.tanh(i_n + (r * h) @ W_hh[2 * E:].T + r * b_hh[2 * E:])
    return (1 - z) * n + z * h
'''),
    (1, "weights not transposed (crashes when E_in != E)", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    E = h.shape[1]
    i_r, i_z, i_n = np.split(x @ W_ih + b_ih, 3, axis=-1)
    h_r, h_z = np.split(h @ W_hh[:2 * E] + b_hh[:2 * E], 2, axis=-1)
    sig = lambda a: 1 / (1 + np.exp(-a))
    r, z = sig(i_r + h_r), sig(i_z + h_z)
    return (1 - z) * np.tanh(i_n + (r * h) @ W_hh[2 * E:] + b_hh[2 * E:]) + z * h
'''),
    (1, "split along the batch axis", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    E = h.shape[1]
    i_r, i_z, i_n = np.split(x @ W_ih.T + b_ih, 3, axis=0)
    h_r, h_z = np.split(h @ W_hh[:2 * E].T + b_hh[:2 * E], 2, axis=0)
    sig = lambda a: 1 / (1 + np.exp(-a))
    r, z = sig(i_r + h_r), sig(i_z + h_z)
    return (1 - z) * np.tanh(i_n + (r * h) @ W_hh[2 * E:].T + b_hh[2 * E:]) + z * h
'''),
    (1, "the biases merged in place (b_ih += b_hh), mutating the caller's array", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    E = h.shape[1]
    b_ih[:2 * E] += b_hh[:2 * E]                 # merge the gate biases, in place
    i_r, i_z, i_n = np.split(x @ W_ih.T + b_ih, 3, axis=-1)
    h_r, h_z = np.split(h @ W_hh[:2 * E].T, 2, axis=-1)
    sig = lambda a: 1 / (1 + np.exp(-a))
    r, z = sig(i_r + h_r), sig(i_z + h_z)
    return (1 - z) * np.tanh(i_n + (r * h) @ W_hh[2 * E:].T + b_hh[2 * E:]) + z * h
'''),
    (1, "the new state written into the caller's h", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    E = h.shape[1]
    i_r, i_z, i_n = np.split(x @ W_ih.T + b_ih, 3, axis=-1)
    h_r, h_z = np.split(h @ W_hh[:2 * E].T + b_hh[:2 * E], 2, axis=-1)
    sig = lambda a: 1 / (1 + np.exp(-a))
    r, z = sig(i_r + h_r), sig(i_z + h_z)
    n = np.tanh(i_n + (r * h) @ W_hh[2 * E:].T + b_hh[2 * E:])
    h *= z                                       # keep z of the old state ...
    h += (1 - z) * n                             # ... and add the candidate: in place
    return h
'''),
    (1, "computed in float32, returned as float64", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    x, h, W_ih, W_hh, b_ih, b_hh = (a.astype(np.float32) for a in (x, h, W_ih, W_hh, b_ih, b_hh))
    E = h.shape[1]
    i_r, i_z, i_n = np.split(x @ W_ih.T + b_ih, 3, axis=-1)
    h_r, h_z = np.split(h @ W_hh[:2 * E].T + b_hh[:2 * E], 2, axis=-1)
    sig = lambda a: 1 / (1 + np.exp(-a))
    r, z = sig(i_r + h_r), sig(i_z + h_z)
    n = np.tanh(i_n + (r * h) @ W_hh[2 * E:].T + b_hh[2 * E:])
    return ((1 - z) * n + z * h).astype(np.float64)
'''),
    (1, "the package's function instead of one's own", '''
from attnlab.rnn_bottleneck import gru_cell_np as gru_step
'''),
    (1, "returns a torch tensor", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    x, h, W_ih, W_hh, b_ih, b_hh = map(torch.from_numpy, (x, h, W_ih, W_hh, b_ih, b_hh))
    E = h.shape[1]
    i_r, i_z, i_n = (x @ W_ih.T + b_ih).chunk(3, -1)
    h_r, h_z = (h @ W_hh[:2 * E].T + b_hh[:2 * E]).chunk(2, -1)
    r, z = torch.sigmoid(i_r + h_r), torch.sigmoid(i_z + h_z)
    return (1 - z) * torch.tanh(i_n + (r * h) @ W_hh[2 * E:].T + b_hh[2 * E:]) + z * h
'''),
    # ---- exercises 3, 4, 6, 7: third round
    (3, "computed in float32, returned as float64", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logp = torch.log_softmax(logits.float(), dim=-1)
    picked = logp.gather(-1, tgt_out[..., None]).squeeze(-1)
    mask = tgt_out != pad
    return (-(picked * mask).sum() / mask.sum()).double()
'''),
    (4, "two layers: both layers' final states summed", '''
def gradient_norm_by_position(rnn, x):
    x = x.detach().clone().requires_grad_()
    rnn(x)[1].sum().backward()
    return x.grad.norm(dim=-1).mean(dim=0).numpy()
'''),
    (4, "two layers: the first layer's final state", '''
def gradient_norm_by_position(rnn, x):
    x = x.detach().clone().requires_grad_()
    rnn(x)[1][0].sum().backward()
    return x.grad.norm(dim=-1).mean(dim=0).numpy()
'''),
    (4, "the caller's x made to require a gradient, its .grad cleared after", '''
def gradient_norm_by_position(rnn, x):
    x.requires_grad_()
    rnn(x)[1][-1].sum().backward()
    g = x.grad.norm(dim=-1).mean(dim=0).numpy()
    x.grad = None
    return g
'''),
    (6, "prediction: the measurement run inside prediction()", '''
def prediction():
    tf = digit_accuracy_by_position(trained, 10, 500, 2, True)
    greedy = digit_accuracy_by_position(trained, 10, 500, 2, False)
    return {"first is worst": bool(tf[0] <= tf.min() + 0.02),
            "largest gap": int(np.argmax(tf - greedy)) + 1}
'''),
    (6, "prediction: 0 and 1 for the choice", '''
def prediction():
    return {"first is worst": 0, "largest gap": 1}
'''),
    (7, "the ported arrays in float32", '''
def keras_to_torch_gru(kernel, recurrent_kernel, bias):
    def to_rzn(a):
        z, r, h = np.split(a, 3, axis=-1)
        return np.concatenate([r, z, h], axis=-1)
    b = to_rzn(bias)
    return tuple(a.astype(np.float32) for a in
                 (to_rzn(kernel).T, to_rzn(recurrent_kernel).T, b[0], b[1]))
'''),
    # ---- exercises 3, 4, 5, 6: the outside reader's slips (fourth round)
    (3, "the built-in loss bound to another name before the function", '''
from torch.nn.functional import cross_entropy as _ce

def masked_cross_entropy(logits, tgt_out, pad):
    return _ce(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1), ignore_index=pad)
'''),
    (3, "the built-in loss's C function, called directly", '''
def masked_cross_entropy(logits, tgt_out, pad):
    return torch._C._nn.cross_entropy_loss(logits.reshape(-1, logits.shape[-1]),
                                           tgt_out.reshape(-1), None, 1, pad, 0.0)
'''),
    (3, "the log of the softmax instead of log_softmax (underflows on spread logits)", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logp = torch.log(torch.softmax(logits, dim=-1))
    picked = logp.gather(-1, tgt_out[..., None]).squeeze(-1)
    mask = tgt_out != pad
    return -(picked * mask).sum() / mask.sum()
'''),
    (3, "computed and returned in float32", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logp = torch.log_softmax(logits.float(), dim=-1)
    picked = logp.gather(-1, tgt_out[..., None]).squeeze(-1)
    mask = tgt_out != pad
    return -(picked * mask).sum() / mask.sum()
'''),
    (3, "computed in NumPy: no gradient reaches the logits", '''
def masked_cross_entropy(logits, tgt_out, pad):
    z = logits.detach().numpy()
    logp = z - z.max(-1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(-1, keepdims=True))
    t = tgt_out.numpy()
    picked = np.take_along_axis(logp, t[..., None], -1)[..., 0]
    mask = t != pad
    return torch.tensor(-(picked * mask).sum() / mask.sum())
'''),
    (4, "a float32 copy of the GRU and of x", '''
import copy

def gradient_norm_by_position(rnn, x):
    rnn32 = copy.deepcopy(rnn).float()
    x = x.detach().float().requires_grad_()
    (g,) = torch.autograd.grad(rnn32(x)[1][-1].sum(), x)
    return g.norm(dim=-1).mean(dim=0).numpy()
'''),
    (4, "a float32 copy of the GRU and of x, the answer cast to float64", '''
import copy

def gradient_norm_by_position(rnn, x):
    rnn32 = copy.deepcopy(rnn).float()
    x = x.detach().float().requires_grad_()
    (g,) = torch.autograd.grad(rnn32(x)[1][-1].sum(), x)
    return g.norm(dim=-1).mean(dim=0).double().numpy()
'''),
    (4, ".backward(): the gradients left in the GRU's parameters", '''
def gradient_norm_by_position(rnn, x):
    x = x.detach().clone().requires_grad_()
    rnn(x)[1][-1].sum().backward()
    return x.grad.norm(dim=-1).mean(dim=0).numpy()
'''),
    (5, "four blocks, as in an LSTM", '''
def recurrent_params(E_in, E, cell="gru"):
    g = 4 if cell == "gru" else 1
    return g * E * (E_in + E) + 2 * g * E

def seq2seq_params(V, E, cell="gru"):
    return 2 * V * E + 2 * recurrent_params(E, E, cell) + E * V + V
'''),
    (5, "the biases sized by the input width", '''
def recurrent_params(E_in, E, cell="gru"):
    g = 3 if cell == "gru" else 1
    return g * E * (E_in + E) + 2 * g * E_in

def seq2seq_params(V, E, cell="gru"):
    return 2 * V * E + 2 * recurrent_params(E, E, cell) + E * V + V
'''),
    (6, "prediction: the measurement computed into a default argument", '''
def prediction(answer={"first is worst": bool(digit_accuracy_by_position(trained, 10, 500, 2)[0]
                                               <= digit_accuracy_by_position(trained, 10, 500, 2).min()
                                               + 0.02),
                       "largest gap": int(np.argmax(digit_accuracy_by_position(trained, 10, 500, 2)
                                                    - digit_accuracy_by_position(trained, 10, 500, 2,
                                                                                 False))) + 1}):
    return answer
'''),
    (6, "prediction: a lambda whose default holds the measurement", '''
_tf = digit_accuracy_by_position(trained, 10, 500, 2, True)
_greedy = digit_accuracy_by_position(trained, 10, 500, 2, False)
prediction = lambda answer={"first is worst": bool(_tf[0] <= _tf.min() + 0.02),
                            "largest gap": int(np.argmax(_tf - _greedy)) + 1}: answer
'''),
    (6, "off by one output step: position j read at step length - j + 1", '''
def digit_accuracy_by_position(model, length=10, n=500, seed=2, teacher_forcing=True):
    src, src_len, tgt_in, tgt_out = encode_batch(make_pairs(n, length, length,
                                                            np.random.default_rng(seed)))
    with torch.no_grad():
        out = (model(src, src_len, tgt_in).argmax(-1) if teacher_forcing
               else model.generate(src, src_len, length + 1)[0])
    acc = np.zeros(length)
    for t in range(1, length + 1):
        acc[length - t] = (out[:, t] == tgt_out[:, t]).double().mean().item()
    return acc
'''),
    (6, "output tokens compared with the digits (the +3 offset forgotten)", '''
def digit_accuracy_by_position(model, length=10, n=500, seed=2, teacher_forcing=True):
    pairs = make_pairs(n, length, length, np.random.default_rng(seed))
    src, src_len, tgt_in, tgt_out = encode_batch(pairs)
    digits = torch.tensor(np.array([d for d, _ in pairs]))
    with torch.no_grad():
        out = (model(src, src_len, tgt_in).argmax(-1) if teacher_forcing
               else model.generate(src, src_len, length + 1)[0])
    return (out[:, :length].flip(1) == digits).double().mean(0).numpy()
'''),
]

RIGHT = [
    (2, "enforce_sorted=False on the caller's order", '''
def final_state(rnn, x, lengths):
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    return rnn(packed)[1][0]
'''),
    (2, "unpacked, gathered at lengths - 1 (a GRU is causal)", '''
def final_state(rnn, x, lengths):
    states, _ = rnn(x)
    return states[torch.arange(len(lengths)), lengths - 1]
'''),
    (2, "the inverse permutation by scattering", '''
def final_state(rnn, x, lengths):
    order = torch.argsort(lengths, descending=True)
    _, h_n = rnn(pack_padded_sequence(x[order], lengths[order], batch_first=True))
    out = torch.empty_like(h_n[0])
    out[order] = h_n[0]
    return out
'''),
    (2, "unpacked, torch.gather at lengths - 1", '''
def final_state(rnn, x, lengths):
    states, _ = rnn(x)
    index = (lengths - 1)[:, None, None].expand(-1, 1, states.shape[-1])
    return states.gather(1, index)[:, 0]
'''),
    (2, "each sequence run alone, in a loop", '''
def final_state(rnn, x, lengths):
    return torch.cat([rnn(x[b:b + 1, :n])[1][0] for b, n in enumerate(lengths.tolist())])
'''),
    (3, "boolean indexing of the real tokens", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logp = torch.log_softmax(logits, dim=-1)
    real = tgt_out != pad
    return -logp[real].gather(-1, tgt_out[real][:, None]).mean()
'''),
    (3, "one-hot targets and torch.where", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logp = torch.log_softmax(logits, dim=-1)
    picked = (logp * F.one_hot(tgt_out, logits.shape[-1])).sum(-1)
    real = tgt_out != pad
    return -torch.where(real, picked, torch.zeros_like(picked)).sum() / real.sum()
'''),
    (5, "written out per tensor, with an if for the cell", '''
def recurrent_params(E_in, E, cell="gru"):
    blocks = 3 if cell == "gru" else 1
    W_ih, W_hh = blocks * E * E_in, blocks * E * E
    return W_ih + W_hh + blocks * E + blocks * E

def seq2seq_params(V, E, cell="gru"):
    per_layer = recurrent_params(E, E, cell)
    return V * E + V * E + per_layer + per_layer + V * E + V
'''),
    (5, "closed forms, NumPy ints", '''
def recurrent_params(E_in, E, cell="gru"):
    g = np.int64(3 if cell == "gru" else 1)
    return g * E * (E_in + E + 2)

def seq2seq_params(V, E, cell="gru"):
    g = 3 if cell == "gru" else 1
    return 3 * V * E + V + 4 * g * E * E + 4 * g * E
'''),
    (6, "a loop over output steps, counting right digits", '''
def digit_accuracy_by_position(model, length=10, n=500, seed=2, teacher_forcing=True):
    src, src_len, tgt_in, tgt_out = encode_batch(make_pairs(n, length, length,
                                                            np.random.default_rng(seed)))
    with torch.no_grad():
        if teacher_forcing:
            out = model(src, src_len, tgt_in).argmax(-1)
        else:
            out, _ = model.generate(src, src_len, length + 1)
    acc = np.zeros(length)
    for t in range(length):
        acc[length - 1 - t] = (out[:, t] == tgt_out[:, t]).float().mean().item()
    return acc
'''),
    (6, "compared with the reversed source tokens", '''
def digit_accuracy_by_position(model, length=10, n=500, seed=2, teacher_forcing=True):
    src, src_len, tgt_in, tgt_out = encode_batch(make_pairs(n, length, length,
                                                            np.random.default_rng(seed)))
    with torch.no_grad():
        out = (model(src, src_len, tgt_in).argmax(-1) if teacher_forcing
               else model.generate(src, src_len, length + 1)[0])
    return (out[:, :length].flip(1) == src).double().mean(0).numpy()
'''),
    (7, "index arrays for the block order", '''
def keras_to_torch_gru(kernel, recurrent_kernel, bias):
    E = recurrent_kernel.shape[0]
    idx = np.r_[E:2 * E, 0:E, 2 * E:3 * E]          # (r, z, n) taken from (z, r, h)
    return (np.ascontiguousarray(kernel[:, idx].T), np.ascontiguousarray(recurrent_kernel[:, idx].T),
            bias[0, idx], bias[1, idx])
'''),
    (1, "sigmoid written with np.exp(-np.logaddexp(0, -a)), slices instead of split", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    E = h.shape[1]
    sig = lambda a: np.exp(-np.logaddexp(0.0, -a))
    gi, gh = x @ W_ih.T + b_ih, h @ W_hh.T + b_hh     # the candidate's block of gh unused
    r = sig(gi[:, :E] + gh[:, :E])
    z = sig(gi[:, E:2 * E] + gh[:, E:2 * E])
    n = np.tanh(gi[:, 2 * E:] + (r * h) @ W_hh[2 * E:].T + b_hh[2 * E:])
    return n + z * (h - n)
'''),
    (1, "one matrix per gate, the weights split first", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    (W_ir, W_iz, W_in), (W_hr, W_hz, W_hn) = np.split(W_ih, 3), np.split(W_hh, 3)
    (b_ir, b_iz, b_in), (b_hr, b_hz, b_hn) = np.split(b_ih, 3), np.split(b_hh, 3)
    sig = lambda a: 0.5 * (1 + np.tanh(a / 2))
    r = sig(x @ W_ir.T + b_ir + h @ W_hr.T + b_hr)
    z = sig(x @ W_iz.T + b_iz + h @ W_hz.T + b_hz)
    n = np.tanh(x @ W_in.T + b_in + (r * h) @ W_hn.T + b_hn)
    return (1 - z) * n + z * h
'''),
    (1, "np.einsum throughout", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    E = h.shape[1]
    W = lambda M, k: M[k * E:(k + 1) * E]
    b = lambda v, k: v[k * E:(k + 1) * E]
    sig = lambda a: 1 / (1 + np.exp(-a))
    pre = lambda k: (np.einsum("bi,ei->be", x, W(W_ih, k)) + b(b_ih, k))
    r = sig(pre(0) + np.einsum("bi,ei->be", h, W(W_hh, 0)) + b(b_hh, 0))
    z = sig(pre(1) + np.einsum("bi,ei->be", h, W(W_hh, 1)) + b(b_hh, 1))
    n = np.tanh(pre(2) + np.einsum("bi,ei->be", r * h, W(W_hh, 2)) + b(b_hh, 2))
    return (1 - z) * n + z * h
'''),
    (4, "torch.autograd.grad", '''
def gradient_norm_by_position(rnn, x):
    x = x.detach().requires_grad_()
    (g,) = torch.autograd.grad(rnn(x)[1][-1].sum(), x)
    return g.norm(dim=-1).mean(dim=0).detach().numpy()
'''),
    (4, "the output's last time step (the top layer's final state)", '''
def gradient_norm_by_position(rnn, x):
    x = x.detach().clone().requires_grad_()
    (g,) = torch.autograd.grad(rnn(x)[0][:, -1].sum(), x)
    return g.norm(dim=-1).mean(dim=0).numpy()
'''),
    (3, "log-probabilities through logsumexp, not log_softmax (same values, stable)", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logp = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
    picked = logp.gather(-1, tgt_out[..., None]).squeeze(-1)
    mask = tgt_out != pad
    return -(picked * mask).sum() / mask.sum()
'''),
    (4, ".backward(inputs=[x]): only x receives a gradient", '''
def gradient_norm_by_position(rnn, x):
    x = x.detach().clone().requires_grad_()
    rnn(x)[1][-1].sum().backward(inputs=[x])
    return x.grad.norm(dim=-1).mean(dim=0).numpy()
'''),
]
