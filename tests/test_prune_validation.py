"""Issue 5: pruning judged on a validation set (seed 000 §3), for every algorithm.

The textbook case is the watermelon book's §4.3 (seed 000 §3, figures 3-5): watermelon 2.0, training
rows 编号 1, 2, 3, 6, 7, 10, 14, 15, 16, 17, validation rows 4, 5, 8, 9, 11, 12, 13, information
gain. Every tree and accuracy asserted below is worked out by hand in the comments, from the seed's
definitions and rootwise's documented tie rules:

  * attributes of equal gain: the lowest column wins;
  * classes of equal weight at a node: the first class of ``classes_``, the sorted labels, and
    '否' (U+5426) sorts before '是' (U+662F);
  * an empty branch predicts its parent's class distribution (seed 000, stopping case 3);
  * pre-pruning splits a node only if that raises validation accuracy, post-pruning makes a node a
    leaf unless that lowers it (seed 000 §3: "若分支对性能没有提升" / "若无则剪枝"), i.e.
    ``prune_on_tie=True``; ``prune_on_tie=False`` is the book's conservative choice in figure 4.7.

Training rows (色泽 根蒂 敲声 纹理 脐部 触感 -> 好瓜):    Validation rows:
   1 青绿 蜷缩 浊响 清晰 凹陷 硬滑 是                        4 青绿 蜷缩 沉闷 清晰 凹陷 硬滑 是
   2 乌黑 蜷缩 沉闷 清晰 凹陷 硬滑 是                        5 浅白 蜷缩 浊响 清晰 凹陷 硬滑 是
   3 乌黑 蜷缩 浊响 清晰 凹陷 硬滑 是                        8 乌黑 稍蜷 浊响 清晰 稍凹 硬滑 是
   6 青绿 稍蜷 浊响 清晰 稍凹 软粘 是                        9 乌黑 稍蜷 沉闷 稍糊 稍凹 硬滑 否
   7 乌黑 稍蜷 浊响 稍糊 稍凹 软粘 是                       11 浅白 硬挺 清脆 模糊 平坦 硬滑 否
  10 青绿 硬挺 清脆 清晰 平坦 软粘 否                       12 浅白 蜷缩 浊响 模糊 平坦 软粘 否
  14 浅白 稍蜷 沉闷 稍糊 凹陷 硬滑 否                       13 青绿 稍蜷 浊响 稍糊 凹陷 硬滑 否
  15 乌黑 稍蜷 浊响 清晰 稍凹 软粘 否
  16 浅白 蜷缩 浊响 模糊 平坦 硬滑 否                       (3 是, 4 否: a leaf 否 gets 4/7 right,
  17 青绿 蜷缩 沉闷 稍糊 稍凹 硬滑 否                        a leaf 是 3/7)

Notation below: {a,b|c} = training rows a, b of class 是 and c of class 否; Ent(2/2) = 1,
Ent(3/1) = Ent(1/3) = 0.811, Ent(3/2) = 0.971, Ent(4/2) = Ent(1/2) = 0.918.

Root, 5 是 / 5 否, Ent(D) = 1:
  色泽  青绿 {1,6|10,17} 1, 乌黑 {2,3,7|15} 0.811, 浅白 {|14,16} 0  -> 1 - (.4*1 + .4*.811)   = 0.275
  根蒂  蜷缩 {1,2,3|16,17} .971, 稍蜷 {6,7|14,15} 1, 硬挺 {|10} 0   -> 1 - (.5*.971 + .4*1)   = 0.115
  敲声  浊响 {1,3,6,7|15,16} .918, 沉闷 {2|14,17} .918, 清脆 {|10}   -> 1 - .9*.918            = 0.174
  纹理  清晰 {1,2,3,6|10,15} .918, 稍糊 {7|14,17} .918, 模糊 {|16}   -> 1 - .9*.918            = 0.174
  脐部  凹陷 {1,2,3|14} .811, 稍凹 {6,7|15,17} 1, 平坦 {|10,16} 0   -> 1 - (.4*.811 + .4*1)   = 0.275
  触感  硬滑 {1,2,3|14,16,17} 1, 软粘 {6,7|10,15} 1                  -> 0
色泽 and 脐部 tie exactly (the same branch counts 2/2, 3/1, 0/2): rootwise takes 色泽 (column 0),
the book 脐部. The book's trees come out when the columns are reordered so that 脐部 is first.
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

import rootwise
from rootwise import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier, datasets, pruning_report
from rootwise._config import LEAF, MULTIWAY
from rootwise.prune.collapse import collapse

TRAIN_IDS = [1, 2, 3, 6, 7, 10, 14, 15, 16, 17]
VAL_IDS = [4, 5, 8, 9, 11, 12, 13]
COLUMNS = ["色泽", "根蒂", "敲声", "纹理", "脐部", "触感"]
BOOK_COLUMNS = ["脐部", "色泽", "根蒂", "敲声", "纹理", "触感"]  # 脐部 first: the tie rule picks it

GOLDEN = "tests/golden/j48/data"


# --------------------------------------------------------------------------- helpers


def textbook(columns=COLUMNS, table="watermelon_2_0"):
    """(X_train, y_train, X_val, y_val) of the textbook split, columns in the given order."""
    df = datasets.load(table)
    train, val = df[df["编号"].isin(TRAIN_IDS)], df[df["编号"].isin(VAL_IDS)]
    assert train["编号"].tolist() == TRAIN_IDS and val["编号"].tolist() == VAL_IDS
    return (train[columns].reset_index(drop=True), train["好瓜"].reset_index(drop=True),
            val[columns].reset_index(drop=True), val["好瓜"].reset_index(drop=True))


def structure(model, node=0):
    """A multiway tree as nested dicts {"attribute=value": subtree}, leaves as their class."""
    t = model.tree_
    if t.kind[node] == LEAF:
        return str(model.classes_[int(np.argmax(t.value[node]))])
    assert t.kind[node] == MULTIWAY
    f = int(t.feature[node])
    name, cats = model.schema_.feature_names[f], model.schema_.categories[f]
    slots = t.branch_of_category(node)
    return {f"{name}={cats[int(np.flatnonzero(slots == b)[0])]}": structure(model, child)
            for b, child in enumerate(t.children(node))}


def n_right(model, X, y) -> int:
    return int(np.sum(model.predict(X) == np.asarray(y)))


def steps_as_counts(model, n=7):
    """(node, validation rows, right answers of the whole tree as subtree / as leaf, pruned)."""
    out = []
    for s in model.pruning_steps_:
        sub, leaf = s.score_as_subtree * n, s.score_as_leaf * n
        assert sub == pytest.approx(round(sub)) and leaf == pytest.approx(round(leaf))
        out.append((s.node, s.n_validation, round(sub), round(leaf), s.pruned))
    return out


def val_score(model, tree, X_val, y_val) -> float:
    """The validation score of ``model`` with its tree replaced: accuracy or minus the MSE."""
    m = copy.copy(model)
    m.tree_ = tree
    pred = m.predict(X_val)
    if hasattr(model, "classes_"):
        return float(np.mean(pred == np.asarray(y_val)))
    return -float(np.mean((pred - np.asarray(y_val, dtype=float)) ** 2))


def reference_reduced_error(full_model, X_val, y_val, prune_on_tie=True):
    """Seed 000 §3.2 the slow way: visit the internal nodes of the unpruned tree bottom-up (highest
    id first: children have higher ids than their parents), score the whole tree by ``predict``
    with and without the node made a leaf, prune unless that lowers the score."""
    full = full_model.tree_
    make_leaf = np.zeros(full.node_count, dtype=bool)
    now = val_score(full_model, full, X_val, y_val)
    steps = []
    for node in range(full.node_count - 1, -1, -1):
        if full.kind[node] == LEAF:
            continue
        trial = make_leaf.copy()
        trial[node] = True
        as_leaf = val_score(full_model, collapse(full, trial), X_val, y_val)
        tie = abs(as_leaf - now) <= 1e-9
        prune = (tie and prune_on_tie) or (not tie and as_leaf > now)
        steps.append((node, now, as_leaf, prune))
        if prune:
            make_leaf, now = trial, as_leaf
    return collapse(full, make_leaf), steps


def check_reduced_error(model, X, y, X_val, y_val):
    """The fitted reduced-error model agrees with the slow reference, step by step."""
    full = copy.deepcopy(model).set_params(pruning=None).fit(X, y)
    tree, ref = reference_reduced_error(full, X_val, y_val, model.prune_on_tie)
    got = [(s.node, s.score_as_subtree, s.score_as_leaf, s.pruned) for s in model.pruning_steps_]
    assert [g[0] for g in got] == [r[0] for r in ref]
    for g, r in zip(got, ref, strict=True):
        assert g[1] == pytest.approx(r[1], abs=1e-9), g
        assert g[2] == pytest.approx(r[2], abs=1e-9), g
        assert g[3] == r[3], g
    assert model.tree_ == tree
    return full


def check_prepruning_replay(model, X_val, y_val):
    """Replay the pre-pruning decisions on the fitted tree: before step k the nodes split by
    earlier steps are split and every other node is a leaf; the step's scores are those of that
    tree with its node as a leaf and split into leaves, as ``predict`` scores them."""
    tree = model.tree_
    internal = tree.kind != LEAF
    split = np.zeros(tree.node_count, dtype=bool)
    for s in model.pruning_steps_:
        make_leaf = internal & ~split
        make_leaf[s.node] = True
        assert val_score(model, collapse(tree, make_leaf), X_val, y_val) == \
            pytest.approx(s.score_as_leaf, abs=1e-9), s
        if s.pruned:
            assert not internal[s.node]
        else:
            make_leaf[s.node] = False
            assert val_score(model, collapse(tree, make_leaf), X_val, y_val) == \
                pytest.approx(s.score_as_subtree, abs=1e-9), s
            split[s.node] = True
    assert np.array_equal(split, internal), "every split of the fitted tree was a recorded decision"


def golden(name):
    frame = pd.read_csv(f"{GOLDEN}/{name}.csv", keep_default_na=False, na_values=[""])
    return frame.iloc[:, :-1], frame.iloc[:, -1]


def fixed_split(X, y, n_val, seed=0):
    order = np.random.default_rng(seed).permutation(len(y))
    tr, va = order[n_val:], order[:n_val]
    return (X.iloc[tr].reset_index(drop=True), y.iloc[tr].reset_index(drop=True),
            X.iloc[va].reset_index(drop=True), y.iloc[va].reset_index(drop=True))


# --------------------------------------------------------------------------- the textbook: rootwise's rules


def test_textbook_root_gains_tie():
    X, y, _, _ = textbook()
    table = rootwise.explain(X, y, rootwise.ID3Classifier())
    assert table["gain"].to_numpy() == pytest.approx([0.2755, 0.1145, 0.1735, 0.1735, 0.2755, 0.0],
                                                     abs=5e-4)
    assert table["gain"][0] == pytest.approx(table["gain"][4], abs=1e-12)
    assert table["attribute"][table["chosen"]].tolist() == ["色泽"]


# The unpruned tree (rootwise's rules, 色泽 at the root):
#   色泽=青绿 {1,6|10,17}: gains 根蒂 .5, 敲声 1 (浊响 {1,6|}, 沉闷 {|17}, 清脆 {|10}), 纹理 .311,
#     脐部 .5, 触感 0 -> 敲声: 是 / 否 / 否.
#   色泽=乌黑 {2,3,7|15}, Ent .811: 根蒂 .311 (蜷缩 {2,3|}, 稍蜷 {7|15}), 敲声 .123, 纹理 .123,
#     脐部 .311, 触感 .311 -> 根蒂 (lowest column of the tie).
#     根蒂=蜷缩 -> 是; 根蒂=硬挺 is empty -> the parent's 3/1 -> 是;
#     根蒂=稍蜷 {7|15}: 纹理 1 (清晰 {|15}, 稍糊 {7|}), the rest 0 -> 纹理: 清晰 否, 稍糊 是,
#       模糊 empty -> the parent's 1/1 tie -> 否.
#   色泽=浅白 {|14,16} -> 否.
# Node ids (depth first, children consecutive): 0 root; 1-3 青绿 乌黑 浅白; 4-6 under 青绿;
# 7-9 under 乌黑 (蜷缩 稍蜷 硬挺); 10-12 under 乌黑/稍蜷 (清晰 稍糊 模糊).
UNPRUNED = {
    "色泽=青绿": {"敲声=浊响": "是", "敲声=沉闷": "否", "敲声=清脆": "否"},
    "色泽=乌黑": {"根蒂=蜷缩": "是",
                "根蒂=稍蜷": {"纹理=清晰": "否", "纹理=稍糊": "是", "纹理=模糊": "否"},
                "根蒂=硬挺": "是"},
    "色泽=浅白": "否",
}
# 色泽 at the root; 乌黑 split by 根蒂 into leaves; 青绿 and 浅白 leaves
PRUNED_KEEPING_TIES = {
    "色泽=青绿": "否",
    "色泽=乌黑": {"根蒂=蜷缩": "是", "根蒂=稍蜷": "否", "根蒂=硬挺": "是"},
    "色泽=浅白": "否",
}


def test_textbook_unpruned():
    X, y, Xv, yv = textbook()
    m = ID3Classifier().fit(X, y)
    assert structure(m) == UNPRUNED
    # 4 青绿 沉闷 -> 否 x; 5 浅白 -> 否 x; 8 乌黑 稍蜷 清晰 -> 否 x; 9 乌黑 稍蜷 稍糊 -> 是 x;
    # 11 浅白 -> 否 ok; 12 浅白 -> 否 ok; 13 青绿 浊响 -> 是 x: 2/7
    assert n_right(m, Xv, yv) == 2
    assert m.pruning_steps_ is None


def test_textbook_pre_pruning():
    X, y, Xv, yv = textbook()
    m = ID3Classifier(pruning="pre").fit(X, y, X_val=Xv, y_val=yv)
    # Root as a leaf: 5/5 tie -> 否 -> right on the 4 否 rows: 4/7.
    # Split by 色泽, children as leaves: 青绿 2/2 -> 否, 乌黑 3/1 -> 是, 浅白 -> 否:
    #   4 青绿 否 x, 5 浅白 否 x, 8 乌黑 是 ok, 9 乌黑 是 x, 11 ok, 12 ok, 13 青绿 否 ok: 4/7.
    # No improvement: the root stays a leaf.
    assert structure(m) == "否"
    assert n_right(m, Xv, yv) == 4
    assert steps_as_counts(m) == [(0, 7, 4, 4, True)]


def test_textbook_pre_pruning_splitting_on_ties():
    X, y, Xv, yv = textbook()
    m = ID3Classifier(pruning="pre", prune_on_tie=False).fit(X, y, X_val=Xv, y_val=yv)
    # root: 4/7 either way -> split (ties split). Children 1 青绿, 2 乌黑, 3 浅白.
    # node 1 青绿 (validation 4 是, 13 否): as leaf 否 -> 13 ok: 1/2;
    #   split by 敲声: 4 沉闷 -> 否 x, 13 浊响 -> 是 x: 0/2 -> the tree would drop to 3/7 -> leaf.
    # node 2 乌黑 (validation 8 是, 9 否): as leaf 是 -> 8 ok: 1/2;
    #   split by 根蒂 (蜷缩 是, 稍蜷 1/1 -> 否, 硬挺 empty -> 是): 8 稍蜷 否 x, 9 稍蜷 否 ok: 1/2
    #   -> tie -> split (4/7 stays). Children 4 蜷缩 (pure), 5 稍蜷, 6 硬挺 (empty: no decision).
    # node 5 乌黑/稍蜷 (validation 8, 9): as leaf 否 -> 9 ok: 1/2;
    #   split by 纹理: 8 清晰 否 x, 9 稍糊 是 x: 0/2 -> leaf.  node 3 浅白 is pure.
    assert structure(m) == PRUNED_KEEPING_TIES
    assert n_right(m, Xv, yv) == 4
    assert steps_as_counts(m) == [(0, 7, 4, 4, False), (1, 2, 3, 4, True), (2, 2, 4, 4, False),
                                  (5, 2, 3, 4, True)]
    assert [s.path for s in m.pruning_steps_] == ["", "色泽 = 青绿", "色泽 = 乌黑",
                                                  "色泽 = 乌黑 → 根蒂 = 稍蜷"]


def test_textbook_post_pruning():
    X, y, Xv, yv = textbook()
    m = ID3Classifier(pruning="reduced-error").fit(X, y, X_val=Xv, y_val=yv)
    # Internal nodes of the unpruned tree, bottom-up: 8, 2, 1, 0.
    # node 8 乌黑/稍蜷 (leaf 否 by the 1/1 tie; validation 8 是, 9 否): subtree 8 清晰 否 x,
    #   9 稍糊 是 x: 0/2; leaf 否: 9 ok: 1/2 -> prune; the tree goes 2/7 -> 3/7.
    # node 2 乌黑 (leaf 是; validation 8, 9): subtree (稍蜷 now a leaf 否) 9 ok: 1/2;
    #   leaf 是: 8 ok: 1/2 -> tie -> prune; 3/7.
    # node 1 青绿 (leaf 否 by the 2/2 tie; validation 4 是, 13 否): subtree 0/2 (see above);
    #   leaf 否: 13 ok: 1/2 -> prune; 4/7.
    # node 0 root (leaf 否): subtree = 色泽 with leaves 否 / 是 / 否: 4/7 (as in pre-pruning);
    #   leaf 否: 4/7 -> tie -> prune. A single leaf 否: 4/7.
    assert structure(m) == "否"
    assert n_right(m, Xv, yv) == 4
    assert steps_as_counts(m) == [(8, 2, 2, 3, True), (2, 2, 3, 3, True), (1, 2, 3, 4, True),
                                  (0, 7, 4, 4, True)]
    assert [s.path for s in m.pruning_steps_] == ["色泽 = 乌黑 → 根蒂 = 稍蜷", "色泽 = 乌黑",
                                                  "色泽 = 青绿", ""]
    check_reduced_error(m, X, y, Xv, yv)


def test_textbook_post_pruning_keeping_ties():
    X, y, Xv, yv = textbook()
    m = ID3Classifier(pruning="reduced-error", prune_on_tie=False).fit(X, y, X_val=Xv, y_val=yv)
    # The same scores as above; the ties (nodes 2 and 0) now keep their subtrees:
    # 8 pruned (3/7), 2 kept, 1 pruned (4/7), 0 kept -> the tree pre-pruning grew on ties.
    assert structure(m) == PRUNED_KEEPING_TIES
    assert n_right(m, Xv, yv) == 4
    assert steps_as_counts(m) == [(8, 2, 2, 3, True), (2, 2, 3, 3, False), (1, 2, 3, 4, True),
                                  (0, 7, 4, 4, False)]
    check_reduced_error(m, X, y, Xv, yv)


# --------------------------------------------------------------------------- the textbook: the book's trees

# Columns reordered: 脐部 first, so the root's tie goes to 脐部, as in the book.
#   脐部=凹陷 {1,2,3|14}, Ent .811: 色泽 .811, 根蒂 .811, 纹理 .811 (each isolates 14), 敲声 .311,
#     触感 0 -> 色泽 (first of the tie, the book's choice too): 青绿 是, 乌黑 是, 浅白 否.
#   脐部=稍凹 {6,7|15,17}, Ent 1: 色泽 0, 根蒂 .311, 敲声 .311, 纹理 0, 触感 .311 -> 根蒂:
#     蜷缩 {|17} 否; 硬挺 empty -> the parent's 2/2 tie -> 否 (the book: 是);
#     稍蜷 {6,7|15}, Ent .918: 色泽 .252 (青绿 {6|}, 乌黑 {7|15}), 纹理 .252, 敲声 0, 触感 0 -> 色泽:
#       青绿 是; 浅白 empty -> the parent's 2/1 -> 是;
#       乌黑 {7|15}: 纹理 1 -> 清晰 否, 稍糊 是, 模糊 empty -> 1/1 tie -> 否 (the book: 是).
#   脐部=平坦 {|10,16} -> 否.
# Node ids: 0; 1-3 凹陷 稍凹 平坦; 4-6 凹陷/色泽; 7-9 稍凹/根蒂; 10-12 稍凹/稍蜷/色泽;
# 13-15 稍凹/稍蜷/乌黑/纹理. Internal nodes: 0, 1, 2, 8, 11.
def book_unpruned(yes_on_ties):
    tie = "是" if yes_on_ties else "否"
    return {
        "脐部=凹陷": {"色泽=青绿": "是", "色泽=乌黑": "是", "色泽=浅白": "否"},
        "脐部=稍凹": {"根蒂=蜷缩": "否",
                   "根蒂=稍蜷": {"色泽=青绿": "是",
                               "色泽=乌黑": {"纹理=清晰": "否", "纹理=稍糊": "是", "纹理=模糊": tie},
                               "色泽=浅白": "是"},
                   "根蒂=硬挺": tie},
        "脐部=平坦": "否",
    }


def book_post_pruned(yes_on_ties):
    """The book's figure 4.7 (seed 000 figure 5): ties keep the subtree."""
    tie = "是" if yes_on_ties else "否"
    return {
        "脐部=凹陷": "是",
        "脐部=稍凹": {"根蒂=蜷缩": "否",
                   "根蒂=稍蜷": {"色泽=青绿": "是", "色泽=乌黑": tie, "色泽=浅白": "是"},
                   "根蒂=硬挺": tie},
        "脐部=平坦": "否",
    }


