"""rootwise's CART against R's rpart 4.1.19, on the golden files in ``tests/golden/rpart``.

``tools/rpart/make_rpart_golden.R`` wrote the files; ``tools/rpart/README.md`` states rpart's rules
(each one checked by ``tools/rpart/verify_semantics.R``). This module reads the files only, so it
needs no R. rootwise gets rpart's control: min_samples_split = minsplit, min_samples_leaf =
minbucket (unit weights: weight = rows), max_surrogates = maxsurrogate, max_depth = maxdepth,
pruning=None; it is fitted on the rows rpart kept (na.rpart drops rows with every predictor
missing, rootwise would keep them) and predicts every CSV row, as ``predict(fit, newdata)`` did.

rpart numbers its nodes 1, 2k, 2k + 1 and puts on the left the side with the smaller mean class
index (or mean y); rootwise sends ``x <= t`` or its own category subset to child 0. So every node
pair is matched "up to mirror": the primary split tells which rootwise child is rpart's left one.

Compared node by node: primary variable, threshold or level partition, ``improve``, the number of
rows and the class counts / mean; the surrogates in order with variable, agreement, adjusted
agreement and threshold / levels; the prediction (node reached and its value) of every CSV row;
rpart's variable importance. Floats to 1e-9 relative (the files hold 15 significant digits).

Four documented differences (``CARTClassifier`` docstring) restrict the comparison, and each
restriction checks that the difference has exactly its stated cause:

1. rpart's cp = 0 still removes a split whose subtree does not lower the misclassification count
   (README semantics 10). rootwise with pruning=None keeps it: such subtrees are collapsed before
   comparing, after checking that they really leave the misclassified weight unchanged.
2. rpart 4.1.19 keeps a categorical surrogate only if >= 2 rows agree and >= 2 disagree; rootwise
   asks for >= 2 rows sent each way (what rpart's code comment says). A rootwise surrogate missing
   from rpart's list must be categorical with fewer than 2 disagreeing rows; it is then left out
   of the list comparison, and its importance credit is added to rpart's figure.
3. When the primary sends as many rows each way, rpart leaves the rows that no surrogate places
   inside the node while fitting; rootwise never leaves a row behind. Those rows (known from
   rpart's ``where``) are added to the rootwise node counts they reach, and the nodes they reach
   are compared by structure and routing only, not by their (shifted) values.
4. A categorical surrogate's level whose rows the primary splits evenly goes where the primary
   sends more of the surrogate's rows; if those split evenly too, rpart sends it to its "right"
   side (a convention of its left/right orientation, which rootwise does not have) and rootwise
   to the side with more primary-known rows. Levels may differ only in that double tie.
"""

from __future__ import annotations

import copy
import functools
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rootwise import CARTClassifier, CARTRegressor
from rootwise._config import LEAF, SUBSET, THRESHOLD
from rootwise.prune.collapse import collapse

GOLDEN = Path(__file__).parent / "golden" / "rpart"
MANIFEST = json.loads((GOLDEN / "manifest.json").read_text(encoding="utf-8"))
TABLES = [t["table"] for t in MANIFEST["tables"]]
REL = 1e-9


# --------------------------------------------------------------------------- reading the files


def read_table(g: dict) -> pd.DataFrame:
    """The CSV exactly as rpart saw it: an empty cell is missing (and nothing else is), categorical
    columns keep the recorded level order (code-point order, which rpart's codes follow)."""
    raw = pd.read_csv(GOLDEN / g["csv"], dtype=str, keep_default_na=False, encoding="utf-8")
    columns = {}
    for col in g["columns"]:
        cells = raw[col["name"]].replace("", np.nan)
        if col["type"] == "categorical":
            columns[col["name"]] = pd.Categorical(cells, categories=col["levels"])
        else:
            columns[col["name"]] = cells.astype(np.float64)
    return pd.DataFrame(columns)


def ancestors(k: int) -> list[int]:
    """rpart node k and its ancestors, root first."""
    out = []
    while k >= 1:
        out.append(k)
        k //= 2
    return out[::-1]


