"""Private CI-decision policies for the one PC engine: Laplace-PC, SVT-PC and Priv-PC.

Each policy noises the p-value of the conditional Kendall test (the only statistic here with
a bounded sensitivity, Priv-PC Theorem 3) and declares every release to the run's ledger.
"Independent" means the noisy p-value is at or above the threshold, the paper's
above-threshold convention (seed_privpc.md §0, Definition 4 and §9 item 9).

Noise is added by :func:`~cgdcore.central.mechanisms.noisy_value` with the policy's sampler:
Mironov's snapping mechanism by default (p-values and thresholds clamped to [−1, 1], or to
|threshold| when larger), numpy's plain Laplace draw on request. Every cost recorded and
budget-checked is :func:`~cgdcore.central.mechanisms.release_epsilon` of the noise drawn;
with snapping the noise scale comes from the ε of
:func:`~cgdcore.central.mechanisms.nominal_epsilon`, a hair below the planned (or per-round)
ε, so that the recorded ε, Mironov's 2^−49·B/λ term included, stays within it.
"""
from __future__ import annotations

import math
from math import comb

import numpy as np

from cgdcore.accounting import Ledger, advanced_composition_homogeneous, validate_epsilon
from cgdcore.central.mechanisms import (
    DEFAULT_SAMPLER,
    AboveThreshold,
    above_threshold_cost,
    amplified_epsilon,
    check_sampler,
    laplace_cost,
    nominal_epsilon,
    noisy_release,
    noisy_value,
    release_epsilon,
    sieve_epsilon,
)
from cgdcore.citests import make_ci_test
from cgdcore.pc import Decision

__all__ = [
    "PrivatePolicy",
    "LaplacePolicy",
    "SVTPolicy",
    "PrivPCPolicy",
    "optimal_subsample_ratio",
    "tests_at_order",
    "per_test_epsilon",
]


def tests_at_order(adjacency, order: int) -> int:
    """Upper bound on the CI queries of one PC level: for every edge {x, y}, the order-sized
    subsets of adj(x)\\{y} and of adj(y)\\{x} (a post-processing of earlier decisions)."""
    total = 0
    for x, nb in enumerate(adjacency):
        k = len(nb) - 1
        if k >= order:
            total += len(nb) * comb(k, order)
    return total // 2 if order == 0 else total


def per_test_epsilon(group_budget: float, t: int, delta_g: float) -> float:
    """Largest ε0 such that t releases of ε0 stay within ``group_budget`` under
    min(basic t·ε0, advanced composition at δ_g) (Dwork & Roth Thm 3.20)."""
    if t <= 0:
        return group_budget
    basic = group_budget / t

    def adv(e):
        return advanced_composition_homogeneous(t, e, delta_g)[0]

    if adv(basic) >= group_budget:
        return basic  # advanced does not help at this t
    lo, hi = basic, group_budget
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if adv(mid) <= group_budget:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * hi:
            break
    return lo


def optimal_subsample_ratio(eps: float, lo: float = 1.0, hi: float = 20.0) -> float:
    """x* = n/m minimising Priv-PC's noise level sqrt(x)/ln(x(e^{ε/2} − 1) + 1) over [lo, hi].

    Priv-PC §3 ("optimal sub-sampling rate"): the paper clips to (n/20, n); the reference
    code's unconstrained BFGS can wander off and return 1/20 at large ε, so this uses a
    bounded scalar minimiser instead (seed_privpc.md §2 caveat, §9 item 12).
    """
    from scipy.optimize import minimize_scalar

    if eps >= 50.0:  # x = 1 is optimal from ε ≈ 4.2 on (seed_privpc.md §2 caveat)
        return lo
    a = math.expm1(eps / 2.0)
    res = minimize_scalar(lambda x: math.sqrt(x) / math.log1p(x * a), bounds=(lo, hi), method="bounded",
                          options={"xatol": 1e-6})
    cands = [lo, hi, float(res.x)]
    return min(cands, key=lambda x: math.sqrt(x) / math.log1p(x * a))


