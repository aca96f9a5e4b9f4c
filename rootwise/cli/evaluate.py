"""rootwise evaluate: a saved model's scores on a labelled table."""

from __future__ import annotations

import json
import sys

import pandas as pd

from . import scores
from .common import (
    UserError,
    add_command,
    add_force,
    add_quiet,
    decimals,
    guard_outputs,
    is_regressor,
    model_columns,
    read_model,
    read_table,
    require_column,
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
    p.add_argument("--target", metavar="COL",
                   help="the column of true values (default: the last column the model does "
                        "not use, as Weka takes the last attribute)")
    p.add_argument("--json", metavar="FILE", help="also write the scores to this JSON file")
    p.add_argument("--digits", type=decimals, default=3, metavar="D", help="decimals shown")
    add_force(p)
    add_quiet(p)
    p.set_defaults(run=run)


def target_column(model, frame, path: str, target: str | None) -> str:
    if target is not None:
        require_column(frame, path, target)
        return target
    names = getattr(model, "feature_names_in_", None)
    used = set() if names is None else set(map(str, names))
    rest = [c for c in frame.columns if str(c) not in used]
    if not rest:
        raise UserError(f"{path}: every column is a feature of the model; which holds the true "
                        f"values? (give --target COL)")
    return rest[-1]


def true_values(model, frame, path: str, column: str):
    y = frame[column]
    missing = int(y.isna().sum())
    if missing:
        raise UserError(f"{path}: column {column!r} has {missing} missing values; evaluate needs "
                        f"the true value of every row")
    if is_regressor(model):
        numbers = pd.to_numeric(y, errors="coerce")
        if numbers.isna().any():
            bad = y[numbers.isna()].iloc[0]
            raise UserError(f"{path}: column {column!r} holds {bad!r}, not a number; a regressor "
                            f"is scored on numbers")
        return numbers.to_numpy(dtype=float)
    return y.to_numpy(dtype=object)


def run(args) -> int:
    guard_outputs(args, {"--json": args.json}, [args.model, args.data])
    model = read_model(args.model)
    frame = read_table(args.data)
    column = target_column(model, frame, args.data, args.target)
    y = true_values(model, frame, args.data, column)
    X = model_columns(model, frame, args.data)
    with Progress(args, f"predicting {X.shape[0]:,} rows"):
        predicted = model.predict(X)
    if is_regressor(model):
        result = scores.regression(y, predicted)
        text = scores.format_regression(result, args.digits)
    else:
        result = scores.classification(y, predicted, list(model.classes_))
        text = scores.format_classification(result, args.digits)
    head = f"{args.model} on {args.data} (true values: column {column!r})\n\n"
    if args.json:
        document = {"model": args.model, "data": args.data, "target": str(column), **result}
        write_text(args.json, json.dumps(document, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.write(head + text)
    return 0
