"""From a dataset and an algorithm name to a score-based result shaped like the PC engine's.

``notears`` (non-private); ``noleaks`` (DP-NOTEARS) with ``release="covariance"`` (default: one
discrete-Gaussian release of the second-moment matrix, then NOTEARS on it — :func:`private_covariance`)
or ``release="gradient"`` (as in NOLEAKS: I equal noisy gradient releases whose zCDP composition is
the budget); and ``curate-score`` (CURATE's per-iteration schedules: Lemma 2's iteration count and the
schedule's shape ε_k, scaled so that the releases' zCDP composition — the accounting the run reports —
is the budget: ρ_k = ρ_B·ε_k²/Σε_j²). Both gradient-release algorithms use the model-based optimiser of
:mod:`cgdcore.score.dp_notears` unless ``lr`` or ``outer`` is given, which belong to its Adam optimiser. The model
optimiser first releases the column means once with the public share ρ_μ = ρ_B/(1 + √(d − 1))
(:func:`~cgdcore.score.dp_notears.mean_share`) and gives the gradients the rest, ρ_B − ρ_μ, by the rules above; the
ledger's worst case lists every release, the means' included, so the total stays a hard cap and the reported
accounting is the composition of what was released.
"""
from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from cgdcore import UserError
from cgdcore.privacy.ledger import Ledger, validate_delta, validate_epsilon, zcdp_rho_for

__all__ = ["run_score", "SCORE_ALGORITHMS", "RELEASES", "prepare_matrix", "public_bounds", "covariance_sensitivity",
           "private_covariance"]

SCORE_ALGORITHMS = ("notears", "noleaks", "curate-score")
#: What DP-NOTEARS releases: the second-moment matrix once (default), or a gradient per step (as in NOLEAKS).
RELEASES = ("covariance", "gradient")
#: Eigenvalue floor of the released second-moment matrix (a public constant; post-processing).
EIGEN_FLOOR = 1e-3
#: Smallest ρ per gradient release worth making: noise σ = Δ/√(2ρ) at most 1,000 × the sensitivity.
MIN_RHO = 1.0 / (2.0 * 1000.0 ** 2)


def sampler_min_rho(dim: int) -> float:
    """A ρ below which the discrete Gaussian of a ``dim``-coordinate release cannot be sampled: even on the coarsest
    lattice (one step per sensitivity) its index sensitivity is K ≥ 1 + 2√dim (:class:`~cgdcore.privacy.mechanisms.
    GaussianMechanism`), and σ_L² = ⌈K²/(2ρ)⌉ must stay ≤ MAX_SIGMA2; K is taken as 2 + 2√dim (the ceiling)."""
    from cgdcore.privacy.discrete import MAX_SIGMA2

    return (2.0 + 2.0 * math.sqrt(dim)) ** 2 / (2.0 * MAX_SIGMA2)


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


def public_bounds(data, standardise: bool | None = None) -> np.ndarray:
    """B_j with |x_ij| ≤ B_j for every row of :func:`prepare_matrix` (private=True): 1 when standardised, else the
    half-range (hi − lo)/2 of a numeric column or (k − 1)/2 of a discrete one (at least ½) — public numbers."""
    if standardise is None:
        standardise = data.is_discrete
    out = []
    for v, st in zip(data.variables, data.states):
        if standardise:
            out.append(1.0)
        elif st is None:
            lo, hi = data.ranges[v]
            out.append(0.5 * (hi - lo))
        else:
            out.append(max(0.5 * (len(st) - 1), 0.5))
    return np.asarray(out, dtype=float)


def covariance_sensitivity(bounds, n: int) -> float:
    """ℓ2 sensitivity of the moments (x̄, upper triangle of XᵀX/n, diagonal included) under replace-one, rows in
    the box |x_j| ≤ B_j.

    Proof: replacing row x by x' moves x̄_j by (x'_j − x_j)/n, at most 2B_j/n, and entry (j, k) of XᵀX/n by
    (x'_j x'_k − x_j x_k)/n: off the diagonal both products lie in [−B_jB_k, B_jB_k], so at most 2B_jB_k/n; on it
    both lie in [0, B_j²], so at most B_j²/n. Squaring and summing:
    Δ2 = √(Σ_j 4B_j² + Σ_j B_j⁴ + Σ_{j<k} 4B_j²B_k²)/n (n, the B_j: public)."""
    b2 = np.asarray(bounds, dtype=float) ** 2
    off = (b2.sum() ** 2 - (b2 ** 2).sum()) / 2.0  # Σ_{j<k} B_j²B_k²
    return math.sqrt(float(4.0 * b2.sum() + (b2 ** 2).sum()) + 4.0 * off) / n


