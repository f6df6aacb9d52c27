"""Chapter 18, packed sequences: packed attention equals each document alone (NumPy, SDPA,
the Triton varlen kernel), cu_seqlens and its mask, best-fit packing, and the bad-input errors."""
import pytest

from nbcommon import missing_requirement  # noqa: E402

if missing_requirement("18_kernels.ipynb"):   # no Triton on this platform
    pytest.skip(missing_requirement("18_kernels.ipynb"), allow_module_level=True)

import numpy as np  # noqa: E402
import torch  # noqa: E402

from attnlab.kernels import (check_cu_seqlens, cu_seqlens_from_lengths,  # noqa: E402
                             mask_from_cu_seqlens_np, pack_best_fit_decreasing,
                             packed_attention_np, packed_attention_pt, packed_document_mask_np,
                             packed_row_layout, varlen_attention_np, varlen_attention_triton)
from attnlab.masks import causal_mask_np, masked_sdpa_np  # noqa: E402
from attnlab.positional_encoding import rope_rotate_half_np  # noqa: E402

torch.set_num_threads(1)


def _alone(q, k, v):
    g, n = q.shape[0] // k.shape[0], q.shape[1]
    qr = rope_rotate_half_np(q, np.arange(n))
    kr = np.repeat(rope_rotate_half_np(k, np.arange(n)), g, axis=0)
    return masked_sdpa_np(qr, kr, np.repeat(v, g, axis=0), causal_mask_np(n))[0]


@pytest.mark.parametrize("rows,T,H,Hkv,D,Dv", [
    ([[5, 17, 1, 33, 9], [40, 23]], 77, 4, 2, 16, 16),      # pads, a 1-token document, GQA
    ([[1, 1, 70]], 72, 6, 3, 64, 24),                        # no pad, Dv != D
    ([[1]], 5, 2, 1, 16, 8),                                 # one token, MQA
    ([[33, 31]], 64, 2, 2, 16, 64),                          # full row, MHA
])
def test_packed_equals_alone(rows, T, H, Hkv, D, Dv):
    rng = np.random.default_rng(T + H)
    B = len(rows)
    xq, xk, xv = np.zeros((B, H, T, D)), np.zeros((B, Hkv, T, D)), np.zeros((B, Hkv, T, Dv))
    docs = []
    for b, row in enumerate(rows):
        s = 0
        for n in row:
            q, k, v = (rng.standard_normal(sh) for sh in ((H, n, D), (Hkv, n, D), (Hkv, n, Dv)))
            xq[b, :, s:s + n], xk[b, :, s:s + n], xv[b, :, s:s + n] = q, k, v
            docs.append((b, s, n, _alone(q, k, v)))
            s += n
    lay = [packed_row_layout(r, T) for r in rows]
    pos = np.stack([p for _, p in lay])
    allowed = np.stack([packed_document_mask_np(d) for d, _ in lay])
    out, w = packed_attention_np(xq, xk, xv, pos, allowed)
    o_pt = packed_attention_pt(*(torch.from_numpy(a) for a in (xq, xk, xv, pos, allowed)))
    for b, s, n, ref in docs:
        np.testing.assert_allclose(out[b, :, s:s + n], ref, atol=1e-12, rtol=0)
        np.testing.assert_allclose(o_pt.numpy()[b, :, s:s + n], ref, atol=1e-12, rtol=0)
    for b, row in enumerate(rows):
        assert np.all(out[b, :, sum(row):] == 0)                 # pad rows: zero output
        doc = lay[b][0]
        other = (doc[None, :] != doc[:, None])
        assert np.all(w[b][:, other] == 0)                       # no weight leaks


def test_layout_and_cu_seqlens():
    doc, pos = packed_row_layout([3, 1, 2], 8)
    assert doc.tolist() == [0, 0, 0, 1, 2, 2, -1, -1]
    assert pos.tolist() == [0, 1, 2, 0, 0, 1, 0, 0]
    cu, mx = cu_seqlens_from_lengths([3, 1, 2])
    assert cu.dtype == torch.int32 and cu.tolist() == [0, 3, 4, 6] and mx == 3
    assert np.array_equal(mask_from_cu_seqlens_np(cu, cu), packed_document_mask_np(doc[:6]))
    cq, _ = cu_seqlens_from_lengths([1, 2])
    ck, _ = cu_seqlens_from_lengths([3, 2])                      # bottom-right in document 0
    m = mask_from_cu_seqlens_np(cq, ck)
    assert m.tolist() == [[True, True, True, False, False],
                          [False, False, False, True, False],
                          [False, False, False, True, True]]


@pytest.mark.parametrize("q_lens,k_lens,H,Hkv,D", [([3, 17, 1, 20], [9, 17, 30, 45], 4, 2, 16),
                                                   ([70, 1], [70, 5], 2, 1, 64)])