@dataclass
class Case:
    g: dict
    X: pd.DataFrame  # every CSV row
    fitted: np.ndarray  # the rows rpart kept
    model: object  # fitted on ``fitted``; its tree restricted to rpart's nodes (difference 1)
    full_tree: object  # rootwise's tree before that
    trimmed: list[int] = field(default_factory=list)  # full-tree nodes collapsed (difference 1)
    node_of: dict = field(default_factory=dict)  # rpart node -> rootwise node
    left_of: dict = field(default_factory=dict)  # rpart internal node -> rootwise slot of its left
    problems: list[str] = field(default_factory=list)

    @property
    def golden_nodes(self) -> dict:
        return {nd["node"]: nd for nd in self.g["nodes"]}

    @property
    def names(self) -> list[str]:
        return list(self.X.columns)

    @property
    def regression(self) -> bool:
        return self.g["method"] == "anova"


def left_slot(tree, r: int, primary: dict, levels: list[str]) -> int | None:
    """The rootwise child slot of rpart's left side at node r, or None if no mirror matches."""
    if primary["type"] == "numeric":
        return 0 if primary["direction"] == "<" else 1
    side = tree.branch_of_category(r)
    slots = {int(side[levels.index(lv)]) for lv in primary["levels_left"]}
    return slots.pop() if len(slots) == 1 and slots <= {0, 1} else None


def walk(case: Case, tree) -> tuple[dict, dict, list[int], list[str]]:
    """Match rpart's nodes with ``tree``'s: (node_of, left_of, rootwise split nodes where rpart has
    a leaf, problems)."""
    nodes, names = case.golden_nodes, case.names
    levels = {c["name"]: c.get("levels") for c in case.g["columns"]}
    node_of, left_of, extra, problems = {}, {}, [], []
    stack = [(1, 0)]
    while stack:
        k, r = stack.pop()
        node_of[k] = r
        nd = nodes[k]
        if nd["is_leaf"]:
            if tree.kind[r] != LEAF:
                extra.append(r)
            continue
        var = nd["primary"]["variable"]
        if tree.kind[r] == LEAF or names[tree.feature[r]] != var:
            got = "a leaf" if tree.kind[r] == LEAF else names[tree.feature[r]]
            problems.append(f"node {k}: rpart splits on {var}, rootwise has {got}")
            continue
        slot = left_slot(tree, r, nd["primary"], levels[var])
        if slot is None:
            problems.append(f"node {k}: rootwise's partition of {var} is not rpart's")
            continue
        left_of[k] = slot
        first = int(tree.first_child[r])
        stack.append((2 * k + 1, first + 1 - slot))
        stack.append((2 * k, first + slot))
    return node_of, left_of, extra, problems


def misclassified(value: np.ndarray) -> float:
    return float(value.sum() - value.max())


@functools.lru_cache(maxsize=None)
def fit_case(table: str) -> Case:
    g = json.loads((GOLDEN / f"{table}.json").read_text(encoding="utf-8"))
    frame = read_table(g)
    dropped = set(g["rows_dropped_by_na_rpart"])
    fitted = np.array([i for i in range(len(frame)) if i not in dropped])
    X = frame.drop(columns=[g["target"]])
    y = frame[g["target"]].iloc[fitted]
    c = g["control"]
    params = dict(min_samples_split=c["minsplit"], min_samples_leaf=c["minbucket"], pruning=None,
                  max_surrogates=c["maxsurrogate"], max_depth=c["maxdepth"])
    if g["method"] == "class":
        model = CARTClassifier(**params).fit(X.iloc[fitted], np.asarray(y, dtype=str))
        assert list(model.classes_) == g["class_levels"]
    else:
        model = CARTRegressor(**params).fit(X.iloc[fitted], y.to_numpy())
    case = Case(g, X, fitted, model, model.tree_)
    _, _, case.trimmed, case.problems = walk(case, model.tree_)
    if case.trimmed:
        make_leaf = np.zeros(model.tree_.node_count, dtype=bool)
        make_leaf[case.trimmed] = True
        case.model = copy.copy(model)
        case.model.tree_ = collapse(model.tree_, make_leaf)
    case.node_of, case.left_of, extra, problems = walk(case, case.model.tree_)
    assert not extra
    case.problems += problems
    return case


@pytest.fixture(scope="module", params=TABLES)
def case(request) -> Case:
    return fit_case(request.param)


# --------------------------------------------------------------------------- rows at each node


def fit_rows(case: Case) -> dict[int, np.ndarray]:
    """rpart node -> CSV rows that reached it while rpart was fitting (from ``where``)."""
    where = case.g["rows"]["leaf_node_fit"]
    out: dict[int, list[int]] = {k: [] for k in case.golden_nodes}
    for i in case.fitted:
        for k in ancestors(where[i]):
            out[k].append(i)
    return {k: np.array(v, dtype=np.int64) for k, v in out.items()}


