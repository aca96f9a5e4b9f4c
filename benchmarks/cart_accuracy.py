"""Cross-validated accuracy of rootwise's CART (ccp_alpha="cv-1se") against rpart and scikit-learn.

Issue 4 item 8, on ten Weka example files of tests/golden/j48: five with categorical columns (and,
but for credit-g, missing cells) and five numeric ones. All three learners are scored on the same
outer folds, the J48 golden fold ids (``cv.folds``), trained on the fold's training rows in file
order:

    rpart         rpart 4.1.19 with its defaults (minsplit 20, minbucket 7, cp 0.01, xval 10,
                  maxsurrogate 5, usesurrogate 2), pruned at the 1-SE cp of its own cptable.
                  Read from tests/golden/rpart/cart_accuracy.json (tools/rpart/cart_accuracy_golden.R),
                  so R is not needed; --rerun-r runs the R script again when Rscript is available.
    scikit-learn  DecisionTreeClassifier(random_state=0) with its defaults (an unpruned tree) on
                  OneHotEncoder(handle_unknown="ignore") of the nominal columns, the numeric ones
                  passed through (a ColumnTransformer). A missing nominal cell is one more
                  category (OneHotEncoder gives NaN its own column); a missing numeric cell stays
                  NaN, which scikit-learn >= 1.3 trees route at each split.
    rootwise      CARTClassifier(random_state=0): the default ccp_alpha="cv-1se", cv=10, on the
                  DataFrame itself (pandas categoricals split into category subsets, NaN handled
                  by surrogate splits).

    .venv/bin/python benchmarks/cart_accuracy.py                 # about 1 minute
    .venv/bin/python benchmarks/cart_accuracy.py --only vote,iris
    .venv/bin/python benchmarks/cart_accuracy.py --rerun-r       # recompute the rpart column with R
    .venv/bin/python benchmarks/cart_accuracy.py --diagnose      # + seeds and variants, 8 minutes

prints Markdown tables (the ones in benchmarks/README.md): accuracy in percent, pooled over the
ten folds, and the mean number of leaves of the ten fold trees.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "j48"
RPART_JSON = ROOT / "tests" / "golden" / "rpart" / "cart_accuracy.json"
RPART_SCRIPT = ROOT / "tools" / "rpart" / "cart_accuracy_golden.R"
sys.path.insert(0, str(ROOT / "tools" / "weka"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from arff_reader import read_arff  # noqa: E402
from machine import machine_lines  # noqa: E402

from rootwise import CARTClassifier  # noqa: E402

CATEGORICAL = ["vote", "soybean", "breast-cancer", "credit-g", "labor"]
NUMERIC = ["iris", "diabetes", "glass", "ionosphere", "segment-challenge"]
MISSING = {"vote", "soybean", "breast-cancer", "labor"}  # the files with missing cells


def load(name: str):
    """X (nominal columns as pandas categoricals in declared order, NaN = missing), y as str
    labels, the golden outer fold id of every row, and the nominal column names."""
    with open(GOLDEN / f"{name}.json", encoding="utf-8") as f:
        g = json.load(f)
    df = read_arff(GOLDEN / "data" / f"{name}.arff")
    y = df[g["class_attribute"]].astype(str).to_numpy()
    X = df.drop(columns=[g["class_attribute"]])
    nominal = [c for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)]
    return X, y, np.asarray(g["cv"]["folds"]), nominal


def one_hot(nominal: list[str]) -> ColumnTransformer:
    # dense output always (ColumnTransformer would otherwise choose sparse or dense by density)
    return ColumnTransformer([("nominal", OneHotEncoder(handle_unknown="ignore", sparse_output=False),
                               nominal)], remainder="passthrough")


def sklearn_model(nominal: list[str]):
    return make_pipeline(one_hot(nominal), DecisionTreeClassifier(random_state=0))


def n_leaves(model) -> int:
    return int(model[-1].get_n_leaves() if hasattr(model, "steps") else model.get_n_leaves())


def cross_validate(X, y, folds, make_model) -> dict:
    """Pooled correct count, per-fold leaves and every row's prediction; ``make_model(k, train)``
    gives the unfitted model of outer fold k (``train``: its training row indices)."""
    pred = np.empty(len(y), dtype=object)
    leaves = []
    for k in range(10):
        train, test = np.flatnonzero(folds != k), np.flatnonzero(folds == k)
        model = make_model(k, train).fit(X.iloc[train], y[train])
        pred[test] = model.predict(X.iloc[test])
        leaves.append(n_leaves(model))
    return {"correct": int((pred == y).sum()), "leaves": float(np.mean(leaves)), "pred": pred}


def rpart_results(path: Path) -> tuple[dict, dict]:
    """The rpart JSON, and its per-file records by file name."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return data, {r["dataset"]: r for r in data["datasets"]}


