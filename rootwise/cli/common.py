"""What the commands share: the one-line user error, reading tables and models, choosing columns,
guarding and writing output files, and the arguments several commands take."""

from __future__ import annotations

import argparse
import difflib
import os
import shutil
import sys
import textwrap

import rootwise
from rootwise.export.atomic import open_atomic, write_atomic
from rootwise.export.destination import resolve

from . import size


class UserError(Exception):
    """A mistake in the command or its files: reported in one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line instead of usage + message, like every other user error
        raise UserError(f"{message} (see '{self.prog} --help')")


def decimals(text: str) -> int:
    """argparse type of --digits and --decimals: an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}")
    return value


def add_command(commands, name: str, *, help: str, example: str, description: str | None = None):
    """A sub-command whose --help ends with a worked example."""
    return commands.add_parser(name, help=help, description=textwrap.fill(description or help, 78),
                               epilog=f"example:\n  {example}",
                               formatter_class=argparse.RawDescriptionHelpFormatter)


# --------------------------------------------------------------------------- reading


def read_table(args, model=None):
    """The table of ``args.data`` (CSV, TSV, ARFF or Parquet, by extension), read with the file
    options of ``args`` (``add_file_options``). A text column of numbers written with another
    decimal mark or thousands separator is refused (``rootwise.read_data``) unless --categorical
    names it; with a fitted ``model``, only the columns it holds as numbers are checked."""
    from rootwise.input.delimited import misread_numbers
    from rootwise.input.files import NumberFormatError, file_format

    keep = True if model is not None else getattr(args, "categorical_features", None) or ()
    decimal, thousands = getattr(args, "decimal", "."), getattr(args, "thousands", None)
    try:
        frame = rootwise.read_data(args.data, sep=getattr(args, "sep", None),
                                   na_values=getattr(args, "na_values", None), decimal=decimal,
                                   thousands=thousands, keep_text=keep)
        if model is not None and file_format(args.data) in ("csv", "tsv"):
            numeric = [c for c in _continuous_columns(model) if c in frame.columns]
            misread = misread_numbers(frame[numeric], decimal, thousands)
            if misread is not None:
                raise NumberFormatError(args.data, *misread, (decimal, thousands))
    except NumberFormatError as e:  # named as the options of the command line
        raise UserError(e.message("cli" if model is None else "model")) from None
    return frame


def _continuous_columns(model) -> list:
    from rootwise._config import CONTINUOUS

    schema = getattr(model, "schema_", None)
    if schema is None or not schema.names_from_input:
        return []
    return [name for name, kind in zip(schema.feature_names, schema.kinds, strict=True)
            if kind == CONTINUOUS]


def note(args, text: str) -> None:
    """One line on stderr about the data (not with --quiet)."""
    if not getattr(args, "quiet", False):
        print(f"rootwise: note: {text}", file=sys.stderr)


def is_arff(path: str) -> bool:
    from rootwise.input.files import file_format

    return file_format(path) == "arff"


def target_name(args, frame) -> str:
    """--target, or for an ARFF file its last attribute (Weka's convention), said in a note."""
    if args.target is not None:
        return args.target
    if not is_arff(args.data):
        shown = ", ".join(map(str, frame.columns[:12])) + (", ..." if frame.shape[1] > 12 else "")
        raise UserError(f"{args.data}: which column is the target? give --target COL (its "
                        f"columns: {shown}); only an ARFF file's target defaults to its last "
                        f"attribute")
    target = str(frame.columns[-1])
    note(args, f"target {target!r}, the last attribute of {args.data} (as Weka takes it; "
               f"--target COL chooses another)")
    return target


def check_size(args, shape) -> None:
    """Refuse a table (``shape``: rows, columns; None: unknown) whose fit would take more memory
    than there is (``size``), before it is parsed or fitted."""
    if shape is None:
        return
    reason = size.too_large(*shape, size.limit_of(args), getattr(args, "algorithm", None))
    if reason is not None:
        raise UserError(f"{args.data}: {reason}")


def _without_row_names(args, frame):
    """The table without a first column that has no name in the header and holds R's row names
    (``write.csv`` writes them so): the row numbers 1, 2, ..., or a different text on every row
    (a data frame's row names are unique, e.g. mtcars' car names). As a feature it would split
    the rows by their position in the file, or learn each row by its name."""
    first = frame.columns[0]
    if not (isinstance(first, str) and first.startswith("Unnamed: 0")) or frame.shape[1] < 2:
        return frame
    import numpy as np
    import pandas as pd

    column = frame[first]
    numbers = pd.to_numeric(column, errors="coerce").to_numpy()
    if np.array_equal(numbers, np.arange(1, len(frame) + 1)):
        what = f"the row numbers 1 to {len(frame):,}"
    elif (len(frame) > 1 and column.notna().all() and np.isnan(numbers).all()
          and column.is_unique):
        what = f"a different name on each of its {len(frame):,} rows"
    else:
        return frame
    note(args, f"left out the first column of {args.data}: it has no name and holds {what} "
               "(R's write.csv row names)")
    return frame.drop(columns=first)