def private_covariance(X: np.ndarray, bounds, rho: float, rng, ledger,
                       standardise: bool) -> tuple[np.ndarray, Any, int]:
    """Σ̂ from one ρ-zCDP release of the moments (x̄, XᵀX/n) with discrete Gaussian noise
    (:func:`covariance_sensitivity`); the rest is post-processing: Σ̂ = XᵀX/n − x̄x̄ᵀ, every off-diagonal entry
    within 2 standard errors of zero set to zero as the gradient release's fit is (σ·√(1 + x̄_j² + x̄_k²) by the
    delta method, σ the public noise s.d.; :func:`cgdcore.score.moment_model.keep_shown`), scaled to unit diagonal
    when ``standardise`` (as NOTEARS standardises), and projected onto the matrices with eigenvalues ≥
    ``EIGEN_FLOOR`` so the least-squares loss ½tr((I − W)ᵀΣ̂(I − W)) stays bounded below. Returns (Σ̂, the
    mechanism, the number of pairs whose dependence was kept)."""
    from cgdcore.privacy.mechanisms import GaussianMechanism
    from cgdcore.score.moment_model import keep_shown

    n, d = X.shape
    iu = np.triu_indices(d)
    b = np.asarray(bounds, dtype=float)
    mech = GaussianMechanism(covariance_sensitivity(b, n), rho, rng, ledger, bound=float(max((b ** 2).max(), b.max())),
                             dim=d + len(iu[0]), mechanism="discrete Gaussian", group="moments")
    _, _, noisy = mech.release(np.concatenate([X.mean(axis=0), (X.T @ X / n)[iu]]),
                               what="the moments x̄ and XᵀX/n")
    mean = noisy[:d]
    S = np.zeros((d, d))
    S[iu] = noisy[d:]
    S = S + S.T - np.diag(np.diag(S)) - np.outer(mean, mean)
    S, kept = keep_shown(S, mech.scale * np.sqrt(1.0 + mean[:, None] ** 2 + mean[None, :] ** 2))
    if standardise:
        sd = np.sqrt(np.maximum(np.diag(S), EIGEN_FLOOR))
        S = S / np.outer(sd, sd)
    vals, vecs = np.linalg.eigh(0.5 * (S + S.T))
    S = (vecs * np.maximum(vals, EIGEN_FLOOR)) @ vecs.T
    return 0.5 * (S + S.T), mech, kept


