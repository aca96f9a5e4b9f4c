"""rootwise cv: K-fold cross-validated scores of a tree, fold by fold and with their spread."""

from __future__ import annotations

import json
import sys
import warnings

import numpy as np

from . import scores
from .common import (
    UserError,
    add_command,
    add_data_arguments,
    add_force,
    add_quiet,
    add_wide,
    decimals,
    guard_outputs,
    table_width,
    training_table,
    write_text,
)
from .options import add_estimator_options, choose_algorithm, make_estimator
from .progress import Progress, note

EXAMPLE = "rootwise cv soybean.arff --target class --algorithm c4.5 --folds 10 --random-state 1"


def add(commands) -> None:
    p = add_command(commands, "cv", help="cross-validated scores of a tree", example=EXAMPLE,
                    description="Grow the tree on K-1 folds and score it on the held-out fold, "
                                "K times: per fold, their mean and standard deviation, and the "
                                "scores of all held-out predictions pooled. Folds are shuffled "
                                "with --random-state (default 0) and stratified by class "
                                "(scikit-learn's StratifiedKFold; KFold for a regressor).")
    add_data_arguments(p)
    p.add_argument("--folds", type=int, default=10, metavar="K", help="number of folds (default 10)")
    p.add_argument("--json", metavar="FILE", help="also write the scores to this JSON file")
    p.add_argument("--digits", type=decimals, default=3, metavar="D", help="decimals shown")
    add_wide(p)
    add_force(p)
    add_quiet(p)
    add_estimator_options(p)
    p.set_defaults(run=run)


def folds(y, k: int, seed: int, classifier: bool):
    """(train, test) row indices of each fold, and how they were made."""
    from sklearn.model_selection import KFold, StratifiedKFold

    n = len(y)
    if not 2 <= k <= n:
        raise UserError(f"--folds must be between 2 and the number of rows ({n}), got {k}")
    if classifier and y.value_counts().max() >= k:
        # a class of fewer than k rows is simply missing from some folds (scikit-learn warns)
        splitter, how = StratifiedKFold(k, shuffle=True, random_state=seed), "stratified"
    else:
        splitter, how = KFold(k, shuffle=True, random_state=seed), "not stratified"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return list(splitter.split(np.zeros((n, 1)), y)), how


def run(args) -> int:
    guard_outputs(args, {"--json": args.json}, [args.data])
    X, y = training_table(args)
    chosen = choose_algorithm(args, y)
    template = make_estimator(args, y)
    regressor = args.algorithm == "cart-regressor"
    seed = getattr(args, "random_state", None)
    seed = 0 if seed is None else seed
    splits, how = folds(y, args.folds, seed, not regressor)
    per_fold, sizes = [], []
    pooled = np.empty(len(y), dtype=object if not regressor else float)
    with Progress(args, "cross-validating") as progress:
        for i, (train, test) in enumerate(splits, 1):
            progress.update(f"cross-validating: fold {i} of {len(splits)}")
            model = make_estimator(args, y).fit(X.iloc[train], y.iloc[train])
            predicted = model.predict(X.iloc[test])
            pooled[test] = predicted
            if regressor:
                per_fold.append(scores.regression(y.iloc[test], predicted))
            else:
                per_fold.append(scores.classification(y.iloc[test], predicted, list(model.classes_)))
            sizes.append((model.tree_.n_leaves, model.tree_.max_depth))
    classes = sorted(y.unique(), key=str) if not regressor else None
    total = scores.regression(y, pooled) if regressor else scores.classification(y, pooled, classes)
    keys = ["r2", "rmse", "mae"] if regressor else ["accuracy", "kappa"]
    summary = {key: {"mean": float(np.mean([f[key] for f in per_fold])),
                     "std": float(np.std([f[key] for f in per_fold]))} for key in keys}
    text = _report(args, template, how, seed, per_fold, sizes, summary, total, keys, regressor)
    if args.json:
        document = {"data": args.data, "target": args.target, "algorithm": args.algorithm,
                    "params": {k: _plain(v) for k, v in template.get_params(deep=False).items()},
                    "folds": args.folds, "stratified": how == "stratified", "random_state": seed,
                    "per_fold": [{**f, "leaves": int(s[0]), "depth": int(s[1])}
                                 for f, s in zip(per_fold, sizes, strict=True)],
                    "summary": summary, "pooled": total}
        write_text(args.json, json.dumps(document, ensure_ascii=False, indent=2) + "\n")
    if chosen:  # once the work is done: a failed command prints its error line alone
        note(args, chosen)
    sys.stdout.write(text)
    return 0


def _report(args, template, how, seed, per_fold, sizes, summary, total, keys, regressor) -> str:
    d = args.digits
    names = {"r2": "R²", "rmse": "RMSE", "mae": "MAE", "accuracy": "accuracy", "kappa": "kappa"}
    rows = [["fold", "rows", *[names[k] for k in keys], "leaves", "depth"]]
    for i, (f, (leaves, depth)) in enumerate(zip(per_fold, sizes, strict=True), 1):
        rows.append([str(i), str(f["rows"]), *[scores.fmt(f[k], d) for k in keys], str(leaves),
                     str(depth)])
    rows.append(["mean", "", *[scores.fmt(summary[k]["mean"], d) for k in keys],
                 scores.fmt(float(np.mean([s[0] for s in sizes])), 1),
                 scores.fmt(float(np.mean([s[1] for s in sizes])), 1)])
    rows.append(["std", "", *[scores.fmt(summary[k]["std"], d) for k in keys], "", ""])
    head = keys[0]
    limit = table_width(args)
    out = [f"{len(per_fold)}-fold cross-validation of {args.algorithm} on {args.data} "
           f"({how}, shuffled with seed {seed})",
           f"{names[head]} {scores.fmt(summary[head]['mean'], d)} ± "
           f"{scores.fmt(summary[head]['std'], d)} (mean ± standard deviation over the folds)",
           "", scores.table(rows, right=set(range(1, len(rows[0]))), limit=limit), "",
           "all held-out predictions pooled:"]
    body = (scores.format_regression(total, d) if regressor
            else scores.format_classification(total, d, limit))
    return "\n".join(out) + "\n" + body


def _plain(v):
    """A parameter value for JSON."""
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return str(v)
