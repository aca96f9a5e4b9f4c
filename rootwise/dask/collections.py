"""Dask collections in and out: a dask DataFrame or Array (with a dask Series or array y) as
lists of per-partition pieces for ``fit``, and lazy predictions over the same partitions."""

from __future__ import annotations

import numpy as np


def is_dask_collection(x) -> bool:
    """A dask DataFrame, Series or Array (checked without importing dask)."""
    return type(x).__module__.split(".")[0] == "dask" and hasattr(x, "to_delayed")


def _pieces(x, what: str):
    """Delayed pieces of a collection along its rows (an array's columns in one chunk)."""
    if not is_dask_collection(x):
        raise TypeError(f"{what} must be a dask collection when X is one (got "
                        f"{type(x).__name__}); rows are matched partition by partition.")
    if hasattr(x, "chunks") and x.ndim == 2 and len(x.chunks[1]) > 1:
        x = x.rechunk({1: -1})
    d = x.to_delayed()
    return list(np.asarray(d, dtype=object).ravel()) if hasattr(x, "chunks") else list(d)


def partitions(X, y, sample_weight, folds=None):
    """(X pieces, y pieces, weight pieces or Nones, fold pieces or Nones, X's zero-row meta)."""
    if hasattr(X, "chunks"):
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D dask array, got {X.ndim} dimension(s).")
        meta = np.zeros((0, X.shape[1]), dtype=X.dtype)
    else:
        meta = X._meta
    Xp = _pieces(X, "X")
    yp = _pieces(y, "y")
    if len(yp) != len(Xp):
        raise ValueError(f"X has {len(Xp)} partitions and y has {len(yp)}: give y partitioned as "
                         "X is (the same rows in each partition).")
    wp = [None] * len(Xp) if sample_weight is None else _pieces(sample_weight, "sample_weight")
    if len(wp) != len(Xp):
        raise ValueError(f"X has {len(Xp)} partitions and sample_weight has {len(wp)}.")
    fp = [None] * len(Xp) if folds is None else _pieces(folds, "folds")
    if len(fp) != len(Xp):
        raise ValueError(f"X has {len(Xp)} partitions and folds has {len(fp)}.")
    return Xp, yp, wp, fp, meta


def _predict_block(part, estimator, method):
    return _outputs(part, estimator, method)


def _outputs(part, estimator, method):
    """``estimator.method(part)``; an empty partition (left so by a filter) gives no rows."""
    if np.shape(part)[0] == 0:
        if method == "predict_proba":
            return np.zeros((0, len(estimator.classes_)))
        return np.zeros(0, dtype=np.int64 if method == "apply" else _label_dtype(estimator))
    return getattr(estimator, method)(part)


def lazy(estimator, X, method: str):
    """``estimator.method`` over the partitions of X, as a lazy dask collection: a dask Array
    for an Array, a dask Series (or, for ``predict_proba``, a DataFrame) for a DataFrame."""
    if hasattr(X, "chunks"):
        if len(X.chunks[1]) > 1:
            X = X.rechunk({1: -1})
        if method == "predict_proba":
            return X.map_blocks(_predict_block, estimator, method, dtype=np.float64,
                                chunks=(X.chunks[0], (len(estimator.classes_),)))
        dtype = np.int64 if method == "apply" else _label_dtype(estimator)
        return X.map_blocks(_predict_block, estimator, method, dtype=dtype, drop_axis=1)
    import pandas as pd

    if method == "predict_proba":
        meta = pd.DataFrame({str(c): pd.Series(dtype=np.float64) for c in estimator.classes_})
        return X.map_partitions(_frame_block, estimator, method, list(meta.columns), meta=meta)
    dtype = np.int64 if method == "apply" else _label_dtype(estimator)
    return X.map_partitions(_series_block, estimator, method, meta=pd.Series(dtype=dtype))


def _label_dtype(estimator):
    classes = getattr(estimator, "classes_", None)
    return np.float64 if classes is None else classes.dtype


def _series_block(part, estimator, method):
    import pandas as pd

    return pd.Series(_outputs(part, estimator, method), index=part.index)


def _frame_block(part, estimator, method, columns):
    import pandas as pd

    return pd.DataFrame(_outputs(part, estimator, method), index=part.index, columns=columns)
