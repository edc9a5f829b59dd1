"""Empirical privacy suite: the code the app runs, checked against its own privacy claims.

Every check here uses the real objects (``cgdcore.privacy.mechanisms``, ``cgdcore.privacy.discrete``,
``cgdcore.citests.kendall`` and ``cgdcore.discover.discover``), never a re-implementation of them, and
every check can fail: where it is cheap, a test also shows that a deliberately wrong variant (an understated
sensitivity, a 5 % scale error, the paper's old constant, a forgotten factor 2) *is* caught by the same check,
and the Monte-Carlo tests state the smallest excess over ε they detect. Seeds are fixed throughout.

Exact where possible (exhaustive enumeration of small datasets, exact event probabilities of the discrete
mechanisms); Monte Carlo otherwise, with a one-sided bound of ``Z_SE`` = 4 standard errors on the
estimated log-ratio of output probabilities (delta method; ``_log_ratio_lcb``).
"""
from __future__ import annotations

import collections
import functools
import itertools
import math

import numpy as np
import pytest

from cgdcore.citests import make_ci_test, suffstats_for
from cgdcore.citests.kendall import (
    concordance_minus_discordance,
    kendall_public_z_from_table,
    kendall_z_from_table,
    normal_p_value,
)
from cgdcore.citests.sensitivity import kendall_public_z_sensitivity, kendall_z_sensitivity, p_sensitivity
from cgdcore.data.dataset import Dataset
from cgdcore.discover import discover
from cgdcore.privacy.discrete import Lattice, discrete_laplace, discrete_laplace_pmf
from cgdcore.privacy.mechanisms import AboveThreshold, ExponentialMechanism, LaplaceMechanism, SieveAndExamine
from conftest import Lazy

stats = Lazy("scipy.stats")

#: Standard errors in every Monte-Carlo confidence bound (one-sided level ≈ 3e-5 per event).
Z_SE = 4.0
#: p-value sensitivity of the public-normaliser Kendall statistic at n = 1,500 rows (≈ 0.0919): the Δ the
#: private PC algorithms feed their mechanisms on the data sizes the app allows.
P_SENS_1500 = p_sensitivity(kendall_public_z_sensitivity(1500))


# ============================================================================ confidence-bound helpers
def _log_ratio(a: int, na: int, b: int, nb: int, delta: float = 0.0) -> tuple[float, float]:
    """(estimate, standard error) of log(P_a / P_b) from a hits out of na and b out of nb (independent
    binomials, delta method: Var log p̂ ≈ (1 − p)/(n p)). With ``delta`` > 0 the larger probability is
    reduced by δ first, as (ε, δ)-DP only bounds P ≤ e^ε P' + δ."""
    pa, pb = a / na, b / nb
    if delta:
        if pa >= pb:
            pa = max(pa - delta, 1e-300)
        else:
            pb = max(pb - delta, 1e-300)
    est = math.log(pa / pb)
    se = math.sqrt((1.0 - a / na) / a + (1.0 - b / nb) / b)
    return est, se


def _log_ratio_lcb(a: int, na: int, b: int, nb: int, z: float = Z_SE, delta: float = 0.0) -> float:
    """Lower confidence bound of |log(P_a / P_b)|: what must stay ≤ ε for an ε-DP mechanism."""
    est, se = _log_ratio(a, na, b, nb, delta)
    return abs(est) - z * se


def _check_counts(c1: dict, n1: int, c2: dict, n2: int, eps: float, min_count: int, delta: float = 0.0):
    """For every output event seen ≥ ``min_count`` times in both runs: LCB |log ratio| ≤ ε.
    Returns [(event, estimate, se, lcb)] of the events checked (the caller asserts there are some)."""
    rows = []
    for k in sorted(set(c1) | set(c2), key=repr):
        a, b = c1.get(k, 0), c2.get(k, 0)
        if min(a, b) < min_count:
            continue
        est, se = _log_ratio(a, n1, b, n2, delta)
        rows.append((k, est, se, _log_ratio_lcb(a, n1, b, n2, Z_SE, delta)))
    bad = [r for r in rows if r[3] > eps]
    assert not bad, f"privacy loss above ε = {eps} beyond {Z_SE} s.e.: {bad}"
    return rows


def _chisq_pvalue(observed: np.ndarray, expected: np.ndarray) -> float:
    """Pearson χ² goodness-of-fit p-value (expected counts already pooled to ≥ 5 per bin)."""
    observed = np.asarray(observed, dtype=float)
    expected = np.asarray(expected, dtype=float) * observed.sum() / np.sum(expected)
    stat = float(np.sum((observed - expected) ** 2 / expected))
    return float(stats.chi2.sf(stat, observed.size - 1))


def _quantile_bins(mass: np.ndarray, nbins: int) -> np.ndarray:
    """Group consecutive support points into about ``nbins`` bins of nearly equal mass (an atom heavier than
    1/nbins is a bin of its own; the outermost bins collect the tails): returns the bin id of each point."""
    left = np.cumsum(mass) - mass
    ids = np.minimum((left / mass.sum() * nbins).astype(np.int64), nbins - 1)
    return np.unique(ids, return_inverse=True)[1]


# ============================================================================ 1. Kendall sensitivity
#: (n rows, K strata, k_x, k_y) enumerated exhaustively.
SHAPES = [(4, 2, 2, 2), (5, 2, 2, 2), (5, 2, 3, 3), (6, 2, 2, 2), (6, 2, 3, 2), (6, 3, 2, 2), (7, 2, 2, 2)]


def _count_vectors(n: int, cells: int) -> np.ndarray:
    """Every dataset of n rows over ``cells`` cells up to row order (a multiset), as a count vector."""
    combos = np.array(list(itertools.combinations_with_replacement(range(cells), n)), dtype=np.int64)
    combos = combos.reshape(-1, n)
    out = np.zeros((combos.shape[0], cells), dtype=np.int64)
    rows = np.arange(combos.shape[0])
    for j in range(n):
        np.add.at(out, (rows, combos[:, j]), 1)
    return out


