"""The class a node predicts: its largest class weight, a tie going to the class that comes first
in the model's tie order (``class_order_``: J48's declared order of the class values).

Prediction and every exporter name the same class through these two functions.
"""

from __future__ import annotations

import numpy as np

from ..input.target import class_priority


def tie_priority(model) -> np.ndarray | None:
    """Indices into ``model.classes_`` in the order of ``class_order_``; None when that order is
    ``classes_`` itself, or for a model without one (a regressor, an older file)."""
    order = getattr(model, "class_order_", None)
    classes = getattr(model, "classes_", None)
    if order is None or classes is None:
        return None
    priority = class_priority(classes, order, what="class_order_")
    return None if np.array_equal(priority, np.arange(len(priority))) else priority


def majority_class(value: np.ndarray, priority: np.ndarray | None) -> np.ndarray:
    """Per row of ``value`` (class counts or probabilities), the index of its largest entry; on a
    tie, the class that comes first in ``priority`` (indices of classes; None: the lowest index)."""
    if priority is None:
        return np.argmax(value, axis=1)
    return priority[np.argmax(value[:, priority], axis=1)]


def node_classes(model) -> np.ndarray:
    """Per node of a fitted classifier, the index of the class a row stopping there gets: under a
    loss matrix (``CARTClassifier(loss=...)``) the class of least expected loss."""
    matrix = getattr(model, "__dict__", {}).get("_loss_matrix")
    if matrix is not None:
        from ..loss import least_loss_class

        return least_loss_class(model.tree_.value, matrix, tie_priority(model))
    return majority_class(model.tree_.value, tie_priority(model))
