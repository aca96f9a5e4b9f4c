"""Predict refuses what it would get wrong: columns reordered or renamed under any kind of
labels, values of another kind than the fitted categories (strings for numbers, integer codes for
strings), and lookups that a narrower float type would change. Labels and categories that are
different values stay apart or are refused, and the text output tells them apart."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from rootwise import (
    C45Classifier,
    CARTClassifier,
    CARTRegressor,
    ID3Classifier,
    export_rules,
    export_text,
)
from rootwise.cli import main
from rootwise.input.values import plain

CLASSIFIERS = [ID3Classifier, C45Classifier, CARTClassifier]


def numbers_table(n=300, seed=0):
    """Three columns on a coarse grid (ID3 takes each value as a category), the class depending
    on the first two: reading them in another order changes predictions."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 4, size=(n, 3)).astype(float))
    y = ((X[0] > 1) ^ (X[1] > 2)).astype(int)
    return X, y


# --------------------------------------------------------------------------- column labels

LABELS = [[0, 1, 2], [10, 20, 30], ["a", 1, 2.5], list(np.array([0, 1, 2])), [0.5, 1.5, 2.5]]


@pytest.mark.parametrize("cls", CLASSIFIERS + [CARTRegressor], ids=lambda c: c.__name__)
@pytest.mark.parametrize("labels", LABELS, ids=repr)
def test_reordered_columns_are_refused_under_any_labels(cls, labels):
    X, y = numbers_table()
    X.columns = labels
    m = cls(random_state=0).fit(X, y)
    reordered = X[labels[::-1]]
    # the case matters: read by position, the reordered table predicts otherwise
    assert not np.array_equal(m.predict(reordered.to_numpy()), m.predict(X))
    with pytest.raises(ValueError, match=r"(?s)The columns of X should be those passed during "
                                         r"fit, in the same order.*They are in another order: at "
                                         r"fit \[.*\], now \[.*\]"):
        m.predict(reordered)
    # the same labels in the same order pass, with no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(m.predict(X.copy()), m.predict(X))


@pytest.mark.parametrize("labels", LABELS, ids=repr)
def test_renamed_columns_are_refused_not_warned_about(labels):
    X, y = numbers_table()
    X.columns = labels
    m = C45Classifier().fit(X, y)
    renamed = X.set_axis(["p", "q", "r"], axis=1)
    with pytest.raises(ValueError, match=r"(?s)Columns unseen at fit time:\n- 'p'\n- 'q'\n- 'r'\n"
                                         r"Columns seen at fit time, yet now missing:\n- "
                                         + re.escape(repr(plain(labels[0])))):
        m.predict(renamed)
    # numeric labels of another kind are other columns too: 1 is not "1"
    other = X.set_axis([str(c) for c in labels], axis=1)
    if [str(c) for c in labels] != labels:
        with pytest.raises(ValueError, match="Columns unseen at fit time"):
            m.predict(other)


def test_string_names_keep_scikit_learns_messages():
    X, y = numbers_table()
    X.columns = ["a", "b", "c"]
    m = CARTClassifier(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="Feature names must be in the same order as they were "
                                         "in fit"):
        m.predict(X[["c", "b", "a"]])
    with pytest.raises(ValueError, match="Feature names unseen at fit time"):
        m.predict(X.set_axis(["a", "b", "z"], axis=1))
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        m.predict(X.to_numpy())
    # string names renamed to numbers: refused (scikit-learn would only warn)
    with pytest.raises(ValueError, match=r"Columns unseen at fit time:\n- 0\n- 1\n- 2"):
        m.predict(X.set_axis([0, 1, 2], axis=1))


def test_a_model_fitted_on_an_array_refuses_its_positions_reordered():
    X, y = numbers_table()
    m = ID3Classifier().fit(X.to_numpy(), y)
    frame = pd.DataFrame(X.to_numpy())
    np.testing.assert_array_equal(m.predict(frame), m.predict(X.to_numpy()))  # 0, 1, 2 in order
    with pytest.raises(ValueError, match=r"X's columns are labelled \[2, 0, 1\], but ID3Classifier "
                                         r"was fitted on a table without column labels, whose "
                                         r"columns are the positions 0\.\.2 in order"):
        m.predict(frame[[2, 0, 1]])
    with pytest.warns(UserWarning, match="fitted without feature names"):  # scikit-learn's
        m.predict(frame.set_axis(["a", "b", "c"], axis=1))


def test_a_refit_on_an_array_forgets_the_labels():
    X, y = numbers_table()
    m = C45Classifier().fit(X.set_axis([10, 20, 30], axis=1), y)
    m.fit(X.to_numpy(), y)
    # the model now knows positions only: any labels in order 0.. are its columns
    np.testing.assert_array_equal(m.predict(X.set_axis([10, 20, 30], axis=1)),
                                  m.predict(X.to_numpy()))