@functools.lru_cache(maxsize=None)
def _exhaustive(n: int, K: int, kx: int, ky: int):
    """All datasets of n rows over (stratum, x, y) cells and their replace-one neighbourhoods.

    Two datasets are replace-one neighbours iff they share n − 1 rows U: D = U + e_a, D' = U + e_b (a ≠ b,
    including a row moving to another stratum). So the largest |f(D) − f(D')| over all neighbour pairs is
    the largest spread max_c f(U + e_c) − min_c f(U + e_c) over the (n−1)-row datasets U.

    Returns (tables (N, K, kx, ky), nb (M, cells) = index into tables of U + e_c for every U and cell c,
    public z̃ (N,), old Priv-PC z (N,), old strata used (N,)). The statistics are the library's own
    functions, called on every table.
    """
    cells = K * kx * ky
    T = _count_vectors(n, cells)
    U = _count_vectors(n - 1, cells)
    w = (n + 1) ** np.arange(cells, dtype=np.int64)  # base-(n+1) key: injective for counts ≤ n
    keys = T @ w
    order = np.argsort(keys)
    want = (U @ w)[:, None] + w[None, :]
    pos = np.searchsorted(keys[order], want)
    nb = order[pos]
    assert np.array_equal(keys[nb], want)  # every U + e_c is one of the enumerated datasets
    tables = T.reshape(-1, K, kx, ky)
    z_pub = np.array([kendall_public_z_from_table(t, n) for t in tables])
    old = [kendall_z_from_table(t) for t in tables]
    z_old = np.array([z for z, _ in old])
    used_old = np.array([u for _, u in old])
    return tables, nb, z_pub, z_old, used_old


def _spread(values: np.ndarray, nb: np.ndarray) -> tuple[float, int, int, int]:
    """(max |f(D) − f(D')| over neighbours, and one maximising pair as (U row, cell of D, cell of D'))."""
    V = values[nb]
    s = V.max(axis=1) - V.min(axis=1)
    u = int(np.argmax(s))
    return float(s[u]), u, int(np.argmax(V[u])), int(np.argmin(V[u]))


def _proof_bound(n: int) -> float:
    """The finite-n bound the sensitivity proof (cgdcore.citests.sensitivity) actually establishes:
    max(same-stratum 18(n−1)/(2n+5), strata move f(m1) + f(m2) with m1 + 1 + m2 ≤ n) / sqrt(9n/4),
    f(m) = 9m(3m+4)/((2m+5)(2m+7)). It is < 9/√n and is reached by the same-stratum case on small tables."""
    same = 18.0 * (n - 1) / (2 * n + 5)

    def f(m):
        return 9.0 * m * (3 * m + 4) / ((2 * m + 5) * (2 * m + 7))

    cross = max(f(m1) + f(m2) for m1 in range(n) for m2 in range(n - m1))
    return max(same, cross) / math.sqrt(2.25 * n)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "n{}-K{}-{}x{}".format(*s))
def test_kendall_public_statistic_sensitivity_exhaustive(shape):
    """Every dataset of n rows over K strata × k_x × k_y cells, every one-row replacement (any cell to any
    other, strata included): |Δz̃|, |Δ|z̃|| ≤ 9/√n and the one-sided p-value Φ(−|z̃|) moves ≤ Φ(9/√n) − ½.

    Fails if the statistic (kendall_public_z_from_table) or its claimed sensitivity
    (kendall_public_z_sensitivity, p_sensitivity) is wrong. It also checks the proof's finite-n bound, which
    the search reaches *exactly* on the 3-level shapes (so a statistic even slightly more sensitive than
    proven would fail here).
    """
    n, K, kx, ky = shape
    tables, nb, z, _, _ = _exhaustive(*shape)
    dz = kendall_public_z_sensitivity(n)
    assert dz == pytest.approx(9.0 / math.sqrt(n), rel=1e-15)
    bound = _proof_bound(n)
    assert bound < dz
    p = np.array([normal_p_value(v, "one") for v in z])
    for name, vals, lim in (("z", z, bound), ("|z|", np.abs(z), bound), ("p", p, p_sensitivity(dz, "one"))):
        s, u, a, b = _spread(vals, nb)
        assert s <= lim + 1e-12, (name, shape, s * math.sqrt(n), lim * math.sqrt(n), tables[nb[u, a]],
                                  tables[nb[u, b]])
    s, *_ = _spread(z, nb)
    assert s > 0.5 / math.sqrt(n)  # the enumeration is not vacuous
    if max(kx, ky) >= 3:  # the same-stratum case of the proof is attained exactly: the search has power
        assert s == pytest.approx(18.0 * (n - 1) / (2 * n + 5) / math.sqrt(2.25 * n), rel=1e-12)


def _order_one_edge_datasets(n: int):
    """Every dataset of n rows over binary (w1, w2, x, y) as count tables (N, 2, 2, 2, 2), and nb: for every
    (n − 1)-row dataset U and cell c, the index of U + e_c (so neighbours share a row of nb)."""
    cells = 16
    T = _count_vectors(n, cells)
    U = _count_vectors(n - 1, cells)
    w = (n + 1) ** np.arange(cells, dtype=np.int64)
    keys = T @ w
    order = np.argsort(keys)
    nb = order[np.searchsorted(keys[order], (U @ w)[:, None] + w[None, :])]
    return T.reshape(-1, 2, 2, 2, 2), nb


@pytest.mark.parametrize("n", [4, 5])
def test_gauss_pc_edge_minimum_sensitivity_exhaustive(n):
    """Gauss-PC's release for an edge x–y at order 1 with candidate sets {w1} and {w2}: min(|z̃_{w1}|, |z̃_{w2}|)
    through the policy's own ``min_abs_z``. Every dataset of n rows over binary (x, y, w1, w2) and every one-row
    replacement: the release moves by at most the proof's bound < 9/√n (the same Δ as one test), and the
    search has power — the largest move is that of a single test's worst case."""
    from cgdcore.central.policies import min_abs_z

    C, nb = _order_one_edge_datasets(n)
    z1 = np.array([kendall_public_z_from_table(c.sum(axis=1), n) for c in C])  # strata w1
    z2 = np.array([kendall_public_z_from_table(c.sum(axis=0), n) for c in C])  # strata w2
    release = np.array([min_abs_z([a, b])[0].min() for a, b in zip(z1, z2)])
    s, *_ = _spread(release, nb)
    assert s <= _proof_bound(n) + 1e-12 < kendall_public_z_sensitivity(n)
    single, *_ = _spread(np.abs(z1), nb)
    assert s == pytest.approx(single, rel=1e-12)


G_SHAPES = [(5, 2, 2, 2), (6, 2, 2, 2), (4, 2, 3, 2), (4, 3, 2, 2), (5, 1, 3, 3), (4, 2, 3, 3)]


