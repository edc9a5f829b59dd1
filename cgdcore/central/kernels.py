"""EM-PC's compiled greedy search: how many records must be removed to flip a G-test
(:func:`cgdcore.central.empc`); numba loads only when EM-PC runs."""
from __future__ import annotations

import numpy as np

from cgdcore.jit import njit


@njit(cache=True, nogil=True)
def _xlogx(v):  # pragma: no cover - compiled
    return v * np.log(v) if v > 0 else 0.0


@njit(cache=True, nogil=True)
def _drop(v):  # pragma: no cover - compiled
    """f(v − 1) − f(v), f(v) = v ln v: how a count's term moves when one record leaves it."""
    return _xlogx(v - 1.0) - _xlogx(v)


@njit(cache=True, nogil=True)
def _best_in_stratum(t, ni, dc, di, dj, dk, k, positive):  # pragma: no cover - compiled
    """Best one-record removal in stratum k: (value = positive·ΔG², i, j), from the cached drops of the counts
    (dc: cells, di: rows, dj: columns, dk: the stratum); the first best in row-major order on ties."""
    kx, ky = t.shape[1], t.shape[2]
    best, bi, bj = -np.inf, -1, -1
    for i in range(kx):
        if ni[k, i] == 0:
            continue
        for j in range(ky):
            if t[k, i, j] == 0:
                continue
            dg = 2.0 * (dc[k, i, j] - di[k, i] - dj[k, j] + dk[k])
            v = positive * dg
            if v > best:
                best, bi, bj = v, i, j
    return best, bi, bj


@njit(cache=True, nogil=True)
def greedy_flip_steps(tables, threshold, positive, max_steps):  # pragma: no cover - compiled
    """Steps of the greedy search (Priv-PC reference ``findJs``) on (K, kx, ky) counts.

    G² = 2 Σ_k [Σ_ij f(n_ijk) − Σ_i f(n_i.k) − Σ_j f(n_.jk) + f(n_k)], f(v) = v ln v. Each
    step removes the one record whose removal moves G² furthest towards the critical value
    (``positive`` = +1 raises it, −1 lowers it); the search stops when the best move would
    reach the critical value, or after ``max_steps``. A removal changes one cell, one row and one column margin
    and one stratum total: only their drops f(v − 1) − f(v) are recomputed (four pairs of logarithms a step,
    not one pair per cell and margin of the stratum), with the very expressions of a full recount, so the steps
    are those of the plain search (tests/unit/test_empc_flip.py).
    """
    K, kx, ky = tables.shape
    t = np.empty((K, kx, ky))
    ni = np.zeros((K, kx))
    nj = np.zeros((K, ky))
    nk = np.zeros(K)
    for k in range(K):  # the margins in loops: numba's sum(axis=…) costs over a CPU-second to compile
        for i in range(kx):
            for j in range(ky):
                c = float(tables[k, i, j])
                t[k, i, j] = c
                ni[k, i] += c
                nj[k, j] += c
                nk[k] += c
    g = 0.0
    for k in range(K):
        s = _xlogx(nk[k])
        for i in range(t.shape[1]):
            s -= _xlogx(ni[k, i])
            for j in range(t.shape[2]):
                s += _xlogx(t[k, i, j])
        for j in range(t.shape[2]):
            s -= _xlogx(nj[k, j])
        g += 2.0 * s
    dc = np.empty((K, kx, ky))
    di = np.empty((K, kx))
    dj = np.empty((K, ky))
    dk = np.empty(K)
    for k in range(K):
        dk[k] = _drop(nk[k])
        for i in range(kx):
            di[k, i] = _drop(ni[k, i])
            for j in range(ky):
                dc[k, i, j] = _drop(t[k, i, j])
        for j in range(ky):
            dj[k, j] = _drop(nj[k, j])
    bestv = np.empty(K)
    besti = np.empty(K, np.int64)
    bestj = np.empty(K, np.int64)
    for k in range(K):
        bestv[k], besti[k], bestj[k] = _best_in_stratum(t, ni, dc, di, dj, dk, k, positive)
    steps = 0
    while True:
        k = int(np.argmax(bestv))
        v = bestv[k]
        if not np.isfinite(v):
            return steps
        if positive * (g + positive * v) >= positive * threshold:
            return steps
        if steps >= max_steps:
            return steps
        steps += 1
        i, j = besti[k], bestj[k]
        t[k, i, j] -= 1.0
        ni[k, i] -= 1.0
        nj[k, j] -= 1.0
        nk[k] -= 1.0
        dc[k, i, j] = _drop(t[k, i, j])
        di[k, i] = _drop(ni[k, i])
        dj[k, j] = _drop(nj[k, j])
        dk[k] = _drop(nk[k])
        g += positive * v
        bestv[k], besti[k], bestj[k] = _best_in_stratum(t, ni, dc, di, dj, dk, k, positive)
