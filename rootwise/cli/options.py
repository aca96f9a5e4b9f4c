"""The estimator options of fit / cv / report / explain, made from the estimators' own parameters.

Every parameter of every estimator (``get_params``) becomes the flag ``--name-with-dashes``
(``categorical_features`` is ``--categorical``), so a parameter added to an estimator is
reachable from the command line without touching this file; ``HELP`` says what each one does
(a test checks that it covers them all). Values are parsed as the command line writes them:
``none`` is None, integers stay integers, other numbers are floats, anything else is text; a
boolean parameter is a ``--name`` / ``--no-name`` pair. The estimator checks the value itself,
so its error message names the parameter and what it accepts.
"""

from __future__ import annotations

import argparse
import difflib
import re

import rootwise
from rootwise.choose import MAX_CLASS_CODES, target_kind

from .common import UserError

# --algorithm name -> estimator class; a new algorithm is one more line here
ALGORITHMS = {
    "id3": rootwise.ID3Classifier,
    "c4.5": rootwise.C45Classifier,
    "cart": rootwise.CARTClassifier,
    "cart-regressor": rootwise.CARTRegressor,
}
# names that are an algorithm with some parameters set: Weka's J48 is C4.5 release 8
PRESETS = {"j48": ("c4.5", {"release8": True})}
AUTO = "auto"
# what users write, once lower-cased and stripped of everything but letters and digits
# (C4.5, c45, c-4.5 and C45Classifier are one name)
SPELLINGS = {
    "id3": "id3", "id3classifier": "id3",
    "c45": "c4.5", "c45classifier": "c4.5",
    "j48": "j48", "c45release8": "j48", "c45r8": "j48",
    "cart": "cart", "cartclassifier": "cart", "cartclassification": "cart",
    "cartregressor": "cart-regressor", "cartregression": "cart-regressor",
    "auto": AUTO,
}
NAMES = [*ALGORITHMS, *PRESETS, AUTO]

FLAGS = {"categorical_features": "--categorical", "monotonic_cst": "--monotonic"}
ALIASES = {"random_state": ["--seed"], "monotonic_cst": ["--monotonic-cst"]}

HELP = {
    "categorical_features": "columns to treat as categorical although they hold numbers "
                            "(a numeric code column is otherwise continuous)",
    "ccp_alpha": "cost-complexity alpha: a number, cv-min or cv-1se (chosen by cross-validation)",
    "ccp_cost": "cost of a node in weakest-link pruning: misclassification (Breiman's, rpart's) "
                "or impurity (scikit-learn's)",
    "class_order": "the classes in the order class ties go by (J48: the declared order); "
                   "default: a categorical target's order, else sorted",
    "class_weight": "balanced, or weights per class as CLASS=W[,CLASS=W...]",
    "confidence": "confidence factor of C4.5's error-based pruning (0 < CF < 1)",
    "criterion": "split criterion: gini, entropy or log_loss (entropy's other name); "
                 "squared_error, poisson or absolute_error (cart-regressor)",
    "cp": "rpart's complexity parameter: do not split a node costing at most X x the root's, "
          "prune at alpha >= X x R(root) (rpart's default 0.01; 0 grows the whole tree; none: "
          "1e-4 when alpha is chosen by CV on 10,000 rows or more, else 0)",
    "cv": "folds of the cross-validation that chooses ccp_alpha",
    "cv_repeats": "repeats of that cross-validation with new fold draws, errors averaged "
                  "(default: 3 below 10,000 rows, else 1)",
    "epsilon": "a node whose best gain (ratio) is below X becomes a leaf",
    "impurity_threshold": "a node whose impurity is below X is not split",
    "leaf_value": "what a regression leaf predicts: mean or median (default: median for "
                  "absolute_error, else mean)",
    "loss": "loss matrix (rpart's parms loss): a row of costs per true class, classes sorted, "
            "as 0,1;3,0 (the 1st class predicted as the 2nd costs 1), or "
            "TRUE:PREDICTED=COST[,...] (other pairs cost 1)",
    "max_bins": "bins per continuous column for --splitter hist (2..255)",
    "max_depth": "grow at most N levels below the root",
    "max_exhaustive": "try every category partition up to this many categories (CART, >2 classes)",
    "max_leaf_nodes": "grow best-first up to N leaves",
    "max_surrogates": "surrogate splits kept per node for missing values",
    "monotonic_cst": "monotonic constraints as COL=S[,COL=S...], S = 1 (the prediction may only "
                     "rise with the column; a classifier's: the second class's probability), -1 "
                     "(only fall) or 0",
    "min_impurity_decrease": "a split must lower the weighted impurity by at least X",
    "min_samples_leaf": "every branch needs at least N rows (c4.5: this weight); a number in "
                        "(0, 1) is a fraction of the training rows",
    "min_samples_split": "do not split a node of fewer than N rows (c4.5: lighter than N); a "
                         "number in (0, 1) is a fraction of the training rows",
    "min_weight_fraction_leaf": "every branch needs at least this fraction of the total sample "
                                "weight (0 to 0.5)",
    "n_jobs": "threads for split search and prediction (results do not depend on it)",
    "prune_on_tie": "prune when validation accuracy is unchanged (pre / reduced-error pruning)",
    "pruning": "none, pre, reduced-error, error-based (c4.5) or cost-complexity (cart); "
               "default: the algorithm's own",
    "random_state": "seed of the folds and held-out rows (and, for cv, of the folds it scores); "
                    "default 0, so that every run grows the same tree",
    "release8": "C4.5 release 8 as Weka's J48 grows it",
    "splitter": "exact, or hist (binned split search, for large tables)",
    "subtree_raising": "let error-based pruning replace a node by its largest branch",
    "validation_fraction": "share of the rows held out to judge pre / reduced-error pruning",
}