@pytest.mark.parametrize("shape", G_SHAPES, ids=lambda s: "n{}-K{}-{}x{}".format(*s))
def test_g2_statistic_sensitivity_exhaustive(shape):
    """Every dataset of n rows over K strata × k_x × k_y cells and every one-row replacement (rows moving
    between strata, strata emptying or appearing, constant columns included): the stratified G statistic, as
    the G-test computes it (``chisq_from_table``), moves by at most ``g2_sensitivity(n)`` = 4[n ln n − (n − 1)
    ln(n − 1)]. Power: the largest move found is at least 45 % of the bound (the proof's bound is not loose by
    more than about 2× here), so a claimed bound even slightly below the true worst case would fail."""
    from cgdcore.citests import chisq_from_table, g2_sensitivity

    n, K, kx, ky = shape
    tables, nb, *_ = _exhaustive(*shape)
    g = np.array([chisq_from_table(np.ascontiguousarray(t, dtype=np.int64), "log-likelihood")[0] for t in tables])
    s, u, a, b = _spread(g, nb)
    bound = g2_sensitivity(n)
    assert s <= bound + 1e-9, (shape, s, bound, tables[nb[u, a]], tables[nb[u, b]])
    assert s >= 0.45 * bound, (shape, s, bound)


@pytest.mark.parametrize("n", [4, 5])
def test_gauss_pc_g_edge_release_sensitivity_exhaustive(n):
    """Gauss-PC on the G scale, edge x–y at order 1 with candidate sets {w1}, {w2}: the release
    min_S (G_S − q_S), through the policy's own ``GScale.excess`` (q_S from the public dof). Every dataset of n
    rows over binary (x, y, w1, w2) and every one-row replacement: it moves by at most ΔG."""
    from cgdcore.central.scale import GScale
    from cgdcore.citests import CIResult, chisq_from_table, g2_sensitivity

    C, nb = _order_one_edge_datasets(n)
    scale = GScale(0.05, g2_sensitivity(n), (2, 2, 2, 2))  # variables x=0, y=1, w1=2, w2=3

    def g(t):
        return CIResult(chisq_from_table(np.ascontiguousarray(t, dtype=np.int64), "log-likelihood")[0], 1.0, 1.0)

    release = np.array([scale.excess(0, 1, [(2,), (3,)], [g(c.sum(axis=1)), g(c.sum(axis=0))]).min() for c in C])
    s, *_ = _spread(release, nb)
    assert s <= scale.sensitivity + 1e-9
    assert s >= 0.3 * scale.sensitivity


def test_g_margin_keeps_the_exact_tests_level():
    """The noise-calibrated margin c of the G scale: P(χ²_dof + N(0, sd²) > q + c) = α, checked by Monte Carlo
    (400,000 draws, fixed seed; the tolerance is 5 standard errors) for small and large noise and dof."""
    from cgdcore.central.scale import chi2_quantile, g_margin

    rng = np.random.default_rng(11)
    m = 400_000
    for dof, sd in ((1, 0.5), (4, 5.0), (12, 50.0), (36, 200.0)):
        c = g_margin(dof, 0.05, sd)
        q = chi2_quantile(dof, 0.05)
        hits = np.mean(rng.chisquare(dof, m) + rng.normal(0.0, sd, m) > q + c)
        assert abs(hits - 0.05) < 5 * math.sqrt(0.05 * 0.95 / m), (dof, sd, c, hits)
    assert g_margin(4, 0.05, 0.0) == 0.0
    assert g_margin(4, 0.05, 50.0) > g_margin(4, 0.05, 5.0) > 0.0


def test_old_priv_pc_statistic_violates_its_claimed_sensitivity():
    """Regression that would have caught the old bound: the same exhaustive search on Priv-PC's statistic
    (normalised by sqrt(Σ w_k) over *usable* strata, ``kendall_z_from_table``) finds a neighbour pair with
    |Δz| > 6/√n (the paper's/reference code's c1 = 6), here 7.0/√5 with five rows in 2 strata of 3 × 3:
    one replaced row switches a stratum between usable and unusable and moves the normaliser."""
    n, K, kx, ky = 5, 2, 3, 3
    tables, nb, _, z_old, used = _exhaustive(n, K, kx, ky)
    s, u, a, b = _spread(z_old, nb)
    assert s > kendall_z_sensitivity(n, 6.0)
    assert s * math.sqrt(n) == pytest.approx(7.0065, abs=1e-3)
    i, j = nb[u, a], nb[u, b]
    # the worst pair changes which strata are usable (the library's own rule, asked stratum by stratum)
    usable = [[kendall_z_from_table(t[k:k + 1])[1] for k in range(K)] for t in (tables[i], tables[j])]
    assert usable[0] != usable[1]
    # and the pair really are neighbours: they differ by one row
    assert int(np.abs(tables[i] - tables[j]).sum()) == 2 and tables[i].sum() == tables[j].sum() == n


def _public_z_batch(T4: np.ndarray, n: int) -> np.ndarray:
    """z̃ of a batch of tables (B, K, kx, ky) through the library's C − D (a fast path for the search below;
    checked equal to kendall_public_z_from_table on the base tables, their worst neighbours and samples)."""
    B, K, kx, ky = T4.shape
    cmd = concordance_minus_discordance(T4.reshape(B * K, kx, ky)).reshape(B, K).astype(float)
    nk = T4.sum(axis=(2, 3)).astype(float)
    return np.sum(9.0 * cmd / (2.0 * nk + 5.0), axis=1) / math.sqrt(2.25 * float(n))


def _all_neighbours(t: np.ndarray) -> np.ndarray:
    """Every replace-one neighbour of the table t (K, kx, ky): one row of an occupied cell moved to any
    other cell (of any stratum)."""
    flat = t.ravel()
    C = flat.size
    occ = np.flatnonzero(flat)
    a = np.repeat(occ, C)
    b = np.tile(np.arange(C), occ.size)
    keep = a != b
    a, b = a[keep], b[keep]
    out = np.repeat(flat[None, :], a.size, axis=0)
    idx = np.arange(a.size)
    out[idx, a] -= 1
    out[idx, b] += 1
    return out.reshape(-1, *t.shape)


def _adversarial_tables(rng):
    """Tables built to be hard: a large monotone stratum (rows along the diagonal) next to an anti-monotone
    one or a single crowded cell, so a row leaving the monotone stratum loses up to n_k − 1 concordances."""
    out = []
    for K, k, n, m in [(2, 5, 60, 40), (2, 5, 60, 59), (3, 5, 45, 30), (6, 5, 60, 50), (2, 3, 40, 30),
                       (2, 2, 60, 58), (4, 4, 50, 47), (2, 5, 30, 15)]:
        t = np.zeros((K, k, k), dtype=np.int64)
        diag = np.arange(m) * k // m
        np.add.at(t[0], (diag, diag), 1)
        rest = n - m
        if K >= 2 and rest:
            if rng.random() < 0.5:
                anti = np.arange(rest) * k // rest
                np.add.at(t[1], (anti, k - 1 - anti), 1)
            else:
                t[1, 0, k - 1] += rest
        out.append(t)
    # the proof's same-stratum worst case: n − 1 rows in the centre cell, one in a corner that moves to the
    # opposite corner of the same x (all n − 1 pairs flip from concordant to discordant)
    t = np.zeros((2, 3, 3), dtype=np.int64)
    t[0, 1, 1], t[0, 2, 2] = 59, 1
    out.append(t)
    return out