def stayed_rows(case: Case) -> dict[int, list[int]]:
    """rpart internal node -> fitted rows rpart left inside it (difference 3)."""
    where = case.g["rows"]["leaf_node_fit"]
    nodes = case.golden_nodes
    out: dict[int, list[int]] = {}
    for i in case.fitted:
        if not nodes[where[i]]["is_leaf"]:
            out.setdefault(where[i], []).append(int(i))
    return out


def shifted_counts(case: Case) -> dict[int, int]:
    """rpart node -> rows rootwise has there on top of rpart's: the rows of difference 3, followed
    down from the node that kept them in rpart. They are placed by rootwise's prediction-time
    routing, which at that node agrees with fitting (the heavier side can only grow)."""
    back = {r: k for k, r in case.node_of.items()}
    out = {k: 0 for k in case.golden_nodes}
    for k, rows in stayed_rows(case).items():
        path = case.model.decision_path(case.X.iloc[rows]).toarray()
        for p in path:
            for r in np.flatnonzero(p):
                if back[r] != k and k in ancestors(back[r]):
                    out[back[r]] += 1
    return out


def primary_branch(case: Case, k: int, rows: np.ndarray) -> np.ndarray:
    """rootwise's branch (0 / 1, -1 missing or no branch) of ``rows`` under node k's primary."""
    tree, r = case.model.tree_, case.node_of[k]
    x = case.model._encode(case.X.iloc[rows])[:, tree.feature[r]]
    out = np.full(len(rows), -1)
    known = ~np.isnan(x)
    if tree.kind[r] == THRESHOLD:
        out[known] = np.where(x[known] <= tree.threshold[r], 0, 1)
    else:
        out[known] = tree.branch_of_category(r)[x[known].astype(int)]
    return out


def surrogate_branch(case: Case, s: int, rows: np.ndarray) -> np.ndarray:
    tree = case.model.tree_
    sur = tree.surrogates
    f = int(sur["feature"][s])
    x = case.model._encode(case.X.iloc[rows])[:, f]
    out = np.full(len(rows), -1)
    known = ~np.isnan(x)
    if sur["kind"][s] == THRESHOLD:
        left = int(sur["left_branch"][s])
        out[known] = np.where(x[known] <= sur["threshold"][s], left, 1 - left)
    else:
        off = int(sur["pool_offset"][s])
        out[known] = tree.pool[off + x[known].astype(int)]
    return out


def surrogate_rows(tree, r: int) -> range:
    start = int(tree.surrogate_offset[r])
    return range(start, start + int(tree.n_surrogates[r]))


def even_levels(case: Case, k: int, s: int) -> set[int]:
    """Codes of the levels of categorical surrogate ``s`` at node k whose rows (primary known) the
    primary splits evenly, when all the rows with both values known split evenly too: rpart then
    sends the level to its right side, rootwise to the side with more primary-known rows."""
    rows = fit_rows(case)[k]
    primary = primary_branch(case, k, rows)
    x = case.model._encode(case.X.iloc[rows])[:, case.model.tree_.surrogates["feature"][s]]
    both = (primary >= 0) & ~np.isnan(x)
    if np.count_nonzero(both & (primary == 0)) != np.count_nonzero(both & (primary == 1)):
        return set()
    out = set()
    for v in np.unique(x[both]).astype(int):
        at = both & (x == v)
        if np.count_nonzero(at & (primary == 0)) == np.count_nonzero(at & (primary == 1)):
            out.add(int(v))
    return out


def quirk_extras(case: Case, k: int) -> list[int]:
    """Surrogate rows of node k that rpart 4.1.19 drops for having < 2 disagreeing rows."""
    nd = case.golden_nodes[k]
    tree, r = case.model.tree_, case.node_of[k]
    listed = {s["variable"] for s in nd["surrogates"]}
    rows = fit_rows(case)[k]
    primary = primary_branch(case, k, rows)
    out = []
    for s in surrogate_rows(tree, r):
        if case.names[tree.surrogates["feature"][s]] in listed:
            continue
        assert tree.surrogates["kind"][s] == SUBSET, f"node {k}: extra threshold surrogate"
        b = surrogate_branch(case, s, rows)
        both = (primary >= 0) & (b >= 0)
        disagree = int(np.count_nonzero(both & (b != primary)))
        assert disagree < 2, f"node {k}: rpart dropped a surrogate with {disagree} disagreements"
        out.append(s)
    return out


# --------------------------------------------------------------------------- the comparisons


