"""The flat Tree: integrity checks, routing (apply / decision_path) on a hand-built tree, plain data."""

import copy
import json

import numpy as np
import pytest

from rootwise._config import LEAF, MISSING_FRACTIONAL, MISSING_STOP, MULTIWAY, SUBSET, THRESHOLD
from rootwise.tree import NODE_FIELDS, Tree
from rootwise.tree import integrity as _integrity
from rootwise.tree.integrity import check_fitted
from rootwise.tree.tree import narrowest_pool

NAN = np.nan

# Features: x0 categorical (3 categories), x1 continuous, x2 categorical (4 categories).
N_CATEGORIES = [3, 0, 4]


def hand_tree_parts():
    """node 0  MULTIWAY on x0: code 0 -> slot 1 (node 2), code 1 -> slot 0 (node 1), code 2 -> no
               branch; missing -> stop
       node 1  THRESHOLD x1 <= 2.5: node 3, else node 4; missing -> slot 1 (node 4)
       node 2  SUBSET on x2: codes 0 -> node 5, 1 and 2 -> node 6, 3 -> no branch; missing (and no
               branch, at a subset node) -> slot 0
       nodes 3..6 leaves"""
    nodes = {
        "feature": [0, 1, 2, -1, -1, -1, -1],
        "kind": [MULTIWAY, THRESHOLD, SUBSET, LEAF, LEAF, LEAF, LEAF],
        "threshold": [NAN, 2.5, NAN, NAN, NAN, NAN, NAN],
        "first_child": [1, 3, 5, -1, -1, -1, -1],
        "n_children": [2, 2, 2, 0, 0, 0, 0],
        "pool_offset": [0, -1, 3, -1, -1, -1, -1],
        "missing_branch": [MISSING_STOP, 1, 0, -1, -1, -1, -1],
        "parent": [-1, 0, 0, 1, 1, 2, 2],
        "depth": [0, 1, 1, 2, 2, 2, 2],
        "impurity": [1.0, 0.9, 0.8, 0.0, 0.0, 0.0, 0.0],
        "n_node_samples": [10, 6, 4, 3, 3, 2, 2],
        "weighted_n_node_samples": [10.0, 6.0, 4.0, 3.0, 3.0, 2.0, 2.0],
        "branch_fraction": [1.0, 0.6, 0.4, 0.5, 0.5, 0.5, 0.5],
        "surrogate_offset": [-1] * 7,
        "n_surrogates": [0] * 7,
    }
    value = [[5, 5], [3, 3], [2, 2], [3, 0], [0, 3], [2, 0], [0, 2]]
    pool = [1, 0, -1, 0, 1, 1, -1]
    return nodes, value, pool, list(N_CATEGORIES)


def make(nodes, value, pool, n_categories):
    return Tree(nodes, np.array(value, dtype=float), np.array(pool), np.array(n_categories))


def hand_tree():
    return make(*hand_tree_parts())


# rows (x0, x1, x2) -> nodes visited, worked out by hand from the docstring above
ROUTES = [
    ((1, 1.0, 0), [0, 1, 3]),
    ((1, 2.5, 0), [0, 1, 3]),  # x <= t goes left, t itself included
    ((1, 7.0, 0), [0, 1, 4]),
    ((1, NAN, 0), [0, 1, 4]),  # missing at node 1 -> its child slot 1
    ((1, -3.0, NAN), [0, 1, 3]),  # x2 is not tested on this path, its NaN is irrelevant
    ((0, NAN, 0), [0, 2, 5]),
    ((0, 0.0, 1), [0, 2, 6]),
    ((0, 0.0, 2), [0, 2, 6]),
    # a subset (CART) node treats a category without a branch as missing, as rpart does
    ((0, 0.0, 3), [0, 2, 5]),  # category 3 has no branch at node 2: missing -> slot 0
    ((0, 0.0, NAN), [0, 2, 5]),  # missing at node 2 -> slot 0
    ((0, 0.0, -1.0), [0, 2, 5]),  # a category unseen in training, too
    ((0, 0.0, 4.0), [0, 2, 5]),  # and a code beyond the categories
    ((2, 0.0, 0), [0]),  # category 2 of x0 has no branch
    ((NAN, 0.0, 0), [0]),  # missing at the root, which stops
    ((-1.0, 0.0, 0), [0]),
    ((3.0, 1.0, 0), [0]),
]


