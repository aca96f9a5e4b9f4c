"""export_rules: one rule per leaf, tests merged per feature, missing values said where they
matter, support and confidence.

Expected texts are written by hand from the trees (the textbook's ID3 tree on watermelon 2.0, and
hand-built trees); support and confidence are checked against counts computed here from
``model.apply`` on the training rows and y (for C4.5, whose rows with missing values reach leaves
with part of their weight, from ``rootwise.node_weights``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from random_trees import hand_model, staircase
from sklearn.exceptions import NotFittedError

import rootwise
from rootwise import datasets
from rootwise._config import CATEGORICAL, CONTINUOUS, LEAF, SUBSET, THRESHOLD
from rootwise.input.schema import Schema

NAN = float("nan")

# Seed 000, figure 4.4 (ID3 on watermelon 2.0); the empty 色泽 = 浅白 branch predicts its parent's
# 是 (2 是, 1 否: confidence 2/3) with no training row.
WATERMELON_RULES = {
    "if 纹理 = 清晰 and 根蒂 = 蜷缩 then 是  [rows 5, weight 5, confidence 1]",
    "if 纹理 = 稍糊 and 触感 = 硬滑 then 否  [rows 4, weight 4, confidence 1]",
    "if 纹理 = 模糊 then 否  [rows 3, weight 3, confidence 1]",
    "if 纹理 = 清晰 and 根蒂 = 稍蜷 and 色泽 = 青绿 then 是  [rows 1, weight 1, confidence 1]",
    "if 纹理 = 清晰 and 根蒂 = 稍蜷 and 色泽 = 乌黑 and 触感 = 硬滑 then 是  [rows 1, weight 1, "
    "confidence 1]",
    "if 纹理 = 清晰 and 根蒂 = 稍蜷 and 色泽 = 乌黑 and 触感 = 软粘 then 否  [rows 1, weight 1, "
    "confidence 1]",
    "if 纹理 = 清晰 and 根蒂 = 硬挺 then 否  [rows 1, weight 1, confidence 1]",
    "if 纹理 = 稍糊 and 触感 = 软粘 then 是  [rows 1, weight 1, confidence 1]",
    "if 纹理 = 清晰 and 根蒂 = 稍蜷 and 色泽 = 浅白 then 是  [rows 0, weight 0, confidence 0.667]",
}


def test_watermelon_id3_rules():
    X, y = datasets.load_watermelon_2_0(return_X_y=True)
    text = rootwise.export_rules(rootwise.ID3Classifier().fit(X, y))
    lines = text.splitlines()
    assert lines[0] == f"9 {HEADER}"
    assert {line.split(". ", 1)[1] for line in lines[1:10]} == WATERMELON_RULES
    assert [line.split(".")[0] for line in lines[1:10]] == [str(k) for k in range(1, 10)]
    assert lines[1].endswith("[rows 5, weight 5, confidence 1]")
    assert lines[9].endswith("[rows 0, weight 0, confidence 0.667]")
    # a multiway test stops a category it has no branch for
    assert lines[10].startswith("A row that stops at a split node")


# x <= 4.1 (missing: left), then x <= 2.5 (missing: right); on the right colour {red, green} |
# {blue} (grey: no branch; missing and no-branch values: left), then {red} | {green} (blue, grey:
# no branch; missing and no-branch values: right).
MERGE_SCHEMA = Schema(("x", "size", "colour"), (CONTINUOUS, CONTINUOUS, CATEGORICAL),
                      (None, None, ("red", "green", "blue", "grey")), True)
MERGE_NODES = [
    # kind, feature, threshold, first, n, pool_offset, missing, parent, rows, sur_offset, n_sur
    (THRESHOLD, 0, 4.1, 1, 2, -1, 0, -1, 20, -1, 0),
    (THRESHOLD, 0, 2.5, 3, 2, -1, 1, 0, 12, -1, 0),
    (SUBSET, 2, NAN, 5, 2, 0, 0, 0, 8, -1, 0),
    (LEAF, -1, NAN, -1, 0, -1, -1, 1, 7, -1, 0),
    (LEAF, -1, NAN, -1, 0, -1, -1, 1, 5, -1, 0),
    (SUBSET, 2, NAN, 7, 2, 4, 1, 2, 6, -1, 0),
    (LEAF, -1, NAN, -1, 0, -1, -1, 2, 2, -1, 0),
    (LEAF, -1, NAN, -1, 0, -1, -1, 5, 4, -1, 0),
    (LEAF, -1, NAN, -1, 0, -1, -1, 5, 2, -1, 0),
]
MERGE_POOL = [0, 0, 1, -1, 0, 1, -1, -1]
MERGE_VALUE = [[10, 10], [8, 4], [2, 6], [7, 0], [1, 4], [3, 3], [0, 2], [3, 1], [1, 1]]
HEADER = ("rules, one per leaf, most supported first [training rows, weight, confidence]; each "
          "gives the predicted class.")
MERGED_RULES = f"5 {HEADER}\n" + """\
1. if x <= 2.5 then no  [rows 7, weight 7, confidence 1]
2. if 2.5 < x <= 4.1 or x missing then yes  [rows 5, weight 5, confidence 0.8]
3. if x > 4.1 and colour = red then no  [rows 4, weight 4, confidence 0.75]
4. if x > 4.1 and colour = blue then yes  [rows 2, weight 2, confidence 1]
5. if x > 4.1 and (colour not in {red, blue} or colour missing) then no  [rows 2, weight 2, confidence 0.5]
"""


def merge_model():
    return hand_model(MERGE_NODES, MERGE_VALUE, MERGE_POOL, MERGE_SCHEMA, ["no", "yes"])


def test_tests_on_one_feature_merge_and_missing_values_are_said():
    assert rootwise.export_rules(merge_model()) == MERGED_RULES


def test_the_frame_has_one_row_per_leaf():
    frame = rootwise.export_rules(merge_model(), as_frame=True)
    assert list(frame.columns) == ["rule", "conditions", "prediction", "n_rows", "weight",
                                   "confidence", "node"]
    assert frame["node"].tolist() == [3, 4, 7, 6, 8]
    assert frame["conditions"].iloc[4] == ["x > 4.1", "colour not in {red, blue} or colour missing"]
    assert frame["prediction"].tolist() == ["no", "yes", "no", "yes", "no"]
    assert frame["confidence"].tolist() == [1.0, 0.8, 0.75, 1.0, 0.5]
    assert frame["rule"].iloc[1] == "if 2.5 < x <= 4.1 or x missing then yes"


def test_surrogates_are_named_where_they_decide():
    nodes = [(THRESHOLD, 0, 1.0, 1, 2, -1, 1, -1, 9, 0, 2),
             (LEAF, -1, NAN, -1, 0, -1, -1, 0, 5, -1, 0),
             (LEAF, -1, NAN, -1, 0, -1, -1, 0, 4, -1, 0)]
    surrogates = dict(feature=[1, 2], kind=[THRESHOLD, SUBSET], threshold=[3.0, NAN],
                      left_branch=[0, 0], pool_offset=[-1, 0], agreement=[0.9, 0.8],
                      adjusted_agreement=[0.5, 0.4])
    model = hand_model(nodes, [[5, 4], [5, 0], [0, 4]], [0, 1, 1, -1], MERGE_SCHEMA, ["no", "yes"],
                       surrogates)
    frame = rootwise.export_rules(model, as_frame=True)
    assert frame["conditions"].tolist() == [["x <= 1 (if missing: surrogates size, colour decide)"],
                                            ["x > 1 (if missing: surrogates size, colour decide)"]]


def training_counts(model, X, y, w):
    """Per leaf: (rows, weight, weighted class counts or (mean, std)) from apply."""
    ends = model.apply(X)
    out = {}
    for leaf in np.flatnonzero(model.tree_.kind == LEAF):
        at = ends == leaf
        if hasattr(model, "classes_"):
            stats = np.array([w[at & (y == c)].sum() for c in model.classes_])
        else:
            mean = np.average(y[at], weights=w[at]) if w[at].sum() > 0 else np.nan
            var = np.average((y[at] - mean) ** 2, weights=w[at]) if w[at].sum() > 0 else np.nan
            stats = (mean, np.sqrt(var))
        out[int(leaf)] = (int(at.sum()), float(w[at].sum()), stats)
    return out


def synthetic(rng, n):
    frame = pd.DataFrame({
        "city": rng.choice([f"c{k}" for k in range(8)], size=n).astype(object),
        "age": rng.integers(18, 80, size=n).astype(float),
        "spend": np.round(rng.gamma(2.0, 30.0, size=n), 1),
    })
    score = frame["city"].str[1:].astype(int) % 3 + (frame["age"] > 45) + (frame["spend"] > 50)
    frame = frame.mask(rng.random(frame.shape) < 0.2)
    return frame, score.to_numpy()


def test_support_and_confidence_match_apply_with_missing_values_and_weights():
    rng = np.random.default_rng(0)
    X, score = synthetic(rng, 400)
    y = np.array(["low", "mid", "high", "top"])[np.minimum(score, 3)]
    w = rng.choice([0.5, 1.0, 2.0], size=len(y))
    model = rootwise.CARTClassifier(pruning=None, min_weight_fraction_leaf=0.01).fit(X, y, sample_weight=w)
    frame = rootwise.export_rules(model, as_frame=True)
    counts = training_counts(model, X, y, w)
    assert sorted(frame["node"]) == sorted(counts)
    assert frame["n_rows"].sum() + np.sum(model.tree_.kind[model.apply(X)] != LEAF) == len(y)
    for r in frame.itertuples():
        rows, weight, by_class = counts[r.node]
        assert r.n_rows == rows
        assert r.weight == pytest.approx(weight, rel=1e-12)
        assert r.prediction == model.classes_[np.argmax(by_class)]
        assert r.confidence == pytest.approx(by_class.max() / by_class.sum(), rel=1e-12)
    weights = frame["weight"].to_numpy()
    assert np.all(np.diff(weights) <= 0)  # most supported first
    for a, b in zip(frame.itertuples(), frame.iloc[1:].itertuples(), strict=False):
        assert a.weight > b.weight or a.node < b.node


def test_regression_rules_give_the_leaf_mean_and_its_spread():
    rng = np.random.default_rng(1)
    X, score = synthetic(rng, 300)
    y = score * 10.0 + rng.normal(size=len(score))
    model = rootwise.CARTRegressor(pruning=None, min_samples_leaf=5).fit(X, y)
    frame = rootwise.export_rules(model, as_frame=True)
    assert "std" in frame.columns and "confidence" not in frame.columns
    counts = training_counts(model, X, y, np.ones(len(y)))
    for r in frame.itertuples():
        rows, weight, (mean, std) = counts[r.node]
        assert (r.n_rows, r.weight) == (rows, weight)
        assert r.prediction == pytest.approx(mean, rel=1e-12)
        assert r.std == pytest.approx(std, rel=1e-9, abs=1e-12)
    text = rootwise.export_rules(model, decimals=2)
    assert "each gives the predicted value" in text and ", std " in text


def test_c45_rules_count_rows_with_part_of_their_weight():
    X, y = datasets.load_watermelon_2_0_alpha(return_X_y=True)
    model = rootwise.C45Classifier(pruning=None).fit(X, y)
    text = rootwise.export_rules(model)
    assert text.splitlines()[1].startswith("A row missing a tested value goes down every branch")
    assert "missing" not in "".join(text.splitlines()[2:-1])  # said once, above the rules
    frame = rootwise.export_rules(model, as_frame=True)
    for r in frame.itertuples():
        at = rootwise.node_weights(X, model, node=r.node)
        by_class = np.array([at[y[at.index] == c].sum() for c in model.classes_])
        assert r.n_rows == len(at)
        assert r.weight == pytest.approx(at.sum(), rel=1e-12)
        assert r.confidence == pytest.approx(by_class.max() / by_class.sum(), rel=1e-12)
    assert frame["weight"].sum() == pytest.approx(len(y))  # every row's weight, in pieces


def test_a_staircase_of_depth_ten_thousand_reads_as_intervals():
    rules = rootwise.export_rules(staircase(10_000), as_frame=True)
    assert len(rules) == 10_001
    assert rules["conditions"].map(len).max() == 1
    by_node = rules.set_index("node")["conditions"]
    assert by_node[1] == ["x <= 0"]
    assert by_node[3] == ["0 < x <= 1"]  # missing values go right at x <= 0, then stop at x <= 1
    assert by_node[5] == ["1 < x <= 2"]
    assert by_node[20_000] == ["x > 9999"]


def test_one_leaf_and_errors():
    X, y = datasets.load_watermelon_2_0(return_X_y=True)
    model = rootwise.CARTClassifier().fit(X, np.array(["是"] * len(y)))
    assert rootwise.export_rules(model).splitlines()[1] == (
        "1. if true then 是  [rows 17, weight 17, confidence 1]")
    with pytest.raises(NotFittedError):
        rootwise.export_rules(rootwise.CARTClassifier())
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(ValueError, match="decimals"):
            rootwise.export_rules(model, decimals=bad)
