"""A table -> the column-wise input of the prediction walk, with a fitted ``Schema``.

Prediction need not build the n x d float64 matrix of ``encode``: writing 160 MB at 10^6 x 20
cost more than half of the encoding, and the walk reads a handful of cells per row. Instead:

    num    the continuous columns, one row each (float64, NaN = missing): a DataFrame's float
           columns as they lie in its float block (no copy) when they lie there in order, else
           copied from their own arrays as they are
    codes  the categorical columns, one row each: codes of the schema's categories,
           ``CODE_MISSING`` for a missing cell, ``CODE_UNSEEN`` for a category fit never saw;
           int16 (``code_dtype``) unless a column has more categories than int16 can number
    slot   per feature, its row in ``num`` (continuous) or in ``codes`` (categorical)

Infinite values in a float64 column are left for the walk to find (it reads every cell of a
block of rows anyway); every other check is the encoder's, with the same errors naming the column.

A pandas categorical column whose categories are the fitted ones, in order (the usual case: the
table to predict comes from the same source as the training table), gives its own codes; the
categories are compared once per categorical dtype (``_DECLARED``), not on every prediction:
converting 540 categories to Python scalars and comparing them cost more than routing the
rows of a depth-8 tree through 10^4 of them.
"""

from __future__ import annotations

import threading
import weakref
from typing import NamedTuple

import numpy as np

from .._config import CODE_DTYPE, CODE_MISSING, CODE_UNSEEN, CONTINUOUS
from .codes import check_kinds, factorize, number_codes, same_values
from .schema import Schema
from .tables import column, is_pandas
from .values import continuous_values, numeric_series, plain


class Columns(NamedTuple):
    num: np.ndarray  # (continuous features, rows) float64, each row contiguous
    codes: np.ndarray  # (categorical features, rows) int16 or int32 (``code_dtype``), C order
    slot: np.ndarray  # (features,) int64: row of each feature in num or codes


def slots(schema: Schema) -> tuple[np.ndarray, np.ndarray]:
    """(categorical mask, slot) of a schema's features: a continuous feature's row in ``num``, a
    categorical feature's row in ``codes``, both in feature order."""
    categorical = np.array([k != CONTINUOUS for k in schema.kinds], dtype=bool)
    slot = np.empty(len(categorical), dtype=np.int64)
    slot[~categorical] = np.arange(int(np.sum(~categorical)))
    slot[categorical] = np.arange(int(np.sum(categorical)))
    return categorical, slot


def code_dtype(schema: Schema) -> type:
    """The dtype of ``codes``: int16 when every categorical column's codes fit in it (fewer
    than 32,768 categories), else ``CODE_DTYPE``. Half the bytes to write: at 10^6 rows x 10
    columns the int32 matrix took 6 ms of fresh pages, the int16 one 1.4 ms."""
    most = max((len(c) for c in schema.categories if c is not None), default=0)
    return np.int16 if most <= np.iinfo(np.int16).max + 1 else CODE_DTYPE


def columns(frame, schema: Schema) -> Columns:
    """The column-wise input of a table (a numeric matrix or a DataFrame, as ``as_table`` gives)
    whose columns are the schema's features, in order."""
    categorical, slot = slots(schema)
    n = frame.shape[0]
    continuous = np.flatnonzero(~categorical)
    num = _numeric_rows(frame, continuous, schema)
    codes = np.empty((int(categorical.sum()), n), dtype=code_dtype(schema))
    for j in np.flatnonzero(categorical):
        category_codes(column(frame, j), schema.feature_names[j], schema.categories[j],
                       out=codes[slot[j]])
    return Columns(num, codes, slot)


def _numeric_rows(frame, features: np.ndarray, schema: Schema) -> np.ndarray:
    """The continuous ``features`` of ``frame`` as a (len(features), n) float64 array whose rows
    are contiguous (C order, or rows of a longer block)."""
    n = frame.shape[0]
    if len(features) == 0:
        return np.empty((0, n), dtype=np.float64)
    if isinstance(frame, np.ndarray):  # a numeric matrix: one strided copy, no per-column work
        return np.ascontiguousarray(frame[:, features].T, dtype=np.float64)
    out = None
    if is_pandas(frame, "DataFrame") and all(
            frame.dtypes.iloc[j] == np.float64 for j in features):
        # pandas keeps float64 columns in a 2-D block, one column per row: when these columns
        # are consecutive rows of it, to_numpy() is a view of the block, transposed
        # (of a block of more rows, as a row slice of a larger frame leaves it, the rows of the
        # view are still contiguous: ``Tree.route_columns`` reads them in the block)
        block = frame.iloc[:, features].to_numpy()
        if block.dtype == np.float64 and (block.T.flags.c_contiguous
                                          or block.T.strides[1] == block.itemsize):
            return block.T
        # elsewhere (columns in another order, or in several blocks) each column is copied from
        # its own float64 array as it is: NaN is already the missing value and the walk looks
        # for infinite values. Through ``continuous_values`` (a masked conversion, then a search
        # for infinities) the 8 float columns of 10^6 rows took 48 ms, copied as they are 20 ms.
        out = np.empty((len(features), n), dtype=np.float64)
        for k, j in enumerate(features):
            values = column(frame, j).to_numpy()
            if values.dtype != np.float64:  # not a plain numpy column after all: convert it
                values = continuous_values(column(frame, j), schema.feature_names[j])
            out[k] = values
        return out
    out = np.empty((len(features), n), dtype=np.float64)
    for k, j in enumerate(features):
        out[k] = continuous_values(column(frame, j), schema.feature_names[j])
    return out


