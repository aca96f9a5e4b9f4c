"""Peak memory of one fit, relative to the size of the input matrix.

    python benchmarks/memory.py                         # 1,000,000 x 20 float64, depth 10 and full
    python benchmarks/memory.py --rows 100000 --depths none --libs rootwise
    python benchmarks/memory.py --table real --depths none --libs rootwise sklearn \
        --models cart hist cv hist-cv c4.5 c4.5-r8     # issue 11 item 9: its table, 10^6 rows

Every fit runs in its own fresh process. The child generates the data, imports the library and
fits a tiny tree first (so numba's cache loading and scikit-learn's lazy imports are not counted),
then resets the kernel's peak-RSS mark (``echo 5 > /proc/self/clear_refs``), fits, and reads the
peak back (``VmHWM`` in ``/proc/self/status``). Reported:

* peak RSS: the whole process at its peak during the fit (interpreter, libraries, data, fit);
* extra: peak minus the resident size just before the fit, i.e. what fitting itself added;
* both divided by the input size (X.nbytes). Issue 6's target: peak while fitting < 2.5x input,
  read here as the extra memory the fit needs (the interpreter and libraries alone take more than
  the 160 MB of a 1,000,000 x 20 float64 matrix).

``--table real`` fits issue 11's table instead (``data.real_table``: 10 numeric and 10 pandas
categorical columns, 5 % missing cells; ``--task reg`` its regression target, LightGBM its
two-class version). rootwise fits the DataFrame, so encoding it is part of the fit (and of the
extra memory); scikit-learn fits the ordinal codes (``peers.ordinal_codes``), made before the
mark is reset. The yardstick is then the encoded matrix, rows x 20 float64, and issue 11's
target: extra < 3x that. ``--models`` picks the rootwise fits: ``cart`` (exact, unpruned: the
default of this script), ``hist`` (``splitter="hist"``, unpruned), ``cv`` (the default fit:
alpha by 10-fold CV, default ``n_jobs``), ``hist-cv`` (the same with ``splitter="hist"``),
``c4.5`` and ``c4.5-r8`` (C4.5 with its defaults, and release 8; classification only).
``--depths`` applies to the CART fits.

Where ``clear_refs`` is not allowed, the peak is ``ru_maxrss`` over the whole child (data
generation included) and the table says so. A fit that runs past ``--timeout`` is killed and
reported as "skipped (too slow)", with the peak it had reached by then.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from machine import load, machine_lines, print_table_head  # noqa: E402

MB = 1024 * 1024


def _status_kb(field: str, pid: str = "self") -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return True
    except OSError:
        return False


ROOTWISE_MODELS = ("cart", "hist", "cv", "hist-cv", "c4.5", "c4.5-r8")


def _estimator(lib: str, task: str, depth, model: str = "cart"):
    if lib == "rootwise":
        from rootwise import C45Classifier, CARTClassifier, CARTRegressor

        if model in ("c4.5", "c4.5-r8"):
            return C45Classifier(release8=model == "c4.5-r8")
        cart = CARTClassifier if task == "clf" else CARTRegressor
        if model in ("cv", "hist-cv"):
            return cart(max_depth=depth, random_state=0,
                        splitter="hist" if model == "hist-cv" else "exact")
        splitter = "hist" if model == "hist" else "exact"
        return cart(pruning=None, max_depth=depth, splitter=splitter)
    if lib == "sklearn":
        from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

        return (DecisionTreeClassifier if task == "clf" else DecisionTreeRegressor)(
            max_depth=depth, random_state=0)
    from speed import lightgbm_estimator  # one LightGBM tree, as in speed.py

    return lightgbm_estimator(task, depth, 2 ** depth)


def child(spec: dict) -> None:
    """Runs in the fresh process: prints one JSON line."""
    import resource

    import data

    rows, features, task, depth, lib = (spec[k] for k in ("rows", "features", "task", "depth", "lib"))
    model = spec.get("model", "cart")
    n_classes = 2 if lib == "lightgbm" else 3
    if spec.get("table") == "real":
        X, y = data.real_table(rows, n_classes=n_classes, regression=task == "reg")
        if lib == "sklearn":
            from peers import ordinal_codes

            X = ordinal_codes(X)
        input_bytes = rows * X.shape[1] * 8  # the encoded float64 matrix
    else:
        if task == "clf":
            X, y = data.classification(rows, features, n_classes=n_classes)
        else:
            X, y = data.regression(rows, features)
        input_bytes = X.nbytes
    Xs, ys = X[:200].copy(), y[:200].copy()
    _estimator(lib, task, depth, model).fit(Xs, ys).predict(Xs)  # loads kernels, lazy imports
    del Xs, ys
    before = _status_kb("VmRSS")
    exact = _reset_peak()
    print(json.dumps({"ready": True, "before_kb": before}), flush=True)
    t0 = time.perf_counter()
    _estimator(lib, task, depth, model).fit(X, y)
    seconds = time.perf_counter() - t0
    peak = _status_kb("VmHWM") if exact else None
    if peak is None:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kB on Linux
        exact = False
    print(json.dumps({"peak_kb": peak, "before_kb": before, "exact": exact, "seconds": seconds,
                      "input_bytes": input_bytes}), flush=True)


def measure(spec: dict, timeout: float) -> dict:
    """Run one child; on timeout, read its peak from /proc before killing it."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child", json.dumps(spec)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = json.loads(proc.stdout.readline() or "{}")
    if not ready.get("ready"):
        _, err = proc.communicate()
        return {"failed": _failure(proc.returncode, err)}
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        peak = _status_kb("VmHWM", str(proc.pid))
        proc.kill()
        proc.communicate()
        return {"timeout": True, "peak_kb": peak, "before_kb": ready["before_kb"],
                "input_bytes": spec["rows"] * spec["features"] * 8}
    if proc.returncode != 0:
        return {"failed": _failure(proc.returncode, err)}
    return json.loads(out.strip().splitlines()[-1])


