"""Exporters: they read only the fitted Tree, the schema and the class labels."""

from .graphviz import export_graphviz
from .text import export_text

__all__ = ["export_graphviz", "export_text"]
