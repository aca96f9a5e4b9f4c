"""Start-up time: a fresh Python process that imports rootwise, fits a small tree and predicts.

    python benchmarks/startup.py            # warm and cold numba cache, every algorithm and input
    python benchmarks/startup.py --reps 5 --algorithms cart cart-regressor --inputs numpy

Each measurement is a new interpreter (``sys.executable``), one algorithm and input per process:

* warm cache: numba's on-disk cache (``cache=True`` kernels, next to the sources) is filled by one
  unmeasured run, then ``--reps`` runs are timed and the median is reported. Target (issue 6):
  ``import rootwise`` + first small fit + predict < 0.5 s.
* cold cache: ``NUMBA_CACHE_DIR`` points at a new empty directory, so every kernel the algorithm
  touches compiles inside its first fit. Target: < 3 s per algorithm.

Every estimator runs with its defaults (``random_state=0``): CART prunes by cost-complexity with
alpha chosen by 10-fold cross-validation (1-SE rule), so its first fit grows 11 trees.
Two inputs, 300 rows each, made before the timed fit (not timed):

* ``numpy``: a float matrix without missing cells, the plain case the target is judged on
  (``data.classification`` / ``data.regression``, 5 columns). ID3 gets 4 columns of 5 integer
  levels: it treats numbers as categories.
* ``frame``: a pandas DataFrame with 3 continuous and 2 categorical columns and 5 % missing
  cells (ID3: 4 categorical columns, none missing), so the first fit also reaches the
  categorical and missing-value kernels (CART's regressor: y = class code + N(0, 1) noise).
  pandas is the caller's import here; the child imports it before the timed part.

The child times ``import rootwise`` alone (what it pulls in: numpy, numba and rootwise's own
modules, and scikit-learn / pandas / scipy.sparse / scipy.stats if anything imports them: the
"heavy" column lists those present after fit and predict; numba itself imports scipy and, on its
first call, scipy.linalg), then the first fit and the first predict. The parent also
times the whole process (interpreter start-up included) and a bare ``python -c pass``. CPU times
(the child's own, and the whole process's from ``RUSAGE_CHILDREN``) are printed beside the wall
times: on a machine shared with other work they are the steadier numbers. The targets are
judged on the wall time. Python's bytecode cache is on in the children (as for an installed
package) even when the caller sets PYTHONDONTWRITEBYTECODE.
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
from machine import load, machine_lines, print_table_head  # noqa: E402

ALGORITHMS = ("id3", "c4.5", "cart", "cart-regressor")
INPUTS = ("numpy", "frame")

# Runs in the child: import rootwise (timed), make the data (not timed), one fit, one predict.
CHILD = r"""
import json, sys, time
c0 = time.process_time()
t0 = time.perf_counter()
import rootwise
t1 = time.perf_counter()
c1 = time.process_time()
sys.path.insert(0, {here!r})
import numpy as np
import data
algorithm, kind = {algorithm!r}, {kind!r}
X, y = data.startup_case(algorithm, kind)
model = {{"id3": rootwise.ID3Classifier, "c4.5": rootwise.C45Classifier,
          "cart": rootwise.CARTClassifier, "cart-regressor": rootwise.CARTRegressor}}[algorithm]
model = model(random_state=0)
t2 = time.perf_counter()
c2 = time.process_time()
model.fit(X, y)
t3 = time.perf_counter()
c3 = time.process_time()
model.predict(X)
t4 = time.perf_counter()
c4 = time.process_time()
heavy = [m for m in ("pandas", "sklearn", "scipy.sparse", "scipy.stats") if m in sys.modules]
print(json.dumps({{"rootwise": t1 - t0, "fit": t3 - t2, "predict": t4 - t3,
                  "import_fit_predict": (t1 - t0) + (t4 - t2),
                  "import_fit_predict_cpu": (c1 - c0) + (c4 - c2), "fit_cpu": c3 - c2,
                  "predict_cpu": c4 - c3, "heavy": " ".join(heavy) or "-"}}))
