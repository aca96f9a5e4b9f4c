"""The data layer (rootwise.input): tables -> encoded matrix + schema, labels -> codes, weights."""

from __future__ import annotations

import re
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.exceptions import DataConversionWarning

from rootwise._config import CATEGORICAL, CONTINUOUS, UNSEEN_CODE
from rootwise.input import encode, tables, target, values
from rootwise.input import schema as schema_mod


def mixed_frame() -> pd.DataFrame:
    """One column per dtype family; the first six are categorical by dtype."""
    return pd.DataFrame({
        "obj": pd.Series(["a", "b", "a"], dtype=object),
        "str": pd.Series(["x", "y", "x"]),  # pandas 3: the default `str` dtype
        "string": pd.Series(["p", "q", "p"], dtype="string"),
        "cat": pd.Series(["u", "v", "u"], dtype="category"),
        "bool": [True, False, True],
        "boolean": pd.array([True, False, None], dtype="boolean"),
        "int": [3, 1, 2],
        "float": [0.5, 1.5, 2.5],
        "Int64": pd.array([1, None, 3], dtype="Int64"),
    })


# --------------------------------------------------------------------------- categorical columns


def test_default_str_dtype_is_pandas_3_string():
    # guards the premise of the next test: a plain list of strings gets pandas' string dtype
    assert isinstance(mixed_frame()["str"].dtype, pd.StringDtype)


def test_auto_categorical_from_dtype():
    mask = schema_mod.resolve_categorical(mixed_frame(), "auto")
    assert mask.tolist() == [True] * 6 + [False] * 3


def test_auto_is_the_default_for_none():
    assert schema_mod.resolve_categorical(mixed_frame(), None).tolist() == [True] * 6 + [False] * 3


@pytest.mark.parametrize("given", [
    ["int"], [6], [-3], np.array([6]),
    [False] * 6 + [True, False, False],
    np.array([False] * 6 + [True, False, False]),
])
def test_categorical_features_adds_to_dtype_columns(given):
    mask = schema_mod.resolve_categorical(mixed_frame(), given)
    assert mask.tolist() == [True] * 7 + [False, False]


def test_categorical_features_names_of_an_array_are_x_i():
    frame = tables.as_frame(np.arange(6.0).reshape(3, 2))
    assert schema_mod.resolve_categorical(frame, ["x1"]).tolist() == [False, True]
    assert schema_mod.resolve_categorical(frame, [0, "x1"]).tolist() == [True, True]


@pytest.mark.parametrize("given, words", [
    ([9], "index 9 is out of range"),
    ([-10], "index -10 is out of range"),
    (["nope"], "no column named 'nope'"),
    ([True, False], "boolean mask needs 9 entries"),
    ([1.5], "entries must be column names or indices, got 1.5"),
    ([None], "entries must be column names or indices, got None"),
    ([True, 0], "entries must be column names or indices, got True"),
    ("all", "must be 'auto'"),
])
def test_bad_categorical_features(given, words):
    with pytest.raises(ValueError, match="categorical_features") as info:
        schema_mod.resolve_categorical(mixed_frame(), given)
    assert words in str(info.value)


def test_unknown_name_error_lists_columns():
    with pytest.raises(ValueError, match=r"columns are \['obj', 'str'"):
        schema_mod.resolve_categorical(mixed_frame(), ["nope"])


# --------------------------------------------------------------------------- tables


def test_list_of_rows_infers_numeric_and_string_columns():
    frame = tables.as_frame([[1, "a", 2.5, None], [2, "b", None, pd.NA], [3, "a", 1.0, 4]])
    assert frame.shape == (3, 4)
    assert schema_mod.resolve_categorical(frame, "auto").tolist() == [False, True, False, False]
    # None and pd.NA holes do not turn a numeric column into an object column
    assert np.isnan(frame.iloc[1, 2]) and np.isnan(frame.iloc[0, 3])
    assert frame.iloc[2, 3] == 4


