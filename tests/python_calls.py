"""Counting the Python calls of a pass: issue 11 asks that it not grow with the number of nodes."""

from __future__ import annotations

import sys


def python_calls(f, *args, **kwargs) -> int:
    """How many Python functions run while ``f`` runs (kernels run as one C call each)."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        count += event == "call"

    sys.setprofile(profile)
    try:
        f(*args, **kwargs)
    finally:
        sys.setprofile(None)
    return count
