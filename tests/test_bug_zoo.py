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
