"""rootwise fit: grow a tree on a table, print it with its size and training score, save it."""

from __future__ import annotations

import sys

import rootwise

from . import scores
from .common import (
    UserError,
    add_command,
    add_data_arguments,
    add_force,
    add_quiet,
    add_text_options,
    guard_outputs,
    is_regressor,
    training_table,
    tree_text,
)
from .options import add_estimator_options, make_estimator
from .progress import Progress

EXAMPLE = "rootwise fit watermelon_2.0.csv --target 好瓜 --ignore 编号 --out melon.json"


def add(commands) -> None:
    p = add_command(commands, "fit", help="grow a tree on a table and print it", example=EXAMPLE,
                    description="Grow a tree on a table, print it, then its size and its score on "
                                "the training rows (as J48 does); --out saves the model.")
    add_data_arguments(p)
    p.add_argument("--out", metavar="MODEL.json", help="save the fitted model to this file")
    p.add_argument("--explain-pruning", action="store_true",
                   help="after the tree, print every pruning decision (pre / reduced-error: the "
                        "validation score with the node as a leaf and as a subtree; "
                        "cost-complexity: the CP table)")
    add_text_options(p)
    add_force(p)
    add_quiet(p)
    add_estimator_options(p)
    p.set_defaults(run=run)


def fit_model(args, X, y):
    """The estimator of the command line, fitted on X, y with a progress line."""
    model = make_estimator(args, y)
    what = f"fitting {args.algorithm} on {X.shape[0]:,} rows x {X.shape[1]} columns"
    params = model.get_params(deep=False)
    if params.get("pruning") == "cost-complexity" and isinstance(params.get("ccp_alpha"), str):
        what += f", choosing ccp_alpha by {params['cv']}-fold cross-validation"
    with Progress(args, what):
        return model.fit(X, y)


def size_line(model) -> str:
    tree = model.tree_
    return f"{tree.n_leaves} leaves, {tree.node_count} nodes, depth {tree.max_depth}"


def training_score(model, X, y) -> dict:
    if is_regressor(model):
        return scores.regression(y, model.predict(X))
    return scores.classification(y, model.predict(X), list(model.classes_))


def run(args) -> int:
    guard_outputs(args, {"--out": args.out}, [args.data])
    X, y = training_table(args)
    model = fit_model(args, X, y)
    text = tree_text(model, args)
    if args.explain_pruning:  # before saving: a model without pruning decisions is an error
        text += "\n" + rootwise.pruning_report(model, digits=args.decimals)
    text += f"\n{size_line(model)}\ntraining {scores.one_line(training_score(model, X, y))}\n"
    if args.out:  # first, so that a failed save prints nothing but the error
        try:
            rootwise.save(model, args.out)
        except TypeError as e:  # a parameter the model file cannot hold
            raise UserError(f"{args.out}: {e}") from None
    sys.stdout.write(text)
    return 0
