"""Tests for chapter 19's tensor parallelism and launcher (attnlab.distributed, piece tp).

One fork launch of 4 ranks serves every (P, Hkv, causal) check; the spawn path and the torchrun
path run once each, at P = 2, with timeouts; no process may be left behind."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import attnlab
from attnlab.distributed import (RankFailed, RunTimeout, check_world_size, gqa_as_mha_params,
                                 init_gqa_params_np, launch, processes_left, ranks_alive,
                                 tensor_parallel_attention_dist, tensor_parallel_attention_np,
                                 tp_heads_of_rank, tp_layout_is_even, tp_sweep_rank)
from attnlab.kv_cache import gqa_attention_np
from attnlab.masks import causal_mask_np
from attnlab.multi_head_attention import multi_head_attention_np

H, B, L, D = 12, 2, 5, 3                     # L = 5 and D = 3: sizes no power of two
E = H * D
HKV = (12, 4, 3, 2, 1)
RNG = np.random.default_rng(7)
X = RNG.normal(size=(B, L, E))
PARAMS = {Hkv: init_gqa_params_np(E, H, Hkv, RNG) for Hkv in HKV}


def reference(Hkv, causal):
    allowed = causal_mask_np(L) if causal else None
    out, _ = multi_head_attention_np(X, X, gqa_as_mha_params(PARAMS[Hkv], H, Hkv), H, allowed)
    return out


@pytest.fixture(scope="module")
def sweep():
    """The module's one launch: 4 forked ranks, sub-groups for P = 1..4."""
    res = launch(tp_sweep_rank, 4, X, PARAMS, H, timeout_s=60)
    assert processes_left() == [] and ranks_alive() == []
    return res


