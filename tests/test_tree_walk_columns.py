"""The column-wise walk (``tree.walk_columns``, fed by ``input.columns``) against the matrix walk
(``tree.walk.route_rows`` on ``encode.encode``'s matrix): the same end nodes on random trees
with every node kind, surrogates and wide category sets, and the same predictions,
probabilities and ``apply`` from estimators on tables with every column kind, missing cells,
unseen categories and columns in another order."""

import numpy as np
import pandas as pd
import pytest
from test_tree_walk import random_rows, random_tree
from test_tree_walk_compact import _route_by_hand, _widened, _with_surrogates

from rootwise import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from rootwise._config import CODE_DTYPE, CODE_MISSING, CODE_UNSEEN, MULTIWAY, SUBSET, UNSEEN_CODE
from rootwise.input import columns as input_columns
from rootwise.input import encode, tables
from rootwise.tree import Tree, walk_columns
from rootwise.tree.tree import MAX_ROWS, _rows_of
from rootwise.tree.walk import SPLIT_MIN
from rootwise.tree.walk_columns import (
    BLOCK,
    LARGE_BLOCK,
    LARGE_TREE,
    SIDE_DETOUR,
    SIDE_LEFT,
    block_rows,
)


def _as_columns(X, n_categories):
    """The column-wise form of an encoded matrix: float codes -> int32 codes (NaN -> missing,
    UNSEEN_CODE -> unseen; codes past the categories stay, as unseen ones)."""
    categorical = np.asarray(n_categories) > 0
    num = np.ascontiguousarray(X[:, ~categorical].T)
    cat = X[:, categorical].T
    codes = np.where(np.isnan(cat), CODE_MISSING,
                     np.where(cat == UNSEEN_CODE, CODE_UNSEEN, np.nan_to_num(cat)))
    return categorical, num, np.ascontiguousarray(codes, dtype=CODE_DTYPE)


@pytest.mark.parametrize("seed", range(6))
def test_random_trees_end_where_the_matrix_walk_and_routing_by_hand_end(seed):
    """Threshold, multiway and subset tests, threshold and subset surrogates, more than 64
    categories, columns interleaved (continuous, categorical, continuous, ...), detours with a
    fixed answer folded into the bits: every row ends where the matrix walk and routing by hand
    end, on one thread and on two."""
    rng = np.random.default_rng(500 + seed)
    nodes, value, pool = random_tree(rng, [0, 3, 0, 4], max_depth=10)
    n_categories = [0, 150, 0, int(rng.choice([64, 65]))]
    pool = _widened_at(rng, nodes, pool, n_categories)
    sur = _with_surrogates(rng, nodes, pool, n_categories)
    tree = Tree(nodes, value, np.array(pool, dtype=np.int32), np.array(n_categories), sur)
    assert np.any(tree.kind == SUBSET) and np.any(tree.surrogates["kind"] == SUBSET)
    X = random_rows(rng, n_categories, 2 * BLOCK + 300)
    expected = [_route_by_hand(row, nodes, pool, n_categories, sur) for row in X]
    categorical, num, codes = _as_columns(X, n_categories)
    layout = tree.column_layout(categorical)
    # fixed detours folded into the bits (nodes without surrogates going to child 0 or 1)
    assert np.any(layout[4] != tree._layout()[2])
    for parallel in (False, True):
        ends, out, first_inf = tree.route_columns(num, codes, layout, tree.value, parallel)
        assert first_inf == -1
        np.testing.assert_array_equal(ends, expected)
        np.testing.assert_array_equal(ends, tree.route(X, tree.value)[0])
        np.testing.assert_array_equal(out, tree.value[expected])


@pytest.mark.parametrize("n_rows", [1, SPLIT_MIN - 1, SPLIT_MIN, SPLIT_MIN + 1, 3 * SPLIT_MIN])
def test_blocks_split_node_by_node_and_walked_row_by_row_end_alike(n_rows):
    """A block's rows go down together while a node holds SPLIT_MIN of them or more, then one
    by one: at every size around SPLIT_MIN (one block, many rows stopping at split nodes or at
    multiway tests) each row ends where routing by hand ends."""
    for seed in range(20):
        rng = np.random.default_rng(900 + seed)
        nodes, value, pool = random_tree(rng, [0, 3, 0, 70], max_depth=6)
        n_categories = [0, 3, 0, 70]
        sur = _with_surrogates(rng, nodes, pool, n_categories)
        tree = Tree(nodes, value, np.array(pool, dtype=np.int32), np.array(n_categories), sur)
        X = random_rows(rng, n_categories, n_rows)
        expected = [_route_by_hand(row, nodes, pool, n_categories, sur) for row in X]
        categorical, num, codes = _as_columns(X, n_categories)
        ends, _, _ = tree.route_columns(num, codes, tree.column_layout(categorical), tree.value)
        np.testing.assert_array_equal(ends, expected)