def test_validation_columns_must_be_xs():
    X, y = numbers_table()
    X.columns = [10, 20, 30]
    with pytest.raises(ValueError, match=r"The columns of X_val should be those passed during fit"):
        ID3Classifier(pruning="reduced-error").fit(X, y, X_val=X[[30, 20, 10]], y_val=y)


# --------------------------------------------------------------------------- dtypes at predict


def id3_float_table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.choice([0.1, 0.2, 0.3, 0.7], n), "b": rng.choice([1.1, 2.3, 3.7], n)})
    y = ((X.a > 0.15) ^ (X.b > 2)).astype(int)
    return X, y


def test_float32_columns_find_the_float64_categories():
    X, y = id3_float_table()
    m = ID3Classifier().fit(X, y)
    expected = m.predict(X)
    assert (expected == y).all()
    narrow = X.astype("float32")
    assert not np.isin(narrow.to_numpy(dtype=np.float64), X.to_numpy()).any()  # 0.1f is not 0.1
    np.testing.assert_array_equal(m.predict(narrow), expected)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):  # scikit-learn's
        np.testing.assert_array_equal(m.predict(narrow.to_numpy()), expected)  # a float32 matrix
    np.testing.assert_array_equal(m.predict_proba(narrow), m.predict_proba(X))
    np.testing.assert_array_equal(m.predict(X.astype("Float32")), expected)  # nullable floats


def test_float32_cannot_tell_two_categories_apart():
    X = pd.DataFrame({"a": [0.1, 0.1 + 1e-12, 0.5, 0.1, 0.1 + 1e-12, 0.5]})
    m = ID3Classifier().fit(X, [0, 1, 0, 0, 1, 0])
    with pytest.raises(ValueError, match=r"column 'a' is float32, but its categories 0\.1 and "
                                         r"0\.1000000000010*1 \(learnt as float64\) are one "
                                         r"float32 value: give the column as float64"):
        m.predict(X.astype("float32"))


def test_strings_for_number_categories_are_refused():
    X, y = id3_float_table()
    m = ID3Classifier().fit(X, y)
    with pytest.raises(ValueError, match=r"column 'a' holds strings \('0\.\d', '0\.\d', '0\.\d', "
                                         r"\.\.\.\), but its categories "
                                         r"at fit were numbers \(0\.1, 0\.2, 0\.3, \.\.\.\): "
                                         r"they would match no category"):
        m.predict(X.astype(str))
    with pytest.raises(ValueError, match=r"column 'a' holds booleans \(True, False\)"):
        m.predict(X.assign(a=[True, False] * (len(X) // 2)))


def categorical_table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"c": pd.Categorical(rng.choice(["x", "y", "z"], n)),
                      "d": rng.normal(size=n)})
    return X, (X.c == "x").astype(int)


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda c: c.__name__)
def test_integer_codes_for_categories_are_refused_unless_declared(cls):
    X, y = categorical_table()
    m = cls(random_state=0).fit(X, y)
    codes = X.assign(c=X.c.cat.codes)
    with pytest.raises(ValueError, match=r"column 'c' holds numbers \(\d, \d, \d\), but its "
                                         r"categories at fit were strings \('x', 'y', 'z'\): they "
                                         r"would match no category\. Category codes are not "
                                         r"category values; to give codes, declare them: "
                                         r"pd\.Categorical\.from_codes\(codes, categories=model\."
                                         r"schema_\.categories_of\('c'\)\)\."):
        m.predict(codes)
    declared = X.assign(c=pd.Categorical.from_codes(X.c.cat.codes,
                                                    categories=m.schema_.categories_of("c")))
    np.testing.assert_array_equal(m.predict(declared), m.predict(X))
    assert (m.predict(X) == y).all()


def test_categories_of_names_the_column_or_refuses():
    X, y = categorical_table()
    m = C45Classifier().fit(X, y)
    assert m.schema_.categories_of("c") == m.schema_.categories_of(0) == ("x", "y", "z")
    with pytest.raises(ValueError, match=r"column 'd' is continuous: it has no categories"):
        m.schema_.categories_of("d")
    with pytest.raises(ValueError, match=r"no column 'e'; the columns are \['c', 'd'\]"):
        m.schema_.categories_of("e")


def test_cli_refuses_codes_for_a_categorical_column(tmp_path, capsys):
    rows = ["colour,size,y"] + [f"{c},{s},{y}" for c, s, y in
                                [("red", 1, "a"), ("blue", 2, "b"), ("red", 3, "a"),
                                 ("green", 1, "b"), ("blue", 2, "b"), ("red", 2, "a")] * 4]
    train = tmp_path / "train.csv"
    train.write_text("\n".join(rows) + "\n")
    codes = tmp_path / "codes.csv"
    codes.write_text("colour,size\n0,1\n1,2\n2,3\n")
    model = tmp_path / "m.json"
    assert main(["fit", str(train), "--target", "y", "--algorithm", "c4.5", "--out", str(model),
                 "--quiet"]) == 0
    capsys.readouterr()
    assert main(["predict", str(model), str(codes)]) == 2
    err = capsys.readouterr().err
    assert "column 'colour' holds numbers (0, 1, 2), but its categories at fit were strings" in err
    assert len(err.strip().splitlines()) == 1


