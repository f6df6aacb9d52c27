"""Chapter 18, piece bias: the BIAS / SOFTCAP flags of flash_fwd_bias_triton and bias_bytes."""
import math

import numpy as np
import pytest

from nbcommon import missing_requirement  # noqa: E402

if missing_requirement("18_kernels.ipynb"):   # no Triton on this platform
    pytest.skip(missing_requirement("18_kernels.ipynb"), allow_module_level=True)
import torch  # noqa: E402

from attnlab.kernels import bias_bytes, flash_fwd_bias_triton  # noqa: E402
from attnlab.masks import causal_mask_np, masked_softmax_np  # noqa: E402
from attnlab.open_models import softcap_np  # noqa: E402
from attnlab.positional_encoding import alibi_bias_np, t5_relative_bucket_np  # noqa: E402


def _reference(q, k, v, bias, allowed, cap):
    """float64: scale, cap, + bias, mask, softmax; GQA by repeating K/V heads."""
    q, k, v = (t.double().numpy() for t in (q, k, v))
    G = q.shape[1] // k.shape[1]
    k, v = k.repeat(G, 1), v.repeat(G, 1)
    s = softcap_np(q @ k.swapaxes(-1, -2) / math.sqrt(q.shape[-1]), cap)  # (B, H, L, S)
    if bias is not None:
        s = s + bias
    allowed = np.ones(s.shape[-2:], bool) if allowed is None else allowed
    return masked_softmax_np(s, allowed) @ v


def _t5_dense(table, L, S, o, bidir, md):
    rel = np.arange(S)[None, :] - (np.arange(L)[:, None] + o)
    return table.double().numpy()[:, t5_relative_bucket_np(rel, bidir, table.shape[1], md)]


CASES = [  # B, H, Hkv, L, S, D, causal, align, flag, cap
    (1, 4, 2, 37, 53, 16, True, "bottom-right", "alibi", None),
    (1, 2, 1, 45, 70, 16, True, "bottom-right", "t5-causal", None),
    (1, 2, 2, 33, 20, 16, False, "top-left", "t5", 2.0),
    (2, 2, 1, 29, 29, 64, True, "top-left", "dense", 1.5),
    (1, 2, 2, 40, 21, 16, True, "bottom-right", "none", 3.0),    # 19 rows see no key
]


@pytest.mark.parametrize("B,H,Hkv,L,S,D,causal,align,flag,cap", CASES)
def test_flag_matches_dense_reference(B, H, Hkv, L, S, D, causal, align, flag, cap):
    g = torch.Generator().manual_seed(L + S + D)
    q, k, v = (torch.randn(B, n, m, D, generator=g) for n, m in ((H, L), (Hkv, S), (Hkv, S)))
    o = S - L if align == "bottom-right" else 0
    kw, dense = dict(causal=causal, align=align, softcap=cap), None
    if flag == "alibi":
        kw["alibi"], dense = True, alibi_bias_np(H, L, S)
    elif flag.startswith("t5"):
        table = torch.randn(H, 32, generator=g)
        kw.update(t5_table=table, t5_bidirectional=flag == "t5", t5_max_distance=24)
        dense = _t5_dense(table, L, S, o, flag == "t5", 24)
    elif flag == "dense":
        kw["bias"] = torch.randn(B, H, L, S, generator=g)
        dense = kw["bias"].double().numpy()
    dev = "cuda" if torch.cuda.is_available() else "cpu"   # the interpreter runs on the CPU
    kw = {n: a.to(dev) if isinstance(a, torch.Tensor) else a for n, a in kw.items()}
    out, lse = (t.cpu() for t in flash_fwd_bias_triton(q.to(dev), k.to(dev), v.to(dev), **kw))
    allowed = causal_mask_np(L, S, align) if causal else None
    ref = _reference(q, k, v, dense, allowed, cap)
    assert np.abs(out.double().numpy() - ref).max() <= 2e-5     # float32 tiles vs float64
    if allowed is not None:
        empty = np.broadcast_to(~allowed.any(-1), lse.shape)     # rows with no visible key
        assert np.array_equal(np.isneginf(lse.numpy()), empty)


def test_bias_bytes_at_4096():
    c = bias_bytes(1, 32, 32, 4096, 4096, 128, "dense")
    assert c["q"] + c["k"] + c["v"] == 96 * 2**20 and c["bias"] == 2**30
    assert bias_bytes(1, 32, 32, 4096, 4096, 128, "alibi")["bias"] == 128
    assert bias_bytes(1, 32, 32, 4096, 4096, 128, "t5")["bias"] == 4096
    with pytest.raises(ValueError, match="kind must be one of"):
        bias_bytes(1, 1, 1, 1, 1, 16, "rope")


def test_bad_inputs_name_argument_and_fix():
    q, k = torch.randn(1, 4, 5, 16), torch.randn(1, 2, 9, 16)
    bad = [(dict(bias=torch.zeros(4, 5, 9)), "bias must be"),
           (dict(t5_table=torch.zeros(2, 32)), "t5_table must be"),
           (dict(t5_table=torch.zeros(4, 32), t5_max_distance=4), "t5_max_distance"),
           (dict(softcap=0.0), "softcap must be"),
           (dict(softcap=-1.0), "softcap must be"),
           (dict(alibi=True), 'align="bottom-right"'),
           (dict(alibi=True, t5_table=torch.zeros(4, 32)), "at most one"),
           (dict(align="middle"), "align must be")]
    for kw, msg in bad:
        with pytest.raises(ValueError, match=msg):
            flash_fwd_bias_triton(q, k, k, **kw)
    with pytest.raises(ValueError, match="zero-pad"):
        flash_fwd_bias_triton(q[..., :12], k[..., :12], k[..., :12])
    with pytest.raises(ValueError, match="H % Hkv"):
        flash_fwd_bias_triton(q[:, :3], k, k)
    with pytest.raises(TypeError, match=r"\.float\(\)"):
        flash_fwd_bias_triton(q.double(), k.double(), k.double())
    with pytest.raises(ValueError, match=r"contiguous\(\)"):
        flash_fwd_bias_triton(q, torch.randn(1, 2, 16, 9).transpose(-1, -2), k)
