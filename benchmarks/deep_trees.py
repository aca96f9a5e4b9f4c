"""Very deep and very large trees (issue 15 item 4): seconds per operation as the tree grows, to
show which operations are linear in the node count and that none recurses.

    .venv/bin/python benchmarks/deep_trees.py                 # staircases 2,500 .. 20,000 deep
    .venv/bin/python benchmarks/deep_trees.py --one-leaf-per-row 100000 300000 1000000

A staircase: x = 0 .. n-1 with alternating classes; every cut ties, the lowest wins, so each
split peels one row and the tree is n - 1 levels deep (C4.5, whose leaves need two rows, peels
about three). One leaf per row: a regressor on distinct x with distinct y, grown fully.

Each (tree, size) runs in its own process; an operation that took more than --budget seconds
is not run at the larger sizes. The table gives seconds, and the exponent k of t ~ n^k between
the two largest sizes measured (1: linear; 2: quadratic). Prediction and fitting a staircase
are quadratic by nature (row i walks i levels; a level partitions the rows below it), and so is
export_text's indented text (a line at depth d is 4d characters long).
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np


def staircase(n: int):
    return np.arange(n, dtype=np.float64).reshape(-1, 1), np.arange(n) % 2


def one_leaf_per_row(n: int):
    rng = np.random.default_rng(0)
    return rng.permutation(n).astype(np.float64).reshape(-1, 1), rng.normal(size=n)


def operations(kind: str, n: int):
    """(name, callable) pairs for one tree; the first fits it."""
    import rootwise
    from rootwise import C45Classifier, CARTClassifier, CARTRegressor
    from rootwise.prune.cost_complexity import cost_complexity_path, prune_to_alpha

    regression = kind in ("staircase-regressor", "one-leaf-per-row")
    X, y = one_leaf_per_row(n) if kind == "one-leaf-per-row" else staircase(n)
    y = y.astype(np.float64) if regression else y
    if kind == "staircase-c45":
        make = lambda **kw: C45Classifier(**{"pruning": None, **kw})  # noqa: E731
    elif regression:
        make = lambda **kw: CARTRegressor(**{"pruning": None, **kw})  # noqa: E731
    else:
        make = lambda **kw: CARTClassifier(**{"pruning": None, **kw})  # noqa: E731
    state = {}
    path = Path(tempfile.mkdtemp()) / "deep.json"

    def fit():
        state["m"] = make().fit(X, y)
        t = state["m"].tree_
        return f"{t.node_count} nodes, depth {t.max_depth}"

    def run(f):
        """Call ``f`` for its time alone."""
        return lambda: (f(), None)[1]

    def deepest_split():
        t = state["m"].tree_
        splits = np.flatnonzero(t.kind != 0)
        return int(splits[np.argmax(t.depth[splits])])

    ops = [
        ("fit", fit),
        ("predict (training rows)", run(lambda: state["m"].predict(X))),
        ("export_text", lambda: f"{len(rootwise.export_text(state['m'])) / 1e6:.0f} M chars"),
        ("export_graphviz", lambda: f"{len(rootwise.export_graphviz(state['m'])) / 1e6:.1f} M chars"),
        ("save", lambda: rootwise.save(state["m"], path) or f"{path.stat().st_size / 1e6:.0f} MB"),
        ("load", run(lambda: rootwise.load(path))),
        ("cost-complexity path", lambda: f"{len(cost_complexity_path(state['m'].tree_).alphas)} subtrees"),
        ("prune_to_alpha", run(lambda: prune_to_alpha(state["m"].tree_, 1e-9))),
        ("explain, root", run(lambda: rootwise.explain(X, y, state["m"]))),
        ("explain, deepest split", run(lambda: rootwise.explain(X, y, state["m"], node=deepest_split()))),
        ("fit, reduced-error", run(lambda: make(pruning="reduced-error").fit(X, y, X_val=X, y_val=y))),
        ("fit, pre-pruning", run(lambda: make(pruning="pre").fit(X, y, X_val=X, y_val=y))),
    ]
    if kind == "staircase-c45":
        ops.append(("fit, error-based", run(lambda: make(pruning="error-based").fit(X, y))))
    else:
        ops.append(("fit, cost-complexity (3-fold CV)",
                    run(lambda: make(pruning="cost-complexity", cv=3, random_state=0).fit(X, y))))
    return ops


def measure(kind: str, n: int, skip: set) -> dict:
    """{operation: (seconds or None, note)} for one tree, in this process."""
    warnings.simplefilter("ignore")
    out = {}
    for name, op in operations(kind, n):
        if name in skip:
            out[name] = (None, "skipped: over budget at a smaller size")
            continue
        start = time.perf_counter()
        try:
            note = op()
            out[name] = (time.perf_counter() - start, "" if note is None else str(note))
        except Exception as e:  # noqa: BLE001 - reported in the table
            out[name] = (None, f"{type(e).__name__}: {str(e)[:80]}")
            if name == "fit":
                break
    out["peak RSS"] = (None, f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.1f} GB")
    return out


def table(kind: str, sizes: list[int], results: dict) -> str:
    names = list(next(iter(results.values())).keys())
    head = f"| {kind} | " + " | ".join(f"n = {n:,}" for n in sizes) + " | exponent |"
    lines = [head, "|" + "---|" * (len(sizes) + 2)]
    for name in names:
        cells, points = [], []
        for n in sizes:
            seconds, note = results[n].get(name, (None, ""))
            cells.append((f"{seconds:.2f} s" if seconds is not None else "") + (f" ({note})" if note else ""))
            if seconds is not None and seconds > 0.05:
                points.append((n, seconds))
        k = ""
        if len(points) >= 2:
            (n1, t1), (n2, t2) = points[-2], points[-1]
            k = f"{math.log(t2 / t1) / math.log(n2 / n1):.1f}"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {k} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--staircase", type=int, nargs="*", default=[2_501, 5_001, 10_001, 20_001],
                    help="rows of the staircases (depth = rows - 1)")
    ap.add_argument("--one-leaf-per-row", type=int, nargs="*", default=[],
                    help="rows of the one-leaf-per-row regressor")
    ap.add_argument("--kinds", nargs="*", default=["staircase-cart", "staircase-regressor",
                                                    "staircase-c45"])
    ap.add_argument("--budget", type=float, default=120.0)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--skip", default="[]", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure(args.child[0], int(args.child[1]), set(json.loads(args.skip)))))
        return
    plan = [(k, args.staircase) for k in args.kinds if args.staircase]
    if args.one_leaf_per_row:
        plan.append(("one-leaf-per-row", args.one_leaf_per_row))
    for kind, sizes in plan:
        results, skip = {}, set()
        for n in sizes:
            done = subprocess.run([sys.executable, __file__, "--child", kind, str(n), "--skip",
                                   json.dumps(sorted(skip))], capture_output=True, text=True)
            if done.returncode != 0:
                results[n] = {"fit": (None, f"process failed: {done.stderr[-200:]}")}
                continue
            results[n] = {k: tuple(v) for k, v in json.loads(done.stdout.splitlines()[-1]).items()}
            skip |= {k for k, (s, _) in results[n].items() if s is not None and s > args.budget}
            print(f"{kind} n={n}: done", file=sys.stderr, flush=True)
        print(table(kind, sizes, results), "\n", flush=True)


if __name__ == "__main__":
    main()
