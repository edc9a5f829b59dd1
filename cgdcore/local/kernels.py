"""Compiled local-DP loops, imported only when needed so numba loads lazily.

* :func:`krr_cells`, :func:`geometric_cells`, :func:`geometric_rows` — privatisation of a whole (n, d) code matrix
  in one pass (k-RR; bounded geometric per column or per row); :func:`class_counts` — Geo Comb's per-row multiset
  of border-distance classes.
* :func:`debias_boot_stats`, :func:`poisson_columns` — the de-biased G-test's bootstrap: report tables drawn by
  Poisson inversion, then inverted, projected and scored per replicate.
"""
from __future__ import annotations

import numpy as np

from cgdcore.jit import njit


@njit(cache=True, nogil=True)
def _geo_norm(xj, kj, ri):  # pragma: no cover - compiled
    """S_x = Σ_{y<k} r^{|y − x|} in closed form (seed_ldp.md §2.2)."""
    return (1.0 - ri ** (xj + 1)) / (1.0 - ri) + (ri - ri ** (kj - xj)) / (1.0 - ri)


@njit(cache=True, nogil=True)
def _geo_walk(xj, kj, ri, t):  # pragma: no cover - compiled
    """One bounded geometric draw, P[y | x] ∝ r^{|y − x|} on 0..k − 1, by the inverse CDF at t = u·S_x.

    The walk goes outward from x (x, x − 1, x + 1, x − 2, …), so few steps are needed when r is small.
    """
    if ri <= 0.0:
        return xj
    acc = 1.0
    if acc > t:
        return xj
    last = xj
    w = 1.0
    step = 1
    while True:
        w *= ri
        lo = xj - step
        hi = xj + step
        if lo < 0 and hi >= kj:
            return last  # rounding left t at the very end of the total
        if lo >= 0:
            acc += w
            last = lo
            if acc > t:
                return lo
        if hi < kj:
            acc += w
            last = hi
            if acc > t:
                return hi
        step += 1


@njit(cache=True, nogil=True)
def class_counts(x, table, n_classes):  # pragma: no cover - compiled
    """counts[i, c] = #{j : table[j, x[i, j]] = c}: per row, how many cells fall in each class (Geo Comb's
    border-distance classes)."""
    n, d = x.shape
    counts = np.zeros((n, n_classes), np.int64)
    for i in range(n):
        for j in range(d):
            counts[i, table[j, x[i, j]]] += 1
    return counts


@njit(cache=True, nogil=True)
def geometric_rows(x, k, r, u, out):  # pragma: no cover - compiled
    """Bounded geometric draw for every cell with one ratio r[i] = e^{−ε_i} per row (Geo Comb, L1).

    The powers r^m (m ≤ max k) are taken once per row, so S_x costs no power per cell; they are the
    same r ** m as in :func:`_geo_norm`, so the draws are too."""
    n, d = x.shape
    kmax = 0
    for j in range(d):
        kmax = max(kmax, k[j])
    pw = np.empty(kmax + 1)
    for i in range(n):
        ri = r[i]
        for m in range(kmax + 1):
            pw[m] = ri ** m
        for j in range(d):
            xj = x[i, j]
            kj = k[j]
            if ri <= 0.0:
                out[i, j] = xj
            else:
                norm = (1.0 - pw[xj + 1]) / (1.0 - ri) + (ri - pw[kj - xj]) / (1.0 - ri)
                out[i, j] = _geo_walk(xj, kj, ri, u[i, j] * norm)


@njit(cache=True, nogil=True)
def geometric_cells(x, k, rtab, u, out):  # pragma: no cover - compiled
    """Bounded geometric draw for every cell with ratio rtab[j, x] per column and input (Geo C-wise)."""
    n, d = x.shape
    norm = np.ones(rtab.shape)  # S_x per column and input, once
    for j in range(d):
        for c in range(k[j]):
            if rtab[j, c] > 0.0:
                norm[j, c] = _geo_norm(c, k[j], rtab[j, c])
    for i in range(n):
        for j in range(d):
            xj = x[i, j]
            out[i, j] = _geo_walk(xj, k[j], rtab[j, xj], u[i, j] * norm[j, xj])