def test_same_split_variables_node_by_node(case):
    assert not case.problems, case.problems
    assert case.model.tree_.node_count == len(case.g["nodes"])
    for k, nd in case.golden_nodes.items():
        assert (case.model.tree_.kind[case.node_of[k]] == LEAF) == nd["is_leaf"], f"node {k}"


def test_collapsed_splits_do_not_lower_misclassification(case):
    """Difference 1: only subtrees that rpart's cp = 0 removes are collapsed."""
    full = case.full_tree
    if case.regression:
        assert case.trimmed == []  # a squared-error split always lowers the risk
        return
    for r in case.trimmed:
        below = [r]
        leaves = []
        while below:
            n = below.pop()
            if full.kind[n] == LEAF:
                leaves.append(n)
            else:
                below.extend(full.children(n))
        node_risk = misclassified(full.value[r])
        subtree_risk = sum(misclassified(full.value[n]) for n in leaves)
        assert subtree_risk == pytest.approx(node_risk, rel=REL, abs=1e-12), f"rootwise node {r}"


def test_primary_splits(case):
    tree = case.model.tree_
    for k, nd in case.golden_nodes.items():
        if nd["is_leaf"]:
            continue
        r, p, slot = case.node_of[k], nd["primary"], case.left_of[k]
        if p["type"] == "numeric":
            assert tree.kind[r] == THRESHOLD
            assert tree.threshold[r] == pytest.approx(p["threshold"], rel=REL), f"node {k}"
        else:
            assert tree.kind[r] == SUBSET
            # csplit per level: 1 = left, 3 = right, 2 = no rows at this node (no branch)
            expected = [{1: slot, 3: 1 - slot, 2: -1}[c] for c in p["csplit"]]
            np.testing.assert_array_equal(tree.branch_of_category(r), expected, err_msg=f"node {k}")
        # rpart's improve is in row units (class) or a fraction of the node deviance (anova)
        improve = p["improve"] * (nd["dev"] if case.regression else 1.0)
        assert tree.improvement[r] == pytest.approx(improve, rel=REL), f"node {k}"


def test_node_sizes_and_values(case):
    tree = case.model.tree_
    extra = shifted_counts(case)
    for k, nd in case.golden_nodes.items():
        r = case.node_of[k]
        assert tree.n_node_samples[r] == nd["n"] + extra[k], f"node {k}"
        if not nd["is_leaf"]:  # no row is left behind
            kids = list(tree.children(r))
            assert tree.n_node_samples[kids].sum() == tree.n_node_samples[r], f"node {k}"
        if extra[k]:
            continue  # difference 3: rpart's rows here are a subset of rootwise's
        if case.regression:
            assert tree.value[r, 0] == pytest.approx(nd["yval"], rel=REL), f"node {k}"
            sse = tree.impurity[r] * tree.weighted_n_node_samples[r]
            assert sse == pytest.approx(nd["dev"], rel=REL, abs=1e-9), f"node {k}"
        else:
            np.testing.assert_array_equal(tree.value[r], nd["class_counts"], err_msg=f"node {k}")
    assert sum(extra.values()) == 0 or stayed_rows(case)


def test_fit_time_tie_rows_exist_only_where_rpart_keeps_them(case):
    """Difference 3 applies only at nodes whose primary sent equally many rows each way."""
    nodes = case.golden_nodes
    for k in stayed_rows(case):
        assert nodes[k]["primary_present_left"] == nodes[k]["primary_present_right"]
        assert nodes[k]["majority_fit"] == "none"


def test_surrogates(case):
    tree = case.model.tree_
    for k, nd in case.golden_nodes.items():
        if nd["is_leaf"]:
            continue
        r, slot = case.node_of[k], case.left_of[k]
        skip = set(quirk_extras(case, k))
        mine = [s for s in surrogate_rows(tree, r) if s not in skip]
        gold = nd["surrogates"]
        assert len(mine) == len(gold) or tree.n_surrogates[r] == case.model.max_surrogates, \
            f"node {k}"
        for s, gs in zip(mine, gold, strict=False):
            where = f"node {k}, surrogate {gs['variable']}"
            assert case.names[tree.surrogates["feature"][s]] == gs["variable"], where
            assert tree.surrogates["agreement"][s] == pytest.approx(gs["agree"], rel=REL), where
            assert tree.surrogates["adjusted_agreement"][s] == pytest.approx(gs["adj"], rel=REL), where
            if gs["type"] == "numeric":
                assert tree.surrogates["kind"][s] == THRESHOLD, where
                assert tree.surrogates["threshold"][s] == pytest.approx(gs["threshold"], rel=REL), where
                # "<": x < t goes to rpart's left; rootwise's left_branch is the slot of x <= t
                expected = slot if gs["direction"] == "<" else 1 - slot
                assert tree.surrogates["left_branch"][s] == expected, where
            else:
                assert tree.surrogates["kind"][s] == SUBSET, where
                off = int(tree.surrogates["pool_offset"][s])
                got = tree.pool[off: off + len(gs["csplit"])]
                expected = np.array([{1: slot, 3: 1 - slot, 2: -1}[c] for c in gs["csplit"]])
                differ = np.flatnonzero(got != expected)
                # difference 4: a level split evenly, when the surrogate's rows split evenly too
                assert set(differ) <= even_levels(case, k, s), where


