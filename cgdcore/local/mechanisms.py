"""Local-DP mechanisms on discrete records (Binkyte et al., CLeaR 2024, §3; seed_ldp.md §2).

Every mechanism maps integer codes 0..k−1 to codes in the same domain, vectorised over rows:

* k-RR (Kairouz et al. 2016): keep with p = e^ε/(k − 1 + e^ε), else a uniform *other* value.
  Column-wise with the budget split uniformly or in proportion to the domain sizes (the
  paper's choice), or on the combined product domain without enumerating it.
* Bounded geometric (d-privacy): P[Y = y | X = x] ∝ e^{−ε_x |y − x|} on the box, i.e. the
  two-sided geometric resampled until it falls inside. In the paper's mode p_max is fixed and
  ε_x is found per input by bisection so that P[Y = x | X = x] = p_max for every x; in the
  fixed-ε mode ε_x = ε. Combined: one L1 geometric on the product grid (the distance sums
  over attributes, so coordinates are drawn independently with the tuple's common ε_x).

:func:`channel_epsilon` gives the true ε-LDP of a channel, which for the geometric mechanism is
far above its nominal ε_x — the digest's warning that equal "privacy level" is not equal ε.
"""
from __future__ import annotations

import math

import numpy as np

from cgdcore import UserError

__all__ = ["krr_keep_probability", "krr", "split_budget", "krr_cwise", "krr_comb", "geometric_sum",
           "geometric_epsilons_for_pmax", "geometric_channel", "geometric_sample", "geo_cwise", "geo_comb",
           "krr_channel", "channel_epsilon", "bayes_vulnerability"]


def _check_eps(eps, what="ε") -> float:
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.floating)) or not math.isfinite(float(eps)):
        raise UserError(f"{what} must be a finite positive number; got {eps!r}.")
    if eps <= 0:
        raise UserError(f"{what} must be > 0 (got {eps!r}); ε = 0 would mean reporting pure noise.")
    return float(eps)


def _check_codes(data: np.ndarray, arities) -> tuple[np.ndarray, np.ndarray]:
    data = np.asarray(data)
    ar = np.asarray(arities, dtype=np.int64)
    if data.ndim != 2 or data.shape[1] != len(ar):
        raise UserError(f"data must be a 2-D array with one column per arity; got shape {data.shape}.")
    if np.any(ar < 2):
        raise UserError("every privatised column needs at least 2 categories.")
    return data.astype(np.int64, copy=False), ar


# ------------------------------------------------------------------------------ k-RR
def krr_keep_probability(eps: float, k: int) -> float:
    """p = e^ε/(k − 1 + e^ε), computed stably for large ε."""
    return 1.0 / (1.0 + (k - 1) * math.exp(-eps))


def krr(x: np.ndarray, k: int, eps: float, rng: np.random.Generator) -> np.ndarray:
    """k-ary randomised response on one column of codes 0..k−1."""
    eps = _check_eps(eps)
    x = np.asarray(x, dtype=np.int64)
    p = krr_keep_probability(eps, k)
    # one uniform per row decides both: u < p keeps x; otherwise (u − p)/(1 − p) is uniform on
    # [0, 1) and picks one of the k − 1 other values
    u = rng.random(x.shape)
    other = np.minimum(((u - p) / (1.0 - p) * (k - 1)).astype(np.int64), k - 2) if p < 1 else x
    other = other + (other >= x)
    return np.where(u < p, x, other)


def krr_channel(k: int, eps: float) -> np.ndarray:
    p = krr_keep_probability(eps, k)
    C = np.full((k, k), (1 - p) / (k - 1))
    np.fill_diagonal(C, p)
    return C


def split_budget(eps: float, arities, mode: str = "proportional") -> np.ndarray:
    """ε_i with Σε_i = ε: ``"proportional"`` ε·k_i/Σk_j (the paper's) or ``"uniform"`` ε/d."""
    eps = _check_eps(eps)
    ar = np.asarray(arities, dtype=float)
    if mode == "proportional":
        return eps * ar / ar.sum()
    if mode == "uniform":
        return np.full(len(ar), eps / len(ar))
    raise UserError(f"budget split must be 'proportional' or 'uniform'; got {mode!r}.")


