"""What local privatisation does to data and to discovery: the computations behind the Local page.

* :func:`marginal_distortion` — per column, total-variation distance between the clean marginal and
  the privatised one, and between the clean marginal and its channel-inverted estimate.
* :func:`column_channel` — the 1-D channel one column goes through (for display).
* :func:`utility_curve` — SHD / skeleton F1 vs privacy level (the paper's P = p_max) for every
  mechanism, naive and de-biased, over several privatisation seeds (Binkyte et al. 2024, Figs. 1–4
  and their F1 summaries; the de-biased pipeline is ours). One tidy row per run.
* :func:`frequency_comparison` — MSE of GRR / OUE / OLH frequency estimates against Wang et al.'s
  variance formula.
"""
from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from cgdcore.cancel import checkpoint
from cgdcore.data.dataset import Dataset
from cgdcore.local import frequency as F
from cgdcore.local import mechanisms as M
from cgdcore.local.privatize import MECHANISMS, LocalRelease, discretise_for_ldp

__all__ = ["marginal_distortion", "column_channel", "utility_curve", "frequency_comparison", "PAPER_LEVELS"]

#: the paper's privacy levels ("max probability"), plus two to draw a curve
PAPER_LEVELS = (0.05, 0.1, 0.2, 0.5, 0.8)


def _tv(a: np.ndarray, b: np.ndarray) -> float:
    return 0.5 * float(np.abs(np.asarray(a) - np.asarray(b)).sum())


def marginal_distortion(clean: Dataset, private: Dataset, release: LocalRelease) -> list[dict]:
    """Per column: TV(clean, privatised) and, when the channel is known per column, TV(clean, inverted)."""
    from cgdcore.local.debias import DebiasedStats

    debiased = DebiasedStats(np.asarray(private.data), release) if release.debias_supported() else None
    rows = []
    for j, (v, k) in enumerate(zip(clean.variables, release.arities)):
        p = np.bincount(np.asarray(clean.data[:, j], dtype=np.int64), minlength=k) / clean.n
        q = np.bincount(np.asarray(private.data[:, j], dtype=np.int64), minlength=k) / private.n
        rows.append({"variable": v, "privatised": _tv(p, q),
                     "de-biased": None if debiased is None else _tv(p, debiased.joint([j]))})
    return rows


def column_channel(release: LocalRelease, j: int) -> tuple[np.ndarray, str]:
    """(C, caption): the channel of column j alone, C[x, y] = P[report y | true x]."""
    if release.channels is not None:
        C = release.channels[j]
        return C, f"ε-LDP of this column: {M.channel_epsilon(C):.3g}"
    if release.mechanism == "krr-comb":
        _, (p, q) = release.marginal_channel([j])
        k = release.arities[j]
        C = np.full((k, k), q)
        np.fill_diagonal(C, p)
        return C, (f"seen alone, one column of k-RR Comb keeps its value w.p. {p:.3g} "
                   f"(the whole record is kept w.p. {release.keep:.3g})")
    lo, hi = release.details.get("epsilon_x_range", (np.nan, np.nan))
    med = release.details.get("epsilon_x_median", lo)
    C = M.geometric_channel(release.arities[j], med)
    return C, (f"Geo Comb's ε_x depends on the whole record ({lo:.3g} … {hi:.3g} here); "
               f"shown at the median ε_x = {med:.3g}")


