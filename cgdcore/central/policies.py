"""Private CI-decision policies for the one PC engine: Laplace-PC, SVT-PC and Priv-PC.

Each policy noises the p-value of the conditional Kendall test through a measurement of
:mod:`cgdcore.privacy.mechanisms`, which charges the run's ledger itself; policies never compute a
cost by hand. "Independent" means the noisy p-value is at or above the threshold, the paper's
above-threshold convention (seed_privpc.md §0, Definition 4 and §9 item 9). The statistic is the
Kendall z̃ with a public normaliser (sensitivity 9/√n, proven in
:func:`cgdcore.citests.sensitivity.kendall_public_z_sensitivity`) unless a run asks for the paper's.
"""
from __future__ import annotations

import math
from math import comb

import numpy as np

from cgdcore import UserError
from cgdcore.citests import make_ci_test
from cgdcore.pc import Decision
from cgdcore.privacy.ledger import Ledger, validate_epsilon
from cgdcore.privacy.mechanisms import DEFAULT_SAMPLER, AboveThreshold, LaplaceMechanism, SieveAndExamine, check_sampler

__all__ = [
    "PrivatePolicy",
    "LaplacePolicy",
    "SVTPolicy",
    "PrivPCPolicy",
    "optimal_subsample_ratio",
    "tests_at_order",
]

_REFUSED = Decision(False, float("nan"), float("nan"), stage="budget")


def tests_at_order(adjacency, order: int) -> int:
    """Upper bound on the CI queries of one PC level: for every edge {x, y}, the order-sized
    subsets of adj(x)\\{y} and of adj(y)\\{x} (a post-processing of earlier decisions)."""
    total = 0
    for x, nb in enumerate(adjacency):
        k = len(nb) - 1
        if k >= order:
            total += len(nb) * comb(k, order)
    return total // 2 if order == 0 else total


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

    #: p-values live in [0, 1]: the lattice's clamping range for them
    P_BOUND = 1.0

    def __init__(self, test, ledger: Ledger, rng: np.random.Generator, threshold: float,
                 sensitivity: float, sampler: str = DEFAULT_SAMPLER):
        if getattr(test, "name", None) != "kendall":
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

    def _budget_stop(self, eps: float, what: str = "release") -> Decision:
        self._stop(f"the privacy budget ε={self.ledger.budget:g} is used up: the next {what} "
                   f"(ε={eps:.3g}) would exceed it; untested edges were kept")
        return _REFUSED

    def begin_order(self, order, adjacency):
        self.order = order


class LaplacePolicy(PrivatePolicy):
    """Laplace-PC: every CI decision releases p + Lap(Δ/ε_l) (Dwork et al. 2006).

    Before each order the budget the filter has left is shared evenly over the orders that can still
    run (unspent budget carries forward); within order l, ε_l is the largest for which the order's
    ``tests_at_order`` bound of releases keeps the filter's total within the order's share
    (:meth:`~cgdcore.privacy.ledger.Ledger.largest_uniform`).
    """

    stage = "laplace"

    def __init__(self, test, ledger, rng, threshold, sensitivity, *, max_order: int,
                 sampler: str = DEFAULT_SAMPLER):
        super().__init__(test, ledger, rng, threshold, sensitivity, sampler)
        if ledger.budget is None:
            raise UserError("laplace-pc needs a total budget (--epsilon).")
        self.max_order = int(max_order)
        self.mechanism: LaplaceMechanism | None = None
        self.plan: list[dict] = []

    def begin_order(self, order, adjacency):
        super().begin_order(order, adjacency)
        deg = max((len(a) for a in adjacency), default=0)
        last = min(self.max_order, max(deg - 1, order))
        share = self.ledger.remaining() / max(1, last - order + 1)
        t = tests_at_order(adjacency, order)
        eps = self.ledger.largest_uniform(t, self.ledger.used()[0] + share) if share > 0 else 0.0
        self.plan.append({"order": order, "budget": share, "tests_bound": t, "epsilon_per_test": eps})
        self.mechanism = None
        if eps <= 0:
            self._budget_stop(eps)
            return
        self.mechanism = LaplaceMechanism(self.sensitivity, eps, self.rng, self.ledger, sampler=self.sampler,
                                          bound=self.P_BOUND, group=f"order {order}")

    def decide(self, x, y, S, order):
        mech = self.mechanism
        if mech is None or not mech.affordable():
            return self._budget_stop(0.0 if mech is None else mech.cost)
        r = self.test(x, y, S)
        v = mech.release(r.p_value, order=order, what=f"p({x},{y}|{S})")
        return Decision(v.noisy >= self.threshold, r.statistic, r.p_value, v.noise, v.noisy, self.threshold,
                        mech.cost, self.stage, v.released, v.sensitivity)


