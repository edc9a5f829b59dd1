"""From a dataset and an algorithm name to a score-based result shaped like the PC engine's.

``notears`` (non-private), ``noleaks`` (DP-NOTEARS: I equal discrete-Gaussian releases whose zCDP
composition is the budget) and ``curate-score`` (CURATE's per-iteration schedules: Lemma 2's
iteration count and the schedule's shape ε_k, scaled so that the releases' zCDP composition — the
accounting the run reports — is the budget: ρ_k = ρ_B·ε_k²/Σε_j²).
"""
from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from cgdcore import UserError
from cgdcore.privacy.ledger import Ledger, validate_delta, validate_epsilon, zcdp_rho_for

__all__ = ["run_score", "SCORE_ALGORITHMS", "prepare_matrix"]

SCORE_ALGORITHMS = ("notears", "noleaks", "curate-score")
#: Smallest ρ per gradient release worth making: noise σ = Δ/√(2ρ) at most 1,000 × the sensitivity.
MIN_RHO = 1.0 / (2.0 * 1000.0 ** 2)


def prepare_matrix(data, standardise: bool | None = None, private: bool = False) -> tuple[np.ndarray, list[str]]:
    """Centred (and for discrete codes, or when asked, standardised) float matrix, with notes.

    ``private``: nothing is computed from the rows. A numeric column is clipped to its declared public
    range [lo, hi] and centred at (lo + hi)/2; a discrete column's codes 0..k−1 (k public) are centred at
    (k − 1)/2 and, when standardising, divided by (k − 1)/2. Each row's transformed values then depend on
    that row alone, so the per-sample gradient clipping bounds the sensitivity (with the data's own means
    one row moved every row's gradient)."""
    X = np.asarray(data.data, dtype=float)
    notes = []
    if private:
        from cgdcore.data import tabular

        tabular.require_ranges(data, "DP-NOTEARS's centring")
        if standardise is None:
            standardise = data.is_discrete
        X = X.copy()
        for j, (v, st) in enumerate(zip(data.variables, data.states)):
            if st is None:
                lo, hi = data.ranges[v]
                X[:, j] = np.clip(X[:, j], lo, hi) - 0.5 * (lo + hi)
                if standardise:
                    X[:, j] /= 0.5 * (hi - lo)
            else:
                half = max(0.5 * (len(st) - 1), 0.5)
                X[:, j] -= half
                if standardise:
                    X[:, j] /= half
        notes.append("columns centred at the middle of their public ranges (numeric columns clipped to them; discrete "
                     "codes by their public number of states)" + (" and scaled by the half-range" if standardise
                                                                   else "") + ": nothing computed from the rows")
        if data.is_discrete:
            notes.append("the linear SEM is misspecified for discrete data: state codes are treated as numbers")
        return X, notes
    if standardise is None:
        standardise = data.is_discrete
    Xc = X - X.mean(axis=0)
    if standardise:
        sd = Xc.std(axis=0)
        sd[sd == 0] = 1.0
        Xc = Xc / sd
        notes.append("columns centred and scaled to unit variance")
    else:
        notes.append("columns centred")
    if data.is_discrete:
        notes.append("the linear SEM is misspecified for discrete data: state codes are treated as numbers")
    return Xc, notes