def category_codes(series, name: str, categories: tuple, out: np.ndarray) -> None:
    """One categorical column as codes of its fitted ``categories`` (``CODE_MISSING``,
    ``CODE_UNSEEN`` for the other cells), written into ``out`` (no temporary column: at 10^6
    rows each one is megabytes of fresh pages)."""
    if _declared(series, categories):  # its own codes are the fitted ones; -1 is CODE_MISSING
        out[:] = series.array.codes  # the Categorical's codes: a view, where .cat.codes copies
        return
    if categories and all(isinstance(c, float) for c in categories) and numeric_series(series):
        # numbers as categories (ID3): looked up among the category values
        found = number_codes(series, name, categories)
        out[:] = np.where(found >= 0, found, CODE_UNSEEN)
        out[np.isnan(found)] = CODE_MISSING
        return
    codes, values = factorize(series, name)
    if same_values(values, categories):  # e.g. a pandas categorical of the fitted categories
        out[:] = codes  # -1 is already CODE_MISSING
        return
    check_kinds(values, categories, name)
    position = {c: i for i, c in enumerate(categories)}
    # one entry per distinct value, and a last one that code -1 (missing) takes by wrapping
    table = np.array([position.get(v, CODE_UNSEEN) for v in values] + [CODE_MISSING],
                     dtype=out.dtype)
    np.take(table, codes, out=out, mode="wrap")


# (categorical dtype, fitted categories) pairs found equal (``_declared``), by the ids of both.
# An entry holds the categories and a weak reference to the dtype (a user's frame is not kept
# alive by it): a dtype gone, or another object at its id, does not match the entry.
_DECLARED: dict[tuple[int, int], tuple] = {}
_DECLARED_MOST = 256  # entries kept; the dict is emptied when full (a rare second comparison)
_DECLARED_LOCK = threading.Lock()


def _declared(series, categories: tuple) -> bool:
    """Whether ``series`` is a pandas categorical whose categories are ``categories``, in order
    and of the same kinds (``same_values``). A pandas dtype is immutable and shared by the slices
    of a column, so the answer is kept per (dtype, categories) object: the comparison, which
    turns every category into a Python scalar, runs once per dtype, not on every prediction."""
    if not is_pandas(series, "Series"):
        return False
    dtype = series.dtype
    if getattr(dtype, "name", None) != "category" or not hasattr(series, "cat"):
        return False
    key = (id(dtype), id(categories))
    kept = _DECLARED.get(key)
    if kept is not None and kept[0]() is dtype and kept[1] is categories:
        return True
    # tolist: the same Python scalars as iterating, three times faster on pandas' string index
    if not same_values(tuple(plain(v) for v in dtype.categories.tolist()), categories):
        return False
    with _DECLARED_LOCK:
        if len(_DECLARED) >= _DECLARED_MOST:
            _DECLARED.clear()
        _DECLARED[key] = (weakref.ref(dtype), categories)
    return True


def missing_cells(cols: Columns, feature: int, categorical: bool) -> np.ndarray:
    """Boolean mask of the missing cells of ``feature``."""
    if categorical:
        return cols.codes[cols.slot[feature]] == CODE_MISSING
    return np.isnan(cols.num[cols.slot[feature]])


def raise_infinite(cols: Columns, categorical: np.ndarray, row: int, schema: Schema):
    """Refuse a table whose row ``row`` (the first such row) holds an infinity, naming that row's
    first infinite column (as ``encode.raise_infinite``)."""
    j = next(j for j in range(len(categorical))
             if not categorical[j] and np.isinf(cols.num[cols.slot[j], row]))
    raise ValueError(
        f"Input contains infinity or a value too large for dtype('float64'): column "
        f"{schema.feature_names[j]!r}, row {row}."
    )
