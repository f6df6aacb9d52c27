"""Chapter 17, section 12 (gqa): the pooling identities and the experiment's --quick run."""
import copy
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from attnlab.kv_cache import TinyLM, lm_forward_np, lm_params_np
from attnlab.serving import mha_to_gqa

from nbcommon import ROOT                       # the repository root
SCRIPT = ROOT / "experiments" / "ch17_gqa_quality.py"


def _script():
    spec = importlib.util.spec_from_file_location("ch17_gqa_quality", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _random_lm(V, E, H, n_layers, seed):
    torch.manual_seed(seed)
    m = TinyLM(V, E, H, None, n_layers).double().eval()
    with torch.no_grad():                  # non-zero biases, so that pooling them is tested too
        for name, p in m.named_parameters():
            if name.endswith("bias"):
                p.normal_(0, 0.3)
    return m


# awkward sizes: H = 6 heads (groups of 2, 3, 6), head size D = 8, L = 13 (not a power of two)
CONFIGS = [dict(V=11, E=48, H=6, n_layers=2), dict(V=7, E=24, H=4, n_layers=1),
           dict(V=5, E=30, H=3, n_layers=3)]


@pytest.mark.parametrize("cfg", CONFIGS)
def test_hkv_equal_h_is_the_identity(cfg):
    m = _random_lm(**cfg, seed=1)
    same = mha_to_gqa(m, cfg["H"])
    for (n1, t1), (n2, t2) in zip(m.state_dict().items(), same.state_dict().items()):
        assert n1 == n2 and torch.equal(t1, t2), n1
    x = torch.randint(0, cfg["V"], (2, 13))
    with torch.no_grad():
        assert torch.equal(same(x), m(x))


@pytest.mark.parametrize("cfg", CONFIGS)
def test_pooled_torch_equals_numpy_float64(cfg):
    pool_np = _script().pool_np
    m = _random_lm(**cfg, seed=2)
    x = torch.randint(0, cfg["V"], (2, 13))
    p64 = lm_params_np(m)
    for Hkv in [h for h in range(1, cfg["H"]) if cfg["H"] % h == 0]:
        with torch.no_grad():
            got = mha_to_gqa(m, Hkv)(x).numpy()
        want = lm_forward_np(pool_np(p64, Hkv), x.numpy())
        assert np.abs(got - want).max() < 1e-9, (cfg, Hkv)


def test_pooling_groups_consecutive_heads():
    """Heads that already share K/V within each group of consecutive heads pool losslessly,
    with the mean and with the first head: the groups match repeat_kv_pt's order."""
    mod = _script()
    H, E, Hkv = 4, 32, 2
    D = E // H
    m = _random_lm(V=9, E=E, H=H, n_layers=2, seed=3)
    with torch.no_grad():
        for blk in m.blocks:
            for lin in (blk.attn.k_proj, blk.attn.v_proj):
                w = lin.weight.view(Hkv, H // Hkv, D, E)
                w[:, 1:] = w[:, :1]
                b = lin.bias.view(Hkv, H // Hkv, D)
                b[:, 1:] = b[:, :1]
    x = torch.randint(0, 9, (1, 17))
    with torch.no_grad():
        ref = m(x)
        assert torch.allclose(mha_to_gqa(m, Hkv)(x), ref, atol=1e-12)
        assert torch.allclose(mod.keep_first_head(m, Hkv)(x), ref, atol=1e-12)
        assert not torch.allclose(mha_to_gqa(m, 1)(x), ref, atol=1e-3)


def test_quick_run(tmp_path):
    out = tmp_path / "q.json"
    res = _script().main(["--quick", "--out", str(out)])
    stored = json.loads(out.read_text())
    assert stored["quick"] and stored["seeds"] == [0]
    assert {r["arm"] for r in res["runs"]} == {"pooled", "scratch", "pretrain", "first"}
    for row in stored["part1"]["table"] + stored["part2"]["table"]:
        assert row["kv_bytes_per_token"] == 2 * 2 * row["Hkv"] * 16 * 4
        for k in (k for k in row if k.isdigit()):
            assert 0 < row[k]["loss"]["mean"] < 6 and 0 <= row[k]["acc"]["mean"] <= 1


def test_stored_results_shape():
    res = json.loads((ROOT / "experiments/results/ch17_gqa_quality.json").read_text())
    assert not res["quick"] and res["seeds"] == [0, 1, 2]
    assert all(r["n_seeds"] == 3 for r in res["part1"]["table"] + res["part2"]["table"])