def test_every_block_size_ends_rows_where_routing_by_hand_ends():
    """Blocks of a few rows, of a size that leaves a short last block, and larger than the
    table (a large tree's ``LARGE_BLOCK``): the branch-free splits into two buffers and the
    detours end every row where routing by hand ends, on one thread and on two."""
    rng = np.random.default_rng(77)
    nodes, value, pool = random_tree(rng, [0, 3, 0, 70], max_depth=6)
    n_categories = [0, 3, 0, 70]
    sur = _with_surrogates(rng, nodes, pool, n_categories)
    tree = Tree(nodes, value, np.array(pool, dtype=np.int32), np.array(n_categories), sur)
    assert np.any(tree.kind == SUBSET) and tree.kind[0] != MULTIWAY  # the root's rows split
    X = random_rows(rng, n_categories, 700)
    expected = [_route_by_hand(row, nodes, pool, n_categories, sur) for row in X]
    categorical, num, codes = _as_columns(X, n_categories)
    records, s_records, k, _, bits, sides, sides_at = tree.column_layout(categorical)
    num.flags.writeable = codes.flags.writeable = False  # as Tree.route_columns passes them
    for block in (SPLIT_MIN, 97, LARGE_BLOCK):
        for kernel in (walk_columns.route_columns, walk_columns.route_columns_parallel):
            ends, _, _ = kernel(num, 0, codes, len(X), tree.value, tree.split_min(), records,
                                bits, sides, sides_at, tree._layout()[3], s_records, tree.pool, k,
                                block)
            np.testing.assert_array_equal(ends, expected)
    assert block_rows(LARGE_TREE) == BLOCK and block_rows(LARGE_TREE + 1) == LARGE_BLOCK


def test_side_tables_hold_each_categorys_side_and_route_as_the_bits_do():
    """``category_side_tables``: a table for the subset tests nearest the root while they fit in
    the budget, entry c + 2 the side of category c read from the pool (a branch, or for a
    branchless category the node's fixed missing_branch when it has no surrogates, else the
    detour), entries 0 and 1 the detour; rows split with the tables, with some, and with none
    (the bits) end where routing by hand ends, on one thread and on two."""
    rng = np.random.default_rng(30)
    nodes, value, pool = random_tree(rng, [0, 3, 0, 4], max_depth=8)
    n_categories = [0, 150, 0, 65]
    pool = _widened_at(rng, nodes, pool, n_categories)
    sur = _with_surrogates(rng, nodes, pool, n_categories)
    for node in range(len(nodes["kind"])):  # some subset tests without surrogates, fixed detours
        if nodes["kind"][node] == SUBSET and rng.random() < 0.4:
            nodes["n_surrogates"][node] = 0
            nodes["missing_branch"][node] = int(rng.integers(-1, 2))
    tree = Tree(nodes, value, np.array(pool, dtype=np.int32), np.array(n_categories), sur)
    X = random_rows(rng, n_categories, BLOCK + 500)
    expected = [_route_by_hand(row, nodes, pool, n_categories, sur) for row in X]
    categorical, num, codes = _as_columns(X, n_categories)
    records, s_records, k, _, bits, sides, at = tree.column_layout(categorical)
    origin = tree._layout()[1]
    subset = np.flatnonzero(tree.kind[origin] == SUBSET)
    assert len(subset) > 4 and np.all(at[subset] >= 0) and np.all(np.delete(at, subset) == -1)
    for r in subset:
        node = origin[r]
        f = nodes["feature"][node]
        branch = np.array(pool[nodes["pool_offset"][node]:][:n_categories[f]])
        fixed = nodes["n_surrogates"][node] == 0 and nodes["missing_branch"][node] in (0, 1)
        none = SIDE_LEFT + nodes["missing_branch"][node] if fixed else SIDE_DETOUR
        want = np.where(branch >= 0, SIDE_LEFT + branch, none)
        np.testing.assert_array_equal(sides[at[r]:at[r] + n_categories[f] + 2],
                                      [SIDE_DETOUR, SIDE_DETOUR, *want])
    depth = tree.depth[origin]
    budget = int((k[(-2 - records["feature"][subset]) >> 1] + 2).sum()) // 2
    some, some_at = walk_columns.category_side_tables(records, depth, bits, k, budget)
    kept = some_at[subset] >= 0
    assert 0 < kept.sum() < len(subset) and len(some) <= budget
    assert depth[subset][kept].max() <= depth[subset][~kept].min()  # the shallowest first
    none_at = np.full(len(records), -1)
    num.flags.writeable = codes.flags.writeable = False  # as Tree.route_columns passes them
    for side_tables, offsets in ((sides, at), (some, some_at), (sides[:0], none_at)):
        for kernel in (walk_columns.route_columns, walk_columns.route_columns_parallel):
            ends, _, _ = kernel(num, 0, codes, len(X), tree.value, tree.split_min(), records,
                                bits, side_tables, offsets, tree._layout()[3], s_records, tree.pool, k,
                                BLOCK)
            np.testing.assert_array_equal(ends, expected)


