"""A table -> the engine's encoded matrix, with a fitted ``Schema``.

Every table becomes one float64 matrix: continuous columns hold their values, categorical columns
hold category codes 0..k-1; NaN marks a missing cell in both kinds and ``UNSEEN_CODE`` a category
never seen in training.
"""

from __future__ import annotations

import sys

import numpy as np

from .._config import CONTINUOUS, UNSEEN_CODE, X_DTYPE
from .schema import Schema
from .tables import column
from .values import continuous_values, numeric_series, plain


def encode(frame, schema: Schema) -> np.ndarray:
    """Encode a table with a fitted schema into the engine's float64 matrix (C order)."""
    if frame.shape[1] != schema.n_features:
        raise ValueError(
            f"X has {frame.shape[1]} features, but the model is expecting {schema.n_features} "
            "features as input."
        )
    out = np.empty(frame.shape, dtype=X_DTYPE)
    for j in range(frame.shape[1]):
        series = column(frame, j)
        name = schema.feature_names[j]
        cats = schema.categories[j]
        if cats is None:
            out[:, j] = continuous_values(series, name)
        elif cats and all(isinstance(c, float) for c in cats) and numeric_series(series):
            # numbers as categories (ID3): look values up in the sorted category list
            values = continuous_values(series, name)
            out[:, j] = _lookup_sorted(values, np.asarray(cats, dtype=np.float64))
        else:
            out[:, j] = _encode_categorical(series, cats, name)
    return out


def encode_numeric_array(X, schema: Schema, *, check_finite: bool = True) -> np.ndarray | None:
    """The encoded matrix of a numeric ndarray or DataFrame when every column of the schema is
    continuous (it then needs no per-column work), else None. At 10^6 x 20 this takes 0.02 s
    where the general path through a DataFrame takes 0.6 s.

    ``check_finite=False`` is for callers whose kernel finds infinite values itself
    (``Tree.route``): a float64 or float32 matrix in C or Fortran order then comes back as it is,
    without a copy (a DataFrame of numeric columns as its ``to_numpy()``); other numbers become
    float64. With ``check_finite`` the result is float64 in C order and an infinity is refused
    (``raise_infinite``)."""
    if any(k != CONTINUOUS for k in schema.kinds):
        return None
    pd = sys.modules.get("pandas")  # not imported: X cannot be a DataFrame
    if pd is not None and isinstance(X, pd.DataFrame):
        # numpy numeric columns only: nullable and other extension dtypes take the general path
        if X.shape[1] != schema.n_features or not all(
                isinstance(d, np.dtype) and d.kind in "fiu" for d in X.dtypes):
            return None
        X = X.to_numpy()
    if (not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype.kind not in "fiu"
            or X.shape[1] != schema.n_features or X.shape[0] == 0):
        return None
    if not check_finite:
        if X.dtype in (np.float64, np.float32) and (X.flags.c_contiguous or X.flags.f_contiguous):
            return X
        return np.ascontiguousarray(X, dtype=X_DTYPE)
    Xe = np.ascontiguousarray(X, dtype=X_DTYPE)
    bad = np.isinf(Xe)
    if bad.any():
        raise_infinite(Xe, int(np.flatnonzero(bad.any(axis=1))[0]), schema)
    return Xe


def raise_infinite(Xe: np.ndarray, row: int, schema: Schema):
    """Refuse an encoded matrix whose row ``row`` (the first such row) holds an infinity, naming
    that row's first infinite column."""
    j = int(np.flatnonzero(np.isinf(Xe[row]))[0])
    raise ValueError(
        f"Input contains infinity or a value too large for dtype('float64'): column "
        f"{schema.feature_names[j]!r}, row {row}."
    )


def _lookup_sorted(values: np.ndarray, cats: np.ndarray) -> np.ndarray:
    """Code of each value in ``cats`` (UNSEEN_CODE when absent, NaN stays NaN). ``cats`` need not
    be sorted: a column listed in categorical_features keeps its first-appearance order."""
    order = np.argsort(cats, kind="stable")
    ordered = cats[order]
    pos = np.minimum(np.searchsorted(ordered, values), len(cats) - 1)
    found = ordered[pos] == values
    codes = np.where(found, order[pos], UNSEEN_CODE).astype(X_DTYPE)
    codes[np.isnan(values)] = np.nan
    return codes


def _encode_categorical(series, cats: tuple, name) -> np.ndarray:
    if isinstance(series, np.ndarray):  # a column of a numeric matrix
        missing = np.isnan(series) if series.dtype.kind == "f" else np.zeros(len(series), bool)
        objects = series.astype(object)
    else:
        missing = series.isna().to_numpy()
        objects = series.to_numpy(dtype=object)
    lookup = {c: i for i, c in enumerate(cats)}
    codes = np.empty(len(objects), dtype=X_DTYPE)
    for i, v in enumerate(objects):
        if missing[i]:
            codes[i] = np.nan
            continue
        try:
            codes[i] = lookup.get(plain(v), UNSEEN_CODE)
        except TypeError:
            raise TypeError(
                f"column {name!r}, row {i}: argument must be a string or a number, "
                f"not {type(v).__name__!r}."
            ) from None
    return codes