def test_book_order_unpruned():
    X, y, Xv, yv = textbook(BOOK_COLUMNS)
    m = ID3Classifier().fit(X, y)
    assert structure(m) == book_unpruned(yes_on_ties=False)
    # 4 凹陷 青绿 是 ok; 5 凹陷 浅白 否 x; 8 稍凹 稍蜷 乌黑 清晰 否 x; 9 稍凹 稍蜷 乌黑 稍糊 是 x;
    # 11, 12 平坦 否 ok; 13 凹陷 青绿 是 x: 3/7 (the book: 42.9%)
    assert n_right(m, Xv, yv) == 3


def test_book_order_pre_pruning():
    X, y, Xv, yv = textbook(BOOK_COLUMNS)
    m = ID3Classifier(pruning="pre").fit(X, y, X_val=Xv, y_val=yv)
    # root: as leaf 否 (5/5 tie) 4/7 (the book labels it 是: 3/7);
    #   split by 脐部 into leaves 凹陷 是 (3/1), 稍凹 否 (2/2 tie; the book: 是), 平坦 否:
    #   4 ok, 5 ok, 8 稍凹 否 x, 9 稍凹 否 ok, 11 ok, 12 ok, 13 凹陷 是 x: 5/7 -> split.
    # node 1 凹陷 (validation 4 是, 5 是, 13 否): leaf 是 2/3; split by 色泽: 4 青绿 是 ok,
    #   5 浅白 否 x, 13 青绿 是 x: 1/3 -> the tree would drop to 4/7 -> leaf.
    # node 2 稍凹 (validation 8 是, 9 否): leaf 否 1/2; split by 根蒂 (稍蜷 -> 是 2/1):
    #   8 ok, 9 x: 1/2 -> tie -> leaf (the book too: "未提升, 禁止划分"). Node 3 平坦 is pure.
    assert structure(m) == {"脐部=凹陷": "是", "脐部=稍凹": "否", "脐部=平坦": "否"}
    assert n_right(m, Xv, yv) == 5  # the book: 71.4%
    assert steps_as_counts(m) == [(0, 7, 5, 4, False), (1, 3, 4, 5, True), (2, 2, 5, 5, True)]


