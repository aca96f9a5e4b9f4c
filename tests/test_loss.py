"""CARTClassifier(loss=...): the checks of the matrix, the class of least expected loss, the altered
priors of the splits, the loss in the pruning, and the model file, SQL and CLI that carry it.
(rpart's trees and cp tables with a loss matrix: ``tests/test_rpart_loss.py``.)"""

from __future__ import annotations

import sqlite3

import numpy as np
import pandas as pd
import pytest

import rootwise
from rootwise import CARTClassifier
from rootwise.cli import main
from rootwise.export.sql import export_sql

# two classes on one column: "a" is the majority everywhere left of 4, but missing a "b" costs 5
X = pd.DataFrame({"x": [1.0, 1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 6]})
Y = np.array(["a", "a", "a", "a", "a", "a", "b", "a", "b", "b", "b", "b"])
L5 = [[0, 1], [5, 0]]


# no stopping rule, whether it counts rows or weight (the altered priors weigh a row 0.375 or 1.875)
FREE = dict(min_samples_split=1e-9, min_samples_leaf=1e-9, max_surrogates=0)


def plain(**kw):
    return CARTClassifier(pruning=None, **FREE, **kw)


def test_node_class_is_the_least_expected_loss_and_proba_stays_the_frequencies():
    model = plain(loss=L5, max_depth=2).fit(X, Y)
    proba = model.predict_proba(X)
    counts = model.tree_.value
    # hand: the root holds 7 a and 5 b; predicting a costs 5 x 5 = 25, b costs 7 x 1 = 7
    np.testing.assert_array_equal(counts[0], [7, 5])
    assert model.classes_[np.argmin(counts[0] @ np.array(L5))] == "b"
    for leaf in np.flatnonzero(model.tree_.kind == 0):
        rows = model.apply(X) == leaf
        a, b = np.sum(Y[rows] == "a"), np.sum(Y[rows] == "b")
        np.testing.assert_allclose(proba[rows], np.tile([a / (a + b), b / (a + b)], (rows.sum(), 1)))
        # predicting a costs 5 b, predicting b costs a; a tie goes to the first class
        assert set(model.predict(X[rows])) == {"a" if 5 * b <= a else "b"}
    # the table has a leaf where the loss overrules the majority
    assert any(a > b and 5 * b > a for a, b in counts[model.tree_.kind == 0])
    assert model.loss_matrix_.tolist() == L5


def test_dict_of_dicts_is_the_same_matrix_with_unlisted_costs_one():
    by_matrix = plain(loss=L5).fit(X, Y)
    by_dict = plain(loss={"b": {"a": 5}}).fit(X, Y)
    np.testing.assert_array_equal(by_dict.loss_matrix_, L5)
    np.testing.assert_array_equal(by_dict.predict(X), by_matrix.predict(X))


def test_splits_are_grown_under_the_altered_priors():
    """pi'_i ~ pi_i sum_j L[i, j]: the tree is the one grown with class weights proportional to
    the row sums (here 1 for a, 5 for b, scaled so that the weights sum to the 12 rows); its
    class counts are the rows' own."""
    a, b = 7, 5
    scale = 12 / (a * 1 + b * 5)
    weighted = plain(class_weight={"a": 1 * scale, "b": 5 * scale}).fit(X, Y)
    lossy = plain(loss=L5).fit(X, Y)
    for field in ("feature", "threshold", "first_child", "kind"):
        np.testing.assert_array_equal(getattr(lossy.tree_, field), getattr(weighted.tree_, field))
    np.testing.assert_allclose(lossy.tree_.improvement, weighted.tree_.improvement, rtol=1e-12)
    np.testing.assert_allclose(lossy.tree_.value * [scale, 5 * scale], weighted.tree_.value,
                               rtol=1e-12)
    # and not the tree of the plain 0/1 loss
    assert lossy.tree_.threshold[0] != plain().fit(X, Y).tree_.threshold[0]


def test_pruning_and_cp_table_are_in_loss_units():
    model = CARTClassifier(loss=L5, cv=3, cv_repeats=1, **FREE).fit(X, Y)
    table = model.cp_table_
    # R(root) = least expected loss / W: min(25, 7) / 12
    assert table.train_cost[-1] == pytest.approx(7 / 12)
    # every subtree's training cost is its leaves' least expected losses
    full = plain(loss=L5).fit(X, Y)
    leaves = full.tree_.value[full.tree_.kind == 0]
    assert table.train_cost[0] == pytest.approx((leaves @ np.array(L5)).min(axis=1).sum() / 12)
    # scikit-learn's path of the same tree, in the same units
    path = CARTClassifier(loss=L5, **FREE).cost_complexity_pruning_path(X, Y)
    assert path.impurities[0] == pytest.approx(table.train_cost[0])
    assert path.impurities[-1] == pytest.approx(7 / 12)
    # ccp_alpha above R(root) - R(T) prunes to the root, which predicts b at loss 7
    root = CARTClassifier(loss=L5, ccp_alpha=1.0, **FREE).fit(X, Y)
    assert root.get_n_leaves() == 1 and set(root.predict(X)) == {"b"}


