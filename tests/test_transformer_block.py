"""attnlab.transformer_block against PyTorch's built-ins, in float64, on awkward sizes."""
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn as nn

from attnlab.masks import causal_mask_pt, padding_mask_pt
from attnlab.multi_head_attention import MultiHeadAttention
from attnlab.transformer_block import (DecoderBlock, EncoderBlock, FeedForward, LayerNorm,
                                       RMSNorm, Seq2SeqTransformer, SwiGLU, block_params_np,
                                       encoder_block_np, ffn_np, init_block_params_np,
                                       layer_norm_np, llama_ffn_width, rms_norm_np,
                                       to_torch_decoder_layer, to_torch_encoder_layer)

ROOT = Path(__file__).resolve().parent.parent
TOL64 = 1e-12


def randomise(module, scale=0.2):
    with torch.no_grad():
        for p in module.parameters():
            p.add_(scale * torch.randn_like(p))
    return module


@pytest.mark.parametrize("E", [1, 7, 13, 64])
def test_layer_norm_matches_nn(E):
    torch.manual_seed(E)
    x = 3 * torch.randn(5, 4, E, dtype=torch.float64) + 2
    ours = randomise(LayerNorm(E, eps=1e-5).double())
    ref = nn.LayerNorm(E, eps=1e-5).double()
    ref.load_state_dict(ours.state_dict())
    assert (ours(x) - ref(x)).abs().max() <= TOL64
    np_out = layer_norm_np(x.numpy(), ours.weight.detach().numpy(), ours.bias.detach().numpy())
    assert np.abs(np_out - ref(x).detach().numpy()).max() <= TOL64


@pytest.mark.parametrize("E,eps", [(1, 1e-6), (9, 1e-6), (16, 1e-2)])
def test_rms_norm_matches_nn(E, eps):
    torch.manual_seed(E)
    x = torch.randn(3, 11, E, dtype=torch.float64) + 1
    ours = randomise(RMSNorm(E, eps=eps).double())
    ref = nn.RMSNorm(E, eps=eps).double()
    ref.load_state_dict(ours.state_dict())
    assert (ours(x) - ref(x)).abs().max() <= TOL64
    np_out = rms_norm_np(x.numpy(), ours.weight.detach().numpy(), eps)
    assert np.abs(np_out - ref(x).detach().numpy()).max() <= TOL64


@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_ffn_numpy_matches_module(activation):
    torch.manual_seed(0)
    ffn = randomise(FeedForward(10, 17, activation)).double()
    x = torch.randn(2, 5, 10, dtype=torch.float64)
    out_np = ffn_np(x.numpy(), ffn.linear1.weight.detach().numpy().T,
                    ffn.linear1.bias.detach().numpy(), ffn.linear2.weight.detach().numpy().T,
                    ffn.linear2.bias.detach().numpy(), activation)
    assert np.abs(out_np - ffn(x).detach().numpy()).max() <= TOL64


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("H", [3, 4])
def test_encoder_block_matches_torch(norm_first, activation, masked, H):
    torch.manual_seed(H)
    B, L, E = 3, 7, 12
    blk = randomise(EncoderBlock(E, H, F=21, activation=activation,
                                 norm_first=norm_first)).double().eval()
    ref = to_torch_encoder_layer(blk)
    x = torch.randn(B, L, E, dtype=torch.float64)
    allowed = padding_mask_pt(torch.tensor([7, 3, 1]), L) if masked else None
    kpm = None if allowed is None else ~allowed[:, 0, 0, :]
    out, w = blk(x, allowed)
    assert w.shape == (B, H, L, L)
    assert (out - ref(x, src_key_padding_mask=kpm)).abs().max() <= TOL64
    with torch.no_grad():        # H even: PyTorch's fused fast path; same numbers
        assert (out - ref(x, src_key_padding_mask=kpm)).abs().max() <= TOL64
    out_np, w_np = encoder_block_np(x.numpy(), block_params_np(blk), H, norm_first,
                                    None if allowed is None else allowed.numpy(), activation)
    assert np.abs(out_np - out.detach().numpy()).max() <= TOL64
    assert np.abs(w_np - w.detach().numpy()).max() <= TOL64


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_decoder_block_matches_torch(norm_first, activation):
    torch.manual_seed(1)
    B, L, S, E, H = 2, 5, 9, 15, 5
    dec = randomise(DecoderBlock(E, H, F=19, activation=activation,
                                 norm_first=norm_first)).double().eval()
    x = torch.randn(B, L, E, dtype=torch.float64)
    memory = torch.randn(B, S, E, dtype=torch.float64)
    mem_allowed = padding_mask_pt(torch.tensor([9, 4]), S)
    out, w_self, w_cross = dec(x, memory, causal_mask_pt(L), mem_allowed)
    ref = to_torch_decoder_layer(dec)(x, memory, tgt_mask=~causal_mask_pt(L),
                                      memory_key_padding_mask=~mem_allowed[:, 0, 0, :])
    assert (out - ref).abs().max() <= TOL64
    assert w_self.shape == (B, H, L, L) and w_cross.shape == (B, H, L, S)
    assert (w_cross[1, :, :, 4:] == 0).all() and (w_self.triu(1) == 0).all()


