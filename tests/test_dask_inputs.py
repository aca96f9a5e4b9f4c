"""rootwise.dask checks its input as the local fit does, naming the partition and the column.

Each case runs on a real LocalCluster. The peer of every fit is the local fit of the same
pandas table with the distributed fit's bin edges (``fit(bin_edges=...)``); weights are integers,
so the sums are exact and the trees equal bit for bit (see tests/test_dask.py). The last test runs
a sample of the cases in a subprocess under NUMBA_BOUNDSCHECK=1 (kernels compiled afresh there).
"""

import os
import resource
import subprocess
import sys
import textwrap
import time

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from test_dask import _table, _uneven, client  # noqa: F401 - the module's LocalCluster fixture
from test_engine_hist import assert_same_tree

from rootwise import CARTClassifier
from rootwise.dask import worker
from rootwise.dask.checks import codes_in_range

PARAMS = dict(splitter="hist", max_bins=12, max_depth=6, pruning=None)
SIZES = [300, 500, 400]


def _same_as_local(est, X, y, w=None, **params):
    local = CARTClassifier(**{**PARAMS, **params}).fit(X, y, sample_weight=w,
                                                         bin_edges=est.bin_edges_)
    assert_same_tree(est.tree_, local.tree_)
    assert est.schema_ == local.schema_
    return local


def _uses(est, name):
    f = est.tree_.feature
    return name in {est.schema_.feature_names[j] for j in f[f >= 0]}


# ------------------------------------------------------------------ unknown categories
def test_unknown_categories_are_made_known(client):  # noqa: F811
    """``cat.as_unknown()`` (as after read_csv/read_parquet): the partitions' own categories,
    in their declared order (not sorted), give the local fit's schema and tree."""
    X, y, w = _table(sum(SIZES), 1)
    order = ["t", "r", "q", "p", "s"]  # a declared order that is not the sorted one
    X = X.assign(c=pd.Categorical(X["c"], categories=order))
    dX = _uneven(X, SIZES)
    dX["c"] = dX["c"].cat.as_unknown()
    assert not dd.utils.has_known_categories(dX["c"])
    est = CARTClassifier(**PARAMS).fit(dX, _uneven(y, SIZES), sample_weight=_uneven(w, SIZES))
    assert est.schema_.categories[1] == tuple(order)
    local = _same_as_local(est, X, y, w)
    assert _uses(est, "c")
    np.testing.assert_array_equal(est.predict(dX).compute().to_numpy(), local.predict(X))


def test_categories_of_each_partition_become_the_sorted_union(client):  # noqa: F811
    """``astype("category")`` on a collection: each partition declares its own values; the fit
    declares their union sorted, as ``astype("category")`` of the whole column does."""
    X, y, w = _table(sum(SIZES), 2)
    X.loc[:SIZES[0] - 1, "c"] = X.loc[:SIZES[0] - 1, "c"].replace({"p": "s"})  # no 'p' in part 0
    dX = _uneven(X, SIZES)
    dX["c"] = dX["c"].astype("category")
    assert not dd.utils.has_known_categories(dX["c"])
    est = CARTClassifier(**PARAMS).fit(dX, _uneven(y, SIZES), sample_weight=_uneven(w, SIZES))
    local_X = X.assign(c=X["c"].astype("category"))
    assert est.schema_.categories[1] == tuple("pqrst")
    _same_as_local(est, local_X, y, w)
    assert _uses(est, "c")


def test_partition_outside_the_declared_categories_is_refused(client):  # noqa: F811
    """A partition holding a value its collection's known categories do not list (a meta that
    does not match, verify_meta=False): refused by partition, column and value, never coded as
    a category byte the histograms do not have."""
    X, y, _ = _table(200, 3)
    X = X.assign(c=X["c"].astype("category"))
    pieces = [X.iloc[:100], X.iloc[100:].assign(c=X["c"].iloc[100:].cat.add_categories("zz")
                                                 .where(X.index[100:] != 150, "zz"))]
    dX = dd.from_delayed([dask.delayed(p) for p in pieces], meta=X.iloc[:0], verify_meta=False)
    with pytest.raises(ValueError, match=r"partition 1, column 'c', row 50: the value 'zz' is "
                                         r"not one of the column's categories"):
        CARTClassifier(**PARAMS).fit(dX, _uneven(y, [100, 100]))


