"""The privacy package: the ledger as a filter, the mechanisms' costs, the noise seed, the trace, and the
findings of the privacy audit (each with a regression test that fails on the code before the fix).

The statistical checks of the mechanisms themselves (exhaustive neighbour searches, exact output
probabilities, Monte Carlo of the real classes) are in tests/statistical/test_privacy_empirical.py."""
import json
import math

import numpy as np
import pytest

from cgdcore import UserError
from cgdcore.data import load_dataset
from cgdcore.discover import discover
from cgdcore.privacy import noise_generator
from cgdcore.privacy.discrete import Lattice, NoiseStream, discrete_laplace, rational_rate
from cgdcore.privacy.ledger import (BudgetExceeded, Ledger, advanced_composition, advanced_composition_homogeneous,
                                    advanced_filter, curate_paper_composition, privpc_code_composition)
from cgdcore.privacy.mechanisms import (AboveThreshold, LaplaceMechanism, SieveAndExamine, amplified_epsilon,
                                        analytic_gaussian_sigma, sieve_epsilon)
from conftest import Lazy, ROOT, cli

stats = Lazy("scipy.stats")


@pytest.fixture(scope="module")
def asia():
    return load_dataset("asia", n=20_000, seed=0)


# ------------------------------------------------------------------------- the ledger (finding 5)
def test_direct_ledger_refuses_releases_past_its_budget():
    """Finding 5: a ledger with budget 1 accepted releases totalling 3.37 (basic's total was never checked)."""
    for rule in ("basic", "advanced"):
        led = Ledger(budget=1.0, delta=1e-6, rule=rule)
        for _ in range(4):
            led.record("laplace", 0.25)
        assert not led.can_afford(0.25)
        with pytest.raises(BudgetExceeded):
            led.record("laplace", 0.25)
        assert len(led) == 4 and led.used()[0] <= 1.0 + 1e-12
        # however many small releases are tried, nothing past the budget is ever recorded
        for _ in range(1000):
            if led.can_afford(0.01):
                led.record("laplace", 0.01)
        assert led.used()[0] <= 1.0 * (1 + 1e-12)
        assert led.totals()["advanced"]["epsilon"] <= 1.0 * (1 + 1e-12)


def test_basic_rule_checks_the_deltas_too():
    led = Ledger(budget=10.0, delta=1e-6, rule="basic")
    led.record("gaussian", 0.1, 6e-7)
    assert not led.can_afford((0.1, 6e-7, None))
    with pytest.raises(BudgetExceeded):
        led.record("gaussian", 0.1, 6e-7)


def test_advanced_filter_takes_pure_releases_only_and_zcdp_needs_rho():
    with pytest.raises(ValueError, match="pure"):
        Ledger(budget=1.0, rule="advanced").record("gaussian", 0.1, 1e-8)
    with pytest.raises(ValueError, match="rho"):
        Ledger(budget=1.0, rule="zcdp").record("gaussian", 0.1)


def test_zcdp_filter_adds_rho_and_stops_at_the_budget():
    from cgdcore.privacy.ledger import zcdp_epsilon, zcdp_rho_for

    led = Ledger(budget=1.0, delta=1e-6, rule="zcdp")
    rho_b = zcdp_rho_for(1.0, 1e-6)
    assert zcdp_epsilon(rho_b, 1e-6) == pytest.approx(1.0)
    while led.can_afford((0.1, 0.0, rho_b / 7)):
        led.record("gaussian", 0.1, rho=rho_b / 7)
    assert len(led) == 7 and led.used()[0] == pytest.approx(1.0) and led.guarantee() == (1.0, 1e-6)
    with pytest.raises(BudgetExceeded):
        led.record("gaussian", 0.1, rho=rho_b / 7)


