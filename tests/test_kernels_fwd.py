"""Chapter 18, fwd piece: flash_fwd_triton, its tile counts and its backward against the
book's float64 references, on sizes the blocks do not divide; and the wrapper's errors."""
import numpy as np
import pytest

from nbcommon import missing_requirement  # noqa: E402

if missing_requirement("18_kernels.ipynb"):   # no Triton on this platform
    pytest.skip(missing_requirement("18_kernels.ipynb"), allow_module_level=True)
import triton  # noqa: E402
import torch  # noqa: E402

from attnlab.flash_attention import flash_attention_backward_np, flash_attention_np  # noqa: E402
from attnlab.kernels import (FlashAttentionTriton, flash_fwd_tiles_triton,  # noqa: E402
                             flash_fwd_triton)


def _inputs(B, H, Hkv, L, S, D, seed=0, grad=False):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(B, H, L, D, generator=g, requires_grad=grad)
    k, v = (torch.randn(B, Hkv, S, D, generator=g, requires_grad=grad) for _ in range(2))
    return q, k, v


@pytest.mark.parametrize("B,H,Hkv,L,S,D,causal,align,bm,bn", [
    (1, 2, 2, 70, 33, 16, True, "bottom-right", 32, 32),   # L > S: rows with no key
    (1, 4, 2, 45, 103, 64, True, "bottom-right", 16, 32),  # GQA
    (2, 2, 1, 77, 50, 16, True, "top-left", 32, 16),       # MQA
    (1, 2, 2, 33, 40, 32, False, "top-left", 16, 16),
])
def test_forward_matches_chapter_13(B, H, Hkv, L, S, D, causal, align, bm, bn):
    q, k, v = _inputs(B, H, Hkv, L, S, D, seed=L + S)
    out, lse = flash_fwd_triton(q, k, v, causal, align, block_m=bm, block_n=bn)
    g = H // Hkv
    ref, ref_lse = flash_attention_np(q.numpy(), k.numpy().repeat(g, 1), v.numpy().repeat(g, 1),
                                      causal=causal, align=align)
    assert out.shape == q.shape and lse.shape == (B, H, L) and lse.dtype == torch.float32
    assert np.abs(out.numpy() - ref).max() <= 2e-6
    empty = np.isinf(ref_lse)
    assert (np.isinf(lse.numpy()) == empty).all() and (out.numpy()[empty] == 0).all()
    assert np.abs(lse.numpy()[~empty] - ref_lse[~empty]).max() <= 1e-5


def test_scores_near_minus_120():
    q, k, v = _inputs(1, 1, 1, 40, 50, 16, seed=3)
    u = torch.ones(16)
    q, k = 30 * u + 0.1 * q, -u + 0.1 * k
    out, _ = flash_fwd_triton(q, k, v)
    ref, _ = flash_attention_np(q.numpy(), k.numpy(), v.numpy())
    assert np.abs(out.numpy() - ref).max() <= 1e-4


@pytest.mark.parametrize("L,S,bm,bn", [(70, 33, 32, 32), (45, 103, 16, 32), (33, 70, 16, 16)])
@pytest.mark.parametrize("align", ["top-left", "bottom-right"])
def test_tile_counts_equal_chapter_13(L, S, bm, bn, align):
    q, k, _ = _inputs(1, 1, 1, L, S, 16)
    tiles = flash_fwd_tiles_triton(q, k, k, True, align, bm, bn)
    counts = {}
    flash_attention_np(q[0, 0].numpy(), k[0, 0].numpy(), k[0, 0].numpy(), causal=True,
                       align=align, block_q=bm, block_k=bn, counts=counts)
    assert int(tiles.sum()) == counts["computed"]


def test_backward_matches_chapter_13():
    q, k, v = _inputs(1, 4, 2, 45, 70, 16, seed=5, grad=True)
    dout = torch.randn(1, 4, 45, 16, generator=torch.Generator().manual_seed(6))
    FlashAttentionTriton.apply(q, k, v, True, "bottom-right").backward(dout)
    kr, vr = (t.detach().numpy().repeat(2, 1) for t in (k, v))
    o, lse = flash_attention_np(q.detach().numpy(), kr, vr, causal=True, align="bottom-right")
    dq, dk, dv = flash_attention_backward_np(q.detach().numpy(), kr, vr, o, dout.numpy(), lse,
                                             causal=True, align="bottom-right")
    assert np.abs(q.grad.numpy() - dq).max() <= 1e-5
    assert np.abs(k.grad.numpy() - dk.reshape(1, 2, 2, 70, 16).sum(2)).max() <= 1e-5
    assert np.abs(v.grad.numpy() - dv.reshape(1, 2, 2, 70, 16).sum(2)).max() <= 1e-5


_q, _kv = torch.randn(1, 4, 20, 16), torch.randn(1, 2, 30, 16)


@pytest.mark.parametrize("kw,exc,words", [
    (dict(q=_q.double()), TypeError, ["q must be", "q.float()"]),
    (dict(q=_q.transpose(2, 3).contiguous().transpose(2, 3)), ValueError,
     ["q must be contiguous", "q.contiguous()"]),
    (dict(q=torch.randn(1, 4, 20, 24), k=torch.randn(1, 2, 30, 24), v=torch.randn(1, 2, 30, 24)),
     ValueError, ["head size D", "zero-pad"]),
    (dict(k=torch.randn(1, 3, 30, 16), v=torch.randn(1, 3, 30, 16)), ValueError,
     ["Hkv=3", "divisors"]),
    (dict(k=torch.randn(1, 2, 0, 16), v=torch.randn(1, 2, 0, 16)), ValueError,
     ["S=0", "skip the call"]),
    (dict(k=_kv.half()), TypeError, ["share a dtype", ".to(q.dtype)"]),
    (dict(align="bottom_right"), ValueError, ["align must be"]),
    (dict(block_m=48), ValueError, ["block_m", "power of two"]),
])
def test_bad_inputs_name_argument_and_fix(kw, exc, words):
    args = dict(q=_q, k=_kv, v=_kv, causal=True)
    args.update(kw)
    with pytest.raises(exc) as info:
        flash_fwd_triton(**args)
    for w in words:
        assert w in str(info.value)


def test_bfloat16_refused_under_the_interpreter():
    import os
    if os.environ.get("TRITON_INTERPRET") != "1":
        pytest.skip("bfloat16 is refused only under Triton's interpreter")
    with pytest.raises(TypeError, match="interpreter"):
        flash_fwd_triton(_q.bfloat16(), _kv.bfloat16(), _kv.bfloat16())
