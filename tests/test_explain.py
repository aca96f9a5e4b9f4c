"""The textbook view: explain() must print the seeds' numbers (rounded to 3 decimals as they are).

Reference values come from the seeds (002: loan table; 000: watermelon 2.0; 001: loan default)
or from the hand computations written next to them, never from rootwise itself.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rootwise
from rootwise import ID3Classifier, explain, format_table

COLUMNS = ["attribute", "n_branches", "entropy", "conditional_entropy", "gain", "rho",
           "intrinsic_value", "gain_ratio", "gini", "gini_index", "chosen"]


def rounded(table: pd.DataFrame, column: str) -> list[float]:
    return [round(float(v), 3) for v in table[column]]


def chosen(table: pd.DataFrame) -> list[str]:
    return table.loc[table["chosen"], "attribute"].tolist()


def depth_one_node(model, X, row: int) -> int:
    """The node at depth 1 on the path of training row ``row`` (the decision path lists the root
    first, then the nodes in order of depth)."""
    return int(model.decision_path(X.iloc[[row]]).indices[1])


# --------------------------------------------------------------------------- seed 002: loan table


def test_loan_root_matches_seed_002(loan):
    X, y = loan
    t = explain(X, y, ID3Classifier())
    assert list(t.columns) == COLUMNS
    assert t["attribute"].tolist() == ["年龄", "有工作", "有自己的房子", "信贷情况"]
    assert t["n_branches"].tolist() == [3, 2, 2, 3]
    assert rounded(t, "entropy") == [0.971] * 4  # H(D) = H(9/15)
    assert rounded(t, "conditional_entropy") == [0.888, 0.647, 0.551, 0.608]
    assert rounded(t, "gain") == [0.083, 0.324, 0.420, 0.363]
    assert rounded(t, "rho") == [1.0] * 4  # no missing cells
    assert rounded(t, "intrinsic_value") == [1.585, 0.918, 0.971, 1.566]
    # The seed prints 0.353 for 有工作: 0.324 / 0.918 = 0.3529... from its rounded inputs; unrounded,
    # 0.32365 / 0.91830 = 0.35244 -> 0.352. (It also divides 0.083 by 1.583, a typo for 1.585.)
    assert rounded(t, "gain_ratio") == [0.052, 0.352, 0.433, 0.232]
    assert chosen(t) == ["有自己的房子"]


def test_loan_gini_columns_by_hand(loan):
    X, y = loan
    t = explain(X, y, ID3Classifier())
    # Gini(D) = 1 - (0.6^2 + 0.4^2) = 0.48;
    # 有自己的房子: 是 -> 6 rows all 是 (Gini 0); 否 -> 9 rows, 3 是 / 6 否: Gini = 1 - (1/9 + 4/9) = 4/9
    # Gini_index = 9/15 * 4/9 = 0.2667
    assert rounded(t, "gini") == [0.48] * 4
    assert rounded(t, "gini_index")[2] == 0.267


def test_loan_second_node_matches_seed_002(loan):
    X, y = loan
    m = ID3Classifier().fit(X, y)
    node = depth_one_node(m, X, 0)  # row 0 has 有自己的房子 = 否: the seed's D_2 (9 rows)
    t = explain(X, y, m, node=node)
    # 有自己的房子 is used above this node, so ID3 does not offer it again
    assert t["attribute"].tolist() == ["年龄", "有工作", "信贷情况"]
    assert rounded(t, "entropy") == [0.918] * 3  # H(D_2) = H(3/9)
    assert rounded(t, "conditional_entropy") == [0.667, 0.0, 0.444]
    # The seed prints 0.251 for 年龄 (0.918 - 0.667 from rounded terms); unrounded 0.91830 - 0.66667
    # = 0.25163 -> 0.252.
    assert rounded(t, "gain") == [0.252, 0.918, 0.474]
    assert chosen(t) == ["有工作"]


# --------------------------------------------------------------------------- seed 000: watermelon 2.0


def test_watermelon_root_matches_seed_000(watermelon):
    X, y = watermelon
    t = explain(X, y, ID3Classifier())
    assert t["attribute"].tolist() == ["色泽", "根蒂", "敲声", "纹理", "脐部", "触感"]
    assert rounded(t, "entropy") == [0.998] * 6  # H(8/17)
    # The book prints 0.109 for 色泽 (0.998 - 0.889 from rounded terms); unrounded the gain is
    # 0.99750 - 0.88937 = 0.10813.
    assert rounded(t, "gain") == [0.108, 0.143, 0.141, 0.381, 0.289, 0.006]
    assert chosen(t) == ["纹理"]


def test_watermelon_three_way_tie_goes_to_lowest_column(watermelon):
    # Rows with 纹理 = 清晰: 1, 2, 3, 4, 5, 6, 8 (是) and 10, 15 (否): Ent = H(2/9) = 0.764.
    #   色泽: 青绿 {1,4,6,10} 3:1, 乌黑 {2,3,8,15} 3:1, 浅白 {5} 1:0 -> 8/9 * 0.811 = 0.721, gain 0.043
    #   根蒂: 蜷缩 {1..5} pure, 稍蜷 {6,8,15} 2:1, 硬挺 {10} pure -> 3/9 * 0.918 = 0.306, gain 0.458
    #   敲声: 浊响 {1,3,5,6,8,15} 5:1, 沉闷 {2,4}, 清脆 {10} -> 6/9 * 0.650 = 0.433, gain 0.331
    #   脐部: 凹陷 {1..5} pure, 稍凹 {6,8,15} 2:1, 平坦 {10} pure -> 0.306, gain 0.458
    #   触感: 硬滑 {1,2,3,4,5,8} pure, 软粘 {6,10,15} 1:2 -> 3/9 * 0.918 = 0.306, gain 0.458
    # 根蒂, 脐部 and 触感 tie exactly (each 3/9 * H(1/3)); 根蒂 has the lowest column index.
    X, y = watermelon
    m = ID3Classifier().fit(X, y)
    node = depth_one_node(m, X, 0)  # row 0 (编号 1) has 纹理 = 清晰
    passes = m.decision_path(X)[:, node].toarray().ravel().astype(bool)
    assert passes.tolist() == (X["纹理"] == "清晰").tolist()
    t = explain(X, y, m, node=node)
    assert t["attribute"].tolist() == ["色泽", "根蒂", "敲声", "脐部", "触感"]
    assert rounded(t, "entropy") == [0.764] * 5
    assert rounded(t, "gain") == [0.043, 0.458, 0.331, 0.458, 0.458]
    assert chosen(t) == ["根蒂"]


# --------------------------------------------------------------------------- seed 001: loan default


def test_loan_default_gini_and_numbers_as_categories(loan_default):
    X, y = loan_default
    t = explain(X, y, ID3Classifier()).set_index("attribute")
    # Gini(D) = 1 - (0.3^2 + 0.7^2) = 0.42 (3 of 10 default)
    assert [round(v, 3) for v in t["gini"]] == [0.42] * 3
    # 有房情况: 是 -> 3 rows, none default (Gini 0); 否 -> 7 rows, 3 default: 1 - (9 + 16)/49 = 24/49
    #   Gini_index = 7/10 * 24/49 = 0.343
    # 婚姻状况: 单身 4 rows 2:2 (0.5), 已婚 4 rows 0:4 (0), 离婚 2 rows 1:1 (0.5) -> 0.4*0.5 + 0.2*0.5 = 0.3
    assert round(t.loc["有房情况", "gini_index"], 3) == 0.343
    assert round(t.loc["婚姻状况", "gini_index"], 3) == 0.3
    # ID3 has no thresholds: 年收入 counts as 10 categories, one row each (documented in
    # ID3Classifier). Every branch is pure, so its gain is all of H(D) = H(0.3) = 0.881 and ID3,
    # biased to many-valued attributes (seed 002 §2.2), picks it.
    assert t.loc["年收入", "n_branches"] == 10
    assert t.loc["年收入", "conditional_entropy"] == 0
    assert round(t.loc["年收入", "gain"], 3) == 0.881
    assert round(t.loc["年收入", "intrinsic_value"], 3) == round(np.log2(10), 3)
    assert t.loc["年收入", "chosen"]


# --------------------------------------------------------------------------- model, weights, errors


def test_unfitted_model_is_cloned_not_fitted(loan):
    X, y = loan
    model = ID3Classifier(max_depth=1)
    t = explain(X, y, model)
    assert not hasattr(model, "tree_")
    assert chosen(t) == ["有自己的房子"]


def test_leaf_has_nothing_chosen(loan):
    X, y = loan
    m = ID3Classifier().fit(X, y)
    leaf = int(m.apply(X.iloc[[3]])[0])  # row 3 owns a house: the 是 leaf under the root
    t = explain(X, y, m, node=leaf)
    assert not t["chosen"].any()
    assert t["attribute"].tolist() == ["年龄", "有工作", "信贷情况"]
    assert rounded(t, "entropy") == [0.0] * 3  # 6 rows, all 是


def test_sample_weight_is_row_multiplicity(loan):
    X, y = loan
    w = np.ones(15)
    w[[0, 7]] = 3.0
    weighted = explain(X, y, ID3Classifier(), sample_weight=w)
    repeated = explain(pd.concat([X] + [X.iloc[[0, 7]]] * 2), pd.concat([y] + [y.iloc[[0, 7]]] * 2),
                       ID3Classifier())
    numeric = COLUMNS[1:-1]
    np.testing.assert_allclose(weighted[numeric].to_numpy(float), repeated[numeric].to_numpy(float))
    assert chosen(weighted) == chosen(repeated)


@pytest.mark.parametrize("node", [-1, "node_count", 99, 1.0, True, "0"])
def test_node_out_of_range(loan, node):
    X, y = loan
    m = ID3Classifier().fit(X, y)  # seed 002's tree: 5 nodes
    assert m.tree_.node_count == 5
    node = m.tree_.node_count if node == "node_count" else node
    with pytest.raises(ValueError, match=r"node must be an integer in \[0, 4\]"):
        explain(X, y, m, node=node)


def test_label_unknown_to_fitted_model(loan):
    X, y = loan
    m = ID3Classifier().fit(X, y)
    with pytest.raises(ValueError, match="'也许'"):
        explain(X, y.where(y != "是", "也许"), m)


def test_y_length_must_match(loan):
    X, y = loan
    m = ID3Classifier().fit(X, y)
    with pytest.raises(ValueError, match="different numbers of rows"):
        explain(X, y.iloc[:10], m)
    with pytest.raises(ValueError, match="different numbers of rows"):
        explain(X, y.iloc[:10], ID3Classifier())


# --------------------------------------------------------------------------- format_table


def test_format_table_prints_seed_numbers(loan):
    X, y = loan
    text = format_table(explain(X, y, ID3Classifier()))
    lines = text.splitlines()
    assert len(lines) == 5 and "gain_ratio" in lines[0]
    house = next(line for line in lines if "有自己的房子" in line)
    assert "0.420" in house and "0.433" in house and house.rstrip().endswith("<-")
    assert sum("<-" in line for line in lines) == 1
    assert "0.9710" in format_table(explain(X, y, ID3Classifier()), digits=4)


def test_public_names():
    assert rootwise.explain is explain and rootwise.format_table is format_table


def test_values_unseen_by_a_fitted_model_are_refused(loan):
    X, y = loan
    m = ID3Classifier().fit(X, y)
    other = X.copy()
    other.iloc[4, 3] = "极好"
    with pytest.raises(ValueError, match=r"training data: column '信贷情况'.*\(row 4\)"):
        explain(other, y, m)


# --------------------------------------------------------------------------- regression


def _mse(y):
    return float(np.mean((y - y.mean()) ** 2)) if len(y) else 0.0


def _best_split_by_hand(x, y, categorical):
    """(MSE(D|a), threshold) of the best binary test on x, trying every subset of categories
    against the rest, or every midpoint of adjacent distinct values."""
    best = (np.inf, np.nan)
    if categorical:
        values = sorted(set(x.tolist()), key=repr)
        for mask in range(1, 2 ** (len(values) - 1)):
            left = np.isin(x, [v for i, v in enumerate(values) if mask >> i & 1])
            cond = (left.sum() * _mse(y[left]) + (~left).sum() * _mse(y[~left])) / len(y)
            best = min(best, (cond, np.nan), key=lambda b: b[0])
        return best
    xs = np.unique(x)
    for t in (xs[:-1] + xs[1:]) / 2:
        left = x <= t
        cond = (left.sum() * _mse(y[left]) + (~left).sum() * _mse(y[~left])) / len(y)
        if cond < best[0] - 1e-12:
            best = (cond, t)
    return best


def test_explain_a_regressor_at_the_root():
    """CART's squared-error view: every attribute's best test, checked by brute force."""
    X, _ = rootwise.datasets.load("watermelon_3_0", return_X_y=True)
    y = X.pop("密度").to_numpy()
    model = rootwise.CARTRegressor(pruning=None).fit(X, y)
    table = explain(X, y, model)
    assert list(table.columns) == ["attribute", "n_branches", "threshold", "mse",
                                   "conditional_mse", "rho", "mse_decrease", "admissible", "chosen"]
    for row in table.itertuples():
        x = X[row.attribute].to_numpy()
        cond, threshold = _best_split_by_hand(x, y, x.dtype == object)
        assert row.mse == pytest.approx(_mse(y), abs=1e-12)
        assert row.conditional_mse == pytest.approx(cond, abs=1e-12)
        assert row.mse_decrease == pytest.approx(_mse(y) - cond, abs=1e-12)
        assert row.rho == 1.0 and row.n_branches == 2
        assert np.isnan(threshold) and np.isnan(row.threshold) or row.threshold == threshold
    picked = chosen(table)
    assert picked == [model.schema_.feature_names[model.tree_.feature[0]]]
    assert picked == [table.loc[table["mse_decrease"].idxmax(), "attribute"]]
    assert "mse_decrease" in format_table(table)
