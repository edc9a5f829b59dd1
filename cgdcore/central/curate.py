"""Constraint-based CURATE (Bhattacharjee & Tandon 2024, §III-A, Algorithm 1, Lemma 1, OPT (3)).

Per PC order i every CI test releases its value + Lap(Δ/ε_i) (a
:class:`~cgdcore.privacy.mechanisms.LaplaceMechanism`, exact discrete noise by default) and decides with
margins β1, β2: on the paper's p scale, delete if above T(1+β2), keep if below T(1−β1), otherwise keep with
probability ½; on the z scale (default) the same bands as levels: delete if |z̃ + noise| is at most the
noise-calibrated critical value (:mod:`cgdcore.central.scale`) of level T(1+β2), keep if above that of level
T(1−β1), otherwise a coin.
The per-order budgets come from OPT, solved by SLSQP after every order from the remaining budget; the
paper plans t_j = e_i·C(d−2, j) tests for each order j ≥ i (seed_curate.md §1.5–1.6, §7 item 4), which on
Child asks for ~2,500 order-1 tests and leaves each a coin flip; by default the plan uses the bound
``tests_at_order`` computed from the current graph (a post-processing of released decisions) instead. At
order 0 that graph is the complete one, fixed before any release, and its bound (every pair survives order 0:
~47,000 order-1 tests on Alarm) can leave order 1 no floor, so that order 0 would take the whole budget; on the
z scale OPT is then solved again with every later order bounded by order 0's own test count, which keeps budget for
order 1 whenever its floor fits under that count (public sizes only; the filter still caps what is spent). Only
ε_i is used; later entries are a plan re-optimised at the next order.

Resolutions taken (seed_curate.md §7):
* leakage: by default the plan must fit the run's own filter (the ledger's rule evaluated on what was
  released plus the planned tests); the paper's per-order t·ε² + ε·sqrt(2t ln(1/δ')) with its δ' = 10⁻¹²
  per order is selectable as "as in paper" (item 2), and then it is used from plan to cap to report: the
  plan fits it, a test that would take it past the budget is refused, and the run reports it. It is never
  below the sound filter's value (V + Σ_o ε_o√(2t_o ln(1/δ')) ≥ V + √(2 ln(1/δ)·V) ≥ the filter's, V = Σ tε²,
  as δ' ≤ δ), so the run's guarantee stays its budget;
* monotone ε_j ≥ ε_{j+1}; SLSQP starts from a feasible positive point (item 6);
* instead of running tests at ε ≈ 0, the run stops (keeping the remaining edges) once the
  planned ε_i falls below a floor: the ε at which the Laplace noise's standard deviation
  √2·Δ/ε reaches 1, the whole p-value range (item 6), or 10 on the z scale;
* sensitivity "conservative" (the proven Φ(9/√n) − ½ of the public-normaliser Kendall statistic) by
  default; CURATE's own C/√n (0.3627, the code's value) as "paper" — not a valid worst-case bound,
  so such a run has no guarantee (item 9).
"""
from __future__ import annotations

import math
from math import comb

import numpy as np

from cgdcore.cancel import checkpoint
from cgdcore import UserError
from cgdcore.central.policies import PrivatePolicy, tests_at_order
from cgdcore.central.scale import critical_value, z_alpha
from cgdcore.pc import Decision
from cgdcore.privacy.ledger import Ledger, curate_paper_composition
from cgdcore.privacy.mechanisms import DEFAULT_SAMPLER, LaplaceMechanism

__all__ = ["lemma1_bounds", "surrogate_error", "plan_budgets", "keep_probability", "CuratePolicy", "LEAKAGE_RULES"]

LEAKAGE_RULES = ("sound", "paper")
#: The paper's δ' per order in its experiments (seed_curate.md §5: 10⁻¹² ≤ n^−1.5 at n = 10⁵).
PAPER_DELTA_PRIME = 1e-12


