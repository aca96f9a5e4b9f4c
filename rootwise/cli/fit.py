"""rootwise fit: grow a tree on a table, print it with its size and training score, save it."""

from __future__ import annotations

import sys

import rootwise
from rootwise.choose import MAX_CLASS_CODES

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
from .options import add_estimator_options, choose_algorithm, make_estimator, seed_note
from .progress import Progress, note

EXAMPLE = "rootwise fit watermelon_2.0.csv --target 好瓜 --ignore 编号 --out melon.json"


def add(commands) -> None:
    p = add_command(commands, "fit", help="grow a tree on a table and print it", example=EXAMPLE,
                    description="Grow a tree on a table, print it, then its size and its score on "
                                "the training rows (as J48 does); --out saves the model. Without "
                                "--algorithm the target decides, as in rpart: a regression tree "
                                "(cart-regressor) for numbers, a classification tree (cart) for "
                                "classes; a note on stderr says which and why.")
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
    """The estimator of the command line, fitted on X, y with a progress line (which names the
    algorithm). ``args.notes`` gets what ``say_notes`` prints once the command has done its
    work (so that a failed command prints only its error line): why --algorithm auto chose
    the algorithm, the seed of a fit that draws at random, and ID3's branch per number."""
    chosen = choose_algorithm(args, y)
    model = make_estimator(args, y)
    with Progress(args, progress_message(args.algorithm, model, X, args.chosen_kind)):
        model.fit(X, y)
    args.notes = [line for line in (chosen, seed_note(args, model), id3_note(model)) if line]
    return model


def say_notes(args) -> None:
    for line in getattr(args, "notes", []):
        note(args, line)


def id3_note(model) -> str | None:
    """ID3 has no thresholds: every distinct value of a numeric column is a branch of its own,
    which grows a leaf per training value and a training accuracy near 1. Say so when a numeric
    column has many values, with the algorithms that split numbers at a threshold."""
    if not isinstance(model, rootwise.ID3Classifier):
        return None
    many = [(name, len(cats)) for name, cats in zip(model.schema_.feature_names,
                                                      model.schema_.categories, strict=True)
            if cats and len(cats) > MAX_CLASS_CODES and all(isinstance(c, float) for c in cats)]
    if not many:
        return None
    shown = ", ".join(f"{name} {n}" for name, n in many[:3]) + (", ..." if len(many) > 3 else "")
    return (f"id3 makes a branch of every value of a numeric column (values: {shown}); "
            f"--algorithm c4.5 or cart splits numbers at a threshold")


def progress_message(algorithm: str, model, X, why: str | None = None) -> str:
    """"fitting cart on 768 x 8 with 10-fold CV" (rows x columns; the CV chooses alpha): with
    "rootwise: " and the time, 80 columns hold it up to 10^8 rows. ``why``: what the target
    holds, when that chose the algorithm ("fitting cart-regressor (target: fractions) on ...");
    ``Progress`` cuts what does not fit."""
    chosen = f" (target: {why})" if why else ""
    what = f"fitting {algorithm}{chosen} on {X.shape[0]:,} x {X.shape[1]}"
    params = model.get_params(deep=False)
    if params.get("pruning") == "cost-complexity" and isinstance(params.get("ccp_alpha"), str):
        folds = params["cv"] if isinstance(params["cv"], int) else "K"
        what += f" with {folds}-fold CV"
    return what


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
    say_notes(args)
    sys.stdout.write(text)
    return 0
