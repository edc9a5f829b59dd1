"""Local-DP mechanisms: channels, empirical privacy ratios, p_max calibration, bad parameters."""
import math

import numpy as np
import pytest

from cgdcore import UserError
from cgdcore.local.mechanisms import (
    bayes_vulnerability,
    channel_epsilon,
    geo_comb,
    geo_cwise,
    geometric_channel,
    geometric_epsilons_for_pmax,
    krr,
    krr_channel,
    krr_comb,
    krr_cwise,
    krr_keep_probability,
    split_budget,
)


def _empirical_log_ratio(out_a, out_b, k, min_count=300):
    """max over outputs of |ln P̂[y|a] − ln P̂[y|b]| and its 4-s.e. allowance (delta method)."""
    ca, cb = np.bincount(out_a, minlength=k), np.bincount(out_b, minlength=k)
    worst, allow = 0.0, 0.0
    for y in range(k):
        if min(ca[y], cb[y]) < min_count:
            continue
        lr = abs(math.log(ca[y] / len(out_a)) - math.log(cb[y] / len(out_b)))
        if lr > worst:
            worst, allow = lr, 4 * math.sqrt(1 / ca[y] + 1 / cb[y])
    return worst, allow


@pytest.mark.parametrize("eps,k", [(0.5, 4), (1.0, 10), (3.0, 5)])
def test_krr_empirical_ratio_within_e_eps(eps, k):
    rng = np.random.default_rng(1)
    n = 200_000
    a = krr(np.zeros(n, int), k, eps, rng)
    b = krr(np.ones(n, int), k, eps, rng)
    worst, allow = _empirical_log_ratio(a, b, k)
    assert worst <= eps + allow
    assert worst >= eps - allow  # k-RR is tight: the ratio e^ε is reached
    assert channel_epsilon(krr_channel(k, eps)) == pytest.approx(eps)


@pytest.mark.parametrize("eps", [0.3, 1.0])
def test_geometric_fixed_eps_empirical_ratio_within_its_true_ldp(eps):
    k = 6
    C = geometric_channel(k, eps)
    true_eps = channel_epsilon(C)
    rng = np.random.default_rng(2)
    n = 200_000
    a = geo_cwise(np.zeros((n, 1), int), [k], rng, eps=eps)[0][:, 0]
    b = geo_cwise(np.full((n, 1), k - 1), [k], rng, eps=eps)[0][:, 0]
    worst, allow = _empirical_log_ratio(a, b, k, min_count=200)
    assert worst <= true_eps + allow
    # neighbouring inputs are within e^ε (d-privacy with |x − x'| = 1)
    c = geo_cwise(np.full((n, 1), 2), [k], rng, eps=eps)[0][:, 0]
    d = geo_cwise(np.full((n, 1), 3), [k], rng, eps=eps)[0][:, 0]
    worst, allow = _empirical_log_ratio(c, d, k)
    assert worst <= channel_epsilon(C[2:4]) + allow


def test_pmax_mode_keeps_every_input_with_probability_pmax():
    for k, p in [(10, 0.5), (5, 0.3), (10, 0.7616)]:
        C = geometric_channel(k, geometric_epsilons_for_pmax(k, p))
        assert np.allclose(np.diag(C), p, atol=1e-9)
        assert bayes_vulnerability(C) == pytest.approx(p)
    # seed_ldp.md §2.3 unit values
    assert np.allclose(geometric_epsilons_for_pmax(10, 0.5)[:5], [0.6922, 0.9622, 1.0573, 1.0852, 1.0930], atol=1e-4)
    assert np.allclose(geometric_epsilons_for_pmax(5, 0.3), [0.2286, 0.3280, 0.3707, 0.3280, 0.2286], atol=1e-4)
    # same vulnerability, very different worst-case ε (digest: 15.49 vs 3.36)
    C = geometric_channel(10, geometric_epsilons_for_pmax(10, 0.7616))
    assert channel_epsilon(C) == pytest.approx(15.49, abs=0.01)


def test_pmax_empirically_in_the_columnwise_mechanism():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 10, size=(200_000, 1))
    y, info = geo_cwise(x, [10], rng, p_max=0.5)
    assert np.mean(y[:, 0] == x[:, 0]) == pytest.approx(0.5, abs=0.005)


