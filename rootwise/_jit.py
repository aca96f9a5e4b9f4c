"""numba's on-disk cache of rootwise's kernels: where it is, and kept consistent with the sources.

Kernels are compiled with ``cache=True``. numba re-validates a cached function only against its
own file, not against the functions it calls in other files or the constants it reads from
``_config``: after an edit there, a stale cached caller would run old machine code (seen as a
segmentation fault). So on import we fingerprint every kernel module of the package (a file that
uses ``njit``) and ``_config``, and drop the package's cache files when the fingerprint changes.

numba picks the cache directory per source directory: ``NUMBA_CACHE_DIR`` when set, else the
``__pycache__`` beside the source when it is writable, else a per-user directory. The stamp and
the drop follow the same choice (``cache_dirs``), so a cache in ``NUMBA_CACHE_DIR`` (a container
image, CI) is kept consistent too.
"""

import hashlib
from pathlib import Path

PACKAGE = Path(__file__).parent
STAMP_NAME = "rootwise-kernels.sha256"


def _read_sources() -> dict[Path, bytes]:
    """Each kernel module (a file that uses ``njit``) and ``_config.py``, with its text, in a
    fixed order: read once per import."""
    texts = {p: p.read_bytes() for p in sorted(PACKAGE.rglob("*.py"))}
    found = {p: text for p, text in texts.items() if b"njit" in text}
    found[PACKAGE / "_config.py"] = texts[PACKAGE / "_config.py"]
    return found


def kernel_sources() -> list[Path]:
    """The package's kernel modules and ``_config.py``, in a fixed order."""
    return list(_read_sources())


def fingerprint(sources: dict[Path, bytes] | None = None) -> str:
    digest = hashlib.sha256()
    for path, text in (sources or _read_sources()).items():
        digest.update(str(path.relative_to(PACKAGE)).encode())
        digest.update(text)
    return digest.hexdigest()


def cache_dir(source: Path) -> Path:
    """The directory numba caches the kernels of ``source`` in, chosen by numba's own locators
    (given a stand-in function from that file); the ``__pycache__`` beside it if that fails."""
    try:
        from numba.core.caching import CompileResultCacheImpl

        namespace: dict = {}
        exec(compile("def stand_in():\n    pass\n", str(source), "exec"), namespace)
        return Path(CompileResultCacheImpl(namespace["stand_in"]).locator.get_cache_path())
    except Exception:  # a numba without these internals: its default, beside the source
        return source.parent / "__pycache__"


def cache_dirs(sources: list[Path] | None = None) -> list[Path]:
    """Every directory holding cached rootwise kernels (one per source directory)."""
    by_folder = {}
    for source in sources or kernel_sources():
        by_folder.setdefault(source.parent, source)
    return sorted({cache_dir(source) for source in by_folder.values()})


def _kernel_files(folder: Path, modules: set[str]) -> list[Path]:
    """numba's index (.nbi) and data (.nbc) files of rootwise's modules in ``folder``; their names
    start with the module's file name (``loop._grow_from-340.py311.nbi``)."""
    return [f for pattern in ("*.nbi", "*.nbc") for f in folder.glob(pattern)
            if f.name.split(".", 1)[0] in modules]


_CURRENT: list[str] = []  # the fingerprint of the sources as imported, computed once


def current_fingerprint() -> str:
    """``fingerprint()`` of the sources this process imported (read once)."""
    if not _CURRENT:
        _CURRENT.append(fingerprint())
    return _CURRENT[0]


def drop_stale_cache() -> None:
    """Remove cached kernels compiled from other sources than these (each cache directory keeps
    the fingerprint it was filled for)."""
    sources = _read_sources()
    now = fingerprint(sources)
    _CURRENT[:] = [now]
    modules = {p.stem for p in sources}
    for folder in cache_dirs(list(sources)):
        stamp = folder / STAMP_NAME
        try:
            if stamp.read_text() == now:
                continue
        except OSError:
            pass
        try:
            for stale in _kernel_files(folder, modules):
                stale.unlink()
            folder.mkdir(parents=True, exist_ok=True)
            stamp.write_text(now)
        except OSError:
            pass  # read-only: numba then caches elsewhere (another locator), and we leave it be


drop_stale_cache()