def test_per_order_rows_of_a_zcdp_run_carry_the_rho_its_filter_composes():
    """The orders' ε are each release's own ε added up (the basic total, 0.9 here, above the guarantee 0.5); a zCDP
    run's rows also carry Σρ, which add up to what the filter spent."""
    from cgdcore.privacy.ledger import zcdp_rho_for

    led = Ledger(budget=0.5, delta=1e-6, rule="zcdp")
    rho_b = zcdp_rho_for(0.5, 1e-6)
    for order, k in ((0, 5), (1, 4)):
        for _ in range(k):
            led.record("gaussian", 0.1, rho=rho_b / 10, order=order)
    rows = led.summary()["per_order"]
    assert [(r["order"], r["releases"]) for r in rows] == [(0, 5), (1, 4)]
    assert sum(r["epsilon"] for r in rows) == pytest.approx(0.9) and led.guarantee() == (0.5, 1e-6)
    assert [r["rho"] for r in rows] == pytest.approx([rho_b / 2, 0.4 * rho_b])
    assert sum(r["rho"] for r in rows) == pytest.approx(led.summary()["zcdp"]["rho_used"])
    basic = Ledger(budget=1.0, rule="basic")
    basic.record("laplace", 0.1, order=0)
    assert "rho" not in basic.summary()["per_order"][0]


def test_the_guarantee_is_the_budget_fixed_in_advance_not_the_realised_total():
    """Finding 5: the headline was the minimum over rules at the realised (data-dependent) count."""
    led = Ledger(budget=2.0, delta=1e-6)
    for _ in range(3):
        led.record("laplace", 0.1)
    assert led.guarantee() == (2.0, 1e-6)
    s = led.summary()
    assert s["epsilon"] == 2.0 and s["used"]["epsilon"] == pytest.approx(0.3)
    assert s["accounting"]["guarantee"]["valid"] and s["accounting"]["guarantee"]["status"] == "guarantee"
    # every other row says why it is not a guarantee
    for name, row in s["accounting"].items():
        if name != "guarantee":
            assert not row["valid"] and "not a guarantee" in row["note"]
    basic = Ledger(budget=2.0, delta=1e-6, rule="basic")
    basic.record("laplace", 0.1)
    assert basic.guarantee() == (2.0, 0.0)


def test_uncapped_runs_state_the_bound_at_their_worst_case():
    led = Ledger(budget=None, delta=1e-3, worst_case=((1.0, 55),))
    led.record("above-threshold", 1.0)
    eps, delta = led.guarantee()
    assert eps == pytest.approx(min(55.0, advanced_filter(55.0, 1e-3))) and delta == 1e-3
    assert Ledger(budget=None).guarantee() is None
    # a budget larger than the worst case: the smaller bound is the guarantee
    small = Ledger(budget=100.0, delta=1e-3, worst_case=((1.0, 3),))
    assert small.guarantee()[0] == pytest.approx(3.0)


def test_advanced_filter_is_tighter_than_basic_for_many_small_releases():
    led = Ledger(budget=None, delta=1e-6)
    for _ in range(2000):
        led.record("laplace", 0.01)
    assert led.used()[0] == pytest.approx(advanced_filter(2000 * 1e-4, 1e-6))
    assert led.used()[0] < 20.0


def test_largest_uniform_spends_exactly_the_target():
    for rule in ("basic", "advanced"):
        led = Ledger(budget=5.0, delta=1e-6, rule=rule)
        led.record("laplace", 0.3)
        for t in (1, 10, 500):
            e0 = led.largest_uniform(t, 3.0)
            assert led.total_with([(e0, t)]) == pytest.approx(3.0, rel=1e-9)


def test_void_guarantee_marks_every_row():
    led = Ledger(budget=1.0)
    led.record("laplace", 0.5)
    led.void_guarantee("a reason")
    s = led.summary()
    assert s["guarantee"] is False and "a reason" in s["statement"]
    assert not any(r["valid"] for r in s["accounting"].values())


def test_composition_closed_forms():
    # Dwork–Roth Thm 3.20 for k = 500, ε0 = 0.05, δ' = 1e-3 (anchors_dp §2c: 5.437)
    e, d = advanced_composition_homogeneous(500, 0.05, 1e-3)
    assert e == pytest.approx(5.437, abs=1e-3) and d == 1e-3
    assert advanced_composition([0.05] * 500, 1e-3)[0] == pytest.approx(e)
    # the filter's bound is tighter (V/2 instead of Σε(e^ε − 1))
    assert advanced_filter(500 * 0.05 ** 2, 1e-3) < e
    # Priv-PC worked numbers (seed_privpc.md §2): (A) ε=1, K=10 → 28.937; (B) → 18.817
    assert advanced_composition_homogeneous(10, 1.0, 1e-3)[0] == pytest.approx(28.937, abs=1e-3)
    assert privpc_code_composition(10, 1.0, 1e-3)[0] == pytest.approx(18.817, abs=1e-3)
    assert privpc_code_composition(100, 0.1, 1e-3)[0] == pytest.approx(4.412, abs=1e-3)
    assert curate_paper_composition(10, 1.0, 1e-12)[0] == pytest.approx(10 + math.sqrt(20 * math.log(1e12)))