def test_kendall_public_statistic_sensitivity_random_and_adversarial():
    """Larger tables (n up to 60, up to 6 strata of up to 5 × 5): for each base table *every* one-row
    replacement is evaluated (the full neighbourhood, up to ~9,000 neighbours), on random tables and on
    adversarial ones (a large monotone stratum losing a row to another). Asserts |Δz̃| and |Δ|z̃|| ≤ the
    proof's bound (< 9/√n) and |Δp| ≤ Φ(9/√n) − ½. Fails if the statistic is more sensitive than proven."""
    rng = np.random.default_rng(20240607)
    bases = []
    for _ in range(60):
        K, kx, ky = int(rng.integers(1, 7)), int(rng.integers(2, 6)), int(rng.integers(2, 6))
        n = int(rng.integers(8, 61))
        conc = rng.choice([0.05, 0.3, 2.0])  # skewed to spread out
        bases.append(rng.multinomial(n, rng.dirichlet(np.full(K * kx * ky, conc))).reshape(K, kx, ky))
    bases += _adversarial_tables(rng)
    worst = 0.0
    for t in bases:
        n = int(t.sum())
        nbrs = _all_neighbours(t)
        z0 = kendall_public_z_from_table(t, n)
        z = _public_z_batch(nbrs, n)
        # the fast path is the library's statistic: on the base, the extreme neighbours and a sample
        assert _public_z_batch(t[None], n)[0] == pytest.approx(z0, rel=1e-12, abs=1e-12)
        for i in {int(np.argmax(z)), int(np.argmin(z)), *rng.integers(0, len(z), 5).tolist()}:
            assert z[i] == pytest.approx(kendall_public_z_from_table(nbrs[i], n), rel=1e-12, abs=1e-12)
        bound = _proof_bound(n)
        dz = np.abs(z - z0)
        dabs = np.abs(np.abs(z) - abs(z0))
        assert dz.max() <= bound + 1e-12, (t, nbrs[int(np.argmax(dz))], dz.max() * math.sqrt(n))
        assert dabs.max() <= bound + 1e-12
        # p = Φ(−|z̃|) is monotone in |z̃|: its largest change is at the neighbour with the largest or smallest |z̃|
        ext = (int(np.argmax(np.abs(z))), int(np.argmin(np.abs(z))))
        dp = np.array([abs(normal_p_value(z[i], "one") - normal_p_value(z0, "one")) for i in ext])
        assert dp.max() <= p_sensitivity(kendall_public_z_sensitivity(n), "one") + 1e-15
        worst = max(worst, dz.max() * math.sqrt(n))
    print(f"random/adversarial Kendall search: largest |Δz̃|·√n = {worst:.3f} (bound 9)")
    # the search reaches the proof's same-stratum bound 12(n − 1)/(2n + 5) at n = 60 (in units of 1/√n)
    assert worst == pytest.approx(12.0 * 59 / 125, rel=1e-9)


# ============================================================================ 2. discrete Laplace sampler
def _dlap_gof(draws: np.ndarray, s, t, nbins: int = 40) -> float:
    """χ² p-value of integer ``draws`` against discrete_laplace_pmf(·, s, t), tails pooled (support cut where
    the remaining mass is < 1e-13; draws beyond it fall into the outermost bins)."""
    a = s / t
    lim = int(math.ceil(math.log(1e13) / a)) + 1
    support = np.arange(-lim, lim + 1)
    mass = discrete_laplace_pmf(support, s, t)
    ids = _quantile_bins(mass, nbins)
    expected = np.bincount(ids, weights=mass)
    observed = np.bincount(ids[np.clip(draws, -lim, lim) + lim], minlength=expected.size)
    return _chisq_pvalue(observed, expected)


def _real_streams(rng):
    """The NoiseStreams the app's mechanisms draw from: AboveThreshold's threshold and query noise and the
    Laplace mechanism's, at the p-value sensitivity of n = 1,500 rows."""
    at = AboveThreshold(0.1, P_SENS_1500, 1.0, rng, None)
    lap = LaplaceMechanism(P_SENS_1500, 0.3, rng, None)
    return [at._rho.stream, at._nu.stream, lap.noise.stream]


@pytest.mark.parametrize("case", ["1/1", "3/2", "1/7", "2/1", "real"])
def test_discrete_laplace_goodness_of_fit_and_power(case):
    """χ² goodness of fit of discrete_laplace (and, for the app's own rates, NoiseStream.draw in mixed
    single and block draws) to discrete_laplace_pmf, tails pooled, 200,000 draws. Power: the same draws
    must reject the pmf with a scale 5 % too large or too small (p < 1e-6), so a sampler whose scale is off
    by 5 % would fail the first assertion."""
    rng = np.random.default_rng({"1/1": 1, "3/2": 2, "1/7": 3, "2/1": 4, "real": 5}[case])
    N = 200_000
    if case == "real":
        samples = []
        for stream in _real_streams(rng):
            parts = [np.array([stream.draw() for _ in range(3_000)])]
            while sum(p.size for p in parts) < N:
                parts.append(stream.draw(size=int(rng.integers(1, 5_000))))
            samples.append(((stream.s, stream.t), np.concatenate(parts)[:N]))
    else:
        s, t = (int(x) for x in case.split("/"))
        samples = [((s, t), discrete_laplace(rng, s, t, N))]
    for (s, t), z in samples:
        assert z.dtype == np.int64
        assert _dlap_gof(z, s, t) > 1e-3, (s, t)
        assert _dlap_gof(z, s, t * 1.05) < 1e-6, (s, t)  # scale 5 % too large
        assert _dlap_gof(z, s * 1.05, t) < 1e-6, (s, t)  # scale 5 % too small


# ============================================================================ 3. lattice integer sensitivity
@pytest.mark.parametrize("delta,bound", [(P_SENS_1500, 1.0), (p_sensitivity(9 / math.sqrt(1300)), 1.0), (0.05, 1.0),
                                         (1.0, 1.0), (1.0 / 3.0, 0.5), (1e-3, 1.0), (3.0, 50.0), (0.1, 0.05)])
