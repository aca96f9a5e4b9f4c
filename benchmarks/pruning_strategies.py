"""Pruning strategies side by side on real tables: accuracy, leaves and fit time (issue 5).

    python benchmarks/pruning_strategies.py                    # the README table (a few minutes)
    python benchmarks/pruning_strategies.py --datasets vote diabetes --folds 3

For every table (the J48 golden data in tests/golden/j48/data, empty cells = missing) and every
algorithm, each pruning strategy is scored by the same stratified K-fold cross-validation
(shuffled, seed 0): test accuracy (mean and standard deviation over the folds), leaves of the
fitted tree and fit time (means over the folds).

    ID3    none | pre | reduced-error
    C4.5   none | pre | reduced-error | error-based (C4.5's own, CF = 0.25)
    CART   none | pre | reduced-error | cost-complexity (alpha by 10-fold CV, 1-SE rule)

"pre" and "reduced-error" hold out ``validation_fraction`` = 0.3 of each training fold
(stratified, ``random_state=0``) and grow on the other 70%; the other strategies grow on the whole
training fold. ID3 takes only nominal tables: it treats numbers as categories (one branch per
distinct value), which makes no sense for the tables with numeric attributes (credit-g, diabetes,
segment-challenge), so it runs only on the all-nominal ones (vote, breast-cancer, soybean, read as
text, as their ARFF declares them); it refuses missing values, so there a missing cell is read as
one more category "?" (said in the output). C4.5 and CART use the missing cells as they are
(fractional weights, surrogate splits).

The numba kernels are compiled (or loaded from cache) by a warm-up fit before any timing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import machine_lines  # noqa: E402

from rootwise import C45Classifier, CARTClassifier, ID3Classifier  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "golden", "j48", "data")
DATASETS = ["vote", "breast-cancer", "soybean", "credit-g", "diabetes", "segment-challenge"]
# tables whose attributes are all nominal in the ARFF: read every cell as text (breast-cancer's
# deg-malig {1,2,3} and soybean's codes would otherwise become numbers)
NOMINAL = {"vote", "breast-cancer", "soybean"}
NONE = "none"

# algorithm -> (estimator factory, strategies); each strategy is a ``pruning`` value
ALGORITHMS = {
    "ID3": (lambda **kw: ID3Classifier(**kw), [None, "pre", "reduced-error"]),
    "C4.5": (lambda **kw: C45Classifier(**kw), [None, "pre", "reduced-error", "error-based"]),
    "CART": (lambda **kw: CARTClassifier(**kw), [None, "pre", "reduced-error", "cost-complexity"]),
}


def load(name: str):
    frame = pd.read_csv(os.path.join(DATA, f"{name}.csv"), keep_default_na=False, na_values=[""],
                        dtype=str if name in NOMINAL else None)
    return frame.iloc[:, :-1], frame.iloc[:, -1]


def estimator(algorithm: str, pruning, seed: int):
    make, _ = ALGORITHMS[algorithm]
    return make(pruning=pruning, random_state=seed)


def warm_up() -> None:
    """Compile (or load) every kernel the runs below use, outside the timings."""
    X, y = load("weather.nominal")
    Xn = pd.DataFrame({"a": np.arange(14.0), "b": ["p", "q"] * 7, "c": [np.nan] + [1.0] * 13})
    for algorithm, (_, strategies) in ALGORITHMS.items():
        for pruning in strategies:
            est = estimator(algorithm, pruning, 0)
            if algorithm == "CART":
                est.set_params(cv=2)
            est.fit(X, y)
            if algorithm != "ID3":
                estimator(algorithm, pruning, 0).set_params(min_samples_leaf=1).fit(Xn, y)


def run(name: str, folds: int, seed: int):
    X, y = load(name)
    has_missing = bool(X.isna().any().any())
    out = []
    splits = list(StratifiedKFold(folds, shuffle=True, random_state=seed).split(X, y))
    for algorithm, (_, strategies) in ALGORITHMS.items():
        Xa = X
        note = ""
        if algorithm == "ID3":
            if name not in NOMINAL:
                continue
            if has_missing:
                Xa, note = X.fillna("?"), "missing cells read as a category '?'"
        for pruning in strategies:
            acc, leaves, secs = [], [], []
            for train, test in splits:
                est = estimator(algorithm, pruning, seed)
                start = time.perf_counter()
                est.fit(Xa.iloc[train], y.iloc[train])
                secs.append(time.perf_counter() - start)
                acc.append(float(np.mean(est.predict(Xa.iloc[test]) == y.iloc[test].to_numpy())))
                leaves.append(est.get_n_leaves())
            out.append(dict(dataset=name, algorithm=algorithm, pruning=pruning or NONE,
                            accuracy=statistics.mean(acc), sd=statistics.stdev(acc),
                            leaves=statistics.mean(leaves), seconds=statistics.mean(secs), note=note))
            print(f"  {name:14s} {algorithm:5s} {pruning or NONE:16s} acc {out[-1]['accuracy']:.3f}"
                  f"  leaves {out[-1]['leaves']:7.1f}  fit {out[-1]['seconds']:.3f} s",
                  file=sys.stderr, flush=True)
    return out


def markdown(rows) -> str:
    lines = ["| table | algorithm | pruning | accuracy (sd) | leaves | fit time (s) |",
             "| --- | --- | --- | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r['dataset']} | {r['algorithm']} | {r['pruning']} | "
                     f"{r['accuracy']:.3f} ({r['sd']:.3f}) | {r['leaves']:.1f} | {r['seconds']:.3f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=DATASETS, metavar="NAME",
                        help=f"tables of tests/golden/j48/data (default: {' '.join(DATASETS)})")
    parser.add_argument("--folds", type=int, default=10, help="cross-validation folds (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="folds and validation split seed")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", UserWarning)  # e.g. a class with fewer rows than folds
    warm_up()
    rows = []
    for name in args.datasets:
        rows.extend(run(name, args.folds, args.seed))
    for line in machine_lines():
        print(line)
    print(f"{args.folds}-fold stratified CV (shuffled, seed {args.seed}); 'pre' and 'reduced-error' "
          "grow on 70% of each training fold and judge on the other 30%.")
    notes = sorted({f"{r['dataset']} {r['algorithm']}: {r['note']}" for r in rows if r["note"]})
    for n in notes:
        print(f"note: {n}")
    print()
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
