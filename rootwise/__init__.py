"""rootwise: classic decision trees (ID3, C4.5, CART), faithful to the textbook, fast and safe."""

from . import datasets
from ._persistence import ModelFileError, load, save
from .estimators import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from .explain import explain, format_table, node_weights
from .export import export_graphviz, export_text
from .pruning_report import pruning_report

__all__ = [
    "C45Classifier",
    "CARTClassifier",
    "CARTRegressor",
    "ID3Classifier",
    "ModelFileError",
    "datasets",
    "explain",
    "export_graphviz",
    "export_text",
    "format_table",
    "load",
    "pruning_report",
    "node_weights",
    "save",
]
__version__ = "0.1.0"
