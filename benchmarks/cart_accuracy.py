"""Cross-validated accuracy (classification) and RMSE (regression) of rootwise's CART pruning
choices against rpart, Weka's SimpleCart and scikit-learn's ccp_alpha chosen by cross-validation.

Issue 13 item 5. Every learner is scored on the same outer folds: 10-fold cross-validation
repeated ``--repeats`` times (default 3). Repetition r draws its folds with ``random.Random(r)``:
classification rows grouped by class in declared order, each group shuffled, position p dealt to
fold p mod 10 (the J48 golden files' rule, so repetition 0 is their ``cv.folds``); regression rows
shuffled and dealt the same way. Each learner trains on a fold's training rows in file order.

    rootwise      CARTClassifier / CARTRegressor with random_state = 10 r + k (outer fold k),
                  for every ccp_cost (classification), rule ("cv-min", "cv-1se") and
                  cv_repeats in ``--cv-repeats``, on the DataFrame itself (pandas categoricals
                  split into category subsets, NaN handled by surrogates; a categorical class
                  breaks leaf ties by its declared order). Both rules come from one fit: the
                  "cv-min" fit's cp_table_ gives the 1-SE row, whose alpha is then fixed.
    rpart         rpart 4.1.19 with rpart.control() defaults (minsplit 20, minbucket 7, cp 0.01,
                  xval 10), pruned at the 1-SE row of its cptable, set.seed(20240607 + 10 r + k)
                  (tools/rpart/cart_accuracy.R).
    SimpleCart    weka.classifiers.trees.SimpleCart (Weka 3.6.14) with its defaults (minimal
                  cost-complexity pruning, 5 folds, the minimum-error rule) and with -A (the
                  1-SE rule), -S 1 + 10 r + k (tools/weka/SimpleCartFolds.java). Classification
                  only: SimpleCart refuses a numeric class.
    scikit-learn  DecisionTreeClassifier / DecisionTreeRegressor(random_state=0) after
                  OneHotEncoder(handle_unknown="ignore") of the nominal columns (NaN is one more
                  category; numeric NaN stays NaN), with ccp_alpha chosen by GridSearchCV over
                  the tree's cost_complexity_pruning_path alphas: 10-fold (Stratified)KFold,
                  shuffled with random_state = 10 r + k, accuracy or negative squared error.

rpart's and SimpleCart's predictions are stored in benchmarks/cart_accuracy_peers.json, so the
benchmark needs neither R nor Java; ``--peers`` recomputes them (Rscript, java and Weka needed).

    .venv/bin/python benchmarks/cart_accuracy.py                       # 1-2 hours on 2 cores
    .venv/bin/python benchmarks/cart_accuracy.py --only iris,cpu --repeats 1
    .venv/bin/python benchmarks/cart_accuracy.py --peers               # R and Java first
    .venv/bin/python benchmarks/cart_accuracy.py --study-one-se        # why 1-SE over-prunes cpu

Prints Markdown tables (the ones in benchmarks/README.md): accuracy in percent (pooled over the
rows of all repetitions), RMSE (pooled the same way), mean leaves per fold tree, and summary rows:
the mean accuracy, and the mean over tables of RMSE / RMSE of the training mean (the fold's mean
of y predicting every held-out row), so that tables of any scale weigh the same.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

ROOT = Path(__file__).resolve().parents[1]
J48_GOLDEN = ROOT / "tests" / "golden" / "j48"
RPART_DATA = ROOT / "tests" / "golden" / "rpart" / "data"
WEKA_EXAMPLES = Path("/usr/share/doc/weka/examples")
WEKA_JAR = Path("/usr/share/java/weka.jar")
PEERS_JSON = ROOT / "benchmarks" / "cart_accuracy_peers.json"
sys.path.insert(0, str(ROOT / "tools" / "weka"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from arff_reader import read_arff  # noqa: E402
from machine import machine_lines  # noqa: E402

from rootwise import CARTClassifier, CARTRegressor  # noqa: E402

# Weka 3.6.14's example files with a nominal class. Left out: supermarket (217 one-value
# attributes whose '?' means "not bought": no CART split exists) and ReutersCorn / ReutersGrain
# (a string attribute, text). iris.2D, segment-test and unbalanced are read from the Debian
# package (WEKA_EXAMPLES); the others from tests/golden/j48/data.
CLASSIFICATION = ["vote", "soybean", "breast-cancer", "credit-g", "labor", "contact-lenses",
                  "weather.nominal", "iris", "iris.2D", "diabetes", "glass", "ionosphere",
                  "segment-challenge", "segment-test", "unbalanced", "weather.numeric"]
# Weka's two numeric-class files, rpart's bundled regression examples (CSV written by
# tools/rpart/regression_tables.R), R's airquality (tests/golden/rpart) and scikit-learn's diabetes.
REGRESSION = ["cpu", "cpu.with.vendor", "car.test.frame", "cu.summary", "car90", "airquality",
              "sklearn-diabetes"]
FOLDS = 10
RPART_SEED = 20240607
SIMPLECART_SEED = 1


# --------------------------------------------------------------------------- data


def arff_path(name: str) -> Path:
    for folder in (J48_GOLDEN / "data", WEKA_EXAMPLES):
        if (folder / f"{name}.arff").exists():
            return folder / f"{name}.arff"
    raise SystemExit(f"cart_accuracy.py: {name}.arff is in neither {J48_GOLDEN / 'data'} nor "
                     f"{WEKA_EXAMPLES} (apt-get install weka)")


def load(name: str):
    """(X, y, target name): nominal columns as pandas categoricals (declared order), NaN =
    missing; y a categorical Series for a class, float64 for a numeric target."""
    if name in ("car.test.frame", "cu.summary", "car90", "airquality"):
        frame, target = _rpart_table(name)
    elif name == "sklearn-diabetes":
        from sklearn.datasets import load_diabetes

        frame = load_diabetes(as_frame=True).frame
        target = "target"
    else:
        frame = read_arff(arff_path(name))
        target = frame.columns[-1]
    y = frame[target]
    if not isinstance(y.dtype, pd.CategoricalDtype):
        y = y.astype(np.float64)
    return frame.drop(columns=[target]), y, target


def _rpart_table(name: str):
    if name == "airquality":  # one of the rpart golden tables: drop the rows without Ozone
        g = json.loads((ROOT / "tests" / "golden" / "rpart" / "airquality.json").read_text())
        columns = [{"name": c["name"], "kind": "numeric"} for c in g["columns"]]
        target = g["target"]
        frame = pd.read_csv(RPART_DATA / "airquality.csv", keep_default_na=False, na_values=[""])
    else:
        spec = json.loads((RPART_DATA / "regression_tables.json").read_text())
        t = next(t for t in spec["tables"] if t["name"] == name)
        columns, target = t["columns"], t["target"]
        frame = pd.read_csv(RPART_DATA / t["csv"], keep_default_na=False, na_values=[""],
                            dtype={c["name"]: str for c in columns if c["kind"] != "numeric"})
    for c in columns:
        if c["kind"] == "numeric":
            frame[c["name"]] = frame[c["name"]].astype(np.float64)
        else:
            frame[c["name"]] = pd.Categorical(frame[c["name"]], categories=c["levels"],
                                              ordered=c["kind"] == "ordered")
    frame = frame[[c["name"] for c in columns]]
    return frame[frame[target].notna()].reset_index(drop=True), target


def outer_folds(y: pd.Series, repeat: int) -> np.ndarray:
    """Fold id per row for repetition ``repeat`` (module docstring)."""
    rng = random.Random(repeat)
    if isinstance(y.dtype, pd.CategoricalDtype):
        groups = [list(np.flatnonzero((y == c).to_numpy())) for c in y.cat.categories]
    else:
        groups = [list(range(len(y)))]
    order = []
    for group in groups:
        group = [int(i) for i in group]
        rng.shuffle(group)
        order.extend(group)
    folds = np.empty(len(y), dtype=np.int64)
    folds[order] = np.arange(len(order)) % FOLDS
    return folds


def check_j48_folds(name: str, folds: np.ndarray) -> None:
    path = J48_GOLDEN / f"{name}.json"
    if path.exists():
        golden = json.loads(path.read_text(encoding="utf-8"))["cv"]["folds"]
        if not np.array_equal(folds, golden):
            raise SystemExit(f"{name}: repetition 0 is not the J48 golden folds")


# --------------------------------------------------------------------------- learners


def rootwise_variants(regression: bool, cv_repeats: list[int]) -> list[tuple[str, dict]]:
    """(label, parameters) of every rootwise choice; each fit gives both rules."""
    costs = [None] if regression else ["misclassification", "impurity"]
    out = []
    for cost in costs:
        for r in cv_repeats:
            params = {"cv_repeats": r} | ({} if cost is None else {"ccp_cost": cost})
            label = ("" if cost is None else ("mis" if cost == "misclassification" else "imp"))
            out.append((f"{label}{' ' if label else ''}x{r}", params))
    return out


def one_se_row(table) -> int:
    """The simplest row within one standard error of the lowest CV error (ties: simpler)."""
    err, se = table.cv_error, table.cv_std_error
    k_min = int(np.flatnonzero(err <= err.min() + 1e-12 * max(1.0, abs(err.min())))[-1])
    return int(np.flatnonzero(err <= err.min() + se[k_min] + 1e-12 * max(1.0, abs(err.min())))[-1])


def run_rootwise(X, y, train, test, params: dict, seed: int, regression: bool) -> dict:
    """Predictions of the cv-min and the cv-1se tree of one outer fold, and their leaves."""
    cls = CARTRegressor if regression else CARTClassifier
    Xtr, ytr, Xte = X.iloc[train], y.iloc[train], X.iloc[test]
    at_min = cls(ccp_alpha="cv-min", random_state=seed, **params).fit(Xtr, ytr)
    table = at_min.cp_table_
    out = {"cv-min": (at_min.predict(Xte), at_min.get_n_leaves())}
    if table is None:
        out["cv-1se"] = out["cv-min"]
        return out
    alpha = float(table.alpha[one_se_row(table)])
    at_1se = cls(ccp_alpha=alpha, **{k: v for k, v in params.items() if k != "cv_repeats"})
    at_1se.fit(Xtr, ytr)
    out["cv-1se"] = (at_1se.predict(Xte), at_1se.get_n_leaves())
    return out


def sklearn_ccp(X, y, train, test, seed: int, regression: bool):
    """scikit-learn's tree with ccp_alpha chosen by 10-fold CV over its pruning path."""
    nominal = [c for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)]
    encode = ColumnTransformer([("nominal", OneHotEncoder(handle_unknown="ignore",
                                                          sparse_output=False), nominal)],
                               remainder="passthrough")
    Xtr = encode.fit_transform(X.iloc[train])
    Xte = encode.transform(X.iloc[test])
    ytr = y.iloc[train].to_numpy() if regression else y.iloc[train].astype(str).to_numpy()
    tree = (DecisionTreeRegressor if regression else DecisionTreeClassifier)(random_state=0)
    alphas = np.unique(tree.cost_complexity_pruning_path(Xtr, ytr).ccp_alphas)
    alphas = alphas[alphas >= 0]
    splitter = (KFold if regression else StratifiedKFold)(FOLDS, shuffle=True, random_state=seed)
    if not regression and np.bincount(pd.factorize(ytr)[0]).min() < FOLDS:
        splitter = KFold(FOLDS, shuffle=True, random_state=seed)  # a class with < 10 rows
    search = GridSearchCV(tree, {"ccp_alpha": alphas}, cv=splitter,
                          scoring="neg_mean_squared_error" if regression else "accuracy")
    search.fit(Xtr, ytr)
    return search.predict(Xte), search.best_estimator_.get_n_leaves()