def run_score(data, algo: str, *, epsilon=None, delta=None, seed=0, options: dict[str, Any]):
    """Returns (pc.Result, ledger or None, info, notes)."""
    from cgdcore.pc import Result
    from cgdcore.score.dp_notears import dp_notears, gradient_sensitivity
    from cgdcore.score.notears import notears_linear
    from cgdcore.score.schedules import SCHEDULES, fitted_schedule

    opts = dict(options)
    lambda1 = float(opts.pop("lambda1", 0.1))
    w_threshold = float(opts.pop("w_threshold", 0.3))
    if not (w_threshold >= 0 and math.isfinite(w_threshold)):
        raise UserError(f"w_threshold must be a number ≥ 0; got {w_threshold!r}.")
    X, notes = prepare_matrix(data, opts.pop("standardise", None), private=algo != "notears")
    n, d = X.shape
    if d < 2:
        raise UserError("causal discovery needs at least two variables.")
    cov = X.T @ X / n
    t0 = time.perf_counter()
    ledger = None
    info: dict[str, Any] = {"params": {"lambda1": lambda1, "w_threshold": w_threshold}}
    if algo == "notears":
        if epsilon is not None:
            raise UserError("'notears' is not private; --epsilon applies to noleaks and curate-score.")
        _reject(opts, algo)
        r = notears_linear(cov, lambda1=lambda1, w_threshold=w_threshold)
        W, A, trace = r.W, r.adjacency, r.trace
        stopped, reason = False, None
    else:
        if epsilon is None:
            raise UserError(f"{algo} needs a total privacy budget: give --epsilon (e.g. 1.0).")
        eps_total = validate_epsilon(epsilon, "the total budget ε (--epsilon)")
        delta = validate_delta(1e-5 if delta is None else delta)
        clip = float(opts.pop("clip", 2.0))
        if not (clip > 0 and math.isfinite(clip)):
            raise UserError(f"the clipping threshold must be a positive number; got {clip!r}.")
        lr = float(opts.pop("lr", 0.02))
        outer = int(opts.pop("outer", 10))
        sens = gradient_sensitivity(n, d, clip)
        from cgdcore.privacy import noise_generator

        rng, _ = noise_generator(seed)
        rho_total = zcdp_rho_for(eps_total, delta)
        if algo == "noleaks":
            I = int(opts.pop("iterations", 200))
            if I < 1:
                raise UserError("the number of gradient releases must be at least 1.")
            _reject(opts, algo)
            rhos = [rho_total / I] * I
            info.update({"iterations": I, "rho_per_release": rho_total / I})
        else:
            kind = opts.pop("schedule", "multiplicative")
            if kind not in SCHEDULES:
                raise UserError(f"unknown schedule {kind!r}; choose one of {', '.join(SCHEDULES)}.")
            eps0 = float(opts.pop("eps0", eps_total / 100))
            ratio = float(opts.pop("ratio", 1.05))
            _reject(opts, algo)
            I, sched = fitted_schedule(kind, eps_total, eps0, ratio)
            weights = np.asarray(sched, dtype=float) ** 2
            rhos = rho_total * weights / weights.sum()
            # a release whose noise would exceed 1,000 × the gradient's sensitivity cannot move W: leave it out and
            # share its ρ among the others (ρ ≥ 1/(2·1000²)), as CURATE's floor does for PC's orders
            keep = rhos >= MIN_RHO
            if not keep.any():
                raise UserError(f"at ε = {eps_total:g} every release of the {kind} schedule would carry noise over "
                                "1,000 times its sensitivity; raise ε or ε0.")
            if not keep.all():
                notes.append(f"{int((~keep).sum())} of the schedule's {I} releases would carry noise over 1,000 × "
                             "the gradient's sensitivity and were left out; their budget went to the others")
                sched = np.asarray(sched)[keep]
                rhos = rho_total * weights[keep] / weights[keep].sum()
            rhos = list(rhos)
            info.update({"iterations": len(rhos), "schedule": kind, "eps0": eps0,
                         "planned": [float(e) for e in sched], "planned_rho": [float(r) for r in rhos]})
        ledger = Ledger(budget=eps_total, delta=delta, rule="zcdp", worst_case=tuple((r, 1) for r in rhos))
        info["params"].update({"epsilon": eps_total, "delta": delta, "clip": clip, "lr": lr, "noise_seed": seed})
        info["sensitivity"] = sens
        r = dp_notears(X, rhos, ledger=ledger, rng=rng, clip=clip, lambda1=lambda1, lr=lr, outer=outer,
                       w_threshold=w_threshold, monitor_cov=cov)
        W, A, trace = r.W, r.adjacency, r.trace
        stopped, reason = r.stopped_early, r.stop_reason
        info["sigmas"] = r.sigmas
    seconds = time.perf_counter() - t0
    A = np.asarray(A, dtype=bool)
    skel = A | A.T
    for arr in (A, skel):
        arr.setflags(write=False)
    res = Result(variables=tuple(data.variables), cpdag=A, skeleton=skel, sepsets={}, trace=(),
                 tests_per_order=(), seconds=seconds, params=dict(info["params"]), stopped_early=stopped,
                 stop_reason=reason, extras={"W": W, "trace": trace})
    return res, ledger, info, notes


def _reject(opts: dict, algo: str) -> None:
    if opts:
        raise UserError(f"option(s) {', '.join(sorted(opts))} do not apply to {algo}.")
