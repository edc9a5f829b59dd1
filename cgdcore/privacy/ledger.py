"""The privacy ledger: a budget *filter* with one composition rule chosen before the run.

A mechanism declares its cost when it releases something (:meth:`Ledger.record`); nothing computes
"the ε of a run" by hand afterwards (DESIGN.md, "Privacy honesty"; OpenDP's measurements that carry
their own privacy maps).

Why a filter. PC decides which test to run next, and so how many releases happen, from earlier
outputs. A total computed at the realised number of releases is an *odometer* claim, which the
composition theorems do not cover (Rogers, Roth, Ullman & Vadhan 2016). What they do cover is a
*filter*: a budget fixed in advance and a stopping rule that refuses any release that would take
the composed bound past it. The run's guarantee is then the budget itself, whatever path the data
took (:meth:`Ledger.guarantee`). A run without a budget (the papers' per-round setting) reports the
rule's bound at its data-independent maximum number of releases (``worst_case``).

The rule is fixed when the ledger is made (``RULES``):

* ``"basic"`` — ε = Σε_i, δ = Σδ_i (Dwork & Roth 2014, Thm 3.16); both sums are checked.
* ``"advanced"`` — for pure-ε releases, ε = min(Σε_i, sqrt(2 ln(1/δ)·V) + V/2) with V = Σε_i²:
  the advanced-composition filter of Whitehouse, Ramdas, Rogers & Wu (ICML 2023), which keeps
  Dwork–Rothblum–Vadhan's rate with adaptively chosen ε_i. Proof sketch: the loss increments X_i
  satisfy |X_i| ≤ ε_i and E[X_i | past] ≤ ε_i²/2 (ε-DP ⇒ ε²/2-zCDP, Bun & Steinke 2016), so
  exp(λ(L_n − V_n/2) − λ²V_n/2) is a supermartingale (Hoeffding's lemma) and Ville's inequality bounds
  L_n ≤ (1 + λ)V_n/2 + ln(1/δ)/λ for all n at once, except with probability δ. With
  λ = sqrt(2 ln(1/δ)/V*) and V* the V where sqrt(2 ln(1/δ)V) + V/2 = budget, every path the filter
  admits has V_n ≤ V* and so L_n ≤ budget; paths admitted through Σε_i ≤ budget have L_n ≤ budget
  surely. One δ, one rule: taking the minimum over several δ-bearing rules would not be covered.
* ``"zcdp"`` — for (discrete) Gaussian releases, each ρ_i-zCDP (ρ_i = Δ²/(2σ_i²); Bun & Steinke 2016;
  the discrete Gaussian has the same ρ, Canonne, Kamath & Steinke 2020): ρ = Σρ_i against the ρ_B whose
  conversion ρ_B + 2 sqrt(ρ_B ln(1/δ)) (Bun & Steinke, Prop. 1.3) is the budget. Adaptively chosen ρ_i
  are covered by the Rényi filter of Feldman & Zrnic (2021, Thm 3.1) at every order α at once (the
  condition Σρ_i·α ≤ ρ_B·α is the same event for every α). zCDP rather than Gaussian DP: the discrete
  Gaussian, which keeps the proof exact in floating point, is proven zCDP, not exactly μ-GDP.

Releases on disjoint parts of the data (``partition``) compose in parallel (McSherry 2009): the
rule is applied to each part plus the whole-data releases, and the largest part counts.

Comparison rows (:meth:`Ledger.summary`): the same releases totalled by other rules at the realised
count, and the papers' own formulas, each with the reason it is not a guarantee.
"""
from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

from cgdcore import UserError
from cgdcore.privacy.pld_pure import MIN_COMPOSED, pure_epsilon_pld

__all__ = [
    "RULES", "STATUS", "REASON", "UNPROVEN", "verdict", "SPELLED_OUT", "total_label", "compare_to_guarantee",
    "Release", "readable", "Ledger", "BudgetExceeded", "MAX_EPSILON",
    "validate_epsilon", "validate_delta", "basic_composition", "advanced_composition",
    "advanced_composition_homogeneous", "advanced_filter", "curate_paper_composition", "privpc_code_composition",
    "gaussian_delta", "gaussian_epsilon", "gaussian_mu_for", "zcdp_epsilon", "zcdp_rho_for", "pld_epsilon",
]

#: Composition rules a run can choose in advance.
RULES = ("basic", "advanced", "zcdp")