def _rows():
    return np.array([r for r, _ in ROUTES], dtype=np.float64)


def _indicator(paths, n_nodes):
    out = np.zeros((len(paths), n_nodes), dtype=np.int64)
    for i, p in enumerate(paths):
        out[i, p] = 1
    return out


def test_hand_tree_shape_facts():
    t = hand_tree()
    assert t.node_count == 7
    assert t.n_leaves == 4
    assert t.max_depth == 2
    assert list(t.children(0)) == [1, 2]
    assert list(t.children(2)) == [5, 6]
    assert list(t.children(3)) == []
    np.testing.assert_array_equal(t.branch_of_category(0), [1, 0, -1])
    np.testing.assert_array_equal(t.branch_of_category(2), [0, 1, 1, -1])


def test_apply_by_hand():
    t = hand_tree()
    np.testing.assert_array_equal(t.apply(_rows()), [p[-1] for _, p in ROUTES])


def test_decision_path_by_hand():
    t = hand_tree()
    dp = t.decision_path(_rows())
    assert dp.shape == (len(ROUTES), 7)
    np.testing.assert_array_equal(dp.toarray(), _indicator([p for _, p in ROUTES], 7))
    # each row's nodes are stored root first
    for i, (_, p) in enumerate(ROUTES):
        np.testing.assert_array_equal(dp.indices[dp.indptr[i]: dp.indptr[i + 1]], p)


@pytest.mark.parametrize("root_missing, expected", [(0, [0, 1, 3]), (1, [0, 2, 5]),
                                                     (MISSING_STOP, [0]), (MISSING_FRACTIONAL, [0])])
def test_missing_branch_of_the_root(root_missing, expected):
    nodes, value, pool, nc = hand_tree_parts()
    nodes["missing_branch"][0] = root_missing
    t = make(nodes, value, pool, nc)
    row = np.array([[NAN, 0.0, 0.0]])
    assert t.apply(row).tolist() == [expected[-1]]
    np.testing.assert_array_equal(t.decision_path(row).toarray(), _indicator([expected], 7))


def test_single_leaf_tree():
    nodes = {name: [0] for name in NODE_FIELDS}
    nodes.update(feature=[-1], kind=[LEAF], first_child=[-1], pool_offset=[-1], missing_branch=[-1],
                 parent=[-1], threshold=[NAN])
    t = make(nodes, [[1.0, 2.0]], [], [2])
    X = np.array([[0.0], [NAN], [-1.0]])
    assert t.apply(X).tolist() == [0, 0, 0]
    np.testing.assert_array_equal(t.decision_path(X).toarray(), [[1], [1], [1]])


def test_apply_refuses_a_matrix_with_other_columns():
    t = hand_tree()
    with pytest.raises(ValueError, match="expected"):
        t.apply(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="expected"):
        t.decision_path(np.zeros((2, 4)))
    with pytest.raises(ValueError, match="expected"):
        t.apply(np.zeros(3))


def test_apply_accepts_other_dtypes_and_layouts():
    t = hand_tree()
    X = _rows()
    expected = t.apply(X)
    np.testing.assert_array_equal(t.apply(np.asfortranarray(X)), expected)
    np.testing.assert_array_equal(t.apply(np.array([[1, 7, 0], [0, 0, 2]])), [4, 6])


# ----------------------------------------------------------------------------- validate


def _set(field, node, v):
    def mutate(parts):
        parts[0][field][node] = v
    return mutate


def _set_pool(i, v):
    def mutate(parts):
        parts[2][i] = v
    return mutate


