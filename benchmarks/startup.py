"""Start-up time: a fresh Python process that imports rootwise, fits a small tree and predicts.

    make wheel && python benchmarks/startup.py --modes side --wheel dist/rootwise-*.whl
    python benchmarks/startup.py            # side by side, warm and cold, every algorithm and input
    python benchmarks/startup.py --reps 5 --algorithms cart cart-regressor --inputs numpy
    python benchmarks/startup.py --inputs table --modes warm cold all   # issue 11 item 7

Side by side (``--modes side``): import + first fit of ID3 on watermelon 2.0 and of the default
CART on 10^4 rows (``data.classification``), each in fresh processes, alternating: scikit-learn
(``import sklearn.tree`` and a DecisionTreeClassifier; watermelon as ordinal codes); rootwise with
numba's cache filled; rootwise from a wheel's precompiled kernels (``--wheel``: installed into a
new virtualenv, run with an empty HOME and an empty NUMBA_CACHE_DIR); rootwise compiling every
kernel from nothing (ROOTWISE_PRECOMPILED=0, an empty NUMBA_CACHE_DIR; ``--cold-reps`` runs).

Each measurement is a new interpreter (``sys.executable``), one algorithm and input per process:

* warm cache: numba's on-disk cache (``cache=True`` kernels, next to the sources) is filled by one
  unmeasured run, then ``--reps`` runs are timed and the median is reported. Target (issue 6):
  ``import rootwise`` + first small fit + predict < 0.5 s.
  Issue 11's target: import + first fit below scikit-learn's own import. The same number of
  fresh processes run ``import sklearn.tree`` (timed inside, and the whole process), and the
  table compares import rootwise + first fit with the first.
* cold cache: ``NUMBA_CACHE_DIR`` points at a new empty directory, so every kernel the algorithm
  touches compiles inside its first fit. Targets: < 3 s per algorithm (issue 6, numpy input),
  < 6 s (issue 11, its table).
* all in one process (``--modes all``): one fresh process with a new empty ``NUMBA_CACHE_DIR``
  fits every chosen algorithm in turn (each on its own data, made before its timed fit), so a
  kernel two algorithms share compiles once. Issue 11's target: every first fit together < 15 s.

Every estimator runs with its defaults (``random_state=0``): CART prunes by cost-complexity with
alpha chosen by 10-fold cross-validation (1-SE rule), so its first fit grows 11 trees. Besides
the four algorithms, ``c4.5-r8`` is ``C45Classifier(release8=True)`` and ``hist`` is
``CARTClassifier(splitter="hist")``. Three inputs, made before the timed fit (not timed):

* ``numpy``: a float matrix without missing cells, the plain case the target is judged on
  (``data.classification`` / ``data.regression``, 5 columns). ID3 gets 4 columns of 5 integer
  levels: it treats numbers as categories.
* ``frame``: a pandas DataFrame with 3 continuous and 2 categorical columns and 5 % missing
  cells (ID3: 4 categorical columns, none missing), so the first fit also reaches the
  categorical and missing-value kernels (CART's regressor: y = class code + N(0, 1) noise).
  pandas is the caller's import here; the child imports it before the timed part.
* ``table``: issue 11's table (``data.real_table``) at ``--table-rows`` rows (300, as the others): 10 numeric
  and 10 categorical columns of 3..200 categories, 5 % missing cells, three classes (the
  regressor: its regression target). ID3 gets it without missing cells, which it refuses.

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

ALGORITHMS = ("id3", "c4.5", "c4.5-r8", "cart", "cart-regressor", "hist")
INPUTS = ("numpy", "frame", "table")
# algorithm -> (estimator class, options besides random_state=0)
MODELS = {"id3": ("ID3Classifier", {}), "c4.5": ("C45Classifier", {}),
          "c4.5-r8": ("C45Classifier", {"release8": True}), "cart": ("CARTClassifier", {}),
          "cart-regressor": ("CARTRegressor", {}), "hist": ("CARTClassifier", {"splitter": "hist"})}
# the data.startup_case shape each algorithm gets (release 8 and hist: C4.5's and CART's)
CASE = {"c4.5-r8": "c4.5", "hist": "cart"}
# issue 11's table: the options of data.real_table per algorithm
TABLE = {"id3": {"missing_rate": 0.0}, "cart-regressor": {"regression": True}}

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


def case(algorithm, kind):
    if kind == "table":
        return data.real_table({table_rows}, **{table!r}.get(algorithm, {{}}))
    return data.startup_case({case!r}.get(algorithm, algorithm), kind)


def model(algorithm):
    name, params = {models!r}[algorithm]
    return getattr(rootwise, name)(random_state=0, **params)


out = {{"rootwise": t1 - t0, "import_cpu": c1 - c0, "fits": []}}
for algorithm in {algorithms!r}:
    X, y = case(algorithm, {kind!r})
    m = model(algorithm)
    t2, c2 = time.perf_counter(), time.process_time()
    m.fit(X, y)
    t3, c3 = time.perf_counter(), time.process_time()
    m.predict(X)
    t4, c4 = time.perf_counter(), time.process_time()
    out["fits"].append({{"algorithm": algorithm, "fit": t3 - t2, "fit_cpu": c3 - c2,
                        "predict": t4 - t3, "predict_cpu": c4 - c3}})
heavy = [m for m in ("pandas", "sklearn", "scipy.sparse", "scipy.stats") if m in sys.modules]
out["heavy"] = " ".join(heavy) or "-"
print(json.dumps(out))
"""

