"""Compiled inner loops (numba), imported only when needed so numba loads lazily.

* :func:`reachable_kernel` — reachable-nodes search for d-separation (Koller & Friedman
  2009, Alg. 3.1), used by the oracle policy.
* :func:`greedy_flip_steps` — EM-PC's greedy "records to remove to flip a G-test" search.
* :func:`krr_cells`, :func:`geometric_cells`, :func:`geometric_rows` — local-DP privatisation of
  a whole (n, d) code matrix in one pass (k-RR; bounded geometric per column or per row);
  :func:`class_counts` — Geo Comb's per-row multiset of border-distance classes.
* :func:`debias_boot_stats`, :func:`poisson_columns` — the de-biased G-test's bootstrap: report
  tables drawn by Poisson inversion, then inverted, projected and scored per replicate.
"""
from __future__ import annotations

import sys

import numpy as np
from numba import njit


class _NoScipyLinalg:
    """Meta-path finder that refuses ``scipy.linalg`` (held in ``sys.meta_path`` only around :func:`_skip_blas_probe`)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "scipy.linalg" or name.startswith("scipy.linalg."):
            raise ImportError(f"{name} is not imported while cgdcore loads its kernels")
        return None


def _skip_blas_probe() -> None:
    """Import numba's numpy implementations without their BLAS probe.

    ``numba.np.arraymath`` checks at import whether BLAS is available by importing ``scipy.linalg.cython_blas``
    (numba 0.68: ≈ 0.14 s CPU, most of the first kernel load in a process that has not imported scipy.linalg).
    No kernel here calls BLAS, so the probe is answered "no" when scipy.linalg is not loaded yet: numba then computes
    ``np.correlate``/``np.convolve`` inner products with its own loop, and ``np.dot``/``np.linalg`` in later compiled
    code still import scipy when they are compiled (``numba.np.linalg.ensure_blas``)."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    sys.meta_path.insert(0, _NoScipyLinalg)
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        sys.meta_path.remove(_NoScipyLinalg)


_skip_blas_probe()


@njit(cache=True, nogil=True)
def reachable_kernel(x, S, pptr, pidx, cptr, cidx):  # pragma: no cover - compiled
    """uint8 indicator of the nodes d-connected to ``x`` given ``S``.

    The DAG is given as CSR parent lists (``pptr``, ``pidx``) and child lists
    (``cptr``, ``cidx``). A trail may pass a non-collider v only if v ∉ S and a
    collider v only if v is S or an ancestor of S.
    """
    d = pptr.shape[0] - 1
    in_s = np.zeros(d, np.uint8)
    for s in S:
        in_s[s] = 1
    stack = np.empty(4 * pidx.shape[0] + d + 2, np.int64)
    # open colliders: ancestors of S, S included
    opened = np.zeros(d, np.uint8)
    top = 0
    for s in S:
        if not opened[s]:
            opened[s] = 1
            stack[top] = s
            top += 1
    while top:
        top -= 1
        v = stack[top]
        for k in range(pptr[v], pptr[v + 1]):
            p = pidx[k]
            if not opened[p]:
                opened[p] = 1
                stack[top] = p
                top += 1
    # the ball: entry 2v = v reached from a child (moving up), 2v+1 = from a parent (down)
    up = np.zeros(d, np.uint8)
    down = np.zeros(d, np.uint8)
    stack[0] = 2 * x
    top = 1
    while top:
        top -= 1
        e = stack[top]
        v = e >> 1
        if e & 1 == 0:
            if up[v]:
                continue
            up[v] = 1
            if in_s[v]:
                continue
            for k in range(pptr[v], pptr[v + 1]):
                if not up[pidx[k]]:
                    stack[top] = 2 * pidx[k]
                    top += 1
            for k in range(cptr[v], cptr[v + 1]):
                if not down[cidx[k]]:
                    stack[top] = 2 * cidx[k] + 1
                    top += 1
        else:
            if down[v]:
                continue
            down[v] = 1
            if not in_s[v]:
                for k in range(cptr[v], cptr[v + 1]):
                    if not down[cidx[k]]:
                        stack[top] = 2 * cidx[k] + 1
                        top += 1
            if opened[v]:
                for k in range(pptr[v], pptr[v + 1]):
                    if not up[pidx[k]]:
                        stack[top] = 2 * pidx[k]
                        top += 1
    out = up | down
    for s in S:
        out[s] = 0
    out[x] = 0
    return out