def rerun_r(names: list[str]):
    """Run tools/rpart/cart_accuracy_golden.R (into a temporary file), report whether its fold
    counts equal the stored golden ones, and return its results as ``rpart_results`` does."""
    if shutil.which("Rscript") is None:
        raise SystemExit("cart_accuracy.py: --rerun-r needs Rscript on PATH")
    with tempfile.TemporaryDirectory(prefix="cart_accuracy_") as tmp:
        out = Path(tmp) / "cart_accuracy.json"
        subprocess.run(["Rscript", str(RPART_SCRIPT), "--datasets", ",".join(names), "--json", str(out)],
                       check=True, stdout=sys.stderr)
        meta, fresh = rpart_results(out)
    _, stored = rpart_results(RPART_JSON)
    for name in names:
        same = name in stored and [f["correct"] for f in fresh[name]["folds"]] == [
            f["correct"] for f in stored[name]["folds"]]
        print(f"rpart rerun, {name}: {'same fold counts as' if same else 'DIFFERS from'} "
              f"{RPART_JSON.relative_to(ROOT)}", file=sys.stderr)
    return meta, fresh


def pct(correct: float, n: int) -> float:
    return 100.0 * correct / n


def signed(x: float) -> str:
    return f"{round(x, 2) + 0.0:+.2f}"  # no "-0.00"


