"""Exporters: they read only the fitted Tree and the schema."""

from .graphviz import export_graphviz
from .text import export_text

__all__ = ["export_graphviz", "export_text"]