def test_lattice_integer_sensitivity(delta, bound):
    """Lattice.for_sensitivity(Δ, B): for real pairs with |v − v'| ≤ Δ, |index(v) − index(v')| ≤ K, including
    adversarial pairs (v just below / on a lattice point, v' = v ± Δ exactly, values at and beyond ±B).
    The module's proof allows each computed value an error η < r/2, i.e. |v − v'| < Δ + r: those pairs must
    stay within K too. Power: the search attains K − 1 on exact-Δ pairs and K on the Δ + r pairs, so a lattice
    claiming K one smaller (no room for rounding error) would fail."""
    L = Lattice.for_sensitivity(delta, bound)
    r, K = L.resolution, L.sensitivity
    assert r == 2.0 ** round(math.log2(r)) and r <= delta / 1024 and K == math.ceil(delta / r) + 1
    assert L.bound >= bound
    rng = np.random.default_rng(int(delta * 1e6) + int(bound * 10))
    N = 200_000
    top = L.bound / r
    # bases: uniform over [−1.5B, 1.5B], lattice points and their floating-point neighbours, and the ends
    pts = L.value(rng.integers(-int(top) - 5, int(top) + 5, N))
    base = np.concatenate([
        rng.uniform(-1.5 * L.bound, 1.5 * L.bound, N), pts, np.nextafter(pts, -np.inf), np.nextafter(pts, np.inf),
        np.array([-L.bound, L.bound, -L.bound - delta, L.bound + delta, 0.0, -delta, delta]),
    ])
    u = rng.random(base.size)
    exact_pairs = [base + delta, base - delta, np.nextafter(base + delta, -np.inf), base + u * delta,
                   base - u * delta]
    loose_pairs = [base + delta + (1.0 - 1e-9) * r * u, base - delta - (1.0 - 1e-9) * r * u,
                   np.nextafter(base + delta + r, -np.inf)]
    i0 = L.index(base)
    assert i0.dtype == np.int64 and np.all(np.abs(i0) <= top)
    worst_exact = max(int(np.abs(L.index(v) - i0).max()) for v in exact_pairs)
    worst_loose = max(int(np.abs(L.index(v) - i0).max()) for v in loose_pairs)
    assert worst_exact <= K and worst_loose <= K
    # the adversarial pairs reach the bound (exact-Δ pairs reach K − 1 = ⌈Δ/r⌉, or K when Δ/r is an integer and
    # v + Δ rounds onto a lattice point: that rounding is the error η the +1 in K is there for)
    assert worst_exact >= K - 1 and worst_loose == K
    # index is ⌊clamp(v)/r⌋: value(index(v)) ≤ v < value(index(v)) + r inside the bound
    inside = base[np.abs(base) < L.bound]
    lo = L.value(L.index(inside))
    assert np.all(lo <= inside) and np.all(inside < lo + r)


# ============================================================================ 4. AboveThreshold
def _dlap_cdf(c, s, t) -> np.ndarray:
    """P[Z ≤ c] of the discrete Laplace with rate a = s/t at integers c (closed form; checked against the
    library's pmf in _svt_setup). P[Z ≤ c] = e^{−a|c|}/(1 + e^{−a}) for c ≤ −1, 1 − e^{−a(c+1)}/(1 + e^{−a})
    for c ≥ 0; P[Z ≥ c] = P[Z ≤ −c]."""
    a = s / t
    c = np.asarray(c, dtype=float)
    den = 1.0 + math.exp(-a)
    return np.where(c < 0, np.exp(-a * np.abs(c)) / den, 1.0 - np.exp(-a * (c + 1.0)) / den)


class _SVTModel:
    """Exact output distribution of one instance of a real AboveThreshold object (discrete sampler) on an
    integer query vector q (lattice indices): event k = "first 'above' at query k" (k = 0..L−1), L = "no
    'above'". Its lattice, K and the two noise rates are read off the object; the sum runs over every
    threshold-noise value ρ with |ρ| ≤ R, the tail beyond R having mass < 1e-15.

    P[k] = Σ_ρ f(ρ) Π_{i<k} P[ν ≤ τ + ρ − q_i − 1] · P[ν ≥ τ + ρ − q_k]   (the class answers "above" iff
    q + ν ≥ τ + ρ on the lattice, τ = index(threshold)). The query-noise cdf is tabulated once on the integers
    |c| ≤ W (queries within ``reach`` lattice steps of τ), so each event vector is a few slices and dot products.
    """

    def __init__(self, at: AboveThreshold, nu_rate_factor: float = 1.0, reach_in_k: int = 8):
        self.lattice = at._rho.lattice
        assert at._nu.lattice is self.lattice
        self.K = self.lattice.sensitivity
        self.tau = int(self.lattice.index(at.threshold))
        self.rs, self.rt = at._rho.stream.s, at._rho.stream.t
        self.ns, self.nt = at._nu.stream.s * nu_rate_factor, at._nu.stream.t
        a = self.rs / self.rt
        self.R = R = int(math.ceil(math.log(2.0 / (1e-15 * (1.0 + math.exp(-a)))) / a))
        self.f = discrete_laplace_pmf(np.arange(-R, R + 1), self.rs, self.rt)
        assert abs(self.f.sum() - 1.0) < 1e-12
        self.reach = reach_in_k * self.K
        self.W = W = R + self.reach + 2
        self.G = _dlap_cdf(np.arange(-W, W + 1), self.ns, self.nt)  # G[c + W] = P[ν ≤ c]

    def _cdf_run(self, start: int) -> np.ndarray:
        """P[ν ≤ start + j] for j = 0..2R."""
        i = start + self.W
        assert 0 <= i and i + 2 * self.R + 1 <= self.G.size
        return self.G[i:i + 2 * self.R + 1]

    def events(self, q) -> np.ndarray:
        out, run = [], np.ones_like(self.f)
        for qi in q:
            d = self.tau - int(qi)  # c = d + ρ, ρ = −R..R
            assert abs(d) <= self.reach
            above = self._cdf_run(-d - self.R)[::-1]  # P[ν ≥ c] = P[ν ≤ −c]
            out.append(float(np.sum(self.f * run * above)))
            run = run * self._cdf_run(d - self.R - 1)  # P[ν ≤ c − 1]
        out.append(float(np.sum(self.f * run)))
        return np.array(out)


#: Base query vectors (L = 3) around the threshold, in units of K/2 lattice steps from τ; the ones where the
#: search in the audit found the largest losses, plus neutral ones.
SVT_BASES = [(1, 1, 1), (-1, 0, -1), (-4, -2, 2), (-2, -1, 2), (4, 4, -8), (0, 0, 0), (-8, -8, -8), (2, -6, 0)]
SVT_EPS = 1.0