# Runs in the child: scikit-learn's import, the yardstick of issue 11's warm start.
SKLEARN_CHILD = r"""
import json, time
t0, c0 = time.perf_counter(), time.process_time()
import sklearn.tree
print(json.dumps({"import": time.perf_counter() - t0, "import_cpu": time.process_time() - c0}))
"""


def child_env(cache_dir: str | None) -> dict:
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    # Python's own bytecode cache on, as in an installed package (pip writes the .pyc files):
    # without it every import compiles rootwise's sources again (0.1-0.2 s)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    return env


def run_python(code: str, env: dict, timeout: float, what: str) -> tuple[dict, float, float]:
    """(its last stdout line as JSON, wall seconds, CPU seconds) of one fresh interpreter."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    # cwd: ``-c`` puts the working directory first on sys.path, which must not shadow PYTHONPATH
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=HERE)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{what}: child failed:\n{proc.stderr[-2000:]}")
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return json.loads(proc.stdout.strip().splitlines()[-1]), wall, cpu


def child_code(algorithms: list[str], kind: str, table_rows: int) -> str:
    return CHILD.format(here=HERE, algorithms=list(algorithms), kind=kind, table_rows=table_rows,
                        table=TABLE, case=CASE, models=MODELS)


def run_child(algorithm: str, kind: str, cache_dir: str | None, timeout: float,
              table_rows: int = 300) -> dict:
    """One algorithm in a fresh process: its import, fit and predict times, flat."""
    raw, wall, cpu = run_python(child_code([algorithm], kind, table_rows), child_env(cache_dir),
                                timeout, f"{algorithm} ({kind})")
    f = raw["fits"][0]
    return {"rootwise": raw["rootwise"], "fit": f["fit"], "predict": f["predict"],
            "import_fit": raw["rootwise"] + f["fit"], "import_fit_cpu": raw["import_cpu"] + f["fit_cpu"],
            "import_fit_predict": raw["rootwise"] + f["fit"] + f["predict"],
            "import_fit_predict_cpu": raw["import_cpu"] + f["fit_cpu"] + f["predict_cpu"],
            "fit_cpu": f["fit_cpu"], "predict_cpu": f["predict_cpu"], "heavy": raw["heavy"],
            "process": wall, "process_cpu": cpu}


def run_all(algorithms: list[str], kind: str, cache_dir: str, timeout: float,
            table_rows: int) -> tuple[dict, float, float]:
    """Every algorithm's first fit in one fresh process."""
    return run_python(child_code(algorithms, kind, table_rows), child_env(cache_dir), timeout,
                      f"all ({kind})")