def test_ints_for_bool_categories_are_refused():
    X = pd.DataFrame({"b": [True, False, True, False]})
    m = ID3Classifier().fit(X, [1, 0, 1, 0])
    with pytest.raises(ValueError, match=r"column 'b' holds numbers \(1, 0\), but its categories "
                                         r"at fit were booleans"):
        m.predict(pd.DataFrame({"b": [1, 0]}))


# --------------------------------------------------------------------------- values never merge


@pytest.mark.parametrize("labels", [[1, 1.0, True, 0] * 3, [0, True, 2, 1] * 3,
                                    [False, 0, 1, 2] * 3])
def test_labels_true_and_one_are_refused(labels):
    X = np.arange(len(labels), dtype=float).reshape(-1, 1)
    flag = next(v for v in labels if isinstance(v, bool))
    with pytest.raises(ValueError, match=rf"y holds both {flag} and {int(flag)}, which Python, "
                                         rf"numpy and pandas take for one value"):
        ID3Classifier().fit(X, labels)
    with pytest.raises(ValueError, match="y holds both"):
        ID3Classifier().fit(X, pd.Series(labels, dtype=object))


def test_labels_of_different_values_stay_different():
    # True and 0 are not equal: two classes; 1 and "1" are two classes; 1 and 1.0 are one number
    X = np.arange(8, dtype=float).reshape(-1, 1)
    for labels, classes in [([True, 0] * 4, {True, 0}), ([1, "1"] * 4, {1, "1"}),
                            ([1, 1.0, 2, 2] * 2, {1, 2})]:
        m = ID3Classifier().fit(X, labels)
        assert set(m.classes_.tolist()) == classes and len(m.classes_) == len(classes)
        assert m.predict(X).tolist() == [m.classes_[list(m.classes_).index(v)] for v in labels]
    m = ID3Classifier().fit(X, [1, "1"] * 4)
    assert [type(v) for v in m.predict(X[:2]).tolist()] == [int, str]


def test_categories_true_and_one_are_refused_at_fit_and_predict():
    X = pd.DataFrame({"c": pd.Series([1, True, "1", "True", 0], dtype=object)})
    with pytest.raises(ValueError, match=r"column 'c' holds both True and 1"):
        ID3Classifier().fit(X, [0, 1, 0, 1, 0])
    ok = pd.DataFrame({"c": pd.Series([1, "1", 1.0, "True", 0], dtype=object)})
    m = ID3Classifier().fit(ok, ["a", "b", "a", "c", "d"])
    # 1 and 1.0 are one category; "1" and "True" are their own
    assert m.schema_.categories == ((1, "1", "True", 0),)
    assert m.predict(ok).tolist() == ["a", "b", "a", "c", "d"]
    with pytest.raises(ValueError, match=r"column 'c' holds both True and 1"):
        m.predict(pd.DataFrame({"c": pd.Series([1, True], dtype=object)}))


# --------------------------------------------------------------------------- text output


def test_text_tells_numbers_from_strings_and_shows_empty_and_nan():
    X = pd.DataFrame({"c": pd.Series([1, "1", "", "nan", "a"] * 4, dtype=object)})
    y = np.array(["1", "x", "", "nan", "True"] * 4, dtype=object)
    m = ID3Classifier().fit(X, y)
    assert export_text(m) == ("├── c = 1 → '1' (4)\n"
                              "├── c = '1' → x (4)\n"
                              "├── c = '' → '' (4)\n"
                              "├── c = 'nan' → 'nan' (4)\n"
                              "└── c = 'a' → 'True' (4)\n")
    rules = export_rules(m)
    assert "if c = 1 then '1'  [" in rules and "if c = '1' then x  [" in rules
    assert "if c = '' then ''  [" in rules and "if c = 'nan' then 'nan'  [" in rules


def test_text_quotes_strings_only_where_they_could_be_misread():
    X = pd.DataFrame({"c": ["red", "1.5", "green", "red, blue", " pad"] * 3,
                      "n": pd.Series([1, 2, 3, 4, 5] * 3, dtype=object)})
    y = ["p", "q", "p", "q", "r"] * 3
    m = CARTClassifier(pruning=None, categorical_features=["n"]).fit(X, y)
    text = export_text(m)
    # plain words stay plain; a number-like string, a comma and edge blanks are quoted
    assert "red" in text and "'red'" not in text
    for shown in ("'1.5'", "'red, blue'", "' pad'"):
        assert shown in text, text
    # numbers are never quoted
    assert "'1'" not in text and "'2'" not in text


def test_text_of_number_categories_and_classes_is_unchanged():
    X = pd.DataFrame({"a": [1.5, 2.5, 1.5, 2.5]})
    m = ID3Classifier().fit(X, [0, 1, 0, 1])
    assert export_text(m) == "├── a = 1.5 → 0 (2)\n└── a = 2.5 → 1 (2)\n"
