"""numba kernels: arrays in, arrays out. No Python objects, fixed dtypes (see ``_config``).

Kernels are compiled with ``cache=True``. numba re-validates a cached function only against its
own file, not against the functions it calls in other files or the constants it reads from
``_config``: after an edit there, a stale cached caller would run old machine code (seen as a
segmentation fault). So on import we fingerprint every kernel source and drop this package's
cache files when the fingerprint changes.
"""

import hashlib
from pathlib import Path


def _drop_stale_cache() -> None:
    here = Path(__file__).parent
    sources = sorted(here.glob("*.py")) + [here.parent / "_config.py"]
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    fingerprint = digest.hexdigest()
    cache = here / "__pycache__"
    stamp = cache / "rootwise-kernels.sha256"
    try:
        if stamp.read_text() == fingerprint:
            return
    except OSError:
        pass
    try:
        cache.mkdir(exist_ok=True)
        for stale in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            stale.unlink()
        stamp.write_text(fingerprint)
    except OSError:
        pass  # a read-only install: numba then caches elsewhere, per user, and we leave it be


_drop_stale_cache()
