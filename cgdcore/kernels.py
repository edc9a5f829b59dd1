"""Compiled contingency tables and their statistics (one pass over the int8 columns per table; χ²/G and
Kendall's sums from a table), imported only when the work pays for loading numba
(:mod:`cgdcore.citests.contingency`)."""
from __future__ import annotations

import numpy as np

from cgdcore.jit import njit


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
def _strata_columns(cols, ca, svars, sradix):  # pragma: no cover - compiled
    """The conditioning columns c0..c3 (``ca`` standing in for those S does not have) and the radices k1..k3 of
    the mixed-radix stratum number (1 where S is shorter)."""
    ns = svars.shape[0]
    c0 = cols[svars[0]] if ns > 0 else ca
    c1 = cols[svars[1]] if ns > 1 else ca
    c2 = cols[svars[2]] if ns > 2 else ca
    c3 = cols[svars[3]] if ns > 3 else ca
    k1 = sradix[1] if ns > 1 else 1
    k2 = sradix[2] if ns > 2 else 1
    k3 = sradix[3] if ns > 3 else 1
    return c0, c1, c2, c3, k1, k2, k3


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
    c0, c1, c2, c3, k1, k2, k3 = _strata_columns(cols, ca, svars, sradix)
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
    c0, c1, c2, c3, k1, k2, k3 = _strata_columns(cols, ca, svars, sradix)
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
