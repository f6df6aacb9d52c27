"""Chapter 19, ring attention (piece ring): processes = NumPy simulation = SDPA, bytes and work
= formulas, bad inputs refused before any process starts. One fork launch for the module."""

import numpy as np
import psutil
import pytest
import torch
import torch.distributed as dist
import torch.nn.functional as F

from attnlab.distributed import (LAST_LAUNCH, check_ring_inputs, launch, processes_left,
                                 ranks_alive, ring_attention_layout_np,
                                 ring_attention_rank, ring_bytes_per_rank, ring_causal_work_np,
                                 ring_lse_merge_pt, ring_rows, zigzag_chunks)
from attnlab.flash_attention import ring_attention_np
from attnlab.masks import causal_mask_np, masked_sdpa_np

torch.set_num_threads(1)
B, H, HKV, N, D, DV = 1, 6, 2, 11, 3, 4          # GQA with Hkv < P, N prime, Dv != D
_g = torch.Generator().manual_seed(3)
Q = torch.randn(B, H, N, D, generator=_g, dtype=torch.float64)
K = torch.randn(B, HKV, N, D, generator=_g, dtype=torch.float64)
V = torch.randn(B, HKV, N, DV, generator=_g, dtype=torch.float64)


def _rank(rank, world):
    groups = {P: dist.new_group(list(range(P))) for P in range(1, world + 1)}
    res = {}
    for P in range(1, world + 1):
        if rank < P:
            for causal in (False, True):
                for layout in ("plain", "zigzag"):
                    rows, st = ring_rows(N, P, rank, layout), {}
                    out, lse = ring_attention_rank(Q[:, :, rows], K[:, :, rows], V[:, :, rows],
                                                   N, rank, P, groups[P], causal, layout,
                                                   stats=st)
                    res[P, causal, layout] = rows, out, lse, st
        dist.barrier()
    return res


@pytest.fixture(scope="module")
def launched():
    res = launch(_rank, 4, timeout_s=60)
    return res, list(LAST_LAUNCH["pids"])


@pytest.mark.parametrize("P", [1, 2, 3, 4])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("layout", ["plain", "zigzag"])
def test_processes_equal_sdpa_and_simulation(launched, P, causal, layout):
    res, _ = launched
    kr, vr = K.repeat_interleave(H // HKV, 1), V.repeat_interleave(H // HKV, 1)
    ref = F.scaled_dot_product_attention(Q, kr, vr, is_causal=causal)
    sim, sim_lse = ring_attention_layout_np(Q.numpy(), kr.numpy(), vr.numpy(), P, causal, layout)
    work = ring_causal_work_np(N, P, layout)["work"]
    for r in range(P):
        rows, out, lse, st = res[r][P, causal, layout]
        assert (out - ref[:, :, rows]).abs().max().item() <= 1e-12
        assert np.abs(out.numpy() - sim[:, :, rows.numpy()]).max() <= 1e-12
        assert np.abs(lse.numpy() - sim_lse[:, :, rows.numpy()]).max() <= 1e-12
        assert st["sent"] == ring_bytes_per_rank(P, N, B, HKV, D, DV, layout)[r]
        if causal:
            assert st["work"] == work[r].tolist()
    assert sorted(torch.cat([res[r][P, causal, layout][0] for r in range(P)]).tolist()) \
        == list(range(N))


def test_no_process_left_behind(launched):
    _, pids = launched
    alive = [p for p in pids if psutil.pid_exists(p)
             and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
    assert len(pids) == 4 and not alive and not processes_left()


@pytest.mark.parametrize("P", [1, 2, 3, 4, 5])
def test_numpy_layouts_equal_reference(P):
    rng = np.random.default_rng(P)
    q, k, v = rng.standard_normal((2, 13, 3)), rng.standard_normal((2, 13, 3)), \
        rng.standard_normal((2, 13, 5))
    for causal in (False, True):
        ref = masked_sdpa_np(q, k, v, causal_mask_np(13) if causal else None)[0]
        ch13, _ = ring_attention_np(q, k, v, P, causal=causal)
        for layout in ("plain", "zigzag"):
            out, _ = ring_attention_layout_np(q, k, v, P, causal, layout)
            assert np.abs(out - ref).max() <= 1e-12 and np.abs(out - ch13).max() <= 1e-12


def test_work_counts():
    w = ring_causal_work_np(16, 4, "plain")
    assert w["work"].sum(1).tolist() == [16, 32, 48, 64] and w["skipped"] == 6
    z = ring_causal_work_np(16, 4, "zigzag")
    assert z["work"].sum(1).tolist() == [36] * 4 and (z["computed"], z["skipped"]) == (36, 28)
    for P in (2, 3, 4):
        assert abs(ring_causal_work_np(1020, P, "plain")["max_over_mean"]
                   - 2 * P / (P + 1)) < 2e-3
    assert ring_causal_work_np(13, 4, "zigzag")["max_over_mean"] > \
        ring_causal_work_np(13, 4, "plain")["max_over_mean"]      # tiny N: zigzag worse
    assert zigzag_chunks(5, 2) == [[(0, 2), (4, 5)], [(2, 3), (3, 4)]]


def test_bytes_formula_equal_shards():
    for P in (2, 4):
        assert ring_bytes_per_rank(P, 16, 2, 3, 4, 4) == \
            [(P - 1) * 16 // P * 2 * 3 * (4 + 4) * 8] * P     # (P-1)/P N B Hkv (Dk+Dv) 8


def test_merge_edge_cases():
    out, lse = torch.zeros(2, 3, dtype=torch.float64), torch.full((2,), -torch.inf,
                                                                  dtype=torch.float64)
    o, l = ring_lse_merge_pt(out, lse, out.clone(), lse.clone())     # empty with empty
    assert torch.equal(o, out) and torch.isneginf(l).all()
    o_t, l_t = torch.ones(2, 3, dtype=torch.float64), torch.tensor([1000.0, -1000.0],
                                                                    dtype=torch.float64)
    o, l = ring_lse_merge_pt(2 * o_t, torch.tensor([0.0, 0.0], dtype=torch.float64), o_t, l_t)
    assert torch.isfinite(o).all() and torch.allclose(o[0], o_t[0], rtol=0, atol=1e-12)
    assert torch.allclose(o[1], 2 * o_t[1], rtol=0, atol=1e-12)


@pytest.mark.parametrize("args, words", [
    ((Q, K, V, 12), ["P=12", "N=11", "P <= 11"]),
    ((Q, K, V, 6, "zigzag"), ["zigzag", "P <= 5", "plain"]),
    ((Q, K.float(), V, 2), ["k", "float32", ".double()"]),
    ((Q[:, :5], K, V, 2), ["H=5", "Hkv=2"]),
    ((Q, K, V[..., :5, :], 2), ["v", "match"]),
    ((Q, K, V, 2, "spiral"), ["layout", "plain", "zigzag"]),
    ((Q, K, V, 2.0), ["P=2.0", "integer"]),
])
def test_bad_inputs_refused_before_start(args, words):
    with pytest.raises(ValueError) as e:
        check_ring_inputs(*args)
    assert all(w in str(e.value) for w in words), str(e.value)
    with pytest.raises(ValueError, match="2P <= N=5"):
        zigzag_chunks(5, 3)


def test_torchrun_job_runs_under_the_launcher():
    """`python -m attnlab.distributed ring` runs this job in every rank; here under launch."""
    from attnlab.distributed import _rg_torchrun_job
    launch(_rg_torchrun_job, 3, timeout_s=60)
    assert not ranks_alive() and not processes_left()