def test_float32_agrees_within_1e_5():
    torch.manual_seed(2)
    blk = randomise(EncoderBlock(16, 4, F=24, norm_first=True)).eval()
    x = torch.randn(2, 6, 16)
    assert (blk(x)[0] - to_torch_encoder_layer(blk)(x)).abs().max() <= 1e-5


@pytest.mark.parametrize("E", [8, 64, 100])
def test_parameter_counts(E):
    with torch.device("meta"):
        enc, dec = EncoderBlock(E, 4), DecoderBlock(E, 4)
        ref_enc = nn.TransformerEncoderLayer(E, 4, 4 * E, batch_first=True)
        ref_dec = nn.TransformerDecoderLayer(E, 4, 4 * E, batch_first=True)
        swiglu = SwiGLU(E, 3 * E)
    count = lambda m: sum(p.numel() for p in m.parameters())     # noqa: E731
    assert count(enc) == 12 * E**2 + 13 * E == count(ref_enc)
    assert count(dec) == 16 * E**2 + 19 * E == count(ref_dec)
    assert count(swiglu) == 3 * E * 3 * E
    assert llama_ffn_width(4096) == 11008


def test_dropout_train_and_eval():
    torch.manual_seed(3)
    for blk, args in [(EncoderBlock(16, 4, dropout=0.2), ()),
                      (DecoderBlock(16, 4, dropout=0.2), (torch.randn(2, 7, 16),))]:
        x = torch.randn(2, 5, 16)
        blk.eval()
        assert torch.equal(blk(x, *args)[0], blk(x, *args)[0])
        blk.train()
        assert not torch.allclose(blk(x, *args)[0], blk(x, *args)[0])
    mha = MultiHeadAttention(8, 2, dropout=0.5).train()
    q = torch.randn(1, 4, 8)
    _, w = mha(q, q, q)
    assert torch.allclose(w.sum(-1), torch.ones(1, 2, 4))      # weights before dropout


def test_numpy_block_padding_invariance():
    rng = np.random.default_rng(0)
    params = init_block_params_np(12, 20, rng)
    x = rng.normal(size=(2, 6, 12))
    allowed = padding_mask_pt(torch.tensor([6, 3]), 6).numpy()
    a, _ = encoder_block_np(x, params, 4, True, allowed)
    x[1, 3:] = 50 * rng.normal(size=(3, 12))
    b, _ = encoder_block_np(x, params, 4, True, allowed)
    assert np.array_equal(a[1, :3], b[1, :3])


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="gamma"):
        layer_norm_np(np.ones((2, 5)), np.ones(4), np.zeros(4))
    with pytest.raises(ValueError, match="eps"):
        rms_norm_np(np.ones((2, 5)), np.ones(5), eps=0.0)
    with pytest.raises(ValueError, match="activation"):
        FeedForward(8, activation="tanh")
    with pytest.raises(ValueError, match="activation"):
        ffn_np(np.ones((1, 4)), np.ones((4, 6)), np.ones(6), np.ones((6, 4)), np.ones(4), "swish")
    with pytest.raises(ValueError, match="W1"):
        ffn_np(np.ones((1, 4)), np.ones((5, 6)), np.ones(6), np.ones((6, 4)), np.ones(4))
    with pytest.raises(ValueError, match=r"\(B, L, E=8\)"):
        EncoderBlock(8, 2)(torch.randn(2, 5, 6))
    with pytest.raises(ValueError, match="memory"):
        DecoderBlock(8, 2)(torch.randn(2, 5, 8), torch.randn(2, 5))
    with pytest.raises(ValueError, match="LayerNorm"):
        LayerNorm(8)(torch.randn(3, 7))
    with pytest.raises(ValueError, match="divisible"):
        EncoderBlock(10, 3)
    with pytest.raises(ValueError, match="dropout"):
        EncoderBlock(8, 2, dropout=1.0)
    with pytest.raises(ValueError, match="params lacks"):
        encoder_block_np(np.ones((1, 2, 4)), {"attn": {}}, 2)
    model = Seq2SeqTransformer(13, 16, H=2, n_layers=1, max_positions=8)
    with pytest.raises(ValueError, match="max_positions"):
        model(torch.full((1, 9), 4), torch.tensor([9]), torch.full((1, 3), 4))


