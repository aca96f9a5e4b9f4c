"""Class ties at a leaf go to the first class in the declared order: the ``class_order``
parameter, else a pandas categorical y's categories, else ``classes_`` (sorted). J48 breaks ties by
the ARFF's declared class order, so with the golden files' categorical y every prediction is J48's,
ties included (``tests/golden/j48``: J48 3.6.14's own predictions)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from j48_golden import golden, load

import rootwise
from rootwise import C45Classifier, CARTClassifier, ID3Classifier


def _tied(proba: np.ndarray) -> np.ndarray:
    top = np.sort(proba, axis=1)
    return top[:, -1] - top[:, -2] <= 1e-9


def test_every_credit_g_prediction_is_j48s():
    """credit-g declares its classes good, bad; sorted they are bad, good. Six training rows end
    in leaves with as many good as bad: J48 predicts good, the declared first."""
    g = golden("credit-g")
    X, y = load("credit-g")
    model = C45Classifier(release8=True).fit(X, y)
    assert list(model.classes_) == ["bad", "good"] and list(model.class_order_) == ["good", "bad"]
    ties = _tied(model.predict_proba(X))
    assert ties.sum() == 6  # the setting of this test
    expected = np.asarray(g["pruned_tree"]["predictions"], dtype=object)
    np.testing.assert_array_equal(model.predict(X), expected)
    # without the declared order (plain strings) the ties go to the sorted first class, "bad"
    plain = C45Classifier(release8=True).fit(X, y.astype(str))
    assert list(plain.predict(X)[ties]) == ["bad"] * 6 and list(expected[ties]) == ["good"] * 6


def test_every_credit_g_cross_validation_prediction_is_j48s():
    g = golden("credit-g")
    X, y = load("credit-g")
    folds = np.asarray(g["cv"]["folds"])
    ours = np.empty(len(y), dtype=object)
    ties = 0
    for k in range(g["cv"]["n_folds"]):
        train, test = np.flatnonzero(folds != k), np.flatnonzero(folds == k)
        model = C45Classifier(release8=True).fit(X.iloc[train], y.iloc[train])
        ours[test] = model.predict(X.iloc[test])
        ties += int(_tied(model.predict_proba(X.iloc[test])).sum())
    assert ties > 0
    np.testing.assert_array_equal(ours, np.asarray(g["cv"]["predictions"], dtype=object))


# a leaf holding one 'yes' and one 'no' (x = 1), and pure leaves either side
X_TIE = np.array([[0.0], [0.0], [1.0], [1.0], [2.0], [2.0]])
Y_TIE = np.array(["yes", "yes", "no", "yes", "no", "no"])


@pytest.mark.parametrize("make", [
    lambda **kw: CARTClassifier(pruning=None, **kw),
    lambda **kw: ID3Classifier(**kw),
    lambda **kw: C45Classifier(pruning=None, min_samples_leaf=1, **kw),
])
def test_class_order_decides_a_tie(make):
    assert list(make().fit(X_TIE, Y_TIE).predict([[1.0]])) == ["no"]  # sorted: no < yes
    model = make(class_order=["yes", "no"]).fit(X_TIE, Y_TIE)
    assert list(model.predict([[1.0]])) == ["yes"]
    assert list(model.classes_) == ["no", "yes"]  # classes_ stays sorted (scikit-learn's rule)
    np.testing.assert_array_equal(model.predict_proba([[1.0]]), [[0.5, 0.5]])
    assert list(model.predict([[0.0], [2.0]])) == ["yes", "no"]  # no tie: unchanged


def test_a_categorical_y_declares_the_order():
    y = pd.Series(pd.Categorical(Y_TIE, categories=["yes", "no", "maybe"]))
    model = CARTClassifier(pruning=None).fit(X_TIE, y)
    assert list(model.class_order_) == ["yes", "no"]  # 'maybe' has no row: not a class
    assert list(model.predict([[1.0]])) == ["yes"]
    # the parameter wins over the categories
    assert list(CARTClassifier(pruning=None, class_order=["no", "yes"]).fit(X_TIE, y)
                .predict([[1.0]])) == ["no"]


def test_the_tie_order_survives_a_model_file(tmp_path):
    model = CARTClassifier(pruning=None, class_order=["yes", "no"]).fit(X_TIE, Y_TIE)
    rootwise.save(model, tmp_path / "m.json")
    again = rootwise.load(tmp_path / "m.json")
    assert list(again.class_order_) == ["yes", "no"]
    assert list(again.predict([[1.0]])) == ["yes"]
    y = pd.Series(pd.Categorical(Y_TIE, categories=["yes", "no"]))
    implicit = CARTClassifier(pruning=None).fit(X_TIE, y)
    rootwise.save(implicit, tmp_path / "c.json")
    assert list(rootwise.load(tmp_path / "c.json").predict([[1.0]])) == ["yes"]


def test_every_export_names_the_class_predict_names():
    """The leaf x0 = 1 holds one "no" and one "yes": with class_order yes, no every view of the
    model names "yes" there, as predict does; with the sorted order, "no"."""
    import sqlite3

    for order, winner in ((["yes", "no"], "yes"), (None, "no")):
        model = CARTClassifier(pruning=None, class_order=order).fit(X_TIE, Y_TIE)
        assert list(model.predict([[1.0]])) == [winner]
        assert f"x0 <= 1.5 → {winner} (2/1)" in rootwise.export_text(model)
        rules = rootwise.export_rules(model, as_frame=True)
        tied = rules[rules["confidence"] == 0.5]
        assert list(tied["prediction"]) == [winner]
        with sqlite3.connect(":memory:") as db:
            db.execute('CREATE TABLE t ("x0" REAL)')
            db.executemany("INSERT INTO t VALUES (?)", [(0.0,), (1.0,), (2.0,)])
            got = [r[-1] for r in db.execute(rootwise.export_sql(model, table="t"))]
        assert got == list(model.predict([[0.0], [1.0], [2.0]]))


def test_a_c45_probability_tie_in_sql_goes_by_class_order():
    """C4.5's SQL picks the largest probability column; on a tie, the class first in the order."""
    import sqlite3

    X = pd.DataFrame({"a": pd.Categorical(["p", "p", "q", "q", "r"])})
    y = ["yes", "no", "no", "no", "yes"]
    for order in (["yes", "no"], ["no", "yes"]):
        model = C45Classifier(pruning=None, class_order=order).fit(X, y)
        rows = pd.DataFrame({"a": pd.Categorical(["p", "q", "r", None], categories=["p", "q", "r"])})
        expected = list(model.predict(rows))
        with sqlite3.connect(":memory:") as db:
            db.execute('CREATE TABLE t ("a" TEXT)')
            db.executemany("INSERT INTO t VALUES (?)", [("p",), ("q",), ("r",), (None,)])
            got = [r[-1] for r in db.execute(rootwise.export_sql(model, table="t"))]
        assert got == expected
        assert expected[0] == order[0]  # the leaf "p" is a tie: one yes, one no