# --------------------------------------------------------------------------- peers (R, Java)


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """common.R's CSV: header, comma separated, unquoted, empty cell = missing, floats by repr."""
    def cell(v):
        if v is None or (isinstance(v, float) and np.isnan(v)):
            return ""
        text = repr(float(v)) if isinstance(v, (float, np.floating)) else str(v)
        if "," in text or "\n" in text:
            raise SystemExit(f"{path.name}: a cell holds a comma or newline: {text!r}")
        return text
    lines = [",".join(frame.columns)]
    for row in frame.itertuples(index=False):
        lines.append(",".join(cell(v) for v in row))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def column_spec(frame: pd.DataFrame) -> list[dict]:
    out = []
    for c in frame.columns:
        dtype = frame[c].dtype
        if isinstance(dtype, pd.CategoricalDtype):
            out.append({"name": c, "kind": "ordered" if dtype.ordered else "nominal",
                        "levels": [str(v) for v in dtype.categories]})
        else:
            out.append({"name": c, "kind": "numeric"})
    return out


def run_peers(names: list[str], repeats: int) -> None:
    """rpart (all tables) and SimpleCart (classification) on the outer folds, into PEERS_JSON."""
    for tool in ("Rscript", "java"):
        if shutil.which(tool) is None:
            raise SystemExit(f"cart_accuracy.py: --peers needs {tool} on PATH")
    peers = json.loads(PEERS_JSON.read_text()) if PEERS_JSON.exists() else {"datasets": {}}
    with tempfile.TemporaryDirectory(prefix="cart_accuracy_") as tmp:
        tmp = Path(tmp)
        spec = {"seed_base": RPART_SEED, "datasets": []}
        fold_lists = {}
        for name in names:
            X, y, target = load(name)
            folds = [outer_folds(y, r) for r in range(repeats)]
            fold_lists[name] = folds
            frame = X.assign(**{target: y})
            write_csv(frame, tmp / f"{name}.csv")
            spec["datasets"].append({"name": name, "csv": str(tmp / f"{name}.csv"),
                                     "target": target,
                                     "method": "anova" if name in REGRESSION else "class",
                                     "columns": column_spec(frame),
                                     "folds": [f.tolist() for f in folds]})
        (tmp / "spec.json").write_text(json.dumps(spec))
        subprocess.run(["Rscript", str(ROOT / "tools" / "rpart" / "cart_accuracy.R"), "--spec",
                        str(tmp / "spec.json"), "--json", str(tmp / "rpart.json")],
                       check=True, stdout=sys.stderr)
        rpart = json.loads((tmp / "rpart.json").read_text())
        for d in rpart["datasets"]:
            entry = {"folds": fold_lists[d["name"]], "rpart": d["repeats"]}
            if d["name"] in CLASSIFICATION:
                fold_file = tmp / f"{d['name']}.folds"
                fold_file.write_text("\n".join(",".join(map(str, f)) for f in fold_lists[d["name"]]))
                for label, options in (("simplecart", []), ("simplecart -A", ["-A"])):
                    out = tmp / "simplecart.json"
                    subprocess.run(["java", "-Djava.awt.headless=true", "-cp", str(WEKA_JAR),
                                    str(ROOT / "tools" / "weka" / "SimpleCartFolds.java"),
                                    str(arff_path(d["name"])), str(fold_file),
                                    str(SIMPLECART_SEED), str(out), *options],
                                   check=True, stdout=sys.stderr)
                    entry[label] = json.loads(out.read_text())["repeats"]
            peers["datasets"][d["name"]] = compact(entry)
            print(f"peers: {d['name']} done", file=sys.stderr)
        peers.update(r_version=rpart["r_version"], rpart_version=rpart["rpart_version"],
                     weka="Weka 3.6.14 (Debian), weka.classifiers.trees.SimpleCart",
                     rpart_seed_base=RPART_SEED, simplecart_seed_base=SIMPLECART_SEED,
                     generated_by="benchmarks/cart_accuracy.py --peers")
    PEERS_JSON.write_text(json.dumps(peers, sort_keys=True, separators=(",", ":")) + "\n")
    print(f"wrote {PEERS_JSON.relative_to(ROOT)}", file=sys.stderr)


