"""Data files -> a pandas DataFrame: CSV, TSV, Weka's ARFF and Parquet (optional ``pyarrow``).

The format comes from the file name: ``.tsv`` / ``.tab`` are tab-separated, ``.arff`` is ARFF,
``.parquet`` / ``.pq`` Parquet, anything else CSV; CSV, TSV and ARFF may be compressed
(``.gz``, ``.bz2``, ``.xz``, a ``.zip`` or ``.tar`` of one file: ``compressed``). CSV and TSV are
read as UTF-8 (a BOM is fine) by pandas, with the separator detected and ``NA``, ``N/A``,
``NaN``, ``null``, ``?`` and empty cells missing (``delimited``).

ARFF (Weka's attribute-relation file format): numeric / real / integer attributes become float
columns, nominal attributes pandas categoricals whose categories are the declared values in the
declared order (so branches come out in the order Weka shows them), string and date attributes
text columns; ``?`` is missing. Sparse rows (``{index value, ...}``, an absent value being 0 or
the first declared value) are read; instance weights and relational attributes are refused.
Parquet columns of lists, structs or maps are refused (a tree needs one value per cell).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from . import delimited
from .compressed import open_binary, split_compression
from .delimited import NA_VALUES, number_error_message

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._typing import Path

__all__ = ["NA_VALUES", "DataFileError", "NumberFormatError", "file_format", "read_data"]

PARQUET_EXTRA = "pip install 'rootwise[parquet]'"


class DataFileError(ValueError):
    """A data file that cannot be read as a table: says which file, where and why."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")

    def __reduce__(self):
        return type(self), (self.path, self.reason)


class NumberFormatError(DataFileError):
    """A CSV / TSV text column whose every value is a number written with another decimal mark
    or thousands separator (``6,575``): ``conventions`` lists the (decimal, thousands) pairs that
    read it, ``current`` the pair in use. ``message("cli")`` names the command line's options."""

    def __init__(self, path, column, examples, more, conventions, current):
        self.column, self.examples, self.more = column, examples, more
        self.conventions, self.current = conventions, current
        self.path = str(path)
        super().__init__(path, self.message("python")[len(self.path) + 2:])

    def __reduce__(self):
        return type(self), (self.path, self.column, self.examples, self.more, self.conventions,
                            self.current)

    def message(self, style: str) -> str:
        return number_error_message(self.path, self.column, self.examples, self.more,
                                    self.conventions, self.current, style)


def file_format(path) -> str:
    """"csv", "tsv", "arff" or "parquet", from the file name's extension (a compression
    suffix such as ``.gz`` is looked through)."""
    name, _ = split_compression(path)
    ext = os.path.splitext(name)[1].lower()
    return {".tsv": "tsv", ".tab": "tsv", ".arff": "arff", ".parquet": "parquet",
            ".pq": "parquet"}.get(ext, "csv")


def read_data(path: Path, *, sep: str | None = None, na_values: str | Sequence[str] | None = None,
              decimal: str = ".", thousands: str | None = None,
              keep_text: Sequence[str] = ()) -> pd.DataFrame:
    """The table in ``path`` (see the module docstring for the formats). A file that is not a
    table raises ``DataFileError`` naming the file and what is wrong; a missing file raises
    ``FileNotFoundError``; Parquet without ``pyarrow`` raises ``ImportError`` naming the extra.

    CSV and TSV only: ``sep`` the separator (default: detected); ``na_values`` the texts that
    are missing besides an empty cell (default ``NA_VALUES``); ``decimal`` and ``thousands`` as
    in ``pandas.read_csv``. A text column whose every value is a number written with another
    decimal mark or thousands separator raises ``NumberFormatError`` (a ``DataFileError``)
    naming the column and the argument that reads it, unless the column is in ``keep_text``
    (True: no column is checked)."""
    path = os.fspath(path)
    kind = file_format(path)
    _, compression = split_compression(path)
    if kind == "arff":
        frame = read_arff(path, compression)
    elif kind == "parquet":
        if compression is not None:
            raise DataFileError(path, f"a Parquet file is compressed inside; give the .parquet "
                                      f"file itself, not a {compression} file")
        frame = read_parquet(path)
    else:
        frame = read_delimited(path, compression, "\t" if kind == "tsv" else ",", sep=sep,
                               na_values=na_values, decimal=decimal, thousands=thousands,
                               keep_text=keep_text)
    if frame.shape[1] == 0:
        raise DataFileError(path, "no columns")
    if frame.shape[0] == 0:
        raise DataFileError(path, "no data rows below the header")
    return frame


