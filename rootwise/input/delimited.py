"""CSV and TSV files -> a DataFrame, read by pandas as R's ``read.csv`` and pandas users expect.

- Missing: an empty cell and ``NA``, ``N/A``, ``NaN``, ``null``, ``?`` (R's ``write.csv`` writes
  NA, Weka's and the UCI files ?); ``na_values`` replaces the list (an empty cell stays missing).
- The separator is detected unless given: the first of the file's own (comma, tab for ``.tsv``),
  ``;``, tab, ``,`` and ``|`` that splits the header and the first rows into the same number of
  fields (two at least); the field counts come from Python's ``csv`` reader, the table from
  ``pandas.read_csv``.
- ``decimal`` and ``thousands`` are pandas' own. A text column whose every value is a number
  under another convention (``6,575``, ``2,960``, ``1.234,5``) is refused, naming the column and
  the option that reads it, instead of becoming a category per value.
- Refused: a header naming a column twice (pandas would rename the second ``y`` to ``y.1``), and
  data rows with more fields than the header (pandas would take the first as row names and
  shift every column); a trailing separator on every row is read as if it were not there.
"""

from __future__ import annotations

import csv
import io
import re

NA_VALUES = ("", "NA", "N/A", "NaN", "null", "?")

SEPARATORS = (",", ";", "\t", "|")

# thousands separators a number may be written with (None: none)
THOUSANDS = (None, ",", ".", " ", "'")

SAMPLE_BYTES = 1 << 16  # at least this much of the file (and at least its first line) is sniffed
SAMPLE_LINES = 100


def number_error_message(path: str, column, examples: list[str], more: bool, conventions: list,
                         current: tuple, style: str) -> str:
    """Why a text column of numbers is refused and how to read it: ``conventions`` are the
    (decimal, thousands) pairs that read every value, ``current`` the pair in use; the fix is
    named as read_data's arguments (``style`` "python") or as the command line's ("cli"; "model":
    for a fitted model's numeric column, which cannot be kept as text)."""
    shown = ", ".join(examples) + (", ..." if more else "")
    fixes = "; or ".join(f"{_ask(d, t, current, style)} ({_meaning(d, t)})" for d, t in conventions)
    if style == "model":  # a fitted model reads the column as numbers: no other way
        return (f"{path}: column {column!r} holds numbers written as {shown}, which the model "
                f"reads as numbers; give {fixes}")
    keep = f"--categorical {column}" if style == "cli" else f"keep_text=[{column!r}]"
    return (f"{path}: column {column!r} holds numbers written as {shown}, which would be read as "
            f"text; give {fixes}; or {keep} to keep them as categories")


def _ask(decimal: str, thousands, current: tuple, style: str) -> str:
    changes = [(k, v) for k, v, now in (("decimal", decimal, current[0]),
                                        ("thousands", thousands, current[1])) if v != now]
    if style != "python":
        return " ".join(f"--{k} {_shell(v)}" for k, v in changes)
    return ", ".join(f"{k}={v!r}" for k, v in changes)


def _shell(value) -> str:
    if value is None:
        return "none"
    return {" ": "' '", "'": "\"'\""}.get(value, value)


def _meaning(decimal: str, thousands) -> str:
    mark = "decimal comma" if decimal == "," else "decimal point"
    return mark if thousands is None else f"{mark}, thousands separated by {thousands!r}"


# --------------------------------------------------------------------------- the sample


def sample_text(stream) -> tuple[str, bool]:
    """The file's first lines as text (UTF-8, a BOM dropped) and whether the file goes on: at
    least SAMPLE_BYTES and at least two whole lines, however long the header is."""
    chunks, size, lines = [], 0, 0
    while True:
        chunk = stream.read(SAMPLE_BYTES)
        if not chunk:
            more = False
            break
        chunks.append(chunk)
        size += len(chunk)
        lines += chunk.count(b"\n")
        if size >= SAMPLE_BYTES and lines >= 2:
            more = True
            break
    data = b"".join(chunks)
    if more:  # keep whole lines only
        data = data[:data.rfind(b"\n") + 1]
    return data.decode("utf-8-sig", errors="replace"), more


