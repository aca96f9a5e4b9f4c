"""export_text: the textbook trees as indented text, and every node kind on hand-built trees.

Expected texts are written from the seeds' trees by hand, not produced by the exporter: a leaf reads
"class (weight/misclassified weight)" as J48 prints it, with the non-zero class counts, largest
first, on request.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

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
│   ├── 根蒂 = 蜷缩 → 是 (5)
│   ├── 根蒂 = 稍蜷
│   │   ├── 色泽 = 青绿 → 是 (1)
│   │   ├── 色泽 = 乌黑
│   │   │   ├── 触感 = 硬滑 → 是 (1)
│   │   │   └── 触感 = 软粘 → 否 (1)
│   │   └── 色泽 = 浅白 → 是 (0, parent's class)
│   └── 根蒂 = 硬挺 → 否 (1)
├── 纹理 = 稍糊
│   ├── 触感 = 硬滑 → 否 (4)
│   └── 触感 = 软粘 → 是 (1)
└── 纹理 = 模糊 → 否 (3)
"""


@pytest.fixture(scope="module")
def watermelon_model():
    X, y = rootwise.datasets.load("watermelon_2_0", return_X_y=True)
    return rootwise.ID3Classifier().fit(X, y)


def test_watermelon_textbook_tree(watermelon_model):
    assert export_text(watermelon_model) == WATERMELON_TREE


def test_class_counts_on_request(watermelon_model):
    text = export_text(watermelon_model, show_counts=True)
    # the empty branch shows the distribution it predicts: its parent's (根蒂 = 稍蜷: 2 是, 1 否)
    assert "│   │   └── 色泽 = 浅白 → 是 (0, parent's class) [是: 2, 否: 1]\n" in text
    assert "└── 纹理 = 模糊 → 否 (3) [否: 3]\n" in text  # zero counts are left out
    assert "│   ├── 触感 = 硬滑 → 否 (4) [否: 4]\n" in text
    # without counts: no class count anywhere but the (weight/errors) of the leaves
    plain = export_text(watermelon_model)
    assert "[" not in plain and "否: " not in plain and "是: " not in plain


def test_leaf_weight_and_errors_are_the_rows_of_the_leaf(watermelon_model):
    """Every leaf's (n/errors) against the training rows that end in it, counted with pandas."""
    X, y = rootwise.datasets.load("watermelon_2_0", return_X_y=True)
    model = rootwise.ID3Classifier(max_depth=1).fit(X, y)  # 纹理 only: leaves with errors
    for line in export_text(model).splitlines():
        value = re.search(r"纹理 = (\S+) → (\S) \((\d+)(?:/(\d+))?\)$", line)
        rows = y[X["纹理"] == value.group(1)]
        majority = rows.value_counts().idxmax()
        assert value.group(2) == majority and int(value.group(3)) == len(rows)
        assert int(value.group(4) or 0) == int((rows != majority).sum())


def test_node_ids_are_the_model_nodes(watermelon_model):
    tree = watermelon_model.tree_
    text = export_text(watermelon_model, node_ids=True)
    ids = [int(i) for i in re.findall(r"\[(\d+)\] ", text)]
    assert sorted(ids) == list(range(1, tree.node_count))  # every non-root node exactly once
    empty = int(re.search(r"\[(\d+)\] 色泽 = 浅白 → ", text).group(1))
    assert tree.n_node_samples[empty] == 0
    root_feature = watermelon_model.schema_.feature_names[tree.feature[0]]
    assert root_feature == "纹理"


def test_lagou_numbers_as_categories_print_without_decimal_point():
    # seed 004 case 1: gains of x1 and x2 tie (0.311), the lower column wins; x2 then splits x1=1
    X, y = rootwise.datasets.load("lagou_id3_case1", return_X_y=True)
    text = export_text(rootwise.ID3Classifier().fit(X, y))
    assert text == (
        "├── x1 = 0 → 0 (2)\n"
        "└── x1 = 1\n"
        "    ├── x2 = 0 → 0 (1)\n"
        "    └── x2 = 1 → 1 (1)\n"
    )


def test_single_leaf_tree():
    X = [["a"], ["b"], ["a"]]
    model = rootwise.ID3Classifier().fit(X, ["是", "是", "是"])
    assert export_text(model) == "是 (3)\n"
    assert export_text(model, show_counts=True) == "是 (3) [是: 3]\n"