def run_score(data, algo: str, *, epsilon=None, delta=None, seed=0, options: dict[str, Any]):
    """Returns (pc.Result, ledger or None, info, notes)."""
    from cgdcore.score.dp_notears import dp_notears, gradient_sensitivity, mean_sensitivity, mean_share
    from cgdcore.score.notears import notears_linear
    from cgdcore.score.schedules import DEFAULT_ITERATIONS, eps0_for, fitted_schedule

    from cgdcore.algorithms import PARAMS

    opts = dict(options)  # checked against their declarations by discover()
    lambda1 = float(opts.pop("lambda1", PARAMS["lambda1"].default))
    w_threshold = float(opts.pop("w_threshold", PARAMS["w_threshold"].default))
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
        clip = float(opts.pop("clip", PARAMS["clip"].default))
        lr = float(opts.pop("lr", PARAMS["lr"].default))
        outer = int(opts.pop("outer", PARAMS["outer"].default))
        sens = gradient_sensitivity(n, d, clip)
        from cgdcore.privacy import noise_generator

        rng, _ = noise_generator(seed)
        rho_total = zcdp_rho_for(eps_total, delta)
        release = opts.pop("release", PARAMS["release"].default) if algo == "noleaks" else "gradient"
        standardise = data.is_discrete if options.get("standardise") is None else bool(options["standardise"])
        if release == "covariance":
            for k in ("iterations", "clip", "lr", "outer"):
                if k in options:
                    raise UserError(f"option {k} applies to the gradient release (release=gradient), not to the "
                                    "covariance release.")
            _reject(opts, algo)
            bounds = public_bounds(data, standardise)
            ledger = Ledger(budget=eps_total, delta=delta, rule="zcdp", worst_case=((rho_total, 1),))
            info["params"].update({"epsilon": eps_total, "delta": delta, "release": "covariance", "noise_seed": seed})
            cov_hat, mech, kept = private_covariance(X, bounds, rho_total, rng, ledger, standardise)
            info["sensitivity"] = covariance_sensitivity(bounds, n)
            info.update({"iterations": 1, "rho_per_release": rho_total, "sigmas": [mech.scale]})
            notes.append(f"one release: the means and second moments (x̄, XᵀX/n) with discrete Gaussian noise of s.d. "
                         f"{mech.scale:.3g} per entry; dependences within 2 standard errors of zero are set to zero, "
                         "and NOTEARS runs on the covariance they give, without touching the data")
            r = notears_linear(cov_hat, lambda1=lambda1, w_threshold=w_threshold)
            W, A, trace = r.W, r.adjacency, r.trace
            _say_what_was_kept(info, notes, kept, d, A, "its release showed")
            return _finish(data, W, A, trace, False, None, info, t0), ledger, info, notes
        # lr or outer given: the Adam optimiser they belong to; otherwise the model-based one (dp_notears module),
        # which first pays the public share mean_share(d) of ρ for the column means that re-centre its fit
        optimiser = "adam" if ("lr" in options or "outer" in options) else "model"
        mean_rho = rho_total * mean_share(d) if optimiser == "model" else None
        rho_grad = rho_total - (mean_rho or 0.0)
        if algo == "noleaks":
            I = int(opts.pop("iterations", PARAMS["iterations"].default))
            _reject(opts, algo)
            rhos = [rho_grad / I] * I
            info.update({"iterations": I, "rho_per_release": rho_grad / I})
        else:
            kind = opts.pop("schedule", PARAMS["schedule"].default)
            ratio = float(opts.pop("ratio", PARAMS["ratio"].default))
            eps0 = opts.pop("eps0", None)
            chosen = eps0 is None
            if chosen:
                eps0 = eps0_for(kind, eps_total, DEFAULT_ITERATIONS, ratio)
            eps0 = float(eps0)
            _reject(opts, algo)
            I, sched = fitted_schedule(kind, eps_total, eps0, ratio)
            at = len(notes)  # where the ε0 note goes: it is written below, from the releases this run keeps
            weights = np.asarray(sched, dtype=float) ** 2
            rhos = rho_grad * weights / weights.sum()
            # a release whose noise would exceed 1,000 × the gradient's sensitivity cannot move W, and one below the
            # sampler's smallest ρ cannot be made: leave it out and share its ρ among the others, as CURATE's floor
            # does for PC's orders
            keep = rhos >= max(MIN_RHO, sampler_min_rho(d * (d - 1)))
            if not keep.any():
                raise UserError(f"at ε = {eps_total:g} every release of the {kind} schedule would carry noise over "
                                "1,000 times its sensitivity, or more than the sampler can draw; raise ε or ε0.")
            if not keep.all():
                notes.append(f"{int((~keep).sum())} of the schedule's {I} releases would carry noise over 1,000 × "
                             "the gradient's sensitivity, or more than the sampler can draw, and were left out; their "
                             "budget went to the others")
                sched = np.asarray(sched)[keep]
                rhos = rho_grad * weights[keep] / weights[keep].sum()
            rhos = list(rhos)
            if chosen:
                notes.insert(at, _eps0_note(eps0, eps_total, I, len(rhos), mean_rho is not None))
            info.update({"iterations": len(rhos), "schedule": kind, "eps0": eps0,
                         "planned": [float(e) for e in sched], "planned_rho": [float(r) for r in rhos]})
        plan = tuple((r, 1) for r in rhos) + (((mean_rho, 1),) if mean_rho is not None else ())
        ledger = Ledger(budget=eps_total, delta=delta, rule="zcdp", worst_case=plan)
        info["params"].update({"epsilon": eps_total, "delta": delta, "clip": clip, "lr": lr, "noise_seed": seed,
                               **({"release": "gradient"} if algo == "noleaks" else {})})
        info["sensitivity"] = sens
        info["params"]["optimiser"] = optimiser
        if optimiser == "adam":
            info["params"].update({"lr": lr, "outer": outer})
            notes.append(f"optimiser: Adam (learning rate {lr:g}, {outer} outer rounds) inside the augmented "
                         "Lagrangian, one noisy gradient per step")
        else:
            info["params"].pop("lr")
            info["rho_means"] = mean_rho
            info["mean_sensitivity"] = mean_sensitivity(n, d)
            notes.append(f"optimiser: the column means are released once (share {mean_share(d):.3g} of the budget's "
                         "ρ, the public rule 1/(1 + √(d − 1))); the noisy gradients, taken at public points (W = 0, "
                         "then a cyclic shift), are fitted by least squares to the loss's second moments, re-centred "
                         "at the released means" + (" and scaled to unit variance" if standardise else "") +
                         " and its dependences within 2 standard errors of zero set to zero; NOTEARS then runs on "
                         "that fit as post-processing")
        r = dp_notears(X, rhos, ledger=ledger, rng=rng, clip=clip, lambda1=lambda1, lr=lr, outer=outer,
                       w_threshold=w_threshold, monitor_cov=cov, optimiser=optimiser,
                       bounds=public_bounds(data, options.get("standardise")), mean_rho=mean_rho,
                       standardise=standardise)
        W, A, trace = r.W, r.adjacency, r.trace
        stopped, reason = r.stopped_early, r.stop_reason
        info["sigmas"] = r.sigmas
        if optimiser == "model":
            _say_what_was_kept(info, notes, r.kept, d, A, "its releases showed" if trace else None)
        if optimiser == "model" and trace:  # each design point clips at min(clip, its public bound)
            info["sensitivity"] = gradient_sensitivity(n, d, max(t["clip"] for t in trace))
    return _finish(data, W, A, trace, stopped, reason, info, t0), ledger, info, notes


