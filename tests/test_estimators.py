"""ID3Classifier as a scikit-learn citizen: inputs, labels, errors, unseen categories, ties, atomic fit.

Reference trees are the seeds': seed 002's loan tree (有自己的房子, then 有工作) and seed 000's
watermelon 2.0 tree (纹理 at the root).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.impute import SimpleImputer
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline

from rootwise import ID3Classifier, datasets

# classes_ of the Chinese yes/no targets are sorted by code point: 否 (U+5426) before 是 (U+662F),
# so predict_proba columns are [否, 是] throughout.


def loan_row(age="青年", job="否", house="否", credit="一般"):
    return pd.DataFrame([[age, job, house, credit]], columns=["年龄", "有工作", "有自己的房子", "信贷情况"])


# --------------------------------------------------------------------------- inputs


def test_fitted_attributes(loan):
    X, y = loan
    m = ID3Classifier().fit(X, y)
    assert m.classes_.tolist() == ["否", "是"]
    assert m.n_classes_ == 2
    assert m.n_features_in_ == 4
    assert m.feature_names_in_.tolist() == ["年龄", "有工作", "有自己的房子", "信贷情况"]
    # seed 002's tree: 有自己的房子 at the root, then 有工作 on the 否 branch: 3 leaves, depth 2
    assert (m.get_depth(), m.get_n_leaves()) == (2, 3)
    assert m.predict(X).tolist() == y.tolist()


@pytest.mark.parametrize("form", ["numpy", "list"])
def test_array_and_list_inputs_match_dataframe(loan, form):
    X, y = loan
    expected = ID3Classifier().fit(X, y).predict_proba(X)
    data = X.to_numpy() if form == "numpy" else X.to_numpy().tolist()
    m = ID3Classifier().fit(data, y.tolist() if form == "list" else y.to_numpy())
    assert not hasattr(m, "feature_names_in_")
    assert m.n_features_in_ == 4
    np.testing.assert_array_equal(m.predict_proba(data), expected)
    assert m.predict(data).tolist() == y.tolist()


def test_feature_names_only_for_string_column_names(loan):
    X, y = loan
    m = ID3Classifier().fit(X.set_axis(range(4), axis=1), y)
    assert not hasattr(m, "feature_names_in_")
    m.fit(X, y)
    assert hasattr(m, "feature_names_in_")
    m.fit(X.to_numpy(), y)  # refitting without names forgets them, as scikit-learn does
    assert not hasattr(m, "feature_names_in_")


def test_feature_name_checks_at_predict(loan):
    X, y = loan
    m = ID3Classifier().fit(X, y)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        m.predict(X.to_numpy())
    with pytest.raises(ValueError, match="Feature names unseen at fit time"):
        m.predict(X.rename(columns={"年龄": "age"}))
    with pytest.raises(ValueError, match="same order"):
        m.predict(X[X.columns[::-1]])


def test_categorical_dtypes_and_numbers_are_all_usable():
    X = pd.DataFrame({
        "s": pd.Series(["a", "b", "a", "b"]),
        "c": pd.Categorical(["u", "u", "v", "v"]),
        "b": [True, True, False, False],
        "n": [1.5, 1.5, 2.5, 2.5],
    })
    y = ["是", "否", "否", "否"]
    m = ID3Classifier().fit(X, y)
    assert m.predict(X).tolist() == y
    # ID3 treats every column as categorical: numbers become their sorted distinct values
    assert m.schema_.categories == (("a", "b"), ("u", "v"), (True, False), (1.5, 2.5))


def test_categorical_features_changes_only_the_category_order():
    X = pd.DataFrame({"n": [30, 10, 20]})
    assert ID3Classifier().fit(X, [0, 1, 2]).schema_.categories == ((10.0, 20.0, 30.0),)
    m = ID3Classifier(categorical_features=["n"]).fit(X, [0, 1, 2])
    assert m.schema_.categories == ((30, 10, 20),)
    assert m.predict(X).tolist() == [0, 1, 2]


# --------------------------------------------------------------------------- labels


@pytest.mark.parametrize("labels", [
    ["是", "否", "是", "否"],
    ["好瓜", "坏瓜", "好瓜", "坏瓜"],
    [10, 20, 10, 30],
    [True, False, False, True],
    ["a", 1, 2.5, "a"],
    [True, "yes", 0, True],
    np.array([7, 9, 7, 9], dtype=np.int16),
    pd.Series(["x", "y", "y", "x"], dtype="category"),
])
def test_labels_come_back_unchanged(labels):
    X = [[0], [1], [2], [3]]  # one category per row: the tree reproduces the training labels
    m = ID3Classifier().fit(X, labels)
    pred = m.predict(X)
    expected = [v.item() if isinstance(v, np.generic) else v for v in labels]
    assert pred.tolist() == expected
    assert [type(v) for v in pred.tolist()] == [type(v) for v in expected]  # "1" is not 1
    assert pred.dtype == m.classes_.dtype
    assert set(m.classes_.tolist()) == set(expected)


def test_label_dtypes_are_sensible():
    X = [[0], [1]]
    assert ID3Classifier().fit(X, [1, 2]).predict(X).dtype == np.int64
    assert ID3Classifier().fit(X, [True, False]).predict(X).dtype == bool
    assert ID3Classifier().fit(X, np.array([1, 2], dtype=np.int8)).predict(X).dtype == np.int8
    assert ID3Classifier().fit(X, ["a", "b"]).predict(X).dtype.kind in "UO"
    assert ID3Classifier().fit(X, ["a", 1]).predict(X).dtype == object


# --------------------------------------------------------------------------- missing cells


@pytest.mark.parametrize("hole", [None, np.nan, pd.NA])
def test_missing_cell_at_fit_names_the_column(loan, hole):
    X, y = loan
    X = X.astype(object)
    X.iloc[3, 2] = hole
    with pytest.raises(ValueError, match=r"ID3Classifier cannot use missing values.*'有自己的房子'.*\[3\]"):
        ID3Classifier().fit(X, y)


@pytest.mark.parametrize("hole", [None, np.nan, pd.NA])
def test_missing_cell_at_predict_names_the_column(loan, hole):
    X, y = loan
    m = ID3Classifier().fit(X, y)
    row = loan_row().astype(object)
    row.iloc[0, 1] = hole
    with pytest.raises(ValueError, match="'有工作'"):
        m.predict(row)
    with pytest.raises(ValueError, match="'x1'"):  # lists of rows: columns are x0, x1, ...
        ID3Classifier().fit(X.to_numpy().tolist(), y).predict([["青年", hole, "否", "一般"]])


def test_missing_numeric_cell(loan_default):
    X, y = loan_default
    m = ID3Classifier().fit(X, y)
    X = X.astype({"年收入": float})
    X.iloc[0, 2] = np.nan
    with pytest.raises(ValueError, match="'年收入'"):
        m.predict(X)
    with pytest.raises(ValueError, match="NaN"):  # scikit-learn's checks look for this word
        ID3Classifier().fit(X, y)


# --------------------------------------------------------------------------- unseen categories


def test_unseen_category_at_root_uses_root_distribution(loan):
    X, y = loan
    m = ID3Classifier().fit(X, y)
    row = loan_row(house="不知道")  # 有自己的房子 is tested at the root: 6 否, 9 是
    np.testing.assert_allclose(m.predict_proba(row), [[6 / 15, 9 / 15]])
    assert m.predict(row).tolist() == ["是"]
    assert m.apply(row).tolist() == [0]


def test_unseen_category_below_root_uses_that_node(loan):
    X, y = loan
    m = ID3Classifier().fit(X, y)
    # 有自己的房子=否 holds 9 rows (6 否, 3 是); there 有工作 is tested and 兼职 was never seen
    row = loan_row(house="否", job="兼职")
    np.testing.assert_allclose(m.predict_proba(row), [[6 / 9, 3 / 9]])
    assert m.predict(row).tolist() == ["否"]


def test_unseen_number_under_id3(loan_default):
    # seed 001's table: every 年收入 is distinct, so ID3 splits on it at the root (gain = H(D));
    # an income never seen in training stops there: 7 否, 3 是
    X, y = loan_default
    m = ID3Classifier().fit(X, y)
    row = pd.DataFrame([["否", "单身", 99]], columns=X.columns)
    np.testing.assert_allclose(m.predict_proba(row), [[0.7, 0.3]])
    assert m.predict(row).tolist() == ["否"]


def test_empty_branch_and_unseen_category_agree_with_seed_000(watermelon):
    # Seed 000's unpruned watermelon tree: 纹理=清晰 -> 根蒂=稍蜷 holds rows 6, 8, 15
    # (青绿 是, 乌黑 是, 乌黑 否). There 色泽 and 触感 tie, both gain
    # H(2/3) - 2/3 H(1/2) = 0.9183 - 0.6667 = 0.2516; 色泽 (lower column index) is chosen, as in the
    # book. Its 浅白 branch is empty (stopping case 3): the parent's distribution, 1 否 : 2 是.
    X, y = watermelon
    m = ID3Classifier().fit(X, y)
    row = pd.DataFrame([["浅白", "稍蜷", "浊响", "清晰", "稍凹", "软粘"]], columns=X.columns)
    np.testing.assert_allclose(m.predict_proba(row), [[1 / 3, 2 / 3]])
    assert m.predict(row).tolist() == ["是"]
    # a colour never seen in training stops at the same 色泽 node, with the same distribution
    unseen = row.assign(色泽="金黄")
    np.testing.assert_allclose(m.predict_proba(unseen), [[1 / 3, 2 / 3]])
    # (had 触感 won the tie, 触感=软粘 would lead to rows 6 and 15: 1 : 1)


def test_unseen_categories_in_bulk_never_raise(watermelon):
    X, y = watermelon
    m = ID3Classifier().fit(X, y)
    rng = np.random.default_rng(0)
    noisy = X.copy()
    for col in X.columns:
        noisy[col] = np.where(rng.random(len(X)) < 0.5, "??", X[col])
    proba = m.predict_proba(noisy)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(m.predict(noisy)) <= {"是", "否"}


# --------------------------------------------------------------------------- ties


def test_tie_goes_to_lowest_column_index():
    # A and B split the rows differently yet have equal gain:
    #   A: {r0, r1} = (1, 0) and {r2..r5} = (0, 0, 0, 1);  B: {r0..r3} = (1, 0, 0, 0) and {r4, r5} = (0, 1)
    #   H(D|A) = H(D|B) = 2/6 * H(1/2) + 4/6 * H(1/4) = 0.333 + 0.541 = 0.874 (gain 0.918 - 0.874 = 0.044)
    # C is useless (gain 0) and sits first, so the winner is not simply column 0.
    X = pd.DataFrame({
        "C": ["u", "u", "u", "u", "u", "u"],
        "A": ["a", "a", "b", "b", "b", "b"],
        "B": ["c", "c", "c", "c", "d", "d"],
    })
    y = [1, 0, 0, 0, 0, 1]
    m = ID3Classifier(max_depth=1).fit(X, y)
    assert m.schema_.feature_names[m.tree_.feature[0]] == "A"
    m = ID3Classifier(max_depth=1).fit(X[["C", "B", "A"]], y)
    assert m.schema_.feature_names[m.tree_.feature[0]] == "B"


# --------------------------------------------------------------------------- errors


def test_predict_before_fit():
    with pytest.raises(NotFittedError):
        ID3Classifier().predict([[1]])
    with pytest.raises(NotFittedError):
        ID3Classifier().predict_proba([[1]])


@pytest.mark.parametrize("params, name", [
    ({"max_depth": 0}, "max_depth"),
    ({"max_depth": -1}, "max_depth"),
    ({"max_depth": 1.5}, "max_depth"),
    ({"max_depth": True}, "max_depth"),
    ({"max_depth": "3"}, "max_depth"),
    ({"min_samples_leaf": -1}, "min_samples_leaf"),
    ({"min_samples_leaf": 0}, "min_samples_leaf"),
    ({"min_samples_leaf": np.inf}, "min_samples_leaf"),
    ({"min_samples_split": -2}, "min_samples_split"),
    ({"min_samples_split": None}, "min_samples_split"),
    ({"epsilon": np.nan}, "epsilon"),
    ({"epsilon": -0.1}, "epsilon"),
    ({"epsilon": "small"}, "epsilon"),
    ({"categorical_features": [7]}, "categorical_features"),
    ({"categorical_features": ["收入"]}, "categorical_features"),
    ({"categorical_features": [True]}, "categorical_features"),
])
def test_bad_hyper_parameters(loan, params, name):
    X, y = loan
    with pytest.raises(ValueError, match=name):
        ID3Classifier(**params).fit(X, y)


def test_good_hyper_parameters_are_accepted(loan):
    X, y = loan
    for params in ({"max_depth": np.int64(1)}, {"min_samples_leaf": 0.5}, {"epsilon": 0.1},
                   {"min_samples_split": 0.5}, {"categorical_features": [0, "信贷情况"]}):
        ID3Classifier(**params).fit(X, y)


def test_infinity(loan_default):
    X, y = loan_default
    bad = X.astype({"年收入": float})
    bad.iloc[4, 2] = np.inf
    with pytest.raises(ValueError, match=r"infinity.*'年收入', row 4"):
        ID3Classifier().fit(bad, y)
    m = ID3Classifier().fit(X, y)
    with pytest.raises(ValueError, match=r"infinity.*'年收入'"):
        m.predict(bad)


def test_unhashable_cell(loan):
    X, y = loan
    bad = X.astype(object)
    bad.iloc[2, 3] = ["好"]
    with pytest.raises(TypeError, match=r"column '信贷情况', row 2"):
        ID3Classifier().fit(bad, y)
    m = ID3Classifier().fit(X, y)
    with pytest.raises(TypeError, match="column '信贷情况'"):
        m.predict(bad)


def test_wrong_number_of_columns(loan):
    X, y = loan
    m = ID3Classifier().fit(X.to_numpy(), y)
    with pytest.raises(ValueError, match="X has 3 features, but ID3Classifier is expecting 4"):
        m.predict(X.to_numpy()[:, :3])


@pytest.mark.parametrize("w, words", [
    (np.ones(14), "sample_weight.shape"),
    (-np.ones(15), "Negative values in data passed to sample_weight"),
    (np.r_[np.nan, np.ones(14)], "sample_weight contains NaN"),
])
def test_bad_sample_weight(loan, w, words):
    X, y = loan
    with pytest.raises(ValueError, match=words):
        ID3Classifier().fit(X, y, sample_weight=w)


def test_bad_targets(loan):
    X, y = loan
    with pytest.raises(ValueError, match="missing label"):
        ID3Classifier().fit(X, y.where(y != "是"))
    with pytest.raises(ValueError, match="Unknown label type"):
        ID3Classifier().fit(X, np.linspace(0, 1, 15))
    with pytest.raises(ValueError, match="different numbers of rows"):
        ID3Classifier().fit(X, y[:-1])


def test_sample_weight_counts_rows(loan):
    # weight 2 on a row is the same as the row appearing twice
    X, y = loan
    w = np.ones(15)
    w[[0, 5]] = 2
    weighted = ID3Classifier().fit(X, y, sample_weight=w)
    doubled = ID3Classifier().fit(pd.concat([X, X.iloc[[0, 5]]]), pd.concat([y, y.iloc[[0, 5]]]))
    np.testing.assert_allclose(weighted.tree_.value, doubled.tree_.value)


# --------------------------------------------------------------------------- atomic fit


def _with_cell(X, row, col, value):
    X = X.astype(object)
    X.iloc[row, col] = value
    return X


BAD_FITS = {
    "missing cell": lambda m, X, y: m.fit(_with_cell(X, 0, 0, None), y),
    "unhashable cell": lambda m, X, y: m.fit(_with_cell(X, 0, 0, {}), y),
    "infinity": lambda m, X, y: m.fit(X.assign(extra=np.r_[np.inf, np.ones(14)]), y),
    "no columns": lambda m, X, y: m.fit(np.empty((15, 0)), y),
    "missing label": lambda m, X, y: m.fit(X, y.where(y != "否")),
    "continuous y": lambda m, X, y: m.fit(X, np.linspace(0, 1, 15)),
    "short y": lambda m, X, y: m.fit(X, y[:3]),
    "negative weight": lambda m, X, y: m.fit(X, y, sample_weight=-np.ones(15)),
    "max_depth": lambda m, X, y: m.set_params(max_depth=0).fit(X, y),
    "epsilon": lambda m, X, y: m.set_params(epsilon=np.nan).fit(X, y),
    "categorical_features": lambda m, X, y: m.set_params(categorical_features=["?"]).fit(X, y),
}


@pytest.mark.parametrize("bad_fit", BAD_FITS.values(), ids=BAD_FITS.keys())
def test_failed_fit_leaves_previous_model_intact(loan, bad_fit):
    X, y = loan
    m = ID3Classifier().fit(X, y)
    before = {k: v for k, v in vars(m).items() if k.endswith("_")}
    proba = m.predict_proba(X)
    with pytest.raises((ValueError, TypeError)):
        bad_fit(m, X.copy(), y.copy())
    after = {k: v for k, v in vars(m).items() if k.endswith("_")}
    assert after.keys() == before.keys()
    assert all(after[k] is before[k] for k in before)
    np.testing.assert_array_equal(m.predict_proba(X), proba)
    assert m.predict(X).tolist() == y.tolist()


# --------------------------------------------------------------------------- scikit-learn tools


def test_clone_keeps_parameters_and_drops_fit(loan):
    X, y = loan
    m = ID3Classifier(max_depth=3, epsilon=0.01, categorical_features=["年龄"]).fit(X, y)
    c = clone(m)
    assert c.get_params() == m.get_params()
    assert not hasattr(c, "tree_") and not hasattr(c, "classes_")


def test_pipeline_with_imputer_handles_missing_cells():
    X, y = datasets.load_watermelon_2_0_alpha(return_X_y=True)
    with pytest.raises(ValueError, match="missing values"):
        ID3Classifier().fit(X, y)
    imputer = SimpleImputer(strategy="most_frequent").set_output(transform="pandas")
    pipe = make_pipeline(imputer, ID3Classifier()).fit(X, y)
    assert pipe[-1].feature_names_in_.tolist() == X.columns.tolist()
    direct = ID3Classifier().fit(pipe[0].transform(X), y)
    assert pipe.predict(X).tolist() == direct.predict(pipe[0].transform(X)).tolist()
    assert pipe.score(X, y) == 1.0  # ID3 separates its training rows (no two rows conflict)


def test_grid_search(watermelon):
    X, y = watermelon
    grid = GridSearchCV(ID3Classifier(), {"max_depth": [1, 2, None], "epsilon": [0.0, 0.2]}, cv=3,
                        error_score="raise").fit(X, y)
    assert np.isfinite(grid.cv_results_["mean_test_score"]).all()
    assert grid.best_params_["max_depth"] in (1, 2, None)
    assert grid.predict(X).shape == (17,)


def test_cross_val_score_with_unseen_categories_in_folds(loan):
    X, y = loan
    scores = cross_val_score(ID3Classifier(), X, y, cv=5, error_score="raise")
    assert scores.shape == (5,)
    assert ((scores >= 0) & (scores <= 1)).all()