def compact(entry: dict) -> dict:
    """A table's peer results for the JSON file: fold ids as one string of digits per repetition,
    class predictions as indices into ``labels``."""
    out = {"folds": ["".join(map(str, f)) for f in entry["folds"]]}
    labels = sorted({p for k, v in entry.items() if k != "folds" for run in v
                     for p in run["predictions"] if isinstance(p, str)})
    if labels:
        out["labels"] = labels
    index = {c: i for i, c in enumerate(labels)}
    for k, runs in entry.items():
        if k != "folds":
            out[k] = [{"leaves": run["leaves"],
                       "predictions": [index.get(p, p) for p in run["predictions"]]}
                      for run in runs]
    return out


def expand(entry: dict) -> dict:
    """``compact`` undone: fold id arrays, and labels (or numbers) as predictions."""
    out = {"folds": [np.array([int(c) for c in f]) for f in entry["folds"]]}
    labels = np.asarray(entry.get("labels", []), dtype=object)
    for k, runs in entry.items():
        if k not in ("folds", "labels"):
            out[k] = [{"leaves": run["leaves"],
                       "predictions": labels[run["predictions"]] if len(labels) else
                       np.asarray(run["predictions"], dtype=np.float64)} for run in runs]
    return out


# --------------------------------------------------------------------------- scoring


