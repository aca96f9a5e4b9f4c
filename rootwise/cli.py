"""Command line: rootwise fit | predict | show | explain (public API only).

    rootwise fit DATA.csv --target COL [--ignore COL ...] [--algorithm ALG] [--out MODEL.json]
                 [--max-depth N] [--min-samples-split X] [--min-samples-leaf X] [--epsilon X]
                 [--random-state N] [--decimals D] [--node-ids]
    rootwise predict MODEL.json DATA.csv [--proba] [--out FILE]
    rootwise show MODEL.json [--format text|dot|json] [--decimals D] [--node-ids]
    rootwise explain DATA.csv --target COL [--ignore COL ...] [--algorithm ALG] [--node N] [--digits D]

ALG is id3 (default), c4.5, cart or cart-regressor; each uses its textbook defaults, and an option
it does not have (say --epsilon for cart) is an error.

CSV files are read as UTF-8 (a BOM is fine); only empty cells are missing values, so a category
spelled "NA" or "None" stays a category. ``predict`` writes a CSV with a ``prediction`` column and,
with --proba, one ``P(<class>)`` column per class. A user error prints one line starting
``rootwise: error:`` and exits with status 2 (set ROOTWISE_DEBUG=1 to see the traceback).
"""

from __future__ import annotations

import argparse
import os
import sys

import pandas as pd

import rootwise
from rootwise._base import is_classifier

# --algorithm name -> estimator class; a new algorithm is one more line here
ALGORITHMS = {
    "id3": rootwise.ID3Classifier,
    "c4.5": rootwise.C45Classifier,
    "cart": rootwise.CARTClassifier,
    "cart-regressor": rootwise.CARTRegressor,
}

def number(text: str):
    """An int when written as one (so integer parameters keep their type), else a float."""
    try:
        return int(text)
    except ValueError:
        return float(text)


# tree options shared by fit and explain: (flag, estimator parameter, parser, metavar, help)
TREE_OPTIONS = [
    ("--max-depth", "max_depth", int, "N", "grow at most N levels below the root"),
    ("--min-samples-split", "min_samples_split", number, "X", "do not split a node lighter than X"),
    ("--min-samples-leaf", "min_samples_leaf", number, "X", "every non-empty branch needs weight X"),
    ("--epsilon", "epsilon", float, "X", "a node whose best gain is below X becomes a leaf"),
    ("--random-state", "random_state", int, "N", "seed of the random folds / held-out rows of pruning"),
    ("--pruning", "pruning", str, "P", "none, pre or reduced-error (judged on held-out rows), "
     "error-based (c4.5), cost-complexity (cart); default: the algorithm's own"),
    ("--validation-fraction", "validation_fraction", float, "X",
     "share of the rows held out to judge pre / reduced-error pruning (default 0.3)"),
]


class UserError(Exception):
    """A mistake in the command or its files: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line instead of usage + message, like every other user error
        raise UserError(f"{message} (see '{self.prog} --help')")


# --------------------------------------------------------------------------- commands


def _fit(args) -> int:
    frame = _read_csv(args.data)
    X, y = _split(frame, args.data, args.target, args.ignore)
    model = _estimator(args).fit(X, y)
    text = rootwise.export_text(model, decimals=args.decimals, node_ids=args.node_ids)
    if args.explain_pruning:  # before saving: a model without pruning decisions is an error
        text += "\n" + rootwise.pruning_report(model, digits=args.decimals)
    if args.out:  # first, so that a failed save prints nothing but the error
        rootwise.save(model, args.out)
    sys.stdout.write(text)
    return 0


def _predict(args) -> int:
    model = rootwise.load(args.model)
    frame = _read_csv(args.data)
    X = _model_columns(model, frame, args.data)
    if args.proba and not hasattr(model, "predict_proba"):
        raise UserError(f"--proba needs a classifier; {args.model} holds a {type(model).__name__}")
    out = pd.DataFrame({"prediction": model.predict(X)})
    if args.proba:
        for label, column in zip(model.classes_, model.predict_proba(X).T, strict=True):
            out[f"P({label})"] = column
    if args.out:
        out.to_csv(args.out, index=False, encoding="utf-8", lineterminator="\n")
    else:
        sys.stdout.write(out.to_csv(index=False, lineterminator="\n"))
    return 0


def _show(args) -> int:
    model = rootwise.load(args.model)
    if args.format == "text":
        text = rootwise.export_text(model, decimals=args.decimals, node_ids=args.node_ids)
    elif args.format == "dot":
        text = rootwise.export_graphviz(model, decimals=args.decimals)
    else:  # the file itself, once load has checked it
        with open(args.model, encoding="utf-8-sig") as f:
            text = f.read()
    sys.stdout.write(text)
    return 0


def _explain(args) -> int:
    frame = _read_csv(args.data)
    X, y = _split(frame, args.data, args.target, args.ignore)
    model = _estimator(args)
    if not is_classifier(model):  # the table holds entropies and gini indices of class counts
        raise UserError(f"explain needs a classification algorithm, not {args.algorithm}")
    table = rootwise.explain(X, y, model, node=args.node)
    print(rootwise.format_table(table, digits=args.digits))
    return 0


# --------------------------------------------------------------------------- helpers


def _read_csv(path: str) -> pd.DataFrame:
    try:
        frame = pd.read_csv(path, encoding="utf-8-sig", keep_default_na=False, na_values=[""])
    except pd.errors.EmptyDataError:
        raise UserError(f"{path}: the file is empty") from None
    except UnicodeDecodeError as e:
        raise UserError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except pd.errors.ParserError as e:
        raise UserError(f"{path}: not a readable CSV file ({str(e).strip()})") from None
    if frame.shape[0] == 0:
        raise UserError(f"{path}: no data rows below the header")
    return frame


def _split(frame: pd.DataFrame, path: str, target: str, ignore: list[str]):
    for column in [target, *ignore]:
        _require_column(frame, path, column)
    if target in ignore:
        raise UserError(f"column {target!r} is both the --target and in --ignore")
    X = frame.drop(columns=[target, *ignore])
    if X.shape[1] == 0:
        raise UserError(f"{path}: no feature columns left besides --target and --ignore")
    return X, frame[target]


def _require_column(frame: pd.DataFrame, path: str, column: str, why: str = "") -> None:
    if column not in frame.columns:
        shown = ", ".join(map(str, frame.columns[:12])) + (", ..." if frame.shape[1] > 12 else "")
        raise UserError(f"{path} has no column {column!r}{why} (its columns: {shown})")


def _model_columns(model, frame: pd.DataFrame, path: str) -> pd.DataFrame:
    """The model's feature columns of ``frame``, by name (other columns are ignored)."""
    names = getattr(model, "feature_names_in_", None)
    if names is None:  # fitted on an unnamed table: columns are taken in order
        if frame.shape[1] != model.n_features_in_:
            raise UserError(f"the model was fitted without column names, so {path} must have "
                            f"exactly its {model.n_features_in_} columns, in order; it has "
                            f"{frame.shape[1]}")
        return frame.set_axis(range(frame.shape[1]), axis=1)
    for name in names:
        _require_column(frame, path, name, ", which the model uses")
    return frame[list(names)]


