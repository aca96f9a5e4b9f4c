"""What a benchmark ran on: cores, CPU model, Python and library versions (one line each)."""

from __future__ import annotations

import os
import platform
import sys
from importlib import metadata


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def load() -> str:
    """1, 5 and 15 minute load averages (above the core count: the timings shared the machine)."""
    try:
        return " / ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def rootwise_source() -> str:
    """Where ``import rootwise`` loads from (PYTHONPATH may point at another checkout), and that
    checkout's commit when it is a git work tree ("+dirty" with uncommitted changes)."""
    import importlib.util
    import subprocess

    spec = importlib.util.find_spec("rootwise")
    if spec is None or spec.origin is None:
        return "rootwise not importable"
    where = os.path.dirname(os.path.dirname(spec.origin))
    try:
        commit = subprocess.run(["git", "-C", where, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", where, "status", "--porcelain", "--", "rootwise"],
                               capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return where
    if commit.returncode != 0:
        return where
    return f"{where} at {commit.stdout.strip()}{'+dirty' if dirty.stdout.strip() else ''}"


def machine_lines() -> list[str]:
    cores = os.cpu_count()
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = cores
    libs = ", ".join(f"{name} {version(dist)}" for name, dist in (
        ("rootwise", "rootwise"), ("numpy", "numpy"), ("numba", "numba"),
        ("scikit-learn", "scikit-learn"), ("lightgbm", "lightgbm")))
    return [
        f"machine: {cpu_model()}, {usable} usable core(s) of {cores}, {platform.system()} "
        f"{platform.machine()}",
        f"python {platform.python_version()} ({sys.implementation.name}); {libs}",
        f"rootwise from {rootwise_source()}",
        f"load average (1 / 5 / 15 min) at start: {load()}",
    ]


def print_table_head(head: str) -> None:
    """Print a Markdown table's header row and its ``|---|`` rule, one cell per column."""
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