def test_combined_krr_keeps_the_true_tuple_with_probability_p_only():
    rng = np.random.default_rng(4)
    ar = [3, 4, 2]
    x = rng.integers(0, ar, size=(200_000, 3))
    eps = 2.0
    y, info = krr_comb(x, ar, eps, rng)
    K = 24
    p = math.exp(eps) / (K - 1 + math.exp(eps))
    same = np.all(y == x, axis=1)
    assert same.mean() == pytest.approx(p, abs=4 * math.sqrt(p * (1 - p) / len(x)))
    # a changed tuple is uniform over the other K − 1 tuples
    codes = (y[~same] * [8, 2, 1]).sum(axis=1) - (x[~same] * [8, 2, 1]).sum(axis=1)
    assert np.all(codes != 0)


def test_combined_geometric_pmax_and_columnwise_budget_split():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 4, size=(100_000, 3))
    y, info = geo_comb(x, [4, 4, 4], rng, p_max=0.2)
    assert np.mean(np.all(y == x, axis=1)) == pytest.approx(0.2, abs=0.006)
    assert np.allclose(split_budget(6.0, [2, 4, 6]), [1.0, 2.0, 3.0])
    assert np.allclose(split_budget(6.0, [2, 4, 6], "uniform"), 2.0)
    out, info = krr_cwise(x, [4, 4, 4], 3.0, rng)
    assert np.allclose(info["epsilons"], 1.0)
    assert np.mean(out[:, 0] == x[:, 0]) == pytest.approx(krr_keep_probability(1.0, 4), abs=0.006)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf")])
def test_bad_epsilon_is_a_user_error(bad):
    x = np.zeros((10, 2), int)
    with pytest.raises(UserError):
        krr_cwise(x, [3, 3], bad, np.random.default_rng(0))
    with pytest.raises(UserError):
        geo_cwise(x, [3, 3], np.random.default_rng(0), eps=bad)


def test_pmax_below_uniform_guessing_is_a_user_error():
    with pytest.raises(UserError, match="1/10"):
        geometric_epsilons_for_pmax(10, 0.05)
    with pytest.raises(UserError):
        geo_comb(np.zeros((5, 2), int), [3, 3], np.random.default_rng(0), p_max=0.1)
    with pytest.raises(UserError):
        geo_cwise(np.zeros((5, 2), int), [3, 3], np.random.default_rng(0), p_max=1.0)


# ----------------------------------------------------------------------------- frequency oracles
from cgdcore.local import frequency as F  # noqa: E402


def _codes(bits: np.ndarray) -> np.ndarray:
    return (bits * (1 << np.arange(bits.shape[1]))).sum(axis=1)


def test_oue_empirical_ratio_within_e_eps():
    eps, k, n = 1.0, 3, 400_000
    rng = np.random.default_rng(3)
    a = _codes(F.oue_reports(np.zeros(n, int), k, eps, rng))
    b = _codes(F.oue_reports(np.ones(n, int), k, eps, rng))
    worst, allow = _empirical_log_ratio(a, b, 1 << k)
    assert worst <= eps + allow
    assert worst >= eps - allow  # reached when bit 0 is 1 and bit 1 is 0 (and vice versa)


def test_olh_given_the_hash_is_grr_with_ratio_e_eps():
    eps, k, n = 1.5, 6, 300_000
    rng = np.random.default_rng(4)
    a_, b_ = 12345, 678
    g = F.olh_buckets(eps)
    h = F.olh_hash(np.int64(a_), np.int64(b_), np.arange(k), g)
    v1, v2 = 0, int(np.flatnonzero(h != h[0])[0])
    _, _, ya = F.olh_reports(np.full(n, v1), k, eps, rng, hashes=(a_, b_))
    _, _, yb = F.olh_reports(np.full(n, v2), k, eps, rng, hashes=(a_, b_))
    worst, allow = _empirical_log_ratio(ya, yb, g)
    assert worst <= eps + allow and worst >= eps - allow