def _estimator(args):
    cls = ALGORITHMS[args.algorithm]
    accepted = cls().get_params()
    params = {}
    for flag, param, *_ in TREE_OPTIONS:
        value = getattr(args, param)
        if value is None:
            continue
        if param not in accepted:
            raise UserError(f"{flag} is not an option of {args.algorithm}")
        params[param] = value
    if params.get("pruning") == "none":
        params["pruning"] = None
    return cls(**params)


# --------------------------------------------------------------------------- parser


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rootwise", description="Classic decision trees (ID3, C4.5, CART).")
    parser.add_argument("--version", action="version", version=f"rootwise {rootwise.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    fit = commands.add_parser("fit", help="grow a tree on a CSV table and print it")
    _data_options(fit)
    fit.add_argument("--out", metavar="MODEL.json", help="save the fitted model to this file")
    fit.add_argument("--explain-pruning", action="store_true",
                     help="after the tree, print every pruning decision (pre / reduced-error: the "
                          "validation score with the node as a leaf and as a subtree; "
                          "cost-complexity: the CP table)")
    _print_options(fit)
    fit.set_defaults(run=_fit)

    predict = commands.add_parser(
        "predict", help="predict the rows of a CSV table",
        description="Write a CSV with a 'prediction' column (and with --proba one 'P(<class>)' "
                    "column per class), one row per input row, in input order. The model's "
                    "columns are picked by name; other columns (target, IDs) are ignored.")
    predict.add_argument("model", metavar="MODEL.json")
    predict.add_argument("data", metavar="DATA.csv")
    predict.add_argument("--proba", action="store_true", help="add class probabilities")
    predict.add_argument("--out", metavar="FILE", help="write the CSV here instead of stdout")
    predict.set_defaults(run=_predict)

    show = commands.add_parser("show", help="print a saved model")
    show.add_argument("model", metavar="MODEL.json")
    show.add_argument("--format", choices=["text", "dot", "json"], default="text",
                      help="indented text (default), graphviz DOT, or the JSON file once checked")
    _print_options(show)
    show.set_defaults(run=_show)

    explain = commands.add_parser(
        "explain", help="table of gains / gain ratios / gini of every attribute at a node")
    _data_options(explain)
    explain.add_argument("--node", type=int, default=0, metavar="N",
                         help="node number, as shown by 'fit --node-ids' (default: the root)")
    explain.add_argument("--digits", type=int, default=3, metavar="D", help="decimals shown")
    explain.set_defaults(run=_explain)
    return parser


def _data_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", metavar="DATA.csv")
    p.add_argument("--target", required=True, metavar="COL", help="the class column")
    p.add_argument("--ignore", nargs="+", action="extend", default=[], metavar="COL",
                   help="columns that are not features (e.g. an ID)")
    p.add_argument("--algorithm", choices=list(ALGORITHMS), default="id3",
                   help="which tree to grow (default: id3, each with its textbook defaults)")
    for flag, param, parse, metavar, help_text in TREE_OPTIONS:
        p.add_argument(flag, dest=param, type=parse, metavar=metavar, help=help_text)


def _print_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--decimals", type=int, default=3, metavar="D",
                   help="decimals of thresholds and fractional counts")
    p.add_argument("--node-ids", action="store_true", help="number the nodes (for explain --node)")


# --------------------------------------------------------------------------- entry point


def main(argv=None) -> int:
    """Run the command line; returns the exit status."""
    try:
        args = _parser().parse_args(argv)
        return args.run(args)
    except SystemExit as e:  # --help and --version
        return e.code if isinstance(e.code, int) else 0
    except (UserError, OSError, ValueError) as e:
        if os.environ.get("ROOTWISE_DEBUG"):
            raise
        print(f"rootwise: error: {_message(e)}", file=sys.stderr)
        return 2


def _message(e: Exception) -> str:
    if isinstance(e, OSError) and e.filename is not None and e.strerror:
        return f"{e.filename}: {e.strerror}"
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    return "; ".join(lines) or type(e).__name__


if __name__ == "__main__":
    raise SystemExit(main())