# ------------------------------------------------------------------ class_weight
def test_class_weight_keys_checked_as_locally(client):  # noqa: F811
    X, y, w = _table(sum(SIZES), 4)
    dX, dy = _uneven(X, SIZES), _uneven(y, SIZES)
    with pytest.raises(ValueError) as local_error:
        CARTClassifier(**PARAMS, class_weight={"nope": 5}).fit(X, y)
    with pytest.raises(ValueError) as dask_error:
        CARTClassifier(**PARAMS, class_weight={"nope": 5}).fit(dX, dy)
    assert str(dask_error.value) == str(local_error.value)
    assert "class_weight names the class 'nope'" in str(dask_error.value)
    with pytest.raises(ValueError, match=r"class_weight\[1\] must be a finite number >= 0"):
        CARTClassifier(**PARAMS, class_weight={1: -2}).fit(dX, dy)
    # a valid dict weighs the classes as locally (class 2 not named: weight 1)
    weights = {0: 3, 1: 0.5}
    est = CARTClassifier(**PARAMS, class_weight=weights).fit(dX, dy,
                                                            sample_weight=_uneven(w, SIZES))
    _same_as_local(est, X, y, w, class_weight=weights)
    plain = CARTClassifier(**PARAMS).fit(dX, dy, sample_weight=_uneven(w, SIZES))
    assert not np.array_equal(plain.tree_.value, est.tree_.value)


# ------------------------------------------------------------------ object columns
def _with_objects(seed, cells):
    X, y, w = _table(sum(SIZES), seed)
    X["o"] = pd.Series(cells, dtype=object)
    y = y.where(~X["o"].isin([2, "2"]), 2)  # o matters: its '2' rows are class 2
    return X, y, w


def test_object_column_of_ints_is_refused_when_dask_makes_it_strings(client):  # noqa: F811
    """Dask's dataframe.convert-string turns object ints into '1', '2', ...: refused with the
    fix, from_pandas (read on the client) and from_delayed (read on the workers) alike."""
    n = sum(SIZES)
    rng = np.random.default_rng(5)
    X, y, _ = _with_objects(5, rng.integers(1, 4, n).tolist())
    fix = r"dask.config.set\(\{'dataframe.convert-string': False\}\)"
    with pytest.raises(ValueError, match=r"partition 0, column 'o', row 0: the object cells "
                                         r"hold \d \(int\).*" + fix):
        CARTClassifier(**PARAMS).fit(dd.from_pandas(X, npartitions=3),
                                     dd.from_pandas(y, npartitions=3))
    # 1 in partitions 0 and 1, '1' from row 900 (partition 2): the mixed column is refused
    cells = [1] * 800 + ["1"] * 400
    X, y, _ = _with_objects(6, cells)
    with pytest.raises(ValueError, match=r"partition 0, column 'o', row 0: .*hold 1 \(int\)"):
        CARTClassifier(**PARAMS).fit(_uneven(X, SIZES), _uneven(y, SIZES))
    X.loc[:, "o"] = ["1"] * 800 + [None] * 50 + [3] + ["2"] * 349  # one int, in partition 2
    with pytest.raises(ValueError, match=r"partition 2, column 'o', row 50: .*hold 3 \(int\)"):
        CARTClassifier(**PARAMS).fit(_uneven(X, SIZES), _uneven(y, SIZES))
    # y's labels are read the same way; an object column X leaves out is not read at all
    X, y, _ = _table(n, 5)
    frame = dd.from_pandas(X.assign(id=pd.Series(range(n), dtype=object), t=y.astype(object)),
                           npartitions=3)
    with pytest.raises(ValueError, match=r"partition 0, y, row 0: the object cells hold \d "):
        CARTClassifier(**PARAMS).fit(frame.drop(columns=["id", "t"]), frame["t"])
    est = CARTClassifier(**PARAMS).fit(frame.drop(columns=["id", "t"]),
                                       frame["t"].astype("int64"))
    _same_as_local(est, X, y)
    # strings (and missing cells) in an object column are what Dask gives: fitted
    X, y, _ = _with_objects(6, ["1"] * 800 + [None] * 50 + ["3"] + ["2"] * 349)
    est = CARTClassifier(**PARAMS).fit(_uneven(X, SIZES), _uneven(y, SIZES))
    _same_as_local(est, X, y)