@pytest.mark.parametrize("oracle", ["grr", "oue", "olh"])
def test_frequency_estimates_are_unbiased_and_match_the_variance_formula(oracle):
    k, n, eps = 8, 20_000, 1.0
    x = np.random.default_rng(0).choice(k, size=n, p=np.arange(1, k + 1) / np.arange(1, k + 1).sum())
    f = np.bincount(x, minlength=k) / n
    est = []
    for s in range(60):
        rng = np.random.default_rng(100 + s)
        rep = {"grr": F.grr_reports, "oue": F.oue_reports, "olh": F.olh_reports}[oracle](x, k, eps, rng)
        est.append(F.estimate_frequencies(oracle, rep, k, eps, n))
    est = np.array(est)
    var = F.oracle_variance(oracle, k, eps, n, f)
    se = np.sqrt(var / len(est))
    assert np.all(np.abs(est.mean(axis=0) - f) < 4.5 * se)  # unbiased
    ratio = est.var(axis=0, ddof=1).mean() / var.mean()
    assert 0.7 < ratio < 1.4, ratio  # Wang et al. (2017) Eq. 3


def test_channel_inversion_is_unbiased_for_the_geometric_channel_and_ibu_agrees():
    k = 6
    C = geometric_channel(k, 0.8)
    f = np.array([0.3, 0.25, 0.2, 0.1, 0.1, 0.05])
    x = np.random.default_rng(0).choice(k, size=50_000, p=f)
    ests, ibus = [], []
    for s in range(30):
        y, _ = geo_cwise(x[:, None], [k], np.random.default_rng(s), eps=0.8)
        q = np.bincount(y[:, 0], minlength=k) / len(y)
        ests.append(F.invert_frequencies(q, [C]))
        ibus.append(F.ibu(q, [C])[0])
    truth = np.bincount(x, minlength=k) / len(x)
    ests = np.array(ests)
    se = ests.std(axis=0, ddof=1) / math.sqrt(len(ests))
    assert np.all(np.abs(ests.mean(axis=0) - truth) < 4.5 * se)  # unbiased (the channel is ill-conditioned)
    assert np.abs(np.mean(ibus, axis=0) - truth).max() < 0.03  # EM: on the simplex, slightly biased


def test_simplex_projection_matches_the_row_version_and_is_a_distribution():
    from cgdcore.local.frequency import project_rows

    V = np.random.default_rng(1).normal(0.1, 0.3, size=(50, 12))
    P = project_rows(V)
    assert np.allclose(P.sum(axis=1), 1) and P.min() >= 0
    for v, p in zip(V, P):
        assert np.allclose(F.project_simplex(v), p)
        # optimality: p is at least as close to v as random points of the simplex
        for w in np.random.default_rng(2).dirichlet(np.ones(12), size=20):
            assert np.sum((v - p) ** 2) <= np.sum((v - w) ** 2) + 1e-12


# ----------------------------------------------------------------------------- privatize and true ε
from cgdcore.data.dataset import Dataset  # noqa: E402
from cgdcore.local.privatize import krr_comb_eps_for_pmax, krr_cwise_eps_for_pmax, privatize  # noqa: E402


def test_pmax_tuning_matches_the_digest_table():
    assert krr_comb_eps_for_pmax(0.05, [10] * 11) == pytest.approx(22.3840, abs=1e-3)
    assert krr_cwise_eps_for_pmax(0.05, [10] * 11) == pytest.approx(36.9454, abs=1e-3)
    assert krr_cwise_eps_for_pmax(0.5, [5] * 5) == pytest.approx(16.4606, abs=1e-3)


def test_geo_comb_true_epsilon_equals_the_brute_force_channel():
    from itertools import product

    from cgdcore.local.mechanisms import geo_comb_epsilon

    ar = [2, 3, 4]
    grid = np.array(list(product(*[range(k) for k in ar])))
    for kw in [dict(p_max=0.2), dict(eps=0.7)]:
        # the full channel on the 24-point grid, from the mechanism's own ε_x
        D = np.abs(grid[:, None, :] - grid[None, :, :]).sum(axis=2)
        if "p_max" in kw:
            from scipy.optimize import brentq

            ex = np.array([brentq(lambda e: np.exp(-e * D[i]).sum() - 1 / kw["p_max"], 1e-9, 50)
                           for i in range(len(grid))])
        else:
            ex = np.full(len(grid), kw["eps"])
        Cf = np.exp(-ex[:, None] * D)
        Cf /= Cf.sum(axis=1, keepdims=True)
        value, exact = geo_comb_epsilon(ar, **kw)
        assert exact and value == pytest.approx(channel_epsilon(Cf), rel=1e-6)
        if "p_max" in kw:
            assert np.allclose(np.diag(Cf), kw["p_max"])
            # empirical: each record is reported unchanged with probability p_max
            data = np.repeat(grid, 20_000, axis=0)
            out, _ = geo_comb(data, ar, np.random.default_rng(5), p_max=kw["p_max"])
            same = np.all(out == data, axis=1).reshape(len(grid), -1).mean(axis=1)
            assert np.all(np.abs(same - kw["p_max"]) < 4 * math.sqrt(0.2 * 0.8 / 20_000))


