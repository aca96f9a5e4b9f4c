"""Start-up time: a fresh Python process that imports rootwise, fits a small tree and predicts.

    python benchmarks/startup.py            # warm and cold numba cache, every algorithm
    python benchmarks/startup.py --reps 5 --algorithms cart cart-regressor

Each measurement is a new interpreter (``sys.executable``), one algorithm per process:

* warm cache: numba's on-disk cache (``cache=True`` kernels, next to the sources) is filled by one
  unmeasured run, then ``--reps`` runs are timed and the median is reported. Target (issue 6):
  ``import rootwise`` + first small fit + predict < 0.5 s.
* cold cache: ``NUMBA_CACHE_DIR`` points at a new empty directory, so every kernel the algorithm
  touches compiles inside its first fit. Target: < 3 s per algorithm.

The child reports how long its imports (numpy, pandas, numba, scikit-learn, then rootwise's own
modules), its first fit and its first predict took; the parent also times the whole process
(interpreter start-up included) and a bare ``python -c pass`` for reference. CPU times (the
child's own, and the whole process's from ``RUSAGE_CHILDREN``) are printed beside the wall times:
on a machine shared with other work they are the steadier numbers. The target is judged on the
wall time. The small data has categorical
columns and missing cells (continuous columns too, except for ID3, which takes neither missing
cells nor thresholds), so the first fit reaches the categorical, threshold and missing-value
kernels a real table would.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from machine import load, machine_lines  # noqa: E402

ALGORITHMS = ("id3", "c4.5", "cart", "cart-regressor")

# Runs in the child. Imports first (timed), then one fit and one predict on a small table.
CHILD = r"""
import json, sys, time
c0 = time.process_time()
t0 = time.perf_counter()
import numpy
ta = time.perf_counter()
import pandas
tb = time.perf_counter()
import numba
tc = time.perf_counter()
import sklearn.base  # the dependencies, timed apart from rootwise's own code
t1 = time.perf_counter()
import rootwise
t2 = time.perf_counter()
c2 = time.process_time()
sys.path.insert(0, {here!r})
import data
algorithm = {algorithm!r}
if algorithm == "id3":
    X, y = data.mixed(300, 0, 4, missing_rate=0.0, seed=5)
else:
    X, y = data.mixed(300, 3, 2, missing_rate=0.05, seed=5)
model = {{"id3": rootwise.ID3Classifier(), "c4.5": rootwise.C45Classifier(),
          "cart": rootwise.CARTClassifier(pruning=None),
          "cart-regressor": rootwise.CARTRegressor(pruning=None)}}[algorithm]
if algorithm == "cart-regressor":
    y = y.astype(float)
t3 = time.perf_counter()
c3 = time.process_time()
model.fit(X, y)
t4 = time.perf_counter()
c4 = time.process_time()
model.predict(X)
t5 = time.perf_counter()
c5 = time.process_time()
print(json.dumps({{"numpy": ta - t0, "pandas": tb - ta, "numba": tc - tb, "sklearn": t1 - tc,
                  "deps": t1 - t0, "rootwise": t2 - t1, "fit": t4 - t3, "predict": t5 - t4,
                  "import_fit_predict": (t2 - t0) + (t5 - t3),
                  "import_fit_predict_cpu": (c2 - c0) + (c5 - c3), "fit_cpu": c4 - c3,
                  "predict_cpu": c5 - c4}}))
"""


def run_child(algorithm: str, cache_dir: str | None, timeout: float) -> dict:
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    code = CHILD.format(here=HERE, algorithm=algorithm)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    # cwd: ``-c`` puts the working directory first on sys.path, which must not shadow PYTHONPATH
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=HERE)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{algorithm}: child failed:\n{proc.stderr[-2000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process"] = wall
    out["process_cpu"] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return out


def bare_python() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, cwd=HERE)
    return time.perf_counter() - t0


def median_of(runs: list[dict]) -> dict:
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--algorithms", nargs="+", choices=ALGORITHMS, default=list(ALGORITHMS))
    p.add_argument("--reps", type=int, default=3, help="timed warm-cache runs per algorithm (median)")
    p.add_argument("--cold-reps", type=int, default=1, help="cold-cache runs per algorithm (median)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds one child may take")
    p.add_argument("--modes", nargs="+", choices=["warm", "cold"], default=["warm", "cold"])
    args = p.parse_args(argv)

    for line in machine_lines():
        print(line)
    if "warm" in args.modes:
        print("\n## Start-up, warm numba cache (median of "
              f"{args.reps}; target: import + first fit + predict < 0.5 s)\n")
        bare = statistics.median(bare_python() for _ in range(args.reps))
        print(f"a bare interpreter (python -c pass) takes {bare:.3f} s\n")
        head = ("| algorithm | import numpy / pandas / numba / sklearn | import rootwise | first fit | "
                "first predict | import+fit+predict | same, CPU time | whole process (CPU) | target |")
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for algorithm in args.algorithms:
            run_child(algorithm, None, args.timeout)  # fills the cache if it is not already
            m = median_of([run_child(algorithm, None, args.timeout) for _ in range(args.reps)])
            ok = "met" if m["import_fit_predict"] < 0.5 else "MISSED"
            deps = " / ".join(f"{m[k]:.2f}" for k in ("numpy", "pandas", "numba", "sklearn"))
            print(f"| {algorithm} | {deps} s | {m['rootwise']:.3f} s | {m['fit']:.3f} s | "
                  f"{m['predict']:.3f} s | {m['import_fit_predict']:.3f} s | "
                  f"{m['import_fit_predict_cpu']:.3f} s | "
                  f"{m['process']:.3f} s ({m['process_cpu']:.3f} s) | {ok} |",
                  flush=True)
    if "cold" in args.modes:
        print("\n## Start-up, cold numba cache (a new NUMBA_CACHE_DIR per run; median of "
              f"{args.cold_reps}; target: first fit < 3 s)\n")
        head = ("| algorithm | import rootwise | first fit (compiles) (CPU) | first predict (compiles) (CPU) "
                "| whole process (CPU) | target |")
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for algorithm in args.algorithms:
            runs = []
            for _ in range(args.cold_reps):
                with tempfile.TemporaryDirectory(prefix="rootwise-numba-cold-") as cache:
                    runs.append(run_child(algorithm, cache, args.timeout))
            m = median_of(runs)
            ok = "met" if m["fit"] < 3.0 else "MISSED"
            print(f"| {algorithm} | {m['rootwise']:.3f} s | {m['fit']:.3f} s ({m['fit_cpu']:.3f} s) | "
                  f"{m['predict']:.3f} s ({m['predict_cpu']:.3f} s) | "
                  f"{m['process']:.3f} s ({m['process_cpu']:.3f} s) | {ok} |", flush=True)
    print(f"\nload average at the end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