def test_book_order_post_pruning():
    X, y, Xv, yv = textbook(BOOK_COLUMNS)
    # bottom-up over 11, 8, 2, 1, 0:
    # 11 稍蜷/乌黑 (leaf 否 by the 1/1 tie; validation 8 是, 9 否): subtree 8 清晰 否 x, 9 稍糊 是 x
    #   0/2; leaf 否: 9 ok 1/2 -> prune; 3/7 -> 4/7.
    # 8 稍凹/稍蜷 (leaf 是, 2/1; validation 8, 9): subtree (乌黑 now 否) 9 ok 1/2; leaf 是: 8 ok
    #   1/2 -> tie: pruned by default, kept with prune_on_tie=False (the book keeps it).
    # 2 稍凹 (leaf 否; validation 8, 9): subtree 1/2 either way; leaf 否 1/2 -> tie, as node 8.
    # 1 凹陷 (leaf 是; validation 4, 5, 13): subtree 1/3, leaf 2/3 -> prune; 4/7 -> 5/7.
    # 0 root (leaf 否): subtree 5/7, leaf 4/7 -> keep.
    m = ID3Classifier(pruning="reduced-error").fit(X, y, X_val=Xv, y_val=yv)
    assert structure(m) == {"脐部=凹陷": "是", "脐部=稍凹": "否", "脐部=平坦": "否"}
    assert n_right(m, Xv, yv) == 5
    assert steps_as_counts(m) == [(11, 2, 3, 4, True), (8, 2, 4, 4, True), (2, 2, 4, 4, True),
                                  (1, 3, 4, 5, True), (0, 7, 5, 4, False)]
    keep = ID3Classifier(pruning="reduced-error", prune_on_tie=False).fit(X, y, X_val=Xv, y_val=yv)
    assert structure(keep) == book_post_pruned(yes_on_ties=False)
    assert n_right(keep, Xv, yv) == 5  # the book: 71.4%
    assert [s.pruned for s in keep.pruning_steps_] == [True, False, False, True, False]
    check_reduced_error(keep, X, y, Xv, yv)