def _drop_last(field):
    def mutate(parts):
        parts[0][field] = parts[0][field][:-1]
    return mutate


def _value_rows(n):
    def mutate(parts):
        parts[1][:] = parts[1][:n]
    return mutate


def _share_children(parts):
    # node 2 takes node 1's children: two parents for nodes 3 and 4, nobody reaches 5 and 6
    parts[0]["first_child"][2] = 3


def _extra_unreached_leaf(parts):
    nodes = parts[0]
    for name, v in dict(feature=-1, kind=LEAF, threshold=NAN, first_child=-1, n_children=0,
                        pool_offset=-1, missing_branch=-1, parent=2, depth=2, impurity=0.0,
                        n_node_samples=0, weighted_n_node_samples=0.0, branch_fraction=0.0,
                        surrogate_offset=-1,
                        n_surrogates=0).items():
        nodes[name].append(v)
    parts[1].append([0, 0])


def _no_nodes(parts):
    for name in NODE_FIELDS:
        parts[0][name] = []
    parts[1][:] = []


def _huge_first_child(parts):
    # 2**31 - 1 + 2 wraps around in int32: the range check must not be fooled by that
    parts[0]["first_child"][1] = 2**31 - 1


def _pool_2d(parts):
    parts[2][:] = [list(parts[2])]


CORRUPTIONS = {  # name -> (mutation, what the error must say)
    "child index past the end": (_set("first_child", 2, 6), "children out of range"),
    "child index before its parent (cycle)": (_set("first_child", 2, 1), "children out of range"),
    "child index is the node itself (cycle)": (_set("first_child", 0, 0), "children out of range"),
    "first_child overflowing int32": (_huge_first_child, "children out of range"),
    "shared children": (_share_children, "shared between parents"),
    "node reached by no split": (_extra_unreached_leaf, "no split reaches"),
    "split with one child": (_set("n_children", 0, 1), "children out of range"),
    "binary split with three children": (_set("n_children", 1, 3), "two children"),
    "leaf with children": (_set("n_children", 3, 2), "leaf of the tree has children"),
    "unknown kind": (_set("kind", 3, 7), "unknown node kind"),
    "feature past the end": (_set("feature", 1, 3), "feature out of range"),
    "negative feature": (_set("feature", 0, -1), "feature out of range"),
    "multiway on a continuous feature": (_set("feature", 0, 1), "pool entry out of range"),
    "threshold missing": (_set("threshold", 1, NAN), "no threshold"),
    "pool offset past the end": (_set("pool_offset", 2, 4), "pool entry out of range"),
    "negative pool offset": (_set("pool_offset", 0, -1), "pool entry out of range"),
    "pool entry past the children": (_set_pool(1, 2), "maps to a child"),
    "pool entry below -1": (_set_pool(4, -2), "maps to a child"),
    "missing branch past the children": (_set("missing_branch", 1, 2), "routes missing values"),
    "unknown missing code": (_set("missing_branch", 2, -3), "routes missing values"),
    "wrong parent": (_set("parent", 5, 1), "parent links"),
    "root with a parent": (_set("parent", 0, 2), "parent links"),
    "wrong depth": (_set("depth", 6, 1), "depths"),
    "field one short": (_drop_last("threshold"), "threshold"),
    "value rows one short": (_value_rows(6), "value array"),
    "no nodes": (_no_nodes, "no nodes"),
    "pool not 1-D": (_pool_2d, "1-D|not an integer"),
    "infinite threshold": (_set("threshold", 1, np.inf), "no threshold"),
    "negative weight": (_set("weighted_n_node_samples", 2, -1.0), "weighted_n_node_samples: node 2"),
    "NaN weight": (_set("weighted_n_node_samples", 2, NAN), "weighted_n_node_samples: node 2"),
    "negative count": (_set("n_node_samples", 3, -1), "n_node_samples: node 3"),
    "NaN impurity": (_set("impurity", 1, NAN), "impurity: node 1"),
    "fraction above 1": (_set("branch_fraction", 3, 1.5), "branch_fraction: node 3 holds 1.5"),
    "negative fraction": (_set("branch_fraction", 3, -0.5), "branch_fraction: node 3"),
}


