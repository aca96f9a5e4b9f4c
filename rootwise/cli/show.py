"""rootwise show: a saved model as text, rules, SQL, Graphviz DOT, a picture, an ONNX model or its
JSON file."""

from __future__ import annotations

import os
import sys

import rootwise

from .common import (
    UserError,
    add_command,
    add_force,
    add_text_options,
    guard_outputs,
    open_output_bytes,
    read_model,
    tree_text,
    write_text,
)

EXAMPLE = "rootwise show melon.json --counts --show-depth 3"
PICTURES = ("png", "svg")


def add(commands) -> None:
    p = add_command(commands, "show", help="print or draw a saved model", example=EXAMPLE,
                    description="Print a saved model as indented text (default), one rule per "
                                "leaf, a SQL expression that reproduces predict, Graphviz DOT or "
                                "its JSON file once checked; or draw it as PNG / SVG, or write "
                                "it as an ONNX model (--out).")
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("--format", choices=["text", "rules", "sql", "dot", "json", *PICTURES, "onnx"],
                   default="text", help="what to show (default: text)")
    p.add_argument("--table", metavar="NAME",
                   help="sql: a full SELECT over this table (default: the CASE expression alone)")
    p.add_argument("--proba", action="store_true",
                   help="sql: one probability expression per class instead of the class")
    p.add_argument("--out", metavar="FILE",
                   help="write to this file instead of stdout (needed for png, svg and onnx)")
    add_text_options(p)
    add_force(p)
    p.set_defaults(run=run)


def run(args) -> int:
    guard_outputs(args, {"--out": args.out}, [args.model])
    if args.format in PICTURES:
        if not args.out:
            raise UserError(f"--format {args.format} draws a picture: give --out FILE")
        return _draw(args, read_model(args.model))
    if args.format == "onnx":
        if not args.out:
            raise UserError("--format onnx writes a binary ONNX model: give --out FILE")
        if args.table or args.proba:
            raise UserError("--table and --proba belong to --format sql")
        proto = rootwise.export_onnx(read_model(args.model))  # ImportError names the extra
        with open_output_bytes(args.out) as f:
            f.write(proto.SerializeToString())
        return 0
    if args.format != "sql" and (args.table or args.proba):
        raise UserError("--table and --proba belong to --format sql")
    model = read_model(args.model)
    if args.format == "text":  # a file gets 80 columns, as a pipe does
        text = tree_text(model, args, 80 if args.out and not args.wide else None)
    elif args.format == "rules":
        text = rootwise.export_rules(model, decimals=args.decimals)
    elif args.format == "sql":
        text = rootwise.export_sql(model, table=args.table, proba=args.proba)
    elif args.format == "dot":
        text = rootwise.export_graphviz(model, decimals=args.decimals)
    else:  # the file itself, once load has checked it
        with open(args.model, encoding="utf-8-sig") as f:
            text = f.read()
    text = text if text.endswith("\n") else text + "\n"
    if args.out:
        write_text(args.out, text)
    else:
        sys.stdout.write(text)
    return 0


def _draw(args, model) -> int:
    os.environ.setdefault("MPLBACKEND", "Agg")  # a file, not a window (unless the user chose)
    ax = rootwise.plot_tree(model, max_depth=args.show_depth, decimals=args.decimals,
                            node_ids=args.node_ids)
    import matplotlib.pyplot as plt  # there: plot_tree has just used it

    figure = ax.figure
    try:
        with open_output_bytes(args.out) as f:
            figure.savefig(f, format=args.format)
    finally:
        plt.close(figure)
    return 0
