"""ε at δ of k identical pure ε-DP releases, from their privacy-loss distribution in closed form.

dp_accounting's ``from_privacy_parameters(ε, 0)`` (Meiser & Mohammadi 2018; Google's PLD accountant, supplementary
§3.5) gives each release the pessimistic two-point privacy-loss distribution: loss ⌈ε/Δ⌉·Δ with probability
1/(1 + e^−ε) and ⌈−ε/Δ⌉·Δ with probability 1/(1 + e^ε), Δ = the value discretisation interval. Its k-fold
composition is a binomial on the lattice i·⌈ε/Δ⌉ + (k − i)·⌈−ε/Δ⌉ (i = 0..k) with probabilities
C(k, i)·p^i·q^(k−i); dp_accounting computes it with one FFT over the k·(2ε/Δ)-cell grid and drops tails of
total mass ≤ ``tail`` (1e-15), which it charges as infinite loss. Here the binomial is evaluated term by term
(log space), the same ``tail`` is charged as infinite loss and nothing is dropped (so this value is never below
dp_accounting's exact-arithmetic answer), and ε is found by dp_accounting's own search
(``pld_pmf._get_epsilon_for_delta``): walk the losses from the top, adding p_l and p_l·e^−l, and stop at the
first loss l with ln((Σp − δ)/Σp·e^−l) ≥ l. Empty grid cells add no mass: skipping them changes nothing.
The two differ by dp_accounting's FFT round-off (≈1e-18 per grid cell), which matters only for small δ: ≤ 1e-9
relative at δ ≥ 1e-5, ≤ 1e-8 at δ = 1e-6, up to 1e-6 at δ = 1e-9 (tests/unit/test_pld_pure.py checks 1e-8 relative
for δ ≥ ``PURE_MIN_DELTA``). The ledger takes the grid step ``interval`` = ε, where nothing is rounded: the losses
are exactly (2i − k)·ε, the composition of k ε-DP releases without discretisation (dp_accounting's step 10⁻³
rounds a loss of ε ≪ 10⁻³ up to 10⁻³). It needs neither numpy nor scipy: the sparse-vector algorithms, whose
releases are all pure ε of one size, skip importing dp_accounting (with scipy.stats and scipy.signal) and its FFT.
"""
from __future__ import annotations

import math

__all__ = ["pure_epsilon_pld", "MIN_COMPOSED", "PURE_MIN_DELTA"]

#: dp_accounting keeps a k-fold composition of a two-point PLD sparse (exact products, a different truncation)
#: while 2^k ≤ 1000; from k = 10 on it goes through the dense FFT path that this module reproduces.
MIN_COMPOSED = 10
#: the smallest δ at which this form at dp_accounting's step equals dp_accounting's to 1e-8 relative (module docstring)
PURE_MIN_DELTA = 1e-5


def pure_epsilon_pld(epsilon: float, k: int, delta: float, interval: float = 1e-3, tail: float = 1e-15) -> float:
    """ε at δ of the k-fold composition (k ≥ ``MIN_COMPOSED``) of the pessimistic PLD of one ε-DP release,
    discretised at ``interval`` with ``tail`` charged as infinite loss (dp_accounting's defaults for
    ``self_compose``)."""
    if not (epsilon > 0 and k >= MIN_COMPOSED and 0 < delta < 1):
        raise ValueError(f"need ε > 0, k ≥ {MIN_COMPOSED}, 0 < δ < 1 (got ε={epsilon}, k={k}, δ={delta})")
    up = math.ceil(epsilon / interval)
    down = math.ceil(-epsilon / interval)
    log_p = -math.log1p(math.exp(-epsilon))  # ln 1/(1 + e^−ε)
    log_q = -math.log1p(math.exp(epsilon))  # ln 1/(1 + e^ε)
    log_kfact = math.lgamma(k + 1)
    mass_upper, mass_lower = tail, 0.0  # Σ p_l (with the infinite-loss mass) and Σ p_l·e^−l over losses above
    if mass_upper > delta:
        return math.inf
    loss = 0.0
    for i in range(k, -1, -1):  # losses from the top: i releases at the upper value
        loss = (i * up + (k - i) * down) * interval
        if mass_upper > delta and mass_lower > 0 and math.log((mass_upper - delta) / mass_lower) >= loss:
            break
        prob = math.exp(log_kfact - math.lgamma(i + 1) - math.lgamma(k - i + 1) + i * log_p + (k - i) * log_q)
        mass_upper += prob
        mass_lower += math.exp(-loss) * prob
        if mass_upper >= delta and mass_lower == 0:
            return max(0.0, loss)
    if mass_upper <= mass_lower + delta:
        return 0.0
    return math.log((mass_upper - delta) / mass_lower)
