"""The privacy ledger: every release a private run makes, and the rules that total them.

A mechanism *declares* its cost when it releases something (:meth:`Ledger.record`); nothing
computes "the ε of a run" by hand afterwards (DESIGN.md, "Privacy honesty"; OpenDP's idea
of a measurement carrying its privacy map).

Composition rules, all over the releases actually recorded:

* ``basic`` — Σε_i, Σδ_i (Dwork & Roth 2014, Thm 3.16). Holds under fully adaptive
  composition, including a data-dependent number of releases.
* ``advanced`` — Dwork–Rothblum–Vadhan 2010 / Dwork & Roth Thm 3.20 with the exact
  k·ε(e^ε−1) term, in its heterogeneous form
  ε = sqrt(2 ln(1/δ') Σε_i²) + Σ ε_i(e^{ε_i} − 1), δ = δ' + Σδ_i
  (for k equal ε_0 this is Thm 3.20 verbatim). Whitehouse, Ramdas, Rogers & Wu (ICML 2023)
  show filters with these rates and constants stay valid when the budgets are chosen
  adaptively, which is how PC uses them.
* ``per_group`` — releases grouped (by PC order, or by the two halves of sieve-and-examine);
  each group totals min(basic, advanced at δ'/G), groups add up (basic composition across
  groups, as CURATE does across orders).
* ``gaussian`` — when every release is a Gaussian mechanism: exact composition in Gaussian DP
  (Dong, Roth & Su 2022): μ = sqrt(Σ (Δ_i/σ_i)²), and ε at the run's δ from the Balle–Wang
  curve δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2). Smith & Thakurta (2022) show it stays valid
  as a filter under fully adaptive composition.
* ``parallel`` — releases computed on *disjoint* parts of the data (e.g. each data owner's
  rows in a federation) compose in parallel (McSherry 2009, Thm 4): the total is the largest
  part's own total (min of basic and advanced within the part), with releases on the whole
  data counted in every part.
* ``pld`` — a numerically tight accountant: the privacy-loss distribution of the same
  releases (Google's ``dp_accounting``; Laplace releases by their exact Laplace PLD, other
  pure-ε releases by the worst-case ε-DP PLD). It is tight for a *fixed* sequence of
  releases; PC's number of releases depends on the data, so it is shown for comparison and
  is never the headline total.
* ``as in paper`` forms that an algorithm registers (CURATE's t·ε² form, Priv-PC's code
  form) are shown labelled and never used as the headline.

The headline total is the smallest ε among the valid rules whose δ does not exceed the
run's δ. A run given a budget never records a release that would push the filter total
(min of basic and advanced) above it: :meth:`Ledger.can_afford` is asked first.
"""
from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from . import UserError

__all__ = [
    "Release",
    "Ledger",
    "BudgetExceeded",
    "basic_composition",
    "advanced_composition",
    "advanced_composition_homogeneous",
    "curate_paper_composition",
    "privpc_code_composition",
    "validate_epsilon",
    "validate_delta",
    "MAX_EPSILON",
    "VALID_RULES",
]

#: Rules whose totals are valid DP guarantees for the recorded run (see module docstring).
VALID_RULES = ("basic", "advanced", "per_group", "gaussian", "parallel")


class BudgetExceeded(RuntimeError):
    """Raised when a release would exceed the run's budget (callers ask can_afford first)."""


#: Largest ε accepted anywhere a user types one (central, local, sweep grids): beyond it no noise is left.
MAX_EPSILON = 1e6


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
    """ε(e^ε − 1), the second-order term of advanced composition (inf past float range)."""
    return e * math.expm1(e) if e < 700 else math.inf


def basic_composition(epsilons: Iterable[float], deltas: Iterable[float] = ()) -> tuple[float, float]:
    """Σε_i, Σδ_i (Dwork & Roth 2014, Theorem 3.16)."""
    return float(math.fsum(epsilons)), float(math.fsum(deltas))


def advanced_composition_homogeneous(k: int, eps0: float, delta_prime: float, delta0: float = 0.0):
    """Dwork & Roth 2014, Theorem 3.20: k mechanisms, each (ε0, δ0)-DP, for δ' > 0 compose to
    (sqrt(2k ln(1/δ'))·ε0 + k·ε0·(e^{ε0} − 1), kδ0 + δ')."""
    if k <= 0:
        return 0.0, 0.0
    eps = math.sqrt(2.0 * k * math.log(1.0 / delta_prime)) * eps0 + k * _lin(eps0)
    return eps, k * delta0 + delta_prime