def test_geo_comb_distinct_multisets_agree_on_every_path():
    from cgdcore.local.mechanisms import _distinct_counts

    rng = np.random.default_rng(2)
    cls = rng.integers(0, 4, size=(5000, 7))
    counts = (cls[:, :, None] == np.arange(4)).sum(axis=1)  # rows of counts summing to 7
    ref, ref_inv = np.unique(counts, axis=0, return_inverse=True)
    for dense_max in (1 << 22, 0):  # marked table, then np.unique on the keys
        distinct, inv = _distinct_counts(counts, dense_max=dense_max)
        assert np.array_equal(distinct[inv], counts)
        assert len(distinct) == len(ref) == len(set(zip(inv, ref_inv.reshape(-1))))  # the same partition
    wide = (rng.integers(0, 40, size=(300, 20))[:, :, None] == np.arange(40)).sum(axis=1)  # 21^39 keys
    distinct, inv = _distinct_counts(wide)
    assert np.array_equal(distinct[inv], wide) and len(distinct) == len(np.unique(wide, axis=0))


def test_privatize_reports_vulnerability_and_true_epsilon_and_keeps_truth():
    from cgdcore.data import load_dataset

    ds = load_dataset("sachs-cont", None, 0)
    for mech in ["krr-cwise", "krr-comb", "geo-cwise", "geo-comb"]:
        priv, rel = privatize(ds, mech, p_max=0.1, seed=1, log=True)
        assert rel.vulnerability == pytest.approx(0.1, rel=1e-6)
        assert priv.arities == (10,) * 11 and priv.truth is not None
        assert rel.privacy()["epsilon"] == rel.epsilon and rel.privacy()["model"] == "local"
    _, krr_rel = privatize(ds, "krr-cwise", p_max=0.1, seed=1, log=True)
    _, geo_rel = privatize(ds, "geo-cwise", p_max=0.1, seed=1, log=True)
    assert geo_rel.epsilon > 3 * krr_rel.epsilon  # equal guessing probability, far larger ε-LDP


def test_public_bins_are_equal_width_over_the_declared_range():
    from cgdcore.data import tabular

    x = np.r_[-5.0, 0.0, 1.0, 2.5, 9.99, 10.0, 50.0][:, None]
    ds = Dataset("u", ("x",), x, (None,), ranges={"x": (0.0, 10.0)})
    out = tabular.discretise(ds, bins=4, method="public")
    assert out.data[:, 0].tolist() == [0, 0, 0, 1, 3, 3, 3] and len(out.states[0]) == 4  # clipped at both ends
    assert out.states[0][0] == "b1 [0, 2.5)" and out.states[0][-1] == "b4 [7.5, 10]"


# ----------------------------------------------------------------------------- de-biased CI tests
from cgdcore.local.debias import DebiasedStats, DebiasedTest  # noqa: E402


def _chain(n, k, rng):
    x = rng.integers(0, k, n)
    z = np.where(rng.random(n) < 0.7, x, rng.integers(0, k, n))
    y = np.where(rng.random(n) < 0.7, z, rng.integers(0, k, n))
    return Dataset("chain", ("x", "z", "y"), np.c_[x, z, y].astype(np.uint8), (("a", "b", "c"),) * 3)


@pytest.mark.parametrize("mech,kw", [("krr-cwise", dict(epsilon=4.5)), ("krr-comb", dict(epsilon=6.0))])
def test_debiased_g_test_holds_its_level_where_the_naive_one_fails(mech, kw):
    from cgdcore.citests import make_ci_test, suffstats_for

    naive_rej = deb_rej = power = 0
    R = 60
    for s in range(R):
        priv, rel = privatize(_chain(20_000, 3, np.random.default_rng(s)), mech, seed=s, **kw)
        naive = make_ci_test("g2", suffstats_for(priv.data, priv.arities))
        deb = DebiasedTest("g2", DebiasedStats(priv.data, rel), seed=s)
        naive_rej += naive(0, 2, (1,)).p_value < 0.05  # x ⟂ y | z holds in the truth
        deb_rej += deb(0, 2, (1,)).p_value < 0.05
        power += deb(0, 1, (2,)).p_value < 0.05  # x, z dependent given y
    assert naive_rej >= 0.95 * R
    assert deb_rej <= 0.12 * R  # nominal 5%; binomial(60, .05) exceeds 7 with probability < 2%
    assert power >= 0.9 * R