def test_book_labels_when_yes_sorts_first():
    """With 否 renamed 非 (U+975E sorts after 是), class ties go to 是 as in the book, and the three
    trees are the book's figures 4.5, 4.6 and 4.7 (seed 000 figures 3-5), labels included."""
    X, y, Xv, yv = textbook(BOOK_COLUMNS)
    y, yv = y.replace({"否": "非"}), yv.replace({"否": "非"})

    def book(tree):  # the expected trees above, written with 否
        if isinstance(tree, str):
            return "非" if tree == "否" else tree
        return {k: book(v) for k, v in tree.items()}

    full = ID3Classifier().fit(X, y)
    assert structure(full) == book(book_unpruned(yes_on_ties=True))
    assert n_right(full, Xv, yv) == 3  # 42.9%: no validation row reaches the relabelled leaves
    pre = ID3Classifier(pruning="pre").fit(X, y, X_val=Xv, y_val=yv)
    assert structure(pre) == {"脐部=凹陷": "是", "脐部=稍凹": "是", "脐部=平坦": "非"}
    # root as leaf 是 now: 3/7, the book's 42.9%; the split: 5/7 (稍凹 是: 8 ok, 9 x)
    assert steps_as_counts(pre) == [(0, 7, 5, 3, False), (1, 3, 4, 5, True), (2, 2, 5, 5, True)]
    post = ID3Classifier(pruning="reduced-error", prune_on_tie=False).fit(X, y, X_val=Xv, y_val=yv)
    assert structure(post) == book(book_post_pruned(yes_on_ties=True))
    assert n_right(post, Xv, yv) == 5
    # node 11 as a leaf is 是 now (the book's "好瓜"): 8 ok, 9 x -- still 1/2
    assert steps_as_counts(post) == [(11, 2, 3, 4, True), (8, 2, 4, 4, False), (2, 2, 4, 4, False),
                                     (1, 3, 4, 5, True), (0, 7, 5, 3, False)]


# --------------------------------------------------------------------------- C4.5 and CART, same interface


def test_c45_textbook():
    X, y, Xv, yv = textbook()
    # Gain ratio among the attributes with at least the average gain (1.013 / 6 = 0.169): 色泽,
    # 敲声, 纹理, 脐部. IV(色泽) = IV(脐部) = -(2 * .4 log2 .4 + .2 log2 .2) = 1.522 -> ratio 0.181;
    # IV(敲声) = IV(纹理) = -(.6 log2 .6 + .3 log2 .3 + .1 log2 .1) = 1.295 -> ratio 0.134.
    # 色泽 wins (tie with 脐部, lowest column): the root's decision is the one worked out for ID3,
    # 4/7 as a leaf and 4/7 split -> a leaf.
    pre = C45Classifier(pruning="pre").fit(X, y, X_val=Xv, y_val=yv)
    assert pre.tree_.node_count == 1 and n_right(pre, Xv, yv) == 4
    assert steps_as_counts(pre) == [(0, 7, 4, 4, True)]
    post = C45Classifier(pruning="reduced-error").fit(X, y, X_val=Xv, y_val=yv)
    full = check_reduced_error(post, X, y, Xv, yv)
    assert full.tree_.feature[0] == 0  # 色泽
    assert n_right(post, Xv, yv) == 4 and post.pruning_steps_[-1].node == 0