def test_processes_match_mha_and_simulation(sweep):
    seen = set()
    for rank, res in enumerate(sweep):
        for (P, Hkv, causal), (y, kv_bytes) in res.items():
            ref = reference(Hkv, causal)
            sim, parts = tensor_parallel_attention_np(X, PARAMS[Hkv], H, Hkv, P,
                                                      causal_mask_np(L) if causal else None)
            assert np.abs(y - ref).max() <= 1e-12, (rank, P, Hkv, causal)
            assert np.abs(y - sim).max() <= 1e-12, (rank, P, Hkv, causal)
            assert kv_bytes == 2 * B * L * max(Hkv // P, 1) * D * 8
            seen.add((P, Hkv, causal))
    want = {(P, Hkv, c) for P in (1, 2, 3, 4) for Hkv in HKV for c in (False, True)
            if tp_layout_is_even(P, Hkv)}
    assert seen == want


@pytest.mark.parametrize("P", [1, 2, 3, 4])
@pytest.mark.parametrize("Hkv", HKV)
def test_simulation_partials_sum_to_mha(P, Hkv):
    if not tp_layout_is_even(P, Hkv):
        with pytest.raises(ValueError, match="choose P among"):
            tensor_parallel_attention_np(X, PARAMS[Hkv], H, Hkv, P)
        return
    out, parts = tensor_parallel_attention_np(X, PARAMS[Hkv], H, Hkv, P, causal_mask_np(L))
    assert len(parts) == P and all(p.shape == (B, L, E) for p in parts)
    assert np.abs(out - reference(Hkv, True)).max() <= 1e-12
    # chapter 11's GQA agrees too
    sp = lambda a, h: a.reshape(B, L, h, D).transpose(0, 2, 1, 3)
    p = PARAMS[Hkv]
    heads, _ = gqa_attention_np(sp(X @ p["W_q"] + p["b_q"], H), sp(X @ p["W_k"] + p["b_k"], Hkv),
                                sp(X @ p["W_v"] + p["b_v"], Hkv), causal_mask_np(L))
    out11 = heads.transpose(0, 2, 1, 3).reshape(B, L, E) @ p["W_o"] + p["b_o"]
    assert np.abs(out - out11).max() <= 1e-12


def test_layout_holds_what_it_reads():
    for P in (1, 2, 3, 4, 6, 12):
        for Hkv in (12, 6, 4, 3, 2, 1):
            if not tp_layout_is_even(P, Hkv):
                continue
            held = []
            for r in range(P):
                q, kv = tp_heads_of_rank(r, P, H, Hkv)
                assert q == list(range(r * H // P, (r + 1) * H // P))
                assert kv == sorted({h // (H // Hkv) for h in q})
                held += kv
            assert sorted(set(held)) == list(range(Hkv))
            assert all(held.count(g) == max(P // Hkv, 1) for g in range(Hkv))


@pytest.mark.parametrize("kw, words", [
    (dict(P=0), ["P=0", "positive int"]),
    (dict(P=True), ["P=True", "positive int"]),
    (dict(P=9), ["P=9", "max_world"]),
    (dict(P=5, H=12, heads_must_divide=True), ["P=5", "H=12", "Choose P among [1, 2, 3, 4, 6]"]),
    (dict(P=8, N=7), ["P=8", "N=7", "Use P <= 7"]),
])
def test_world_size_refused(kw, words):
    with pytest.raises(ValueError) as e:
        check_world_size(**kw)
    assert all(w in str(e.value) for w in words), str(e.value)


@pytest.mark.parametrize("change, words", [
    (dict(P=5), ["P=5", "Choose P among"]),
    (dict(P=4, Hkv=3), ["Hkv=3", "P=4", "choose P among"]),
    (dict(x=X.astype(np.float32)), ["x must be a float64", "np.asarray"]),
    (dict(x=X[0]), ["x must be", "(B, L, E)"]),
    (dict(params={k: v for k, v in PARAMS[12].items() if k != "W_o"}), ["W_o", "init_gqa_params_np"]),
    (dict(Hkv=5), ["multiple of Hkv"]),
])
def test_bad_input_refused_before_any_process(change, words):
    kw = dict(x=X, params=PARAMS[3] if change.get("Hkv") == 3 else PARAMS[12], H=H, Hkv=12, P=2)
    kw.update(change)
    with pytest.raises(ValueError) as e:
        tensor_parallel_attention_dist(**kw)
    assert all(w in str(e.value) for w in words), str(e.value)
    assert processes_left() == []


def _fails_on_rank_2(rank, world):
    import torch
    import torch.distributed as dist
    if rank == 2:
        raise ValueError("deliberate failure in rank 2")
    dist.all_reduce(torch.ones(2))
    return rank


def _hangs_on_rank_1(rank, world):
    import time
    if rank == 1:
        time.sleep(60)
    return rank


def test_spawn_refuses_a_function_of_main():
    def local(rank, world):
        return rank
    local.__module__ = "__main__"
    with pytest.raises(ValueError, match="method='fork'"):
        launch(local, 2, method="spawn")
    with pytest.raises(ValueError, match="method must be"):
        launch(local, 2, method="forkserver")
    assert processes_left() == []


def test_failing_rank_is_named_and_nothing_left():
    with pytest.raises(RankFailed) as e:
        launch(_fails_on_rank_2, 4, timeout_s=30)
    assert e.value.rank == 2 and "deliberate failure in rank 2" in str(e.value)
    assert 2 not in [r for r, _ in e.value.also]
    assert processes_left() == [] and ranks_alive() == []


def _exits_on_rank_2(rank, world):
    import os
    import torch
    import torch.distributed as dist
    if rank == 2:
        os._exit(3)                            # no traceback, no signal
    dist.all_reduce(torch.ones(2))
    return rank


def _launch_dirs():
    import glob
    import tempfile
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "attnlab_launch_*")))


def test_rank_exiting_without_traceback_is_named():
    with pytest.raises(RankFailed) as e:
        launch(_exits_on_rank_2, 4, timeout_s=30)
    assert e.value.rank == 2 and "exited with code 3" in str(e.value), str(e.value)
    assert processes_left() == [] and ranks_alive() == []


def test_failed_and_timed_out_launches_leave_no_directory():
    before = _launch_dirs()
    with pytest.raises(RankFailed):
        launch(_fails_on_rank_2, 4, timeout_s=30)
    with pytest.raises(RunTimeout):
        launch(_hangs_on_rank_1, 2, timeout_s=0.5)
    assert launch(lambda rank, world: rank, 2) == [0, 1]
    assert _launch_dirs() <= before


def test_timeout_has_a_message_and_kills_every_rank():
    with pytest.raises(RunTimeout, match=r"timeout_s=0.5 s; ranks still running: \[1\]"):
        launch(_hangs_on_rank_1, 2, timeout_s=0.5)
    assert processes_left() == [] and ranks_alive() == []


def test_spawn_path_once():
    y = tensor_parallel_attention_dist(X, PARAMS[2], H, 2, 2, causal=True, method="spawn",
                                       timeout_s=120)
    assert np.abs(y - reference(2, True)).max() <= 1e-12
    assert processes_left() == [] and ranks_alive() == []


def test_torchrun_path_once():
    from attnlab.distributed import free_port
    root = Path(attnlab.__file__).parent.parent            # the folder that holds attnlab
    env = dict(os.environ, OMP_NUM_THREADS="1")
    port = free_port()
    run = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nnodes=1",
                          "--nproc-per-node=2", "--master-addr=127.0.0.1",
                          f"--master-port={port}", "-m", "attnlab.distributed", "tp"],
                         cwd=root, env=env, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "torchrun, rank 0 of 2: 18 cases (P = 1..2) agree" in run.stdout, run.stdout
    assert processes_left() == []