@pytest.mark.parametrize("X, words", [
    ([[1, 2], [3]], "rows have different lengths"),
    ([1, 2, 3], "Expected 2D array, got 1D"),
    (np.zeros((2, 2, 2)), "Expected 2D array, got 3D"),
    (np.zeros((0, 3)), "0 sample"),
    (np.zeros((3, 0)), "0 feature"),
    (pd.DataFrame([[1, 2]], columns=["a", "a"]), "duplicate column names"),
    (pd.Series([1, 2]), "pandas Series"),
    (np.array([[1 + 2j]]), "Complex data"),
])
def test_bad_tables(X, words):
    with pytest.raises(ValueError, match=words):
        tables.as_frame(X)


def test_sparse_is_read_as_its_dense_form():
    # implicit zeros are zeros (tests/test_input_frames.py fits trees on sparse input)
    np.testing.assert_array_equal(tables.as_table(sp.csr_matrix(np.eye(2))), np.eye(2))
    with pytest.raises(TypeError, match="sparse matrix of dtype complex128 cannot be read"):
        tables.as_frame(sp.csr_matrix(np.eye(2) * 1j))


def test_feature_names_only_from_string_columns():
    assert tables.input_feature_names(pd.DataFrame({"a": [1], "b": [2]})).tolist() == ["a", "b"]
    assert tables.input_feature_names(pd.DataFrame([[1, 2]])) is None  # integer column names
    assert tables.input_feature_names(pd.DataFrame([[1, 2]], columns=["a", 0])) is None
    assert tables.input_feature_names(np.zeros((1, 2))) is None


# --------------------------------------------------------------------------- schema + encode


def test_category_order():
    frame = pd.DataFrame({
        "seen": ["乙", "甲", "乙", "丙"],  # categorical: order of first appearance
        "cat": pd.Categorical(["b", "a", "b", "a"], categories=["z", "b", "a"]),  # dtype order
        "num": [30, 10, 20, 10],  # ID3: numbers as categories, ascending
    })
    schema = schema_mod.fit_schema(frame, schema_mod.resolve_categorical(frame, "auto"),
                                   numeric_as_category=True)
    assert schema.categories == (("乙", "甲", "丙"), ("z", "b", "a"), (10.0, 20.0, 30.0))
    assert schema.kinds == (CATEGORICAL,) * 3
    assert schema.n_categories.tolist() == [3, 3, 3]
    assert schema.feature_names == ("seen", "cat", "num") and schema.names_from_input
    codes = encode.encode(frame, schema)
    assert codes.tolist() == [[0, 1, 2], [1, 2, 0], [0, 1, 1], [2, 2, 0]]


def test_continuous_columns_keep_their_values():
    frame = pd.DataFrame({"c": ["a", "b"], "x": [0.25, -3.0], "n": [7, 8]})
    schema = schema_mod.fit_schema(frame, schema_mod.resolve_categorical(frame, "auto"))
    assert schema.kinds == (CATEGORICAL, CONTINUOUS, CONTINUOUS)
    assert schema.categories == (("a", "b"), None, None)
    assert encode.encode(frame, schema).tolist() == [[0, 0.25, 7], [1, -3.0, 8]]


@pytest.mark.parametrize("hole", [None, np.nan, pd.NA])
def test_missing_cells_become_nan(hole):
    frame = pd.DataFrame({
        "obj": pd.Series(["a", hole, "b"], dtype=object),
        "str": pd.Series(["a", hole, "b"], dtype="str"),
        "float": pd.Series([1.0, None, 2.0], dtype="float64"),  # float columns hold NaN
        "Int64": pd.array([1, hole, 2], dtype="Int64"),
    })
    for numeric_as_category in (False, True):
        schema = schema_mod.fit_schema(frame, schema_mod.resolve_categorical(frame, "auto"),
                                numeric_as_category=numeric_as_category)
        codes = encode.encode(frame, schema)
        assert np.isnan(codes[1]).all()
        assert not np.isnan(codes[[0, 2]]).any()
        assert schema.n_categories.tolist()[:2] == [2, 2]  # a hole is not a category


