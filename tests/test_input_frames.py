"""polars DataFrames, pyarrow Tables and scipy sparse matrices as X: the same tree as from the
pandas DataFrame (or dense array) holding the same cells, names kept, predict's checks applied,
and clear refusals for what cannot be read."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from rootwise import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier, export_text
from rootwise.input import tables

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
pytest.importorskip("narwhals")

N = 60
LEVELS = ["c", "a", "b"]  # a declared order that is neither sorted nor first appearance


def cells(seed=0):
    """The cells of the mixed table as Python lists (None = missing), and a class and a value
    that depend on every column, so that every column can be chosen by a split."""
    rng = np.random.default_rng(seed)
    num = rng.normal(size=N).round(2)
    count = rng.integers(0, 5, size=N)
    level = rng.choice(LEVELS, size=N)
    word = rng.choice(["p", "q", "r", "s"], size=N)
    flag = rng.random(N) < 0.5
    score = num + (level == "a") * 2.5 - (word == "q") * 1.5 + flag * 1.2 + count * 0.3
    y = np.where(score > np.median(score), "yes", "no")
    value = score.round(3)

    def holes(values, every):
        return [None if i % every == 3 else v for i, v in enumerate(values.tolist())]

    return dict(num=holes(num, 7), count=holes(count, 9), level=holes(level, 8),
                word=holes(word, 11), flag=holes(flag, 10)), y, value


def pandas_table(c):
    return pd.DataFrame({
        "num": pd.array(c["num"], dtype="Float64").to_numpy(dtype=float, na_value=np.nan),
        "count": pd.array(c["count"], dtype="Int64"),
        "level": pd.Categorical(c["level"], categories=LEVELS),
        "word": pd.Series(c["word"], dtype=object),
        "flag": pd.array(c["flag"], dtype="boolean"),
    })


def polars_table(c, level=None):
    level = pl.Enum(LEVELS) if level is None else level
    return pl.DataFrame({"num": pl.Series(c["num"], dtype=pl.Float64),
                         "count": pl.Series(c["count"], dtype=pl.Int64),
                         "level": pl.Series(c["level"], dtype=level),
                         "word": pl.Series(c["word"], dtype=pl.String),
                         "flag": pl.Series(c["flag"], dtype=pl.Boolean)})


def arrow_table(c):
    codes = pa.array([None if v is None else LEVELS.index(v) for v in c["level"]], pa.int8())
    return pa.table({"num": pa.array(c["num"], pa.float64()),
                     "count": pa.array(c["count"], pa.int64()),
                     "level": pa.DictionaryArray.from_arrays(codes, pa.array(LEVELS)),
                     "word": pa.array(c["word"], pa.string()),
                     "flag": pa.array(c["flag"], pa.bool_())})


def foreign_tables(c):
    return {"polars": polars_table(c), "pyarrow": arrow_table(c)}


ESTIMATORS = [  # grown deep enough to test every kind of column on 60 rows
    lambda: CARTClassifier(pruning=None, max_depth=4),
    lambda: C45Classifier(),
    lambda: CARTRegressor(pruning=None, max_depth=4),
    lambda: CARTClassifier(splitter="hist", pruning=None, max_depth=4),
]
IDS = ["cart", "c45", "regressor", "cart-hist"]


def target(model, y, value):
    return value if isinstance(model, CARTRegressor) else y


def outputs(model, X):
    out = [model.predict(X)]
    if hasattr(model, "predict_proba"):
        out.append(model.predict_proba(X))
    return out


def assert_outputs_equal(a, b):
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_same_tree_from_pandas_polars_and_pyarrow(make):
    c, y, value = cells()
    reference = make().fit(pandas_table(c), target(make(), y, value))
    text = export_text(reference)
    assert {"num", "level", "word", "flag"} <= set(text.split())  # the real names, not x0, x1
    for kind, X in foreign_tables(c).items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "X does not have valid feature names" would fail
            model = make().fit(X, target(make(), y, value))
            assert export_text(model) == text, kind
            assert list(model.feature_names_in_) == ["num", "count", "level", "word", "flag"]
            assert model.schema_.categories[2] == tuple(LEVELS)  # Enum / dictionary order kept
            assert model.schema_.kinds == reference.schema_.kinds
            assert_outputs_equal(outputs(model, X), outputs(reference, pandas_table(c)))


def test_the_kinds_of_columns():
    c, y, _ = cells()
    model = CARTClassifier(random_state=0).fit(polars_table(c), y)
    schema = model.schema_
    assert schema.categories[:2] == (None, None)  # numbers, nulls included, are continuous
    assert set(schema.categories[3]) == {"p", "q", "r", "s"}  # strings are categorical
    assert schema.categories[4] == (True, False)  # first appearance (row 0 is True)
    assert all(schema.missing)  # nulls are missing cells in every column


def test_numbers_without_nulls_are_read_without_a_copy():
    x = np.arange(10.0)
    for X, native in ((pl.DataFrame({"x": x}), lambda X: X["x"].to_numpy()),
                      (pa.table({"x": x}), lambda X: X.column("x").chunk(0).to_numpy())):
        assert np.shares_memory(tables.as_table(X).column(0), native(X))


def test_polars_categorical_is_read_as_its_values_in_order_of_appearance():
    # polars' category list is shared by every Categorical column: the column's categories are
    # the values it holds, in order of first appearance, as for a pandas column of strings
    pl.Series(["zz", "b", "yy"], dtype=pl.Categorical)  # fills the shared list first
    c, y, _ = cells()
    X = polars_table(c, level=pl.Categorical)
    reference = pandas_table(c).assign(level=pd.Series(c["level"], dtype=object))
    model = CARTClassifier(random_state=0).fit(X, y)
    first_seen = tuple(dict.fromkeys(v for v in c["level"] if v is not None))
    assert model.schema_.categories[2] == first_seen
    ref = CARTClassifier(random_state=0).fit(reference, y)
    assert export_text(model) == export_text(ref)
    assert_outputs_equal(outputs(model, X), outputs(ref, reference))


def test_integer_columns_with_nulls_stay_integers():
    # a polars integer column with nulls listed as categorical keeps integer categories, as
    # pandas' Int64 does (no float64 detour printing 1.0)
    c, y, _ = cells()
    model = CARTClassifier(categorical_features=["count"], random_state=0).fit(polars_table(c), y)
    ref = CARTClassifier(categorical_features=["count"], random_state=0).fit(pandas_table(c), y)
    assert model.schema_.categories[1] == ref.schema_.categories[1]
    assert all(type(v) is int for v in model.schema_.categories[1])
    assert export_text(model) == export_text(ref)


def test_id3_from_polars():
    c, y, _ = cells()
    full = [i for i in range(N) if all(c[k][i] is not None for k in c)]
    sub = {k: [v[i] for i in full] for k, v in c.items()}
    model = ID3Classifier().fit(polars_table(sub), y[full])
    assert export_text(model) == export_text(ID3Classifier().fit(pandas_table(sub), y[full]))
    with pytest.raises(ValueError, match="ID3Classifier cannot use missing values.*column 'num'"):
        ID3Classifier().fit(polars_table(c), y)


def test_predict_from_each_kind():
    c, y, _ = cells()
    tables_ = {"pandas": pandas_table(c), **foreign_tables(c)}
    for fit_kind, X in tables_.items():
        model = C45Classifier().fit(X, y)
        expected = outputs(model, X)
        for kind, other in tables_.items():
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                assert_outputs_equal(outputs(model, other), expected)
            assert model.apply(other).tolist() == model.apply(X).tolist(), (fit_kind, kind)


@pytest.mark.parametrize("kind", ["polars", "pyarrow"])
def test_reordered_and_renamed_columns_are_refused_by_name(kind):
    c, y, _ = cells()
    X = foreign_tables(c)[kind]
    model = CARTClassifier(random_state=0).fit(X, y)
    names = ["flag", "word", "level", "count", "num"]
    reordered = X.select(names)
    with pytest.raises(ValueError, match="Feature names must be in the same order"):
        model.predict(reordered)
    renamed = X.rename({"num": "number"}) if kind == "polars" else X.rename_columns(
        ["number", "count", "level", "word", "flag"])
    with pytest.raises(ValueError, match="(?s)unseen at fit time:\n- number.*missing:\n- num"):
        model.predict(renamed)


def test_a_model_fitted_without_names_warns_for_a_named_table():
    c, y, _ = cells()
    X = pandas_table(c)[["num", "count"]]
    model = CARTClassifier(random_state=0).fit(X.to_numpy(dtype=float, na_value=np.nan), y)
    with pytest.warns(UserWarning, match="X has feature names, but CARTClassifier was fitted "
                                         "without feature names"):
        model.predict(pl.from_pandas(X))


@pytest.mark.parametrize("kind", ["polars", "pyarrow"])
def test_unseen_categories_as_for_pandas(kind):
    c, y, _ = cells()
    model = CARTClassifier(random_state=0).fit(pandas_table(c), y)
    new = dict(c, word=["zz" if i % 3 == 0 else v for i, v in enumerate(c["word"])])
    expected = outputs(model, pandas_table(new))
    other = foreign_tables(new)[kind]
    assert_outputs_equal(outputs(model, other), expected)


def test_values_of_another_kind_are_refused():
    c, y, _ = cells()
    model = CARTClassifier(random_state=0).fit(polars_table(c), y)
    codes = polars_table(c).with_columns(pl.Series("word", [1, 2] * (N // 2)))
    with pytest.raises(ValueError, match="column 'word' holds numbers .* but its categories at fit "
                                         "were strings"):
        model.predict(codes)


def test_x_val_from_polars():
    c, y, _ = cells()
    X = polars_table(c)
    model = CARTClassifier(pruning="reduced-error", random_state=0).fit(X, y, X_val=X, y_val=y)
    ref = CARTClassifier(pruning="reduced-error", random_state=0).fit(
        pandas_table(c), y, X_val=pandas_table(c), y_val=y)
    assert export_text(model) == export_text(ref)
    with pytest.raises(ValueError, match="Feature names must be in the same order"):
        CARTClassifier(pruning="reduced-error").fit(X, y, X_val=X.select(X.columns[::-1]),
                                                    y_val=y)


# --------------------------------------------------------------------------- refusals

@pytest.mark.parametrize("X, error, words", [
    (lambda: pl.DataFrame({"when": [1, 2]}).with_columns(pl.col("when").cast(pl.Date)),
     TypeError, "column 'when' of X has the type Date: rootwise reads numbers, booleans, "
                "strings and categoricals"),
    (lambda: pl.DataFrame({"a": [1.0, 2.0]}).lazy(), TypeError,
     r"X is a polars LazyFrame; collect it first \(lazy_frame.collect\(\)\)"),
    (lambda: pl.Series("a", [1.0, 2.0]), ValueError, "Expected 2D array, got a polars Series"),
    (lambda: pa.table([pa.array([1.0, 2.0]), pa.array([3.0, 4.0])], names=["a", "a"]),
     ValueError, r"X has duplicate column names \['a'\]"),
    (lambda: pa.table({"a": pa.array([[1], [2]])}), TypeError, "column 'a' of X has the type "
                                                               "List"),
    (lambda: pl.DataFrame({"a": pl.Series([], dtype=pl.Float64)}), ValueError,
     r"Found array with 0 sample\(s\)"),
    (lambda: sp.csr_matrix(np.array([[1 + 1j, 0], [0, 1]])), TypeError,
     "X: a sparse matrix of dtype complex128 cannot be read; rootwise takes sparse matrices of "
     "numbers or booleans"),
])
def test_refusals(X, error, words):
    with pytest.raises(error, match=words):
        CARTClassifier().fit(X(), [0, 1])


def test_without_narwhals_the_message_names_it(monkeypatch):
    for name in ("narwhals", "narwhals.stable", "narwhals.stable.v2"):
        monkeypatch.setitem(sys.modules, name, None)  # importing it now raises ImportError
    with pytest.raises(ImportError, match=r"X is a polars DataFrame: rootwise reads it through "
                                          r"narwhals \(2.0 or later\), which is not installed; "
                                          r"pip install narwhals"):
        tables.as_table(pl.DataFrame({"a": [1.0]}))


# --------------------------------------------------------------------------- scipy sparse

def sparse_cells(seed=1, n=80):
    """Mostly zeros; the class depends on which cells are non-zero and on their values."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, 5)).astype(float)
    X[rng.random(X.shape) < 0.6] = 0.0
    y = np.where((X[:, 0] != 0) ^ (X[:, 1] > 1), "yes", "no")
    return X, y, X[:, 0] * 2 + X[:, 2]


