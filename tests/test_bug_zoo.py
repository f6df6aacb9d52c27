"""attnlab.bug_zoo: every detector fails (or raises) on its bug and passes on the fix, the
detectors accept the book's own functions, and the chapter's zoo table lists every bug."""
import re
import warnings

import pytest
import torch

from attnlab import bug_zoo
from attnlab.bug_zoo import ZOO, verdict
from attnlab.masks import masked_sdpa_pt
from attnlab.multi_head_attention import MultiHeadAttention, merge_heads_pt, split_heads_pt
from nbcommon import NOTEBOOKS, read

IDS = [b.name for b in ZOO]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("bug", ZOO, ids=IDS)
def test_detector_rejects_the_bug(bug):
    assert verdict(bug.detector, bug.buggy) in ("FAIL", "raises"), \
        f"{bug.detector.__name__} passes the bug {bug.name!r}"


@pytest.mark.parametrize("bug", ZOO, ids=IDS)
def test_detector_accepts_the_fix(bug):
    assert bug.detector(bug.right) is True, f"{bug.detector.__name__} rejects the fix of {bug.name!r}"


@pytest.mark.parametrize("bug", ZOO, ids=IDS)
def test_registry_entries_are_complete(bug):
    assert bug.buggy is not bug.right
    for field in ("symptom", "fix", "where"):
        assert getattr(bug, field).strip(), f"{bug.name}: empty {field}"
    assert re.match(r"chapter \d+$", bug.where), bug.where


@pytest.mark.parametrize("detector, right", [
    (bug_zoo.rows_sum_to_one, masked_sdpa_pt), (bug_zoo.padding_invariant, masked_sdpa_pt),
    (bug_zoo.causal_no_leak, masked_sdpa_pt), (bug_zoo.scores_unit_scale, masked_sdpa_pt),
    (bug_zoo.fully_masked_rows_zero, masked_sdpa_pt),
    (bug_zoo.split_matches_slicing, split_heads_pt), (bug_zoo.merge_inverts_split, merge_heads_pt),
    (bug_zoo.eval_deterministic, MultiHeadAttention)], ids=lambda x: getattr(x, "__name__", ""))
def test_detectors_accept_the_books_functions(detector, right):
    assert detector(right) is True


def test_fully_masked_detector_runs_in_float32_too():
    assert bug_zoo.fully_masked_rows_zero(masked_sdpa_pt, dtype=torch.float32)
    # -1e9 in float32 is no NaN, but the empty row reads the padding: still caught
    assert not bug_zoo.fully_masked_rows_zero(bug_zoo.fill_minus_1e9, dtype=torch.float32)


def test_padding_mask_2d_is_silent_when_batch_equals_queries():
    """The (B, S) mask raises at awkward sizes but runs, wrongly, when B == L."""
    assert verdict(bug_zoo.lengths_padding_invariant, bug_zoo.padding_mask_2d) == "raises"
    assert not bug_zoo.lengths_padding_invariant(bug_zoo.padding_mask_2d, B=5, L=5)
    assert bug_zoo.lengths_padding_invariant(bug_zoo.padding_mask_2d, B=1)      # B = 1 hides it


def test_zoo_table_lists_every_bug():
    nb = read(NOTEBOOKS / "16_bug_zoo.ipynb")
    tables = [c.source for c in nb.cells if c.cell_type == "markdown"
              and "| bug | symptom | detector | one-line fix |" in c.source]
    assert len(tables) == 1, "the summary holds one zoo table"
    rows = [line for line in tables[0].splitlines()
            if line.startswith("| ") and not line.startswith("| bug |")]
    names = [row.split("|")[1].strip() for row in rows]
    assert sorted(names) == sorted(b.name for b in ZOO), (
        f"table rows {names} differ from the registry {[b.name for b in ZOO]}")
    for row, name in zip(rows, names):
        bug = next(b for b in ZOO if b.name == name)
        assert f"`{bug.detector.__name__}`" in row, f"{name}: the table names another detector"


