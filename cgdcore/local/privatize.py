"""Privatise a dataset record by record, and describe exactly what the released reports reveal.

``privatize(dataset, mechanism, epsilon=… | p_max=…, seed=…)`` discretises numeric columns into
uniform-width bins (the paper's §3; quantile bins would leak the distribution), applies one of
the four mechanisms of Binkyte et al. (CLeaR 2024) and returns the privatised Dataset with a
:class:`LocalRelease`: the ledger of what each record released, the channel's *true* ε-LDP, the
attacker's chance of guessing a whole record (Bayes vulnerability, the paper's "privacy level"),
and the channel restricted to any set of columns (what the de-biased CI tests invert).

Both parameterisations work for all four mechanisms (seed_ldp.md §2.3):

* ``epsilon``: k-RR at ε (C-wise: ε_i ∝ k_i); geometric at the fixed ratio e^{−ε} (C-wise: split ∝ k_i).
* ``p_max`` = P, the whole-record guessing probability: k-RR Comb ε = ln(P(K − 1)/(1 − P));
  k-RR C-wise ε by bisection so that Π_i p_i = P with ε_i ∝ k_i; Geo Comb p_max = P on the grid;
  Geo C-wise p_max,i = P^{ln k_i/Σ ln k_j}.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cgdcore import UserError
from cgdcore.privacy.ledger import MAX_EPSILON
from cgdcore.data.dataset import Dataset
from cgdcore.local import mechanisms as M

__all__ = ["MECHANISMS", "LocalRelease", "privatize", "krr_cwise_eps_for_pmax", "krr_comb_eps_for_pmax",
           "check_ldp_parameters", "discretise_for_ldp", "DEFAULT_BINS"]

#: mechanism -> one-line description
MECHANISMS: dict[str, str] = {
    "krr-cwise": "k-RR on every column, ε split in proportion to the domain sizes (the paper's k-RR C-wise)",
    "krr-comb": "k-RR on the whole record's product domain (the paper's k-RR Comb)",
    "geo-cwise": "bounded geometric on every column (the paper's Geo C-wise)",
    "geo-comb": "bounded geometric on the product grid, L1 distance (the paper's Geo Comb)",
}
DEFAULT_BINS = 10


def check_ldp_parameters(mechanism: str, epsilon, p_max) -> None:
    if mechanism not in MECHANISMS:
        raise UserError(f"unknown local mechanism {mechanism!r}; choose one of: {', '.join(MECHANISMS)}.")
    if (epsilon is None) == (p_max is None):
        raise UserError("give exactly one privacy parameter for local privacy: ε (--ldp-epsilon) or the "
                        "guessing probability p_max (--ldp-pmax).")
    if epsilon is not None:
        if M._check_eps(epsilon, "the local ε") > MAX_EPSILON:
            raise UserError(f"the local ε must be ≤ 1e6 (got {epsilon!r}): at that ε every value is "
                            f"reported unchanged; run discovery without local privacy instead.")


def krr_comb_eps_for_pmax(p_max: float, arities) -> float:
    """k-RR Comb keeps the record w.p. p = e^ε/(K − 1 + e^ε) = P ⇒ ε = ln(P(K − 1)/(1 − P))."""
    K = float(np.prod(np.asarray(arities, dtype=float)))
    M._check_pmax(p_max, K)
    return math.log(p_max) + math.log(K - 1) - math.log1p(-p_max)


def krr_cwise_eps_for_pmax(p_max: float, arities) -> float:
    """Total ε with Π_i e^{ε_i}/(k_i − 1 + e^{ε_i}) = P, ε_i = ε k_i/Σk_j (bisection; seed_ldp.md §2.3)."""
    ar = np.asarray(arities, dtype=float)
    M._check_pmax(p_max, float(np.prod(ar)))
    share = ar / ar.sum()

    def log_v(e):
        return sum(-math.log1p((k - 1) * math.exp(-e * s)) for k, s in zip(ar, share))

    lo, hi = 0.0, 1.0
    while log_v(hi) < math.log(p_max):
        hi *= 2
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if log_v(mid) < math.log(p_max) else (lo, mid)
    return 0.5 * (lo + hi)


@dataclass(frozen=True, eq=False)
class LocalRelease:
    """What one privatisation released, per record.

    ``columns``: per column, the channel C (C[x, y] = P[report y | true x]) when the mechanism
    acts column by column (C-wise, and Geo Comb at fixed ε, whose L1 channel factorises), else None.
    ``keep``: k-RR Comb's probability of keeping the whole record. ``epsilon``: the true ε-LDP of
    the channel (``exact`` False when only an upper bound is known); ``nominal``: the parameter
    asked for; ``vulnerability``: P[guess the whole record in one try] under a uniform prior. ``noise``: how the
    privatisation was seeded (:func:`cgdcore.privacy.noise_info`: fresh entropy, or a fixed seed marking a demo).
    ``schema_note``: set when categorical columns were read from the data file itself (their domain, taken as
    public, is what the ε-LDP assumes; cgdcore.privacy.PUBLIC_CATEGORIES_NOTE), None for a declared schema.
    """

    mechanism: str
    parameter: str
    value: float
    variables: tuple[str, ...]
    arities: tuple[int, ...]
    epsilon: float
    exact: bool
    vulnerability: float
    channels: tuple[np.ndarray, ...] | None
    keep: float | None = None
    per_column_epsilon: tuple[float, ...] | None = None
    ledger: Any = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    details: dict = field(default_factory=dict)
    noise: dict = field(default_factory=dict)
    schema_note: str | None = None

    def marginal_channel(self, cols) -> tuple[str, Any]:
        """The channel seen by the columns ``cols`` alone.

        ("product", [C_a for a in cols]) for column-wise channels; ("krr", (p', q')) for k-RR
        Comb, whose marginal on a set A with K_A cells is k-RR-like:
        p' = p + (1 − p)(K/K_A − 1)/(K − 1), q' = (1 − p)(K/K_A)/(K − 1).
        """
        cols = list(cols)
        if self.channels is not None:
            return "product", [self.channels[c] for c in cols]
        if self.mechanism == "krr-comb":
            K = float(np.prod(np.asarray(self.arities, dtype=float)))
            KA = float(np.prod([self.arities[c] for c in cols]))
            p = self.keep
            q_other = (1 - p) * (K / KA) / (K - 1)
            return "krr", (q_other + p - (1 - p) / (K - 1), q_other)
        raise UserError("Geo Comb at a fixed p_max has an input-dependent ε_x, so its channel on a subset of "
                        "columns depends on the other columns' unknown true values: de-biasing is not available "
                        "for it. Use Geo Comb with a fixed ε, or Geo C-wise.")

    def debias_supported(self) -> bool:
        return self.channels is not None or self.mechanism == "krr-comb"

    def privacy(self) -> dict[str, Any]:
        """The ``privacy`` object of the JSON contract for a local run."""
        return {
            "model": "local",
            "mechanism": self.mechanism,
            "parameter": self.parameter,
            "value": self.value,
            "epsilon": self.epsilon,
            "epsilon_exact": self.exact,
            "delta": 0.0,
            "rule": "true ε-LDP of the channel" + ("" if self.exact else " (upper bound)")
                    + (", if the categories are a public schema" if self.schema_note else ""),
            "vulnerability": self.vulnerability,
            "per_column_epsilon": None if self.per_column_epsilon is None else list(self.per_column_epsilon),
            "accounting": ({"guarantee": self.ledger.totals(tight=False)["guarantee"]} if self.ledger is not None
                           else {}),
            "releases": len(self.ledger) if self.ledger is not None else 0,
            "guarantee": True,
            **({"schema": self.schema_note} if self.schema_note else {}),
            **({"noise": dict(self.noise)} if self.noise else {}),  # fresh entropy, or a fixed seed: a demo
        }


def discretise_for_ldp(dataset: Dataset, bins: int = DEFAULT_BINS, log: bool = False) -> Dataset:
    """Equal-width bins over each numeric column's declared public range, values clipped to it (Binkyte et
    al. §3 bin over [min, max] of the data, which publishes the data's extremes in the bin labels and lets one
    record move every edge; the range here is public); categorical columns keep their codes. ``log``: bin
    log(x) (ranges above 0), as for Sachs (seed_ldp.md §5). A numeric column without a public range is refused."""
    from cgdcore.data import tabular

    if dataset.is_discrete:
        return dataset
    return tabular.discretise(dataset, bins=bins, method="public-log" if log else "public")


def _ledger_for(mechanism: str, per_column: list[tuple[str, float]]):
    from cgdcore.privacy.ledger import Ledger

    # one release per column: their number is fixed by the schema, so their composition is the guarantee
    led = Ledger(budget=None, delta=1e-9, rule="basic", worst_case=tuple((float(eps), 1) for _, eps in per_column))
    for what, eps in per_column:
        led.record(mechanism, eps, 0.0, what=what, group="local")
    return led


def privatize(dataset: Dataset, mechanism: str, *, epsilon: float | None = None, p_max: float | None = None,
              seed: int | np.random.SeedSequence | None = None, split: str = "proportional", bins: int = DEFAULT_BINS,
              log: bool = False, ranges=None) -> tuple[Dataset, LocalRelease]:
    """Privatise every record of ``dataset`` with ``mechanism`` (see :data:`MECHANISMS`).

    Numeric columns are first cut into ``bins`` equal-width bins over their public ranges
    (``dataset.ranges`` updated by ``ranges``; ``log``: of log x). Returns the privatised Dataset (same
    variables, states and truth) and its :class:`LocalRelease`.

    ``seed``: None (the default) draws the noise from fresh operating-system entropy, never reported; a
    ``numpy.random.SeedSequence`` made from fresh entropy is the same, kept by the caller to privatise the same
    records again (its entropy is never reported either); an integer makes a reproducible demo, not private
    against anyone who knows it.
    """
    check_ldp_parameters(mechanism, epsilon, p_max)
    from cgdcore.data import tabular

    tabular.check_category_counts(dataset)  # first: binning does not fix an identifier-like column
    schema_note = None
    if dataset.categories_from_file:  # a label only one record has would be in the domain because of it
        from cgdcore.privacy import PUBLIC_CATEGORIES_NOTE

        schema_note = PUBLIC_CATEGORIES_NOTE
    data = discretise_for_ldp(dataset.with_ranges(ranges), bins, log)

    tabular.check_discrete_usable(data)
    ar = np.asarray(data.arities, dtype=np.int64)
    if np.any(ar < 2):
        const = [v for v, k in zip(data.variables, ar) if k < 2]
        raise UserError(f"column(s) {', '.join(const[:5])} have a single category; drop them before privatising.")
    from cgdcore.privacy import noise_info

    fixed = seed is not None and not isinstance(seed, np.random.SeedSequence)
    rng = np.random.default_rng(seed if seed is not None else np.random.SeedSequence())
    noise = noise_info(seed if fixed else None)
    names = data.variables
    parameter, value = ("epsilon", float(epsilon)) if epsilon is not None else ("p_max", float(p_max))
    notes = [f"locally privatised with {mechanism} ({parameter} = {value:g}, "
             + (f"seed {seed})" if fixed else "a fresh seed from the operating system: not reproducible)")]
    details: dict = {}
    K = float(np.prod(ar.astype(float)))
    if mechanism == "krr-cwise":
        eps = epsilon if epsilon is not None else krr_cwise_eps_for_pmax(p_max, ar)
        out, info = M.krr_cwise(data.data, ar, eps, rng, split=split)
        chans = tuple(M.krr_channel(int(k), float(e)) for k, e in zip(ar, info["epsilons"]))
        per_col = [float(e) for e in info["epsilons"]]
        exact, true_eps = True, float(sum(per_col))
        vul = float(np.prod(info["keep_probabilities"]))
        keep = None
        if p_max is not None:
            notes.append(f"p_max = {p_max:g} ⇒ total ε = {eps:.4g}, split ∝ domain sizes")
    elif mechanism == "krr-comb":
        eps = epsilon if epsilon is not None else krr_comb_eps_for_pmax(p_max, ar)
        out, info = M.krr_comb(data.data, ar, eps, rng)
        chans, keep, per_col = None, float(info["keep_probability"]), None
        exact, true_eps, vul = True, float(eps), keep
        if p_max is not None:
            notes.append(f"p_max = {p_max:g} ⇒ ε = {eps:.4g} on a domain of {K:.3g} records")
    elif mechanism == "geo-cwise":
        out, info = M.geo_cwise(data.data, ar, rng, p_max=p_max, eps=epsilon)
        chans = tuple(M.geometric_channel(int(k), e) for k, e in zip(ar, info["epsilon_x"]))
        per_col = [M.geometric_epsilon(int(k), e) for k, e in zip(ar, info["epsilon_x"])]
        exact, true_eps, keep = True, float(sum(per_col)), None
        vul = float(np.prod([M.bayes_vulnerability(C) for C in chans]))
    else:  # geo-comb
        out, info = M.geo_comb(data.data, ar, rng, p_max=p_max, eps=epsilon)
        true_eps, exact = M.geo_comb_epsilon(ar, p_max=p_max, eps=epsilon)
        details = {"epsilon_x_range": info["epsilon_range"], "epsilon_x_median": info["epsilon_median"]}
        keep = None
        if epsilon is not None:  # the L1 channel at a fixed ε is the product of the 1-D channels
            chans = tuple(M.geometric_channel(int(k), float(epsilon)) for k in ar)
            per_col = [M.geometric_epsilon(int(k), float(epsilon)) for k in ar]
            vul = float(np.prod([M.bayes_vulnerability(C) for C in chans]))
        else:
            chans, per_col, vul = None, None, float(p_max)
    if mechanism.startswith("geo"):
        nominal = f"ε = {epsilon:g}" if epsilon is not None else f"p_max = {p_max:g}"
        notes.append(f"the geometric channel's true ε-LDP is {true_eps:.4g}{'' if exact else ' (upper bound)'} "
                     f"at {nominal}: equal guessing probability is not equal ε")
    if schema_note:
        notes.append(schema_note)
    if per_col is not None:
        ledger = _ledger_for(mechanism, [(f"column {v}", e) for v, e in zip(names, per_col)])
    else:
        ledger = _ledger_for(mechanism, [("whole record", true_eps)])
    release = LocalRelease(mechanism=mechanism, parameter=parameter, value=value, variables=names,
                           arities=tuple(int(k) for k in ar), epsilon=float(true_eps), exact=bool(exact),
                           vulnerability=float(vul), channels=chans, keep=keep,
                           per_column_epsilon=None if per_col is None else tuple(per_col), ledger=ledger,
                           notes=tuple(notes), details=details, noise=noise,
                           schema_note=schema_note)
    dtype = data.data.dtype if data.data.dtype.kind in "iu" else np.int64
    priv = Dataset(name=f"{data.name} [{mechanism}]", variables=names, data=out.astype(dtype, copy=False),
                   states=data.states, truth=data.truth, truth_name=data.truth_name, source=data.source,
                   licence=data.licence, notes=tuple(data.notes) + tuple(notes))
    return priv, release
