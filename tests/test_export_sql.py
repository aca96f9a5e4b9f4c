"""export_sql: the SQL run in SQLite (the standard library's sqlite3) gives what predict /
predict_proba give, row by row and exactly -- classes equal, regression values and probabilities
the same doubles (no tolerance: literals are written to read back exactly).

The references are the model's own predict / predict_proba, or for hand-built and random trees
the Tree's routing (``Tree.apply``, ``Tree.fractional_distribution``) on the encoded rows.
"""

from __future__ import annotations

import math
import re
import sqlite3
import struct
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from random_trees import column, random_model, random_rows, sqlite_table, staircase
from sklearn.exceptions import NotFittedError

import rootwise
from rootwise import datasets
from rootwise._config import LEAF, MISSING_FRACTIONAL, THRESHOLD
from rootwise.export.sql_text import conjunction, identifier, literal, number
from rootwise.input.encode import encode

J48_DATA = Path(__file__).resolve().parent / "golden" / "j48" / "data"


def sql_predict(model, frame, **kwargs) -> list:
    con = sqlite_table(frame)
    return column(con, rootwise.export_sql(model, "data", **kwargs), "prediction")


def sql_proba(model, frame) -> np.ndarray:
    con = sqlite_table(frame)
    query = rootwise.export_sql(model, "data", proba=True)
    cols = [column(con, query, f"P({c})") for c in model.classes_]
    return np.array(cols, dtype=float).T


def assert_same_predictions(model, frame):
    """SQL prediction == predict row by row (exactly); for classifiers also predict_proba."""
    expected = model.predict(frame)
    got = sql_predict(model, frame)
    if hasattr(model, "classes_"):
        assert list(got) == list(expected)
        assert np.array_equal(sql_proba(model, frame), model.predict_proba(frame))
    else:
        assert all(isinstance(v, float) for v in got)
        assert np.array_equal(np.array(got), expected)  # the same doubles


def read_weka(name: str) -> pd.DataFrame:
    """A Weka example table as the CLI reads CSV: only empty cells are missing."""
    return pd.read_csv(J48_DATA / f"{name}.csv", keep_default_na=False, na_values=[""])


def with_holes(frame: pd.DataFrame, rng, share: float, unseen: bool = True) -> pd.DataFrame:
    """``frame`` with a share of its cells missing and, in categorical columns, some values
    never seen in training."""
    out = frame.astype(object).copy()
    holes = rng.random(out.shape) < share
    out = out.mask(holes, None)
    if unseen:
        for j, col in enumerate(out.columns):
            if not pd.api.types.is_numeric_dtype(frame[col]):
                rows = rng.random(len(out)) < 0.1
                out.loc[rows, col] = f"never seen {j}"
    return out


# ---------------------------------------------------------------------------- real tables


@pytest.fixture(scope="module")
def melon():
    return datasets.load_watermelon_2_0_alpha(return_X_y=True)


def test_cart_on_watermelon_alpha_with_surrogates(melon):
    X, y = melon
    model = rootwise.CARTClassifier(pruning=None).fit(X, y)
    assert model.tree_.n_surrogates.sum() > 0
    rng = np.random.default_rng(0)
    frame = pd.concat([X, with_holes(X, rng, 0.4), with_holes(X, rng, 0.8)], ignore_index=True)
    assert_same_predictions(model, frame)


def test_c45_on_watermelon_alpha_is_probabilities_then_the_first_largest(melon):
    X, y = melon
    model = rootwise.C45Classifier(pruning=None).fit(X, y)
    assert np.any(model.tree_.missing_branch == MISSING_FRACTIONAL)
    rng = np.random.default_rng(1)
    frame = pd.concat([X, with_holes(X, rng, 0.3), with_holes(X, rng, 0.7)], ignore_index=True)
    assert_same_predictions(model, frame)


def test_id3_on_watermelon_with_unseen_categories():
    X, y = datasets.load_watermelon_2_0(return_X_y=True)
    model = rootwise.ID3Classifier().fit(X, y)
    rng = np.random.default_rng(2)
    # ID3 refuses missing values at predict; unseen categories stop at the node
    frame = pd.concat([X, with_holes(X, rng, 0.0)], ignore_index=True)
    assert frame["纹理"].astype(str).str.startswith("never seen").any()
    assert_same_predictions(model, frame)