@njit(cache=True, nogil=True)
def _xlogx(v):  # pragma: no cover - compiled
    return v * np.log(v) if v > 0 else 0.0


@njit(cache=True, nogil=True)
def _best_in_stratum(t, ni, nj, nk, k, positive):  # pragma: no cover - compiled
    """Best one-record removal in stratum k: (value = positive·ΔG², i, j)."""
    kx, ky = t.shape[1], t.shape[2]
    base_n = _xlogx(nk[k] - 1.0) - _xlogx(nk[k])
    best, bi, bj = -np.inf, -1, -1
    for i in range(kx):
        if ni[k, i] == 0:
            continue
        di = _xlogx(ni[k, i] - 1.0) - _xlogx(ni[k, i])
        for j in range(ky):
            c = t[k, i, j]
            if c == 0:
                continue
            dj = _xlogx(nj[k, j] - 1.0) - _xlogx(nj[k, j])
            dg = 2.0 * ((_xlogx(c - 1.0) - _xlogx(c)) - di - dj + base_n)
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
    reach the critical value, or after ``max_steps``.
    """
    t = tables.astype(np.float64).copy()
    K = t.shape[0]
    ni = t.sum(axis=2)
    nj = t.sum(axis=1)
    nk = ni.sum(axis=1)
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
    bestv = np.empty(K)
    besti = np.empty(K, np.int64)
    bestj = np.empty(K, np.int64)
    for k in range(K):
        bestv[k], besti[k], bestj[k] = _best_in_stratum(t, ni, nj, nk, k, positive)
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
        g += positive * v
        bestv[k], besti[k], bestj[k] = _best_in_stratum(t, ni, nj, nk, k, positive)


@njit(cache=True, nogil=True)
def subset_reach(x, members, order, pptr, pidx, cptr, cidx):  # pragma: no cover - compiled
    """All size-``order`` subsets S of ``members`` in lexicographic order, and for each the
    nodes d-connected to x given S: returns (combos (m, order), reach (m, d) uint8)."""
    k = members.shape[0]
    d = pptr.shape[0] - 1
    # number of combinations
    m = 1
    for i in range(order):
        m = m * (k - i) // (i + 1)
    combos = np.empty((m, order), np.int64)
    reach = np.empty((m, d), np.uint8)
    idx = np.arange(order)
    for r in range(m):
        S = np.empty(order, np.int64)
        for i in range(order):
            S[i] = members[idx[i]]
        combos[r] = S
        reach[r] = reachable_kernel(x, S, pptr, pidx, cptr, cidx)
        # next combination (lexicographic)
        i = order - 1
        while i >= 0 and idx[i] == k - order + i:
            i -= 1
        if i < 0:
            break
        idx[i] += 1
        for j in range(i + 1, order):
            idx[j] = idx[j - 1] + 1
    return combos, reach


@njit(cache=True, nogil=True)
def first_separating(combos, reach, y, seen, has_seen):  # pragma: no cover - compiled
    """Index of the first subset (in order) that excludes y, was not already asked from y's
    side (S ⊆ ``seen``, a node mask, when ``has_seen``) and d-separates x and y; -1 if none.
    Also returns how many subsets were asked."""
    asked = 0
    for r in range(combos.shape[0]):
        skip = False
        inside = True
        for i in range(combos.shape[1]):
            v = combos[r, i]
            if v == y:
                skip = True
                break
            if seen[v] == 0:
                inside = False
        if skip:
            continue
        if inside and has_seen:
            continue
        asked += 1
        if reach[r, y] == 0:
            return r, asked
    return -1, asked




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
@njit(cache=True, nogil=True)
def _compact_strata(counts, K, kab):  # pragma: no cover - compiled
    """Move the non-empty strata of ``counts`` (K blocks of kab cells) to the front, in order; return how many."""
    kept = 0
    for s in range(K):
        base = s * kab
        tot = 0
        for c in range(kab):
            tot += counts[base + c]
        if tot > 0:
            if kept != s:
                dst = kept * kab
                for c in range(kab):
                    counts[dst + c] = counts[base + c]
            kept += 1
    return kept


#: most conditioning variables :func:`table_direct` reads itself (more go through a cached stratum code)
TABLE_DIRECT_MAX_S = 4


#: Separate count arrays ("lanes") a pass cycles through, row r adding to lane r mod 4, when the table has at most
#: rows / _LANE_ROWS_PER_CELL cells: consecutive rows that fall in the same cell then update different memory, so the
#: increments do not wait on each other (a histogram's store-to-load dependency); the lanes are summed at the end.
#: Alarm at n = 100,000, order-1 tables: 99 → 50 µs per table. Integer sums, so the table is the same.
_LANES = 4
_LANE_ROWS_PER_CELL = 16


@njit(cache=True, nogil=True)
def _lanes_for(cells, rows):  # pragma: no cover - compiled
    return _LANES if cells * _LANE_ROWS_PER_CELL <= rows else 1


@njit(cache=True, nogil=True)
def _fold_lanes(counts, cells, lanes):  # pragma: no cover - compiled
    for lane in range(1, lanes):
        base = lane * cells
        for c in range(cells):
            counts[c] += counts[base + c]


@njit(cache=True, nogil=True)
def _count_direct(counts, ca, cb, c0, c1, c2, c3, k1, k2, k3, ka, kb, ns, idx, use_idx, lane_cells):  # pragma: no cover
    """counts[lane(r)·lane_cells + cell(row)] += 1 over the rows (lane(r) = r mod 4; ``lane_cells`` = 0 for one
    lane); one loop per (ns, use_idx) so that every column is a 1-D array read with unsigned arithmetic (no per-row
    loop over S, no negative-index wrap checks)."""
    m = idx.shape[0] if use_idx else ca.shape[0]
    ka = np.uint64(ka)
    kb = np.uint64(kb)
    k1 = np.uint64(k1)
    k2 = np.uint64(k2)
    k3 = np.uint64(k3)
    lc = np.uint64(lane_cells)
    three = np.uint64(3)
    if use_idx:
        if ns == 0:
            for r in range(m):
                i = idx[r]
                counts[(np.uint64(r) & three) * lc + np.uint64(ca[i]) * kb + np.uint64(cb[i])] += 1
        elif ns == 1:
            for r in range(m):
                i = idx[r]
                counts[(np.uint64(r) & three) * lc + (np.uint64(c0[i]) * ka + np.uint64(ca[i])) * kb
                       + np.uint64(cb[i])] += 1
        elif ns == 2:
            for r in range(m):
                i = idx[r]
                s = np.uint64(c0[i]) * k1 + np.uint64(c1[i])
                counts[(np.uint64(r) & three) * lc + (s * ka + np.uint64(ca[i])) * kb + np.uint64(cb[i])] += 1
        elif ns == 3:
            for r in range(m):
                i = idx[r]
                s = (np.uint64(c0[i]) * k1 + np.uint64(c1[i])) * k2 + np.uint64(c2[i])
                counts[(np.uint64(r) & three) * lc + (s * ka + np.uint64(ca[i])) * kb + np.uint64(cb[i])] += 1
        else:
            for r in range(m):
                i = idx[r]
                s = ((np.uint64(c0[i]) * k1 + np.uint64(c1[i])) * k2 + np.uint64(c2[i])) * k3 + np.uint64(c3[i])
                counts[(np.uint64(r) & three) * lc + (s * ka + np.uint64(ca[i])) * kb + np.uint64(cb[i])] += 1
    else:
        if ns == 0:
            for r in range(m):
                counts[(np.uint64(r) & three) * lc + np.uint64(ca[r]) * kb + np.uint64(cb[r])] += 1
        elif ns == 1:
            for r in range(m):
                counts[(np.uint64(r) & three) * lc + (np.uint64(c0[r]) * ka + np.uint64(ca[r])) * kb
                       + np.uint64(cb[r])] += 1
        elif ns == 2:
            for r in range(m):
                s = np.uint64(c0[r]) * k1 + np.uint64(c1[r])
                counts[(np.uint64(r) & three) * lc + (s * ka + np.uint64(ca[r])) * kb + np.uint64(cb[r])] += 1
        elif ns == 3:
            for r in range(m):
                s = (np.uint64(c0[r]) * k1 + np.uint64(c1[r])) * k2 + np.uint64(c2[r])
                counts[(np.uint64(r) & three) * lc + (s * ka + np.uint64(ca[r])) * kb + np.uint64(cb[r])] += 1
        else:
            for r in range(m):
                s = ((np.uint64(c0[r]) * k1 + np.uint64(c1[r])) * k2 + np.uint64(c2[r])) * k3 + np.uint64(c3[r])
                counts[(np.uint64(r) & three) * lc + (s * ka + np.uint64(ca[r])) * kb + np.uint64(cb[r])] += 1


@njit(cache=True, nogil=True)
def table_direct(cols, a, b, svars, sradix, ka, kb, n_strata, idx, use_idx):  # pragma: no cover - compiled
    """Stratified contingency counts of columns a, b given the columns ``svars`` (at most
    ``TABLE_DIRECT_MAX_S``) in one pass over the rows.

    ``cols`` is the (d, n) code matrix (any unsigned integer dtype). Each row's cell is the mixed-radix
    number ((s_1·k_2 + s_2)·… )·k_a·k_b + x·k_b + y, counted in a dense array of ``n_strata``·k_a·k_b cells
    (``n_strata`` = Π sradix; in :data:`_LANES` interleaved copies when the table is small for the rows, summed at
    the end); the rows are 0..n−1, or ``idx`` (row indices, repeats allowed) when
    ``use_idx``. Empty strata are then dropped, keeping the lexicographic order of the S-tuples — the table
    of causal-learn's one-bincount trick (anchors_cd §3.1) with the strata compressed as in SuffStats.
    Returns (flat int64 counts, number of non-empty strata); the first K·k_a·k_b entries are the table.
    """
    kab = ka * kb
    cells = n_strata * kab
    lanes = _lanes_for(cells, idx.shape[0] if use_idx else cols.shape[1])
    counts = np.zeros(lanes * cells, np.int64)
    ns = svars.shape[0]
    ca = cols[a]
    c0 = cols[svars[0]] if ns > 0 else ca
    c1 = cols[svars[1]] if ns > 1 else ca
    c2 = cols[svars[2]] if ns > 2 else ca
    c3 = cols[svars[3]] if ns > 3 else ca
    k1 = sradix[1] if ns > 1 else 1
    k2 = sradix[2] if ns > 2 else 1
    k3 = sradix[3] if ns > 3 else 1
    _count_direct(counts, ca, cols[b], c0, c1, c2, c3, k1, k2, k3, ka, kb, ns, idx, use_idx,
                  cells if lanes > 1 else 0)
    _fold_lanes(counts, cells, lanes)
    K = _compact_strata(counts, n_strata, kab) if n_strata > 1 else 1
    return counts, K


@njit(cache=True, nogil=True)
def table_coded(cols, a, b, scode, n_strata, ka, kb, idx, use_idx):  # pragma: no cover - compiled
    """As :func:`table_direct`, with the stratum of every row read from a ready code (values 0..n_strata−1)."""
    kab = ka * kb
    cells = n_strata * kab
    lanes = _lanes_for(cells, idx.shape[0] if use_idx else cols.shape[1])
    counts = np.zeros(lanes * cells, np.int64)
    lc = np.uint64(cells if lanes > 1 else 0)
    three = np.uint64(3)
    ca = cols[a]
    cb = cols[b]
    uka = np.uint64(ka)
    ukb = np.uint64(kb)
    if use_idx:
        for r in range(idx.shape[0]):
            i = idx[r]
            counts[(np.uint64(r) & three) * lc + (np.uint64(scode[i]) * uka + np.uint64(ca[i])) * ukb
                   + np.uint64(cb[i])] += 1
    else:
        for r in range(ca.shape[0]):
            counts[(np.uint64(r) & three) * lc + (np.uint64(scode[r]) * uka + np.uint64(ca[r])) * ukb
                   + np.uint64(cb[r])] += 1
    _fold_lanes(counts, cells, lanes)
    K = _compact_strata(counts, n_strata, kab) if n_strata > 1 else 1
    return counts, K


@njit(cache=True, nogil=True)
def _count_weighted(counts, ca, cb, c0, c1, c2, c3, k1, k2, k3, ka, kb, ns, w, lane_cells):  # pragma: no cover
    """As :func:`_count_direct` over every row, adding the row's weight w[r] instead of 1."""
    m = ca.shape[0]
    ka = np.uint64(ka)
    kb = np.uint64(kb)
    k1 = np.uint64(k1)
    k2 = np.uint64(k2)
    k3 = np.uint64(k3)
    lc = np.uint64(lane_cells)
    three = np.uint64(3)
    if ns == 0:
        for r in range(m):
            counts[(np.uint64(r) & three) * lc + np.uint64(ca[r]) * kb + np.uint64(cb[r])] += w[r]
    elif ns == 1:
        for r in range(m):
            counts[(np.uint64(r) & three) * lc + (np.uint64(c0[r]) * ka + np.uint64(ca[r])) * kb
                   + np.uint64(cb[r])] += w[r]
    elif ns == 2:
        for r in range(m):
            s = np.uint64(c0[r]) * k1 + np.uint64(c1[r])
            counts[(np.uint64(r) & three) * lc + (s * ka + np.uint64(ca[r])) * kb + np.uint64(cb[r])] += w[r]
    elif ns == 3:
        for r in range(m):
            s = (np.uint64(c0[r]) * k1 + np.uint64(c1[r])) * k2 + np.uint64(c2[r])
            counts[(np.uint64(r) & three) * lc + (s * ka + np.uint64(ca[r])) * kb + np.uint64(cb[r])] += w[r]
    else:
        for r in range(m):
            s = ((np.uint64(c0[r]) * k1 + np.uint64(c1[r])) * k2 + np.uint64(c2[r])) * k3 + np.uint64(c3[r])
            counts[(np.uint64(r) & three) * lc + (s * ka + np.uint64(ca[r])) * kb + np.uint64(cb[r])] += w[r]


