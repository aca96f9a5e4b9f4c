"""numba's on-disk cache, kept consistent with the sources.

Kernels are compiled with ``cache=True``. numba re-validates a cached function only against its
own file, not against the functions it calls in other files or the constants it reads from
``_config``: after an edit there, a stale cached caller would run old machine code (seen as a
segmentation fault). So on import we fingerprint every kernel module of the package (a file that
uses ``njit``) and ``_config``, and drop the package's cache files when the fingerprint changes.
"""

import hashlib
from pathlib import Path

PACKAGE = Path(__file__).parent
STAMP_NAME = "rootwise-kernels.sha256"


def kernel_sources() -> list[Path]:
    """The package's kernel modules and ``_config.py``, in a fixed order."""
    found = [p for p in sorted(PACKAGE.rglob("*.py")) if b"njit" in p.read_bytes()]
    return found + [PACKAGE / "_config.py"]


def fingerprint() -> str:
    digest = hashlib.sha256()
    for path in kernel_sources():
        digest.update(str(path.relative_to(PACKAGE)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def drop_stale_cache() -> None:
    stamp = PACKAGE / "__pycache__" / STAMP_NAME
    now = fingerprint()
    try:
        if stamp.read_text() == now:
            return
    except OSError:
        pass
    try:
        for stale in list(PACKAGE.rglob("__pycache__/*.nbi")) + list(PACKAGE.rglob("__pycache__/*.nbc")):
            stale.unlink()
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(now)
    except OSError:
        pass  # a read-only install: numba then caches elsewhere, per user, and we leave it be


drop_stale_cache()