def test_cart_textbook():
    X, y, Xv, yv = textbook()
    # Gini index of the best binary splits at the root (Gini(D) = 0.5):
    #   色泽 {浅白} | {青绿, 乌黑}: .2 * 0 + .8 * (1 - (5/8)^2 - (3/8)^2) = .8 * .469 = 0.375
    #   脐部 {平坦} | {凹陷, 稍凹}: the same counts (0/2 and 5/3) = 0.375
    #   纹理 {清晰}, 脐部 {凹陷}, 色泽 {乌黑}: 0.417; 根蒂 {硬挺}, 敲声 {清脆}, 纹理 {模糊}: 0.444;
    #   the rest >= 0.476 -> 色泽 (lowest column of the tie).
    # Pre-pruning: leaves {青绿, 乌黑} 5/3 -> 是 and {浅白} -> 否: 4 ok, 5 x, 8 ok, 9 x, 11 ok,
    # 12 ok, 13 x: 4/7, as the root leaf 否 -> a leaf.
    pre = CARTClassifier(pruning="pre").fit(X, y, X_val=Xv, y_val=yv)
    assert pre.tree_.node_count == 1 and n_right(pre, Xv, yv) == 4
    assert steps_as_counts(pre) == [(0, 7, 4, 4, True)]
    post = CARTClassifier(pruning="reduced-error").fit(X, y, X_val=Xv, y_val=yv)
    full = check_reduced_error(post, X, y, Xv, yv)
    assert full.tree_.feature[0] == 0 and full.tree_.n_leaves > 2


def test_cart_regressor_squared_error_by_hand():
    # x = 1, 2, 3, 4 with y = 0, 2, 10, 12. Root thresholds: 1.5 -> SSE 0 + 56, 2.5 -> 2 + 2,
    # 3.5 -> 56 + 0: x <= 2.5 (means 1 | 11); then 1.5 (0 | 2) and 3.5 (10 | 12).
    # Node ids: 0 root (mean 6); 1 x<=2.5 (1), 2 x>2.5 (11); 3, 4 under 1; 5, 6 under 2.
    # Validation x = 1, 2, 3, 4 with y = 1, 1, 9, 13 (squared errors below):
    #   root as a leaf (6): 25 + 25 + 9 + 49 = 108 -> MSE 27
    #   node 1 as a leaf (1): 0 + 0 = 0;  its leaves 0, 2: 1 + 1 = 2
    #   node 2 as a leaf (11): 4 + 4 = 8;  its leaves 10, 12: 1 + 1 = 2
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    y = np.array([0.0, 2.0, 10.0, 12.0])
    yv = np.array([1.0, 1.0, 9.0, 13.0])
    post = CARTRegressor(pruning="reduced-error").fit(X, y, X_val=X, y_val=yv)
    # bottom-up 2, 1, 0 on the full tree (loss 2 + 2 = 4, MSE 1):
    #   node 2: subtree 2, leaf 8 -> keep;  node 1: subtree 2, leaf 0 -> prune: loss 2, MSE 0.5
    #   node 0: subtree 2 (MSE 0.5), leaf 108 (MSE 27) -> keep
    got = [(s.node, s.n_validation, -s.score_as_subtree, -s.score_as_leaf, s.pruned)
           for s in post.pruning_steps_]
    assert got == [(2, 2, pytest.approx(1.0), pytest.approx(2.5), False),
                   (1, 2, pytest.approx(1.0), pytest.approx(0.5), True),
                   (0, 4, pytest.approx(0.5), pytest.approx(27.0), False)]
    assert post.predict(X).tolist() == [1.0, 1.0, 10.0, 12.0]
    pre = CARTRegressor(pruning="pre").fit(X, y, X_val=X, y_val=yv)
    # root: leaf 108, split into leaves 1 | 11: 0 + 8 = 8 -> split (MSE 2)
    # node 1: leaf 0, split 2 -> leaf;  node 2: leaf 8, split 2 -> split (loss 0 + 2, MSE 0.5)
    got = [(s.node, -s.score_as_subtree, -s.score_as_leaf, s.pruned) for s in pre.pruning_steps_]
    assert got == [(0, pytest.approx(2.0), pytest.approx(27.0), False),
                   (1, pytest.approx(2.5), pytest.approx(2.0), True),
                   (2, pytest.approx(0.5), pytest.approx(2.0), False)]
    assert pre.tree_ == post.tree_
    check_reduced_error(post, X, y, X, yv)
    check_prepruning_replay(pre, X, yv)


def test_cart_regressor_ties():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    y = np.array([0.0, 2.0, 10.0, 12.0])
    Xv, yv = pd.DataFrame({"x": [3.0, 4.0]}), np.array([11.0, 11.0])
    # The tree of the test above. Validation rows only under node 2: as a leaf (11) loss 0, its
    # leaves 10 / 12 lose 1 + 1 -> pruned. Node 1 has no validation rows: 0 = 0 is a tie -> pruned
    # by default, kept with prune_on_tie=False. The root: 0 as a subtree, 25 + 25 as a leaf (6).
    tie = CARTRegressor(pruning="reduced-error").fit(X, y, X_val=Xv, y_val=yv)
    assert [(s.node, s.n_validation, s.pruned) for s in tie.pruning_steps_] == \
        [(2, 2, True), (1, 0, True), (0, 2, False)]
    keep = CARTRegressor(pruning="reduced-error", prune_on_tie=False).fit(X, y, X_val=Xv, y_val=yv)
    assert [(s.node, s.pruned) for s in keep.pruning_steps_] == [(2, True), (1, False), (0, False)]
    assert keep.get_n_leaves() == 3 and tie.get_n_leaves() == 2


# --------------------------------------------------------------------------- against the slow reference


def test_missing_values_in_validation_c45_and_cart():
    """Watermelon 2.0α (cells missing in training and validation rows): C4.5 sends a row with a
    missing value down every branch and combines the predictions, CART follows surrogates; the
    reduced-error decisions are those of the slow reference that scores ``predict`` itself."""
    X, y, Xv, yv = textbook(table="watermelon_2_0_alpha")
    assert Xv.isna().any().any()
    for est in (C45Classifier(pruning="reduced-error", min_samples_leaf=1, min_samples_split=2),
                CARTClassifier(pruning="reduced-error"),
                CARTClassifier(pruning="reduced-error", prune_on_tie=False)):
        m = est.fit(X, y, X_val=Xv, y_val=yv)
        check_reduced_error(m, X, y, Xv, yv)
        assert m.pruning_steps_[0].score_as_subtree == pytest.approx(
            np.mean(copy.deepcopy(est).set_params(pruning=None).fit(X, y).predict(Xv) == yv))
    pre = CARTClassifier(pruning="pre", prune_on_tie=False).fit(X, y, X_val=Xv, y_val=yv)
    check_prepruning_replay(pre, Xv, yv)


@pytest.mark.parametrize("make", [
    lambda: C45Classifier(pruning="reduced-error"),
    lambda: C45Classifier(pruning="reduced-error", prune_on_tie=False),
    lambda: CARTClassifier(pruning="reduced-error"),
    lambda: ID3Classifier(pruning="reduced-error"),
], ids=["c45", "c45-keep-ties", "cart", "id3"])
def test_reduced_error_matches_reference_on_vote(make):
    X, y = golden("vote")  # 16 yes/no votes, 392 missing cells
    est = make()
    if isinstance(est, ID3Classifier):  # ID3 refuses missing values: read them as a vote "?"
        X = X.fillna("?")
    X, y, Xv, yv = fixed_split(X, y, 150)
    m = est.fit(X, y, X_val=Xv, y_val=yv)
    full = check_reduced_error(m, X, y, Xv, yv)
    assert full.tree_.node_count > 10
    assert m.pruning_steps_[-1].score_as_subtree >= m.pruning_steps_[0].score_as_subtree