def test_pld_comparison_agrees_with_the_golden_value():
    led = Ledger(budget=None, delta=1e-3)
    for _ in range(500):
        led.record("laplace", 0.05, laplace_ratio=20.0)
    tot = led.totals()
    assert tot["basic"]["epsilon"] == pytest.approx(25.0)
    assert tot["pld"]["epsilon"] == pytest.approx(3.5613, abs=0.01)  # anchors_dp §2c
    assert tot["pld"]["status"] == "realised"


def test_ledger_chart_spells_out_pld_and_its_hover_fits():
    """The totals chart labelled a bar "pld" and nothing said what it stands for: the hover that did ran off the
    figure on one line. The tick now says it, keeping the verdict under it, and the hover wraps."""
    from cgdcore.privacy.ledger import verdict
    from cgdcore.viz.privacy import ledger_totals_figure

    led = Ledger(budget=None, delta=1e-3)
    for _ in range(50):
        led.record("laplace", 0.05, laplace_ratio=20.0)
    tot = led.totals()
    fig = ledger_totals_figure(tot)
    ticks = dict(zip(fig.layout.yaxis.tickvals, fig.layout.yaxis.ticktext))
    assert ticks["pld"] == f"pld (privacy-loss distribution)<br><i>{verdict('realised')}</i>"
    hover = dict(zip(fig.data[0].y, fig.data[0].hovertext))
    assert hover["pld"].startswith("pld (privacy-loss distribution): ε = ")
    assert all(len(line) <= 90 for h in hover.values() for line in h.split("<br>")), hover
    assert "pld" in tot  # the JSON's key stays short (the command-line contract)


@pytest.mark.parametrize("eps,delta,sigma", [(1.0, 1e-5, 3.7306), (0.1, 1e-5, 30.7496), (0.5, 1e-6, 8.0576),
                                             (5.0, 1e-5, 0.8919)])
def test_analytic_gaussian_golden_values(eps, delta, sigma):
    assert analytic_gaussian_sigma(eps, delta) == pytest.approx(sigma, abs=1e-4)


def test_subsampling_amplification_inverts_priv_pc_eps_prime():
    n, m = 100_000, 16_543
    assert amplified_epsilon(sieve_epsilon(1.0, n, m), m / n) == pytest.approx(0.5)
    assert amplified_epsilon(1.0, 0.1) == pytest.approx(0.15857, abs=1e-5)
    assert amplified_epsilon(0.7, 1.0) == 0.7


# -------------------------------------------------------------------- discrete noise (finding 3)
def test_rational_rate_never_understates_the_noise():
    for eps in (1e-4, 0.01, 0.5, 1.0, 7.3, 1e4):
        for k in (2, 1025, 1483, 40_000):
            s, t = rational_rate(eps, k)
            assert s / t <= eps / k and s / t > eps / k * (1 - 1e-5)


def test_lattice_keeps_the_sensitivity_an_integer():
    lat = Lattice.for_sensitivity(0.0113, 1.0)
    r = lat.resolution
    assert math.log2(r) == int(math.log2(r)) and r <= 0.0113 / 1024
    assert lat.sensitivity == math.ceil(0.0113 / r) + 1
    rng = np.random.default_rng(0)
    v = rng.uniform(-1.2, 1.2, 50_000)
    w = np.clip(v + rng.choice([-1, 1], v.size) * 0.0113 * rng.uniform(0.999, 1.0, v.size), -5, 5)
    assert np.abs(lat.index(v) - lat.index(w)).max() <= lat.sensitivity


def test_noise_stream_draws_the_declared_distribution():
    stream = NoiseStream(np.random.default_rng(3), 1.0, 4)
    z = np.array([stream.draw() for _ in range(2000)] + list(stream.draw(20_000)))
    a = stream.s / stream.t
    # the discrete Laplace's variance 2e^{-a}/(1 - e^{-a})²
    var = 2 * math.exp(-a) / (1 - math.exp(-a)) ** 2
    assert z.var() == pytest.approx(var, rel=0.05) and abs(z.mean()) < 4 * math.sqrt(var / z.size)
    assert np.array_equal(z, np.round(z))


