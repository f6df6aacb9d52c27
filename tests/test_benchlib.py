"""benchmarks/benchlib.py: interleaved timing, ratios with their range, scaling exponents and
the load guard that keeps contended timings out of benchmarks/results/ (issue 25)."""
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def benchlib():
    spec = importlib.util.spec_from_file_location("benchlib", ROOT / "benchmarks" / "benchlib.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_interleaved_alternates_and_rotates(benchlib):
    calls = []
    fns = {name: (lambda name=name: calls.append(name) or name) for name in "abc"}
    timings = benchlib.interleaved(fns, repeat=3, warmup=1)
    # the warm-up round in order, then rounds rotated by one each
    assert calls == list("abc") + list("abc") + list("bca") + list("cab")
    assert set(timings) == set("abc")
    assert all(len(t.times) == 3 and t.result == name for name, t in timings.items())


def test_timing_median_and_range(benchlib):
    t = benchlib.Timing([3.0, 1.0, 2.0, 10.0, 4.0])
    assert (t.median, t.low, t.high) == (3.0, 1.0, 10.0)
    assert t.spread() == pytest.approx(3.0)
    with pytest.raises(ValueError):
        benchlib.Timing([])


def test_ratio_range_brackets_the_median(benchlib):
    num, den = benchlib.Timing([2.0, 3.0, 4.0]), benchlib.Timing([1.0, 1.5, 2.0])
    med, lo, hi = benchlib.ratio(num, den)
    assert (med, lo, hi) == (2.0, 1.0, 4.0)


@pytest.mark.parametrize("p", [1.0, 2.0, 2.5])
def test_scaling_exponent_recovers_a_power_law(benchlib, p):
    ns = [512, 1024, 2048, 4096]
    assert benchlib.scaling_exponent(ns, [7e-9 * n**p for n in ns]) == pytest.approx(p)


def test_scaling_exponent_sees_a_2x_regression_at_one_end(benchlib):
    ns = [1024, 2048, 4096]
    clean = [n**2 for n in ns]
    slowed = clean[:-1] + [2 * clean[-1]]
    shift = benchlib.scaling_exponent(ns, slowed) - benchlib.scaling_exponent(ns, clean)
    assert shift == pytest.approx(0.5)     # a 2x slowdown at N = 4096 adds 1/2 to p
    with pytest.raises(ValueError):
        benchlib.scaling_exponent([8, 8], [1.0, 2.0])


def test_report_refuses_to_write_under_load(benchlib, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(benchlib, "ROOT", tmp_path)
    rows = [("x", 1, "1", "<= 2", True)]
    assert benchlib.report("busy", "table", rows, load=5.0, cores=2) == 0
    assert not (tmp_path / "benchmarks" / "results" / "busy.md").exists()
    assert "not written" in capsys.readouterr().err
    assert benchlib.report("quiet", "table", rows, load=0.5, cores=2) == 0
    assert (tmp_path / "benchmarks" / "results" / "quiet.md").read_text() == "table"
    assert benchlib.report("miss", "t", [("x", 1, "3", "<= 2", False)], load=0.1, cores=2) == 1


def test_every_bench_script_times_through_benchlib():
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        text = script.read_text(encoding="utf-8")
        assert "from benchlib import" in text, script.name
        assert "interleaved" in text and "scaling_exponent" in text, \
            f"{script.name}: time baseline and method interleaved, and assert an exponent"
        assert "time.perf_counter" not in text, f"{script.name}: time through benchlib"