@njit(cache=True, nogil=True)
def table_direct_weighted(cols, a, b, svars, sradix, ka, kb, n_strata, w):  # pragma: no cover - compiled
    """:func:`table_direct` over rows that stand for w[r] ≥ 1 rows each (the data's distinct rows with their
    multiplicities): the same table as over the rows they stand for."""
    kab = ka * kb
    cells = n_strata * kab
    lanes = _lanes_for(cells, cols.shape[1])
    counts = np.zeros(lanes * cells, np.int64)
    ns = svars.shape[0]
    ca = cols[a]
    c0 = cols[svars[0]] if ns > 0 else ca
    c1 = cols[svars[1]] if ns > 1 else ca
    c2 = cols[svars[2]] if ns > 2 else ca
    c3 = cols[svars[3]] if ns > 3 else ca
    k1 = sradix[1] if ns > 1 else 1
    k2 = sradix[2] if ns > 2 else 1
    k3 = sradix[3] if ns > 3 else 1
    _count_weighted(counts, ca, cols[b], c0, c1, c2, c3, k1, k2, k3, ka, kb, ns, w, cells if lanes > 1 else 0)
    _fold_lanes(counts, cells, lanes)
    K = _compact_strata(counts, n_strata, kab) if n_strata > 1 else 1
    return counts, K