def test_discrete_laplace_is_exactly_reproducible():
    a = discrete_laplace(np.random.default_rng(9), 3, 7, 1000)
    b = discrete_laplace(np.random.default_rng(9), 3, 7, 1000)
    assert np.array_equal(a, b)


def test_released_values_are_lattice_points():
    mech = LaplaceMechanism(0.01, 1.0, np.random.default_rng(0), None)
    lat = mech.noise.lattice
    for v in np.linspace(0, 1, 17):
        out = mech.release(float(v))
        assert out.noisy / lat.resolution == round(out.noisy / lat.resolution)
        assert out.noisy == pytest.approx(out.released + out.noise, abs=1e-15)
        assert out.sensitivity == pytest.approx(lat.sensitivity * lat.resolution) and out.sensitivity >= 0.01


# ------------------------------------------------------------ AboveThreshold (finding 2)
def test_above_threshold_charges_each_instance_when_it_opens():
    """Finding 2: an instance that only answered "below" was never charged."""
    led = Ledger(budget=None, delta=1e-6)
    svt = AboveThreshold(0.5, 0.01, 1.0, np.random.default_rng(0), led)
    for _ in range(20):
        assert not svt.query(-5.0).above  # far below: "below" every time
    assert len(led) == 1 and led.releases[0].epsilon == 1.0
    assert svt.query(9.0).above and not svt.is_open
    assert len(led) == 1  # the hit ends the instance it was charged with
    svt.query(-5.0)
    assert len(led) == 2  # the next query opens (and pays for) a new one


def test_a_refused_instance_is_never_opened():
    led = Ledger(budget=1.5, delta=1e-6, rule="basic")
    svt = AboveThreshold(0.5, 0.01, 1.0, np.random.default_rng(0), led)
    svt.query(9.0)
    assert not svt.can_open()
    with pytest.raises(BudgetExceeded):
        svt.query(0.1)
    assert len(led) == 1


def test_sieve_and_examine_charges_the_round_it_opens_and_the_examine_on_a_hit():
    led = Ledger(budget=None, delta=1e-6)
    rng = np.random.default_rng(1)
    mech = SieveAndExamine(0.5, 0.05, 200, 50, 1 / 200, 1 / 50, 1.0, rng, led)
    stage, indep, _, ex, charged = mech.query(lambda rows: 0.0, lambda: 0.0)
    assert stage == "sieve" and ex is None and charged == pytest.approx(0.5)
    assert len(led) == 1 and mech.rows.size == 50 and len(np.unique(mech.rows)) == 50
    stage, indep, _, ex, charged = mech.query(lambda rows: 1.0, lambda: 1.0)
    assert stage == "examine" and indep and charged == pytest.approx(0.5)
    assert led.used()[0] == pytest.approx(1.0)
    assert mech.rounds == 1 and not mech.sieve.is_open


@pytest.mark.parametrize("algo", ["svt-pc", "priv-pc"])
def test_a_run_that_deletes_nothing_still_pays_for_its_open_instance(algo):
    """Finding 2: SVT-PC and Priv-PC reported ε = 0 for a run that deleted no edge."""
    rng = np.random.default_rng(0)
    z = rng.integers(0, 3, 3000)
    data = np.column_stack([z, z, z])  # three copies: every pair strongly dependent (at order 0)
    from cgdcore.data.dataset import Dataset

    ds = Dataset(name="copies", variables=("a", "b", "c"), data=data.astype(np.int8), states=(("0", "1", "2"),) * 3)
    r = discover(ds, algo=algo, round_epsilon=20.0, seed=2, max_order=0)
    assert r.cpdag.sum() == 6  # nothing deleted
    assert r.privacy["releases"] >= 1 and r.privacy["used"]["epsilon"] > 0
    assert r.privacy["accounting"]["basic"]["epsilon"] == pytest.approx(20.0 if algo == "svt-pc" else 10.0)


# ------------------------------------------------------------------------ the noise seed (finding 4)
def test_noise_seed_defaults_to_fresh_entropy_and_is_not_reported(asia):
    """Finding 4: the noise seed defaulted to 0 and was echoed, so the noise was public."""
    a = discover(asia, algo="laplace-pc", epsilon=5.0)
    b = discover(asia, algo="laplace-pc", epsilon=5.0)
    na = [t.noise for t in a.result.trace]
    nb = [t.noise for t in b.result.trace]
    assert na != nb
    assert a.params["noise_seed"] is None and a.privacy["noise"]["reproducible"] is False
    assert "not a cryptographically secure" in a.privacy["noise"]["note"]
    assert not any("reproducible demo" in n for n in a.notes)


