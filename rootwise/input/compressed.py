"""Compressed data files: which compression a file name says, and its decompressed bytes.

The compression comes from the last extension, as pandas infers it: ``.gz`` (gzip), ``.bz2``,
``.xz``, ``.zip`` and ``.tar`` (also ``.tar.gz``, ``.tgz``, ...). A zip or tar archive must hold
exactly one file; ``.zst`` is refused with the way round it. Only the standard library is used,
so the reader of a compressed file is the same for CSV, TSV and ARFF, and a damaged file gives
one error naming it.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import os
import tarfile
import zipfile
import zlib

SUFFIXES = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zip": "zip", ".tar": "tar",
            ".tgz": "tar", ".tbz2": "tar", ".txz": "tar", ".zst": "zstd"}

# what a damaged or mislabelled compressed file raises while it is read (gzip.BadGzipFile and
# bz2's "Invalid data stream" are OSErrors; a truncated stream is an EOFError)
ERRORS = (OSError, EOFError, lzma.LZMAError, zlib.error, zipfile.BadZipFile, tarfile.TarError)


def split_compression(path) -> tuple[str, str | None]:
    """(the name without its compression suffix, the compression or None):
    ``"a.tsv.gz"`` -> ``("a.tsv", "gzip")``, ``"a.tar.gz"`` -> ``("a", "tar")``."""
    name = os.path.basename(os.fspath(path))
    stem, ext = os.path.splitext(name)
    kind = SUFFIXES.get(ext.lower())
    if kind is None:
        return name, None
    inner, inner_ext = os.path.splitext(stem)
    if inner_ext.lower() == ".tar":  # a compressed tar archive
        return inner, "tar"
    return stem, kind


@contextlib.contextmanager
def open_binary(path: str, kind: str | None, fail):
    """The decompressed bytes of ``path`` as a binary file. ``fail(reason)`` returns the error to
    raise for a file that is not what its name says (the file is named by the caller); a missing
    or unreadable file raises the OS's error first."""
    with open(path, "rb") as raw:  # outside the try: FileNotFoundError etc. name the file
        if kind is None:
            yield raw
            return
        try:
            with contextlib.ExitStack() as stack:
                stream = _decompressed(raw, kind, fail, stack)
                yield stream
        except ERRORS as e:
            raise fail(f"not a readable {kind} file ({_reason(e)})") from None


def _decompressed(raw, kind: str, fail, stack: contextlib.ExitStack):
    if kind == "gzip":
        return stack.enter_context(gzip.GzipFile(fileobj=raw, mode="rb"))
    if kind == "bzip2":
        return stack.enter_context(bz2.BZ2File(raw, "rb"))
    if kind == "xz":
        return stack.enter_context(lzma.LZMAFile(raw, "rb"))
    if kind == "zstd":  # not in Python's standard library before 3.14
        raise fail("zstd-compressed files are not read; decompress it first (unzstd), or "
                   "compress it with gzip, bzip2 or xz")
    if kind == "zip":
        archive = stack.enter_context(zipfile.ZipFile(raw))
        members = [m for m in archive.infolist() if not m.is_dir()]
        _one_member(kind, [m.filename for m in members], fail)
        return stack.enter_context(archive.open(members[0]))
    archive = stack.enter_context(tarfile.open(fileobj=raw, mode="r:*"))
    members = [m for m in archive.getmembers() if m.isfile()]
    _one_member(kind, [m.name for m in members], fail)
    return stack.enter_context(archive.extractfile(members[0]))


def _one_member(kind: str, names: list[str], fail) -> None:
    if len(names) != 1:
        shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
        holds = f"holds {len(names)} files ({shown})" if names else "holds no file"
        raise fail(f"the {kind} archive {holds}; rootwise reads an archive of one file")


def _reason(e: BaseException) -> str:
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    return lines[0] if lines else type(e).__name__