def training_table(args):
    """(features, target column) of the command's data file: the target chosen by
    ``target_name`` (``args.target`` is set to it), rows without a target value dropped with a
    note (as rpart does) or refused with --no-drop-missing-target."""
    from rootwise.input.files import estimate_shape

    check_size(args, estimate_shape(args.data, sep=getattr(args, "sep", None),
                                    decimal=getattr(args, "decimal", ".")))
    frame = read_table(args)
    check_size(args, frame.shape)
    frame = _without_row_names(args, frame)
    args.target = target_name(args, frame)
    X, y = split_target(frame, args.data, args.target, args.ignore)
    keep = y.notna().to_numpy()
    if not keep.all():
        missing = int((~keep).sum())
        if not getattr(args, "drop_missing_target", True):
            rows = ", ".join(str(i + 1) for i in (~keep).nonzero()[0][:5])
            raise UserError(f"{args.data}: {missing} of {len(y)} rows have no value in the target "
                            f"column {args.target!r} (data row{'s' if missing > 1 else ''} "
                            f"{rows}{', ...' if missing > 5 else ''}); --drop-missing-target "
                            f"leaves them out")
        if missing == len(y):
            raise UserError(f"{args.data}: the target column {args.target!r} has no value in any "
                            f"row")
        note(args, f"left out {missing:,} of {len(y):,} rows of {args.data} whose target "
                   f"{args.target!r} is missing (--no-drop-missing-target refuses them)")
        X, y = X[keep], y[keep]
    return X, y


def read_model(path: str):
    return rootwise.load(path)


def is_regressor(model) -> bool:
    return isinstance(model, rootwise.CARTRegressor)


def require_column(frame, path: str, column: str, why: str = "") -> None:
    if column not in frame.columns:
        shown = ", ".join(map(str, frame.columns[:12])) + (", ..." if frame.shape[1] > 12 else "")
        hint = ""
        for sep, name in ((";", ";"), ("\t", "'\\t'"), ("|", "'|'"), (",", ",")):
            if any(sep in str(c) and column in str(c).split(sep) for c in frame.columns):
                hint = f"; its header looks {name}-separated: give --sep {name}"
                break
        raise UserError(f"{path} has no column {column!r}{why}"
                        f"{'' if hint else _closest(column, frame.columns)} "
                        f"(its columns: {shown}){hint}")


def _closest(name: str, columns) -> str:
    """"; did you mean 'Class'?" for the column whose name is nearest (any case), or ""."""
    names = {str(c).lower(): str(c) for c in reversed(list(columns))}
    close = difflib.get_close_matches(str(name).lower(), list(names), n=1, cutoff=0.7)
    return f"; did you mean {names[close[0]]!r}?" if close else ""


def split_target(frame, path: str, target: str, ignore: list[str]):
    """(features, target column): every column but the target and the ignored ones."""
    for column in [target, *ignore]:
        require_column(frame, path, column)
    if target in ignore:
        raise UserError(f"column {target!r} is both the --target and in --ignore")
    X = frame.drop(columns=[target, *ignore])
    if X.shape[1] == 0:
        raise UserError(f"{path}: no feature columns left besides --target and --ignore")
    return X, frame[target]


def model_columns(model, frame, path: str):
    """The model's feature columns of ``frame``, by name (other columns are ignored)."""
    names = getattr(model, "feature_names_in_", None)
    if names is None:  # fitted on an unnamed table: columns are taken in order
        if frame.shape[1] != model.n_features_in_:
            raise UserError(f"the model was fitted without column names, so {path} must have "
                            f"exactly its {model.n_features_in_} columns, in order; it has "
                            f"{frame.shape[1]}")
        return frame.set_axis(range(frame.shape[1]), axis=1)
    for name in names:
        require_column(frame, path, name, ", which the model uses")
    return frame[list(names)]


# --------------------------------------------------------------------------- writing


def add_force(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true",
                   help="allow an output file to be one of the command's input files")


def guard_outputs(args, outputs: dict[str, str | None], inputs: list[str]) -> None:
    """Refuse an output path that cannot be written (a missing folder on its way, a folder, a
    block device) or that lands on one of ``inputs`` (the same file through any path or link)
    unless --force: the command would destroy what it reads. The writers resolve the path with
    the same function (``export.destination.resolve``), so what is checked is what is written."""
    for option, out in outputs.items():
        if out is None:
            continue
        try:
            dest = resolve(out)
        except OSError as e:
            raise UserError(f"{option} {out}: {e.strerror}") from None
        if getattr(args, "force", False):
            continue
        for source in inputs:
            if dest.replaces(source):
                same = "" if os.path.abspath(out) == os.path.abspath(source) else f" ({source})"
                raise UserError(f"{option} {out} is an input of this command{same}; it would be "
                                f"overwritten (give --force to replace it anyway)")


