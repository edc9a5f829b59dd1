"""The root of a monotone function on a bracketing interval, by bisection to the last bit of a double.

The Laplace-noise critical value (:func:`cgdcore.central.scale.critical_value`) solves a strictly decreasing
tail equation; bisection needs no derivative, cannot leave the bracket, and takes at most ~1,100 halvings
(usually ~60) to reach adjacent doubles, so a private run needs no ``scipy.optimize`` import (≈0.2 s CPU)."""
from __future__ import annotations

from typing import Callable

__all__ = ["bisect_root"]


def bisect_root(f: Callable[[float], float], lo: float, hi: float) -> float:
    """x in [lo, hi] where f changes sign, to within one ulp; f(lo) and f(hi) must differ in sign (or be 0)."""
    flo, fhi = f(lo), f(hi)
    if flo == 0:
        return lo
    if fhi == 0:
        return hi
    if (flo > 0) == (fhi > 0):
        raise ValueError("f(lo) and f(hi) must have different signs")
    while True:
        mid = lo + (hi - lo) / 2
        if mid <= lo or mid >= hi:  # adjacent doubles: nothing left to halve
            return lo if abs(flo) <= abs(fhi) else hi
        fm = f(mid)
        if fm == 0:
            return mid
        if (fm > 0) == (flo > 0):
            lo, flo = mid, fm
        else:
            hi, fhi = mid, fm
