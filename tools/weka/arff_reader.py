"""Read Weka ARFF files the way Weka 3.6 reads them.

Two layers:

* :func:`parse_arff` is standard-library only. It returns an :class:`ArffData`
  with the attribute declarations and the raw value strings of every instance
  (``None`` for a missing ``?``), plus the raw text of the header and of every
  data line, so callers can write subsets of the file byte-for-byte
  (``make_j48_golden.py`` uses this to build its cross-validation folds).
* :func:`read_arff` needs pandas (imported lazily) and returns a
  ``pandas.DataFrame``: nominal attributes become ``category`` columns whose
  categories are the declared values in declared order, numeric
  (``numeric``/``real``/``integer``) attributes become ``float64``, string
  attributes ``object``; a missing value is ``NaN`` (``None`` for strings).

Tokenising follows ``weka.core.converters.ArffLoader`` in Weka 3.6, which uses
``java.io.StreamTokenizer`` with: characters up to and including the space are
whitespace, ``,`` is whitespace too, ``%`` starts a comment running to the end
of the line, ``'`` and ``"`` quote (backslash escapes inside quotes), ``{`` and
``}`` are tokens of their own, end of line is significant. An unquoted ``?``
is a missing value; a quoted ``'?'`` is the literal string ``?``.

Sparse instances (``{0 x, 3 y}``), instance weights, relational and date
attributes are not used by the datasets we ship and raise ``ArffError``.

Run ``python tools/weka/arff_reader.py [golden_dir]`` to check the reader
against the summaries Weka itself printed (stored in the golden JSON files
under ``weka_summary``): row and column counts, attribute kinds, and per
attribute the number of missing, distinct and unique values.
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

NUMERIC_TYPES = ("numeric", "real", "integer")


class ArffError(ValueError):
    """Raised for ARFF input this reader does not understand."""


@dataclass
class Attribute:
    name: str
    kind: str  # "nominal", "numeric" or "string"
    values: list[str] | None = None  # declared values of a nominal attribute

    @property
    def is_nominal(self) -> bool:
        return self.kind == "nominal"

    @property
    def is_numeric(self) -> bool:
        return self.kind == "numeric"


@dataclass
class ArffData:
    relation: str
    attributes: list[Attribute]
    rows: list[list[str | None]]  # raw value strings, quotes removed; None = missing
    header_text: str = ""  # the file's text up to and including the @data line
    data_lines: list[str] = field(default_factory=list)  # raw text of each instance's line

    @property
    def n_rows(self) -> int:
        return len(self.rows)

    @property
    def n_attributes(self) -> int:
        return len(self.attributes)

    def attribute_index(self, name: str) -> int:
        for i, att in enumerate(self.attributes):
            if att.name == name:
                return i
        raise KeyError(name)

    def column(self, index: int) -> list[str | None]:
        return [row[index] for row in self.rows]

    def numeric_column(self, index: int) -> list[float | None]:
        """Values of a numeric attribute as floats (Python's float() rounds like Java's Double.valueOf)."""
        return [None if v is None else float(v) for v in self.column(index)]


# --------------------------------------------------------------------------- tokeniser

_QUOTES = "'\""
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "a": "\a", "v": "\v"}


def _tokenize_line(line: str) -> list[tuple[str, bool]]:
    """Split one line into (token, was_quoted) pairs, StreamTokenizer style."""
    tokens: list[tuple[str, bool]] = []
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c <= " " or c == ",":
            i += 1
        elif c == "%":
            break
        elif c in "{}":
            tokens.append((c, False))
            i += 1
        elif c in _QUOTES:
            quote = c
            i += 1
            buf = []
            while i < n and line[i] != quote:
                ch = line[i]
                if ch == "\\" and i + 1 < n:
                    nxt = line[i + 1]
                    if nxt in "01234567":  # octal escape, up to three digits
                        j = i + 1
                        while j < n and j < i + 4 and line[j] in "01234567":
                            j += 1
                        buf.append(chr(int(line[i + 1 : j], 8)))
                        i = j
                        continue
                    buf.append(_ESCAPES.get(nxt, nxt))
                    i += 2
                    continue
                buf.append(ch)
                i += 1
            i += 1  # closing quote (or end of line, as StreamTokenizer allows)
            tokens.append(("".join(buf), True))
        else:
            j = i
            while j < n and not (line[j] <= " " or line[j] in ",%{}" or line[j] in _QUOTES):
                j += 1
            tokens.append((line[i:j], False))
            i = j
    return tokens


# --------------------------------------------------------------------------- parser


def _parse_attribute(tokens: list[tuple[str, bool]], lineno: int) -> Attribute:
    if len(tokens) < 3:
        raise ArffError(f"line {lineno}: incomplete @attribute declaration")
    name = tokens[1][0]
    type_tok, type_quoted = tokens[2]
    if type_tok == "{" and not type_quoted:
        values = []
        for tok, quoted in tokens[3:]:
            if tok == "}" and not quoted:
                break
            values.append(tok)
        else:
            raise ArffError(f"line {lineno}: unterminated nominal value list for {name!r}")
        if len(set(values)) != len(values):
            raise ArffError(f"line {lineno}: duplicate nominal value in {name!r}")
        return Attribute(name, "nominal", values)
    kind = type_tok.lower()
    if kind in NUMERIC_TYPES:
        return Attribute(name, "numeric")
    if kind == "string":
        return Attribute(name, "string")
    raise ArffError(f"line {lineno}: unsupported attribute type {type_tok!r} for {name!r}")


def parse_arff(path: str | Path) -> ArffData:
    """Parse a dense ARFF file. See the module docstring for the rules."""
    text = Path(path).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    relation = None
    attributes: list[Attribute] = []
    rows: list[list[str | None]] = []
    data_lines: list[str] = []
    header_end = None
    in_data = False
    for lineno, raw in enumerate(lines, start=1):
        tokens = _tokenize_line(raw.rstrip("\r\n"))
        if not tokens:
            continue
        if not in_data:
            keyword = tokens[0][0].lower() if not tokens[0][1] else ""
            if keyword == "@relation":
                if len(tokens) < 2:
                    raise ArffError(f"line {lineno}: @relation without a name")
                relation = tokens[1][0]
            elif keyword == "@attribute":
                attributes.append(_parse_attribute(tokens, lineno))
            elif keyword == "@data":
                in_data = True
                header_end = sum(len(x) for x in lines[:lineno])
            else:
                raise ArffError(f"line {lineno}: unexpected header line {raw.strip()!r}")
            continue
        if tokens[0] == ("{", False):
            raise ArffError(f"line {lineno}: sparse instances are not supported")
        if len(tokens) != len(attributes):
            raise ArffError(f"line {lineno}: {len(tokens)} values for {len(attributes)} attributes")
        row: list[str | None] = []
        for att, (tok, quoted) in zip(attributes, tokens, strict=True):
            if tok == "?" and not quoted:
                row.append(None)
                continue
            if att.is_nominal and tok not in att.values:
                raise ArffError(f"line {lineno}: {tok!r} is not a declared value of {att.name!r}")
            if att.is_numeric:
                try:
                    float(tok)
                except ValueError:
                    raise ArffError(f"line {lineno}: {tok!r} is not a number ({att.name!r})") from None
            row.append(tok)
        rows.append(row)
        data_lines.append(raw if raw.endswith("\n") else raw + "\n")
    if relation is None or header_end is None:
        raise ArffError(f"{path}: missing @relation or @data")
    return ArffData(relation, attributes, rows, text[:header_end], data_lines)


def write_arff_subset(data: ArffData, row_indices, path: str | Path) -> None:
    """Write the header and the chosen instances' original lines, in the given order."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(data.header_text)
        if not data.header_text.endswith("\n"):
            fh.write("\n")
        for i in row_indices:
            fh.write(data.data_lines[i])