#: The one vocabulary for what a total means, used by the JSON, the CLI and every page.
STATUS = {
    "guarantee": "the run's differential-privacy guarantee, fixed before it started: its budget, enforced by the "
                 "filter, or without a budget the composition of the most releases any run on data of this shape "
                 "could make",
    "no guarantee": "what the guarantee would be if every part of the run had a proof; one part has none (see why)",
    "realised": "not a guarantee: composes the releases this run happened to make, whose number depended on the "
                "data (an odometer reading, not covered by the composition theorems)",
    "as in paper": "not a guarantee: the paper's (or its reference code's) own formula, shown for comparison",
}

#: The name of the guarantee's total in a run that has none (EM-PC, the plain sampler, the paper's statistic): what
#: the budget would guarantee if every part of the run had a proof.
UNPROVEN = "guarantee if proven"

#: Why a total that is not the guarantee is not one, in a few words (for labels; STATUS has the full sentence).
REASON = {
    "no guarantee": "a part of the run has no proof",
    "realised": "this run's releases only",
    "as in paper": "the paper's formula",
}


#: What the totals' short names (the JSON's keys) stand for, where the name alone says nothing to a reader.
SPELLED_OUT = {
    "pld": "privacy-loss distribution",
    "zcdp": "zero-concentrated DP",
}


def total_label(name: str) -> str:
    """A total's name for readers: "pld (privacy-loss distribution)"; names that read as words stay as they are."""
    return f"{name} ({SPELLED_OUT[name]})" if name in SPELLED_OUT else name


def verdict(status: str) -> str:
    """The one yes/no wording every page uses for a total: "guarantee", or "not a guarantee (<reason>)"."""
    return "guarantee" if status == "guarantee" else f"not a guarantee ({REASON[status]})"


def compare_to_guarantee(value: float, guarantee: float | None, budget: float | None = None) -> str:
    """Where ``value`` lies against the run's guarantee (and budget), said from the numbers: "above the
    guarantee ε = 10 (×2.3)", "below the guarantee ε = 14,704 (÷139)", "equal to the guarantee ε = 10"."""
    def where(ref: float, what: str) -> str:
        if math.isclose(value, ref, rel_tol=1e-9, abs_tol=1e-12):
            return f"equal to {what} ε = {readable(ref)}"
        if value > ref:
            return f"above {what} ε = {readable(ref)} (×{value / ref:.2g})" if ref > 0 else f"above {what}"
        return f"below {what} ε = {readable(ref)} (÷{ref / value:.3g})" if value > 0 else f"below {what}"

    if guarantee is None:
        return "and the run has no guarantee to compare it with"
    out = where(guarantee, "the guarantee")
    if budget is not None and not math.isclose(budget, guarantee, rel_tol=1e-9):
        out += " and " + where(budget, "the budget")
    elif budget is not None:
        out += ", which is the budget"
    return out


#: Largest ε accepted anywhere a user types one (central, local, sweep grids): beyond it no noise is left.
MAX_EPSILON = 1e6


class BudgetExceeded(RuntimeError):
    """A release the filter refuses (callers ask :meth:`Ledger.can_afford` first)."""


def validate_epsilon(eps, what: str = "epsilon") -> float:
    """A finite ε > 0, or a UserError that says what to fix (ε = 0 is never "infinite noise")."""
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
        raise UserError(f"{what} must be a positive number; got {eps!r}.")
    v = float(eps)
    if math.isnan(v):
        raise UserError(f"{what} must be a positive number; got NaN.")
    if v <= 0:
        raise UserError(f"{what} must be > 0 (got {eps!r}); ε = 0 would need infinite noise.")
    if math.isinf(v) or v > MAX_EPSILON:
        raise UserError(f"{what} must be a finite number ≤ 1e6 (got {eps!r}); use the non-private 'pc' "
                        "algorithm for no privacy.")
    return v


def validate_delta(delta, what: str = "delta") -> float:
    """δ strictly between 0 and 1."""
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or math.isnan(float(delta)):
        raise UserError(f"{what} must be a number strictly between 0 and 1; got {delta!r}.")
    v = float(delta)
    if not 0.0 < v < 1.0:
        raise UserError(f"{what} must be strictly between 0 and 1 (got {delta!r}); 1e-3 to 1e-12 are usual.")
    return v


# ----------------------------------------------------------------------- closed forms
def _lin(e: float) -> float:
    """ε(e^ε − 1), the second-order term of Dwork–Roth advanced composition (inf past float range)."""
    return e * math.expm1(e) if e < 700 else math.inf


