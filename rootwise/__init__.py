"""rootwise: classic decision trees (ID3, C4.5, CART), faithful to the textbook, fast and safe."""

from .estimators import ID3Classifier

__all__ = ["ID3Classifier"]
__version__ = "0.1.0"