def test_unfitted_model_and_bad_decimals(watermelon_model):
    with pytest.raises(NotFittedError):
        export_text(rootwise.ID3Classifier())
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="decimals"):
            export_text(watermelon_model, decimals=bad)
        with pytest.raises(ValueError, match="max_depth"):
            export_text(watermelon_model, max_depth=bad)


# --------------------------------------------------------------------------- hand-built trees


class _Fitted(BaseEstimator):
    """Stand-in for the later C4.5 / CART estimators: only what exporters read."""

    def fit(self, X, y=None):
        return self


def hand_model(nodes, value, pool, schema, classes=None, impurity=None):
    """A fitted-looking model from node rows (kind, feature, threshold, first_child, n_children,
    pool_offset, missing_branch, parent, n_node_samples); depth is derived from parent."""
    cols = list(zip(*nodes, strict=True))
    depth = []
    for p in cols[7]:
        depth.append(0 if p < 0 else depth[p] + 1)
    fields = dict(kind=cols[0], feature=cols[1], threshold=cols[2], first_child=cols[3],
                  n_children=cols[4], pool_offset=cols[5], missing_branch=cols[6], parent=cols[7],
                  depth=depth, impurity=impurity or [0.0] * len(nodes), n_node_samples=cols[8],
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
        "├── 婚姻状况 in {已婚} → 否 (4)\n"
        "└── 婚姻状况 in {单身, 离婚} or missing\n"
        "    ├── 年收入 <= 97.5\n"
        "    │   ├── 年收入 <= 77.5 → 否 (1)\n"
        "    │   └── 年收入 > 77.5 → 是 (3)\n"
        "    └── 年收入 > 97.5 → 否 (2)\n"
    )


def test_depth_limit_marks_the_cut_nodes():
    model = hand_model(LOAN_NODES, LOAN_VALUE, [1, 0, 1], LOAN_SCHEMA, ["否", "是"])
    # node 2 (年收入 <= 97.5 below {单身, 离婚}) holds 3 否 and 3 是: a tie goes to the first class
    assert export_text(model, max_depth=1) == (
        "├── 婚姻状况 in {已婚} → 否 (4)\n"
        "└── 婚姻状况 in {单身, 离婚} or missing → 否 (6/3) … (3 leaves below)\n"
    )
    assert export_text(model, max_depth=2, show_counts=True).splitlines()[2] == (
        "    ├── 年收入 <= 97.5 → 是 (4/1) [是: 3, 否: 1] … (2 leaves below)")
    assert export_text(model, max_depth=0) == "否 (10/3) … (4 leaves below)\n"
    assert export_text(model, max_depth=3) == export_text(model)  # deep enough: nothing cut


def test_watermelon_depth_limit(watermelon_model):
    # seed 000's tree cut below 纹理: 清晰 holds 7 是 and 2 否 over 6 leaves, 稍糊 1 是, 4 否
    assert export_text(watermelon_model, max_depth=1) == (
        "├── 纹理 = 清晰 → 是 (9/2) … (6 leaves below)\n"
        "├── 纹理 = 稍糊 → 否 (5/1) … (2 leaves below)\n"
        "└── 纹理 = 模糊 → 否 (3)\n"
    )


def test_decimals_round_thresholds_and_fractional_counts():
    nodes = [list(n) for n in LOAN_NODES]
    nodes[2][2] = 97.5049  # threshold
    value = [list(v) for v in LOAN_VALUE]
    value[4] = [4 / 3, 0.25]  # C4.5-style fractional weights: 1.583 in all, 0.25 misclassified
    model = hand_model(nodes, value, [1, 0, 1], LOAN_SCHEMA, ["否", "是"])
    text = export_text(model, decimals=2, show_counts=True)
    assert "年收入 <= 97.5\n" in text
    assert "    └── 年收入 > 97.5 → 否 (1.58/0.25) [否: 1.33, 是: 0.25]\n" in text
    text = export_text(model, decimals=3)
    assert "年收入 <= 97.505\n" in text and "→ 否 (1.583/0.25)\n" in text


def test_regression_leaves_show_value_spread_and_weight():
    value = [[3.0], [1.0], [4.5], [2.25], [7.0], [1.0], [2.0]]
    impurity = [9.0, 0.25, 4.0, 1.0, 2.25, 0.0, 0.04]  # variances: sd 0.5, 1.5, 0, 0.2
    model = hand_model(LOAN_NODES, value, [1, 0, 1], LOAN_SCHEMA, impurity=impurity)
    lines = export_text(model).splitlines()
    assert lines[0] == "├── 婚姻状况 in {已婚} → 1 ± 0.5 (4)"
    assert lines[3] == "    │   ├── 年收入 <= 77.5 → 1 ± 0 (1)"
    assert lines[4] == "    │   └── 年收入 > 77.5 → 2 ± 0.2 (3)"
    assert lines[5] == "    └── 年收入 > 97.5 → 7 ± 1.5 (2)"
    assert export_text(model, max_depth=1).splitlines()[1] == (
        "└── 婚姻状况 in {单身, 离婚} or missing → 4.5 ± 2 (6) … (3 leaves below)")


