"""engine/node_table.py: the growing tree is kept in the ``Tree``'s own dtypes, so ``to_tree``
hands its arrays over without a converted copy (a fully grown tree of 10^6 rows has 2 x 10^6
nodes: a copy of each int field beside the table was part of the fit's peak memory)."""

import numpy as np

from rootwise._config import LEAF, MULTIWAY, SUBSET
from rootwise.engine.node_table import (
    NodeTable,
    SurrogateTable,
    init_leaf,
    new_nodes,
    new_surrogates,
    to_tree,
    with_multiway_slices,
)
from rootwise.tree.tree import NODE_FIELDS, SURROGATE_FIELDS

# the table's field -> the Tree's, where the names differ
NODE_NAMES = {"n_samples": "n_node_samples", "weight": "weighted_n_node_samples",
              "fraction": "branch_fraction", "s_offset": "surrogate_offset",
              "s_count": "n_surrogates"}
SURROGATE_NAMES = {"adjusted": "adjusted_agreement"}


def test_a_full_node_table_becomes_the_trees_arrays_without_a_copy():
    nodes = new_nodes(1, 2)
    init_leaf(nodes, np.int64(0), np.int64(-1), np.int64(0), 1.0)
    tree = to_tree(nodes, 1, np.zeros(1, dtype=np.int32), 0, new_surrogates(1), 0,
                   np.zeros(2, dtype=np.int64))
    for field in NodeTable._fields:
        if field in ("lower", "upper"):  # monotonic bounds: growth's own, clipped into value
            continue
        if field == "value":
            assert np.shares_memory(tree.value, nodes.value)
            continue
        name = NODE_NAMES.get(field, field)
        assert name in NODE_FIELDS
        assert np.shares_memory(getattr(tree, name), getattr(nodes, field)), field


def test_the_surrogate_table_has_the_trees_dtypes():
    table = new_surrogates(4)
    for field in SurrogateTable._fields:
        name = SURROGATE_NAMES.get(field, field)
        assert getattr(table, field).dtype == SURROGATE_FIELDS[name], field


def test_multiway_slices_reserved_by_the_growth_are_written_as_category_to_branch():
    """The growth writes only subset entries into its int8 pool; a multiway test's slice is
    reserved and ``to_tree`` writes it (category c -> branch c), in int32 when a test has more
    than 128 branches."""
    kind = np.array([MULTIWAY, SUBSET, MULTIWAY, LEAF], dtype=np.int8)
    feature = np.array([0, 1, 2, -1], dtype=np.int32)
    n_categories = np.array([3, 4, 200], dtype=np.int64)
    offset = np.array([0, 3, 7, -1], dtype=np.int32)
    pool = np.full(207, 99, dtype=np.int8)  # 99: never written
    pool[3:7] = [1, -1, 0, 1]  # the subset test's entries
    full = with_multiway_slices(pool, kind, feature, offset, n_categories)
    assert full.dtype == np.int32
    assert full[:3].tolist() == [0, 1, 2]
    assert full[3:7].tolist() == [1, -1, 0, 1]
    assert full[7:].tolist() == list(range(200))
    only_subsets = with_multiway_slices(pool[3:7], kind[1:2], feature[1:2], offset[1:2] - 3,
                                         n_categories)
    assert only_subsets.dtype == np.int8 and only_subsets.tolist() == [1, -1, 0, 1]