def _svt_setup():
    at = AboveThreshold(0.1, P_SENS_1500, SVT_EPS, np.random.default_rng(0), None)
    model = _SVTModel(at)
    # the closed-form cdf against the library's pmf, and the tabulated events against a direct sum
    c = np.arange(-3000, 3000)
    for s, t in ((model.rs, model.rt), (model.ns, model.nt)):
        assert np.allclose(_dlap_cdf(c, s, t) - _dlap_cdf(c - 1, s, t), discrete_laplace_pmf(c, s, t),
                           rtol=1e-9, atol=1e-15)
    rho = np.arange(-model.R, model.R + 1)
    q = model.tau + np.array([-3, 5, 0]) * model.K // 2
    below = [_dlap_cdf(model.tau + rho - qi - 1, model.ns, model.nt) for qi in q]
    direct = [np.dot(model.f, 1 - below[0]), np.dot(model.f, below[0] * (1 - below[1])),
              np.dot(model.f, below[0] * below[1] * (1 - below[2])), np.dot(model.f, below[0] * below[1] * below[2])]
    assert np.allclose(model.events(q), direct, rtol=1e-9, atol=1e-15)
    assert model.events(q).sum() == pytest.approx(1.0, abs=1e-12)
    return at, model


def _svt_losses(model: _SVTModel, shift: int):
    """[(loss, base, signs, event, P, P')] over SVT_BASES × all sign patterns of ±shift per query."""
    rows = []
    for base in SVT_BASES:
        q = model.tau + (np.array(base) * model.K) // 2
        P = model.events(q)
        for signs in itertools.product((-1, 1), repeat=len(base)):
            P2 = model.events(q + np.array(signs) * shift)
            loss = np.abs(np.log(P / P2))
            for k in range(len(P)):
                rows.append((float(loss[k]), base, signs, k, float(P[k]), float(P2[k])))
    return rows


def test_above_threshold_exact_loss_and_power():
    """Exact output probabilities of one AboveThreshold instance (the real object's lattice, K and noise
    rates; _SVTModel) on 3-query sequences around the threshold, every ±K sign pattern: every event's
    |log(P/P')| ≤ ε. Power: the same computation with shifts of 2K (sensitivity understated twofold), or with
    the query noise at rate ε/2 instead of ε/4, exceeds ε — so an object with the wrong lattice K or noise
    rates would fail."""
    at, model = _svt_setup()
    K = model.K
    assert at._rho.stream.s / at._rho.stream.t <= SVT_EPS / (2 * K)
    assert at._nu.stream.s / at._nu.stream.t <= SVT_EPS / (4 * K)
    rows = _svt_losses(model, K)
    worst = max(rows)
    assert worst[0] <= SVT_EPS + 1e-9, worst
    assert worst[0] > 0.5 * SVT_EPS  # the patterns are adversarial, not benign
    assert max(_svt_losses(model, 2 * K))[0] > SVT_EPS * 1.2
    assert max(_svt_losses(_SVTModel(at, nu_rate_factor=2.0), K))[0] > SVT_EPS


def test_above_threshold_monte_carlo_real_class():
    """The real AboveThreshold.query, 40,000 instances on each of two neighbouring query sequences (one
    object reused: an instance closes at its first 'above'; one still open after the 3 queries is closed by
    calling the public ``open()``, which draws a fresh threshold): (1) the event frequencies match the
    exact model (so the class does what the exact test assumed), (2) for every event the 4-s.e. lower
    bound of |log(P/P')| is ≤ ε.

    Pattern: the one with the largest exact loss among events with probability ≥ 0.05 on both sides
    (index gap K on every query, the worst the lattice allows). Detectable margin (asserted below from the
    exact probabilities): a true loss on that event exceeding ε by 6 s.e. ≈ 0.16 is flagged with probability
    ≥ 97.7 %, so a per-hit loss of 1.24 at ε = 1 (the audit's figure for the old snapping sampler) cannot pass.
    """
    at0, model = _svt_setup()
    K, lat = model.K, model.lattice
    cands = [row for row in _svt_losses(model, K) if min(row[4], row[5]) >= 0.05]
    loss, base, signs, event, p1, p2 = max(cands)
    q1 = model.tau + (np.array(base) * K) // 2
    q2 = q1 + np.array(signs) * K
    N = 40_000
    r = lat.resolution
    counts, exact = [], []
    for q, seed in ((q1, 11), (q2, 12)):
        values = lat.value(q) + r / 2  # real inputs whose lattice indices are q
        assert np.array_equal(lat.index(values), q)
        at = AboveThreshold(at0.threshold, P_SENS_1500, SVT_EPS, np.random.default_rng(seed), None)
        c = np.zeros(len(q) + 1, dtype=np.int64)
        for _ in range(N):
            if at.is_open:
                at.open()
            for k, v in enumerate(values):
                if at.query(float(v)).above:
                    c[k] += 1
                    break
            else:
                c[len(q)] += 1
        assert at.instances == N
        counts.append(c)
        exact.append(model.events(q))
    for c, P in zip(counts, exact):
        zscores = (c - N * P) / np.sqrt(N * P * (1 - P))
        assert np.all(np.abs(zscores) < 4.5), (c, N * P)
    rows = _check_counts(dict(enumerate(counts[0])), N, dict(enumerate(counts[1])), N, SVT_EPS, min_count=200)
    assert len(rows) == len(q1) + 1
    se = math.sqrt((1 - p1) / (N * p1) + (1 - p2) / (N * p2))
    assert loss + Z_SE * se < SVT_EPS  # the correct mechanism passes with room ...
    assert 6 * se < 0.24  # ... and a loss of ε + 0.24 would be flagged (Z_SE + 2 s.e. margin)
    print(f"AboveThreshold MC: exact loss {loss:.3f} on event {event}; estimates {[round(x[1], 3) for x in rows]}, "
          f"s.e. {[round(x[2], 3) for x in rows]}; detectable excess over ε ≈ {6 * se:.3f}")


# ============================================================================ 5. Laplace mechanism
def _worst_pair(L: Lattice, delta: float, near: float):
    """Values v, v' = v + Δ (in floating point) near ``near`` with the largest lattice-index gap."""
    j = int(L.index(near))
    best = None
    for v in (L.value(j), np.nextafter(L.value(j), -np.inf), np.nextafter(L.value(j + 1), -np.inf)):
        v = float(v)
        gap = int(L.index(v + delta)) - int(L.index(v))
        if best is None or gap > best[2]:
            best = (v, v + delta, gap)
    return best