def test_a_fixed_noise_seed_is_a_reproducible_demo(asia):
    a = discover(asia, algo="laplace-pc", epsilon=5.0, seed=11)
    b = discover(asia, algo="laplace-pc", epsilon=5.0, seed=11)
    assert [t.noise for t in a.result.trace] == [t.noise for t in b.result.trace]
    assert a.params["noise_seed"] == 11 and a.privacy["noise"]["reproducible"] is True
    assert any("reproducible demo" in n and "knows the seed" in n for n in a.notes)
    rng, info = noise_generator(None)
    assert info["seed"] is None and isinstance(rng, np.random.Generator)


# ------------------------------------------------------------------ samplers and statistics
ALGOS = [("laplace-pc", dict(epsilon=5.0)), ("svt-pc", dict(epsilon=6.0)), ("priv-pc", dict(epsilon=6.0)),
         ("curate", dict(epsilon=5.0))]


@pytest.mark.parametrize("algo,kw", ALGOS)
def test_discrete_by_default_plain_has_no_guarantee(asia, algo, kw):
    runs = {s: discover(asia, algo=algo, seed=3, options=opts, **kw)
            for s, opts in (("discrete", {}), ("plain", {"sampler": "plain"}))}
    for sampler, r in runs.items():
        assert r.to_json()["params"]["sampler"] == sampler
        assert r.privacy["used"]["epsilon"] <= kw["epsilon"] * (1 + 1e-12)
        assert r.privacy["guarantee"] is (sampler == "discrete")
    assert "Mironov" in runs["plain"].privacy["guarantee_note"]
    assert len(runs["discrete"].ledger.releases) > 0
    # discrete noise: every noisy value is a point of a power-of-two lattice (r ≥ 2^-30 here); plain: not
    on_grid = {s: [(t.noisy * 2 ** 30).is_integer() for t in r.result.trace if math.isfinite(t.noisy)]
               for s, r in runs.items()}
    assert on_grid["discrete"] and all(on_grid["discrete"])
    assert not all(on_grid["plain"])


def test_paper_statistic_and_its_c1_have_no_guarantee(asia):
    r = discover(asia, algo="svt-pc", epsilon=5.0, options={"statistic": "paper", "c1": 4.5}, seed=0)
    assert r.privacy["guarantee"] is False and "usable" in r.privacy["guarantee_note"]
    assert r.params["c1"] == 4.5 and r.params["statistic"] == "paper"
    with pytest.raises(UserError, match="statistic 'paper'"):
        discover(asia, algo="svt-pc", epsilon=5.0, options={"c1": 4.5})
    sound = discover(asia, algo="svt-pc", epsilon=5.0, seed=0)
    assert sound.params["statistic"] == "sound" and sound.privacy["guarantee"] is True
    # the sound statistic's sensitivity: 9/√n on the z scale, Φ(9/√n) − ½ on the one-sided p-value
    assert sound.params["scale"] == "z" and sound.params["sensitivity"] == pytest.approx(9 / math.sqrt(asia.n))
    on_p = discover(asia, algo="svt-pc", epsilon=5.0, seed=0, options={"scale": "p"})
    assert on_p.params["sensitivity"] == pytest.approx(stats.norm.cdf(9 / math.sqrt(asia.n)) - 0.5, rel=1e-12)


def test_sampler_and_options_rejected_where_they_do_not_apply(asia):
    with pytest.raises(UserError, match="sampler"):
        discover(asia, algo="laplace-pc", epsilon=1.0, options={"sampler": "snapping"})
    with pytest.raises(UserError, match="em-pc"):
        discover(load_dataset("asia", n=2000, seed=0), algo="em-pc", options={"sampler": "plain"})
    with pytest.raises(UserError, match="composition"):
        discover(asia, algo="laplace-pc", epsilon=1.0, options={"composition": "pld"})


def test_basic_composition_can_be_chosen_in_advance(asia):
    r = discover(asia, algo="laplace-pc", epsilon=2.0, seed=0, options={"composition": "basic"})
    assert r.privacy["rule"] == "basic" and r.privacy["delta"] == 0.0 and r.privacy["epsilon"] == 2.0
    assert r.privacy["used"]["epsilon"] == pytest.approx(r.privacy["accounting"]["basic"]["epsilon"])