def test_predictions_for_every_row(case):
    """Every CSV row, rows with missing cells and rows rpart did not fit included, reaches rpart's
    node (``predict(fit, newdata)``: surrogates, then the child with more rows, else it stays) and
    gets that node's prediction."""
    back = {r: k for k, r in case.node_of.items()}
    reached = [back[r] for r in case.model.apply(case.X)]
    assert reached == case.g["rows"]["leaf_node_newdata"]
    extra = shifted_counts(case)
    fair = np.array([extra[k] == 0 for k in reached])  # difference 3 shifts the others' values
    pred = case.g["rows"]["pred_newdata"]
    if case.regression:
        got = case.model.predict(case.X)
        np.testing.assert_allclose(got[fair], np.asarray(pred["value"])[fair], rtol=REL)
    else:
        got = case.model.predict_proba(case.X)
        np.testing.assert_allclose(got[fair], np.asarray(pred["prob"])[fair], rtol=REL, atol=1e-15)
        assert list(case.model.predict(case.X)[fair]) == list(np.asarray(pred["class"])[fair])


def test_rpart_variable_importance(case):
    """Unnormalised, rootwise's "rpart" importance is rpart's variable.importance (both in row
    units: n x Gini decrease; for anova improve x dev = the drop of the sum of squares), plus the
    credit of the surrogates of difference 2."""
    tree = case.model.tree_
    expected = np.zeros(len(case.names))
    for item in case.g["variable_importance"]:
        expected[case.names.index(item["variable"])] = item["importance"]
    for k, nd in case.golden_nodes.items():
        if not nd["is_leaf"]:
            r = case.node_of[k]
            for s in quirk_extras(case, k):
                expected[tree.surrogates["feature"][s]] += \
                    tree.improvement[r] * tree.surrogates["adjusted_agreement"][s]
    raw = case.model.variable_importance("rpart", normalize=False)
    np.testing.assert_allclose(raw, expected, rtol=REL, atol=1e-12)
    share = case.model.variable_importance("rpart")
    np.testing.assert_allclose(share, expected / expected.sum(), rtol=REL, atol=1e-15)
    np.testing.assert_allclose(case.model.variable_importance("impurity"),
                               case.model.feature_importances_, rtol=1e-12)


def test_rpart_importance_proportions_where_no_difference_applies():
    """Tables without difference 2: the normalised importance is rpart's, as ``summary()`` shows
    it (scaled to 1 instead of 100)."""
    checked = 0
    for table in TABLES:
        case = fit_case(table)
        if any(quirk_extras(case, k) for k, nd in case.golden_nodes.items() if not nd["is_leaf"]):
            continue
        gold = {v["variable"]: v["importance"] for v in case.g["variable_importance"]}
        total = sum(gold.values())
        share = case.model.variable_importance("rpart")
        for j, name in enumerate(case.names):
            assert share[j] == pytest.approx(gold.get(name, 0.0) / total, rel=REL, abs=1e-15), name
        checked += 1
    assert checked >= 3


# --------------------------------------------------------------------------- cross-validated cp table


