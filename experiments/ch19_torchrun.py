"""Chapter 19, section 6: the tensor-parallel sweep under torchrun (4 ranks, loopback), and the
time to start and join 4 ranks by fork and by spawn. Writes experiments/results/ch19_torchrun.txt
and experiments/results/ch19_launch_times.json.

    OMP_NUM_THREADS=1 python experiments/ch19_torchrun.py
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import torch

from attnlab.distributed import _tp_echo_rank, free_port, launch, processes_left

RESULTS = Path(__file__).resolve().parent / "results"


def main():
    torch.set_num_threads(1)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes=1", "--nproc-per-node=4",
           "--master-addr=127.0.0.1", f"--master-port={free_port()}", "-m",
           "attnlab.distributed", "tp"]
    t0 = time.perf_counter()
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    line = [l for l in run.stdout.splitlines() if l.startswith("torchrun, rank 0")]
    assert line, run.stdout
    (RESULTS / "ch19_torchrun.txt").write_text(line[0] + "\n")
    print(line[0], f"({time.perf_counter() - t0:.1f} s)")
    times = {}
    for method in ("fork", "spawn"):
        t0 = time.perf_counter()
        launch(_tp_echo_rank, 4, method=method, timeout_s=120)
        times[f"{method}_s"] = round(time.perf_counter() - t0, 2)
    assert not processes_left()
    times["conditions"] = "4 ranks, start + gloo group + join, 2 shared cores, OMP_NUM_THREADS=1"
    (RESULTS / "ch19_launch_times.json").write_text(json.dumps(times, indent=1) + "\n")
    print(times)


if __name__ == "__main__":
    main()