def test_rows_split_together_only_in_trees_with_subset_tests():
    """Tree.split_min: SPLIT_MIN when a test is a subset test, beyond any block otherwise
    (thresholds alone, or multiway tests, which are walked one by one)."""
    rng = np.random.default_rng(4)
    seen = set()
    for _ in range(40):
        nodes, value, pool = random_tree(rng, [0, 5], max_depth=4)
        tree = Tree(nodes, value, np.array(pool, dtype=np.int32), np.array([0, 5]))
        has_subset = bool(np.any(tree.kind == SUBSET))
        seen.add((has_subset, bool(np.any(tree.kind == MULTIWAY))))
        assert tree.split_min() == (SPLIT_MIN if has_subset else MAX_ROWS)
    assert {(True, False), (False, True), (False, False)} <= seen


def _widened_at(rng, nodes, pool, n_categories):
    """``_widened`` for categorical columns 1 and 3 (it keeps the codes of columns 2 and 3)."""
    moved = {1: 2, 3: 3}
    original = list(nodes["feature"])
    nodes["feature"] = [moved.get(f, f) for f in original]
    wide = _widened(rng, nodes, pool, [0, 0, n_categories[1], n_categories[3]])
    nodes["feature"] = original
    return wide


def test_infinite_values_are_found_in_any_block_and_rows_keep_their_routes():
    rng = np.random.default_rng(9)
    nodes, value, pool = random_tree(rng, [0, 5, 0], max_depth=8)
    tree = Tree(nodes, value, np.array(pool, dtype=np.int32), np.array([0, 5, 0]))
    X = random_rows(rng, [0, 5, 0], 3 * BLOCK)
    X[BLOCK + 7, 2] = -np.inf
    X[2 * BLOCK + 1, 0] = np.inf
    categorical, num, codes = _as_columns(X, [0, 5, 0])
    for parallel in (False, True):
        _, _, first_inf = tree.route_columns(num, codes, tree.column_layout(categorical),
                                             tree.value, parallel)
        assert first_inf == BLOCK + 7


def test_layout_refuses_input_of_the_wrong_shape_or_kind():
    rng = np.random.default_rng(3)
    nodes, value, pool = random_tree(rng, [0, 5], max_depth=6)
    tree = Tree(nodes, value, np.array(pool, dtype=np.int32), np.array([0, 5]))
    layout = tree.column_layout(np.array([False, True]))
    num, codes = np.zeros((1, 10)), np.zeros((1, 10), dtype=CODE_DTYPE)
    with pytest.raises(ValueError, match="column-wise input"):
        tree.route_columns(num, codes.astype(np.int64), layout, tree.value)
    with pytest.raises(ValueError, match="column-wise input"):
        tree.route_columns(np.zeros((2, 10)), codes, layout, tree.value)
    with pytest.raises(ValueError, match="column-wise input"):
        tree.route_columns(num, np.zeros((1, 9), dtype=CODE_DTYPE), layout, tree.value)
    if np.any(tree.kind == 1):  # a threshold on feature 0: not readable as categorical
        assert tree.column_layout(np.array([True, True])) is None


# ---------------------------------------------------------------- estimators on tables