def score_table(name: str, repeats: int, cv_repeats: list[int], peers: dict) -> dict:
    """Per learner: predictions of every repetition, and mean leaves per fold tree."""
    X, y, _ = load(name)
    regression = name in REGRESSION
    if name not in peers["datasets"]:
        raise SystemExit(f"{name}: no rpart / SimpleCart results in {PEERS_JSON.name}; run --peers")
    stored = expand(peers["datasets"][name])
    preds: dict[str, list] = {}
    leaves: dict[str, list] = {}

    def add(label, r, values, lv):
        preds.setdefault(label, [None] * repeats)[r] = values
        leaves.setdefault(label, []).extend(lv)

    for r in range(repeats):
        folds = outer_folds(y, r)
        if r == 0:
            check_j48_folds(name, folds)
        if r >= len(stored["folds"]) or not np.array_equal(stored["folds"][r], folds):
            raise SystemExit(f"{name}: the stored peers were scored on other folds; run --peers")
        for peer in ("rpart", "simplecart", "simplecart -A"):
            if peer in stored:
                values = stored[peer][r]["predictions"]
                add(peer, r, np.asarray(values, dtype=np.float64 if regression else object),
                    stored[peer][r]["leaves"])
        sk = np.empty(len(y), dtype=np.float64 if regression else object)
        mean = np.empty(len(y))
        sk_leaves = []
        by_rule: dict[str, np.ndarray] = {}
        by_rule_leaves: dict[str, list] = {}
        for k in range(FOLDS):
            train, test = np.flatnonzero(folds != k), np.flatnonzero(folds == k)
            sk[test], lv = sklearn_ccp(X, y, train, test, 10 * r + k, regression)
            sk_leaves.append(lv)
            if regression:
                mean[test] = y.iloc[train].mean()
            for label, params in rootwise_variants(regression, cv_repeats):
                out = run_rootwise(X, y, train, test, params, 10 * r + k, regression)
                for rule, (p, lv) in out.items():
                    key = f"{label} {rule}"
                    by_rule.setdefault(key, np.empty(len(y), dtype=np.float64 if regression
                                                     else object))[test] = p
                    by_rule_leaves.setdefault(key, []).append(lv)
        add("scikit-learn", r, sk, sk_leaves)
        for key, p in by_rule.items():
            add(key, r, p, by_rule_leaves[key])
        if regression:
            add("training mean", r, mean, [1] * FOLDS)
    truth = y.to_numpy(dtype=np.float64) if regression else y.astype(str).to_numpy(dtype=object)
    return {"regression": regression, "rows": len(y), "truth": truth, "preds": preds,
            "leaves": {k: float(np.mean(v)) for k, v in leaves.items()}}


