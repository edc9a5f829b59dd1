"""The value every CI test returns."""
from __future__ import annotations

from typing import NamedTuple


class CIResult(NamedTuple):
    """Outcome of one conditional-independence test of x ⟂ y | S.

    statistic: the test statistic (signed z for Kendall and Fisher-z; χ² or G for the
        contingency tests).
    p_value: in [0, 1]; large means "looks independent".
    dof: degrees of freedom (χ²/G: summed per-stratum (r−1)(c−1) over non-empty rows and
        columns; Fisher-z: n − |S| − 3; Kendall: the number of strata that contributed).
    """

    statistic: float
    p_value: float
    dof: float