def advanced_composition(epsilons: Iterable[float], delta_prime: float, deltas: Iterable[float] = ()):
    """Heterogeneous advanced composition: (sqrt(2 ln(1/δ') Σε_i²) + Σε_i(e^{ε_i} − 1), δ' + Σδ_i).

    Reduces to Theorem 3.20 when all ε_i are equal (Dwork, Rothblum & Vadhan 2010; Kairouz,
    Oh & Viswanath 2015, Thm 3.5 for the heterogeneous form with this looser second term).
    """
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
    """Priv-PC's total **as in the reference code** (seed_privpc.md §2, form (B)).

    The K sieves (ε/2 each after amplification) and the K examines (ε/2 each) are composed
    separately by advanced composition at δ/2 and added:
    sqrt(2K ln(2/δ))·ε + K·ε·(e^{ε/2} − 1); the code reports δ_tot = δ.
    """
    if K <= 0:
        return 0.0, delta
    return math.sqrt(2.0 * K * math.log(2.0 / delta)) * eps + K * eps * (math.expm1(eps / 2.0) if eps < 1400 else math.inf), delta


# ----------------------------------------------------------------------------- ledger
@dataclass(frozen=True)
class Release:
    """One privacy-costing release, as declared by the mechanism that made it.

    ``laplace_ratio`` (scale / sensitivity) is set for Laplace releases so the tight
    accountant can use the Laplace privacy-loss distribution instead of the generic ε-DP one.
    """

    mechanism: str
    epsilon: float
    delta: float = 0.0
    order: int | None = None
    what: str = ""
    group: str = ""
    laplace_ratio: float | None = None
    gaussian_mu: float | None = None
    #: the disjoint part of the data it was computed on ("" = the whole dataset)
    partition: str = ""


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

    if mu <= 0:
        return 0.0
    if gaussian_delta(0.0, mu) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_delta(hi, mu) > delta:
        hi *= 2.0
    return float(brentq(lambda e: gaussian_delta(e, mu) - delta, 0.0, hi, xtol=1e-12, rtol=1e-12))


def gaussian_mu_for(epsilon: float, delta: float) -> float:
    """The μ whose GDP curve passes through (ε, δ): the total a Gaussian schedule may spend."""
    from scipy.optimize import brentq

    lo, hi = 1e-8, 1.0
    while gaussian_delta(epsilon, hi) < delta:
        hi *= 2.0
    return float(brentq(lambda m: gaussian_delta(epsilon, m) - delta, lo, hi, xtol=1e-14, rtol=1e-12))


@dataclass
class _Sums:
    n: int = 0
    eps: float = 0.0
    eps2: float = 0.0
    lin: float = 0.0
    delta: float = 0.0

    def add(self, e: float, d: float) -> None:
        self.n += 1
        self.eps += e
        self.eps2 += e * e
        self.lin += _lin(e)
        self.delta += d

    def advanced(self, delta_prime: float) -> tuple[float, float]:
        if self.n == 0:
            return 0.0, 0.0
        return math.sqrt(2.0 * math.log(1.0 / delta_prime) * self.eps2) + self.lin, delta_prime + self.delta


