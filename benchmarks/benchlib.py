"""What the benchmarks share: one BLAS thread, interleaved timing with its spread, scaling
exponents, the load guard, the machine line and the report.

Import it before NumPy or PyTorch (it sets the thread variables, which they read on import):

    import benchlib                # noqa: F401  (first import of a bench_*.py)

How a timing is taken (issue 25, "Benchmarks"):

- the baseline and the method are timed **interleaved** (`interleaved`): one call of each in
  turn, `repeat` rounds, so a burst of load from another process hits both alike instead of
  one of them;
- each is summarised by its **median** and its **spread** (min and max over the rounds); a
  ratio is the ratio of medians, and the table shows the spread beside it;
- how a cost grows is asserted as a **scaling exponent**: the least-squares slope of
  log(time) against log(N) (`scaling_exponent`), which a constant factor cannot move;
- a results file is written only while the machine is quiet: `report` refuses to write
  `benchmarks/results/<name>.md` when the 1-minute load average exceeds the core count, and
  says so (the targets are still checked and the table still printed).
"""
import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"                            # one BLAS thread, before numpy loads

import math                                           # noqa: E402
import platform                                       # noqa: E402
import statistics                                     # noqa: E402
import sys                                            # noqa: E402
import time                                           # noqa: E402
from pathlib import Path                              # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))                         # attnlab from this checkout


class Timing:
    """Seconds of `repeat` calls of one function: median, min and max, and the last result."""

    def __init__(self, times, result=None):
        if not times:
            raise ValueError("Timing needs at least one measured call")
        self.times = list(times)
        self.result = result

    @property
    def median(self):
        return statistics.median(self.times)

    @property
    def low(self):
        return min(self.times)

    @property
    def high(self):
        return max(self.times)

    def spread(self):
        """The range as a fraction of the median: (max - min) / median."""
        return (self.high - self.low) / self.median

    def __repr__(self):
        return f"Timing(median={self.median:.4g} s, range {self.low:.4g}-{self.high:.4g} s)"


def interleaved(fns, repeat, warmup=1):
    """Time every function of the dict `fns` (name -> zero-argument callable) in turn,
    `repeat` rounds after `warmup` untimed rounds; return {name: Timing}.

    Round r calls every function once, in the dict's order, rotated by r, so neither the
    baseline nor the method always runs first after a pause."""
    names = list(fns)
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    times = {name: [] for name in names}
    results = {}
    for _ in range(warmup):
        for name in names:
            results[name] = fns[name]()
    for r in range(repeat):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            t0 = time.perf_counter()
            results[name] = fns[name]()
            times[name].append(time.perf_counter() - t0)
    return {name: Timing(times[name], results.get(name)) for name in names}


def ratio(num: Timing, den: Timing):
    """(median ratio, lowest ratio, highest ratio): the spread a ratio can take when the two
    timings sit anywhere in their ranges."""
    return num.median / den.median, num.low / den.high, num.high / den.low


def scaling_exponent(ns, seconds):
    """Least-squares slope of log(seconds) against log(n): time ~ n**slope."""
    if len(ns) != len(seconds) or len(ns) < 2:
        raise ValueError("need at least two (n, seconds) points")
    xs = [math.log(n) for n in ns]
    ys = [math.log(s) for s in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        raise ValueError("the sizes n must not all be equal")
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def best_time(fn, repeat):
    """(minimum seconds over `repeat` calls of fn(), the last call's result).
    Kept for one-off measurements; comparisons use `interleaved`."""
    t = interleaved({"fn": fn}, repeat, warmup=0)["fn"]
    return t.low, t.result


def load_too_high(load=None, cores=None):
    """(True, why) when the 1-minute load average exceeds the number of cores."""
    load = os.getloadavg()[0] if load is None else load
    cores = (os.cpu_count() or 1) if cores is None else cores
    if load > cores:
        return True, (f"load average {load:.2f} exceeds the {cores} cores: the timings are "
                      "contended, so benchmarks/results/ is left as it was")
    return False, f"load average {load:.2f} on {cores} cores"


def machine_line():
    """Where the numbers were measured: CPU, Python, NumPy and torch versions, the load."""
    import numpy as np
    import torch
    return (f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"NumPy {np.__version__}, torch {torch.__version__}, one thread, 1-minute load "
            f"average {os.getloadavg()[0]:.2f} at the end of the run")


def report(name, text, rows, load=None, cores=None):
    """Print `text`; write it to benchmarks/results/<name>.md unless the machine is loaded
    (`load_too_high`, said on stderr); return the exit status: 1 if a row's pass flag (its
    fifth field) is False, else 0."""
    print(text)
    busy, why = load_too_high(load, cores)
    if busy:
        print(f"{name}: not written: {why}", file=sys.stderr)
    else:
        out = ROOT / "benchmarks" / "results" / f"{name}.md"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    missed = [r for r in rows if not r[4]]
    if missed:
        print(f"{len(missed)} target(s) missed", file=sys.stderr)
        return 1
    return 0
