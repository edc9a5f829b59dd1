"""A finished discovery run as one typed object: :class:`Discovery` and its family details.

Every family leaves what it knows beyond the graph in a typed field — the central ledger and policy, the local
release, the encrypted federation's report (:class:`FheDetails`), the optimiser's weights and trace
(:class:`ScoreDetails`), the de-biased test — and what the run promises and spent in :class:`Privacy`. Pages,
the CLI and sweeps read attributes; :meth:`Discovery.to_json` writes the JSON object of DESIGN.md.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from .data.dataset import Dataset
from .graph import edge_list


@dataclass(frozen=True, eq=False)
class Privacy(Mapping):
    """What a run promises and what it spent: the ``privacy`` object of the JSON contract (``json``, in its key
    order) with typed accessors. Read as a mapping it is that JSON object, for code that serialises it."""

    json: Mapping[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.json[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.json)

    def __len__(self) -> int:
        return len(self.json)

    @property
    def model(self) -> str:
        """``"central"`` (a ledger's summary), ``"local"`` or ``"encrypted"``."""
        return self.json.get("model", "central")

    @property
    def epsilon(self) -> float | None:
        """The ε the run promises (None: no guarantee, as EM-PC's, or encrypted without differential privacy)."""
        return self.json.get("epsilon")

    @property
    def delta(self) -> float | None:
        return self.json.get("delta")

    @property
    def releases(self) -> int:
        return int(self.json.get("releases", 0))

    @property
    def rule(self) -> str | None:
        return self.json.get("rule")

    @property
    def accounting(self) -> Mapping[str, Mapping[str, Any]]:
        return self.json.get("accounting") or {}

    @property
    def accounted(self) -> bool:
        """Whether a ledger stands behind the numbers (its statement, totals and guarantee)."""
        return "statement" in self.json

    @property
    def statement(self) -> str | None:
        return self.json.get("statement")

    @property
    def used_epsilon(self) -> float | None:
        """The ε the filter used at the releases made (the guarantee is the budget)."""
        used = self.json.get("used")
        return None if used is None else used["epsilon"]

    @property
    def per_order(self) -> list[Mapping[str, Any]]:
        return list(self.json.get("per_order") or ())

    @property
    def guarantee(self) -> bool:
        return bool(self.json.get("guarantee", False))

    @property
    def guarantee_note(self) -> str | None:
        return self.json.get("guarantee_note")

    @property
    def budget(self) -> float | None:
        """The total ε the filter enforced (None: uncapped, the guarantee covers the most releases possible)."""
        return self.json.get("budget")

    @property
    def zcdp(self) -> Mapping[str, float] | None:
        """ρ budget and ρ used of a filter that composes in zCDP (None under the other rules)."""
        return self.json.get("zcdp")

    @property
    def noise(self) -> Mapping[str, Any] | None:
        """Where the noise seed came from (cgdcore.privacy.noise_info): a central run's noise, a local run's
        privatisation; None for a run without privacy noise."""
        return self.json.get("noise")

    @property
    def subsample_rows(self) -> int | None:
        """Priv-PC's sieve sub-sample m (None for the others)."""
        return self.json.get("subsample_rows")

    @property
    def subsample_ratio(self) -> float | None:
        """Priv-PC's n/m."""
        return self.json.get("subsample_ratio")

    @property
    def sieve_epsilon(self) -> float | None:
        """Priv-PC's sieve ε′ on the sub-sample (amplified to the round's ε by sub-sampling)."""
        return self.json.get("sieve_epsilon")

    @property
    def curate_plans(self) -> list[Mapping[str, Any]]:
        """CURATE's per-order budget plans (empty for the others)."""
        return list(self.json.get("plans") or ())

    @property
    def epsilon_floor(self) -> float | None:
        """CURATE's smallest per-test ε worth spending (where the Laplace noise's s.d. reaches 10 on the z scale, 1
        on the p scale)."""
        return self.json.get("epsilon_floor")

    @property
    def gauss_plan(self) -> Mapping[str, Any] | None:
        """Gauss-PC's zCDP plan (None for the others)."""
        return self.json.get("plan")

    @property
    def eps0(self) -> float | None:
        """DP-NOTEARS's first-iteration ε of its schedule (None for the others)."""
        return self.json.get("eps0")


@dataclass(frozen=True, eq=False)
class FheDetails:
    """An encrypted federated run: the protocol's full ``report`` (per level, timings, sizes) and its JSON-safe
    ``summary`` (the ``fhe`` key of ``discover --json``; cgdcore.fhe.run.fhe_summary)."""

    report: Mapping[str, Any]
    summary: Mapping[str, Any]


@dataclass(frozen=True, eq=False)
class ScoreDetails:
    """A score-based run: the learned weight matrix ``W`` (before thresholding), the optimiser's outer-iteration
    ``trace`` and, for DP-NOTEARS, the per-iteration noise scales ``sigmas``."""

    W: np.ndarray
    trace: list[Mapping[str, Any]]
    sigmas: Any = None


@dataclass(frozen=True, eq=False)
class Discovery:
    """A finished discovery run: the dataset it saw, the engine Result, metrics, timing and the family's details
    (None where they do not apply)."""

    dataset: Dataset
    algorithm: str
    params: Mapping[str, Any]
    result: Any  # cgdcore.pc.Result
    metrics: Mapping[str, float] | None
    seconds: float
    notes: tuple[str, ...] = ()
    privacy: Privacy | None = None
    ledger: Any = None  # cgdcore.privacy.ledger.Ledger of a central-DP run
    policy: Any = None  # the central run's cgdcore.pc.Policy (its rounds, plans)
    release: Any = None  # cgdcore.local.privatize.LocalRelease of locally privatised data
    fhe: FheDetails | None = None
    score: ScoreDetails | None = None
    debiased_test: Any = None  # cgdcore.local.debias.DebiasedTest of a de-biased run

    @property
    def variables(self) -> tuple[str, ...]:
        return self.dataset.variables

    @property
    def cpdag(self) -> np.ndarray:
        return self.result.cpdag

    @property
    def true_cpdag(self) -> np.ndarray | None:
        from .metrics import reference_cpdag

        return None if self.dataset.truth is None else reference_cpdag(self.dataset.truth)

    def edges(self) -> list[dict[str, Any]]:
        v = self.variables
        return [{"source": v[i], "target": v[j], "directed": dr} for i, j, dr in edge_list(self.cpdag)]

    def truth_edges(self) -> list[dict[str, Any]] | None:
        if self.dataset.truth is None:
            return None
        v = self.variables
        return [{"source": v[i], "target": v[j], "directed": True} for i, j, _ in edge_list(self.dataset.truth)]

    def trace_json(self) -> list[dict[str, Any]]:
        """One object per CI query in the order asked (``discover --json --trace``): ``x``, ``y``, ``S``
        (names), ``order``, ``phase``, ``stage``, ``released`` (the exact value the noise was added to,
        on its own scale), ``sensitivity`` (of that value, as charged), ``noise``, ``noisy``,
        ``threshold``, ``independent`` and ``epsilon`` (charged by this query); null where a field does
        not apply. ``released`` and ``noise`` are diagnostics from the exact data: not covered by ε. In the
        sparse vector's stages (``svt``, ``sieve``: cgdcore.privacy.mechanisms.ANSWER_ONLY_STAGES) so are ``noisy``
        and ``threshold``: the mechanism releases only ``independent``."""
        v = self.variables

        def num(a):
            return None if a is None or (isinstance(a, float) and math.isnan(a)) else float(a)

        private = self.privacy is not None
        return [{"x": v[r.x], "y": v[r.y], "S": [v[k] for k in r.S], "order": int(r.order), "phase": r.phase,
                 "stage": r.stage or None, "released": num(r.released), "sensitivity": num(r.sensitivity),
                 "noise": num(r.noise), "noisy": num(r.noisy), "threshold": num(r.threshold),
                 "independent": bool(r.independent), "epsilon": float(r.epsilon) if private else None}
                for r in self.result.trace]

    def to_json(self, trace: bool = False) -> dict[str, Any]:
        """The ``discover --json`` object of DESIGN.md (extra keys only add information); ``trace`` adds
        every CI query (:meth:`trace_json`)."""
        from .metrics import CONVENTIONS

        res = self.result
        truth = self.truth_edges()
        out = {
            "dataset": self.dataset.name,
            "n": self.dataset.n,
            "variables": list(self.variables),
            "algorithm": self.algorithm,
            "params": dict(self.params),
            "edges": self.edges(),
            "truth": None if truth is None else {"edges": truth, "name": self.dataset.truth_name},
            "metrics": None if self.metrics is None else dict(self.metrics),
            "metric_conventions": None if self.metrics is None else dict(CONVENTIONS),
            "privacy": None if self.privacy is None else dict(self.privacy.json),
            "n_ci_tests": res.n_ci_tests,
            "tests_per_order": list(res.tests_per_order),
            "stopped_early": res.stopped_early,
            "stop_reason": res.stop_reason,
            "learned_nothing": self.privacy is not None and learned_nothing(res) is not None,
            "notes": list(self.notes),
            "seconds": round(self.seconds, 6),
            **({"fhe": self.fhe.summary} if self.fhe is not None else {}),
        }
        diag = self.diagnostics()
        if diag:
            out["diagnostics"] = diag
        if trace:
            out["trace"] = self.trace_json()
        return out

    def diagnostics(self) -> dict[str, Any] | None:
        """Numbers beside a private result that come from the exact data, labelled as not covered by ε (None for a
        run without differential privacy): how many CI decisions the noise flipped, the encrypted run's agreement
        with plaintext, and what of the run's own output is such a number — the trace's exact and noisy values
        where the mechanism releases only an answer, and the time a run took (a timing side channel)."""
        from .privacy import DIAGNOSTICS_NOTE, TIMING_NOTE

        if self.fhe is not None and "diagnostics" in self.fhe.summary:
            return dict(self.fhe.summary["diagnostics"])
        if self.privacy is None or not self.privacy.accounted or self.privacy.model == "local":
            return None
        if self.score is not None:  # gradient releases: no CI decisions, no trace
            return {"note": DIAGNOSTICS_NOTE, "what": TIMING_NOTE}
        alpha = float(self.params.get("alpha", 0.05))
        noisy = [t for t in self.result.trace if t.phase == "skeleton" and math.isfinite(t.noisy)]
        flipped = sum(bool((t.p_value >= alpha) != t.independent) for t in noisy)
        return {"note": DIAGNOSTICS_NOTE, "noisy_decisions": len(noisy), "decisions_flipped": flipped,
                "what": "CI decisions whose noisy outcome differs from the exact test p ≥ α; the trace's 'released' "
                        "and 'noise' fields are diagnostics too, and so are its 'noisy' and 'threshold' in the sparse "
                        "vector's stages (svt, sieve), which release only each test's answer ('independent'); "
                        + TIMING_NOTE}


def learned_nothing(result) -> str | None:
    """A sentence when a private run's graph is the every-pair baseline (no edge removed), so its F1 is not earned:
    the budget ran out before the first deletion, or the noise hid every independence. A score-based run (its extras
    hold W) says itself when its fit kept no dependence (:func:`cgdcore.score.run.run_score`): its empty graph is
    then the baseline."""
    extras = getattr(result, "extras", None) or {}
    if "W" in extras:
        return extras.get("learned_nothing")
    d = result.skeleton.shape[0]
    if int(result.skeleton.sum()) // 2 < d * (d - 1) // 2:
        return None
    why = ("it stopped before its first test" if result.n_ci_tests == 0 else
           f"{'the budget ran out' if result.stopped_early else 'the noise hid every independence'} before a single "
           "edge was removed")
    return (f"this run learned nothing: {why}, so its graph links every pair — the every-pair baseline, not a "
            "result of the data (every true edge shows as found because every pair is linked)")