def basic_composition(epsilons: Iterable[float], deltas: Iterable[float] = ()) -> tuple[float, float]:
    """Σε_i, Σδ_i (Dwork & Roth 2014, Theorem 3.16)."""
    return float(math.fsum(epsilons)), float(math.fsum(deltas))


def advanced_filter(sum_sq: float, delta: float) -> float:
    """sqrt(2 ln(1/δ)·V) + V/2 for V = Σε_i²: the advanced-composition filter bound (module docstring)."""
    return math.sqrt(2.0 * math.log(1.0 / delta) * sum_sq) + 0.5 * sum_sq


def _advanced_capacity(target: float, delta: float) -> float:
    """The largest V = Σε_i² with sqrt(2 ln(1/δ)V) + V/2 ≤ target (a quadratic in sqrt V)."""
    if target <= 0:
        return 0.0
    a = math.sqrt(2.0 * math.log(1.0 / delta))
    u = -a + math.sqrt(a * a + 2.0 * target)
    return u * u


def advanced_composition_homogeneous(k: int, eps0: float, delta_prime: float, delta0: float = 0.0):
    """Dwork & Roth 2014, Theorem 3.20: k mechanisms, each (ε0, δ0)-DP, for δ' > 0 compose to
    (sqrt(2k ln(1/δ'))·ε0 + k·ε0·(e^{ε0} − 1), kδ0 + δ') — for fixed, non-adaptive ε0 (used by the
    papers' formulas)."""
    if k <= 0:
        return 0.0, 0.0
    eps = math.sqrt(2.0 * k * math.log(1.0 / delta_prime)) * eps0 + k * _lin(eps0)
    return eps, k * delta0 + delta_prime


def advanced_composition(epsilons: Iterable[float], delta_prime: float, deltas: Iterable[float] = ()):
    """Dwork–Roth's heterogeneous form (sqrt(2 ln(1/δ') Σε_i²) + Σε_i(e^{ε_i} − 1), δ' + Σδ_i) for a
    sequence fixed in advance (Kairouz, Oh & Viswanath 2015, Thm 3.5, with this looser second term)."""
    eps = list(epsilons)
    if not eps:
        return 0.0, float(math.fsum(deltas))
    s2 = math.fsum(e * e for e in eps)
    lin = math.fsum(_lin(e) for e in eps)
    return math.sqrt(2.0 * math.log(1.0 / delta_prime) * s2) + lin, delta_prime + math.fsum(deltas)


def curate_paper_composition(t: int, eps_i: float, delta_prime: float, delta_test: float = 0.0):
    """CURATE's per-order leakage **as in paper** (§III-A): t·ε² + ε·sqrt(2t ln(1/δ')), δ' + tδ.

    The k·ε² term understates Dwork–Roth's k·ε(e^ε − 1) (seed_curate.md §7 item 2).
    """
    if t <= 0:
        return 0.0, 0.0
    return t * eps_i * eps_i + eps_i * math.sqrt(2.0 * t * math.log(1.0 / delta_prime)), delta_prime + t * delta_test


def privpc_code_composition(K: int, eps: float, delta: float):
    """Priv-PC's total **as in the reference code** (seed_privpc.md §2, form (B)): the K sieves and the K
    examines composed apart by advanced composition at δ/2 and added,
    sqrt(2K ln(2/δ))·ε + K·ε·(e^{ε/2} − 1); the code reports δ_tot = δ."""
    if K <= 0:
        return 0.0, delta
    tail = K * eps * (math.expm1(eps / 2.0) if eps < 1400 else math.inf)
    return math.sqrt(2.0 * K * math.log(2.0 / delta)) * eps + tail, delta


def zcdp_epsilon(rho: float, delta: float) -> float:
    """ε of ρ-zCDP at δ: ρ + 2 sqrt(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3)."""
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta)) if rho > 0 else 0.0


def zcdp_rho_for(epsilon: float, delta: float) -> float:
    """The ρ whose :func:`zcdp_epsilon` at δ is ``epsilon`` (a quadratic in sqrt ρ)."""
    a = math.sqrt(math.log(1.0 / delta))
    u = -a + math.sqrt(a * a + epsilon)
    return u * u