@functools.lru_cache(maxsize=None)
def cv_table(table: str, cp: float = 0.0):
    """(cp_table_, n, golden): rootwise with rpart's control, rpart's node cost (misclassified
    weight; the sum of squares for anova) and rpart's own fold ids as ``cv``, 1-SE rule."""
    g = json.loads((GOLDEN / f"{table}.json").read_text(encoding="utf-8"))
    frame = read_table(g)
    dropped = set(g["rows_dropped_by_na_rpart"])
    fitted = np.array([i for i in range(len(frame)) if i not in dropped])
    X = frame.drop(columns=[g["target"]]).iloc[fitted]
    y = frame[g["target"]].iloc[fitted]
    ids = np.asarray(g["cv"]["fold_ids"])[fitted]
    folds = [(np.flatnonzero(ids != f), np.flatnonzero(ids == f)) for f in np.unique(ids)]
    c = g["control"]
    params = dict(min_samples_split=c["minsplit"], min_samples_leaf=c["minbucket"],
                  max_surrogates=c["maxsurrogate"], max_depth=c["maxdepth"], cv=folds,
                  ccp_alpha="cv-1se", cp=cp)
    if g["method"] == "class":
        model = CARTClassifier(ccp_cost="misclassification", **params)
        model.fit(X, np.asarray(y, dtype=str))
    else:
        model = CARTRegressor(**params).fit(X, y.to_numpy())
    return model.cp_table_, len(y), g


@pytest.mark.parametrize("table", TABLES)
def test_cp_table_sizes_and_one_se_choice_equal_rpart(table):
    """rpart's cptable (root first) read backwards is rootwise's cp_table_: the same subtree sizes
    (rpart's cp = 0 drops zero-gain splits while growing, the misclassification cost gives them
    alpha 0, merged into the first row), and the 1-SE rule picks the same subtree."""
    ours, _, g = cv_table(table)
    theirs = g["cv"]["cptable"][::-1]
    assert ours.n_leaves.tolist() == [row["nsplit"] + 1 for row in theirs]
    assert len(theirs) - 1 - ours.chosen == g["cv"]["one_se"]["index"]


@pytest.mark.parametrize("table", ["stagec", "airquality", "watermelon_2.0_alpha"])
def test_cp_table_alphas_equal_rpart(table):
    """alpha = CP x R(root) / W: rpart's complexity is relative to the root's risk, rootwise's
    alpha to the total weight W. (On the two synthetic tables rpart's complexity, computed bottom
    up and capped by the parent's, README semantics 10, differs in one row each.)"""
    ours, _, g = cv_table(table)
    root_cost = ours.train_cost[-1]
    cp = np.array([row["CP"] for row in g["cv"]["cptable"][::-1]])
    np.testing.assert_allclose(ours.alpha / root_cost, cp, rtol=REL, atol=1e-15)


def test_cp_table_cv_errors_equal_rpart_on_stagec():
    """stagec (146 rows, missing cells in three columns): xerror = cv_error / R(root) and
    xstd = sqrt(sum err^2 - (sum err)^2 / n) / R(root) = se / R(root) x sqrt((n - 1) / n), with
    rpart's rows. (On the other tables the CV errors differ by a few held-out rows. Not every
    cause was traced; candidates are rpart's fit-time routing of held-out rows, its x < t tests
    and its complexity values of the fold trees, README semantics 8, 4 and 10.)"""
    ours, n, g = cv_table("stagec")
    root_cost = ours.train_cost[-1]
    theirs = g["cv"]["cptable"][::-1]
    np.testing.assert_allclose(ours.cv_error / root_cost, [r["xerror"] for r in theirs], rtol=REL)
    np.testing.assert_allclose(ours.cv_std_error / root_cost * np.sqrt((n - 1) / n),
                               [r["xstd"] for r in theirs], rtol=REL)


def test_cp_floor_keeps_rpart_rows_above_it_on_stagec():
    """rpart's cp: no split at a node whose risk is at most cp x the root's, trees (and fold
    trees) pruned at cp. With cp = 0.015 rootwise's table starts at the subtree rpart's cp = 0
    table holds at 0.015 (7 splits), and the rows above it are rpart's, CV errors included."""
    cp = 0.015
    ours, n, g = cv_table("stagec", cp)
    root_cost = ours.train_cost[-1]
    theirs = [r for r in g["cv"]["cptable"][::-1] if r["CP"] > cp]
    assert ours.alpha[0] / root_cost == pytest.approx(cp, rel=1e-12)
    assert ours.n_leaves[0] == 8
    assert ours.n_leaves[1:].tolist() == [r["nsplit"] + 1 for r in theirs]
    np.testing.assert_allclose(ours.alpha[1:] / root_cost, [r["CP"] for r in theirs], rtol=REL)
    np.testing.assert_allclose(ours.cv_error[1:] / root_cost, [r["xerror"] for r in theirs],
                               rtol=REL)
    np.testing.assert_allclose(ours.cv_std_error[1:] / root_cost * np.sqrt((n - 1) / n),
                               [r["xstd"] for r in theirs], rtol=REL)
