"""rootwise show: a saved model as text, Graphviz DOT or its JSON file."""

from __future__ import annotations

import sys

import rootwise

from .common import add_command, add_force, add_text_options, guard_outputs, read_model, tree_text, write_text

EXAMPLE = "rootwise show melon.json --counts --show-depth 3"


def add(commands) -> None:
    p = add_command(commands, "show", help="print a saved model", example=EXAMPLE)
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("--format", choices=["text", "dot", "json"], default="text",
                   help="indented text (default), Graphviz DOT, or the JSON file once checked")
    p.add_argument("--out", metavar="FILE", help="write to this file instead of stdout")
    add_text_options(p)
    add_force(p)
    p.set_defaults(run=run)


def run(args) -> int:
    guard_outputs(args, {"--out": args.out}, [args.model])
    model = read_model(args.model)
    if args.format == "text":
        text = tree_text(model, args)
    elif args.format == "dot":
        text = rootwise.export_graphviz(model, decimals=args.decimals)
    else:  # the file itself, once load has checked it
        with open(args.model, encoding="utf-8-sig") as f:
            text = f.read()
    if args.out:
        write_text(args.out, text)
    else:
        sys.stdout.write(text)
    return 0
