"""The byte budget of the core's deterministic caches, and the bytes charged for what they keep.

Every dataset's shared sufficient statistics (:func:`cgdcore.citests.suffstats_for`) keep stratum codes,
contingency tables and the results of the CI tests run on them. Together they are bounded by
``CGD_CORE_CACHE_MB`` (MiB, :data:`DEFAULT_MB` when unset): least recently used datasets are forgotten first.
Within one dataset each kind of cache has its own share of that budget (:func:`shares`), so a single run cannot
grow past it either.
"""
from __future__ import annotations

from cgdcore.environment import env_number

__all__ = ["DEFAULT_MB", "core_cache_bytes", "shares", "ENTRY_OVERHEAD", "RESULT_ENTRY_BYTES"]

#: default budget of the core's caches in MiB (CGD_CORE_CACHE_MB changes it)
DEFAULT_MB = 512.0

#: Bytes charged per cached array besides its buffer: two ndarray headers (a reshaped table keeps its base, ≈ 224),
#: the key and its S tuple (≈ 120), the stored (value, size) pair (≈ 90) and the ordered-dict node and slot (≈ 150):
#: ≈ 600 measured by tracemalloc on small tables, charged 1 KiB (tests/unit/test_core_cache_budget.py checks it).
ENTRY_OVERHEAD = 1024

#: Bytes charged per cached CI result (or memoised value): the key (x, y, S) with S of up to 8 variables
#: (≈ 64 + 40 + 8·|S|), the CIResult named tuple and its three floats (≈ 64 + 72), the dict slot at its worst
#: load (≈ 110), rounded up. Checked against tracemalloc in tests/unit/test_core_cache_budget.py.
RESULT_ENTRY_BYTES = 512


def core_cache_bytes() -> int:
    """The budget in bytes: CGD_CORE_CACHE_MB (MiB, > 0), else :data:`DEFAULT_MB`."""
    mb = env_number("CGD_CORE_CACHE_MB", DEFAULT_MB)
    return int((mb if mb > 0 else DEFAULT_MB) * 2**20)


def shares(budget: int | None = None) -> dict[str, int]:
    """Bytes each cache of one dataset may hold: stratum codes 1/4 of the budget (at most 112 MiB, the size that
    pays on the largest networks), tables 1/8 (at most 32 MiB), each CI test's results 1/8."""
    b = core_cache_bytes() if budget is None else int(budget)
    return {"strata": min(b // 4, 112 * 2**20), "tables": min(b // 8, 32 * 2**20), "results": b // 8}
