"""Tests for cgdcore.citests: statistics against independent computations, caches, sensitivities."""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from cgdcore import UserError
from cgdcore.citests import (
    CI_TEST_DESCRIPTIONS,
    CI_TESTS,
    CIResult,
    SuffStats,
    chisq_from_table,
    curate_constant,
    curate_p_sensitivity,
    kendall_p_sensitivity,
    kendall_z_sensitivity,
    make_ci_test,
    subsampled_p_sensitivity,
    suffstats_for,
)
from conftest import Lazy

sps = Lazy("scipy.stats")


# ----------------------------------------------------------------------------- helpers
def random_discrete(rng, n, arities):
    return np.stack([rng.integers(0, a, n) for a in arities], axis=1).astype(np.uint8)


def brute_kendall_z(data, x, y, S):
    """Priv-PC's stratified Kendall z by explicit loops over row pairs within strata."""
    groups = defaultdict(list)
    for row in data:
        groups[tuple(int(row[s]) for s in S)].append((int(row[x]), int(row[y])))
    num = 0.0
    wsum = 0.0
    used = 0
    for rows in groups.values():
        nk = len(rows)
        if nk <= 2 or len({r[0] for r in rows}) == 1 or len({r[1] for r in rows}) == 1:
            continue
        cmd = 0
        for i in range(nk):
            xi, yi = rows[i]
            for j in range(i + 1, nk):
                xj, yj = rows[j]
                prod = (xi - xj) * (yi - yj)
                cmd += (prod > 0) - (prod < 0)
        tau = cmd / (nk * (nk - 1) / 2)
        w = 9 * nk * (nk - 1) / (2 * (2 * nk + 5))
        num += w * tau
        wsum += w
        used += 1
    if used == 0:
        return 0.0, 0
    return num / math.sqrt(wsum), used


def brute_strata_tables(data, x, y, S, kx, ky):
    """Sorted list of per-stratum tables, counted with a dictionary (independent of bincount)."""
    tabs = defaultdict(lambda: np.zeros((kx, ky), dtype=np.int64))
    for row in data:
        tabs[tuple(int(row[s]) for s in S)][int(row[x]), int(row[y])] += 1
    return sorted(t.ravel().tolist() for t in tabs.values())


