"""Encoding and prediction speed on issue 11's table (issue 11 item 4), in one process.

    python benchmarks/encoding.py                          # 10^6 rows; trees fitted on 10^5
    python benchmarks/encoding.py --rows 200000 --train-rows 20000 --reps 5 --depths none

Encoding: pandas' own ``factorize`` of the table's 10 categorical columns, against rootwise's
encoder of the same columns at fit (categories learnt and codes: ``encode.fit_encode``) and at
prediction (codes of a schema fitted on the training rows: ``encode.encode``). Four forms of the
columns: pandas categorical (as generated); pandas categorical listing its categories in
another order than at fit (codes remapped); object columns of Python strings; pandas' string
dtype ``str`` (what ``read_csv`` gives in pandas 3).

Prediction: ``CARTClassifier(pruning=None)`` fitted on ``--train-rows`` rows of the table (a
DataFrame) against scikit-learn's ``DecisionTreeClassifier`` fitted on the same rows
ordinal-encoded (category codes, NaN for missing, as scikit-learn takes them); both predict the
same ``--rows`` fresh rows, rootwise from the DataFrame (reading its columns included: the
float columns as they are, the categories as codes, ``input.columns``), scikit-learn from the
ordinal matrix prepared before the timing. ``--depths`` sets ``max_depth`` for both (none:
fully grown).

Every time is the median of ``--reps`` runs, the order of the contenders alternating from one
run to the next. Single-threaded cells report this process's CPU time (steadier on a shared
machine); rootwise's default ``n_jobs`` (all cores) is timed on the wall clock, against
scikit-learn's wall clock. Ratios above 1 mean rootwise is faster, below 1 slower; for encoding
the ratio is rootwise / factorize (the issue asks at most 3).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from data import real_table  # noqa: E402
from machine import load, machine_lines, print_table_head  # noqa: E402

from rootwise import CARTClassifier  # noqa: E402
from rootwise.input import columns as input_columns  # noqa: E402
from rootwise.input import encode  # noqa: E402
from rootwise.input.schema import resolve_categorical  # noqa: E402

CATEGORICAL = [f"c{j}" for j in range(10)]


def alternating(contenders: dict, reps: int, clock: str) -> dict:
    """Median seconds of each callable over ``reps`` runs, alternating their order."""
    now = time.process_time if clock == "cpu" else time.perf_counter
    seconds = {name: [] for name in contenders}
    names = list(contenders)
    for rep in range(reps):
        for name in names if rep % 2 == 0 else names[::-1]:
            start = now()
            contenders[name]()
            seconds[name].append(now() - start)
    return {name: statistics.median(s) for name, s in seconds.items()}


def forms(frame: pd.DataFrame) -> dict:
    """The categorical columns of ``frame`` in the four forms the encoder meets."""
    cats = frame[CATEGORICAL]
    reordered = cats.apply(lambda s: s.cat.reorder_categories(s.cat.categories[::-1]))
    as_objects = cats.apply(lambda s: s.astype(object).where(s.notna(), None))
    return {"pandas categorical": cats,
            "categorical, categories in another order than at fit": reordered,
            "object (Python strings)": as_objects,
            "pandas str dtype": cats.apply(lambda s: s.astype("str"))}


def encoding(train: pd.DataFrame, big: pd.DataFrame, reps: int) -> None:
    print(f"\n## Encoding the 10 categorical columns of {len(big):,} rows (one thread, CPU time)\n")
    print_table_head("| columns | pandas factorize | rootwise fit-encoding | ratio | "
                     "rootwise predict-encoding | ratio |")
    train_forms = forms(train)
    for name, cols in forms(big).items():
        # a predict-time schema comes from training rows; the reordered form is predicted with
        # the schema of the table as generated, so its codes must be remapped
        fitted = train_forms["pandas categorical" if name.startswith("categorical,") else name]
        schema, _ = encode.fit_encode(fitted, resolve_categorical(fitted, "auto"))
        mask = resolve_categorical(cols, "auto")
        t = alternating({
            "factorize": lambda cols=cols: [pd.factorize(cols[c]) for c in cols.columns],
            "fit": lambda cols=cols, mask=mask: encode.fit_encode(cols, mask),
            "predict": lambda cols=cols, schema=schema: encode.encode(cols, schema),
        }, reps, "cpu")
        print(f"| {name} | {t['factorize'] * 1e3:.1f} ms | {t['fit'] * 1e3:.1f} ms | "
              f"{t['fit'] / t['factorize']:.2f}x | {t['predict'] * 1e3:.1f} ms | "
              f"{t['predict'] / t['factorize']:.2f}x |")


def ordinal(frame: pd.DataFrame) -> np.ndarray:
    """scikit-learn's input: numeric columns as they are, categories as their codes, NaN for a
    missing cell."""
    out = np.empty(frame.shape, dtype=np.float64)
    for j, name in enumerate(frame.columns):
        column = frame[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            codes = column.cat.codes.to_numpy()
            out[:, j] = np.where(codes < 0, np.nan, codes)
        else:
            out[:, j] = column.to_numpy(dtype=np.float64)
    return out


def prediction(train, y, big, depths, reps: int) -> None:
    print(f"\n## Prediction of {len(big):,} DataFrame rows, trees fitted on {len(train):,} rows\n")
    print("rootwise: CARTClassifier(pruning=None, max_depth=d) on the DataFrame, reading its "
          "columns included;\nscikit-learn: DecisionTreeClassifier(max_depth=d, random_state=0) on the "
          "ordinal matrix, made before the timing.\n")
    print_table_head("| max_depth | leaves rw / sk | fit rw / sk | rootwise 1 thread | "
                     "of which reading the columns | sklearn | ratio | rootwise all cores | "
                     "sklearn | ratio | same prediction |")
    ordinal_train, ordinal_big = ordinal(train), ordinal(big)
    CARTClassifier(pruning=None, n_jobs=1).fit(train.iloc[:300], y[:300])  # kernels compiled
    for depth in depths:
        print(predict_cell(depth, train, y, big, ordinal_train, ordinal_big, reps))


def predict_cell(depth, train, y, big, ordinal_train, ordinal_big, reps: int) -> str:
    """One line of the prediction table: both trees fitted with ``max_depth=depth``."""
    from sklearn.tree import DecisionTreeClassifier

    start = time.perf_counter()
    rw = CARTClassifier(pruning=None, max_depth=depth, n_jobs=1).fit(train, y)
    fit_rw = time.perf_counter() - start
    start = time.perf_counter()
    sk = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(ordinal_train, y)
    fit_sk = time.perf_counter() - start
    rw.predict(big.iloc[:10])  # compiled kernels, derived tree layout
    one = alternating({"rw": lambda: rw.predict(big), "sk": lambda: sk.predict(ordinal_big),
                       "input": lambda: input_columns.columns(big, rw.schema_)}, reps, "cpu")
    rw.set_params(n_jobs=None)
    rw.predict(big.iloc[:10000])  # the parallel kernel compiled
    every = alternating({"rw": lambda: rw.predict(big),
                         "sk": lambda: sk.predict(ordinal_big)}, reps, "wall")
    same = np.mean(rw.predict(big) == sk.predict(ordinal_big))
    return (f"| {depth} | {rw.get_n_leaves()} / {sk.get_n_leaves()} | {fit_rw:.1f} s / "
            f"{fit_sk:.1f} s | {one['rw'] * 1e3:.0f} ms | {one['input'] * 1e3:.0f} ms | "
            f"{one['sk'] * 1e3:.0f} ms | {one['sk'] / one['rw']:.2f}x | "
            f"{every['rw'] * 1e3:.0f} ms | {every['sk'] * 1e3:.0f} ms | "
            f"{every['sk'] / every['rw']:.2f}x | {same:.1%} |")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", type=int, default=1_000_000, help="rows encoded and predicted")
    p.add_argument("--train-rows", type=int, default=100_000, help="rows the trees are fitted on")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--depths", nargs="+", default=["none", "10"],
                   help="max_depth of both trees, 'none' for fully grown")
    p.add_argument("--sections", nargs="+", default=["encoding", "predict"],
                   choices=["encoding", "predict"])
    args = p.parse_args(argv)
    for line in machine_lines():
        print(line)
    big, _ = real_table(args.rows, seed=1)
    train, y = real_table(args.train_rows, seed=0)
    if "encoding" in args.sections:
        encoding(train, big, args.reps)
    if "predict" in args.sections:
        depths = [None if d == "none" else int(d) for d in args.depths]
        prediction(train, y, big, depths, args.reps)
    print(f"\nload average (1 / 5 / 15 min) at the end: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
