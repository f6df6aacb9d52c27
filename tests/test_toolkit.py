import numpy as np
import pytest
import torch

from attnlab.toolkit import assert_close, check_shape, max_abs_diff, to_numpy


def test_assert_close_passes_and_reports(capsys):
    diff = assert_close("x", torch.tensor([1.0, 2.0]), np.array([1.0, 2.5]), atol=0.5)
    assert diff == 0.5 and "max |diff| = 5.0e-01" in capsys.readouterr().out


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