def _failure(returncode: int, stderr: str) -> str:
    """One line for the table: the signal that killed the child, or its last error line."""
    if returncode < 0:
        try:
            return f"FAILED: killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"FAILED: killed by signal {-returncode}"
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    return f"FAILED: {lines[-1][:100] if lines else f'exit status {returncode}'}"


def measure_row(spec: dict, name: str, depth, timeout: float) -> None:
    """Measure one cell in a fresh process and print its row."""
    r = measure(spec, timeout)
    if "failed" in r:
        print(f"| {name} | {depth} | {r['failed']} | | | | | |", flush=True)
        return
    size = r["input_bytes"]
    before, peak = r["before_kb"] * 1024, (r["peak_kb"] or 0) * 1024
    extra = max(peak - before, 0)
    if r.get("timeout"):
        when = f"skipped (too slow: > {timeout:.0f} s)"
        marks = ">= "
    else:
        when = f"{r['seconds']:.1f} s" + ("" if r["exact"] else " (peak: whole child)")
        marks = ""
    print(f"| {name} | {depth} | {when} | {before / MB:.0f} MB | {marks}{peak / MB:.0f} MB | "
          f"{marks}{extra / MB:.0f} MB | {marks}{extra / size:.2f}x | {marks}{peak / size:.2f}x |",
          flush=True)


def _depth(s: str):
    return None if s.lower() in ("none", "full") else int(s)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--features", type=int, default=20)
    p.add_argument("--task", choices=["clf", "reg"], default="clf")
    p.add_argument("--depths", type=_depth, nargs="+", default=[10, None])
    p.add_argument("--libs", nargs="+", choices=["rootwise", "sklearn", "lightgbm"],
                   default=["rootwise", "sklearn", "lightgbm"])
    p.add_argument("--timeout", type=float, default=150.0, help="seconds one fit may take")
    p.add_argument("--table", choices=["numeric", "real"], default="numeric",
                   help="float matrix of data.classification / regression, or issue 11's table")
    p.add_argument("--models", nargs="+", choices=ROOTWISE_MODELS, default=["cart"],
                   help="rootwise fits (see above)")
    args = p.parse_args(argv)
    if args.child:
        child(json.loads(args.child))
        return 0

    for line in machine_lines():
        print(line)
    real = args.table == "real"
    if real:
        args.features = 20
        print(f"\n## Peak memory of one fit: {args.task}, issue 11's table, {args.rows:,} rows "
              f"(encoded: {args.rows:,} x 20 float64, {args.rows * 20 * 8 / MB:.0f} MB), one fresh "
              "process per cell")
        print("extra = peak during the fit - resident size just before it; input = the encoded "
              "matrix; target (issue 11): extra < 3x input\n")
    else:
        print(f"\n## Peak memory of one fit: {args.task}, {args.rows:,} x {args.features} float64 "
              f"({args.rows * args.features * 8 / MB:.0f} MB input), one fresh process per cell")
        print("extra = peak during the fit - resident size just before it; target: extra < 2.5x "
              "input\n")
    head = ("| library | max_depth | fit time | RSS before fit | peak RSS | extra | extra / input "
            "| peak / input |")
    print_table_head(head)
    for depth in args.depths:
        for lib in args.libs:
            if lib == "lightgbm":
                try:
                    import lightgbm  # noqa: F401
                except ImportError:
                    print(f"| lightgbm | {depth} | not installed | | | | | |")
                    continue
                if depth is None:
                    # num_leaves must be given up front, and LightGBM sizes its histogram pool by
                    # it: a fully grown tree's 10^5 leaves would measure that pool, not the fit
                    print("| lightgbm | None | n/a (needs num_leaves up front) | | | | | |")
                    continue
            models = args.models if lib == "rootwise" else ["-"]
            for model in models:
                if model in ("c4.5", "c4.5-r8") and (args.task == "reg" or depth != args.depths[0]):
                    continue  # C4.5: classification only, and max_depth is not varied
                spec = dict(rows=args.rows, features=args.features, task=args.task, depth=depth,
                            lib=lib, table=args.table, model=model)
                plain = lib != "rootwise" or (models == ["cart"] and not real)
                name = lib if plain else f"rootwise {model}"
                measure_row(spec, name, depth, args.timeout)
    print(f"\nload average at the end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