class PrivatePolicy:
    """Shared parts: the full-data Kendall test, the ledger, the RNG, the stop flag."""

    stage = ""

    #: p-values live in [0, 1]: the snapping sampler's clamping range for them
    P_BOUND = 1.0

    def __init__(self, test, ledger: Ledger, rng: np.random.Generator, threshold: float,
                 sensitivity: float, sampler: str = DEFAULT_SAMPLER):
        if getattr(test, "name", None) != "kendall":
            from cgdcore import UserError

            raise UserError("private constraint-based algorithms need the 'kendall' CI test "
                            "(χ², G and Fisher-z have unbounded sensitivity).")
        self.test = test
        self.ledger = ledger
        self.rng = rng
        self.threshold = float(threshold)
        self.sensitivity = float(sensitivity)
        self.sampler = check_sampler(sampler)
        self.exhausted = False
        self.stop_reason: str | None = None
        self.order = 0

    def _stop(self, why: str) -> None:
        self.exhausted = True
        self.stop_reason = why

    def _budget_stop(self, eps: float, what: str = "release") -> None:
        self._stop(f"the privacy budget ε={self.ledger.budget:g} is spent: the next {what} "
                   f"(ε={eps:.3g}) would exceed it; untested edges were kept")

    def begin_order(self, order, adjacency):
        self.order = order

    def _laplace_p(self, x, y, S, order, eps):
        """One per-order Laplace release of the p-value costing at most ``eps``: (test result, noise,
        noisy p, ε recorded), or None when the budget refuses it (the policy then stops).

        Plain: Lap(Δ/ε), recording ε. Snapping: the scale Δ/ε_n of :func:`nominal_epsilon` (a hair
        larger), recording ε_n + 2^−49·B/λ ≤ ``eps``."""
        group = f"order {order}"
        eps_n = nominal_epsilon(eps, laplace_cost(self.sensitivity, self.sampler, self.P_BOUND))
        scale = self.sensitivity / eps_n
        cost = release_epsilon(eps_n, scale, self.sampler, self.P_BOUND)
        if not self.ledger.can_afford(cost, group):
            self._budget_stop(cost)
            return None
        r = self.test(x, y, S)
        self.ledger.record("laplace", cost, order=order, group=group,
                           laplace_ratio=1.0 / eps_n if self.sampler == "plain" else None,
                           what=f"p({x},{y}|{S})")
        noisy, noise = noisy_release(r.p_value, scale, self.rng, self.sampler, self.P_BOUND)
        return r, noise, noisy, cost


class LaplacePolicy(PrivatePolicy):
    """Laplace-PC: every CI decision releases p + Lap(Δ/ε_i) (Dwork et al. 2006).

    The total ε is split across the PC orders that can still run (uniform per order by
    default: the remaining budget divided by the remaining orders, so unspent budget carries
    forward). Within order l the per-test ε_l is the largest for which the order's
    ``tests_at_order`` upper bound of releases fits its share under min(basic, advanced
    composition); each order is one accounting group.
    """

    stage = "laplace"

    def __init__(self, test, ledger, rng, threshold, sensitivity, *, max_order: int,
                 sampler: str = DEFAULT_SAMPLER):
        super().__init__(test, ledger, rng, threshold, sensitivity, sampler)
        if ledger.budget is None:
            from cgdcore import UserError

            raise UserError("laplace-pc needs a total budget (--epsilon).")
        self.max_order = int(max_order)
        self.eps_test = 0.0
        self.plan: list[dict] = []

    def begin_order(self, order, adjacency):
        super().begin_order(order, adjacency)
        deg = max((len(a) for a in adjacency), default=0)
        last = min(self.max_order, max(deg - 1, order))
        orders_left = max(1, last - order + 1)
        share = self.ledger.remaining() / orders_left
        t = tests_at_order(adjacency, order)
        dg = self.ledger._group_delta()
        self.eps_test = per_test_epsilon(share, t, dg) if share > 0 else 0.0
        self.plan.append({"order": order, "budget": share, "tests_bound": t, "epsilon_per_test": self.eps_test})
        if self.eps_test <= 0 or not self.ledger.can_afford(self.eps_test, f"order {order}"):
            self._budget_stop(self.eps_test)

    def decide(self, x, y, S, order):
        eps = self.eps_test
        released = self._laplace_p(x, y, S, order, eps)
        if released is None:
            return Decision(False, float("nan"), float("nan"), stage="budget")
        r, noise, noisy, cost = released
        return Decision(noisy >= self.threshold, r.statistic, r.p_value, noise, noisy, self.threshold, cost, self.stage)


