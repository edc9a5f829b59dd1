"""Linear NOTEARS (Zheng, Aragam, Ravikumar & Xing 2018) in covariance form.

min_W ℓ(W) + λ‖W‖₁ s.t. h(W) = tr(e^{W∘W}) − d = 0, by the augmented Lagrangian
ℓ + λ‖W‖₁ + (ρ/2)h² + αh with L-BFGS-B over W = W⁺ − W⁻ (W^± ≥ 0, zero diagonal), the
reference schedule: ρ ← 10ρ while h_new > ¼h, then α ← α + ρh; stop at h ≤ h_tol or ρ ≥ ρ_max;
λ = 0.1, w_threshold = 0.3 (anchors_cd.md §3.2).

The least-squares loss depends on the data only through Σ = XᵀX/n of the centred data:
ℓ(W) = ½ tr((I − W)ᵀ Σ (I − W)), ∇ℓ = −Σ(I − W) — equal to the data form
(1/2n)‖X − XW‖²_F, −Xᵀ(X − XW)/n, but its cost does not grow with n after one pass.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cgdcore.cancel import checkpoint
from cgdcore.score.blas import single_threaded_blas

__all__ = ["acyclicity", "loss_and_grad_cov", "loss_and_grad_data", "notears_linear", "NotearsResult",
           "standardise", "threshold_dag"]


def acyclicity(W: np.ndarray) -> tuple[float, np.ndarray]:
    """h(W) = tr(e^{W∘W}) − d and ∇h = (e^{W∘W})ᵀ ∘ 2W (NOTEARS eq. 9)."""
    from scipy.linalg import expm

    E = expm(W * W)
    return float(np.trace(E) - W.shape[0]), E.T * W * 2.0


def _expm_factory(d: int):
    """An expm for many d×d calls: scipy's own Padé kernels (pick_pade_structure, pade_UV_calc) with
    a preallocated workspace, skipping the per-call checks of ``scipy.linalg.expm``. Falls back to
    the public function if those kernels are not available."""
    try:
        from scipy.linalg._matfuncs_expm import pade_UV_calc, pick_pade_structure
    except ImportError:  # pragma: no cover - other scipy layouts
        from scipy.linalg import expm

        return expm
    Am = np.empty((5, d, d))

    def expm_fast(A):
        if not A.any():
            return np.eye(d)
        Am[0] = A
        m, s = pick_pade_structure(Am)
        if m < 0 or pade_UV_calc(Am, m) != 0:  # pragma: no cover - allocation/LAPACK failure
            from scipy.linalg import expm

            return expm(A)
        E = Am[0].copy()
        for _ in range(s):
            E = E @ E
        return E

    return expm_fast


def _offdiag(A: np.ndarray) -> np.ndarray:
    """A (d−1)×d view of the off-diagonal entries of a C-contiguous d×d array, in row-major order (the order
    of ``A[~eye]``): in the flat array the diagonal sits at every (d+1)-th place from 0."""
    d = A.shape[0]
    return A.reshape(-1)[1:].reshape(d - 1, d + 1)[:, :d]


def _lbfgsb_nonneg(fg, x0: np.ndarray, *, maxcor: int = 10, ftol: float = 2.2204460492503131e-09,
                   gtol: float = 1e-5, maxfun: int = 15000, maxiter: int = 15000, maxls: int = 20) -> np.ndarray:
    """argmin over x ≥ 0 of f by L-BFGS-B, ``fg(x) -> (f, ∇f)``, with scipy's default settings (those of
    the reference implementation, which calls ``minimize(..., method="L-BFGS-B", jac=True)``).

    This is scipy's own driver loop (``_minimize_lbfgsb``) around its compiled ``setulb``, without the
    wrapper layers ``minimize`` puts around every evaluation (copies, memoisation, array checks): they
    cost about as much as the NOTEARS objective itself, which runs ~40,000 times at d = 20. The
    iterates are the same as ``minimize``'s (tests/unit/test_score.py checks equality). ``setulb`` took
    its current arguments in scipy 1.15; older versions use ``minimize``.
    """
    import scipy
    from scipy.optimize import _lbfgsb

    x = np.array(x0, dtype=np.float64)  # a copy: setulb updates x in place
    n = x.size
    if tuple(int(v) for v in scipy.__version__.split(".")[:2]) < (1, 15):  # pragma: no cover
        from scipy.optimize import minimize

        return minimize(fg, x, method="L-BFGS-B", jac=True, bounds=[(0, None)] * n,
                        options={"maxcor": maxcor, "ftol": ftol, "gtol": gtol, "maxfun": maxfun,
                                 "maxiter": maxiter, "maxls": maxls}).x
    m = maxcor
    np.maximum(x, 0.0, out=x)
    low, upp = np.zeros(n), np.zeros(n)
    nbd = np.ones(n, np.int32)  # 1: lower bound only
    wa = np.zeros(2 * m * n + 5 * n + 11 * m * m + 8 * m)
    iwa = np.zeros(3 * n, np.int32)
    task, ln_task = np.zeros(2, np.int32), np.zeros(2, np.int32)
    lsave, isave, dsave = np.zeros(4, np.int32), np.zeros(44, np.int32), np.zeros(29)
    factr = ftol / np.finfo(float).eps
    f, g = fg(x)  # minimize evaluates at x0 first as well, and answers setulb's first request with it
    g = np.array(g, dtype=np.float64)
    nfev, nit, at_x0 = 1, 0, True
    while True:
        _lbfgsb.setulb(m, x, low, upp, nbd, f, g, factr, gtol, wa, iwa, task, lsave, isave, dsave, maxls,
                       ln_task)
        if task[0] == 3:  # FG: f and ∇f at x
            checkpoint()
            if not at_x0:
                f, g[:] = fg(x)
                nfev += 1
            at_x0 = False
        elif task[0] == 1:  # NEW_X
            nit += 1
            if nit >= maxiter:
                task[0], task[1] = 5, 504
            elif nfev > maxfun:
                task[0], task[1] = 5, 502
        else:
            return x


def loss_and_grad_cov(W: np.ndarray, cov: np.ndarray) -> tuple[float, np.ndarray]:
    """ℓ = ½ tr((I − W)ᵀ Σ (I − W)), ∇ℓ = −Σ(I − W)."""
    R = np.eye(W.shape[0]) - W
    SR = cov @ R
    return 0.5 * float(np.sum(R * SR)), -SR


def loss_and_grad_data(W: np.ndarray, X: np.ndarray) -> tuple[float, np.ndarray]:
    """ℓ = (1/2n)‖X − XW‖²_F, ∇ℓ = −Xᵀ(X − XW)/n (for tests of the covariance form)."""
    n = X.shape[0]
    Rr = X - X @ W
    return 0.5 / n * float(np.sum(Rr * Rr)), -X.T @ Rr / n


def standardise(X: np.ndarray) -> np.ndarray:
    """Centre each column (NOTEARS's l2 loss assumes centred data) and scale it to unit variance."""
    X = np.asarray(X, dtype=float)
    Xc = X - X.mean(axis=0)
    sd = Xc.std(axis=0)
    sd[sd == 0] = 1.0
    return Xc / sd


def threshold_dag(W: np.ndarray, w_threshold: float) -> np.ndarray:
    """Boolean adjacency of |W| ≥ w_threshold; if that has a cycle, raise the threshold until it does not
    (the smallest threshold that gives a DAG, never one chosen with the truth)."""
    from cgdcore.graph import is_dag

    A = np.abs(W) >= w_threshold
    np.fill_diagonal(A, False)
    if is_dag(A):
        return A
    for t in np.sort(np.unique(np.abs(W[A]))):
        B = np.abs(W) > t
        np.fill_diagonal(B, False)
        if is_dag(B):
            return B
    return np.zeros_like(A)


@dataclass
class NotearsResult:
    W: np.ndarray
    adjacency: np.ndarray
    trace: list[dict] = field(default_factory=list)
    converged: bool = False


@single_threaded_blas()
def notears_linear(cov: np.ndarray, *, lambda1: float = 0.1, max_iter: int = 100, h_tol: float = 1e-8,
                   rho_max: float = 1e16, w_threshold: float = 0.3) -> NotearsResult:
    """Linear NOTEARS from the covariance matrix Σ of centred data (see module docstring). BLAS runs on
    one thread meanwhile: its calls here are on d×d matrices (cgdcore.score.blas)."""
    cov = np.asarray(cov, dtype=float)
    d = cov.shape[0]
    expm = _expm_factory(d)
    m = d * (d - 1)  # the diagonal is fixed at 0, so only off-diagonal entries are variables
    grad = np.empty(2 * m)
    Wk = np.zeros((d, d))  # W at the point being evaluated
    W_off, grad_p, grad_m = _offdiag(Wk), grad[:m].reshape(d - 1, d), grad[m:].reshape(d - 1, d)

    def unpack(w):
        out = np.zeros((d, d))
        np.subtract(w[:m].reshape(d - 1, d), w[m:].reshape(d - 1, d), out=_offdiag(out))
        return out

    def fun(w, rho, alpha):
        # fused loss, acyclicity and gradient: this runs tens of thousands of times
        np.subtract(w[:m].reshape(d - 1, d), w[m:].reshape(d - 1, d), out=W_off)  # W = W⁺ − W⁻
        SR = cov - cov @ Wk  # Σ(I − W)
        E = expm(Wk * Wk)  # once per evaluation, for h and ∇h (eq. 9)
        h = float(np.trace(E)) - d
        loss = 0.5 * (float(np.trace(SR)) - float(np.vdot(Wk, SR)))
        obj = loss + 0.5 * rho * h * h + alpha * h + lambda1 * w.sum()
        G = E.T  # ∇ of the smooth part: (ρh + α)·∇h + ∇ℓ
        G *= Wk
        G *= (rho * h + alpha) * 2.0
        G -= SR
        g = _offdiag(G)
        np.add(g, lambda1, out=grad_p)  # ∂/∂W⁺ = G + λ, ∂/∂W⁻ = −G + λ
        np.subtract(lambda1, g, out=grad_m)
        return obj, grad

    w = np.zeros(2 * m)
    rho, alpha, h = 1.0, 0.0, np.inf
    trace: list[dict] = []
    converged = False
    for it in range(max_iter):
        w_new, h_new = w, h
        while rho < rho_max:
            w_new = _lbfgsb_nonneg(lambda v, r=rho, a=alpha: fun(v, r, a), w)  # from w, as the reference does
            h_new = acyclicity(unpack(w_new))[0]
            if h_new > 0.25 * h:
                rho *= 10
            else:
                break
        w, h = w_new, h_new
        alpha += rho * h
        W = unpack(w)
        trace.append({"iteration": it, "loss": loss_and_grad_cov(W, cov)[0], "h": h, "rho": rho})
        if h <= h_tol or rho >= rho_max:
            converged = h <= h_tol
            break
    W = unpack(w)
    return NotearsResult(W=W, adjacency=threshold_dag(W, w_threshold), trace=trace, converged=converged)
