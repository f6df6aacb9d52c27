"""What the benchmarks share: one BLAS thread, best-of timing, the machine line, the report.

Import it before NumPy or PyTorch (it sets the thread variables, which they read on import):

    import benchlib                # noqa: F401  (first import of a bench_*.py)
"""
import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"                            # one BLAS thread, before numpy loads

import platform                                       # noqa: E402
import sys                                            # noqa: E402
import time                                           # noqa: E402
from pathlib import Path                              # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))                         # attnlab from this checkout


def best_time(fn, repeat):
    """(minimum seconds over `repeat` calls of fn(), the last call's result)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def machine_line():
    """Where the numbers were measured: CPU, Python, NumPy and torch versions."""
    import numpy as np
    import torch
    return (f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"NumPy {np.__version__}, torch {torch.__version__}, one thread")


def report(name, text, rows):
    """Print `text`, write it to benchmarks/results/<name>.md; return the exit status:
    1 if a row's pass flag (its fifth field) is False, else 0."""
    print(text)
    out = ROOT / "benchmarks" / "results" / f"{name}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    missed = [r for r in rows if not r[4]]
    if missed:
        print(f"{len(missed)} target(s) missed", file=sys.stderr)
        return 1
    return 0