@pytest.mark.parametrize("name", ["credit-g", "vote", "breast-cancer"])
def test_cart_on_weka_tables_with_missing_cells(name):
    data = read_weka(name)
    X, y = data.drop(columns=[data.columns[-1]]), data[data.columns[-1]]
    rng = np.random.default_rng(3)
    train = with_holes(X, rng, 0.1, unseen=False).infer_objects()
    model = rootwise.CARTClassifier(pruning=None, max_depth=8, random_state=0).fit(train, y)
    assert model.tree_.n_surrogates.sum() > 0
    frame = pd.concat([train, with_holes(X, rng, 0.3)], ignore_index=True)
    assert_same_predictions(model, frame)


@pytest.mark.parametrize("name", ["credit-g", "vote", "breast-cancer"])
def test_c45_release8_on_weka_tables(name):
    data = read_weka(name)
    X, y = data.drop(columns=[data.columns[-1]]), data[data.columns[-1]]
    model = rootwise.C45Classifier(release8=True).fit(X, y)  # J48's pruned tree
    rng = np.random.default_rng(4)
    frame = pd.concat([X, with_holes(X, rng, 0.2)], ignore_index=True)
    assert_same_predictions(model, frame)


def test_id3_on_breast_cancer_rows_without_missing_cells():
    data = read_weka("breast-cancer").dropna()
    X, y = data.drop(columns=["Class"]), data["Class"]
    model = rootwise.ID3Classifier().fit(X, y)  # deg-malig: numbers as categories
    rng = np.random.default_rng(5)
    assert_same_predictions(model, pd.concat([X, with_holes(X, rng, 0.0)], ignore_index=True))


def synthetic(rng, n):
    """Categorical columns of 3..12 categories, continuous ones with ties, a quarter missing."""
    cols = {
        "city": rng.choice([f"c{k}" for k in range(12)], size=n),
        "plan": rng.choice(["basic", "pro", "team"], size=n),
        "age": rng.integers(18, 80, size=n).astype(float),
        "spend": np.round(rng.gamma(2.0, 30.0, size=n), 2),
        "visits": rng.poisson(3, size=n).astype(float),
    }
    frame = pd.DataFrame(cols)
    signal = (frame["city"].str[1:].astype(int) % 3) + (frame["age"] > 40) + (frame["spend"] > 60)
    label = np.array(["low", "mid", "high", "top"])[np.minimum(signal.to_numpy(), 3)]
    value = signal.to_numpy() * 10.0 + frame["visits"].to_numpy() + rng.normal(size=n)
    frame = frame.astype(object).mask(rng.random(frame.shape) < 0.25, None)
    for c in ("age", "spend", "visits"):
        frame[c] = frame[c].astype(float)
    return frame, label, value


def test_cart_classifier_and_its_pruned_tree_on_a_synthetic_table():
    rng = np.random.default_rng(6)
    X, y, _ = synthetic(rng, 600)
    full = rootwise.CARTClassifier(pruning=None, min_samples_leaf=3).fit(X, y)
    pruned = rootwise.CARTClassifier(ccp_alpha=0.005).fit(X, y)  # cost-complexity pruning
    assert pruned.tree_.node_count < full.tree_.node_count
    Xt, _, _ = synthetic(np.random.default_rng(7), 400)
    Xt.loc[::17, "city"] = "a city never seen"
    for model in (full, pruned):
        assert_same_predictions(model, pd.concat([X, Xt], ignore_index=True))


def test_cart_regressor_values_are_the_same_doubles():
    rng = np.random.default_rng(8)
    X, _, v = synthetic(rng, 500)
    Xt, _, _ = synthetic(np.random.default_rng(9), 300)
    Xt.loc[::13, "plan"] = "enterprise"
    for model in (rootwise.CARTRegressor(pruning=None, min_samples_leaf=2),
                  rootwise.CARTRegressor(leaf_value="median", ccp_alpha=0.5)):
        model.fit(X, v)
        assert_same_predictions(model, pd.concat([X, Xt], ignore_index=True))


def test_hist_splitter_and_class_weights():
    rng = np.random.default_rng(10)
    X, y, _ = synthetic(rng, 500)
    model = rootwise.CARTClassifier(splitter="hist", max_bins=16, class_weight="balanced",
                                    pruning=None, max_depth=6).fit(X, y)
    assert_same_predictions(model, X)


