"""How much work a discovery run asks for, known before it starts (for a shared server's per-request ceiling).

The estimate is in *row-passes*: a CI test of the PC family is one counting pass over the n rows, and PC asks at most
C(d, 2) tests per order for each pair still linked; orders beyond the third are rare on sparse graphs, so four
orders' worth is the planning figure (measured: PC on Alarm, n = 100,000, makes 5,778 tests ≈ 2.2 × C(37, 2)).
Encrypted runs pay the ciphertext arithmetic per test whatever n is — about 6e7 row-passes' worth (0.4 s) per test on
this kind of machine (Asia: 31 s; Sachs: 203 s). NOTEARS pays d³ per optimiser step. These are estimates for refusing runs that would hold
a shared server for minutes, not timings: the CLI has no ceiling.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

__all__ = ["work_units", "DEFAULT_CEILING", "ceiling", "seconds_hint", "UNITS_PER_SECOND"]

#: Row-passes a 2-core machine makes per second in PC's counting loop (Alarm, n = 100,000: about 1.5e8 per s).
UNITS_PER_SECOND = 1.5e8
#: The default per-request ceiling: about a minute of one core at UNITS_PER_SECOND (Asia's encrypted run fits,
#: Sachs's does not). Set CGD_MAX_WORK to change it (0 = no ceiling).
DEFAULT_CEILING = 1e10
#: Ciphertext cost of one encrypted test, in row-passes.
FHE_TEST_UNITS = 6e7


def ceiling() -> float:
    """The per-request ceiling in row-passes (CGD_MAX_WORK, or the default); ``inf`` when set to 0."""
    from cgdcore.environment import env_number

    v = env_number("CGD_MAX_WORK", DEFAULT_CEILING)
    return math.inf if v <= 0 else v


def work_units(algo: str, n: int, d: int, *, max_order: int | None = None,
               options: Mapping[str, Any] | None = None, ldp: Mapping[str, Any] | None = None) -> float:
    """Estimated row-passes of one ``discover`` run on ``n`` rows and ``d`` variables (see the module docstring)."""
    options = options or {}
    pairs = math.comb(max(d, 2), 2)
    orders = 1 + min(3 if max_order is None else max_order, 3)
    if algo in ("notears", "noleaks", "curate-score"):
        steps = int(options.get("iterations") or 200) * (10 if options.get("release") == "gradient" or
                                                          algo == "curate-score" else 1)
        return n * d * d + steps * d ** 3 * 50.0
    if algo == "fhe-pc" and options.get("mode", "warm") in ("warm", "paper"):
        return pairs * orders * FHE_TEST_UNITS
    units = float(n) * pairs * orders
    if algo == "em-pc":
        units *= 4.0  # its utility searches flip distances per candidate set
    if ldp and ldp.get("debias"):
        units *= 1.0 + int(ldp.get("n_boot") or 99) / 10.0  # bootstrap replicates of small tables
    return units


def seconds_hint(units: float) -> float:
    return units / UNITS_PER_SECOND
