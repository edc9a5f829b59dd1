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
from cgdcore.data.dataset import code_dtype

__all__ = ["krr_keep_probability", "krr", "split_budget", "krr_cwise", "krr_comb", "geometric_sum",
           "geometric_epsilons_for_pmax", "geometric_channel", "geo_cwise", "geo_comb",
           "krr_channel", "channel_epsilon", "log_channel_epsilon", "geometric_log_channel", "geometric_epsilon",
           "bayes_vulnerability", "cwise_pmax_split", "geo_cwise_epsilons",
           "geo_comb_epsilon"]


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
    if data.dtype.kind not in "iu":
        data = data.astype(np.int64)
    if data.size and (data.min() < 0 or np.any(data.max(axis=0) >= ar)):
        raise UserError("codes must lie in 0..k−1 for each column's number of categories k.")
    return data.astype(code_dtype(int(ar.max())), copy=False), ar  # the kernels' own code types (code_dtype)


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
    from cgdcore.jit import frozen
    from cgdcore.local.kernels import krr_cells

    data, ar = _check_codes(data, arities)
    data = frozen(data)
    eps_i = split_budget(eps, ar, split)
    p = np.array([krr_keep_probability(float(e), int(k)) for e, k in zip(eps_i, ar)])
    out = np.empty_like(data)
    krr_cells(data, ar, p, rng.random(data.shape), out)
    return out, {"epsilons": eps_i, "keep_probabilities": p}


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
def geometric_sum(x, k, eps) -> np.ndarray:
    """S_x(ε) = Σ_{y=0}^{k−1} e^{−ε|y−x|} in closed form (seed_ldp.md §2.2), vectorised over x, k and ε."""
    x = np.asarray(x, dtype=float)
    k = np.asarray(k, dtype=float)
    eps = np.asarray(eps, dtype=float)
    r = np.exp(-eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (1 - r ** (x + 1)) / (1 - r) + (r - r ** (k - x)) / (1 - r)
    return np.where(eps < 1e-12, k, s)


def _bisect(fun, target, lo, hi, iters=80):
    """Vectorised bisection for a decreasing fun: fun(ε) = target. Stops early once no bracket moves
    (in floating point the midpoint is then an end point, and every later step would repeat)."""
    lo = np.array(lo, dtype=float)
    hi = np.array(hi, dtype=float)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        big = fun(mid) > target
        lo_new = np.where(big, mid, lo)
        hi_new = np.where(big, hi, mid)
        if np.array_equal(lo_new, lo) and np.array_equal(hi_new, hi):
            break
        lo, hi = lo_new, hi_new
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


def geometric_log_channel(k: int, eps_x) -> np.ndarray:
    """ln C[x, y] of :func:`geometric_channel`, exact even where C underflows (large ε)."""
    from scipy.special import logsumexp

    eps_x = np.broadcast_to(np.asarray(eps_x, dtype=float), (k,))
    d = np.abs(np.arange(k)[None, :] - np.arange(k)[:, None])
    logC = -eps_x[:, None] * d
    return logC - logsumexp(logC, axis=1, keepdims=True)


def geometric_epsilon(k: int, eps_x) -> float:
    """True ε-LDP of the 1-D bounded geometric channel (log space, finite for any finite ε)."""
    return log_channel_epsilon(geometric_log_channel(k, eps_x))


def _check_one_of(p_max, eps):
    if (p_max is None) == (eps is None):
        raise UserError("give exactly one of p_max and ε for the geometric mechanism.")


def cwise_pmax_split(p_max: float, arities) -> np.ndarray:
    """p_max,i = P^{ln k_i/Σ ln k_j}: the whole record is guessed with probability P = Π p_max,i
    (seed_ldp.md §2.3 resolution; P^{1/d} for equal domains)."""
    ar = np.asarray(arities, dtype=float)
    _check_pmax(p_max, float(np.prod(ar)))
    logs = np.log(ar)
    return p_max ** (logs / logs.sum())


def geo_cwise_epsilons(arities, *, p_max: float | None = None, eps: float | None = None) -> list[np.ndarray]:
    """Per column, ε_x for every input x: fixed-p_max (bisection) or ε split ∝ k_i."""
    _check_one_of(p_max, eps)
    ar = np.asarray(arities, dtype=np.int64)
    if p_max is not None:
        pm = cwise_pmax_split(p_max, ar)
        return [geometric_epsilons_for_pmax(int(k), float(q)) for k, q in zip(ar, pm)]
    return [np.full(int(k), float(e)) for k, e in zip(ar, split_budget(eps, ar))]


def geo_cwise(data, arities, rng: np.random.Generator, *, p_max: float | None = None, eps: float | None = None):
    """Bounded geometric on every column.

    ``p_max``: the whole record is guessed with probability P = p_max, split by
    :func:`cwise_pmax_split`; each column then uses its own fixed-p_max ε_x. ``eps``: fixed ε
    split in proportion to the domain sizes.
    """
    from cgdcore.jit import frozen
    from cgdcore.local.kernels import geometric_cells

    data, ar = _check_codes(data, arities)
    data = frozen(data)
    eps_x = geo_cwise_epsilons(ar, p_max=p_max, eps=eps)
    rtab = np.zeros((len(ar), int(ar.max())))
    for j, e in enumerate(eps_x):
        rtab[j, :len(e)] = np.exp(-e)
    out = np.empty_like(data)
    geometric_cells(data, ar, rtab, rng.random(data.shape), out)
    info = {"epsilon_x": eps_x}
    if p_max is not None:
        info["p_max_per_column"] = cwise_pmax_split(p_max, ar)
    else:
        info["epsilons"] = split_budget(eps, ar)
    return out, info


def _edge_classes(ar: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (k, e) pairs, e = distance of a code to the nearer border, e ≤ ⌊(k−1)/2⌋.

    S_x(ε) = Π_i S_{x_i}(ε; k_i) depends on x only through the multiset of (k_i, e_i), and so
    does the farthest L1 distance Σ_i (k_i − 1 − e_i): tuples with equal multisets share ε_x.
    Returns (k per class, e per class, class id table [column, code]).
    """
    pairs = sorted({(int(k), min(c, int(k) - 1 - c)) for k in ar for c in range(int(k))})
    ids = {p: i for i, p in enumerate(pairs)}
    table = np.zeros((len(ar), int(ar.max())), dtype=np.int64)
    for j, k in enumerate(ar):
        for c in range(int(k)):
            table[j, c] = ids[(int(k), min(c, int(k) - 1 - c))]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs]), table


def _comb_pmax_epsilons(counts: np.ndarray, ck: np.ndarray, ce: np.ndarray, p_max: float) -> np.ndarray:
    """ε_x with Π_c S_{e_c}(ε; k_c)^{n_c} = 1/p_max for each row of class counts n_c (one bisection,
    vectorised over rows; S is evaluated once per class, not once per attribute)."""
    counts = np.asarray(counts, dtype=float)

    def total(e):
        return np.prod(geometric_sum(ce, ck, e[:, None]) ** counts, axis=1)

    n = len(counts)
    return _bisect(total, 1.0 / p_max, np.zeros(n), np.full(n, 60.0))


def _class_counts(classes: np.ndarray, n_classes: int) -> np.ndarray:
    """Rows of class ids → rows of counts per class id (the multiset)."""
    return (np.asarray(classes)[:, :, None] == np.arange(n_classes)).sum(axis=1)


def _distinct_counts(counts: np.ndarray, dense_max: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows of ``counts``, index of each row among them) for rows of non-negative counts with
    equal sums d. The rows are keyed in base d + 1 without their last entry (d minus the others);
    a key space of at most ``dense_max`` is marked in a table (no sort), a larger one goes through
    np.unique (on the rows themselves if a key could overflow int64)."""
    n, c = counts.shape
    base = int(counts[0].sum()) + 1 if n else 1
    space = base ** (c - 1)  # a Python int: no overflow
    if space >= 2**62:
        distinct, inv = np.unique(counts, axis=0, return_inverse=True)
        return distinct, inv.reshape(-1)
    radix = base ** np.arange(c - 1, dtype=np.int64)
    if space <= dense_max:
        key = counts[:, :-1] @ radix
        seen = np.zeros(space, dtype=bool)
        seen[key] = True
        keys = np.flatnonzero(seen)
        inv = (np.cumsum(seen) - 1)[key]
        head = keys[:, None] // radix % base
        return np.column_stack([head, base - 1 - head.sum(axis=1)]), inv
    _, first, inv = np.unique(counts[:, :-1] @ radix, return_index=True, return_inverse=True)
    return counts[first], inv.reshape(-1)


def geo_comb(data, arities, rng: np.random.Generator, *, p_max: float | None = None, eps: float | None = None):
    """One L1 bounded geometric on the product grid: P[y | x] ∝ e^{−ε_x Σ_i |y_i − x_i|}.

    The sum factorises over attributes, so S_x(ε) = Π_i S_{x_i}(ε; k_i) and coordinates are drawn
    independently with the tuple's common ε_x. In p_max mode ε_x is found by bisection once per
    distinct multiset of border distances (see :func:`_edge_classes`), not per tuple.
    """
    from cgdcore.jit import frozen
    from cgdcore.local.kernels import class_counts, geometric_rows

    data, ar = _check_codes(data, arities)
    data = frozen(data)
    _check_one_of(p_max, eps)
    if p_max is not None:
        _check_pmax(p_max, float(np.prod(ar.astype(float))))
        ck, ce, table = _edge_classes(ar)
        # the multiset of border-distance classes of a row is its vector of counts per class
        distinct, inv = _distinct_counts(class_counts(data, table, len(ck)))
        row_eps = _comb_pmax_epsilons(distinct, ck, ce, p_max)[inv]
    else:
        row_eps = np.full(len(data), _check_eps(eps))
    out = np.empty_like(data)
    geometric_rows(data, ar, np.exp(-row_eps), rng.random(data.shape), out)
    if len(row_eps):
        summary = {"epsilon_range": (float(row_eps.min()), float(row_eps.max())),
                   "epsilon_median": float(np.median(row_eps))}
    else:
        summary = {"epsilon_range": (float("nan"),) * 2, "epsilon_median": float("nan")}
    return out, summary


def geo_comb_epsilon(arities, *, p_max: float | None = None, eps: float | None = None,
                     max_classes: int = 200_000) -> tuple[float, bool]:
    """True ε-LDP of Geo Comb (L1): (value, exact).

    C(x, y) = p_max e^{−ε_x d(x, y)} (S_x(ε_x) = 1/p_max for all x), so the largest log-ratio
    is max_x' ε_x' · max_y d(x', y) with y = x on the other side. Exact by enumerating the
    multisets of border-distance classes per arity; when there are more than ``max_classes``
    of them, the bound (max ε_x) · Σ(k_i − 1) is returned with exact=False. Fixed-ε mode is a
    product channel: Σ_i ε-LDP of the 1-D channel.
    """
    from itertools import combinations_with_replacement, product

    ar = np.asarray(arities, dtype=np.int64)
    _check_one_of(p_max, eps)
    if eps is not None:
        return float(sum(geometric_epsilon(int(k), _check_eps(eps)) for k in ar)), True
    _check_pmax(p_max, float(np.prod(ar.astype(float))))
    ck, ce, _ = _edge_classes(ar)
    groups = {}
    for k in ar:
        groups[int(k)] = groups.get(int(k), 0) + 1
    per_group, count = [], 1
    for k, m in groups.items():
        cls = [i for i in range(len(ck)) if ck[i] == k]
        count *= math.comb(m + len(cls) - 1, m)
        per_group.append((cls, m))
    if count > max_classes:
        centre = {int(k): max((i for i in range(len(ck)) if ck[i] == k), key=lambda i: ce[i]) for k in groups}
        top = _comb_pmax_epsilons(_class_counts(np.array([[centre[int(k)] for k in ar]]), len(ck)), ck, ce,
                                  p_max)  # the largest ε_x
        return float(top[0] * (ar - 1).sum()), False
    rows = [sum(parts, ()) for parts in product(*[list(combinations_with_replacement(c, m))
                                                   for c, m in per_group])]
    classes = np.array(rows, dtype=np.int64)
    ex = _comb_pmax_epsilons(_class_counts(classes, len(ck)), ck, ce, p_max)
    far = (ck[classes] - 1 - ce[classes]).sum(axis=1)
    return float(np.max(ex * far)), True


# ------------------------------------------------------------------------ measures
def channel_epsilon(C: np.ndarray) -> float:
    """The channel's true ε-LDP: max over outputs y and inputs x, x' of ln C[x, y]/C[x', y]."""
    C = np.asarray(C, dtype=float)
    with np.errstate(divide="ignore"):
        return log_channel_epsilon(np.log(C))


def log_channel_epsilon(logC: np.ndarray) -> float:
    """:func:`channel_epsilon` from ln C (−inf entries give ε = inf)."""
    return float(np.max(logC.max(axis=0) - logC.min(axis=0)))


def bayes_vulnerability(C: np.ndarray) -> float:
    """Chance of guessing the input in one try under a uniform prior: (1/|X|) Σ_y max_x C[x, y]."""
    C = np.asarray(C, dtype=float)
    return float(C.max(axis=0).sum() / C.shape[0])