def estimate_shape(path, *, sep: str | None = None, decimal: str = ".") -> tuple[int, int] | None:
    """(rows, columns) of a data file, read from its start or its metadata without parsing the
    table: exact for Parquet, for a CSV / TSV the header's fields and the rows the file's size
    holds at the sampled lines' length (a compressed file: the sampled rows, a lower bound);
    None for ARFF or a file that cannot be sampled (``read_data`` then says what is wrong)."""
    path = os.fspath(path)
    kind = file_format(path)
    _, compression = split_compression(path)
    try:
        if kind == "parquet":
            import pyarrow.parquet as pq

            meta = pq.read_metadata(path)
            return meta.num_rows, meta.num_columns
        if kind == "arff":
            return None
        with open_binary(path, compression, lambda reason: DataFileError(path, reason)) as f:
            text, more = delimited.sample_text(f)
    except Exception:  # noqa: BLE001  (read_data reports it, in its words)
        return None
    if sep is None:
        sep = delimited.detect_separator(text, "\t" if kind == "tsv" else ",", decimal)
    rows = delimited.records(text, sep)
    if not rows:
        return None
    lines = text.encode("utf-8").splitlines(keepends=True)
    n_rows = len(lines) - 1
    if more and compression is None and n_rows > 0:
        per_row = sum(map(len, lines[1:])) / n_rows
        n_rows = max(n_rows, round((os.path.getsize(path) - len(lines[0])) / per_row))
    return n_rows, len(rows[0])


def _one_char(path: str, name: str, value) -> None:
    if value is not None and (not isinstance(value, str) or len(value) != 1 or value in "\n\r\""):
        raise ValueError(f"{name} must be one character (not a quote or a line break), "
                         f"got {value!r}")