def sklearn_import(timeout: float) -> dict:
    """``import sklearn.tree`` in a fresh process: timed inside, and the whole process."""
    raw, wall, cpu = run_python(SKLEARN_CHILD, child_env(None), timeout, "import sklearn.tree")
    return {"import": raw["import"], "import_cpu": raw["import_cpu"], "process": wall,
            "process_cpu": cpu}


def bare_python() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, cwd=HERE)
    return time.perf_counter() - t0


def median_of(runs: list[dict]) -> dict:
    """Median of each timing; the text fields (the heavy modules) from the first run."""
    return {k: statistics.median(r[k] for r in runs) if isinstance(runs[0][k], float) else runs[0][k]
            for k in runs[0]}


def warm(args, cases) -> None:
    print("\n## Start-up, warm numba cache (wall time, CPU time in brackets; median of "
          f"{args.reps}; targets: import + first fit + predict < 0.5 s (issue 6), import + first "
          "fit < scikit-learn's import (issue 11))\n")
    bare = statistics.median(bare_python() for _ in range(args.reps))
    sk = median_of([sklearn_import(args.timeout) for _ in range(args.reps)])
    print(f"a bare interpreter (python -c pass) takes {bare:.3f} s; `import sklearn.tree` "
          f"{sk['import']:.3f} s ({sk['import_cpu']:.3f} s CPU) inside a fresh interpreter, "
          f"{sk['process']:.3f} s for its whole process ({sk['process_cpu']:.3f} s CPU)\n")
    head = ("| algorithm | input | import rootwise | first fit | first predict | "
            "import + fit + predict | whole process | heavy modules loaded | < 0.5 s | "
            "import + fit vs import sklearn.tree |")
    print_table_head(head)
    for algorithm, kind in cases:
        run_child(algorithm, kind, None, args.timeout, args.table_rows)  # fills the cache
        m = median_of([run_child(algorithm, kind, None, args.timeout, args.table_rows)
                       for _ in range(args.reps)])
        ok = "met" if m["import_fit_predict"] < 0.5 else "MISSED"
        vs = (f"{m['import_fit']:.3f} / {sk['import']:.3f} s "
              f"({m['import_fit_cpu']:.3f} / {sk['import_cpu']:.3f} s CPU): "
              f"{'met' if m['import_fit'] < sk['import'] else 'MISSED'}")
        print(f"| {algorithm} | {kind} | {m['rootwise']:.3f} s | {m['fit']:.3f} s "
              f"({m['fit_cpu']:.3f} s) | {m['predict']:.3f} s ({m['predict_cpu']:.3f} s) | "
              f"{m['import_fit_predict']:.3f} s ({m['import_fit_predict_cpu']:.3f} s) | "
              f"{m['process']:.3f} s ({m['process_cpu']:.3f} s) | {m['heavy']} | {ok} | {vs} |",
              flush=True)


def cold(args, cases) -> None:
    print("\n## Start-up, cold numba cache (a new NUMBA_CACHE_DIR per run; wall time, CPU time "
          f"in brackets; median of {args.cold_reps}; targets: first fit < 3 s on numpy input "
          "(issue 6), < 6 s on issue 11's table)\n")
    head = ("| algorithm | input | import rootwise | first fit (compiles) | "
            "first predict (compiles) | whole process | target |")
    print_table_head(head)
    for algorithm, kind in cases:
        runs = []
        for _ in range(args.cold_reps):
            with tempfile.TemporaryDirectory(prefix="rootwise-numba-cold-") as cache:
                runs.append(run_child(algorithm, kind, cache, args.timeout, args.table_rows))
        m = median_of(runs)
        limit = 6.0 if kind == "table" else 3.0
        ok = f"< {limit:g} s: {'met' if m['fit'] < limit else 'MISSED'}"
        print(f"| {algorithm} | {kind} | {m['rootwise']:.3f} s | {m['fit']:.3f} s "
              f"({m['fit_cpu']:.3f} s) | {m['predict']:.3f} s ({m['predict_cpu']:.3f} s) | "
              f"{m['process']:.3f} s ({m['process_cpu']:.3f} s) | {ok} |", flush=True)