METAVARS = {"categorical_features": "COL", "class_order": "CLASS", "cv_repeats": "R",
            "class_weight": "W", "max_depth": "N", "cv": "K",
            "n_jobs": "N", "random_state": "N", "max_leaf_nodes": "N", "max_bins": "N",
            "max_surrogates": "N", "max_exhaustive": "N", "criterion": "NAME", "splitter": "NAME",
            "leaf_value": "NAME", "pruning": "NAME", "ccp_alpha": "A",
            "monotonic_cst": "COL=S", "loss": "L"}


def parameters() -> dict[str, tuple[list[str], object]]:
    """Parameter name -> (the algorithms that have it, its default in the first of them)."""
    out: dict[str, tuple[list[str], object]] = {}
    for name, cls in ALGORITHMS.items():
        for param, default in cls().get_params(deep=False).items():
            if param not in out:
                out[param] = ([], default)
            out[param][0].append(name)
    return dict(sorted(out.items()))


def flag(param: str) -> str:
    return FLAGS.get(param, "--" + param.replace("_", "-"))


def value(text: str):
    """A command-line value as a parameter: none -> None, integers as int, numbers as float,
    anything else as text."""
    if text.lower() == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def class_weights(text: str):
    """"balanced" or CLASS=W,CLASS=W -> {CLASS (as written): W}."""
    if text in ("balanced", "none"):
        return None if text == "none" else text
    out = {}
    for item in text.split(","):
        label, sep, weight = item.rpartition("=")
        try:
            out[label] = float(weight)
        except ValueError:
            sep = ""
        if not sep or not label:
            raise argparse.ArgumentTypeError(f"expected balanced or CLASS=W[,CLASS=W...], got {text!r}")
    return out


def monotonic_constraints(text: str):
    """COL=S,COL=S (S: -1, 0 or 1) -> {COL: S}; none -> None."""
    if text == "none":
        return None
    out = {}
    for item in text.split(","):
        name, sep, sign = item.rpartition("=")
        if not sep or not name or sign.strip() not in ("-1", "0", "1", "+1"):
            raise argparse.ArgumentTypeError(f"expected COL=S[,COL=S...] with S one of -1, 0, 1, "
                                             f"got {item!r} in {text!r}")
        out[name] = int(sign)
    return out