def test_cross_validation_scores_what_predict_predicts():
    """The CV error counts a tied leaf as its first class in class_order. Every value of x holds
    'a', 'b', 'a' (no split helps). Fold 0 holds out the third row of each value and its root
    holds a tie, 10 'a' against 10 'b'; fold 1 holds out the other two and trains on 'a' alone.
    In the root alone fold 0 then misclassifies none of its 10 held-out 'a' rows if 'a' comes
    first, all if 'b' does; fold 1 misclassifies its 10 'b' rows either way: 10 / 30 or 20 / 30."""
    X = np.repeat(np.arange(10.0), 3).reshape(-1, 1)
    y = np.tile(["a", "b", "a"], 10)
    third = np.arange(30) % 3 == 2
    folds = [(np.flatnonzero(~third), np.flatnonzero(third)),
             (np.flatnonzero(third), np.flatnonzero(~third))]
    first_a = CARTClassifier(cv=folds, class_order=["a", "b"]).fit(X, y).cp_table_
    first_b = CARTClassifier(cv=folds, class_order=["b", "a"]).fit(X, y).cp_table_
    # the last row, the root alone (grown trees may split without gain: alpha 0 rows first)
    assert first_a.cv_error[-1] == 10 / 30 and first_b.cv_error[-1] == 20 / 30


@pytest.mark.parametrize("order, message", [
    ("yes", r"The 'class_order' parameter of CARTClassifier must be an array-like or None\. "
            r"Got 'yes' instead\."),
    (["yes"], r"class_order must list every class of y; it leaves out \['no'\]"),
    (["yes", "no", "yes"], "class_order lists the label 'yes' twice"),
    ([["yes"], "no"], r"class_order holds \['yes'\], which is not a class label"),
])
def test_a_bad_class_order_is_named(order, message):
    with pytest.raises(ValueError, match=message):
        CARTClassifier(class_order=order).fit(X_TIE, Y_TIE)


def test_labels_that_are_not_classes_are_allowed():
    """A declared label no row has (J48 declares classes the data may lack) is skipped."""
    model = ID3Classifier(class_order=["maybe", "yes", "no"]).fit(X_TIE, Y_TIE)
    assert list(model.class_order_) == ["yes", "no"]