class SVTPolicy(PrivatePolicy):
    """SVT-PC: textbook AboveThreshold over the whole run (Dwork & Roth 2014, Alg. 1).

    Threshold noise Lap(2Δ/ε), query noise Lap(4Δ/ε), a fresh Laplace threshold after each
    "above" (= independent, delete) answer, which costs ε (seed_privpc.md §4.1, resolution
    of §9 item 13: the reference code's 8Δ/ε query noise and Gaussian refresh are not used).
    A hit costs ε (plain); with snapping the instance runs at the ε_n whose
    ε_n + 2^−49·(B/λ_ρ + B/λ_ν) (AboveThreshold's ``cost``, recorded) is at most ε.
    """

    stage = "svt"

    def __init__(self, test, ledger, rng, threshold, sensitivity, *, round_epsilon: float,
                 sampler: str = DEFAULT_SAMPLER):
        super().__init__(test, ledger, rng, threshold, sensitivity, sampler)
        self.round_epsilon = validate_epsilon(round_epsilon, "the per-round ε")
        bounds = (max(self.P_BOUND, abs(self.threshold)), self.P_BOUND)
        eps_n = nominal_epsilon(self.round_epsilon,
                                lambda e: above_threshold_cost(e, self.sensitivity, self.sampler, bounds))
        self.svt = AboveThreshold(self.threshold, self.sensitivity, eps_n, rng, ledger=None,
                                  sampler=self.sampler, bound=self.P_BOUND)
        self.hits = 0

    def decide(self, x, y, S, order):
        eps = self.svt.cost
        if not self.ledger.can_afford(eps, "svt"):
            self._budget_stop(eps, "sparse-vector round")
            return Decision(False, float("nan"), float("nan"), stage="budget")
        r = self.test(x, y, S)
        threshold = self.svt.noisy_threshold
        above, noisy, noise = self.svt.query(r.p_value)
        spent = 0.0
        if above:
            self.hits += 1
            self.ledger.record("above-threshold", eps, order=order, group="svt", what=f"hit on p({x},{y}|{S})")
            spent = eps
        return Decision(above, r.statistic, r.p_value, noise, noisy, threshold, spent, self.stage)