def gaussian_delta(eps: float, mu: float) -> float:
    """δ(ε) of μ-Gaussian DP (Balle & Wang 2018 Thm 8; Dong, Roth & Su 2022 Cor. 2.13)."""
    from scipy.special import log_ndtr

    if mu <= 0:
        return 0.0
    a = math.exp(log_ndtr(-eps / mu + mu / 2))
    b = math.exp(eps + log_ndtr(-eps / mu - mu / 2)) if eps < 700 else 0.0
    return max(a - b, 0.0)


def gaussian_epsilon(mu: float, delta: float) -> float:
    """Smallest ε with δ(ε) ≤ δ for μ-GDP (inverse of :func:`gaussian_delta`)."""
    from scipy.optimize import brentq

    if mu <= 0 or gaussian_delta(0.0, mu) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_delta(hi, mu) > delta:
        hi *= 2.0
    return float(brentq(lambda e: gaussian_delta(e, mu) - delta, 0.0, hi, xtol=1e-12, rtol=1e-12))


def gaussian_mu_for(epsilon: float, delta: float) -> float:
    """The μ whose GDP curve passes through (ε, δ): the total a Gaussian filter may spend."""
    from scipy.optimize import brentq

    lo, hi = 1e-8, 1.0
    while gaussian_delta(epsilon, hi) < delta:
        hi *= 2.0
    return float(brentq(lambda m: gaussian_delta(epsilon, m) - delta, lo, hi, xtol=1e-14, rtol=1e-12))


# ----------------------------------------------------------------------------- ledger
@dataclass(frozen=True)
class Release:
    """One privacy-costing release, as declared by the mechanism that made it.

    ``laplace_ratio`` (scale/sensitivity) lets the PLD comparison use the Laplace privacy-loss
    distribution; ``rho`` (Δ²/(2σ²)) is what the zCDP rule composes.
    """

    mechanism: str
    epsilon: float
    delta: float = 0.0
    order: int | None = None
    what: str = ""
    group: str = ""
    laplace_ratio: float | None = None
    rho: float | None = None
    #: the disjoint part of the data it was computed on ("" = the whole dataset)
    partition: str = ""


@dataclass
class _Sums:
    n: int = 0
    eps: float = 0.0
    eps2: float = 0.0
    delta: float = 0.0
    rho: float = 0.0

    def plus(self, items) -> "_Sums":
        s = _Sums(self.n, self.eps, self.eps2, self.delta, self.rho)
        for e, d, rho in items:
            s.n += 1
            s.eps += e
            s.eps2 += e * e
            s.delta += d
            s.rho += rho or 0.0
        return s