@njit(cache=True, nogil=True)
def krr_cells(x, k, p, u, out):  # pragma: no cover - compiled
    """k-RR on every cell: keep x[i, j] if u < p[j], else the ⌊(u − p)/(1 − p)·(k − 1)⌋-th other value."""
    n, d = x.shape
    for i in range(n):
        for j in range(d):
            xj = x[i, j]
            uij = u[i, j]
            pj = p[j]
            if uij < pj:
                out[i, j] = xj
            else:
                o = int((uij - pj) / (1.0 - pj) * (k[j] - 1))
                if o > k[j] - 2:
                    o = k[j] - 2
                out[i, j] = o + 1 if o >= xj else o


@njit(cache=True, nogil=True)
def _project_simplex_inplace(v):  # pragma: no cover - compiled
    """Euclidean projection of v onto the probability simplex, max(v − θ, 0) with Σ = 1.

    θ by Michelot's (1986) fixed point instead of a sort: θ = (Σ_{v_i > θ} v_i − 1)/#{v_i > θ}, starting
    from all entries; θ only grows and the active set only shrinks, so the loop ends when the set
    stops changing, at the θ of the sort-based rule (Duchi et al. 2008, Fig. 1), in a few O(m) passes.
    """
    m = v.shape[0]
    s = 0.0
    for i in range(m):
        s += v[i]
    active = m
    theta = (s - 1.0) / m
    while True:
        s = 0.0
        cnt = 0
        for i in range(m):
            if v[i] > theta:
                s += v[i]
                cnt += 1
        if cnt == active or cnt == 0:  # (0 only by rounding on degenerate input)
            break
        active = cnt
        theta = (s - 1.0) / cnt
    for i in range(m):
        w = v[i] - theta
        v[i] = w if w > 0 else 0.0


@njit(cache=True, nogil=True)
def _stratified_stat(t, kx, ky, n, pearson, r, c):  # pragma: no cover - compiled
    """Stratified G (or Pearson χ²) at sample size n of a table t over (k_x, k_y, strata) in C order."""
    K = t.shape[0] // (kx * ky)
    stat = 0.0
    for s in range(K):
        tot = 0.0
        for x in range(kx):
            r[x] = 0.0
        for y in range(ky):
            c[y] = 0.0
        for x in range(kx):
            for y in range(ky):
                o = t[(x * ky + y) * K + s]
                r[x] += o
                c[y] += o
                tot += o
        if tot <= 0:
            continue
        for x in range(kx):
            for y in range(ky):
                o = n * t[(x * ky + y) * K + s]
                e = n * r[x] * c[y] / tot
                if pearson:
                    if e > 0:
                        stat += (o - e) * (o - e) / e
                elif o > 0:
                    stat += 2.0 * o * np.log(o / e)
    return stat if stat > 0 else 0.0


@njit(cache=True, nogil=True)
def _channel_axis(src, dst, inv_a, k, pre, run):  # pragma: no cover - compiled
    """dst[p, y, :] = Σ_x inv_a[x, y]·src[p, x, :] for src, dst viewed as (pre, k, run) (x summed in order)."""
    for p in range(pre):
        for y in range(k):
            d0 = (p * k + y) * run
            for e in range(run):
                dst[d0 + e] = 0.0
            for x in range(k):
                w = inv_a[x, y]
                s0 = (p * k + x) * run
                for e in range(run):
                    dst[d0 + e] += src[s0 + e] * w