def write_text(path: str, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8), atomically."""
    write_atomic(path, text)


def open_output(path: str, *, newline: str | None = None):
    """A text file that replaces ``path`` when the ``with`` block ends without an error."""
    return open_atomic(path, "w", encoding="utf-8", newline=newline)


def open_output_bytes(path: str):
    """A binary file that replaces ``path`` when the ``with`` block ends without an error."""
    return open_atomic(path, "wb")


# --------------------------------------------------------------------------- shared arguments


def add_quiet(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quiet", action="store_true", help="no progress line or notes on stderr")


def add_data_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", metavar="DATA", help="a .csv, .tsv, .arff or .parquet file")
    p.add_argument("--target", metavar="COL",
                   help="the column to predict (an ARFF file: by default its last attribute, "
                        "as in Weka)")
    p.add_argument("--ignore", nargs="+", action="extend", default=[], metavar="COL",
                   help="columns that are not features (e.g. an ID)")
    add_file_options(p)
    add_missing_target(p)
    add_max_memory(p)


def add_missing_target(p: argparse.ArgumentParser) -> None:
    p.add_argument("--drop-missing-target", action=argparse.BooleanOptionalAction, default=True,
                   help="leave out the rows whose target is missing, with a note (the default, "
                        "as rpart does); --no-drop-missing-target refuses them")


def _one_character(name: str):
    def parse(text: str):
        if name == "thousands" and text.lower() == "none":
            return None
        text = {"tab": "\t", "\\t": "\t", "space": " "}.get(text, text)
        if len(text) != 1 or text in "\n\r\"":
            raise argparse.ArgumentTypeError(f"--{name} must be one character (tab: '\\t'), "
                                             f"got {text!r}")
        return text
    return parse


def _na_list(text: str) -> list[str]:
    return [v.strip() for v in text.split(",") if v.strip()]


def add_file_options(p: argparse.ArgumentParser) -> None:
    """How a CSV / TSV file is read (``rootwise.read_data``'s arguments)."""
    from rootwise.input.files import NA_VALUES

    g = p.add_argument_group("reading CSV and TSV files")
    g.add_argument("--sep", type=_one_character("sep"), metavar="C",
                   help="the field separator (default: detected among , ; tab |)")
    g.add_argument("--na-values", type=_na_list, metavar="A,B,...",
                   help="the texts that mean missing, besides an empty cell (default: "
                        f"{','.join(v for v in NA_VALUES if v)})")
    g.add_argument("--decimal", type=_one_character("decimal"), default=".", metavar="C",
                   help="the decimal mark, e.g. --decimal , for 6,575 (default .)")
    g.add_argument("--thousands", type=_one_character("thousands"), metavar="C",
                   help="the thousands separator, e.g. --thousands , for 2,960 (default: none)")


def _size(text: str) -> int:
    try:
        return size.parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_max_memory(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-memory", type=_size, metavar="SIZE",
                   help="refuse a table whose fit would take more memory than this, e.g. 8G "
                        "(default: the memory available), before reading it")


def add_wide(p: argparse.ArgumentParser) -> None:
    p.add_argument("--wide", action="store_true",
                   help="never wrap or cut: every line and table whole, however wide")


def _stdout_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def text_width(args) -> int | None:
    """Columns the lines of a tree may take on stdout: 80, or the terminal's width when stdout
    is a narrower terminal; None (whole lines) with --wide."""
    if getattr(args, "wide", False):
        return None
    if _stdout_terminal():
        return max(min(shutil.get_terminal_size((80, 24)).columns, 80), 20)
    return 80


def table_width(args) -> int | None:
    """Columns a table may take on stdout: the terminal's width, so that a wide table is cut
    into blocks there; None (whole) when stdout is a file or a pipe, or with --wide."""
    if getattr(args, "wide", False) or not _stdout_terminal():
        return None
    return max(shutil.get_terminal_size((80, 24)).columns, 20)


def add_text_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--decimals", type=decimals, default=3, metavar="D",
                   help="decimals of thresholds, weights and values (default 3)")
    p.add_argument("--counts", action="store_true",
                   help="add each leaf's non-zero class counts, largest first")
    p.add_argument("--show-depth", type=int, metavar="N",
                   help="show N levels of tests; deeper subtrees are cut (marked with …)")
    p.add_argument("--node-ids", action="store_true", help="number the nodes (for explain --node)")
    add_wide(p)


def tree_text(model, args, width: int | None = None) -> str:
    """The tree as text, long lines wrapped to ``width`` columns (``text_width`` by default)."""
    return rootwise.export_text(model, decimals=args.decimals, show_counts=args.counts,
                                node_ids=args.node_ids, max_depth=args.show_depth,
                                width=text_width(args) if width is None else width)