class PrivPCPolicy(PrivatePolicy):
    """Priv-PC (Wang, Pang & Song 2020), Algorithm 2: sieve-and-examine with sub-sampling.

    Sieve: p on an m-row sub-sample D' plus Lap(4Δ_m/ε') against T − t + Lap(2Δ_m/ε'), with
    ε' = ln((n/m)(e^{ε/2} − 1) + 1) (line 4) so the amplified sieve costs ε/2. On a sieve hit
    the sub-sample and the noisy threshold are refreshed at once, whatever the examine says
    (the reference code's semantics, the ones the privacy proof needs; seed_privpc.md §2
    "Refresh semantics", §9 item 6). Examine: p on the full data plus Lap(2Δ/ε) against the
    un-tweaked T (line 12), costing ε/2. Each round (one sieve hit) costs ε.

    Δ_m: ``"reference"`` Δ·sqrt(n/m) (the code; conservative) or ``"direct"`` Δ(m).

    With the snapping sampler the sieve records amplified(ε' + 2^−49·(B/λ_ρ + B/λ_ν)) and the
    examine ε/2 + 2^−49·B/λ_e (Mironov 2012, Theorem 1, per noise variable), both computed at
    the ε_n ≤ ε (``noise_epsilon``) that keeps each within ε/2.
    """

    stage = "sieve"

    def __init__(self, test, ledger, rng, threshold, sensitivity, *, round_epsilon: float, tweak: float = 0.02,
                 ratio: float | None = None, sub_sensitivity: float | None = None, sampler: str = DEFAULT_SAMPLER):
        super().__init__(test, ledger, rng, threshold, sensitivity, sampler)
        self.round_epsilon = validate_epsilon(round_epsilon, "the per-round ε")
        self.tweak = float(tweak)
        stats = test.stats
        self.n = stats.n
        x = optimal_subsample_ratio(self.round_epsilon) if ratio is None else float(ratio)
        self.m = max(2, int(math.floor(self.n / x)))
        self.sub_sensitivity = (sensitivity * math.sqrt(self.n / self.m) if sub_sensitivity is None
                                else float(sub_sensitivity))
        self.threshold_bound = max(self.P_BOUND, abs(self.threshold - self.tweak))
        self.noise_epsilon = nominal_epsilon(self.round_epsilon, lambda e: 2.0 * max(self._costs(e)))
        self.sieve_cost, self.examine_cost = self._costs(self.noise_epsilon)
        self.eps_sieve = sieve_epsilon(self.noise_epsilon, self.n, self.m)
        self.threshold_scale = 2.0 * self.sub_sensitivity / self.eps_sieve
        self.query_scale = 4.0 * self.sub_sensitivity / self.eps_sieve
        self.examine_scale = 2.0 * self.sensitivity / self.noise_epsilon
        self._stats = stats
        self.rounds = 0
        self._refresh()

    def _costs(self, eps: float) -> tuple[float, float]:
        """(sieve, examine) ε recorded for a round whose noise is set by ``eps``."""
        if self.sampler == "plain":
            return eps / 2.0, eps / 2.0
        eps_s = sieve_epsilon(eps, self.n, self.m)
        sub = 2.0 * self.sub_sensitivity
        sieve = release_epsilon(eps_s, (sub / eps_s, 2.0 * sub / eps_s), self.sampler,
                                (self.threshold_bound, self.P_BOUND))
        examine = release_epsilon(eps / 2.0, 2.0 * self.sensitivity / eps, self.sampler, self.P_BOUND)
        return amplified_epsilon(sieve, self.m / self.n), examine

    def _refresh(self) -> None:
        """New sub-sample (uniform, without replacement) and new noisy threshold T − t + ρ."""
        if self.m < self.n:
            sub = self._stats.subsample(self.rng.choice(self.n, size=self.m, replace=False, shuffle=False))
        else:
            sub = self._stats
        self.sub_test = make_ci_test("kendall", sub, sided=self.test.sided)
        self.noisy_threshold = noisy_value(self.threshold - self.tweak, self.threshold_scale, self.rng, self.sampler,
                                           self.threshold_bound)

    def decide(self, x, y, S, order):
        sieve_cost, examine_cost = self.sieve_cost, self.examine_cost
        if not self.ledger.can_afford(sieve_cost, "sieve", (examine_cost, "examine")):
            self._budget_stop(sieve_cost + examine_cost, "sieve-and-examine round (sieve ε/2 + examine ε/2)")
            return Decision(False, float("nan"), float("nan"), stage="budget")
        sub = self.sub_test(x, y, S)
        p_sub = sub.p_value
        noisy, noise = noisy_release(p_sub, self.query_scale, self.rng, self.sampler, self.P_BOUND)
        threshold = self.noisy_threshold
        full = self.test(x, y, S)
        p_full = full.p_value
        if noisy < threshold:
            return Decision(False, sub.statistic, p_full, noise, noisy, threshold, 0.0, "sieve")
        # sieve hit: one round ends; refresh before the examine, whatever its outcome
        self.rounds += 1
        self.ledger.record("sieve (sub-sampled AboveThreshold)", sieve_cost, order=order, group="sieve",
                           what=f"hit on p({x},{y}|{S}) on {self.m} rows")
        self._refresh()
        self.ledger.record("laplace", examine_cost, order=order, group="examine",
                           laplace_ratio=2.0 / self.noise_epsilon if self.sampler == "plain" else None,
                           what=f"examine p({x},{y}|{S})")
        enoisy, enoise = noisy_release(p_full, self.examine_scale, self.rng, self.sampler, self.P_BOUND)
        spent = self.round_epsilon if self.sampler == "plain" else sieve_cost + examine_cost
        return Decision(enoisy >= self.threshold, full.statistic, p_full, enoise, enoisy, self.threshold,
                        spent, "examine")
