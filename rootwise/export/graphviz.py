"""Graphviz DOT text of a fitted tree (no graphviz dependency)."""


def export_graphviz(model, *, decimals: int = 3) -> str:
    """DOT source of the tree."""
    raise NotImplementedError