@njit(cache=True, nogil=True)
def debias_boot_stats(Q, dims, inv, krr_pq, pearson, n, out):  # pragma: no cover - compiled
    """The de-biased bootstrap's statistic for every replicate row of Q (B, cells).

    Each row is a report-frequency table over axes ``dims`` = (k_x, k_y, k_s1, …) in C order.
    It is mapped back to an estimate of the true table — per axis a, t'[.., y, ..] =
    Σ_x t[.., x, ..] inv[a, x, y] (product channels), or (t − q′)/(p′ − q′) when
    ``krr_pq[0] > 0`` (k-RR Comb) — projected onto the simplex, and scored with the stratified
    G (or Pearson χ² when ``pearson``) at sample size n: cgdcore.local.debias, vectorised there.

    Replicates go through the channel inversion in blocks of W = 16 held cell-major, (cells, W),
    so that the innermost loop runs over contiguous memory whatever the axis (each sum is taken in
    the same order as for one replicate alone).
    """
    B, C = Q.shape
    m = dims.shape[0]
    W = 16
    T0 = np.zeros(C * W)  # T0[i * W + j] = Q[b0 + j, i]; T1 is the other buffer of the axis passes
    T1 = np.zeros(C * W)
    v = np.empty(C)
    r = np.empty(dims[0])
    c = np.empty(dims[1])
    for b0 in range(0, B, W):  # serial: numba's default thread pool is not safe under a threaded server
        nb = min(W, B - b0)
        for i in range(C):
            for j in range(nb):
                T0[i * W + j] = Q[b0 + j, i]
        odd = False  # the current table is in T1
        if krr_pq[0] > 0:
            for i in range(C * W):
                T0[i] = (T0[i] - krr_pq[1]) / (krr_pq[0] - krr_pq[1])
        else:
            post = C
            for a in range(m):
                k = dims[a]
                post //= k
                pre = C // (post * k)
                if odd:
                    _channel_axis(T1, T0, inv[a], k, pre, post * W)
                else:
                    _channel_axis(T0, T1, inv[a], k, pre, post * W)
                odd = not odd
        for j in range(nb):
            for i in range(C):
                v[i] = T1[i * W + j] if odd else T0[i * W + j]
            _project_simplex_inplace(v)
            out[b0 + j] = _stratified_stat(v, dims[0], dims[1], n, pearson, r, c)


@njit(cache=True, nogil=True)
def poisson_columns(lam, cols, u, out):  # pragma: no cover - compiled
    """out[b, cols[c]] ~ Poisson(lam[c]) for every b, from the uniforms u[c, b], by inversion.

    Exact inversion of the CDF (Devroye 1986, §III.2 and §X.3): per cell, F(j) = Σ_{i≤j} e^{−λ}λ^i/i! is
    tabulated once up to L = λ + 10√λ + 10 terms (for λ ≤ 100 the mass beyond is below 1e-20),
    with a guide table g ↦ min{j : F(j) > g/L}; a draw is the first j with u < F(j), found from
    the guide entry of ⌊uL⌋ in one or two steps, and continued term by term past the table in
    the rare case u ≥ F(L − 1). All B replicates of a cell share its table. For λ up to a few
    hundred (e^{−λ} must not underflow).
    """
    B = u.shape[1]
    size = 1
    for c in range(lam.shape[0]):
        size = max(size, int(lam[c] + 10.0 * np.sqrt(lam[c])) + 11)
    cdf = np.empty(size)
    guide = np.empty(size, np.int64)
    for c in range(lam.shape[0]):
        lc = lam[c]
        length = int(lc + 10.0 * np.sqrt(lc)) + 11
        p = np.exp(-lc)
        acc = p
        cdf[0] = acc
        for j in range(1, length):
            p *= lc / j
            acc += p
            cdf[j] = acc
        j = 0
        for g in range(length):
            while j < length - 1 and cdf[j] <= g / length:
                j += 1
            guide[g] = j
        col = cols[c]
        for b in range(B):
            ub = u[c, b]
            if ub < cdf[length - 1]:
                j = guide[int(ub * length)]
                while cdf[j] <= ub:
                    j += 1
                out[b, col] = j
            else:  # beyond the table: continue the series
                j, pj, a = length - 1, p, acc
                while a <= ub and pj > 0.0:
                    j += 1
                    pj *= lc / j
                    a += pj
                out[b, col] = j


# ---------------------------------------------------------------------- contingency tables