@njit(cache=True, nogil=True)
def table_coded_weighted(cols, a, b, scode, n_strata, ka, kb, w):  # pragma: no cover - compiled
    """:func:`table_coded` over weighted rows (see :func:`table_direct_weighted`)."""
    kab = ka * kb
    cells = n_strata * kab
    lanes = _lanes_for(cells, cols.shape[1])
    counts = np.zeros(lanes * cells, np.int64)
    lc = np.uint64(cells if lanes > 1 else 0)
    three = np.uint64(3)
    ca = cols[a]
    cb = cols[b]
    uka = np.uint64(ka)
    ukb = np.uint64(kb)
    for r in range(ca.shape[0]):
        counts[(np.uint64(r) & three) * lc + (np.uint64(scode[r]) * uka + np.uint64(ca[r])) * ukb
               + np.uint64(cb[r])] += w[r]
    _fold_lanes(counts, cells, lanes)
    K = _compact_strata(counts, n_strata, kab) if n_strata > 1 else 1
    return counts, K


@njit(cache=True, nogil=True)
def chisq_stat(t, pearson):  # pragma: no cover - compiled
    """(statistic, dof) of the stratified Pearson χ² (``pearson``) or G test of a (K, k_x, k_y) count table.

    Per stratum with margins r_i, c_j and size n_k: E_ij = r_i·c_j / n_k; X² adds (O − E)²/E over E > 0,
    G adds 2·O·ln(O/E) over O > 0; dof adds (#non-empty rows − 1)(#non-empty columns − 1) (causal-learn's
    adjustment). The same formulas, in the same floating-point expressions, as the numpy reference
    :func:`cgdcore.citests.chisq.reference_chisq_from_table`; only the order of the final sums differs.
    """
    K, kx, ky = t.shape
    r = np.empty(kx)
    c = np.empty(ky)
    stat = 0.0
    dof = 0
    for s in range(K):
        for i in range(kx):
            r[i] = 0.0
        for j in range(ky):
            c[j] = 0.0
        for i in range(kx):
            for j in range(ky):
                o = float(t[s, i, j])
                r[i] += o
                c[j] += o
        nk = 0.0
        nr = 0
        for i in range(kx):
            nk += r[i]
            if r[i] != 0.0:
                nr += 1
        nc = 0
        for j in range(ky):
            if c[j] != 0.0:
                nc += 1
        if nr > 1 and nc > 1:
            dof += (nr - 1) * (nc - 1)
        if nk <= 0.0:
            continue
        for i in range(kx):
            for j in range(ky):
                o = float(t[s, i, j])
                e = r[i] * c[j] / nk
                if pearson:
                    if e > 0.0:
                        stat += (o - e) ** 2 / e
                elif o > 0.0:
                    stat += o * np.log(o / e)
    if not pearson:
        stat = 2.0 * stat
    return max(stat, 0.0), dof