def test_seq2seq_transformer_shapes_and_causality():
    torch.manual_seed(4)
    model = Seq2SeqTransformer(13, 16, H=2, n_layers=2).double().eval()
    src = torch.tensor([[4, 5, 6, 7], [8, 9, 0, 0]])
    src_len = torch.tensor([4, 2])
    tgt = torch.tensor([[1, 7, 6, 5, 4], [1, 9, 8, 3, 3]])
    logits = model(src, src_len, tgt)
    assert logits.shape == (2, 5, 13)
    tgt2 = tgt.clone(); tgt2[:, 3:] = 12                         # change the future
    assert torch.equal(model(src, src_len, tgt2)[:, :3], logits[:, :3])
    src2 = src.clone(); src2[1, 2:] = 11                         # change the padding
    assert torch.equal(model(src2, src_len, tgt)[1], logits[1])
    tokens, cross = model.generate(src, src_len, 5)
    assert tokens.shape == (2, 5) and cross.shape == (2, 2, 2, 5, 4)
    assert (cross[1, ..., 2:] == 0).all()


def test_experiment_script_quick(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "ch09_experiment", ROOT / "experiments" / "ch09_transformer_vs_rnn.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "quick.json"
    module.main(["--quick", "--out", str(out)])
    result = json.loads(out.read_text())
    assert {r["model"] for r in result["runs"]} == {"rnn", "bahdanau", "transformer"}
    assert all(len(r["accuracy"]) == len(result["test_lengths"]) for r in result["runs"])


def test_stored_experiment_result():
    result = json.loads((ROOT / "experiments" / "results" /
                         "ch09_transformer_vs_rnn.json").read_text())
    assert result["steps"] == 600 and result["seeds"] == [0, 1, 2]
    assert len(result["runs"]) == 9
    assert (ROOT / "experiments" / "results" / "ch09_transformer_seed0.pt").exists()


def test_warmup_experiment_quick(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "ch09_warmup", ROOT / "experiments" / "ch09_warmup_and_init.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "quick.json"
    module.main(["--quick", "--out", str(out)])
    result = json.loads(out.read_text())
    assert len({r["name"] for r in result["runs"]}) == 16
    assert all(r["finite"] and len(r["loss_curve"]) == len(r["acc_curve"]) == 1
               for r in result["runs"])
    assert all(r["event_step"] is None and r["steps_run"] == 3 for r in result["runs"])
    writers = [r for r in result["runs"] if r["relative_lr"]]
    assert len(writers) == 2 and all(r["residual_scaled"] for r in writers)


def test_relative_step_control_groups():
    """The control's param groups: the 12 residual writers at lr / sqrt(12), the rest at lr."""
    spec = importlib.util.spec_from_file_location(
        "ch09_warmup", ROOT / "experiments" / "ch09_warmup_and_init.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.ReverseStack(10, 12, norm_first=True, residual_scaled=True, **module.MODEL)
    groups = module.param_groups(model, 1e-3, relative_lr=True)
    assert [len(g["params"]) for g in groups][1] == 2 * module.MODEL["n_layers"]
    assert abs(groups[1]["lr"] - 1e-3 / 12 ** 0.5) < 1e-15 and groups[0]["lr"] == 1e-3
    n_all = sum(p.numel() for p in model.parameters())
    assert sum(p.numel() for g in groups for p in g["params"]) == n_all


def test_stored_warmup_result():
    result = json.loads((ROOT / "experiments" / "results" /
                         "ch09_warmup_and_init.json").read_text())
    assert result["steps"] == 1500 and result["seeds"] == [0, 1, 2]
    assert len(result["runs"]) == 48
    assert all(len(r["loss_curve"]) == len(r["acc_curve"]) == r["steps_run"] // 10
               for r in result["runs"])
    assert all((r["event_step"] is None) == (r["steps_run"] == 1500) or r["event_step"] >= 1200
               for r in result["runs"])