def test_unseen_category_gets_the_unseen_code():
    train = pd.DataFrame({"c": ["a", "b"], "n": [1, 2]})
    schema = schema_mod.fit_schema(train, schema_mod.resolve_categorical(train, "auto"),
                                   numeric_as_category=True)
    codes = encode.encode(pd.DataFrame({"c": ["b", "z"], "n": [2, 5]}), schema)
    assert codes.tolist() == [[1, 1], [UNSEEN_CODE, UNSEEN_CODE]]


def test_numbers_listed_as_categorical_keep_first_appearance_order():
    # categories (0.7, 0.2, 0.5) are not sorted: the lookup must not assume they are
    train = pd.DataFrame({"f": [0.7, 0.2, 0.5, 0.2]})
    schema = schema_mod.fit_schema(train, schema_mod.resolve_categorical(train, [0]),
                                   numeric_as_category=True)
    assert schema.categories == ((0.7, 0.2, 0.5),)
    test = pd.DataFrame({"f": [0.5, 0.7, 0.2, 0.9, np.nan]})
    codes = encode.encode(test, schema)[:, 0]
    assert codes[:4].tolist() == [2, 0, 1, UNSEEN_CODE] and np.isnan(codes[4])


def continuous_schema():
    train = pd.DataFrame({"size": [1.0, 2.0], "colour": ["r", "g"]})
    return schema_mod.fit_schema(train, schema_mod.resolve_categorical(train, "auto"))


@pytest.mark.parametrize("bad", ["big", "1.5", True, {"k": 1}])
def test_non_numeric_value_in_continuous_column(bad):
    frame = pd.DataFrame({"size": pd.Series([1.0, bad], dtype=object), "colour": ["r", "g"]})
    with pytest.raises(ValueError, match=r"column 'size' is continuous but row 1"):
        encode.encode(frame, continuous_schema())


def test_string_column_where_continuous_was_fitted():
    frame = pd.DataFrame({"size": ["1.0", "2.0"], "colour": ["r", "g"]})
    with pytest.raises(ValueError, match="column 'size' is continuous"):
        encode.encode(frame, continuous_schema())


@pytest.mark.parametrize("inf", [np.inf, -np.inf])
def test_infinity_names_the_column(inf):
    frame = pd.DataFrame({"size": [1.0, inf], "colour": ["r", "g"]})
    with pytest.raises(ValueError, match=r"infinity.*column 'size', row 1"):
        encode.encode(frame, continuous_schema())
    with pytest.raises(ValueError, match=r"infinity.*column 'size'"):
        schema_mod.fit_schema(frame, np.array([False, True]), numeric_as_category=True)


def test_unhashable_cell_names_the_column():
    frame = pd.DataFrame({"a": [1, 2], "b": pd.Series(["x", ["y"]], dtype=object)})
    with pytest.raises(TypeError, match=r"column 'b', row 1: argument must be a string or a number"):
        schema_mod.fit_schema(frame, schema_mod.resolve_categorical(frame, "auto"))
    train = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    schema = schema_mod.fit_schema(train, schema_mod.resolve_categorical(train, "auto"))
    with pytest.raises(TypeError, match=r"column 'b', row 1.*'dict'"):
        encode.encode(pd.DataFrame({"a": [1, 2], "b": pd.Series(["x", {}], dtype=object)}), schema)


def test_wrong_number_of_columns():
    with pytest.raises(ValueError, match="X has 3 features, but the model is expecting 2"):
        encode.encode(pd.DataFrame(np.zeros((1, 3))), continuous_schema())