# --------------------------------------------------------------------------------- the trace
def test_trace_has_one_record_per_query_with_the_released_value(asia):
    r = discover(asia, algo="priv-pc", epsilon=8.0, round_epsilon=1.0, seed=5)
    tr = r.to_json(trace=True)["trace"]
    assert len(tr) == len(r.result.trace) and tr
    keys = {"x", "y", "S", "order", "phase", "stage", "released", "sensitivity", "noise", "noisy", "threshold",
            "independent", "epsilon"}
    assert all(keys <= set(t) for t in tr)
    assert all(t["x"] in asia.variables and all(s in asia.variables for s in t["S"]) for t in tr)
    charged = sum(t["epsilon"] for t in tr)
    assert charged == pytest.approx(r.privacy["accounting"]["basic"]["epsilon"])
    for t in tr:
        assert t["noisy"] == pytest.approx(t["released"] + t["noise"], abs=1e-12)
        assert t["stage"] in ("sieve", "examine")
    json.dumps(tr)  # nulls, not NaN
    assert "NaN" not in json.dumps(tr)
    plain = discover(asia, algo="pc").to_json(trace=True)["trace"]
    assert plain[0]["noise"] is None and plain[0]["epsilon"] is None


def test_cli_trace_and_flags():
    def run(*args):
        return cli(*args)

    base = ("discover", "--dataset", "asia", "--n", "5000", "--algo", "svt-pc")
    r = run(*base, "--json", "--trace", "--noise-seed", "3")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["params"]["sampler"] == "discrete" and out["params"]["noise_seed"] == 3
    assert len(out["trace"]) == out["n_ci_tests"] and out["privacy"]["guarantee"] is True
    r = run(*base, "--trace")
    assert r.returncode == 2 and "--json" in r.stderr
    r = run(*base, "--sampler", "snapping")
    assert r.returncode == 2 and "--sampler" in r.stderr and "Traceback" not in r.stderr
    r = run(*base)
    assert r.returncode == 0 and "differentially private" in r.stdout and "[guarantee]" in r.stdout
    assert "not a cryptographically secure" in r.stdout
    help_text = " ".join(run("discover", "--help").stdout.split())
    assert "--sampler {discrete,plain}" in help_text and "--statistic {sound,paper}" in help_text


def test_one_vocabulary_for_totals_and_comparisons_said_from_the_numbers():
    """Every total is "guarantee" or "not a guarantee (<reason>)", and a comparison with the guarantee
    says above/below from the numbers (the Budget page once said 'understates' beside a chart showing more)."""
    from cgdcore.privacy.ledger import REASON, STATUS, compare_to_guarantee, verdict

    assert verdict("guarantee") == "guarantee"
    for status in set(STATUS) - {"guarantee"}:
        v = verdict(status)
        assert v.startswith("not a guarantee (") and REASON[status] in v and len(REASON[status]) > 5
    assert compare_to_guarantee(24.18, 10.0, 10.0).startswith("above the guarantee ε = 10 (×2.4), which is the budget")
    assert compare_to_guarantee(106.2, 14_704.0).startswith("below the guarantee ε = 14,704 (÷138)")
    assert compare_to_guarantee(5.0, 3.0, 10.0) == "above the guarantee ε = 3 (×1.7) and below the budget ε = 10 (÷2)"
    assert compare_to_guarantee(10.0, 10.0).startswith("equal to")


@pytest.fixture(params=["numpy", "compiled"])
def sampler_loops(request, monkeypatch):
    """Each exact sampler test runs twice: with the numpy loops (a process that has not loaded numba) and with the
    compiled loops (cgdcore.privacy.kernels)."""
    from cgdcore.privacy import discrete, kernels

    monkeypatch.setattr(discrete, "_compiled", (lambda: None) if request.param == "numpy" else (lambda: kernels))
    return request.param