def test_laplace_mechanism_exact_ratio_and_monte_carlo():
    """Real LaplaceMechanism (discrete sampler): the released value is the lattice point (index(v) + Z)·r with
    Z ~ discrete_laplace_pmf at the object's (s, t). Exact: for the worst v, v' (|v − v'| ≤ Δ, index gap
    K − 1) and for the proof's index gap K, the output pmfs differ by at most e^ε pointwise. Power: the same
    pair through an object told half the sensitivity exceeds e^ε. Monte Carlo on the real object: noise
    indices fit the pmf (χ²), released/noise/noisy are consistent lattice values, and binned outputs for v
    and v' have 4-s.e. lower bounds of |log ratio| ≤ ε."""
    eps, delta = 0.5, P_SENS_1500
    mech = LaplaceMechanism(delta, eps, np.random.default_rng(21), None)
    L, st = mech.noise.lattice, mech.noise.stream
    K, s, t = L.sensitivity, st.s, st.t
    v1, v2, gap = _worst_pair(L, delta, 0.05)
    assert gap == K - 1
    q1 = int(L.index(v1))
    ks = np.arange(q1 - 40 * K, q1 + 40 * K)

    def max_log_ratio(g, s_, t_):
        return float(np.max(np.abs(np.log(discrete_laplace_pmf(ks - q1, s_, t_))
                                   - np.log(discrete_laplace_pmf(ks - q1 - g, s_, t_)))))

    assert max_log_ratio(gap, s, t) <= eps + 1e-12
    assert max_log_ratio(K, s, t) <= eps + 1e-12
    assert max_log_ratio(K, s, t) > eps * (1 - 1e-5)  # tight: the rate is ε/K up to rounding
    half = LaplaceMechanism(delta / 2, eps, np.random.default_rng(0), None)
    Lh = half.noise.lattice
    gap_h = int(Lh.index(v2)) - int(Lh.index(v1))
    assert max_log_ratio(gap_h, half.noise.stream.s, half.noise.stream.t) > 1.9 * eps

    N = 20_000
    outs = []
    for v, seed in ((v1, 31), (v2, 32)):
        m = LaplaceMechanism(delta, eps, np.random.default_rng(seed), None)
        rel = [m.release(v) for _ in range(N)]
        released = np.array([x.released for x in rel])
        noise = np.array([x.noise for x in rel])
        noisy = np.array([x.noisy for x in rel])
        q = int(L.index(v))
        assert np.all(released == L.value(q))
        z = noise / L.resolution
        assert np.all(z == np.round(z))
        assert np.all(noisy == L.value(q + z.astype(np.int64)))
        assert np.all(noisy == released + noise)
        assert _dlap_gof(z.astype(np.int64), s, t) > 1e-3
        assert rel[0].sensitivity == K * L.resolution and rel[0].scale == t / s * L.resolution
        outs.append(noisy)
    edges = np.quantile(np.concatenate(outs), np.linspace(0, 1, 11)[1:-1])
    c1, c2 = (collections.Counter(np.searchsorted(edges, o).tolist()) for o in outs)
    rows = _check_counts(c1, N, c2, N, eps, min_count=200)
    assert len(rows) == 10


# ============================================================================ 6. sieve and examine
SIEVE_SENTINEL = 100.0  # a data-independent query far above any threshold: it ends an unfinished round


def _sieve_data():
    """20 rows, 3 binary columns with means (0.5, 0.5, 0.45), and the neighbour with row 0 replaced by its
    complement, which moves every mean by 1/20 (and every sub-sample mean by 1/10 when row 0 is drawn)."""
    rng = np.random.default_rng(5)
    cols = [np.r_[0, rng.permutation(np.r_[np.ones(10), np.zeros(9)])],
            np.r_[1, rng.permutation(np.r_[np.ones(9), np.zeros(10)])],
            np.r_[0, rng.permutation(np.r_[np.ones(9), np.zeros(10)])]]
    D = np.column_stack(cols).astype(float)
    Dn = D.copy()
    Dn[0] = 1.0 - Dn[0]
    return D, Dn


def _sieve_rounds(data: np.ndarray, seed: int, N: int, eps: float, m: int, T: float, tweak: float):
    """N rounds of one real SieveAndExamine object: the columns' means queried in order (on the round's
    sub-sample for the sieve, on all rows for the examine), then the sentinel if no column fired. Returns the
    counts of (column that fired, examine's 'independent') or 'none'."""
    n, cols = data.shape
    mech = SieveAndExamine(T, tweak, n, m, 1.0 / n, 1.0 / m, eps, np.random.default_rng(seed), None,
                           bound=SIEVE_SENTINEL)
    full = data.mean(axis=0)
    counts = collections.Counter()
    for _ in range(N):
        charged = 0.0
        for j in range(cols + 1):
            if j < cols:
                stage, indep, ans, ex, c = mech.query(lambda rows, j=j: float(data[rows, j].mean()),
                                                      lambda j=j: float(full[j]))
            else:
                stage, indep, ans, ex, c = mech.query(lambda rows: SIEVE_SENTINEL, lambda: SIEVE_SENTINEL)
            charged += c
            if stage == "examine":
                counts[(j, indep) if j < cols else "none"] += 1
                break
        else:
            raise AssertionError("the sentinel did not end the round")
        assert charged == pytest.approx(eps)  # sieve ε/2 (amplified) + examine ε/2, charged once per round
    assert mech.rounds == N
    return counts


def test_sieve_and_examine_monte_carlo_real_class():
    """Real SieveAndExamine (Priv-PC Algorithm 1, discrete sampler), one round per trial on two neighbouring
    20-row datasets (m = 10, Δ_full = 1/20, Δ_sub = 1/10, T = 0.5, t = 0.05, ε = 1): for every output event
    (which column fired and the examine's verdict, or none) seen ≥ 200 times, the 4-s.e. lower bound of
    |log(P/P')| is ≤ ε. A round's cost as charged must be ε. Fails if the sieve's amplified ε', its
    sub-sampling or the examine's noise leak more than ε (detectable excess ≈ 4–6 s.e., 0.1–0.3 here)."""
    eps, N = 1.0, 20_000
    D, Dn = _sieve_data()
    c1 = _sieve_rounds(D, 1, N, eps, 10, 0.5, 0.05)
    c2 = _sieve_rounds(Dn, 2, N, eps, 10, 0.5, 0.05)
    rows = _check_counts(c1, N, c2, N, eps, min_count=200)
    assert len(rows) >= 6
    assert max(abs(r[1]) for r in rows) > 0.3  # the neighbours are far enough apart to show a loss
    print("sieve-and-examine MC:", [(r[0], round(r[1], 3), round(r[2], 3)) for r in rows])


