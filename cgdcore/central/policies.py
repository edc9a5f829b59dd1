"""Private CI-decision policies for the one PC engine: Laplace-PC, Gauss-PC, SVT-PC and Priv-PC.

Each policy noises the conditional Kendall test through a measurement of :mod:`cgdcore.privacy.mechanisms`,
which charges the run's ledger itself; policies never compute a cost by hand. What is noised and where the
line is drawn is the run's :class:`~cgdcore.central.scale.DecisionScale`: the statistic z̃ itself with a
noise-calibrated critical value (default), or the p-value against T as in the papers (their above-threshold
convention, seed_privpc.md §0, Definition 4 and §9 item 9). The statistic is the Kendall z̃ with a public
normaliser (sensitivity 9/√n, proven in :func:`cgdcore.citests.sensitivity.kendall_public_z_sensitivity`)
unless a run asks for the paper's.

Budget planning (Laplace-PC, Gauss-PC) uses only released outputs — the adjacency after the last order — and
public sizes: before each order, half of what the filter has left (all of it for the last order the degrees
allow) is planned for the order's ``tests_at_order`` bound of tests; what the order does not use carries
forward (private_decisions.md §5).
"""
from __future__ import annotations

import math
from math import comb

import numpy as np

from cgdcore import UserError
from cgdcore.citests import make_ci_test
from cgdcore.pc import Decision, Policy
from cgdcore.central.scale import MAX_NOISE_SD, Z_BOUND, DecisionScale, critical_value, min_abs_z, z_alpha
from cgdcore.privacy.ledger import Ledger, validate_epsilon
from cgdcore.privacy.mechanisms import (DEFAULT_SAMPLER, AboveThreshold, ExponentialMechanism, GaussianMechanism,
                                        LaplaceMechanism, NoiseTooLarge, SieveAndExamine, check_sampler)

