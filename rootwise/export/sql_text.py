"""SQL spelling: quoted identifiers, literals that a database reads back exactly, and conjunctions
that stay shallow.

Numbers are written so that the database gets the very double the model holds, in the fewest
digits: those of the shortest decimal that rounds to the double (Python's ``repr``). A plain
decimal literal is not enough, because SQLite's decimal to binary conversion is not correctly
rounded (3.40 reads about 1 in 10^4 short literals such as 8.3149343 or 22.930396 one unit in the
last place off). So a number is written as plain decimal only when that decimal *is* the double
(6.5, 0.375); otherwise, when its shortest digits n and scale 10^k have n < 2^53 and k <= 22, as
one division ``(6941.0 / 1000)``: both operands are exact and IEEE division rounds correctly, so
every database gets the double (Clinger 1990's fast path). The rare double whose shortest decimal
needs 16-17 digits is written exactly in binary, an odd integer times powers of two with the
short decimal in a comment: ``(6872493031367377.0 / 4503599627370496.0 / 4.0 /* 0.3815 */)``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

TWO_53 = 2 ** 53
# terms of an AND joined flat before the conjunction is nested: SQLite counts every AND of a flat
# chain as one level of its expression depth (at most 1000)
FLAT_TERMS = 16


def identifier(name) -> str:
    """A double-quoted identifier (the SQL standard's; SQLite, PostgreSQL, DuckDB, ...)."""
    text = str(name)
    if text == "" or "\x00" in text:
        raise ValueError(f"cannot write {name!r} as a SQL identifier (empty, or holds a NUL).")
    return '"' + text.replace('"', '""') + '"'


def number(v) -> str:
    """A finite float as a SQL literal that reads back as exactly the same double."""
    v = float(v)
    if not math.isfinite(v):
        raise ValueError(f"cannot write {v!r} as a SQL number.")
    if v == 0.0:
        return "0.0"
    sign = "-" if v < 0 else ""
    n, e10 = _decimal_parts(abs(v))
    if n < TWO_53 and -22 <= e10 <= 22:
        return sign + _decimal_text(n, e10)
    n, e10 = _shortest_parts(abs(v))
    if n < TWO_53 and -22 <= e10 < 0:
        return f"({sign}{n}.0 / {10 ** -e10})"
    if n < TWO_53 and 0 <= e10 <= 22:
        return f"({sign}{n}.0 * {10 ** e10})"
    m, e2 = _binary_parts(abs(v))
    factor = " / " if e2 < 0 else " * "
    text = f"{m}.0"
    left = abs(e2)
    while left > 0:
        step = min(left, 52)
        text += f"{factor}{2 ** step}.0"
        left -= step
    return f"({sign}{text} /* {v!r} */)"


def _decimal_parts(v: float) -> tuple[int, int]:
    """(n, e) with v == n * 10**e exactly and n not a multiple of 10 (v > 0). A double is p / 2^k;
    with k > 0 that is p * 5^k / 10^k, and p is odd, so p * 5^k ends in no zero."""
    p, q = v.as_integer_ratio()
    k = q.bit_length() - 1
    if k:
        return p * 5 ** k, -k
    e = 0
    while p % 10 == 0:
        p //= 10
        e += 1
    return p, e


def _shortest_parts(v: float) -> tuple[int, int]:
    """(n, e) with n * 10**e the shortest decimal that rounds to v (v > 0, finite)."""
    mantissa, _, exp = repr(v).partition("e")
    whole, _, frac = mantissa.partition(".")
    frac = frac.rstrip("0")
    n = int(whole + frac)
    e = (int(exp) if exp else 0) - len(frac)
    while n and n % 10 == 0:
        n //= 10
        e += 1
    return n, e


def _decimal_text(n: int, e10: int) -> str:
    if e10 >= 0:
        whole = n * 10 ** e10
        return f"{whole}.0" if whole < TWO_53 else f"{n}e{e10}"
    digits = str(n).rjust(1 - e10, "0")
    return f"{digits[:e10]}.{digits[e10:]}"


def _binary_parts(v: float) -> tuple[int, int]:
    """(m, e) with v == m * 2**e exactly and m odd (v > 0)."""
    p, q = v.as_integer_ratio()
    if q > 1:
        return p, 1 - q.bit_length()
    e = (p & -p).bit_length() - 1  # trailing zero bits
    return p >> e, e


def literal(value) -> str:
    """A category or class label as a SQL literal: strings quoted ('' for a quote), booleans
    TRUE / FALSE, integers as integers, floats by ``number``."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError(f"cannot write the label {value!r} as a SQL string (it holds a NUL).")
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, numbers.Integral):
        if not -(2 ** 63) <= int(value) < 2 ** 63:
            raise ValueError(f"cannot write the label {value!r} as a SQL integer (64-bit).")
        return str(int(value))
    if isinstance(value, numbers.Real):
        return number(value)
    raise ValueError(f"cannot write the label {value!r} ({type(value).__name__}) as a SQL "
                     "literal: labels must be strings, numbers or booleans.")


def conjunction(terms: list[str]) -> str:
    """``a AND b AND ...``; past FLAT_TERMS terms, flat groups nested in parentheses, so that the
    depth of the expression grows with the logarithm of the number of terms."""
    if not terms:
        return "TRUE"
    while len(terms) > FLAT_TERMS:
        terms = [f"({' AND '.join(terms[i:i + FLAT_TERMS])})"
                 for i in range(0, len(terms), FLAT_TERMS)]
    return " AND ".join(terms)


def disjunction(terms: list[str]) -> str:
    """``a OR b OR ...`` of a few terms (each already parenthesised where needed)."""
    if not terms:
        return "FALSE"
    return " OR ".join(terms)


def grouped(term: str) -> str:
    """``term`` in parentheses unless it is one comparison (no top-level AND / OR)."""
    return f"({term})" if (" OR " in term or " AND " in term) else term
