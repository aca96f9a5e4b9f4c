"""engine/growable.py: the growth's category pool grows without a copy once it is large (its
pages remapped), keeps every entry it had, and refuses to move pages that a view still reads."""

import mmap
import pickle

import numpy as np
import pandas as pd
import pytest

from rootwise import C45Classifier, CARTClassifier, CARTRegressor
from rootwise.engine import growable
from rootwise.engine.growable import Growable, GrowableTables
from rootwise.engine.node_table import NodeTable, new_nodes

remaps = pytest.mark.skipif(not hasattr(mmap, "MAP_PRIVATE"), reason="no private mappings here")


def _filled(table, n, seed=0):
    """Writes n known entries at the front, as the growth loop appends them."""
    values = np.random.default_rng(seed).integers(-1, 200, n).astype(table.dtype)
    table.array[:n] = values
    return values


def _mapped(monkeypatch, rows, n):
    """A table past a lowered threshold (64 bytes), so in a mapping, with n known entries."""
    monkeypatch.setattr(growable, "LARGE", 64)
    t = Growable(8, np.int32)
    t.reserve(rows)
    return t, _filled(t, n)


def test_a_small_table_grows_by_doubling_and_keeps_its_entries():
    t = Growable(4, np.int32)
    values = _filled(t, 4)
    t.reserve(5)
    assert t.array.shape[0] == 8 and t._map is None
    assert np.array_equal(t.array[:4], values)


@remaps
def test_a_large_table_moves_into_a_mapping_and_is_remapped_in_place(monkeypatch):
    monkeypatch.setattr(growable, "LARGE", 64)  # bytes: 16 int32 entries
    t = Growable(8, np.int32)
    values = _filled(t, 8)
    t.reserve(20)  # 80 bytes: into a mapping
    assert t._map is not None and t.array.shape[0] == 20
    assert np.array_equal(t.array[:8], values)
    more = np.arange(12, dtype=np.int32)
    t.array[8:20] = more
    mapping = t._map
    t.reserve(21)  # grows in place: the same mapping, twice the room
    assert t._map is mapping and t.array.shape[0] == 40
    assert np.array_equal(t.array[:20], np.concatenate([values, more]))


@remaps
def test_a_view_still_alive_makes_it_copy_and_the_view_keeps_its_entries(monkeypatch):
    t, values = _mapped(monkeypatch, 64, 64)
    kept = t.array[:10]  # a caller that broke the rule: the pages under it must not move
    mapping = t._map
    t.reserve(65)
    assert t._map is not mapping  # a new mapping, the entries copied
    assert np.array_equal(t.array[:64], values)
    assert np.array_equal(kept, values[:10])  # still the old mapping's entries, readable


@remaps
def test_finished_returns_exactly_the_written_entries_and_the_mapping_shrinks(monkeypatch):
    t, values = _mapped(monkeypatch, 1000, 700)
    mapping = t._map
    out = t.finished(700)
    assert out.shape == (700,) and out.dtype == np.int32
    assert np.array_equal(out, values)
    assert len(mapping) == 700 * 4  # no room kept beyond the entries
    assert t.array is None and t._map is None  # the tree owns them now


@remaps
def test_rows_of_a_two_dimensional_table_are_kept_through_remapping(monkeypatch):
    monkeypatch.setattr(growable, "LARGE", 64)
    t = Growable(2, np.float64, row=(3,))
    t.array[:2] = [[1, 2, 3], [4, 5, 6]]
    t.reserve(5)  # 120 bytes: a mapping
    t.array[2:5] = 7
    t.reserve(6)  # remapped
    assert t.array.shape == (10, 3)
    assert np.array_equal(t.array[:5], [[1, 2, 3], [4, 5, 6], [7, 7, 7], [7, 7, 7], [7, 7, 7]])
    assert t.finished(5).shape == (5, 3)


