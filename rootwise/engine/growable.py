"""Tables that grow without being copied: the growth's category pool and its tables by node.

A table grown by doubling is copied each time, and during the copy the old and the new table are
both resident: the fully grown regressor of the benchmarks' mixed table at 10^6 rows doubled its pool (an
int32 per category of every subset test and subset surrogate, 299 MB at the end) from 268 MB,
and that copy was the fit's peak, 300 MB above the rest; C4.5's node table (2.2 million nodes at
10^6 rows, 109 bytes each) did the same. Past ``LARGE`` bytes a table's entries live in a private
anonymous mapping instead, and growing it asks the kernel to move its pages (``mmap.resize``,
Linux's ``mremap``): nothing is copied and nothing extra becomes resident.

Python refuses to resize a mapping while any array still views it, so a stale view can never
read moved pages: a ``Growable`` owns the only array, the caller passes ``table.array`` to a
kernel and keeps no reference across ``reserve``. Where the mapping cannot be resized (a view
kept somewhere, or a system without ``mremap``), the entries are copied into a new mapping, as
any doubling would.
"""

import mmap

import numpy as np

from .arrays import enlarged, unset

# below this a copy costs little, and ordinary arrays keep small fits off the process's table of
# mappings (Linux allows about 65,000 by default; every fitted tree with a mapped table holds one:
# a table reaches 4 MB at half a million nodes). At 16 MB, C4.5's 17 tables by node were doubled
# by copying up to 8 and 16 MB, and the allocator kept much of what they freed: its fit at 10^6
# rows peaked 35 MB higher.
LARGE = 4 << 20
_PRIVATE = getattr(mmap, "MAP_PRIVATE", None)
_ANONYMOUS = getattr(mmap, "MAP_ANONYMOUS", None)
_REFUSED = (BufferError, OSError, SystemError, ValueError)  # a view alive, or no mremap


class Growable:
    """A growing array of ``dtype`` whose rows have shape ``row`` (() for a 1-D table):
    ``array`` has room for at least the rows the last ``reserve`` asked; rows past what was
    written are unset."""

    def __init__(self, size: int, dtype, row=()):
        self.dtype, self.row = np.dtype(dtype), tuple(row)
        self._map = None
        self.array = unset((max(int(size), 1),) + self.row, self.dtype)

    @classmethod
    def of(cls, array: np.ndarray) -> "Growable":
        """A growable table starting from ``array`` (rows along the first axis), which it owns
        from now on: the caller keeps no other reference."""
        table = cls.__new__(cls)
        table.dtype, table.row = array.dtype, array.shape[1:]
        table._map, table.array = None, array
        return table

    def reserve(self, needed: int) -> None:
        """Room for ``needed`` rows (at least double the room when it grows: appends stay
        amortised O(1)), the rows kept."""
        size = self.array.shape[0]
        if needed <= size:
            return
        new = max(int(needed), 2 * size)
        nbytes = new * self._row_bytes()
        if nbytes < LARGE or _PRIVATE is None or _ANONYMOUS is None:
            self.array = enlarged(self.array, new)
        elif self._map is None:
            self._copy_to_new_map(nbytes, size)
        else:
            self.array = None  # the mapping's only view: drop it, or Python refuses to resize
            try:
                self._map.resize(nbytes)
            except _REFUSED:  # the old rows into a new mapping
                self.array = self._view()
                self._copy_to_new_map(nbytes, size)
                return
            self.array = self._view()

    def finished(self, n: int) -> np.ndarray:
        """The first ``n`` rows, for the fitted tree, which keeps no room it does not use: a
        mapping is shrunk to them, and an ordinary array mostly unused (a reservation, as
        ``loop.node_bound`` makes for CART) is copied out, so the reservation is freed."""
        if self._map is not None and n > 0:
            self.array = None
            try:
                self._map.resize(n * self._row_bytes())
            except _REFUSED:
                pass  # still valid, only larger than needed
            self.array = self._view()
        out = self.array[:n]
        if self._map is None and 2 * n + 1024 < self.array.shape[0]:
            out = out.copy()
        self.array, self._map = None, None  # the tree owns the rows now
        return out

    def _row_bytes(self) -> int:
        return self.dtype.itemsize * int(np.prod(self.row, dtype=np.int64))

    def _view(self) -> np.ndarray:
        return np.frombuffer(self._map, dtype=self.dtype).reshape((-1,) + self.row)

    def _copy_to_new_map(self, nbytes: int, size: int) -> None:
        new_map = mmap.mmap(-1, nbytes, flags=_PRIVATE | _ANONYMOUS)
        grown = np.frombuffer(new_map, dtype=self.dtype).reshape((-1,) + self.row)
        grown[:size] = self.array[:size]
        self.array, self._map = grown, new_map


class GrowableTables:
    """The arrays of a bundle (a NamedTuple of tables by row, such as ``NodeTable``), each a
    ``Growable``, grown together; ``bundle()`` makes the bundle of their current arrays, which
    the caller drops before the next ``reserve``."""

    def __init__(self, bundle):
        self._make = getattr(type(bundle), "_make", tuple)  # a NamedTuple's, or a plain tuple
        self._tables = [Growable.of(a) for a in bundle]

    @property
    def rows(self) -> int:
        return self._tables[0].array.shape[0]

    def reserve(self, needed: int) -> None:
        if needed > self.rows:
            for t in self._tables:
                t.reserve(needed)

    def bundle(self):
        return self._make([t.array for t in self._tables])

    def finished(self, n: int):
        return self._make([t.finished(n) for t in self._tables])