"""


def run_child(algorithm: str, kind: str, cache_dir: str | None, timeout: float) -> dict:
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    # Python's own bytecode cache on, as in an installed package (pip writes the .pyc files):
    # without it every import compiles rootwise's sources again (0.1-0.2 s)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    code = CHILD.format(here=HERE, algorithm=algorithm, kind=kind)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    # cwd: ``-c`` puts the working directory first on sys.path, which must not shadow PYTHONPATH
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=HERE)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{algorithm} ({kind}): child failed:\n{proc.stderr[-2000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process"] = wall
    out["process_cpu"] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return out


def bare_python() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, cwd=HERE)
    return time.perf_counter() - t0


def median_of(runs: list[dict]) -> dict:
    """Median of each timing; the text fields (the heavy modules) from the first run."""
    return {k: statistics.median(r[k] for r in runs) if isinstance(runs[0][k], float) else runs[0][k]
            for k in runs[0]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--algorithms", nargs="+", choices=ALGORITHMS, default=list(ALGORITHMS))
    p.add_argument("--inputs", nargs="+", choices=INPUTS, default=list(INPUTS))
    p.add_argument("--reps", type=int, default=3, help="timed warm-cache runs per algorithm (median)")
    p.add_argument("--cold-reps", type=int, default=1, help="cold-cache runs per algorithm (median)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds one child may take")
    p.add_argument("--modes", nargs="+", choices=["warm", "cold"], default=["warm", "cold"])
    args = p.parse_args(argv)
    cases = [(a, k) for k in args.inputs for a in args.algorithms]

    for line in machine_lines():
        print(line)
    if "warm" in args.modes:
        print("\n## Start-up, warm numba cache (wall time, CPU time in brackets; median of "
              f"{args.reps}; target: import + first fit + predict < 0.5 s)\n")
        bare = statistics.median(bare_python() for _ in range(args.reps))
        print(f"a bare interpreter (python -c pass) takes {bare:.3f} s\n")
        head = ("| algorithm | input | import rootwise | first fit | first predict | "
                "import + fit + predict | whole process | heavy modules loaded | target |")
        print_table_head(head)
        for algorithm, kind in cases:
            run_child(algorithm, kind, None, args.timeout)  # fills the cache if it is not already
            m = median_of([run_child(algorithm, kind, None, args.timeout) for _ in range(args.reps)])
            ok = "met" if m["import_fit_predict"] < 0.5 else "MISSED"
            print(f"| {algorithm} | {kind} | {m['rootwise']:.3f} s | {m['fit']:.3f} s "
                  f"({m['fit_cpu']:.3f} s) | {m['predict']:.3f} s ({m['predict_cpu']:.3f} s) | "
                  f"{m['import_fit_predict']:.3f} s ({m['import_fit_predict_cpu']:.3f} s) | "
                  f"{m['process']:.3f} s ({m['process_cpu']:.3f} s) | {m['heavy']} | {ok} |",
                  flush=True)
    if "cold" in args.modes:
        print("\n## Start-up, cold numba cache (a new NUMBA_CACHE_DIR per run; wall time, CPU time "
              f"in brackets; median of {args.cold_reps}; target: first fit < 3 s)\n")
        head = ("| algorithm | input | import rootwise | first fit (compiles) | "
                "first predict (compiles) | whole process | target |")
        print_table_head(head)
        for algorithm, kind in cases:
            runs = []
            for _ in range(args.cold_reps):
                with tempfile.TemporaryDirectory(prefix="rootwise-numba-cold-") as cache:
                    runs.append(run_child(algorithm, kind, cache, args.timeout))
            m = median_of(runs)
            ok = "met" if m["fit"] < 3.0 else "MISSED"
            print(f"| {algorithm} | {kind} | {m['rootwise']:.3f} s | {m['fit']:.3f} s "
                  f"({m['fit_cpu']:.3f} s) | {m['predict']:.3f} s ({m['predict_cpu']:.3f} s) | "
                  f"{m['process']:.3f} s ({m['process_cpu']:.3f} s) | {ok} |", flush=True)
    print(f"\nload average at the end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
