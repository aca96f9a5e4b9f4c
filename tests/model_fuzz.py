"""Fuzzing the model-file loader: base models, mutations of their files, and the outcome of one
mutated file. Used by tests/test_export_model_file_fuzz.py (a few thousand cases in ``make
test``) and tools/fuzz_model_files.py (10^5 and more, in subprocesses with timeouts).

A case is (base model, seed). ``mutate`` derives the file's bytes from the base model's file;
``run_case`` loads them and, if that works, uses the model: predict, predict_proba, apply,
export_text, export_graphviz, a save / load round trip, and its SQL (``export_sql``) run in
SQLite, which must predict what ``predict`` does. Outcomes:

    error       load refused the file with ModelFileError
    equivalent  it loaded and every output is exactly the base model's
    different   it loaded, every output is sane and some differ from the base model's; the
                reason names the parts of the model that differ (a changed threshold, count or
                label makes a valid, different model)
    failure     anything else: another exception, a probability row not summing to 1, a label
                not among the classes, a node out of range, a model that cannot be saved again,
                SQL that predicts otherwise than predict

The target is no failure. Mutations: byte flips, truncation, digit changes, and JSON-aware edits
of every field (numbers made huge, negative, NaN, infinite or fractional; types changed; arrays
swapped with another field, shortened, lengthened, reversed, shuffled; keys dropped or added;
deep nesting; long strings; long lists of long labels with a wide dtype; branch fractions and
class counts perturbed; the estimator field changed to another estimator, with the parameters
kept, reset or made the new estimator's).
"""

from __future__ import annotations

import json
import math
import random
import sqlite3

import numpy as np
import pandas as pd

import rootwise
from rootwise.estimators import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from rootwise.export.model_file import ESTIMATORS, ModelFileError, dumps, model_from_dict

# name -> (estimator, dataset, target column or None for the dataset's own target). Every
# estimator, with what makes it differ: multiway tests (ID3), fractional routing of missing values
# and error-based pruning (C4.5), release 8, subsets and surrogates, a cp table, regression,
# the histogram splitter, pruning steps of reduced-error and pre-pruning.
BASES = {
    "id3-reduced-error": (lambda: ID3Classifier(pruning="reduced-error", random_state=0),
                          "watermelon_2_0", None),
    "c45-fractional": (lambda: C45Classifier(), "watermelon_2_0_alpha", None),
    "c45-thresholds": (lambda: C45Classifier(pruning=None), "watermelon_3_0", None),
    "c45-release8": (lambda: C45Classifier(release8=True, min_samples_leaf=1), "watermelon_3_0",
                     None),
    "cart-surrogates": (lambda: CARTClassifier(pruning=None), "watermelon_2_0_alpha", None),
    "cart-cp-table": (lambda: CARTClassifier(cv=3, random_state=0), "loan_default", None),
    "cart-pre": (lambda: CARTClassifier(pruning="pre", random_state=0), "watermelon_3_0", None),
    "cart-regressor": (lambda: CARTRegressor(cv=3, random_state=0, min_samples_leaf=1),
                       "watermelon_3_0", "密度"),
    "cart-hist": (lambda: CARTClassifier(splitter="hist", pruning=None), "watermelon_2_0_alpha",
                  None),
}


def fit_base(name: str):
    """(fitted model, its file's text, the rows its outputs are compared on)."""
    make, table, target = BASES[name]
    X, y = rootwise.datasets.load(table, return_X_y=True)
    if target is not None:
        X, y = X.drop(columns=[target]), X[target]
    model = make().fit(X, y)
    return model, dumps(model), usage_rows(model, X)


def usage_rows(model, X: pd.DataFrame) -> pd.DataFrame:
    """The training rows, plus (for algorithms that take them) each row again with one cell
    missing, and rows holding a category never seen in training: every routing path."""
    extra = []
    if model._missing != "error":
        for j, col in enumerate(X.columns):
            row = X.iloc[[j % len(X)]].copy()
            row[col] = np.nan if X[col].dtype.kind == "f" else None
            extra.append(row)
        extra.append(X.iloc[[0]].map(lambda v: np.nan if isinstance(v, float) else None))
    for col in X.columns:
        if X[col].dtype.kind not in "fiub":
            row = X.iloc[[1]].copy()
            row[col] = "never seen"
            extra.append(row)
    return pd.concat([X, *extra], ignore_index=True)


# --------------------------------------------------------------------------- mutations