# ----------------------------------------------------------------------------- Kendall
@pytest.mark.parametrize("S", [(), (2,), (2, 3)])
def test_kendall_matches_bruteforce_pairs(S):
    rng = np.random.default_rng(11)
    ar = [4, 3, 3, 6, 2]  # code 5 of column 3 is reserved for the two special strata below
    data = random_discrete(rng, 260, [4, 3, 3, 5, 2])
    data[:, 1] = np.minimum(data[:, 0] * (rng.random(260) < 0.6) + data[:, 1] // 2, 2)  # some dependence
    # a stratum with two rows (skipped), and a stratum in which x is constant (skipped)
    data[:2, 3] = 5
    data[:2, 2] = 0
    data[:2, 0] = [0, 1]  # x and y both vary, so only the n_k <= 2 rule skips it
    data[:2, 1] = [0, 1]
    data[2:8, 3] = 5
    data[2:8, 2] = 1
    data[2:8, 0] = 2
    st = SuffStats(data, ar)
    for sided, factor in (("two", 2.0), ("one", 1.0)):
        res = make_ci_test("kendall", st, sided=sided)(0, 1, S)
        z, used = brute_kendall_z(data, 0, 1, S)
        assert res.statistic == pytest.approx(z, rel=1e-9, abs=1e-12)
        assert res.dof == used
        assert res.p_value == pytest.approx(min(1.0, factor * sps.norm.sf(abs(z))), rel=1e-9)
    # symmetric in x, y
    assert make_ci_test("kendall", st)(1, 0, S[::-1]).statistic == pytest.approx(
        make_ci_test("kendall", st)(0, 1, S).statistic, rel=1e-12
    )
    if S == (2, 3):
        # the two special strata (2 rows; constant x) were skipped
        assert used <= len({(int(a), int(b)) for a, b in data[:, [2, 3]]}) - 2


def test_kendall_unconditional_no_ties_matches_scipy():
    rng = np.random.default_rng(3)
    n = 150
    x = rng.permutation(n)
    y = np.argsort(np.argsort(x + rng.normal(0, 40, n)))  # ranks, no ties
    data = np.stack([x, y], axis=1)
    st = SuffStats(data, [n, n])
    res = make_ci_test("kendall", st)(0, 1)
    tau_scipy = sps.kendalltau(x, y).statistic
    scale = math.sqrt(9 * n * (n - 1) / (4 * n + 10))
    assert res.statistic / scale == pytest.approx(tau_scipy, rel=1e-12)
    assert res.statistic == pytest.approx(tau_scipy * scale, rel=1e-12)
    assert res.dof == 1


def test_kendall_one_sided_is_half_two_sided():
    rng = np.random.default_rng(5)
    data = random_discrete(rng, 500, [3, 3, 2])
    st = SuffStats(data, [3, 3, 2])
    one = make_ci_test("kendall", st, sided="one")
    two = make_ci_test("kendall", st, sided="two")
    assert one.sided == "one" and two.sided == "two"
    for S in [(), (2,)]:
        assert one(0, 1, S).p_value == pytest.approx(two(0, 1, S).p_value / 2, rel=1e-12)
        assert one(0, 1, S).statistic == two(0, 1, S).statistic


def test_kendall_no_usable_stratum():
    data = np.zeros((50, 3), dtype=np.uint8)
    data[:, 1] = np.arange(50) % 3
    st = SuffStats(data, [2, 3, 2])  # x (column 0) constant
    res = make_ci_test("kendall", st)(0, 1, (2,))
    assert res == CIResult(0.0, 1.0, 0.0)


def test_kendall_detects_dependence():
    rng = np.random.default_rng(8)
    n = 3000
    z = rng.integers(0, 3, n)
    x = (z + rng.integers(0, 2, n)).clip(0, 3)
    y = (x + rng.integers(0, 2, n)).clip(0, 3)
    st = SuffStats(np.stack([x, y, z], 1), [4, 4, 3])
    assert make_ci_test("kendall", st)(0, 1, (2,)).p_value < 1e-10


# ----------------------------------------------------------------------------- chi2 / G
def test_chisq_unconditional_matches_scipy():
    rng = np.random.default_rng(21)
    ar = [3, 4]
    data = random_discrete(rng, 800, ar)
    data[:, 1] = np.where(rng.random(800) < 0.3, data[:, 0], data[:, 1])
    st = SuffStats(data, ar)
    tab = st.table(0, 1)[0]
    assert (tab.sum(0) > 0).all() and (tab.sum(1) > 0).all()
    for name, lam in (("chi2", "pearson"), ("g2", "log-likelihood")):
        res = make_ci_test(name, st)(0, 1)
        ref = sps.chi2_contingency(tab, correction=False, lambda_=lam)
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
        assert res.dof == ref.dof == 6
        assert res.p_value == pytest.approx(ref.pvalue, rel=1e-8, abs=1e-300)


def test_chisq_conditional_is_sum_over_strata():
    rng = np.random.default_rng(22)
    ar = [3, 3, 2, 3]
    n = 3000
    data = random_discrete(rng, n, ar)
    data[:, 1] = np.where(rng.random(n) < 0.15, data[:, 0], data[:, 1])
    st = SuffStats(data, ar)
    S = (2, 3)
    for name, lam in (("chi2", "pearson"), ("g2", "log-likelihood")):
        stat = 0.0
        dof = 0
        for key in sorted({(int(a), int(b)) for a, b in data[:, list(S)]}):
            rows = (data[:, 2] == key[0]) & (data[:, 3] == key[1])
            tab = np.zeros((3, 3))
            np.add.at(tab, (data[rows, 0], data[rows, 1]), 1)
            ref = sps.chi2_contingency(tab, correction=False, lambda_=lam)
            stat += ref.statistic
            dof += ref.dof
        res = make_ci_test(name, st)(0, 1, S)
        assert res.statistic == pytest.approx(stat, rel=1e-10)
        assert res.dof == dof == 6 * 4
        assert res.p_value == pytest.approx(sps.chi2.sf(stat, dof), rel=1e-8)


def test_chisq_dof_reduced_for_empty_row():
    rng = np.random.default_rng(23)
    n = 1200
    data = random_discrete(rng, n, [3, 3, 2])
    s1 = data[:, 2] == 1
    data[s1, 0] = data[s1, 0] % 2  # in stratum z=1, x never takes the value 2
    st = SuffStats(data, [3, 3, 2])
    for name, lam in (("chi2", "pearson"), ("g2", "log-likelihood")):
        res = make_ci_test(name, st)(0, 1, (2,))
        assert res.dof == (3 - 1) * (3 - 1) + (2 - 1) * (3 - 1)
        stat = 0.0
        for z in (0, 1):
            tab = st.table(0, 1, (2,))[z]
            tab = tab[tab.sum(1) > 0][:, tab.sum(0) > 0]
            stat += sps.chi2_contingency(tab, correction=False, lambda_=lam).statistic
        assert res.statistic == pytest.approx(stat, rel=1e-10)


def test_chisq_zero_dof_gives_p_one():
    data = np.zeros((40, 2), dtype=np.uint8)
    data[:, 1] = np.arange(40) % 2
    st = SuffStats(data, [2, 2])
    for name in ("chi2", "g2"):
        res = make_ci_test(name, st)(0, 1)
        assert res.dof == 0 and res.p_value == 1.0


def test_gtest_null_uniform_and_power():
    rng = np.random.default_rng(2024)
    pv = []
    pv_chi = []
    for _ in range(400):
        data = random_discrete(rng, 2000, [3, 3, 3])
        st = SuffStats(data, [3, 3, 3])
        pv.append(make_ci_test("g2", st)(0, 1, (2,)).p_value)
        pv_chi.append(make_ci_test("chi2", st)(0, 1, (2,)).p_value)
    assert sps.kstest(pv, "uniform").pvalue > 1e-3
    assert sps.kstest(pv_chi, "uniform").pvalue > 1e-3
    # dependence given z
    data = random_discrete(rng, 2000, [3, 3, 3])
    data[:, 1] = np.where(rng.random(2000) < 0.3, data[:, 0], data[:, 1])
    st = SuffStats(data, [3, 3, 3])
    assert make_ci_test("g2", st)(0, 1, (2,)).p_value < 1e-10


# ----------------------------------------------------------------------------- Fisher-z
def _residual_partial_corr(X, x, y, S):
    A = np.column_stack([np.ones(len(X))] + [X[:, s] for s in S])
    rx = X[:, x] - A @ np.linalg.lstsq(A, X[:, x], rcond=None)[0]
    ry = X[:, y] - A @ np.linalg.lstsq(A, X[:, y], rcond=None)[0]
    return float(np.corrcoef(rx, ry)[0, 1])


@pytest.mark.parametrize("S", [(), (2,), (2, 3, 4)])
def test_fisherz_matches_regression_residuals(S):
    rng = np.random.default_rng(31)
    n = 600
    X = rng.normal(size=(n, 5))
    X[:, 0] += X[:, 2] - 0.5 * X[:, 3]
    X[:, 1] += 0.8 * X[:, 2] + 0.3 * X[:, 0] + X[:, 4]
    X = X * [1.0, 3.0, 0.5, 2.0, 10.0] + 5.0
    res = make_ci_test("fisherz", SuffStats(X))(0, 1, S)
    r = _residual_partial_corr(X, 0, 1, S)
    dof = n - len(S) - 3
    assert res.dof == dof
    assert res.statistic == pytest.approx(math.atanh(r) * math.sqrt(dof), rel=1e-9)
    assert res.p_value == pytest.approx(2 * sps.norm.sf(abs(math.atanh(r)) * math.sqrt(dof)), rel=1e-8)


def test_fisherz_on_discrete_codes_and_degenerate_cases():
    rng = np.random.default_rng(32)
    data = random_discrete(rng, 400, [3, 4, 2, 2])
    data[:, 3] = 0  # constant column
    st = SuffStats(data, [3, 4, 2, 2])
    t = make_ci_test("fisherz", st)
    r = _residual_partial_corr(data.astype(float), 0, 1, (2,))
    assert t(0, 1, (2,)).statistic == pytest.approx(math.atanh(r) * math.sqrt(400 - 4), rel=1e-9)
    assert t(0, 3).p_value == 1.0
    # x an exact linear function of S: trivially independent, no crash
    X = rng.normal(size=(100, 3))
    X[:, 0] = 2 * X[:, 2] + 1
    assert make_ci_test("fisherz", SuffStats(X))(0, 1, (2,)).p_value == 1.0
    # too few rows
    res = make_ci_test("fisherz", SuffStats(rng.normal(size=(4, 3))))(0, 1, (2,))
    assert res.p_value == 1.0 and res.dof == 0


# ----------------------------------------------------------------------------- tables & caches
# raw code, dense compression, np.unique path, int64 codes, intermediate compression (250^9 > 2^62)
@pytest.mark.parametrize("arity_s, n_s", [(3, 3), (40, 3), (200, 3), (250, 4), (250, 9)])
def test_tables_match_dictionary_counts(arity_s, n_s):
    rng = np.random.default_rng(41)
    ar = [3, 2] + [arity_s] * n_s
    data = np.stack([rng.integers(0, a, 700) for a in ar], 1).astype(np.int64)
    st = SuffStats(data, ar)
    S = tuple(range(2, 2 + n_s))
    t = st.table(0, 1, S)
    assert t.sum() == 700 and (t.sum(axis=(1, 2)) > 0).all()
    assert sorted(m.ravel().tolist() for m in t) == brute_strata_tables(data, 0, 1, S, 3, 2)
    assert t.dtype == np.int64 and t.shape[1:] == (3, 2)


def test_unobserved_strata_are_omitted():
    rng = np.random.default_rng(40)
    data = random_discrete(rng, 200, [2, 3, 3, 2])
    st = SuffStats(data, [2, 3, 7, 5])  # codes 3..6 and 2..4 never occur
    t = st.table(0, 1, (2, 3))
    assert t.shape == (6, 2, 3)
    assert sorted(m.ravel().tolist() for m in t) == brute_strata_tables(data, 0, 1, (2, 3), 2, 3)


def test_table_cache_identity_and_transpose():
    rng = np.random.default_rng(42)
    data = random_discrete(rng, 300, [3, 4, 2, 2])
    st = SuffStats(data, [3, 4, 2, 2])
    t1 = st.table(0, 1, (3, 2))
    assert st.table(0, 1, [2, 3]) is t1
    t2 = st.table(1, 0, (2, 3))
    np.testing.assert_array_equal(t2, t1.transpose(0, 2, 1))
    assert not t1.flags.writeable
    with pytest.raises(ValueError):
        st.table(0, 0)
    with pytest.raises(ValueError):
        st.table(0, 1, (1,))


def test_citest_result_cache():
    rng = np.random.default_rng(43)
    data = random_discrete(rng, 300, [3, 4, 2, 2])
    st = SuffStats(data, [3, 4, 2, 2])
    for name in CI_TESTS:
        t = make_ci_test(name, st)
        a = t(0, 1, (2, 3))
        assert t(1, 0, [3, 2]) is a
        assert t.n_calls == 2 and t.n_computed == 1
        assert t.name == name and name in CI_TEST_DESCRIPTIONS


def test_suffstats_for_shares_by_content():
    rng = np.random.default_rng(44)
    data = random_discrete(rng, 500, [3, 3, 2])
    a = suffstats_for(data, [3, 3, 2])
    b = suffstats_for(data.copy(), (3, 3, 2))
    assert a is b
    other = data.copy()
    other[0, 0] = (other[0, 0] + 1) % 3
    assert suffstats_for(other, [3, 3, 2]) is not a
    assert suffstats_for(data, [3, 3, 3]) is not a
    # the shared object owns a copy: later changes to the caller's array do not leak in
    before = a.table(0, 1).copy()
    data[:, 0] = 0
    np.testing.assert_array_equal(a.table(0, 1), before)


def test_threaded_tables_agree():
    rng = np.random.default_rng(45)
    ar = [3, 3, 2, 4, 2, 3]
    data = random_discrete(rng, 5000, ar)
    queries = [(0, 1, ()), (0, 1, (2,)), (1, 2, (3, 4)), (4, 5, (0, 1, 3)), (3, 0, (5,))] * 8
    serial = [SuffStats(data, ar).table(*q).copy() for q in queries]
    shared = SuffStats(data, ar)
    with ThreadPoolExecutor(4) as ex:
        par = list(ex.map(lambda q: shared.table(*q), queries))
    for s, p in zip(serial, par):
        np.testing.assert_array_equal(s, p)


def test_chisq_from_table_2d_input():
    tab = np.array([[10, 20], [30, 5]])
    stat, dof = chisq_from_table(tab)
    assert dof == 1
    assert stat == pytest.approx(sps.chi2_contingency(tab, correction=False).statistic, rel=1e-12)


# ----------------------------------------------------------------------------- sensitivities
def test_kendall_sensitivity_table():
    for n, want in ((1_000, 0.07524), (10_000, 0.02392), (100_000, 0.0075689)):
        assert kendall_p_sensitivity(n) == pytest.approx(want, abs=1e-5)
        assert kendall_p_sensitivity(n, sided="two") == pytest.approx(2 * kendall_p_sensitivity(n), rel=1e-15)
        assert kendall_p_sensitivity(n) == pytest.approx(sps.norm.cdf(6 / math.sqrt(n)) - 0.5, rel=1e-12)
    assert kendall_z_sensitivity(10_000) == pytest.approx(0.06)
    assert kendall_z_sensitivity(10_000, c1=4.5) == pytest.approx(0.045)


def test_subsampled_and_curate_sensitivity():
    n, m = 100_000, 10_000
    ref = subsampled_p_sensitivity(n, m)
    direct = subsampled_p_sensitivity(n, m, method="direct")
    assert ref == pytest.approx(kendall_p_sensitivity(n) * math.sqrt(10), rel=1e-12)
    assert direct == pytest.approx(kendall_p_sensitivity(m), rel=1e-12)
    assert ref >= direct
    assert curate_constant("code") == pytest.approx(0.3626748, abs=1e-7)
    assert curate_constant("paper") == pytest.approx(0.51290, abs=1e-5)
    assert curate_p_sensitivity(100_000) == pytest.approx(0.0011469, abs=1e-7)
    assert curate_p_sensitivity(100_000, sided="two") == pytest.approx(2 * 0.0011469, abs=2e-7)


@pytest.mark.parametrize(
    "call",
    [
        lambda: kendall_p_sensitivity(0),
        lambda: kendall_p_sensitivity(-5),
        lambda: kendall_p_sensitivity(float("nan")),
        lambda: kendall_p_sensitivity("1000"),
        lambda: kendall_p_sensitivity(True),
        lambda: kendall_z_sensitivity(100, c1=0),
        lambda: kendall_p_sensitivity(100, sided="three"),
        lambda: subsampled_p_sensitivity(100, 200),
        lambda: subsampled_p_sensitivity(100, 0),
        lambda: subsampled_p_sensitivity(100, 10, method="magic"),
        lambda: curate_p_sensitivity(0),
        lambda: curate_p_sensitivity(100, variant="nope"),
    ],
)
def test_sensitivity_bad_params(call):
    with pytest.raises(UserError):
        call()


# ----------------------------------------------------------------------------- factory & input validation
def test_factory_errors():
    rng = np.random.default_rng(51)
    disc = SuffStats(random_discrete(rng, 100, [2, 2, 2]), [2, 2, 2])
    cont = SuffStats(rng.normal(size=(100, 3)))
    with pytest.raises(UserError, match="kendall.*chi2.*g2.*fisherz"):
        make_ci_test("spearman", disc)
    for name in ("kendall", "chi2", "g2"):
        with pytest.raises(UserError, match="discretis"):
            make_ci_test(name, cont)
    assert make_ci_test("fisherz", cont)(0, 1).dof == 97
    with pytest.raises(UserError):
        make_ci_test("kendall", disc, sided="both")
    with pytest.raises(UserError):
        make_ci_test("g2", disc, sided="one")
    with pytest.raises(UserError):
        cont.table(0, 1)


@pytest.mark.parametrize(
    "data, arities",
    [
        (np.array([[0, 1], [2, 0]]), [2, 2]),  # code out of range
        (np.array([[0, -1], [1, 0]]), [2, 2]),  # negative code
        (np.array([[0, 1], [1, 0]]), [2]),  # wrong number of arities
        (np.array([[0.5, 1.0], [1.0, 0.0]]), [2, 2]),  # non-integer codes
        (np.array([[np.nan, 1.0], [1.0, 0.0]]), None),  # NaN in numeric data
        (np.zeros(5), None),  # not 2-D
        (np.array([["a", "b"]]), None),  # not numeric
        (np.array([[object(), 1]], dtype=object), None),  # not numeric
    ],
)
def test_suffstats_validation(data, arities):
    with pytest.raises(UserError):
        SuffStats(data, arities)
    with pytest.raises(UserError):
        suffstats_for(data, arities)