def krr_cwise(data, arities, eps: float, rng: np.random.Generator, split: str = "proportional"):
    """k-RR on every column with ε_i from :func:`split_budget` (sequential composition: ε-LDP per record)."""
    data, ar = _check_codes(data, arities)
    eps_i = split_budget(eps, ar, split)
    cols = np.ascontiguousarray(data.T)  # one contiguous row per attribute
    out = np.empty_like(cols)
    for j in range(cols.shape[0]):
        out[j] = krr(cols[j], int(ar[j]), float(eps_i[j]), rng)
    return out.T, {"epsilons": eps_i}


def krr_comb(data, arities, eps: float, rng: np.random.Generator):
    """k-RR on the product domain (K = Π k_i): keep the whole tuple with p = e^ε/(K − 1 + e^ε), else
    report a uniform tuple different from the true one (drawn coordinate-wise, redrawn if equal)."""
    data, ar = _check_codes(data, arities)
    eps = _check_eps(eps)
    K = float(np.prod(ar.astype(float)))
    p = 1.0 / (1.0 + (K - 1) * math.exp(-eps))
    out = data.copy()
    change = np.flatnonzero(rng.random(len(data)) >= p)
    todo = change
    while todo.size:
        draw = rng.integers(0, ar, size=(todo.size, len(ar)))
        out[todo] = draw
        todo = todo[np.all(draw == data[todo], axis=1)]
    return out, {"keep_probability": p, "domain_size": K}