def lemma1_bounds(eps, T, beta1, beta2, sensitivity, c1=1.0, c2=1.0):
    """Lemma 1: q⁽¹⁾ = c1/2 + ½e^{−Tβ1ε/Δ} (relative Type I), q⁽²⁾ = c2/2 + ½e^{−Tβ2ε/Δ} (Type II)."""
    eps = np.asarray(eps, dtype=float)
    q1 = c1 / 2.0 + 0.5 * np.exp(-T * beta1 * eps / sensitivity)
    q2 = c2 / 2.0 + 0.5 * np.exp(-T * beta2 * eps / sensitivity)
    return q1, q2


def surrogate_error(eps_vec, T, beta1, beta2, sensitivity, c1=1.0, c2=1.0) -> float:
    """Objective (2): Π_j q_j⁽¹⁾ + (1 − Π_j (1 − q_j⁽²⁾))."""
    q1, q2 = lemma1_bounds(eps_vec, T, beta1, beta2, sensitivity, c1, c2)
    return float(np.prod(q1) + (1.0 - np.prod(1.0 - q2)))


def keep_probability(f, eps, T, beta1, beta2, sensitivity):
    """Exact P[keep] of the three-band test for a true p-value f (seed_curate.md §1.3)."""
    b = sensitivity / eps
    f = np.asarray(f, dtype=float)

    def cdf(z):
        return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0) / b), 1 - 0.5 * np.exp(-np.maximum(z, 0) / b))

    lo = cdf(T * (1 - beta1) - f)
    hi = cdf(T * (1 + beta2) - f)
    return lo + 0.5 * (hi - lo)


def plan_budgets(capacity: float, e_i: int, i: int, d: int, last: int, *, T: float, beta1: float, beta2: float,
                 sensitivity: float, leak, c1: float = 1.0, c2: float = 1.0, t_now: int | None = None,
                 floor: float = 0.0, t_bounds=None) -> np.ndarray:
    """OPT(ε_Total⁽ⁱ⁾, e_i, i) of eq. (3): per-order ε_i..ε_last minimising objective (2)
    subject to leak(ε, t) ≤ capacity and ε_j ≥ ε_{j+1} ≥ floor (SLSQP).

    ``leak(v, t)`` is the total the plan reaches when t_j tests run at v_j for each order j (the
    run's filter, or the paper's per-order form). The horizon is shortened to the orders that can
    each get the floor; later orders are planned at 0 (and re-planned when reached). ``t_now``
    tightens this order's test count; ``t_bounds(j)``, when given, bounds order j's tests from the current
    graph (tighter than the paper's e_i·C(d−2, j)).
    """
    from scipy.optimize import minimize

    remaining = capacity
    orders = list(range(i, last + 1))
    t = np.array([e_i * comb(max(d - 2, 0), j) for j in orders], dtype=float)
    if t_bounds is not None:
        t = np.minimum(t, [t_bounds(j) for j in orders])
    if t_now is not None:
        t[0] = min(t[0], t_now)
    t = np.maximum(t, 1.0)
    base = leak(np.zeros(1), t[:1])  # what was spent already
    if remaining <= base or not orders:
        return np.zeros(len(orders))

    # the floor (seed_curate.md §7 item 6): plan only as many orders as can each get ≥ floor
    k = len(orders)
    while k > 1 and leak(np.full(k, floor), t[:k]) > remaining:
        k -= 1
    t = t[:k]
    lo_bound = floor if leak(np.full(k, floor), t) <= remaining else 0.0

    # feasible positive start: a uniform ε using half of what is left (at least the floor)
    half = 0.5 * (remaining - base) + leak(np.full(k, lo_bound), t)
    lo, hi = lo_bound, remaining
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if leak(np.full(k, mid), t) <= half else (lo, mid)
    x0 = np.full(k, lo)

    def obj(v):
        checkpoint()
        return surrogate_error(np.maximum(v, 0), T, beta1, beta2, sensitivity, c1, c2)

    cons = [{"type": "ineq", "fun": lambda v: remaining - leak(v, t)}]
    if k > 1:
        cons.append({"type": "ineq", "fun": lambda v: v[:-1] - v[1:]})
    res = minimize(obj, x0, method="SLSQP", bounds=[(lo_bound, remaining)] * k, constraints=cons,
                   options={"maxiter": 300, "ftol": 1e-12})
    v = np.asarray(res.x if np.all(np.isfinite(res.x)) else x0, dtype=float)
    v = np.minimum.accumulate(np.maximum(v, lo_bound))  # exact monotonicity and floor
    if obj(v) > obj(x0) or leak(v, t) > remaining * (1 + 1e-9):
        v = x0 if leak(x0, t) <= remaining else v
    for _ in range(200):  # shrink into the feasible set if SLSQP ended marginally outside it
        if leak(v, t) <= remaining:
            break
        v = np.maximum(v * 0.99, 0.0)
    out = np.zeros(len(orders))
    out[:k] = v
    return out


