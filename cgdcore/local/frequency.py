"""Frequency oracles and de-biasing estimators for locally private reports.

Frequency oracles (Wang, Blocki, Li & Jha, USENIX Security 2017 — *not* used by the local-privacy
causal-discovery paper, whose mechanisms keep records in the input domain; seed_ldp.md §2.6):

* GRR (= k-RR): report a value; support = the reported value.
* OUE: one-hot vector; the 1-bit is kept with p = 1/2, every 0-bit becomes 1 with q = 1/(e^ε + 1).
* OLH: each user draws a hash h: [k] → [g], g = ⌈e^ε⌉ + 1, and reports GRR_g(h(v)) with the hash;
  the report supports every v with h(v) = reported value (p = e^ε/(e^ε + g − 1), q = 1/g).

All three share the unbiased estimator f̂(v) = (ĉ(v)/n − q)/(p − q) (Wang et al. 2017, Eq. 2) and
the approximate variance Var[f̂(v)] = q(1 − q)/(n(p − q)²) + f(v)(1 − p − q)/(n(p − q)) (Eq. 3).

Channel-based estimators (any channel C with C[x, y] = P[report y | true x]):

* :func:`invert_frequencies` — unbiased inversion q = Cᵀf ⇒ f = C⁻ᵀq, applied axis by axis to a
  table whose axes were privatised independently; :func:`project_simplex` then gives the nearest
  probability table (Euclidean; Duchi et al., ICML 2008, Fig. 1).
* :func:`ibu` — iterative Bayesian update (Agrawal & Aggarwal 2001; ElSalamouny & Palamidessi
  2020; seed_ldp.md §2.5), the EM estimator that stays on the simplex.
"""
from __future__ import annotations

import math

import numpy as np

from cgdcore import UserError
from cgdcore.cancel import checkpoint
from cgdcore.local.mechanisms import _check_eps, krr, krr_keep_probability

__all__ = ["FREQUENCY_ORACLES", "oracle_pq", "grr_reports", "oue_reports", "olh_reports", "olh_hash",
           "support_counts", "estimate_frequencies", "oracle_variance", "invert_frequencies", "project_simplex",
           "project_rows", "ibu", "apply_channel"]

#: name -> one-line description
FREQUENCY_ORACLES = {
    "grr": "generalised randomised response (k-RR): report one value",
    "oue": "optimised unary encoding: one-hot bits, 1 kept w.p. ½, 0 → 1 w.p. 1/(e^ε+1)",
    "olh": "optimised local hashing: hash to g = ⌈e^ε⌉+1 buckets, then k-RR on the bucket",
}
_PRIME = 2_147_483_647  # 2^31 − 1: the universal hash family ((a·v + b) mod P) mod g


def olh_buckets(eps: float) -> int:
    """g = ⌈e^ε⌉ + 1 ≥ 2 (Wang et al. 2017 §4.4: optimal g = e^ε + 1, rounded up to an integer)."""
    return int(math.ceil(math.exp(min(eps, 30.0)))) + 1


def oracle_pq(name: str, k: int, eps: float) -> tuple[float, float]:
    """(p, q): probability that a report supports the true value, resp. a given other value."""
    eps = _check_eps(eps)
    if name == "grr":
        p = krr_keep_probability(eps, k)
        return p, (1 - p) / (k - 1)
    if name == "oue":
        return 0.5, 1.0 / (math.exp(eps) + 1.0)
    if name == "olh":
        g = olh_buckets(eps)
        return 1.0 / (1.0 + (g - 1) * math.exp(-eps)), 1.0 / g
    raise UserError(f"unknown frequency oracle {name!r}; choose one of: {', '.join(FREQUENCY_ORACLES)}.")


def grr_reports(x: np.ndarray, k: int, eps: float, rng: np.random.Generator) -> np.ndarray:
    return krr(x, k, eps, rng)


def oue_reports(x: np.ndarray, k: int, eps: float, rng: np.random.Generator) -> np.ndarray:
    """(n, k) uint8 bit vectors: bit v is 1 w.p. ½ if v = x, else w.p. q = 1/(e^ε + 1)."""
    _, q = oracle_pq("oue", k, eps)
    x = np.asarray(x, dtype=np.int64)
    bits = (rng.random((len(x), k)) < q).astype(np.uint8)
    bits[np.arange(len(x)), x] = rng.random(len(x)) < 0.5
    return bits


def olh_hash(a: np.ndarray, b: np.ndarray, v, g: int) -> np.ndarray:
    """h_{a,b}(v) = ((a·v + b) mod P) mod g, P = 2^31 − 1 (exact in int64)."""
    return ((a * np.asarray(v, dtype=np.int64) + b) % _PRIME) % g


def olh_reports(x: np.ndarray, k: int, eps: float, rng: np.random.Generator,
                hashes: tuple[np.ndarray, np.ndarray] | None = None):
    """OLH reports ``(a, b, y)``: user i's hash seeds and GRR_g(h_i(x_i)) at ε.

    ``hashes`` may fix the (a, b) seeds per user (e.g. one shared hash, for testing the channel);
    by default each user draws a ∈ [1, P), b ∈ [0, P).
    """
    eps = _check_eps(eps)
    x = np.asarray(x, dtype=np.int64)
    g = olh_buckets(eps)
    if hashes is None:
        a = rng.integers(1, _PRIME, size=len(x), dtype=np.int64)
        b = rng.integers(0, _PRIME, size=len(x), dtype=np.int64)
    else:
        a, b = (np.broadcast_to(np.asarray(h, dtype=np.int64), x.shape) for h in hashes)
    y = krr(olh_hash(a, b, x, g), g, eps, rng)
    return a, b, y


