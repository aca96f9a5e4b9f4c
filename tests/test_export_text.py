"""export_text: the textbook trees as indented text, and every node kind on hand-built trees.

Expected texts are written from the seeds' trees by hand (counts listed in classes_ order, which is
sorted: 否 before 是), not produced by the exporter.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

import rootwise
from rootwise._config import CATEGORICAL, CONTINUOUS, LEAF, MULTIWAY, SUBSET, THRESHOLD
from rootwise.export import export_text
from rootwise.input.schema import Schema
from rootwise.tree import Tree

# Seed 000, figure 4.4 (ID3 on watermelon 2.0): 纹理 at the root; under 纹理=清晰 and 根蒂=稍蜷 the
# 色泽=浅白 branch has no rows and takes its parent's distribution (2 是, 1 否) -> 是.
WATERMELON_TREE = """\
├── 纹理 = 清晰
│   ├── 根蒂 = 蜷缩
│   │   └── class: 是 (否: 0, 是: 5)
│   ├── 根蒂 = 稍蜷
│   │   ├── 色泽 = 青绿
│   │   │   └── class: 是 (否: 0, 是: 1)
│   │   ├── 色泽 = 乌黑
│   │   │   ├── 触感 = 硬滑
│   │   │   │   └── class: 是 (否: 0, 是: 1)
│   │   │   └── 触感 = 软粘
│   │   │       └── class: 否 (否: 1, 是: 0)
│   │   └── 色泽 = 浅白
│   │       └── class: 是 (empty branch: parent's distribution 否: 1, 是: 2)
│   └── 根蒂 = 硬挺
│       └── class: 否 (否: 1, 是: 0)
├── 纹理 = 稍糊
│   ├── 触感 = 硬滑
│   │   └── class: 否 (否: 4, 是: 0)
│   └── 触感 = 软粘
│       └── class: 是 (否: 0, 是: 1)
└── 纹理 = 模糊
    └── class: 否 (否: 3, 是: 0)
"""


@pytest.fixture(scope="module")
def watermelon_model():
    X, y = rootwise.datasets.load("watermelon_2_0", return_X_y=True)
    return rootwise.ID3Classifier().fit(X, y)


def test_watermelon_textbook_tree(watermelon_model):
    assert export_text(watermelon_model) == WATERMELON_TREE


def test_without_counts(watermelon_model):
    text = export_text(watermelon_model, show_counts=False)
    assert "│   │       └── class: 是 (empty branch: parent's distribution)\n" in text
    assert "    └── class: 否\n" in text  # 纹理 = 模糊
    assert re.search(r"\d", text) is None  # no count anywhere


def test_node_ids_are_the_model_nodes(watermelon_model):
    tree = watermelon_model.tree_
    text = export_text(watermelon_model, node_ids=True)
    ids = [int(i) for i in re.findall(r"\[(\d+)\] ", text)]
    assert sorted(ids) == list(range(1, tree.node_count))  # every non-root node exactly once
    empty = int(re.search(r"\[(\d+)\] 色泽 = 浅白", text).group(1))
    assert tree.n_node_samples[empty] == 0
    root_feature = watermelon_model.schema_.feature_names[tree.feature[0]]
    assert root_feature == "纹理"


def test_lagou_numbers_as_categories_print_without_decimal_point():
    # seed 004 case 1: gains of x1 and x2 tie (0.311), the lower column wins; x2 then splits x1=1
    X, y = rootwise.datasets.load("lagou_id3_case1", return_X_y=True)
    text = export_text(rootwise.ID3Classifier().fit(X, y))
    assert text == (
        "├── x1 = 0\n"
        "│   └── class: 0 (0: 2, 1: 0)\n"
        "└── x1 = 1\n"
        "    ├── x2 = 0\n"
        "    │   └── class: 0 (0: 1, 1: 0)\n"
        "    └── x2 = 1\n"
        "        └── class: 1 (0: 0, 1: 1)\n"
    )


def test_single_leaf_tree():
    X = [["a"], ["b"], ["a"]]
    model = rootwise.ID3Classifier().fit(X, ["是", "是", "是"])
    assert export_text(model) == "class: 是 (是: 3)\n"


def test_unfitted_model_and_bad_decimals(watermelon_model):
    with pytest.raises(NotFittedError):
        export_text(rootwise.ID3Classifier())
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="decimals"):
            export_text(watermelon_model, decimals=bad)


# --------------------------------------------------------------------------- hand-built trees


class _Fitted(BaseEstimator):
    """Stand-in for the later C4.5 / CART estimators: only what exporters read."""

    def fit(self, X, y=None):
        return self


def hand_model(nodes, value, pool, schema, classes=None):
    """A fitted-looking model from node rows (kind, feature, threshold, first_child, n_children,
    pool_offset, missing_branch, parent, n_node_samples); depth is derived from parent."""
    cols = list(zip(*nodes, strict=True))
    depth = []
    for p in cols[7]:
        depth.append(0 if p < 0 else depth[p] + 1)
    fields = dict(kind=cols[0], feature=cols[1], threshold=cols[2], first_child=cols[3],
                  n_children=cols[4], pool_offset=cols[5], missing_branch=cols[6], parent=cols[7],
                  depth=depth, impurity=[0.0] * len(nodes), n_node_samples=cols[8],
                  weighted_n_node_samples=np.asarray(cols[8], dtype=float),
                  branch_fraction=[1.0] * len(nodes))
    model = _Fitted()
    model.tree_ = Tree(fields, np.asarray(value, dtype=float), np.asarray(pool), schema.n_categories)
    model.schema_ = schema
    if classes is not None:
        model.classes_ = np.asarray(classes, dtype=object)
    return model


LOAN_SCHEMA = Schema(("有房情况", "婚姻状况", "年收入"), (CATEGORICAL, CATEGORICAL, CONTINUOUS),
                     (("是", "否"), ("单身", "已婚", "离婚"), None), True)
NAN = float("nan")
# Seed 001's CART tree on loan_default after 有房情况: 婚姻状况 {已婚} | {单身, 离婚} (missing values go
# right), then 年收入 <= 97.5 and <= 77.5 (pool of node 0: 单身 -> 1, 已婚 -> 0, 离婚 -> 1).
LOAN_NODES = [
    # kind, feature, threshold, first, n, pool_offset, missing, parent, n_samples
    (SUBSET, 1, NAN, 1, 2, 0, 1, -1, 10),
    (LEAF, -1, NAN, -1, 0, -1, -1, 0, 4),
    (THRESHOLD, 2, 97.5, 3, 2, -1, -1, 0, 6),
    (THRESHOLD, 2, 77.5, 5, 2, -1, -1, 2, 4),
    (LEAF, -1, NAN, -1, 0, -1, -1, 2, 2),
    (LEAF, -1, NAN, -1, 0, -1, -1, 3, 1),
    (LEAF, -1, NAN, -1, 0, -1, -1, 3, 3),
]
LOAN_VALUE = [[7, 3], [4, 0], [3, 3], [1, 3], [2, 0], [1, 0], [0, 3]]


def test_subset_and_threshold_nodes():
    model = hand_model(LOAN_NODES, LOAN_VALUE, [1, 0, 1], LOAN_SCHEMA, ["否", "是"])
    assert export_text(model) == (
        "├── 婚姻状况 in {已婚}\n"
        "│   └── class: 否 (否: 4, 是: 0)\n"
        "└── 婚姻状况 in {单身, 离婚} or missing\n"
        "    ├── 年收入 <= 97.5\n"
        "    │   ├── 年收入 <= 77.5\n"
        "    │   │   └── class: 否 (否: 1, 是: 0)\n"
        "    │   └── 年收入 > 77.5\n"
        "    │       └── class: 是 (否: 0, 是: 3)\n"
        "    └── 年收入 > 97.5\n"
        "        └── class: 否 (否: 2, 是: 0)\n"
    )


def test_decimals_round_thresholds_and_fractional_counts():
    nodes = [list(n) for n in LOAN_NODES]
    nodes[2][2] = 97.5049  # threshold
    value = [list(v) for v in LOAN_VALUE]
    value[4] = [4 / 3, 0.25]  # C4.5-style fractional weights
    model = hand_model(nodes, value, [1, 0, 1], LOAN_SCHEMA, ["否", "是"])
    text = export_text(model, decimals=2)
    assert "年收入 <= 97.5\n" in text and "年收入 > 97.5\n" in text
    assert "class: 否 (否: 1.33, 是: 0.25)" in text
    assert "年收入 <= 97.505\n" in export_text(model, decimals=3)


def test_regression_leaves_show_the_value():
    value = [[3.0], [1.0], [4.5], [2.25], [7.0], [1.0], [2.0]]
    model = hand_model(LOAN_NODES, value, [1, 0, 1], LOAN_SCHEMA)  # no classes_: a regressor
    text = export_text(model)
    assert "│   └── value: 1 (samples: 4)\n" in text
    assert "    │       └── value: 2 (samples: 3)\n" in text
    assert "        └── value: 7 (samples: 2)\n" in text


def test_category_without_branch_stops_at_its_node():
    # 色泽 tested multiway, but 浅白 has no branch (pool -1): such rows stop at node 0
    schema = Schema(("色泽",), (CATEGORICAL,), (("青绿", "乌黑", "浅白"),), True)
    nodes = [(MULTIWAY, 0, NAN, 1, 2, 0, -1, -1, 3),
             (LEAF, -1, NAN, -1, 0, -1, -1, 0, 1),
             (LEAF, -1, NAN, -1, 0, -1, -1, 0, 2)]
    model = hand_model(nodes, [[1, 2], [0, 1], [1, 1]], [0, 1, -1], schema, ["否", "是"])
    assert export_text(model) == (
        "├── 色泽 = 青绿\n"
        "│   └── class: 是 (否: 0, 是: 1)\n"
        "├── 色泽 = 乌黑\n"
        "│   └── class: 否 (否: 1, 是: 1)\n"  # tie -> first class, as predict does
        "└── 色泽 = 浅白 (no branch)\n"
        "    └── class: 是 (no branch: this node's distribution 否: 1, 是: 2)\n"
    )


def test_label_types_and_line_breaks_in_names():
    schema = Schema(("a\nb",), (CATEGORICAL,), ((True, 2, 0.5),), True)
    nodes = [(MULTIWAY, 0, NAN, 1, 3, 0, -1, -1, 3)] + [(LEAF, -1, NAN, -1, 0, -1, -1, 0, 1)] * 3
    model = hand_model(nodes, [[1, 2], [1, 0], [0, 1], [0, 1]], [0, 1, 2], schema, [1.0, 2.5])
    lines = export_text(model).splitlines()
    assert lines == ["├── a\\nb = True", "│   └── class: 1 (1: 1, 2.5: 0)",
                     "├── a\\nb = 2", "│   └── class: 2.5 (1: 0, 2.5: 1)",
                     "└── a\\nb = 0.5", "    └── class: 2.5 (1: 0, 2.5: 1)"]


def test_very_deep_tree_does_not_recurse():
    # a chain of 1500 threshold tests, deeper than Python's recursion limit: node 2k tests
    # x <= k + 0.5, its children are the leaf 2k+1 and the next test 2k+2
    depth = 1500
    schema = Schema(("x",), (CONTINUOUS,), (None,), True)
    nodes = []
    for k in range(depth):
        parent = -1 if k == 0 else 2 * (k - 1)
        nodes.append((THRESHOLD, 0, k + 0.5, 2 * k + 1, 2, -1, -1, parent, 1))
        nodes.append((LEAF, -1, NAN, -1, 0, -1, -1, 2 * k, 1))
    nodes.append((LEAF, -1, NAN, -1, 0, -1, -1, 2 * (depth - 1), 1))
    value = [[1, 1]] * len(nodes)
    model = hand_model(nodes, value, [], schema, ["a", "b"])
    lines = export_text(model).splitlines()
    assert len(lines) == 3 * depth + 1
    assert lines[0] == "├── x <= 0.5" and lines[-2].endswith("└── x > 1499.5")
    assert lines[-1] == "    " * depth + "└── class: a (a: 1, b: 1)"