_LONG = (1_000, 100_000, 2_000_000)
_HUGE = (1e308, -1e308, 2**31, 2**31 - 1, -(2**31) - 1, 2**32, 2**63 - 1, 2**63, 2**64,
         -(2**63) - 1, 10**30, 1e19, 5e-324)
# raw JSON text put where a value was (json.dumps cannot write these)
_RAW = ("1e999", "-1e999", "1" + "0" * 400, "1" + "0" * 5000, "-0", "1E+308", "0.1e-400",
        "NaN", "Infinity", "-Infinity")


class _Doc:
    """A parsed model document being mutated, with raw JSON text to splice in when written."""

    def __init__(self, text: str):
        self.root = json.loads(text)
        self.raw: list[str] = []

    def raw_value(self, text: str) -> str:
        self.raw.append(text)
        return f"@@RAW{len(self.raw) - 1}@@"

    def text(self) -> str:
        out = json.dumps(self.root, ensure_ascii=False, allow_nan=True)
        for i, raw in enumerate(self.raw):
            out = out.replace(f'"@@RAW{i}@@"', raw)
        return out


def fields(root) -> list[tuple]:
    """(container, key, dotted name) of every named field (a key of a JSON object) of the
    document, found without recursion."""
    out = []
    stack = [(root, "")]
    while stack:
        node, name = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                child = f"{name}.{k}" if name else str(k)
                out.append((node, k, child))
                stack.append((v, child))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, (dict, list)):
                    stack.append((v, f"{name}[{i}]"))
    out.sort(key=lambda f: f[2])  # a fixed order: the same seed, the same mutation
    return out


def _number_edit(x, rng: random.Random, doc: _Doc):
    op = rng.randrange(9)
    if op == 0:
        return rng.choice(_HUGE)
    if op == 1:
        return -x if isinstance(x, (int, float)) and x != 0 else -1
    if op == 2:
        return rng.choice([float("nan"), float("inf"), None, {"float": "nan"}, {"float": "inf"}])
    if op == 3:
        return doc.raw_value(rng.choice(_RAW))
    if op == 4:
        base = x if isinstance(x, (int, float)) and math.isfinite(x) else 1
        return rng.choice([base + 0.5, base * 1.5, base / 3, base + 1e-9])
    if op == 5:
        base = x if isinstance(x, int) else 0
        return rng.choice([base + 1, base - 1, 0, 1, 2, -2])
    if op == 6:
        return rng.choice([str(x), True, False, [x], {"x": x}, ""])
    if op == 7:
        base = x if isinstance(x, (int, float)) and math.isfinite(x) else 1.0
        return base * rng.choice([1.01, 0.99, 0.5, 2.0, 1 + 1e-8, 1 + 1e-12])
    return rng.choice([0, 0.0, 1.0, -1])


def _string_edit(s, rng: random.Random, doc: _Doc):
    op = rng.randrange(5)
    if op == 0:
        return rng.choice("aé是\n\"\\") * rng.choice(_LONG)
    if op == 1:
        return rng.choice(["", " ", s + "x", s[:-1] if s else "x", s.upper()])
    if op == 2:
        return rng.choice([1, 0, 1.5, True, None, [s]])
    if op == 3:
        return doc.raw_value(rng.choice(_RAW))
    other = [v for v in _scalars(doc.root) if isinstance(v, str)]
    return rng.choice(other) if other else s


def _scalars(root) -> list:
    out, stack = [], [root]
    while stack and len(out) < 10_000:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        else:
            out.append(node)
    return out


def _deep(rng: random.Random, doc: _Doc) -> str:
    depth = rng.choice([10, 100, 900, 5_000, 100_000])
    if rng.random() < 0.5:
        return doc.raw_value("[" * depth + "]" * depth)
    return doc.raw_value('{"a":' * depth + "1" + "}" * depth)