@dataclass
class Ledger:
    """Every release of one run, with running sums for O(1) budget checks.

    Parameters
    ----------
    budget: the total ε the run may spend (None = uncapped; the run reports what it spent).
    delta: the run's δ: the slack δ' of advanced composition and the target δ of the PLD.
    groups_planned: how many accounting groups the run may use (PC orders, or the sieve and
        examine halves); each group's advanced composition gets δ' = δ / groups_planned, fixed
        before the run so the per-group total is a valid bound.
    paper_rules: name -> function(ledger) -> (ε, δ) for the papers' own formulas, shown
        labelled "as in paper" and never used as the headline total.
    """

    budget: float | None = None
    delta: float = 1e-6
    groups_planned: int = 1
    #: False when a mechanism's stated sensitivity is not a proven bound (e.g. CURATE's "paper" Δ):
    #: then no total is a valid guarantee, whatever the composition rule.
    guarantee: bool = True
    guarantee_note: str = ""
    releases: list[Release] = field(default_factory=list)
    paper_rules: dict[str, Callable[["Ledger"], tuple[float, float]]] = field(default_factory=dict)
    _sums: _Sums = field(default_factory=_Sums)
    _group_sums: dict[str, _Sums] = field(default_factory=dict)
    _mu2: float = 0.0
    _all_gaussian: bool = True
    _part_sums: dict[str, _Sums] = field(default_factory=dict)
    _shared: _Sums = field(default_factory=_Sums)

    def void_guarantee(self, why: str) -> None:
        """Mark every total of this run as not a DP guarantee (the sensitivity is not proven)."""
        self.guarantee = False
        self.guarantee_note = why

    def __post_init__(self):
        if self.budget is not None:
            self.budget = validate_epsilon(self.budget, "the total privacy budget ε")
        self.delta = validate_delta(self.delta)
        self.groups_planned = max(1, int(self.groups_planned))

    # ------------------------------------------------------------------ recording
    def _group_delta(self) -> float:
        return self.delta / max(self.groups_planned, len(self._group_sums), 1)

    def filter_total(self, extra: tuple[tuple[float, str], ...] = (), partition: str = "") -> float:
        """The ε the budget filter holds the run to: min(basic, advanced, per-group) over the
        recorded releases plus the hypothetical ``extra`` releases ((ε, group), ...)."""
        s = self._sums
        if s.n == 0 and not extra:
            return 0.0
        pairs = [(x[0], x[1]) for x in extra]
        basic = s.eps + sum(e for e, _ in pairs)
        eps2 = s.eps2 + sum(e * e for e, _ in pairs)
        lin = s.lin + sum(_lin(e) for e, _ in pairs)
        adv = math.sqrt(2.0 * math.log(1.0 / self.delta) * eps2) + lin
        groups = {g: (gs.eps, gs.eps2, gs.lin) for g, gs in self._group_sums.items()}
        for e, g in pairs:
            a, b, c = groups.get(g, (0.0, 0.0, 0.0))
            groups[g] = (a + e, b + e * e, c + _lin(e))
        log_g = math.log(max(self.groups_planned, len(groups), 1) / self.delta)
        per_group = sum(min(a, math.sqrt(2.0 * log_g * b) + c) for a, b, c in groups.values())
        best = min(basic, adv, per_group)
        if self._part_sums or partition:  # hypothetical releases go to ``partition`` ("" = every part)
            best = min(best, self._parallel_total(self.delta, pairs, partition)[0])
        extra_mu = [m for *_, m in (e if len(e) == 3 else (*e, None) for e in extra)]
        if self._all_gaussian and all(m is not None for m in extra_mu):
            mu = math.sqrt(self._mu2 + sum(m * m for m in extra_mu))
            best = min(best, gaussian_epsilon(mu, self.delta))
        return best

    def _parallel_total(self, delta_prime: float, extra=(), partition: str = "") -> tuple[float, float]:
        """McSherry (2009) parallel composition over the recorded partitions (plus hypothetical
        ``extra`` releases on ``partition``, or on the whole data when it is "")."""
        sh = self._shared
        worst = (0.0, 0.0)
        parts = dict(self._part_sums)
        if partition and partition not in parts:
            parts[partition] = _Sums()
        for name, ps in parts.items():
            ex = extra if (not partition or name == partition) else ()
            n = ps.n + sh.n + len(ex)
            eps = ps.eps + sh.eps + sum(e for e, _ in ex)
            eps2 = ps.eps2 + sh.eps2 + sum(e * e for e, _ in ex)
            lin = ps.lin + sh.lin + sum(_lin(e) for e, _ in ex)
            dl = ps.delta + sh.delta
            adv = (math.sqrt(2.0 * math.log(1.0 / delta_prime) * eps2) + lin, delta_prime + dl) if n else (0.0, 0.0)
            part = min((eps, dl), adv)
            worst = max(worst, part)
        return worst

    def can_afford(self, epsilon: float, group: str = "", *more: tuple, gaussian_mu: float | None = None,
                   partition: str = "") -> bool:
        """True when recording a release of ε in ``group`` (and any ``more`` (ε, group) pairs)
        keeps the run within its budget. Gaussian releases pass their μ = Δ/σ; releases on a
        disjoint part of the data name it (``partition``)."""
        if self.budget is None:
            return True
        first = (epsilon, group, gaussian_mu) if gaussian_mu is not None else (epsilon, group)
        return self.filter_total((first,) + tuple(more), partition) <= self.budget * (1 + 1e-12)

    def remaining(self) -> float:
        """Budget left under the filter rule (inf when uncapped)."""
        if self.budget is None:
            return math.inf
        return max(0.0, self.budget - self.filter_total())

    def record(self, mechanism: str, epsilon: float, delta: float = 0.0, *, order: int | None = None,
               what: str = "", group: str = "", laplace_ratio: float | None = None,
               gaussian_mu: float | None = None, partition: str = "") -> Release:
        """Declare one release. Raises BudgetExceeded if it would break the budget.

        ``partition`` names the disjoint part of the data the release was computed on (parallel
        composition); "" means the whole dataset."""
        if not (epsilon > 0 and math.isfinite(epsilon)):
            raise ValueError(f"a release must cost a finite ε > 0; got {epsilon!r}")
        group = group or mechanism
        if not self.can_afford(epsilon, group, gaussian_mu=gaussian_mu, partition=partition):
            raise BudgetExceeded(
                f"release of ε={epsilon:.4g} would take the run past its budget ε={self.budget:.4g}"
            )
        rel = Release(mechanism, float(epsilon), float(delta), order, what, group, laplace_ratio, gaussian_mu,
                      partition)
        if gaussian_mu is None:
            self._all_gaussian = False
        else:
            self._mu2 += gaussian_mu * gaussian_mu
        self.releases.append(rel)
        self._sums.add(rel.epsilon, rel.delta)
        self._group_sums.setdefault(group, _Sums()).add(rel.epsilon, rel.delta)
        if partition:
            self._part_sums.setdefault(partition, _Sums()).add(rel.epsilon, rel.delta)
        else:
            self._shared.add(rel.epsilon, rel.delta)
        return rel

    def __len__(self) -> int:
        return len(self.releases)

    # ------------------------------------------------------------------ totals
    def groups(self) -> dict[str, list[Release]]:
        out: dict[str, list[Release]] = {}
        for r in self.releases:
            out.setdefault(r.group, []).append(r)
        return out

    def per_order(self) -> list[dict[str, Any]]:
        """Releases and basic ε per PC order (None = not tied to an order)."""
        rows: dict[Any, dict[str, Any]] = {}
        for r in self.releases:
            row = rows.setdefault(r.order, {"order": r.order, "releases": 0, "epsilon": 0.0})
            row["releases"] += 1
            row["epsilon"] += r.epsilon
        return sorted(rows.values(), key=lambda r: (r["order"] is None, r["order"] if r["order"] is not None else 0))

    def totals(self, *, tight: bool = True) -> dict[str, dict[str, Any]]:
        """Every rule's (ε, δ) for the recorded releases, with a validity flag and a note."""
        s = self._sums
        out: dict[str, dict[str, Any]] = {}
        out["basic"] = _entry(s.eps, s.delta, True, "Σ ε_i; holds under fully adaptive composition")
        adv = s.advanced(self.delta) if s.n else (0.0, 0.0)
        out["advanced"] = _entry(*adv, True, "Dwork–Roth Thm 3.20 (heterogeneous form), δ' = run δ")
        groups = self.groups()
        dg = self._group_delta()
        ge = gd = 0.0
        for rels in groups.values():
            b = math.fsum(r.epsilon for r in rels), math.fsum(r.delta for r in rels)
            a = advanced_composition([r.epsilon for r in rels], dg, [r.delta for r in rels])
            e, d = min(b, a)
            ge += e
            gd += d
        out["per_group"] = _entry(ge, gd, True, f"min(basic, advanced at δ'={dg:.3g}) within each of "
                                               f"{len(groups)} group(s), basic across groups")
        if self._part_sums:
            out["parallel"] = _entry(*self._parallel_total(self.delta), True,
                                     f"McSherry parallel composition over {len(self._part_sums)} disjoint part(s) "
                                     "of the data: the largest part's min(basic, advanced)")
        if s.n and self._all_gaussian:
            mu = math.sqrt(self._mu2)
            out["gaussian"] = _entry(gaussian_epsilon(mu, self.delta), self.delta, True,
                                     f"exact Gaussian-DP composition, μ = {mu:.4g}")
        if tight and s.n and not self._all_gaussian:  # for Gaussian releases the GDP total is already exact
            pld = pld_epsilon(self.releases, self.delta)
            if pld is not None:
                out["pld"] = _entry(pld, self.delta, False,
                                    "privacy-loss distribution (dp_accounting); tight for a fixed release "
                                    "sequence, not for PC's data-dependent count")
        for name, rule in self.paper_rules.items():
            e, d = rule(self)
            out[name] = _entry(e, d, False, "the paper's (or its reference code's) own formula, for comparison")
        if not self.guarantee:
            for entry in out.values():
                entry["valid"] = False
                entry["note"] += f" — not a guarantee: {self.guarantee_note}"
        return out

    def headline(self, totals: dict[str, dict[str, Any]] | None = None) -> tuple[str, float, float]:
        """(rule, ε, δ): the smallest valid total whose δ is within the run's δ."""
        totals = totals if totals is not None else self.totals(tight=False)
        best = ("basic", totals["basic"]["epsilon"], totals["basic"]["delta"])
        for name in VALID_RULES:
            t = totals.get(name)
            if t and t["delta"] <= self.delta * (1 + 1e-9) and t["epsilon"] < best[1]:
                best = (name, t["epsilon"], t["delta"])
        return best

    def summary(self) -> dict[str, Any]:
        """The ``privacy`` object of the JSON contract (DESIGN.md)."""
        totals = self.totals()
        rule, eps, delta = self.headline(totals)
        return {
            "epsilon": eps,
            "delta": delta,
            "rule": rule,
            "budget": self.budget,
            "run_delta": self.delta,
            "accounting": totals,
            "releases": len(self.releases),
            "per_order": self.per_order(),
            "guarantee": self.guarantee,
            "guarantee_note": self.guarantee_note or None,
        }