class SVTPolicy(PrivatePolicy):
    """SVT-PC: textbook AboveThreshold over the whole run (Dwork & Roth 2014, Alg. 1).

    Threshold noise 2Δ/ε, query noise 4Δ/ε, a fresh threshold after each "above" (= independent,
    delete) answer (seed_privpc.md §4.1, resolution of §9 item 13: the reference code's 8Δ/ε
    query noise and Gaussian refresh are not used). Each instance costs ε, charged when it opens,
    so the instance still open when PC ends is paid for.
    """

    stage = "svt"

    def __init__(self, test, ledger, rng, threshold, sensitivity, *, round_epsilon: float,
                 sampler: str = DEFAULT_SAMPLER):
        super().__init__(test, ledger, rng, threshold, sensitivity, sampler)
        self.round_epsilon = validate_epsilon(round_epsilon, "the per-round ε")
        self.svt = AboveThreshold(self.threshold, self.sensitivity, self.round_epsilon, rng, ledger,
                                  sampler=self.sampler, bound=self.P_BOUND)
        self.hits = 0

    def decide(self, x, y, S, order):
        if not self.svt.is_open and not self.svt.can_open():
            return self._budget_stop(self.svt.cost, "sparse-vector instance")
        r = self.test(x, y, S)
        ans = self.svt.query(r.p_value, order=order, what=f"p({x},{y}|{S})")
        self.hits += ans.above
        v = ans.value
        return Decision(ans.above, r.statistic, r.p_value, v.noise, v.noisy, ans.threshold, ans.charged, self.stage,
                        v.released, v.sensitivity)


class PrivPCPolicy(PrivatePolicy):
    """Priv-PC (Wang, Pang & Song 2020), Algorithm 2: one :class:`SieveAndExamine` round after another.

    Sieve: p on the round's m-row sub-sample against T − t; examine: p on the full data against T.
    Each round costs ε (the sieve's ε/2 charged when the round opens, the examine's on a hit).
    ``sub_sensitivity`` is the statistic's sensitivity on m rows (9/√m through the p-value for the
    public-normaliser statistic).
    """

    stage = "sieve"

    def __init__(self, test, ledger, rng, threshold, sensitivity, *, round_epsilon: float, sub_sensitivity: float,
                 tweak: float = 0.02, ratio: float = 1.0, sampler: str = DEFAULT_SAMPLER):
        super().__init__(test, ledger, rng, threshold, sensitivity, sampler)
        self.round_epsilon = validate_epsilon(round_epsilon, "the per-round ε")
        self.tweak = float(tweak)
        self._stats = test.stats
        self.n = self._stats.n
        self.m = max(2, min(self.n, int(math.floor(self.n / float(ratio)))))
        self.sub_sensitivity = float(sub_sensitivity)
        self.mechanism = SieveAndExamine(self.threshold, self.tweak, self.n, self.m, self.sensitivity,
                                         self.sub_sensitivity, self.round_epsilon, rng, ledger, sampler=self.sampler,
                                         bound=self.P_BOUND)
        self._rows = None
        self.sub_test = None

    @property
    def rounds(self) -> int:
        return self.mechanism.rounds

    def _sub_p(self, rows, x, y, S) -> float:
        if rows is not self._rows:  # a new round: its sub-sample's statistics
            sub = self._stats if self.m == self.n else self._stats.subsample(rows)
            self.sub_test = make_ci_test("kendall", sub, sided=self.test.sided,
                                         normaliser=getattr(self.test, "normaliser", "strata"))
            self._rows = rows
        self._sub_result = self.sub_test(x, y, S)
        return self._sub_result.p_value

    def decide(self, x, y, S, order):
        mech = self.mechanism
        if not mech.sieve.is_open and not mech.can_open():
            return self._budget_stop(mech.cost, "sieve-and-examine round (sieve ε/2 + examine ε/2)")
        full = self.test(x, y, S)
        stage, indep, ans, ex, charged = mech.query(lambda rows: self._sub_p(rows, x, y, S), lambda: full.p_value,
                                                    order=order, what=f"p({x},{y}|{S})")
        if ex is None:
            v = ans.value
            return Decision(False, self._sub_result.statistic, full.p_value, v.noise, v.noisy, ans.threshold, charged,
                            stage, v.released, v.sensitivity)
        return Decision(indep, full.statistic, full.p_value, ex.noise, ex.noisy, self.threshold, charged, stage,
                        ex.released, ex.sensitivity)