def records(text: str, sep: str) -> list[list[str]]:
    """The sample's records (blank lines skipped, as pandas does), at most SAMPLE_LINES."""
    out = []
    try:
        for record in csv.reader(io.StringIO(text), delimiter=sep):
            if record:
                out.append(record)
                if len(out) >= SAMPLE_LINES:
                    break
    except csv.Error:  # an odd quote in the sample: pandas reads the file and says where
        pass
    return out


def detect_separator(text: str, preferred: str, decimal: str) -> str:
    """The first separator (``preferred`` first) that splits the header into two fields or more
    and every sampled row into as many; ``preferred`` when none does."""
    candidates = [preferred] + [s for s in SEPARATORS if s != preferred]
    for sep in candidates:
        if sep == decimal:
            continue
        rows = records(text, sep)
        if rows and len(rows[0]) >= 2 and all(len(r) == len(rows[0]) for r in rows[1:]):
            return sep
    return preferred


# --------------------------------------------------------------------------- checks


def check_header(path: str, header: list[str], fail) -> None:
    """Refuse a header that names a column twice (pandas would rename the second)."""
    seen = {}
    for i, name in enumerate(header):
        if name == "":  # pandas names these "Unnamed: i", each its own
            continue
        if name in seen:
            raise fail(f"the header names column {name!r} twice (fields {seen[name] + 1} and "
                       f"{i + 1}); every column needs its own name")
        seen[name] = i


def extra_fields(path: str, rows: list[list[str]], fail) -> bool:
    """Whether every data row ends with one empty extra field (a separator at the end of each
    line: read as if it were not there). Rows with more fields than the header otherwise are
    refused: pandas would take their first fields as row names and shift every column."""
    header, data = rows[0], rows[1:]
    if not data or any(len(r) <= len(header) for r in data):
        return False  # shorter rows are filled with missing values; a longer one pandas refuses
    extra = {len(r) - len(header) for r in data}
    if extra == {1} and all(r[-1].strip() == "" for r in data):
        return True
    n = len(data[0])
    raise fail(f"the header names {len(header)} columns but the data rows have "
               f"{n if len(extra) == 1 else 'more'} fields; pandas would take the first as row "
               f"names and shift every column (name every column in the header)")


def _number_pattern(decimal: str, thousands) -> re.Pattern:
    d = re.escape(decimal)
    whole = rf"(?:\d{{1,3}}(?:{re.escape(thousands)}\d{{3}})+|\d+)" if thousands else r"\d+"
    return re.compile(rf"[+-]?(?:{whole}(?:{d}\d*)?|{d}\d+)(?:[eE][+-]?\d+)?")


def misread_numbers(frame, decimal: str, thousands, keep_text=()):
    """The first text column (not in ``keep_text``; True: none is checked) whose every value
    reads as a number under a decimal mark or thousands separator other than the ones in use,
    as (column, examples, whether there are more values, conventions that read it); None when
    there is none."""
    from pandas.api import types as ptypes

    if keep_text is True:
        return None
    current = (decimal, thousands)
    others = [(d, t) for d in (".", ",") for t in THOUSANDS if t != d and (d, t) != current]
    keep = set(keep_text)
    for name in frame.columns:
        column = frame[name]
        if name in keep or not (ptypes.is_object_dtype(column) or ptypes.is_string_dtype(column)):
            continue
        values = column.dropna()
        if len(values) == 0 or not all(isinstance(v, str) for v in values.iloc[:100]):
            continue
        values = values.astype(str).str.strip()
        head = values.iloc[:100]
        fits = [c for c in others if head.str.fullmatch(_number_pattern(*c)).all()]
        fits = [c for c in fits if values.str.fullmatch(_number_pattern(*c)).all()]
        if fits and not values.str.fullmatch(_number_pattern(*current)).all():
            distinct = list(dict.fromkeys(values.iloc[:20]))
            return name, distinct[:3], len(distinct) > 3 or len(values) > 3, _simplest(fits)
    return None


def _simplest(conventions: list) -> list:
    """The conventions worth naming: with no thousands separator when that reads every value
    (a thousands separator is then only a guess), and at most three."""
    plain = [c for c in conventions if c[1] is None]
    grouped = [c for c in conventions if c[1] is not None and (c[0], None) not in plain]
    return (plain + grouped)[:3]
