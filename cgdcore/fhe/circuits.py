"""The χ² and G² circuits of the FHE paper, written once over any arithmetic type.

The same Python function runs on numpy arrays (the noise-free emulation), on CKKS ciphertexts
(TenSEAL ``CKKSVector``: ``+``, ``-`` and ``*`` with ciphertexts or scalars) and on
:class:`Depth`, a tracker that counts multiplicative levels so the CKKS modulus chain is sized
from the circuit itself rather than by hand.

Inputs are the aggregated counts divided by the public n, one slot per (test, cell (x, y, z)):
``A = N_xyz/n, B = N_x+z/n, C = N_+yz/n, E = N_++z/n`` (seed 003 §III-C, Alg. 2 sends all four).

* χ² (paper §III-C3, Fig. 5, with the Σ its derivation drops):
  χ² = n Σ (A·E − B·C)² · 1/(B·C·E)
* G² (§III-C4, Fig. 6): G² = 2n Σ A · log(A·E · 1/(B·C))

with one Newton–Raphson reciprocal per cell (Eq. 4: r ← r(2 − x r)) and a Taylor series of
log around 1 (§III-C2: log(1+u) ≈ u − u²/2 + u³/3 − …). Empty cells contribute 0 in both
circuits (A = 0, and B·C = 0 forces A·E − B·C = 0), whatever the reciprocal does there.
"""
from __future__ import annotations

import numpy as np

from cgdcore.cancel import checkpoint

STATISTICS = ("g2", "chi2")
#: How G² evaluates its log: the paper's Taylor series of log(1+u) around 1, or the series of
#: log r = 2·atanh((r−1)/(r+1)), which converges for every ratio r > 0.
LOG_SERIES = ("taylor", "atanh")


class Depth:
    """A stand-in value that records the multiplicative depth (CKKS levels) of a circuit.

    Adding a public scalar costs nothing; multiplying by a ciphertext or by a public scalar
    costs one level (CKKS rescales after every product); operands at different levels meet at
    the deeper one (modulus switching).
    """

    __slots__ = ("level",)

    def __init__(self, level: int = 0):
        self.level = level

    @staticmethod
    def _lv(v) -> int:
        return v.level if isinstance(v, Depth) else 0

    def __add__(self, o):
        return Depth(max(self.level, self._lv(o)))

    __radd__ = __add__

    def __sub__(self, o):
        return Depth(max(self.level, self._lv(o)))

    __rsub__ = __sub__

    def __neg__(self):
        return Depth(self.level)

    def __mul__(self, o):
        return Depth(max(self.level, self._lv(o)) + 1)

    __rmul__ = __mul__


def reciprocal(x, r0, iterations: int):
    """Newton–Raphson 1/x (paper Eq. 4): r_{t+1} = r_t (2 − x r_t), from the guess r0.

    Converges (quadratically) iff 0 < r0·x < 2; the relative error after t steps is
    (1 − r0 x)^(2^t). A public scalar r0 folds the first step into r1 = 2 r0 − r0² x (one level);
    an encrypted r0 (the warm start) costs two levels per step from the first.
    """
    if np.isscalar(r0):
        r = x * (-float(r0) ** 2) + 2.0 * float(r0)
        steps = iterations - 1
    else:
        r = r0
        steps = iterations
    for _ in range(steps):
        checkpoint()
        r = r * (-(x * r) + 2.0)
    return r


def log1p_taylor(u, terms: int):
    """log(1 + u) ≈ Σ_{k=1..terms} (−1)^{k+1} u^k / k (paper §III-C2, expansion point 1).

    Each term is formed as (c_k·u)·u^{k−1}, so the public coefficient costs no extra level beyond
    the power's. Every product that reads u at its own level is formed first: CKKS libraries
    lower an operand *in place* when it meets a deeper one, and a later product from the lowered
    u would cost one more level than the circuit needs.
    """
    if terms < 1:
        raise ValueError("the Taylor series needs at least one term")
    if terms == 1:
        return u
    scaled = [u * ((-1.0) ** (k + 1) / k) for k in range(2, terms + 1)]  # c_k·u, k = 2..terms
    powers = [u, u * u] if terms > 2 else [u]  # u^{k-1}, k = 2..terms
    while len(powers) < terms - 1:
        checkpoint()
        powers.append(powers[-1] * u)
    out = u
    for c_u, power in zip(scaled, powers):
        checkpoint()
        out = out + c_u * power
    return out