def read_delimited(path: str, compression, preferred: str, *, sep=None, na_values=None,
                   decimal=".", thousands=None, keep_text=()) -> pd.DataFrame:
    """A CSV or TSV file by ``pandas.read_csv`` (``delimited`` says what is detected, missing
    and refused)."""
    for name, value in (("sep", sep), ("decimal", decimal), ("thousands", thousands)):
        _one_char(path, name, value)
    if decimal is None:
        raise ValueError("decimal must be one character, got None")
    if thousands == decimal or (sep is not None and sep in (decimal, thousands)):
        raise ValueError(f"the separator ({sep!r}), the decimal mark ({decimal!r}) and the "
                         f"thousands separator ({thousands!r}) must differ")
    if isinstance(na_values, str):
        na_values = [na_values]
    missing = ["", *(NA_VALUES if na_values is None else na_values)]

    def fail(reason):
        return DataFileError(path, reason)

    with open_binary(path, compression, fail) as stream:
        text, _ = delimited.sample_text(stream)
    if sep is None:
        sep = delimited.detect_separator(text, preferred, decimal)
    rows = delimited.records(text, sep)
    trailing = False
    if rows:
        delimited.check_header(path, rows[0], fail)
        trailing = delimited.extra_fields(path, rows, fail)
    what = "TSV" if sep == "\t" else "CSV"
    try:
        with open_binary(path, compression, fail) as stream:
            frame = pd.read_csv(stream, sep=sep, encoding="utf-8-sig", keep_default_na=False,
                                na_values=missing, decimal=decimal, thousands=thousands,
                                index_col=False if trailing else None)
    except pd.errors.EmptyDataError:
        raise DataFileError(path, "the file is empty") from None
    except UnicodeDecodeError as e:
        raise DataFileError(path, f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    except pd.errors.ParserError as e:
        raise DataFileError(path, f"not a readable {what} file ({_first_line(e)})") from None
    misread = delimited.misread_numbers(frame, decimal, thousands, keep_text)
    if misread is not None:
        raise NumberFormatError(path, *misread, (decimal, thousands))
    return frame


def read_parquet(path: str) -> pd.DataFrame:
    try:
        import pyarrow  # noqa: F401  (only to say which extra is missing)
    except ImportError:
        raise ImportError(f"reading Parquet files ({path}) needs pyarrow: {PARQUET_EXTRA}") from None
    open(path, "rb").close()  # a missing or unreadable file in the OS's words, as for the others
    import pyarrow.parquet as pq
    from pyarrow import types

    try:
        schema = pq.read_schema(path)
        nested = [(f.name, f.type) for f in schema if types.is_nested(f.type)]
        if nested:
            name, kind = nested[0]
            raise DataFileError(path, f"column {name!r} holds {kind} values (a list, struct or "
                                      f"map per cell); a tree needs one number or category per "
                                      f"cell")
        return pd.read_parquet(path, engine="pyarrow")
    except (OSError, ValueError, pyarrow.ArrowException) as e:
        if isinstance(e, DataFileError):
            raise
        raise DataFileError(path, f"not a readable Parquet file ({_first_line(e)})") from None


def _first_line(e: Exception) -> str:
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    return lines[0] if lines else type(e).__name__


# --------------------------------------------------------------------------- ARFF


class _Attribute:
    """One ``@attribute``: its name, kind ("numeric", "nominal", "string") and declared values."""

    def __init__(self, name: str, kind: str, values: list[str] | None = None):
        self.name = name
        self.kind = kind
        self.values = values
        self.index = {v: i for i, v in enumerate(values)} if values is not None else None


def read_arff(path: str, compression: str | None = None) -> pd.DataFrame:
    try:
        with open_binary(path, compression, lambda reason: DataFileError(path, reason)) as f:
            lines = f.read().decode("utf-8-sig").splitlines()
    except UnicodeDecodeError as e:
        raise DataFileError(path, f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    attributes: list[_Attribute] = []
    data_at = None
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("%"):
            continue
        keyword = text.split(None, 1)[0].lower()
        where = f"line {number}"
        if keyword == "@relation":
            continue
        if keyword == "@attribute":
            attributes.append(_parse_attribute(path, where, text[len("@attribute"):]))
        elif keyword == "@data":
            data_at = number
            break
        else:
            raise DataFileError(path, f"{where}: expected @relation, @attribute or @data, "
                                      f"found {text[:40]!r}")
    if not attributes:
        raise DataFileError(path, "not an ARFF file: no @attribute declarations")
    if data_at is None:
        raise DataFileError(path, "not an ARFF file: no @data section")
    names = [a.name for a in attributes]
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise DataFileError(path, f"attribute {twice!r} is declared twice")
    columns: list[list] = [[] for _ in attributes]
    for number in range(data_at + 1, len(lines) + 1):
        text = lines[number - 1].strip()
        if not text or text.startswith("%"):
            continue
        where = f"line {number}"
        if text.startswith("{"):
            cells = _sparse_row(path, where, text, attributes)
        else:
            cells = _split_values(path, where, text)
            if len(cells) == len(attributes) + 1 and _is_weight(cells[-1]):
                raise DataFileError(path, f"{where}: instance weights ({cells[-1][0]}) are not "
                                          f"supported")
            if len(cells) != len(attributes):
                raise DataFileError(path, f"{where}: {len(cells)} values, expected "
                                          f"{len(attributes)} (one per @attribute)")
        for column, attribute, cell in zip(columns, attributes, cells, strict=True):
            column.append(_value(path, where, attribute, cell))
    return pd.DataFrame({a.name: _column(a, c) for a, c in zip(attributes, columns, strict=True)})


def _parse_attribute(path: str, where: str, rest: str) -> _Attribute:
    rest = rest.strip()
    if not rest:
        raise DataFileError(path, f"{where}: @attribute without a name")
    if rest[0] in "'\"":
        name, end = _quoted(path, where, rest, 0)
    else:
        end = 0
        while end < len(rest) and not rest[end].isspace() and rest[end] != "{":
            end += 1
        name = rest[:end]
    spec = rest[end:].strip()
    kind = spec.split(None, 1)[0].lower() if spec else ""
    if spec.startswith("{"):
        if not spec.endswith("}"):
            raise DataFileError(path, f"{where}: nominal values of {name!r} do not end with '}}'")
        values = [v for v, _ in _split_values(path, where, spec[1:-1])] if spec[1:-1].strip() else []
        if len(set(values)) != len(values):
            raise DataFileError(path, f"{where}: attribute {name!r} declares a value twice")
        return _Attribute(name, "nominal", values)
    if kind in ("numeric", "real", "integer"):
        return _Attribute(name, "numeric")
    if kind in ("string", "date"):
        return _Attribute(name, "string")
    if kind == "relational":
        raise DataFileError(path, f"{where}: relational attribute {name!r} is not supported")
    raise DataFileError(path, f"{where}: attribute {name!r} has unknown type {spec[:40]!r} "
                              f"(expected numeric, real, integer, string, date or {{values}})")


def _quoted(path: str, where: str, text: str, start: int) -> tuple[str, int]:
    """The quoted string starting at text[start] (backslash escapes as Weka writes them) and the
    index just past its closing quote."""
    quote = text[start]
    out = []
    i = start + 1
    escapes = {"n": "\n", "t": "\t", "r": "\r"}
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            out.append(escapes.get(text[i + 1], text[i + 1]))
            i += 2
            continue
        if c == quote:
            return "".join(out), i + 1
        out.append(c)
        i += 1
    raise DataFileError(path, f"{where}: a quoted value is not closed")


def _split_values(path: str, where: str, text: str) -> list[tuple[str, bool]]:
    """Comma-separated values as (text, was quoted); whitespace around a value is dropped."""
    if "'" not in text and '"' not in text:  # the common case, fast
        return [(v.strip(), False) for v in text.split(",")]
    out = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i < n and text[i] in "'\"":
            value, i = _quoted(path, where, text, i)
            out.append((value, True))
            while i < n and text[i].isspace():
                i += 1
            if i < n and text[i] != ",":
                raise DataFileError(path, f"{where}: unexpected {text[i]!r} after a quoted value")
        else:
            end = text.find(",", i)
            end = n if end < 0 else end
            out.append((text[i:end].strip(), False))
            i = end
        if i >= n:
            return out
        i += 1  # the comma


def _is_weight(cell: tuple[str, bool]) -> bool:
    value, quoted = cell
    return not quoted and value.startswith("{") and value.endswith("}")


def _sparse_row(path: str, where: str, text: str, attributes: list[_Attribute]):
    if not text.endswith("}"):
        raise DataFileError(path, f"{where}: a sparse row must end with '}}'")
    cells = [("0", False) if a.kind != "nominal" else ((a.values or [""])[0], True)
             for a in attributes]
    body = text[1:-1].strip()
    if not body:
        return cells
    for item, quoted in _split_sparse(path, where, body):
        index, value = item
        if not 0 <= index < len(attributes):
            raise DataFileError(path, f"{where}: sparse index {index} is out of range "
                                      f"(0..{len(attributes) - 1})")
        cells[index] = (value, quoted)
    return cells


def _split_sparse(path: str, where: str, body: str):
    """(index, value), quoted for each "index value" item of a sparse row."""
    i, n = 0, len(body)
    while i < n:
        while i < n and (body[i].isspace() or body[i] == ","):
            i += 1
        start = i
        while i < n and body[i].isdigit():
            i += 1
        if start == i:
            raise DataFileError(path, f"{where}: a sparse item must start with an attribute index")
        index = int(body[start:i])
        while i < n and body[i].isspace():
            i += 1
        if i < n and body[i] in "'\"":
            value, i = _quoted(path, where, body, i)
            yield (index, value), True
        else:
            end = body.find(",", i)
            end = n if end < 0 else end
            yield (index, body[i:end].strip()), False
            i = end


def _value(path: str, where: str, attribute: _Attribute, cell: tuple[str, bool]):
    text, quoted = cell
    if text == "?" and not quoted:
        return None
    if attribute.kind == "numeric":
        try:
            return float(text)
        except ValueError:
            raise DataFileError(path, f"{where}: {text!r} is not a number (attribute "
                                      f"{attribute.name!r} is numeric)") from None
    if attribute.kind == "nominal" and text not in attribute.index:
        raise DataFileError(path, f"{where}: {text!r} is not a declared value of attribute "
                                  f"{attribute.name!r}")
    return text


def _column(attribute: _Attribute, values: list):
    if attribute.kind == "numeric":
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    if attribute.kind == "nominal":
        return pd.Categorical(values, categories=attribute.values)
    return pd.array(values, dtype=object)