def test_compiled_and_numpy_samplers_draw_the_same_stream(monkeypatch):
    """The compiled loops make the numpy loops' generator calls: same draws and the same generator state after them,
    on ranges of one value, small ranges and 64-bit ranges that are not powers of two (which numba 0.68's own int64
    path rejects differently), for every sampler and shape of request."""
    from cgdcore.privacy import discrete, kernels

    def stream(mode, seed):
        monkeypatch.setattr(discrete, "_compiled", (lambda: None) if mode == "numpy" else (lambda: kernels))
        rng = np.random.default_rng(seed)
        plan = np.random.default_rng(10_000 + seed)  # the requests, the same in both modes
        out = []
        for _ in range(6):
            size = int(plan.integers(0, 40))
            s, t = int(plan.integers(1, 9)), int(plan.choice([1, 2, 7, 2**20, 2**40 + 3, 2**52]))
            out.append(discrete.discrete_laplace(rng, s, t, size))
            v = int(plan.choice([1, 2, 37, 10**4, 10**6 + 1, 10**9]))
            out.append(discrete.discrete_gaussian(rng, v, size))
            den = int(plan.choice([1, 3, 12345, 2 * 10**9 * 31_623**2, 2**62 + 5]))
            num = plan.integers(0, 4 * den if den < 2**60 else 2**62, size)
            out.append(discrete.bernoulli_exp(rng, num, den).astype(np.int64))
        out.append(rng.integers(0, 2**62, 2))
        return np.concatenate(out)

    for seed in range(40):
        assert np.array_equal(stream("numpy", seed), stream("compiled", seed)), seed


def test_exact_samplers_draw_the_same_stream_for_a_seed(sampler_loops):
    """Same seed, same noise, bit for bit: the discrete Laplace, discrete Gaussian and Bernoulli(exp(−γ))
    draws at seed 2024, and the generator's state after them, hash to the value the samplers gave when the
    first-round and den = 1 draws (ranges of one value, which consume no bits) were still made. A change to how
    the samplers consume the generator fails here."""
    import hashlib

    from cgdcore.privacy.discrete import bernoulli_exp, discrete_gaussian

    rng = np.random.default_rng(2024)
    parts = [discrete_laplace(rng, s, t, 500) for s, t in ((1, 1), (3, 1), (5, 3), (2**20, 2**24))]
    parts += [discrete_gaussian(rng, v, 500) for v in (1, 37, 10**6)]
    parts.append(bernoulli_exp(rng, rng.integers(0, 10**6, 500), 12345).astype(np.int64))
    parts.append(rng.integers(0, 2**62, 2))
    digest = hashlib.sha256(np.concatenate(parts).astype("<i8").tobytes()).hexdigest()
    assert digest == "2fc2227f854b2c25f3dd1807ebd4dd991d803f09d41efda6d703acc37ec710b6"


def test_lattice_index_and_value_of_one_number_equal_the_array_path():
    """One Python number takes the scalar path (Python floats): the same lattice point, of the same type, as the
    same number in an array, on edges (±0, the bound, beyond it, ±∞, the smallest subnormal, big integers)."""
    rng = np.random.default_rng(5)
    for delta, bound in ((1.0, 1.0), (0.37, 5.0), (3e-9, 1e-6), (1e6, 2.0**70)):
        lat = Lattice.for_sensitivity(delta, bound)
        values = [0.0, -0.0, lat.bound, -lat.bound, 2 * lat.bound, -3 * lat.bound, math.inf, -math.inf, 5e-324,
                  -5e-324, 1, -7, True, 2**60, *(rng.normal(0, bound, 200)).tolist()]
        for v in values:
            one, arr = lat.index(v), lat.index(np.array([v], dtype=np.float64))[0]
            assert one == arr and type(one) is np.int64, (v, one, arr)
            assert lat.value(int(one)) == lat.value(np.array([one]))[0] and type(lat.value(int(one))) is np.float64
        big = lat.index(lat.bound)
        assert lat.value(big + 12345) == lat.value(np.array([big + 12345]))[0]
        with pytest.raises(ValueError, match="NaN"):
            lat.index(math.nan)


def test_readable_numbers_round_alike_on_either_side_of_a_thousand():
    """A budget of 1000 used up to rounding (999.99999…) read "1000" beside the guarantee's "1,000"."""
    from cgdcore.privacy.ledger import readable

    assert readable(1000.0) == readable(999.99999) == readable(1000.00001) == "1,000"
    assert readable(14_704.2) == "14,704" and readable(999.4) == "999.4" and readable(0.5) == "0.5"
    assert readable(2.5e6) == "2.5e+06" and readable(5e-5) == "5e-05" and readable(0) == "0" and readable(None) == "—"
