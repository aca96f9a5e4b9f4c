"""The segment's finished rows given back to the operating system while a tree grows.

Depth-first growth with binary splits partitions each node's segment in place, left rows
first, and grows branch 0 first: when the node on top of the pending stack starts at position
p, every node whose rows lie below p is grown, and nothing reads those positions again. Their
pages (of the rows, weights, targets, codes and every presorted column's words) are released
(``madvise(MADV_DONTNEED)``): they stay mapped and would read as zeros, but they are no longer
resident. The fitted model grows while the segment shrinks, so the fit's peak, at the end of
growth, no longer holds both: the segment of a fit at 10^6 rows of the benchmarks' table of 10 numeric
and 10 categorical columns is 112 MB (0.73x its encoded matrix).

Only whole pages inside an array are released, so the allocator's own words beside an array
are never touched. Where ``madvise`` is not available (not Linux) nothing is released.
``POISON`` (tests) overwrites the finished positions instead, so a read of one would change the
tree even in a fit too small to release a page.
"""

import ctypes
import mmap
import sys

import numpy as np

MADV_DONTNEED = 4  # Linux: the pages are dropped now, and read as zeros if touched again
PAGE = mmap.PAGESIZE
POISON = False  # tests: write poison into the finished rows instead of releasing their pages
# a fit on fewer rows holds a segment of at most a few tens of MB, and each release costs a
# return from the growth kernel to Python (its arguments checked again): 2 % of a fully grown
# regressor's time at 10^5 rows with 64 of them
MIN_ROWS = 1 << 18


def _madvise():
    if not sys.platform.startswith("linux"):
        return None
    try:
        f = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return None
    f.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    f.restype = ctypes.c_int
    return f


_MADVISE = _madvise()


def available() -> bool:
    return POISON or _MADVISE is not None


class FinishedRows:
    """The segment's arrays by position (``segments.Segments``), and what was given back of
    them: ``release(done)`` gives back positions [0, done)."""

    def __init__(self, seg):
        # (a contiguous 1-D view along the positions, its values per position): the codes hold
        # several words per position, a row of words is one presorted column
        ranges = [(a, 1) for a in (seg.row, seg.w, seg.yc, seg.yr) if a.shape[0] > 0]
        if seg.codes.size > 0 and seg.codes.flags.c_contiguous:
            ranges.append((seg.codes.reshape(-1), seg.codes.shape[1]))
        ranges += [(seg.words[s], 1) for s in range(seg.words.shape[0])]
        # addresses are computed from the first element: an array that is not one contiguous
        # block (never made by the engine) is kept whole
        self._ranges = [(a, per) for a, per in ranges if a.flags.c_contiguous]
        self._given = [0] * len(self._ranges)  # per range: the address given back up to
        self._done = 0

    def release(self, done: int) -> None:
        done = int(done)
        if done <= self._done:
            return
        for i, (a, per) in enumerate(self._ranges):
            if POISON:
                a[self._done * per:done * per] = -1 if a.dtype.kind in "iu" else np.nan
                continue
            base = a.ctypes.data
            first = max(self._given[i], -(-base // PAGE) * PAGE)
            last = (base + min(done * per, a.shape[0]) * a.itemsize) // PAGE * PAGE
            if last > first:  # a refusal (EINVAL) leaves the pages as they were: ignored
                _MADVISE(first, last - first, MADV_DONTNEED)
                self._given[i] = last
        self._done = done
