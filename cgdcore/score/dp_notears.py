"""DP-NOTEARS: NOTEARS whose only data access is a clipped, Gaussian-noised loss gradient.

One *release* = the gradient of the least-squares loss at a public point W, computed as the mean
of per-sample gradients G_i = −x_iᵀ(x_i − x_iW), each entry clipped to [−s, s] (per-sample
clipping, so the stated sensitivity actually holds — seed_curate.md §7 item 18; NOLEAKS clips
the average, which bounds nothing), diagonal zeroed, plus discrete Gaussian noise on the d(d−1)
off-diagonal entries (:class:`~cgdcore.privacy.mechanisms.GaussianMechanism`: a lattice, exact integer
noise, ρ_k-zCDP). Replacing one row moves each entry of the mean by at most 2s/n, so the ℓ2
sensitivity is Δ2 = 2s·sqrt(d(d−1))/n. The ρ_k of the releases add up to the budget's ρ (zCDP
composition, the ledger's filter). Every release is declared to the ledger with its ρ_k.

Optimisers (everything they use is public or post-processing of the releases):

* ``"model"`` (default): the releases are gradients in public-scaled coordinates x̃_j = x_j/B_j (B_j the
  public bound of column j, so |x̃_j| ≤ 1 and the clip s is in units of B_jB_k; the sensitivity and the
  accounting are those above). The least-squares gradient is affine in W,
  ∇ℓ(W) = −M(I − W), so the releases determine the second-moment matrix M; :class:`~cgdcore.score.moment_model.
  MomentModel` fits it to all releases by weighted least squares (a quasi-Newton model of the loss, as
  CURATE's Algorithm 2 builds one from noisy gradient differences). Because the loss is exactly quadratic,
  gradients anywhere carry the same information, so the releases are spent at two public design points
  where the per-sample entries are provably small: W = 0 (the off-diagonal moments; every entry within ±1)
  and a cyclic shift (the diagonal ones; within ±2), each point getting half of the releases' ρ
  (:func:`design_phases`). Each release is clipped at min(s, that bound)
  (:func:`per_sample_bound`): the clip then changes no value, and the sensitivity 2·clip·sqrt(d(d−1))/n,
  hence the noise at the release's ρ_k, is that of the smaller clip.
  The optimiser proper is NOTEARS (the reference augmented Lagrangian with L-BFGS-B,
  :func:`cgdcore.score.notears.notears_linear`) on the model fitted to every release: post-processing, so it
  runs to convergence, and with exact gradients (ε → ∞) it ends at NOTEARS's own solution on the loss the
  releases describe, re-centred at the released means (below): NOTEARS's own graph. At small ε every fitted
  dependence within 2 of its public standard errors of zero is set to zero (:mod:`cgdcore.score.moment_model`),
  so a dependence the noise could have made is not turned into an edge.
* ``"adam"`` (the earlier optimiser, kept for comparison): Adam on W = W⁺ − W⁻ (W^± ≥ 0, zero diagonal) with
  a declared, fixed learning rate inside NOTEARS's augmented Lagrangian (penalty ← 10·penalty when h has
  not fallen below ¼ of its previous value, α ← α + penalty·h), the releases spread evenly over a fixed
  number of outer iterations, gradients in the data's own units. With exact gradients it stops short of
  NOTEARS (about 20 inner steps per outer round cannot solve the inner problem, and the ×10 penalty
  then explodes).

The data are centred and scaled with public constants only (the columns' declared ranges, or the
number of states of a discrete column; :func:`cgdcore.score.run.prepare_matrix`): NOLEAKS used the
data's own means and standard deviations, through which one row moves every per-sample gradient.
The gradients therefore describe the second moments about the public centre c, not the covariance.
The model optimiser also pays for one release of the scaled column means μ̃ (:func:`release_means`,
ℓ2 sensitivity :func:`mean_sensitivity`), with the public share :func:`mean_share` of the budget's ρ, and
re-centres the fitted model, Σ = M − (μ − c)(μ − c)ᵀ (post-processing of paid releases); for columns that NOTEARS
standardises (discrete codes) the fitted Σ is then scaled to unit diagonal, as NOTEARS scales the data. So with
exact releases the optimiser fits NOTEARS's own loss, and a large ε gives NOTEARS's graph on discrete data too.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from cgdcore.cancel import checkpoint
from cgdcore.privacy.ledger import Ledger, zcdp_epsilon
from cgdcore.privacy.mechanisms import BudgetExceeded, GaussianMechanism
from cgdcore.score.blas import single_threaded_blas
from cgdcore.score.notears import acyclicity, threshold_dag

__all__ = ["clipped_gradient", "gradient_sensitivity", "dp_notears", "DPResult", "OPTIMISERS", "design_phases",
           "per_sample_bound", "mean_sensitivity", "mean_share", "release_means", "EXACT_LOSS"]

#: The trace's key for the loss ℓ(W) at each release computed on the exact data (``monitor_cov``): for teaching, never
#: released, so named as not covered by ε wherever the trace goes (the Score page's CSV is the trace as it is).
EXACT_LOSS = "loss_exact_not_covered_by_eps"


def gradient_sensitivity(n: int, d: int, clip: float) -> float:
    """ℓ2 sensitivity of the mean clipped gradient (:func:`clipped_gradient`) under replace-one: 2s·sqrt(d(d−1))/n.

    Proof: each row adds to the sum a d × d matrix whose off-diagonal entries lie in [−s, s] (clipped entry-wise,
    whatever the row holds: no box is assumed) and whose diagonal is set to zero after. Replacing one row moves each
    of the d(d−1) off-diagonal entries of the mean by at most 2s/n, so the matrix moves by at most
    √(d(d−1))·2s/n in ℓ2 (Frobenius). The bound is attained (a row whose every entry is clipped at +s replaced by one
    at −s), for every n ≥ 1 and whatever the other rows are; entries that no row's value reaches the clip in are
    summed without clipping, each already within [−s, s], so the same holds for them."""
    return 2.0 * clip * math.sqrt(d * (d - 1)) / n


def mean_sensitivity(n: int, d: int) -> float:
    """ℓ2 sensitivity of the column means of n rows in the box [−1, 1]^d under replace-one: 2√d/n.

    Proof: replacing row x by x' moves mean j by (x'_j − x_j)/n, and |x'_j − x_j| ≤ 2 because both lie in [−1, 1];
    so the vector of means moves by at most √(Σ_j (2/n)²) = 2√d/n in ℓ2. The worst case is attained (x = (−1, …, −1),
    x' = (1, …, 1)), for every n ≥ 1 and whatever the other rows are (no stratum can be empty or tiny: every row
    counts in every mean). :func:`release_means` clips each row to the box first, so the bound holds for any input.
    """
    return 2.0 * math.sqrt(d) / n


def mean_share(d: int) -> float:
    """The public share of the budget's ρ that the model optimiser spends on the means: 1/(1 + √(d − 1)).

    The rule: the re-centred fit's off-diagonal entry M̃_jk − μ̃_jμ̃_k has noise variance about A/ρ_M + C/ρ_μ. From the
    gradient releases at W = 0 (clip 1, dimension d(d − 1), half of ρ_M there): Δ_M²/(2·ρ_M/2) with
    Δ_M = 2√(d(d − 1))/n, so A = 4d(d − 1)/n². From the means: (μ̃_j² + μ̃_k²)·Δ_μ²/(2ρ_μ) with Δ_μ = 2√d/n (:func:`mean_sensitivity`), at
    most 2·2d/(n²ρ_μ) in the worst case |μ̃| = 1, so C = 4d/n². Minimising A/ρ_M + C/ρ_μ over ρ_M + ρ_μ = ρ gives
    ρ_μ/ρ_M = √(C/A) = 1/√(d − 1). It depends on d alone (public): ½ at d = 2, ¼ at d = 10.
    """
    return 1.0 / (1.0 + math.sqrt(max(d - 1, 1)))


def release_means(X_scaled: np.ndarray, rho: float, rng, ledger, group: str = "means"):
    """One ρ-zCDP release of the column means of ``X_scaled`` (rows clipped to [−1, 1]^d) with discrete Gaussian
    noise (:class:`~cgdcore.privacy.mechanisms.GaussianMechanism`, ℓ2 sensitivity :func:`mean_sensitivity`), declared
    to ``ledger``. Returns (the noisy means, the mechanism)."""
    n, d = X_scaled.shape
    mech = GaussianMechanism(mean_sensitivity(n, d), rho, rng, ledger, bound=1.0, dim=d,
                             mechanism="discrete Gaussian", group=group)
    _, _, noisy = mech.release(np.clip(X_scaled, -1.0, 1.0).mean(axis=0), what="the column means")
    return noisy, mech


def clipped_gradient(X: np.ndarray, W: np.ndarray, clip: float, chunk: int = 20_000) -> np.ndarray:
    """Mean over rows of the per-sample loss gradients −x_iᵀ(x_i − x_iW), each clipped entry-wise
    to [−clip, clip]; diagonal zero.

    Entry (j, k) of a row's gradient is −x_ij·r_ik, at most max_i|x_ij|·max_i|r_ik| in size: a column k of
    residuals whose product with every column of X stays within ``clip`` has no entry clipped, and its sum over
    rows is the matrix product −Xᵀr_k. Only the other columns are clipped entry by entry (n·d·d products in all
    when every column is; none at W = 0 with a clip of 1 or more, the rows lying in [−1, 1]^d). The sum is the
    same, so the sensitivity (:func:`gradient_sensitivity`) is too."""
    n, d = X.shape
    G = np.zeros((d, d))
    for a in range(0, n, chunk):
        Xb = X[a:a + chunk]
        R = Xb - Xb @ W
        clipped = np.abs(Xb).max(initial=0.0) * np.abs(R).max(axis=0) > clip
        if not clipped.any():
            G -= Xb.T @ R
            continue
        some = not clipped.all()
        if some:
            G[:, ~clipped] -= Xb.T @ R[:, ~clipped]
        per = -Xb[:, :, None] * (R[:, None, clipped] if some else R[:, None, :])
        np.clip(per, -clip, clip, out=per)
        G[:, clipped] += per.sum(axis=0)
    G /= n
    np.fill_diagonal(G, 0.0)
    return G


@dataclass
class DPResult:
    W: np.ndarray
    adjacency: np.ndarray
    trace: list[dict] = field(default_factory=list)
    sigmas: list[float] = field(default_factory=list)
    stopped_early: bool = False
    stop_reason: str | None = None
    mean_sigma: float | None = None  # noise s.d. of the means' release (model optimiser), if one was made
    kept: int | None = None  # model optimiser: pairs whose fitted dependence passed the 2-s.e. threshold


class _GradientReleases:
    """The noisy gradient releases of one run: one mechanism per distinct (ρ_k, clip), each release declared to the
    ledger before it is made (a release the budget cannot afford stops the run)."""

    def __init__(self, X, rhos, ledger, rng, clip, group):
        self.X, self.rhos, self.ledger, self.rng, self.clip, self.group = X, rhos, ledger, rng, clip, group
        self.off = ~np.eye(X.shape[1], dtype=bool)
        self.mech = None
        self.sigmas: list[float] = []
        self.spent = 0.0
        self.stop_reason: str | None = None

    def release(self, k: int, W: np.ndarray, clip: float | None = None) -> np.ndarray | None:
        """Release k: the gradient at W, clipped at ``clip`` (default: the run's), plus noise; or None (stop_reason
        set) if it is not affordable."""
        n, d = self.X.shape
        clip = self.clip if clip is None else float(clip)
        if self.mech is None or self.mech.requested != (self.rhos[k], clip):
            self.mech = GaussianMechanism(gradient_sensitivity(n, d, clip), self.rhos[k], self.rng, self.ledger,
                                          bound=clip, dim=d * (d - 1), mechanism="discrete Gaussian",
                                          group=self.group)
            self.mech.requested = (self.rhos[k], clip)
        if not self.mech.affordable():
            self.stop_reason = (f"the next gradient release (ρ={self.rhos[k]:.3g}) would exceed the budget "
                                f"ε={self.ledger.budget:g}; the releases so far were kept")
            return None
        G = clipped_gradient(self.X, W, clip)
        try:
            _, _, G[self.off] = self.mech.release(G[self.off], what=f"loss gradient {k}")
        except BudgetExceeded:  # pragma: no cover - affordable() was asked first
            self.stop_reason = "the budget is used up; the releases so far were kept"
            return None
        self.sigmas.append(self.mech.scale)
        self.spent += self.mech.cost
        return G

    def row(self, k: int) -> dict:
        return {"release": k, "rho_release": self.mech.cost, "sigma": self.mech.scale,
                "epsilon_spent": zcdp_epsilon(self.spent, self.ledger.delta)}


#: The optimisers of :func:`dp_notears` (module docstring).
OPTIMISERS = ("model", "adam")


@single_threaded_blas()
def dp_notears(X: np.ndarray, rhos, *, ledger: Ledger, rng: np.random.Generator, clip: float = 2.0,
               lambda1: float = 0.1, lr: float = 0.02, outer: int = 10, w_threshold: float = 0.3,
               group: str = "gradient", monitor_cov: np.ndarray | None = None, optimiser: str = "model",
               bounds=None, mean_rho: float | None = None, standardise: bool = False) -> DPResult:
    """Run the private optimiser with one release per entry of ``rhos`` (ρ_k-zCDP each; module docstring).

    ``optimiser``: "model" (default; ``bounds``: the public column bounds B_j, default 1; ``mean_rho``: the ρ of the
    release of the means that re-centres the fit, made first — None releases none and fits the moments about the
    public centre; ``standardise``: scale the fit to unit diagonal) or "adam" (``lr``, ``outer``). ``monitor_cov``:
    the exact data's covariance, from which each trace row gets the loss under :data:`EXACT_LOSS` (not covered by ε).
    Releases are recorded in ``ledger`` (rule "zcdp"); if one would exceed the ledger's budget the run stops early and
    keeps what it has. BLAS runs on one thread meanwhile (cgdcore.score.blas): its calls
    here are on n×d and d×d matrices.
    """
    X = np.asarray(X, dtype=float)
    rhos = [float(r) for r in rhos]
    if optimiser == "adam":
        return _adam(X, rhos, ledger=ledger, rng=rng, clip=clip, lambda1=lambda1, lr=lr, outer=outer,
                     w_threshold=w_threshold, group=group, monitor_cov=monitor_cov)
    if optimiser != "model":
        raise ValueError(f"unknown optimiser {optimiser!r}; choose one of {', '.join(OPTIMISERS)}")
    return _model(X, rhos, ledger=ledger, rng=rng, clip=clip, lambda1=lambda1, w_threshold=w_threshold,
                  group=group, monitor_cov=monitor_cov, bounds=bounds, mean_rho=mean_rho, standardise=standardise)


def per_sample_bound(W_scaled: np.ndarray) -> float:
    """Bound on every per-sample entry |x̃_ij (x̃_ik − Σ_l x̃_il W̃_lk)| when every |x̃| ≤ 1:
    1 + max_k Σ_l |W̃_lk| (public). Clipping at any s at least this changes no per-sample entry."""
    return 1.0 + float(np.abs(W_scaled).sum(axis=0).max())


def design_phases(rhos) -> list[range]:
    """The releases 0..I−1 (ρ_k each, in order) split between the two design points (W = 0, the cyclic shift): the
    first m releases at W = 0, m chosen so that the two points' ρ are as equal as possible (ties: the larger m), each
    point getting at least one release when I ≥ 2. With equal ρ_k the counts differ by at most one; with a schedule's
    unequal ρ_k (curate-score) each point still gets half the budget, so neither the off-diagonal moments nor the
    diagonal ones are left to a sliver of it. A public rule: the ρ_k are the plan."""
    r = np.asarray([float(x) for x in rhos])
    I = len(r)
    if I <= 1:
        return [range(0, I), range(I, I)]
    c = np.cumsum(r)
    gap = np.abs(c[:-1] - 0.5 * c[-1])  # first phase 0..m−1 for m = 1..I−1
    m = 1 + int(np.flatnonzero(gap <= gap.min() * (1 + 1e-12) + 1e-300)[-1])
    return [range(0, m), range(m, I)]


def _model(X, rhos, *, ledger, rng, clip, lambda1, w_threshold, group, monitor_cov, bounds, mean_rho,
           standardise) -> DPResult:
    """The model-based optimiser (module docstring)."""
    from cgdcore.score.moment_model import MomentModel, shift_point
    from cgdcore.score.notears import loss_and_grad_cov

    n, d = X.shape
    B = np.ones(d) if bounds is None else np.asarray(bounds, dtype=float)
    Xs = X / B  # public scaling: |x̃_j| ≤ 1
    rel = _GradientReleases(Xs, rhos, ledger, rng, clip, group)
    model = MomentModel(d)
    trace: list[dict] = []
    stopped = False
    mean_sigma = None
    if mean_rho is not None:
        checkpoint()
        mu, mmech = release_means(Xs, mean_rho, rng, ledger)
        model.set_mean(mu, mmech.scale)
        mean_sigma = mmech.scale
        rel.spent += mmech.cost  # the trace's "ε spent" counts every release so far
    for name, Ws, ks in zip(("zero", "shift"), (np.zeros((d, d)), shift_point(d)), design_phases(rhos)):
        W = Ws * B[None, :] / B[:, None]  # the point in the data's units: W = D⁻¹ W̃ D
        h = acyclicity(W)[0]
        s = min(clip, per_sample_bound(Ws))  # a smaller clip that cannot bind: the same values, less noise
        for k in ks:
            checkpoint()
            G = rel.release(k, Ws, s)
            if G is None:
                stopped = True
                break
            model.add(Ws, G, rel.mech.scale)
            row = {**rel.row(k), "h": h, "phase": name, "clip": s, "l1": float(np.abs(W).sum())}
            if monitor_cov is not None:
                row[EXACT_LOSS] = loss_and_grad_cov(W, monitor_cov)[0]
            trace.append(row)
        if stopped:
            break
    W = (_notears_on(model.second_moment(B, standardise), lambda1, w_threshold) if model.releases
         else np.zeros((d, d)))
    return DPResult(W=W, adjacency=threshold_dag(W, w_threshold), trace=trace, sigmas=rel.sigmas,
                    stopped_early=stopped, stop_reason=rel.stop_reason, mean_sigma=mean_sigma,
                    kept=model.kept if model.releases else 0)


def _notears_on(M, lambda1, w_threshold) -> np.ndarray:
    """NOTEARS's W on a fitted second-moment matrix. On a noisy fit L-BFGS-B's line search can try points where
    e^{W∘W} overflows; it rejects them (the objective is then inf), so the overflow is not reported."""
    from cgdcore.score.notears import notears_linear

    with np.errstate(over="ignore", invalid="ignore"):
        return notears_linear(M, lambda1=lambda1, w_threshold=w_threshold).W


def _adam(X, rhos, *, ledger, rng, clip, lambda1, lr, outer, w_threshold, group, monitor_cov) -> DPResult:
    """Adam inside the augmented Lagrangian (module docstring)."""
    n, d = X.shape
    I = len(rhos)
    rel = _GradientReleases(X, rhos, ledger, rng, clip, group)
    wp = np.zeros((d, d))
    wm = np.zeros((d, d))
    m1 = np.zeros((2, d, d))
    m2 = np.zeros((2, d, d))
    b1, b2, tiny = 0.9, 0.999, 1e-8
    penalty, alpha, h_prev = 1.0, 0.0, math.inf
    per_outer = max(1, math.ceil(I / max(1, outer)))
    trace: list[dict] = []
    stopped = False
    for k in range(I):
        checkpoint()
        W = wp - wm
        G = rel.release(k, W)
        if G is None:
            stopped = True
            break
        h, Gh = acyclicity(W)
        Gs = G + (penalty * h + alpha) * Gh
        grads = (Gs + lambda1, -Gs + lambda1)
        t = k + 1
        for j, (w, g) in enumerate(zip((wp, wm), grads)):
            m1[j] = b1 * m1[j] + (1 - b1) * g
            m2[j] = b2 * m2[j] + (1 - b2) * g * g
            step = lr * (m1[j] / (1 - b1 ** t)) / (np.sqrt(m2[j] / (1 - b2 ** t)) + tiny)
            w -= step
            np.maximum(w, 0.0, out=w)
            np.fill_diagonal(w, 0.0)
        W = wp - wm
        h_new = acyclicity(W)[0]
        row = {**rel.row(k), "h": h_new, "penalty": penalty, "l1": float(np.abs(W).sum())}
        if monitor_cov is not None:
            from cgdcore.score.notears import loss_and_grad_cov

            row[EXACT_LOSS] = loss_and_grad_cov(W, monitor_cov)[0]
        trace.append(row)
        if (k + 1) % per_outer == 0:  # augmented-Lagrangian update (data-independent)
            if h_new > 0.25 * h_prev:
                penalty = min(penalty * 10, 1e16)
            alpha += penalty * h_new
            h_prev = h_new
    W = wp - wm
    return DPResult(W=W, adjacency=threshold_dag(W, w_threshold), trace=trace, sigmas=rel.sigmas,
                    stopped_early=stopped, stop_reason=rel.stop_reason)