def test_declared_column_types_and_the_expression_alone(melon):
    """Columns declared TEXT / REAL (type affinity) and the bare CASE expression in a SELECT."""
    X, y = melon
    model = rootwise.CARTClassifier(pruning=None).fit(X, y)
    frame = with_holes(X, np.random.default_rng(11), 0.3)
    con = sqlite_table(frame, types={c: "TEXT" for c in frame.columns})
    query = f"SELECT _row, {rootwise.export_sql(model)} AS p FROM data"
    assert column(con, query, "p") == list(model.predict(frame))
    rng = np.random.default_rng(12)
    Xn, _, v = synthetic(rng, 200)
    reg = rootwise.CARTRegressor(pruning=None).fit(Xn, v)
    con = sqlite_table(Xn, types={"age": "REAL", "spend": "REAL", "visits": "REAL",
                                  "city": "TEXT", "plan": "TEXT"})
    got = column(con, f"SELECT _row, {rootwise.export_sql(reg)} AS p FROM data", "p")
    assert np.array_equal(np.array(got), reg.predict(Xn))


def test_numeric_classes_bool_classes_and_a_one_leaf_tree():
    rng = np.random.default_rng(13)
    X = pd.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200)})
    X = X.mask(rng.random(X.shape) < 0.2)
    for y in ((X["a"].fillna(0) > 0).astype(int) * 7 - 3, X["b"].fillna(0) > 0.3):
        model = rootwise.CARTClassifier(pruning=None, max_depth=4).fit(X, y)
        assert_same_predictions(model, X)
    one = rootwise.CARTClassifier().fit(X, np.zeros(200, dtype=int))
    assert one.tree_.node_count == 1
    assert rootwise.export_sql(one) == "0"
    assert_same_predictions(one, X)


# ---------------------------------------------------------------------------- random trees


def tree_reference(model, frame):
    """(prediction, probabilities) of ``model`` from the Tree's own routing on the encoded rows."""
    tree = model.tree_
    Xe = encode(frame, model.schema_)
    if getattr(model, "classes_", None) is None:
        return tree.value[tree.apply(Xe), 0], None
    if np.any(tree.missing_branch[tree.kind != LEAF] == MISSING_FRACTIONAL):
        proba = tree.fractional_distribution(Xe)
    else:
        proba = tree.distribution()[tree.apply(Xe)]
    return model.classes_[np.argmax(proba, axis=1)], proba


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("mode", ["route", "fractional", "regression"])
def test_random_trees_match_the_tree_routing(seed, mode):
    rng = np.random.default_rng(seed)
    # regressors predict by Tree.apply, fractional splits or not
    fractional = mode == "fractional" or (mode == "regression" and seed % 2 == 1)
    model = random_model(rng, regression=mode == "regression", fractional=fractional)
    frame = random_rows(rng, 300)
    expected, proba = tree_reference(model, frame)
    got = sql_predict(model, frame)
    if proba is None:
        assert np.array_equal(np.array(got, dtype=float), expected)
    else:
        assert got == list(expected)
        assert np.array_equal(sql_proba(model, frame), proba)


def test_random_trees_cover_every_routing_rule():
    """The random trees above do exercise what they are meant to."""
    rng = np.random.default_rng(0)
    seen = set()
    for seed in range(40):
        t = random_model(np.random.default_rng(seed)).tree_
        split = t.kind != LEAF
        seen |= {("kind", int(k)) for k in t.kind[split]}
        seen |= {("missing", int(m)) for m in np.sign(t.missing_branch[split])}
        seen |= {("surrogate", int(k)) for k in t.surrogates["kind"]}
        seen.add(("no branch", bool(np.any(t.pool == -1))))
    assert {("kind", 1), ("kind", 2), ("kind", 3), ("missing", -1), ("missing", 0),
            ("missing", 1), ("surrogate", 1), ("surrogate", 3), ("no branch", True)} <= seen
    frame = random_rows(rng, 300)
    assert frame.isna().mean().min() > 0.1 and (frame["code"] == 99).any()


# ---------------------------------------------------------------------------- deep trees


