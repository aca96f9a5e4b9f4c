"""Files written whole or not at all.

Where a write lands is ``destination.resolve``'s answer, the same one the command line checks
against its inputs. A regular file is written to a temporary file in its own folder (same file
system, so the final rename is atomic), flushed to disk with fsync, and renamed over the
destination. Until the rename the old file is untouched; an error or an interrupt
(KeyboardInterrupt, SystemExit from a signal handler) on the way removes the temporary file, and
so does an interrupt that C code swallowed, when the handler recorded it (``record_interrupt``).
Only a kill that Python cannot see (SIGKILL, power loss) can leave one behind: it is named
``.<name>.<random>.tmp``, next to the destination.

A destination that is a symbolic link is written through: the file it points to is replaced and
the link kept. An existing destination keeps its permission bits.

A character device or a FIFO is a stream: it cannot be replaced (and must not be: a /dev/null
replaced by a regular file breaks the system), so it is opened as it is and written through. What
the block writes is held in a temporary buffer (memory, then disk past a few MB) and sent when the
block ends without an exception; otherwise the stream is closed with nothing written, so a FIFO's
reader gets the whole output or none of it, never a truncated table.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import stat
import tempfile

from .._interrupts import check
from .destination import resolve

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
    the block ends without an exception, and is removed when it does not (a character device or a
    FIFO gets the whole text then, or nothing). ``mode`` is "w" (text, ``encoding`` and
    ``newline`` as for ``open``) or "wb"."""
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    dest = resolve(path)
    if dest.stream:
        with _open_stream(dest, mode, encoding, newline) as f:
            yield f
        return
    target = dest.target
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


@contextlib.contextmanager
def _open_stream(dest, mode: str, encoding, newline):
    """``open_atomic`` for a character device or a FIFO (the module docstring)."""
    # opened first: a FIFO's reader waits for a writer, and gets end of file if the block fails
    try:
        fd = os.open(dest.target, os.O_WRONLY | os.O_NOCTTY)
    except OSError as e:
        raise type(e)(e.errno, e.strerror, dest.path) from None
    try:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != dest.identity:  # replaced between resolve and open
            raise FileExistsError(errno.EEXIST, "replaced while it was being opened", dest.path)
        with tempfile.SpooledTemporaryFile(max_size=_STREAM_MEMORY, mode="w+b") as buffer:
            f = buffer if mode == "wb" else io.TextIOWrapper(buffer, encoding=encoding,
                                                              newline=newline)
            yield f
            f.flush()
            raise_recorded_interrupt()
            buffer.seek(0)
            _send(buffer, fd, dest.path)
    finally:
        os.close(fd)


def _send(buffer, fd: int, path: str) -> None:
    """Everything in ``buffer`` to ``fd`` (unbuffered: an error is raised here, not at close)."""
    try:
        while chunk := buffer.read(2**16):
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view):]  # a pipe may take part of a chunk
    except OSError as e:  # a full device, a FIFO whose reader has gone
        raise type(e)(e.errno, e.strerror, path) from None


# bytes a stream's output is held in memory before its buffer moves to a temporary file
_STREAM_MEMORY = 8 * 2**20


def same_file(a, b) -> bool:
    """Whether a write to ``a`` replaces the existing file ``b`` (the same path, another path to
    it, a symbolic or a hard link: same device and inode). False when ``b`` does not exist or
    ``a`` is a stream; an OSError when ``a`` cannot be written (a missing folder on its way)."""
    return resolve(a).replaces(b)
