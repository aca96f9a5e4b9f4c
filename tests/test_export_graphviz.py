"""export_graphviz: DOT text that parses, escapes names, and draws the textbook tree."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

import rootwise
from rootwise._config import CATEGORICAL, CONTINUOUS, LEAF, SUBSET, THRESHOLD
from rootwise.export import export_graphviz
from rootwise.input.schema import Schema
from rootwise.tree import Tree

# Checked by hand against seed 000's tree (figure 4.4): node numbers are the model's (children of a
# node are numbered together, depth first); counts are (否, 是).
WATERMELON_DOT = r"""digraph Tree {
graph [ordering="out"] ;
node [shape=box, fontname="sans-serif"] ;
edge [fontname="sans-serif"] ;
0 [label="纹理\n否: 9, 是: 8"] ;
0 -> 1 [label="清晰"] ;
0 -> 2 [label="稍糊"] ;
0 -> 3 [label="模糊"] ;
1 [label="根蒂\n否: 2, 是: 7"] ;
1 -> 4 [label="蜷缩"] ;
1 -> 5 [label="稍蜷"] ;
1 -> 6 [label="硬挺"] ;
2 [label="触感\n否: 4, 是: 1"] ;
2 -> 12 [label="硬滑"] ;
2 -> 13 [label="软粘"] ;
3 [label="class: 否\n否: 3, 是: 0", style="rounded"] ;
4 [label="class: 是\n否: 0, 是: 5", style="rounded"] ;
5 [label="色泽\n否: 1, 是: 2"] ;
5 -> 7 [label="青绿"] ;
5 -> 8 [label="乌黑"] ;
5 -> 9 [label="浅白"] ;
6 [label="class: 否\n否: 1, 是: 0", style="rounded"] ;
7 [label="class: 是\n否: 0, 是: 1", style="rounded"] ;
8 [label="触感\n否: 1, 是: 1"] ;
8 -> 10 [label="硬滑"] ;
8 -> 11 [label="软粘"] ;
9 [label="class: 是\nempty branch (parent's counts)\n否: 1, 是: 2", style="rounded"] ;
10 [label="class: 是\n否: 0, 是: 1", style="rounded"] ;
11 [label="class: 否\n否: 1, 是: 0", style="rounded"] ;
12 [label="class: 否\n否: 4, 是: 0", style="rounded"] ;
13 [label="class: 是\n否: 0, 是: 1", style="rounded"] ;
}
"""

_STRING = r'"((?:[^"\\]|\\.)*)"'
_NODE = re.compile(rf'^(\d+|"[^"]*") \[label={_STRING}(?:, [a-z]+="[a-z,]*")*\] ;$')
_EDGE = re.compile(rf'^(\d+) -> (\d+|"[^"]*") \[label={_STRING}(?:, [a-z]+="[a-z,]*")*\] ;$')
_HEADER = ('digraph Tree {', 'graph [ordering="out"] ;')


def parse(dot: str):
    """Node labels and edges of our DOT output; fails on any line that is not well formed."""
    lines = dot.splitlines()
    assert lines[:2] == list(_HEADER) and lines[-1] == "}"
    nodes, edges = {}, []
    for line in lines[2:-1]:
        if line.startswith(("node [", "edge [")):
            continue
        if m := _EDGE.match(line):
            edges.append((m.group(1), m.group(2), unescape(m.group(3))))
        elif m := _NODE.match(line):
            nodes[m.group(1)] = unescape(m.group(2))
        else:
            raise AssertionError(f"not a DOT statement: {line!r}")
    return nodes, edges


def unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), text)


def follow(nodes, edges, *labels) -> str:
    node = "0"
    for label in labels:
        (node,) = [dst for src, dst, lab in edges if src == node and lab == label]
    return nodes[node]


@pytest.fixture(scope="module")
def watermelon_model():
    X, y = rootwise.datasets.load("watermelon_2_0", return_X_y=True)
    return rootwise.ID3Classifier().fit(X, y)


def test_watermelon_golden(watermelon_model):
    assert export_graphviz(watermelon_model) == WATERMELON_DOT


def test_watermelon_structure(watermelon_model):
    nodes, edges = parse(export_graphviz(watermelon_model))
    assert len(nodes) == 14 and len(edges) == 13
    assert nodes["0"].splitlines()[0] == "纹理"
    assert follow(nodes, edges, "清晰", "蜷缩") == "class: 是\n否: 0, 是: 5"
    assert follow(nodes, edges, "清晰", "稍蜷").splitlines()[0] == "色泽"
    assert follow(nodes, edges, "清晰", "稍蜷", "乌黑", "硬滑").splitlines()[0] == "class: 是"
    assert follow(nodes, edges, "清晰", "稍蜷", "乌黑", "软粘").splitlines()[0] == "class: 否"
    empty = follow(nodes, edges, "清晰", "稍蜷", "浅白")
    assert empty.startswith("class: 是\nempty branch")
    assert follow(nodes, edges, "清晰", "硬挺") == "class: 否\n否: 1, 是: 0"
    assert follow(nodes, edges, "稍糊", "硬滑") == "class: 否\n否: 4, 是: 0"
    assert follow(nodes, edges, "稍糊", "软粘") == "class: 是\n否: 0, 是: 1"
    assert follow(nodes, edges, "模糊") == "class: 否\n否: 3, 是: 0"


def test_quotes_backslashes_and_line_breaks_are_escaped():
    name = 'say "hi" \\N'  # \N would be expanded by graphviz to the node name if not escaped
    X = pd.DataFrame({name: ['a"b', "c\\d", "e\nf", 'a"b']})
    model = rootwise.ID3Classifier().fit(X, ["y", "n", "n", "y"])
    nodes, edges = parse(export_graphviz(model))
    assert nodes["0"].splitlines()[0] == name
    assert sorted(lab for _, _, lab in edges) == sorted(['a"b', "c\\d", "e\\nf"])


def test_subset_threshold_and_missing_edges():
    schema = Schema(("婚姻状况", "年收入"), (CATEGORICAL, CONTINUOUS), (("单身", "已婚", "离婚"), None), True)
    nan = np.nan
    fields = dict(kind=[SUBSET, LEAF, THRESHOLD, LEAF, LEAF], feature=[0, -1, 1, -1, -1],
                  threshold=[nan, nan, 97.5, nan, nan], first_child=[1, -1, 3, -1, -1],
                  n_children=[2, 0, 2, 0, 0], pool_offset=[0, -1, -1, -1, -1],
                  missing_branch=[1, -1, -1, -1, -1], parent=[-1, 0, 0, 2, 2], depth=[0, 1, 1, 2, 2],
                  impurity=[0.0] * 5, n_node_samples=[10, 4, 6, 4, 2],
                  weighted_n_node_samples=[10.0, 4.0, 6.0, 4.0, 2.0], branch_fraction=[1.0] * 5)
    value = np.array([[7, 3], [4, 0], [3, 3], [1, 3], [2, 0]], dtype=float)

    class Fitted(BaseEstimator):
        def fit(self, X, y=None):
            return self

    model = Fitted()
    model.tree_ = Tree(fields, value, np.array([1, 0, 1]), schema.n_categories)
    model.schema_ = schema
    model.classes_ = np.array(["否", "是"], dtype=object)
    nodes, edges = parse(export_graphviz(model))
    assert edges == [("0", "1", "in {已婚}"), ("0", "2", "in {单身, 离婚} or missing"),
                     ("2", "3", "<= 97.5"), ("2", "4", "> 97.5")]
    assert nodes["2"] == "年收入\n否: 3, 是: 3"
    assert nodes["3"] == "class: 是\n否: 1, 是: 3"


def test_unfitted_model():
    with pytest.raises(NotFittedError):
        export_graphviz(rootwise.ID3Classifier())


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz is not installed")
def test_graphviz_accepts_it(watermelon_model):
    done = subprocess.run(["dot", "-Tsvg"], input=export_graphviz(watermelon_model).encode(),
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