@dataclass
class Ledger:
    """Every release of one run, checked against a budget filter by one rule fixed in advance.

    Parameters
    ----------
    budget: the total ε the run may spend (None = uncapped: the guarantee is the rule's bound at
        ``worst_case``).
    delta: the run's δ (the filter's failure probability; for ``basic``, the cap on Σδ_i).
    rule: one of ``RULES``.
    worst_case: ((ε, count), ...) — ((ρ, count), ...) under the zCDP rule — the largest multiset of releases
        any run of this algorithm on data of this shape could make, data-independent (set by the
        algorithm; needed uncapped).
    paper_rules: name -> function(ledger) -> (ε, δ), the papers' own formulas ("as in paper").
    """

    budget: float | None = None
    delta: float = 1e-6
    rule: str = "advanced"
    worst_case: tuple[tuple[float, int], ...] | None = None
    releases: list[Release] = field(default_factory=list)
    paper_rules: dict[str, Callable[["Ledger"], tuple[float, float]]] = field(default_factory=dict)
    #: False when some part of the run has no proof (a sensitivity that is not a bound, floating-point
    #: noise, ...): then nothing is a guarantee and ``guarantee_note`` says why.
    guarantee_valid: bool = True
    guarantee_note: str = ""
    _shared: _Sums = field(default_factory=_Sums)
    _parts: dict[str, _Sums] = field(default_factory=dict)

    def __post_init__(self):
        if self.rule not in RULES:
            raise ValueError(f"unknown composition rule {self.rule!r}; one of {RULES}")
        if self.budget is not None:
            self.budget = validate_epsilon(self.budget, "the total privacy budget ε")
        self.delta = validate_delta(self.delta)
        if self.worst_case is not None:
            self.worst_case = tuple((float(e), int(k)) for e, k in self.worst_case if k > 0)

    def void_guarantee(self, why: str) -> None:
        """Mark the run as having no proven guarantee (kept once; later reasons are appended)."""
        self.guarantee_valid = False
        self.guarantee_note = why if not self.guarantee_note else f"{self.guarantee_note}; {why}"

    # ------------------------------------------------------------------ the rule
    def _value(self, s: _Sums) -> tuple[float, float]:
        """(ε, δ) of the rule for the releases summed in ``s``."""
        if s.n == 0:
            return 0.0, 0.0
        if self.rule == "basic":
            return s.eps, s.delta
        if self.rule == "advanced":
            return min(s.eps, advanced_filter(s.eps2, self.delta)), self.delta
        return zcdp_epsilon(s.rho, self.delta), self.delta

    def _fits(self, s: _Sums) -> bool:
        if self.rule == "basic" and s.delta > self.delta * (1 + 1e-12):
            return False
        if self.budget is None:
            return True
        if self.rule == "zcdp":
            return s.rho <= self.rho_budget * (1 + 1e-12)
        return self._value(s)[0] <= self.budget * (1 + 1e-12)

    @property
    def rho_budget(self) -> float:
        """The zCDP budget ρ_B whose conversion at the run's δ is the budget ε."""
        return zcdp_rho_for(self.budget, self.delta) if self.budget is not None else math.inf

    def _check_release(self, epsilon: float, delta: float, rho: float | None) -> None:
        if not (epsilon > 0 and math.isfinite(epsilon)):
            raise ValueError(f"a release must cost a finite ε > 0; got {epsilon!r}")
        if not (0.0 <= delta < 1.0):
            raise ValueError(f"a release's δ must be in [0, 1); got {delta!r}")
        if self.rule == "advanced" and delta > 0:
            raise ValueError("the advanced-composition filter composes pure-ε releases; record δ > 0 releases "
                             "under the 'basic' rule")
        if self.rule == "zcdp" and rho is None:
            raise ValueError("the zCDP rule composes zCDP releases: give rho = Δ²/(2σ²)")

    def _sums_for(self, partition: str, extra=()) -> list[_Sums]:
        """The sums the filter checks: every part (plus whole-data releases), or the whole data."""
        items = list(extra)
        if not self._parts and not partition:
            return [self._shared.plus(items)]
        parts = dict(self._parts)
        if partition and partition not in parts:
            parts[partition] = _Sums()
        out = []
        for name, ps in parts.items():
            mine = items if (not partition or name == partition) else []
            merged = ps.plus([])
            merged.n += self._shared.n
            merged.eps += self._shared.eps
            merged.eps2 += self._shared.eps2
            merged.delta += self._shared.delta
            merged.rho += self._shared.rho
            out.append(merged.plus(mine))
        return out

    # ------------------------------------------------------------------ filter
    def can_afford(self, *costs, partition: str = "") -> bool:
        """True when the filter admits releases of these costs (each an ε, or (ε, δ, ρ)) next."""
        items = [(float(c), 0.0, None) if np.ndim(c) == 0 else (float(c[0]), float(c[1]), c[2]) for c in costs]
        return all(self._fits(s) for s in self._sums_for(partition, items))

    def record(self, mechanism: str, epsilon: float, delta: float = 0.0, *, order: int | None = None,
               what: str = "", group: str = "", laplace_ratio: float | None = None,
               rho: float | None = None, partition: str = "") -> Release:
        """Declare one release; raises BudgetExceeded when the filter refuses it (nothing is recorded)."""
        self._check_release(epsilon, delta, rho)
        if not self.can_afford((epsilon, delta, rho), partition=partition):
            cap = "its δ" if self.budget is None else f"its budget ε={self.budget:.4g}"
            raise BudgetExceeded(f"release of ε={epsilon:.4g} would take the run past {cap}")
        rel = Release(mechanism, float(epsilon), float(delta), order, what, group or mechanism, laplace_ratio,
                      rho, partition)
        self.releases.append(rel)
        item = [(rel.epsilon, rel.delta, rho)]
        if partition:
            self._parts[partition] = self._parts.get(partition, _Sums()).plus(item)
        else:
            self._shared = self._shared.plus(item)
        return rel

    def largest_uniform(self, count: int, target: float) -> float:
        """The largest ε0 such that ``count`` more pure releases of ε0 keep the rule's total ≤ ``target``
        (whole-data releases; for planners, which may only use released outputs)."""
        if count <= 0 or target <= 0:
            return 0.0
        s = self._shared
        basic = max(0.0, (target - s.eps) / count)
        if self.rule == "basic":
            return basic
        if self.rule == "zcdp":
            raise ValueError("plan zCDP releases in ρ (Ledger.rho_left)")
        v = _advanced_capacity(target, self.delta) - s.eps2
        adv = math.sqrt(v / count) if v > 0 else 0.0
        return max(basic, adv)

    def total_with(self, extra) -> float:
        """The rule's ε after ``count`` more whole-data pure releases of each ε in ``extra`` ((ε, count), ...):
        what a planner may evaluate, since it uses only the ledger (released outputs) and public sizes."""
        s = self._shared.plus([])
        for e, k in extra:
            if k > 0 and e > 0:
                s.n += int(k)
                s.eps += e * k
                s.eps2 += e * e * k
        if self.rule == "zcdp":
            raise ValueError("plan zCDP releases in ρ (Ledger.rho_left)")
        return self._value(s)[0]

    def rho_left(self) -> float:
        """ρ_B − Σρ_i: the zCDP rule's remaining budget (inf when uncapped)."""
        return max(self.rho_budget - self._shared.rho, 0.0)

    def used(self) -> tuple[float, float]:
        """(ε, δ) of the rule at the releases made: how much of the budget the filter has used.
        Not a guarantee by itself (see :meth:`guarantee`)."""
        return max((self._value(s) for s in self._sums_for("")), default=(0.0, 0.0))

    def remaining(self) -> float:
        """Budget left under the rule (inf when uncapped)."""
        if self.budget is None:
            return math.inf
        return max(0.0, self.budget - self.used()[0])

    def _worst(self) -> tuple[float, float] | None:
        if self.worst_case is None:
            return None
        s = _Sums()
        for e, k in self.worst_case:  # (ρ, count) under the zCDP rule, (ε, count) otherwise
            s.n += k
            if self.rule == "zcdp":
                s.rho += e * k
            else:
                s.eps += e * k
                s.eps2 += e * e * k
        return self._value(s)

    def guarantee(self) -> tuple[float, float] | None:
        """(ε, δ) the run is guaranteed, decided before it started: the budget (or the rule's bound at
        the data-independent worst case, whichever is smaller); None when neither exists."""
        worst = self._worst()
        delta = 0.0 if self.rule == "basic" else self.delta
        if self.budget is None:
            return worst
        if worst is not None and worst[0] < self.budget:
            return worst
        return self.budget, delta

    def __len__(self) -> int:
        return len(self.releases)

    # ------------------------------------------------------------------ reporting
    def per_order(self) -> list[dict[str, Any]]:
        """Releases and Σε per PC order (None = not tied to an order); the orders' ε add up to the basic total, not
        to the guarantee. A zCDP run's rows also carry Σρ, what its filter composes: they add up to ``rho_used``."""
        zcdp = self.rule == "zcdp" and all(r.rho for r in self.releases)
        rows: dict[Any, dict[str, Any]] = {}
        for r in self.releases:
            row = rows.setdefault(r.order, {"order": r.order, "releases": 0, "epsilon": 0.0,
                                            **({"rho": 0.0} if zcdp else {})})
            row["releases"] += 1
            row["epsilon"] += r.epsilon
            if zcdp:
                row["rho"] += r.rho
        return sorted(rows.values(), key=lambda r: (r["order"] is None, r["order"] if r["order"] is not None else 0))

    def totals(self, *, tight: bool = True) -> dict[str, dict[str, Any]]:
        """The guarantee, and every comparison total of the same releases, each with its status and why."""
        out: dict[str, dict[str, Any]] = {}
        g = self.guarantee()
        if g is not None:
            how = (f"budget fixed before the run, {self.rule} composition filter" if self.budget is not None
                   and (self._worst() is None or self._worst()[0] >= self.budget)
                   else f"{self.rule} composition at the largest number of releases any run on data of this "
                        f"shape could make ({sum(k for _, k in self.worst_case or ())})")
            out["guarantee"] = _entry(*g, "guarantee", how)
        rel = self.releases
        if rel:
            eps_all = [r.epsilon for r in rel]
            out["basic"] = _entry(math.fsum(eps_all), math.fsum(r.delta for r in rel), "realised", "Σ ε_i")
            if all(r.delta == 0 for r in rel):
                out["advanced"] = _entry(min(math.fsum(eps_all), advanced_filter(math.fsum(e * e for e in eps_all),
                                                                                 self.delta)),
                                         self.delta, "realised", "min(Σε_i, sqrt(2 ln(1/δ) Σε_i²) + Σε_i²/2)")
            if all(r.rho for r in rel):
                rho = math.fsum(r.rho for r in rel)
                out["zcdp"] = _entry(zcdp_epsilon(rho, self.delta), self.delta, "realised",
                                     f"zCDP composition, ρ = Σρ_i = {rho:.4g}")
            if tight and not any(r.rho for r in rel):
                pld = pld_epsilon(rel, self.delta)
                if pld is not None:
                    out["pld"] = _entry(pld, self.delta, "realised", "privacy-loss distribution (dp_accounting)")
            if self._parts:
                e, d = self.used()
                out["parallel"] = _entry(e, d, "realised", f"{self.rule} within each of {len(self._parts)} disjoint "
                                                           "part(s) of the data, the largest part")
        for name, rule in self.paper_rules.items():
            out[name] = _entry(*rule(self), "as in paper", "")
        if not self.guarantee_valid:
            for key, entry in out.items():
                entry["valid"] = False
                if entry["status"] == "guarantee":
                    entry["status"] = "no guarantee"
                entry["note"] = (entry["note"] + "; " if entry["note"] else "") + f"no guarantee: {self.guarantee_note}"
            # named for what it is: a row called "guarantee" read as one beside "not a guarantee"
            out = {(UNPROVEN if k == "guarantee" else k): v for k, v in out.items()}
        return out

    def statement(self) -> str:
        """One sentence: what this run guarantees."""
        if not self.guarantee_valid:
            return f"No privacy guarantee: {self.guarantee_note}."
        g = self.guarantee()
        if g is None:
            return "No data-independent bound is known for this run."
        eps, delta = g
        dtxt = "" if delta == 0 else f", δ = {readable(delta)}"
        if self.budget is not None and (self._worst() is None or self._worst()[0] >= self.budget):
            return (f"(ε = {readable(eps)}{dtxt})-differentially private: the budget was fixed before the run and the "
                    f"{self.rule} composition filter refused every release that would exceed it.")
        k = sum(c for _, c in self.worst_case or ())
        return (f"(ε = {readable(eps)}{dtxt})-differentially private: {self.rule} composition of the most releases "
                f"any run on data of this shape could make ({k:,}).")

    def summary(self) -> dict[str, Any]:
        """The ``privacy`` object of the JSON contract (DESIGN.md). A run without a guarantee (EM-PC) states no
        (ε, δ): ``epsilon`` and ``delta`` are null, and its budget, δ and totals stay, each marked not valid."""
        g = self.guarantee() if self.guarantee_valid else None
        used_eps, used_delta = self.used()
        return {
            "epsilon": None if g is None else g[0],
            "delta": None if g is None else g[1],
            "rule": self.rule,
            "budget": self.budget,
            "run_delta": self.delta,
            "used": {"epsilon": used_eps, "delta": used_delta},
            "statement": self.statement(),
            "accounting": self.totals(),
            "releases": len(self.releases),
            "per_order": self.per_order(),
            "guarantee": g is not None,
            "guarantee_note": self.guarantee_note or None,
            **({"zcdp": {"rho_budget": self.rho_budget if self.budget is not None else None,
                         "rho_used": float(sum(r.rho or 0.0 for r in self.releases))}}
               if self.rule == "zcdp" else {}),
        }


