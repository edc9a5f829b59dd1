"""DP-NOTEARS: NOTEARS whose only data access is a clipped, Gaussian-noised loss gradient.

One *release* = the gradient of the least-squares loss at the current W, computed as the mean
of per-sample gradients G_i = −x_iᵀ(x_i − x_iW), each entry clipped to [−s, s] (per-sample
clipping, so the stated sensitivity actually holds — seed_curate.md §7 item 18; NOLEAKS clips
the average, which bounds nothing), diagonal zeroed, plus discrete Gaussian noise on the d(d−1)
off-diagonal entries (:class:`~cgdcore.privacy.mechanisms.GaussianMechanism`: a lattice, exact integer
noise, ρ_k-zCDP). Replacing one row moves each entry of the mean by at most 2s/n, so the ℓ2
sensitivity is Δ2 = 2s·sqrt(d(d−1))/n. The ρ_k of the releases add up to the budget's ρ (zCDP
composition, the ledger's filter).

The acyclicity term and the L1 penalty do not touch the data and are exact. The optimiser is
Adam on W = W⁺ − W⁻ (W^± ≥ 0, zero diagonal) with a declared, fixed learning rate — no line
search, so nothing but the declared gradients is released — inside NOTEARS's augmented
Lagrangian (penalty ← 10·penalty when h has not fallen below ¼ of its previous value, α ← α +
penalty·h), with the releases spread evenly over a fixed number of outer iterations. Every
release is declared to the ledger with its ρ_k.

The data are centred and scaled with public constants only (the columns' declared ranges, or the
number of states of a discrete column; :func:`cgdcore.score.run.prepare_matrix`): NOLEAKS used the
data's own means and standard deviations, through which one row moves every per-sample gradient.
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

__all__ = ["clipped_gradient", "gradient_sensitivity", "dp_notears", "DPResult"]


def gradient_sensitivity(n: int, d: int, clip: float) -> float:
    """ℓ2 sensitivity of the mean clipped gradient under replace-one: 2s·sqrt(d(d−1))/n."""
    return 2.0 * clip * math.sqrt(d * (d - 1)) / n


def clipped_gradient(X: np.ndarray, W: np.ndarray, clip: float, chunk: int = 20_000) -> np.ndarray:
    """Mean over rows of the per-sample loss gradients −x_iᵀ(x_i − x_iW), each clipped entry-wise
    to [−clip, clip]; diagonal zero."""
    n, d = X.shape
    G = np.zeros((d, d))
    for a in range(0, n, chunk):
        Xb = X[a:a + chunk]
        R = Xb - Xb @ W
        per = -Xb[:, :, None] * R[:, None, :]
        np.clip(per, -clip, clip, out=per)
        G += per.sum(axis=0)
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


@single_threaded_blas()
def dp_notears(X: np.ndarray, rhos, *, ledger: Ledger, rng: np.random.Generator, clip: float = 2.0,
               lambda1: float = 0.1, lr: float = 0.02, outer: int = 10, w_threshold: float = 0.3,
               group: str = "gradient", monitor_cov: np.ndarray | None = None) -> DPResult:
    """Run the private optimiser with one release per entry of ``rhos`` (ρ_k-zCDP each; module docstring).

    Releases are recorded in ``ledger`` (rule "zcdp"); if one would exceed the ledger's budget the run
    stops early and keeps its current W. BLAS runs on one thread meanwhile (cgdcore.score.blas): its
    calls here are on n×d and d×d matrices.
    """
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    rhos = [float(r) for r in rhos]
    I = len(rhos)
    sens = gradient_sensitivity(n, d, clip)
    sigmas: list[float] = []
    off = ~np.eye(d, dtype=bool)
    wp = np.zeros((d, d))
    wm = np.zeros((d, d))
    m1 = np.zeros((2, d, d))
    m2 = np.zeros((2, d, d))
    b1, b2, tiny = 0.9, 0.999, 1e-8
    penalty, alpha, h_prev = 1.0, 0.0, math.inf
    per_outer = max(1, math.ceil(I / max(1, outer)))
    trace: list[dict] = []
    spent = 0.0
    stopped, reason = False, None
    mech = None
    for k in range(I):
        checkpoint()
        W = wp - wm
        if mech is None or mech.requested != rhos[k]:
            mech = GaussianMechanism(sens, rhos[k], rng, ledger, bound=clip, dim=d * (d - 1),
                                     mechanism="discrete Gaussian", group=group)
            mech.requested = rhos[k]
        if not mech.affordable():
            stopped, reason = True, (f"the next gradient release (ρ={rhos[k]:.3g}) would exceed the budget "
                                     f"ε={ledger.budget:g}; the current W was kept")
            break
        G = clipped_gradient(X, W, clip)
        try:
            _, _, G[off] = mech.release(G[off], what=f"loss gradient {k}")
        except BudgetExceeded:  # pragma: no cover - affordable() was asked first
            stopped, reason = True, "the budget is used up; the current W was kept"
            break
        sigmas.append(mech.scale)
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
        spent += mech.cost
        W = wp - wm
        h_new = acyclicity(W)[0]
        row = {"release": k, "h": h_new, "penalty": penalty, "rho_release": mech.cost, "sigma": mech.scale,
               "epsilon_spent": zcdp_epsilon(spent, ledger.delta), "l1": float(np.abs(W).sum())}
        if monitor_cov is not None:
            from cgdcore.score.notears import loss_and_grad_cov

            row["loss"] = loss_and_grad_cov(W, monitor_cov)[0]
        trace.append(row)
        if (k + 1) % per_outer == 0:  # augmented-Lagrangian update (data-independent)
            if h_new > 0.25 * h_prev:
                penalty = min(penalty * 10, 1e16)
            alpha += penalty * h_new
            h_prev = h_new
    W = wp - wm
    return DPResult(W=W, adjacency=threshold_dag(W, w_threshold), trace=trace, sigmas=sigmas,
                    stopped_early=stopped, stop_reason=reason)