class CuratePolicy(PrivatePolicy):
    """CURATE's private CI test with per-order budgets from OPT (see module docstring)."""

    stage = "curate"

    def __init__(self, test, ledger: Ledger, rng, scale, *, d: int, max_order: int,
                 beta1: float = 0.2, beta2: float = 0.2, c1: float = 1.0, c2: float = 1.0,
                 leakage_rule: str = "sound", sampler: str = DEFAULT_SAMPLER):
        super().__init__(test, ledger, rng, scale, sampler)
        if ledger.budget is None:
            raise UserError("curate needs a total budget (--epsilon).")
        if leakage_rule not in LEAKAGE_RULES:
            raise UserError(f"CURATE leakage rule must be one of {LEAKAGE_RULES}; got {leakage_rule!r}.")
        self.d = int(d)
        self.max_order = int(max_order)
        self.beta1, self.beta2, self.c1, self.c2 = float(beta1), float(beta2), float(c1), float(c2)
        self.rule = leakage_rule
        # the noise's sd √2Δ/ε at the floor: 1 (all of [0, 1]) on the p scale, 10 on the z scale
        self.floor = math.sqrt(2.0) * self.sensitivity / (1.0 if scale.kind == "p" else 10.0)
        self.line = scale.alpha
        self.eps_i = 0.0
        self.mechanism: LaplaceMechanism | None = None
        self.plans: list[dict] = []
        self._spent_by_order: dict[int, tuple[int, float]] = {}
        self.paper_delta = min(PAPER_DELTA_PRIME, ledger.delta / (self.max_order + 1))  # the paper's δ' per order
        ledger.paper_rules["as in paper (CURATE t·ε² form)"] = self._paper_total

    def _paper_total(self, ledger: Ledger | None = None) -> tuple[float, float]:
        e = d = 0.0
        for order, (t, eps) in self._spent_by_order.items():
            a, b = curate_paper_composition(t, eps, self.paper_delta)
            e += a
            d += b
        return e, d

    def _leak(self, v, t) -> float:
        """The total a plan of t_j tests at v_j reaches: the run's filter, or the paper's form."""
        if self.rule == "paper":
            return self._paper_total()[0] + sum(curate_paper_composition(int(tj), max(vj, 0.0), self.paper_delta)[0]
                                                for tj, vj in zip(t, v) if vj > 0)
        return self.ledger.total_with(zip(np.maximum(v, 0.0), t))

    def begin_order(self, order, adjacency):
        """ε_i from OPT (eq. 3) on the remaining budget, later orders bounded by the current graph; at order 0, when
        that leaves no later order the floor, later orders are planned at no more tests than order 0 (z scale)."""
        super().begin_order(order, adjacency)
        e_i = sum(len(a) for a in adjacency) // 2
        deg = max((len(a) for a in adjacency), default=0)
        last = max(order, min(self.max_order, deg - 1, self.d - 2))
        remaining = self.ledger.remaining()
        frozen = [frozenset(a) for a in adjacency]
        t_now = tests_at_order(adjacency, order)
        bounds = None if self.rule == "paper" else (lambda j: tests_at_order(frozen, j))

        def opt(t_bounds):
            return plan_budgets(self.ledger.budget, e_i, order, self.d, last,
                                T=self.threshold if self.scale.kind == "p" else self.scale.z_alpha, beta1=self.beta1,
                                beta2=self.beta2, sensitivity=self.sensitivity, leak=self._leak, c1=self.c1,
                                c2=self.c2, t_now=t_now, floor=self.floor, t_bounds=t_bounds)

        plan = opt(bounds)
        if (order == 0 and bounds is not None and self.scale.kind == "z" and len(plan) > 1
                and not np.any(plan[1:] > 0)):  # order 0's fallback (module docstring)
            again = opt(lambda j: min(tests_at_order(frozen, j), t_now))
            if again[1] >= self.floor and again[0] >= self.floor:
                plan = again
        self.eps_i = float(plan[0]) if len(plan) else 0.0
        self.plans.append({"order": order, "remaining": remaining, "edges": e_i,
                           "planned": [float(v) for v in plan], "orders": list(range(order, last + 1))})
        self.mechanism = None
        if self.eps_i < self.floor:
            if self.ledger.budget is not None and remaining <= 1e-9 * self.ledger.budget:  # a residue, not a plan
                self._stop(f"the budget was spent before order {order}: nothing is left to test it; the remaining "
                           "edges were kept")
            else:
                self._stop(f"CURATE's plan gives order {order} ε={self.eps_i:.3g}, below the floor "
                           f"{self.floor:.3g} where the noise swamps the test; the remaining edges were kept")
            return
        self.mechanism = LaplaceMechanism(self.sensitivity, self.eps_i, self.rng, self.ledger, sampler=self.sampler,
                                          bound=self.scale.bound, group=f"order {order}")
        b = self.mechanism.noise.scale
        self.line = self.scale.line("laplace", b)
        if self.scale.kind == "z":  # the paper's margins T(1 ± β) as levels, each calibrated to the noise
            self.bands = (critical_value(z_alpha(self.threshold * (1 + self.beta2), self.scale.sided), "laplace", b),
                          critical_value(z_alpha(self.threshold * (1 - self.beta1), self.scale.sided), "laplace", b))
        self.plans[-1]["line"] = self.line
        if not self.mechanism.affordable():
            self._budget_stop(self.eps_i)

    def _paper_fits(self, order: int, eps: float) -> bool:
        """Whether one more order-``order`` test at ε keeps the paper's total within the budget ("as in paper")."""
        t, _ = self._spent_by_order.get(order, (0, eps))
        now = self._paper_total()[0] - (curate_paper_composition(t, eps, self.paper_delta)[0] if t else 0.0)
        return now + curate_paper_composition(t + 1, eps, self.paper_delta)[0] <= self.ledger.budget * (1 + 1e-12)

    def decide(self, x, y, S, order):
        mech = self.mechanism
        if mech is None or not mech.affordable() or (self.rule == "paper" and not self._paper_fits(order, mech.cost)):
            return self._budget_stop(self.eps_i)
        r = self.test(x, y, S)
        v = mech.release(self.scale.value(r), order=order, what=f"test {x}–{y} | {S}")
        t, _ = self._spent_by_order.get(order, (0, mech.cost))
        self._spent_by_order[order] = (t + 1, mech.cost)
        c = self.line
        if self.scale.kind == "p":
            delete, keep = v.noisy > c * (1 + self.beta2), v.noisy < c * (1 - self.beta1)
        else:
            delete, keep = abs(v.noisy) <= self.bands[0], abs(v.noisy) > self.bands[1]
        if delete:
            indep, band = True, "delete"
        elif keep:
            indep, band = False, "keep"
        else:
            indep, band = bool(self.rng.random() < 0.5), "coin"
        return Decision(indep, r.statistic, r.p_value, v.noise, v.noisy, c, mech.cost, f"curate:{band}", v.released,
                        v.sensitivity)