def _entry(eps: float, delta: float, valid: bool, note: str) -> dict[str, Any]:
    return {"epsilon": float(eps), "delta": float(delta), "valid": bool(valid), "note": note}


def pld_epsilon(releases: list[Release], delta: float) -> float | None:
    """ε at δ of the composed privacy-loss distribution of the releases (None if dp_accounting
    is unavailable). Identical releases are self-composed, so the cost grows with the number
    of distinct (mechanism, ε), not with the number of releases."""
    try:
        from dp_accounting.pld import privacy_loss_distribution as pldlib
        from dp_accounting.pld.common import DifferentialPrivacyParameters
    except ImportError:  # pragma: no cover - dp_accounting is in requirements.txt
        return None
    counts: dict[tuple, int] = {}
    for r in releases:
        if r.gaussian_mu:
            key = ("gauss", round(1.0 / r.gaussian_mu, 12))
        elif r.laplace_ratio:
            key = ("lap", round(r.laplace_ratio, 12))
        else:
            key = ("eps", round(r.epsilon, 12), r.delta)
        counts[key] = counts.get(key, 0) + 1
    if any((key[0] == "lap" and key[1] < 0.1) or (key[0] == "gauss" and key[1] < 0.5)
           or (key[0] == "eps" and key[1] > 10) for key in counts):
        return None  # ε per release beyond what a discretised PLD can represent
    try:
        return _pld(tuple(sorted(counts.items(), key=repr)), float(delta))
    except (OverflowError, ValueError, IndexError, FloatingPointError):  # pragma: no cover - numeric edge
        return None


@functools.lru_cache(maxsize=4096)
def _pld(counts: tuple, delta: float) -> float:
    """ε at δ of the composition of ``counts`` ((mechanism key, times) pairs); cached, since
    repeated runs (sweeps, reruns) often release the same multiset."""
    from dp_accounting.pld import privacy_loss_distribution as pldlib
    from dp_accounting.pld.common import DifferentialPrivacyParameters

    total = None
    for key, k in counts:
        if key[0] == "gauss":
            one = pldlib.from_gaussian_mechanism(standard_deviation=key[1], sensitivity=1.0,
                                                 value_discretization_interval=1e-3)
        elif key[0] == "lap":
            one = pldlib.from_laplace_mechanism(parameter=key[1], sensitivity=1.0,
                                                value_discretization_interval=1e-3)
        else:
            one = pldlib.from_privacy_parameters(DifferentialPrivacyParameters(key[1], key[2]),
                                                 value_discretization_interval=1e-3)
        comp = one.self_compose(k) if k > 1 else one
        total = comp if total is None else total.compose(comp)
    return float(total.get_epsilon_for_delta(delta))
