"""Mironov's snapping mechanism (CCS 2012) and the noise-sampler switch (fixed seeds throughout)."""
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from cgdcore import UserError
from cgdcore.accounting import Ledger
from cgdcore.central.mechanisms import (
    AboveThreshold,
    laplace_mechanism,
    noisy_value,
    sieve_and_examine,
    snapping_bound,
)
from cgdcore.central.snapping import (
    FP_TERM,
    snapping_epsilon,
    snapping_grid,
    snapping_laplace,
    snapping_laplace_array,
    uniform_doubles,
)
from cgdcore.data import load_dataset
from cgdcore.discover import discover
from conftest import ROOT

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
    # the sampler switch widens B to 2Λ when λ reaches the value's range
    assert snapping_bound(0.3, 1.0) == 1.0 and snapping_bound(1.0, 1.0) == 2.0 and snapping_bound(3.0, 1.0) == 8.0


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


# ------------------------------------------------------------ mechanisms record the larger ε
def test_mechanisms_record_the_snapping_epsilon():
    rng = np.random.default_rng(0)
    plain, snap = Ledger(), Ledger()
    laplace_mechanism(0.4, 0.05, 0.5, rng, plain, sampler="plain")
    laplace_mechanism(0.4, 0.05, 0.5, rng, snap)
    assert plain.releases[0].epsilon == 0.5
    assert snap.releases[0].epsilon == 0.5 + FP_TERM * 1.0 / (0.05 / 0.5)
    assert snap.releases[0].laplace_ratio is None  # not a Laplace PLD any more

    svt_plain = AboveThreshold(0.5, 0.05, 1.0, rng, sampler="plain")
    svt_snap = AboveThreshold(0.5, 0.05, 1.0, rng)
    assert svt_plain.cost == 1.0
    assert svt_snap.cost == pytest.approx(1.0 + FP_TERM * (1.0 / 0.1 + 1.0 / 0.2), rel=1e-15)
    assert svt_snap.cost > 1.0

    data = (np.random.default_rng(1).random((40, 3)) < 0.9).astype(float)
    totals = {}
    for sampler in ("plain", "snapping"):
        led = Ledger()
        k = sieve_and_examine(data, lambda rows: rows.mean(axis=0), threshold=0.5, tweak=0.05, epsilon=1.0, m=20,
                              sensitivity_full=1 / 40, sensitivity_sub=1 / 20, rng=np.random.default_rng(2),
                              ledger=led, sampler=sampler)
        assert k is not None
        totals[sampler] = led.totals(tight=False)["basic"]["epsilon"]
    assert totals["plain"] == 1.0 and totals["snapping"] > totals["plain"]

    # arrays: vectorised, one grid
    out = noisy_value(np.linspace(0, 1, 7), 0.01, rng)
    assert out.shape == (7,) and np.all(np.mod(out, 2.0 ** -6) == 0)


# ------------------------------------------------------------------ (d) the PC algorithms
ALGOS = [("laplace-pc", dict(epsilon=5.0)), ("svt-pc", dict(epsilon=6.0)), ("priv-pc", dict(epsilon=6.0)),
         ("curate", dict(epsilon=5.0))]


@pytest.fixture(scope="module")
def asia():
    return load_dataset("asia", n=20_000, seed=0)