# ============================================================================ 7. exponential mechanism
def test_exponential_mechanism_softmax_and_ratio():
    """Real (exact, lattice and rejection) ExponentialMechanism.select: frequencies match softmax(ε u/(2Δ)) (χ²) for a utility vector and a
    neighbour with every |Δu_i| = Δ in the worst direction (+Δ on some, −Δ on the others); the per-index
    4-s.e. lower bound of |log(P/P')| is ≤ ε. Power: the same draws reject softmax(ε u/Δ) (the factor 2
    forgotten) and a 10 % error in ε. With N = 30,000 draws per side a correct sampler passes the power checks
    except with probability < 2e-9 (non-central χ², 4 d.f., λ ≥ 133 for the 10 % error); seeds are fixed."""
    eps, sens, N = 2.0, 1.0, 30_000
    u = np.array([0.0, 1.0, 3.0, -2.0, 2.5])
    un = u + sens * np.array([1.0, -1.0, -1.0, 1.0, -1.0])

    def softmax(x):
        e = np.exp(x - x.max())
        return e / e.sum()

    counts = []
    for util, seed in ((u, 41), (un, 42)):
        mech = ExponentialMechanism(sens, eps, np.random.default_rng(seed), None)
        picks = np.array([mech.select(util) for _ in range(N)])
        c = np.bincount(picks, minlength=u.size)
        counts.append(c)
        assert _chisq_pvalue(c, softmax(eps * util / (2 * sens))) > 1e-3
        assert _chisq_pvalue(c, softmax(eps * util / sens)) < 1e-6
        assert _chisq_pvalue(c, softmax(1.1 * eps * util / (2 * sens))) < 1e-6
    # index 3 expects ~112 picks on one side (fewer than 60 has probability < 1e-6): a floor of 60 keeps every
    # index while counting only cells whose delta-method standard error is sound
    rows = _check_counts(dict(enumerate(counts[0])), N, dict(enumerate(counts[1])), N, eps, min_count=60)
    assert len(rows) == u.size
    assert max(abs(r[1]) for r in rows) > 0.5 * eps  # the neighbour is adversarial


# ============================================================================ 8. whole algorithms
E2E_PAIRS = ((0, 1), (0, 2), (1, 2))
E2E_RUNS = 600
#: algorithm → discover() arguments: total budgets small enough that the learned skeleton varies.
E2E_ALGOS = {
    "gauss-pc": dict(epsilon=1.0),
    "svt-pc": dict(epsilon=1.0, round_epsilon=0.5),
    "priv-pc": dict(epsilon=1.0, round_epsilon=0.25),
    "laplace-pc": dict(epsilon=1.0),
    "curate": dict(epsilon=1.0),
}


def _order0_p(data: np.ndarray) -> np.ndarray:
    """One-sided p-values of the order-0 Kendall tests with the public normaliser (what the private runs use)."""
    test = make_ci_test("kendall", suffstats_for(data, (2, 2, 2)), sided="one", normaliser="public")
    return np.array([test(x, y, ()).p_value for x, y in E2E_PAIRS])


@functools.lru_cache(maxsize=None)
def _e2e_datasets():
    """A weak binary chain x → z → y (n = 1,500; order-0 p-values ≈ 1e-4, 0.08, 4e-5, so noisy decisions go
    both ways) and its neighbour: of every one-row replacement (a row of one cell moved to another of the 8
    cells), the one that moves the three order-0 p-values the most in total."""
    rng = np.random.default_rng(1)
    n = 1500
    x = rng.integers(0, 2, n)
    z = np.where(rng.random(n) < 0.12, x, rng.integers(0, 2, n))
    y = np.where(rng.random(n) < 0.12, z, rng.integers(0, 2, n))
    data = np.column_stack([x, z, y]).astype(np.uint8)
    p0 = _order0_p(data)
    best = None
    for a in itertools.product(range(2), repeat=3):
        rows = np.flatnonzero((data == np.array(a, dtype=np.uint8)).all(axis=1))
        if rows.size == 0:
            continue
        for b in itertools.product(range(2), repeat=3):
            if a == b:
                continue
            other = data.copy()
            other[rows[0]] = b
            change = float(np.abs(_order0_p(other) - p0).sum())
            if best is None or change > best[0]:
                best = (change, other)
    states = (("0", "1"),) * 3
    D = Dataset("weak-chain", ("x", "z", "y"), data, states)
    Dn = Dataset("weak-chain-neighbour", ("x", "z", "y"), best[1], states)
    return D, Dn, best[0]


@pytest.mark.parametrize("algo", list(E2E_ALGOS))
def test_whole_algorithm_skeleton_distribution_within_guarantee(algo):
    """End to end through ``discover`` (the code path of the app), on a dataset and its most p-value-changing
    one-row neighbour: 600 runs each (noise seeds 0–599 on D, 600–1199 on D', so the two samples are
    independent as the standard error assumes); for every learned skeleton seen ≥ 30 times on both, the
    4-s.e. lower bound of |log(P_D/P_D')| (δ-adjusted: P ≤ e^ε P' + δ) is ≤ the run's stated guarantee
    ``privacy["epsilon"]``. Also: every run states a valid guarantee and uses no more than it.

    With 600 runs the bound is loose (4 s.e. ≈ 0.3–0.8 on the skeletons checked): this catches gross errors
    (noise scaled for the wrong sensitivity, a budget not enforced, a decision that bypasses the noise)."""
    D, Dn, change = _e2e_datasets()
    n = D.n
    assert 0 < change <= len(E2E_PAIRS) * p_sensitivity(kendall_public_z_sensitivity(n), "one")
    kw = E2E_ALGOS[algo]
    counts, guarantees = [], set()
    for ds, seeds in ((D, range(E2E_RUNS)), (Dn, range(E2E_RUNS, 2 * E2E_RUNS))):
        c = collections.Counter()
        for seed in seeds:
            r = discover(ds, algo=algo, seed=seed, **kw)
            priv = r.privacy
            assert priv["guarantee"] is True, priv["statement"]
            assert priv["used"]["epsilon"] <= priv["epsilon"] + 1e-9
            guarantees.add((priv["epsilon"], priv["delta"]))
            sk = r.result.skeleton
            c[tuple(bool(sk[i, j]) for i, j in E2E_PAIRS)] += 1
        counts.append(c)
    assert len(guarantees) == 1  # stated before the run: the same whatever the data or the noise
    (eps, delta), = guarantees
    assert eps <= kw["epsilon"] + 1e-12
    rows = _check_counts(counts[0], E2E_RUNS, counts[1], E2E_RUNS, eps, min_count=30, delta=delta)
    assert len(rows) >= 3, (counts, rows)
    assert len(counts[0]) >= 4  # the outputs do vary: the check is not on a constant
    print(f"{algo}: ε = {eps}, δ = {delta}; skeletons:",
          [("".join("1" if e else "0" for e in r[0]), round(r[1], 2), round(r[2], 2)) for r in rows])
