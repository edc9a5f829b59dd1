"""Compiled contingency tables and χ²/G statistics against the numpy reference path.

The kernels must give the same tables (exactly) and statistics (to 1e-12 relative) as the numpy code they
replaced, which is kept as ``reference_table`` / ``reference_chisq_from_table``; and PC must make exactly
the same decisions with either, on random data and on every shipped network.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from cgdcore.citests import chisq as chisq_mod
from cgdcore.citests import clear_suffstats_cache, contingency
from cgdcore.citests import kendall as kendall_mod
from cgdcore.citests.chisq import chisq_from_table, reference_chisq_from_table
from cgdcore.citests.contingency import SuffStats, reference_table
from cgdcore.citests.kendall import kendall_public_z_from_table, kendall_z_from_table
from cgdcore.data import load_dataset
from cgdcore.data.registry import NETWORKS
from cgdcore.discover import discover

LAMBDAS = ("pearson", "log-likelihood")


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


def _random_data(rng, arities, n, skew=False):
    cols = []
    for k in arities:
        if skew:
            cols.append(np.minimum((rng.random(n) ** 3 * k).astype(np.int64), k - 1))
        else:
            cols.append(rng.integers(0, k, size=n))
    return np.stack(cols, axis=1)


def _check_all(st, d, max_s, rng=None, limit=None, pairs=None):
    """Every (or ``limit`` random) table of the pairs up to order ``max_s`` through the compiled kernels, whatever
    the automatic choice would make of this small n, against the numpy reference."""
    contingency.USE_KERNEL = True
    try:
        _compare_with_reference(st, d, max_s, rng, limit, pairs)
    finally:
        contingency.USE_KERNEL = None


def _compare_with_reference(st, d, max_s, rng, limit, pairs):
    queries = []
    for x, y in pairs or itertools.combinations(range(d), 2):
        rest = [v for v in range(d) if v not in (x, y)]
        for r in range(min(max_s, len(rest)) + 1):
            queries.extend((x, y, S) for S in itertools.combinations(rest, r))
    if limit is not None and len(queries) > limit:
        pick = rng.choice(len(queries), size=limit, replace=False)
        queries = [queries[i] for i in pick]
    for x, y, S in queries:
        t = st._compute_table(x, y, S)
        ref = reference_table(st, x, y, S)
        assert t.dtype == ref.dtype == np.int64
        assert t.shape == ref.shape, (x, y, S)
        np.testing.assert_array_equal(t, ref)
        assert t.flags.c_contiguous and not t.flags.writeable
        for tab in (t, t.transpose(0, 2, 1)):
            for lam in LAMBDAS:
                s1, d1 = chisq_from_table(tab, lam)
                s0, d0 = reference_chisq_from_table(tab, lam)
                assert d1 == d0 and isinstance(d1, int)
                assert _close(s1, s0), (x, y, S, lam, s1, s0)
            kendall_mod.USE_KERNEL = False
            try:
                z0, u0 = kendall_z_from_table(tab)
                p0 = kendall_public_z_from_table(tab, st.n)
            finally:
                kendall_mod.USE_KERNEL = True
            z1, u1 = kendall_z_from_table(tab)
            assert u1 == u0 and isinstance(u1, int) and _close(z1, z0), (x, y, S, z1, z0)
            assert _close(kendall_public_z_from_table(tab, st.n), p0)


@pytest.mark.parametrize("seed, arities, n, skew", [
    (0, (2, 3, 4, 2, 5, 3, 2), 700, False),
    (1, (2, 2, 2, 2, 2, 2, 2, 2), 50, True),       # sparse: many empty strata and cells
    (2, (1, 3, 2, 4, 1, 3), 300, True),             # arity-1 columns
    (3, (7, 9, 11, 13, 17, 19), 400, False),        # more S-tuples than rows: the coded path
    (4, (300, 3, 2, 280, 4), 2000, True),           # uint16 codes, big tables
])
def test_kernel_tables_and_statistics_equal_reference(seed, arities, n, skew):
    rng = np.random.default_rng(seed)
    data = _random_data(rng, arities, n, skew)
    st = SuffStats(data, arities)
    _check_all(st, len(arities), max_s=len(arities) - 2)


def test_kernel_over_high_order_and_huge_strata():
    """|S| above the direct kernel's limit, and S-tuple counts beyond the dense and int32 limits (set by the
    arities, not the rows: 1000 rows keep every path and cost a seventh of 3000)."""
    rng = np.random.default_rng(5)
    ar = (3, 2, 3, 4) + (40,) * 3 + (3000,) * 6  # 3000^6 > 2^62: the stratum code is compressed on the way
    data = _random_data(rng, ar, 1000, skew=True)
    st = SuffStats(data, ar)
    _check_all(st, len(ar), max_s=8, rng=rng, limit=80, pairs=[(0, 1), (1, 3), (0, 2), (2, 4), (4, 5)])


def test_subsample_view_copies_no_rows_and_matches():
    rng = np.random.default_rng(6)
    ar = (2, 3, 4, 2, 3, 5, 2, 40, 50)
    data = _random_data(rng, ar, 1500, skew=True)
    st = SuffStats(data, ar)
    idx = rng.integers(0, 1500, size=400)  # with repeats, unsorted
    view = st.subsample(idx)
    assert view.n == 400 and view._cols is st._cols  # shares the columns
    rows = SuffStats(data[idx], ar)
    for x, y in [(0, 1), (2, 5), (1, 6), (7, 8)]:
        rest = [v for v in range(len(ar)) if v not in (x, y)]
        for r in range(0, 6):
            for S in itertools.combinations(rest, r):
                t = view.table(x, y, S)
                np.testing.assert_array_equal(t, rows.table(x, y, S))
                np.testing.assert_array_equal(t, reference_table(view, x, y, S))
    sub2 = view.subsample(np.arange(0, 400, 3))  # a view of a view reads the root
    np.testing.assert_array_equal(sub2.table(0, 1, (2, 3)), SuffStats(data[idx][::3], ar).table(0, 1, (2, 3)))
    np.testing.assert_allclose(view.corr(), rows.corr(), rtol=0, atol=1e-12)


def test_non_integer_tables_use_the_reference():
    t = np.array([[[1.5, 2.0], [0.25, 3.0]]])
    for lam in LAMBDAS:
        assert chisq_from_table(t, lam) == reference_chisq_from_table(t, lam)


def _pc_both(ds, test, **kw):
    out = []
    for compiled in (False, True):
        contingency.USE_KERNEL = chisq_mod.USE_KERNEL = kendall_mod.USE_KERNEL = compiled
        clear_suffstats_cache()
        try:
            out.append(discover(ds, ci_test=test, **kw).result)
        finally:
            contingency.USE_KERNEL = chisq_mod.USE_KERNEL = kendall_mod.USE_KERNEL = True
    clear_suffstats_cache()
    return out


def _same_run(ref, new):
    assert np.array_equal(ref.cpdag, new.cpdag)
    assert ref.sepsets == new.sepsets
    assert ref.tests_per_order == new.tests_per_order and ref.n_ci_tests == new.n_ci_tests
    assert len(ref.trace) == len(new.trace)
    for a, b in zip(ref.trace, new.trace):
        assert (a.x, a.y, a.S, a.independent) == (b.x, b.y, b.S, b.independent)
        assert _close(b.statistic, a.statistic) and _close(b.p_value, a.p_value)
        assert a.stage == b.stage and a.epsilon == b.epsilon
        for u, v in ((a.noisy, b.noisy), (a.released, b.released)):
            assert (np.isnan(u) and np.isnan(v)) or _close(v, u)


@pytest.mark.parametrize("net", list(NETWORKS))
def test_pc_same_decisions_on_every_network(net):
    big = net in ("andes", "win95pts", "hepar2", "hailfinder")
    ds = load_dataset(net, n=1500 if big else 4000, seed=1)
    ref, new = _pc_both(ds, "g2", max_order=2 if big else None)
    _same_run(ref, new)


@pytest.mark.parametrize("test", ["chi2", "kendall"])
def test_pc_same_decisions_other_tests(test):
    ds = load_dataset("alarm", n=5000, seed=2)
    ref, new = _pc_both(ds, test)
    _same_run(ref, new)


def test_priv_pc_same_decisions_with_subsample_views():
    """Priv-PC's sieve tables (sub-sample views through the kernel) against the numpy reference: the same
    releases, decisions, sepsets and counts for a fixed noise seed."""
    ds = load_dataset("child", n=20000, seed=3)
    ref, new = _pc_both(ds, "kendall", algo="priv-pc", round_epsilon=1.0, seed=7)
    _same_run(ref, new)


# ---------------------------------------------------------------------- the numpy path over distinct rows
@pytest.mark.parametrize("seed, arities, n", [
    (7, (2, 3, 2, 3, 2, 2, 3), 3000),               # few distinct rows, dense keys
    (8, (3, 2, 40, 2, 3, 50, 2), 3000),             # keys beyond 4n: found by a sort
    (9, (1, 2, 3, 2, 1, 4), 800),                   # arity-1 columns
])
def test_distinct_row_tables_equal_reference(monkeypatch, seed, arities, n):
    """The numpy path's weighted count over distinct rows gives the reference tables, for the data and for
    sub-sample views (repeats, unsorted, views of views), every query up to order 3."""
    monkeypatch.setattr(contingency, "_DISTINCT_MIN_ROWS", 0)
    monkeypatch.setattr(contingency, "_DISTINCT_FRACTION", 1.0)
    rng = np.random.default_rng(seed)
    data = _random_data(rng, arities, n, skew=True)
    st = SuffStats(data, arities)
    ucols, w, wf = st._distinct(1.0)
    assert ucols.shape[1] == len(np.unique(data, axis=0)) and w.sum() == n and (wf == w).all()
    view = st.subsample(rng.integers(0, n, size=n // 3))
    sub2 = view.subsample(np.arange(0, n // 3, 4))
    d = len(arities)
    for obj in (st, view, sub2):
        for x, y in itertools.combinations(range(d), 2):
            rest = [v for v in range(d) if v not in (x, y)]
            for r in range(4):
                for S in itertools.combinations(rest, r):
                    t = obj._distinct_table(x, y, S)
                    ref = reference_table(obj, x, y, S)
                    assert t.dtype == ref.dtype == np.int64 and t.flags.c_contiguous and not t.flags.writeable
                    np.testing.assert_array_equal(t, ref)


def test_distinct_rows_only_when_few():
    rng = np.random.default_rng(10)
    many = SuffStats(rng.integers(0, 200, size=(30_000, 3)), (200, 200, 200))  # almost every row distinct
    assert many._distinct() is None
    few = SuffStats(rng.integers(0, 2, size=(30_000, 6)), (2,) * 6)
    assert few._distinct()[0].shape == (6, 64)
    assert SuffStats(rng.integers(0, 2, size=(100, 6)), (2,) * 6)._distinct() is None  # too few rows to pay


@pytest.mark.parametrize("algo, test, kw", [("pc", "g2", {}), ("pc", "kendall", {}),
                                            ("priv-pc", "kendall", {"round_epsilon": 1.0, "seed": 7}),
                                            ("svt-pc", "kendall", {"round_epsilon": 1.0, "seed": 7})])
def test_distinct_rows_same_decisions(monkeypatch, algo, test, kw):
    """PC and the private runs on Sachs (n = 30,000: 4,000-odd distinct rows) make the reference path's decisions,
    sepsets, counts and releases for a fixed noise seed."""
    ds = load_dataset("sachs", n=30_000, seed=5)
    assert SuffStats(ds.data, ds.arities)._distinct() is not None
    out = []
    for threshold in (10**9, 0):  # every row / distinct rows
        monkeypatch.setattr(contingency, "_DISTINCT_MIN_ROWS", threshold)
        contingency.USE_KERNEL = chisq_mod.USE_KERNEL = kendall_mod.USE_KERNEL = False
        clear_suffstats_cache()
        try:
            out.append(discover(ds, ci_test=test, algo=algo, **kw).result)
        finally:
            contingency.USE_KERNEL = chisq_mod.USE_KERNEL = kendall_mod.USE_KERNEL = None
    clear_suffstats_cache()
    _same_run(*out)


@pytest.mark.parametrize("seed, arities, n, skew", [
    (11, (2, 3, 4, 2, 5, 3, 2), 3000, True),
    (12, (3, 2, 40, 2, 3, 50, 2), 2000, True),      # the coded path for large S-tuple counts
    (13, (7, 9, 11, 13, 17, 19), 400, False),       # more S-tuples than rows
])
def test_compiled_distinct_row_tables_equal_reference(monkeypatch, seed, arities, n, skew):
    """The compiled weighted kernels over the distinct rows give the reference tables and statistics."""
    monkeypatch.setattr(contingency, "_DISTINCT_MIN_ROWS", 0)
    monkeypatch.setattr(contingency, "_DISTINCT_FRACTION_COMPILED", 1.0)
    rng = np.random.default_rng(seed)
    data = _random_data(rng, arities, n, skew)
    st = SuffStats(data, arities)
    assert st._distinct(1.0) is not None
    _check_all(st, len(arities), max_s=min(5, len(arities) - 2))


def test_compiled_distinct_rows_same_decisions(monkeypatch):
    """PC on Child (n = 30,000) through the compiled weighted kernels makes the numpy reference's decisions."""
    ds = load_dataset("child", n=30_000, seed=6)
    monkeypatch.setattr(contingency, "_DISTINCT_MIN_ROWS", 0)
    assert SuffStats(ds.data, ds.arities)._distinct(contingency._DISTINCT_FRACTION_COMPILED) is not None
    out = []
    for compiled in (False, True):
        monkeypatch.setattr(contingency, "_DISTINCT_MIN_ROWS", 10**9 if not compiled else 0)
        contingency.USE_KERNEL = chisq_mod.USE_KERNEL = kendall_mod.USE_KERNEL = compiled
        clear_suffstats_cache()
        try:
            out.append(discover(ds, ci_test="g2").result)
        finally:
            contingency.USE_KERNEL = chisq_mod.USE_KERNEL = kendall_mod.USE_KERNEL = None
    clear_suffstats_cache()
    _same_run(*out)