def test_compiled_bootstrap_matches_the_numpy_statistic():
    priv, rel = privatize(_chain(5000, 3, np.random.default_rng(0)), "geo-cwise", epsilon=1.0, seed=0)
    st = DebiasedStats(priv.data, rel)
    test = DebiasedTest("g2", st)
    Q = np.random.default_rng(1).dirichlet(np.ones(27), size=7)
    fast = test._replicates(Q, (0, 2, 1), (3, 3, 3))
    slow = test._statistic(st.estimate(Q.reshape(7, 3, 3, 3), (0, 2, 1)))
    assert np.allclose(fast, slow, rtol=1e-9)


def test_compiled_simplex_projection_equals_the_sorting_one():
    from cgdcore.local.kernels import _project_simplex_inplace
    from cgdcore.local.frequency import project_rows

    rng = np.random.default_rng(3)
    near = rng.dirichlet(np.ones(27), size=50) + rng.normal(0, 0.01, size=(50, 27))  # inverted tables
    for V in (rng.normal(0.1, 0.3, size=(100, 12)), near, np.full((1, 5), 0.2), np.eye(4)[:1] * 3):
        for v, p in zip(V, project_rows(V)):
            w = v.copy()
            _project_simplex_inplace(w)
            assert np.allclose(w, p, rtol=0, atol=1e-14)


def test_poisson_inversion_follows_the_poisson_law():
    from scipy import stats

    from cgdcore.local.kernels import poisson_columns

    rng = np.random.default_rng(4)
    lam, cols, B = np.array([0.0, 0.3, 4.0, 37.5, 99.9]), np.array([0, 2, 3, 5, 6]), 100_000
    N = np.full((B, 7), -1.0)
    poisson_columns(lam, cols, rng.random((len(lam), B)), N)
    assert np.all(N[:, [1, 4]] == -1)  # only the given columns are written
    assert np.all(N[:, 0] == 0)
    for c, lc in zip(cols[1:], lam[1:]):
        x = N[:, c].astype(int)
        assert abs(x.mean() - lc) < 5 * math.sqrt(lc / B)
        ks = np.arange(x.max() + 1)
        expected = stats.poisson.pmf(ks, lc) * B
        keep = expected > 5
        obs = np.bincount(x, minlength=len(ks))
        chi = float(np.sum((obs[keep] - expected[keep]) ** 2 / expected[keep]))
        assert stats.chi2.sf(chi, keep.sum() - 1) > 1e-4
    top = np.zeros((1, 1))
    poisson_columns(np.array([5.0]), np.array([0]), np.array([[1 - 2.0**-53]]), top)  # past the table's end
    assert 20 <= top[0, 0] < 100


def test_debiased_pc_recovers_sachs_where_naive_pc_keeps_spurious_edges():
    from cgdcore.data import load_dataset
    from cgdcore.discover import discover

    ds = load_dataset("sachs", 30_000, 0)
    ldp = {"mechanism": "krr-cwise", "p_max": 0.5, "seed": 0}
    naive = discover(ds, algo="pc", ldp=ldp, max_order=3)
    deb = discover(ds, algo="pc", ldp={**ldp, "debias": "invert"}, max_order=3)
    assert deb.metrics["skeleton_f1"] >= 0.9
    assert naive.metrics["skeleton_f1"] <= 0.8
    assert deb.privacy["model"] == "local" and deb.privacy["epsilon"] == pytest.approx(37.68, abs=0.01)