def _table(n, seed, *, unseen=False):
    """Every column kind: float (in pandas' float block), int, nullable Int64 and Float64, bool,
    object strings, pandas str, categorical; about 8 % missing cells; ``unseen``: categories and
    values fit never saw."""
    rng = np.random.default_rng(seed)
    colours = np.array(["red", "green", "blue", "grey", "pink"])
    frame = pd.DataFrame({
        "a": rng.normal(size=n),
        "colour": rng.choice(colours[:4 + unseen], size=n).astype(object),
        "b": rng.normal(size=n),
        "count": rng.integers(0, 5, size=n),
        "size": pd.array(rng.integers(0, 9, size=n), dtype="Int64"),
        "flag": rng.random(n) < 0.4,
        "shape": pd.Series(rng.choice(["o", "x", "v"] + ["w"] * unseen, size=n)).astype("str"),
        "level": pd.Categorical(rng.choice(list("pqrstu"[:5 + unseen]), size=n)),
        "ratio": pd.array(rng.normal(size=n), dtype="Float64"),
    })
    y = np.array((frame["a"] + (frame["colour"] == "red") + (frame["level"] == "q")
                  + 0.5 * rng.normal(size=n)) > 0.5, dtype=int)
    y[(frame["shape"] == "x").to_numpy()] += 1  # three classes
    for col in ("a", "colour", "b", "size", "shape", "level", "ratio"):
        frame.loc[rng.random(n) < 0.08, col] = None
    return frame, y


def _matrix_route(model, X, table):
    """The former path: the encoded float64 matrix through the compact matrix walk."""
    return model.tree_.route(model._encode(X), table)[:2]


def _same_answers(model, X, proba=True):
    table = model.tree_.value
    ends, out = model._route(X, table)
    want_ends, want_out = _matrix_route(model, X, table)
    np.testing.assert_array_equal(ends, want_ends)
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_array_equal(model.apply(X), want_ends)
    if proba:
        want = model.tree_.distribution()[want_ends]
        np.testing.assert_array_equal(model.predict_proba(X), want)


CATEGORICAL = ["colour", "count", "flag", "shape", "level"]


@pytest.mark.parametrize("make", [
    lambda: CARTClassifier(pruning=None, categorical_features=CATEGORICAL, random_state=0),
    lambda: CARTClassifier(categorical_features=CATEGORICAL, random_state=0),  # pruned
    lambda: CARTRegressor(pruning=None, categorical_features=CATEGORICAL),
    lambda: C45Classifier(pruning=None, categorical_features=CATEGORICAL),
])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_estimators_predict_tables_as_the_matrix_walk_does(make, n_jobs):
    """Every column kind, missing cells (surrogates, C4.5's fractional routing), categories and
    values unseen at fit, columns of a categorical listing its categories in another order, more
    rows than the threads' threshold: the same end nodes and outputs as the matrix walk."""
    train, y = _table(3000, 0)
    model = make().set_params(n_jobs=n_jobs)
    model.fit(train, y.astype(float) if isinstance(model, CARTRegressor) else y)
    assert model.tree_.column_layout(input_columns.slots(model.schema_)[0]) is not None
    test, _ = _table(2 * BLOCK + 100, 1, unseen=True)
    test["level"] = test["level"].cat.reorder_categories(test["level"].cat.categories[::-1])
    proba = not isinstance(model, CARTRegressor)
    if isinstance(model, C45Classifier):  # fractional routing: apply, and the walk itself
        np.testing.assert_array_equal(model.apply(test), _matrix_route(model, test, model.tree_.value)[0])
        want = model.tree_.fractional_distribution(model._encode(test))
        np.testing.assert_array_equal(model.predict_proba(test), want)
        return
    _same_answers(model, test, proba)
    _same_answers(model, test.iloc[::3], proba)  # strided float columns: not a view of a block
    as_objects = test.astype(object).where(test.notna(), None)  # a table of Python objects
    _same_answers(model, as_objects, proba)
    rows = as_objects.iloc[:500].values.tolist()  # lists of rows: names lost, a warning
    with pytest.warns(UserWarning, match="valid feature names"):
        _same_answers(model, rows, proba)
    assert isinstance(model.predict(test), np.ndarray)