def atanh_series(z, terms: int, factor: float = 1.0):
    """factor·atanh z ≈ factor·Σ_{k=0..terms−1} z^{2k+1}/(2k+1); converges for |z| < 1 with error
    O(z^{2·terms+1}). The factor rides on the coefficients (no extra level). Same ordering rule
    as :func:`log1p_taylor`: every product from z at its own level is formed first.
    """
    if terms < 1:
        raise ValueError("the series needs at least one term")
    scaled = [z * (factor / (2 * k + 1)) for k in range(terms)] if factor != 1.0 else \
        [z] + [z * (1.0 / (2 * k + 1)) for k in range(1, terms)]
    if terms == 1:
        return scaled[0]
    z2 = z * z
    powers = [z2]  # z^{2k}, k = 1..terms-1
    while len(powers) < terms - 1:
        checkpoint()
        powers.append(powers[-1] * z2)
    out = scaled[0]
    for c_z, power in zip(scaled[1:], powers):
        checkpoint()
        out = out + c_z * power
    return out


def reciprocal_input(stat: str, log_series: str, A, B, C, E):
    """What the Newton–Raphson step inverts: B·C (G², Taylor), A·E + B·C (G², atanh), B·C·E (χ²)."""
    if stat == "chi2":
        return B * C * E
    return A * E + B * C if log_series == "atanh" else B * C


def cell_values(stat: str, A, B, C, E, *, r0, iterations: int, taylor_terms: int = 3, log_series: str = "taylor"):
    """Per-cell contributions of the batched statistic (sum them per test, times n or 2n).

    ``r0``: a public scalar guess, or an encrypted per-slot guess (the warm start) for the
    reciprocal's input (:func:`reciprocal_input`). ``log_series="atanh"`` (beyond the paper):
    A·log(AE/BC) = 2A·atanh((AE − BC)/(AE + BC)) — still one reciprocal per cell, and the series
    argument lies in (−1, 1) for every cell, where the Taylor series of log(1+u) diverges once
    the ratio AE/BC exceeds 2 (strong dependence). ``taylor_terms`` counts the series' terms.
    """
    if stat == "g2":
        if log_series == "atanh":
            ae = A * E
            bc = B * C
            z = (ae - bc) * reciprocal(ae + bc, r0, iterations)
            return A * atanh_series(z, taylor_terms, factor=2.0)
        if log_series != "taylor":
            raise ValueError(f"unknown log series {log_series!r}; choose one of {LOG_SERIES}")
        den = B * C
        ratio = (A * E) * reciprocal(den, r0, iterations)
        return A * log1p_taylor(ratio - 1.0, taylor_terms)
    if stat == "chi2":
        bc = B * C
        diff = A * E - bc  # A·E before bc·E: E is read at its own level first
        den = bc * E
        return (diff * diff) * reciprocal(den, r0, iterations)
    raise ValueError(f"unknown statistic {stat!r}; choose one of {STATISTICS}")


def circuit_depth(stat: str, *, warm_start: bool, iterations: int, taylor_terms: int = 3,
                  log_series: str = "taylor") -> int:
    """Multiplicative depth of :func:`cell_values` (levels the CKKS chain must provide)."""
    fresh = Depth(0)
    r0 = Depth(0) if warm_start else 1.0
    return cell_values(stat, fresh, fresh, fresh, fresh, r0=r0, iterations=iterations,
                       taylor_terms=taylor_terms, log_series=log_series).level
