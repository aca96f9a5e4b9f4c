"""polars DataFrames and pyarrow Tables, read column by column through narwhals.

A foreign table is never converted to pandas as a whole: ``ForeignTable`` reads its names and
column types from the schema, and hands the encoder one column at a time, in the form a pandas
user's column of the same kind would have, so that both give the same schema and tree:

    numbers       a numpy array, without a copy when the column has no nulls; with nulls,
                  floats as NaN and integers as a pandas nullable integer array
    booleans      a pandas bool (or nullable boolean) Series: categorical, as in pandas
    strings       a pandas object Series: categorical, categories in order of first appearance
    categoricals  a pandas Categorical built from the column's integer codes (no Python object
                  per cell): a polars Enum keeps its declared categories, an Arrow dictionary its
                  dictionary (as ``pyarrow.Table.to_pandas`` gives), a polars Categorical the
                  values present in order of first appearance (polars' category list is shared
                  by every Categorical column, not the column's own)

Nulls are missing cells, and so is NaN in a float column. Other column types (dates, times,
lists, structs, binary) are refused by name. narwhals is an optional dependency, imported only
when a polars or pyarrow table comes in.
"""

from __future__ import annotations

import sys

import numpy as np

# the column kinds a foreign table may hold
NUMBER, BOOLEAN, TEXT, CATEGORY = "number", "boolean", "text", "category"


def is_foreign(X) -> bool:
    """Whether ``X`` is a polars DataFrame or a pyarrow Table (or already a ``ForeignTable``).
    A library that is not imported cannot have made X, and is not imported to find out."""
    if isinstance(X, ForeignTable):
        return True
    pl, pa = sys.modules.get("polars"), sys.modules.get("pyarrow")
    return (pl is not None and isinstance(X, pl.DataFrame)) or (
        pa is not None and isinstance(X, pa.Table))


def refuse_other_foreign(X, what: str) -> None:
    """Refuse the polars and pyarrow objects that are not a table, with what to pass instead."""
    pl, pa = sys.modules.get("polars"), sys.modules.get("pyarrow")
    if pl is not None and isinstance(X, pl.LazyFrame):
        raise TypeError(f"{what} is a polars LazyFrame; collect it first (lazy_frame.collect()).")
    if (pl is not None and isinstance(X, pl.Series)) or (
            pa is not None and isinstance(X, (pa.Array, pa.ChunkedArray))):
        raise ValueError(f"Expected 2D array, got a {type(X).__module__.split('.')[0]} "
                         f"{type(X).__name__} for {what}; use a table (series.to_frame() in "
                         f"polars, pyarrow.table({{'name': array}})) for a single column.")
    if pa is not None and isinstance(X, pa.RecordBatch):
        raise TypeError(f"{what} is a pyarrow RecordBatch; pass a Table "
                        f"(pyarrow.Table.from_batches([batch])).")


def foreign_names(X) -> tuple | None:
    """The column names of a polars DataFrame or pyarrow Table (always strings), else None."""
    if isinstance(X, ForeignTable):
        return X.names
    if not is_foreign(X):
        return None
    return tuple(X.column_names if hasattr(X, "column_names") else X.columns)


def _narwhals(X, what: str):
    """narwhals' stable API (its promise: no breaking change within v2), or a clear error."""
    try:
        import narwhals.stable.v2 as nw
    except ImportError:
        kind = type(X).__module__.split(".")[0]
        raise ImportError(f"{what} is a {kind} {type(X).__name__}: rootwise reads it through "
                          f"narwhals (2.0 or later), which is not installed; pip install "
                          f"narwhals (or 'rootwise[frames]').") from None
    return nw


