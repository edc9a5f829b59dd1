"""Synthetic continuous data from linear structural equation models, NOTEARS conventions.

Follows the data-generating conventions of Zheng, Aragam, Ravikumar & Xing, "DAGs with NO TEARS:
Continuous Optimization for Structure Learning", NeurIPS 2018 (Section 5 and the ``utils.py`` of
their public code), re-implemented here with numpy only and an explicit ``numpy.random.Generator``:

* ``random_dag``: Erdős–Rényi ("ER-k": k·d expected edges) or scale-free ("SF-k": Barabási–Albert)
  DAGs, with nodes randomly permuted so that the column order carries no causal information.
* ``random_weights``: each edge weight uniform on ``[-2, -0.5] ∪ [0.5, 2]``.
* ``simulate_linear_sem``: ``X = X W + Z`` (row vectors; ``W[i, j] != 0`` means ``i -> j``), with
  Gaussian, exponential, Gumbel or uniform noise of scale ``noise_scale``. As in NOTEARS the
  exponential and Gumbel noises are not centred.

Beware of varsortability (Reisach, Seiler & Weichwald, NeurIPS 2021): marginal variances grow along
the causal order of such data, which score-based methods can exploit; standardise to remove it.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cgdcore import UserError

__all__ = ["random_dag", "random_weights", "simulate_linear_sem", "topological_order", "NOISES"]

NOISES = ("gauss", "exp", "gumbel", "uniform")


def _rng(rng) -> np.random.Generator:
    return np.random.default_rng(rng)


def random_dag(d: int, n_edges: int, kind: str = "er", rng=None) -> np.ndarray:
    """A random DAG as a (d, d) boolean adjacency (``B[i, j]``: ``i -> j``).

    ``kind="er"``: G(n, m) — ``n_edges`` pairs drawn uniformly without replacement from the upper
    triangle, then nodes relabelled by a uniform random permutation (NOTEARS ``simulate_dag('ER')``).

    ``kind="sf"``: Barabási–Albert preferential attachment as in igraph's
    ``Graph.Barabasi(d, m, directed=True)`` used by NOTEARS: node t (t = 1..d-1) sends
    ``min(m, t)`` edges to distinct earlier nodes chosen with probability ∝ in-degree + 1, where
    ``m = max(1, round(n_edges / d))``; edges point new -> old, so hubs are sinks. The edge count
    is therefore ``sum_t min(m, t)``, close to but not always equal to ``n_edges``. Nodes are then
    randomly permuted.
    """
    rng = _rng(rng)
    d, n_edges = int(d), int(n_edges)
    if d < 1:
        raise UserError(f"a DAG needs at least 1 node, got d={d}")
    max_edges = d * (d - 1) // 2
    if not 0 <= n_edges <= max_edges:
        raise UserError(f"a DAG on {d} nodes has between 0 and {max_edges} edges, got {n_edges}")
    b = np.zeros((d, d), dtype=bool)
    if kind == "er":
        iu, ju = np.triu_indices(d, k=1)
        pick = rng.choice(iu.size, size=n_edges, replace=False)
        b[iu[pick], ju[pick]] = True
    elif kind == "sf":
        m = max(1, int(round(n_edges / d)))
        indeg = np.zeros(d)
        for t in range(1, d):
            w = indeg[:t] + 1.0
            targets = rng.choice(t, size=min(m, t), replace=False, p=w / w.sum())
            b[t, targets] = True
            indeg[targets] += 1
    else:
        raise UserError(f"unknown graph kind {kind!r}; use 'er' (Erdős–Rényi) or 'sf' (scale-free)")
    perm = rng.permutation(d)
    # relabel node i as perm[i]: B'[perm[i], perm[j]] = B[i, j]
    out = np.zeros_like(b)
    out[np.ix_(perm, perm)] = b
    return out


def random_weights(b: np.ndarray, rng=None,
                   ranges: Sequence[tuple[float, float]] = ((-2.0, -0.5), (0.5, 2.0))) -> np.ndarray:
    """Edge weights for adjacency ``b``: per edge, a range chosen uniformly, then a uniform value in it.

    NOTEARS ``simulate_parameter`` with its default ``w_ranges``; non-edges get weight 0.
    """
    rng = _rng(rng)
    b = np.asarray(b, dtype=bool)
    ranges = np.asarray(ranges, dtype=float)
    if ranges.ndim != 2 or ranges.shape[1] != 2 or len(ranges) == 0 or (ranges[:, 0] > ranges[:, 1]).any():
        raise UserError("weight ranges must be a non-empty list of (low, high) pairs with low <= high")
    i, j = np.nonzero(b)
    which = rng.integers(len(ranges), size=i.size)
    vals = rng.uniform(ranges[which, 0], ranges[which, 1])
    w = np.zeros(b.shape, dtype=float)
    w[i, j] = vals
    return w


def topological_order(adj: np.ndarray) -> np.ndarray:
    """Topological order of the DAG with adjacency ``adj != 0`` (raises UserError if cyclic)."""
    from ..graph import topological_order as _order

    try:
        return np.array(_order(np.asarray(adj) != 0), dtype=np.intp)
    except ValueError:
        raise UserError("the weight matrix has a directed cycle; a linear SEM needs a DAG") from None


def simulate_linear_sem(w: np.ndarray, n: int, noise: str = "gauss", rng=None,
                        noise_scale: float | Sequence[float] = 1.0) -> np.ndarray:
    """Draw ``n`` rows from the linear SEM ``X = X W + Z``; returns an (n, d) float64 array.

    Nodes are filled in topological order, one vectorised pass each:
    ``X[:, j] = X[:, pa(j)] @ W[pa(j), j] + Z[:, j]``. Noise (NOTEARS ``simulate_linear_sem``), with
    ``s = noise_scale`` (a scalar or one value per variable): ``gauss`` N(0, s²); ``exp``
    Exponential(scale=s); ``gumbel`` Gumbel(0, s); ``uniform`` U(-s, s). For Gaussian noise
    ``Cov(X) = (I - W)^{-T} diag(s²) (I - W)^{-1}``.
    """
    rng = _rng(rng)
    w = np.asarray(w, dtype=float)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise UserError(f"W must be a square matrix, got shape {w.shape}")
    d, n = w.shape[0], int(n)
    if n < 1:
        raise UserError(f"the number of rows must be at least 1, got {n}")
    scale = np.broadcast_to(np.asarray(noise_scale, dtype=float), (d,))
    if not (scale > 0).all() or not np.isfinite(scale).all():
        raise UserError("noise_scale must be positive and finite")
    order = topological_order(w)
    x = np.empty((n, d), order="F")
    draw = {
        "gauss": lambda s: rng.normal(scale=s, size=n),
        "exp": lambda s: rng.exponential(scale=s, size=n),
        "gumbel": lambda s: rng.gumbel(scale=s, size=n),
        "uniform": lambda s: rng.uniform(-s, s, size=n),
    }.get(noise)
    if draw is None:
        raise UserError(f"unknown noise {noise!r}; use one of {', '.join(NOISES)}")
    for j in order:
        pa = np.flatnonzero(w[:, j])
        x[:, j] = draw(scale[j])
        if pa.size:
            x[:, j] += x[:, pa] @ w[pa, j]
    return np.ascontiguousarray(x)
