"""Mironov's snapping mechanism (CCS 2012), the Learn page's floating-point lesson (fixed seeds throughout).

The private algorithms draw exact discrete noise instead (tests/unit/test_privacy.py): snapping's grid can be
coarser than the sensitivity, which breaks the sparse-vector proof's shift argument."""
import math

import numpy as np
import pytest

from cgdcore import UserError
from cgdcore.privacy.snapping import (
    FP_TERM,
    snapping_epsilon,
    snapping_grid,
    snapping_laplace,
    snapping_laplace_array,
    uniform_doubles,
)
from conftest import Lazy

stats = Lazy("scipy.stats")

N = 400_000


# ------------------------------------------------------------------------ building blocks
def test_grid_is_the_smallest_power_of_two_at_least_lambda():
    for lam in (0.3, 0.25, 0.2500000001, 1.0, 3.0, 1e-9, 7.5e5):
        big, j = snapping_grid(lam)
        assert big == 2.0 ** j and big >= lam and big / 2 < lam
    assert snapping_grid(0.25) == (0.25, -2)


def test_uniform_doubles_reach_far_below_2_to_minus_53():
    u = uniform_doubles(np.random.default_rng(0), (N,))
    assert u.min() > 0 and u.max() < 1
    assert stats.kstest(u, "uniform").pvalue > 0.01
    # a 53-bit uniform never goes below 2^-53 on a 2^-53 grid; U* is uniform in every binade:
    # P[U* < 2^-k] = 2^-k, and values below 2^-20 are not multiples of 2^-53
    small = u[u < 2.0 ** -10]
    assert abs(small.size / N - 2.0 ** -10) < 4 * math.sqrt(2.0 ** -10 / N)
    tiny = uniform_doubles(np.random.default_rng(1), (4_000_000,))
    tiny = tiny[tiny < 2.0 ** -18]
    assert tiny.size > 0 and np.all(np.mod(tiny, 2.0 ** -53) != 0)


def test_theorem_conditions_are_enforced():
    rng = np.random.default_rng(0)
    with pytest.raises(UserError, match="2\\^46"):
        snapping_laplace(0.0, 1e-15, 1.0, rng)  # B ≥ 2^46 λ: the bound is meaningless
    with pytest.raises(UserError, match="below the clamping bound"):
        snapping_laplace(0.0, 2.0, 1.0, rng)  # λ ≥ B
    assert snapping_epsilon(0.1, 0.1, 1.0) == pytest.approx(1.0 + FP_TERM * 10.0, rel=1e-15)
    assert snapping_epsilon(0.1, 0.1, 1.0) > 1.0


# ---------------------------------------------------------------- (a) the floating-point leak
def test_plain_outputs_identify_the_input_and_snapping_outputs_do_not():
    """Inputs 0 and 1 (Δ = 1), λ = 1 (ε = 1). Plain numpy: every output of 1 + Lap that lands in
    (0, 2^-6) is a multiple of 2^-53 (1 + n is exact there), while outputs of 0 + Lap there are
    the noise itself and almost never are: the output's low bits name the input. Snapping: the
    outputs of both inputs are the same five multiples of Λ = 1 in [-B, B]."""
    window, grid = 2.0 ** -6, 2.0 ** -53
    on_grid = []
    for x in (0.0, 1.0):
        y = x + np.random.default_rng(3).laplace(0.0, 1.0, 2_000_000)
        w = y[(y > 0) & (y < window)]
        assert w.size > 3000
        on_grid.append(np.mean(np.mod(w, grid) == 0))
    assert on_grid[1] == 1.0 and on_grid[0] < 0.05  # a likelihood ratio far beyond e^ε = e

    lam, bound = 1.0, 2.0
    big, _ = snapping_grid(lam)
    supports, counts = [], []
    for x in (0.0, 1.0):
        out = snapping_laplace_array(np.full(N, x), lam, bound, np.random.default_rng(4))
        assert np.all(np.abs(out) <= bound) and np.all(np.mod(out, big) == 0)
        assert not np.any(np.signbit(out) & (out == 0))  # no -0.0
        values, c = np.unique(out, return_counts=True)
        supports.append(set(values.tolist()))
        counts.append(dict(zip(values.tolist(), c.tolist())))
    assert supports[0] == supports[1] == {-2.0, -1.0, 0.0, 1.0, 2.0}
    eps = snapping_epsilon(1.0, lam, bound)
    for v in supports[0]:
        a, b = counts[0][v], counts[1][v]
        assert abs(math.log(a / b)) <= eps + 4 * math.sqrt(1 / a + 1 / b), (v, a, b)


# ------------------------------------------------------------------- (b) the noise distribution
@pytest.mark.parametrize("value,lam,bound", [(0.3, 0.0123, 1.0), (-0.05, 0.1, 2.0), (0.0, 0.25, 8.0)])
def test_snapped_noise_is_laplace_up_to_the_grid(value, lam, bound):
    """P[out ≤ kΛ] = F(((k + ½)Λ − v)/λ) for the Lap(1) CDF F (interior value, clamp never
    reached): the empirical CDF on the grid must match it within the 1% KS band, and the same
    check must reject a 10% larger scale."""
    big, _ = snapping_grid(lam)
    out = snapping_laplace_array(np.full(N, value), lam, bound, np.random.default_rng(5))
    assert np.all(np.mod(out, big) == 0) and np.all(np.abs(out) < bound)
    ks, vals = np.unique(np.rint(out / big).astype(np.int64), return_counts=True)
    ecdf = np.cumsum(vals) / N
    band = 1.63 / math.sqrt(N)
    edges = ((ks + 0.5) * big - value)
    assert np.max(np.abs(ecdf - stats.laplace.cdf(edges / lam))) < band
    assert np.max(np.abs(ecdf - stats.laplace.cdf(edges / (1.1 * lam)))) > band
    # the noise divided by λ is Lap(1) up to the rounding: quantiles within Λ/λ of Lap(1)'s
    z = (out - value) / lam
    for q in (0.05, 0.25, 0.5, 0.75, 0.95):
        assert abs(np.quantile(z, q) - stats.laplace.ppf(q)) <= big / lam / 2 + 0.02


# -------------------------------------------------------------- (c) empirical privacy ratio
@pytest.mark.parametrize("delta_f,eps", [(0.1, 1.0), (0.03, 0.5)])
def test_snapping_output_ratio_within_its_epsilon(delta_f, eps):
    lam = delta_f / eps
    bound = 1.0
    eps_snap = snapping_epsilon(delta_f, lam, bound)
    assert eps < eps_snap < eps * (1 + 1e-12)

    def hist(x, scale, seed):
        out = snapping_laplace_array(np.full(N, x), scale, bound, np.random.default_rng(seed))
        v, c = np.unique(out, return_counts=True)
        return dict(zip(v.tolist(), c.tolist()))

    def worst(h0, h1, eps_bound):
        checked, excess = 0, -math.inf
        for v in set(h0) & set(h1):
            a, b = h0[v], h1[v]
            if min(a, b) < 1000:
                continue
            checked += 1
            excess = max(excess, abs(math.log(a / b)) - eps_bound - 4 * math.sqrt(1 / a + 1 / b))
        return checked, excess

    checked, excess = worst(hist(0.0, lam, 6), hist(delta_f, lam, 7), eps_snap)
    assert checked >= 5 and excess <= 0
    # the check has power: half the noise breaks ε
    checked, excess = worst(hist(0.0, lam / 2, 6), hist(delta_f, lam / 2, 7), eps_snap)
    assert checked >= 3 and excess > 0