def _list_edit(v: list, rng: random.Random, doc: _Doc, others: list):
    n = len(v)
    op = rng.randrange(13)
    if op == 0 and n >= 2:
        i, j = rng.sample(range(n), 2)
        v[i], v[j] = v[j], v[i]
        return v
    if op == 1:
        return v[: rng.randrange(n)] if n else v
    if op == 2:
        return v[::-1]
    if op == 3:
        w = list(v)
        rng.shuffle(w)
        return w
    if op == 4 and n:
        return v + [v[rng.randrange(n)]] * rng.choice([1, 2, 1000])
    if op == 5:
        return []
    if op == 6 and others:
        return json.loads(json.dumps(rng.choice(others)))  # another field's array
    if op == 7:
        return _deep(rng, doc)
    if op == 8 and n:
        i = rng.randrange(n)
        if isinstance(v[i], list) and v[i]:  # an element of a table row (class counts)
            j = rng.randrange(len(v[i]))
            v[i][j] = _number_edit(v[i][j], rng, doc)
        elif isinstance(v[i], str):
            v[i] = _string_edit(v[i], rng, doc)
        else:
            v[i] = _number_edit(v[i], rng, doc)
        return v
    if op == 9 and n:
        scale = rng.choice([0.0, 0.5, 1.0001, 2.0, -1.0, 1e300])
        i = rng.randrange(n)
        if isinstance(v[i], (int, float)) and not isinstance(v[i], bool):
            v[i] = v[i] * scale
        elif isinstance(v[i], list):
            v[i] = [x * scale if isinstance(x, (int, float)) else x for x in v[i]]
        return v
    if op == 10:  # a long list of long strings (at most a few MB)
        k, width = rng.choice([(100, 10_000), (10_000, 100), (200_000, 1)])
        return ["x" * width + str(i) for i in range(k)]
    if op == 11 and n:
        return [v[0]] * n  # one value everywhere
    return v + [rng.choice([0, -1, 1.5, "x", None])]


def _dict_edit(d: dict, rng: random.Random, doc: _Doc):
    op = rng.randrange(5)
    if op == 0 and d:
        del d[rng.choice(sorted(d, key=str))]
        return d
    if op == 1:
        d[rng.choice(["extra", "__class__", "code"])] = rng.choice([1, "import os", None])
        return d
    if op == 2:
        return _deep(rng, doc)
    if op == 3:
        return rng.choice([None, [], "x", 1])
    return {}


def _special(doc: _Doc, rng: random.Random) -> None:
    """Edits aimed at the defects of issue 15: branch fractions that no longer sum to 1, and a
    long list of long class labels declared with a wide dtype (37 GiB if allocated)."""
    root = doc.root
    tree = root.get("tree") if isinstance(root, dict) else None
    op = rng.randrange(3)
    if op == 0 and isinstance(tree, dict) and isinstance(tree.get("branch_fraction"), list):
        r = tree["branch_fraction"]
        if r:
            i = rng.randrange(len(r))
            if isinstance(r[i], (int, float)):
                r[i] = rng.choice([r[i] * 1.5, r[i] / 2, 1.0, 0.0, r[i] + 1e-6, r[i] + 1e-12])
    elif op == 1 and isinstance(root, dict) and isinstance(root.get("classes"), dict):
        k = rng.choice([2, 1000, 20_000])
        root["classes"] = {"dtype": f"<U{rng.choice([10, 100_000, 999_999])}",
                           "values": [f"{i:0{rng.choice([1, 9])}d}" for i in range(k)]}
    elif isinstance(tree, dict) and isinstance(tree.get("value"), list) and tree["value"]:
        row = tree["value"][rng.randrange(len(tree["value"]))]
        if isinstance(row, list):
            for j in range(len(row)):
                row[j] = rng.choice([0.0, -0.0, 1e308, 5e-324, -1e-300])


def _relabel(doc: _Doc, rng: random.Random) -> None:
    """Another estimator's name in the estimator field: the tree of one algorithm offered as
    another's. The parameters are kept (mostly refused: the new estimator lacks some), dropped
    (the new estimator's defaults), or kept where the new estimator has them, pruning dropped
    (they then pass, and only the tree can tell); classes are made null or a list for a
    regressor or a classifier."""
    root = doc.root
    if not isinstance(root, dict):
        return
    others = [n for n in ESTIMATORS if n != root.get("estimator")]
    name = rng.choice(others)
    root["estimator"] = name
    params = root.get("params")
    op = rng.randrange(3)
    if op == 1 or not isinstance(params, dict):
        root["params"] = {}
    elif op == 2:
        accepted = ESTIMATORS[name]().get_params(deep=False)
        root["params"] = {k: v for k, v in params.items() if k in accepted and k != "pruning"}
    regressor = name == "CARTRegressor"
    if regressor and rng.random() < 0.7:
        root["classes"] = None
        root.pop("class_order", None)
    elif not regressor and root.get("classes") is None and rng.random() < 0.7:
        tree = root.get("tree")
        width = 1
        if isinstance(tree, dict) and isinstance(tree.get("value"), list) and tree["value"]:
            width = len(tree["value"][0]) if isinstance(tree["value"][0], list) else 1
        root["classes"] = {"dtype": "<i8", "values": list(range(width))}


