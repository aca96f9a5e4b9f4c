"""Fill ``rootwise/_kernels/`` with every kernel compiled for the generic CPU (``make wheel``).

    NUMBA_CPU_NAME=generic ROOTWISE_SHIP_KERNELS=1 python tools/ship_kernels.py

Runs ``rootwise.compile_kernels`` (every path that calls a kernel from Python) with the kernels
saved into the package's ``_kernels`` folder instead of numba's own cache, then writes the
manifest that says for which numba, Python, platform and sources they were built
(``rootwise/_shipped.py``). Starts from an empty folder, so nothing stale is shipped.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path


def main() -> int:
    if os.environ.get("NUMBA_CPU_NAME", "").lower() != "generic" or \
            os.environ.get("ROOTWISE_SHIP_KERNELS") != "1":
        print("ship_kernels: run with NUMBA_CPU_NAME=generic ROOTWISE_SHIP_KERNELS=1",
              file=sys.stderr)
        return 2
    # emptied before rootwise is imported: importing makes the folders its kernels save into
    package = Path(importlib.util.find_spec("rootwise").origin).parent
    shutil.rmtree(package / "_kernels", ignore_errors=True)
    import rootwise
    from rootwise import _shipped

    assert _shipped.SHIPPED == package / "_kernels"
    report = rootwise.compile_kernels(lambda message: print(f"compiling: {message}", flush=True),
                                      processes=None)  # one process per core
    kernels = sum(1 for _ in _shipped.SHIPPED.rglob("*.nbi"))
    manifest = _shipped.write_manifest(kernels)
    size = sum(f.stat().st_size for f in _shipped.SHIPPED.rglob("*") if f.is_file())
    print(f"shipped {kernels} kernels ({size / 2**20:.1f} MB) in {report['seconds']:.0f} s "
          f"for numba {manifest['numba']}, Python {manifest['python']}, {manifest['triple']}")
    return 0 if kernels else 1


if __name__ == "__main__":
    sys.exit(main())