def all_in_one(args) -> None:
    """Every chosen algorithm's first fit in one process with an empty cache, per input."""
    print("\n## Start-up, cold numba cache, every algorithm in one process (wall time, CPU time "
          "in brackets; target (issue 11): all first fits together < 15 s)\n")
    for kind in args.inputs:
        with tempfile.TemporaryDirectory(prefix="rootwise-numba-cold-") as cache:
            raw, wall, cpu = run_all(args.algorithms, kind, cache, args.timeout * len(args.algorithms),
                                     args.table_rows)
        fits = sum(f["fit"] for f in raw["fits"])
        fits_cpu = sum(f["fit_cpu"] for f in raw["fits"])
        order = ", ".join(f"{f['algorithm']} {f['fit']:.1f} s" for f in raw["fits"])
        print(f"- {kind}: import rootwise {raw['rootwise']:.2f} s; first fits in this order: "
              f"{order}; together {fits:.1f} s ({fits_cpu:.1f} s CPU): "
              f"{'met' if fits < 15.0 else 'MISSED'}; whole process {wall:.1f} s ({cpu:.1f} s CPU)",
              flush=True)


# Runs in the child: import (timed) and one first fit (timed) of a workload, rootwise or scikit-
# learn; the data are made between the two clocks. ``{lib}`` is "rootwise" or "sklearn".
SIDE_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
if {lib!r} == "rootwise":
    import rootwise
else:
    import sklearn.tree
t1 = time.perf_counter()
sys.path.insert(0, {here!r})
import numpy as np
import data
if {workload!r} == "id3-watermelon":
    if {lib!r} == "rootwise":
        X, y = rootwise.datasets.load_watermelon_2_0(return_X_y=True)
        model = rootwise.ID3Classifier()
    else:  # the same table as ordinal codes: scikit-learn has no categorical split
        import pandas as pd
        import os
        table = pd.read_csv(os.path.join({here!r}, "..", "rootwise", "datasets", "data",
                                         "watermelon_2.0.csv"))
        y = table.pop(table.columns[-1])
        X = table.drop(columns=table.columns[0]).apply(lambda c: c.astype("category").cat.codes)
        model = sklearn.tree.DecisionTreeClassifier(criterion="entropy", random_state=0)
else:
    X, y = data.classification(10_000, 10, seed=3)
    model = (rootwise.CARTClassifier(random_state=0) if {lib!r} == "rootwise"
             else sklearn.tree.DecisionTreeClassifier(random_state=0))
