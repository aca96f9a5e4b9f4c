"""A 1-D table that grows without being copied, for the growth's category pool.

A table grown by doubling is copied each time, and during the copy the old and the new table are
both resident: the fully grown regressor of issue 11's table at 10^6 rows doubled its pool (an
int32 per category of every subset test and subset surrogate, 299 MB at the end) from 268 MB,
and that copy was the fit's peak, 300 MB above the rest. Past ``LARGE`` bytes the entries live in
a private anonymous mapping instead, and growing it asks the kernel to move its pages
(``mmap.resize``, Linux's ``mremap``): nothing is copied and nothing extra becomes resident.

Python refuses to resize a mapping while any array still views it, so a stale view can never
read moved pages: ``Growable`` owns the only array, the caller passes ``table.array`` to a
kernel and keeps no reference across ``reserve``. Where the mapping cannot be resized (a view
kept somewhere, or a system without ``mremap``), the entries are copied into a new mapping, as
any doubling would.
"""

import mmap

import numpy as np

from .arrays import unset

# below this a copy costs little, and ordinary arrays keep small fits off the process's table of
# mappings (Linux allows about 65,000 by default; every fitted tree with a mapped pool holds one)
LARGE = 16 << 20
_PRIVATE = getattr(mmap, "MAP_PRIVATE", None)
_ANONYMOUS = getattr(mmap, "MAP_ANONYMOUS", None)


class Growable:
    """A growing 1-D array of ``dtype``: ``array`` has room for at least what the last
    ``reserve`` asked; entries past what was written are unset."""

    def __init__(self, size: int, dtype):
        self.dtype = np.dtype(dtype)
        self._map = None
        self.array = unset(max(int(size), 1), self.dtype)

    def reserve(self, needed: int) -> None:
        """Room for ``needed`` entries (at least double the room when it grows: appends stay
        amortised O(1)), the entries kept."""
        size = self.array.shape[0]
        if needed <= size:
            return
        new = max(int(needed), 2 * size)
        nbytes = new * self.dtype.itemsize
        if nbytes < LARGE or _PRIVATE is None or _ANONYMOUS is None:
            grown = unset(new, self.dtype)
            grown[:size] = self.array
            self.array = grown
        elif self._map is None:
            self._copy_to_new_map(nbytes, size)
        else:
            self.array = None  # the mapping's only view: drop it, or Python refuses to resize
            try:
                self._map.resize(nbytes)
            except (BufferError, OSError, SystemError, ValueError):
                # a view is still alive, or no mremap here: the old entries into a new mapping
                self.array = np.frombuffer(self._map, dtype=self.dtype)
                self._copy_to_new_map(nbytes, size)
                return
            self.array = np.frombuffer(self._map, dtype=self.dtype)

    def finished(self, n: int) -> np.ndarray:
        """The first ``n`` entries, for the fitted tree; a mapping is shrunk to them, so a
        fitted tree keeps no room it does not use."""
        if self._map is not None and n > 0:
            self.array = None
            try:
                self._map.resize(n * self.dtype.itemsize)
            except (BufferError, OSError, SystemError, ValueError):
                pass  # still valid, only larger than needed
            self.array = np.frombuffer(self._map, dtype=self.dtype)
        out = self.array[:n]
        self.array, self._map = None, None  # the tree owns the entries now
        return out

    def _copy_to_new_map(self, nbytes: int, size: int) -> None:
        new_map = mmap.mmap(-1, nbytes, flags=_PRIVATE | _ANONYMOUS)
        grown = np.frombuffer(new_map, dtype=self.dtype)
        grown[:size] = self.array[:size]
        self.array, self._map = grown, new_map
