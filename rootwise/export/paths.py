"""The conditions on a row's values that lead it to each end of a fitted tree, merged per feature.

An *end* is a leaf, or a split node where some rows stop (an unseen category at a multiway test, a
missing value the node routes nowhere). The conditions of an end are one record per feature tested
on its path, in the order the features are first tested: an ``Interval`` for a continuous feature
(repeated thresholds merge into lo < x <= hi), ``Categories`` for a categorical one (repeated
subset tests intersect). Besides its known values, each record says when the values a test has
no branch for get through -- the missing value, and for categories the unseen ones -- as a
*status*:

- ``NEVER`` (None): they do not reach the end;
- a tuple of (node, branch) steps (the empty tuple ``ALWAYS``: they always do). A step of a node
  with surrogate splits means "the node's surrogates, tried in order, then its missing branch,
  send the row to ``branch``" (CART); a step of a node with fractional routing means "the row goes
  on with weight r_v" (C4.5).

Two walks are described, because a model predicts with one of them: ``routing="route"`` is
``Tree.apply`` (surrogates, then the missing branch; at a subset test a category without a branch
counts as missing; at a multiway test it stops), ``routing="fractional"`` is C4.5's
``Tree.fractional_distribution`` (a missing value goes down every branch with fraction > 0, no
surrogates, a category without a branch stops). The walk is depth first with an explicit stack and
undoes each step on the way back, so deep trees cost time linear in their size (plus the size of
the conditions written out).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from .._config import LEAF, MISSING_FRACTIONAL, SUBSET, THRESHOLD

NEVER = None
ALWAYS = ()
STOP = -1  # the "branch" of a row that stops at a split node

ROUTINGS = ("route", "fractional")


def both(a, b):
    """The status of passing two tests: never if either never passes, else both sets of steps."""
    if a is NEVER or b is NEVER:
        return NEVER
    return a + b


@dataclass(frozen=True)
class Interval:
    """A continuous feature: a known value passes when lo < x <= hi (either side may be infinite);
    a missing value by ``missing`` (a status)."""

    feature: int
    lo: float
    hi: float
    missing: tuple | None

    @property
    def known(self) -> bool:
        """Whether some known value passes."""
        return self.lo < self.hi

    @property
    def empty(self) -> bool:
        return not self.known and self.missing is NEVER


@dataclass(frozen=True)
class Categories:
    """A categorical feature: the status of each category code, of a category never seen in
    training (``other``) and of a missing value."""

    feature: int
    codes: tuple
    other: tuple | None
    missing: tuple | None

    @property
    def empty(self) -> bool:
        return (self.other is NEVER and self.missing is NEVER
                and all(s is NEVER for s in self.codes))


@dataclass(frozen=True)
class End:
    """Where a row can end: ``node`` (a leaf, or with ``stop`` the split node it stops at), the
    conditions of its path (one per feature), and with ``steps`` the (node, branch) pairs of the
    path from the root, in order."""

    node: int
    stop: bool
    conditions: tuple
    steps: tuple | None = None

    @property
    def reachable(self) -> bool:
        return not any(c.empty for c in self.conditions)


class PathWalker:
    """The ends of ``tree`` with their conditions, for one of the two ``ROUTINGS``."""

    def __init__(self, tree, routing: str = "route"):
        if routing not in ROUTINGS:
            raise ValueError(f"routing must be one of {ROUTINGS}, got {routing!r}.")
        self.tree = tree
        self.fractional = routing == "fractional"

    # ------------------------------------------------------------------ one test
    def missing_status(self, node: int, branch: int):
        """When a missing value at split ``node`` goes to child slot ``branch`` (STOP: stays)."""
        t = self.tree
        mb = int(t.missing_branch[node])
        if self.fractional and mb == MISSING_FRACTIONAL:
            if branch == STOP or t.branch_fraction[t.first_child[node] + branch] <= 0.0:
                return NEVER  # a zero-fraction branch is not walked
            return ((node, branch),)
        fallback = ALWAYS if max(mb, STOP) == branch else NEVER
        if self.fractional or t.n_surrogates[node] == 0:
            return fallback
        if branch == STOP and mb >= 0:
            return NEVER  # a surrogate or the missing branch always gives a child
        return ((node, branch),)

    def other_status(self, node: int, branch: int):
        """When a known category the categorical test at ``node`` has no branch for (absent from
        its rows, or unseen in training) goes to ``branch``: as a missing value at a subset test
        of ``Tree.apply``, otherwise it stops."""
        if not self.fractional and self.tree.kind[node] == SUBSET:
            return self.missing_status(node, branch)
        return ALWAYS if branch == STOP else NEVER

    def restrict(self, condition, node: int, branch: int):
        """``condition`` (the feature's record so far, or None) and the test of ``node`` sending
        the row to ``branch``."""
        t = self.tree
        f = int(t.feature[node])
        missing = self.missing_status(node, branch)
        if t.kind[node] == THRESHOLD:
            c = condition or Interval(f, -np.inf, np.inf, ALWAYS)
            thr = float(t.threshold[node])
            lo, hi = c.lo, c.hi
            if branch == 0:
                hi = min(hi, thr)
            elif branch == 1:
                lo = max(lo, thr)
            else:
                hi = lo  # no known value stops at a threshold test
            return Interval(f, lo, hi, both(c.missing, missing))
        k = int(t.n_categories[f])
        c = condition or Categories(f, (ALWAYS,) * k, ALWAYS, ALWAYS)
        slots = t.branch_of_category(node)
        other = self.other_status(node, branch)
        codes = tuple(
            NEVER if s is NEVER else both(s, other if b < 0 else (ALWAYS if b == branch else NEVER))
            for s, b in zip(c.codes, slots.tolist(), strict=True))
        return Categories(f, codes, both(c.other, other), both(c.missing, missing))

    def can_stop(self, node: int) -> bool:
        """Whether some row may stop at split ``node`` (given that it reaches it)."""
        t = self.tree
        if t.kind[node] != THRESHOLD and (self.fractional or t.kind[node] != SUBSET):
            return True  # an unseen category has no branch
        return self.missing_status(node, STOP) is not NEVER

    # ------------------------------------------------------------------ the walk
    def ends(self, *, stops: bool = False, steps: bool = False,
             right_to_left: bool = False) -> Iterator[End]:
        """Every end in depth-first preorder (a stop end before the node's children), children
        left to right (or ``right_to_left``, C4.5's order of adding up branches). ``stops``: also
        the split nodes where rows may stop; ``steps``: each end carries its path's steps."""
        t = self.tree
        state: dict[int, object] = {}
        order: list[int] = []  # features in the order they are first tested on the path
        path: list[tuple[int, int]] = []
        undo: list[tuple[int, object]] = []

        def apply(node, branch):
            f = int(t.feature[node])
            old = state.get(f)
            state[f] = self.restrict(old, node, branch)
            if old is None:
                order.append(f)
            path.append((node, branch))
            undo.append((f, old))

        def back():
            f, old = undo.pop()
            path.pop()
            if old is None:
                del state[f]
                order.pop()  # added at this step, so the last one
            else:
                state[f] = old

        def end(node, stop):
            return End(node, stop, tuple(state[f] for f in order),
                       tuple(path) if steps else None)

        # items: ("visit", node) or ("enter", parent, branch) or ("leave",)
        stack: list[tuple] = [("visit", 0)]
        while stack:
            item = stack.pop()
            if item[0] == "leave":
                back()
                continue
            if item[0] == "enter":
                _, parent, branch = item
                apply(parent, branch)
                node = int(t.first_child[parent]) + branch
            else:
                node = item[1]
            if t.kind[node] == LEAF:
                yield end(node, False)
                continue
            if stops and self.can_stop(node):
                apply(node, STOP)
                yield end(node, True)
                back()
            branches = range(int(t.n_children[node]))
            for b in (branches if right_to_left else reversed(branches)):
                stack.append(("leave",))
                stack.append(("enter", node, b))
