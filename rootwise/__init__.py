"""rootwise: classic decision trees (ID3, C4.5, CART), faithful to the textbook, fast and safe."""

from . import datasets
from ._persistence import ModelFileError, load, save
from .estimators import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from .explain import explain, format_table
from .export import export_graphviz, export_text

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
    "save",
]
__version__ = "0.1.0"