def test_fractional_rows_reach_nodes_in_part():
    """A C4.5 validation row missing the root's attribute reaches each child with its share r_v."""
    # a = x (4 rows): b = u -> p, p; b = v -> n, n.   a = y (6 rows): all n, b = u, u, u, v, v, v.
    # Gains at the root (2 p / 8 n, Ent .722): a .322, b .046 -> a; r_x = 4/10, r_y = 6/10.
    # Node 1 (a = x) splits by b into p | n; node 2 (a = y) is a leaf n.
    X = pd.DataFrame({"a": list("xxxxyyyyyy"), "b": list("uuvvuuuvvv")})
    y = ["p", "p", "n", "n", "n", "n", "n", "n", "n", "n"]
    Xv = pd.DataFrame({"a": ["x", None, "y"], "b": ["u", "u", "v"]})
    yv = ["p", "p", "n"]
    m = C45Classifier(pruning="reduced-error", min_samples_leaf=1, min_samples_split=2).fit(
        X, y, X_val=Xv, y_val=yv)
    # node 1 is reached by row 0 and by 4/10 of row 1: 1.4 rows
    assert [(s.node, s.n_validation) for s in m.pruning_steps_] == [(1, pytest.approx(1.4)), (0, 3)]
    check_reduced_error(m, X, y, Xv, yv)


def test_unseen_category_in_validation_stops_where_predict_stops():
    # training: a -> p (3 rows), b -> n (2 rows): the root's majority is p. At a multiway node
    # (ID3, C4.5) validation rows with the unseen value c stop at the root and are predicted p, as
    # predict does (before the fix, pre-pruning sent them down the last branch, b -> n).
    X = pd.DataFrame({"c": ["a", "a", "a", "b", "b"]})
    y = ["p", "p", "p", "n", "n"]
    Xv = pd.DataFrame({"c": ["c", "c", "c", "a", "b"]})
    yv = ["n", "n", "n", "p", "n"]
    for est in (ID3Classifier(), C45Classifier(min_samples_leaf=1, min_samples_split=2)):
        for pruning in ("pre", "reduced-error"):
            m = est.set_params(pruning=pruning).fit(X, y, X_val=Xv, y_val=yv)
            # leaf p: 1/5 right; split: a p ok, b n ok, the three c rows p x: 2/5
            [step] = m.pruning_steps_
            assert (step.score_as_leaf, step.score_as_subtree) == pytest.approx((0.2, 0.4))
            assert np.mean(m.predict(Xv) == np.array(yv)) == pytest.approx(0.4)


def test_unseen_category_at_a_cart_split_is_scored_as_predict_routes_it():
    # CART: c in {a} (rows n, n, p) | {b} (p, p), d a copy of c (a perfect surrogate). The root's
    # majority is p; the larger child predicts n. A validation row with an unseen c (z) is routed
    # by predict like a missing value: by its d, and with d unseen too (w), to the larger child.
    # As a leaf the root gets 2/6 right; split, all 6 (scoring the z rows at the root, as if they
    # stopped there, would give 3/6).
    X = pd.DataFrame({"c": ["a", "a", "a", "b", "b"], "d": ["u", "u", "u", "v", "v"]})
    y = ["n", "n", "p", "p", "p"]
    Xv = pd.DataFrame({"c": ["z", "z", "z", "a", "b", "z"], "d": ["w", "w", "u", "u", "v", "v"]})
    yv = ["n", "n", "n", "n", "p", "p"]
    for tie in (True, False):
        pre = CARTClassifier(pruning="pre", prune_on_tie=tie).fit(X, y, X_val=Xv, y_val=yv)
        assert [(s.score_as_leaf, s.score_as_subtree) for s in pre.pruning_steps_] == \
            [pytest.approx((2 / 6, 1.0))]
        check_prepruning_replay(pre, Xv, yv)
        post = CARTClassifier(pruning="reduced-error", prune_on_tie=tie).fit(X, y, X_val=Xv, y_val=yv)
        check_reduced_error(post, X, y, Xv, yv)


def test_pre_pruning_replays_on_real_tables():
    X, y = golden("vote")
    X, y, Xv, yv = fixed_split(X, y, 150)
    m = CARTClassifier(pruning="pre", prune_on_tie=False).fit(X, y, X_val=Xv, y_val=yv)
    assert len(m.pruning_steps_) > 3
    check_prepruning_replay(m, Xv, yv)
    X, y = golden("diabetes")  # numeric, no missing values: C4.5's thresholds
    X, y, Xv, yv = fixed_split(X, y, 250)
    for est in (C45Classifier(pruning="pre", prune_on_tie=False), CARTClassifier(pruning="pre")):
        m = est.fit(X, y, X_val=Xv, y_val=yv)
        assert len(m.pruning_steps_) > 3
        check_prepruning_replay(m, Xv, yv)


def test_regression_with_missing_values_against_reference():
    rng = np.random.default_rng(3)
    n = 160
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.choice(["u", "v", "w"], n),
                      "c": rng.normal(size=n)})
    y = 3 * (X["a"] > 0) + (X["b"] == "u") + rng.normal(scale=0.8, size=n)
    X.loc[rng.random(n) < 0.15, "a"] = np.nan
    X, y, Xv, yv = fixed_split(X, pd.Series(y), 60)
    post = CARTRegressor(pruning="reduced-error").fit(X, y, X_val=Xv, y_val=yv)
    check_reduced_error(post, X, y, Xv, yv)
    pre = CARTRegressor(pruning="pre").fit(X, y, X_val=Xv, y_val=yv)
    check_prepruning_replay(pre, Xv, yv)


# --------------------------------------------------------------------------- validation_fraction


def test_validation_fraction_is_a_stratified_train_test_split():
    X, y = datasets.load_watermelon_2_0(return_X_y=True)
    for est in (ID3Classifier(pruning="reduced-error"), CARTClassifier(pruning="pre")):
        carved = est.set_params(validation_fraction=0.4, random_state=7).fit(X, y)
        train, held = train_test_split(np.arange(len(y)), test_size=0.4, random_state=7, stratify=y)
        explicit = copy.deepcopy(est).fit(X.iloc[train], y.iloc[train],
                                          X_val=X.iloc[held], y_val=y.iloc[held])
        assert carved.tree_ == explicit.tree_
        assert carved.pruning_steps_ == explicit.pruning_steps_
        # 40% of 17 rows, rounded up: 7 held out (stratified: 3 of the 8 是, 4 of the 9 否)
        assert [s.n_validation for s in carved.pruning_steps_ if s.node == 0] == [7]


def test_validation_fraction_is_reproducible():
    X, y = golden("breast-cancer")
    runs = [C45Classifier(pruning="reduced-error", random_state=s).fit(X, y) for s in (0, 0, 1)]
    assert runs[0].tree_ == runs[1].tree_ and runs[0].pruning_steps_ == runs[1].pruning_steps_
    assert runs[0].pruning_steps_ != runs[2].pruning_steps_


