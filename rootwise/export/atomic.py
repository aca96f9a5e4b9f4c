"""Files written whole or not at all, and the check that an output is not one of the inputs.

A file is written to a temporary file in its own folder (same file system, so the final rename is
atomic), flushed to disk with fsync, and renamed over the destination. Until the rename the old
file is untouched; an error or an interrupt (KeyboardInterrupt, SystemExit from a signal handler)
on the way removes the temporary file, and so does an interrupt that C code swallowed, when the
handler recorded it (``record_interrupt``). Only a kill that Python cannot see (SIGKILL, power loss)
can leave one behind: it is named ``.<name>.<random>.tmp``, next to the destination.

A destination that is a symbolic link is written through: the file it points to is replaced and
the link kept. An existing destination keeps its permission bits.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat

from .._interrupts import check

# An interrupt that a signal handler raises (KeyboardInterrupt, the CLI's Terminated) runs at
# whatever Python code the main thread is in, and C code that clears errors can swallow it: it
# was seen inside numpy's dtype comparison while pandas formatted a column for to_csv, after
# which the command finished and renamed its file. So a handler also records it here, and no
# temporary file is renamed over its destination once one is recorded.
_interrupt: BaseException | None = None


def record_interrupt(error: BaseException | None) -> None:
    """Note the interrupt a signal handler is raising (None: forget it)."""
    global _interrupt
    _interrupt = error


def raise_recorded_interrupt() -> None:
    """Raise the recorded interrupt again, if there is one (it may have been swallowed)."""
    if _interrupt is not None:
        raise _interrupt


def write_atomic(path, data: str | bytes) -> None:
    """Replace ``path`` with ``data`` (str is written as UTF-8) atomically."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    with open_atomic(path, "wb") as f:
        f.write(payload)


@contextlib.contextmanager
def open_atomic(path, mode: str = "w", *, encoding: str | None = "utf-8", newline: str | None = None):
    """``with open_atomic(path) as f: ...`` writes to a temporary file that replaces ``path`` when
    the block ends without an exception, and is removed when it does not. ``mode`` is "w" (text,
    ``encoding`` and ``newline`` as for ``open``) or "wb"."""
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    target = destination(path)
    if os.path.isdir(target):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    folder = os.path.dirname(target) or "."
    tmp = os.path.join(folder, f".{os.path.basename(target)}.{secrets.token_hex(6)}.tmp")
    # One try from before the temporary file exists to the rename: an interrupt (a signal
    # handler's exception) can come right after os.open has made the file and before its result
    # is stored, so the file is removed by name whatever went wrong, unless os.open itself failed.
    try:
        try:
            # O_EXCL: never write through someone else's file; 0o666: the umask decides
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                         0o666)
        except OSError as e:
            raise _NotCreated(e) from None
        with contextlib.suppress(OSError):  # keep the permissions of the file being replaced
            os.chmod(fd, stat.S_IMODE(os.stat(target).st_mode))
        if mode == "wb":
            f = os.fdopen(fd, "wb")
        else:
            f = os.fdopen(fd, "w", encoding=encoding, newline=newline)
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        check()  # a signal noted in numba's code is raised here, before the file is replaced
        raise_recorded_interrupt()
        os.replace(tmp, target)
    except _NotCreated as failed:  # name the file the user asked for, not the temporary one
        e = failed.error
        raise type(e)(e.errno, e.strerror, os.fspath(path)) from None
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError) and e.filename is None and e.errno is not None:
            raise type(e)(e.errno, e.strerror, os.fspath(path)) from None  # say which file
        raise


class _NotCreated(Exception):
    """os.open could not make the temporary file: there is nothing to remove."""

    def __init__(self, error: OSError):
        super().__init__(error)
        self.error = error


def destination(path) -> str:
    """The file a write to ``path`` replaces: ``path`` with its symbolic links resolved."""
    return os.path.realpath(os.fspath(path))


def same_file(a, b) -> bool:
    """Whether ``a`` and ``b`` are one file: the same path, another path to it, a symbolic or a
    hard link (same device and inode). False when either does not exist."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
