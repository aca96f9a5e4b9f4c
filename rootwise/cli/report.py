"""rootwise report: grow a tree and write the interactive HTML report of it."""

from __future__ import annotations

import rootwise

from .common import (
    add_command,
    add_data_arguments,
    add_force,
    add_quiet,
    decimals,
    guard_outputs,
    training_table,
    write_text,
)
from .fit import fit_model, say_notes
from .options import add_estimator_options

EXAMPLE = ("rootwise report watermelon_2.0.csv --target 好瓜 --ignore 编号 --algorithm c4.5 "
           "--out melon.html")


def add(commands) -> None:
    p = add_command(commands, "report", help="grow a tree and write its HTML report",
                    example=EXAMPLE,
                    description="Grow a tree on a table (with the options of fit) and write one "
                                "self-contained HTML page: the collapsible tree, each node's path, "
                                "distribution and textbook attribute table, and the pruning "
                                "record. It needs no network.")
    add_data_arguments(p)
    p.add_argument("--out", required=True, metavar="REPORT.html", help="the page to write")
    p.add_argument("--title", help="the page's heading (default: the model's class name)")
    p.add_argument("--decimals", type=decimals, default=3, metavar="D",
                   help="decimals of thresholds, weights and values (default 3)")
    p.add_argument("--show-depth", type=int, metavar="N",
                   help="draw N levels of the tree; deeper subtrees are cut")
    add_force(p)
    add_quiet(p)
    add_estimator_options(p)
    p.set_defaults(run=run)


def run(args) -> int:
    guard_outputs(args, {"--out": args.out}, [args.data])
    X, y = training_table(args)
    model = fit_model(args, X, y)
    page = rootwise.export_html(model, X, y, title=args.title, decimals=args.decimals,
                                max_depth=args.show_depth)
    write_text(args.out, page)
    say_notes(args)
    return 0