def main_table(names: list[str], rpart: dict) -> dict:
    print("| file | kind | rows | rpart | scikit-learn | rootwise | rootwise - rpart "
          "| rootwise - scikit-learn | leaves rpart | leaves scikit-learn | leaves rootwise |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rows = {}
    for name in names:
        X, y, folds, nominal = load(name)
        n = len(y)
        r = rpart[name]
        if r["total"] != n:
            raise SystemExit(f"{name}: the rpart results have {r['total']} rows, the file {n}")
        sk = cross_validate(X, y, folds, lambda k, train, nominal=nominal: sklearn_model(nominal))
        rw = cross_validate(X, y, folds, lambda k, train: CARTClassifier(random_state=0))
        acc = {"rpart": pct(r["correct"], n), "sklearn": pct(sk["correct"], n),
               "rootwise": pct(rw["correct"], n)}
        leaves = {"rpart": float(np.mean([f["leaves"] for f in r["folds"]])),
                  "sklearn": sk["leaves"], "rootwise": rw["leaves"]}
        kind = "categorical" if name in CATEGORICAL else "numeric"
        rows[name] = {"kind": kind, "acc": acc, "leaves": leaves, "n": n,
                      "pred": {"rpart": np.asarray(r["predictions"], dtype=object),
                               "sklearn": sk["pred"], "rootwise": rw["pred"]}, "y": y}
        print(f"| {name} | {kind} | {n} | {acc['rpart']:.2f} | {acc['sklearn']:.2f} | "
              f"{acc['rootwise']:.2f} | {signed(acc['rootwise'] - acc['rpart'])} | "
              f"{signed(acc['rootwise'] - acc['sklearn'])} | {leaves['rpart']:.1f} | "
              f"{leaves['sklearn']:.1f} | {leaves['rootwise']:.1f} |", flush=True)
    groups = [("categorical", [m for m in names if m in CATEGORICAL]),
              ("numeric", [m for m in names if m in NUMERIC]), ("all", names)]
    for label, members in groups:
        if not members or (label == "all" and len(members) in (len(groups[0][1]), len(groups[1][1]))):
            continue
        a = {m: np.mean([rows[d]["acc"][m] for d in members]) for m in ("rpart", "sklearn", "rootwise")}
        lv = {m: np.mean([rows[d]["leaves"][m] for d in members]) for m in ("rpart", "sklearn", "rootwise")}
        print(f"| **mean, {label}** | | {len(members)} files | {a['rpart']:.2f} | {a['sklearn']:.2f} | "
              f"**{a['rootwise']:.2f}** | {signed(a['rootwise'] - a['rpart'])} | "
              f"{signed(a['rootwise'] - a['sklearn'])} | {lv['rpart']:.1f} | {lv['sklearn']:.1f} | "
              f"{lv['rootwise']:.1f} |")
    print()
    print("Rows that one learner classifies right and the other wrong, pooled over the files:")
    for peer in ("rpart", "sklearn"):
        only_rw = sum(int(((rows[d]["pred"]["rootwise"] == rows[d]["y"])
                           & (rows[d]["pred"][peer] != rows[d]["y"])).sum()) for d in names)
        only_peer = sum(int(((rows[d]["pred"]["rootwise"] != rows[d]["y"])
                             & (rows[d]["pred"][peer] == rows[d]["y"])).sum()) for d in names)
        print(f"- rootwise only: {only_rw}, {'scikit-learn' if peer == 'sklearn' else peer} only: "
              f"{only_peer} (two-sided sign test p = {sign_test(only_rw, only_peer):.2g})")
    print()
    return rows


def sign_test(a: int, b: int) -> float:
    """Two-sided exact binomial (sign) test of a successes against b, p = 1/2."""
    from math import comb

    n, k = a + b, min(a, b)
    if n == 0:
        return 1.0
    return min(1.0, 2.0 * sum(comb(n, i) for i in range(k + 1)) / 2.0 ** n)


def rpart_inner_folds(record: dict, k: int, n_train: int):
    """rpart's inner CV groups of outer fold k as (train, test) pairs over the fold's training
    rows; a row that rpart dropped ("-": every predictor missing) is in every training part."""
    codes = record["folds"][k]["inner_groups"]
    if len(codes) != n_train:
        raise SystemExit(f"{record['dataset']}: stored inner groups of fold {k} do not match")
    g = np.array([-1 if c == "-" else int(c) for c in codes])
    return [(np.flatnonzero(g != j), np.flatnonzero(g == j)) for j in range(10)]


@contextlib.contextmanager
def misclassification_cost():
    """Experiment, not a rootwise option: weakest-link pruning with Breiman's and rpart's cost
    R(t) = misclassified weight at t / W instead of rootwise's (scikit-learn's) w_t / W * Gini(t),
    for both the sequence and the CV. Patches the private ``rootwise.prune.cost_complexity.node_costs`` for
    the duration; yields False (and patches nothing) if that function is gone."""
    import rootwise.prune.cost_complexity as pruning

    original = getattr(pruning, "node_costs", None)
    if original is None:
        yield False
        return

    def costs(tree):
        w = tree.weighted_n_node_samples
        v = tree.value
        return (w - w * v.max(axis=1) / v.sum(axis=1)) / w[0]

    pruning.node_costs = costs
    try:
        yield True
    finally:
        pruning.node_costs = original


def diagnose(names: list[str], rpart: dict, rows: dict) -> None:
    """rootwise and rpart variants that explain the gaps of the main table."""
    seeds = [1, 2, 3, 4]
    variants = [
        ("cv-min", lambda k, tr: CARTClassifier(ccp_alpha="cv-min", random_state=0), None),
        ("unpruned", lambda k, tr: CARTClassifier(pruning=None), None),
        ("rpart's inner folds", None, None),
        ("minsplit 20, minbucket 7", lambda k, tr: CARTClassifier(min_samples_split=20,
                                                                 min_samples_leaf=7,
                                                                 random_state=0), None),
        ("no surrogates", lambda k, tr: CARTClassifier(max_surrogates=0, random_state=0), MISSING),
        ("one-hot input", None, set(CATEGORICAL)),
        ("misclassification cost", None, None),
    ]
    print("Seed noise: accuracy of the 1-SE tree with five inner-CV seeds (rootwise random_state "
          "0-4; rpart the five set.seed bases of the JSON), mean [min, max]. The middle column is "
          "the misclassification-cost experiment (see misclassification_cost):")
    print()
    print("| file | rootwise | rootwise, misclassification cost | rpart |")
    print("| --- | ---: | ---: | ---: |")
    spread = {}

    def accuracy(X, y, folds, seed):
        return pct(cross_validate(X, y, folds, lambda k, tr: CARTClassifier(random_state=seed))["correct"],
                   len(y))

    for name in names:
        X, y, folds, nominal = load(name)
        rw = [rows[name]["acc"]["rootwise"]] + [accuracy(X, y, folds, s) for s in seeds]
        with misclassification_cost() as patched:
            mc = [accuracy(X, y, folds, s) for s in [0] + seeds] if patched else [np.nan]
        rp = [pct(rpart[name]["correct"], len(y))] + [pct(e["correct"], len(y))
                                                      for e in rpart[name]["extra_seeds"]]
        spread[name] = (float(np.mean(rw)), float(np.mean(mc)), float(np.mean(rp)))
        print(f"| {name} | " + " | ".join(f"{np.mean(v):.2f} [{min(v):.2f}, {max(v):.2f}]"
                                          for v in (rw, mc, rp)) + " |", flush=True)
    means = np.mean(list(spread.values()), axis=0)
    print("| **mean** | " + " | ".join(f"**{m:.2f}**" for m in means) + " |")
    print()
    print("Variants (accuracy, mean leaves); rootwise with random_state=0 unless said; "
          "'=' where a variant changes nothing (no nominal column, no missing cell):")
    print()
    heads = ["rootwise cv-1se"] + [v[0] for v in variants] + ["rpart 1-SE", "rpart cv-min",
                                                             "rpart cp=0.01 unpruned"]
    print("| file | " + " | ".join(heads) + " |")
    print("| --- |" + " ---: |" * len(heads))
    total = {h: [] for h in heads}
    for name in names:
        X, y, folds, nominal = load(name)
        n = len(y)
        cells = [(rows[name]["acc"]["rootwise"], rows[name]["leaves"]["rootwise"])]
        for label, make, only in variants:
            if only is not None and name not in only:
                cells.append(None)
                continue
            if label == "rpart's inner folds":
                def make(k, tr, r=rpart[name]):
                    return CARTClassifier(cv=rpart_inner_folds(r, k, len(tr)))
            elif label == "one-hot input":
                def make(k, tr, nominal=nominal):
                    return make_pipeline(one_hot(nominal), CARTClassifier(random_state=0))
            if label == "misclassification cost":
                with misclassification_cost() as patched:
                    res = cross_validate(X, y, folds, lambda k, tr: CARTClassifier(random_state=0))
                if not patched:
                    res = {"correct": np.nan, "leaves": np.nan}
            else:
                res = cross_validate(X, y, folds, make)
            cells.append((pct(res["correct"], n), res["leaves"]))
        folds_r = rpart[name]["folds"]
        for key in ("", "_min", "_grown"):
            cells.append((pct(sum(f["correct" + key] for f in folds_r), n),
                          float(np.mean([f["leaves" + key] for f in folds_r]))))
        for h, c in zip(heads, cells, strict=True):
            total[h].append(c if c is not None else cells[0])
        print(f"| {name} | " + " | ".join("=" if c is None else f"{c[0]:.2f} ({c[1]:.1f})" for c in cells)
              + " |", flush=True)
    print("| **mean** | " + " | ".join(f"**{np.mean([c[0] for c in total[h]]):.2f}** "
                                      f"({np.mean([c[1] for c in total[h]]):.1f})" for h in heads) + " |")
    print()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated file names (default: all ten)")
    parser.add_argument("--rerun-r", action="store_true",
                        help="recompute the rpart column with Rscript instead of reading the JSON")
    parser.add_argument("--rpart-json", type=Path, default=RPART_JSON, help="rpart results to read")
    parser.add_argument("--diagnose", action="store_true",
                        help="also seed noise and rootwise / rpart variants (slow)")
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else CATEGORICAL + NUMERIC
    unknown = [m for m in names if m not in CATEGORICAL + NUMERIC]
    if unknown:
        parser.error(f"unknown file(s): {', '.join(unknown)}")
    if args.rerun_r:
        (meta, rpart), source = rerun_r(names), "Rscript just now"
    else:
        meta, rpart = rpart_results(args.rpart_json)
        path = args.rpart_json.resolve()
        source = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    missing = [m for m in names if m not in rpart]
    if missing:
        parser.error(f"the rpart results have nothing for {', '.join(missing)}")
    start = time.perf_counter()
    for line in machine_lines():
        print(line)
    print(f"rpart {meta['rpart_version']}, {meta['r_version']}; results from {source}")
    print()
    rows = main_table(names, rpart)
    if args.diagnose:
        diagnose(names, rpart, rows)
    print(f"{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