# --------------------------------------------------------------------------- pandas


def read_arff(path: str | Path, class_attribute: str | None = None):
    """Load an ARFF file into a ``pandas.DataFrame`` (see the module docstring).

    ``df.attrs`` gets ``relation`` and ``class_attribute`` (the last attribute
    unless given, as in Weka's command line).
    """
    import pandas as pd  # lazy: parse_arff stays usable without pandas

    data = parse_arff(path)
    columns = {}
    for j, att in enumerate(data.attributes):
        raw = data.column(j)
        if att.is_nominal:
            columns[att.name] = pd.Categorical(raw, categories=att.values, ordered=False)
        elif att.is_numeric:
            columns[att.name] = pd.Series(
                [math.nan if v is None else float(v) for v in raw], dtype="float64"
            )
        else:
            columns[att.name] = pd.Series(raw, dtype="object")
    df = pd.DataFrame(columns)
    df.attrs["relation"] = data.relation
    df.attrs["class_attribute"] = class_attribute or data.attributes[-1].name
    return df


# --------------------------------------------------------------------------- self-check


def _check_against_weka(df, summary: dict) -> list[str]:
    """Compare a DataFrame with the attribute summary that ``weka.core.Instances`` printed."""
    import pandas as pd

    problems = []
    if len(df) != summary["num_instances"]:
        problems.append(f"rows {len(df)} != weka {summary['num_instances']}")
    if df.shape[1] != summary["num_attributes"]:
        problems.append(f"columns {df.shape[1]} != weka {summary['num_attributes']}")
    for col, att in zip(df.columns, summary["attributes"], strict=False):
        series = df[col]
        if not str(col).startswith(att["name"]):  # Weka truncates long names
            problems.append(f"{col}: name {att['name']!r}")
        want = {"Nom": "category", "Num": "float64", "Str": "object"}[att["type"]]
        if str(series.dtype) != want:
            problems.append(f"{col}: dtype {series.dtype} != {want}")
        missing = int(series.isna().sum())
        if missing != att["missing"]:
            problems.append(f"{col}: missing {missing} != weka {att['missing']}")
        present = series.dropna()
        if isinstance(series.dtype, pd.CategoricalDtype):
            present = present.astype(str)
        counts = Counter(present.tolist())
        if len(counts) != att["distinct"]:
            problems.append(f"{col}: distinct {len(counts)} != weka {att['distinct']}")
        unique = sum(1 for c in counts.values() if c == 1)
        if unique != att["unique"]:
            problems.append(f"{col}: unique {unique} != weka {att['unique']}")
    return problems


def main(argv: list[str]) -> int:
    golden = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[2] / "tests/golden/j48"
    files = sorted(golden.glob("*.json"))
    if not files:
        print(f"no golden JSON files in {golden}", file=sys.stderr)
        return 1
    failed = 0
    for gf in files:
        gold = json.loads(gf.read_text())
        df = read_arff(golden / gold["arff_file"])
        problems = _check_against_weka(df, gold["weka_summary"])
        status = "ok" if not problems else "MISMATCH"
        print(f"{gold['dataset']:20s} {len(df):5d} rows {df.shape[1]:3d} cols  {status}")
        for p in problems:
            print(f"    {p}")
        failed += bool(problems)
    print(f"{len(files) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
