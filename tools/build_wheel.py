"""``make wheel``: a wheel of rootwise that carries its kernels precompiled for this platform.

    python tools/build_wheel.py [--source DIR] [--dist DIR]

1. Compiles every kernel for the generic CPU of this platform into ``rootwise/_kernels``
   (``tools/ship_kernels.py``, in a child process with NUMBA_CPU_NAME=generic).
2. Builds the wheel with pip (no isolation, no dependencies downloaded: the environment's
   setuptools builds it).
3. Makes it say what it holds: tagged for this Python and platform
   (``rootwise-<version>-cp311-cp311-linux_x86_64.whl``), since the kernels are machine code for
   them, and requiring exactly the numba the kernels were compiled by (another numba would
   ignore them and compile; the README says why the pin lives in the wheel only).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def tags() -> str:
    """This interpreter's wheel tag: cp311-cp311-linux_x86_64."""
    python = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"{python}-{python}{sys.abiflags}-{platform}"


def ship_kernels(source: Path) -> None:
    env = {**os.environ, "NUMBA_CPU_NAME": "generic", "ROOTWISE_SHIP_KERNELS": "1",
           "PYTHONPATH": str(source) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("NUMBA_CACHE_DIR", None)
    subprocess.run([sys.executable, str(source / "tools" / "ship_kernels.py")], env=env,
                   cwd=source, check=True)


def retag(wheel: Path, dist: Path, numba_version: str) -> Path:
    """The wheel with its tags and numba requirement set, packed into ``dist``."""
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([sys.executable, "-m", "wheel", "unpack", "-d", work, str(wheel)],
                       check=True, stdout=subprocess.DEVNULL)
        (unpacked,) = Path(work).iterdir()
        (info,) = unpacked.glob("*.dist-info")
        metadata = info / "METADATA"
        text = metadata.read_text(encoding="utf-8")
        text, count = re.subn(r"^Requires-Dist: numba\b[^;\n]*", f"Requires-Dist: numba=={numba_version}",
                              text, flags=re.M)
        if count != 1:
            raise SystemExit(f"build_wheel: no numba requirement in {metadata}")
        metadata.write_text(text, encoding="utf-8")
        description = info / "WHEEL"
        lines = [line for line in description.read_text().splitlines()
                 if line and not line.startswith(("Tag:", "Root-Is-Purelib:"))]
        description.write_text("\n".join([*lines, "Root-Is-Purelib: false", f"Tag: {tags()}"]) + "\n")
        dist.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([sys.executable, "-m", "wheel", "pack", "-d", str(dist), str(unpacked)],
                              capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"build_wheel: wheel pack failed:\n{done.stdout}{done.stderr}")
    (packed,) = re.findall(r"\S+\.whl", done.stdout)
    return Path(packed)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=HERE, help="rootwise's source tree")
    parser.add_argument("--dist", type=Path, default=None, help="where the wheel goes "
                        "(default: SOURCE/dist)")
    parser.add_argument("--reuse-kernels", action="store_true", help="package the kernels "
                        "already in SOURCE/rootwise/_kernels instead of compiling them again "
                        "(they must be current: rootwise ignores stale ones and compiles)")
    args = parser.parse_args(argv)
    source = args.source.resolve()
    dist = (args.dist or source / "dist").resolve()
    if not args.reuse_kernels:
        ship_kernels(source)
    manifest = json.loads((source / "rootwise" / "_kernels" / "manifest.json").read_text())
    with tempfile.TemporaryDirectory() as plain:
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                        "--no-build-isolation", "-w", plain, str(source)], check=True)
        shutil.rmtree(source / "build", ignore_errors=True)
        (wheel,) = Path(plain).glob("rootwise-*.whl")
        built = retag(wheel, dist, manifest["numba"])
    print(f"built {built}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