def test_a_bundle_grows_every_table_and_a_mostly_unused_reservation_is_copied_out():
    tables = GrowableTables(new_nodes(4096, 2))
    nodes = tables.bundle()
    assert isinstance(nodes, NodeTable)
    nodes.feature[:3] = [5, -1, -1]
    nodes.value[:3] = [[1, 2], [3, 4], [5, 6]]
    del nodes
    tables.reserve(5000)
    assert tables.rows == 8192
    done = tables.finished(3)
    assert isinstance(done, NodeTable) and done.value.shape == (3, 2)
    assert np.array_equal(done.feature, [5, -1, -1])
    assert np.array_equal(done.value, [[1, 2], [3, 4], [5, 6]])
    assert done.feature.base is None  # copied out: the 8192-row reservation is not kept


def _table(n=3000, seed=1):
    """Numeric and wide categorical columns with missing cells: many subset tests and subset
    surrogates, so the pool holds thousands of entries."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x": rng.normal(size=n), "z": rng.normal(size=n),
                      "a": pd.Categorical.from_codes(rng.integers(0, 60, n), [f"a{i}" for i in range(60)]),
                      "b": pd.Categorical.from_codes(rng.integers(0, 25, n), [f"b{i}" for i in range(25)])})
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    X.loc[rng.random(n) < 0.1, "x"] = np.nan
    y = (X["x"].fillna(0) + (X["a"].cat.codes % 3) + rng.normal(size=n)).to_numpy()
    return X, y


def _owner(a):
    while isinstance(a, np.ndarray) and a.base is not None:
        a = a.base
    return a.obj if isinstance(a, memoryview) else a


@remaps
@pytest.mark.parametrize("estimator", [CARTRegressor, CARTClassifier])
def test_a_fit_whose_pool_is_remapped_grows_the_same_tree(monkeypatch, estimator):
    X, y = _table()
    if estimator is CARTClassifier:
        y = (y > np.median(y)).astype(int)
    plain = estimator(pruning=None, n_jobs=1).fit(X, y).tree_
    assert plain.pool.nbytes > 2048  # the pool outgrows the mapping threshold below
    monkeypatch.setattr(growable, "LARGE", 256)
    model = estimator(pruning=None, n_jobs=1).fit(X, y)
    mapped = model.tree_
    assert isinstance(_owner(mapped.pool), mmap.mmap)  # it did go through the remapped path
    assert np.array_equal(mapped.pool, plain.pool)
    for name in ("feature", "kind", "threshold", "first_child", "pool_offset", "value"):
        assert np.array_equal(getattr(mapped, name), getattr(plain, name), equal_nan=True), name
    assert np.array_equal(mapped.surrogates["pool_offset"], plain.surrogates["pool_offset"])
    # a model whose pool lives in a mapping pickles and predicts like any other
    again = pickle.loads(pickle.dumps(model))
    assert np.array_equal(again.tree_.pool, plain.pool)
    assert np.array_equal(again.predict(X), model.predict(X))


@remaps
@pytest.mark.parametrize("release8", [False, True])
def test_c45_tables_are_remapped_never_copied_twice_and_grow_the_same_tree(monkeypatch, release8):
    """C4.5's node table and tables by node start small and double (no bound on its nodes):
    with a tiny threshold each is moved into a mapping once, then only remapped. A second copy
    would mean a view of it was kept across a growth, and the memory saving lost."""
    X, y = _table(seed=2)
    y = np.digitize(y, np.quantile(y, [0.33, 0.66]))
    plain = C45Classifier(pruning=None, release8=release8, n_jobs=1).fit(X, y).tree_
    copies = []
    into_map = Growable._copy_to_new_map

    def counted(self, nbytes, size):
        copies.append(id(self))
        into_map(self, nbytes, size)

    monkeypatch.setattr(growable, "LARGE", 512)
    monkeypatch.setattr(Growable, "_copy_to_new_map", counted)
    mapped = C45Classifier(pruning=None, release8=release8, n_jobs=1).fit(X, y).tree_
    assert len(copies) >= 17  # at least the node table's arrays went into mappings
    assert len(set(copies)) == len(copies)  # ... each once
    for name in ("feature", "kind", "threshold", "first_child", "n_children", "value",
                 "branch_fraction", "pool_offset"):
        assert np.array_equal(getattr(mapped, name), getattr(plain, name), equal_nan=True), name
    assert np.array_equal(mapped.pool, plain.pool)