# --------------------------------------------------------------------------- target


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                   np.int64, np.uint64])
def test_integer_labels_are_counted_as_np_unique_sorts_them(dtype):
    """Integer labels of a short span are counted, not sorted: the classes, their dtype and
    every row's code are np.unique's, at the type's extremes too (where y - min overflows the
    type unless widened) and across spans too long to count."""
    rng = np.random.default_rng(3)
    info = np.iinfo(dtype)
    for case in range(40):
        base = int(rng.choice([info.min, max(info.max - 100, 0), 0]))
        span = int(rng.choice([1, 5, 100, 5000]))
        steps = rng.integers(0, span, int(rng.integers(1, 300)))
        y = np.array([min(base + int(v), info.max) for v in steps], dtype=dtype)  # exact ints
        if case % 5 == 0:
            y[0], y[-1] = info.min, info.max
        classes, codes = target.sorted_labels(y)
        expected, inverse = np.unique(y, return_inverse=True)
        assert classes.dtype == expected.dtype
        np.testing.assert_array_equal(classes, expected)
        np.testing.assert_array_equal(codes, inverse.ravel())


def test_many_classes_warn_for_numbers_and_strings_not_for_other_objects():
    """More than half of the labels distinct: scikit-learn's warning for numbers (and numpy
    strings), none for object labels that are not numbers (as before labels were counted)."""
    many = np.arange(25)
    with pytest.warns(UserWarning, match="unique classes is greater than 50%"):
        target.encode_target(many, 25)
    with pytest.warns(UserWarning, match="unique classes is greater than 50%"):
        target.encode_target(np.array([f"c{i}" for i in many]), 25)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        target.encode_target(np.array([f"c{i}" for i in many], dtype=object), 25)
        target.encode_target(np.arange(30) % 10, 30)  # a third of them distinct


@pytest.mark.parametrize("y, classes, dtype_kind", [
    (["是", "否", "是"], ["否", "是"], "U"),
    (pd.Series(["是", "否", "是"]), ["否", "是"], "O"),
    ([3, 1, 3], [1, 3], "i"),
    (np.array([3, 1, 3], dtype=np.uint8), [1, 3], "u"),
    ([True, False, True], [False, True], "b"),
    ([1.0, 2.0, 1.0], [1.0, 2.0], "f"),
    (["b", 1, "b"], [1, "b"], "O"),  # mixed: by type name (int < str), nothing converted
    ([True, 2, True], [True, 2], "O"),  # numpy alone would turn True into 1
    (pd.Series([5, 7, 5], dtype="category"), [5, 7], "i"),
])
def test_labels_come_back_unchanged(y, classes, dtype_kind):
    got, codes = target.encode_target(y, 3)
    assert got.tolist() == classes
    assert [type(c) for c in got.tolist()] == [type(c) for c in classes]
    assert got.dtype.kind == dtype_kind
    assert [got[c] for c in codes] == list(y)


@pytest.mark.parametrize("hole", [None, np.nan, pd.NA])
def test_missing_labels(hole):
    with pytest.raises(ValueError, match=r"y has 1 missing label\(s\) of 3 \(rows 1\); every row "
                                         r"needs a class label: leave those rows out first, e\.g\. "
                                         r"keep = y\.notna\(\)"):
        target.encode_target(np.array(["a", hole, "b"], dtype=object), 3)
    with pytest.raises(ValueError, match="missing label"):
        target.encode_target(["a", hole, "b"], 3)


def test_missing_regression_targets_are_counted():
    y = np.array([1.0, np.nan, 2.0, np.nan, 3.0])
    with pytest.raises(ValueError, match=r"y has 2 missing value\(s\) of 5 \(rows 1, 3\); every row "
                                         r"needs a finite target: leave those rows out first"):
        target.encode_fit_target(y, 5, regression=True)
    with pytest.raises(ValueError, match=r"y holds infinity in 1 row\(s\) \(rows \[2\]\)"):
        target.encode_fit_target(np.array([1.0, 2.0, np.inf]), 3, regression=True)