def metric(result: dict, label: str) -> float:
    """Accuracy in percent, or RMSE, pooled over the rows of every repetition."""
    truth, runs = result["truth"], result["preds"][label]
    if result["regression"]:
        return float(np.sqrt(np.mean([(p - truth) ** 2 for p in runs])))
    return 100.0 * float(np.mean([p == truth for p in runs]))


# the ten files of the issue-4 table (benchmarks/README.md), for a second summary row
ISSUE_4 = ["vote", "soybean", "breast-cancer", "credit-g", "labor", "iris", "diabetes", "glass",
           "ionosphere", "segment-challenge"]


def default_label(regression: bool) -> str:
    """The column of the estimator's defaults."""
    model = (CARTRegressor if regression else CARTClassifier)()
    p = model.get_params()
    cost = "" if regression else ("mis " if p["ccp_cost"] == "misclassification" else "imp ")
    repeats = 3 if p["cv_repeats"] is None and not regression else (p["cv_repeats"] or 1)
    return f"{cost}x{repeats} {p['ccp_alpha']}"


def sign_test(a: int, b: int) -> float:
    """Two-sided exact binomial (sign) test of a successes against b, p = 1/2."""
    from fractions import Fraction
    from math import comb

    n, k = a + b, min(a, b)
    if n == 0:
        return 1.0
    # exact in integers: 2.0 ** n overflows a float past n = 1023 rows
    return min(1.0, float(Fraction(2 * sum(comb(n, i) for i in range(k + 1)), 2 ** n)))