def test_object_columns_without_conversion_fit_as_locally(client):  # noqa: F811
    """With the conversion off, the cells reach the fit as the user gave them: an all-int
    object column has int categories and a column with 1 and '1' two categories, as locally."""
    n = sum(SIZES)
    rng = np.random.default_rng(7)
    with dask.config.set({"dataframe.convert-string": False}):
        X, y, w = _with_objects(7, rng.integers(1, 4, n).tolist())
        est = CARTClassifier(**PARAMS).fit(_uneven(X, SIZES), _uneven(y, SIZES),
                                           sample_weight=_uneven(w, SIZES))
        _same_as_local(est, X, y, w)
        assert set(est.schema_.categories[4]) == {1, 2, 3} and _uses(est, "o")
        cells = rng.choice([1, 2, 3], n).astype(object)
        cells[SIZES[0]:] = [str(v) for v in cells[SIZES[0]:]]  # ints in part 0, strings after
        X, y, w = _with_objects(8, cells.tolist())
        est = CARTClassifier(**PARAMS).fit(_uneven(X, SIZES), _uneven(y, SIZES),
                                           sample_weight=_uneven(w, SIZES))
    assert set(est.schema_.categories[4]) == {1, 2, 3, "1", "2", "3"}
    _same_as_local(est, X, y, w)


# ------------------------------------------------------------------ empty and uneven partitions
def test_empty_partitions_are_skipped(client):  # noqa: F811
    """A filter empties partitions 1 and 3: the fit skips them (the local tree of the rows
    left), and lazy predictions give them no rows."""
    sizes = [300, 200, 400, 100]
    X, y, w = _table(sum(sizes), 9)
    X["y"], X["w"] = y, w
    X.loc[300:499, "b"] = 99.0
    X.loc[900:, "b"] = 99.0
    frame = _uneven(X, sizes)
    kept = frame[frame["b"] < 50]
    lengths = kept.map_partitions(len).compute().tolist()
    assert lengths[1] == 0 and lengths[3] == 0 and min(lengths[0], lengths[2]) > 0
    dX = kept.drop(columns=["y", "w"])
    est = CARTClassifier(**PARAMS).fit(dX, kept["y"], sample_weight=kept["w"])
    left = X[X["b"] < 50]
    local = _same_as_local(est, left.drop(columns=["y", "w"]), left["y"], left["w"])
    assert est.n_rows_ == len(left)
    np.testing.assert_array_equal(est.predict(dX).compute().to_numpy(),
                                  local.predict(left.drop(columns=["y", "w"])))
    assert est.predict_proba(dX).compute().shape == (len(left), 3)
    with pytest.raises(ValueError, match="every one of the 4 partition"):
        nothing = frame[frame["b"] > 1000]
        CARTClassifier(**PARAMS).fit(nothing.drop(columns=["y", "w"]), nothing["y"])


def test_partitions_of_different_lengths_are_named(client):  # noqa: F811
    X, y, w = _table(300, 10)
    dX = _uneven(X, [100, 200])
    with pytest.raises(ValueError, match=r"partition 0: X has 100 rows but y has 120; give y "
                                         r"partitioned as X is"):
        CARTClassifier(**PARAMS).fit(dX, _uneven(y, [120, 180]))
    with pytest.raises(ValueError, match=r"partition 1: X has 200 rows but sample_weight has "
                                         r"199"):
        CARTClassifier(**PARAMS).fit(dX, _uneven(y, [100, 200]),
                                     sample_weight=_uneven(w.iloc[:299], [100, 199]))
    with pytest.raises(ValueError, match=r"partition 1: X has 200 rows but folds has 150"):
        CARTClassifier(splitter="hist", ccp_alpha="cv-min").fit(
            dX, _uneven(y, [100, 200]), folds=_uneven(pd.Series(np.arange(250) % 3), [100, 150]))


