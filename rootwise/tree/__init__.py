"""The fitted tree: flat node arrays (``tree``), how rows walk it (``walk``, numba), and node
records for the Python builders (``records``)."""

from .tree import NODE_FIELDS, SURROGATE_FIELDS, Tree

__all__ = ["NODE_FIELDS", "SURROGATE_FIELDS", "Tree"]