@pytest.mark.parametrize("y", [[0.5, 1.5, 2.5], np.array([0.1, 0.2, 0.1]),
                               np.array([0.1, 0.2, 0.1], dtype=object)])
def test_continuous_target(y):
    # scikit-learn's words, then the fix: which value, and the estimator that learns it
    with pytest.raises(ValueError, match="Unknown label type: continuous") as e:
        target.encode_target(y, 3)
    assert f"y holds numbers with fractions (such as {float(y[0])!r}); CARTRegressor" in str(e.value)


def test_unhashable_label():
    with pytest.raises(TypeError, match="y: row 1 holds an unhashable label of type 'dict'"):
        target.encode_target(["a", {}, "b"], 3)


def test_label_count_must_match_rows():
    with pytest.raises(ValueError, match="different numbers of rows: 4 and 3"):
        target.encode_target([1, 2, 1], 4)


def test_column_vector_y_warns_and_works():
    with pytest.warns(DataConversionWarning):
        classes, codes = target.encode_target(np.array([[1], [2], [1]]), 3)
    assert classes.tolist() == [1, 2] and codes.tolist() == [0, 1, 0]


def test_two_column_y_is_refused():
    with pytest.raises(ValueError, match="1d array"):
        target.encode_target(np.array([[1, 2], [2, 1]]), 2)


# --------------------------------------------------------------------------- sample weights


def test_sample_weight_default_and_scalar():
    assert target.check_sample_weight(None, 3).tolist() == [1, 1, 1]
    assert target.check_sample_weight(2, 3).tolist() == [2, 2, 2]
    assert target.check_sample_weight([0, 1.5, 2], 3).dtype == np.float64


@pytest.mark.parametrize("w, words", [
    ([1, 2], "expected \\(3,\\)"),
    ([[1, 1, 1]], "expected \\(3,\\)"),
    ([1, -1, 1], "Negative"),
    ([1, np.nan, 1], "NaN"),
    ([1, np.inf, 1], "infinity"),
    ([0, 0, 0], "sums to zero"),
    (["a", "b", "c"], "must hold numbers"),
])
def test_bad_sample_weight(w, words):
    with pytest.raises(ValueError, match="sample_weight") as info:
        target.check_sample_weight(w, 3)
    assert re.search(words, str(info.value))


# --------------------------------------------------------------------------- numeric matrices


def _numeric_matrices():
    rng = np.random.default_rng(3)
    floats = np.round(rng.normal(size=(40, 3)), 1)
    floats[rng.random(floats.shape) < 0.1] = np.nan
    floats[0, 1] = -0.0  # equal to 0.0 as a category, as in pandas
    floats[1, 1] = 0.0
    ints = rng.integers(-3, 4, size=(40, 3))
    return [floats, ints, ints.astype(np.uint8), floats.astype(np.float32)]


@pytest.mark.parametrize("numeric_as_category", [False, True])
@pytest.mark.parametrize("categorical", ["auto", [0, 2], [True, False, True]])
@pytest.mark.parametrize("which", range(4))
def test_numeric_matrix_is_encoded_as_its_dataframe(which, categorical, numeric_as_category):
    # the reference: the same matrix through pandas (the general path)
    X = _numeric_matrices()[which]
    if numeric_as_category and which in (0, 3):
        X = np.nan_to_num(X, nan=9.0)  # ID3 refuses missing cells later, not here: any values do
    table, frame = tables.as_table(X), tables.as_frame(X)
    assert isinstance(table, np.ndarray)
    mask = schema_mod.resolve_categorical(table, categorical)
    np.testing.assert_array_equal(mask, schema_mod.resolve_categorical(frame, categorical))
    schema = schema_mod.fit_schema(table, mask, numeric_as_category=numeric_as_category)
    reference = schema_mod.fit_schema(frame, mask, numeric_as_category=numeric_as_category)
    assert schema == reference
    assert [type(c) for cats in schema.categories if cats for c in cats] == \
        [type(c) for cats in reference.categories if cats for c in cats]
    for rows in (X, X[::-1] * 2):  # the training rows, and rows with unseen values
        np.testing.assert_array_equal(encode.encode(tables.as_table(rows), schema),
                                      encode.encode(tables.as_frame(rows), reference))


