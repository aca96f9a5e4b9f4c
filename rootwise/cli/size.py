"""The memory a fit would take, bounded before the table is parsed and before the fit allocates.

A wide table costs the engine per column whatever its rows (the column's candidate split, its
kind and categories, its presorted order, the scratch of its scan) and, like any table, per cell;
pandas' reader costs per column too. These rates were measured (peak resident memory of fits of
4 to 400 rows by 10^3 to 10^5 columns, each algorithm, the largest kept; see the report of the
change). A table whose fit would take more than the memory available is refused with its size,
the estimate and the limit: ``--max-memory`` sets another limit.
"""

from __future__ import annotations

import re
import resource

PER_COLUMN = 16_000  # bytes: engine and reader, per column, at any number of rows
PER_CELL = 40  # bytes per cell: the float64 matrix, presorted orders and segments, pandas' copy
PER_ROW = 400  # bytes per row: row ids, weights, targets, the fitted tree's tables


def fit_bytes(n_rows: int, n_columns: int) -> int:
    """Estimated peak memory of reading and fitting a table of n_rows x n_columns."""
    return PER_COLUMN * n_columns + PER_CELL * n_rows * n_columns + PER_ROW * n_rows


def available_bytes() -> int | None:
    """Memory this process may still take: the system's available memory (Linux' MemAvailable),
    or the address-space limit when that is lower; None when neither is known."""
    limits = []
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    limits.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        limits.append(soft)
    return min(limits) if limits else None


def parse_size(text: str) -> int:
    """"8G", "500M", "2.5GB", "1000000" (bytes) -> bytes."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*", text, re.IGNORECASE)
    if not match:
        raise ValueError(f"expected a size such as 8G or 500M, got {text!r}")
    scale = 1024 ** " kmgt".index(match.group(2).lower() or " ")
    return int(float(match.group(1)) * scale)


def human(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n:,.1f} GB"


def too_large(n_rows: int, n_columns: int, limit: int | None) -> str | None:
    """Why a fit of n_rows x n_columns would not fit in ``limit`` bytes, or None when it would."""
    if limit is None:
        return None
    need = fit_bytes(n_rows, n_columns)
    if need <= limit:
        return None
    return (f"{n_columns:,} columns x {n_rows:,} rows would take about {human(need)} to read "
            f"and fit ({human(PER_COLUMN)} a column and {PER_CELL} bytes a cell), more than the "
            f"{human(limit)} available; drop columns (--ignore) or give --max-memory SIZE to "
            f"allow more")


def limit_of(args) -> int | None:
    given = getattr(args, "max_memory", None)
    return given if given is not None else available_bytes()