def test_debias_refusals_are_user_errors():
    from cgdcore.data import load_dataset
    from cgdcore.discover import discover

    ds = load_dataset("asia", 2000, 0)
    with pytest.raises(UserError, match="depends on the other columns"):
        discover(ds, algo="pc", ldp={"mechanism": "geo-comb", "p_max": 0.05, "debias": "invert"})
    with pytest.raises(UserError, match="G-test"):
        discover(ds, algo="pc", ci_test="chi2", ldp={"mechanism": "krr-cwise", "epsilon": 4, "debias": "invert"})
    with pytest.raises(UserError, match="post-processing"):
        discover(ds, algo="priv-pc", round_epsilon=1, ldp={"mechanism": "krr-cwise", "epsilon": 4})
    with pytest.raises(UserError, match="exactly one"):
        discover(ds, algo="pc", ldp={"mechanism": "krr-cwise", "epsilon": 4, "p_max": 0.1})
    with pytest.raises(UserError, match="unknown local mechanism"):
        discover(ds, algo="pc", ldp={"mechanism": "rappor", "epsilon": 4})


def test_utility_curve_covers_every_mechanism_and_reproduces_the_paper_ordering():
    from cgdcore.data import load_dataset
    from cgdcore.local.compare import utility_curve

    ds = load_dataset("sachs-cont", None, 0)
    # order 2 (the Local page's default is 3): de-biased tables grow as bins^(|S|+2), so order 3 costs 8× the CPU
    # and runs the same code; the paper's ordering below holds at either (F1 0.58 ≥ 0.27 > 0.16 here, 0.13 at 3)
    rows = utility_curve(ds, levels=(0.05, 0.5), seeds=range(2), alpha=0.001, log=True, calibration="neff",
                         max_order=2)
    assert {r["pipeline"] for r in rows} == {"no noise", "naive", "de-biased"}
    assert {r["mechanism"] for r in rows} == {"no noise", "krr-cwise", "krr-comb", "geo-cwise", "geo-comb"}
    assert not any(r["mechanism"] == "geo-comb" and r["pipeline"] == "de-biased" for r in rows)

    def f1(mech):
        return np.mean([r["skeleton_f1"] for r in rows if r["mechanism"] == mech and r["pipeline"] == "naive"])

    # Binkyte et al. §5.5: geometric ≥ k-RR C-wise > k-RR Comb at equal guessing probability (naive PC)
    assert f1("geo-cwise") >= f1("krr-cwise") > f1("krr-comb")


def test_utility_figure_legend_lists_only_lines_that_can_be_seen():
    """On Sachs the naive geometric lines sit exactly on the no-noise line (and on each other), so the
    legend listed lines nobody could see. Coinciding series share one entry; a shared point's marker nests."""
    from cgdcore.viz import local as viz_local

    levels = [0.05, 0.1, 0.2]
    rows = [{"mechanism": "no noise", "pipeline": "no noise", "level": lv, "skeleton_f1": 0.58} for lv in levels]
    for mech, ys in {"geo-comb": [0.58, 0.58, 0.58], "geo-cwise": [0.58, 0.58, 0.57], "krr-comb": [0.1, 0.2, 0.3],
                     "krr-cwise": [0.1, 0.2, 0.3]}.items():
        rows += [{"mechanism": mech, "pipeline": "naive", "level": lv, "skeleton_f1": y} for lv, y in zip(levels, ys)]
    fig = viz_local.utility_figure(rows)
    shown = [t for t in fig.data if t.showlegend is not False]
    names = [t.name for t in shown]
    assert "no noise (discretised) = geo-comb · naive: 0.58" in names  # exactly on the reference: one entry
    assert not fig.layout.annotations  # the reference's value is in its legend entry, not over the markers
    assert "krr-comb · naive = krr-cwise · naive" in names  # identical series: one entry
    assert len(names) == 3
    drawn = [(tuple(t.x), tuple(t.y)) for t in shown]
    assert len(set(drawn)) == len(drawn)  # no two entries draw the same line
    # geo-cwise shares two points with the reference line only (no markers there): its markers stay visible
    geo = next(t for t in shown if t.name == "geo-cwise · naive")
    assert len(set(geo.marker.size)) == 1


def test_utility_figure_nests_markers_where_series_meet():
    from cgdcore.viz import local as viz_local

    rows = []
    for mech, ys in {"krr-comb": [0.1, 0.2], "krr-cwise": [0.1, 0.5]}.items():
        rows += [{"mechanism": mech, "pipeline": "naive", "level": lv, "skeleton_f1": y}
                 for lv, y in zip([0.1, 0.5], ys)]
    first, second = viz_local.utility_figure(rows).data
    assert first.marker.size[0] > second.marker.size[0]  # shared point: the earlier marker surrounds the later
    assert first.marker.size[1] == second.marker.size[1]


