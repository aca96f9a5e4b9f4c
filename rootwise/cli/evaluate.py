"""rootwise evaluate: a saved model's scores on a labelled table."""

from __future__ import annotations

import json
import sys

import pandas as pd

from . import scores
from .common import (
    UserError,
    add_command,
    add_file_options,
    add_force,
    add_missing_target,
    add_quiet,
    add_wide,
    decimals,
    guard_outputs,
    is_regressor,
    model_columns,
    note,
    read_model,
    read_table,
    require_column,
    table_width,
    write_text,
)
from .progress import Progress

EXAMPLE = "rootwise evaluate melon.json watermelon_test.csv --target 好瓜 --json scores.json"


def add(commands) -> None:
    p = add_command(commands, "evaluate", help="score a saved model on a labelled table",
                    example=EXAMPLE,
                    description="Classifier: accuracy, kappa, precision / recall / F1 per class "
                                "and the confusion matrix. Regressor: RMSE, MAE and R².")
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("data", metavar="DATA", help="a .csv, .tsv, .arff or .parquet file")
    add_file_options(p)
    p.add_argument("--target", metavar="COL",
                   help="the column of true values (default: the last column the model does "
                        "not use, as Weka takes the last attribute, unless it holds IDs)")
    add_missing_target(p)
    p.add_argument("--json", metavar="FILE", help="also write the scores to this JSON file")
    p.add_argument("--digits", type=decimals, default=3, metavar="D", help="decimals shown")
    add_wide(p)
    add_force(p)
    add_quiet(p)
    p.set_defaults(run=run)


def target_column(model, frame, path: str, target: str | None) -> str:
    """--target, else the last column the model does not use (as Weka takes the last attribute),
    unless it is plainly not the target: for a classifier, mostly values that are not its
    classes; for a regressor, row numbers (an ID column)."""
    if target is not None:
        require_column(frame, path, target)
        return target
    names = getattr(model, "feature_names_in_", None)
    used = set() if names is None else set(map(str, names))
    rest = [c for c in frame.columns if str(c) not in used]
    if not rest:
        raise UserError(f"{path}: every column is a feature of the model; which holds the true "
                        f"values? (give --target COL)")
    column = rest[-1]
    if is_regressor(model) and _row_numbers(frame[column]):
        raise UserError(f"{path}: column {column!r}, the last one the model does not use, holds "
                        f"row numbers ({frame[column].min()} to {frame[column].max()}, each "
                        f"once), not true values; give --target COL")
    if not is_regressor(model):
        values = frame[column].dropna()
        foreign = values[~values.isin(pd.Index(list(model.classes_)))]
        if 2 * len(foreign) > len(values):  # mostly not classes: an ID, not the true classes
            shown = ", ".join(map(str, model.classes_[:8])) + (", ..." if len(model.classes_) > 8
                                                               else "")
            raise UserError(f"{path}: column {column!r} is the last one the model does not use, "
                            f"but {len(foreign)} of its {len(values)} values are not classes of "
                            f"the model (e.g. {_plain(foreign.iloc[0])!r}; its classes: {shown}); "
                            f"give --target COL, the column of true classes")
    return column


def _row_numbers(column) -> bool:
    """Whether a column holds whole numbers, each once, from its least to its greatest."""
    values = pd.to_numeric(column, errors="coerce")
    if len(values) < 3 or values.isna().any() or (values != values.round()).any():
        return False
    return values.is_unique and values.max() - values.min() == len(values) - 1


def _plain(value):
    """A numpy scalar as the Python value it holds (its repr is then the file's text)."""
    return value.item() if hasattr(value, "item") else value


def true_values(args, model, frame, path: str, column: str):
    """(the rows with a true value, their true values): rows without one are left out with a
    note, or refused with --no-drop-missing-target."""
    y = frame[column]
    missing = int(y.isna().sum())
    if missing and not args.drop_missing_target:
        raise UserError(f"{path}: column {column!r} has {missing} missing values; evaluate needs "
                        f"the true value of every row (--drop-missing-target leaves them out)")
    if missing == len(y):
        raise UserError(f"{path}: column {column!r} has no value in any row")
    if missing:
        note(args, f"left out {missing:,} of {len(y):,} rows of {path} whose true value "
                   f"({column!r}) is missing (--no-drop-missing-target refuses them)")
        frame, y = frame[y.notna()], y[y.notna()]
    if is_regressor(model):
        numbers = pd.to_numeric(y, errors="coerce")
        if numbers.isna().any():
            bad = y[numbers.isna()].iloc[0]
            raise UserError(f"{path}: column {column!r} holds {bad!r}, not a number; a regressor "
                            f"is scored on numbers")
        return frame, numbers.to_numpy(dtype=float)
    return frame, y.to_numpy(dtype=object)


def run(args) -> int:
    guard_outputs(args, {"--json": args.json}, [args.model, args.data])
    model = read_model(args.model)
    frame = read_table(args, model)
    column = target_column(model, frame, args.data, args.target)
    frame, y = true_values(args, model, frame, args.data, column)
    X = model_columns(model, frame, args.data)
    with Progress(args, f"predicting {X.shape[0]:,} rows"):
        predicted = model.predict(X)
    if is_regressor(model):
        result = scores.regression(y, predicted)
        text = scores.format_regression(result, args.digits)
    else:
        result = scores.classification(y, predicted, list(model.classes_))
        text = scores.format_classification(result, args.digits, table_width(args))
    head = f"{args.model} on {args.data} (true values: column {column!r})\n\n"
    if args.json:
        document = {"model": args.model, "data": args.data, "target": str(column), **result}
        write_text(args.json, json.dumps(document, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.write(head + text)
    return 0