def test_regression_spread_is_the_standard_deviation_of_the_leaf_rows():
    frame = rootwise.datasets.load("watermelon_3_0")
    X, y = frame[["密度"]], frame["含糖率"]
    model = rootwise.CARTRegressor(pruning=None, max_depth=2).fit(X, y)
    leaves = model.apply(X)
    found = re.findall(r"→ (\S+) ± (\S+) \((\d+)\)", export_text(model, decimals=6))
    expected = sorted((round(y[leaves == k].mean(), 6), round(y[leaves == k].std(ddof=0), 6),
                       int((leaves == k).sum())) for k in np.unique(leaves))
    assert sorted((float(v), float(sd), int(n)) for v, sd, n in found) == expected


def test_category_without_branch_stops_at_its_node():
    # 色泽 tested multiway, but 浅白 has no branch (pool -1): such rows stop at node 0
    schema = Schema(("色泽",), (CATEGORICAL,), (("青绿", "乌黑", "浅白"),), True)
    nodes = [(MULTIWAY, 0, NAN, 1, 2, 0, -1, -1, 3),
             (LEAF, -1, NAN, -1, 0, -1, -1, 0, 1),
             (LEAF, -1, NAN, -1, 0, -1, -1, 0, 2)]
    model = hand_model(nodes, [[1, 2], [0, 1], [1, 1]], [0, 1, -1], schema, ["否", "是"])
    assert export_text(model) == (
        "├── 色泽 = 青绿 → 是 (1)\n"
        "├── 色泽 = 乌黑 → 否 (2/1)\n"  # tie -> first class, as predict does
        "└── 色泽 = 浅白 (no branch) → stops here: 是\n"
    )
    assert export_text(model, show_counts=True).splitlines()[2] == (
        "└── 色泽 = 浅白 (no branch) → stops here: 是 [是: 2, 否: 1]")


def test_subset_category_without_branch_is_handled_as_missing():
    # CART: 离婚 reached no row at the node, so it has no branch; predict treats it as missing
    model = hand_model(LOAN_NODES, LOAN_VALUE, [1, 0, -1], LOAN_SCHEMA, ["否", "是"])
    lines = export_text(model).splitlines()
    assert lines[1] == "├── 婚姻状况 in {单身} or missing"
    assert lines[-1] == "└── 婚姻状况 in {离婚} (no branch) → handled as missing"


def test_label_types_and_line_breaks_in_names():
    schema = Schema(("a\nb",), (CATEGORICAL,), ((True, 2, 0.5),), True)
    nodes = [(MULTIWAY, 0, NAN, 1, 3, 0, -1, -1, 3)] + [(LEAF, -1, NAN, -1, 0, -1, -1, 0, 1)] * 3
    model = hand_model(nodes, [[1, 2], [1, 0], [0, 1], [0, 1]], [0, 1, 2], schema, [1.0, 2.5])
    lines = export_text(model, show_counts=True).splitlines()
    assert lines == ["├── a\\nb = True → 1 (1) [1: 1]",
                     "├── a\\nb = 2 → 2.5 (1) [2.5: 1]",
                     "└── a\\nb = 0.5 → 2.5 (1) [2.5: 1]"]


def staircase(depth: int):
    """A chain of ``depth`` threshold tests: node 2k tests x <= k + 0.5, its children are the leaf
    2k+1 and the next test 2k+2 (the last test's right child is a leaf too)."""
    schema = Schema(("x",), (CONTINUOUS,), (None,), True)
    nodes = []
    for k in range(depth):
        parent = -1 if k == 0 else 2 * (k - 1)
        nodes.append((THRESHOLD, 0, k + 0.5, 2 * k + 1, 2, -1, -1, parent, 1))
        nodes.append((LEAF, -1, NAN, -1, 0, -1, -1, 2 * k, 1))
    nodes.append((LEAF, -1, NAN, -1, 0, -1, -1, 2 * (depth - 1), 1))
    return hand_model(nodes, [[1, 1]] * len(nodes), [], schema, ["a", "b"])