def test_cross_validation_charges_each_held_out_row_its_loss():
    """The last cp_table_ row is the root alone: each fold's root predicts the class of least
    expected loss on the fold's training rows, and a held-out row of class i predicted j costs
    L[i, j] (brute force below; not the 0/1 error, which would count 5 rows at most)."""
    folds = np.arange(12) % 3
    model = CARTClassifier(loss=L5, ccp_alpha="cv-min", **FREE).fit(X, Y, folds=folds)
    L = np.array(L5)
    total = 0.0
    for f in range(3):
        train, held = folds != f, folds == f
        counts = np.array([np.sum(Y[train] == "a"), np.sum(Y[train] == "b")])
        pred = int(np.argmin(counts @ L))
        total += sum(L[0 if v == "a" else 1, pred] for v in Y[held])
    assert model.cp_table_.cv_error[-1] == pytest.approx(total / 12, rel=1e-12)


@pytest.mark.parametrize("loss, message", [
    ([[0, 1, 2], [1, 0, 1]],
     r"loss must be a 2 x 2 matrix \(y has 2 classes: 'a', 'b'\), got shape \(2, 3\)"),
    ([[0, -1], [1, 0]], r"loss\['a', 'b'\] must be a finite number >= 0, got -1.0"),
    ([[1, 1], [1, 0]], r"loss\['a', 'a'\] must be 0 \(predicting the true class costs nothing\)"),
    ([[0, 1], [0, 0]], r"every cost in the row of class 'b' is 0"),
    ({"c": {"a": 2}}, r"loss names the true class 'c', which y does not hold \(its classes: 'a', 'b'\)"),
    ({"a": {"c": 2}}, r"loss names the predicted class 'c'"),
    ({"a": 2}, r"loss\['a'\] must be a dict \{predicted class: cost\}, got int"),
    ({"a": {"b": "x"}}, r"loss\['a'\]\['b'\] must be a number, got 'x'"),
])
def test_bad_loss_is_refused_by_name(loss, message):
    model = plain(loss=loss)
    with pytest.raises(ValueError, match=message):
        model.fit(X, Y)
    assert not hasattr(model, "tree_")


def test_loss_type_and_pruning_are_checked():
    with pytest.raises(ValueError, match=r"The 'loss' parameter of CARTClassifier must be"):
        CARTClassifier(loss="heavy").fit(X, Y)
    with pytest.raises(ValueError, match=r"loss does not go with pruning='pre'"):
        CARTClassifier(loss=L5, pruning="pre").fit(X, Y)
    with pytest.raises(ValueError, match=r"ccp_cost='impurity' does not go with it"):
        CARTClassifier(loss=L5, ccp_cost="impurity").fit(X, Y)


def test_refit_without_loss_forgets_it():
    model = plain(loss=L5, max_depth=1).fit(X, Y)
    model.set_params(loss=None).fit(X, Y)
    assert model.loss_matrix_ is None
    np.testing.assert_array_equal(model.predict(X), plain(max_depth=1).fit(X, Y).predict(X))


@pytest.mark.parametrize("loss", [L5, {"b": {"a": 5}}])
def test_model_file_keeps_the_loss(loss, tmp_path):
    model = plain(loss=loss, max_depth=2).fit(X, Y)
    rootwise.save(model, tmp_path / "m.json")
    back = rootwise.load(tmp_path / "m.json")
    np.testing.assert_array_equal(back.loss_matrix_, L5)
    np.testing.assert_array_equal(back.predict(X), model.predict(X))
    assert back.loss == L5  # kept as the matrix in classes_ order


def test_sql_names_the_class_of_least_loss():
    model = plain(loss=L5, max_depth=1).fit(X, Y)
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (x REAL)")
    db.executemany("INSERT INTO t VALUES (?)", [(v,) for v in X["x"]])
    got = [r[-1] for r in db.execute(export_sql(model, "t"))]
    assert got == list(model.predict(X))
    assert got != list(plain(max_depth=1).fit(X, Y).predict(X))


@pytest.mark.parametrize("given", ["0,1;5,0", "b:a=5", "b:a=5,a:b=1"])
def test_cli_takes_the_matrix_or_pairs(given, tmp_path, capsys):
    data = tmp_path / "d.csv"
    pd.DataFrame({"x": X["x"], "y": Y}).to_csv(data, index=False)
    out = tmp_path / "m.json"
    code = main(["fit", str(data), "--target", "y", "--algorithm", "cart", "--loss", given,
                 "--pruning", "none", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    np.testing.assert_array_equal(rootwise.load(out).loss_matrix_, L5)


def test_cli_refuses_a_malformed_loss(tmp_path, capsys):
    data = tmp_path / "d.csv"
    pd.DataFrame({"x": X["x"], "y": Y}).to_csv(data, index=False)
    code = main(["fit", str(data), "--target", "y", "--loss", "b-a=5"])
    assert code != 0
    assert "expected TRUE:PREDICTED=COST" in capsys.readouterr().err
    code = main(["fit", str(data), "--target", "y", "--algorithm", "cart", "--loss", "c:a=5"])
    assert code != 0
    assert "--loss names class 'c', which column 'y' does not hold" in capsys.readouterr().err
