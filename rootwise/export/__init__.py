"""Exporters: they read only the fitted Tree, the schema and the class labels."""

from .graphviz import export_graphviz
from .rules import export_rules
from .sql import export_sql
from .text import export_text

__all__ = ["export_graphviz", "export_rules", "export_sql", "export_text"]
