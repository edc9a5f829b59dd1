"""The second-moment matrix that noisy loss gradients describe, fitted by weighted least squares.

The least-squares loss ℓ(W) = ½ tr((I − W)ᵀ M (I − W)), M = XᵀX/n, has the gradient ∇ℓ(W) = −M(I − W): affine
in W, with the same Hessian M for every column of W. So every released gradient at a known (public) point W_p is a
noisy set of linear equations in M — entry (j, k), j ≠ k: −G_jk = Σ_l M_jl (I − W_p)_lk — and fitting M to all the
releases so far is post-processing: a quasi-Newton model of the loss whose curvature comes from the releases
themselves (CURATE's Algorithm 2 builds an L-BFGS model from differences of noisy gradients, seed_curate.md §3.4;
here the model is the exact form of the least-squares Hessian, so nothing is approximated but the noise).

Each row j of M is fitted on its own (d unknowns; equations k ≠ j; the diagonal of a release is zero and carries
nothing), every release weighted by 1/σ_k² (σ_k: the release's public noise s.d.), so the fit's covariance is
H_j⁻¹, public. The diagonal M_jj enters only through W_jk ≠ 0, so the design needs a point with a non-zero entry in
every row (:func:`shift_point`); a weak ridge towards a public prior settles what the releases leave undetermined
(for example with a single release). Then M is symmetrised, re-centred when the means were released (below), and

* each off-diagonal entry within ``SHRINK`` standard errors of zero is set to zero, the others kept as fitted (hard
  thresholding): a dependence the releases cannot tell from noise is taken as none, as a test on the z scale at
  |z| ≤ 2 would decide, while one the releases do show keeps its size (soft-thresholding, which shrank every entry
  by 2 standard errors, took most of a real dependence away at small ε). With exact gradients the standard errors
  are 0 and nothing changes;
* its eigenvalues are floored at ``NOISE_FLOOR``·√d·σ̄ = ½√d·σ̄, σ̄ = (Σ_k 1/σ_k²)^(−1/2): a quarter of the edge
  2√d·σ̄ of the spectrum of a symmetric noise matrix of entry s.d. σ̄. The floor keeps the fit well conditioned (on
  an ill-conditioned noisy fit NOTEARS otherwise takes hundreds of thousands of steps); at the full edge it sat
  above the variances themselves at ε ≤ 1 (earthquake, n = 5,000: floor 0.063 against scaled variances 0.05–0.25),
  so the fit was nearly a multiple of the identity and every graph came out empty;
* mapped to the data's units, where its eigenvalues are floored at 1e-3 as the released covariance's are.

Re-centring (:meth:`MomentModel.set_mean`): the data are centred at a public constant c (the middle of each column's
public range), so the releases describe the second moments about c, M̃ = Σ̃ + μ̃μ̃ᵀ with μ̃ the scaled mean of the
publicly centred data. Given a separately paid release of μ̃ (noise s.d. σ_μ per entry), the fit is re-centred as
Σ̃ = M̃ − μ̃μ̃ᵀ before the thresholding (post-processing of paid releases), and each off-diagonal standard error grows
to √(se² + (μ̃_j² + μ̃_k²)σ_μ²), the first-order (delta-method) variance of μ̃_jμ̃_k. With exact releases Σ̃ is the
covariance, which is what NOTEARS itself fits.

Coordinates: the releases are gradients in public-scaled coordinates x̃_j = x_j / B_j (B_j: the public bound of
column j, so |x̃_j| ≤ 1); the fitted M̃ maps back as M = D M̃ D, D = diag(B).
"""
from __future__ import annotations

import numpy as np

__all__ = ["MomentModel", "shift_point"]

#: Ridge weight, relative to the mean diagonal of the accumulated normal equations (only breaks rank deficiency).
RIDGE = 1e-9
#: Prior of the scaled second moments where the releases say nothing: |x̃| ≤ 1, the variance of a uniform on [−1, 1].
PRIOR_DIAGONAL = 1.0 / 3.0
#: Off-diagonal entries of the fit within this many standard errors of zero are set to zero (module docstring).
SHRINK = 2.0
#: Noise floor of the scaled fit's eigenvalues, in units of √d·σ̄ (module docstring).
NOISE_FLOOR = 0.5
#: Eigenvalue floor of the fitted second-moment matrix in the data's units (public, as for the released covariance
#: in cgdcore.score.run; keeps the fitted loss bounded below).
EIGEN_FLOOR = 1e-3


def keep_shown(S: np.ndarray, se: np.ndarray) -> tuple[np.ndarray, int]:
    """The fit with every off-diagonal dependence within ``SHRINK`` of its public standard errors ``se`` of zero set
    to zero (one the noise could have made is taken as none; the others keep their size), and how many pairs kept
    one. Post-processing: ``se`` comes from the releases' public noise levels (and released values)."""
    S = np.array(S, dtype=float)
    off = ~np.eye(S.shape[0], dtype=bool)
    S[off] = np.where(np.abs(S[off]) > SHRINK * se[off], S[off], 0.0)
    return S, int(np.count_nonzero(np.triu(S, 1)))


