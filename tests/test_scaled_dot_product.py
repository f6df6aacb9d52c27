"""attnlab.scaled_dot_product against independent references (tolerances stated per test)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attnlab.scaled_dot_product import sdpa_np, sdpa_pt, softmax_np, softmax_pt

# (B, H, L, S, D, Dv): awkward on purpose: L != S, odd D, Dv != D, single query/key
SHAPES = [(1, 1, 1, 1, 1, 1), (2, 3, 5, 7, 11, 13), (1, 2, 97, 33, 59, 8), (2, 1, 17, 1, 7, 5)]


def reference_attention_float64(q, k, v, scale):
    """Independent float64 reference written out with explicit loops over the batch."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    out = np.empty(q.shape[:-1] + (v.shape[-1],))
    for idx in np.ndindex(*q.shape[:-2]):
        s = q[idx] @ k[idx].T * scale
        w = np.exp(s - s.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        out[idx] = w @ v[idx]
    return out


@pytest.mark.parametrize("shape", SHAPES)
def test_numpy_matches_float64_reference(shape):
    B, H, L, S, D, Dv = shape
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(B, H, L, D)), rng.normal(size=(B, H, S, D)), rng.normal(size=(B, H, S, Dv))
    out, w = sdpa_np(q, k, v)
    assert out.shape == (B, H, L, Dv) and w.shape == (B, H, L, S)
    np.testing.assert_allclose(out, reference_attention_float64(q, k, v, D ** -0.5), atol=1e-12)
    np.testing.assert_allclose(w.sum(-1), 1.0, atol=1e-12)


@pytest.mark.parametrize("shape", SHAPES)
def test_torch_float32_matches_builtin(shape):
    """float32 against the fused built-in: within 2e-6 (about 20 float32 ulps at these magnitudes)."""
    B, H, L, S, D, Dv = shape
    torch.manual_seed(0)
    q, k, v = torch.randn(B, H, L, D), torch.randn(B, H, S, D), torch.randn(B, H, S, Dv)
    out, w = sdpa_pt(q, k, v)
    assert out.dtype == torch.float32
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v), atol=2e-6, rtol=0)
    ref = reference_attention_float64(q.numpy(), k.numpy(), v.numpy(), D ** -0.5)
    np.testing.assert_allclose(out.numpy(), ref, atol=2e-6)


def test_float64_torch_numpy_and_builtin_agree_with_custom_scale():
    torch.manual_seed(1)
    q, k, v = (torch.randn(2, 3, 6, 5, dtype=torch.float64) for _ in range(3))
    mine = sdpa_pt(q, k, v, scale=0.3)[0]
    torch.testing.assert_close(mine, F.scaled_dot_product_attention(q, k, v, scale=0.3), atol=1e-12, rtol=0)
    np.testing.assert_allclose(mine.numpy(), sdpa_np(q.numpy(), k.numpy(), v.numpy(), scale=0.3)[0], atol=1e-12)


def test_batch_dims_broadcast():
    rng = np.random.default_rng(2)
    q = rng.normal(size=(2, 3, 4, 5))       # (B, H, L, D)
    k = rng.normal(size=(1, 3, 6, 5))       # broadcast over B
    v = rng.normal(size=(1, 3, 6, 2))
    out, _ = sdpa_np(q, k, v)
    for b in range(2):
        np.testing.assert_allclose(out[b], sdpa_np(q[b], k[0], v[0])[0], atol=1e-12)


def test_softmax_is_stable_and_matches_torch():
    x = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, 0.0, 1000.0]])
    got = softmax_np(x)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, torch.softmax(torch.from_numpy(x), -1).numpy(), atol=1e-15)
    got_pt = softmax_pt(torch.from_numpy(x), dim=0)
    torch.testing.assert_close(got_pt, torch.softmax(torch.from_numpy(x), 0), atol=1e-15, rtol=0)


def test_gradients_match_builtin():
    torch.manual_seed(3)
    args = [torch.randn(2, 4, 3, dtype=torch.float64, requires_grad=True),
            torch.randn(2, 5, 3, dtype=torch.float64, requires_grad=True),
            torch.randn(2, 5, 7, dtype=torch.float64, requires_grad=True)]
    g = torch.randn(2, 4, 7, dtype=torch.float64)
    mine = torch.autograd.grad((sdpa_pt(*args)[0] * g).sum(), args)
    theirs = torch.autograd.grad((F.scaled_dot_product_attention(*args) * g).sum(), args)
    for a, b in zip(mine, theirs):
        torch.testing.assert_close(a, b, atol=1e-12, rtol=0)