def test_validation_fraction_is_stratified():
    # 16 A and 4 B; a quarter held out = 5 rows, stratified: always 4 A + 1 B, so the root as a
    # leaf (A) is right on exactly 4/5 of them, whatever the random_state
    X = pd.DataFrame({"f": list("xxxxxxxxyyyyyyyyxyxy")})
    y = ["A"] * 16 + ["B"] * 4
    for seed in range(10):
        m = ID3Classifier(pruning="pre", validation_fraction=0.25, random_state=seed).fit(X, y)
        root = m.pruning_steps_[0]
        assert (root.node, root.n_validation) == (0, 5)
        assert root.score_as_leaf == pytest.approx(0.8)


def test_validation_fraction_without_stratification():
    # a class with a single row cannot be stratified: the held-out rows are drawn plainly
    X = pd.DataFrame({"f": list("xxxxyyyyxz")})
    y = ["A"] * 4 + ["B"] * 5 + ["C"]
    m = ID3Classifier(pruning="reduced-error", validation_fraction=0.3, random_state=0).fit(X, y)
    assert m.pruning_steps_ is not None
    reg = CARTRegressor(pruning="pre", validation_fraction=0.3, random_state=0)
    reg.fit(pd.DataFrame({"x": np.arange(20.0)}), np.arange(20.0) % 7)
    assert reg.pruning_steps_[0].n_validation == 6


# --------------------------------------------------------------------------- errors and what is recorded


@pytest.mark.parametrize("est, kwargs, message", [
    (ID3Classifier(pruning="pre"), {"X_val": "X"}, "both X_val and y_val"),
    (ID3Classifier(pruning="pre"), {"y_val": "y"}, "both X_val and y_val"),
    (ID3Classifier(), {"X_val": "X", "y_val": "y"}, "pruning='pre' or 'reduced-error'"),
    (C45Classifier(), {"X_val": "X", "y_val": "y"}, "pruning is 'error-based'"),
    (CARTClassifier(), {"X_val": "X", "y_val": "y"}, "pruning is 'cost-complexity'"),
    (ID3Classifier(pruning="reduced-error"), {"X_val": "X", "y_val": "unknown"}, "label '不知道'"),
    (ID3Classifier(pruning="reduced-error"), {"X_val": "X", "y_val": "short"}, "different numbers"),
    (ID3Classifier(pruning="reduced-error"), {"X_val": "reordered", "y_val": "y"}, "same order"),
    (ID3Classifier(pruning="reduced-error"), {"X_val": "missing", "y_val": "y"}, "missing values"),
    (ID3Classifier(pruning="reduced-error"), {"X_val": "empty", "y_val": "none"}, "0 sample"),
    (ID3Classifier(pruning="error-based"), {}, "The 'pruning' parameter of .* must be a str among"),
    (C45Classifier(pruning="cost-complexity"), {}, "The 'pruning' parameter of .* must be a str among"),
    (CARTClassifier(pruning="error-based"), {}, "The 'pruning' parameter of .* must be a str among"),
    (ID3Classifier(pruning="pre", validation_fraction=1.0), {}, "validation_fraction"),
    (ID3Classifier(pruning="pre", validation_fraction=0.01), {}, "cannot hold out"),
])
def test_errors(est, kwargs, message):
    X, y, Xv, yv = textbook()
    values = {"X": Xv, "y": yv, "unknown": yv.replace({"否": "不知道"}), "short": yv[:3],
              "reordered": Xv[COLUMNS[::-1]], "missing": Xv.mask(Xv == "浅白"),
              "empty": Xv.iloc[:0], "none": yv[:0]}
    before = ID3Classifier().fit(X, y).tree_
    fitted = ID3Classifier().fit(X, y)
    with pytest.raises(ValueError, match=message):
        est.fit(X, y, **{k: values[v] for k, v in kwargs.items()})
    if isinstance(est, ID3Classifier):  # a failed fit leaves a fitted model as it was
        with pytest.raises(ValueError, match=message):
            fitted.set_params(**est.get_params()).fit(X, y, **{k: values[v] for k, v in kwargs.items()})
        assert fitted.tree_ == before and fitted.pruning_steps_ is None


def test_regression_target_errors():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    for y_val, message in (([np.nan], "y_val contains NaN"), (["a"], "y_val must be numeric")):
        with pytest.raises(ValueError, match=message):
            CARTRegressor(pruning="pre").fit(X, [1.0, 2, 3, 4], X_val=X.iloc[:1], y_val=y_val)


def test_what_each_pruning_records():
    X, y = datasets.load_watermelon_2_0(return_X_y=True)
    assert ID3Classifier().fit(X, y).pruning_steps_ is None
    assert C45Classifier().fit(X, y).pruning_steps_ is None  # error-based: no validation data
    cart = CARTClassifier(random_state=0, cv=3).fit(X, y)
    assert cart.pruning_steps_ is None and cart.cp_table_ is not None
    pre = CARTClassifier(pruning="pre", random_state=0).fit(X, y)
    assert pre.cp_table_ is None and pre.pruning_steps_


# --------------------------------------------------------------------------- the report


def test_report_of_the_textbook_post_pruning():
    X, y, Xv, yv = textbook()
    m = ID3Classifier(pruning="reduced-error").fit(X, y, X_val=Xv, y_val=yv)
    assert pruning_report(m) == """\
Post-pruning (reduced-error, Zhou 2016, §4.3.2); ties prune (prune_on_tie=True).
Validation accuracy on 7 rows: 2/7 = 0.286 unpruned, 4/7 = 0.571 pruned.
Node numbers are those of the unpruned tree (pruning=None); children come first.

node  rows   as subtree      as leaf  decision  path
   8     2  2/7 = 0.286  3/7 = 0.429  pruned    色泽 = 乌黑 → 根蒂 = 稍蜷
   2     2  3/7 = 0.429  3/7 = 0.429  pruned    色泽 = 乌黑
   1     2  3/7 = 0.429  4/7 = 0.571  pruned    色泽 = 青绿
   0     7  4/7 = 0.571  4/7 = 0.571  pruned    (root)
"""


def test_report_of_pre_pruning_and_regression():
    X, y, Xv, yv = textbook(BOOK_COLUMNS)
    text = pruning_report(ID3Classifier(pruning="pre").fit(X, y, X_val=Xv, y_val=yv), digits=2)
    assert text.splitlines()[:2] == [
        "Pre-pruning (Zhou 2016, §4.3.1); ties do not split (prune_on_tie=True).",
        "Validation accuracy on 7 rows: 4/7 = 0.57 root alone, 5/7 = 0.71 grown."]
    assert text.splitlines()[-1].split() == ["2", "2", "5/7", "=", "0.71", "5/7", "=", "0.71", "leaf",
                                             "脐部", "=", "稍凹"]
    Xr = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    reg = CARTRegressor(pruning="reduced-error").fit(Xr, [0.0, 2, 10, 12], X_val=Xr, y_val=[1.0, 1, 9, 13])
    assert "Validation mean squared error on 4 rows: 1.000 unpruned, 0.500 pruned." in pruning_report(reg)


def test_report_of_cost_complexity_and_errors():
    X, y = datasets.load_watermelon_2_0(return_X_y=True)
    cart = CARTClassifier(random_state=0, cv=3).fit(X, y)
    text = pruning_report(cart)
    assert text.startswith("Cost-complexity pruning (Breiman et al. 1984): alpha chosen by 3-fold")
    assert sum(line.endswith("*") for line in text.splitlines()) == 1
    for model in (ID3Classifier().fit(X, y), C45Classifier().fit(X, y),
                  CARTClassifier(ccp_alpha=0.01).fit(X, y)):
        with pytest.raises(ValueError, match="records no pruning decisions"):
            pruning_report(model)
    with pytest.raises(ValueError, match="digits"):
        pruning_report(cart, digits=-1)