def test_numeric_matrix_for_string_categories_is_refused_not_matched_to_nothing():
    train = pd.DataFrame({"c": ["a", "b"], "n": [1.0, 2.0]})
    schema = schema_mod.fit_schema(train, schema_mod.resolve_categorical(train, "auto"))
    with pytest.raises(ValueError, match=r"column 'c' holds numbers \(1\.0\), but its categories "
                                         r"at fit were strings \('a', 'b'\)"):
        encode.encode(tables.as_table(np.array([[1.0, 3.0], [np.nan, 1.0]])), schema)
    # a column holding only missing cells has no value of another kind: every cell is missing
    codes = encode.encode(tables.as_table(np.array([[np.nan, 3.0], [np.nan, 1.0]])), schema)
    assert np.isnan(codes[:, 0]).all() and codes[:, 1].tolist() == [3.0, 1.0]


@pytest.mark.parametrize("X, words", [
    (np.zeros((0, 3)), "0 sample"), (np.zeros((3, 0)), "0 feature"),
    (np.array([[1.0, np.inf]]), "infinity"),
])
def test_bad_numeric_matrices(X, words):
    with pytest.raises(ValueError, match=words):
        table = tables.as_table(X)
        encode.encode(table, schema_mod.fit_schema(table, schema_mod.resolve_categorical(table, "auto")))


# --------------------------------------------------------------------------- vectorised encoding
#
# The encoder factorises whole columns; the reference below looks at one cell at a time, with a
# linear scan and Python's ==, as a reader would encode a column by hand.


def _is_hole(v) -> bool:
    return v is None or v is pd.NA or (isinstance(v, (float, np.floating)) and v != v)


def _python(v):
    return v.item() if isinstance(v, np.generic) else v