def test_bad_cells_name_partition_and_column(client):  # noqa: F811
    """A check of the local encoder failing on a worker says which partition it was in."""
    X, y, _ = _table(300, 11)
    X.loc[250, "b"] = np.inf
    with pytest.raises(ValueError, match=r"partition 1 of X: Input contains infinity or a value "
                                         r"too large for dtype\('float64'\): column 'b', row 150"):
        CARTClassifier(**PARAMS).fit(_uneven(X, [100, 200]), _uneven(y, [100, 200]))
    y = y.astype(float)
    y.iloc[20] = np.nan
    with pytest.raises(ValueError, match=r"partition 0 of X: y has 1 missing label"):
        CARTClassifier(**PARAMS).fit(_uneven(X.drop(columns="b"), [100, 200]),
                                     _uneven(y, [100, 200]))
    w = pd.Series(np.ones(300))
    w.iloc[:100] = 0.0  # a partition weighed 0 is allowed (the sum is checked over all rows)
    est = CARTClassifier(**PARAMS).fit(_uneven(X.drop(columns="b"), [100, 200]),
                                       _uneven(y.fillna(0), [100, 200]),
                                       sample_weight=_uneven(w, [100, 200]))
    assert est.tree_.weighted_n_node_samples[0] == 200
    with pytest.raises(ValueError, match="sample_weight sums to zero"):
        CARTClassifier(**PARAMS).fit(_uneven(X.drop(columns="b"), [100, 200]),
                                     _uneven(y.fillna(0), [100, 200]),
                                     sample_weight=_uneven(w * 0, [100, 200]))


# ------------------------------------------------------------------ the kernels' guard
def test_codes_outside_the_histograms_never_reach_a_kernel():
    """The guard itself: a code beyond a column's values, or beyond the histograms' codes, is
    refused before the kernel indexes with it."""
    codes = np.array([[0, 1], [2, 5]], dtype=np.uint8)
    codes_in_range(codes, np.array([2, 5]), ("a", "b"), 3)  # missing code = the value count
    with pytest.raises(ValueError, match=r"partition 3, column 'a', row 1: code 2 is outside "
                                         r"the column's 1 values"):
        codes_in_range(codes, np.array([1, 5]), ("a", "b"), 3)
    part = worker.Part(np.zeros((2, 2)), codes, np.zeros(2, dtype=np.int64), np.zeros(0),
                       np.ones(2), None, None, np.zeros(0, dtype=np.int64), 5)
    node, slot_of = np.zeros(2, dtype=np.int64), np.zeros(1, dtype=np.int64)
    with pytest.raises(ValueError, match="code 5, outside the 5 codes"):
        worker.histograms(part, node, slot_of, 1, 5, 2)
    assert worker.histograms(part, node, slot_of, 1, 6, 2).shape == (1, 2, 6, 2)


BOUNDSCHECK_SAMPLE = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {tests!r})
    import dask, dask.dataframe as dd, distributed, numpy as np, pandas as pd
    from numba import config
    from test_dask import _table, _uneven
    from rootwise import CARTClassifier, CARTRegressor
    from rootwise.dask import kernels
    assert config.BOUNDSCHECK
    try:  # bounds checks are on in these kernels: an out-of-range code raises
        kernels.histograms(np.full((1, 1), 9, dtype=np.uint8), np.zeros(1, dtype=np.int64),
                           np.zeros(1, dtype=np.int64), 1, 4, np.zeros(1, dtype=np.int64),
                           np.zeros(0), np.ones(1), False, 1)
        raise SystemExit("no IndexError: bounds checks are off")
    except IndexError:
        pass
    start = time.time()
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        sizes = [150, 0, 250, 100]
        X, y, w = _table(sum(sizes), 12)
        X["c"] = X["c"].astype("category")
        dX = _uneven(X, sizes)
        dX["c"] = dX["c"].cat.as_unknown()
        params = dict(splitter="hist", max_bins=8, max_depth=4, pruning=None)
        est = CARTClassifier(**params, class_weight={{0: 2}}).fit(
            dX, _uneven(y, sizes), sample_weight=_uneven(w, sizes))
        assert est.schema_.categories[1] == tuple("pqrst")
        reg = CARTRegressor(**params).fit(dX, _uneven(y * 3.0 + X["k"], sizes))
        try:
            CARTClassifier(**params, class_weight={{"nope": 5}}).fit(dX, _uneven(y, sizes))
            raise SystemExit("class_weight accepted")
        except ValueError:
            pass
        print("fits", est.tree_.node_count, reg.tree_.node_count, round(time.time() - start, 1))
""")


def test_sample_under_numba_boundscheck(tmp_path):
    """Unknown categories, an empty partition, class weights and a regressor, fitted with every
    kernel compiled with bounds checks (a fresh cache: nothing compiled without them is
    loaded); a threads-only LocalCluster so that the kernels compile once."""
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    script = BOUNDSCHECK_SAMPLE.format(tests=os.path.dirname(__file__))
    started, cpu = time.time(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.startswith("fits ")
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - cpu
    print(run.stdout.strip(), f"wall {time.time() - started:.0f} s, CPU {cpu:.0f} s")
