"""A table -> the engine's encoded matrix, with a fitted ``Schema``.

Every table becomes one float64 matrix: continuous columns hold their values, categorical columns
hold category codes 0..k-1; NaN marks a missing cell in both kinds and ``UNSEEN_CODE`` a category
never seen in training.
"""

from __future__ import annotations

import sys

import numpy as np

from .._config import CONTINUOUS, X_DTYPE
from .codes import check_kinds, factorize, number_codes, recode, same_values
from .schema import Schema, learn_column, schema_of
from .tables import column, dense_of_sparse, feature_names_of, is_sparse
from .values import continuous_values, numeric_series


def encode(frame, schema: Schema) -> np.ndarray:
    """Encode a table with a fitted schema into the engine's float64 matrix (C order)."""
    if frame.shape[1] != schema.n_features:
        raise ValueError(
            f"X has {frame.shape[1]} features, but the model is expecting {schema.n_features} "
            "features as input."
        )
    return row_major(frame.shape, (
        encode_column(column(frame, j), schema.feature_names[j], schema.categories[j])
        for j in range(frame.shape[1])))


def encode_column(series, name: str, categories: tuple | None) -> np.ndarray:
    """One column encoded with its fitted ``categories`` (``None``: continuous) as float64."""
    if categories is None:
        return continuous_values(series, name)
    if categories and all(isinstance(c, float) for c in categories) and numeric_series(series):
        # numbers as categories (ID3): look values up in the category list
        return number_codes(series, name, categories)
    codes, values = factorize(series, name)
    if not same_values(values, categories):
        check_kinds(values, categories, name)
    return recode(codes, values, categories)


def fit_encode(frame, categorical_mask: np.ndarray, *,
               numeric_as_category: bool = False) -> tuple[Schema, np.ndarray]:
    """(schema, encoded matrix) of a training table in one pass over its cells: ``fit_schema``
    then ``encode``, without factorising any column twice."""
    n_features = frame.shape[1]
    if not numeric_as_category and not np.any(categorical_mask):
        schema = schema_of(frame, [CONTINUOUS] * n_features, [None] * n_features)
        Xe = encode_numeric_array(frame, schema)  # a numeric matrix: no per-column copy
        return schema, (encode(frame, schema) if Xe is None else Xe)
    names = feature_names_of(frame)
    kinds, categories = [], []

    def encoded_columns():
        for j in range(n_features):
            kind, cats, encoded = learn_column(column(frame, j), names[j],
                                               bool(categorical_mask[j]), numeric_as_category)
            kinds.append(kind)
            categories.append(cats)
            yield encoded

    out = row_major(frame.shape, encoded_columns())
    return schema_of(frame, kinds, categories), out


# Columns are encoded one at a time, but written to the row-major matrix GROUP at a time, BLOCK
# rows at a time: writing a single column touches every cache line of the matrix, a group of 8
# float64 columns over a block of rows touches each of its lines about once. At 10^6 x 20 the
# writes took about 0.3 s column by column, 30 ms in groups. Holding GROUP columns caps the extra
# memory, whatever the width of the table.
GROUP = 8  # float64 values in a 64-byte cache line
BLOCK = 8192  # rows: a block of the group's lines stays in the core's cache while it is written


def row_major(shape: tuple, columns) -> np.ndarray:
    """The C-order float64 matrix of ``shape`` whose columns are the 1-D arrays ``columns``
    yields, in order."""
    n_rows, n_features = shape
    out = np.empty(shape, dtype=X_DTYPE)
    group, start = [], 0
    for values in columns:
        group.append(values)
        if len(group) == GROUP or start + len(group) == n_features:
            for lo in range(0, n_rows, BLOCK):
                block = out[lo:lo + BLOCK]
                for k, v in enumerate(group):
                    block[:, start + k] = v[lo:lo + BLOCK]
            start += len(group)
            group = []
    return out


def encode_numeric_array(X, schema: Schema, *, check_finite: bool = True) -> np.ndarray | None:
    """The encoded matrix of a numeric ndarray or DataFrame when every column of the schema is
    continuous (it then needs no per-column work), else None. At 10^6 x 20 this takes 8 ms
    where the general path takes 70 ms (a DataFrame) to 220 ms (a matrix read column by column).

    ``check_finite=False`` is for callers whose kernel finds infinite values itself
    (``Tree.route``): a float64 or float32 matrix in C or Fortran order then comes back as it is,
    without a copy (a DataFrame of numeric columns as its ``to_numpy()``); other numbers become
    float64. With ``check_finite`` the result is float64 in C order and an infinity is refused
    (``raise_infinite``)."""
    if any(k != CONTINUOUS for k in schema.kinds):
        return None
    if is_sparse(X):  # predict's CSR: the trees read its dense rows
        X = dense_of_sparse(X)
    pd = sys.modules.get("pandas")  # not imported: X cannot be a DataFrame
    if pd is not None and isinstance(X, pd.DataFrame):
        # numpy numeric columns only: nullable and other extension dtypes take the general path
        if X.shape[1] != schema.n_features or not all(
                isinstance(d, np.dtype) and d.kind in "fiu" for d in X.dtypes):
            return None
        X = writable(X.to_numpy())
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


def writable(a: np.ndarray) -> np.ndarray:
    """``a`` as a writable array, for the kernels, which only read it (the growth's X, y and w,
    a prediction's rows). pandas (copy-on-write) hands out its blocks read-only, and numba
    compiles a separate specialisation of every kernel for a read-only array, one that
    ``rootwise compile`` (numpy input) does not build: a first fit or prediction would compile
    it. A writable view when the memory underneath is writable, a copy otherwise."""
    if a.flags.writeable:
        return a
    view = a.view()
    try:
        view.flags.writeable = True  # numpy allows it only over a writable base
    except ValueError:
        return a.copy(order="K")
    return view


def raise_infinite(Xe: np.ndarray, row: int, schema: Schema):
    """Refuse an encoded matrix whose row ``row`` (the first such row) holds an infinity, naming
    that row's first infinite column."""
    j = int(np.flatnonzero(np.isinf(Xe[row]))[0])
    raise ValueError(
        f"Input contains infinity or a value too large for dtype('float64'): column "
        f"{schema.feature_names[j]!r}, row {row}."
    )