def support_counts(name: str, reports, k: int, eps: float) -> np.ndarray:
    """ĉ(v): how many reports support each v ∈ 0..k−1."""
    if name == "grr":
        return np.bincount(np.asarray(reports), minlength=k).astype(float)
    if name == "oue":
        return np.asarray(reports).sum(axis=0).astype(float)
    if name == "olh":
        a, b, y = reports
        g = olh_buckets(eps)
        c = np.zeros(k)
        for v in range(k):  # k passes over n users; memory stays O(n)
            c[v] = np.count_nonzero(olh_hash(a, b, v, g) == y)
        return c
    raise UserError(f"unknown frequency oracle {name!r}; choose one of: {', '.join(FREQUENCY_ORACLES)}.")


def estimate_frequencies(name: str, reports, k: int, eps: float, n: int) -> np.ndarray:
    """Unbiased f̂(v) = (ĉ(v)/n − q)/(p − q) (Wang et al. 2017, Eq. 2); may be negative."""
    p, q = oracle_pq(name, k, eps)
    return (support_counts(name, reports, k, eps) / n - q) / (p - q)


def oracle_variance(name: str, k: int, eps: float, n: int, f: np.ndarray | float = 0.0) -> np.ndarray:
    """Var[f̂(v)] = q(1 − q)/(n(p − q)²) + f(1 − p − q)/(n(p − q)) (Wang et al. 2017, Eq. 3)."""
    p, q = oracle_pq(name, k, eps)
    f = np.asarray(f, dtype=float)
    return q * (1 - q) / (n * (p - q) ** 2) + f * (1 - p - q) / (n * (p - q))


# ------------------------------------------------------------------ channel-based estimators
def apply_channel(table: np.ndarray, mats, axes=None) -> np.ndarray:
    """Multiply ``table`` along each axis a by mats[a]ᵀ: t'[.., y, ..] = Σ_x t[.., x, ..] M[x, y].

    Each axis is one broadcast matmul over a (before, k, after) view, so no axis is moved.
    """
    t = np.asarray(table, dtype=float)
    axes = range(t.ndim) if axes is None else axes
    shape = t.shape
    for ax, M in zip(axes, mats):
        k = shape[ax]
        pre = math.prod(shape[:ax])  # a Python product: this runs ~100,000 times in a de-biased PC run
        t = np.matmul(np.asarray(M, dtype=float).T, t.reshape(pre, k, -1)).reshape(shape)
    return t


def invert_frequencies(q: np.ndarray, channels, batch: bool = False) -> np.ndarray:
    """Unbiased estimate of the true table from the observed one: f = (⊗C_a)⁻ᵀ q, axis by axis.

    ``batch``: axis 0 of ``q`` indexes independent tables.
    """
    inv = [np.linalg.inv(np.asarray(C, dtype=float)) for C in channels]
    return apply_channel(q, inv, axes=range(1, np.ndim(q)) if batch else None)


def project_rows(V: np.ndarray) -> np.ndarray:
    """Euclidean projection of every row of V (B, m) onto the probability simplex (Duchi et al. 2008, Fig. 1)."""
    V = np.asarray(V, dtype=float)
    U = -np.sort(-V, axis=1)
    css = np.cumsum(U, axis=1) - 1.0
    idx = np.arange(1, V.shape[1] + 1)
    rho = np.count_nonzero(U - css / idx > 0, axis=1)  # the condition holds on a prefix
    theta = css[np.arange(len(V)), rho - 1] / rho
    return np.maximum(V - theta[:, None], 0.0)


def project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection of a table onto the probability simplex."""
    v = np.asarray(v, dtype=float)
    return project_rows(v.reshape(1, -1))[0].reshape(v.shape)


def ibu(q: np.ndarray, channels=None, iters: int = 500, tol: float = 1e-8, *, batch: bool = False,
        maps=None) -> tuple[np.ndarray, int]:
    """Iterative Bayesian update θ ← θ ⊙ C(q̂ / Cᵀθ) (EM for the true table).

    ``q`` is the observed distribution of reports (sums to 1); ``channels`` act axis by axis, or
    ``maps = (forward, backward)`` give θ ↦ Cᵀθ and r ↦ Cr directly (e.g. k-RR on a whole table).
    ``batch``: axis 0 indexes independent tables. Starts from the uniform table and stops when
    every ‖θ_{t+1} − θ_t‖₁ < ``tol`` or after ``iters`` steps. Returns (θ, iterations).
    """
    q = np.asarray(q, dtype=float)
    axes = tuple(range(1, q.ndim)) if batch else tuple(range(q.ndim))
    if maps is None:
        mats = [np.asarray(C, dtype=float) for C in channels]
        ax = axes if batch else None

        def forward(t):
            return apply_channel(t, mats, axes=ax)

        def backward(r):
            return apply_channel(r, [M.T for M in mats], axes=ax)
    else:
        forward, backward = maps
    theta = np.full(q.shape, 1.0 / (q[0].size if batch else q.size))
    for it in range(1, iters + 1):
        checkpoint()
        pred = forward(theta)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(pred > 0, q / pred, 0.0)
        new = theta * backward(ratio)
        new /= new.sum(axis=axes, keepdims=True)
        if np.abs(new - theta).sum(axis=axes).max() < tol:
            return new, it
        theta = new
    return theta, iters