SPARSE_ESTIMATORS = ESTIMATORS + [lambda: ID3Classifier()]


@pytest.mark.parametrize("make", SPARSE_ESTIMATORS, ids=IDS + ["id3"])
def test_sparse_fits_the_tree_of_its_dense_form(make):
    dense, y, value = sparse_cells()
    t = target(make(), y, value)
    reference = make().fit(dense, t)
    model = make().fit(sp.csc_matrix(dense), t)
    assert export_text(model) == export_text(reference)
    assert not any(model.schema_.missing)  # implicit zeros are zeros, not missing cells
    assert_outputs_equal(outputs(model, sp.csr_matrix(dense)), outputs(reference, dense))
    assert_outputs_equal(outputs(model, sp.csr_array(dense)), outputs(reference, dense))
    assert model.apply(sp.csr_matrix(dense)).tolist() == reference.apply(dense).tolist()


def test_sparse_with_a_categorical_column_and_stored_nan():
    dense, y, _ = sparse_cells()
    dense[::7, 3] = np.nan  # a stored NaN is a missing cell, as in the dense form
    reference = CARTClassifier(categorical_features=[2], random_state=0).fit(dense, y)
    model = CARTClassifier(categorical_features=[2], random_state=0).fit(sp.csc_matrix(dense), y)
    assert export_text(model) == export_text(reference)
    assert model.schema_.missing == (False, False, False, True, False)
    assert model.schema_.categories[2] == reference.schema_.categories[2]
    assert_outputs_equal(outputs(model, sp.csr_matrix(dense)), outputs(reference, dense))


def test_sparse_after_a_named_fit_warns_as_an_array_does():
    dense, y, _ = sparse_cells()
    model = CARTClassifier(random_state=0).fit(pd.DataFrame(dense, columns=list("abcde")), y)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        model.predict(sp.csr_matrix(dense))