def print_tables(results: dict, labels: list[str], regression: bool) -> None:
    names = [n for n, r in results.items() if r["regression"] == regression]
    if not names:
        return
    default = default_label(regression)
    heads = [f"**{lab}** (default)" if lab == default else lab for lab in labels]
    what = "RMSE" if regression else "accuracy (%)"
    print(f"### {'Regression' if regression else 'Classification'}: {what}, then mean leaves")
    print()
    print("| table | rows | " + " | ".join(heads) + " |")
    print("| --- | ---: |" + " ---: |" * len(labels))
    for n in names:
        cells = [f"{metric(results[n], lab):.{3 if regression else 2}f}" for lab in labels]
        print(f"| {n} | {results[n]['rows']} | " + " | ".join(cells) + " |")
    if regression:
        rel = {lab: np.mean([metric(results[n], lab) / metric(results[n], "training mean")
                             for n in names]) for lab in labels}
        print(f"| **mean RMSE / RMSE of the mean** | {len(names)} tables | "
              + " | ".join(f"**{rel[lab]:.4f}**" for lab in labels) + " |")
    else:
        for title, members in (("mean", names), ("mean, the ten issue-4 files",
                                                 [n for n in names if n in ISSUE_4])):
            if members and (title == "mean" or len(members) < len(names)):
                mean = {lab: np.mean([metric(results[n], lab) for n in members]) for lab in labels}
                print(f"| **{title}** | {len(members)} files | "
                      + " | ".join(f"**{mean[lab]:.2f}**" for lab in labels) + " |")
    print()
    print("| table | " + " | ".join(heads) + " |")
    print("| --- |" + " ---: |" * len(labels))
    for n in names:
        print(f"| {n} | " + " | ".join(f"{results[n]['leaves'][lab]:.1f}" for lab in labels) + " |")
    print("| **mean** | " + " | ".join(
        f"**{np.mean([results[n]['leaves'][lab] for n in names]):.1f}**" for lab in labels) + " |")
    print()
    if default in labels:
        print_paired(results, names, labels, default, regression)


def print_paired(results: dict, names: list[str], labels: list[str], default: str,
                 regression: bool) -> None:
    """The default against every other column: tables where it is better / worse, and for
    classification the rows (over all repetitions) only it or only the other gets right."""
    print(f"The default ({default}) against each other column:")
    print()
    for lab in labels:
        if lab in (default, "training mean"):
            continue
        better = sum(metric(results[n], default) < metric(results[n], lab) if regression else
                     metric(results[n], default) > metric(results[n], lab) for n in names)
        worse = sum(metric(results[n], default) > metric(results[n], lab) if regression else
                    metric(results[n], default) < metric(results[n], lab) for n in names)
        line = f"- {lab}: better on {better} tables, worse on {worse}"
        if not regression:
            only_default = only_other = 0
            for n in names:
                truth, ours, theirs = (results[n]["truth"], results[n]["preds"][default],
                                       results[n]["preds"][lab])
                for a, b in zip(ours, theirs, strict=True):
                    only_default += int(((a == truth) & (b != truth)).sum())
                    only_other += int(((a != truth) & (b == truth)).sum())
            line += (f"; rows right only by the default {only_default}, only by {lab} "
                     f"{only_other} (sign test p = {sign_test(only_default, only_other):.2g})")
        print(line)
    print()