@pytest.mark.parametrize("fn", [sdpa_np, sdpa_pt])
@pytest.mark.parametrize("shapes,match", [
    (((2, 5, 8), (2, 7, 6), (2, 7, 6)), r"last dim D; got q \(2, 5, 8\), k \(2, 7, 6\)"),
    (((2, 5, 8), (2, 7, 8), (2, 6, 3)), r"share the length S; got .* v \(2, 6, 3\)"),
    (((8,), (7, 8), (7, 3)), r"at least 2 dims"),
    (((2, 5, 8), (3, 7, 8), (3, 7, 3)), r"do not broadcast"),
])
def test_bad_shapes_are_named(fn, shapes, match):
    make = np.zeros if fn is sdpa_np else torch.zeros
    with pytest.raises(ValueError, match=match):
        fn(*(make(s) for s in shapes))


@pytest.mark.parametrize("fn", [sdpa_np, sdpa_pt])
def test_non_finite_input_is_rejected_not_returned_as_nan(fn):
    make = np.zeros if fn is sdpa_np else torch.zeros
    q = make((2, 3))
    q[0, 0] = float("nan")
    with pytest.raises(ValueError, match="finite"):
        fn(q, make((4, 3)), make((4, 2)))


# ---- bad input: every public function names the argument and the fix ----------------------

from attnlab.scaled_dot_product import as_float64, check_scale, check_tensors  # noqa: E402


@pytest.mark.parametrize("x", [[0.5, float("nan")], [1.0, float("inf")], np.array([[np.nan]])])
def test_softmax_np_rejects_nan_and_plus_inf(x):
    with pytest.raises(ValueError, match=r"x contains NaN or \+inf"):
        softmax_np(x)


def test_softmax_np_keeps_minus_inf_as_a_blocked_key():
    np.testing.assert_array_equal(softmax_np([-np.inf, 0.0]), [0.0, 1.0])


def test_softmax_np_rejects_tensors_and_non_numbers():
    with pytest.raises(TypeError, match=r"x is a torch tensor.*\.numpy\(\).*_pt function"):
        softmax_np(torch.zeros(3))
    with pytest.raises(TypeError, match=r"x must be a numeric array; got str"):
        softmax_np("abc")


def test_softmax_pt_rejects_arrays_integers_and_nan():
    with pytest.raises(TypeError, match=r"x must be a floating-point torch.Tensor; got ndarray"):
        softmax_pt(np.zeros(3))
    with pytest.raises(TypeError, match=r"got Tensor torch.int64"):
        softmax_pt(torch.zeros(3, dtype=torch.int64))
    with pytest.raises(ValueError, match=r"x contains NaN"):
        softmax_pt(torch.tensor([0.0, float("nan")]))


@pytest.mark.parametrize("which", ["q", "k", "v"])
def test_sdpa_pt_names_the_numpy_argument(which):
    args = {"q": torch.zeros(2, 3), "k": torch.zeros(4, 3), "v": torch.zeros(4, 2)}
    args[which] = args[which].numpy()
    with pytest.raises(TypeError, match=rf"{which} must be a torch.Tensor; got ndarray\. "
                                        rf"Convert it with torch.from_numpy\({which}\)"):
        sdpa_pt(**args)


def test_sdpa_pt_names_mixed_dtypes_and_integer_tensors():
    with pytest.raises(TypeError, match=r"k is torch.float64 but q is torch.float32.*k.to\(q.dtype\)"):
        sdpa_pt(torch.zeros(2, 3), torch.zeros(4, 3, dtype=torch.float64), torch.zeros(4, 2))
    with pytest.raises(TypeError, match=r"v must be a floating-point tensor; got torch.int64.*v.float\(\)"):
        sdpa_pt(torch.zeros(2, 3), torch.zeros(4, 3), torch.zeros(4, 2, dtype=torch.int64))


@pytest.mark.parametrize("which", ["q", "k", "v"])
@pytest.mark.parametrize("fn", [sdpa_np, sdpa_pt])
def test_non_finite_input_names_the_argument(fn, which):
    make = np.zeros if fn is sdpa_np else torch.zeros
    args = {"q": make((2, 3)), "k": make((4, 3)), "v": make((4, 2))}
    args[which][0, 0] = float("nan")
    with pytest.raises(ValueError, match=rf"^{which} contains inf or NaN"):
        fn(**args)