def load_ch16_experiment():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "experiments" / "ch16_symptoms.py"
    spec = importlib.util.spec_from_file_location("ch16_experiment", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ch16_experiment_quick_and_stored(tmp_path):
    import json
    module = load_ch16_experiment()
    out = tmp_path / "quick.json"
    module.main(["--quick", "--out", str(out)])
    quick = json.loads(out.read_text())
    assert quick["quick"] and set(quick["runs"]) == {"right", "split", "merge", "both"}
    assert all(len(r["curve"]) == 20 for runs in quick["runs"].values() for r in runs)
    stored = json.loads(module.RESULT.read_text())
    assert not stored["quick"] and stored["config"]["steps"] == 300
    mse = {name: [r["test_mse"] for r in runs] for name, runs in stored["runs"].items()}
    assert all(len(m) == 3 for m in mse.values())                    # seeds 0, 1, 2
    assert max(mse["right"]) < 0.01 and max(mse["merge"]) < 0.01      # the merge bug learns
    assert min(mse["split"]) > 0.2 and min(mse["both"]) > 0.2        # the split bug plateaus


def test_weights_read_from_the_output_equal_the_weights():
    """One-hot values turn the output into the weight matrix, for functions without weights."""
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(3, 2, 5, 4, generator=g, dtype=torch.float64), \
        torch.randn(3, 2, 7, 4, generator=g, dtype=torch.float64)
    allowed = bug_zoo.padding_mask_np(torch.tensor([7, 4, 1]).numpy(), 7)
    allowed = torch.from_numpy(allowed)
    want = masked_sdpa_pt(q, k, torch.zeros(3, 2, 7, 1, dtype=torch.float64), allowed)[1]
    got = bug_zoo.weights_from_output(bug_zoo.sdpa, q, k, allowed)
    assert (got - want).abs().max() <= 1e-12


def test_tolerance_follows_the_dtype():
    tols = [bug_zoo.tolerance(d) for d in (torch.float64, torch.float32, torch.float16)]
    assert tols == sorted(tols) and tols[0] <= 1e-12 and tols[2] >= 1e-3
    # float16 weights read back at float64's tolerance would fail a right function
    assert bug_zoo.rows_sum_to_one(masked_sdpa_pt, dtype=torch.float16)


def test_convention_checks_reject_correct_code_under_other_conventions():
    """T5 (no scale) and muP (1/D) fail the 1/sqrt(D) check and pass their own; nn.MHA (NaN)
    and transformers' eager path (uniform) fail the zero-row check and pass their own."""
    t5 = bug_zoo.transformers_attention("eager", lambda D: 1.0)
    mup = bug_zoo.transformers_attention("eager", lambda D: 1.0 / D)
    assert not bug_zoo.scores_unit_scale(t5) and bug_zoo.score_scale_matches(t5, 1.0)
    assert not bug_zoo.scores_unit_scale(mup) and bug_zoo.score_scale_matches(mup, 1 / 64)
    eager = bug_zoo.transformers_attention("eager")
    f32 = torch.float32
    assert not bug_zoo.fully_masked_rows_zero(eager, f32)
    assert bug_zoo.empty_rows_follow(eager, "uniform", f32)
    assert not bug_zoo.fully_masked_rows_zero(bug_zoo.torch_mha_function, f32)
    assert bug_zoo.empty_rows_follow(bug_zoo.torch_mha_function, "nan", f32)
    assert set(bug_zoo.CONVENTION_CHECKS) == {bug_zoo.scores_unit_scale,
                                              bug_zoo.fully_masked_rows_zero}


@pytest.mark.parametrize("name", ["sdpa", "mha", "hf_eager", "hf_sdpa"])
def test_property_detectors_pass_library_attention(name):
    attn = {"sdpa": bug_zoo.sdpa, "mha": bug_zoo.torch_mha_function,
            "hf_eager": bug_zoo.transformers_attention("eager"),
            "hf_sdpa": bug_zoo.transformers_attention("sdpa")}[name]
    f32 = torch.float32
    assert bug_zoo.rows_sum_to_one(attn, dtype=f32)
    assert bug_zoo.padding_invariant(attn, dtype=f32)
    assert bug_zoo.causal_no_leak(attn, dtype=f32)
    assert bug_zoo.scores_unit_scale(attn)


def test_the_torch_mha_adapter_is_multihead_attention():
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(2, 3, n, d, generator=g, dtype=torch.float64)
               for n, d in ((4, 5), (6, 5), (6, 2)))
    allowed = torch.ones(4, 6, dtype=torch.bool).tril(2)
    want = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    assert (bug_zoo.torch_mha_function(q, k, v, allowed) - want).abs().max() <= 1e-12


