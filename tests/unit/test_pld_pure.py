"""The closed-form PLD of k pure-ε releases equals dp_accounting's, and the ledger uses it only where it does."""
import json
import math
from pathlib import Path

import pytest

from cgdcore.privacy import ledger as ledger_mod
from cgdcore.privacy.ledger import Release, pld_epsilon
from cgdcore.privacy.pld_pure import MIN_COMPOSED, PURE_MIN_DELTA, pure_epsilon_pld

pldlib = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
common = pytest.importorskip("dp_accounting.pld.common")


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


def test_ledger_takes_the_closed_form_only_where_it_agrees(monkeypatch):
    calls = []
    real = ledger_mod._pld.__wrapped__

    def counting(counts, delta):
        calls.append(counts)
        return real(counts, delta)

    monkeypatch.setattr(ledger_mod, "_pld", counting)
    assert pld_epsilon(_releases(1.0, 41), 1e-3) == pytest.approx(_dp_accounting(1.0, 41, 1e-3), rel=1e-8)
    assert calls == []  # the closed form
    for rel, delta in ((_releases(1.0, MIN_COMPOSED - 1), 1e-3),  # dp_accounting's sparse path
                       (_releases(1.0, 41), 1e-7),  # below PURE_MIN_DELTA
                       (_releases(1.0, 20) + _releases(0.5, 20), 1e-3),  # two sizes of ε
                       (_releases(0.5, 20, 1e-6), 1e-3)):  # approximate DP
        calls.clear()
        pld_epsilon(rel, delta)
        assert len(calls) == 1
