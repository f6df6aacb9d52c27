"""Wrong answers a learner would plausibly write for chapter 1's exercises."""
WRONG = [
    (1, "gates read in the order z, r, n (Keras's order)", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    gi, gh = x @ W_ih.T + b_ih, h @ W_hh.T + b_hh
    i_z, i_r, i_n = np.split(gi, 3, axis=-1)
    h_z, h_r, h_n = np.split(gh, 3, axis=-1)
    sig = lambda a: 1 / (1 + np.exp(-a))
    r, z = sig(i_r + h_r), sig(i_z + h_z)
    n = np.tanh(i_n + r * h_n)
    return (1 - z) * n + z * h
'''),
    (1, "reset gate applied before the product (the paper's variant)", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    E = h.shape[1]
    i_r, i_z, i_n = np.split(x @ W_ih.T + b_ih, 3, axis=-1)
    sig = lambda a: 1 / (1 + np.exp(-a))
    r = sig(i_r + h @ W_hh[:E].T + b_hh[:E])
    z = sig(i_z + h @ W_hh[E:2 * E].T + b_hh[E:2 * E])
    n = np.tanh(i_n + (r * h) @ W_hh[2 * E:].T + b_hh[2 * E:])
    return (1 - z) * n + z * h
'''),
    (1, "update gate mixed the other way round", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    i_r, i_z, i_n = np.split(x @ W_ih.T + b_ih, 3, axis=-1)
    h_r, h_z, h_n = np.split(h @ W_hh.T + b_hh, 3, axis=-1)
    sig = lambda a: 1 / (1 + np.exp(-a))
    r, z = sig(i_r + h_r), sig(i_z + h_z)
    n = np.tanh(i_n + r * h_n)
    return z * n + (1 - z) * h
'''),
    (1, "reset gate multiplies the state term without its bias", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    E = h.shape[1]
    i_r, i_z, i_n = np.split(x @ W_ih.T + b_ih, 3, axis=-1)
    h_r, h_z, h_n = np.split(h @ W_hh.T, 3, axis=-1)
    b_hr, b_hz, b_hn = np.split(b_hh, 3)
    sig = lambda a: 1 / (1 + np.exp(-a))
    r, z = sig(i_r + h_r + b_hr), sig(i_z + h_z + b_hz)
    n = np.tanh(i_n + r * h_n + b_hn)
    return (1 - z) * n + z * h
'''),
    (1, "the package's function instead of one's own", '''
from attnlab.rnn_bottleneck import gru_cell_np as gru_step
'''),
    (1, "returns a torch tensor", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    cell = nn.GRUCell(x.shape[1], h.shape[1]).double()
    with torch.no_grad():
        for p, w in zip((cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh),
                        (W_ih, W_hh, b_ih, b_hh)):
            p.copy_(torch.from_numpy(w))
        return cell(torch.from_numpy(x), torch.from_numpy(h))
'''),
    (2, "the last position of the padded batch", '''
def final_state(states, lengths):
    return states[:, -1]
'''),
    (2, "off by one: position lengths instead of lengths - 1", '''
def final_state(states, lengths):
    return states[torch.arange(states.shape[0]), (lengths).clamp(max=states.shape[1] - 1)]
'''),
    (2, "one index only: every row gets every length", '''
def final_state(states, lengths):
    return states[:, lengths - 1]
'''),
    (2, "the state after the first token", '''
def final_state(states, lengths):
    return states[:, 0]
'''),
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
    (3, "log_softmax over the wrong axis", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logp = torch.log_softmax(logits, dim=1)
    picked = logp.gather(-1, tgt_out[..., None]).squeeze(-1)
    mask = tgt_out != pad
    return -(picked * mask).sum() / mask.sum()
'''),
    (3, "the built-in loss, which the exercise excludes", '''
def masked_cross_entropy(logits, tgt_out, pad):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1),
                           ignore_index=pad)
'''),
    (3, "the package's loss, which wraps the built-in one", '''
from attnlab.rnn_bottleneck import sequence_loss

def masked_cross_entropy(logits, tgt_out, pad):
    return sequence_loss(logits, tgt_out)
'''),
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
    (4, "returns a torch tensor", '''
def gradient_norm_by_position(rnn, x):
    x = x.detach().clone().requires_grad_()
    rnn(x)[1].sum().backward()
    return x.grad.norm(dim=-1).mean(dim=0)
'''),
]

RIGHT = [
    (1, "sigmoid written with np.exp(-np.logaddexp(0, -a))", '''
def gru_step(x, h, W_ih, W_hh, b_ih, b_hh):
    E = h.shape[1]
    sig = lambda a: np.exp(-np.logaddexp(0.0, -a))
    gi, gh = x @ W_ih.T + b_ih, h @ W_hh.T + b_hh
    r = sig(gi[:, :E] + gh[:, :E])
    z = sig(gi[:, E:2 * E] + gh[:, E:2 * E])
    n = np.tanh(gi[:, 2 * E:] + r * gh[:, 2 * E:])
    return n + z * (h - n)
'''),
    (2, "torch.gather", '''
def final_state(states, lengths):
    index = (lengths - 1)[:, None, None].expand(-1, 1, states.shape[-1])
    return states.gather(1, index)[:, 0]
'''),
    (3, "boolean indexing of the real tokens", '''
def masked_cross_entropy(logits, tgt_out, pad):
    logp = torch.log_softmax(logits, dim=-1)
    real = tgt_out != pad
    return -logp[real].gather(-1, tgt_out[real][:, None]).mean()
'''),
    (4, "torch.autograd.grad", '''
def gradient_norm_by_position(rnn, x):
    x = x.detach().requires_grad_()
    (g,) = torch.autograd.grad(rnn(x)[1].sum(), x)
    return g.norm(dim=-1).mean(dim=0).detach().numpy()
'''),
]