def relabel(text: str, seed: int) -> bytes:
    """The base file ``text`` with only its estimator field changed (``_relabel``, seeded)."""
    doc = _Doc(text)
    _relabel(doc, random.Random(seed))
    return doc.text().encode("utf-8")


def mutate(text: str, seed: int) -> bytes:
    """The bytes of mutated file number ``seed`` of the base file ``text``."""
    rng = random.Random(seed)
    data = text.encode("utf-8")
    kind = rng.random()
    if kind < 0.05:  # bit flips
        b = bytearray(data)
        for _ in range(rng.choice([1, 1, 2, 8])):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        return bytes(b)
    if kind < 0.08:  # truncation
        return data[: rng.randrange(len(data))]
    if kind < 0.15:  # digit changes anywhere
        chars = list(text)
        spots = [i for i, c in enumerate(chars) if c.isdigit()]
        for i in rng.sample(spots, min(len(spots), rng.choice([1, 1, 2, 5]))):
            chars[i] = rng.choice("0123456789-.e")
        return "".join(chars).encode("utf-8")
    doc = _Doc(text)
    if kind < 0.22:
        _special(doc, rng)
        return doc.text().encode("utf-8")
    if kind < 0.27:
        _relabel(doc, rng)
        return doc.text().encode("utf-8")
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        named = fields(doc.root)
        if not named:
            break
        container, key, _name = rng.choice(named)
        value = container[key]
        if isinstance(value, list):
            others = [c[k] for c, k, _ in named if isinstance(c[k], list) and c[k] is not value]
            container[key] = _list_edit(value, rng, doc, others)
        elif isinstance(value, dict):
            container[key] = _dict_edit(value, rng, doc)
        elif isinstance(value, str):
            container[key] = _string_edit(value, rng, doc)
        else:
            container[key] = _number_edit(value, rng, doc)
    return doc.text().encode("utf-8")


# --------------------------------------------------------------------------- one case


def outputs(model, X: pd.DataFrame, exports: bool = True) -> dict:
    """Everything the fuzz compares: predict, predict_proba, apply on ``X`` (its columns renamed
    as the model names its features) and, with ``exports``, export_text and export_graphviz."""
    names = getattr(model, "feature_names_in_", None)
    X = X.set_axis(list(names), axis=1) if names is not None else X.to_numpy(dtype=object)
    out = {"predict": model.predict(X), "apply": model.apply(X)}
    if exports:
        out.update(text=rootwise.export_text(model), dot=rootwise.export_graphviz(model))
    if hasattr(model, "classes_"):
        out["proba"] = model.predict_proba(X)
    return out


def sql_disagrees(model, X: pd.DataFrame, predicted: np.ndarray) -> str | None:
    """Where the model's SQL, run in SQLite on ``X``, predicts otherwise than ``predict``, or
    None. Labels compare as Python values (SQLite gives TRUE back as 1); values exactly."""
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        return None
    con = sqlite3.connect(":memory:")
    cols = ", ".join(_quote(c) for c in ("_row", *names))
    con.execute(f"CREATE TABLE data ({cols})")
    marks = ", ".join("?" * (len(names) + 1))
    con.executemany(f"INSERT INTO data VALUES ({marks})",
                    [(i, *(_plain(v) for v in row)) for i, row in
                     enumerate(X.itertuples(index=False, name=None))])
    try:
        query = rootwise.export_sql(model, "data")
    except ValueError as e:
        if str(e).startswith("cannot write"):
            return None  # a label or category SQL has no literal for (inf, a 400-digit integer)
        raise
    got = [r[0] for r in con.execute(f'SELECT "prediction" FROM ({query}) ORDER BY _row')]
    con.close()
    want = predicted.tolist()
    wrong = [i for i, (a, b) in enumerate(zip(got, want, strict=True))
             if not (a == b and (isinstance(b, str) == isinstance(a, str)))]
    if not wrong:
        return None
    return (f"SQL predicts otherwise than predict on {len(wrong)} of {len(want)} rows "
            f"(row {wrong[0]}: {got[wrong[0]]!r} against {want[wrong[0]]!r})")


