"""rootwise explain: the textbook table of every candidate attribute at a node."""

from __future__ import annotations

import rootwise

from .common import (
    add_command,
    add_data_arguments,
    add_quiet,
    add_wide,
    decimals,
    table_width,
    training_table,
)
from .options import add_estimator_options, choose_algorithm, make_estimator, seed_note
from .progress import note

EXAMPLE = "rootwise explain watermelon_2.0.csv --target 好瓜 --ignore 编号 --node 1"


def add(commands) -> None:
    p = add_command(commands, "explain",
                    help="table of the measures of every attribute at a node",
                    description="Table of every candidate attribute at a node: entropy, gain, "
                                "gain ratio and Gini of a classification tree, the squared-error "
                                "decrease of a regression tree (cart-regressor).",
                    example=EXAMPLE)
    add_data_arguments(p)
    p.add_argument("--node", type=int, default=0, metavar="N",
                   help="node number, as shown by 'fit --node-ids' (default: the root)")
    p.add_argument("--digits", type=decimals, default=3, metavar="D", help="decimals shown")
    add_wide(p)
    add_quiet(p)
    add_estimator_options(p)
    p.set_defaults(run=run)


def run(args) -> int:
    X, y = training_table(args)
    chosen = choose_algorithm(args, y)
    model = make_estimator(args, y)
    table = rootwise.explain(X, y, model, node=args.node)
    for line in (chosen, seed_note(args, model)):  # once it worked: an error stays one line
        if line:
            note(args, line)
    print(rootwise.format_table(table, digits=args.digits, width=table_width(args)))
    return 0
