"""The cold compile: CPU seconds a first fit spends compiling rootwise's kernels, for two source
trees side by side (an A/B of a change to the kernels or to how they are compiled).

    python benchmarks/compile_time.py --trees /path/to/a /path/to/b --jobs cart id3 --reps 2
    python benchmarks/compile_time.py --trees . --jobs cart          # one tree: its numbers only

Each run is a new interpreter with the tree first on ``PYTHONPATH``, a new empty
``NUMBA_CACHE_DIR`` and ``ROOTWISE_PRECOMPILED=0``, so every kernel the job touches compiles. It
prints the process's CPU time (user + system, from the operating system's accounting of the
finished child, not a clock in the child), and the kernels and signatures numba compiled (its
"numba:compile" events). Jobs: ``cart``, the default CARTClassifier on 10^4 rows of 6 numeric
columns (cost-complexity pruning by 10-fold cross-validation); ``id3``, ID3 on watermelon 2.0
(``make run``'s fit); ``all``, every kernel ``rootwise compile`` compiles (as ``make wheel``
and the test suite's kernel fill do), in one process.

The trees of a repetition run at once, one per core, so that both meet the same machine: CPU
seconds grow when a machine is loaded (shared caches, frequency), and a change is judged by the
ratio of runs made side by side. Repetitions alternate the order in which they start.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

JOB = r"""
import json, sys
from numba.core import event
kernels, signatures = set(), [0]
class Count(event.Listener):
    def on_start(self, ev):
        function = ev.data["dispatcher"].py_func
        kernels.add(f"{function.__module__}.{function.__qualname__}")
        signatures[0] += 1
    def on_end(self, ev):
        pass
event.register("numba:compile", Count())
import numpy as np
import rootwise
if sys.argv[1] == "all":  # what ``rootwise compile`` compiles, in this one process
    rootwise.compile_kernels(processes=1)
    print(json.dumps({"leaves": 0, "kernels": len(kernels), "signatures": signatures[0]}))
    sys.exit()
if sys.argv[1] == "cart":
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10000, 6))
    y = (X[:, 0] + rng.normal(size=10000) > 0).astype(int)
    model = rootwise.CARTClassifier().fit(X, y)
else:
    from rootwise import datasets
    X, y = datasets.load_watermelon_2_0(return_X_y=True)
    model = rootwise.ID3Classifier().fit(X, y)
model.predict(X)
print(json.dumps({"leaves": int(model.get_n_leaves()), "kernels": len(kernels),
                  "signatures": signatures[0]}))
"""


def start(tree: str, job: str, cache: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.path.abspath(tree), "NUMBA_CACHE_DIR": cache,
           "ROOTWISE_PRECOMPILED": "0", "ROOTWISE_COMPILE_NOTICE": "0"}
    # run from the (new, empty) cache folder: ``python -c`` puts the working directory first on
    # sys.path, where a checkout's rootwise would shadow the tree's
    os.makedirs(cache, exist_ok=True)
    return subprocess.Popen([sys.executable, "-c", JOB, job], env=env, stdout=subprocess.PIPE,
                            text=True, cwd=cache)


def wait_cpu(process: subprocess.Popen) -> tuple[float, dict]:
    """The finished child's CPU seconds (user + system) and what it printed."""
    _, status, usage = os.wait4(process.pid, 0)
    out = process.stdout.read()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"a job failed with status {process.returncode}")
    return usage.ru_utime + usage.ru_stime, json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trees", nargs="+", default=["."], help="source trees (1 or 2)")
    parser.add_argument("--jobs", nargs="+", default=["cart"], choices=["cart", "id3", "all"])
    parser.add_argument("--reps", type=int, default=1)
    args = parser.parse_args()
    for job in args.jobs:
        seconds = {tree: [] for tree in args.trees}
        info = {}
        for rep in range(args.reps):
            order = args.trees if rep % 2 == 0 else args.trees[::-1]
            with tempfile.TemporaryDirectory() as scratch:
                running = [(tree, start(tree, job, os.path.join(scratch, str(i))))
                           for i, tree in enumerate(order)]
                for tree, process in running:
                    cpu, info[tree] = wait_cpu(process)
                    seconds[tree].append(cpu)
        for tree in args.trees:
            print(f"{job:5s} {tree}: {statistics.median(seconds[tree]):6.1f} s CPU "
                  f"(runs: {', '.join(f'{s:.1f}' for s in seconds[tree])}); "
                  f"{info[tree]['kernels']} kernels, {info[tree]['signatures']} signatures, "
                  f"{info[tree]['leaves']} leaves")
        if len(args.trees) == 2:
            a, b = (statistics.median(seconds[t]) for t in args.trees)
            print(f"{job:5s} ratio second/first: {b / a:.3f}")


if __name__ == "__main__":
    main()