def _quote(name) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _plain(v):
    """A cell as SQLite stores it: NULL for a missing value."""
    if isinstance(v, np.generic):
        v = v.item()
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    return v


def insane(model, out: dict, n_rows: int) -> str | None:
    """What is wrong with a loaded model's outputs, or None."""
    apply = out["apply"]
    if apply.shape != (n_rows,) or apply.min() < 0 or apply.max() >= model.tree_.node_count:
        return "apply: a node out of range"
    pred = out["predict"]
    if pred.shape != (n_rows,):
        return "predict: wrong shape"
    if not all(isinstance(out.get(k, ""), str) for k in ("text", "dot")):
        return "export: not text"
    if "proba" not in out:
        return None if np.all(np.isfinite(pred.astype(np.float64))) else "predict: not finite"
    proba = out["proba"]
    if proba.shape != (n_rows, len(model.classes_)) or not np.all(np.isfinite(proba)):
        return "predict_proba: wrong shape or not finite"
    if np.any(proba < -1e-12) or np.any(np.abs(proba.sum(axis=1) - 1.0) > 1e-6):
        return f"predict_proba: rows sum to {proba.sum(axis=1).min()} .. {proba.sum(axis=1).max()}"
    known = set(model.classes_.tolist())
    if not all(v in known for v in pred.tolist()):
        return "predict: a label not among classes_"
    return None


def same_outputs(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, str) or isinstance(y, str):
            same = x == y
        elif x.dtype.kind == "O" or y.dtype.kind == "O":  # labels: compare the Python values
            same = x.shape == y.shape and x.tolist() == y.tolist()
        else:
            same = x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
        if not same:
            return False
    return True


def differing_parts(base, model) -> str:
    """Which parts of ``model`` differ from ``base``: params, schema, classes, tree arrays."""
    parts = []
    pa, pb = base.get_params(), model.get_params()
    parts += [f"params.{k}" for k in pa if repr(pa[k]) != repr(pb.get(k))]
    for k in ("feature_names", "kinds", "categories"):
        if repr(getattr(base.schema_, k)) != repr(getattr(model.schema_, k)):
            parts.append(f"schema.{k}")
    if hasattr(base, "classes_") and repr(base.classes_.tolist()) != repr(model.classes_.tolist()):
        parts.append("classes")
    ta, tb = base.tree_, model.tree_
    if ta.node_count != tb.node_count:
        parts.append("tree.shape")
    else:
        for k, v in vars(ta).items():
            if isinstance(v, np.ndarray) and not k.startswith("_") and not np.array_equal(
                    v, getattr(tb, k), equal_nan=v.dtype.kind == "f"):
                parts.append(f"tree.{k}")
        for k, v in ta.surrogates.items():
            if not np.array_equal(v, tb.surrogates[k], equal_nan=v.dtype.kind == "f"):
                parts.append(f"tree.surrogates.{k}")
    return "+".join(parts) or "nothing (outputs differ by the input's column names)"


def run_case(data: bytes, path, base, expected: dict, X: pd.DataFrame,
             thorough: bool = True) -> tuple[str, str]:
    """(outcome, detail) of one mutated file, written to ``path`` and loaded from there.
    ``expected``: ``outputs(base, X, thorough)``. ``thorough``: also the exports and a save /
    load round trip of the loaded model (what the tests leave to the script, for time)."""
    path.write_bytes(data)
    try:
        model = rootwise.load(path)
    except ModelFileError as e:
        return "error", e.reason
    except Exception as e:  # noqa: BLE001 - any other exception is what the fuzz looks for
        return "failure", f"load raised {type(e).__name__}: {str(e)[:200]}"
    try:
        out = outputs(model, X, thorough)
        problem = insane(model, out, len(X))
        if problem is None and thorough:
            again = model_from_dict(json.loads(dumps(model)))
            if not same_outputs(outputs(again, X), out):
                problem = "saved and loaded again, the model changed"
        if problem is None and thorough:
            named = X.set_axis(list(model.feature_names_in_), axis=1) if getattr(
                model, "feature_names_in_", None) is not None else X
            problem = sql_disagrees(model, named, out["predict"])
    except Exception as e:  # noqa: BLE001
        return "failure", f"using the loaded model raised {type(e).__name__}: {str(e)[:200]}"
    if problem is not None:
        return "failure", problem
    if same_outputs(out, expected):
        return "equivalent", ""
    return "different", differing_parts(base, model)