def _entry(eps: float, delta: float, status: str, note: str) -> dict[str, Any]:
    return {"epsilon": float(eps), "delta": float(delta), "status": status, "valid": status == "guarantee",
            "note": note if status == "guarantee" else (f"{note} — {STATUS[status]}" if note else STATUS[status])}


def readable(v: float | None) -> str:
    """ε or δ for a sentence: 4 significant digits, thousands separated, no exponent below a million."""
    if v is None:
        return "—"
    if v == 0:
        return "0"
    if abs(v) >= 1e6 or abs(v) < 1e-4:
        return f"{v:.3g}"
    if abs(float(f"{v:.4g}")) >= 1000:  # 999.99999 (a budget used up to rounding) reads 1,000, as 1000 does
        return f"{v:,.0f}"
    return f"{v:.4g}"


#: Above this ε a guarantee is a formality: e^ε lets an attacker's odds about one person grow e^10 ≈ 22,000-fold.
WEAK_EPSILON = 10.0


#: what ε bounds, in words: the e^ε-fold growth of an attacker's odds about one person
ODDS_GROWTH = "the odds of any inference about one person may grow e^ε-fold"


def weak_reasons(epsilon: float | None, delta: float | None, n: int | None) -> list[str]:
    """Why an (ε, δ) guarantee that holds protects little: ε above :data:`WEAK_EPSILON`, or δ above 1/n (which a
    mechanism publishing one row in full would meet). Empty when neither."""
    out = []
    if epsilon is not None and epsilon > WEAK_EPSILON:
        out.append(f"at ε = {readable(epsilon)} {ODDS_GROWTH}, so the bound protects little")
    if n and delta and delta > 1.0 / n:
        out.append(f"δ = {readable(delta)} is above 1/n = {readable(1.0 / n)}: a mechanism that published one row in "
                   "full would meet it")
    return out