def test_report_survives_save_and_load(tmp_path):
    X, y, Xv, yv = textbook()
    m = ID3Classifier(pruning="reduced-error").fit(X, y, X_val=Xv, y_val=yv)
    rootwise.save(m, tmp_path / "m.json")
    back = rootwise.load(tmp_path / "m.json")
    assert back.pruning_steps_ == m.pruning_steps_
    assert pruning_report(back) == pruning_report(m)


# --------------------------------------------------------------------------- the compiled pass


def validation_case(model, X, y, Xv, yv, seed):
    """(the grown tree, encoded validation rows, their targets, weights with zeros and fractions)."""
    rng = np.random.default_rng(seed)
    full = copy.deepcopy(model).set_params(pruning=None).fit(X, y)
    Xe = full._encode(Xv)
    if hasattr(full, "classes_"):
        target = np.searchsorted(full.classes_, np.asarray(yv)).astype(np.int64)
    else:
        target = np.asarray(yv, dtype=np.float64)
    w = np.where(rng.random(len(target)) < 0.15, 0.0, rng.integers(1, 5, len(target)) / 3)
    return full.tree_, Xe, target, w


@pytest.mark.parametrize("seed", range(3))
def test_reduced_error_is_the_former_implementation(seed):
    """The compiled pass gives the former numpy implementation's tree and steps bit for bit, on
    trees of every algorithm, with validation weights (zeros, thirds) and missing values (C4.5's
    fractional rows take the by-prediction path)."""
    import reduced_error_oracle as oracle

    from rootwise.prune.reduced_error import reduced_error_prune

    rng = np.random.default_rng(seed)
    n = 300
    X = pd.DataFrame({"a": np.round(rng.normal(size=n), 1), "b": rng.choice(list("uvwxyz"), n),
                      "c": rng.normal(size=n), "d": rng.choice(list("pq"), n)})
    score = X["a"] + (X["b"] == "u") - (X["d"] == "p") + rng.normal(scale=0.7, size=n)
    y_class = pd.Series(np.select([score > 0.8, score > -0.5], ["hi", "mid"], "lo"))
    Xm = X.copy()
    Xm.loc[rng.random(n) < 0.15, "a"] = np.nan
    Xm.loc[rng.random(n) < 0.1, "b"] = None
    cases = [(ID3Classifier(), X[["b", "d"]], y_class), (C45Classifier(), Xm, y_class),
             (C45Classifier(min_samples_leaf=1), X, y_class), (CARTClassifier(), Xm, y_class),
             (CARTRegressor(), Xm, pd.Series(score))]
    fractional = 0
    for model, data, target in cases:
        Xt, yt, Xv, yv = fixed_split(data, target, 120, seed)
        tree, Xe, y_val, w_val = validation_case(model, Xt, yt, Xv, yv, seed)
        regression = isinstance(model, CARTRegressor)
        for tie in (True, False):
            new_tree, table = reduced_error_prune(tree, Xe, y_val, w_val, regression=regression,
                                                  prune_on_tie=tie)
            old_tree, old_steps = oracle.reduced_error_prune(tree, Xe, y_val, w_val,
                                                             regression=regression, prune_on_tie=tie)
            assert new_tree == old_tree
            assert table.steps() == old_steps
        fractional += isinstance(model, C45Classifier) and bool(
            oracle._fractional_rows(tree, Xe, tree.apply(Xe)).any())
    assert fractional == 1  # the C4.5 tree with missing values took the by-prediction path


def test_steps_are_made_when_read(monkeypatch):
    """``fit`` writes no path (a path is as long as its node is deep); the first read of
    ``pruning_steps_`` writes them once, and later reads return the same list."""
    import rootwise.prune.report as report

    calls = []
    node_paths = report.node_paths
    monkeypatch.setattr(report, "node_paths", lambda *a, **k: calls.append(1) or node_paths(*a, **k))
    X, y, Xv, yv = textbook()
    for pruning in ("pre", "reduced-error"):
        calls.clear()
        m = ID3Classifier(pruning=pruning).fit(X, y, X_val=Xv, y_val=yv)
        assert calls == []
        steps = m.pruning_steps_
        assert calls == [1] and m.pruning_steps_ is steps
        assert all(isinstance(s.node, int) and isinstance(s.pruned, bool) for s in steps)


def test_reduced_error_on_a_staircase_10000_deep():
    """Depth 10^4, the validation rows being the training rows (x = 0 .. 2 x 10^4 + 1): the
    unpruned tree is right on all of them. In the lower half every subtree holds class 0 only, so
    making it a leaf costs nothing and ties prune; above, a node as a leaf predicts class 0 and
    misses the class-1 pairs (odd p) of the upper half below it, so it stays. Each step reports
    the rows reaching its node, 2 (10^4 - d + 1) at split 2d."""
    from deep_trees import class_counts_of_staircase, staircase, staircase_classes

    from rootwise.prune.reduced_error import reduced_error_prune
    from rootwise.tree import Tree

    depth, half = 10_000, 5_000
    tree, X = staircase(depth)
    y = staircase_classes(depth)
    fields = {name: getattr(tree, name) for name in rootwise.tree.NODE_FIELDS}
    tree = Tree(fields, class_counts_of_staircase(depth, y), tree.pool, tree.n_categories)
    pruned, table = reduced_error_prune(tree, X, y, np.ones(len(y)))
    d = np.arange(depth - 1, -1, -1)  # the splits, children first
    np.testing.assert_array_equal(table.node, 2 * d)
    np.testing.assert_array_equal(table.pruned, d >= half)
    np.testing.assert_array_equal(table.n_validation, 2 * (depth - d + 1))
    assert np.all(table.score_as_subtree == 1.0)
    odd_pairs_below = np.maximum(half - d, 0) // 2 + ((half - d > 0) & (d % 2 == 1))
    np.testing.assert_allclose(table.score_as_leaf, 1 - 2 * odd_pairs_below / len(y), atol=1e-15)
    assert pruned.node_count == 2 * half + 1 and pruned.max_depth == half


def test_reduced_error_python_calls_do_not_grow_with_the_tree():
    """Issue 11: reduced-error pruning and collapse make as many Python calls on a tree of 4,001
    nodes as on one of 101."""
    from deep_trees import class_counts_of_staircase, staircase, staircase_classes
    from python_calls import python_calls

    from rootwise.prune.reduced_error import reduced_error_prune
    from rootwise.tree import Tree

    counts = []
    for depth in (50, 2000):
        tree, X = staircase(depth)
        y = staircase_classes(depth)
        fields = {name: getattr(tree, name) for name in rootwise.tree.NODE_FIELDS}
        tree = Tree(fields, class_counts_of_staircase(depth, y), tree.pool, tree.n_categories)
        w = np.ones(len(y))
        make_leaf = np.arange(tree.node_count) % 7 == 0
        for f, args in ((reduced_error_prune, (tree, X, y, w)), (collapse, (tree, make_leaf))):
            f(*args)  # numba compiles (or loads) the kernels on a first call
        counts.append([python_calls(reduced_error_prune, tree, X, y, w),
                       python_calls(collapse, tree, make_leaf)])
    assert counts[0] == counts[1]
