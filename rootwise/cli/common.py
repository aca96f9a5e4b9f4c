"""What the commands share: the one-line user error, reading tables and models, choosing columns,
guarding and writing output files, and the arguments several commands take."""

from __future__ import annotations

import argparse
import os
import textwrap

import rootwise
from rootwise.export.atomic import open_atomic, same_file, write_atomic


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


def read_table(path: str):
    """The table of a data file (CSV, TSV, ARFF or Parquet, by extension)."""
    return rootwise.read_data(path)


def read_model(path: str):
    return rootwise.load(path)


def is_regressor(model) -> bool:
    return isinstance(model, rootwise.CARTRegressor)


def require_column(frame, path: str, column: str, why: str = "") -> None:
    if column not in frame.columns:
        shown = ", ".join(map(str, frame.columns[:12])) + (", ..." if frame.shape[1] > 12 else "")
        raise UserError(f"{path} has no column {column!r}{why} (its columns: {shown})")


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
    """Refuse an output path that is one of ``inputs`` (the same file through any path or link)
    unless --force: the command would destroy what it reads."""
    for option, out in outputs.items():
        if out is None or getattr(args, "force", False):
            continue
        for source in inputs:
            if same_file(out, source):
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
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")


def add_data_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", metavar="DATA", help="a .csv, .tsv, .arff or .parquet file")
    p.add_argument("--target", required=True, metavar="COL", help="the column to predict")
    p.add_argument("--ignore", nargs="+", action="extend", default=[], metavar="COL",
                   help="columns that are not features (e.g. an ID)")


def add_text_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--decimals", type=decimals, default=3, metavar="D",
                   help="decimals of thresholds, weights and values (default 3)")
    p.add_argument("--counts", action="store_true",
                   help="add each leaf's non-zero class counts, largest first")
    p.add_argument("--show-depth", type=int, metavar="N",
                   help="show N levels of tests; deeper subtrees are cut (marked with …)")
    p.add_argument("--node-ids", action="store_true", help="number the nodes (for explain --node)")


def tree_text(model, args) -> str:
    return rootwise.export_text(model, decimals=args.decimals, show_counts=args.counts,
                                node_ids=args.node_ids, max_depth=args.show_depth)
