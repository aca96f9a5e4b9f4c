"""Where a write to a path lands: one resolution for the check against the inputs and for the write.

The kernel resolves a path one component at a time: every folder on the way must exist (so
``nosuchdir/../data.csv`` names no file at all, although ``os.path.realpath``, which treats a
missing folder as text, turns it into ``data.csv``), a ``..`` goes up from wherever the links
before it led, and a symbolic link at the end is followed (a dangling one to the file a write
would create). ``resolve`` asks the kernel about every folder and follows the last link itself,
so the file it names is the file a write replaces, and an existing one is identified by its
device and inode (a hard link is the same file).

A destination is one of:

- a regular file, existing or not: replaced atomically (``atomic.open_atomic``);
- a stream, a character device (/dev/null, a terminal) or a FIFO: written through, never
  replaced -- replacing /dev/null with a regular file breaks every program that writes to it,
  and a FIFO's reader would get nothing;
- anything else (a folder, a block device, a socket): refused with an OSError naming the path.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass

# Symbolic links followed for one path before giving up, as Linux does (ELOOP after 40).
MAX_LINKS = 40


@dataclass(frozen=True)
class Destination:
    """``path`` as given; ``target``: the file a write replaces (a regular file) or opens (a
    stream); ``identity``: (device, inode) of the existing file, None when it is to be made."""

    path: str
    target: str
    stream: bool
    identity: tuple[int, int] | None

    def replaces(self, source) -> bool:
        """Whether this write replaces ``source`` (any path to an existing file): a regular file
        with its device and inode. A stream replaces nothing: a terminal that is both read and
        written (``/dev/stdin``, ``/dev/stdout``) loses nothing."""
        if self.identity is None or self.stream:
            return False  # a file still to be made is not an existing input
        try:
            st = os.stat(source)
        except (OSError, ValueError):
            return False
        return (st.st_dev, st.st_ino) == self.identity


def resolve(path) -> Destination:
    """Where a write to ``path`` lands (the module docstring). Raises OSError naming ``path``:
    FileNotFoundError when a folder on the way is missing, IsADirectoryError for a folder, and
    one for a block device or a socket, which are not written."""
    given = os.fsdecode(path)
    if given == "":
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), given)
    return _resolve(given, given, 0)


def _resolve(given: str, path: str, links: int) -> Destination:
    folder, name = os.path.split(path)
    if name in ("", os.curdir, os.pardir):  # 'x/', 'x/.', '..': a folder, never a file
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), given)
    real_folder = _folder(given, folder or os.curdir)
    candidate = os.path.join(real_folder, name)
    try:
        st = os.lstat(candidate)
    except FileNotFoundError:
        return Destination(given, candidate, False, None)
    except OSError as e:
        raise _named(e, given) from None
    if stat.S_ISLNK(st.st_mode):
        if links >= MAX_LINKS:
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), given)
        try:
            st = os.stat(candidate)
        except FileNotFoundError:  # dangling: a write makes the file the link points to
            return _resolve(given, os.path.join(real_folder, os.readlink(candidate)), links + 1)
        except OSError as e:
            raise _named(e, given) from None
    identity = (st.st_dev, st.st_ino)
    mode = st.st_mode
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        # opened where the kernel finds it (a /proc/self/fd link to a pipe has no other name)
        return Destination(given, candidate, True, identity)
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), given)
    if not stat.S_ISREG(mode):
        what = "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else \
            "not a regular file"
        raise OSError(errno.EINVAL, f"{what}; rootwise writes regular files, character devices "
                                    "and FIFOs only", given)
    try:
        real = os.path.realpath(candidate, strict=True)
        same = os.stat(real)
    except OSError as e:
        raise _named(e, given) from None
    if (same.st_dev, same.st_ino) != identity:  # a /proc/self/fd link to a deleted file
        raise FileNotFoundError(errno.ENOENT, "the file it links to has no path", given)
    return Destination(given, real, False, identity)


def _folder(given: str, folder: str) -> str:
    """``folder`` with its links resolved, after the kernel has reached it as written."""
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, f"no such folder: {_first_missing(folder)}",
                                given) from None
    except OSError as e:
        raise _named(e, given) from None
    if not stat.S_ISDIR(st.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, f"not a folder: {folder}", given)
    try:
        # every component exists (the kernel has just walked them): realpath now walks the same
        return os.path.realpath(folder, strict=True)
    except OSError as e:
        raise _named(e, given) from None


def _first_missing(folder: str) -> str:
    """The shortest prefix of ``folder`` (as written) that the kernel cannot reach."""
    parts = folder.split(os.sep)
    for k in range(1, len(parts) + 1):
        prefix = os.sep.join(parts[:k])
        if prefix in ("", os.curdir):
            continue
        try:
            os.stat(prefix)
        except OSError:
            return prefix
    return folder


def _named(e: OSError, given: str) -> OSError:
    """``e`` naming the path the user gave."""
    return type(e)(e.errno, e.strerror, given) if e.errno is not None else e