def line_depth(line: str) -> int:
    """The level of a line: the "[+k] " levels left out plus one per 4-character guide."""
    skipped = re.match(r"\[\+(\d+)\] ", line)
    rest = line[skipped.end():] if skipped else line
    guides = re.match(r"((?:│   |    )*)[├└]── ", rest)
    return (int(skipped.group(1)) if skipped else 0) + len(guides.group(1)) // 4


@pytest.mark.parametrize("depth", [1500, 10_000])
def test_very_deep_tree_does_not_recurse(depth):
    # deeper than Python's recursion limit; the indentation restarts every 48 levels, so the text
    # grows linearly with the nodes (the full indentation of 10^4 levels would be 400 MB)
    lines = export_text(staircase(depth)).splitlines()
    assert len(lines) == 2 * depth
    for k in range(depth):  # test k's two branches, at level k
        left, right = lines[2 * k], lines[2 * k + 1]
        assert line_depth(left) == k and left.endswith(f"├── x <= {k}.5 → a (2/1)")
        assert line_depth(right) == k and right.endswith(f"└── x > {k}.5" + (
            " → a (2/1)" if k == depth - 1 else ""))
    assert max(map(len, lines)) < 48 * 4 + 40
    assert lines[95] == "    " * 47 + "└── x > 47.5" and lines[96] == "[+48] ├── x <= 48.5 → a (2/1)"


# --------------------------------------------------------------------------- J48's own printout

J48_DIR = Path(__file__).parent / "golden" / "j48"
J48_LINE = re.compile(r"^((?:\|   )*)(.+?) (=|<=|>) (.+?)(?:: (\S+) \(([\d.]+)(?:/([\d.]+))?\))?$")
OUR_LINE = re.compile(r"^(?:\[\+(\d+)\] )?((?:│   |    )*)[├└]── (.+?) (=|<=|>) (.+?)"
                      r"(?: → (\S+) \((?:(0), parent's class|([\d.]+)(?:/([\d.]+))?)\))?$")


def j48_rows(text: str) -> list[tuple]:
    """(depth, attribute, op, value, class, weight, errors) of each line of J48's tree."""
    out = []
    for line in text.strip().splitlines():
        m = J48_LINE.match(line)
        leaf = m.group(5) is not None
        out.append((len(m.group(1)) // 4, m.group(2), m.group(3), m.group(4),
                    m.group(5), float(m.group(6)) if leaf else None,
                    float(m.group(7) or 0) if leaf else None))
    return out


def our_rows(text: str) -> list[tuple]:
    out = []
    for line in text.strip().splitlines():
        m = OUR_LINE.match(line)
        depth = int(m.group(1) or 0) + len(m.group(2)) // 4
        leaf = m.group(6) is not None
        weight = float(m.group(7) or m.group(8)) if leaf else None
        out.append((depth, m.group(3), m.group(4), m.group(5), m.group(6), weight,
                    float(m.group(9) or 0) if leaf else None))
    return out


@pytest.mark.parametrize("name", ["soybean", "segment-challenge", "labor", "vote", "weather.nominal"])
def test_text_says_what_j48_prints(name):
    """The J48 tree grown from the ARFF file (nominal values in declared order, so branches come
    in J48's order) prints line for line what Weka's J48 printed: the same tests at the same
    depths, and at each leaf the same class, weight and errors (J48 rounds to 2 decimals and
    prints 6 significant digits of a threshold)."""
    golden = json.loads((J48_DIR / f"{name}.json").read_text(encoding="utf-8"))
    frame = rootwise.read_data(J48_DIR / "data" / f"{name}.arff")
    target = golden["class_attribute"]
    model = rootwise.C45Classifier(release8=True).fit(frame.drop(columns=[target]), frame[target])
    theirs = j48_rows(golden["pruned_tree"]["text"])
    ours = our_rows(export_text(model, decimals=6))
    assert len(ours) == len(theirs) == model.tree_.node_count - 1
    for a, b in zip(ours, theirs, strict=True):
        assert a[:3] == b[:3], (a, b)
        if a[2] == "=":
            assert a[3] == b[3]
        else:
            assert float(a[3]) == pytest.approx(float(b[3]), rel=1e-5), (a, b)
        assert (a[4] is None) == (b[4] is None)
        if a[4] is not None:
            assert a[5] == pytest.approx(b[5], abs=0.005 + 1e-9), (a, b)
            assert a[6] == pytest.approx(b[6], abs=0.005 + 1e-9), (a, b)
            assert a[4] == b[4], (a, b)