def test_a_staircase_of_depth_ten_thousand_runs_in_sqlite():
    """No Python recursion; one WHEN per end with one merged interval each, so SQLite's limit of
    1000 levels of expression depth is never reached."""
    model = staircase(10_000)
    sql = rootwise.export_sql(model, "data")
    assert sql.count(" WHEN ") == 10_001 + 1  # the leaves, and the stop of missing values
    assert max(len(line) for line in sql.splitlines()) < 200
    rng = np.random.default_rng(14)
    x = np.concatenate([rng.integers(-5, 10_005, size=150) + rng.choice([0.0, 0.5], size=150),
                        [np.nan] * 3, [0.0, 9_999.0, 10_000.0]])
    frame = pd.DataFrame({"x": x})
    expected, _ = tree_reference(model, frame)
    assert sql_predict(model, frame) == list(expected)


# ---------------------------------------------------------------------------- literals


def test_numbers_read_back_as_the_same_double_in_sqlite():
    rng = np.random.default_rng(15)
    bits = rng.integers(0, 2 ** 63, size=3000, dtype=np.int64).tolist()
    values = [struct.unpack("<d", struct.pack("<q", b))[0] for b in bits]
    values += list(rng.uniform(-1000, 1000, size=2000)) + list(rng.integers(-10 ** 6, 10 ** 6,
                                                                              size=500) / 64)
    values += [5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1 + 0.2, 97.5, -0.25,
               2.0 ** 53, 2.0 ** 53 + 2, 1e22, 1e23, 123456789012345680.0, 0.728970077850914]
    values = [v for v in values if math.isfinite(v)]
    values += [-v for v in values]
    con = sqlite3.connect(":memory:")
    for lo in range(0, len(values), 200):
        chunk = values[lo: lo + 200]
        back = con.execute("SELECT " + ", ".join(number(v) for v in chunk)).fetchone()
        assert [struct.pack("<d", v) for v in back] == [struct.pack("<d", v) for v in chunk]


def test_numbers_are_written_in_their_shortest_digits_exactly():
    assert number(97.5) == "97.5"  # the decimal is the double itself
    assert number(-0.25) == "-0.25"
    assert number(3.0) == "3.0"
    assert number(0.0) == "0.0"
    assert number(1e20) == "1e20"
    # shortest digits as one exact division: SQLite 3.40 reads "22.930396" one unit off
    assert number(0.1) == "(1.0 / 10)"
    assert number(6.941) == "(6941.0 / 1000)"
    assert number(-22.930396) == "(-22930396.0 / 1000000)"
    # 17 significant digits do not fit 2^53: exactly in binary, the decimal in a comment
    assert number(0.1 + 0.2).endswith("/* 0.30000000000000004 */)")
    with pytest.raises(ValueError, match="cannot write"):
        number(float("nan"))


def _literal_value(text: str) -> Decimal:
    """The exact rational value of a literal written by ``number`` (comments dropped)."""
    text = re.sub(r"/\*.*?\*/", "", text).strip().strip("()").strip()
    parts = re.split(r"\s*([*/])\s*", text)
    value = Decimal(parts[0])
    for op, operand in zip(parts[1::2], parts[2::2], strict=True):
        value = value * Decimal(operand) if op == "*" else value / Decimal(operand)
    return value


def test_every_threshold_of_a_large_tree_in_its_shortest_digits_in_sqlite():
    """A fully grown regression tree on segment-challenge (19 numeric columns): every threshold
    and surrogate threshold the SQL holds reads back in SQLite as the model's double; where it is
    not exact in binary-free decimal, its digits are repr's (the shortest that round-trip); and
    the SQL predicts what predict does."""
    frame = read_weka("segment-challenge")
    X = frame.drop(columns=["class", "region-centroid-row"])
    y = frame["region-centroid-row"].astype(float)
    model = rootwise.CARTRegressor(random_state=0).fit(X, y)
    tree = model.tree_
    values = tree.threshold[tree.kind == THRESHOLD].tolist() + tree.surrogates["threshold"].tolist()
    values = sorted(set(v for v in values if math.isfinite(v)))
    assert len(values) > 500
    sql = rootwise.export_sql(model, "data")
    con = sqlite3.connect(":memory:")
    shortest = 0
    for lo in range(0, len(values), 200):
        chunk = values[lo: lo + 200]
        texts = [number(v) for v in chunk]
        back = con.execute("SELECT " + ", ".join(texts)).fetchone()
        assert [struct.pack("<d", v) for v in back] == [struct.pack("<d", v) for v in chunk]
        for v, text in zip(chunk, texts, strict=True):
            if "/*" not in text:  # written in decimal digits: exactly repr's value
                assert _literal_value(text) == Decimal(repr(v))
                shortest += 1
    assert shortest > 0.8 * len(values)  # the rest need 16-17 digits: more than 2^53
    # every division the SQL holds is the literal of one of the model's numbers
    leaf_values = tree.value[tree.kind == LEAF, 0].tolist()
    written = {number(v) for v in values + leaf_values}
    divisions = re.findall(r"\(-?\d+\.0 [/*] \d+\)", sql)
    assert divisions and set(divisions) <= written
    assert_same_predictions(model, X)


