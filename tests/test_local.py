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
