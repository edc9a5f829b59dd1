"""The closed-form PLD of k pure-ε releases equals dp_accounting's, and the ledger uses it only where it does."""
import importlib.util
import json
import math
from pathlib import Path

import pytest

from cgdcore.privacy import ledger as ledger_mod
from cgdcore.privacy.ledger import Release, pld_epsilon
from cgdcore.privacy.pld_pure import MIN_COMPOSED, PURE_MIN_DELTA, pure_epsilon_pld
from conftest import Lazy

pytestmark = pytest.mark.skipif(importlib.util.find_spec("dp_accounting") is None, reason="needs dp_accounting")
pldlib = Lazy("dp_accounting.pld.privacy_loss_distribution")
common = Lazy("dp_accounting.pld.common")


def _dp_accounting(eps, k, delta):
    one = pldlib.from_privacy_parameters(common.DifferentialPrivacyParameters(eps, 0.0),
                                         value_discretization_interval=1e-3)
    return float(one.self_compose(k).get_epsilon_for_delta(delta))


#: dp_accounting's answers at k = 3000 for the ε where each takes seconds (recorded by ``_dp_accounting`` with the
#: pinned dp_accounting; the other cases ask it live)
RECORDED = {(r["epsilon"], r["k"], r["delta"]): r["dp_accounting"] for r in json.loads(
    (Path(__file__).parent / "data" / "pld_pure_reference.json").read_text())["rows"]}


@pytest.mark.parametrize("eps", [0.001, 0.0123, 0.1, 1 / 3, 0.5, 1.0, 2.0, 3.7, 10.0])
@pytest.mark.parametrize("k", [MIN_COMPOSED, 11, 41, 167, 361, 3000])
def test_closed_form_equals_dp_accounting(eps, k):
    for delta in (PURE_MIN_DELTA, 1e-3, 0.1, 0.9):
        expected = RECORDED.get((eps, k, delta))
        if expected is None:
            expected = _dp_accounting(eps, k, delta)
        assert pure_epsilon_pld(eps, k, delta) == pytest.approx(expected, rel=1e-8, abs=1e-12)


def test_recorded_answers_are_dp_accountings():
    """One recorded answer asked again live (the smallest recorded ε, the cheapest)."""
    (eps, k, delta), expected = min(RECORDED.items())
    assert _dp_accounting(eps, k, delta) == pytest.approx(expected, rel=1e-12)


def test_closed_form_is_a_binomial_sum():
    """At the returned ε the hockey-stick divergence of the binomial PLD (plus the charged tail) is δ."""
    eps, k, delta = 0.5, 97, 1e-3
    e = pure_epsilon_pld(eps, k, delta)
    p = 1 / (1 + math.exp(-eps))
    div = 1e-15 + sum(math.comb(k, i) * p ** i * (1 - p) ** (k - i) * -math.expm1(e - (2 * i - k) * eps)
                      for i in range(k + 1) if (2 * i - k) * eps > e)
    assert div == pytest.approx(delta, rel=1e-9)


def test_bad_arguments_refused():
    for args in ((0.0, 20, 1e-3), (1.0, MIN_COMPOSED - 1, 1e-3), (1.0, 20, 0.0), (1.0, 20, 1.0)):
        with pytest.raises(ValueError):
            pure_epsilon_pld(*args)


def _releases(eps, k, delta=0.0):
    return [Release("svt", eps, delta, 0, "", "svt") for _ in range(k)]


def test_ledger_takes_the_closed_form_for_many_releases_of_one_pure_epsilon(monkeypatch):
    """Ten or more releases of one pure ε: the closed form at the grid step ε (exact losses), at every δ, equal to
    dp_accounting's where ε is on its 10⁻³ grid; anything else goes through dp_accounting."""
    calls = []
    real = ledger_mod._pld.__wrapped__

    def counting(counts, delta, interval):
        calls.append(counts)
        return real(counts, delta, interval)

    monkeypatch.setattr(ledger_mod, "_pld", counting)
    for delta in (1e-3, 1e-7):
        assert pld_epsilon(_releases(1.0, 41), delta) == pytest.approx(_dp_accounting(1.0, 41, delta), rel=1e-6)
    assert calls == []  # the closed form
    for rel, delta in ((_releases(1.0, MIN_COMPOSED - 1), 1e-3),  # dp_accounting's sparse path
                       (_releases(1.0, 20) + _releases(0.5, 20), 1e-3),  # two sizes of ε
                       (_releases(0.5, 20, 1e-6), 1e-3)):  # approximate DP
        calls.clear()
        pld_epsilon(rel, delta)
        assert len(calls) == 1


def test_ledger_pld_of_many_tiny_releases_is_not_rounded_up_past_advanced_composition():
    """437 releases of ε = 0.00128 at δ = 10⁻³ (a Priv-PC run on Sachs at ε = 0.1): dp_accounting at its default
    step 10⁻³ rounds every loss up to 10⁻³ and gave 0.265, above the advanced-composition total (~0.1) of the same
    releases; the ledger's PLD is the exact 0.0374 (dp_accounting at a 200× finer step), below advanced composition.
    A mix of two small ε goes through dp_accounting at a step fine enough to agree with its fine-step answer."""
    from dp_accounting.pld import privacy_loss_distribution as pldlib
    from dp_accounting.pld.common import DifferentialPrivacyParameters

    from cgdcore.privacy.ledger import Ledger

    def fine(parts, delta):
        total, step = None, min(eps for eps, _ in parts) / 200
        for eps, k in parts:
            one = pldlib.from_privacy_parameters(DifferentialPrivacyParameters(eps, 0.0),
                                                 value_discretization_interval=step).self_compose(k)
            total = one if total is None else total.compose(one)
        return total.get_epsilon_for_delta(delta)

    led = Ledger(budget=None, delta=1e-3)
    for _ in range(437):
        led.record("svt", 0.00128)
    tot = led.totals()
    assert tot["pld"]["epsilon"] == pytest.approx(fine([(0.00128, 437)], 1e-3), rel=1e-6)
    assert tot["pld"]["epsilon"] < tot["advanced"]["epsilon"] < tot["basic"]["epsilon"]
    mixed = _releases(0.00128, 300) + _releases(0.00064, 200)
    assert pld_epsilon(mixed, 1e-3) == pytest.approx(fine([(0.00128, 300), (0.00064, 200)], 1e-3), rel=0.05)
