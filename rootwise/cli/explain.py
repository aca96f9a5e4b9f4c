"""rootwise explain: the textbook table of every candidate attribute at a node."""

from __future__ import annotations

import rootwise

from .common import UserError, add_command, add_data_arguments, decimals, read_table, split_target
from .options import add_estimator_options, make_estimator

EXAMPLE = "rootwise explain watermelon_2.0.csv --target 好瓜 --ignore 编号 --node 1"


def add(commands) -> None:
    p = add_command(commands, "explain",
                    help="table of gains / gain ratios / gini of every attribute at a node",
                    example=EXAMPLE)
    add_data_arguments(p)
    p.add_argument("--node", type=int, default=0, metavar="N",
                   help="node number, as shown by 'fit --node-ids' (default: the root)")
    p.add_argument("--digits", type=decimals, default=3, metavar="D", help="decimals shown")
    add_estimator_options(p)
    p.set_defaults(run=run)


def run(args) -> int:
    frame = read_table(args.data)
    X, y = split_target(frame, args.data, args.target, args.ignore)
    model = make_estimator(args, y)
    if isinstance(model, rootwise.CARTRegressor):  # the table holds entropies and gini indices
        raise UserError(f"explain needs a classification algorithm, not {args.algorithm}")
    table = rootwise.explain(X, y, model, node=args.node)
    print(rootwise.format_table(table, digits=args.digits))
    return 0