def utility_curve(dataset: Dataset, *, mechanisms: Iterable[str] = tuple(MECHANISMS), levels=PAPER_LEVELS,
                  seeds: Iterable[int] = range(5), naive_test: str = "fisherz", alpha: float = 0.05,
                  debias: str | None = "invert", calibration: str = "neff", bins: int = 10, log: bool = False,
                  max_order: int | None = None,
                  progress: Callable[[int, int], None] | None = None) -> list[dict]:
    """SHD and skeleton F1 of PC on privatised data, per mechanism × level × seed × pipeline.

    ``levels`` are whole-record guessing probabilities P (the paper's p_max); ``pipeline`` is
    "naive" (the paper: PC with ``naive_test`` on the privatised codes), "de-biased" (PC with the
    channel-aware G-test, when the mechanism allows it) or "no noise" (discretised, not privatised).
    """
    from cgdcore.discover import discover

    clean = discretise_for_ldp(dataset, bins, log)
    mechanisms, levels, seeds = list(mechanisms), list(levels), list(seeds)
    total = len(seeds) * (1 + len(mechanisms) * len(levels) * (2 if debias else 1))
    done = 0
    rows: list[dict] = []

    def tick():
        nonlocal done
        checkpoint()
        done += 1
        if progress:
            progress(done, total)

    def metrics(disc) -> dict:
        m = disc.metrics or {}
        return {"shd": m.get("shd"), "skeleton_f1": m.get("skeleton_f1"), "n_ci_tests": disc.result.n_ci_tests,
                "seconds": disc.seconds}

    base = {}
    for s in seeds:
        # the clean data do not depend on the seed, but one row per seed keeps the table tidy
        if "clean" not in base:
            base["clean"] = metrics(discover(clean, algo="pc", ci_test=naive_test, alpha=alpha, max_order=max_order))
        rows.append({"mechanism": "no noise", "level": 1.0, "seed": s, "pipeline": "no noise",
                     "epsilon_ldp": None, **base["clean"]})
        tick()
    for mech in mechanisms:
        for level in levels:
            for s in seeds:
                ldp = {"mechanism": mech, "p_max": level, "seed": s}
                d = discover(clean, algo="pc", ci_test=naive_test, alpha=alpha, max_order=max_order, ldp=ldp)
                rel = d.release
                rows.append({"mechanism": mech, "level": level, "seed": s, "pipeline": "naive",
                             "epsilon_ldp": rel.epsilon, **metrics(d)})
                tick()
                if not debias:
                    continue
                if rel.debias_supported():  # the same privatised data (same seed), the channel-aware test
                    d = discover(clean, algo="pc", ci_test="g2", alpha=alpha, max_order=max_order, seed=s,
                                 ldp={**ldp, "debias": debias, "calibration": calibration})
                    rows.append({"mechanism": mech, "level": level, "seed": s, "pipeline": "de-biased",
                                 "epsilon_ldp": rel.epsilon, **metrics(d)})
                tick()
    return rows


def frequency_comparison(x: np.ndarray, k: int, epsilons: Iterable[float], seeds: Iterable[int] = range(20),
                         oracles: Iterable[str] = tuple(F.FREQUENCY_ORACLES)) -> list[dict]:
    """Empirical MSE of each frequency oracle's estimate vs the true frequencies, with Wang et al.'s
    predicted mean variance (Eq. 3 averaged over the k values)."""
    x = np.asarray(x, dtype=np.int64)
    n = len(x)
    f = np.bincount(x, minlength=k) / n
    rows = []
    for name in oracles:
        for eps in epsilons:
            errs = []
            for s in seeds:
                checkpoint()
                rng = np.random.default_rng([s, int(eps * 1000)])
                rep = {"grr": F.grr_reports, "oue": F.oue_reports, "olh": F.olh_reports}[name](x, k, eps, rng)
                est = F.estimate_frequencies(name, rep, k, eps, n)
                errs.append(np.mean((est - f) ** 2))
            rows.append({"oracle": name, "epsilon": float(eps), "mse": float(np.mean(errs)),
                         "theory": float(np.mean(F.oracle_variance(name, k, eps, n, f)))})
    return rows


def epsilon_by_level(rows: list[dict]) -> dict[tuple[str, float], float]:
    """The channel's ε-LDP per record at each (mechanism, privacy level P) of :func:`utility_curve`'s rows: equal P
    is not equal ε (the geometric channels' worst-case log-ratio is many times k-RR's at the same P)."""
    return {(r["mechanism"], float(r["level"])): float(r["epsilon_ldp"]) for r in rows
            if r.get("epsilon_ldp") is not None}