def test_hand_tree_is_valid():
    hand_tree().validate()


@pytest.mark.parametrize("block", [_integrity.BLOCK, 2, 3])  # one block; nodes 2 or 3 at a time
@pytest.mark.parametrize("narrow", [16, 0])  # child slot by slot; all slots at once (wide splits)
@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_validate_rejects(name, narrow, block, monkeypatch):
    monkeypatch.setattr(_integrity, "NARROW", narrow)
    monkeypatch.setattr(_integrity, "BLOCK", block)
    hand_tree().validate()
    parts = copy.deepcopy(hand_tree_parts())
    mutate, message = CORRUPTIONS[name]
    mutate(parts)
    with pytest.raises(ValueError, match=message):
        make(*parts)


def test_check_fitted_wants_fractions_summing_to_1_at_each_split():
    check_fitted(hand_tree())
    nodes, value, pool, nc = hand_tree_parts()
    nodes["branch_fraction"][3:5] = [0.5, 0.5 + 2e-10]  # within the tolerance
    check_fitted(make(nodes, value, pool, nc))
    nodes["branch_fraction"][3:5] = [0.5, 0.6]
    with pytest.raises(ValueError, match=r"children of node 1 sum to 1\.1, not 1 \(within 1e-09\)"):
        check_fitted(make(nodes, value, pool, nc))


def test_validate_checks_a_wide_multiway_split_at_once():
    """A root with 40 leaf children (more than NARROW) is checked by the all-slots path, fast."""
    k = 40
    n = k + 1
    nodes = {"feature": [0] + [-1] * k, "kind": [MULTIWAY] + [LEAF] * k,
             "threshold": [NAN] * n, "first_child": [1] + [-1] * k,
             "n_children": [k] + [0] * k, "pool_offset": [0] + [-1] * k,
             "missing_branch": [MISSING_STOP] + [-1] * k, "parent": [-1] + [0] * k,
             "depth": [0] + [1] * k, "impurity": [1.0] + [0.0] * k,
             "n_node_samples": [k] + [1] * k, "weighted_n_node_samples": [float(k)] + [1.0] * k,
             "branch_fraction": [1.0] + [1.0 / k] * k, "surrogate_offset": [-1] * n,
             "n_surrogates": [0] * n}
    parts = (nodes, [[1.0, 1.0]] * n, list(range(k)), [k])
    assert k > _integrity.NARROW
    make(*copy.deepcopy(parts)).validate()
    bad = copy.deepcopy(parts)
    bad[0]["parent"][7] = 3
    with pytest.raises(ValueError, match="parent links"):
        make(*bad)


def test_validate_by_blocks_finds_what_whole_arrays_find(monkeypatch):
    """The checks go through the nodes in blocks: a child shared by splits of two blocks, and
    the first fault among several, are found as over the whole arrays."""
    monkeypatch.setattr(_integrity, "BLOCK", 2)
    for narrow in (16, 0):
        monkeypatch.setattr(_integrity, "NARROW", narrow)
        parts = copy.deepcopy(hand_tree_parts())
        parts[0]["first_child"][2] = 3  # node 2 (block 1) takes node 1's (block 0) children
        with pytest.raises(ValueError, match="shared between parents"):
            make(*parts)
    parts = copy.deepcopy(hand_tree_parts())
    parts[0]["depth"][6] = 1  # two wrong depths: node 5 is reported, not node 6
    parts[0]["depth"][5] = 1
    with pytest.raises(ValueError, match=r"node 5 has depth 1"):
        make(*parts)