def test_numeric_matrix_with_categorical_columns_and_id3_numbers():
    """A numpy matrix with columns named categorical, and ID3's numbers as categories (values
    unseen at fit too): the column-wise input gives the matrix walk's answers."""
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.normal(size=3000), rng.integers(0, 6, 3000), rng.normal(size=3000)])
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (X[:, 1] > 2).astype(int) ^ (np.nan_to_num(X[:, 0]) > 0)
    model = CARTClassifier(pruning=None, categorical_features=[1]).fit(X, y)
    X_new = X.copy()
    X_new[::7, 1] = 9.0  # a category fit never saw
    _same_answers(model, X_new)
    _same_answers(model, np.asfortranarray(X_new.astype(np.float32)))
    levels = np.clip(np.round(rng.normal(size=(3000, 3))), -2, 2)
    id3 = ID3Classifier(pruning=None).fit(levels, (levels[:, 0] + levels[:, 1] > 0).astype(int))
    new = levels.copy()
    new[::5, 0] = 7.0  # a number fit never saw: the row stops at the multiway test
    _same_answers(id3, new)


def test_id3_refuses_missing_cells_naming_the_column():
    frame = pd.DataFrame({"outlook": ["sun", "rain", "sun", "fog"] * 5,
                          "windy": ["yes", "no"] * 10})
    y = np.arange(20) % 2
    model = ID3Classifier(pruning=None).fit(frame, y)
    holed = frame.copy()
    holed.loc[[3, 8], "windy"] = None
    with pytest.raises(ValueError, match=r"cannot use missing values.*'windy' has 2 .*\[3, 8\]"):
        model.predict(holed)


def test_infinity_in_a_table_names_its_column_and_row():
    """Float columns read as they are: the walk finds the first row with an infinity, named with
    its first infinite column. Other numeric columns are converted one by one, and the first
    column with an infinity is named (as the encoder does)."""
    train, y = _table(2000, 0)
    floats = train.drop(columns=["size", "ratio"])
    model = CARTClassifier(pruning=None, categorical_features=CATEGORICAL)
    test, _ = _table(2 * BLOCK, 2)
    test.loc[BLOCK + 3, "b"] = np.inf
    test.loc[BLOCK + 9, "a"] = -np.inf
    for n_jobs in (1, 2):
        model.set_params(n_jobs=n_jobs).fit(floats, y)
        with pytest.raises(ValueError, match=rf"infinity.*column 'b', row {BLOCK + 3}\."):
            model.predict(test.drop(columns=["size", "ratio"]))
        model.fit(train, y)
        with pytest.raises(ValueError, match=rf"infinity.*column 'a', row {BLOCK + 9}\."):
            model.predict(test)


def test_columns_of_a_frame_are_read_without_a_copy():
    """The float columns of a DataFrame, consecutive in its float block, are the walk's
    ``num`` as they are; columns in another order are copied, with the same values."""
    train, y = _table(500, 0)
    model = CARTClassifier(pruning=None, categorical_features=CATEGORICAL).fit(train, y)
    frame = pd.DataFrame({"a": np.arange(6.0), "b": np.arange(6.0) * 2})
    cols = input_columns.columns(frame, _two_float_schema())
    assert np.shares_memory(cols.num, frame["a"].to_numpy())
    swapped = input_columns.columns(frame[["b", "a"]], _two_float_schema())
    np.testing.assert_array_equal(swapped.num, [frame["b"], frame["a"]])
    assert model.predict(train).shape == (500,)
    frame = tables.as_table(train)
    np.testing.assert_array_equal(encode.encode(frame, model.schema_)[:, 0],
                                  input_columns.columns(frame, model.schema_).num[0])


