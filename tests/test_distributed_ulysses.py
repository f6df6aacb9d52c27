"""Chapter 19, Ulysses: the processes (one fork launch of 4 for the module) equal SDPA and the
NumPy simulation in float64 at P = 1..4 on awkward sizes; bytes counted = the formulas; no
process left behind; bad input refused before any process starts, naming the argument."""
import fractions

import numpy as np
import psutil
import pytest
import torch
import torch.distributed as dist
import torch.nn.functional as F

from attnlab.distributed import (check_ulysses_world, launch, ring_bytes_per_rank,
                                 ulysses_attention_dist, ulysses_attention_np,
                                 ulysses_bytes_per_rank, ulysses_run)
from attnlab.flash_attention import shards_of
from attnlab.kv_cache import gqa_attention_np
from attnlab.masks import causal_mask_np

torch.set_num_threads(1)
CFGS = [(31, 12, 12, 2, 5), (31, 12, 6, 1, 3), (31, 12, 4, 2, 4), (7, 4, 4, 1, 6),
        (4, 12, 12, 1, 2)]                                  # (N, H, Hkv, B, D)


def _tensors(N, H, Hkv, B, D):
    g = torch.Generator().manual_seed(N * 1000 + H * 10 + Hkv)
    q = torch.randn(B, H, N, D, generator=g, dtype=torch.float64)
    k, v = torch.randn(2, B, Hkv, N, D, generator=g, dtype=torch.float64)
    return q, k, v


def _rank(rank, world, cfgs):
    groups = {P: dist.new_group(list(range(P))) for P in range(1, world + 1)}
    out = {}
    for cfg in cfgs:
        N, H, Hkv, B, D = cfg
        q, k, v = _tensors(*cfg)
        for P in range(1, world + 1):
            if rank >= P or H % P or Hkv % P or P > N:
                continue
            a, b = shards_of(N, P)[rank]
            for causal in (False, True):
                c = {}
                o = ulysses_attention_dist(q[:, :, a:b], k[:, :, a:b], v[:, :, a:b], N,
                                           groups[P], causal, c)
                out[cfg, P, causal] = (o.numpy(), c["sent"])
    return out


@pytest.fixture(scope="module")
def results():
    before = {c.pid for c in psutil.Process().children(recursive=True)}
    res = launch(_rank, 4, CFGS)
    yield res
    left = [c for c in psutil.Process().children(recursive=True)
            if c.pid not in before and c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    assert not left, f"processes left behind: {left}"


def test_processes_equal_sdpa_and_simulation(results):
    runs = set()
    for key in results[0]:
        cfg, P, causal = key
        q, k, v = _tensors(*cfg)
        got = np.concatenate([results[r][key][0] for r in range(P)], axis=2)
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
        assert np.abs(got - ref.numpy()).max() < 1e-12, key
        sim = ulysses_attention_np(q.numpy(), k.numpy(), v.numpy(), P, causal)
        assert np.abs(got - sim).max() < 1e-12, key
        N, H, Hkv, B, D = cfg
        assert [results[r][key][1] for r in range(P)] == \
            ulysses_bytes_per_rank(P, N, H, Hkv, D, 8, B), key
        runs.add(P)
    assert runs == {1, 2, 3, 4}


@pytest.mark.parametrize("P", [1, 2, 3, 4])
@pytest.mark.parametrize("Hkv", [12, 6, 4, 3])
def test_simulation_equals_gqa_reference(P, Hkv):
    if Hkv % P:
        pytest.skip("Ulysses needs P | Hkv")
    rng = np.random.default_rng(P * 10 + Hkv)
    q = rng.standard_normal((2, 12, 29, 3))
    k, v = rng.standard_normal((2, 2, Hkv, 29, 3))
    for causal in (False, True):
        c = {}
        out = ulysses_attention_np(q, k, v, P, causal, counts=c)
        ref, _ = gqa_attention_np(q, k, v, causal_mask_np(29) if causal else None)
        assert np.abs(out - ref).max() < 1e-12
        assert c["sent"] == ulysses_bytes_per_rank(P, 29, 12, Hkv, 3, 8, B=2)


@pytest.mark.parametrize("P,N,H,Hkv", [(2, 9, 6, 2), (3, 31, 12, 3), (4, 10, 8, 4),
                                       (6, 37, 12, 6)])
def test_summed_ratio_is_exact(P, N, H, Hkv):
    u = ulysses_bytes_per_rank(P, N, H, Hkv, 5)
    r = ring_bytes_per_rank(P, N, 1, Hkv, 5, 5)
    assert fractions.Fraction(sum(u), sum(r)) == fractions.Fraction(H + Hkv, P * Hkv)
    assert ulysses_bytes_per_rank(1, N, H, Hkv, 5) == [0] == ring_bytes_per_rank(1, N, 1, Hkv, 5, 5)


@pytest.mark.parametrize("P,N,H,Hkv,words", [
    (5, 31, 12, 12, ["P=5 must divide H=12", "ring attention"]),
    (4, 31, 12, 2, ["P=4 must divide Hkv=2", "repeat the K/V heads"]),
    (8, 7, 8, 8, ["P=8", "N=7", "use P <= N"]),
    (0, 7, 4, 4, ["P (world size)", "positive integer"]),
    (2, 7, 6, 4, ["multiple of Hkv=4"]),
])
def test_bad_world_refused(P, N, H, Hkv, words):
    with pytest.raises(ValueError) as e:
        check_ulysses_world(P, N, H, Hkv)
    assert all(w in str(e.value) for w in words), str(e.value)


def test_bad_input_refused_before_any_process_starts(monkeypatch):
    import attnlab.distributed as dmod

    def no_launch(*a, **kw):
        raise AssertionError("a process was started for bad input")

    monkeypatch.setattr(dmod, "launch", no_launch)
    q, k, v = _tensors(31, 12, 4, 1, 3)
    for args, words in (((q, k, v, 3), "Hkv=4"), ((q, k, v, 5), "H=12"),
                        ((q, k.float(), v, 2), "share one dtype"),
                        ((q[0], k, v, 2), "q must be a float tensor"),
                        ((q, k[:, :, :30], v, 2), "k and v must be")):
        with pytest.raises(ValueError, match=words):
            ulysses_run(*args)
    with pytest.raises(ValueError, match="float64"):
        ulysses_attention_np(q.numpy().astype(np.float32), k.numpy(), v.numpy(), 2)


def test_torchrun_job_runs_under_the_launcher():
    """`python -m attnlab.distributed ulysses` runs this job in every rank; here under launch."""
    from attnlab.distributed import _ul_torchrun_job, processes_left, ranks_alive
    launch(_ul_torchrun_job, 2, timeout_s=60)
    assert not ranks_alive() and not processes_left()