def test_sdpa_np_rejects_a_tensor_naming_it():
    with pytest.raises(TypeError, match=r"k is a torch tensor.*k.detach\(\).cpu\(\).numpy\(\)"):
        sdpa_np(np.zeros((2, 3)), torch.zeros(4, 3), np.zeros((4, 2)))


@pytest.mark.parametrize("scale,error,match", [
    (-1.0, ValueError, r"scale must be finite and > 0"),
    (0.0, ValueError, r"scale must be finite and > 0"),
    (float("nan"), ValueError, r"scale must be finite and > 0"),
    ("0.5", TypeError, r"scale must be a number .* got str"),
    (True, TypeError, r"scale must be a number"),
])
@pytest.mark.parametrize("fn", [sdpa_np, sdpa_pt])
def test_bad_scale_is_named(fn, scale, error, match):
    make = np.zeros if fn is sdpa_np else torch.zeros
    with pytest.raises(error, match=match):
        fn(make((2, 3)), make((4, 3)), make((4, 2)), scale=scale)


def test_helpers_accept_good_input():
    check_scale(None)
    check_scale(np.float32(0.5))
    check_tensors(a=torch.zeros(2), b=torch.ones(3))
    assert as_float64([1, 2], "x").dtype == np.float64


@pytest.mark.parametrize("dtype, atol", [(torch.float16, 5e-3), (torch.bfloat16, 4e-2)])
def test_half_precision_inputs(dtype, atol):
    """16-bit tensors work end to end; the output is within a few of the dtype's rounding steps
    (float16 spacing near 1 is 1e-3, bfloat16's 8e-3) of the float64 answer for the same inputs."""
    rng = np.random.default_rng(3)
    q, k, v = (torch.from_numpy(rng.normal(size=s)).to(dtype)
               for s in [(2, 5, 16), (2, 7, 16), (2, 7, 8)])
    out, w = sdpa_pt(q, k, v)
    assert out.dtype == w.dtype == dtype and torch.isfinite(out).all()
    ref = reference_attention_float64(q.double().numpy(), k.double().numpy(), v.double().numpy(),
                                      16 ** -0.5)
    np.testing.assert_allclose(out.double().numpy(), ref, atol=atol, rtol=0)


def _ch04_sweep():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "experiments" / "ch04_scaling_sweep.py"
    spec = importlib.util.spec_from_file_location("ch04_scaling_sweep", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ch04_sweep_quick_and_stored(tmp_path):
    """The sweep's quick run works, and the stored file holds every condition on 3 seeds, its
    time-to-event consistent with its own curves."""
    import json
    module = _ch04_sweep()
    module.main(["--quick", "--out", str(tmp_path / "q.json")])
    quick = json.loads((tmp_path / "q.json").read_text())
    assert len(quick["runs"]) == 4 and all(len(r["losses"]) == 5 for r in quick["runs"])
    stored = json.loads(module.RESULT.read_text())
    assert stored["steps"] == 600 and stored["seeds"] == [0, 1, 2]
    keys = {(r["D"], r["optimiser"], r["lr"], r["scaled"], r["seed"]) for r in stored["runs"]}
    assert len(keys) == len(stored["runs"]) == 2 * 3 * len(module.FULL["conditions"])
    for r in stored["runs"]:
        first = next((i + 1 for i, x in enumerate(r["losses"]) if x < stored["event"]), None)
        assert r["steps_to_event"] == first


def test_ch04_sweep_recipe_is_the_chapters():
    """The sweep's SGD runs at learning rate 0.5, D = 256, are the chapter's section 6 runs: the
    stored curves give the losses the chapter prints (means over the 3 seeds: 1.78 -> 1.53
    unscaled, 1.03 -> 0.07 scaled, at steps 1 and 60), and a fresh first step of seed 0 equals
    the stored one."""
    import json
    module = _ch04_sweep()
    stored = json.loads(module.RESULT.read_text())
    runs = {(r["scaled"], r["seed"]): r["losses"] for r in stored["runs"]
            if (r["D"], r["optimiser"], r["lr"]) == (256, "sgd", 0.5)}
    for scaled, first, last in [(False, 1.78, 1.53), (True, 1.03, 0.07)]:
        curves = [runs[scaled, seed] for seed in (0, 1, 2)]
        assert round(sum(c[0] for c in curves) / 3, 2) == first
        assert round(sum(c[59] for c in curves) / 3, 2) == last
    fresh = module.train(0, 256, False, "sgd", 0.5, 1)[0]
    assert abs(fresh - runs[False, 0][0]) <= 1e-3 * fresh          # stored to 4 digits
