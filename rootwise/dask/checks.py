"""A distributed fit's input checked as the local fit checks it, with the partition named.

The local fit sees one table; a Dask fit sees its partitions one at a time, on the workers. Each
check here runs where the rows are and names the partition (its position in X) and the column,
so that a bad cell is found without gathering the table. ``codes_in_range`` is the guard in
front of the histogram kernels: every byte they use as an index is checked once, when the
partition is prepared, so no input can make a kernel read or write outside its arrays.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np


@contextmanager
def in_partition(index: int):
    """Prefix a ValueError or TypeError raised inside with the partition it is about."""
    try:
        yield
    except (ValueError, TypeError) as e:
        if str(e).startswith("partition "):
            raise
        message = f"partition {index} of X: {e}"
        try:
            named = type(e)(message)
        except Exception:  # noqa: BLE001 - a subclass with other arguments (UnicodeDecodeError)
            named = (ValueError if isinstance(e, ValueError) else TypeError)(message)
        raise named from e


def first_error(futures) -> None:
    """Wait for every partition's task, then raise the error of the first partition (in X's
    order) that failed: the same message whichever worker finishes first."""
    from distributed import wait

    wait(futures)
    for future in futures:
        if future.status == "error":
            future.result()


def rows_of(piece) -> int:
    """Rows of a partition of X, y, sample_weight or folds (a frame, a series or an array)."""
    return int(np.shape(piece)[0]) if np.ndim(piece) else 1


def same_rows(index: int, n: int, pieces: dict) -> None:
    """Refuse a partition whose y (or weights, folds) does not hold one entry per row of X."""
    for what, piece in pieces.items():
        if piece is None:
            continue
        m = rows_of(piece)
        if m != n:
            raise ValueError(f"partition {index}: X has {n} rows but {what} has {m}; give "
                             f"{what} partitioned as X is (the same rows in each partition).")


def codes_in_range(codes: np.ndarray, n_values: np.ndarray, names, index: int) -> None:
    """Every column's bin or category code lies in [0, n_values[j]] (n_values[j]: missing), the
    range the histogram kernels index with; else refuse, naming the column."""
    if codes.shape[0] == 0:
        return
    top = codes.max(axis=0)
    bad = np.flatnonzero(top.astype(np.int64) > n_values)
    if len(bad):
        j = int(bad[0])
        row = int(np.flatnonzero(codes[:, j] > n_values[j])[0])
        raise ValueError(f"partition {index}, column {names[j]!r}, row {row}: code "
                         f"{int(codes[row, j])} is outside the column's {int(n_values[j])} "
                         "values; the partition does not match the fit's schema.")


def unseen_category(column, encoded: np.ndarray, name: str, categories: tuple,
                    index: int) -> None:
    """Refuse a categorical cell whose value is not among the fit's categories of its column
    (the partition's categories differ from those of the collection's meta)."""
    from .._config import UNSEEN_CODE

    unseen = np.flatnonzero(encoded == UNSEEN_CODE)
    if len(unseen):
        row = int(unseen[0])
        value = column.iloc[row] if hasattr(column, "iloc") else column[row]
        shown = ", ".join(map(repr, categories[:8])) + (", ..." if len(categories) > 8 else "")
        raise ValueError(f"partition {index}, column {name!r}, row {row}: the value {value!r} "
                         f"is not one of the column's categories ({shown}) declared by the "
                         "collection's dtype; make the categories known over every partition "
                         "(ddf[col].cat.as_known()) or give the column as strings.")
