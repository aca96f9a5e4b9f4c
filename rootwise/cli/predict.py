"""rootwise predict: one prediction per row of a table, as CSV."""

from __future__ import annotations

import sys

import pandas as pd

from .common import (
    UserError,
    add_command,
    add_file_options,
    add_force,
    add_quiet,
    guard_outputs,
    is_regressor,
    model_columns,
    open_output,
    read_model,
    read_table,
)
from .progress import Progress

EXAMPLE = "rootwise predict melon.json new_melons.csv --proba --out predictions.csv"


def add(commands) -> None:
    p = add_command(commands, "predict", help="predict the rows of a table", example=EXAMPLE,
                    description="Write a CSV with a 'prediction' column (and with --proba one "
                                "'P(<class>)' column per class), one row per input row, in input "
                                "order. The model's columns are picked by name; other columns "
                                "(target, IDs) are ignored.")
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("data", metavar="DATA", help="a .csv, .tsv, .arff or .parquet file")
    add_file_options(p)
    p.add_argument("--proba", action="store_true", help="add class probabilities")
    p.add_argument("--out", metavar="FILE", help="write the CSV here instead of stdout")
    add_force(p)
    add_quiet(p)
    p.set_defaults(run=run)


def run(args) -> int:
    guard_outputs(args, {"--out": args.out}, [args.model, args.data])
    model = read_model(args.model)
    frame = read_table(args, model)
    X = model_columns(model, frame, args.data)
    if args.proba and is_regressor(model):
        raise UserError(f"--proba needs a classifier; {args.model} holds a {type(model).__name__}")
    with Progress(args, f"predicting {X.shape[0]:,} rows"):
        out = pd.DataFrame({"prediction": model.predict(X)})
        if args.proba:
            for label, column in zip(model.classes_, model.predict_proba(X).T, strict=True):
                out[f"P({label})"] = column
    if args.out:
        with Progress(args, f"writing {args.out}"), open_output(args.out, newline="") as f:
            out.to_csv(f, index=False, lineterminator="\n")
    else:
        sys.stdout.write(out.to_csv(index=False, lineterminator="\n"))
    return 0