def shift_point(d: int) -> np.ndarray:
    """The public design point W̃ with W̃_{j, j+1 mod d} = 1, zero elsewhere (a cyclic shift). Its gradient entry
    (j, j+1) is M_jj − M_{j,j+1}, so with the releases at W = 0 every diagonal entry is measured as precisely as the
    off-diagonal ones; each residual x̃_k − x̃_{k−1} lies in [−2, 2], so with |x̃| ≤ 1 a clip of 2 never binds."""
    return np.roll(np.eye(d), 1, axis=1)


class MomentModel:
    """Weighted least-squares fit of the scaled second-moment matrix M̃ to gradient releases (module docstring)."""

    def __init__(self, d: int):
        self.d = d
        self.H = np.zeros((d, d, d))  # per row j: Σ_p w_p R_p[:, K_j] R_p[:, K_j]ᵀ
        self.b = np.zeros((d, d))  # per row j: Σ_p w_p R_p[:, K_j] (−G_p[j, K_j])
        self.releases = 0
        self.weight = 0.0  # Σ_k 1/σ_k²
        self.mean: np.ndarray | None = None  # the released scaled means μ̃ (re-centring), if any
        self.kept: int | None = None  # pairs whose fitted dependence passed the threshold (set by scaled())
        self.mean_sigma = 0.0

    def set_mean(self, mean_scaled, sigma: float) -> None:
        """Re-centre the fit at the released scaled means ``mean_scaled`` (noise s.d. ``sigma`` per entry; module
        docstring)."""
        self.mean = np.asarray(mean_scaled, dtype=float).copy()
        self.mean_sigma = float(sigma)

    def add(self, W_scaled: np.ndarray, G_scaled: np.ndarray, sigma: float) -> None:
        """Add one release: the noisy gradient ``G_scaled`` (diagonal zero) at the public point ``W_scaled``, noise
        s.d. ``sigma`` per entry."""
        w = 1.0 / max(float(sigma), 1e-300) ** 2
        R = np.eye(self.d) - W_scaled
        RRt = R @ R.T
        # H_j = Σ_{k≠j} R[:, k] R[:, k]ᵀ = RRᵀ − R[:, j] R[:, j]ᵀ
        self.H += w * (RRt[None, :, :] - np.einsum("lj,mj->jlm", R, R))
        G = np.array(G_scaled, dtype=float)
        np.fill_diagonal(G, 0.0)
        self.b += -w * (G @ R.T)  # row j: Σ_{k≠j} R[:, k] (−G_jk)
        self.releases += 1
        self.weight += w

    def scaled(self) -> np.ndarray:
        """M̃ (Σ̃ when re-centred): the rows solved with the ridge, symmetrised, re-centred, thresholded at ``SHRINK``
        standard errors, eigenvalues floored at the noise floor."""
        d = self.d
        tau = RIDGE * max(float(np.einsum("jll->", self.H)) / (d * d), 1e-300)
        prior = np.eye(d) * PRIOR_DIAGONAL
        U, V = np.empty((d, d)), np.empty((d, d))  # the fitted rows and their variances
        for j in range(d):
            Hinv = np.linalg.inv(self.H[j] + tau * np.eye(d))
            U[j] = Hinv @ (self.b[j] + tau * prior[j])
            V[j] = np.diag(Hinv)
        S = 0.5 * (U + U.T)
        se = 0.5 * np.sqrt(V + V.T)
        if self.mean is not None:  # Σ̃ = M̃ − μ̃μ̃ᵀ, its standard errors by the delta method
            mu = self.mean
            S = S - np.outer(mu, mu)
            se = np.sqrt(se ** 2 + (mu[:, None] ** 2 + mu[None, :] ** 2) * self.mean_sigma ** 2)
        S, self.kept = keep_shown(S, se)  # the dependences that passed (a count; post-processing)
        vals, vecs = np.linalg.eigh(S)
        floor = NOISE_FLOOR * np.sqrt(d) / np.sqrt(max(self.weight, 1e-300))
        return 0.5 * ((vecs * np.maximum(vals, floor)) @ vecs.T + ((vecs * np.maximum(vals, floor)) @ vecs.T).T)

    def second_moment(self, bounds, standardise: bool = False) -> np.ndarray:
        """M = D M̃ D in the units of the data (D = diag of the public bounds), eigenvalues floored there (the
        covariance Σ when re-centred). ``standardise``: scaled to unit diagonal first, as NOTEARS standardises
        discrete columns by their own standard deviations (the diagonal is floored at 1e-3 before the division)."""
        B = np.asarray(bounds, dtype=float)
        S = self.scaled() * np.outer(B, B)
        if standardise:
            sd = np.sqrt(np.maximum(np.diag(S), EIGEN_FLOOR))
            S = S / np.outer(sd, sd)
        vals, vecs = np.linalg.eigh(S)
        S = (vecs * np.maximum(vals, EIGEN_FLOOR)) @ vecs.T
        return 0.5 * (S + S.T)
