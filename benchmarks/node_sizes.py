"""Where a fully grown tree's time goes by node size (issue 11 item 5: the exact regressor).

    .venv/bin/python benchmarks/node_sizes.py                      # 10^5 rows, about 1 minute
    .venv/bin/python benchmarks/node_sizes.py --rows 1000000 --reps 1 --splits 2 16 64

A fully grown tree of n rows splits about n nodes, and most of them are small: on issue 11's
table a third of the regressor's splits are at nodes of two rows. Growing the same table with
``min_samples_split`` = 2, 4, 8, ... stops before the smaller nodes, so the difference between
two settings is what splitting the nodes of that band of sizes costs. rootwise (with its default
five surrogates, and without any) and scikit-learn (ordinal codes, no surrogates) grow each
setting in turn in this process, alternating, one thread; CPU time, medians of ``--reps``.

The table gives each setting's time, tree size and ratio, then each band's cost per split
(seconds of the band / splits in the band) for both libraries: a split of a node of a few rows
costs an engine its fixed work per node and per column, where the sorted scans' advantage is
gone.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import machine  # noqa: E402
import peers  # noqa: E402


def cpu_seconds(fit, min_samples_split: int) -> tuple[float, object]:
    start = time.process_time()
    model = fit(min_samples_split)
    return time.process_time() - start, model


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--splits", type=int, nargs="+", default=[2, 4, 8, 16, 64],
                        help="min_samples_split settings, ascending (2: fully grown)")
    parser.add_argument("--kind", choices=("reg", "clf"), default="reg",
                        help="regression (CARTRegressor) or three classes (CARTClassifier)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if sorted(args.splits) != args.splits or args.splits[0] < 2:
        parser.error("--splits: ascending values of at least 2")
    return args


def main(argv=None) -> int:
    args = parse(argv)
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    import rootwise as rw

    for line in machine.machine_lines():
        print(line)
    split = peers.split_table(args.rows, args.kind, seed=args.seed)
    X, y = split.X, split.y
    codes = peers.ordinal_codes(X)
    estimator = rw.CARTRegressor if split.regression else rw.CARTClassifier
    peer = DecisionTreeRegressor if split.regression else DecisionTreeClassifier
    estimator(pruning=None, n_jobs=1).fit(X.iloc[:2000], y[:2000])  # load the kernels first

    fits = {
        "rootwise": lambda m: estimator(pruning=None, n_jobs=1, min_samples_split=m).fit(X, y),
        "rootwise, no surrogates": lambda m: estimator(pruning=None, n_jobs=1,
                                                       min_samples_split=m,
                                                       max_surrogates=0).fit(X, y),
        "scikit-learn": lambda m: peer(random_state=0, min_samples_split=m).fit(codes, y),
    }
    seconds = {(name, m): [] for name in fits for m in args.splits}
    nodes = {}
    for _ in range(args.reps):
        for m in args.splits:
            for name, fit in fits.items():
                t, model = cpu_seconds(fit, m)
                seconds[name, m].append(t)
                nodes[name, m] = (model.tree_.node_count if name == "scikit-learn"
                                  else len(model.tree_.feature))
    t = {key: float(np.median(v)) for key, v in seconds.items()}

    print(f"\n{args.rows:,} rows of issue 11's table ({args.kind}), CPU seconds, median of "
          f"{args.reps}")
    machine.print_table_head("| min_samples_split | rootwise | nodes | without surrogates | "
                             "scikit-learn | nodes | ratio | ratio without surrogates |")
    for m in args.splits:
        sk = t["scikit-learn", m]
        print(f"| {m} | {t['rootwise', m]:.3f} s | {nodes['rootwise', m]:,} | "
              f"{t['rootwise, no surrogates', m]:.3f} s | {sk:.3f} s | "
              f"{nodes['scikit-learn', m]:,} | {sk / t['rootwise', m]:.2f}x | "
              f"{sk / t['rootwise, no surrogates', m]:.2f}x |")

    print("\nper split of the nodes in each band of sizes (its seconds / its splits)")
    machine.print_table_head("| nodes of | rootwise splits | rootwise | without surrogates | "
                             "scikit-learn splits | scikit-learn |")
    for small, large in zip(args.splits, args.splits[1:], strict=False):
        band = f"{small}..{large - 1} rows"
        ours = (nodes["rootwise", small] - nodes["rootwise", large]) // 2
        theirs = (nodes["scikit-learn", small] - nodes["scikit-learn", large]) // 2
        if ours <= 0 or theirs <= 0:
            print(f"| {band} | {ours:,} | - | - | {theirs:,} | - |")
            continue
        per = {name: (t[name, small] - t[name, large]) / count * 1e6
               for name, count in (("rootwise", ours), ("rootwise, no surrogates", ours),
                                   ("scikit-learn", theirs))}
        print(f"| {band} | {ours:,} | {per['rootwise']:.2f} us | "
              f"{per['rootwise, no surrogates']:.2f} us | {theirs:,} | "
              f"{per['scikit-learn']:.2f} us |")
    print(f"\nload average (1 / 5 / 15 min) at the end: {machine.load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