def _eps0_note(eps0: float, eps_total: float, fitted: int, made: int, means: bool) -> str:
    """What the default ε0 planned and what the run then releases: Lemma 2's iterations at ε0, those whose Σε_k fits
    ``eps_total`` (``fitted``), the gradient releases kept (``made``) and, with ``means``, the column means' one."""
    from cgdcore.score.schedules import DEFAULT_ITERATIONS

    out = (f"ε0 = {eps0:.3g}: the largest at which CURATE's Lemma 2 plans {DEFAULT_ITERATIONS} iterations within "
           f"ε = {eps_total:g} (a rule on public numbers)")
    if fitted < DEFAULT_ITERATIONS:
        out += f"; {fitted} of them fit once their Σε_k is checked against ε"
    if made < fitted or means:
        out += f"; {made} gradient release{'s are' if made != 1 else ' is'} planned"
        out += f", and one of the column means: {made + 1} releases in all" if means else ""
    return out


def _say_what_was_kept(info, notes, kept: int, d: int, A, showed: str | None) -> None:
    """Record how many dependences a private fit kept and, when it kept none (or stopped before releasing,
    ``showed`` None), say that the run learned nothing; an empty graph from a fit that kept some says so too."""
    info["dependences_kept"] = kept
    if kept == 0:
        nothing = ("this run learned nothing: " +
                   ("it stopped before its first gradient release" if showed is None else
                    f"every dependence {showed} was within 2 standard errors of zero (the noise could have made "
                    "it), so the fit has none") +
                   " and the graph is empty — not a result of the data; a larger ε or more rows would show more")
        notes.append(nothing)
        info["learned_nothing"] = nothing
    elif not np.asarray(A, dtype=bool).any():
        notes.append(f"the graph is empty: {kept} of the fit's {d * (d - 1) // 2} dependences "
                     f"{'was' if kept == 1 else 'were'} more than 2 "
                     "standard errors from zero (an independent pair does so by chance about 5 % of the time), but "
                     "none gave NOTEARS an edge of weight ≥ the threshold")


def _finish(data, W, A, trace, stopped, reason, info, t0):
    """The pc.Result of a score-based run."""
    from cgdcore.pc import Result

    seconds = time.perf_counter() - t0
    A = np.asarray(A, dtype=bool)
    skel = A | A.T
    for arr in (A, skel):
        arr.setflags(write=False)
    return Result(variables=tuple(data.variables), cpdag=A, skeleton=skel, sepsets={}, trace=(),
                  tests_per_order=(), seconds=seconds, params=dict(info["params"]), stopped_early=stopped,
                  stop_reason=reason, extras={"W": W, "trace": trace,
                                              "learned_nothing": info.pop("learned_nothing", None)})


def _reject(opts: dict, algo: str) -> None:
    if opts:
        raise UserError(f"option(s) {', '.join(sorted(opts))} do not apply to {algo}.")
