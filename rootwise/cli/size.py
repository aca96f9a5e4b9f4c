"""The memory a fit would take, bounded before the table is parsed and before the fit allocates.

A wide table costs the engine per column whatever its rows (the column's candidate split, its
kind and categories, its presorted order, the scratch of its scan), and ID3 most: it makes every
distinct value of a numeric column a category. A tall one costs per row (row ids, weights,
segments, and the node tables of a tree grown until its leaves are pure) and per cell (the
float64 matrix, the presorted orders, pandas' own copy), and any fit a few MB more (CART's first
cross-validation imports scikit-learn's folds). The rates below were measured as the peak
resident memory of reading a CSV and fitting it, over the process's memory before (4 x 10,000,
20,000 x 5 to 100,000 x 20 tables, each algorithm), rounded up: ID3 took 34 KB a column, the
others 6 KB; CART 1.3 KB a row, ID3 and C4.5 less; 15 MB at 2,000 x 50. A table whose fit would
take more than the memory available is refused with its size, the estimate and the limit;
``--max-memory`` sets another limit.
"""

from __future__ import annotations

import re
import resource

# bytes per column, by --algorithm
PER_COLUMN = {"id3": 40_000, "c4.5": 8_000, "cart": 8_000, "cart-regressor": 8_000}
PER_CELL = 40
PER_ROW = 1_500
FIXED = 64 * 2**20  # whatever the size: modules a first fit imports, fixed-size scratch


def per_column(algorithm: str | None) -> int:
    """Bytes per column of ``algorithm`` (the largest when it is not known yet)."""
    return PER_COLUMN.get(str(algorithm).lower(), max(PER_COLUMN.values()))


def fit_bytes(n_rows: int, n_columns: int, algorithm: str | None = None) -> int:
    """Estimated peak memory of reading and fitting a table of n_rows x n_columns."""
    return (FIXED + per_column(algorithm) * n_columns + PER_CELL * n_rows * n_columns
            + PER_ROW * n_rows)


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


def too_large(n_rows: int, n_columns: int, limit: int | None, algorithm: str | None = None):
    """Why a fit of n_rows x n_columns would not fit in ``limit`` bytes, or None when it would."""
    if limit is None:
        return None
    need = fit_bytes(n_rows, n_columns, algorithm)
    if need <= limit:
        return None
    return (f"{n_columns:,} columns x {n_rows:,} rows would take about {human(need)} to read "
            f"and fit ({human(per_column(algorithm))} a column, {PER_CELL} bytes a cell), more "
            f"than the {human(limit)} available; drop columns (--ignore) or give --max-memory "
            f"SIZE to allow more")


def limit_of(args) -> int | None:
    """--max-memory, else the memory available."""
    given = getattr(args, "max_memory", None)
    return given if given is not None else available_bytes()