def test_utility_figure_hovers_each_points_epsilon_beside_its_p():
    """The curve compares mechanisms at equal guessing chance P; each point's hover gives its channel's ε-LDP, which
    differs between mechanisms at the same P (the axis said "higher = less private" across them)."""
    from cgdcore.local.compare import epsilon_by_level
    from cgdcore.viz import local as viz_local

    rows = [{"mechanism": mech, "pipeline": "naive", "level": lv, "skeleton_f1": y, "epsilon_ldp": e}
            for mech, pts in {"krr-comb": [(0.1, 0.2, 22.4), (0.5, 0.4, 24.9)],
                              "geo-cwise": [(0.1, 0.5, 170.0), (0.5, 0.6, 280.0)]}.items() for lv, y, e in pts]
    assert epsilon_by_level(rows)[("geo-cwise", 0.1)] == 170.0
    fig = viz_local.utility_figure(rows)
    by_name = {t.name: t for t in fig.data}
    assert list(by_name["geo-cwise · naive"].customdata) == [170.0, 280.0]
    assert list(by_name["krr-comb · naive"].customdata) == [22.4, 24.9]
    assert all("ε-LDP per record %{customdata" in t.hovertemplate for t in fig.data)
    assert "higher = less private" not in fig.layout.xaxis.title.text


@pytest.mark.parametrize("mechanism", ["krr-cwise", "geo-cwise"])
def test_local_accounting_is_the_guarantee_one_release_per_column(mechanism):
    """A local run releases each column once: the number of releases is fixed by the schema, so the basic
    composition of the columns' ε is the guarantee (not an odometer reading), and it equals the stated total."""
    from cgdcore.data import load_dataset
    from cgdcore.local.privatize import privatize

    ds = load_dataset("asia", n=300, seed=0)
    _, rel = privatize(ds, mechanism, epsilon=2.0, seed=0)
    acc = rel.privacy()["accounting"]
    assert list(acc) == ["guarantee"]
    assert acc["guarantee"]["valid"] and acc["guarantee"]["status"] == "guarantee"
    assert math.isclose(acc["guarantee"]["epsilon"], sum(rel.privacy()["per_column_epsilon"]), rel_tol=1e-12)
    assert "(8)" in acc["guarantee"]["note"]


@pytest.mark.parametrize("mechanism", [
    lambda d, ar, rng: krr_cwise(d, ar, 1.0, rng),
    lambda d, ar, rng: krr_comb(d, ar, 1.0, rng),
    lambda d, ar, rng: geo_cwise(d, ar, rng, p_max=0.5),
    lambda d, ar, rng: geo_comb(d, ar, rng, p_max=0.5),
], ids=["krr-cwise", "krr-comb", "geo-cwise", "geo-comb"])
def test_reports_do_not_depend_on_the_codes_integer_type(mechanism):
    """Codes of any integer type give the same reports from the same seed, in the kernels' own code type
    (cgdcore.data.code_dtype), so no caller's int64 array compiles the kernels again."""
    from cgdcore.data.dataset import code_dtype

    arities = (2, 3, 5)
    rng = np.random.default_rng(3)
    codes = np.column_stack([rng.integers(0, k, 500) for k in arities])
    want = code_dtype(max(arities))
    reports = [mechanism(codes.astype(t), arities, np.random.default_rng(7))[0] for t in (np.int64, np.int32, want)]
    assert all(r.dtype == want for r in reports)
    assert all(np.array_equal(r, reports[0]) for r in reports[1:])
    assert not np.array_equal(reports[0], codes)  # the reports are noisy


def test_privatize_draws_fresh_noise_unless_a_seed_is_fixed():
    """The noise of a local release comes from fresh operating-system entropy by default (it was seeded with 0, so
    anyone could rebuild every draw and read the true records back); a fixed seed is a reproducible demo and says so."""
    from cgdcore.privacy import FIXED_SEED_NOTE, noise_info

    ds = _chain(2000, 3, np.random.default_rng(0))
    a, rel_a = privatize(ds, "krr-cwise", epsilon=1.0)
    b, _ = privatize(ds, "krr-cwise", epsilon=1.0)
    assert not np.array_equal(a.data, b.data)
    assert rel_a.noise == noise_info(None) and not rel_a.noise["reproducible"]
    assert "a fresh seed from the operating system" in rel_a.notes[0]
    c, rel_c = privatize(ds, "krr-cwise", epsilon=1.0, seed=3)
    d, _ = privatize(ds, "krr-cwise", epsilon=1.0, seed=3)
    assert np.array_equal(c.data, d.data)
    assert rel_c.noise == {"seed": 3, "reproducible": True, "note": FIXED_SEED_NOTE}
    # a fresh SeedSequence kept by the caller privatises the same records again, and is reported as fresh
    ss = np.random.SeedSequence()
    e, rel_e = privatize(ds, "krr-cwise", epsilon=1.0, seed=ss)
    f, _ = privatize(ds, "krr-cwise", epsilon=1.0, seed=ss)
    assert np.array_equal(e.data, f.data) and rel_e.noise == noise_info(None)
    assert str(ss.entropy) not in " ".join(rel_e.notes)