def study_one_se(names: list[str]) -> None:
    """Why the 1-SE rule over-prunes small regression tables: per outer fold of repetition 0,
    the cv-min row and the 1-SE row of CARTRegressor(random_state=k)'s cp table, the standard
    error relative to the CV error, and how much of the training sum of squares the 5% of rows
    farthest from the mean hold (squared errors are heavy-tailed)."""
    print("| table | fold | training rows | cv-min leaves | CV MSE | SE / CV MSE | 1-SE leaves "
          "| its CV MSE | top 5% rows' share of SS |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in names:
        X, y, _ = load(name)
        folds = outer_folds(y, 0)
        for k in range(FOLDS):
            train = np.flatnonzero(folds != k)
            model = CARTRegressor(ccp_alpha="cv-min", random_state=k).fit(X.iloc[train],
                                                                          y.iloc[train])
            t = model.cp_table_
            best, one_se = t.chosen, one_se_row(t)
            ss = np.sort((y.iloc[train] - y.iloc[train].mean()).to_numpy() ** 2)[::-1]
            print(f"| {name} | {k} | {len(train)} | {t.n_leaves[best]} | {t.cv_error[best]:.0f} | "
                  f"{t.cv_std_error[best] / t.cv_error[best]:.2f} | {t.n_leaves[one_se]} | "
                  f"{t.cv_error[one_se]:.0f} (+{100 * (t.cv_error[one_se] / t.cv_error[best] - 1):.0f}%)"
                  f" | {ss[: len(ss) // 20].sum() / ss.sum():.2f} |")
    print()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated table names (default: all)")
    parser.add_argument("--repeats", type=int, default=3, help="outer 10-fold repetitions")
    parser.add_argument("--cv-repeats", default="1,3", help="rootwise cv_repeats values")
    parser.add_argument("--peers", action="store_true",
                        help="recompute rpart's and SimpleCart's predictions (R, Java, Weka)")
    parser.add_argument("--study-one-se", action="store_true",
                        help="only the 1-SE study on Weka's cpu files (a minute)")
    args = parser.parse_args(argv)
    if args.study_one_se:
        study_one_se(["cpu", "cpu.with.vendor"])
        return 0
    names = args.only.split(",") if args.only else CLASSIFICATION + REGRESSION
    unknown = [m for m in names if m not in CLASSIFICATION + REGRESSION]
    if unknown:
        parser.error(f"unknown table(s): {', '.join(unknown)}")
    if args.peers:
        run_peers(names, args.repeats)
    cv_repeats = [int(v) for v in args.cv_repeats.split(",")]
    peers = json.loads(PEERS_JSON.read_text())
    start = time.perf_counter()
    for line in machine_lines():
        print(line)
    print(f"rpart {peers['rpart_version']} ({peers['r_version']}); {peers['weka']}; "
          f"{args.repeats} x 10-fold outer CV")
    print()
    results = {}
    for name in names:
        t = time.perf_counter()
        results[name] = score_table(name, args.repeats, cv_repeats, peers)
        print(f"{name}: {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    for regression in (False, True):
        rw = [f"{label} {rule}" for label, _ in rootwise_variants(regression, cv_repeats)
              for rule in ("cv-min", "cv-1se")]
        peers_cols = (["rpart", "scikit-learn", "training mean"] if regression else
                      ["rpart", "simplecart", "simplecart -A", "scikit-learn"])
        print_tables(results, peers_cols + rw, regression)
    print(f"{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
