"""Object columns that Dask turns into strings, found before they change the tree.

With its ``dataframe.convert-string`` setting on (the default with pyarrow), Dask converts every
object column of a collection it builds (``from_pandas``, ``from_delayed``, ``from_map``) to
strings: the ints 1, 2 become '1', '2', and a column holding 1 in one partition and '1' in
another becomes one category where the local fit of the same pandas table sees two. The local fit
keeps cells as they are (``input.codes.factorize``), so such a column is refused with the fix
rather than fitted on values the user never gave. Strings stay strings: only a column whose
cells before the conversion were not all strings is refused.

Cost: nothing for a collection without such a conversion (``read_parquet``) or without object
columns; under ``from_pandas`` the pandas table is read on the client; under any other conversion
its input is computed once more, those columns only, each partition where it is.
"""

from __future__ import annotations

import numpy as np


def refuse_converted_numbers(collection, client, what: str = "X") -> None:
    """Look under every string conversion in ``collection``'s expression (X, or the Series y)
    for the object columns that reach it as strings; refuse the first holding a non-string,
    naming its column and the partition of the conversion's input that holds it. Only columns
    whose name the collection keeps, and whose dtype there is a string one, are read."""
    from ..input.tables import is_pandas

    expr = getattr(collection, "expr", None)
    if (expr is None or not hasattr(expr, "walk")
            or not is_pandas(getattr(collection, "_meta", None), "DataFrame", "Series")):
        return  # a dask Array: numbers only
    import pandas as pd
    from dask.dataframe.dask_expr._expr import ArrowStringConversion
    from dask.dataframe.dask_expr.io.io import FromPandas

    meta = collection._meta
    dtypes = meta.dtypes.to_dict() if hasattr(meta, "columns") else {meta.name: meta.dtype}
    strings = {name for name, dtype in dtypes.items()
               if isinstance(dtype, pd.StringDtype)}
    if not strings:
        return
    # how a message names the place: a column of X, or y itself
    shown = (lambda name: f"column {name!r}") if hasattr(meta, "columns") else (lambda name: what)
    seen = set()
    for node in expr.walk():
        if node._name in seen:
            continue
        seen.add(node._name)
        if isinstance(node, FromPandas) and node.pyarrow_strings_enabled:
            _check_pandas(node, strings, shown)
        elif isinstance(node, ArrowStringConversion):
            _check_partitions(node.frame, strings, shown, client)


def first_non_string(column):
    """(row, value) of the first cell of an object column that is neither a string nor missing,
    or None."""
    import pandas as pd
    from pandas.api.types import infer_dtype

    if infer_dtype(column, skipna=True) in ("string", "empty"):
        return None
    cells = column.to_numpy(dtype=object)
    odd = np.flatnonzero(~pd.isna(cells) & ~np.array([isinstance(v, str) for v in cells],
                                                       dtype=bool))
    return (int(odd[0]), cells[odd[0]]) if len(odd) else None


def _as_frame(table):
    return table if hasattr(table, "columns") else table.to_frame(name=table.name)


def _object_columns(table, strings):
    """The object columns of a table (or Series) that reach the fit as strings."""
    table = _as_frame(table)
    return [c for c in table.columns if table[c].dtype == object and c in strings]


def _check_pandas(node, strings, shown) -> None:
    """``from_pandas``: the pandas table is on the client, read it there."""
    frame = _as_frame(node.frame._data if hasattr(node.frame, "_data") else node.frame)
    locations = np.asarray(node._locations())
    for name in _object_columns(frame, strings):
        found = first_non_string(frame[name])
        if found is not None:
            row, value = found
            partition = int(np.searchsorted(locations, row, side="right")) - 1
            _refuse(shown(name), partition, row - int(locations[partition]), value)


def _check_partitions(child, strings, shown, client) -> None:
    """Any other conversion: its input's partitions (those columns only), each checked where
    it is computed."""
    from dask import delayed
    from dask.dataframe.dask_expr import new_collection

    source = new_collection(child)
    names = _object_columns(source._meta, strings)
    if not names:
        return
    if hasattr(source._meta, "columns"):
        source = source[names]
    found = client.gather(client.compute([delayed(_scan_objects)(piece, names)
                                          for piece in source.to_delayed()]))
    for partition, hit in enumerate(found):
        if hit is not None:
            _refuse(shown(hit[0]), partition, hit[1], hit[2])


def _scan_objects(part, names):
    part = _as_frame(part)
    for name in names:
        found = first_non_string(part[name])
        if found is not None:
            return (name, *found)
    return None


def _refuse(where, partition, row, value):
    raise ValueError(
        f"partition {partition}, {where}, row {row}: the object cells hold "
        f"{value!r} ({type(value).__name__}), which Dask's dataframe.convert-string setting "
        f"turns into the string {str(value)!r}; the local fit keeps it as it is, so the trees "
        "would differ. Build the collection under dask.config.set({'dataframe.convert-string': "
        "False}), or convert the column yourself (astype(str)) before giving it to Dask.")