class ForeignTable:
    """A polars DataFrame or pyarrow Table as the encoder reads it: ``shape``, ``names``, each
    column's kind (``kinds``) and its cells one column at a time (``column``)."""

    def __init__(self, native, what: str = "X"):
        names = foreign_names(native)
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})
            raise ValueError(f"{what} has duplicate column names {dup}; every column needs its "
                             f"own name.")
        nw = _narwhals(native, what)
        self._nw = nw
        self.frame = nw.from_native(native, eager_only=True)
        self.names = names
        self.shape = tuple(self.frame.shape)
        self.kinds = tuple(self._kind(name, dtype, what)
                           for name, dtype in self.frame.schema.items())

    def _kind(self, name: str, dtype, what: str) -> str:
        nw = self._nw
        if dtype.is_numeric():
            return NUMBER
        if dtype == nw.Boolean:
            return BOOLEAN
        if dtype == nw.String:
            return TEXT
        if dtype == nw.Categorical or dtype == nw.Enum:
            return CATEGORY
        if dtype == nw.Unknown and self.frame.get_column(name).null_count() == len(self.frame):
            return TEXT  # a column of nulls only (polars Null, Arrow null): as pandas' of None
        raise TypeError(f"column {name!r} of {what} has the type {dtype}: rootwise reads numbers, "
                        f"booleans, strings and categoricals; convert it (a date to a number, "
                        f"for instance) or leave it out.")

    def categorical(self) -> np.ndarray:
        """The columns that are categorical by their type (booleans, strings, categoricals)."""
        return np.array([k != NUMBER for k in self.kinds], dtype=bool)

    def column(self, j: int):
        """Column j as the encoder reads a pandas column of the same kind (module docstring)."""
        series = self.frame.get_column(self.names[j])
        kind = self.kinds[j]
        if kind == NUMBER:
            return self._numbers(series)
        import pandas as pd

        if kind == CATEGORY:
            codes, categories = self._codes(series)
            return pd.Series(pd.Categorical.from_codes(codes, categories=categories), copy=False)
        missing = series.null_count() > 0
        if kind == BOOLEAN:
            if not missing:
                return pd.Series(series.to_numpy(), copy=False)
            mask = series.is_null().to_numpy()
            return pd.Series(pd.arrays.BooleanArray(series.fill_null(False).to_numpy(), mask))
        return pd.Series(series.to_numpy(), dtype=object, copy=False)  # None where null

    def _numbers(self, series):
        nw = self._nw
        dtype = series.dtype
        if not (dtype.is_integer() or dtype.is_float()):  # Decimal
            series = series.cast(nw.Float64)
            dtype = series.dtype
        if series.null_count() == 0:
            return series.to_numpy()  # a view of the column when it lies in one chunk
        if dtype.is_float():
            return series.fill_null(float("nan")).to_numpy()
        import pandas as pd

        # integers with nulls: pandas' nullable integers, so that ID3's categories stay integers
        mask = series.is_null().to_numpy()
        return pd.Series(pd.arrays.IntegerArray(series.fill_null(0).to_numpy(), mask))

    def _codes(self, series) -> tuple[np.ndarray, list]:
        """(codes, categories) of a categorical column, -1 for a null, from the column's own
        integer codes: no Python object per cell."""
        native = series.to_native()
        pa = sys.modules.get("pyarrow")
        if pa is not None and isinstance(native, pa.ChunkedArray):
            return _dictionary_codes(native, pa)
        import polars as pl

        if isinstance(native.dtype, pl.Enum):
            codes = native.to_physical().cast(pl.Int64).fill_null(-1).to_numpy()
            return codes, list(native.dtype.categories)
        # polars Categorical: its physical ids index a list shared by every Categorical column;
        # a table from id to the rank of first appearance (one slot per id, the last for null)
        present = native.unique(maintain_order=True).drop_nulls()
        ids = present.to_physical().cast(pl.Int64).to_numpy()
        physical = native.to_physical().cast(pl.Int64).fill_null(-1).to_numpy()
        rank = np.full((int(ids.max()) + 2) if len(ids) else 1, -1, dtype=np.int64)
        rank[ids] = np.arange(len(ids))
        return np.take(rank, physical, mode="wrap"), present.to_list()  # -1 wraps to the last


def _dictionary_codes(chunked, pa) -> tuple[np.ndarray, list]:
    """(codes, categories) of an Arrow dictionary column: its chunks' dictionaries unified into
    one, whose order the categories keep (unused entries too, as a pandas categorical)."""
    import pyarrow.compute as pc

    unified = chunked.unify_dictionaries()
    if unified.num_chunks == 0:
        return np.empty(0, dtype=np.int64), []
    dictionary = unified.chunk(0).dictionary
    indices = pa.chunked_array([c.indices for c in unified.chunks], type=unified.type.index_type)
    codes = pc.fill_null(indices.cast(pa.int64()), -1).to_numpy()
    entries = dictionary.to_pylist()
    if dictionary.null_count:  # a null entry of the dictionary is a missing cell, not a category
        valid = np.array([v is not None for v in entries])
        renumber = np.append(np.where(valid, np.cumsum(valid) - 1, -1), -1)  # [-1] -> -1
        codes = renumber[codes]
        entries = [v for v in entries if v is not None]
    return codes, entries