def loss_matrix(text: str):
    """A --loss value: ``0,1;3,0`` (rows: the true classes in sorted order, ';' between rows)
    -> a list of rows of costs; ``TRUE:PRED=COST,...`` -> {TRUE: {PRED: COST}} (class names
    as written, turned into labels by ``make_estimator``); ``none`` -> None."""
    if text == "none":
        return None
    if "=" in text:
        out: dict = {}
        for item in text.split(","):
            pair, sep, cost = item.rpartition("=")
            truth, colon, pred = pair.rpartition(":")
            try:
                number = float(cost)
            except ValueError:
                sep = ""
            if not (sep and colon and truth and pred):
                raise argparse.ArgumentTypeError(
                    f"expected TRUE:PREDICTED=COST[,TRUE:PREDICTED=COST...] or rows of costs "
                    f"such as 0,1;3,0, got {item!r} in {text!r}")
            out.setdefault(truth, {})[pred] = number
        return out
    try:
        return [[float(c) for c in row.split(",")] for row in text.split(";")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected rows of costs such as 0,1;3,0 (one row per "
                                         f"true class, classes sorted) or TRUE:PREDICTED=COST "
                                         f"pairs, got {text!r}") from None


def algorithm(text: str) -> str:
    """An --algorithm value as its name in ``NAMES``: any case, with or without dots, dashes
    and underscores (C4.5, c45, J48, CART, cart_regressor, CARTRegressor); an unknown one is an
    error naming the closest (difflib)."""
    key = re.sub(r"[^0-9a-z]", "", text.lower())
    if key in SPELLINGS:
        return SPELLINGS[key]
    close = difflib.get_close_matches(key, list(SPELLINGS), n=1, cutoff=0.6)
    hint = f"; did you mean {SPELLINGS[close[0]]}?" if close else ""
    raise argparse.ArgumentTypeError(f"unknown algorithm {text!r}{hint} (the algorithms: "
                                     f"{', '.join(NAMES)}, in any case)")


ALGORITHM_HELP = (
    "id3, c4.5, j48 (C4.5 release 8, as Weka's J48), cart or cart-regressor, in any case. "
    "Default auto, the method rpart would choose: cart-regressor when the target is numeric "
    f"and holds a number with a fraction or more than {MAX_CLASS_CODES} distinct whole numbers, "
    "else cart (text, categories, booleans, or a few whole numbers taken as class codes)")


def add_estimator_options(p: argparse.ArgumentParser) -> None:
    """--algorithm and one flag per estimator parameter."""
    p.add_argument("--algorithm", type=algorithm, default=AUTO, metavar="ALG", help=ALGORITHM_HELP)
    group = p.add_argument_group("tree options (estimator parameters; default: the algorithm's own)")
    for param, (algorithms, default) in parameters().items():
        which = "" if len(algorithms) == len(ALGORITHMS) else f" [{', '.join(algorithms)}]"
        text = HELP.get(param, f"the estimators' {param}") + which
        flags = [flag(param), *ALIASES.get(param, [])]
        # SUPPRESS: an option not given leaves no attribute, so a given "none" (None) counts
        if param in ("categorical_features", "class_order"):
            group.add_argument(*flags, dest=param, nargs="+", action="extend",
                               metavar=METAVARS[param], default=argparse.SUPPRESS, help=text)
        elif isinstance(default, bool):
            group.add_argument(*flags, dest=param, action=argparse.BooleanOptionalAction,
                               default=argparse.SUPPRESS, help=text)
        else:
            parse = {"class_weight": class_weights,
                     "monotonic_cst": monotonic_constraints,
                     "loss": loss_matrix}.get(param, value)
            group.add_argument(*flags, dest=param, type=parse, default=argparse.SUPPRESS,
                               metavar=METAVARS.get(param, "X"), help=text)


def choose_algorithm(args, y) -> str | None:
    """Put the algorithm in ``args.algorithm``: with auto, the one the target ``y`` asks for
    (``rootwise.choose``), returning the note that says which and why; a named one is checked
    against the target (a classifier cannot learn numbers with fractions, a regressor cannot
    learn text) and returns None."""
    kind = target_kind(y)
    column = f"column {args.target!r}"
    if args.algorithm == AUTO:
        args.algorithm = "cart-regressor" if kind.regression else "cart"
        args.chosen_because = f"{column} {kind.reason}"
        args.chosen_kind = kind.kind
        return f"{args.algorithm}, as {args.chosen_because} (--algorithm to choose another)"
    args.chosen_because = args.chosen_kind = None
    regressor = args.algorithm == "cart-regressor"
    if not regressor and kind.kind == "fractions":
        raise UserError(f"{column} {kind.reason}, and {args.algorithm} learns classes: use "
                        f"--algorithm cart-regressor for a regression tree")
    if regressor and kind.kind == "text":
        raise UserError(f"{column} holds text, and cart-regressor learns numbers: use "
                        f"--algorithm cart (or another classifier) for a classification tree")
    return None


def chosen_parameters(args) -> dict:
    """The estimator parameters given on the command line, over those of a preset name (j48);
    an error for one the chosen algorithm does not have."""
    base, preset = PRESETS.get(args.algorithm, (args.algorithm, {}))
    accepted = ALGORITHMS[base]().get_params(deep=False)
    params = dict(preset)
    for param, (algorithms, _) in parameters().items():
        if not hasattr(args, param):
            continue
        given = getattr(args, param)
        if param not in accepted:
            why = (f"; {args.algorithm} was chosen as {args.chosen_because}: give --algorithm"
                   if getattr(args, "chosen_because", None) else "")
            raise UserError(f"{flag(param)} is not an option of {args.algorithm} "
                            f"(it is one of {', '.join(algorithms)}){why}")
        if param in preset and given != preset[param]:
            raise UserError(f"{args.algorithm} is {base} with {flag(param)} {preset[param]}; "
                            f"for {base} with {flag(param)} {given} give --algorithm {base}")
        params[param] = given
    return params


def make_estimator(args, y=None):
    """The estimator of --algorithm (chosen by ``choose_algorithm``) with the options given.
    ``y`` (the target column) turns the class names of --class-weight into its labels."""
    params = chosen_parameters(args)
    weights = params.get("class_weight")
    if isinstance(weights, dict) and y is not None:
        params["class_weight"] = _labelled(weights, y, args.target, "--class-weight")
    loss = params.get("loss")
    if isinstance(loss, dict) and y is not None:
        rows = _labelled(loss, y, args.target, "--loss")
        params["loss"] = {truth: _labelled(row, y, args.target, "--loss")
                          for truth, row in rows.items()}
    order = params.get("class_order")
    if order is not None and y is not None:
        named = _labelled(dict.fromkeys(order), y, args.target, "--class-order")
        params["class_order"] = list(named)
    base = PRESETS.get(args.algorithm, (args.algorithm, {}))[0]
    return ALGORITHMS[base](**params)


def random_draws(model) -> str | None:
    """What ``fit`` draws at random with the model's ``random_state`` (None: nothing)."""
    params = model.get_params(deep=False)
    if params.get("pruning") in ("pre", "reduced-error"):
        return "the held-out validation rows"
    if (params.get("pruning") == "cost-complexity" and isinstance(params.get("ccp_alpha"), str)
            and isinstance(params.get("cv"), int)):
        return "the cross-validation folds"
    return None


def seed_note(args, model) -> str | None:
    """The note saying which seed the fit draws with, when it draws and the user gave none."""
    what = random_draws(model)
    if what is None or hasattr(args, "random_state"):
        return None
    return f"seed {model.random_state} draws {what} (--seed N for another draw)"


def _labelled(weights: dict, y, target: str, option: str) -> dict:
    """``weights`` with its keys, class names as written on the command line, turned into the
    labels of the target column (a number column's labels are numbers)."""
    labels = {}
    for v in y.dropna().unique():
        v = v.item() if hasattr(v, "item") else v  # a plain Python label, as the user wrote it
        labels.setdefault(str(v), v)
        if isinstance(v, float) and v.is_integer():
            labels.setdefault(str(int(v)), v)
    out = {}
    for name, w in weights.items():
        if name not in labels:
            shown = ", ".join(sorted(map(str, labels))[:12])
            raise UserError(f"{option} names class {name!r}, which column {target!r} does "
                            f"not hold (its classes: {shown})")
        out[labels[name]] = w
    return out