def test_labels_and_names_are_quoted_and_escaped():
    assert literal("O'Brien") == "'O''Brien'"
    assert literal(np.str_("纹理")) == "'纹理'"
    assert literal(np.int64(7)) == "7"
    assert literal(True) == "TRUE" and literal(np.bool_(False)) == "FALSE"
    assert literal(2.5) == "2.5"
    assert identifier('say "when"') == '"say ""when"""'
    for bad in (None, b"x", 2 ** 70, "a\x00b"):
        with pytest.raises(ValueError, match="cannot write"):
            literal(bad)
    with pytest.raises(ValueError, match="identifier"):
        identifier("")


def test_a_long_conjunction_is_nested_not_flat():
    terms = [f"x > {k}" for k in range(5000)]
    sql = conjunction(terms)
    con = sqlite3.connect(":memory:")
    assert con.execute(f"SELECT {sql.replace('x', '6000')}").fetchone() == (1,)
    assert con.execute(f"SELECT {sql.replace('x', '10')}").fetchone() == (0,)


def test_hostile_names_and_labels_run_as_data():
    """Column names, categories and classes with quotes, semicolons and comment markers."""
    names = ('a"; DROP TABLE data; --', "b' OR 1=1 --", "c */ d")
    X = pd.DataFrame({names[0]: ["x';--", "y", 'z"', "x';--"] * 20,
                      names[1]: np.arange(80) % 7 * 1.5,
                      names[2]: ["/* q */", "p", "p", "q"] * 20})
    y = np.where(X[names[1]] > 4, "it's; --", 'say "hi"')
    y[X[names[0]] == "y"] = "/* c */"
    model = rootwise.CARTClassifier(pruning=None).fit(X, y)
    frame = X.mask(np.random.default_rng(16).random(X.shape) < 0.2)
    con = sqlite_table(frame)
    got = column(con, rootwise.export_sql(model, "data", name="p; --"), "p; --")
    assert got == list(model.predict(frame))
    assert con.execute("SELECT count(*) FROM data").fetchone() == (80,)  # still there


# ---------------------------------------------------------------------------- API and errors


def test_select_form_table_names_and_proba_columns(melon):
    X, y = melon
    model = rootwise.CARTClassifier(pruning=None).fit(X, y)
    assert rootwise.export_sql(model, "t").startswith('SELECT *, CASE\n')
    assert rootwise.export_sql(model, ("main", "t")).endswith('FROM "main"."t"')
    proba = rootwise.export_sql(model, proba=True)
    assert re.findall(r'AS ("P\(.\)")', proba) == ['"P(否)"', '"P(是)"']
    con = sqlite_table(X, name="my table")
    query = rootwise.export_sql(model, ("main", "my table"))
    assert column(con, query, "prediction") == list(model.predict(X))


def test_errors_are_clear(melon):
    X, y = melon
    with pytest.raises(NotFittedError):
        rootwise.export_sql(rootwise.CARTClassifier())
    model = rootwise.CARTClassifier(pruning=None).fit(X, y)
    for bad in ("", 3, ("main", ""), ("a", 1), [], "x\x00y"):
        with pytest.raises(ValueError, match="table"):
            rootwise.export_sql(model, bad)
    with pytest.raises(ValueError, match="name must be"):
        rootwise.export_sql(model, "t", name="")
    c45 = rootwise.C45Classifier(pruning=None).fit(X, y)
    with pytest.raises(ValueError, match="one CASE cannot express"):
        rootwise.export_sql(c45)
    rng = np.random.default_rng(17)
    Xn, _, v = synthetic(rng, 100)
    with pytest.raises(ValueError, match="proba=True needs a classifier"):
        rootwise.export_sql(rootwise.CARTRegressor().fit(Xn, v), proba=True)