def test_batch_first_false_passes_the_module_checks_and_fails_batch_independence():
    import torch.nn as nn
    assert bug_zoo.eval_deterministic(nn.MultiheadAttention)
    assert bug_zoo.permutation_equivariant(nn.MultiheadAttention)
    assert not bug_zoo.module_batch_independent(nn.MultiheadAttention)
    assert bug_zoo.module_batch_independent(bug_zoo.BertSelfAttentionModule)


def test_both_head_bugs_leak_the_future_under_a_causal_mask():
    for split, merge in ((bug_zoo.split_heads_no_transpose, merge_heads_pt),
                         (split_heads_pt, bug_zoo.merge_heads_wrong_order)):
        assert not bug_zoo.module_causal_no_leak(bug_zoo.mha_with(split, merge))
    assert bug_zoo.module_causal_no_leak(MultiHeadAttention)


def test_ch16_leak_experiment_stored():
    import importlib.util
    import json
    import math
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "experiments" / "ch16_leak.py"
    spec = importlib.util.spec_from_file_location("ch16_leak", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    stored = json.loads(module.RESULT.read_text())
    assert not stored["quick"] and stored["config"]["seeds"] == [0, 1, 2]
    H = math.log(16)
    for lr in ("0.003", "0.01"):
        final = {v: [sum(r["curve"][-20:]) / 20 for r in stored["runs"][f"{v} @ {lr}"]]
                 for v in ("right", "no mask", "split", "merge")}
        assert all(abs(x - H) < 0.15 for x in final["right"])
        assert max(final["no mask"]) < 0.5 * H
        assert max(final["split"]) < H and max(final["merge"]) < H


def test_half_precision_overflow_is_planted_not_drawn():
    """The planted pair q = k overflows a float16 QK^T on every seed (random q, k alone miss
    about 8 seeds in 100); the float32 fix passes every seed."""
    q, k, _ = bug_zoo.half_precision_inputs()
    raw = (q.double() @ k.double().transpose(-2, -1)).abs().max().item()
    assert raw > 65504 > raw / 8
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(40):
            assert not bug_zoo.half_precision_agrees(bug_zoo.scores_in_half, seed=seed)
            assert bug_zoo.half_precision_agrees(bug_zoo.scores_in_float32, seed=seed)
        for D in (16, 32):                              # the pair scales with the head size
            assert not bug_zoo.half_precision_agrees(bug_zoo.scores_in_half, D=D)
            assert bug_zoo.half_precision_agrees(bug_zoo.scores_in_float32, D=D)


def test_convention_checks_pass_bugs_under_a_convention_they_fit():
    """A claim read off the code certifies the bug: the claim must come from the config."""
    from transformers import GPT2Config
    assert bug_zoo.score_scale_matches(bug_zoo.no_scale, 1.0)              # as T5
    assert bug_zoo.score_scale_matches(bug_zoo.scaled_twice, 1 / 64)       # as muP
    assert bug_zoo.empty_rows_follow(bug_zoo.fill_minus_1e9, "uniform", torch.float32)
    claimed = None if GPT2Config().scale_attn_weights else 1.0
    assert not bug_zoo.score_scale_matches(bug_zoo.no_scale, claimed)
