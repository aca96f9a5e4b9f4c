"""A table -> the column-wise input of the prediction walk, with a fitted ``Schema``.

Prediction need not build the n x d float64 matrix of ``encode``: writing 160 MB at 10^6 x 20
cost more than half of the encoding, and the walk reads a handful of cells per row. Instead:

    num    the continuous columns, one row each (float64, NaN = missing): a DataFrame's float
           columns as they lie in its float block (no copy) when they lie there in order
    codes  the categorical columns, one row each: int32 codes of the schema's categories,
           ``CODE_MISSING`` for a missing cell, ``CODE_UNSEEN`` for a category fit never saw
    slot   per feature, its row in ``num`` (continuous) or in ``codes`` (categorical)

Infinite values in ``num`` are left for the walk to find (it reads every cell of a block of rows
anyway); every other check is the encoder's, with the same errors naming the column.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._config import CODE_DTYPE, CODE_MISSING, CODE_UNSEEN, CONTINUOUS
from .codes import check_kinds, factorize, number_codes, same_values
from .schema import Schema
from .tables import column, is_pandas
from .values import continuous_values, numeric_series


class Columns(NamedTuple):
    num: np.ndarray  # (continuous features, rows) float64, C order
    codes: np.ndarray  # (categorical features, rows) int32, C order
    slot: np.ndarray  # (features,) int64: row of each feature in num or codes


def slots(schema: Schema) -> tuple[np.ndarray, np.ndarray]:
    """(categorical mask, slot) of a schema's features: a continuous feature's row in ``num``, a
    categorical feature's row in ``codes``, both in feature order."""
    categorical = np.array([k != CONTINUOUS for k in schema.kinds], dtype=bool)
    slot = np.empty(len(categorical), dtype=np.int64)
    slot[~categorical] = np.arange(int(np.sum(~categorical)))
    slot[categorical] = np.arange(int(np.sum(categorical)))
    return categorical, slot


def columns(frame, schema: Schema) -> Columns:
    """The column-wise input of a table (a numeric matrix or a DataFrame, as ``as_table`` gives)
    whose columns are the schema's features, in order."""
    categorical, slot = slots(schema)
    n = frame.shape[0]
    continuous = np.flatnonzero(~categorical)
    num = _numeric_rows(frame, continuous, schema)
    codes = np.empty((int(categorical.sum()), n), dtype=CODE_DTYPE)
    for j in np.flatnonzero(categorical):
        category_codes(column(frame, j), schema.feature_names[j], schema.categories[j],
                       out=codes[slot[j]])
    return Columns(num, codes, slot)


def _numeric_rows(frame, features: np.ndarray, schema: Schema) -> np.ndarray:
    """The continuous ``features`` of ``frame`` as a C-order (len(features), n) float64 array."""
    n = frame.shape[0]
    if len(features) == 0:
        return np.empty((0, n), dtype=np.float64)
    if isinstance(frame, np.ndarray):  # a numeric matrix: one strided copy, no per-column work
        return np.ascontiguousarray(frame[:, features].T, dtype=np.float64)
    if is_pandas(frame, "DataFrame") and all(
            frame.dtypes.iloc[j] == np.float64 for j in features):
        # pandas keeps float64 columns in a 2-D block, one column per row: when these columns
        # are consecutive rows of it, to_numpy() is a view of the block, transposed
        block = frame.iloc[:, features].to_numpy()
        if block.dtype == np.float64 and block.T.flags.c_contiguous:
            return block.T
    out = np.empty((len(features), n), dtype=np.float64)
    for k, j in enumerate(features):
        out[k] = continuous_values(column(frame, j), schema.feature_names[j])
    return out


def category_codes(series, name: str, categories: tuple, out: np.ndarray) -> None:
    """One categorical column as int32 codes of its fitted ``categories`` (``CODE_MISSING``,
    ``CODE_UNSEEN`` for the other cells), written into ``out`` (no temporary column: at 10^6
    rows each one is 4 MB of fresh pages)."""
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
                     dtype=CODE_DTYPE)
    np.take(table, codes, out=out, mode="wrap")


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