t2 = time.perf_counter()
model.fit(X, y)
t3 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "fit": t3 - t2}}))
"""
SIDE_WORKLOADS = ("id3-watermelon", "cart-10k")


def side_child(python: str, lib: str, workload: str, env: dict, timeout: float) -> dict:
    """One fresh process of ``python``: its import + first fit, and the whole process."""
    code = SIDE_CHILD.format(lib=lib, workload=workload, here=HERE)
    t0 = time.perf_counter()
    proc = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=HERE)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{lib} {workload}: child failed:\n{proc.stderr[-2000:]}")
    raw = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"import_fit": raw["import"] + raw["fit"], "process": wall}


def wheel_python(wheel: str) -> str:
    """A new virtualenv with ``wheel`` installed (its dependencies seen through a .pth line
    naming this environment's site-packages: nothing is downloaded); returns its python."""
    import sysconfig

    root = tempfile.mkdtemp(prefix="rootwise-wheel-venv-")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", root], check=True)
    python = os.path.join(root, "bin", "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('platlib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(site, "dependencies.pth"), "w") as f:
        f.write(sysconfig.get_path("purelib") + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet",
                    "--no-deps", "--no-index", wheel], check=True)
    return python


def side_by_side(args) -> None:
    """scikit-learn, rootwise warm, rootwise from the wheel's kernels and rootwise compiling from
    nothing, each in fresh processes, alternating (cold runs once per repetition, last)."""
    print("\n## First fit in a fresh process: import + first fit (wall time; the whole process "
          f"in brackets; median of {args.reps}, cold: of {args.cold_reps})\n")
    wheel = wheel_python(args.wheel) if args.wheel else None
    home = tempfile.mkdtemp(prefix="rootwise-home-")
    columns = ["scikit-learn", "rootwise warm", "rootwise, wheel's kernels", "rootwise cold JIT"]
    print_table_head("| workload | " + " | ".join(columns) + " |")
    for workload in SIDE_WORKLOADS:
        runs = {c: [] for c in columns}
        # numba's own cache, filled by a first run (not a wheel's kernels in this tree)
        warm_env = {**child_env(None), "ROOTWISE_PRECOMPILED": "0"}
        side_child(sys.executable, "rootwise", workload, warm_env, args.timeout)
        for rep in range(max(args.reps, args.cold_reps)):
            if rep < args.reps:
                runs["scikit-learn"].append(side_child(sys.executable, "sklearn", workload,
                                                       child_env(None), args.timeout))
                runs["rootwise warm"].append(side_child(sys.executable, "rootwise", workload,
                                                        warm_env, args.timeout))
                if wheel:  # a new user: empty HOME and numba cache, only the wheel's kernels
                    with tempfile.TemporaryDirectory(prefix="rootwise-numba-") as cache:
                        env = {**child_env(cache), "HOME": home}
                        runs["rootwise, wheel's kernels"].append(
                            side_child(wheel, "rootwise", workload, env, args.timeout))
            if rep < args.cold_reps:
                with tempfile.TemporaryDirectory(prefix="rootwise-numba-cold-") as cache:
                    env = {**child_env(cache), "ROOTWISE_PRECOMPILED": "0"}
                    runs["rootwise cold JIT"].append(side_child(sys.executable, "rootwise",
                                                                workload, env, args.timeout))
        cells = []
        for c in columns:
            if not runs[c]:
                cells.append("n/a (make wheel; --wheel)")
                continue
            m = median_of(runs[c])
            cells.append(f"{m['import_fit']:.2f} s ({m['process']:.2f} s)")
        print(f"| {workload} | " + " | ".join(cells) + " |", flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--algorithms", nargs="+", choices=ALGORITHMS, default=list(ALGORITHMS))
    p.add_argument("--inputs", nargs="+", choices=INPUTS, default=["numpy", "frame"])
    p.add_argument("--reps", type=int, default=3, help="timed warm-cache runs per algorithm (median)")
    p.add_argument("--cold-reps", type=int, default=1, help="cold-cache runs per algorithm (median)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds one child may take")
    p.add_argument("--table-rows", type=int, default=300, help="rows of the table input")
    p.add_argument("--modes", nargs="+", choices=["side", "warm", "cold", "all"],
                   default=["side", "warm", "cold"])
    p.add_argument("--wheel", help="a wheel built by `make wheel`, for the side-by-side mode")
    args = p.parse_args(argv)
    cases = [(a, k) for k in args.inputs for a in args.algorithms]

    for line in machine_lines():
        print(line)
    if "side" in args.modes:
        side_by_side(args)
    if "warm" in args.modes:
        warm(args, cases)
    if "cold" in args.modes:
        cold(args, cases)
    if "all" in args.modes:
        all_in_one(args)
    print(f"\nload average at the end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
