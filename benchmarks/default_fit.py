"""What the default CART fit spends its time on: variants of the CV's settings on issue 11's table.

    .venv/bin/python benchmarks/default_fit.py 100000 clf2 "" "cv_repeats=3" "cp=0" "cp=0,cv_repeats=3"
    .venv/bin/python benchmarks/default_fit.py 30000 clf2 "cv_repeats=1,random_state=1" ...
    .venv/bin/python benchmarks/default_fit.py 100000 reg "" "cp=0"

Arguments: training rows, the table (``clf`` three classes, ``clf2`` two, ``reg`` regression:
``peers.split_table``), then one variant per argument: keyword arguments of ``CARTClassifier`` /
``CARTRegressor`` ("" is the defaults; ``random_state`` is 0 unless given). Each variant is fitted
once, in the order given, after a small warm-up fit; printed: wall and process CPU time of the
fit (both threads), leaves, the held-out score and the chosen row's alpha. Used for the
``cv_repeats`` and ``cp`` defaults (benchmarks/README.md, "This round on main").
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peers  # noqa: E402

from rootwise import CARTClassifier, CARTRegressor  # noqa: E402


def variant(text: str) -> dict:
    """"a=1,b=x" -> {"a": 1, "b": "x"}: numbers as numbers, none as None."""
    out = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        for kind in (int, float):
            try:
                out[key.strip()] = kind(value)
                break
            except ValueError:
                pass
        else:
            out[key.strip()] = None if value.lower() == "none" else value
    return out


def main(argv: list[str]) -> None:
    if len(argv) < 3:
        raise SystemExit(__doc__)
    rows, kind = int(argv[0]), argv[1]
    split = peers.split_table(rows, kind, seed=0)
    estimator = CARTRegressor if kind == "reg" else CARTClassifier
    estimator(random_state=0).fit(split.X.iloc[:300], split.y[:300])  # compile / load kernels
    for text in argv[2:]:
        params = {"random_state": 0, **variant(text)}
        model = estimator(**params)
        cpu, wall = time.process_time(), time.perf_counter()
        model.fit(split.X, split.y)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        table = model.cp_table_
        alpha = float(table.alpha[table.chosen]) if table is not None else float("nan")
        print(f"{text or '(defaults)':36s} wall {wall:7.2f} s  cpu {cpu:7.2f} s  "
              f"leaves {model.get_n_leaves():6d}  held-out {model.score(split.X_test, split.y_test):.4f}"
              f"  alpha {alpha:.3g}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