@pytest.mark.parametrize("algo,kw", ALGOS)
def test_algorithms_run_with_both_samplers_default_snapping(asia, algo, kw):
    runs = {s: discover(asia, algo=algo, seed=3, options=opts, **kw)
            for s, opts in (("snapping", {}), ("plain", {"sampler": "plain"}))}
    for sampler, r in runs.items():
        js = r.to_json()
        assert js["params"]["sampler"] == sampler
        assert json.loads(json.dumps(js))["params"]["sampler"] == sampler
        assert r.privacy["accounting"]["basic"]["epsilon"] <= kw["epsilon"]  # never past the budget, no slack
        assert any("Mironov" in n for n in r.notes) == (sampler == "plain")
    led, pol = runs["snapping"].extras["ledger"], runs["snapping"].extras["policy"]
    sens = runs["snapping"].params["sensitivity"]
    assert len(led.releases) > 0
    if algo in ("laplace-pc", "curate"):
        # every snapped p-value sits on its grid; the recorded ε exceeds the plain Laplace ε Δ/λ of
        # the noise drawn (λ = Δ/ε_n) by Theorem 1's term
        for t in runs["snapping"].result.trace:
            if t.epsilon:
                lam = sens / t.epsilon * (1 + 1e-12)
                big, _ = snapping_grid(lam)
                assert t.noisy % big == 0 or abs(t.noisy) == 1.0
        for rel in led.releases[:5]:
            b = snapping_bound(sens / rel.epsilon, 1.0)
            eps_n = rel.epsilon / (1 + FP_TERM * b / sens)
            assert rel.epsilon == pytest.approx(snapping_epsilon(sens, sens / eps_n, b), rel=1e-15)
            assert rel.epsilon > sens / (sens / eps_n) * (1 + 1e-15)
    elif algo == "svt-pc":
        svt = pol.svt
        assert svt.cost > svt.epsilon and svt.cost <= 1.0  # ε_n + 2^-49·ΣB/λ ≤ the per-round ε
        assert svt.cost == pytest.approx(svt.epsilon + FP_TERM * (1 / svt.threshold_scale + 1 / svt.query_scale),
                                         rel=1e-15)
        assert all(r.epsilon == svt.cost for r in led.releases)
        plain_pol = runs["plain"].extras["policy"]
        assert plain_pol.svt.cost == 1.0 and all(r.epsilon == 1.0 for r in runs["plain"].extras["ledger"].releases)
        assert svt.cost * len(led.releases) >= svt.epsilon * len(led.releases)
    else:  # priv-pc
        assert pol.noise_epsilon < 1.0 and pol.sieve_cost <= 0.5 and pol.examine_cost <= 0.5
        assert pol.examine_cost == pytest.approx(pol.noise_epsilon / 2 + FP_TERM / pol.examine_scale, rel=1e-15)
        assert pol.examine_cost > pol.noise_epsilon / 2
        plain_pol = runs["plain"].extras["policy"]
        assert plain_pol.noise_epsilon == 1.0 and plain_pol.sieve_cost == plain_pol.examine_cost == 0.5


def test_uncapped_svt_totals_snapping_vs_plain(asia):
    """Uncapped runs (the per-round ε fixed): snapping's recorded ε per hit is Theorem 1's ε for
    its noise, so totals per hit are those of plain within 1e-12 and never above the round ε."""
    tot = {}
    for sampler in ("snapping", "plain"):
        r = discover(asia, algo="svt-pc", seed=1, options={"sampler": sampler})
        led = r.extras["ledger"]
        tot[sampler] = led.totals(tight=False)["basic"]["epsilon"] / len(led.releases)
    assert tot["plain"] == 1.0 and 1.0 - 1e-12 < tot["snapping"] <= 1.0


def test_sampler_rejected_where_it_does_not_apply(asia):
    with pytest.raises(UserError, match="sampler"):
        discover(asia, algo="laplace-pc", epsilon=1.0, options={"sampler": "bogus"})
    with pytest.raises(UserError, match="em-pc"):
        discover(load_dataset("asia", n=2000, seed=0), algo="em-pc", options={"sampler": "plain"})


# ------------------------------------------------------------------------------ (e) the CLI
def test_cli_sampler_flag():
    def run(*args):
        return subprocess.run([sys.executable, "-m", "cgdcore", *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=300)

    r = run("discover", "--dataset", "asia", "--n", "5000", "--algo", "svt-pc", "--sampler", "bogus")
    assert r.returncode == 2 and "--sampler" in r.stderr and "Traceback" not in r.stderr
    r = run("discover", "--dataset", "asia", "--n", "5000", "--algo", "svt-pc", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["params"]["sampler"] == "snapping"
    r = run("discover", "--dataset", "asia", "--n", "5000", "--algo", "svt-pc", "--sampler", "plain", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["params"]["sampler"] == "plain"
    help_text = " ".join(run("discover", "--help").stdout.split())
    assert "--sampler {snapping,plain}" in help_text and "numpy's sampler" in help_text and "Mironov 2012" in help_text
