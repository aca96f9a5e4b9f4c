"""C4.5's error-based pruning inside a fit: total fit time and the pruning's share (issue 11).

    .venv/bin/python benchmarks/c45_pruning.py                 # 10^5 rows, 3 fits each
    .venv/bin/python benchmarks/c45_pruning.py --rows 20000 --reps 5
    PYTHONPATH=/path/to/other/checkout .venv/bin/python benchmarks/c45_pruning.py   # another version

Data: ``data.real_table`` (issue 11's table: 10 numeric and 10 categorical columns of 3 to 200
categories, 5 % missing cells, 3 classes). Fits ``C45Classifier()`` and
``C45Classifier(release8=True)`` on one thread (``n_jobs=1``) from the DataFrame, after one untimed
fit (kernels compiled or loaded, caches filled). The pruning is timed around the estimator's call
of the pass (``error_based_prune``; release 8 collapses inside it), so the same script measures
any version of rootwise that prunes that way. Prints the machine, then per model the median
wall-clock and CPU time of the fit and of the pruning, the pruning's share of the fit, and the
tree's node counts before and after pruning.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from data import real_table  # noqa: E402
from machine import machine_lines, print_table_head  # noqa: E402

import rootwise.estimators as estimators  # noqa: E402
from rootwise import C45Classifier  # noqa: E402


class PruningTimer:
    """Wraps the estimators' ``error_based_prune``: wall and CPU seconds of its last call, and
    the node counts it got and gave."""

    def __init__(self):
        self.wrapped = estimators.error_based_prune
        self.wall = self.cpu = 0.0
        self.nodes = (0, 0)

    def __call__(self, tree, *args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        out = self.wrapped(tree, *args, **kwargs)
        self.wall, self.cpu = time.perf_counter() - wall, time.process_time() - cpu
        self.nodes = (tree.node_count, out.node_count)
        return out


def measure(model, X, y, reps: int, timer: PruningTimer) -> dict:
    model.fit(X, y)  # untimed: kernels compiled or loaded
    fits, fit_cpu, prunes, prune_cpu = [], [], [], []
    for _ in range(reps):
        wall, cpu = time.perf_counter(), time.process_time()
        model.fit(X, y)
        fits.append(time.perf_counter() - wall)
        fit_cpu.append(time.process_time() - cpu)
        prunes.append(timer.wall)
        prune_cpu.append(timer.cpu)
    return dict(fit=statistics.median(fits), fit_cpu=statistics.median(fit_cpu),
                prune=statistics.median(prunes), prune_cpu=statistics.median(prune_cpu),
                nodes=timer.nodes)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args(argv)
    for line in machine_lines():
        print(line)
    X, y = real_table(args.rows)
    timer = PruningTimer()
    estimators.error_based_prune = timer
    print(f"\n{args.rows} rows of real_table, one thread, medians of {args.reps} fits "
          "(wall seconds; CPU seconds in brackets)\n")
    print_table_head("| model | fit | pruning | pruning's share | nodes grown -> pruned |")
    for name, model in (("C45Classifier()", C45Classifier(n_jobs=1)),
                        ("C45Classifier(release8=True)", C45Classifier(release8=True, n_jobs=1))):
        r = measure(model, X, y, args.reps, timer)
        print(f"| {name} | {r['fit']:.2f} ({r['fit_cpu']:.2f}) | {r['prune']:.2f} "
              f"({r['prune_cpu']:.2f}) | {100 * r['prune'] / r['fit']:.0f} % "
              f"({100 * r['prune_cpu'] / r['fit_cpu']:.0f} %) | {r['nodes'][0]} -> {r['nodes'][1]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