# ------------------------------------------------------------------------ geometric
def geometric_sum(x, k: int, eps) -> np.ndarray:
    """S_x(ε) = Σ_{y=0}^{k−1} e^{−ε|y−x|} in closed form (seed_ldp.md §2.2), vectorised over x and ε."""
    x = np.asarray(x, dtype=float)
    eps = np.asarray(eps, dtype=float)
    r = np.exp(-eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (1 - r ** (x + 1)) / (1 - r) + (r - r ** (k - x)) / (1 - r)
    return np.where(eps < 1e-12, float(k), s)


def _bisect(fun, target, lo, hi, iters=80):
    """Vectorised bisection for a decreasing fun: fun(ε) = target."""
    lo = np.array(lo, dtype=float)
    hi = np.array(hi, dtype=float)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        big = fun(mid) > target
        lo = np.where(big, mid, lo)
        hi = np.where(big, hi, mid)
    return 0.5 * (lo + hi)


def _check_pmax(p_max: float, K: float) -> float:
    if isinstance(p_max, bool) or not isinstance(p_max, (int, float, np.floating)) or not math.isfinite(p_max):
        raise UserError(f"p_max must be a probability; got {p_max!r}.")
    if not (1.0 / K < p_max < 1.0):
        raise UserError(f"p_max must lie strictly between 1/{K:g} (uniform guessing over the domain) and 1; "
                        f"got {p_max!r}.")
    return float(p_max)


def geometric_epsilons_for_pmax(k: int, p_max: float) -> np.ndarray:
    """ε_x for x = 0..k−1 with S_x(ε_x) = 1/p_max, so P[Y = x | X = x] = p_max for every x
    (the paper's fixed-p_max mode). k = 10, p_max = 0.5 gives 0.6922 … 1.0930 … 0.6922."""
    p_max = _check_pmax(p_max, k)
    xs = np.arange(k, dtype=float)
    return _bisect(lambda e: geometric_sum(xs, k, e), 1.0 / p_max, np.zeros(k), np.full(k, 60.0))


def geometric_channel(k: int, eps_x) -> np.ndarray:
    """C[x, y] = e^{−ε_x|y−x|}/S_x(ε_x): the bounded (resampled) geometric on 0..k−1."""
    eps_x = np.broadcast_to(np.asarray(eps_x, dtype=float), (k,))
    d = np.abs(np.arange(k)[None, :] - np.arange(k)[:, None])
    C = np.exp(-eps_x[:, None] * d)
    return C / C.sum(axis=1, keepdims=True)


def _sample_rows(cdf_rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per row from the categorical with the given cumulative distribution rows."""
    u = rng.random(cdf_rows.shape[0])
    return np.minimum((u[:, None] > cdf_rows).sum(axis=1), cdf_rows.shape[1] - 1)


def geometric_sample(x: np.ndarray, k: int, eps_x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Bounded geometric draws for codes x with per-row ε (any shape broadcastable to x)."""
    x = np.asarray(x, dtype=np.int64)
    eps = np.broadcast_to(np.asarray(eps_x, dtype=float), x.shape)
    d = np.abs(np.arange(k)[None, :] - x[:, None])
    w = np.exp(-eps[:, None] * d)
    cdf = np.cumsum(w, axis=1)
    cdf /= cdf[:, -1:]
    return _sample_rows(cdf, rng)


def _sample_channel(x: np.ndarray, C: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per row from row x of the channel C, by a single searchsorted over the stacked
    row CDFs (row x shifted to [x, x + 1])."""
    k = C.shape[0]
    cdf = np.cumsum(C, axis=1)
    cdf /= cdf[:, -1:]
    flat = (cdf + np.arange(k)[:, None]).ravel()
    idx = np.searchsorted(flat, x + rng.random(x.shape), side="right")
    return np.minimum(idx - x * k, k - 1)


def geo_cwise(data, arities, rng: np.random.Generator, *, p_max: float | None = None, eps: float | None = None):
    """Bounded geometric on every column.

    ``p_max``: the whole record is guessed with probability P = p_max, split as
    p_max,i = P^{ln k_i/Σ ln k_j} (= P^{1/d} for equal domains; seed_ldp.md §2.3); each column
    then uses its own fixed-p_max ε_x. ``eps``: fixed ε split in proportion to the domain sizes.
    """
    data, ar = _check_codes(data, arities)
    if (p_max is None) == (eps is None):
        raise UserError("give exactly one of p_max and ε for the geometric mechanism.")
    cols = np.ascontiguousarray(data.T)
    out = np.empty_like(cols)
    info: dict = {}
    if p_max is not None:
        _check_pmax(p_max, float(np.prod(ar.astype(float))))
        logs = np.log(ar.astype(float))
        pm = p_max ** (logs / logs.sum())
        info["p_max_per_column"] = pm
        for j in range(cols.shape[0]):
            ex = geometric_epsilons_for_pmax(int(ar[j]), float(pm[j]))
            out[j] = _sample_channel(cols[j], geometric_channel(int(ar[j]), ex), rng)
    else:
        eps_i = split_budget(eps, ar)
        info["epsilons"] = eps_i
        for j in range(cols.shape[0]):
            out[j] = _sample_channel(cols[j], geometric_channel(int(ar[j]), eps_i[j]), rng)
    return out.T, info


def geo_comb(data, arities, rng: np.random.Generator, *, p_max: float | None = None, eps: float | None = None):
    """One L1 bounded geometric on the product grid: P[y | x] ∝ e^{−ε_x Σ_i |y_i − x_i|}.

    The sum factorises over attributes, so S_x(ε) = Π_i S_{x_i}(ε; k_i) and coordinates are drawn
    independently with the tuple's common ε_x (found per distinct tuple by bisection in p_max mode).
    """
    data, ar = _check_codes(data, arities)
    if (p_max is None) == (eps is None):
        raise UserError("give exactly one of p_max and ε for the geometric mechanism.")
    if p_max is not None:
        _check_pmax(p_max, float(np.prod(ar.astype(float))))
        uniq, inv = np.unique(data, axis=0, return_inverse=True)
        inv = inv.reshape(-1)

        def total(e):
            s = np.ones(len(uniq))
            for j in range(len(ar)):
                s = s * geometric_sum(uniq[:, j], int(ar[j]), e)
            return s

        ex = _bisect(total, 1.0 / p_max, np.zeros(len(uniq)), np.full(len(uniq), 60.0))
        row_eps = ex[inv]
    else:
        row_eps = np.full(len(data), _check_eps(eps))
    out = np.empty_like(data)
    for j in range(data.shape[1]):
        out[:, j] = geometric_sample(data[:, j], int(ar[j]), row_eps, rng)
    return out, {"epsilon_range": (float(row_eps.min()), float(row_eps.max()))}


# ------------------------------------------------------------------------ measures
def channel_epsilon(C: np.ndarray) -> float:
    """The channel's true ε-LDP: max over outputs y and inputs x, x' of ln C[x, y]/C[x', y]."""
    C = np.asarray(C, dtype=float)
    with np.errstate(divide="ignore"):
        logC = np.log(C)
    return float(np.max(logC.max(axis=0) - logC.min(axis=0)))


def bayes_vulnerability(C: np.ndarray) -> float:
    """Chance of guessing the input in one try under a uniform prior: (1/|X|) Σ_y max_x C[x, y]."""
    C = np.asarray(C, dtype=float)
    return float(C.max(axis=0).sum() / C.shape[0])