def test_float_columns_of_a_row_slice_are_read_in_their_longer_block():
    """A row slice of a larger frame leaves its float columns as rows of a longer block: the
    walk reads them there (rows first..first+n-1 of the block, no copy) and ends every row where
    the same columns copied end it, on one thread and on two; from an estimator the slice
    predicts as the whole frame's rows do, and an infinity is found by the walk (the first row
    holding one, named with its first infinite column)."""
    rng = np.random.default_rng(12)
    nodes, value, pool = random_tree(rng, [0, 5, 0], max_depth=8)
    tree = Tree(nodes, value, np.array(pool, dtype=np.int32), np.array([0, 5, 0]))
    X = random_rows(rng, [0, 5, 0], BLOCK + 700)
    categorical, num, codes = _as_columns(X, [0, 5, 0])
    longer = np.full((2, len(X) + 500), np.inf)  # cells outside the slice are never read
    longer[:, 300:300 + len(X)] = num
    part = longer[:, 300:300 + len(X)]
    assert not part.flags.c_contiguous
    base, first = _rows_of(part)
    assert base is longer and first == 300
    layout = tree.column_layout(categorical)
    for parallel in (False, True):
        ends, out, first_inf = tree.route_columns(part, codes, layout, tree.value, parallel)
        want = tree.route_columns(num, codes, layout, tree.value, parallel)
        assert first_inf == -1 and want[2] == -1
        np.testing.assert_array_equal(ends, want[0])
        np.testing.assert_array_equal(out, want[1])
    with pytest.raises(ValueError, match="column-wise input"):  # rows that are not contiguous
        tree.route_columns(longer[:, ::2][:, :len(X)], codes, layout, tree.value)

    train, y = _table(500, 0)
    floats = train.drop(columns=["size", "ratio"])
    model = CARTClassifier(pruning=None, categorical_features=CATEGORICAL).fit(floats, y)
    whole, _ = _table(400, 3)
    whole = whole.drop(columns=["size", "ratio"])
    sliced = whole.iloc[100:].reset_index(drop=True)
    cols = input_columns.columns(tables.as_table(sliced), model.schema_)
    np.testing.assert_array_equal(cols.num, [sliced["a"].to_numpy(), sliced["b"].to_numpy()])
    assert np.isnan(cols.num).any()
    np.testing.assert_array_equal(model.predict(sliced), model.predict(whole)[100:])
    whole.loc[250, "b"] = np.inf
    whole.loc[260, "a"] = -np.inf
    with pytest.raises(ValueError, match=r"infinity.*column 'b', row 150\."):
        model.predict(whole.iloc[100:].reset_index(drop=True))


def _two_float_schema():
    from rootwise.input.schema import Schema

    return Schema(("a", "b"), (0, 0), (None, None), True)


def test_declared_categoricals_give_their_codes_and_other_categories_are_recoded():
    """A pandas categorical of the fitted categories gives its own codes (int16), also when the
    same dtype comes back (its comparison is kept); the same values under another category
    order, or with a category fit never saw, are recoded by value, whatever came before."""
    from rootwise.input.schema import Schema

    schema = Schema(("c",), (1,), (("x", "y", "z"),), True)
    values = ["z", None, "x", "y", "z"]
    fitted = pd.DataFrame({"c": pd.Categorical(values, categories=["x", "y", "z"])})
    expected = [2, CODE_MISSING, 0, 1, 2]
    for _ in range(2):  # the second time through the kept comparison
        codes = input_columns.columns(fitted, schema).codes
        assert codes.dtype == np.int16
        np.testing.assert_array_equal(codes[0], expected)
        np.testing.assert_array_equal(input_columns.columns(fitted.iloc[1:], schema).codes[0],
                                      expected[1:])
    reordered = pd.DataFrame({"c": pd.Categorical(values, categories=["z", "y", "x"])})
    np.testing.assert_array_equal(input_columns.columns(reordered, schema).codes[0], expected)
    wider = pd.DataFrame({"c": pd.Categorical(values + ["w"], categories=["x", "y", "z", "w"])})
    np.testing.assert_array_equal(input_columns.columns(wider, schema).codes[0],
                                  expected + [CODE_UNSEEN])
    numbers = pd.DataFrame({"c": pd.Categorical([1, 0], categories=[0, 1])})
    with pytest.raises(ValueError, match="column 'c' holds numbers"):
        input_columns.columns(numbers, schema)


def test_codes_are_int32_beyond_int16s_categories():
    """A column of more categories than int16 numbers gets int32 codes, the same values."""
    from rootwise.input.schema import Schema

    many = tuple(f"k{i}" for i in range(np.iinfo(np.int16).max + 2))
    schema = Schema(("c",), (1,), (many,), True)
    frame = pd.DataFrame({"c": pd.Categorical.from_codes([len(many) - 1, -1, 5], categories=many)})
    codes = input_columns.columns(frame, schema).codes
    assert codes.dtype == CODE_DTYPE
    np.testing.assert_array_equal(codes[0], [len(many) - 1, CODE_MISSING, 5])
    assert input_columns.code_dtype(Schema(("c",), (1,), (many[:-1],), True)) == np.int16