def weakness(epsilon: float | None, delta: float | None, n: int | None) -> str:
    """"Formally true, but …" with :func:`weak_reasons`, or "" when the guarantee is not weak."""
    reasons = weak_reasons(epsilon, delta, n)
    return f"Formally true, but {'; and '.join(reasons)}." if reasons else ""


def pld_epsilon(releases: list[Release], delta: float) -> float | None:
    """ε at δ of the composed privacy-loss distribution of the releases (None if it cannot be computed).
    Identical releases are self-composed, so the cost grows with the number of distinct releases. Ten or more
    releases of one pure ε (the sparse-vector algorithms) take the binomial PLD in closed form on the grid of step
    ε (:func:`cgdcore.privacy.pld_pure.pure_epsilon_pld`): the exact losses (2i − k)·ε, without importing
    dp_accounting. Other mixes go through dp_accounting on a grid of step min(10⁻³, max(ε_min/20, Σε/10⁵)): its
    pessimistic rounding of every loss up to the grid added up to ~k·10⁻³ over k releases of ε ≪ 10⁻³ (437
    releases of ε = 0.00128 at δ = 10⁻³: 0.265 at step 10⁻³, 0.0374 exactly), above the advanced-composition
    total of the same releases."""
    counts: dict[tuple, int] = {}
    for r in releases:
        if r.laplace_ratio:
            key = ("lap", round(r.laplace_ratio, 12))
        else:
            key = ("eps", round(r.epsilon, 12), r.delta)
        counts[key] = counts.get(key, 0) + 1
    if any((key[0] == "lap" and key[1] < 0.1) or (key[0] == "gauss" and key[1] < 0.5)
           or (key[0] == "eps" and key[1] > 10) for key in counts):
        return None  # ε per release beyond what a discretised PLD can represent
    if len(counts) == 1:
        (key, k), = counts.items()
        if key[0] == "eps" and key[2] == 0 and k >= MIN_COMPOSED and 0 < delta < 1:
            try:  # the grid step ε itself: the exact losses (2i − k)·ε, nothing rounded up
                return pure_epsilon_pld(key[1], k, float(delta), interval=key[1])
            except OverflowError:  # pragma: no cover - numeric edge, as for dp_accounting below
                return None
    try:
        import dp_accounting  # noqa: F401
    except ImportError:  # pragma: no cover - dp_accounting is in requirements.txt
        return None
    per = [1.0 / key[1] if key[0] in ("lap", "gauss") else key[1] for key in counts]  # ε-like size of each kind
    total = math.fsum(e * k for e, k in zip(per, counts.values()))
    interval = min(1e-3, max(min(per) / 20.0, total / 1e5))
    try:
        return _pld(tuple(sorted(counts.items(), key=repr)), float(delta), interval)
    except (OverflowError, ValueError, IndexError, FloatingPointError):  # pragma: no cover - numeric edge
        return None


@functools.lru_cache(maxsize=4096)
def _pld(counts: tuple, delta: float, interval: float = 1e-3) -> float:
    """ε at δ of the composition of ``counts`` ((mechanism key, times) pairs), discretised at ``interval``; cached."""
    from dp_accounting.pld import privacy_loss_distribution as pldlib
    from dp_accounting.pld.common import DifferentialPrivacyParameters

    total = None
    for key, k in counts:
        if key[0] == "gauss":
            one = pldlib.from_gaussian_mechanism(standard_deviation=key[1], sensitivity=1.0,
                                                 value_discretization_interval=interval)
        elif key[0] == "lap":
            one = pldlib.from_laplace_mechanism(parameter=key[1], sensitivity=1.0,
                                                value_discretization_interval=interval)
        else:
            one = pldlib.from_privacy_parameters(DifferentialPrivacyParameters(key[1], key[2]),
                                                 value_discretization_interval=interval)
        comp = one.self_compose(k) if k > 1 else one
        total = comp if total is None else total.compose(comp)
    return float(total.get_epsilon_for_delta(delta))
