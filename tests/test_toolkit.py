import numpy as np
import pytest
import torch

from attnlab.toolkit import approx, assert_close, check_shape, max_abs_diff, to_numpy


def test_assert_close_passes_and_prints_the_verdict(capsys):
    diff = assert_close("x", torch.tensor([1.0, 2.0]), np.array([1.0, 2.5]), atol=0.5)
    assert diff == 0.5 and capsys.readouterr().out == "x: agrees to 5e-1\n"
    assert_close("y", np.ones(2), np.ones(2), atol=1e-12)
    assert capsys.readouterr().out == "y: agrees to 1e-12\n"
    assert_close("z", np.ones(2), np.ones(2), atol=0.0)
    assert capsys.readouterr().out == "z: agrees exactly\n"


def test_assert_close_shows_the_measured_gap_as_noise(capsys):
    assert_close("x", np.zeros(2), np.array([0.0, 2.2e-16]), atol=1e-12, show=True)
    assert capsys.readouterr().out == "x: agrees to 1e-12 (max |diff| ≈2.2e-16)\n"
    assert approx(0.03125, digits=2) == "≈3.12e-02"


def test_the_sanitizer_hides_noise_and_nothing_else():
    """tools/nbval_sanitize.cfg: every number after '≈' compares equal, no other number."""
    import re

    from nbval.plugin import get_sanitize_patterns
    from nbcommon import ROOT
    text = (ROOT / "tools" / "nbval_sanitize.cfg").read_text(encoding="ascii")
    rules = get_sanitize_patterns(text)             # exactly how nbval reads the file
    assert len(rules) == 1, rules

    def clean(text):
        for regex, replace in rules:
            text = re.sub(regex, replace, text)
        return text

    assert clean("a ≈1.1e-16, b ≈-2.0e+03 and ≈0.25") == clean("a ≈2.2e-16, b ≈-9.9e+03 and ≈0.5")
    assert clean("agrees to 1e-12 (≈0.0e+00)") == clean("agrees to 1e-12 (≈3.3e-16)")
    for a, b in [("loss 0.135", "loss 0.137"), ("1.1e-16", "2.2e-16"), ("≈1 of 3", "≈1 of 4"),
                 ("agrees to 1e-12", "agrees to 1e-6")]:
        assert clean(a) != clean(b), (a, b)


def test_assert_close_fails_on_gap_and_on_nan():
    with pytest.raises(AssertionError, match="exceeds"):
        assert_close("x", np.zeros(3), np.ones(3), atol=0.1)
    with pytest.raises(AssertionError, match="NaN"):
        assert_close("x", np.array([np.nan]), np.array([np.nan]), atol=1.0)


def test_shapes_must_match():
    with pytest.raises(ValueError, match=r"\(2,\) and \(3,\)"):
        max_abs_diff(np.zeros(2), np.zeros(3))
    with pytest.raises(AssertionError, match=r"expected shape \(3, 2\), got \(2, 3\)"):
        check_shape(np.zeros((2, 3)), (3, 2))


def test_to_numpy_detaches_and_promotes():
    t = torch.ones(2, requires_grad=True, dtype=torch.float32)
    a = to_numpy(t * 2)
    assert a.dtype == np.float64 and a.tolist() == [2.0, 2.0]


def test_call_answer_turns_a_crash_into_a_verdict_and_lets_the_stub_through():
    from attnlab.toolkit import call_answer

    def crashes(x):
        return x @ np.ones((3, 2))

    with pytest.raises(AssertionError, match=r"crashes raised ValueError: .*; is x transposed\?"):
        call_answer(crashes, np.ones((2, 2)), why="is x transposed?")

    def stub():
        raise NotImplementedError("Exercise 1 (x) not done yet")

    with pytest.raises(NotImplementedError, match="not done yet"):
        call_answer(stub)
    assert call_answer(lambda a, b=1: a + b, 1, b=2) == 3