@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_from_dict_rejects(name):
    parts = copy.deepcopy(hand_tree_parts())
    mutate, message = CORRUPTIONS[name]
    mutate(parts)
    data = json.loads(json.dumps(_plain_dict(*parts)))
    with pytest.raises(ValueError, match=message):
        Tree.from_dict(data)


def _plain_dict(nodes, value, pool, n_categories):
    out = {name: [None if isinstance(v, float) and np.isnan(v) else v for v in values]
           for name, values in nodes.items()}
    out.update(value=value, pool=pool, n_categories=n_categories)
    return out


# ----------------------------------------------------------------------------- plain data


def test_to_dict_round_trips_through_json():
    t = hand_tree()
    text = json.dumps(t.to_dict())
    back = Tree.from_dict(json.loads(text))
    assert back == t
    assert json.dumps(back.to_dict()) == text
    np.testing.assert_array_equal(back.apply(_rows()), t.apply(_rows()))


def test_equality_sees_every_array():
    t = hand_tree()
    assert t == hand_tree()
    for name in ("impurity", "branch_fraction", "threshold"):
        nodes, value, pool, nc = hand_tree_parts()
        nodes[name][1] /= 2
        assert make(nodes, value, pool, nc) != t
    nodes, value, pool, nc = hand_tree_parts()
    value[3][0] += 1
    assert make(nodes, value, pool, nc) != t
    nodes, value, pool, nc = hand_tree_parts()
    pool[2] = 0
    assert make(nodes, value, pool, nc) != t


@pytest.mark.parametrize("field, bad", [("first_child", 1.5), ("kind", "x"), ("depth", 2**40),
                                        ("parent", None), ("n_node_samples", float("inf"))])
def test_from_dict_refuses_values_that_would_change(field, bad):
    data = hand_tree().to_dict()
    data[field][3] = bad
    with pytest.raises(ValueError, match=field):
        Tree.from_dict(data)



def test_the_pool_is_int8_when_every_entry_fits_and_int32_past_128_branches():
    nodes, value, pool, n_categories = hand_tree_parts()
    small = make(nodes, value, pool, n_categories)
    assert small.pool.dtype == np.int8 and small.pool.tolist() == pool
    # a multiway test of 200 branches needs entries up to 199, which int8 cannot hold
    wide = list(range(200)) + [-1]
    assert narrowest_pool(np.array(wide)).dtype == np.int32
    assert narrowest_pool(np.array(wide)).tolist() == wide
    assert narrowest_pool(np.zeros(0, dtype=np.int64)).dtype == np.int8
    assert narrowest_pool(np.array([-128, 127])).dtype == np.int8
    assert narrowest_pool(np.array([-1, 128])).dtype == np.int32
    # a saved tree loads with the pool its entries need
    again = Tree.from_dict(json.loads(json.dumps(small.to_dict())))
    assert again.pool.dtype == np.int8 and again.pool.tolist() == pool


@pytest.mark.parametrize("bad_value", [-2, 2, 5])
def test_the_first_bad_pool_entry_is_found_deep_in_long_slices(bad_value):
    """Slices of 2 to 1,000 entries, two bad ones: the first in the order of the tests, then of
    the categories, is reported (the reference: a plain loop over every entry)."""
    rng = np.random.default_rng(1)
    k = rng.choice([2, 7, 1000], 60).astype(np.int64)
    offset = np.concatenate(([0], np.cumsum(k)[:-1])).astype(np.int64)
    pool = rng.integers(-1, 2, int(k.sum())).astype(np.int8)
    limit = np.full(60, 2, dtype=np.int64)
    assert _integrity._first_bad_entry(pool, offset, k, limit) == (-1, -1)
    long = np.flatnonzero(k == 1000)
    pool[offset[long[1]] + 611] = bad_value
    pool[offset[long[0]] + 998] = bad_value
    expected = next((i, c) for i in range(60) for c in range(k[i])
                    if not -1 <= pool[offset[i] + c] < limit[i])
    assert expected == (long[0], 998)
    assert _integrity._first_bad_entry(pool, offset, k, limit) == expected
