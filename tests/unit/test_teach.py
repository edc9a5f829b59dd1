"""The Learn page's computations (ui.teach), checked against their definitions."""
import math

import numpy as np
import pytest

from ui import teach
from cgdcore.data import load_dataset
from cgdcore.discover import discover


def test_sieve_examine_flow_accounts_for_every_test_and_matches_the_ledger():
    ds = load_dataset("asia", n=20_000, seed=0)
    run = discover(ds, algo="priv-pc", round_epsilon=1.0, seed=1)
    alpha = run.result.params["alpha"]
    flow = teach.sieve_examine_flow(run.result.trace, alpha)
    skeleton = [t for t in run.result.trace if t.phase == "skeleton"]
    assert flow["asked"] == len(skeleton) > 0
    assert flow["asked"] == flow["sieve_keep"] + flow["examined"] + flow["stopped"]
    assert flow["examined"] == flow["examine_remove"] + flow["examine_keep"] > 0
    # every examined test is one round of the sparse vector technique: one sieve and one examine release
    releases = run.ledger.releases
    # every round is one sieve instance (charged when it opens) and, if it fired, one examine; the last round may
    # still be open when PC ends: it has been paid for
    assert sum(r.group == "examine" for r in releases) == flow["examined"]
    assert sum(r.group == "sieve" for r in releases) in (flow["examined"], flow["examined"] + 1)
    # flips are disagreements with p ≥ α on the full data
    flips = sum((t.p_value >= alpha) != t.independent for t in skeleton if t.stage in ("sieve", "examine"))
    assert flow["flipped_sieve"] + flow["flipped_examine"] == flips


@pytest.mark.parametrize("scale", [0.5, 1.0, 2.0])
def test_floating_point_leak_plain_names_the_input_snapping_does_not(scale):
    r = teach.floating_point_leak(400_000, scale, np.random.default_rng(5))
    p0, p1 = r["plain"][0.0], r["plain"][1.0]
    assert p0["in_window"] > 500 and p1["in_window"] > 200
    assert p1["on_grid"] == 1.0 and p0["on_grid"] < 0.05  # likelihood ratio ≫ e^ε
    assert float.fromhex(p1["example_hex"]) % 2.0 ** -53 == 0
    snap = r["snapping"]
    assert set(snap[0.0]) == set(snap[1.0]) == set(r["support"])
    assert all(v % r["grid"] == 0 and abs(v) <= r["bound"] for v in r["support"])
    for v in r["support"]:  # each output's frequency ratio within ε plus 4 standard errors
        a, b = snap[0.0][v], snap[1.0][v]
        assert abs(math.log(a / b)) <= r["snapping_epsilon"] + 4 * math.sqrt(1 / a + 1 / b)
    assert r["snapping_epsilon"] > r["epsilon"]  # Theorem 1's 2^-49·B/λ term


def test_randomized_response_estimate_is_unbiased():
    est = [teach.randomized_response(0.5, 0.3, 2000, np.random.default_rng(s)) for s in range(300)]
    errors = np.array([e["estimate"] - e["true"] for e in est])
    sd = np.mean([e["sd"] for e in est])
    assert abs(errors.mean()) < 4 * sd / math.sqrt(len(est))
    assert errors.std() == pytest.approx(sd, rel=0.15)


def test_ci_lesson_magnifies_a_thin_tail_and_says_when_it_cannot_be_drawn():
    """The Learn page's default test (Asia, either ⟂ asia: G = 9.77, p = 0.0018) has a tail area invisible at the
    density's scale: a second panel shows it at its own height. A p-value of 0.2 needs no magnifying; a tail whose
    density underflows to 0 is said in words instead of drawn as nothing."""
    from scipy.stats import chi2

    from cgdcore.viz import teach

    xs = np.linspace(0, max(chi2.isf(1e-4, 1), 9.77 * 1.1), 400)
    fig = teach.ci_test_figure(xs, chi2.pdf(xs, 1), 9.77, 1, 0.0018)
    tails = [t for t in fig.data if t.fill == "tozeroy"]
    assert [t.xaxis for t in tails] == ["x", "x2"]
    zoom = fig.layout.yaxis2.range[1]
    assert chi2.pdf(9.77, 1) < zoom <= 1.2 * chi2.pdf(9.77, 1) + 1e-12  # the tail fills the panel's height
    assert min(fig.data[2].x) >= 9.77 - 0.15 * (xs.max() - 9.77)     # the panel shows the tail's neighbourhood
    assert any(a.text == "G = 9.77, p = 0.0018" for a in fig.layout.annotations)
    wide = teach.ci_test_figure(xs, chi2.pdf(xs, 1), 1.6, 1, 0.2)
    assert len([t for t in wide.data if t.fill == "tozeroy"]) == 1 and "xaxis2" not in wide.layout
    huge = np.linspace(0, 2000, 400)
    far = teach.ci_test_figure(huge, chi2.pdf(huge, 1), 1800.0, 1, 0.0)
    assert any("too small to draw" in a.text for a in far.layout.annotations)