def test_categories_read_from_the_file_are_said_to_be_taken_as_public():
    """A category only one record has (diag = HIV among flu and cold) is in the domain read from the file because of
    that record: a neighbour whose record is 'flu' can never report 'HIV', an infinite likelihood ratio. The ε-LDP a
    release states holds only if the categories were a public schema; a bundled dataset's schema is public."""
    from cgdcore.data.registry import load_dataset
    from cgdcore.data.tabular import load_csv
    from cgdcore.discover import discover
    from cgdcore.privacy import PUBLIC_CATEGORIES_NOTE

    rows = [("HIV", "no")] + [(("flu", "cold")[i % 2], ("yes", "no")[i % 3 == 0]) for i in range(199)]
    upload = load_csv(("diag,smoker\n" + "".join(f"{a},{b}\n" for a, b in rows)).encode(), name="mine.csv")
    _, rel = privatize(upload, "krr-cwise", epsilon=1.0)
    pv = rel.privacy()
    assert rel.schema_note == PUBLIC_CATEGORIES_NOTE and PUBLIC_CATEGORIES_NOTE in rel.notes
    assert pv["schema"] == PUBLIC_CATEGORIES_NOTE and pv["rule"].endswith("if the categories are a public schema")
    res = discover(upload, algo="pc", ldp={"mechanism": "krr-cwise", "epsilon": 1.0})
    js = res.to_json()
    assert js["privacy"]["schema"] == PUBLIC_CATEGORIES_NOTE and PUBLIC_CATEGORIES_NOTE in js["notes"]
    for ds in (load_dataset("asia", n=500, seed=0), load_dataset("adult", n=500, seed=0)):  # bundled: public schema
        _, rel = privatize(ds, "krr-cwise", epsilon=1.0, ranges=None, bins=4)
        assert rel.schema_note is None and "schema" not in rel.privacy() and PUBLIC_CATEGORIES_NOTE not in rel.notes
    # a file of numbers only: bins over declared public ranges, no categories read from it
    nums = load_csv(b"a,b\n" + b"".join(f"{i % 7},{i % 5}\n".encode() for i in range(100)), name="n.csv")
    _, rel = privatize(nums, "krr-cwise", epsilon=1.0, ranges={"a": (0, 6), "b": (0, 4)}, bins=3)
    assert rel.schema_note is None


def test_a_central_private_run_notes_file_read_categories_but_not_a_bundled_schema():
    """Central runs noted the categories sentence for every dataset without a truth, bundled Adult included, whose
    schema is declared; now only for categories read from the file (the one rule, Dataset.categories_from_file)."""
    from cgdcore.data.registry import load_dataset
    from cgdcore.data.tabular import load_csv
    from cgdcore.discover import discover
    from cgdcore.privacy import PUBLIC_CATEGORIES_NOTE

    rows = "".join(f"{('flu', 'cold')[i % 2]},{('yes', 'no')[i % 3 == 0]}\n" for i in range(3000))
    upload = load_csv(("diag,smoker\n" + rows).encode(), name="mine.csv")
    adult = load_dataset("adult", n=2000, seed=0)
    assert upload.categories_from_file and not adult.categories_from_file
    said = {name: PUBLIC_CATEGORIES_NOTE in discover(ds, algo="priv-pc", epsilon=1.0, seed=0, bins=3).notes
            for name, ds in (("upload", upload), ("adult", adult))}
    assert said == {"upload": True, "adult": False}
    assert PUBLIC_CATEGORIES_NOTE not in discover(upload, algo="pc").notes  # no ε, nothing to qualify
