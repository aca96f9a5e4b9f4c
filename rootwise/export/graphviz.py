"""Graphviz DOT text of a fitted tree (no graphviz dependency): render with ``dot -Tsvg``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._config import LEAF
from .text import TreeView

if TYPE_CHECKING:
    from .._typing import Model


def export_graphviz(model: Model, *, decimals: int = 3, fontname: str = "sans-serif") -> str:
    """DOT source of the tree: split nodes show the tested feature and their class counts, edges
    the branch test, leaves (rounded boxes) the predicted class and its counts. Node numbers are
    the model's node indices."""
    view = TreeView(model, decimals)
    tree = view.tree
    # ordering=out keeps branches left to right in child order, as the textbook draws them
    out = ["digraph Tree {", 'graph [ordering="out"] ;', f'node [shape=box, fontname="{escape(fontname)}"] ;',
           f'edge [fontname="{escape(fontname)}"] ;']
    for node in range(tree.node_count):
        if tree.kind[node] == LEAF:
            lines = _leaf_lines(view, node)
            out.append(f'{node} [label="{_join(lines)}", style="rounded"] ;')
            continue
        lines = [view.feature_name(node), view.counts(node)]
        out.append(f'{node} [label="{_join(lines)}"] ;')
        for child, test in view.branches(node):
            edge = test[2:] if test.startswith("= ") else test
            if child is None:  # categories without a branch stop at this node: draw where they go
                stop = f"{node}.stop"
                lines = [view.predicted(node), "(no branch: this node's distribution)"]
                out.append(f'"{stop}" [label="{_join(lines)}", style="rounded,dashed"] ;')
                out.append(f'{node} -> "{stop}" [label="{escape(edge)}", style="dashed"] ;')
            else:
                out.append(f'{node} -> {child} [label="{escape(edge)}"] ;')
    out.append("}")
    return "\n".join(out) + "\n"


def _leaf_lines(view: TreeView, node: int) -> list[str]:
    if view.is_empty_branch(node):
        return [view.predicted(node), "empty branch (parent's counts)", view.counts(node)]
    return [view.predicted(node), view.counts(node)]


def _join(lines: list[str]) -> str:
    return "\\n".join(escape(line) for line in lines)


def escape(text: str) -> str:
    """Text for a DOT double-quoted string: backslashes and quotes escaped, line breaks as \\n
    (so graphviz escapes such as ``\\N`` in a name are shown literally, not expanded)."""
    return (text.replace("\\", "\\\\").replace('"', '\\"')
            .replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n"))