@njit(cache=True, nogil=True)
def kendall_sums(t):  # pragma: no cover - compiled
    """Per-stratum Kendall sums of a (K, k_x, k_y) count table in one pass.

    Returns (Σ_k a_k over all strata, Σ_k a_k over usable strata, Σ_k w_k over usable strata, #usable) with
    a_k = 9(C_k − D_k)/(2n_k + 5) and w_k = 9n_k(n_k − 1)/(2(2n_k + 5)); usable: n_k > 2 and at least two
    non-empty rows and columns (seed_privpc.md §5 steps 3 and 5). C_k − D_k is exact in int64, from
    column sums of the rows below each row (suffix sums to the right give concordant, prefix sums to the
    left discordant pairs) — the same integers as :func:`cgdcore.citests.kendall.concordance_minus_discordance`.
    """
    K, kx, ky = t.shape
    below = np.zeros(ky, np.int64)
    colsum = np.zeros(ky, np.int64)
    num_all = 0.0
    num_use = 0.0
    wsum = 0.0
    used = 0
    for s in range(K):
        for j in range(ky):
            below[j] = 0
            colsum[j] = 0
        cmd = 0
        nk = 0
        rows = 0
        for i in range(kx - 1, -1, -1):
            # concordant: Σ_j T[i,j]·Σ_{j'>j} below[j'];  discordant: Σ_j T[i,j]·Σ_{j'<j} below[j']
            right = 0
            for j in range(ky - 1, -1, -1):
                cmd += np.int64(t[s, i, j]) * right
                right += below[j]
            left = 0
            rsum = 0
            for j in range(ky):
                v = np.int64(t[s, i, j])
                cmd -= v * left
                left += below[j]
                rsum += v
            for j in range(ky):
                below[j] += np.int64(t[s, i, j])
            nk += rsum
            if rsum != 0:
                rows += 1
        cols = 0
        for j in range(ky):
            if below[j] != 0:
                cols += 1
        fn = float(nk)
        a = 9.0 * float(cmd) / (2.0 * fn + 5.0)
        num_all += a
        if nk > 2 and rows > 1 and cols > 1:
            num_use += a
            wsum += 9.0 * fn * (fn - 1.0) / (2.0 * (2.0 * fn + 5.0))
            used += 1
    return num_all, num_use, wsum, used