def test_varlen_np_equals_dense_mask(q_lens, k_lens, H, Hkv, D):
    rng = np.random.default_rng(sum(k_lens))
    cq, mq = cu_seqlens_from_lengths(q_lens)
    ck, mk = cu_seqlens_from_lengths(k_lens)
    q = rng.standard_normal((int(cq[-1]), H, D))
    k, v = (rng.standard_normal((int(ck[-1]), Hkv, D)) for _ in range(2))
    m = mask_from_cu_seqlens_np(cq, ck)
    ref = np.stack([masked_sdpa_np(q[:, h], k[:, h // (H // Hkv)], v[:, h // (H // Hkv)], m)[0]
                    for h in range(H)], axis=1)
    np.testing.assert_allclose(varlen_attention_np(q, k, v, cq, ck, mq, mk), ref, atol=1e-12,
                               rtol=0)


@pytest.mark.parametrize("q_lens,k_lens,H,Hkv,D,bm", [
    ([5, 17, 1, 33, 9], [5, 17, 1, 33, 9], 4, 2, 16, 16),   # a 1-token doc, docs > block, GQA
    ([3, 17, 1, 20], [9, 17, 30, 45], 2, 1, 64, 16),         # L != S bottom-right, MQA, D 64
    ([40, 2], [40, 2], 2, 2, 16, 32),                        # another block size
])
def test_triton_varlen_equals_numpy(q_lens, k_lens, H, Hkv, D, bm):
    rng = np.random.default_rng(len(q_lens) * 7 + D)
    cq, mq = cu_seqlens_from_lengths(q_lens)
    ck, mk = cu_seqlens_from_lengths(k_lens)
    q = rng.standard_normal((int(cq[-1]), H, D))
    k, v = (rng.standard_normal((int(ck[-1]), Hkv, D)) for _ in range(2))
    ref = varlen_attention_np(q, k, v, cq, ck, mq, mk)
    t32 = [torch.tensor(a, dtype=torch.float32) for a in (q, k, v)]
    got = varlen_attention_triton(*t32, cq, ck, mq, mk, block_m=bm, block_n=bm)
    # float32 scores, exp and sums over at most 70 keys: a few ulps (1.2e-7) times the length
    np.testing.assert_allclose(got.numpy(), ref, atol=2e-6, rtol=0)


_CU, _MX = cu_seqlens_from_lengths([5, 17, 1, 33, 9])


@pytest.mark.parametrize("cu,total,mx,err,match", [
    (_CU.long(), 65, 33, TypeError, r"cu_seqlens must be a torch.int32.*to\(torch.int32\)"),
    (_CU[1:].contiguous(), 65, 33, ValueError, r"cu_seqlens\[0\] must be 0.*prepend"),
    (torch.tensor([0, 5, 5, 9], dtype=torch.int32), 9, 5, ValueError,
     r"increase strictly.*drop the empty"),
    (_CU, 77, 33, ValueError, r"cu_seqlens\[-1\] = 65.*77 tokens.*drop the pad"),
    (_CU, 65, 64, ValueError, r"max_seqlen = 64.*longest document has 33"),
    (torch.tensor([0], dtype=torch.int32), 0, 0, ValueError, r"n_docs \+ 1 >= 2"),
])
def test_cu_seqlens_errors(cu, total, mx, err, match):
    with pytest.raises(err, match=match):
        check_cu_seqlens(cu, total, mx)


_Q, _K = torch.zeros(65, 4, 16), torch.zeros(65, 2, 16)


@pytest.mark.parametrize("args,err,match", [
    ((_Q.double(), _K, _K, _CU, _CU, _MX, _MX), TypeError, r"q must be float32.*q.float\(\)"),
    ((torch.zeros(4, 65, 16).transpose(0, 1), _K, _K, _CU, _CU, _MX, _MX), ValueError,
     r"q must be a contiguous.*contiguous\(\)"),
    ((torch.zeros(65, 4, 24), torch.zeros(65, 2, 24), torch.zeros(65, 2, 24), _CU, _CU, _MX,
      _MX), ValueError, r"head size D = 24.*pad D up"),
    ((torch.zeros(65, 3, 16), _K, _K, _CU, _CU, _MX, _MX), ValueError,
     r"H must be a multiple of Hkv"),
    ((_Q, _K, _K, _CU.long(), _CU, _MX, _MX), TypeError, r"cu_seqlens_q must be a torch.int32"),
    ((_Q, _K, _K, _CU, _CU, _MX, 40), ValueError, r"max_seqlen = 40"),
    ((_Q, torch.zeros(64, 2, 16), torch.zeros(64, 2, 16), _CU,
      cu_seqlens_from_lengths([5, 17, 1, 32, 9])[0], _MX, 32), ValueError,
     r"fewer keys than queries.*s_d >= l_d"),
    ((_Q, _K, _K, _CU, cu_seqlens_from_lengths([22, 1, 42])[0], _MX, 42), ValueError,
     r"cu_seqlens_q has 5 documents, cu_seqlens_k 3"),
])
def test_triton_wrapper_errors(args, err, match):
    with pytest.raises(err, match=match):
        varlen_attention_triton(*args)


def test_layout_and_packing_errors():
    with pytest.raises(ValueError, match=r"sum to 90 > row_len=77.*pack_best_fit_decreasing"):
        packed_row_layout([50, 40], 77)
    with pytest.raises(ValueError, match=r"holds a 0.*drop it"):
        packed_row_layout([5, 0, 3], 77)
    with pytest.raises(ValueError, match=r"exceeds row_len=10.*truncate or split"):
        pack_best_fit_decreasing([3, 11], 10)
    with pytest.raises(ValueError, match=r"H must be a multiple of Hkv"):
        packed_attention_np(np.zeros((1, 3, 4, 16)), np.zeros((1, 2, 4, 16)),
                            np.zeros((1, 2, 4, 16)), np.zeros((1, 4), int),
                            np.ones((1, 4, 4), bool))


@pytest.mark.parametrize("seed,cap", [(0, 64), (1, 100), (2, 2048)])
def test_best_fit_keeps_every_document(seed, cap):
    ls = np.random.default_rng(seed).integers(1, cap + 1, size=300).tolist()
    rows = pack_best_fit_decreasing(ls, cap)
    assert sorted(n for r in rows for n in r) == sorted(ls)
    assert max(sum(r) for r in rows) <= cap
    assert len(rows) >= -(-sum(ls) // cap)