__all__ = [
    "PrivatePolicy",
    "LaplacePolicy",
    "GaussPolicy",
    "SVTPolicy",
    "PrivPCPolicy",
    "optimal_subsample_ratio",
    "tests_at_order",
    "edges_at_order",
    "min_abs_z",
    "order_share",
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


def order_share(order: int, adjacency, max_order: int) -> float:
    """The share of the remaining budget planned for ``order``: ½, or all of it when no later order can run
    (no node keeps more than ``order`` + 1 neighbours, or ``max_order`` is reached)."""
    deg = max((len(a) for a in adjacency), default=0)
    return 1.0 if order >= max_order or deg <= order + 1 else 0.5


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


class PrivatePolicy(Policy):
    """Shared parts: the full-data test (Kendall; G for Gauss-PC on the G scale), the decision scale, the ledger, the RNG, the stop flag."""

    stage = ""

    def __init__(self, test, ledger: Ledger, rng: np.random.Generator, scale: DecisionScale,
                 sampler: str = DEFAULT_SAMPLER):
        allowed = ("kendall", "g2") if getattr(scale, "kind", None) == "g" else ("kendall",)
        if getattr(test, "name", None) not in allowed:
            raise UserError("private constraint-based algorithms need the 'kendall' CI test "
                            "(χ², G and Fisher-z have unbounded sensitivity; gauss-pc also takes g2, whose "
                            "sensitivity it bounds).")
        self.test = test
        self.ledger = ledger
        self.rng = rng
        self.scale = scale
        self.threshold = scale.alpha  # T on the p scale
        self.sensitivity = scale.sensitivity
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

    def _noisy_decision(self, r, v, line: float, charged: float, stage: str) -> Decision:
        return Decision(self.scale.independent(v.noisy, line), r.statistic, r.p_value, v.noise, v.noisy, line,
                        charged, stage, v.released, v.sensitivity)



class _PlannedPolicy(PrivatePolicy):
    """A policy that plans one mechanism per order (Laplace-PC, Gauss-PC): ``_plan`` builds it from the order's
    share of what is left (:func:`order_share`) and the order's bound on its tests."""

    noise = ""

    def __init__(self, test, ledger, rng, scale, *, max_order: int, sampler: str = DEFAULT_SAMPLER):
        super().__init__(test, ledger, rng, scale, sampler)
        if ledger.budget is None:
            raise UserError(f"{self.stage}-pc needs a total budget (--epsilon).")
        self.max_order = int(max_order)
        self.mechanism = None
        self.line = scale.alpha
        self.plan: list[dict] = []

    def begin_order(self, order, adjacency):
        super().begin_order(order, adjacency)
        t = max(tests_at_order(adjacency, order), 1)
        share = order_share(order, adjacency, self.max_order)
        try:
            self.mechanism = self._plan(share, t, order, adjacency)
        except NoiseTooLarge:  # a share so small that its noise is beyond the sampler: too large to decide anything
            self.mechanism = None
            self._stop(f"order {order}'s share of the budget buys noise beyond the exact sampler's range for its "
                       f"{t:,} tests: such tests would call almost every pair independent, so the run stopped and kept "
                       "the untested edges")
            return
        if self.mechanism is None:
            self._budget_stop(0.0)
            return
        scale = self.plan[-1]["noise_scale"]
        sd = scale * (math.sqrt(2.0) if self.noise == "laplace" else 1.0)
        if self.scale.kind == "z" and sd > MAX_NOISE_SD:
            self.mechanism = None
            self._stop(f"order {order}'s share of the budget buys noise of s.d. {sd:.3g} on the z scale for its "
                       f"{t:,} tests, above the largest s.d. the run accepts ({MAX_NOISE_SD:g}): such tests would call "
                       "almost every pair independent, so the run stopped and kept the untested edges")
            return
        self.line = self.scale.line(self.noise, scale)
        self.plan[-1]["line"] = self.line
        self._planned(scale)

    def _planned(self, scale: float) -> None:
        """Hook run once an order's plan stands (Gauss-PC sets its per-edge line)."""

    def decide(self, x, y, S, order):
        mech = self.mechanism
        if mech is None or not mech.affordable():
            return self._budget_stop(0.0 if mech is None else getattr(mech, "cost", 0.0))
        r = self.test(x, y, S)
        v = mech.release(self.scale.value(r), order=order, what=f"test {x}–{y} | {S}")
        return self._noisy_decision(r, v, self.line, self._charged(mech), self.stage)


class LaplacePolicy(_PlannedPolicy):
    """Laplace-PC: every CI decision releases its value + Lap(Δ/ε_l) (Dwork et al. 2006).

    ε_l is the largest for which the order's test bound keeps the advanced (or basic) filter's total within
    what the order may reach: what was used so far plus its share of what is left.
    """

    stage = "laplace"
    noise = "laplace"

    def _plan(self, share, t, order, adjacency):
        left = self.ledger.remaining()
        eps = self.ledger.largest_uniform(t, self.ledger.used()[0] + share * left) if left > 0 else 0.0
        entry = {"order": order, "budget": share * left, "tests_bound": t, "epsilon_per_test": eps}
        self.plan.append(entry)
        if eps <= 0:
            return None
        mech = LaplaceMechanism(self.sensitivity, eps, self.rng, self.ledger, sampler=self.sampler,
                                bound=self.scale.bound, group=f"order {order}")
        entry["noise_scale"] = mech.noise.scale
        return mech

    def _charged(self, mech):
        return mech.cost


def edges_at_order(adjacency, order: int) -> tuple[int, int]:
    """(E, E_sel) for one Gauss-PC level: the edges {x, y} with at least one candidate separating set of size
    ``order`` (from adj(x)\\{y} or adj(y)\\{x}), and those among them with more than one candidate — a
    post-processing of earlier decisions, exact (not a bound on a data-dependent count)."""
    e = e_sel = 0
    for x, nb in enumerate(adjacency):
        for y in nb:
            if y <= x:
                continue
            a, b = len(nb) - 1, len(adjacency[y]) - 1
            common = len((nb & adjacency[y]) - {x, y})
            sets = comb(a, order) + comb(b, order) - comb(common, order)
            if sets >= 1:
                e += 1
                e_sel += sets > 1
    return e, e_sel


class GaussPolicy(_PlannedPolicy):
    """Gauss-PC: one release per edge and order — the smallest |z̃| over all the edge's candidate separating
    sets, plus discrete Gaussian noise — composed in zCDP, and, for a removed edge with several candidates, the
    separating set chosen by the exponential mechanism.

    The minimum is PC's own decision: PC removes {x, y} at order ℓ iff some size-ℓ set S gives |z̃_S| ≤ c, i.e.
    iff min_S |z̃_S| ≤ c. Its sensitivity is that of one test: each |z̃_S| (clipped to ±``Z_BOUND``) moves by less
    than Δ = 9/√n between neighbours, so the minimum moves by less than Δ (|min a − min b| ≤ max |a − b|). The
    candidate sets are a post-processing of earlier releases, so the number of releases at an order is exactly
    the number of edges E it tests (:func:`edges_at_order`), not a bound on PC's data-dependent test count —
    on Child at order 1, about 50 releases instead of a bound of thousands.

    The separating set (used by the orientation rules) is released by the exponential mechanism with utility
    −max(|z̃_S|, c) − i·Δ/8 for the i-th candidate in PC's order (sensitivity Δ: max(·, c) is 1-Lipschitz and
    the offsets are public), so at large ε it returns PC's first separating set; as ε-bounded-range it costs
    ε²/8 in zCDP (Cesar & Rogers 2021). Plan per order: ρ_order = share × ρ left; each of the E minima gets
    ρ_test = ρ_order/(E + κ·E_sel) and each possible selection κ·ρ_test, κ = ``SELECT_SHARE``; what an order
    does not use (edges kept need no selection) carries forward.
    """

    strategy = "edge"

    stage = "gauss"
    noise = "gaussian"
    #: ρ of a separating-set selection relative to one release of the minimum.
    SELECT_SHARE = 0.5

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.min_line = self.line
        self.sd = 0.0
        self.select_rho = 0.0

    def _plan(self, share, t, order, adjacency):
        e, e_sel = edges_at_order(adjacency, order)
        e = max(e, 1)
        budget = share * self.ledger.rho_left()
        rho = budget / (e + self.SELECT_SHARE * e_sel)
        self.select_rho = self.SELECT_SHARE * rho
        entry = {"order": order, "budget": budget, "tests_bound": e, "selections_bound": e_sel,
                 "rho_per_test": rho, "rho_per_selection": self.select_rho if e_sel else 0.0}
        self.plan.append(entry)
        if rho <= 0:
            return None
        mech = GaussianMechanism(self.sensitivity, rho, self.rng, self.ledger, bound=self.scale.bound,
                                 group=f"order {order}")
        entry["noise_scale"] = mech.scale
        return mech

    def _planned(self, scale):
        self.sd = scale
        if self.scale.kind == "g":  # the line depends on each edge's candidate sets (GScale.set_line)
            self.plan[-1]["line"] = None
        else:
            self.min_line = self.scale.min_line(scale)
            self.plan[-1]["line"] = self.min_line

    def _charged(self, mech):
        return mech._epsilon()

    def decide_edge(self, x, y, sets, order):
        mech = self.mechanism
        sel = (ExponentialMechanism(self.sensitivity, math.sqrt(8.0 * self.select_rho), self.rng, self.ledger,
                                    bound=self.scale.bound + len(sets) * self.sensitivity, mechanism="exponential",
                                    group=f"order {order} separating sets")
               if len(sets) > 1 and self.select_rho > 0 else None)
        costs = [] if mech is None else [(mech._epsilon(), 0.0, mech.cost)]
        if sel is not None:
            costs.append((sel.cost, 0.0, sel.rho))
        if mech is None or not self.ledger.can_afford(*costs):
            return self._budget_stop(0.0 if mech is None else mech._epsilon()), None
        results = [self.test(x, y, S) for S in sets]
        z = self.scale.excess(x, y, sets, results)
        best = int(np.argmin(z))
        line = self.scale.set_line(x, y, sets, self.sd)
        what = "min |z|" if self.scale.kind != "g" else "min (G − q)"
        v = mech.release(float(z[best]), order=order, what=f"{what} of {x}–{y} over {len(sets)} set(s)")
        independent = v.noisy <= line
        charged = mech._epsilon()
        S = None
        if independent:
            if sel is None:
                S = tuple(sets[0])
            else:
                util = -np.maximum(z, line) - np.arange(len(sets)) * (self.sensitivity / 8.0)
                S = tuple(sets[sel.select(util, order=order, what=f"separating set of {x}–{y}")])
                charged += sel.cost
        p = self.scale.exact_p(x, y, sets, results)
        return Decision(independent, float(results[best].statistic), p, v.noise, v.noisy, line, charged,
                        self.stage, v.released, v.sensitivity), S


class SVTPolicy(PrivatePolicy):
    """SVT-PC: textbook AboveThreshold over the whole run (Dwork & Roth 2014, Alg. 1).

    Threshold noise 2Δ/ε, query noise 4Δ/ε, a fresh threshold after each "above" (= independent,
    delete) answer (seed_privpc.md §4.1, resolution of §9 item 13: the reference code's 8Δ/ε
    query noise and Gaussian refresh are not used). Each instance costs ε, charged when it opens,
    so the instance still open when PC ends is paid for. On the z scale the query is −|z̃| against −c, with
    c calibrated to the two Laplace noises (as a Gaussian of their variance).
    """

    stage = "svt"

    def __init__(self, test, ledger, rng, scale, *, round_epsilon: float, sampler: str = DEFAULT_SAMPLER):
        super().__init__(test, ledger, rng, scale, sampler)
        self.round_epsilon = validate_epsilon(round_epsilon, "the per-round ε")
        spread = math.sqrt(2.0 * ((2.0 * self.sensitivity) ** 2 + (4.0 * self.sensitivity) ** 2)) / self.round_epsilon
        self.line = scale.line("gaussian", spread)
        self.svt = AboveThreshold(scale.svt_threshold(self.line), self.sensitivity, self.round_epsilon, rng, ledger,
                                  sampler=self.sampler, bound=scale.bound)
        self.hits = 0

    def decide(self, x, y, S, order):
        if not self.svt.is_open and not self.svt.can_open():
            return self._budget_stop(self.svt.cost, "sparse-vector instance")
        r = self.test(x, y, S)
        ans = self.svt.query(self.scale.score(r), order=order, what=f"test {x}–{y} | {S}")
        self.hits += ans.above
        v = ans.value
        return Decision(ans.above, r.statistic, r.p_value, v.noise, v.noisy, ans.threshold, ans.charged, self.stage,
                        v.released, v.sensitivity)


class PrivPCPolicy(PrivatePolicy):
    """Priv-PC (Wang, Pang & Song 2020), Algorithm 2: one :class:`SieveAndExamine` round after another.

    Sieve: the round's m-row sub-sample against T − t (on the z scale: −|z̃ₘ| against the critical value of
    the level T − t, calibrated to the sieve's two Laplace noises); examine: the full data against T (on the z
    scale: |z̃ + noise| against the critical value calibrated to the examine's Laplace noise). Each round costs
    ε (the sieve's ε/2 charged when the round opens, the examine's on a hit). ``sub_sensitivity`` is the
    statistic's sensitivity on m rows (9/√m for the public-normaliser z̃).
    """

    stage = "sieve"

    def __init__(self, test, ledger, rng, scale, *, round_epsilon: float, sub_sensitivity: float,
                 tweak: float = 0.02, ratio: float = 1.0, sampler: str = DEFAULT_SAMPLER):
        super().__init__(test, ledger, rng, scale, sampler)
        self.round_epsilon = validate_epsilon(round_epsilon, "the per-round ε")
        self.tweak = float(tweak)
        self._stats = test.stats
        self.n = self._stats.n
        self.m = max(2, min(self.n, int(math.floor(self.n / float(ratio)))))
        self.sub_sensitivity = float(sub_sensitivity)
        kw = {}
        if scale.kind == "z":
            from cgdcore.privacy.mechanisms import sieve_epsilon

            eps_s = sieve_epsilon(self.round_epsilon, self.n, self.m)
            spread = math.sqrt(2.0 * ((2 * self.sub_sensitivity) ** 2 + (4 * self.sub_sensitivity) ** 2)) / eps_s
            sieve_line = critical_value(z_alpha(max(scale.alpha - self.tweak, 1e-6), scale.sided), "gaussian",
                                        min(spread, MAX_NOISE_SD))
            self.line = scale.line("laplace", 2.0 * self.sensitivity / self.round_epsilon)
            kw = {"sieve_threshold": -sieve_line, "examine_rule": lambda noisy: abs(noisy) <= self.line}
        else:
            self.line = scale.alpha
        self.mechanism = SieveAndExamine(self.threshold, self.tweak, self.n, self.m, self.sensitivity,
                                         self.sub_sensitivity, self.round_epsilon, rng, ledger, sampler=self.sampler,
                                         bound=scale.bound, **kw)
        self._rows = None
        self.sub_test = None

    @property
    def rounds(self) -> int:
        return self.mechanism.rounds

    def _sub_score(self, rows, x, y, S) -> float:
        if rows is not self._rows:  # a new round: its sub-sample's statistics
            if self.m == self.n and self.test.name == "kendall":  # every round sieves on all rows: the full
                self.sub_test = self.test  # test itself, whose results the examine reads too
            else:
                sub = self._stats if self.m == self.n else self._stats.subsample(rows)
                self.sub_test = make_ci_test("kendall", sub, sided=self.test.sided,
                                             normaliser=getattr(self.test, "normaliser", "strata"))
            self._rows = rows
        self._sub_result = self.sub_test(x, y, S)
        return self.scale.score(self._sub_result)

    def decide(self, x, y, S, order):
        mech = self.mechanism
        if not mech.sieve.is_open and not mech.can_open():
            return self._budget_stop(mech.cost, "sieve-and-examine round (sieve ε/2 + examine ε/2)")
        full = self.test(x, y, S)
        stage, indep, ans, ex, charged = mech.query(lambda rows: self._sub_score(rows, x, y, S),
                                                    lambda: self.scale.value(full), order=order,
                                                    what=f"test {x}–{y} | {S}")
        if ex is None:
            v = ans.value
            return Decision(False, self._sub_result.statistic, full.p_value, v.noise, v.noisy, ans.threshold, charged,
                            stage, v.released, v.sensitivity)
        return Decision(indep, full.statistic, full.p_value, ex.noise, ex.noisy, self.line, charged, stage,
                        ex.released, ex.sensitivity)