def reference_categories(series) -> list:
    """A pandas categorical's own categories; otherwise the values present, first appearance."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return [_python(c) for c in series.cat.categories]
    found = []
    for v in series.to_numpy(dtype=object):
        if not _is_hole(v) and not any(c == _python(v) for c in found):
            found.append(_python(v))
    return found


def reference_codes(series, categories) -> list:
    """Per cell: NaN when missing, else the index of the first category equal to it, else
    UNSEEN_CODE."""
    codes = []
    for v in series.to_numpy(dtype=object):
        if _is_hole(v):
            codes.append(np.nan)
            continue
        v = _python(v)
        codes.append(next((float(i) for i, c in enumerate(categories) if c == v), UNSEEN_CODE))
    return codes


def _draw(rng, pool, holes, n):
    cells = np.empty(n, dtype=object)
    cells[:] = [pool[i] for i in rng.integers(0, len(pool), n)]
    where = rng.random(n) < 0.15
    cells[where] = [holes[i] for i in rng.integers(0, len(holes), int(where.sum()))]
    return cells


def _column_pair(kind, rng, n=300):
    """(training column, prediction column) of one dtype; the prediction column holds values
    absent from training and misses some training values."""
    if kind == "category, another order at predict":
        train = pd.Categorical(rng.choice(["b", "a", "c"], n), categories=["b", "a", "c", "d"])
        test = pd.Categorical(rng.choice(["d", "e", "a"], n), categories=["d", "e", "a"])
        train[rng.random(n) < 0.1] = np.nan
        test[rng.random(n) < 0.1] = np.nan
        return pd.Series(train), pd.Series(test)
    if kind == "category of numbers":
        train = pd.Series(pd.Categorical(rng.choice([3, 1, 2], n), categories=[3, 1, 2, 7]))
        return train, pd.Series(pd.Categorical(rng.choice([2, 9], n)))
    if kind == "object, numbers and strings":
        # 1 and 1.0 are one number, 1 and "1" two values (True with 1 is refused: see
        # test_predict_checks.py)
        pool = [1, 2.5, "a", 1.0, -0.0, 0, "b", np.int64(3), np.float64(2.5), "1"]
        holes = [None, np.nan, pd.NA]
        return (pd.Series(_draw(rng, pool, holes, n), dtype=object),
                pd.Series(_draw(rng, pool[3:] + ["z", 4.5], holes, n), dtype=object))
    if kind in ("string", "str"):
        words = ["甲", "乙", "丙", "x", ""]
        holes = [None, pd.NA] if kind == "string" else [None, np.nan]
        return (pd.Series(_draw(rng, words[:4], holes, n), dtype=kind),
                pd.Series(_draw(rng, words[1:], holes, n), dtype=kind))
    if kind == "Int64":
        return (pd.Series(pd.array(_draw(rng, [5, -1, 0, 7], [None, pd.NA], n), dtype="Int64")),
                pd.Series(pd.array(_draw(rng, [0, 7, 99], [pd.NA], n), dtype="Int64")))
    if kind == "Float64":
        return (pd.Series(pd.array(_draw(rng, [0.5, -0.0, 0.0, 2.0], [None], n), dtype="Float64")),
                pd.Series(pd.array(_draw(rng, [0.0, 2.0, 3.5], [pd.NA], n), dtype="Float64")))
    if kind == "boolean":
        return (pd.Series(pd.array(_draw(rng, [False], [None, pd.NA], n), dtype="boolean")),
                pd.Series(pd.array(_draw(rng, [True, False], [pd.NA], n), dtype="boolean")))
    if kind == "bool":  # True is seen only at prediction time
        return pd.Series(np.zeros(n, dtype=bool)), pd.Series(rng.random(n) < 0.5)
    if kind == "int64":
        return pd.Series(rng.integers(-2, 3, n)), pd.Series(rng.integers(0, 6, n))
    raise AssertionError(kind)


KINDS = ["category, another order at predict", "category of numbers",
         "object, numbers and strings", "string", "str", "Int64", "Float64", "boolean", "bool",
         "int64"]


@pytest.mark.parametrize("kind", KINDS)
def test_vectorised_encoding_matches_the_per_cell_reference(kind):
    rng = np.random.default_rng(KINDS.index(kind))
    train, test = _column_pair(kind, rng)
    frame = pd.DataFrame({"c": train, "x": rng.normal(size=len(train))})
    mask = np.array([True, False])  # listed: nullable numbers become categorical too
    schema, Xe = encode.fit_encode(frame, mask)

    categories = reference_categories(train)
    assert schema.categories[0] == tuple(categories)
    assert [type(c) for c in schema.categories[0]] == [type(c) for c in categories]
    assert schema == schema_mod.fit_schema(frame, mask)
    np.testing.assert_array_equal(Xe[:, 0], reference_codes(train, categories))
    np.testing.assert_array_equal(Xe[:, 1], frame["x"].to_numpy())
    np.testing.assert_array_equal(encode.encode(frame, schema), Xe)

    new = pd.DataFrame({"c": test, "x": np.zeros(len(test))})
    expected = reference_codes(test, categories)
    assert UNSEEN_CODE in expected  # the case is exercised
    np.testing.assert_array_equal(encode.encode(new, schema)[:, 0], expected)


def test_categorical_fit_codes_follow_the_dtype_order_not_appearance():
    train = pd.DataFrame({"c": pd.Categorical(["y", "x", "y"], categories=["x", "y", "w"])})
    schema, Xe = encode.fit_encode(train, np.array([True]))
    assert schema.categories == (("x", "y", "w"),) and Xe[:, 0].tolist() == [1, 0, 1]
    test = pd.DataFrame({"c": pd.Categorical(["w", "y", None, "v"], categories=["v", "w", "y"])})
    codes = encode.encode(test, schema)[:, 0]
    assert codes[[0, 1, 3]].tolist() == [2, 1, UNSEEN_CODE] and np.isnan(codes[2])


def test_numeric_array_listed_as_categorical_matches_the_reference():
    rng = np.random.default_rng(11)
    train = rng.integers(-3, 4, size=(500, 2))
    schema, Xe = encode.fit_encode(train, np.array([True, False]))
    column = pd.Series(train[:, 0])
    categories = reference_categories(column)
    assert schema.categories[0] == tuple(categories)
    np.testing.assert_array_equal(Xe[:, 0], reference_codes(column, categories))
    test = rng.integers(-5, 6, size=(500, 2)).astype(np.float64)
    test[:3, 0] = [np.nan, np.inf, 2.0]  # missing; not a category; equal to the int 2
    expected = reference_codes(pd.Series(test[:, 0]), categories)
    np.testing.assert_array_equal(encode.encode(test, schema)[:, 0], expected)
    assert np.isnan(expected[0]) and expected[1] == UNSEEN_CODE


def test_object_numbers_in_a_continuous_column_convert_as_each_cell_would():
    cells = [1, 2.5, None, pd.NA, np.nan, np.float32(0.25), np.int64(-4), 10 ** 20, True]
    for with_bool in (False, True):
        series = pd.Series(cells[:len(cells) - (not with_bool)], dtype=object)
        if with_bool:  # a bool is not a number here: the row is named
            with pytest.raises(ValueError, match="column 'v' is continuous but row 8"):
                values.continuous_values(series, "v")
            continue
        expected = [np.nan if _is_hole(v) else float(v) for v in series]
        np.testing.assert_array_equal(values.continuous_values(series, "v"), expected)


def test_rare_numbers_in_an_object_column_are_converted_one_by_one():
    series = pd.Series([Fraction(1, 4), 2, None], dtype=object)
    np.testing.assert_array_equal(values.continuous_values(series, "v"), [0.25, 2.0, np.nan])


def test_row_major_assembly_of_many_columns_and_blocks():
    rng = np.random.default_rng(5)
    n = encode.BLOCK * 2 + 7
    columns = [rng.normal(size=n) for _ in range(2 * encode.GROUP + 3)]
    got = encode.row_major((n, len(columns)), iter(columns))
    assert got.flags.c_contiguous
    np.testing.assert_array_equal(got, np.column_stack(columns))


def test_wide_table_encodes_column_by_column():
    rng = np.random.default_rng(9)
    n = encode.BLOCK + 3
    frame = pd.DataFrame({f"k{j}": rng.choice(["a", "b", None], n) for j in range(9)}
                         | {f"f{j}": rng.normal(size=n) for j in range(9)})
    schema, Xe = encode.fit_encode(frame, schema_mod.resolve_categorical(frame, "auto"))
    for j, name in enumerate(frame.columns):
        np.testing.assert_array_equal(
            Xe[:, j], encode.encode_column(frame[name], name, schema.categories[j]))


def test_a_read_only_block_is_handed_to_the_kernels_writable_without_a_copy():
    """pandas hands out its blocks read-only; the kernels get a writable view of the same
    memory (no "readonly" specialisation to compile), and the frame stays read-only. Memory
    that is read-only underneath is copied."""
    from rootwise.input.encode import writable

    frame = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    block = frame.to_numpy()
    view = writable(block)
    assert view.flags.writeable and np.shares_memory(view, block)
    np.testing.assert_array_equal(view, block)
    sealed = np.frombuffer(np.arange(4.0).tobytes()).reshape(2, 2)
    copy = writable(sealed)
    assert copy.flags.writeable and not np.shares_memory(copy, sealed)
    np.testing.assert_array_equal(copy, sealed)
    plain = np.ones((2, 2))
    assert writable(plain) is plain
